//! The merge queue end to end: the real binary driven by the events a workflow would
//! deliver, against the fake GitHub with a commit graph and a CI model. Each test checks
//! what SPEC "Merge queue" promises: what the base points to after each step and who
//! moved it, the queue branch and its commit's parents, the label, the comment, the exit
//! code, the outputs, the ledger entries, the CI runs (one per queue commit), and that no
//! queued pull request's own branch is ever written.

use council_fake_github::ci::{Ci, Condition};
use serde_json::json;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};
use crate::support::{Council, Run, timeline};

pub(crate) const BASE: &str = "master";
pub(crate) const QUEUE: &str = "council/queue/master";
pub(crate) const BUILD: &str = "council/queue-build/master";
pub(crate) const LABEL: &str = "council:queued";

/// A policy that lets `feature/**` into the base, asks for no label, and turns the
/// queue on with `extra` queue keys.
pub(crate) fn policy(extra: &str) -> String {
    format!(
        "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [{BASE}]\n\
         release:\n  require_label: \"\"\nqueue:\n  enabled: true\n{extra}"
    )
}

/// The base with a README and the policy, CI on the queue's branches and on pull
/// requests (one check `ci` of 10 minutes, red when a file holds BROKEN or both
/// `a.rs` and `b.rs` hold PAIR), the base protected with the release token on the bypass
/// list.
pub(crate) fn scene(gh: &FakeGitHub, queue_keys: &str) {
    gh.writes_not_checked("the queue's tests check refs, labels, comments and ledgers");
    gh.ci(ci());
    gh.commit_on(
        BASE,
        &[
            ("README.md", "hello\n"),
            (".github/council.yml", &policy(queue_keys)),
        ],
        "init",
    );
    gh.protect(BASE).bypass(RELEASE_LOGIN);
}

pub(crate) fn ci() -> Ci {
    let pair = |path: &str| Condition::FileContains {
        path: path.into(),
        text: "PAIR".into(),
    };
    Ci::on(&["council/queue/**"])
        .pull_requests()
        .checks(&[("ci", 10)])
        .red_when(vec![
            Condition::Contains("BROKEN".into()),
            Condition::All(vec![pair("a.rs"), pair("b.rs")]),
        ])
}

/// Pull request `n` with one commit writing `files`, its own CI finished green (or red).
pub(crate) fn pull(gh: &FakeGitHub, n: u64, files: &[(&str, &str)]) -> String {
    gh.pr(n).base(BASE).commit(files, &format!("change {n}"));
    gh.ci_tick();
    gh.pr(n).head_sha()
}

pub(crate) fn council(gh: &FakeGitHub) -> Council {
    Council::action().api(&gh.uri()).release_token()
}

/// The release event on a pull request's head (its own CI finished): release decides,
/// queues it, and the queue starts.
pub(crate) async fn release_on(gh: &FakeGitHub, n: u64) -> Run {
    let head = gh.pr(n).head_sha();
    council(gh)
        .event("check_suite", gh.check_suite_event(&head))
        .run()
        .await
}

/// The CI of the queue commit finished: the event a workflow gets for it.
pub(crate) async fn queue_checked(gh: &FakeGitHub) -> Run {
    let sha = gh.branch_head(QUEUE).expect("a queue commit in test");
    council(gh)
        .event("check_suite", gh.check_suite_event(&sha))
        .run()
        .await
}

pub(crate) async fn schedule(gh: &FakeGitHub) -> Run {
    council(gh)
        .event("schedule", json!({"schedule": "*/15 * * * *"}))
        .run()
        .await
}

/// `action result` of every entry of pull request `n`'s ledger this run wrote.
pub(crate) fn entries(run: &Run, n: u64) -> Vec<String> {
    timeline(&run.audit(n), &["action", "result"])
}

pub(crate) fn labels(gh: &FakeGitHub, n: u64) -> Vec<String> {
    gh.pr_state(n).labels
}

