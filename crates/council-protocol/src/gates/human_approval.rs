//! `human_approval`: an agent's pull request merges only with
//! `actors.agent.human_approvals` approvals of its current head by writers who are
//! people, did not open it, and did not author or co-author any of its commits as GitHub
//! attributes them (`Commit.authors`: for Copilot's coding agent, the person who asked
//! for the pull request is a co-author). Until then release waits: the gate is PENDING
//! (never FAIL, so the Context Object's `gates.human_approval` stays `null`) and says
//! whose approvals did not count and why.

use super::release::{ReleaseFacts, ReviewFact, listing, plural, short};
use super::{Check, Fix, Gate, GateOutcome, Verdict};
use crate::render::text::Message;

pub const GATE: Gate = Gate {
    name: "human_approval",
    action: "check:human-approval",
    config_key: "actors.agent.human_approvals",
    check: Check::Release(check),
};

fn same_login(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

fn check(facts: &ReleaseFacts) -> Option<GateOutcome> {
    let open = facts.open.as_ref()?;
    let classified = facts.actor.filter(|a| a.is_agent())?;
    let required = classified.rules.human_approvals as usize;
    if required == 0 {
        return None;
    }
    let head = short(&open.head_sha);
    // Why an approval does not count, if it does not.
    let excluded = |r: &ReviewFact| -> Option<&'static str> {
        if r.bot || r.login.ends_with("[bot]") {
            Some("a bot")
        } else if same_login(&r.login, &open.author) {
            Some("the pull request's author")
        } else if r.commit.as_deref() != Some(open.head_sha.as_str()) {
            Some("approved an earlier head")
        } else if open.commit_authors.iter().any(|a| same_login(a, &r.login)) {
            Some("an author or co-author of its commits")
        } else {
            None
        }
    };
    let approvals = open.reviews.iter().filter(|r| r.state == "APPROVED");
    let counted: Vec<&str> = approvals
        .clone()
        .filter(|r| excluded(r).is_none())
        .map(|r| r.login.as_str())
        .collect();
    let not_counted: Vec<(&str, &str)> = approvals
        .filter_map(|r| Some((r.login.as_str(), excluded(r)?)))
        .collect();
    let partly_read = classified
        .actor
        .commits
        .filter(|c| c.read < c.total)
        .map(|c| {
            format!(
                " (the authors of {} of its {} commits were known)",
                c.read, c.total
            )
        })
        .unwrap_or_default();
    if counted.len() >= required {
        return Some(GATE.pass(
            Message::new()
                .text(format!(
                    "{} of {} on head ",
                    counted.len(),
                    plural(required, "human approval", "human approvals")
                ))
                .value(head)
                .text(": ")
                .append(listing(&counted, |m, login| m.value(*login)))
                .text(format!("{partly_read}.")),
        ));
    }
    let mut message = Message::new()
        .text(format!(
            "Waiting for {} of head ",
            plural(
                required - counted.len(),
                "more human approval",
                "more human approvals"
            )
        ))
        .value(head)
        .text(format!(
            " (actors.agent.human_approvals: {required}; has {})",
            counted.len()
        ));
    if !not_counted.is_empty() {
        message = message
            .text("; not counted: ")
            .append(listing(&not_counted, |m, (login, why)| {
                m.value(*login).text(format!(" ({why})"))
            }));
    }
    Some(GATE.outcome(
        Verdict::Pending,
        message.text(format!("{partly_read}.")),
        Some(Fix {
            advice: Message::new()
                .text(
                    "a person who can write to the repository, did not open this pull request \
                     and did not author or co-author its commits reviews and approves head ",
                )
                .value(head)
                .text(" (an approval of an earlier head does not count)."),
            commands: Vec::new(),
        }),
    ))
}
