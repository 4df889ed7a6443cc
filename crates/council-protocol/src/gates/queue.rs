//! `queue`: the verdict on a queue commit (SPEC "Merge queue"). PASS when at least one
//! check has reported on it, every check on it is green and every required name has
//! reported green; FAIL on a red check or when it has had no verdict for
//! `queue.timeout_minutes`; PENDING otherwise (a commit nothing has checked yet is
//! pending, never green). The plan records it on each pull request in the commit: PASS
//! just before landing, FAIL when the pull request leaves the queue for it. A merge that
//! conflicts while the queue commit is made fails it too ([`conflict`]).

use super::pipeline_green::{Tally, state_word, tally};
use super::release::{CheckFact, Pipeline, listing, plural, short};
use super::{Check, Fix, Gate, GateOutcome, Verdict};
use crate::render::text::{Message, shell_word};

pub const GATE: Gate = Gate {
    name: "queue",
    action: "check:queue",
    config_key: "queue",
    check: Check::Queue(check),
};

/// What the gate looks at: the queue commit's checks, and how long it has waited.
#[derive(Debug, Clone)]
pub struct QueueCheck<'a> {
    /// The checks on the queue commit (`sha` is the commit), this run's own job left out.
    pub pipeline: &'a Pipeline,
    /// The queue branch it is tested on (`council/queue/main`).
    pub branch: &'a str,
    pub required: &'a [String],
    /// The policy key the required names come from, for messages.
    pub required_key: &'a str,
    pub neutral_is_green: bool,
    /// Whole minutes since the queue commit was made (0 for a clock behind it).
    pub age_minutes: i64,
    pub timeout_minutes: u32,
}

/// The verdict on a queue commit (the gate always decides).
pub fn verdict(facts: &QueueCheck) -> GateOutcome {
    check(facts).unwrap_or_else(|| GATE.outcome(Verdict::Pending, Message::new(), None))
}

fn check(facts: &QueueCheck) -> Option<GateOutcome> {
    let p = facts.pipeline;
    let Tally {
        red,
        running,
        missing,
    } = tally(p, facts.required, facts.neutral_is_green);
    let on = Message::new()
        .text("the queue commit ")
        .value(short(&p.sha))
        .text(" on ")
        .value(facts.branch);
    if !red.is_empty() {
        let message = Message::new()
            .text(format!(
                "{} on ",
                plural(red.len(), "red check", "red checks")
            ))
            .append(on)
            .text(": ")
            .append(checks_listed(&red))
            .text(".");
        let advice = Message::new().text(
            "the queue commit is the base with the pull request merged in; check it out to \
             reproduce, fix the pull request and push, then it can enter the queue again (a \
             flaky check: re-run it before the queue's next run)",
        );
        return Some(GATE.fail(
            message,
            Some(Fix {
                advice,
                commands: vec![checkout(&p.sha)],
            }),
        ));
    }
    let timed_out = facts.age_minutes >= i64::from(facts.timeout_minutes);
    let nothing = p.checks.is_empty() && missing.is_empty() && p.complete;
    if nothing || !running.is_empty() || !missing.is_empty() || !p.complete {
        let mut waiting: Vec<Message> = Vec::new();
        if !running.is_empty() {
            waiting.push(checks_listed(&running));
        }
        if !missing.is_empty() {
            waiting.push(
                Message::new()
                    .text("required ")
                    .append(listing(&missing, |m, name| m.value(name.as_str())))
                    .text(format!(" (not reported yet; `{}`)", facts.required_key)),
            );
        }
        if !p.complete {
            waiting.push(Message::new().text("the checks beyond those read (too many to read)"));
        }
        if nothing {
            waiting.push(Message::new().text("no check has reported yet"));
        }
        let mut what = Message::new();
        for (i, w) in waiting.into_iter().enumerate() {
            if i > 0 {
                what = what.text("; ");
            }
            what = what.append(w);
        }
        if timed_out {
            let message = Message::new()
                .text(format!(
                    "No verdict on {} after {} minutes (`queue.timeout_minutes`: {}): ",
                    on.plain(),
                    facts.age_minutes,
                    facts.timeout_minutes
                ))
                .append(what)
                .text(".");
            let advice = Message::new()
                .text("CI must run on `push` to the queue branch (")
                .value(queue_glob(facts.branch))
                .text(
                    "; `council init --queue` writes the trigger), and finish within \
                     `queue.timeout_minutes`: raise it for a longer suite",
                );
            return Some(GATE.fail(
                message,
                Some(Fix {
                    advice,
                    commands: Vec::new(),
                }),
            ));
        }
        let message = if nothing {
            Message::new()
                .text("Waiting: no check has reported on ")
                .append(on)
                .text(" yet (a commit nothing has checked is never landed).")
        } else {
            let count = running.len() + missing.len();
            let waiting_for = if count == 0 {
                "Waiting for the checks on ".to_string()
            } else {
                format!("Waiting for {} on ", plural(count, "check", "checks"))
            };
            Message::new()
                .text(waiting_for)
                .append(on)
                .text(": ")
                .append(what)
                .text(".")
        };
        return Some(GATE.outcome(Verdict::Pending, message, None));
    }
    let mut message = Message::new()
        .text(format!(
            "{} on ",
            plural(p.checks.len(), "check is green", "checks are green")
        ))
        .append(on)
        .text(".");
    let neutral: Vec<&CheckFact> = p
        .checks
        .iter()
        .filter(|c| matches!(c.state, super::release::CheckState::Neutral(_)))
        .collect();
    if !neutral.is_empty() {
        message = message
            .text(" Counted green (`neutral_is_green`): ")
            .append(listing(&neutral, |m, c| {
                m.value(&c.name)
                    .text(format!(" ({})", state_word(&c.state)))
            }))
            .text(".");
    }
    Some(GATE.pass(message))
}