/// Who wrote each version of `branch`: `login sha-or-deleted`.
pub(crate) fn writers(gh: &FakeGitHub, branch: &str) -> Vec<String> {
    gh.ref_history(branch)
        .iter()
        .map(|w| {
            let token = match w.token.as_deref() {
                Some(RELEASE_TOKEN) => "release-token",
                Some(WORKFLOW_TOKEN) => "workflow-token",
                Some(_) => "other-token",
                None => "push",
            };
            format!(
                "{} {} {}",
                w.login,
                token,
                w.sha.as_deref().map_or("deleted", |s| &s[..7])
            )
        })
        .collect()
}

/// No pull request's own branch was written after the scene made it: only their
/// authors' pushes.
pub(crate) fn heads_untouched(gh: &FakeGitHub, numbers: &[u64]) {
    for n in numbers {
        let head = gh.pr_state(*n).head_ref;
        for w in gh.ref_history(&head) {
            assert!(
                w.token.is_none(),
                "#{n}'s branch {head} was written through the API: {w:?}"
            );
        }
    }
}

/// The parents of a commit.
pub(crate) fn parents(gh: &FakeGitHub, sha: &str) -> Vec<String> {
    gh.commit_state(sha).expect("a commit").parents
}

#[tokio::test(flavor = "multi_thread")]
async fn one_landing_end_to_end() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let head = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base_before = gh.branch_head(BASE).unwrap();
    let runs_before = gh.ci_runs();

    // Release queues it, and its test starts in the same run.
    let run = release_on(&gh, 1).await;
    run.assert_code(0);
    let tested = gh.branch_head(QUEUE).expect("the queue commit");
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), tested);
    assert_eq!(labels(&gh, 1), [LABEL]);
    assert_eq!(parents(&gh, &tested), [base_before.clone(), head.clone()]);
    assert_eq!(
        gh.ci_runs(),
        runs_before + 1,
        "one CI run: the queue commit"
    );
    assert_eq!(gh.branch_head(BASE).unwrap(), base_before, "not landed yet");
    assert!(gh.branch_head(BUILD).is_none(), "the build branch is gone");
    let ledger = entries(&run, 1);
    assert!(
        ledger.contains(&"action:enqueue DONE".to_string()),
        "{ledger:?}"
    );
    assert!(
        ledger.contains(&"action:queue-test DONE".to_string()),
        "{ledger:?}"
    );
    let test_entry = run.audit(1)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "action:queue-test")
        .unwrap()
        .clone();
    assert!(
        test_entry["message"]
            .as_str()
            .unwrap()
            .contains(&tested[..7]),
        "{test_entry}"
    );

    // The check of the queue commit before CI finished: pending, nothing moves.
    let waiting = queue_checked(&gh).await;
    waiting.assert_code(0);
    assert_eq!(waiting.output("queue-status"), "TESTING");
    assert_eq!(gh.branch_head(BASE).unwrap(), base_before);

    // CI green: the base becomes exactly the queue commit, by the release token.
    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    assert_eq!(landed.output("queue-status"), "LANDED");
    assert_eq!(landed.output("queue-sha"), tested);
    assert_eq!(landed.output("release-status"), "MERGED");
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    let pr = gh.pr_state(1);
    assert!(pr.merged && !pr.open);
    assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
    assert!(
        gh.branch_head(QUEUE).is_none(),
        "the queue branch is deleted"
    );
    let ledger = entries(&landed, 1);
    assert!(ledger.ends_with(&["check:queue PASS".into(), "action:merge DONE".into()]));
    let merge = landed.audit(1)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["action"] == "action:merge")
        .unwrap()
        .clone();
    assert!(
        merge["message"].as_str().unwrap().contains(&tested),
        "{merge}"
    );
    let base_writes = writers(&gh, BASE);
    assert_eq!(
        base_writes.last().unwrap(),
        &format!("{RELEASE_LOGIN} release-token {}", &tested[..7])
    );
    for w in writers(&gh, QUEUE) {
        assert!(
            w.starts_with(&format!("{RELEASE_LOGIN} release-token")),
            "{w}"
        );
    }
    heads_untouched(&gh, &[1]);
}

