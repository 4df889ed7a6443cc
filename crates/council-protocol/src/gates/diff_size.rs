//! `diff_size`: the pull request stays under `max_files` and `max_changed_lines`. For
//! an agent's pull request `actors.agent.diff_size` replaces it (`agent_diff_size.rs`,
//! the same judgement under the agents' limits); with `actors.agent.diff_size: null`
//! this gate applies to agents as to anyone.

use super::{Check, Fix, Gate, GateOutcome};
use crate::policy::DiffSize;
use crate::render::text::Message;
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "diff_size",
    action: "check:diff-size",
    config_key: "review.diff_size",
    check: Check::Review(check),
};

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    let config = facts.policy.diff_size.as_ref()?;
    if facts
        .actor
        .is_some_and(|a| a.is_agent() && a.rules.diff_size.is_some())
    {
        return None;
    }
    Some(judge(&GATE, REVIEW_KEY, facts, config))
}

const REVIEW_KEY: &str = "review.diff_size";

/// The verdict of `gate` on the diff's size under `config` (the policy key `key`).
pub(super) fn judge(
    gate: &'static Gate,
    key: &str,
    facts: &ReviewFacts,
    config: &DiffSize,
) -> GateOutcome {
    if let Some(label) = facts.labelled(config.skip_label.as_ref()) {
        return gate.pass(
            Message::new()
                .text("Skipped: the pull request has the label ")
                .value(label)
                .text(format!(" ({key}.skip_label).")),
        );
    }
    // The review's own limits read as they always have; the agents' name their key.
    let limit = |name: &str| {
        if key == REVIEW_KEY {
            name.to_string()
        } else {
            format!("{key}.{name}")
        }
    };
    let diff = facts.diff;
    let files = diff.total_files;
    let lines = diff.additions + diff.deletions;
    let mut over = Vec::new();
    if let Some(max) = config.max_files.filter(|max| files > *max) {
        over.push(format!(
            "{} files ({}: {})",
            thousands(files),
            limit("max_files"),
            thousands(max)
        ));
    }
    if let Some(max) = config.max_changed_lines.filter(|max| lines > *max) {
        over.push(format!(
            "{} changed lines ({}: {})",
            thousands(lines),
            limit("max_changed_lines"),
            thousands(max)
        ));
    }
    if over.is_empty() {
        let whose = if key == REVIEW_KEY {
            String::new()
        } else {
            format!(" ({key})")
        };
        return gate.pass(Message::new().text(format!(
            "{} files and {} changed lines are within the limits{whose}.",
            thousands(files),
            thousands(lines)
        )));
    }
    let mut advice = Message::new().text("split it into smaller pull requests");
    if let Some(label) = &config.skip_label {
        advice = advice
            .text(", or add the label ")
            .value(label)
            .text(" if it must stay whole");
    }
    gate.fail(
        Message::new().text(format!("This pull request changes {}.", over.join(" and "))),
        Some(Fix {
            advice: advice.text("."),
            commands: Vec::new(),
        }),
    )
}

/// 12345 → "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
