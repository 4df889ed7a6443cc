//! Landing a green queue commit: the base moves to exactly that commit by a
//! fast-forward (`force: false`), or not at all. What follows depends on GitHub's answer,
//! so the app performs [`Landing::effect`] and then calls [`Landing::landed`] or
//! [`Landing::refused`].

use super::build::Build;
use super::record::{Member, QueueOutputs, QueueRecord, QueueStatus, SetupError};
use crate::gates::GateOutcome;
use crate::gates::release::short;
use crate::render::text::Message;
use crate::stage::Effect;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landing {
    pub base: String,
    /// The base's head the queue commit was built on (the fast-forward's "from").
    pub base_sha: String,
    /// The queue commit: what the base becomes.
    pub sha: String,
    pub branch: String,
    pub members: Vec<Member>,
    /// `check:queue` PASS: the checks read green on `sha` in this run.
    pub gate: GateOutcome,
    /// The next queue commit, built on `sha` once it is the base.
    pub next: Option<Build>,
}

/// After the fast-forward was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landed {
    /// The queue branch deleted, when no next test reuses it.
    pub effects: Vec<Effect>,
    /// `check:queue` PASS and `action:merge` for each pull request that landed.
    pub records: Vec<QueueRecord>,
    pub next: Option<Build>,
    pub outputs: QueueOutputs,
}

/// Why GitHub refused the fast-forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The base moved since it was read: not a fast-forward any more (422 "Update is not
    /// a fast forward").
    BaseMoved,
    /// The base's protection or a ruleset refused the release token (GitHub's message
    /// names the rule).
    Protected { rule: String },
    /// Anything else (after the client's retries).
    Failed(String),
}

impl Refusal {
    /// GitHub's answer to `PATCH /git/refs/heads/{base}` with `force: false`.
    pub fn of_response(status: u16, message: &str) -> Refusal {
        let lower = message.to_ascii_lowercase();
        if lower.contains("not a fast forward") || lower.contains("not a fast-forward") {
            Refusal::BaseMoved
        } else if matches!(status, 403 | 422)
            && [
                "protected branch",
                "rule violation",
                "ruleset",
                "not accessible",
                "not allowed",
                "permission",
            ]
            .iter()
            .any(|w| lower.contains(w))
        {
            Refusal::Protected {
                rule: crate::chars::cut(message.trim(), 300)
                    .map_or_else(|| message.trim().to_string(), |c| format!("{c}…")),
            }
        } else {
            Refusal::Failed(format!("{status}: {message}"))
        }
    }
}

/// After a refused fast-forward: nothing more is done this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotLanded {
    /// A base whose protection refuses the release token: exit 3, the queue as it was.
    pub setup: Option<SetupError>,
    /// A failure to say (exit 3).
    pub failed: Option<Message>,
    pub notes: Vec<Message>,
    pub outputs: QueueOutputs,
}

impl Landing {
    /// The one write that lands: the base to the queue commit, fast-forward only.
    pub fn effect(&self) -> Effect {
        Effect::FastForward {
            branch: self.base.clone(),
            sha: self.sha.clone(),
        }
    }

    pub fn landed(self) -> Landed {
        let together = self
            .members
            .iter()
            .map(|m| format!("#{}", m.number))
            .collect::<Vec<_>>()
            .join(", ");
        let mut records = Vec::new();
        for member in &self.members {
            records.push(QueueRecord::gate(member, self.gate.clone()));
            let message = Message::new()
                .text(format!("landed #{} in ", member.number))
                .value(&self.base)
                .text(" as ")
                .value(&self.sha)
                .text(" (a fast-forward from ")
                .value(short(&self.base_sha))
                .text(format!(
                    "; the queue commit with {together}, its checks read green as that commit)"
                ));
            records.push(QueueRecord::action(member, "action:merge", &message));
        }
        let effects = match self.next {
            // The next test resets the queue branch; deleting it first would cost a write.
            Some(_) => Vec::new(),
            None => vec![Effect::DeleteRef {
                branch: self.branch.clone(),
            }],
        };
        Landed {
            effects,
            records,
            next: self.next,
            outputs: QueueOutputs::of(QueueStatus::Landed, Some(&self.sha)),
        }
    }

    pub fn refused(self, why: Refusal) -> NotLanded {
        let outputs = QueueOutputs::of(QueueStatus::Testing, Some(&self.sha));
        match why {
            Refusal::BaseMoved => NotLanded {
                setup: None,
                failed: None,
                notes: vec![
                    Message::new()
                        .text("not landed: ")
                        .value(&self.base)
                        .text(" moved after it was read at ")
                        .value(short(&self.base_sha))
                        .text(", so the queue commit ")
                        .value(short(&self.sha))
                        .text(
                            " is no longer a fast-forward of it; the queue's next run (the \
                             push to the base starts one) makes it again on the new base",
                        ),
                ],
                outputs,
            },
            Refusal::Protected { rule } => NotLanded {
                setup: Some(SetupError::Protected { rule }),
                failed: None,
                notes: Vec::new(),
                outputs,
            },
            Refusal::Failed(why) => NotLanded {
                setup: None,
                failed: Some(
                    Message::new()
                        .text("not landed: the fast-forward of ")
                        .value(&self.base)
                        .text(" to ")
                        .value(short(&self.sha))
                        .text(format!(" failed ({why}); the next run decides again")),
                ),
                notes: Vec::new(),
                outputs,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn githubs_refusals_are_told_apart() {
        assert_eq!(
            Refusal::of_response(422, "Update is not a fast forward"),
            Refusal::BaseMoved
        );
        assert_eq!(
            Refusal::of_response(422, "Protected branch update failed for refs/heads/main."),
            Refusal::Protected {
                rule: "Protected branch update failed for refs/heads/main.".into()
            }
        );
        assert!(matches!(
            Refusal::of_response(
                422,
                "Repository rule violations found\n\nCannot update this protected ref."
            ),
            Refusal::Protected { .. }
        ));
        assert!(matches!(
            Refusal::of_response(403, "Resource not accessible by integration"),
            Refusal::Protected { .. }
        ));
        assert_eq!(
            Refusal::of_response(500, "oops"),
            Refusal::Failed("500: oops".into())
        );
        let long = "Protected branch ".to_string() + &"é".repeat(400);
        let Refusal::Protected { rule } = Refusal::of_response(422, &long) else {
            panic!()
        };
        assert_eq!(rule.chars().count(), 301);
    }
}
