//! Which stored Context Object a run continues from (pure). A stored object is adopted
//! only when it is this pull request's (its `context_id` and `repository`: a genuine,
//! even signed, ledger of another pull request is no record of this one) and it
//! verifies: its chain from its anchor, and with a key every signature. One that does
//! not is rejected, named, and never merged; when nothing can be adopted although
//! something was rejected, the new chain starts with an `action:ledger-reset` entry
//! recording what was rejected, so the restart itself is on the record.

use super::stored::{LedgerError, Stored};

/// A stored object as found: where (a comment URL, an artifact) and what it parsed to.
pub struct Found {
    pub source: String,
    pub parsed: Result<Stored, LedgerError>,
}

/// A stored object that was not adopted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub source: String,
    /// What is wrong, naming the first bad entry.
    pub why: String,
    /// The head hash it claimed (its last entry's `hash`), when it had one.
    pub head_hash: Option<String>,
}

impl Rejected {
    pub fn warning(&self) -> String {
        format!(
            "the stored Context Object ({}) is not adopted: {}",
            self.source, self.why
        )
    }
}

/// The verified objects, oldest first, and the rejected ones.
#[derive(Debug, Default)]
pub struct Adopted {
    pub verified: Vec<Stored>,
    pub rejected: Vec<Rejected>,
}

/// Whose Context Object a run may adopt: `PR-<n>` of `owner/name`.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub context_id: &'a str,
    pub repository: &'a str,
}

impl Subject<'_> {
    /// Why `stored` is not this subject's object, if it is not.
    fn mismatch(&self, stored: &Stored) -> Option<String> {
        let theirs = &stored.context;
        let same = theirs.context_id == self.context_id
            && theirs.repository.eq_ignore_ascii_case(self.repository);
        (!same).then(|| {
            format!(
                "it is the Context Object of {} in {}, not of {} in {}",
                shown(&theirs.context_id),
                shown(&theirs.repository),
                self.context_id,
                self.repository
            )
        })
    }
}

/// A stored identifier as a message shows it: short, and never empty.
fn shown(value: &str) -> String {
    match value.chars().count() {
        0 => "(none)".to_string(),
        1..=80 => format!("`{value}`"),
        _ => format!("`{}…`", value.chars().take(80).collect::<String>()),
    }
}

pub fn adopt(found: Vec<Found>, key: Option<&[u8]>, subject: &Subject) -> Adopted {
    let mut adopted = Adopted::default();
    for Found { source, parsed } in found {
        match parsed {
            Ok(stored) => match subject
                .mismatch(&stored)
                .map_or_else(|| stored.verify(key).err().map(|e| e.to_string()), Some)
            {
                None => adopted.verified.push(stored),
                Some(why) => adopted.rejected.push(Rejected {
                    source,
                    why,
                    head_hash: Some(claimed_head(&stored)),
                }),
            },
            Err(e) => adopted.rejected.push(Rejected {
                source,
                why: e.to_string(),
                head_hash: None,
            }),
        }
    }
    adopted
}

fn claimed_head(stored: &Stored) -> String {
    stored
        .context
        .timeline
        .last()
        .map_or_else(|| stored.anchor().to_string(), |e| e.hash.clone())
}

/// The message of the `action:ledger-reset` entry that starts a new chain.
pub fn reset_message(rejected: &[Rejected]) -> String {
    let parts: Vec<String> = rejected
        .iter()
        .map(|r| match &r.head_hash {
            Some(head) => format!("{} (head {head}): {}", r.source, r.why),
            None => format!("{} (no head): {}", r.source, r.why),
        })
        .collect();
    format!(
        "A new chain starts here: no stored Context Object verified. Rejected: {}",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::stored::{Links, parse};
    use crate::audit::stored::{merge, render};
    use crate::audit::timeline::{Record, RunInfo, new_entry};

    const SUBJECT: Subject = Subject {
        context_id: "PR-2",
        repository: "o/r",
    };

    fn stored(key: Option<&[u8]>) -> Stored {
        let pr = crate::event::sample_pull_request();
        let mut ours = crate::audit::ContextObject::new("o/r", &pr, "t", "2026-01-01T00:00:00Z");
        let run = RunInfo::local();
        for action in ["check:branch-name", "check:target-branch"] {
            let record = Record {
                stage: "guard",
                agent: "agent_guard",
                action: action.into(),
                result: "FAIL".into(),
                message: "m".into(),
            };
            ours.timeline
                .push(new_entry(&run, &record, &pr.head_sha, "t"));
        }
        merge(None, &ours, key).unwrap()
    }

    fn found(s: &Stored) -> Found {
        Found {
            source: "comment 1".into(),
            parsed: parse(&render(s, &Links::default())),
        }
    }

    #[test]
    fn a_verified_object_is_adopted() {
        let s = stored(Some(b"k"));
        let adopted = adopt(vec![found(&s)], Some(b"k"), &SUBJECT);
        assert_eq!(adopted.verified.len(), 1);
        assert!(adopted.rejected.is_empty());
    }

    #[test]
    fn another_pull_requests_or_repositorys_object_is_rejected_even_when_signed() {
        let s = stored(Some(b"k"));
        for subject in [
            Subject {
                context_id: "PR-7",
                repository: "o/r",
            },
            Subject {
                context_id: "PR-2",
                repository: "o/other",
            },
        ] {
            let adopted = adopt(vec![found(&s)], Some(b"k"), &subject);
            assert!(adopted.verified.is_empty());
            assert_eq!(
                adopted.rejected[0].why,
                format!(
                    "it is the Context Object of `PR-2` in `o/r`, not of {} in {}",
                    subject.context_id, subject.repository
                )
            );
        }
        let upper = Subject {
            context_id: "PR-2",
            repository: "O/R",
        };
        assert_eq!(adopt(vec![found(&s)], Some(b"k"), &upper).verified.len(), 1);
    }

    #[test]
    fn entries_edited_and_resealed_without_the_key_are_rejected_naming_the_entry() {
        let mut s = stored(Some(b"k"));
        s.context.timeline[1].result = "PASS".into();
        // Re-hash the way a forger without the key can.
        let mut maps: Vec<_> = s
            .context
            .timeline
            .iter()
            .map(|e| match serde_json::to_value(e).unwrap() {
                serde_json::Value::Object(m) => m,
                _ => unreachable!(),
            })
            .collect();
        crate::audit::chain::seal(&mut maps, 0, None).unwrap();
        s.context.timeline = maps
            .into_iter()
            .map(|m| serde_json::from_value(serde_json::Value::Object(m)).unwrap())
            .collect();
        let adopted = adopt(vec![found(&s)], Some(b"k"), &SUBJECT);
        assert!(adopted.verified.is_empty());
        let why = &adopted.rejected[0].why;
        assert!(why.contains("entry 0"), "{why}");
        assert!(reset_message(&adopted.rejected).contains("comment 1 (head sha256:"));
    }

    #[test]
    fn an_emptied_comment_is_rejected_without_a_head() {
        let adopted = adopt(
            vec![Found {
                source: "comment 2".into(),
                parsed: parse("<!-- agent-council:ledger:v1 -->\nnothing here"),
            }],
            None,
            &SUBJECT,
        );
        assert_eq!(adopted.rejected[0].head_hash, None);
    }
}
