//! The line: who is in the queue, and in which order (SPEC "Merge queue": pull requests
//! with a priority label first, then by the time the queue label was last added, oldest
//! first, then by number).

use std::cmp::Ordering;

use super::facts::{PrState, QueueFacts, QueuedPr};
use crate::policy::Queue;

/// The pull requests in line, in order: open, labelled, their head not moved since they
/// were queued, and no gate failing now. A pull request that waits for something keeps
/// its place (it is only not built into a queue commit until it passes).
pub fn line<'a>(facts: &'a QueueFacts, policy: &Queue) -> Vec<&'a QueuedPr> {
    let mut line: Vec<&QueuedPr> = facts.pulls.iter().filter(|p| in_line(p)).collect();
    line.sort_by(|a, b| compare(a, b, policy));
    line
}

pub(super) fn in_line(p: &QueuedPr) -> bool {
    p.state == PrState::Open
        && p.has_queue_label()
        && !p.head_moved
        && !p.retargeted
        && !matches!(p.verdict, Some(super::LiveVerdict::Fail { .. }))
}

/// Priority first, then the label's time (unknown last), then the number.
pub fn compare(a: &QueuedPr, b: &QueuedPr, policy: &Queue) -> Ordering {
    let urgent = |p: &QueuedPr| !policy.is_priority(&p.labels);
    let time = |p: &QueuedPr| (p.queued_at.is_none(), p.queued_at);
    urgent(a)
        .cmp(&urgent(b))
        .then_with(|| time(a).cmp(&time(b)))
        .then_with(|| a.number.cmp(&b.number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Release;
    use crate::queue::facts::{BaseFacts, LiveVerdict};
    use chrono::{TimeZone, Utc};

    fn pr(number: u64, minute: Option<u32>, labels: &[&str]) -> QueuedPr {
        QueuedPr {
            number,
            head_sha: format!("{number:040x}"),
            state: PrState::Open,
            labels: labels.iter().map(|l| l.to_string()).collect(),
            queued_at: minute.map(|m| Utc.with_ymd_and_hms(2026, 1, 1, 10, m, 0).unwrap()),
            head_moved: false,
            retargeted: false,
            verdict: Some(LiveVerdict::Pass),
        }
    }

    #[test]
    fn priority_then_label_time_then_number() {
        let q = "council:queued";
        let mut pulls = vec![
            pr(1, Some(30), &[q]),
            pr(2, Some(10), &[q]),
            pr(3, Some(10), &[q]),
            pr(4, Some(50), &[q, "queue:urgent"]),
            pr(5, None, &[q]),
            pr(6, Some(5), &["other"]),
            pr(7, Some(1), &["Council:Queued", "Queue:URGENT"]),
            pr(8, Some(2), &[q]),
            pr(9, Some(3), &[q]),
            pr(10, Some(4), &[q]),
        ];
        pulls[7].state = PrState::Closed;
        pulls[8].head_moved = true;
        pulls[9].verdict = Some(LiveVerdict::Fail { gates: Vec::new() });
        let facts = QueueFacts {
            repository_url: "https://github.com/o/r".into(),
            base: BaseFacts {
                name: "main".into(),
                sha: "b".repeat(40),
                linear_history: None,
            },
            release_login: Some("bot[bot]".into()),
            pulls,
            branch: None,
            now: Utc.with_ymd_and_hms(2026, 1, 1, 11, 0, 0).unwrap(),
        };
        let policy = crate::policy::Queue::defaults(&Release::default());
        let order: Vec<u64> = line(&facts, &policy).iter().map(|p| p.number).collect();
        assert_eq!(order, [7, 4, 2, 3, 1, 5]);
        assert_eq!(facts.to_decide(&policy), [7, 4]);
    }
}
