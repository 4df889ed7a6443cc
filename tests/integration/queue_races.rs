//! The merge queue under races, end to end: what happens when the world moves while a
//! queue commit is in test (a pull request pushed to, pushed back, retargeted or closed;
//! the base moved under the landing), a label added by hand to a pull request that does
//! not pass, the order of the line, the timeout's clock, the outputs of each event, and
//! release under a queue (never a direct merge, never waiting for `behind`). Each test
//! checks what SPEC "Merge queue" promises: what the base points to after each step and
//! who moved it, the label, the comment, the exit code, the outputs, the ledger, the CI
//! runs.

use crate::queue::{
    BASE, LABEL, QUEUE, comments, council, entries, heads_untouched, labels, parents, pull,
    queue_checked, queued_at, release_on, scene, schedule, writers,
};
use crate::support::Run;
use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::RELEASE_LOGIN;

/// The message of pull request `n`'s newest ledger entry with `action` in `run`.
fn said(run: &Run, n: u64, action: &str) -> String {
    run.audit(n)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["action"] == action)
        .unwrap_or_else(|| panic!("#{n} has no {action} entry: {}", run.audit(n)))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// No call merged a pull request directly (`PUT /pulls/{n}/merge`).
fn never_merged_directly(gh: &FakeGitHub) {
    let direct: Vec<String> = gh
        .calls()
        .iter()
        .filter(|c| c.method == "PUT" && c.path.contains("/pulls/") && c.path.ends_with("/merge"))
        .map(|c| c.path.clone())
        .collect();
    assert!(direct.is_empty(), "direct merges under a queue: {direct:?}");
}

/// The head of #1 moves A→B→A while its queue commit (of A) is in test, and the queue
/// commit goes green: #1's head moved after it was queued, so it leaves the queue (a
/// note in its ledger, the label removed) and the queue commit is made again without
/// it, even though its head is A again. Nothing lands that the queue did not test as it
/// lands. Put back in line by hand, A is tested again on the new base and lands, its
/// `action:merge` naming the landed commit.
#[tokio::test(flavor = "multi_thread")]
async fn a_head_pushed_away_and_back_while_tested_leaves_and_is_tested_again() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let a = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let h2 = pull(&gh, 2, &[("src/two.rs", "two\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);
    let first = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &first), [base.clone(), a.clone()]);

    gh.pr(1).commit(&[("src/one.rs", "B\n")], "B");
    gh.pr(1).push(&a);
    assert_eq!(gh.pr(1).head_sha(), a, "back at A");
    gh.ci_tick();
    let runs = gh.ci_runs();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "nothing landed");
    assert!(!gh.pr_state(1).merged);
    assert!(labels(&gh, 1).is_empty(), "#1 left the queue");
    assert_eq!(entries(&run, 1).last().unwrap(), "action:dequeue DONE");
    assert!(
        said(&run, 1, "action:dequeue").contains("moved"),
        "{}",
        said(&run, 1, "action:dequeue")
    );
    // Made again without #1: #2 alone, on the base.
    let second = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &second), [base.clone(), h2]);
    assert_eq!(gh.ci_runs(), runs + 1, "one rebuild");
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), second);

    // Put back in line by hand (after #2), then #2 lands and A is tested on it.
    gh.pr(1).label_at(LABEL, "alice", "2026-12-31T10:00:00Z");
    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), second);
    let third = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &third), [second.clone(), a.clone()]);
    gh.ci_tick();
    let last = queue_checked(&gh).await;
    last.assert_code(0);
    assert_eq!(last.output("queue-status"), "LANDED");
    assert_eq!(last.output("queue-sha"), third);
    assert_eq!(last.output("release-status"), "MERGED");
    assert_eq!(gh.branch_head(BASE).unwrap(), third);
    assert!(gh.pr_state(1).merged);
    assert!(said(&last, 1, "action:merge").contains(&third));
    heads_untouched(&gh, &[2]);
    never_merged_directly(&gh);
}

/// #1 is retargeted to another base while its queue commit is in test: the queue
/// commit was made for the old base, so #1 is dropped from it (it leaves this queue,
/// a note naming the new base), and the queue commit is made again without it; the
/// green commit holding #1 never lands.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_retargeted_while_tested_is_dropped_and_never_lands() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let base = gh.branch_head(BASE).unwrap();
    gh.branch("develop", &base);
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let h2 = pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);

    gh.pr(1).base("develop");
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "nothing landed");
    assert_eq!(gh.branch_head("develop").unwrap(), base);
    assert!(!gh.pr_state(1).merged && gh.pr_state(1).open);
    assert!(labels(&gh, 1).is_empty());
    assert_eq!(entries(&run, 1).last().unwrap(), "action:dequeue DONE");
    assert!(
        said(&run, 1, "action:dequeue").contains("develop"),
        "{}",
        said(&run, 1, "action:dequeue")
    );
    let rebuilt = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &rebuilt), [base, h2]);
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), rebuilt);
    never_merged_directly(&gh);
}

