//! `agent_paths`: an agent's pull request changes no path that
//! `actors.agent.forbidden_paths` names (by default what lets a change run code or pick
//! its own reviewers: the workflows, this policy, the code owners). Globs as in
//! `review:` (a glob without `/` matches a file name at any depth); a rename counts
//! under its old and its new path, as in every review gate.

use std::collections::HashSet;

use super::{Check, Fix, Gate, GateOutcome, thousands};
use crate::render::text::Message;
use crate::review::ReviewFacts;

pub const GATE: Gate = Gate {
    name: "agent_paths",
    action: "check:agent-paths",
    config_key: "actors.agent.forbidden_paths",
    check: Check::Review(check),
};

/// Paths named in a message; the rest are counted.
const LISTED: usize = 10;

fn check(facts: &ReviewFacts) -> Option<GateOutcome> {
    let rules = facts.actor.filter(|a| a.is_agent())?.rules;
    if rules.forbidden_paths.is_empty() {
        return None;
    }
    let Some(globs) = rules.forbidden() else {
        return Some(GATE.fail(
            Message::new().text(
                "actors.agent.forbidden_paths: the globs together are too complex to match, \
                 so no change can be shown to stay clear of them.",
            ),
            Some(Fix {
                advice: Message::new().text(
                    "a maintainer simplifies actors.agent.forbidden_paths in the base \
                     branch's policy (fewer or shorter globs).",
                ),
                commands: Vec::new(),
            }),
        ));
    };
    let mut seen = HashSet::new();
    let hits: Vec<(&str, &str)> = facts
        .diff
        .paths()
        .filter_map(|path| Some((path, globs.first_match(path)?)))
        .filter(|(path, _)| seen.insert(*path))
        .map(|(path, i)| (path, rules.forbidden_paths[i].as_str()))
        .collect();
    if !hits.is_empty() {
        let n = hits.len();
        let mut message = Message::new().text(format!(
            "An agent's pull request may not change {}: ",
            if n == 1 {
                "this path".to_string()
            } else {
                format!("these {n} paths")
            }
        ));
        for (i, (path, glob)) in hits.iter().take(LISTED).enumerate() {
            if i > 0 {
                message = message.text(", ");
            }
            message = message.value(*path).text(" (glob ").value(*glob).text(")");
        }
        if n > LISTED {
            message = message.text(format!(" and {} more", n - LISTED));
        }
        return Some(GATE.fail(
            message.text(" (actors.agent.forbidden_paths)."),
            Some(Fix {
                advice: Message::new().text(
                    "take these changes out of this pull request (a person opens one for \
                     them), or a maintainer changes actors.agent.forbidden_paths in the base \
                     branch's policy.",
                ),
                commands: Vec::new(),
            }),
        ));
    }
    if facts.diff.capped {
        return Some(GATE.fail(
            Message::new().text(format!(
                "GitHub lists only the first 3,000 files of this pull request: the {} files \
                 beyond cannot be checked against actors.agent.forbidden_paths.",
                thousands(
                    facts
                        .diff
                        .total_files
                        .saturating_sub(facts.diff.files.len() as u64)
                )
            )),
            Some(Fix {
                advice: Message::new().text("split it into smaller pull requests."),
                commands: Vec::new(),
            }),
        ));
    }
    Some(GATE.pass(Message::new().text(format!(
        "No changed path matches actors.agent.forbidden_paths ({} glob{}, {} file{} checked).",
        rules.forbidden_paths.len(),
        if rules.forbidden_paths.len() == 1 { "" } else { "s" },
        facts.diff.files.len(),
        if facts.diff.files.len() == 1 { "" } else { "s" },
    ))))
}
