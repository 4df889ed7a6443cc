//! Whether a new Context Object may replace an audit file already on disk (pure): only
//! when it holds every entry the file holds, at the same places, so that replacing the
//! file loses nothing. A longer chain, a different one, a file that leaves out fewer old
//! entries than the new object, another pull request's object, or text that is not a
//! Context Object at all is kept, and the caller writes the new object beside it.

use super::context::ContextObject;
use super::stored::Stored;

/// What the file on disk is to the object about to be written over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// The new object continues the file's chain (or repeats it): replacing loses nothing.
    Continued { old: usize, new: usize },
    /// The file's chain has more entries than the new object's.
    Longer { old: usize, new: usize },
    /// Entry `at` (1-based) differs: another chain, or an edited file.
    Diverges { at: usize, old: usize },
    /// The new object leaves out (`timeline_omitted`) old entries the file holds.
    HoldsOmitted { old: usize, omitted: usize },
    /// The Context Object of another pull request or repository.
    Other {
        context_id: String,
        repository: String,
    },
    /// Not a Context Object council can read; why.
    Unreadable(String),
}

impl Existing {
    /// Replacing the file loses nothing.
    pub fn may_replace(&self) -> bool {
        matches!(self, Existing::Continued { .. })
    }

    /// Why the file is kept (or, when it may be replaced, what replaces it), in words
    /// that follow "kept out/audit/PR-1.json: ".
    pub fn describe(&self) -> String {
        match self {
            Existing::Continued { old, new } if old == new => {
                format!("this run's Context Object holds the same {}", entries(*new))
            }
            Existing::Continued { old, new } => format!(
                "this run's Context Object ({}) continues its chain of {}",
                entries(*new),
                entries(*old)
            ),
            Existing::Longer { old, new } => {
                format!("its chain has {}, this run's only {}", entries(*old), new)
            }
            Existing::Diverges { at, old } => format!(
                "its chain of {} is not the one this run continues (entry {at} differs)",
                entries(*old)
            ),
            Existing::HoldsOmitted { old, omitted } => format!(
                "it holds {} and this run's Context Object leaves out the oldest {omitted}",
                entries(*old)
            ),
            Existing::Other {
                context_id,
                repository,
            } => format!("it holds the Context Object {context_id} of {repository}"),
            Existing::Unreadable(why) => format!("it is not a Context Object ({why})"),
        }
    }
}

fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".to_string()
    } else {
        format!("{n} entries")
    }
}