/// #2 waits in line and is retargeted to another base (with no queue of its own):
/// it is never built into this base's queue commit nor landed here.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_retargeted_while_waiting_is_never_built_here() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let base = gh.branch_head(BASE).unwrap();
    gh.branch("develop", &base);
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);
    gh.pr(2).base("develop");

    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    let landed = gh.branch_head(BASE).unwrap();
    assert_eq!(parents(&gh, &landed), [base.clone(), h1]);
    assert_eq!(run.output("queue-status"), "LANDED");
    assert!(gh.branch_head(QUEUE).is_none(), "nothing left in line");
    assert!(!gh.pr_state(2).merged);
    assert_eq!(gh.branch_head("develop").unwrap(), base);
    never_merged_directly(&gh);
}

/// The base moves between the queue commit going green and the fast-forward, three
/// times: each refusal ("not a fast forward") makes the queue commit again on the new
/// base; a green commit of an old base never lands, and the base's last write is the
/// hand push, not the release token's.
#[tokio::test(flavor = "multi_thread")]
async fn a_base_that_keeps_moving_under_the_landing_never_takes_an_untested_commit() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    release_on(&gh, 1).await.assert_code(0);
    gh.ci_tick();
    let runs = gh.ci_runs();
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c = counter.clone();
    gh.before("PATCH", &format!("/git/refs/heads/{BASE}"), move |w| {
        let n = c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let spec = council_fake_github::git::CommitSpec {
            changes: vec![(format!("HOTFIX{n}"), Some("now\n".into()))],
            message: format!("hotfix {n} under the landing"),
            author: Some("alice".into()),
            verified: false,
        };
        w.commit_on(BASE, &spec);
    });
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    let hotfix = gh.branch_head(BASE).unwrap();
    let base_writes = writers(&gh, BASE);
    assert!(
        base_writes.last().unwrap().starts_with("alice push"),
        "{base_writes:?}"
    );
    assert!(
        !base_writes.iter().any(|w| w.contains("release-token")),
        "nothing landed: {base_writes:?}"
    );
    let again = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &again), [hotfix, h1]);
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), again);
    let attempts = counter.load(std::sync::atomic::Ordering::SeqCst);
    assert!(attempts >= 1);
    assert_eq!(
        gh.ci_runs(),
        runs + attempts,
        "one rebuild per move of the base"
    );
    assert!(!gh.pr_state(1).merged);
    assert_eq!(labels(&gh, 1), [LABEL]);
}

/// The label added by hand to pull requests that do not pass: a place in line, never
/// a credential. A red one and one whose branch breaks the naming rule leave the queue
/// (the label removed, the failing gate in the ledger) without ever being built; one
/// whose own CI is still running keeps its place and is built only once it is green.
#[tokio::test(flavor = "multi_thread")]
async fn a_label_added_by_hand_is_never_a_credential() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "BROKEN\n")]);
    gh.pr(2)
        .head("wip/two", &gh.pr(2).head_sha())
        .base(BASE)
        .commit(&[("src/two.rs", "two\n")], "change 2");
    gh.ci_tick();
    gh.pr(3)
        .base(BASE)
        .commit(&[("src/three.rs", "three\n")], "change 3");
    let base = gh.branch_head(BASE).unwrap();
    for n in 1..=3 {
        queued_at(&gh, n, n as u32);
    }

    // The `labeled` event itself: release decides, and the red pull request is not
    // put in test.
    let labelled = council(&gh)
        .event("pull_request", gh.labeled_event(1, LABEL))
        .run()
        .await;
    labelled.assert_code(1);
    assert!(gh.branch_head(QUEUE).is_none());

    let run = schedule(&gh).await;
    run.assert_code(0);
    assert!(gh.branch_head(QUEUE).is_none(), "nothing passes: no test");
    assert_eq!(gh.branch_head(BASE).unwrap(), base);
    for n in [1, 2] {
        assert!(labels(&gh, n).is_empty(), "#{n} left the queue");
        assert_eq!(entries(&run, n).last().unwrap(), "action:dequeue DONE");
    }
    assert!(said(&run, 1, "action:dequeue").contains("check:pipeline"));
    assert!(said(&run, 2, "action:dequeue").contains("check:branch-name"));
    assert_eq!(labels(&gh, 3), [LABEL], "#3 waits for its CI, in line");

    gh.ci_tick();
    let started = schedule(&gh).await;
    started.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &tested), [base, gh.pr(3).head_sha()]);
    assert_eq!(started.output("queue-status"), "TESTING");
    never_merged_directly(&gh);
}

