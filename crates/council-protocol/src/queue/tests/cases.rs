//! One test per case of SPEC's "Merge queue", each with the plan's effects, records and
//! messages as snapshots.

use super::support::*;
use crate::error::Outcome;
use crate::gates::Verdict;
use crate::gates::release::CheckState;
use crate::queue::*;
use crate::render::text::Message;
use crate::stage::Effect;

fn land(plan: &QueuePlan) -> Landing {
    match &plan.action {
        Action::Land(l) => (**l).clone(),
        other => panic!("expected a landing, got {other:?}"),
    }
}

fn build(plan: &QueuePlan) -> Build {
    match &plan.action {
        Action::Build(b) => b.clone(),
        other => panic!("expected a build, got {other:?}"),
    }
}

fn numbers(members: &[Member]) -> Vec<u64> {
    members.iter().map(|m| m.number).collect()
}

#[test]
fn off_or_empty_does_nothing() {
    let mut off = policy(1);
    off.queue.enabled = false;
    let p = plan(&facts(vec![pr(1, 0)]), &off);
    assert_eq!(p.action, Action::Idle);
    assert!(p.effects.is_empty() && p.records.is_empty() && p.setup.is_none());
    insta::assert_snapshot!(p.notes[0].plain(), @r#"merge queue: off for "main" (`queue.enabled: false`)"#);

    let p = plan(&facts(vec![]), &policy(1));
    assert_eq!(p.action, Action::Idle);
    assert!(p.effects.is_empty() && p.records.is_empty());
    assert_eq!(p.outputs, QueueOutputs::default());
    assert_eq!(p.outcome(), Outcome::Passed);
    insta::assert_snapshot!(p.notes[0].plain(), @r#"merge queue of "main" at 6230000: 0 in line"#);
}

#[test]
fn a_test_starts_with_the_head_of_the_line_merged_onto_the_base() {
    let f = facts(vec![pr(1, 5), pr(2, 1), pr(3, 9)]);
    let p = plan(&f, &policy(1));
    let b = build(&p);
    assert_eq!(numbers(&b.candidates), [2, 1, 3]);
    assert_eq!(
        (b.limit, b.branch_exists, b.base_sha.as_str()),
        (1, false, sha("b0").as_str())
    );
    assert_eq!(b.reason, BuildReason::Start);
    let (effects, built) = drive(b, &Answers::default());
    insta::assert_snapshot!(described(&effects), @r"
    action:queue-branch: create the branch `council/queue-build/main` at 6230000
    action:queue-test: merge 6832000 into `council/queue-build/main`
    action:queue-branch: create the branch `council/queue/main` at 6d36323
    action:queue-branch: delete the branch `council/queue-build/main`
    ");
    let Effect::MergeInto { message, .. } = &effects[1] else {
        panic!()
    };
    insta::assert_snapshot!(message, @r"
    Merge #2 into main (merge queue)

    Council-Queue-Pull: 2
    Council-Queue-Base: 6230000000000000000000000000000000000000
    ");
    let queue_sha = built.sha.clone().unwrap();
    assert_eq!(numbers(&built.members), [2]);
    assert_eq!(
        built.outputs,
        QueueOutputs::of(QueueStatus::Testing, Some(&queue_sha))
    );
    insta::assert_snapshot!(recorded(&built.records), @r#"#2 action:queue-test DONE: testing #2 in the queue commit "6d36323" on "council/queue/main": "main" at "6230000" with #2 merged in; it lands when every check on it is green"#);
    // No effect of a build ever writes a pull request's own branch or the base.
    for e in &effects {
        if let Effect::CreateRef { branch, .. }
        | Effect::ResetRef { branch, .. }
        | Effect::DeleteRef { branch } = e
        {
            assert!(branch.starts_with("council/queue"), "{branch}");
        }
        assert!(e.needs_release_token());
    }
}

#[test]
fn a_batch_takes_the_next_in_line_in_order_and_priority_goes_first() {
    let mut urgent = pr(9, 20);
    urgent.labels.push("queue:urgent".into());
    let f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3), urgent, pr(5, 5)]);
    let b = build(&plan(&f, &policy(3)));
    let (_, built) = drive(b, &Answers::default());
    assert_eq!(numbers(&built.members), [9, 1, 2]);
    assert_eq!(built.records.len(), 3);
    insta::assert_snapshot!(built.records[1].message, @r#"testing #1 in the queue commit "6d36643" on "council/queue/main": "main" at "6230000" with #9, #1, #2 merged in; it lands when every check on it is green"#);
}

#[test]
fn a_conflict_leaves_the_queue_with_a_comment_and_the_next_takes_its_place() {
    let f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3)]);
    let b = build(&plan(&f, &policy(2)));
    let answers = Answers {
        conflicting: vec![sha("h1")],
        ..Answers::default()
    };
    let (effects, built) = drive(b, &answers);
    assert_eq!(numbers(&built.members), [2, 3]);
    insta::assert_snapshot!(described(&effects), @r"
    action:queue-branch: create the branch `council/queue-build/main` at 6230000
    action:queue-test: merge 6831000 into `council/queue-build/main`
    action:queue-test: merge 6832000 into `council/queue-build/main`
    action:queue-test: merge 6833000 into `council/queue-build/main`
    action:queue-branch: create the branch `council/queue/main` at 6d36643
    action:queue-branch: delete the branch `council/queue-build/main`
    action:label: remove the label `council:queued` from #1
    action:comment: explain the failure in a comment on #1
    ");
    insta::assert_snapshot!(recorded(&built.records), @r#"
    #2 action:queue-test DONE: testing #2 in the queue commit "6d36643" on "council/queue/main": "main" at "6230000" with #2, #3 merged in; it lands when every check on it is green
    #3 action:queue-test DONE: testing #3 in the queue commit "6d36643" on "council/queue/main": "main" at "6230000" with #2, #3 merged in; it lands when every check on it is green
    #1 check:queue FAIL: #1 conflicts with "main" at "6230000" with #2, #3 merged in: it cannot be merged into the queue commit, so it leaves the queue. Fix: bring the branch up to date with "main" (rebase or merge, resolve the conflicts, push); release queues it again once its gates pass `git fetch origin main && git rebase origin/main && git push --force-with-lease` or `git fetch origin main && git merge origin/main && git push`
    "#);
    assert_eq!(outcome(None, &built.records), Outcome::GateFailed);
    let Some(Effect::CommentOnce { marker, body, .. }) = effects.last() else {
        panic!()
    };
    assert!(body.starts_with(marker.as_str()));
    insta::assert_snapshot!(body, @r#"
    <!-- agent-council:queue-conflict base=6230000000000000000000000000000000000000 head=6831000000000000000000000000000000000000 -->
    ### agent-council · merge queue

    &#35;1 conflicts with <code>main</code> at <code>6230000</code> with &#35;2, &#35;3 merged in: it cannot be merged into the queue commit, so it leaves the queue.

    **How to fix:** bring the branch up to date with <code>main</code> (rebase or merge, resolve the conflicts, push); release queues it again once its gates pass

    <pre><code>git fetch origin main &amp;&amp; git rebase origin/main &amp;&amp; git push --force-with-lease
    git fetch origin main &amp;&amp; git merge origin/main &amp;&amp; git push</code></pre>

    The label <code>council&#58;queued</code> was removed; release queues it again once its gates pass on the new head.

    <sub>agent-council · merge queue</sub>
    "#);
}

#[test]
fn a_build_where_everything_conflicts_leaves_no_queue_branch() {
    let mut f = facts(vec![pr(1, 1)]);
    // A queue commit of #7 (closed since) was in test: the queue branch exists.
    let mut closed = pr(7, 0);
    closed.state = PrState::Closed;
    closed.labels.clear();
    f.pulls.push(closed);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(7, &sha("h7"))],
        &[],
        Some(BOT),
        0,
        vec![],
    ));
    let b = build(&plan(&f, &policy(1)));
    assert!(b.branch_exists);
    let answers = Answers {
        conflicting: vec![sha("h1")],
        ..Answers::default()
    };
    let (effects, built) = drive(b, &answers);
    assert_eq!(built.sha, None);
    assert_eq!(built.outputs, QueueOutputs::of(QueueStatus::Dequeued, None));
    insta::assert_snapshot!(described(&effects), @r"
    action:queue-branch: create the branch `council/queue-build/main` at 6230000
    action:queue-test: merge 6831000 into `council/queue-build/main`
    action:queue-branch: delete the branch `council/queue/main`
    action:queue-branch: delete the branch `council/queue-build/main`
    action:label: remove the label `council:queued` from #1
    action:comment: explain the failure in a comment on #1
    ");
}

#[test]
fn leftover_branches_are_reset_not_refused() {
    let f = facts(vec![pr(1, 1)]);
    let b = build(&plan(&f, &policy(1)));
    let answers = Answers {
        scratch_exists: true,
        branch_exists: Some(true),
        ..Answers::default()
    };
    let (effects, built) = drive(b, &answers);
    assert!(built.sha.is_some() && built.failed.is_none());
    insta::assert_snapshot!(described(&effects), @r"
    action:queue-branch: create the branch `council/queue-build/main` at 6230000
    action:queue-branch: point the branch `council/queue-build/main` at 6230000
    action:queue-test: merge 6831000 into `council/queue-build/main`
    action:queue-branch: create the branch `council/queue/main` at 6d36323
    action:queue-branch: point the branch `council/queue/main` at 6d36323
    action:queue-branch: delete the branch `council/queue-build/main`
    ");
}

#[test]
fn a_failed_or_skipped_write_stops_the_build_with_nothing_in_test() {
    let f = facts(vec![pr(1, 1)]);
    let answers = Answers {
        fail_merges: true,
        ..Answers::default()
    };
    let (_, built) = drive(build(&plan(&f, &policy(1))), &answers);
    assert_eq!((built.sha.as_deref(), built.records.len()), (None, 0));
    assert_eq!(built.failed.unwrap().plain(), "500: boom");

    let mut b = build(&plan(&f, &policy(1))).start();
    assert!(matches!(b.step(), BuildStep::Do(Effect::CreateRef { .. })));
    b.report(StepResult::Skipped(
        Message::new().text("dry run: would create"),
    ));
    let BuildStep::Done(built) = b.step() else {
        panic!()
    };
    assert!(built.sha.is_none() && built.failed.is_none() && built.records.is_empty());
    assert_eq!(built.notes[0].plain(), "dry run: would create");
}

#[test]
fn a_commit_in_test_waits_for_its_checks() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        vec![],
    ));
    let p = plan(&f, &policy(1));
    let Action::Wait { sha: waiting, gate } = &p.action else {
        panic!("{:?}", p.action)
    };
    assert_eq!(gate.verdict, Verdict::Pending);
    assert_eq!(
        p.outputs,
        QueueOutputs::of(QueueStatus::Testing, Some(waiting))
    );
    assert!(
        p.effects.is_empty() && p.records.is_empty(),
        "waiting writes nothing"
    );
    insta::assert_snapshot!(gate.timeline_message(), @r#"Waiting: no check has reported on the queue commit "7130313" on "council/queue/main" yet (a commit nothing has checked is never landed)."#);

    // A required name that has not reported keeps it waiting, all others green or not.
    let mut required = policy(1);
    required.queue.required_checks = vec!["ci".into(), "e2e".into()];
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    assert!(matches!(plan(&f, &required).action, Action::Wait { .. }));
    // A check still running too.
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        vec![
            check("ci", CheckState::Success),
            check("e2e", CheckState::Pending("queued".into())),
        ],
    ));
    assert!(matches!(plan(&f, &policy(1)).action, Action::Wait { .. }));
}

