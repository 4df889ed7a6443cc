//! `diff_size`: the pull request stays under `max_files` and `max_changed_lines`.

use super::{Check, Fix, Gate, GateOutcome};
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
    if let Some(label) = facts.labelled(config.skip_label.as_ref()) {
        return Some(GATE.pass(
            Message::new()
                .text("Skipped: the pull request has the label ")
                .value(label)
                .text(" (review.diff_size.skip_label)."),
        ));
    }
    let diff = facts.diff;
    let files = diff.total_files;
    let lines = diff.additions + diff.deletions;
    let mut over = Vec::new();
    if let Some(max) = config.max_files.filter(|max| files > *max) {
        over.push(format!("{} files (max_files: {})", thousands(files), thousands(max)));
    }
    if let Some(max) = config.max_changed_lines.filter(|max| lines > *max) {
        over.push(format!(
            "{} changed lines (max_changed_lines: {})",
            thousands(lines),
            thousands(max)
        ));
    }
    if over.is_empty() {
        return Some(GATE.pass(Message::new().text(format!(
            "{} files and {} changed lines are within the limits.",
            thousands(files),
            thousands(lines)
        ))));
    }
    let mut advice = Message::new().text("split it into smaller pull requests");
    if let Some(label) = &config.skip_label {
        advice = advice
            .text(", or add the label ")
            .value(label)
            .text(" if it must stay whole");
    }
    Some(GATE.fail(
        Message::new().text(format!("This pull request changes {}.", over.join(" and "))),
        Some(Fix {
            advice: advice.text("."),
            commands: Vec::new(),
        }),
    ))
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
