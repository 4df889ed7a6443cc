//! A queue plan performed, with the one executor: the effects that come first (labels,
//! comments, a queue branch no longer needed), then the plan's move: a queue commit
//! built write by write ([`Builder`], GitHub's answer to each step reported back), or the
//! green queue commit landed by a fast-forward of the base and the next test started,
//! or nothing. Every ref write and merge goes out with the release token (the executor
//! picks it: pushes by the workflow token start no workflow, so no CI would run).

use super::Queue;
use crate::app::effects::{Executor, GitAnswer, Performed};
use council_github::ApiError;
use council_protocol::error::{Error, Outcome};
use council_protocol::queue::{
    Action, Build, BuildStep, Landing, QueueOutputs, QueuePlan, QueueRecord, Refusal, SetupError,
    StepResult, outcome,
};
use council_protocol::render::text::Message;
use council_protocol::stage::{Effect, EffectReport, EffectResult};

/// Steps of one build at most: a batch of 16 is 16 merges and a handful of ref writes,
/// and a dequeued pull request two more effects; more is a builder that does not end.
const MAX_STEPS: usize = 200;

/// What the run did, over all its rounds.
#[derive(Default)]
pub struct Run {
    /// Ledger entries decided, each for its pull request, in order.
    pub records: Vec<QueueRecord>,
    /// What the run did to the queue (`queue-status`, `queue-sha`).
    pub outputs: QueueOutputs,
    /// What it found and left alone: a queue commit still in test.
    pub waiting: QueueOutputs,
    pub notes: Vec<Message>,
    pub warnings: Vec<Message>,
    /// Every write and what became of it, for the summary.
    pub reports: Vec<EffectReport>,
    /// The queue cannot run here (exit 3, the queue as it was).
    pub setup: Option<SetupError>,
    /// Writes that failed (exit 3).
    pub failed: Vec<Message>,
    /// The facts could not be read or decided (exit 3, nothing written).
    pub error: Option<Error>,
    /// Queue commits made in this run (each a CI run), and how many of them were
    /// rebuilds (the base moved, a pull request left, a split, a foreign branch).
    pub built: u32,
    pub rebuilt: u32,
}

impl Run {
    /// The run's exit: a set-up error or a read that failed is 3, a pull request that
    /// left the queue for a failed test or a conflict 1 (a failed gate decides over an
    /// unfinished run, as everywhere), a failed write 3.
    pub fn outcome(&self) -> Outcome {
        let mut ended = outcome(self.setup.as_ref(), &self.records);
        if let Some(e) = &self.error {
            ended = ended.worst(Outcome::Unfinished(e.kind()));
        }
        if !self.failed.is_empty() {
            ended = ended.worst(Outcome::EffectFailed);
        }
        ended
    }
}

/// Performs `plan`; true when the run should plan again from what GitHub says now: a
/// landing was refused because the base moved (a rebuild of the head of the line, on
/// the new base), or a build made no queue commit because every candidate conflicted
/// (those left the queue; the next in line, not decided in this round, is tested).
pub async fn perform(q: &Queue<'_>, plan: QueuePlan, run: &mut Run) -> bool {
    let executor = Executor {
        gh: q.clients.gh.as_ref(),
        release: q.clients.release.as_ref(),
        dry_run: q.req.access.dry_run,
        pr: None,
    };
    run.notes.extend(plan.notes);
    run.warnings.extend(plan.warnings);
    if let Some(setup) = plan.setup {
        run.setup = Some(setup);
        return false;
    }
    for effect in &plan.effects {
        effect_done(&executor, effect, run).await;
    }
    run.records.extend(plan.records);
    // A landing's outputs are what became of it (landed, or still in test); a wait's
    // say only what the run found.
    match plan.action {
        Action::Land(_) => {}
        Action::Wait { .. } => run.waiting = plan.outputs.clone(),
        _ => run.outputs = std::mem::take(&mut run.outputs).then(plan.outputs.clone()),
    }
    match plan.action {
        Action::Idle => false,
        Action::Wait { gate, .. } => {
            run.notes.push(gate.message.clone());
            false
        }
        Action::Build(build) => self::build(&executor, build, run).await == Made::NoneForConflicts,
        Action::Land(landing) => land(&executor, *landing, run).await,
    }
}

async fn effect_done(executor: &Executor<'_>, effect: &Effect, run: &mut Run) -> Performed {
    let performed = executor.perform(effect).await;
    if let EffectResult::Failed(why) = &performed.report.result {
        run.failed.push(
            Message::new()
                .text(format!("could not {}: ", effect.describe()))
                .append(why.clone()),
        );
    }
    run.reports.push(performed.report.clone());
    performed
}

