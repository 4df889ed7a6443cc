//! The one end of every pull-request run, whatever stages ran: perform the effects the
//! stages asked for, seal the timeline onto the ledger, write the audit file, upload it,
//! then annotations, summary and outputs, and the exit code, decided in one place.
//! Nothing here fails the run by returning early: a failed effect is reported and the
//! verdict's code and outputs stand.

use super::audit_file;
use super::effects::Executor;
use super::ledger::{Ledger, Timing};
use super::now;
use super::run_json;
use super::upload::{Upload, upload};
use crate::env::RunEnv;
use crate::request::PipelineRequest;
use crate::runner::Level;
use council_github::artifact::artifact_name;
use council_github::{GitHub, RepoName};
use council_protocol::audit::ContextObject;
use council_protocol::audit::ReleaseStatus;
use council_protocol::audit::stored::Links;
use council_protocol::audit::timeline::{Record, new_entry};
use council_protocol::error::{Error, Outcome};
use council_protocol::event::{Event, PullRequest};
use council_protocol::gates::{GateOutcome, Verdict};
use council_protocol::queue::{QueueOutputs, QueueStatus};
use council_protocol::render::summary::{self, RunReport};
use council_protocol::render::text::Message;
use council_protocol::stage::effect::Merge;
use council_protocol::stage::result::{entries, outcome};
use council_protocol::stage::{
    Effect, EffectReport, EffectResult, Output, Outputs, Stage, StageResult, Status, release,
};

/// Everything a pull-request run acts with.
pub struct PrRun<'a> {
    pub env: &'a RunEnv,
    pub req: &'a PipelineRequest,
    pub event: &'a Event,
    pub repo: &'a RepoName,
    pub pr: &'a PullRequest,
    /// The workflow token's client (`None`: no token, nothing is read or written).
    pub gh: Option<&'a GitHub>,
    /// The release token's client: merges only.
    pub release: Option<&'a GitHub>,
}

/// Where an annotation about an effect comes from.
struct Done {
    title: String,
    report: EffectReport,
}

impl Done {
    fn new(title: &str, report: EffectReport) -> Done {
        Done {
            title: title.to_string(),
            report,
        }
    }
}

/// What the run has to show so far: what became of each effect, and the summary's notes.
#[derive(Default)]
struct Shown {
    done: Vec<Done>,
    notes: Vec<Message>,
}

/// What the merge queue adds to one pull request's end of run, beside its stages (or
/// alone, for a pull request the queue acted on without a stage deciding it).
#[derive(Debug, Default)]
pub struct QueuePart {
    /// Ledger entries in the order the queue decided them, sealed after the stages'.
    pub records: Vec<Record>,
    /// The `check:queue` verdicts among them: annotations and the exit code (recorded
    /// once, through `records`).
    pub gates: Vec<GateOutcome>,
    /// `release-status` when the queue decides it (`MERGED`: it landed).
    pub release: Option<ReleaseStatus>,
    /// `queue-status`/`queue-sha` for this pull request.
    pub outputs: QueueOutputs,
    pub notes: Vec<Message>,
}

/// The end of a pull-request run, step by step: the effects, this run's entries, the
/// ledger, the audit file, the artifact, then what the user sees and the exit code.
pub async fn finish(
    run: &PrRun<'_>,
    results: Vec<StageResult>,
    unfinished: Option<Error>,
) -> Outcome {
    finish_with(run, results, unfinished, None, QueuePart::default()).await
}

/// The stages' effects performed ahead of [`finish_with`]: release's label that puts a
/// pull request in the merge queue must be there before the queue reads its line.
pub async fn perform(run: &PrRun<'_>, results: &mut [StageResult]) -> Vec<Vec<EffectReport>> {
    perform_effects(&executor_of(run), results).await
}

fn executor_of<'a>(run: &PrRun<'a>) -> Executor<'a> {
    Executor {
        gh: run.gh,
        release: run.release,
        dry_run: run.req.access.dry_run,
        pr: Some(run.pr),
    }
}

