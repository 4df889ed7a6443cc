//! `target_policy`: a rule the head matches lists the base branch among its targets.

use super::guard::{GuardFacts, GuardInput, rename_fix};
use super::{Check, Fix, Gate, GateOutcome};
use crate::policy::Rule;
use crate::render::text::{Message, shell_word};

pub const GATE: Gate = Gate {
    name: "target_policy",
    action: "check:target-branch",
    config_key: "branches.rules[].targets",
    check: Check::Guard(check),
};

fn check(facts: &GuardFacts) -> Option<GateOutcome> {
    let input = &facts.input;
    if let Some(message) = facts.exempt_message() {
        return Some(GATE.pass(message));
    }
    if !facts.hidden.is_empty() {
        let message = Message::new()
            .text("Not checked: the head branch name ")
            .value(input.head)
            .text(" is not acceptable.");
        return Some(GATE.fail(message, Some(rename_fix(input))));
    }
    if facts.rules.is_empty() {
        let message = Message::new()
            .text("Branch ")
            .value(input.head)
            .text(" matches no rule, so it may not target ")
            .value(input.base)
            .text(".");
        return Some(GATE.fail(message, Some(rename_fix(input))));
    }
    Some(target(input, &facts.rules))
}

fn target(input: &GuardInput, rules: &[&Rule]) -> GateOutcome {
    let retargeted = input
        .previous_base
        .filter(|prev| *prev != input.base)
        .map(|prev| {
            Message::new()
                .text(" (retargeted from ")
                .value(prev)
                .text(")")
        });
    if let Some(rule) = rules.iter().find(|r| r.allows_target(input.base)) {
        let mut message = Message::new().text("Base ").value(input.base);
        if let Some(r) = retargeted {
            message = message.append(r);
        }
        return GATE.pass(message.text(format!(
                " is allowed for this branch by rule {} (targets: {}).",
                rule.label(),
                rule.target_list()
            )),
        );
    }
    let rule = rules[0];
    let allowed = rules
        .iter()
        .map(|r| r.target_list())
        .collect::<Vec<_>>()
        .join(", ");
    let mut message = Message::new()
        .text("Branch ")
        .value(input.head)
        .text(format!(
            " (rule {}) may target {allowed}, not ",
            rule.label()
        ))
        .value(input.base);
    if let Some(r) = retargeted {
        message = message.append(r);
    }
    message = message.text(".");
    if let Some(why) = &rule.message {
        message = message.text(format!(" {why}"));
    }
    let new_base = rule
        .targets
        .first()
        .map(|t| t.glob.clone())
        .unwrap_or_default();
    let fix = Fix {
        advice: Message::new()
            .text("change the base branch of this pull request to ")
            .value(&new_base)
            .text(" (Edit next to the title, or:)"),
        commands: if new_base.contains('*') {
            Vec::new()
        } else {
            vec![format!(
                "gh pr edit {} --base {}",
                input.pr_number,
                shell_word(&new_base)
            )]
        },
    };
    GATE.fail(message, Some(fix))
}