/// The order of the line: a priority label first, then the time the queue label was
/// last added (oldest first), then the number; each landing takes the next, and N
/// landings cost N queue commits (CI runs).
#[tokio::test(flavor = "multi_thread")]
async fn the_line_goes_by_priority_then_label_time_then_number() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    for n in 1..=4 {
        pull(&gh, n, &[(&format!("src/{n}.rs"), "x\n")]);
    }
    queued_at(&gh, 2, 5);
    queued_at(&gh, 1, 5);
    queued_at(&gh, 3, 1);
    queued_at(&gh, 4, 9);
    gh.pr(4).label("queue:urgent");
    // #3 was queued first, but re-queued last: the last `labeled` event counts.
    gh.pr(3).label_at(LABEL, "alice", "2026-01-05T10:30:00Z");

    let mut order = Vec::new();
    let runs = gh.ci_runs();
    let run = schedule(&gh).await;
    run.assert_code(0);
    for _ in 0..4 {
        let tested = gh.branch_head(QUEUE).expect("a queue commit");
        let head = parents(&gh, &tested)[1].clone();
        let n = (1..=4).find(|n| gh.pr(*n).head_sha() == head).unwrap();
        order.push(n);
        gh.ci_tick();
        queue_checked(&gh).await.assert_code(0);
        assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    }
    assert_eq!(order, [4, 1, 2, 3]);
    assert_eq!(gh.ci_runs(), runs + 4, "4 landings, 4 queue commits");
    assert!(gh.branch_head(QUEUE).is_none());
    never_merged_directly(&gh);
}

/// The timeout counts from the queue commit's creation on GitHub's clock: a label added
/// long ago does not time a new test out, and a queue commit made again (the base
/// moved) starts its own count.
#[tokio::test(flavor = "multi_thread")]
async fn the_timeout_counts_from_each_queue_commit() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "  timeout_minutes: 30\n");
    // No CI on the queue's branches: its commits never get a verdict.
    gh.ci(council_fake_github::ci::Ci::on(&["nothing/**"])
        .pull_requests()
        .checks(&[("ci", 10)]));
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    // Queued months before the world's clock.
    queued_at(&gh, 1, 1);
    let started = schedule(&gh).await;
    started.assert_code(0);
    assert_eq!(started.output("queue-status"), "TESTING");
    let first = gh.branch_head(QUEUE).unwrap();

    gh.advance_minutes(20);
    let before = gh.branch_head(BASE).unwrap();
    gh.commit_on(BASE, &[("HOTFIX", "x\n")], "hotfix");
    let moved = council(&gh)
        .event("push", gh.push_event(BASE, &before))
        .run()
        .await;
    moved.assert_code(0);
    let second = gh.branch_head(QUEUE).unwrap();
    assert_ne!(second, first);
    assert_eq!(moved.output("queue-sha"), second);

    // 40 minutes after the first commit, 20 after the second: still in test.
    gh.advance_minutes(20);
    let waiting = schedule(&gh).await;
    waiting.assert_code(0);
    assert_eq!(waiting.output("queue-status"), "TESTING");
    assert_eq!(waiting.output("queue-sha"), second);
    assert_eq!(labels(&gh, 1), [LABEL]);

    gh.advance_minutes(11);
    let timed_out = schedule(&gh).await;
    timed_out.assert_code(1);
    assert_eq!(timed_out.output("queue-status"), "DEQUEUED");
    assert_eq!(timed_out.output("queue-sha"), second);
    assert!(labels(&gh, 1).is_empty());
    assert_eq!(entries(&timed_out, 1).last().unwrap(), "check:queue FAIL");
}

/// #1 is closed while its queue commit is in test: the green commit is never landed
/// (it holds a closed pull request), #1 leaves with a note, and the queue commit is made
/// again without it.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_closed_while_tested_is_dropped() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let h2 = pull(&gh, 2, &[("src/two.rs", "two\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);

    gh.pr(1).closed();
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), base);
    assert!(!gh.pr_state(1).merged);
    assert!(labels(&gh, 1).is_empty());
    assert!(said(&run, 1, "action:dequeue").contains("closed"));
    let rebuilt = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &rebuilt), [base, h2]);
    assert_eq!(run.output("queue-status"), "TESTING");

    // Closed while in test with nothing else in line: the queue branch goes.
    gh.pr(2).closed();
    gh.ci_tick();
    let emptied = queue_checked(&gh).await;
    emptied.assert_code(0);
    assert!(gh.branch_head(QUEUE).is_none());
    assert!(!gh.pr_state(2).merged);
    assert_eq!(emptied.output("queue-status"), "");
    assert_eq!(emptied.output("queue-sha"), "");
}

