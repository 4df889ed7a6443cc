//! The merge queue's runs (SPEC "Merge queue"), the I/O around
//! `council_protocol::queue`: which queues an event acts on ([`bases_of`]), and one run
//! of one base's queue ([`advance`]): what GitHub says now ([`facts`]), the gates of the
//! pull requests that matter decided live by the release stage itself ([`decide`]), the
//! plan performed with the one executor, a queue commit built step by step and a green
//! one landed ([`drive`]), then each pull request's ledger written once, through the
//! same end of run a pull-request run has ([`ledgers`]).
//!
//! Nothing is kept between runs: every run decides from the label, its `labeled` events,
//! the queue branch, its commit's parents and the checks, as GitHub answers them now.

mod bases;
mod decide;
mod drive;
mod facts;
mod ledgers;
pub mod view;

pub use bases::bases_of;

use super::clients::Clients;
use crate::env::RunEnv;
use crate::request::PipelineRequest;
use crate::runner::Level;
use council_protocol::error::{Error, Outcome};
use council_protocol::event::{Event, PullRequest};
use council_protocol::policy::Policy;
use council_protocol::queue::{QueueOutputs, QueueRecord, QueueStatus, plan};
use council_protocol::render::text::Message;
use council_protocol::stage::{EffectReport, StageResult};

/// Rounds of one queue run: after a refused landing (the base moved under it) or a build
/// whose every candidate conflicted, the run plans again from what GitHub says now; more
/// than this wait for the next event.
const ROUNDS: usize = 3;

/// What a queue run acts with: the run, its event and its two clients.
pub struct Queue<'a> {
    pub env: &'a RunEnv,
    pub req: &'a PipelineRequest,
    pub event: &'a Event,
    pub clients: &'a Clients,
}

/// A pull request whose release stage decided in this run, with its effects performed,
/// whose ledger the queue run writes (once, with the queue's records) after it acted:
/// the one release just put in line, so that its test starts in the same run.
pub struct Carried {
    pub pr: PullRequest,
    pub results: Vec<StageResult>,
    pub reports: Vec<Vec<EffectReport>>,
    pub unfinished: Option<Error>,
}

/// One run of the queue of `base` under its `policy`, and the ledgers of every pull
/// request it (or the release stage, for `carried`) acted on: its exit and outputs.
/// `only_if_idle`: the run was started by release putting a pull request in line, not by
/// an event of the queue's own: it acts only when nothing is being tested or built (the
/// queue's own runs, serialised, take it from there).
pub async fn advance(
    q: &Queue<'_>,
    base: &str,
    policy: &Policy,
    carried: Vec<Carried>,
    only_if_idle: bool,
) -> (Outcome, QueueOutputs) {
    let mut run = drive::Run::default();
    let mut read = None;
    let reader = match facts::Reader::of(q) {
        Ok(reader) => Some(reader),
        Err(e) => {
            run.error = Some(e);
            None
        }
    };
    let busy = match (&reader, only_if_idle) {
        (Some(r), true) => facts::busy(r, base, policy).await,
        _ => Ok(false),
    };
    let rounds = match busy {
        Ok(_) if reader.is_none() => 0,
        Ok(false) => ROUNDS,
        Ok(true) => {
            run.notes.push(
                Message::new()
                    .text("merge queue of ")
                    .value(base)
                    .text(": a queue commit is in test; the queue's next run takes the line"),
            );
            0
        }
        Err(e) => {
            run.error = Some(e);
            0
        }
    };
    for round in 1..=rounds {
        let Some(reader) = &reader else { break };
        let mut facts = match facts::read(reader, base, policy).await {
            Ok(facts) => facts,
            Err(e) => {
                run.error = Some(e);
                break;
            }
        };
        if let Err(e) = decide::verdicts(q, &mut facts, base, policy, &carried).await {
            run.error = Some(e);
            break;
        }
        let planned = plan(&facts.facts, policy);
        let again = drive::perform(q, planned, &mut run).await;
        read = Some(facts);
        if !again || round == rounds {
            break;
        }
    }
    run.outputs = outputs(&run, &carried);
    tell(q, base, &run);
    let mut outcome = run.outcome();
    let written = ledgers::write(q, read.as_ref(), &run.records, carried, &run.outputs).await;
    outcome = outcome.worst(written);
    (outcome, run.outputs)
}

/// `queue-status`/`queue-sha` of the run: what it did to the queue (a test started, a
/// landing, a dequeue), else a pull request in line by this run's release (the label
/// it added, or one added by hand whose `labeled` event release found passing), else
/// the test it found still running.
fn outputs(run: &drive::Run, carried: &[Carried]) -> QueueOutputs {
    let queued = carried.iter().any(|c| {
        let mut enqueues = c
            .reports
            .iter()
            .flatten()
            .filter(|r| r.action == "action:enqueue")
            .peekable();
        // No label to add: it was on already (added by hand), and release passed it.
        enqueues.peek().is_none() || enqueues.any(|r| r.in_place())
    });
    let queued = match queued {
        true => QueueOutputs::of(QueueStatus::Queued, None),
        false => QueueOutputs::default(),
    };
    if run.outputs.status.is_some() {
        queued.then(run.outputs.clone())
    } else if queued.status.is_some() {
        queued
    } else {
        run.waiting.clone()
    }
}

/// The queue run's own part of what the user sees: its notes and warnings, a set-up
/// error or a failed write as an error, and a section of the step summary.
fn tell(q: &Queue<'_>, base: &str, run: &drive::Run) {
    let runner = &q.env.runner;
    let title = format!("council merge queue ({base})");
    for warning in &run.warnings {
        runner.annotate(Level::Warning, &title, &warning.plain());
    }
    if let Some(setup) = &run.setup {
        let message = setup.message(base);
        runner.error(
            &title,
            &format!("{} Fix: {}", message.plain(), setup.fix().advice.plain()),
        );
    }
    for failed in &run.failed {
        runner.annotate(Level::Error, &title, &failed.plain());
    }
    if let Some(e) = &run.error {
        runner.error(&title, &format!("the queue did not run: {e}"));
    }
    let mut section = format!("\n### Merge queue of {}\n\n", literal(base));
    let mut lines: Vec<String> = run.notes.iter().map(Message::markdown).collect();
    lines.extend(run.reports.iter().map(|r| {
        format!(
            "{} {}: {}",
            r.action,
            r.result_str().to_ascii_lowercase(),
            r.message().markdown()
        )
    }));
    for line in lines {
        section.push_str(&format!("- {line}\n"));
    }
    if let Some(status) = run.outputs.status {
        section.push_str(&format!(
            "\n`queue-status`: {}{}\n",
            status.as_str(),
            run.outputs
                .sha
                .as_deref()
                .map(|s| format!(", `queue-sha`: {s}"))
                .unwrap_or_default()
        ));
    }
    if let Err(e) = runner.append_summary(&section) {
        runner.annotate(Level::Warning, "council summary", &e.to_string());
    }
    if !q.env.in_actions && !q.req.json {
        runner.print(&plain(&section));
    }
}

fn literal(text: &str) -> String {
    council_protocol::render::text::literal(text)
}

/// The summary section as a terminal shows it.
fn plain(markdown: &str) -> String {
    markdown.replace("### ", "").replace('`', "")
}

/// The records of one pull request, in the order the queue made them.
pub(crate) fn of_pull(records: &[QueueRecord], number: u64) -> Vec<&QueueRecord> {
    records.iter().filter(|r| r.pr == number).collect()
}