/// [`finish`] with the effects already performed (`performed`, from [`perform`]) and
/// what the merge queue adds: one ledger write for the pull request, whatever both did.
pub async fn finish_with(
    run: &PrRun<'_>,
    mut results: Vec<StageResult>,
    unfinished: Option<Error>,
    performed: Option<Vec<Vec<EffectReport>>>,
    queue: QueuePart,
) -> Outcome {
    let executor = executor_of(run);
    let reports = match performed {
        Some(reports) => reports,
        None => perform_effects(&executor, &mut results).await,
    };
    let mut ours = this_runs_entries(run, &results, &reports);
    append_queue_records(run, &mut ours, &queue.records);
    let mut queue = queue;
    if let Some(status) = queue.release {
        for result in results.iter_mut().filter(|r| r.stage == Stage::Release) {
            result.status = Status::Release(status);
        }
    }
    queue.outputs = enqueued(&results, &reports).then(std::mem::take(&mut queue.outputs));
    let mut shown = Shown::default();
    for (result, reports) in results.iter().zip(reports) {
        let title = format!("council {}", result.stage);
        shown
            .done
            .extend(reports.into_iter().map(|r| Done::new(&title, r)));
        shown.notes.extend(result.notes.iter().cloned());
    }
    shown.notes.append(&mut queue.notes);
    let stage = match results.first() {
        Some(first) => first.stage,
        None => Stage::Release,
    };
    let (context, comment_written) = keep_ledger(run, &executor, stage, &ours, &mut shown).await;
    let audit_path = write_audit_file(run, &context, &mut shown);
    if let Some(report) =
        super::audit::record(run.env, run.req, &context, run.pr, comment_written).await
    {
        shown.done.push(Done::new("council audit store", report));
    }
    let artifact_id = match &audit_path {
        Some(path) => upload_artifact(run, &context, path, &mut shown).await,
        None => String::new(),
    };
    tell(
        run,
        &results,
        shown,
        unfinished.as_ref(),
        &context,
        audit_path,
        artifact_id,
        &queue,
    )
}

/// The queue's records after the stages' entries, as the release agent's, about the
/// pull request's head; a second record of the same action in this run gets its own id
/// (`…#2`), as a stage's repeated effects do.
fn append_queue_records(run: &PrRun<'_>, ours: &mut ContextObject, records: &[Record]) {
    if records.is_empty() {
        return;
    }
    let time = now();
    let mut seen: Vec<String> = ours.timeline.iter().map(|e| e.id.clone()).collect();
    let entries: Vec<council_protocol::audit::Entry> = records
        .iter()
        .map(|record| {
            let mut entry = new_entry(&run.env.run, record, &run.pr.head_sha, &time);
            let base = entry.id.clone();
            let mut n = 1;
            while seen.contains(&entry.id) {
                n += 1;
                entry.id = format!("{base}#{n}");
            }
            seen.push(entry.id.clone());
            entry
        })
        .collect();
    ours.append(entries);
}

/// `QUEUED` when this run's release put the pull request in the merge queue.
fn enqueued(results: &[StageResult], reports: &[Vec<EffectReport>]) -> QueueOutputs {
    let done = results.iter().zip(reports).any(|(result, reports)| {
        release::queued(result)
            && reports
                .iter()
                .any(|r| r.action == "action:enqueue" && r.in_place())
    });
    match done {
        true => QueueOutputs::of(QueueStatus::Queued, None),
        false => QueueOutputs::default(),
    }
}

/// Each stage's effects, in stage order; a release's status then says what became of
/// its own merge or revert.
async fn perform_effects(
    executor: &Executor<'_>,
    results: &mut [StageResult],
) -> Vec<Vec<EffectReport>> {
    let mut reports = Vec::with_capacity(results.len());
    for result in results.iter_mut() {
        let mut done = executor.run(&result.effects).await;
        confirm_landing(executor, result, &mut done).await;
        settle_release(result, &done);
        reports.push(done);
    }
    reports
}

/// Right after a merge, where GitHub says it landed: the merge endpoint pins the head,
/// never the base, so a pull request retargeted after the decision lands where no gate
/// looked. That is a failed `target_policy` (replacing the verdict the decision was made
/// with) and, with `release.rollback`, a revert; a base that cannot be read back is a
/// failed effect, never taken on trust.
async fn confirm_landing(
    executor: &Executor<'_>,
    result: &mut StageResult,
    reports: &mut Vec<EffectReport>,
) {
    let merged: Vec<Merge> = result
        .effects
        .iter()
        .zip(reports.iter())
        .filter_map(|(effect, report)| match (effect, &report.result) {
            (Effect::Merge(merge), EffectResult::Done(_)) => Some(merge.clone()),
            _ => None,
        })
        .collect();
    let Some(reader) = executor.gh.or(executor.release) else {
        return;
    };
    for merge in merged {
        let landed = match reader.get_pull(merge.number).await {
            Ok(pull) => pull
                .pointer("/base/ref")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            Err(e) => {
                reports.push(unconfirmed(&merge, &e.to_string()));
                result.effects.push(Effect::Merge(merge));
                continue;
            }
        };
        let Some(landed) = landed else {
            reports.push(unconfirmed(&merge, "GitHub's answer names no base"));
            result.effects.push(Effect::Merge(merge));
            continue;
        };
        let Some(misplaced) = release::misplaced(&merge, &landed) else {
            continue;
        };
        match result
            .gates
            .iter_mut()
            .find(|g| g.action == misplaced.gate.action)
        {
            Some(gate) => *gate = misplaced.gate,
            None => result.gates.push(misplaced.gate),
        }
        if let Some(revert) = misplaced.revert {
            reports.push(executor.perform(&revert).await.report);
            result.effects.push(revert);
        }
    }
}

