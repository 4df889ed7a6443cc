//! The CI model and issue events: runs started by landings, completed by the clock,
//! decided by the tree; `labeled` and `unlabeled` events with their times.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

mod support;

use council_fake_github::ci::{Ci, Condition};
use serde_json::{Value, json};
use support::*;

/// `(name, status, conclusion)` of the latest check runs on `git_ref`.
fn checks(
    gh: &council_fake_github::fake_github::FakeGitHub,
    git_ref: &str,
) -> Vec<(String, String, Value)> {
    ok(gh, &format!("/commits/{git_ref}/check-runs"))["check_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
                r["conclusion"].clone(),
            )
        })
        .collect()
}

fn rule() -> Ci {
    let both = |path: &str| Condition::FileContains {
        path: path.into(),
        text: "MARK".into(),
    };
    Ci::on(&["council/queue/**", "master"])
        .pull_requests()
        .checks(&[("build", 5), ("test", 10)])
        .red_when(vec![
            Condition::Contains("BROKEN".into()),
            Condition::All(vec![both("a.rs"), both("b.rs")]),
        ])
}

#[tokio::test]
async fn two_pull_requests_green_alone_are_red_together_on_the_queue_branch() {
    let gh = world().await;
    // Opened first: a pull request's made-up times move the world clock on.
    gh.pr(1);
    gh.pr(2);
    gh.ci(rule());
    gh.commit_on("master", &[("README.md", "hi\n")], "init");
    assert_eq!(gh.ci_runs(), 1, "a push to master");
    gh.pr(1).commit(&[("a.rs", "MARK\n")], "a");
    gh.pr(2).commit(&[("b.rs", "MARK\n")], "b");
    assert_eq!(gh.ci_runs(), 3, "each pull request's head");
    let (h1, h2) = (gh.pr(1).head_sha(), gh.pr(2).head_sha());

    let queued = |s: &str| (s.to_string(), "queued".to_string(), Value::Null);
    let progress = |s: &str| (s.to_string(), "in_progress".to_string(), Value::Null);
    let done = |s: &str, c: &str| (s.to_string(), "completed".to_string(), json!(c));
    assert_eq!(checks(&gh, &h1), [queued("build"), queued("test")]);
    assert_eq!(gh.advance_minutes(1), 0);
    assert_eq!(checks(&gh, &h1), [progress("build"), progress("test")]);
    assert_eq!(gh.advance_minutes(4), 3, "build (5 min) of the three runs");
    assert_eq!(
        checks(&gh, &h1),
        [done("build", "success"), progress("test")]
    );
    assert_eq!(gh.ci_tick(), 3, "test (10 min) of the three runs");
    assert_eq!(
        checks(&gh, &h1),
        [done("build", "success"), done("test", "success")]
    );
    assert_eq!(
        checks(&gh, &h2),
        [done("build", "success"), done("test", "success")]
    );
    assert_eq!(gh.ci_tick(), 0, "nothing left");

    // The queue: a branch at master (a push: one run), each head merged on (two more).
    let master = gh.branch_head("master").unwrap();
    http(
        &gh,
        "POST",
        "/git/refs",
        RELEASE_TOKEN,
        json!({"ref": "refs/heads/council/queue/master", "sha": master}),
    );
    for head in ["feature/pr-1", "feature/pr-2"] {
        let (status, _) = http(
            &gh,
            "POST",
            "/merges",
            RELEASE_TOKEN,
            json!({"base": "council/queue/master", "head": head}),
        );
        assert_eq!(status, 201);
    }
    assert_eq!(gh.ci_runs(), 6);
    gh.ci_tick();
    let tested = gh.branch_head("council/queue/master").unwrap();
    assert_eq!(
        checks(&gh, "council/queue/master"),
        [done("build", "failure"), done("test", "failure")],
        "both markers together"
    );
    // The first merge alone was green.
    let first = gh.commit_state(&tested).unwrap().parents[0].clone();
    assert_eq!(
        checks(&gh, &first),
        [done("build", "success"), done("test", "success")]
    );

    // Landing the commit on master runs it again there, as a push does.
    http(
        &gh,
        "PATCH",
        "/git/refs/heads/master",
        RELEASE_TOKEN,
        json!({"sha": tested}),
    );
    assert_eq!(gh.ci_runs(), 7);
    let runs = gh.ci_run_list();
    let events: Vec<(&str, &str)> = runs
        .iter()
        .map(|r| (r.event.as_str(), r.branch.as_str()))
        .collect();
    assert_eq!(
        events,
        [
            ("push", "master"),
            ("pull_request", "feature/pr-1"),
            ("pull_request", "feature/pr-2"),
            ("push", "council/queue/master"),
            ("push", "council/queue/master"),
            ("push", "council/queue/master"),
            ("push", "master"),
        ]
    );
    assert!(runs[6].red && !runs[4].red);
    // The newest run of each name is what the API shows: pending again.
    assert_eq!(checks(&gh, &tested), [queued("build"), queued("test")]);
    let all = ok(&gh, &format!("/commits/{tested}/check-runs?filter=all"));
    assert_eq!(all["total_count"], 4);
}