/// The comments on pull request `n` that are not its ledger.
pub(crate) fn comments(gh: &FakeGitHub, n: u64) -> Vec<String> {
    let w = crate::support::routes::lock(&gh.world);
    w.comments
        .on(n)
        .filter_map(|c| c["body"].as_str())
        .filter(|b| !b.contains(council_protocol::audit::stored::MARKER))
        .map(str::to_string)
        .collect()
}

/// Pull request `n` put in line by hand, dated `minute` past ten (the order the queue
/// reads from its `labeled` events).
pub(crate) fn queued_at(gh: &FakeGitHub, n: u64, minute: u32) {
    gh.pr(n)
        .label_at(LABEL, "alice", &format!("2026-01-05T10:{minute:02}:00Z"));
}

/// Two pull requests green alone and red together: #1 lands, then #2, tested on the
/// new base, is red; it leaves the queue with one comment that names the red check and
/// links the queue commit, and the run exits 1.
#[tokio::test(flavor = "multi_thread")]
async fn a_red_queue_commit_dequeues_with_one_comment_and_exit_1() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("a.rs", "PAIR\n")]);
    pull(&gh, 2, &[("b.rs", "PAIR\n")]);
    release_on(&gh, 1).await.assert_code(0);
    let second = release_on(&gh, 2).await;
    second.assert_code(0);
    assert_eq!(second.output("queue-status"), "QUEUED");
    assert_eq!(second.output("queue-sha"), "");
    assert!(entries(&second, 2).contains(&"action:enqueue DONE".to_string()));

    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    landed.assert_code(0);
    // #1 landed, and #2's test started in the same run, on the new base.
    assert_eq!(landed.output("queue-status"), "TESTING");
    let base = gh.branch_head(BASE).unwrap();
    let red = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &red), [base.clone(), gh.pr(2).head_sha()]);
    assert!(gh.pr_state(1).merged);

    gh.ci_tick();
    let failed = queue_checked(&gh).await;
    failed.assert_code(1);
    assert_eq!(failed.output("queue-status"), "DEQUEUED");
    assert_eq!(failed.output("queue-sha"), red);
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "nothing red lands");
    assert!(labels(&gh, 2).is_empty(), "the label is removed");
    assert!(gh.branch_head(QUEUE).is_none(), "nothing left to test");
    assert!(gh.pr_state(2).open && !gh.pr_state(2).merged);
    let said = comments(&gh, 2);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("`ci`") || said[0].contains("ci"),
        "{}",
        said[0]
    );
    assert!(said[0].contains(&format!("/commit/{red}")), "{}", said[0]);
    assert_eq!(entries(&failed, 2).last().unwrap(), "check:queue FAIL");
    assert!(
        failed
            .annotations()
            .iter()
            .any(|a| a.starts_with("::error") && a.contains("red check on the queue commit")),
        "{:?}",
        failed.annotations()
    );

    // A re-run of the same event posts nothing new and lands nothing.
    let sha = red.clone();
    let again = council(&gh)
        .event("check_suite", gh.check_suite_event(&sha))
        .run()
        .await;
    again.assert_code(0);
    assert_eq!(comments(&gh, 2).len(), 1);
    assert_eq!(gh.branch_head(BASE).unwrap(), base);
    heads_untouched(&gh, &[1, 2]);
}