/// What the audit file `existing` (its text) is to `new`, the object about to be written
/// (as the audit file holds it: with `chain_head`, and `timeline_omitted` when it leaves
/// old entries out).
pub fn compare(existing: &str, new: &ContextObject) -> Existing {
    let old = match serde_json::from_str::<ContextObject>(existing) {
        Ok(context) => Stored::from_file(context),
        Err(e) => return Existing::Unreadable(first_line(&e.to_string())),
    };
    let new = Stored::from_file(new.clone());
    if old.context.context_id != new.context.context_id
        || old.context.repository != new.context.repository
    {
        return Existing::Other {
            context_id: old.context.context_id,
            repository: old.context.repository,
        };
    }
    // A hostile file may claim any count of entries left out: `total_entries` saturates.
    let (old_total, new_total) = (old.total_entries(), new.total_entries());
    if old_total > new_total {
        return Existing::Longer {
            old: old_total,
            new: new_total,
        };
    }
    let (old_from, new_from) = (old.omitted.count, new.omitted.count);
    if old_from < new_from && !old.context.timeline.is_empty() {
        return Existing::HoldsOmitted {
            old: old_total,
            omitted: new_from,
        };
    }
    // A file that leaves out its oldest entries is anchored on the hash of the last one
    // left out: the new object's entry there (or its own anchor) must have that hash.
    if old_from > 0 {
        let anchor = match old_from.checked_sub(new_from.saturating_add(1)) {
            Some(i) => new.context.timeline.get(i).map(|e| e.hash.as_str()),
            None => Some(new.omitted.head_hash.as_str()),
        };
        if anchor != Some(old.omitted.head_hash.as_str()) {
            return Existing::Diverges {
                at: old_from,
                old: old_total,
            };
        }
    }
    for (i, entry) in old.context.timeline.iter().enumerate() {
        let at = old_from + i;
        if new.context.timeline.get(at - new_from) != Some(entry) {
            return Existing::Diverges {
                at: at + 1,
                old: old_total,
            };
        }
    }
    Existing::Continued {
        old: old_total,
        new: new_total,
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::stored::merge;
    use crate::audit::timeline::{Record, RunInfo, new_entry};
    use crate::event::sample_pull_request;

    /// A sealed object with `n` entries (their messages `m0`, `m1`, …, from `from`).
    fn chain(n: usize, tag: &str) -> ContextObject {
        let pr = sample_pull_request();
        let now = "2026-01-01T00:00:00Z";
        let mut ours = ContextObject::new("o/r", &pr, "webhook:pull_request.opened", now);
        for i in 0..n {
            let record = Record {
                stage: "guard",
                agent: "agent_guard",
                action: format!("check:{tag}-{i}"),
                result: "PASS".into(),
                message: format!("m{i}"),
            };
            ours.timeline
                .push(new_entry(&RunInfo::local(), &record, &pr.head_sha, now));
        }
        merge(None, &ours, None).unwrap().file_context()
    }

    fn text(c: &ContextObject) -> String {
        c.to_pretty_json()
    }

    #[test]
    fn a_continued_or_repeated_chain_may_replace_the_file() {
        let four = chain(4, "a");
        let mut two = four.clone();
        two.timeline.truncate(2);
        let got = compare(&text(&two), &four);
        assert_eq!(got, Existing::Continued { old: 2, new: 4 });
        assert!(got.may_replace());
        assert_eq!(
            got.describe(),
            "this run's Context Object (4 entries) continues its chain of 2 entries"
        );
        assert_eq!(
            compare(&text(&four), &four).describe(),
            "this run's Context Object holds the same 4 entries"
        );
    }

    #[test]
    fn a_longer_or_another_chain_is_kept() {
        let four = chain(4, "a");
        let mut two = four.clone();
        two.timeline.truncate(2);
        let longer = compare(&text(&four), &two);
        assert_eq!(longer, Existing::Longer { old: 4, new: 2 });
        assert!(!longer.may_replace());
        assert_eq!(
            longer.describe(),
            "its chain has 4 entries, this run's only 2"
        );
        let other = compare(&text(&chain(2, "b")), &four);
        assert_eq!(other, Existing::Diverges { at: 1, old: 2 });
        assert_eq!(
            other.describe(),
            "its chain of 2 entries is not the one this run continues (entry 1 differs)"
        );
        // An edited entry (a signature, a verdict) is a different entry.
        let mut edited = two.clone();
        edited.timeline[1].result = "FAIL".into();
        assert_eq!(
            compare(&text(&edited), &four),
            Existing::Diverges { at: 2, old: 2 }
        );
    }

    #[test]
    fn what_is_not_this_pull_requests_object_is_kept() {
        let four = chain(4, "a");
        let mut elsewhere = four.clone();
        elsewhere.repository = "x/y".into();
        assert_eq!(
            compare(&text(&elsewhere), &four).describe(),
            "it holds the Context Object PR-2 of x/y"
        );
        let mut huge = serde_json::to_value(&four).unwrap();
        huge["timeline_omitted"] = serde_json::json!({"count": u64::MAX, "head_hash": "x"});
        assert_eq!(
            compare(&huge.to_string(), &four).describe(),
            format!("its chain has {} entries, this run's only 4", u64::MAX)
        );
        for hostile in ["", "{", "[]", "{\"timeline\": 3}", "\u{0}"] {
            let got = compare(hostile, &four);
            assert!(
                matches!(got, Existing::Unreadable(_)),
                "{hostile:?}: {got:?}"
            );
            assert!(got.describe().starts_with("it is not a Context Object ("));
        }
    }

    #[test]
    fn entries_left_out_count_at_their_places() {
        let four = chain(4, "a");
        // The new object leaves out the two oldest entries, which the file holds.
        let mut tail = four.clone();
        tail.timeline.drain(..2);
        tail.extra.insert(
            "timeline_omitted".into(),
            serde_json::json!({"count": 2, "head_hash": four.timeline[1].hash}),
        );
        let mut two = four.clone();
        two.timeline.truncate(2);
        assert_eq!(
            compare(&text(&two), &tail),
            Existing::HoldsOmitted { old: 2, omitted: 2 }
        );
        // The file leaves them out and the new object holds them: it continues the file.
        assert_eq!(
            compare(&text(&tail), &four),
            Existing::Continued { old: 4, new: 4 }
        );
        // The file's anchor must be the hash of the new object's entry before its tail.
        let mut forged = tail.clone();
        forged.extra.insert(
            "timeline_omitted".into(),
            serde_json::json!({"count": 2, "head_hash": four.timeline[0].hash}),
        );
        assert_eq!(
            compare(&text(&forged), &four),
            Existing::Diverges { at: 2, old: 4 }
        );
    }
}