#[test]
fn checks_read_on_another_commit_never_land_this_one() {
    let mut f = facts(vec![pr(1, 1)]);
    let mut branch = queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], Some(BOT), 10, green());
    branch.checks.sha = sha("elsewhere");
    f.branch = Some(branch);
    assert!(matches!(plan(&f, &policy(1)).action, Action::Wait { .. }));
}

#[test]
fn green_lands_by_fast_forward_and_starts_the_next_test() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3)]);
    let branch = queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], Some(BOT), 10, green());
    let queue_sha = branch.sha.clone();
    f.branch = Some(branch);
    let p = plan(&f, &policy(1));
    assert!(p.effects.is_empty() && p.records.is_empty());
    let l = land(&p);
    assert_eq!(
        l.effect(),
        Effect::FastForward {
            branch: "main".into(),
            sha: queue_sha.clone()
        }
    );
    assert_eq!(numbers(&l.members), [1]);
    let next = l.next.clone().unwrap();
    assert_eq!(numbers(&next.candidates), [2, 3]);
    assert_eq!(
        (next.base_sha.as_str(), next.branch_exists),
        (queue_sha.as_str(), true)
    );
    let landed = l.landed();
    assert!(
        landed.effects.is_empty(),
        "the next test reuses the queue branch"
    );
    assert_eq!(
        landed.outputs,
        QueueOutputs::of(QueueStatus::Landed, Some(&queue_sha))
    );
    insta::assert_snapshot!(recorded(&landed.records), @r#"
    #1 check:queue PASS: 1 check is green on the queue commit "7130313" on "council/queue/main".
    #1 action:merge DONE: landed #1 in "main" as "7130313632333000000000000000000000000000" (a fast-forward from "6230000"; the queue commit with #1, its checks read green as that commit)
    "#);
    assert_eq!(
        landed.records[1].sha,
        sha("h1"),
        "an entry's sha is the PR's head"
    );
    // Testing after landing: the run's outputs describe the commit left in test.
    let (_, built) = drive(landed.next.unwrap(), &Answers::default());
    let outputs = p
        .outputs
        .clone()
        .then(landed.outputs)
        .then(built.outputs.clone());
    assert_eq!(outputs, built.outputs);

    // The last one in line: the queue branch goes with it.
    let mut f = facts(vec![pr(1, 1)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    let l = land(&plan(&f, &policy(1)));
    assert!(l.next.is_none());
    insta::assert_snapshot!(described(&l.landed().effects), @"action:queue-branch: delete the branch `council/queue/main`");
}

#[test]
fn landing_needs_every_pull_request_still_queued_at_the_head_merged_and_passing() {
    let queue = |f: &mut crate::queue::QueueFacts| {
        f.branch = Some(queue_commit(
            &sha("b0"),
            &[(1, &sha("h1")), (2, &sha("h2"))],
            &[],
            Some(BOT),
            10,
            green(),
        ));
    };
    // Each way #2 stops belonging in the queue commit: it is made again without it.
    type Change = Box<dyn Fn(&mut QueuedPr)>;
    let cases: Vec<(&str, Change)> = vec![
        ("closed", Box::new(|p| p.state = PrState::Closed)),
        ("unlabelled", Box::new(|p| p.labels.clear())),
        (
            "moved",
            Box::new(|p| {
                p.head_sha = sha("h2new");
                p.head_moved = true;
            }),
        ),
        // Its head moved, and the label was added again since (release re-queued the new
        // head): only its old merge leaves the queue commit; it keeps its place in line.
        (
            "requeued",
            Box::new(|p| {
                p.head_sha = sha("h2new");
                p.queued_at = Some(at(30));
            }),
        ),
        (
            "failing",
            Box::new(|p| {
                p.verdict = Some(LiveVerdict::Fail {
                    gates: vec![crate::gates::queue_conflict(
                        2,
                        "main",
                        &Message::new().text("x"),
                    )],
                })
            }),
        ),
        (
            "waiting",
            Box::new(|p| {
                p.verdict = Some(LiveVerdict::Waiting {
                    why: Message::new().text("1 approval (has 0)"),
                })
            }),
        ),
    ];
    let mut said = Vec::new();
    for (name, change) in cases {
        let mut f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3)]);
        queue(&mut f);
        change(&mut f.pulls[1]);
        let p = plan(&f, &policy(2));
        let b = build(&p);
        assert_eq!(
            b.reason,
            BuildReason::Dropped { numbers: vec![2] },
            "{name}"
        );
        assert!(b.reason.is_rebuild());
        // #1 keeps its place first, and #3 fills the batch (no bisection under way); a
        // re-queued #2 is in line again, after #3.
        let line: &[u64] = if name == "requeued" {
            &[1, 3, 2]
        } else {
            &[1, 3]
        };
        assert_eq!(numbers(&b.candidates), line, "{name}");
        said.push(format!(
            "{name}: {} | {}",
            described(&p.effects),
            recorded(&p.records)
        ));
    }
    insta::assert_snapshot!(said.join("\n"), @r#"
    closed: action:label: remove the label `council:queued` from #2 | #2 action:dequeue DONE: #2 left the merge queue: it was closed
    unlabelled:  | #2 action:dequeue DONE: #2 left the merge queue: its label `council:queued` was removed
    moved: action:label: remove the label `council:queued` from #2 | #2 action:dequeue DONE: #2 left the merge queue: its head moved after it was queued (now 68326e6); release queues the new head once its gates pass
    requeued:  | 
    failing: action:label: remove the label `council:queued` from #2 | #2 action:dequeue DONE: #2 left the merge queue: it fails `check:queue`: #2 conflicts with x: it cannot be merged into the queue commit, so it leaves the queue. Fix: bring the branch up to date with "main" (rebase or merge, resolve the conflicts, push); release queues it again once its gates pass `git fetch origin main && git rebase origin/main && git push --force-with-lease` or `git fetch origin main && git merge origin/main && git push`
    waiting:  | 
    "#);
}

