//! `task_list`: no open `- [ ]` item in the pull request's description (real list items
//! only: not in code blocks, quotes or HTML comments).

use super::{Check, Fix, Gate, GateOutcome};
use crate::markdown::open_tasks;
use crate::render::text::Message;
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "task_list",
    action: "check:task-list",
    config_key: "review.task_list",
    check: Check::Review(check),
};

const LISTED: usize = 5;
const SHOWN_CHARS: usize = 60;

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    if !facts.policy.task_list {
        return None;
    }
    let open = open_tasks(&facts.pr.body);
    if open.is_empty() {
        return Some(GATE.pass(
            Message::new().text("No open task-list item in the pull request's description."),
        ));
    }
    let mut message = Message::new().text(format!(
        "The description has {} open task-list item{}: ",
        open.len(),
        if open.len() == 1 { "" } else { "s" }
    ));
    for (i, task) in open.iter().take(LISTED).enumerate() {
        if i > 0 {
            message = message.text(", ");
        }
        let shown: String = task.text.chars().take(SHOWN_CHARS).collect();
        message = message.text(format!("line {} ", task.line)).value(shown);
    }
    if open.len() > LISTED {
        message = message.text(format!(" and {} more", open.len() - LISTED));
    }
    Some(GATE.fail(
        message.text("."),
        Some(Fix {
            advice: Message::new().text(
                "finish the open items and tick their boxes, or remove the ones that no \
                 longer apply (review.task_list).",
            ),
            commands: Vec::new(),
        }),
    ))
}