#[tokio::test]
async fn a_test_decides_red_with_its_own_function_and_the_rollup_shows_the_runs() {
    let gh = world().await;
    gh.ci(Ci::on(&["main*"])
        .pull_requests()
        .red_if(|tree| tree.len() > 2));
    gh.commit_on("master", &[("one", "1\n")], "one");
    assert_eq!(gh.ci_runs(), 0, "master is not in the rule");
    gh.pr(3).commit(&[("two", "2\n")], "two");
    gh.pr(4)
        .commit(&[("two", "2\n"), ("three", "3\n")], "three");
    gh.ci_tick();
    let rollup = |n: u64| {
        let (_, body) = http(
            &gh,
            "POST",
            "/graphql",
            WORKFLOW_TOKEN,
            json!({"operationName": "PullRequestRollup", "query": "query PullRequestRollup { x }",
                   "variables": {"number": n}}),
        );
        body["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]
            ["statusCheckRollup"]["state"]
            .clone()
    };
    assert_eq!(rollup(3), "SUCCESS");
    assert_eq!(rollup(4), "FAILURE");
    // BROKEN is no rule of this world's.
    gh.commit_on("main-2", &[("x", "BROKEN\n")], "x");
    gh.ci_tick();
    assert_eq!(checks(&gh, "main-2")[0].2, "success");
}

#[tokio::test]
async fn label_events_say_who_added_or_removed_which_label_and_when() {
    let gh = world().await;
    gh.pr(7)
        .label_at("council:queued", "alice", "2026-01-05T09:30:00+01:00");
    let add = |labels: Value| http(&gh, "POST", "/issues/7/labels", WORKFLOW_TOKEN, labels);
    assert_eq!(add(json!({"labels": ["bug"]})).0, 200);
    assert_eq!(
        add(json!({"labels": ["BUG"]})).0,
        200,
        "already there: no event"
    );
    let (status, _) = http(
        &gh,
        "DELETE",
        "/issues/7/labels/bug",
        WORKFLOW_TOKEN,
        Value::Null,
    );
    assert_eq!(status, 200);
    gh.issue(9, "octocat", "a plain issue");
    http(
        &gh,
        "POST",
        "/issues/9/labels",
        WORKFLOW_TOKEN,
        json!(["triage"]),
    );

    let events = ok(&gh, "/issues/7/events");
    let summary: Vec<(&str, &str, &str)> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap(),
                e["label"]["name"].as_str().unwrap(),
                e["actor"]["login"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("labeled", "council:queued", "alice"),
            ("labeled", "bug", "github-actions[bot]"),
            ("unlabeled", "bug", "github-actions[bot]"),
        ]
    );
    assert_eq!(events[0]["created_at"], "2026-01-05T08:30:00Z");
    let times: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["created_at"].as_str().unwrap())
        .collect();
    assert!(times[1] < times[2], "{times:?}");
    assert_eq!(ok(&gh, "/issues/7/timeline"), events);
    assert_eq!(ok(&gh, "/issues/9/events")[0]["label"]["name"], "triage");
    assert_eq!(get(&gh, "/issues/99/events").0, 404);
    // A builder's label is an event too, by the pull request's author.
    gh.pr(8).label("queue:urgent");
    assert_eq!(ok(&gh, "/issues/8/events")[0]["actor"]["login"], "octocat");
}