/// CI does not run on the queue branch: the queue commit has no check, so it is
/// pending (never green), and after `queue.timeout_minutes` it is dequeued as failed.
#[tokio::test(flavor = "multi_thread")]
async fn a_queue_commit_with_no_check_is_pending_until_the_timeout() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "  timeout_minutes: 30\n");
    gh.ci(Ci::on(&["nothing/**"])
        .pull_requests()
        .checks(&[("ci", 10)]));
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();

    gh.advance_minutes(20);
    let pending = schedule(&gh).await;
    pending.assert_code(0);
    assert_eq!(pending.output("queue-status"), "TESTING");
    assert_eq!(pending.output("queue-sha"), tested);
    assert_eq!(
        gh.branch_head(BASE).unwrap(),
        base,
        "an unchecked commit never lands"
    );
    assert!(
        pending.summary.contains("no check has reported"),
        "{}",
        pending.summary
    );

    gh.advance_minutes(11);
    let timed_out = schedule(&gh).await;
    timed_out.assert_code(1);
    assert_eq!(timed_out.output("queue-status"), "DEQUEUED");
    assert_eq!(gh.branch_head(BASE).unwrap(), base);
    assert!(labels(&gh, 1).is_empty());
    let said = comments(&gh, 1);
    assert_eq!(said.len(), 1);
    assert!(said[0].contains("No verdict"), "{}", said[0]);
    assert_eq!(entries(&timed_out, 1).last().unwrap(), "check:queue FAIL");
    assert!(gh.branch_head(QUEUE).is_none());
}

/// The base moves by hand while #1 is tested: only the head of the line is made again
/// (once), on the new base; #2 waits its turn; nothing untested lands.
#[tokio::test(flavor = "multi_thread")]
async fn a_moved_base_rebuilds_only_the_head_of_the_line() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);
    let first = gh.branch_head(QUEUE).unwrap();
    let runs = gh.ci_runs();

    let hotfix = gh.commit_on(BASE, &[("HOTFIX", "by hand\n")], "hotfix");
    gh.ci_tick();
    let rebuilt = queue_checked(&gh).await;
    rebuilt.assert_code(0);
    let second = gh.branch_head(QUEUE).unwrap();
    assert_ne!(second, first);
    assert_eq!(parents(&gh, &second), [hotfix.clone(), h1]);
    assert_eq!(
        gh.branch_head(BASE).unwrap(),
        hotfix,
        "the green commit was of the old base"
    );
    assert_eq!(gh.ci_runs(), runs + 1, "one rebuild, one CI run");
    assert_eq!(rebuilt.output("queue-status"), "TESTING");
    assert_eq!(rebuilt.output("queue-sha"), second);
    assert!(
        labels(&gh, 2).contains(&LABEL.to_string()),
        "#2 keeps its place"
    );

    gh.ci_tick();
    queue_checked(&gh).await.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), second);
    assert!(gh.pr_state(1).merged);
    heads_untouched(&gh, &[1, 2]);
}

/// The base moves between the read and the fast-forward: GitHub refuses it ("not a fast
/// forward"), and the same run makes the queue commit again on the new base.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_fast_forward_rebuilds_in_the_same_run() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    let spec = council_fake_github::git::CommitSpec {
        changes: vec![("HOTFIX".into(), Some("now\n".into()))],
        message: "hotfix under the landing".into(),
        author: Some("alice".into()),
        verified: false,
    };
    gh.before("PATCH", &format!("/git/refs/heads/{BASE}"), move |w| {
        w.commit_on(BASE, &spec);
    });
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    let hotfix = gh.branch_head(BASE).unwrap();
    assert_ne!(hotfix, tested, "not landed");
    let again = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &again), [hotfix, h1]);
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), again);
}