/// A batch of two in test, one of them pushed to: it leaves the queue, and the batch is
/// made again (once) with the next in line in its place; that batch lands as one commit,
/// each of its pull requests recording `action:merge` with the landed SHA.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_member_pushed_while_tested_is_replaced() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "  batch_size: 2\n");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    let h3 = pull(&gh, 3, &[("src/three.rs", "three\n")]);
    let base = gh.branch_head(BASE).unwrap();
    for n in 1..=3 {
        queued_at(&gh, n, n as u32);
    }
    schedule(&gh).await.assert_code(0);
    let batch = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &parents(&gh, &batch)[0])[1], h1);

    gh.pr(2).commit(&[("src/two.rs", "two, again\n")], "more");
    gh.ci_tick();
    let runs = gh.ci_runs();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(
        gh.branch_head(BASE).unwrap(),
        base,
        "the batch held #2's old head"
    );
    assert!(labels(&gh, 2).is_empty());
    assert!(said(&run, 2, "action:dequeue").contains("moved"));
    let again = gh.branch_head(QUEUE).unwrap();
    let below = parents(&gh, &again);
    assert_eq!(below[1], h3);
    assert_eq!(parents(&gh, &below[0]), [base.clone(), h1]);
    assert_eq!(gh.ci_runs(), runs + 1, "one rebuild");

    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), again);
    assert_eq!(landed.output("queue-status"), "LANDED");
    assert_eq!(landed.output("queue-sha"), again);
    for n in [1, 3] {
        assert!(gh.pr_state(n).merged, "#{n}");
        assert_eq!(gh.pr_state(n).merged_by.as_deref(), Some(RELEASE_LOGIN));
        assert!(said(&landed, n, "action:merge").contains(&again), "#{n}");
    }
    assert!(!gh.pr_state(2).merged);
    heads_untouched(&gh, &[1, 3]);
}

/// `queue-status`/`queue-sha` on each kind of event: a pull request event that does not
/// touch the queue leaves them empty; release putting a pull request in line behind a
/// test says QUEUED with no SHA; a `schedule` and a `status` on a queue commit in test
/// say TESTING with it; a `workflow_run` that lands the last one says LANDED with it
/// and `release-status: MERGED`; a `push` to the base with nothing in line leaves
/// them empty.
#[tokio::test(flavor = "multi_thread")]
async fn the_outputs_on_each_event_kind() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);

    let opened = council(&gh)
        .event("pull_request", gh.pr_event("opened", 1))
        .run()
        .await;
    opened.assert_code(0);
    assert_eq!(opened.output("queue-status"), "");
    assert_eq!(opened.output("queue-sha"), "");

    let first = release_on(&gh, 1).await;
    first.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    assert_eq!(first.output("queue-status"), "TESTING");
    assert_eq!(first.output("queue-sha"), tested);
    assert_eq!(first.output("release-status"), "PENDING");

    let second = release_on(&gh, 2).await;
    second.assert_code(0);
    assert_eq!(second.output("queue-status"), "QUEUED");
    assert_eq!(second.output("queue-sha"), "");

    let scheduled = schedule(&gh).await;
    scheduled.assert_code(0);
    assert_eq!(scheduled.output("queue-status"), "TESTING");
    assert_eq!(scheduled.output("queue-sha"), tested);

    let pending = council(&gh)
        .event("status", gh.status_event(&tested, "ci", "pending"))
        .run()
        .await;
    pending.assert_code(0);
    assert_eq!(pending.output("queue-status"), "TESTING");
    assert_eq!(pending.output("queue-sha"), tested);

    gh.ci_tick();
    let status = council(&gh)
        .event("status", gh.status_event(&tested, "ci", "success"))
        .run()
        .await;
    status.assert_code(0);
    let next = gh.branch_head(QUEUE).unwrap();
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    assert_eq!(status.output("queue-status"), "TESTING", "#2 in test now");
    assert_eq!(status.output("queue-sha"), next);
    assert_eq!(
        status.output("release-status"),
        "MERGED",
        "#1 landed in this run, whatever else it did"
    );

    gh.ci_tick();
    let workflow = council(&gh)
        .event(
            "workflow_run",
            gh.workflow_run_event(&next, QUEUE, "success"),
        )
        .run()
        .await;
    workflow.assert_code(0);
    assert_eq!(workflow.output("queue-status"), "LANDED");
    assert_eq!(workflow.output("queue-sha"), next);
    assert_eq!(workflow.output("release-status"), "MERGED");

    let before = gh.branch_head(BASE).unwrap();
    gh.commit_on(BASE, &[("HOTFIX", "x\n")], "hotfix");
    let pushed = council(&gh)
        .event("push", gh.push_event(BASE, &before))
        .run()
        .await;
    pushed.assert_code(0);
    assert_eq!(pushed.output("queue-status"), "");
    assert_eq!(pushed.output("queue-sha"), "");
    never_merged_directly(&gh);
}

