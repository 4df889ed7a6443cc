//! A pull request's issue timeline, as the queue reads it: when the queue label was last
//! added, and whether the head moved or the base changed after that. The timeline lists
//! what happened in order, which is what these decisions go by.

use chrono::{DateTime, Utc};

use crate::policy::queue::is_queued_label;

/// One item of an issue's timeline, as much as the queue reads: labels added and
/// removed, pushes to a pull request's head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimelineItem {
    /// `labeled`, `unlabeled`, `committed`, `head_ref_force_pushed`, …
    pub event: String,
    /// The label's name (`labeled`, `unlabeled`).
    pub label: Option<String>,
    /// When it happened: `created_at`, or a `committed` item's committer date.
    pub at: Option<String>,
}

/// An issue's timeline as read: its newest items, oldest first (at most as many pages as
/// the client reads: anyone who may comment adds to it), and whether that is all of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    pub items: Vec<TimelineItem>,
    pub complete: bool,
}

/// When the queue label was last added, and whether the head moved after that: a push
/// or a force-push listed after it (the timeline lists what happened in order; a
/// commit's own date is whatever its author's clock said).
pub fn label_time(timeline: &Timeline) -> (Option<DateTime<Utc>>, bool) {
    match since_label(timeline) {
        None => (None, false),
        Some((at, after)) => (
            at,
            after
                .iter()
                .any(|i| matches!(i.event.as_str(), "committed" | "head_ref_force_pushed")),
        ),
    }
}

/// Whether the pull request was retargeted (a `base_ref_changed` event) after the queue
/// label was last added: its place in line was for another base.
pub fn retargeted_since_label(timeline: &Timeline) -> bool {
    since_label(timeline)
        .is_some_and(|(_, after)| after.iter().any(|i| i.event == "base_ref_changed"))
}

/// When the queue label was last added and what the timeline lists after it; `None`
/// when it never was. A timeline read only in part (its newest 1,000 items: comments
/// anyone may add are items too) whose part holds no such label was labelled before all
/// of it: everything read comes after the label, and the label's time is taken as the
/// oldest time GitHub stamped on what was read (a bound; commits carry their author's
/// clock, so they do not count).
fn since_label(timeline: &Timeline) -> Option<(Option<DateTime<Utc>>, &[TimelineItem])> {
    let items = &timeline.items;
    let last = items
        .iter()
        .rposition(|i| i.event == "labeled" && i.label.as_deref().is_some_and(is_queued_label));
    match last {
        Some(last) => Some((time(items[last].at.as_deref()), &items[last + 1..])),
        None if timeline.complete => None,
        None => {
            let bound = items
                .iter()
                .filter(|i| i.event != "committed")
                .filter_map(|i| time(i.at.as_deref()))
                .min();
            Some((bound, items.as_slice()))
        }
    }
}

fn time(text: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::queue::QUEUED_LABEL;

    fn item(event: &str, label: Option<&str>, at: &str) -> TimelineItem {
        TimelineItem {
            event: event.into(),
            label: label.map(str::to_string),
            at: Some(at.into()),
        }
    }

    /// The whole timeline, as GitHub lists a short one.
    fn all(items: &[TimelineItem]) -> Timeline {
        Timeline {
            items: items.to_vec(),
            complete: true,
        }
    }

    #[test]
    fn the_last_label_counts_and_a_push_listed_after_it_moves_the_head() {
        let q = QUEUED_LABEL;
        let timeline = [
            item("committed", None, "2026-01-01T09:00:00Z"),
            item("labeled", Some(q), "2026-01-01T10:00:00Z"),
            item("committed", None, "2026-01-01T10:10:00Z"),
            item("unlabeled", Some(q), "2026-01-01T10:30:00Z"),
            item("labeled", Some("Council:Queued"), "2026-01-01T11:00:00Z"),
            item("labeled", Some("bug"), "2026-01-01T12:00:00Z"),
        ];
        let (at, moved) = label_time(&all(&timeline));
        assert_eq!(at, time(Some("2026-01-01T11:00:00Z")));
        assert!(!moved);
        // Listed after the label, whatever date the commit carries.
        let mut pushed = timeline.to_vec();
        pushed.push(item("committed", None, "2020-01-01T00:00:00Z"));
        assert!(label_time(&all(&pushed)).1);
        let mut forced = timeline.to_vec();
        forced.push(item("head_ref_force_pushed", None, "2026-01-01T11:05:00Z"));
        assert!(label_time(&all(&forced)).1);
        assert_eq!(label_time(&all(&[])), (None, false));
        // A label whose time cannot be read still places the pushes after it.
        let garbled = [
            item("labeled", Some(q), "yesterday"),
            item("committed", None, "x"),
        ];
        assert_eq!(label_time(&all(&garbled)), (None, true));
        // A retarget listed after the label: its place was for another base.
        assert!(!retargeted_since_label(&all(&timeline)));
        let mut retargeted = timeline.to_vec();
        retargeted.push(item("base_ref_changed", None, "2026-01-01T11:05:00Z"));
        assert!(retargeted_since_label(&all(&retargeted)));
        let mut before = vec![item("base_ref_changed", None, "2026-01-01T08:00:00Z")];
        before.extend(timeline.iter().cloned());
        assert!(
            !retargeted_since_label(&all(&before)),
            "retargeted, then queued"
        );
        assert!(!retargeted_since_label(&all(&[])));
    }

    /// 1,000 comments after the label push it out of the newest pages the queue reads:
    /// the label came before everything read, so its place is bounded by the oldest
    /// server time read (never a commit's own date), and a push or retarget read is
    /// after it.
    #[test]
    fn a_label_older_than_the_newest_pages_read_came_before_all_of_them() {
        let mut items = vec![item("committed", None, "2001-01-01T00:00:00Z")];
        items.extend((0..3).map(|m| item("commented", None, &format!("2026-01-01T10:0{m}:00Z"))));
        let tail = Timeline {
            items: items.clone(),
            complete: false,
        };
        assert_eq!(
            label_time(&tail),
            (time(Some("2026-01-01T10:00:00Z")), true),
            "the push read is after the label"
        );
        let quiet = Timeline {
            items: items[1..].to_vec(),
            complete: false,
        };
        assert_eq!(
            label_time(&quiet),
            (time(Some("2026-01-01T10:00:00Z")), false)
        );
        assert!(!retargeted_since_label(&quiet));
        let mut moved = quiet.clone();
        moved
            .items
            .push(item("base_ref_changed", None, "2026-01-01T11:00:00Z"));
        assert!(retargeted_since_label(&moved));
        // Read whole and never labelled: not in line.
        assert_eq!(label_time(&all(&items)), (None, false));
    }
}
