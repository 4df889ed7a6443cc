//! Stage 1, the Sentry: `naming_convention` and `target_policy` over head and base names.

use super::{Fix, GateOutcome, Verdict};
use crate::policy::{BranchPolicy, Rule};
use crate::render::text::{Message, invisible_chars, non_ascii_chars, shell_word};

pub const NAMING: &str = "naming_convention";
pub const TARGET: &str = "target_policy";

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardDecision {
    pub naming: GateOutcome,
    pub target: GateOutcome,
}

impl GuardDecision {
    pub fn passed(&self) -> bool {
        self.naming.verdict == Verdict::Pass && self.target.verdict == Verdict::Pass
    }

    pub fn gates(&self) -> [&GateOutcome; 2] {
        [&self.naming, &self.target]
    }
}

pub fn decide(input: &GuardInput) -> GuardDecision {
    if let Some(exempt) = input.policy.exemption(input.head) {
        let message = Message::new()
            .text("Branch ")
            .value(input.head)
            .text(" is exempt from the branch policy (matches exempt glob ")
            .value(&exempt.glob)
            .text(").");
        return GuardDecision {
            naming: pass(NAMING, "check:branch-name", message.clone()),
            target: pass(TARGET, "check:target-branch", message),
        };
    }
    let hidden = invisible_chars(input.head);
    if !hidden.is_empty() {
        return invisible_name(input, &hidden);
    }
    let rules: Vec<&Rule> = input.policy.matching_rules(input.head).collect();
    if rules.is_empty() {
        return no_rule_matches(input);
    }
    let naming = pass(
        NAMING,
        "check:branch-name",
        Message::new()
            .text("Branch ")
            .value(input.head)
            .text(format!(" matches rule {}.", rules[0].label())),
    );
    GuardDecision {
        naming,
        target: target_gate(input, &rules),
    }
}

fn pass(gate: &'static str, action: &'static str, message: Message) -> GateOutcome {
    GateOutcome {
        gate,
        action,
        verdict: Verdict::Pass,
        message,
        fix: None,
    }
}

fn fail(
    gate: &'static str,
    action: &'static str,
    message: Message,
    fix: Option<Fix>,
) -> GateOutcome {
    GateOutcome {
        gate,
        action,
        verdict: Verdict::Fail,
        message,
        fix,
    }
}

fn invisible_name(input: &GuardInput, hidden: &[(usize, char)]) -> GuardDecision {
    let listed = hidden
        .iter()
        .take(5)
        .map(|(i, c)| format!("U+{:04X} at position {}", *c as u32, i + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let message = Message::new()
        .text("Branch ")
        .value(input.head)
        .text(format!(
            " contains invisible or text-direction characters ({listed}), which can make one \
             name look like another."
        ));
    let fix = rename_fix(input);
    GuardDecision {
        naming: fail(
            NAMING,
            "check:branch-name",
            message.clone(),
            Some(fix.clone()),
        ),
        target: fail(
            TARGET,
            "check:target-branch",
            Message::new()
                .text("Not checked: the head branch name ")
                .value(input.head)
                .text(" is not acceptable."),
            Some(fix),
        ),
    }
}

fn no_rule_matches(input: &GuardInput) -> GuardDecision {
    let allowed = input
        .policy
        .rules
        .iter()
        .map(|r| format!("{} → {}", r.shape, r.target_list()))
        .collect::<Vec<_>>()
        .join("; ");
    let mut message = Message::new()
        .text("Branch ")
        .value(input.head)
        .text(format!(
            " matches no naming rule of the {}. Allowed: {allowed}.",
            input.policy_source
        ));
    if let Some(hint) = hints(input) {
        message = message.append(hint);
    }
    let fix = rename_fix(input);
    GuardDecision {
        naming: fail(NAMING, "check:branch-name", message, Some(fix.clone())),
        target: fail(
            TARGET,
            "check:target-branch",
            Message::new()
                .text("Branch ")
                .value(input.head)
                .text(" matches no rule, so it may not target ")
                .value(input.base)
                .text("."),
            Some(fix),
        ),
    }
}

/// Why a name that looks right may still fail: letter case, look-alike characters.
fn hints(input: &GuardInput) -> Option<Message> {
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
        let listed = foreign
            .iter()
            .take(5)
            .map(|(i, c)| format!("U+{:04X} at position {}", *c as u32, i + 1))
            .collect::<Vec<_>>()
            .join(", ");
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
fn rename_fix(input: &GuardInput) -> Fix {
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

fn target_gate(input: &GuardInput, rules: &[&Rule]) -> GateOutcome {
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
        return pass(
            TARGET,
            "check:target-branch",
            message.text(format!(
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
    fail(TARGET, "check:target-branch", message, Some(fix))
}

#[cfg(test)]
mod tests;