/// Under a queue release never merges a pull request itself (no `PUT /pulls/{n}/merge`
/// in any run), and it does not wait for a head `behind` its base: the queue commit is
/// what gets tested. It still waits for `dirty`.
#[tokio::test(flavor = "multi_thread")]
async fn release_under_a_queue_queues_behind_and_never_merges_directly() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    gh.commit_on(BASE, &[("HOTFIX", "x\n")], "the base moves on");
    gh.pr(1).mergeable_state("behind");
    gh.pr(2).mergeable_state("dirty");

    let behind = release_on(&gh, 1).await;
    behind.assert_code(0);
    assert_eq!(labels(&gh, 1), [LABEL]);
    assert_eq!(behind.output("release-status"), "PENDING");
    assert_eq!(behind.output("queue-status"), "TESTING");
    assert!(entries(&behind, 1).contains(&"action:enqueue DONE".to_string()));

    let dirty = release_on(&gh, 2).await;
    dirty.assert_code(0);
    assert!(labels(&gh, 2).is_empty(), "dirty waits");
    assert_eq!(dirty.output("release-status"), "PENDING");

    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert!(gh.pr_state(1).merged);
    assert_eq!(landed.output("release-status"), "MERGED");
    never_merged_directly(&gh);
}

/// #1 is pushed to while its queue commit is in test, and its new head's CI finishes
/// (and release decides on it) before the queue commit's: release finds the label still
/// on, but put there for the old head, so #1 re-enters the line for its new head (the
/// label removed and added again: its place is now). The queue commit of the old head
/// never lands; it is made again with the new head, which lands.
#[tokio::test(flavor = "multi_thread")]
async fn a_head_pushed_while_tested_is_queued_again_when_release_decides_first() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let a = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    let first = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &first), [base.clone(), a.clone()]);

    gh.pr(1).commit(&[("src/one.rs", "B\n")], "B");
    let b = gh.pr(1).head_sha();
    gh.ci_tick();
    let requeued = release_on(&gh, 1).await;
    requeued.assert_code(0);
    assert_eq!(labels(&gh, 1), [LABEL], "in line for B");
    assert_eq!(requeued.output("queue-status"), "QUEUED");
    assert!(
        entries(&requeued, 1).contains(&"action:enqueue DONE".to_string()),
        "{:?}",
        entries(&requeued, 1)
    );
    assert_eq!(
        gh.branch_head(QUEUE).unwrap(),
        first,
        "A's test is the queue's"
    );

    // A's queue commit is green, but #1's head is B: made again with B.
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "A never lands");
    assert_eq!(labels(&gh, 1), [LABEL]);
    let second = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &second), [base.clone(), b.clone()]);
    assert_eq!(run.output("queue-sha"), second);

    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), second);
    assert!(gh.pr_state(1).merged);
    assert!(said(&landed, 1, "action:merge").contains(&second));
    never_merged_directly(&gh);
}