/// A pull request pushed while tested leaves the queue (a note in its ledger) and the
/// queue commit is made again without it; one closed while waiting leaves too; one whose
/// gate fails now leaves with the gate named.
#[tokio::test(flavor = "multi_thread")]
async fn pushed_closed_and_newly_failing_pull_requests_leave() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let h2 = pull(&gh, 2, &[("src/two.rs", "two\n")]);
    pull(&gh, 3, &[("src/three.rs", "three\n")]);
    pull(&gh, 4, &[("src/four.rs", "four\n")]);
    for n in 1..=4 {
        release_on(&gh, n).await.assert_code(0);
    }
    let first = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &first)[1], gh.pr(1).head_sha());

    // #1 is pushed to while tested, #3 is closed, #4's CI turns red on its head.
    gh.pr(1).commit(&[("src/one.rs", "one, again\n")], "more");
    gh.pr(3).closed();
    gh.pr(4).check_run("lint", "completed", Some("failure"));
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(0);
    assert!(labels(&gh, 1).is_empty() && labels(&gh, 3).is_empty() && labels(&gh, 4).is_empty());
    for n in [1, 3, 4] {
        assert_eq!(
            entries(&run, n).last().unwrap(),
            "action:dequeue DONE",
            "#{n}"
        );
    }
    let note = |n: u64| {
        run.audit(n)["timeline"].as_array().unwrap().last().unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(note(1).contains("moved"), "{}", note(1));
    assert!(note(3).contains("closed"), "{}", note(3));
    assert!(note(4).contains("check:pipeline"), "{}", note(4));
    // The queue commit without #1: #2 in its place.
    let rebuilt = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &rebuilt)[1], h2);
    assert_eq!(gh.branch_head(BASE).unwrap(), parents(&gh, &rebuilt)[0]);
    heads_untouched(&gh, &[2, 3, 4]);
}

/// A batch of two is red; it is split, the first half (the culprit, red on the new
/// base though green on its own) leaves with a comment, and the other lands.
#[tokio::test(flavor = "multi_thread")]
async fn a_red_batch_is_split_until_the_culprit_is_found() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "  batch_size: 2\n");
    let h2 = pull(&gh, 2, &[("b.rs", "PAIR\n")]);
    let h3 = pull(&gh, 3, &[("c.rs", "fine\n")]);
    // Green on its own head, red on the base as it is now.
    gh.commit_on(BASE, &[("a.rs", "PAIR\n")], "a.rs by hand");
    queued_at(&gh, 2, 1);
    queued_at(&gh, 3, 2);
    let runs = gh.ci_runs();

    let started = schedule(&gh).await;
    started.assert_code(0);
    let batch = gh.branch_head(QUEUE).unwrap();
    let below = parents(&gh, &batch);
    assert_eq!(below[1], h3);
    assert_eq!(
        parents(&gh, &below[0])[1],
        h2,
        "one chain of merges: #2 then #3"
    );
    assert_eq!(gh.ci_runs(), runs + 1, "one CI run for the batch");

    gh.ci_tick();
    let split = queue_checked(&gh).await;
    split.assert_code(0);
    let half = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &half)[1], h2, "the first half alone");
    assert!(
        labels(&gh, 2).contains(&LABEL.to_string()) && labels(&gh, 3).contains(&LABEL.to_string())
    );

    gh.ci_tick();
    let culprit = queue_checked(&gh).await;
    culprit.assert_code(1);
    assert!(labels(&gh, 2).is_empty());
    assert_eq!(comments(&gh, 2).len(), 1);
    assert_eq!(entries(&culprit, 2).last().unwrap(), "check:queue FAIL");
    // The other half is tested next, alone.
    let next = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &next)[1], h3);

    gh.ci_tick();
    queue_checked(&gh).await.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), next);
    assert!(gh.pr_state(3).merged && !gh.pr_state(2).merged);
    assert_eq!(gh.ci_runs(), runs + 3, "batch, half, other half");
    heads_untouched(&gh, &[2, 3]);
}

/// Someone else pushes to the queue branch: what they pushed is never landed, even
/// green; the queue makes its own commit over it, with a warning.
#[tokio::test(flavor = "multi_thread")]
async fn a_queue_branch_pushed_by_someone_else_is_never_landed() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    let foreign = gh
        .push_to(QUEUE)
        .file("src/evil.rs", "untested\n")
        .by("mallory")
        .done();
    gh.ci_tick();
    // Mallory's commit is green, and the check on it names the queue branch.
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(&foreign))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), base, "never landed");
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::warning") && a.contains("not a queue commit council made")),
        "{:?}",
        run.annotations()
    );
    let ours = gh.branch_head(QUEUE).unwrap();
    assert_eq!(parents(&gh, &ours), [base.clone(), h1]);
    gh.ci_tick();
    queue_checked(&gh).await.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), ours);
    assert!(!gh.tree_at(BASE).contains_key("src/evil.rs"));
}

