//! `assistant_context`: every `ASSISTANT_CONTEXT.md`/`.yaml` the pull request changes is
//! valid at its head (RFC 0001), checked by the same validator as `council context
//! validate`, a plaintext secret included.

use super::{Check, Fix, Gate, GateOutcome};
use crate::render::text::Message;
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "assistant_context",
    action: "check:assistant-context",
    config_key: "review.assistant_context",
    check: Check::Review(check),
};

/// Problems listed; the rest are counted.
const LISTED: usize = 5;

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    if !facts.policy.assistant_context {
        return None;
    }
    let problems: Vec<&String> = facts
        .context_files
        .iter()
        .flat_map(|f| &f.problems)
        .collect();
    if problems.is_empty() && !facts.diff.capped {
        return Some(GATE.pass(Message::new().text(match facts.context_files.len() {
            0 => "No ASSISTANT_CONTEXT file changed.".to_string(),
            n => format!("{n} changed ASSISTANT_CONTEXT file{} valid.", if n == 1 { " is" } else { "s are" }),
        })));
    }
    let mut message = Message::new();
    if !problems.is_empty() {
        message = message.text(format!(
            "{} problem{} in changed ASSISTANT_CONTEXT files: ",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ));
        for (i, problem) in problems.iter().take(LISTED).enumerate() {
            if i > 0 {
                message = message.text("; ");
            }
            message = message.value(problem.as_str());
        }
        if problems.len() > LISTED {
            message = message.text(format!(" and {} more", problems.len() - LISTED));
        }
        message = message.text(".");
    }
    if facts.diff.capped {
        message = message.text(format!(
            " {}: an ASSISTANT_CONTEXT file beyond them could not be checked.",
            crate::review::diff::cap_note()
        ));
    }
    Some(GATE.fail(
        message,
        Some(Fix {
            advice: Message::new().text(
                "fix each file at the line and field named (`council context validate` shows \
                 the same problems locally); a secret must come out of the file and its history.",
            ),
            commands: vec!["council context validate".to_string()],
        }),
    ))
}