/// The push a landing makes to the base (the release token's fast-forward) starts the
/// post-merge check of each pull request it landed and the queue's next step, in one
/// run: green, nothing reverted, nothing landed twice, no new comment; the landed pull
/// requests' ledgers gain no second `action:merge`.
#[tokio::test(flavor = "multi_thread")]
async fn the_push_of_a_landing_checks_it_and_moves_the_queue_on() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "  batch_size: 2\n");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    pull(&gh, 3, &[("src/three.rs", "three\n")]);
    for n in 1..=3 {
        queued_at(&gh, n, n as u32);
    }
    schedule(&gh).await.assert_code(0);
    let before = gh.branch_head(BASE).unwrap();
    let batch = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), batch);
    let third = gh.branch_head(QUEUE).unwrap();
    assert_eq!(landed.output("release-status"), "MERGED");
    let comments_before: Vec<usize> = (1..=3).map(|n| comments(&gh, n).len()).collect();

    let pushed = council(&gh)
        .event("push", gh.push_event(BASE, &before))
        .run()
        .await;
    pushed.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), batch);
    assert_eq!(gh.branch_head(QUEUE).unwrap(), third, "#3's test goes on");
    assert_eq!(pushed.output("queue-status"), "TESTING");
    assert_eq!(pushed.output("queue-sha"), third);
    assert!(
        !pushed
            .annotations()
            .iter()
            .any(|a| a.starts_with("::error")),
        "{:?}",
        pushed.annotations()
    );
    let now: Vec<usize> = (1..=3).map(|n| comments(&gh, n).len()).collect();
    assert_eq!(now, comments_before, "no new comment");
    for n in [1, 2] {
        let merges = gh
            .calls()
            .iter()
            .filter(|c| c.method == "POST" && c.path.ends_with("/pulls"))
            .count();
        assert_eq!(merges, 0, "no revert pull request");
        assert!(gh.pr_state(n).merged);
    }
    never_merged_directly(&gh);
}

/// #2 changes the same line as #1: green on its own, it conflicts once #1 has landed.
/// Its merge into the next queue commit is refused (409), so it leaves the queue with
/// one comment saying it needs a rebase, `check:queue` FAIL, the label removed, and #3
/// is tested in its place; the run exits 1.
#[tokio::test(flavor = "multi_thread")]
async fn a_conflicting_pull_request_leaves_with_a_rebase_comment() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("README.md", "hello from one\n")]);
    pull(&gh, 2, &[("README.md", "hello from two\n")]);
    let h3 = pull(&gh, 3, &[("src/three.rs", "three\n")]);
    for n in 1..=3 {
        queued_at(&gh, n, n as u32);
    }
    schedule(&gh).await.assert_code(0);
    let first = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(1);
    assert_eq!(gh.branch_head(BASE).unwrap(), first, "#1 landed");
    assert!(labels(&gh, 2).is_empty());
    let said_to_2 = comments(&gh, 2);
    assert_eq!(said_to_2.len(), 1, "{said_to_2:?}");
    assert!(said_to_2[0].contains("rebase"), "{}", said_to_2[0]);
    assert_eq!(entries(&run, 2).last().unwrap(), "check:queue FAIL");
    let next = gh
        .branch_head(QUEUE)
        .unwrap_or_else(|| panic!("{}", run.summary));
    assert_eq!(parents(&gh, &next), [first, h3]);
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), next);
    assert_eq!(run.output("release-status"), "MERGED");
    assert!(gh.pr_state(2).open && !gh.pr_state(2).merged);
    heads_untouched(&gh, &[1, 2, 3]);
}

/// Landing waits for every check on the queue commit: one green check of two is not
/// enough; a red one among green ones fails it.
#[tokio::test(flavor = "multi_thread")]
async fn every_check_on_the_queue_commit_must_be_green() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    gh.ci(council_fake_github::ci::Ci::on(&["council/queue/**"])
        .pull_requests()
        .checks(&[("lint", 2), ("test", 30)]));
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    gh.advance_minutes(5);
    let half = queue_checked(&gh).await;
    half.assert_code(0);
    assert_eq!(half.output("queue-status"), "TESTING");
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "`test` still runs");
    gh.advance_minutes(30);
    let all = queue_checked(&gh).await;
    all.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);

    // A red check beside green ones: dequeued, never landed.
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 2).await.assert_code(0);
    let second = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    gh.commit(&second)
        .check_run("security", "completed", Some("failure"));
    let red = queue_checked(&gh).await;
    red.assert_code(1);
    assert_eq!(red.output("queue-status"), "DEQUEUED");
    assert_eq!(red.output("queue-sha"), second);
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    assert!(labels(&gh, 2).is_empty());
    assert!(comments(&gh, 2)[0].contains("security"));
}

/// Two pull requests in a row conflict once #1 has landed: both leave, and the queue
/// goes on to the next in line in the same run instead of going idle until the next
/// `schedule`.
#[tokio::test(flavor = "multi_thread")]
async fn conflicts_in_a_row_do_not_stall_the_queue() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("README.md", "hello from one\n")]);
    pull(&gh, 2, &[("README.md", "hello from two\n")]);
    pull(&gh, 3, &[("README.md", "hello from three\n")]);
    let h4 = pull(&gh, 4, &[("src/four.rs", "four\n")]);
    for n in 1..=4 {
        queued_at(&gh, n, n as u32);
    }
    schedule(&gh).await.assert_code(0);
    let first = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(1);
    assert_eq!(gh.branch_head(BASE).unwrap(), first);
    for n in [2, 3] {
        assert!(labels(&gh, n).is_empty(), "#{n}");
        assert_eq!(comments(&gh, n).len(), 1, "#{n}");
    }
    let next = gh
        .branch_head(QUEUE)
        .unwrap_or_else(|| panic!("the queue stalled:\n{}", run.summary));
    assert_eq!(parents(&gh, &next), [first, h4]);
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), next);
}

