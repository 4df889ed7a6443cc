//! Stage 1, the Sentry: the facts both branch gates look at (exemption, hidden
//! characters, the rules the head matches) and the advice they share. The gates
//! themselves are `branch_name.rs` and `target_branch.rs`.

use super::{Check, Fix, GATES, GateOutcome, Verdict};
use crate::policy::{BranchPolicy, NamePattern, Rule};
use crate::render::text::{Message, invisible_chars, non_ascii_chars, shell_word};

/// What the guard looks at; all of it comes from the event and the base-branch policy.
#[derive(Debug, Clone, Copy)]
pub struct GuardInput<'a> {
    pub pr_number: u64,
    pub head: &'a str,
    pub base: &'a str,
    /// The base before an `edited` event retargeted the PR.
    pub previous_base: Option<&'a str>,
    pub policy: &'a BranchPolicy,
    /// Where the policy came from, for messages.
    pub policy_source: &'a str,
}

/// The input with what every branch gate needs worked out once.
#[derive(Debug, Clone)]
pub struct GuardFacts<'a> {
    pub input: GuardInput<'a>,
    /// The exempt glob the head matches: both gates pass.
    pub exemption: Option<&'a NamePattern>,
    /// Invisible or text-direction characters in the head (position, char): both fail.
    pub hidden: Vec<(usize, char)>,
    /// The rules whose pattern matches the head (empty when exempt or hidden).
    pub rules: Vec<&'a Rule>,
}

impl<'a> GuardFacts<'a> {
    pub fn of(input: GuardInput<'a>) -> GuardFacts<'a> {
        let exemption = input.policy.exemption(input.head);
        let hidden = if exemption.is_some() {
            Vec::new()
        } else {
            invisible_chars(input.head)
        };
        let rules = if exemption.is_some() || !hidden.is_empty() {
            Vec::new()
        } else {
            input.policy.matching_rules(input.head).collect()
        };
        GuardFacts {
            input,
            exemption,
            hidden,
            rules,
        }
    }

    /// Why both gates pass without looking further.
    pub fn exempt_message(&self) -> Option<Message> {
        self.exemption.map(|exempt| {
            Message::new()
                .text("Branch ")
                .value(self.input.head)
                .text(" is exempt from the branch policy (matches exempt glob ")
                .value(&exempt.glob)
                .text(").")
        })
    }
}

/// Every guard gate's decision, in the order of the gate table.
pub fn evaluate(input: GuardInput) -> Vec<GateOutcome> {
    let facts = GuardFacts::of(input);
    GATES
        .iter()
        .filter_map(|gate| match gate.check {
            Check::Guard(check) => check(&facts),
            _ => None,
        })
        .collect()
}

pub fn passed(outcomes: &[GateOutcome]) -> bool {
    outcomes.iter().all(|g| g.verdict == Verdict::Pass)
}

/// "U+202E at position 3, …" for the first few characters of a list.
pub(super) fn list_chars(chars: &[(usize, char)]) -> String {
    chars
        .iter()
        .take(5)
        .map(|(i, c)| format!("U+{:04X} at position {}", *c as u32, i + 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a name that looks right may still fail: letter case, look-alike characters.
pub(super) fn hints(input: &GuardInput) -> Option<Message> {
    let mut hint = Message::new();
    let mut any = false;
    if input.policy.case_sensitive {
        let lower = input.head.to_lowercase();
        // Compiled once with the policy, not per decision.
        if let Some(rule) = input.policy.rule_ignoring_case(&[&lower, input.head]) {
            any = true;
            hint = hint.text(format!(
                " It would match rule {} if letter case were ignored: names are case-sensitive.",
                rule.label()
            ));
        }
    }
    let foreign = non_ascii_chars(input.head);
    if !foreign.is_empty() {
        any = true;
        let listed = list_chars(&foreign);
        hint = hint.text(format!(
            " It contains non-ASCII characters ({listed}) that may imitate ASCII letters."
        ));
    }
    any.then_some(hint)
}

/// The rule to suggest: one that may target the current base, else the first readable one.
fn suggested_rule<'a>(input: &GuardInput<'a>) -> Option<&'a Rule> {
    let readable = || input.policy.rules.iter().filter(|r| r.suggestion.is_some());
    readable()
        .find(|r| r.allows_target(input.base))
        .or_else(|| readable().next())
}

/// Renaming a PR's head branch closes the PR, so the fix is rename + new PR.
pub(super) fn rename_fix(input: &GuardInput) -> Fix {
    let Some(rule) = suggested_rule(input) else {
        return Fix {
            advice: Message::new().text(
                "Rename the branch to a name that one of the rules matches and open a new pull \
                 request (renaming the head branch of an open pull request closes it).",
            ),
            commands: Vec::new(),
        };
    };
    let new_name = rule.suggestion.clone().unwrap_or_default();
    let target = if rule.allows_target(input.base) {
        input.base.to_string()
    } else {
        rule.targets
            .first()
            .map(|t| t.glob.clone())
            .unwrap_or_default()
    };
    let old = shell_word(input.head);
    let new = shell_word(&new_name);
    Fix {
        advice: Message::new()
            .text("rename the branch (fill in the placeholders) and open a new pull request into ")
            .value(&target)
            .text("; renaming the head branch of an open pull request closes it:"),
        commands: vec![
            format!("git branch -m {old} {new}"),
            format!("git push -u origin {new}"),
            format!("git push origin --delete {old}"),
        ],
    }
}

#[cfg(test)]
mod tests;