/// The fast-forward, then what follows from GitHub's answer.
async fn land(executor: &Executor<'_>, landing: Landing, run: &mut Run) -> bool {
    let effect = landing.effect();
    let performed = executor.perform(&effect).await;
    run.reports.push(performed.report.clone());
    if matches!(performed.report.result, EffectResult::Done(_)) {
        let landed = landing.landed();
        for effect in &landed.effects {
            effect_done(executor, effect, run).await;
        }
        run.records.extend(landed.records);
        run.outputs = std::mem::take(&mut run.outputs).then(landed.outputs);
        return match landed.next {
            Some(next) => build(executor, next, run).await == Made::NoneForConflicts,
            None => false,
        };
    }
    let refusal = match (&performed.error, &performed.report.result) {
        (
            Some(ApiError::Rejected {
                status, message, ..
            }),
            _,
        )
        | (
            Some(ApiError::Forbidden {
                status, message, ..
            }),
            _,
        ) => Refusal::of_response(*status, message),
        (Some(e), _) => Refusal::Failed(e.to_string()),
        // Not attempted (a dry run): nothing more this run.
        (None, EffectResult::Skipped(why)) => {
            run.notes.push(why.clone());
            return false;
        }
        (None, result) => Refusal::Failed(result_text(result)),
    };
    let moved = refusal == Refusal::BaseMoved;
    let not = landing.refused(refusal);
    run.notes.extend(not.notes);
    if let Some(failed) = not.failed {
        run.failed.push(failed);
    }
    if not.setup.is_some() {
        run.setup = not.setup;
    }
    run.outputs = std::mem::take(&mut run.outputs).then(not.outputs);
    moved
}

fn result_text(result: &EffectResult) -> String {
    match result {
        EffectResult::Done(m)
        | EffectResult::Unchanged(m)
        | EffectResult::Skipped(m)
        | EffectResult::Refused(m)
        | EffectResult::Pending(m)
        | EffectResult::Failed(m) => m.plain(),
    }
}

/// What a build came to, for whether the run plans again.
#[derive(Debug, PartialEq, Eq)]
enum Made {
    Commit,
    /// No queue commit: every candidate conflicted and left the queue.
    NoneForConflicts,
    /// No queue commit for another reason (a write failed, a dry run): not again.
    None,
}

/// A queue commit made write by write: each step's effect performed and GitHub's answer
/// reported back to the builder.
async fn build(executor: &Executor<'_>, build: Build, run: &mut Run) -> Made {
    let rebuild = build.reason.is_rebuild();
    let mut builder = build.start();
    for _ in 0..MAX_STEPS {
        match builder.step() {
            BuildStep::Do(effect) => {
                let performed = executor.perform(&effect).await;
                run.reports.push(performed.report.clone());
                builder.report(step_result(&performed));
            }
            BuildStep::Done(built) => {
                let made = match (&built.sha, &built.failed) {
                    (Some(_), _) => Made::Commit,
                    (None, None) if built.records.iter().any(QueueRecord::failed) => {
                        Made::NoneForConflicts
                    }
                    _ => Made::None,
                };
                if built.sha.is_some() {
                    run.built += 1;
                    if rebuild {
                        run.rebuilt += 1;
                    }
                }
                run.records.extend(built.records);
                run.notes.extend(built.notes);
                if let Some(failed) = built.failed {
                    run.failed.push(failed);
                }
                run.outputs = std::mem::take(&mut run.outputs).then(built.outputs);
                return made;
            }
        }
    }
    run.failed.push(Message::new().text(format!(
        "the queue commit was not finished within {MAX_STEPS} writes; the next run starts over"
    )));
    Made::None
}

/// GitHub's answer to a build step, as the builder tells them apart.
fn step_result(performed: &Performed) -> StepResult {
    match (&performed.git, &performed.report.result) {
        (Some(GitAnswer::Merged(sha)), _) => StepResult::Merged { sha: sha.clone() },
        (Some(GitAnswer::NothingToMerge), _) => StepResult::NothingToMerge,
        (Some(GitAnswer::Conflict), _) => StepResult::Conflict,
        (Some(GitAnswer::Exists), _) => StepResult::Exists,
        (Some(GitAnswer::Missing), _) => StepResult::Missing,
        (None, EffectResult::Done(_) | EffectResult::Unchanged(_)) => StepResult::Done,
        (None, EffectResult::Skipped(why)) => StepResult::Skipped(why.clone()),
        (
            None,
            EffectResult::Refused(why) | EffectResult::Pending(why) | EffectResult::Failed(why),
        ) => StepResult::Failed(why.clone()),
    }
}
