//! `secret_scan`: no token pattern in the lines the pull request adds (a secret being
//! removed is no finding). Findings name file, line and kind, never the value.

use super::diff_size::thousands;
use super::{Check, Fix, Gate, GateOutcome};
use crate::render::text::Message;
use crate::review::ReviewFacts;
use crate::review::diff::added_lines;
use crate::secrets::{SecretKind, find_secrets};

pub const GATE: Gate = Gate {
    name: "secret_scan",
    action: "check:secret-scan",
    config_key: "review.secret_scan",
    check: Check::Review(check),
};

/// Findings listed by place; the rest are counted.
const LISTED: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding<'a> {
    pub path: &'a str,
    pub line: u64,
    pub kind: SecretKind,
}

/// Every secret pattern in the added lines, in file order.
pub fn scan<'a>(facts: &ReviewFacts<'a>) -> (Vec<Finding<'a>>, Scanned) {
    let mut findings = Vec::new();
    let mut scanned = Scanned::default();
    for file in &facts.diff.files {
        let Some(patch) = file.patch.as_deref() else {
            let moved_only = file.previous_path.is_some() && file.additions == 0;
            if !file.is_removed() && !moved_only {
                scanned.unscanned += 1;
            }
            continue;
        };
        // One scan per file over its added lines joined, mapped back to line numbers.
        let mut joined = String::with_capacity(patch.len());
        let mut numbers = Vec::new();
        for added in added_lines(patch) {
            joined.push_str(added.text);
            joined.push('\n');
            numbers.push(added.line);
        }
        scanned.files += 1;
        scanned.lines += numbers.len() as u64;
        for m in find_secrets(&joined) {
            findings.push(Finding {
                path: &file.path,
                line: numbers.get(m.line - 1).copied().unwrap_or(0),
                kind: m.kind,
            });
        }
    }
    (findings, scanned)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scanned {
    pub files: u64,
    pub lines: u64,
    /// Files with added lines but no patch from GitHub (binary, or too large to show).
    pub unscanned: u64,
}

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    if !facts.policy.secret_scan {
        return None;
    }
    let (findings, scanned) = scan(facts);
    let mut message = Message::new();
    if !findings.is_empty() {
        message = message.text(format!(
            "Found {} secret{} in added lines: ",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" }
        ));
        for (i, f) in findings.iter().take(LISTED).enumerate() {
            if i > 0 {
                message = message.text(", ");
            }
            message = message
                .value(f.path)
                .text(format!(" line {} ({})", f.line, f.kind));
        }
        if findings.len() > LISTED {
            message = message.text(format!(" and {} more", findings.len() - LISTED));
        }
        message = message.text(".");
    }
    if facts.diff.capped {
        message = message.text(format!(
            "{}{}: the rest could not be scanned.",
            if findings.is_empty() { "" } else { " " },
            crate::review::diff::cap_note()
        ));
    }
    let unscanned = match scanned.unscanned {
        0 => String::new(),
        n => format!(
            " {} file{} without a patch from GitHub (binary, or too large to show) could not be scanned.",
            thousands(n),
            if n == 1 { "" } else { "s" }
        ),
    };
    if findings.is_empty() && !facts.diff.capped {
        return Some(GATE.pass(Message::new().text(format!(
            "No secret pattern in {} added lines of {} files.{unscanned}",
            thousands(scanned.lines),
            thousands(scanned.files)
        ))));
    }
    let advice = if findings.is_empty() {
        "split the pull request so that GitHub lists every file, or scan it locally."
    } else {
        "remove the secret and rewrite the commits that added it (it stays in the branch's \
         history otherwise), then rotate it: anyone who saw the diff may have it."
    };
    Some(GATE.fail(
        message.text(unscanned),
        Some(Fix {
            advice: Message::new().text(advice),
            commands: Vec::new(),
        }),
    ))
}
