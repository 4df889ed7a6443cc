//! `naming_convention`: the head branch matches a rule of the branch policy.

use super::guard::{GuardFacts, hints, list_chars, rename_fix};
use super::{Check, Gate, GateOutcome};
use crate::render::text::Message;

pub const GATE: Gate = Gate {
    name: "naming_convention",
    action: "check:branch-name",
    config_key: "branches.rules",
    check: Check::Guard(check),
};

fn check(facts: &GuardFacts) -> Option<GateOutcome> {
    let input = &facts.input;
    if let Some(message) = facts.exempt_message() {
        return Some(GATE.pass(message));
    }
    if !facts.hidden.is_empty() {
        let message = Message::new()
            .text("Branch ")
            .value(input.head)
            .text(format!(
                " contains invisible or text-direction characters ({}), which can make one \
                 name look like another.",
                list_chars(&facts.hidden)
            ));
        return Some(GATE.fail(message, Some(rename_fix(input))));
    }
    let Some(rule) = facts.rules.first() else {
        let allowed = allowed_rules(input.policy);
        let mut message = Message::new()
            .text("Branch ")
            .value(input.head)
            .text(format!(
                " matches no naming rule of {}. Allowed: {allowed}.",
                policy_name(input.policy_source)
            ));
        if let Some(hint) = hints(input) {
            message = message.append(hint);
        }
        return Some(GATE.fail(message, Some(rename_fix(input))));
    };
    Some(
        GATE.pass(
            Message::new()
                .text("Branch ")
                .value(input.head)
                .text(format!(" matches rule {}.", rule.label())),
        ),
    )
}

/// Rules shown in the "allowed" list; a policy may hold 1,000 of them, and the message
/// must still fit an annotation and a comment.
const LISTED_RULES: usize = 10;

fn allowed_rules(policy: &crate::policy::BranchPolicy) -> String {
    let mut listed: Vec<String> = policy
        .rules
        .iter()
        .take(LISTED_RULES)
        .map(|r| format!("{} → {}", r.shape, r.target_list()))
        .collect();
    if policy.rules.len() > LISTED_RULES {
        listed.push(format!(
            "and {} more rules in the policy",
            policy.rules.len() - LISTED_RULES
        ));
    }
    listed.join("; ")
}

/// "the default policy (…)", or the policy file by its path ("council.example.yml").
fn policy_name(source: &str) -> String {
    if source.starts_with(crate::policy::DEFAULT_SOURCE) {
        format!("the {source}")
    } else {
        source.to_string()
    }
}