/// A base whose ruleset refuses the release token's fast-forward is a set-up error:
/// exit 3 naming the rule, and the queue left as it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_protected_base_refusing_the_fast_forward_is_exit_3() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("the queue's tests check refs, labels, comments and ledgers");
    gh.ci(ci());
    gh.commit_on(
        BASE,
        &[
            ("README.md", "hello\n"),
            (".github/council.yml", &policy("")),
        ],
        "init",
    );
    gh.protect(BASE).named("main-protection");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base = gh.branch_head(BASE).unwrap();
    release_on(&gh, 1).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    gh.ci_tick();
    let run = queue_checked(&gh).await;
    run.assert_code(3);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::error") && a.contains("Cannot update this protected ref")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(gh.branch_head(BASE).unwrap(), base);
    assert_eq!(
        gh.branch_head(QUEUE).unwrap(),
        tested,
        "the queue as it was"
    );
    assert_eq!(labels(&gh, 1), [LABEL]);
    assert!(comments(&gh, 1).is_empty());
}

/// A ruleset that requires linear history: queue commits are merges, so the queue does
/// not run (exit 3 naming the ruleset) and writes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_base_requiring_linear_history_cannot_take_a_queue() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    gh.protect(BASE)
        .named("linear")
        .linear_history()
        .allow_updates();
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    queued_at(&gh, 1, 1);
    let run = schedule(&gh).await;
    run.assert_code(3);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.contains("linear history") && a.contains("linear")),
        "{:?}",
        run.annotations()
    );
    assert!(gh.branch_head(QUEUE).is_none());
}

/// Without a release token the queue does not run, and says why.
#[tokio::test(flavor = "multi_thread")]
async fn without_a_release_token_the_queue_says_why() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    queued_at(&gh, 1, 1);
    let run = Council::action()
        .api(&gh.uri())
        .event("schedule", json!({"schedule": "*/15 * * * *"}))
        .run()
        .await;
    run.assert_code(3);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::error") && a.contains("release-token")),
        "{:?}",
        run.annotations()
    );
    assert!(gh.branch_head(QUEUE).is_none());
}

/// A schedule with no queue anywhere: a notice, exit 0, nothing written.
#[tokio::test(flavor = "multi_thread")]
async fn a_schedule_without_a_queue_has_nothing_to_do() {
    let gh = FakeGitHub::start().await;
    let run = council(&gh)
        .event("schedule", json!({"schedule": "*/15 * * * *"}))
        .run()
        .await;
    run.assert_code(0);
    assert!(run.annotations().iter().any(|a| a.starts_with("::notice")));
    assert!(gh.take_writes().is_empty());
}