/// Removing the label leaves the queue: from the queue commit in test (made again
/// without it, the green commit never landed) and from the line (never built).
#[tokio::test(flavor = "multi_thread")]
async fn removing_the_label_leaves_the_queue() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    let h3 = pull(&gh, 3, &[("src/three.rs", "three\n")]);
    let base = gh.branch_head(BASE).unwrap();
    for n in 1..=3 {
        queued_at(&gh, n, n as u32);
    }
    schedule(&gh).await.assert_code(0);
    let unlabel = |n: u64| {
        gh.edit(|w| {
            if let Some(pr) = w.pulls.get_mut(&n) {
                pr.labels.retain(|l| l != LABEL);
            }
            w.label_event(n, "unlabeled", LABEL, "alice");
        })
    };
    unlabel(1);
    unlabel(2);
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert_eq!(
        gh.branch_head(BASE).unwrap(),
        base,
        "#1's commit never lands"
    );
    assert!(said(&run, 1, "action:dequeue").contains("removed"));
    let next = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &next), [base, h3], "#2 is not built");
    gh.ci_tick();
    queue_checked(&gh).await.assert_code(0);
    assert!(gh.pr_state(3).merged);
    assert!(!gh.pr_state(1).merged && !gh.pr_state(2).merged);
}

/// `release.merge_method` does not apply under a queue: with `squash`, the queue commit
/// is still a merge of the pull request's head, so its own commits land unchanged.
#[tokio::test(flavor = "multi_thread")]
async fn merge_method_does_not_apply_under_a_queue() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("the queue's tests check refs, labels, comments and ledgers");
    gh.ci(crate::queue::ci());
    let text = crate::queue::policy("").replace(
        "release:\n  require_label: \"\"\n",
        "release:\n  require_label: \"\"\n  merge_method: squash\n",
    );
    assert!(text.contains("squash"));
    gh.commit_on(
        BASE,
        &[("README.md", "hello\n"), (".github/council.yml", &text)],
        "init",
    );
    gh.protect(BASE).bypass(RELEASE_LOGIN);
    let head = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    gh.ci_tick();
    queue_checked(&gh).await.assert_code(0);
    let landed = gh.branch_head(BASE).unwrap();
    assert_eq!(parents(&gh, &landed), [base, head.clone()]);
    assert!(
        gh.is_ancestor(&head, &landed),
        "#1's own commit is in the base"
    );
    assert!(gh.pr_state(1).merged);
    never_merged_directly(&gh);
}

/// #2 waits in `master`'s line and is retargeted to `develop`, which has a queue of its
/// own: its place in line was for `master`, so `develop`'s queue does not take it at
/// that place; it leaves (the label removed, a note naming the retarget). Release then
/// queues it for `develop` when its gates pass there, and it lands into `develop`.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_retargeted_while_waiting_leaves_and_is_queued_for_its_new_base() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let develop_policy = crate::queue::policy("").replace(
        &format!("targets: [{BASE}]"),
        &format!("targets: [{BASE}, develop]"),
    );
    let base = gh.branch_head(BASE).unwrap();
    gh.branch("develop", &base);
    gh.commit_on(
        "develop",
        &[(".github/council.yml", &develop_policy)],
        "develop's policy",
    );
    gh.protect("develop").bypass(RELEASE_LOGIN);
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let h2 = pull(&gh, 2, &[("src/two.rs", "two\n")]);
    queued_at(&gh, 1, 1);
    queued_at(&gh, 2, 2);
    schedule(&gh).await.assert_code(0);
    let testing = gh.branch_head(QUEUE).unwrap();

    gh.pr(2).retarget("develop");
    let run = schedule(&gh).await;
    run.assert_code(0);
    assert!(labels(&gh, 2).is_empty(), "its place was for {BASE}");
    assert!(
        said(&run, 2, "action:dequeue").contains("retargeted"),
        "{}",
        said(&run, 2, "action:dequeue")
    );
    assert!(gh.branch_head("council/queue/develop").is_none());
    assert_eq!(
        gh.branch_head(QUEUE).unwrap(),
        testing,
        "{BASE}'s test goes on"
    );

    // Release on #2's head, now into develop: in line there, and tested.
    let develop = gh.branch_head("develop").unwrap();
    let queued = release_on(&gh, 2).await;
    queued.assert_code(0);
    assert_eq!(labels(&gh, 2), [LABEL]);
    let tested = gh.branch_head("council/queue/develop").unwrap();
    assert_eq!(parents(&gh, &tested), [develop, h2]);
    gh.ci_tick();
    council(&gh)
        .event("check_suite", gh.check_suite_event(&tested))
        .run()
        .await
        .assert_code(0);
    assert_eq!(gh.branch_head("develop").unwrap(), tested);
    assert!(gh.pr_state(2).merged);
    never_merged_directly(&gh);
}