/// A merge whose base could not be read back: failed, so that someone looks.
fn unconfirmed(merge: &Merge, why: &str) -> EffectReport {
    EffectReport::new(
        "action:merge",
        EffectResult::Failed(
            Message::new()
                .text(format!(
                    "merged #{}, but the base it landed on could not be read back ({why}): \
                     check that it was merged into ",
                    merge.number
                ))
                .value(&merge.base),
        ),
    )
}

/// This run's decisions and effects as a Context Object of its own entries, to be
/// sealed onto the stored ledger.
fn this_runs_entries(
    run: &PrRun<'_>,
    results: &[StageResult],
    reports: &[Vec<EffectReport>],
) -> ContextObject {
    let time = now();
    let mut ours = ContextObject::new(&run.repo.full(), run.pr, &run.event.trigger(), &time);
    ours.append(entries(
        results,
        reports,
        &run.env.run,
        &run.pr.head_sha,
        &time,
    ));
    ours
}

/// Seals this run's entries onto the stored ledger and writes its comment; the whole
/// Context Object the audit file gets, and whether the comment holds it.
async fn keep_ledger(
    run: &PrRun<'_>,
    executor: &Executor<'_>,
    stage: Stage,
    ours: &ContextObject,
    shown: &mut Shown,
) -> (ContextObject, bool) {
    let env = run.env;
    let ledger = Ledger {
        run: &env.run,
        key: run.req.hmac_key.as_ref(),
        gh: run.gh,
        executor,
        repo: run.repo,
        repo_id: env
            .repository_id
            .or_else(|| run.event.repository_id(&run.repo.full())),
        pr: run.pr,
        links: Links {
            run_url: env.run_url(run.repo),
            artifact: Some(artifact_name(run.pr.number)),
        },
        stage,
        timing: Timing {
            now: chrono::Utc::now(),
            unit: env.retry.base_delay,
        },
    };
    let persisted = ledger.persist(ours).await;
    for warning in &persisted.warnings {
        env.runner
            .annotate(Level::Warning, "council ledger", warning);
    }
    let written = persisted
        .effect
        .as_ref()
        .is_some_and(|r| matches!(r.result, EffectResult::Done(_) | EffectResult::Unchanged(_)));
    if let Some(report) = persisted.effect {
        shown.done.push(Done::new("council ledger", report));
    }
    if let Some(gh) = run.gh {
        shown
            .notes
            .push(Message::new().text(format!("GitHub API requests: {}", gh.requests())));
    }
    shown.notes.extend(persisted.notes);
    (persisted.context, written)
}

/// `out/audit/PR-<n>.json` in the workspace; its path, or `None` when it could not be
/// written (a failed effect: the verdict stands).
fn write_audit_file(run: &PrRun<'_>, context: &ContextObject, shown: &mut Shown) -> Option<String> {
    match audit_file::write(&run.env.workspace, context) {
        Ok(written) => {
            // A file that was there: replaced (a notice) or kept (a warning), told once.
            if let Some((level, said)) = &written.said {
                run.env.runner.annotate(*level, "council audit file", said);
            }
            shown
                .notes
                .push(Message::new().text("audit file: ").value(&written.path));
            Some(written.path)
        }
        Err(why) => {
            let failed = EffectResult::Failed(Message::new().text(why));
            shown.done.push(Done::new(
                "council audit file",
                EffectReport::new("action:write-audit", failed),
            ));
            None
        }
    }
}

/// The audit file as the artifact `audit-PR-<n>`; its id, empty when none was uploaded.
async fn upload_artifact(
    run: &PrRun<'_>,
    context: &ContextObject,
    audit_path: &str,
    shown: &mut Shown,
) -> String {
    match upload(run.env, &run.req.upload, run.pr.number, context, audit_path).await {
        Upload::Done(id, report) => {
            shown.done.push(Done::new("council artifact", report));
            id
        }
        Upload::Off(why) => {
            shown.notes.push(Message::new().text(why));
            String::new()
        }
        Upload::Skipped(why) => {
            run.env
                .runner
                .annotate(Level::Notice, "council artifact", &why);
            shown
                .notes
                .push(Message::new().text(format!("artifact not uploaded: {why}")));
            String::new()
        }
        Upload::Failed(report) => {
            shown.done.push(Done::new("council artifact", report));
            String::new()
        }
    }
}