/// Every event of SPEC's table that acts on a queue: a `status` and a `workflow_run` on
/// the queue commit, a `check_suite` whose payload says nothing of the commit (its
/// message is read), a `push` to the base.
#[tokio::test(flavor = "multi_thread")]
async fn each_event_of_the_table_acts_on_the_queue() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    pull(&gh, 3, &[("src/three.rs", "three\n")]);
    queued_at(&gh, 1, 1);
    queued_at(&gh, 2, 2);
    queued_at(&gh, 3, 3);

    // A push to the base starts the queue (a hotfix by hand).
    let before = gh.branch_head(BASE).unwrap();
    gh.commit_on(BASE, &[("HOTFIX", "x\n")], "hotfix");
    let pushed = council(&gh)
        .event("push", gh.push_event(BASE, &before))
        .run()
        .await;
    pushed.assert_code(0);
    assert_eq!(pushed.output("queue-status"), "TESTING");
    let first = gh.branch_head(QUEUE).unwrap();

    // A status on the queue commit lands it.
    gh.ci_tick();
    let status = council(&gh)
        .event("status", gh.status_event(&first, "ci", "success"))
        .run()
        .await;
    status.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), first);
    let second = gh.branch_head(QUEUE).unwrap();

    // A workflow run on the queue branch lands the next.
    gh.ci_tick();
    let workflow = council(&gh)
        .event(
            "workflow_run",
            gh.workflow_run_event(&second, QUEUE, "success"),
        )
        .run()
        .await;
    workflow.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), second);
    let third = gh.branch_head(QUEUE).unwrap();

    // A check suite whose payload is another commit's (only `head_sha` names ours):
    // the commit is read, and it is a queue commit.
    gh.ci_tick();
    let mut bare = crate::support::fixture("check_suite.completed");
    bare["check_suite"]["head_sha"] = third.clone().into();
    bare["check_suite"]["pull_requests"] = json!([]);
    let suite = council(&gh).event("check_suite", bare).run().await;
    suite.assert_code(0);
    assert_eq!(gh.branch_head(BASE).unwrap(), third);
    assert!((1..=3).all(|n| gh.pr_state(n).merged));
    assert!(gh.branch_head(QUEUE).is_none());
    heads_untouched(&gh, &[1, 2, 3]);
}

/// A dry run decides and writes nothing: no label, no branch, no comment.
#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_writes_nothing() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    pull(&gh, 1, &[("src/one.rs", "one\n")]);
    queued_at(&gh, 1, 1);
    let writes_before = gh.calls().iter().filter(|c| c.write).count();
    let run = council(&gh)
        .input("dry-run", "true")
        .event("schedule", json!({"schedule": "*/15 * * * *"}))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(gh.calls().iter().filter(|c| c.write).count(), writes_before);
    assert!(gh.branch_head(QUEUE).is_none());
    assert!(run.summary.contains("dry run"), "{}", run.summary);
}

/// MCP: `queue_status` answers the line in order and the commit being tested with its
/// checks; `pr_status` a pull request's place in line. Nothing is written.
#[tokio::test(flavor = "multi_thread")]
async fn agents_ask_where_they_stand() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let h1 = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    pull(&gh, 2, &[("src/two.rs", "two\n")]);
    release_on(&gh, 1).await.assert_code(0);
    release_on(&gh, 2).await.assert_code(0);
    let tested = gh.branch_head(QUEUE).unwrap();
    let writes = gh.calls().iter().filter(|c| c.write).count();

    let dir = tempfile::tempdir().unwrap();
    let mut s = crate::mcp::Session::start(&gh.uri(), &["--read-only"], dir.path());
    let (error, text) = s.call("queue_status", json!({"base": BASE}));
    assert!(!error, "{text}");
    let status: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(status["enabled"], true);
    let line: Vec<(u64, bool)> = status["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pr"].as_u64().unwrap(), p["testing"].as_bool().unwrap()))
        .collect();
    assert_eq!(line, [(1, true), (2, false)]);
    let testing = &status["testing"];
    assert_eq!(testing["sha"], tested.as_str());
    assert_eq!(testing["pull_requests"], json!([1]));
    assert_eq!(testing["merges"][0]["head"], h1.as_str());
    assert_eq!(testing["checks"][0]["name"], "ci");
    assert_eq!(testing["verdict"]["result"], "PENDING", "{testing}");

    let (error, text) = s.call("pr_status", json!({"pr": 2}));
    assert!(!error, "{text}");
    let pr: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(pr["queue"]["position"], 2, "{pr}");
    assert_eq!(pr["queue"]["of"], 2);
    assert_eq!(pr["queue"]["testing"], false);

    gh.ci_tick();
    let (_, text) = s.call("queue_status", json!({"base": BASE}));
    let status: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(status["testing"]["verdict"]["result"], "PASS", "{status}");
    assert_eq!(gh.calls().iter().filter(|c| c.write).count(), writes);
}
