//! `pipeline_green`: every check run and commit status on the commit is complete and
//! green, every required one has reported, and this run's own job is left out.

use super::release::{CheckFact, CheckState, Pipeline, ReleaseFacts, listing, plural, short};
use super::{Check, Fix, Gate, GateOutcome};
use crate::render::text::Message;

pub const GATE: Gate = Gate {
    name: "pipeline_green",
    action: "check:pipeline",
    config_key: "release.required_checks",
    check: Check::Release(check),
};

/// A commit's checks sorted by what they say: red (neutral ones too unless
/// `neutral_is_green`), still running, and required names that have not reported (a
/// required check that is this job itself was left out on purpose: not missing). The
/// queue gate sorts the queue commit's checks the same way.
pub(super) struct Tally<'a> {
    pub red: Vec<&'a CheckFact>,
    pub running: Vec<&'a CheckFact>,
    pub missing: Vec<&'a String>,
}

pub(super) fn tally<'a>(p: &'a Pipeline, required: &'a [String], neutral_is_green: bool) -> Tally<'a> {
    Tally {
        red: p
            .checks
            .iter()
            .filter(|c| match c.state {
                CheckState::Red(_) => true,
                CheckState::Neutral(_) => !neutral_is_green,
                _ => false,
            })
            .collect(),
        running: p
            .checks
            .iter()
            .filter(|c| matches!(c.state, CheckState::Pending(_)))
            .collect(),
        missing: required
            .iter()
            .filter(|r| !p.checks.iter().chain(&p.own).any(|c| &c.name == *r))
            .collect(),
    }
}

fn check(facts: &ReleaseFacts) -> Option<GateOutcome> {
    let p = &facts.pipeline;
    let neutral_is_green = facts.policy.neutral_is_green;
    let Tally {
        red,
        running,
        missing,
    } = tally(p, &facts.policy.required_checks, neutral_is_green);
    let subject = if p.merge_commit {
        "merge commit "
    } else {
        "head "
    };
    let on = Message::new().text(subject).value(short(&p.sha));

    if !red.is_empty() {
        let message = Message::new()
            .text(format!("{} on the ", plural(red.len(), "red check", "red checks")))
            .append(on.clone())
            .text(": ")
            .append(listing(&red, |m, c| {
                let m = m.value(&c.name).text(format!(" ({}", state_word(&c.state)));
                match &c.url {
                    Some(url) => m.text(", ").link(url).text(")"),
                    None => m.text(")"),
                }
            }))
            .text(".")
            .append(own_note(facts));
        let advice = if neutral_is_green || red.iter().any(|c| matches!(c.state, CheckState::Red(_)))
        {
            "fix the code or re-run the red checks; the next check event decides again"
        } else {
            "neutral and skipped checks count as red because `release.neutral_is_green` is \
             false; re-run them or set it to true"
        };
        return Some(GATE.fail(
            message,
            Some(Fix {
                advice: Message::new().text(advice),
                commands: Vec::new(),
            }),
        ));
    }

    let mut waiting: Vec<Message> = Vec::new();
    if !running.is_empty() {
        waiting.push(listing(&running, |m, c| {
            m.value(&c.name)
                .text(format!(" ({})", state_word(&c.state)))
        }));
    }
    if !missing.is_empty() {
        waiting.push(
            Message::new()
                .text("required ")
                .append(listing(&missing, |m, name| m.value(name.as_str())))
                .text(" (not reported yet)"),
        );
    }
    if !p.complete {
        waiting.push(Message::new().text("the checks beyond those read (too many to read)"));
    }
    if p.checks.is_empty() && missing.is_empty() && p.complete {
        let message = Message::new()
            .text("Waiting: no check has reported on the ")
            .append(on)
            .text(
                " yet (council does not merge what nothing has checked; name the checks you \
                 expect in `release.required_checks`).",
            )
            .append(own_note(facts));
        return Some(GATE.outcome(super::Verdict::Pending, message, None));
    }
    if !waiting.is_empty() {
        let count = running.len() + missing.len();
        let mut message = Message::new()
            .text(format!(
                "Waiting for {} on the ",
                plural(count, "check", "checks")
            ))
            .append(on)
            .text(": ");
        for (i, w) in waiting.into_iter().enumerate() {
            if i > 0 {
                message = message.text("; ");
            }
            message = message.append(w);
        }
        let message = message.text(".").append(own_note(facts));
        return Some(GATE.outcome(super::Verdict::Pending, message, None));
    }

    let neutral: Vec<&CheckFact> = p
        .checks
        .iter()
        .filter(|c| matches!(c.state, CheckState::Neutral(_)))
        .collect();
    let mut message = Message::new()
        .text(format!(
            "{} on the ",
            plural(p.checks.len(), "check is green", "checks are green")
        ))
        .append(on)
        .text(".");
    if !neutral.is_empty() {
        message = message
            .text(" Counted green (`neutral_is_green`): ")
            .append(listing(&neutral, |m, c| {
                m.value(&c.name)
                    .text(format!(" ({})", state_word(&c.state)))
            }))
            .text(".");
    }
    Some(GATE.pass(message.append(own_note(facts))))
}

pub(super) fn state_word(state: &CheckState) -> &str {
    match state {
        CheckState::Success => "success",
        CheckState::Neutral(s) | CheckState::Pending(s) | CheckState::Red(s) => s,
    }
}

/// What was said about this run's own job: left out, or not told apart.
fn own_note(facts: &ReleaseFacts) -> Message {
    let p = &facts.pipeline;
    if let Some(why) = &p.own_unknown {
        return Message::new().text(format!(
            " This job's own check could not be told apart ({why}), so it counts as pending."
        ));
    }
    if p.own.is_empty() {
        return Message::new();
    }
    Message::new()
        .text(" Left out: this job's own check ")
        .append(listing(&p.own, |m, c| m.value(&c.name)))
        .text(".")
}
