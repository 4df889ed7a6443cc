//! Each pull request the queue run acted on gets its records in its own Context Object,
//! through the same end of run as a pull-request run ([`finish_with`]): one ledger write,
//! its audit file and artifact, its outputs. A pull request release put in line in this
//! run has its stages' entries and the queue's written together.

use std::collections::BTreeMap;

use super::facts::Read;
use super::{Carried, Queue, of_pull};
use crate::app::finish::{PrRun, QueuePart, finish_with};
use council_protocol::audit::ReleaseStatus;
use council_protocol::error::Outcome;
use council_protocol::event::PullRequest;
use council_protocol::queue::{QueueOutputs, QueueRecord};

pub async fn write(
    q: &Queue<'_>,
    read: Option<&Read>,
    records: &[QueueRecord],
    carried: Vec<Carried>,
    outputs: &QueueOutputs,
) -> Outcome {
    let mut worst = Outcome::Passed;
    let mut numbers: Vec<u64> = Vec::new();
    for r in records {
        if !numbers.contains(&r.pr) {
            numbers.push(r.pr);
        }
    }
    let mut carried: BTreeMap<u64, Carried> =
        carried.into_iter().map(|c| (c.pr.number, c)).collect();
    for number in carried.keys() {
        if !numbers.contains(number) {
            numbers.push(*number);
        }
    }
    // Each pull request's end of run writes the run's outputs, the last one's standing:
    // those that landed go last, so a run that landed says `release-status: MERGED`
    // (and its `context` and `audit-path` are of the pull request landed last) even when
    // it also started the next test or dequeued another.
    numbers.sort_by_key(|n| {
        records
            .iter()
            .any(|r| r.pr == *n && r.action == "action:merge" && r.result == "DONE")
    });
    for number in numbers {
        let mine = of_pull(records, number);
        let part = part(&mine, outputs);
        let (mut subject, results, reports, unfinished) = match carried.remove(&number) {
            Some(c) => (c.pr, c.results, c.reports, c.unfinished),
            None => {
                let Some(pr) = subject(q, read, number).await else {
                    continue;
                };
                (pr, Vec::new(), Vec::new(), None)
            }
        };
        // Entries name the head the queue decided about.
        if let Some(last) = mine.last() {
            subject.head_sha.clone_from(&last.sha);
        }
        let run = PrRun {
            env: q.env,
            req: q.req,
            event: q.event,
            repo: &q.clients.repo,
            pr: &subject,
            gh: q.clients.gh.as_ref(),
            release: q.clients.release.as_ref(),
        };
        let ended = finish_with(&run, results, unfinished, Some(reports), part).await;
        worst = worst.worst(ended);
    }
    worst
}

/// What the queue adds to one pull request's end of run.
fn part(records: &[&QueueRecord], outputs: &QueueOutputs) -> QueuePart {
    let landed = records
        .iter()
        .any(|r| r.action == "action:merge" && r.result == "DONE");
    QueuePart {
        records: records.iter().map(|r| r.record()).collect(),
        gates: records.iter().filter_map(|r| r.gate.clone()).collect(),
        release: landed.then_some(ReleaseStatus::Merged),
        outputs: outputs.clone(),
        notes: Vec::new(),
    }
}

/// The pull request as the queue read it, else as GitHub has it now.
async fn subject(q: &Queue<'_>, read: Option<&Read>, number: u64) -> Option<PullRequest> {
    if let Some(pr) = read.and_then(|r| r.pulls.get(&number)) {
        return Some(pr.clone());
    }
    let gh = q.clients.gh.as_ref()?;
    match gh.pull_request(number).await {
        Ok(pr) => Some(pr),
        Err(e) => {
            q.env.runner.error(
                "council merge queue",
                &format!("#{number}: its ledger was not written: {e}"),
            );
            None
        }
    }
}