/// What the user sees, in one place: annotations, the outputs (first: a summary that
/// cannot be written must not cost them), the step summary, the terminal or `--json`;
/// and the exit code, which a computed verdict decides.
#[allow(clippy::too_many_arguments)]
fn tell(
    run: &PrRun<'_>,
    results: &[StageResult],
    shown: Shown,
    unfinished: Option<&Error>,
    context: &ContextObject,
    audit_path: Option<String>,
    artifact_id: String,
    queue: &QueuePart,
) -> Outcome {
    let env = run.env;
    if env.in_actions {
        announce(env, results, &shown.done);
        announce_queue(env, &queue.gates);
    }
    if let Some(e) = unfinished {
        env.runner.error(crate::exit::title(e), &e.to_string());
    }
    let effects: Vec<EffectReport> = shown.done.into_iter().map(|d| d.report).collect();
    let report = RunReport {
        pr: run.pr,
        stages: results,
        effects: &effects,
        notes: shown.notes,
    };
    let mut markdown = summary::markdown(&report);
    if let Some(e) = unfinished {
        markdown.push('\n');
        markdown.push_str(&crate::exit::summary_section(e));
    }
    let mut outputs = Outputs::of_results(results);
    if let Some(status) = queue.release
        && results.is_empty()
    {
        outputs.set(Output::ReleaseStatus, status.as_str());
    }
    outputs
        .set(Output::Context, context.to_compact_json())
        .set(Output::AuditPath, audit_path.unwrap_or_default())
        .set(Output::ArtifactId, artifact_id)
        .set_queue(&queue.outputs);
    if let Err(e) = env.runner.set_outputs(&outputs.pairs()) {
        env.runner
            .annotate(Level::Warning, "council outputs", &e.to_string());
    }
    if let Err(e) = env.runner.append_summary(&markdown) {
        env.runner
            .annotate(Level::Warning, "council summary", &e.to_string());
    }
    let mut ended = outcome(
        results,
        effects.iter().any(EffectReport::failed),
        unfinished.map(Error::kind),
    );
    if queue.gates.iter().any(|g| g.verdict == Verdict::Fail) {
        ended = ended.worst(Outcome::GateFailed);
    }
    if run.req.json {
        let json = run_json::pr_run(
            run.req.invoked_as,
            &run.repo.full(),
            &report,
            &outputs,
            crate::exit::outcome_code(ended),
            unfinished,
        );
        env.runner.println(&json.to_string());
    } else if !env.in_actions {
        env.runner.print(&summary::plain(&report));
    }
    ended
}

/// A release's status is what became of this run's own effects (`reports` answer
/// `result.effects` one for one): [`release::settle`] decides.
fn settle_release(result: &mut StageResult, reports: &[EffectReport]) {
    let Status::Release(decided) = result.status else {
        return;
    };
    let done: Vec<(&Effect, &EffectReport)> = result.effects.iter().zip(reports).collect();
    result.status = Status::Release(release::settle(decided, &done));
}

/// The merge queue's failed verdicts, as a failed gate is told.
fn announce_queue(env: &RunEnv, gates: &[GateOutcome]) {
    for gate in gates.iter().filter(|g| g.verdict == Verdict::Fail) {
        env.runner.annotate(
            Level::Error,
            &format!("council release: {} ({})", gate.gate, gate.action),
            &gate.timeline_message(),
        );
    }
}

/// One error annotation per failed gate, naming the rule and the fix, and a notice per
/// gate that waits (what it waits for); a warning for a refused or failed effect, a
/// notice for a skipped or waiting one.
fn announce(env: &RunEnv, results: &[StageResult], done: &[Done]) {
    for result in results {
        for gate in &result.gates {
            let level = match gate.verdict {
                Verdict::Pass => continue,
                Verdict::Fail => Level::Error,
                Verdict::Pending => Level::Notice,
            };
            env.runner.annotate(
                level,
                &format!("council {}: {} ({})", result.stage, gate.gate, gate.action),
                &gate.timeline_message(),
            );
        }
    }
    for d in done {
        let level = match d.report.result {
            EffectResult::Done(_) | EffectResult::Unchanged(_) => continue,
            EffectResult::Skipped(_) | EffectResult::Pending(_) => Level::Notice,
            EffectResult::Refused(_) => Level::Warning,
            // A failed effect decides exit 3 when every gate passed: an error, not a hint.
            EffectResult::Failed(_) => Level::Error,
        };
        env.runner.annotate(
            level,
            &format!("{}: {}", d.title, d.report.action),
            &d.report.message().plain(),
        );
    }
}
