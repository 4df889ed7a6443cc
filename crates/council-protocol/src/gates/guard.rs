//! Stage 1, the Sentry: the facts both branch gates look at (exemption, hidden
//! characters, the rules the head matches) and the advice they share. The gates
//! themselves are `branch_name.rs` and `target_branch.rs`.

use super::{Check, Fix, GATES, GateOutcome, Verdict};
use crate::policy::{BranchPolicy, DEFAULT_SOURCE, NamePattern, Policy, Rule};
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

    /// `naming_convention`'s verdict without its message (`policy simulate` builds the
    /// message only for a verdict that changes; a test holds the two to each other).
    pub fn names_pass(&self) -> bool {
        self.exemption.is_some() || (self.hidden.is_empty() && !self.rules.is_empty())
    }

    /// `target_policy`'s verdict without its message.
    pub fn target_passes(&self) -> bool {
        self.exemption.is_some()
            || (self.hidden.is_empty()
                && self.rules.iter().any(|r| r.allows_target(self.input.base)))
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

/// The guard's gates for a branch that would target `base`, before any pull request
/// exists (`council policy check`, MCP `check_branch`).
pub fn evaluate_branch(policy: &Policy, head: &str, base: &str) -> Vec<GateOutcome> {
    evaluate(GuardInput {
        pr_number: 0,
        head,
        base,
        previous_base: None,
        policy: &policy.branches,
        policy_source: &policy.source,
    })
}

/// `target_policy`, for a verdict reached outside the guard's own check (a merge that
/// landed on another base than the one decided for).
pub fn target_gate() -> &'static super::Gate {
    &super::target_branch::GATE
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

/// At most this many names are suggested: a remedy must stay short enough to read.
const MAX_ALTERNATIVES: usize = 3;

/// The names to suggest and the base their new pull request should target: the rules
/// that may target the current base, else the first readable rule and its first target.
fn suggestions<'a>(input: &GuardInput<'a>) -> Option<(Vec<&'a str>, String)> {
    let readable = || {
        input
            .policy
            .rules
            .iter()
            .filter(|r| !r.suggestions.is_empty())
    };
    let names = |rules: &mut dyn Iterator<Item = &'a Rule>| {
        let mut names: Vec<&'a str> = Vec::new();
        // A rule for one fixed name (`develop`) is a long-lived branch's: renaming a work
        // branch to it is never the fix.
        let templated = rules
            .flat_map(|r| r.suggestions.iter())
            .filter(|n| n.contains('<'));
        for name in templated {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names.truncate(MAX_ALTERNATIVES);
        names
    };
    let for_base = names(&mut readable().filter(|r| r.allows_target(input.base)));
    if !for_base.is_empty() {
        return Some((for_base, input.base.to_string()));
    }
    let rule = readable().find(|r| r.suggestions.iter().any(|n| n.contains('<')))?;
    let target = rule
        .targets
        .iter()
        .find(|t| t.is_literal())
        .or(rule.targets.first())
        .map(|t| t.glob.clone())
        .unwrap_or_default();
    Some((names(&mut std::iter::once(rule)), target))
}

/// What the placeholders of the suggested names stand for, in the order they appear.
fn placeholders(names: &[&str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        let mut rest = *name;
        while let Some((placeholder, after)) = next_placeholder(rest) {
            if !seen.contains(&placeholder) {
                seen.push(placeholder);
            }
            rest = after;
        }
    }
    let described: Vec<String> = seen
        .iter()
        .map(|p| match *p {
            "<area>" => "<area> with the area of the work (e.g. devops)".to_string(),
            "<n>" => "<n> with the work item's number".to_string(),
            "<slug>" => "<slug> with a short lower-case description (e.g. fix-login)".to_string(),
            "<path>" => "<path> with a name (it may hold /)".to_string(),
            "<name>" => "each <name> with a name (no /)".to_string(),
            other => other.to_string(),
        })
        .collect();
    match described.as_slice() {
        [] => String::new(),
        [one] => format!(", replacing {one}"),
        [first @ .., last] => format!(", replacing {} and {last}", first.join(", ")),
    }
}

/// The first `<name>` of `rest`, brackets included, and what follows it.
fn next_placeholder(rest: &str) -> Option<(&str, &str)> {
    let from = rest.get(rest.find('<')?..)?;
    from.split_at_checked(from.find('>')? + 1)
}

/// Renaming a PR's head branch closes the PR, so the fix is rename + new PR: one command
/// line per name the policy would accept, with its placeholders explained.
pub(super) fn rename_fix(input: &GuardInput) -> Fix {
    let Some((names, target)) = suggestions(input) else {
        return Fix {
            advice: Message::new()
                .text(
                    "rename the branch to a name that one of the rules matches and open a new \
                     pull request (renaming the head branch of an open pull request closes it).",
                )
                .text(default_policy_note(input)),
            commands: Vec::new(),
        };
    };
    let old = shell_word(input.head);
    let commands = names
        .iter()
        .map(|name| {
            let new = shell_word(name);
            format!("git branch -m {old} {new} && git push -u origin {new} && git push origin --delete {old}")
        })
        .collect::<Vec<_>>();
    let run = if commands.len() == 1 {
        "Run this"
    } else {
        "Run one of these"
    };
    Fix {
        advice: Message::new()
            .text("rename the branch and open a new pull request into ")
            .value(&target)
            .text(" (renaming the head branch of an open pull request closes it).")
            .text(default_policy_note(input))
            .text(format!(" {run}{}:", placeholders(&names))),
        commands,
    }
}

/// Without a policy file the seed's strict rules apply, which ordinary branch names fail:
/// the maintainer, not the author, is the one to act then.
fn default_policy_note(input: &GuardInput) -> &'static str {
    if input.policy_source.starts_with(DEFAULT_SOURCE) {
        " No policy file was found, so the default policy applies (a maintainer can write one \
         that fits this repository's branches with: council init)."
    } else {
        ""
    }
}

#[cfg(test)]
mod tests;
