//! `merge_ready`: nothing but the pipeline stands between the open pull request and a
//! merge: the head is the one the event named, GitHub can merge it (not dirty, behind,
//! blocked, a draft or unknown), neither native auto-merge nor a merge queue owns it,
//! and the required label and approvals (by people other than the author) are there.
//! It never fails: each of these is something to wait for. Whether the guard and the
//! review gates pass on this head is decided beside it, from the same reading. Under
//! council's merge queue (`queue.enabled`) a branch `behind` its base is ready: the
//! queue commit, the base with the pull request merged in, is what gets tested.

use super::release::{Mergeable, ReleaseFacts, plural, short};
use super::{Check, Gate, GateOutcome, Verdict};
use crate::render::text::Message;

pub const GATE: Gate = Gate {
    name: "merge_ready",
    action: "check:merge-ready",
    config_key: "release",
    check: Check::Release(check),
};

fn check(facts: &ReleaseFacts) -> Option<GateOutcome> {
    let open = facts.open.as_ref()?;
    let head = short(&open.head_sha);
    let mut waits: Vec<Message> = Vec::new();

    if open.head_sha != open.event_head {
        waits.push(
            Message::new()
                .text("the head moved from ")
                .value(short(&open.event_head))
                .text(" to ")
                .value(head)
                .text(" since the event (the new head's own checks decide)"),
        );
    }
    if let Some(auto) = &open.auto_merge {
        waits.push(
            Message::new()
                .text("GitHub's auto-merge is on (enabled by ")
                .value(&auto.enabled_by)
                .text(format!(
                    ", {}): GitHub merges it when the branch's rules pass, and council does \
                     not race it",
                    auto.method.to_ascii_lowercase()
                )),
        );
    }
    if open.in_merge_queue {
        waits.push(Message::new().text(
            "it is in the merge queue: the queue merges it, and council does not race it",
        ));
    }
    if open.draft && open.mergeable != Mergeable::Draft {
        waits.push(Message::new().text("it is a draft"));
    }
    if let Some(why) = mergeable_wait(open.mergeable, open.reads, facts.queue) {
        waits.push(Message::new().text(why));
    }
    if let Some(label) = facts.require_label
        && !open.labels.iter().any(|l| l == label)
    {
        waits.push(
            Message::new()
                .text("the label ")
                .value(label)
                .text(" (`release.require_label`)"),
        );
    }
    // GitHub already refuses an author's review of their own pull request; a bot's
    // approval (a workflow token may approve) is no person's judgement either.
    let counts = |r: &&super::release::ReviewFact| !r.bot && r.login != open.author;
    let approved = open
        .reviews
        .iter()
        .filter(|r| r.state == "APPROVED")
        .filter(counts)
        .count();
    let uncounted = open
        .reviews
        .iter()
        .filter(|r| r.state == "APPROVED" && !counts(r))
        .count();
    let objecting: Vec<&str> = open
        .reviews
        .iter()
        .filter(|r| r.state == "CHANGES_REQUESTED")
        .map(|r| r.login.as_str())
        .collect();
    if !objecting.is_empty() {
        waits.push(
            super::release::listing(&objecting, |m, login| m.value(*login))
                .text(" requested changes (their latest review)"),
        );
    }
    let required = facts.policy.required_approvals as usize;
    if approved < required {
        let not_counted = match uncounted {
            0 => String::new(),
            n => format!(
                "; {} by the author or a bot not counted",
                plural(n, "approval", "approvals")
            ),
        };
        waits.push(Message::new().text(format!(
            "{} (has {approved}{not_counted}; `release.required_approvals`)",
            plural(required, "approval", "approvals")
        )));
    }
    if waits.is_empty() {
        let ready = if facts.queue {
            "Ready to queue head "
        } else {
            "Ready to merge head "
        };
        let mut message = Message::new()
            .text(ready)
            .value(head)
            .text(format!(": mergeable ({})", open.mergeable.as_str()));
        if facts.queue && open.mergeable == Mergeable::Behind {
            message = message.text(", tested on the current base by the queue");
        }
        if let Some(label) = facts.require_label {
            message = message.text(", label ").value(label);
        }
        if required > 0 {
            message = message.text(format!(", {approved} of {required} approvals"));
        }
        return Some(GATE.pass(message.text(".")));
    }
    let mut message = Message::new().text("Waiting: ");
    for (i, wait) in waits.into_iter().enumerate() {
        if i > 0 {
            message = message.text("; ");
        }
        message = message.append(wait);
    }
    Some(GATE.outcome(Verdict::Pending, message.text("."), None))
}

fn mergeable_wait(mergeable: Mergeable, reads: u32, queue: bool) -> Option<String> {
    Some(match mergeable {
        m if m.allows_merge() => return None,
        Mergeable::Behind if queue => return None,
        Mergeable::Dirty => "it conflicts with its base branch (resolve the conflicts)".into(),
        Mergeable::Behind => {
            "its branch is behind the base and the base requires it up to date (update the \
             branch)"
                .into()
        }
        Mergeable::Blocked => {
            "branch protection blocks the merge (a required review or check is missing)".into()
        }
        Mergeable::Draft => "it is a draft".into(),
        _ => format!(
            "GitHub had not worked out whether it can merge after {} (mergeable state \
             unknown); the next event asks again",
            plural(reads.max(1) as usize, "read", "reads")
        ),
    })
}
