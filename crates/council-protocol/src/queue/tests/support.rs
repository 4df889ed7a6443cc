//! Facts for the queue's unit tests: a base, pull requests, a queue commit made of real
//! merge messages, checks, and a stand-in for GitHub that answers a build's steps.

use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::gates::release::{CheckFact, CheckKind, CheckState, Pipeline};
use crate::policy::Policy;
use crate::queue::message;
use crate::queue::*;
use crate::stage::Effect;

pub const BOT: &str = "council-bot[bot]";
pub const LABEL: &str = "council:queued";

/// A 40-hex SHA from a short name: `sha("b0")`.
pub fn sha(name: &str) -> String {
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    format!("{hex:0<40}")
}

pub fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap() + Duration::minutes(minute)
}

pub fn policy(batch: u32) -> Policy {
    let mut p = Policy::default_policy();
    p.queue.enabled = true;
    p.queue.batch_size = batch;
    p
}

pub fn pr(number: u64, minute: i64) -> QueuedPr {
    QueuedPr {
        number,
        head_sha: sha(&format!("h{number}")),
        state: PrState::Open,
        labels: vec![LABEL.to_string()],
        queued_at: Some(at(minute)),
        head_moved: false,
        retargeted: false,
        verdict: Some(LiveVerdict::Pass),
    }
}

pub fn facts(pulls: Vec<QueuedPr>) -> QueueFacts {
    QueueFacts {
        repository_url: "https://github.com/o/r".into(),
        base: BaseFacts {
            name: "main".into(),
            sha: sha("b0"),
            linear_history: None,
        },
        release_login: Some(BOT.into()),
        pulls,
        branch: None,
        now: at(30),
    }
}

/// The queue commit council would make on `base` from `members` (number, head), made at
/// `minute` by `by`, with `rest` planned after it and `checks` on it.
pub fn queue_commit(
    base: &str,
    members: &[(u64, &str)],
    rest: &[u32],
    by: Option<&str>,
    minute: i64,
    checks: Vec<CheckFact>,
) -> QueueBranch {
    let mut commits = Vec::new();
    let mut below = base.to_string();
    for (i, (number, head)) in members.iter().enumerate() {
        let merge = sha(&format!("q{i}{number}{}", &below[..4]));
        commits.push(CommitFact {
            sha: merge.clone(),
            parents: vec![below.clone(), head.to_string()],
            message: message::write(*number, "main", base, rest),
            verified_committer: by.map(str::to_string),
            committed_at: at(minute),
        });
        below = merge;
    }
    commits.reverse();
    let tip = commits[0].sha.clone();
    let walk: Vec<&CommitFact> = commits.iter().filter(|c| is_queue_merge(c)).collect();
    assert_eq!(walk.len(), commits.len());
    QueueBranch::from_commits(
        &commits,
        Pipeline {
            sha: tip,
            checks,
            complete: true,
            ..Pipeline::default()
        },
    )
    .unwrap()
}

pub fn check(name: &str, state: CheckState) -> CheckFact {
    CheckFact {
        name: name.into(),
        kind: CheckKind::Run,
        state,
        id: None,
        url: Some(format!("https://github.com/o/r/actions/runs/1/job/{name}")),
    }
}

pub fn green() -> Vec<CheckFact> {
    vec![check("ci", CheckState::Success)]
}

pub fn red() -> Vec<CheckFact> {
    vec![
        check("ci", CheckState::Red("failure".into())),
        check("lint", CheckState::Success),
    ]
}

/// GitHub's answers to a build, by effect: merges succeed with a SHA made from the
/// branch tip and the head, except heads listed as conflicting or already contained.
#[derive(Default)]
pub struct Answers {
    pub conflicting: Vec<String>,
    pub contained: Vec<String>,
    pub scratch_exists: bool,
    /// The queue branch exists, whatever the plan thought.
    pub branch_exists: Option<bool>,
    pub fail_merges: bool,
}

/// Drives a build to its end; returns what it did (each effect described) and what it
/// built.
pub fn drive(build: Build, answers: &Answers) -> (Vec<Effect>, Built) {
    let mut branch_exists = answers.branch_exists.unwrap_or(build.branch_exists);
    let queue_branch = build.branch.clone();
    let mut b = build.start();
    let mut done = Vec::new();
    let mut tip = String::new();
    let mut scratch_exists = answers.scratch_exists;
    for _ in 0..100 {
        let effect = match b.step() {
            BuildStep::Done(built) => return (done, built),
            BuildStep::Do(e) => e,
        };
        let result = match &effect {
            Effect::CreateRef { branch, sha } if *branch == queue_branch => {
                if branch_exists {
                    StepResult::Exists
                } else {
                    branch_exists = true;
                    let _ = sha;
                    StepResult::Done
                }
            }
            Effect::ResetRef { branch, .. } if *branch == queue_branch => {
                if branch_exists {
                    StepResult::Done
                } else {
                    StepResult::Missing
                }
            }
            Effect::CreateRef { sha, .. } => {
                tip = sha.clone();
                if scratch_exists {
                    StepResult::Exists
                } else {
                    scratch_exists = true;
                    StepResult::Done
                }
            }
            Effect::ResetRef { sha, .. } => {
                tip = sha.clone();
                StepResult::Done
            }
            Effect::DeleteRef { branch } => {
                if *branch == queue_branch {
                    branch_exists = false;
                }
                StepResult::Done
            }
            Effect::MergeInto { head, .. } => {
                if answers.fail_merges {
                    StepResult::Failed(crate::render::text::Message::new().text("500: boom"))
                } else if answers.conflicting.contains(head) {
                    StepResult::Conflict
                } else if answers.contained.contains(head) {
                    StepResult::NothingToMerge
                } else {
                    tip = sha(&format!("m{}{}", &tip[..6], &head[..6]));
                    StepResult::Merged { sha: tip.clone() }
                }
            }
            _ => StepResult::Done,
        };
        done.push(effect);
        b.report(result);
    }
    panic!("the build did not end");
}

/// Effects as one line each, for snapshots.
pub fn described(effects: &[Effect]) -> String {
    effects
        .iter()
        .map(|e| format!("{}: {}", e.action(), e.describe()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Records as one line each, for snapshots.
pub fn recorded(records: &[QueueRecord]) -> String {
    records
        .iter()
        .map(|r| format!("#{} {} {}: {}", r.pr, r.action, r.result, r.message))
        .collect::<Vec<_>>()
        .join("\n")
}