/// Retargeted while its label stays on, release decides first: the label was for
/// another base, so it is removed and added again (a place in the new base's line now),
/// never carried over.
#[tokio::test(flavor = "multi_thread")]
async fn release_requeues_a_pull_request_retargeted_after_it_was_queued() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let develop_policy = crate::queue::policy("").replace(
        &format!("targets: [{BASE}]"),
        &format!("targets: [{BASE}, develop]"),
    );
    let base = gh.branch_head(BASE).unwrap();
    gh.branch("develop", &base);
    gh.commit_on(
        "develop",
        &[(".github/council.yml", &develop_policy)],
        "develop's policy",
    );
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    queued_at(&gh, 2, 2);
    gh.pr(2).retarget("develop");
    let run = release_on(&gh, 2).await;
    run.assert_code(0);
    let timeline = entries(&run, 2);
    assert!(
        timeline.contains(&"action:enqueue DONE".to_string()),
        "{timeline:?}"
    );
    assert_eq!(labels(&gh, 2), [LABEL]);
    let calls: Vec<String> = gh
        .calls()
        .iter()
        .filter(|c| c.write && c.path.contains("/issues/2/labels"))
        .map(|c| format!("{} {}", c.method, c.path))
        .collect();
    assert_eq!(calls.len(), 2, "removed, then added: {calls:?}");
    assert!(calls[0].starts_with("DELETE"), "{calls:?}");
}

/// The label added by hand to a pull request that passes, while another is in test:
/// its `labeled` event runs release, which finds it in line: `queue-status: QUEUED`
/// (with no SHA), exit 0, and the test in progress is left alone.
#[tokio::test(flavor = "multi_thread")]
async fn a_label_added_by_hand_while_a_test_runs_says_queued() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    gh.pr(2).label(LABEL);
    let run = council(&gh)
        .event("pull_request", gh.labeled_event(2, LABEL))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("queue-status"), "QUEUED");
    assert_eq!(run.output("queue-sha"), "");
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(gh.branch_head(QUEUE).unwrap(), tested);
    assert_eq!(labels(&gh, 2), [LABEL]);
}

/// Anyone who may comment lengthens a pull request's timeline, which the queue and
/// release read for when the label was added: 1,050 comments on a queued pull request
/// stopped every run at "more than 10 pages" (exit 3), so the whole line waited. The
/// newest pages are read: release keeps it in line and the queue lands it.
#[tokio::test(flavor = "multi_thread")]
async fn comments_flooding_a_queued_pull_request_do_not_stop_the_queue() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).expect("the queue commit");
    gh.seed_many(1, 1_050, "drive-by", |i| format!("+1 ({i})"));

    let again = release_on(&gh, 1).await;
    again.assert_code(0);
    assert_eq!(labels(&gh, 1), [LABEL], "still in line");
    assert_eq!(gh.branch_head(QUEUE).as_deref(), Some(tested.as_str()));

    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(landed.output("queue-status"), "LANDED");
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    assert!(gh.pr_state(1).merged);
}

/// More than 1,000 open pull requests into the base (a busy repository, or pull requests
/// opened from forks by anyone): the queue read the open list's first ten pages and
/// stopped there (exit 3), so a queued pull request past them was never tested. The
/// labelled ones are found by the label: it is tested and lands, on a `schedule` too.
#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_open_pull_requests_do_not_hide_the_line() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    for n in 1..=1_000 {
        gh.pr(n).base(BASE);
    }
    pull(&gh, 1_001, &[("src/late.rs", "late\n")]);
    let queued = release_on(&gh, 1_001).await;
    queued.assert_code(0);
    assert_eq!(queued.output("queue-status"), "TESTING");
    let tested = gh.branch_head(QUEUE).expect("the queue commit");

    gh.ci_tick();
    let landed = schedule(&gh).await;
    landed.assert_code(0);
    assert_eq!(landed.output("queue-status"), "LANDED");
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    assert!(gh.pr_state(1_001).merged);
}