/// `"ci" (failure, https://…), "lint" (cancelled)`.
fn checks_listed(checks: &[&CheckFact]) -> Message {
    listing(checks, |m, c| {
        let m = m.value(&c.name).text(format!(" ({}", state_word(&c.state)));
        match &c.url {
            Some(url) => m.text(", ").link(url).text(")"),
            None => m.text(")"),
        }
    })
}

/// `council/queue/main` → `council/queue/**`: what CI's `push` trigger must cover.
fn queue_glob(branch: &str) -> String {
    match branch.rsplit_once('/') {
        Some((stem, _)) => format!("{stem}/**"),
        None => branch.to_string(),
    }
}

/// How to look at a queue commit locally (GitHub serves any commit by its SHA).
fn checkout(sha: &str) -> String {
    let sha = shell_word(sha);
    format!("git fetch origin {sha} && git checkout --detach {sha}")
}

/// The queue's verdict on a pull request whose merge into the queue commit conflicted
/// (`POST /merges` answered 409): it needs its branch brought up to date.
pub fn conflict(number: u64, base: &str, onto: &Message) -> GateOutcome {
    let message = Message::new()
        .text(format!("#{number} conflicts with "))
        .append(onto.clone())
        .text(": it cannot be merged into the queue commit, so it leaves the queue.");
    let advice = Message::new()
        .text("bring the branch up to date with ")
        .value(base)
        .text(" (rebase or merge, resolve the conflicts, push); release queues it again once its gates pass");
    let base = shell_word(base);
    GATE.fail(
        message,
        Some(Fix {
            advice,
            commands: vec![
                format!("git fetch origin {base} && git rebase origin/{base} && git push --force-with-lease"),
                format!("git fetch origin {base} && git merge origin/{base} && git push"),
            ],
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::release::{CheckKind, CheckState};

    const SHA: &str = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";

    fn run(name: &str, state: CheckState) -> CheckFact {
        CheckFact {
            name: name.into(),
            kind: CheckKind::Run,
            state,
            id: Some(1),
            url: Some(format!("https://github.com/o/r/runs/{name}")),
        }
    }

    fn pipeline(checks: Vec<CheckFact>) -> Pipeline {
        Pipeline {
            sha: SHA.into(),
            checks,
            complete: true,
            ..Pipeline::default()
        }
    }

    fn verdict(p: &Pipeline, required: &[String], age: i64) -> GateOutcome {
        check(&QueueCheck {
            pipeline: p,
            branch: "council/queue/main",
            required,
            required_key: "release.required_checks",
            neutral_is_green: true,
            age_minutes: age,
            timeout_minutes: 60,
        })
        .unwrap()
    }

    fn said(g: &GateOutcome) -> String {
        format!("{} {}", g.verdict.as_str(), g.timeline_message())
    }

    #[test]
    fn a_commit_nothing_checked_is_pending_never_green() {
        let g = verdict(&pipeline(vec![]), &[], 5);
        insta::assert_snapshot!(said(&g), @r#"PENDING Waiting: no check has reported on the queue commit "9f8e7d6" on "council/queue/main" yet (a commit nothing has checked is never landed)."#);
    }

    #[test]
    fn green_means_every_check_and_every_required_name() {
        let green = pipeline(vec![
            run("ci", CheckState::Success),
            run("docs", CheckState::Neutral("skipped".into())),
        ]);
        insta::assert_snapshot!(said(&verdict(&green, &[], 5)), @r#"PASS 2 checks are green on the queue commit "9f8e7d6" on "council/queue/main". Counted green (`neutral_is_green`): "docs" (skipped)."#);
        let required = ["ci".to_string(), "lint".to_string()];
        insta::assert_snapshot!(said(&verdict(&green, &required, 5)), @r#"PENDING Waiting for 1 check on the queue commit "9f8e7d6" on "council/queue/main": required "lint" (not reported yet; `release.required_checks`)."#);
        let running = pipeline(vec![
            run("ci", CheckState::Success),
            run("lint", CheckState::Pending("in progress".into())),
        ]);
        insta::assert_snapshot!(said(&verdict(&running, &required, 5)), @r#"PENDING Waiting for 1 check on the queue commit "9f8e7d6" on "council/queue/main": "lint" (in progress, https://github.com/o/r/runs/lint)."#);
        let mut partial = green.clone();
        partial.complete = false;
        assert_eq!(verdict(&partial, &[], 5).verdict, Verdict::Pending);
    }

    #[test]
    fn red_fails_at_once_even_while_others_run() {
        let red = pipeline(vec![
            run("ci", CheckState::Red("failure".into())),
            run("lint", CheckState::Pending("queued".into())),
        ]);
        let g = verdict(&red, &[], 1);
        insta::assert_snapshot!(said(&g), @r#"FAIL 1 red check on the queue commit "9f8e7d6" on "council/queue/main": "ci" (failure, https://github.com/o/r/runs/ci). Fix: the queue commit is the base with the pull request merged in; check it out to reproduce, fix the pull request and push, then it can enter the queue again (a flaky check: re-run it before the queue's next run) `git fetch origin 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432 && git checkout --detach 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432`"#);
    }

    #[test]
    fn no_verdict_within_the_timeout_fails() {
        let g = verdict(&pipeline(vec![]), &[], 60);
        insta::assert_snapshot!(said(&g), @r#"FAIL No verdict on the queue commit "9f8e7d6" on "council/queue/main" after 60 minutes (`queue.timeout_minutes`: 60): no check has reported yet. Fix: CI must run on `push` to the queue branch ("council/queue/**"; `council init --queue` writes the trigger), and finish within `queue.timeout_minutes`: raise it for a longer suite"#);
        let slow = pipeline(vec![run("ci", CheckState::Pending("in progress".into()))]);
        assert_eq!(verdict(&slow, &[], 59).verdict, Verdict::Pending);
        assert_eq!(verdict(&slow, &[], 61).verdict, Verdict::Fail);
        let done = pipeline(vec![run("ci", CheckState::Success)]);
        assert_eq!(verdict(&done, &[], 600).verdict, Verdict::Pass, "a verdict is a verdict");
    }

    #[test]
    fn a_conflict_says_how_to_bring_the_branch_up_to_date() {
        let onto = Message::new().value("main").text(" at ").value("1234567");
        let g = conflict(7, "release/1.x", &onto);
        insta::assert_snapshot!(said(&g), @r#"FAIL #7 conflicts with "main" at "1234567": it cannot be merged into the queue commit, so it leaves the queue. Fix: bring the branch up to date with "release/1.x" (rebase or merge, resolve the conflicts, push); release queues it again once its gates pass `git fetch origin release/1.x && git rebase origin/release/1.x && git push --force-with-lease` or `git fetch origin release/1.x && git merge origin/release/1.x && git push`"#);
    }
}