#[test]
fn a_red_commit_of_one_dequeues_it_with_a_comment_and_tests_the_next() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2)]);
    let branch = queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], Some(BOT), 10, red());
    let red_sha = branch.sha.clone();
    f.branch = Some(branch);
    let p = plan(&f, &policy(1));
    assert_eq!(p.outcome(), Outcome::GateFailed);
    assert_eq!(
        p.outputs,
        QueueOutputs::of(QueueStatus::Dequeued, Some(&red_sha))
    );
    let b = build(&p);
    assert_eq!((numbers(&b.candidates), b.branch_exists), (vec![2], true));
    insta::assert_snapshot!(described(&p.effects), @r"
    action:label: remove the label `council:queued` from #1
    action:comment: explain the failure in a comment on #1
    ");
    insta::assert_snapshot!(recorded(&p.records), @r#"#1 check:queue FAIL: 1 red check on the queue commit "7130313" on "council/queue/main": "ci" (failure, https://github.com/o/r/actions/runs/1/job/ci). Fix: the queue commit is the base with the pull request merged in; check it out to reproduce, fix the pull request and push, then it can enter the queue again (a flaky check: re-run it before the queue's next run) `git fetch origin 7130313632333000000000000000000000000000 && git checkout --detach 7130313632333000000000000000000000000000`"#);
    let Effect::CommentOnce { marker, body, .. } = &p.effects[1] else {
        panic!()
    };
    assert_eq!(
        marker,
        &format!("<!-- agent-council:queue-failed commit={red_sha} -->")
    );
    insta::assert_snapshot!(body, @r#"
    <!-- agent-council:queue-failed commit=7130313632333000000000000000000000000000 -->
    ### agent-council · merge queue

    #1 left the merge queue: the queue commit [<code>7130313</code>](https://github.com/o/r/commit/7130313632333000000000000000000000000000) (<code>main</code> at [<code>6230000</code>](https://github.com/o/r/commit/6230000000000000000000000000000000000000) with head <code>6831000</code> merged in) did not pass.

    1 red check on the queue commit <code>7130313</code> on <code>council/queue/main</code>: <code>ci</code> (failure, <https://github.com/o/r/actions/runs/1/job/ci>).

    **How to fix:** the queue commit is the base with the pull request merged in; check it out to reproduce, fix the pull request and push, then it can enter the queue again (a flaky check: re-run it before the queue&#39;s next run)

    <pre><code>git fetch origin 7130313632333000000000000000000000000000 &amp;&amp; git checkout --detach 7130313632333000000000000000000000000000</code></pre>

    It was tested alone on the base, so this is its own failure. The label <code>council&#58;queued</code> was removed; release queues it again once its gates pass on a new head.

    <sub>agent-council · merge queue</sub>
    "#);
}

#[test]
fn no_verdict_within_the_timeout_fails_like_red() {
    let mut f = facts(vec![pr(1, 1)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        vec![],
    ));
    f.now = at(69);
    assert!(matches!(plan(&f, &policy(1)).action, Action::Wait { .. }));
    f.now = at(70);
    let p = plan(&f, &policy(1));
    assert_eq!(p.outcome(), Outcome::GateFailed);
    assert_eq!(p.action, Action::Idle);
    insta::assert_snapshot!(described(&p.effects), @r"
    action:label: remove the label `council:queued` from #1
    action:comment: explain the failure in a comment on #1
    action:queue-branch: delete the branch `council/queue/main`
    ");
    insta::assert_snapshot!(p.records[0].message, @r#"No verdict on the queue commit "7130313" on "council/queue/main" after 60 minutes (`queue.timeout_minutes`: 60): no check has reported yet. Fix: CI must run on `push` to the queue branch ("council/queue/**"; `council init --queue` writes the trigger), and finish within `queue.timeout_minutes`: raise it for a longer suite"#);
}

#[test]
fn a_red_batch_is_split_in_halves_and_the_hint_sizes_what_follows() {
    let heads: Vec<(u64, String)> = (1..=4).map(|n| (n, sha(&format!("h{n}")))).collect();
    let members: Vec<(u64, &str)> = heads.iter().map(|(n, h)| (*n, h.as_str())).collect();
    let pulls = || (1..=5).map(|n| pr(n, n as i64)).collect::<Vec<_>>();
    // Red batch of 4: test #1, #2 first, with 2 planned after.
    let mut f = facts(pulls());
    f.branch = Some(queue_commit(
        &sha("b0"),
        &members,
        &[],
        Some(BOT),
        10,
        red(),
    ));
    let p = plan(&f, &policy(4));
    assert!(
        p.effects.is_empty() && p.records.is_empty(),
        "nobody leaves yet"
    );
    assert_eq!(p.outcome(), Outcome::Passed);
    let b = build(&p);
    assert_eq!(
        (numbers(&b.candidates), b.limit, b.rest.clone()),
        (vec![1, 2], 2, vec![2])
    );
    assert!(matches!(b.reason, BuildReason::Split { size: 4, .. }));
    insta::assert_snapshot!(p.notes[1].plain(), @r#"a red batch of 4 is split: 1 red check on the queue commit "7133343" on "council/queue/main": "ci" (failure, https://github.com/o/r/actions/runs/1/job/ci). Fix: the queue commit is the base with the pull request merged in; check it out to reproduce, fix the pull request and push, then it can enter the queue again (a flaky check: re-run it before the queue's next run) `git fetch origin 7133343731333200000000000000000000000000 && git checkout --detach 7133343731333200000000000000000000000000`"#);
    let (effects, built) = drive(b, &Answers::default());
    let Some(Effect::MergeInto { message, .. }) = effects.get(1) else {
        panic!()
    };
    assert!(message.ends_with("Council-Queue-Rest: 2\n"), "{message}");
    assert_eq!(numbers(&built.members), [1, 2]);

    // The half is green: it lands, and the next commit holds the other half only.
    let mut f = facts(pulls());
    f.branch = Some(queue_commit(
        &sha("b0"),
        &members[..2],
        &[2],
        Some(BOT),
        20,
        green(),
    ));
    let l = land(&plan(&f, &policy(4)));
    let next = l.next.unwrap();
    assert_eq!(
        (numbers(&next.candidates), next.limit, next.rest.clone()),
        (vec![3, 4, 5], 2, vec![])
    );

    // The half is red: split again, #1 alone, then 1 and 2 planned.
    let mut f = facts(pulls());
    f.branch = Some(queue_commit(
        &sha("b0"),
        &members[..2],
        &[2],
        Some(BOT),
        20,
        red(),
    ));
    let b = build(&plan(&f, &policy(4)));
    assert_eq!(
        (numbers(&b.candidates), b.limit, b.rest.clone()),
        (vec![1], 1, vec![1, 2])
    );

    // #1 alone is red: it is dequeued (found), and #2 is tested alone next.
    let mut f = facts(pulls());
    f.branch = Some(queue_commit(
        &sha("b0"),
        &members[..1],
        &[1, 2],
        Some(BOT),
        30,
        red(),
    ));
    let p = plan(&f, &policy(4));
    assert_eq!(p.outcome(), Outcome::GateFailed);
    let b = build(&p);
    assert_eq!(
        (numbers(&b.candidates), b.limit, b.rest.clone()),
        (vec![2, 3, 4, 5], 1, vec![2])
    );
}

#[test]
fn the_hint_is_never_a_reason_to_land() {
    // A hint planning sizes on a red commit of one still dequeues; a hint on a commit
    // with no checks still waits.
    let mut f = facts(vec![pr(1, 1)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[4, 4],
        Some(BOT),
        10,
        vec![],
    ));
    assert!(matches!(plan(&f, &policy(4)).action, Action::Wait { .. }));
}

#[test]
fn a_moved_base_rebuilds_the_same_pull_requests_on_it() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1")), (2, &sha("h2"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    f.base.sha = sha("b1");
    let p = plan(&f, &policy(2));
    let b = build(&p);
    assert_eq!(b.reason, BuildReason::BaseMoved { was: sha("b0") });
    assert_eq!(
        (
            numbers(&b.candidates[..2]),
            b.base_sha.clone(),
            b.branch_exists
        ),
        (vec![1, 2], sha("b1"), true)
    );
    assert!(p.effects.is_empty() && p.records.is_empty());
    // Green on the old base is no reason to land on the new one.
    let (_, built) = drive(b, &Answers::default());
    insta::assert_snapshot!(built.records[0].message, @r#"testing #1 in the queue commit "6d36643" on "council/queue/main": "main" at "6231000" with #1, #2 merged in; made again because the base moved from 6230000 during the test; it lands when every check on it is green"#);
}

#[test]
fn a_queue_branch_council_did_not_make_is_never_landed_but_rebuilt() {
    let chains: Vec<(&str, QueueBranch)> = vec![
        (
            "pushed by hand",
            queue_commit(
                &sha("b0"),
                &[(1, &sha("h1"))],
                &[],
                Some("mallory"),
                10,
                green(),
            ),
        ),
        (
            "unsigned",
            queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], None, 10, green()),
        ),
        ("wrong number", {
            let mut b = queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], Some(BOT), 10, green());
            b.chain.links[0].note.as_mut().unwrap().pull = 2;
            b
        }),
        ("not a chain", {
            let commit = CommitFact {
                sha: sha("c1"),
                parents: vec![sha("b0")],
                message: "hotfix".into(),
                verified_committer: Some(BOT.into()),
                committed_at: at(10),
            };
            QueueBranch::from_commits(&[commit], crate::gates::release::Pipeline::default())
                .unwrap()
        }),
    ];
    let mut said = Vec::new();
    for (name, branch) in chains {
        let mut f = facts(vec![pr(1, 1), pr(2, 2)]);
        f.branch = Some(branch);
        let p = plan(&f, &policy(1));
        let b = build(&p);
        assert!(matches!(b.reason, BuildReason::Untrusted { .. }), "{name}");
        assert!(b.branch_exists);
        assert!(
            p.effects.is_empty() && p.records.is_empty(),
            "{name}: nobody leaves"
        );
        said.push(format!("{name}: {}", p.warnings[0].plain()));
    }
    insta::assert_snapshot!(said.join("\n"), @r#"
    pushed by hand: the queue branch "council/queue/main" is not a queue commit council made for this queue (commit 7130313 was not made by the release token's identity `council-bot[bot]` (it was made by `mallory`)): it is never landed, and the queue makes its own
    unsigned: the queue branch "council/queue/main" is not a queue commit council made for this queue (commit 7130313 was not made by the release token's identity `council-bot[bot]` (its signature is not verified)): it is never landed, and the queue makes its own
    wrong number: the queue branch "council/queue/main" is not a queue commit council made for this queue (merge 7130313 says it merged #2, but it merged the head of #1): it is never landed, and the queue makes its own
    not a chain: the queue branch "council/queue/main" is not a queue commit council made for this queue (commit 6331000 has 1 parents, not the two of a merge): it is never landed, and the queue makes its own
    "#);
}

#[test]
fn a_merge_of_a_pull_request_no_longer_into_the_base_is_dropped() {
    // Retargeted: the app lists the pull requests into this base, and #9 is not one.
    let mut f = facts(vec![pr(1, 1)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(9, &sha("h9"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    let p = plan(&f, &policy(1));
    let b = build(&p);
    assert_eq!(b.reason, BuildReason::Dropped { numbers: vec![9] });
    assert_eq!(numbers(&b.candidates), [1]);
    insta::assert_snapshot!(p.notes[1].plain(), @r#"#9 is dropped from the queue commit "7130393": it is not among the base's pull requests now"#);
}

#[test]
fn a_queue_commit_the_base_already_points_at_is_recorded_as_landed() {
    let mut f = facts(vec![pr(2, 2)]);
    let branch = queue_commit(&sha("b0"), &[(1, &sha("h1"))], &[], Some(BOT), 10, green());
    let mut merged = pr(1, 1);
    merged.state = PrState::Merged;
    f.pulls.push(merged);
    f.base.sha = branch.sha.clone();
    f.branch = Some(branch);
    let p = plan(&f, &policy(1));
    insta::assert_snapshot!(recorded(&p.records), @r#"#1 action:merge DONE: landed #1 in "main" as "7130313632333000000000000000000000000000" (the base is at the queue commit: an earlier run landed it)"#);
    let b = build(&p);
    assert_eq!(
        (numbers(&b.candidates), b.base_sha.clone()),
        (vec![2], f.base.sha.clone())
    );
}

#[test]
fn set_up_errors_stop_the_queue_as_it_was() {
    let mut f = facts(vec![pr(1, 1)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    let mut no_token = f.clone();
    no_token.release_login = None;
    let mut linear = f.clone();
    linear.base.linear_history = Some("branch protection of main: Require linear history".into());
    let mut said = Vec::new();
    for facts in [no_token, linear] {
        let p = plan(&facts, &policy(1));
        assert!(p.effects.is_empty() && p.records.is_empty());
        assert_eq!(p.action, Action::Idle);
        assert_eq!(
            p.outcome(),
            Outcome::Unfinished(crate::error::Kind::Service)
        );
        let e = p.setup.unwrap();
        said.push(format!(
            "{} Fix: {}",
            e.message("main").plain(),
            e.fix().advice.plain()
        ));
    }
    // A fast-forward the base's protection refuses.
    let l = land(&plan(&f, &policy(1)));
    let refused = l.refused(Refusal::of_response(
        422,
        "Protected branch update failed for refs/heads/main.",
    ));
    let e = refused.setup.unwrap();
    assert_eq!(
        e.outcome(),
        Outcome::Unfinished(crate::error::Kind::Service)
    );
    said.push(format!(
        "{} Fix: {}",
        e.message("main").plain(),
        e.fix().advice.plain()
    ));
    insta::assert_snapshot!(said.join("\n"), @r#"
    the merge queue of "main" does not run without a `release-token`: pushes and merges made with the workflow token start no workflow, so no CI would test a queue commit. Fix: set the `release-token` input (a GitHub App installation token or a fine-grained token with contents: write and pull-requests: write; see docs/src/release.md), or turn the queue off (`queue.enabled: false`)
    the merge queue cannot land on "main": it requires linear history ("branch protection of main: Require linear history"), and a queue commit is made of merge commits. Fix: turn off "Require linear history" for this base (branch protection or ruleset), or turn the queue off (`queue.enabled: false`)
    the base "main" refused the release token's fast-forward to the queue commit: "Protected branch update failed for refs/heads/main.". Fix: let the release token's identity push to the base: add the GitHub App (or the token's user) to the ruleset's bypass list or to branch protection's "allow to push" list; its token needs contents: write
    "#);
}

#[test]
fn a_fast_forward_refused_because_the_base_moved_waits_for_the_next_run() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    let l = land(&plan(&f, &policy(1)));
    let sha_tested = l.sha.clone();
    let refused = l.refused(Refusal::of_response(422, "Update is not a fast forward"));
    assert!(refused.setup.is_none() && refused.failed.is_none());
    assert_eq!(
        refused.outputs,
        QueueOutputs::of(QueueStatus::Testing, Some(&sha_tested))
    );
    insta::assert_snapshot!(refused.notes[0].plain(), @r#"not landed: "main" moved after it was read at "6230000", so the queue commit "7130313" is no longer a fast-forward of it; the queue's next run (the push to the base starts one) makes it again on the new base"#);
}

#[test]
fn pull_requests_not_decided_keep_their_place_and_are_not_built() {
    let mut undecided = pr(1, 1);
    undecided.verdict = None;
    let mut waiting = pr(2, 2);
    waiting.verdict = Some(LiveVerdict::Waiting {
        why: Message::new().text("mergeable state unknown"),
    });
    let f = facts(vec![undecided, waiting, pr(3, 3)]);
    let p = plan(&f, &policy(1));
    assert_eq!(numbers(&build(&p).candidates), [3]);
    assert!(p.effects.is_empty() && p.records.is_empty());
    insta::assert_snapshot!(p.notes.iter().map(Message::plain).collect::<Vec<_>>().join("\n"), @r#"
    merge queue of "main" at 6230000: 3 in line (#1, #2, #3)
    1 pull requests in line were not decided in this run; they keep their place
    "#);
    assert_eq!(f.to_decide(&policy(1).queue), [1, 2]);
}

/// The pull requests the queue commit holds are decided, and after them twice a batch
/// of the line's others: when the queue commit lands and the next in line conflicts,
/// the one after it is decided too and tested in its place in the same run.
#[test]
fn the_line_decided_is_counted_after_the_queue_commit() {
    let mut f = facts(vec![pr(1, 1), pr(2, 2), pr(3, 3), pr(4, 4)]);
    f.branch = Some(queue_commit(
        &sha("b0"),
        &[(1, &sha("h1"))],
        &[],
        Some(BOT),
        10,
        green(),
    ));
    assert_eq!(f.to_decide(&policy(1).queue), [1, 2, 3]);
    f.branch = None;
    assert_eq!(f.to_decide(&policy(1).queue), [1, 2]);
}

#[test]
fn the_verdict_of_a_release_decision() {
    use crate::gates::guard::target_gate;
    use crate::stage::{Stage, StageResult, Status};
    let result = |gates| StageResult {
        stage: Stage::Release,
        status: Status::Release(crate::audit::ReleaseStatus::Pending),
        gates,
        effects: Vec::new(),
        notes: Vec::new(),
        actor: None,
    };
    let pass = target_gate().pass(Message::new().text("ok"));
    let wait = target_gate().outcome(Verdict::Pending, Message::new().text("label"), None);
    let fail = target_gate().fail(Message::new().text("no"), None);
    assert_eq!(
        LiveVerdict::of_release(&result(vec![pass.clone()])),
        LiveVerdict::Pass
    );
    assert_eq!(
        LiveVerdict::of_release(&result(vec![pass.clone(), wait.clone()])),
        LiveVerdict::Waiting {
            why: Message::new().text("label")
        }
    );
    assert!(matches!(
        LiveVerdict::of_release(&result(vec![wait, fail, pass])),
        LiveVerdict::Fail { gates } if gates.len() == 1
    ));
    assert!(matches!(
        LiveVerdict::of_release(&result(vec![])),
        LiveVerdict::Waiting { .. }
    ));
}

#[test]
fn outputs_describe_the_commit_left_in_test_else_the_last_landed() {
    let landed = QueueOutputs::of(QueueStatus::Landed, Some("a"));
    let testing = QueueOutputs::of(QueueStatus::Testing, Some("b"));
    let dequeued = QueueOutputs::of(QueueStatus::Dequeued, Some("c"));
    assert_eq!(landed.clone().then(testing.clone()), testing);
    assert_eq!(testing.clone().then(landed.clone()), testing);
    assert_eq!(dequeued.clone().then(landed.clone()), landed);
    assert_eq!(landed.clone().then(QueueOutputs::default()), landed);
    assert_eq!(
        landed
            .clone()
            .then(QueueOutputs::of(QueueStatus::Landed, Some("d")))
            .sha
            .as_deref(),
        Some("d")
    );
}

/// A pull request retargeted after it was queued: its place in line was for another
/// base, so it leaves this queue (the label removed, a note) and is never built; the
/// next in line is tested.
#[test]
fn a_pull_request_retargeted_after_it_was_queued_leaves() {
    let mut moved = pr(1, 1);
    moved.retargeted = true;
    let f = facts(vec![moved, pr(2, 2)]);
    let p = plan(&f, &policy(1));
    assert_eq!(numbers(&build(&p).candidates), [2]);
    insta::assert_snapshot!(format!("{} | {}", described(&p.effects), recorded(&p.records)), @"action:label: remove the label `council:queued` from #1 | #1 action:dequeue DONE: #1 left the merge queue: it was retargeted to `main` after it was queued (its place in line was for another base); release queues it here once its gates pass");
}
