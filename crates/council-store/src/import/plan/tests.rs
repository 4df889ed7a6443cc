use council_protocol::audit::context::{
    ContextObject, GuardStatus, ReleaseStatus, ReviewStatus, StageState, Subject,
};
use council_protocol::audit::stored::merge;
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};

use super::*;

/// `n` sealed entries from the zero hash; `tag` makes two chains differ.
fn chain(n: usize, tag: &str) -> Vec<Entry> {
    let mut ctx = ContextObject {
        schema_version: 1,
        context_id: "PR-1".into(),
        repository: "o/r".into(),
        timestamp: "2026-01-01T00:00:00Z".into(),
        trigger: "webhook:pull_request.opened".into(),
        subject: Subject {
            kind: "pull_request".into(),
            id: 1,
            source_branch: "feature/a/PBI-1-x".into(),
            target_branch: "develop".into(),
            author: "agent-1".into(),
            head_sha: "a".repeat(40),
        },
        state: StageState {
            guard_status: GuardStatus::Pending,
            review_status: ReviewStatus::Pending,
            release_status: ReleaseStatus::Pending,
        },
        gates: Default::default(),
        timeline: Vec::new(),
        extra: Default::default(),
    };
    for i in 0..n {
        let run = RunInfo {
            run_id: format!("{}", 100 + i),
            run_attempt: 1,
            job: "council".into(),
        };
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: "check:branch-name".into(),
            result: "PASS".into(),
            message: format!("{tag} {i}"),
        };
        ctx.timeline.push(new_entry(
            &run,
            &record,
            &"a".repeat(40),
            "2026-01-01T00:00:00Z",
        ));
    }
    merge(None, &ctx, None).expect("sealed").context.timeline
}

fn stored(entries: &[Entry], positions: impl IntoIterator<Item = u64>) -> Around {
    positions
        .into_iter()
        .map(|p| {
            let e = &entries[p as usize];
            (p, (e.hash.clone(), e.prev_hash.clone()))
        })
        .collect()
}

#[test]
fn an_empty_store_takes_every_entry() {
    let a = chain(3, "a");
    let plan = plan(0, &a, &Around::new());
    assert_eq!(
        (plan.new, plan.known, plan.conflict),
        (vec![0, 1, 2], 0, None)
    );
}

#[test]
fn a_longer_copy_of_the_stored_chain_adds_only_its_new_entries() {
    let a = chain(5, "a");
    let plan = plan(0, &a, &stored(&a, 0..3));
    assert_eq!((plan.new, plan.known), (vec![3, 4], 3));
    assert!(plan.conflict.is_none());
}

#[test]
fn the_same_object_twice_adds_nothing() {
    let a = chain(4, "a");
    let plan = plan(0, &a, &stored(&a, 0..4));
    assert_eq!((plan.new.len(), plan.known), (0, 4));
}

#[test]
fn a_tail_continues_the_stored_chain_when_it_links_to_it() {
    let a = chain(6, "a");
    // The store has 0..3; a comment holding entries 3..6 (3 omitted) links to entry 2.
    let plan = plan(3, &a[3..], &stored(&a, 0..3));
    assert_eq!(plan.new, vec![0, 1, 2]);
    assert!(plan.conflict.is_none());
}

#[test]
fn a_tail_over_a_gap_is_taken_and_the_gap_filled_later() {
    let a = chain(8, "a");
    let tail = plan(5, &a[5..], &Around::new());
    assert_eq!(tail.new, vec![0, 1, 2]);
    // The full file later: 0..5 are new, 5..8 known, and entry 4 must link to stored 5.
    let full = plan(0, &a, &stored(&a, 5..8));
    assert_eq!((full.new, full.known), (vec![0, 1, 2, 3, 4], 3));
    // An older file ending right before the stored tail: its last entry must be the one
    // the stored entry 5 links to.
    let older = plan(0, &a[..5], &stored(&a, 5..8));
    assert_eq!(older.new, vec![0, 1, 2, 3, 4]);
    let b = chain(5, "b");
    let other = plan(0, &b, &stored(&a, 5..8));
    let conflict = other
        .conflict
        .expect("a chain that the stored tail does not link to");
    assert_eq!(conflict.position, 4);
    assert!(other.new.is_empty());
}

#[test]
fn a_rewritten_entry_refuses_the_whole_object() {
    let a = chain(4, "a");
    let b = chain(6, "b");
    let plan = plan(0, &b, &stored(&a, 0..4));
    let conflict = plan.conflict.expect("conflict");
    assert_eq!(conflict.position, 0);
    assert_eq!(conflict.stored_hash, a[0].hash);
    assert_eq!(conflict.offered_hash, b[0].hash);
    assert!(
        conflict.problem.contains("one of the two was rewritten"),
        "{}",
        conflict.problem
    );
    assert!(
        plan.new.is_empty(),
        "nothing of a conflicting object is added"
    );
}

#[test]
fn a_tail_that_does_not_link_to_the_stored_entry_before_it_conflicts() {
    let a = chain(4, "a");
    let b = chain(6, "b");
    let plan = plan(4, &b[4..], &stored(&a, 0..4));
    let conflict = plan.conflict.expect("conflict");
    assert_eq!(conflict.position, 4);
    assert!(
        conflict
            .problem
            .contains("does not continue the stored chain"),
        "{}",
        conflict.problem
    );
}
