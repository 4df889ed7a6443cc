//! What CI reported: check runs, the combined status, a run's own job.

use council_github::rest::link;
use serde_json::{Value, json};

use super::{NEXT, SHA, client, get_json, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;

#[tokio::test(flavor = "multi_thread")]
async fn check_runs_keep_the_latest_per_name_unless_all_are_asked_for() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .check_run("ci", "completed", Some("failure"))
        .check_run("ci", "completed", Some("success"))
        .check_run("lint", "in_progress", None);
    let api = client(&gh, WORKFLOW_TOKEN);

    let latest = get_json(&api, &format!("/commits/{SHA}/check-runs?per_page=100")).await;
    assert_eq!(latest["total_count"], 2);
    let ci = &latest["check_runs"][0];
    assert_eq!(
        (&ci["name"], &ci["status"], &ci["conclusion"]),
        (&json!("ci"), &json!("completed"), &json!("success"))
    );
    assert_eq!(ci["head_sha"], SHA);
    assert_eq!(ci["app"]["slug"], "github-actions");
    assert_eq!(ci["pull_requests"][0]["number"], 7);
    assert_eq!(latest["check_runs"][1]["conclusion"], Value::Null);
    assert_eq!(latest["check_runs"][1]["completed_at"], Value::Null);

    let all = get_json(&api, &format!("/commits/{SHA}/check-runs?filter=all")).await;
    assert_eq!(all["total_count"], 3);
    let named = get_json(&api, &format!("/commits/{SHA}/check-runs?check_name=lint")).await;
    assert_eq!(named["total_count"], 1);
    // A branch name is a ref too.
    let by_branch = get_json(&api, "/commits/feature%2Fx/check-runs").await;
    assert_eq!(by_branch["total_count"], 2);
    // Nothing reported yet on the next commit.
    let none = get_json(&api, &format!("/commits/{NEXT}/check-runs")).await;
    assert_eq!(none, json!({"total_count": 0, "check_runs": []}));
}

#[tokio::test(flavor = "multi_thread")]
async fn check_runs_and_statuses_paginate_their_wrapped_lists() {
    let gh = FakeGitHub::start().await;
    let mut commit = gh.commit(SHA);
    for i in 0..150 {
        commit = commit.check_run(&format!("job {i}"), "completed", Some("success"));
    }
    for i in 0..40 {
        commit = commit.status(&format!("ctx {i}"), "success");
    }
    let api = client(&gh, WORKFLOW_TOKEN);
    let second = api
        .get(
            "checks",
            &repo(&format!("/commits/{SHA}/check-runs?per_page=100&page=2")),
            None,
        )
        .await
        .unwrap();
    assert!(link(&second.headers, "prev").is_some());
    assert_eq!(link(&second.headers, "next"), None);
    let body: Value = second.json("checks").unwrap();
    assert_eq!(body["total_count"], 150);
    assert_eq!(body["check_runs"].as_array().unwrap().len(), 50);

    let pages: Vec<Value> = api
        .get_pages("status", repo(&format!("/commits/{SHA}/status")), 10)
        .await
        .unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0]["total_count"], 40);
    assert_eq!(pages[0]["state"], "success");
    assert_eq!(pages[1]["statuses"].as_array().unwrap().len(), 10);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_combined_status_takes_the_latest_per_context() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .status("deploy", "pending")
        .status("deploy", "success")
        .status("docs", "pending");
    let api = client(&gh, WORKFLOW_TOKEN);
    let status = get_json(&api, &format!("/commits/{SHA}/status")).await;
    assert_eq!(status["state"], "pending");
    assert_eq!(status["total_count"], 2);
    assert_eq!(status["sha"], SHA);
    assert_eq!(status["statuses"][0]["context"], "deploy");
    assert_eq!(status["statuses"][0]["state"], "success");

    gh.commit(SHA).status("docs", "error");
    let status = get_json(&api, "/commits/feature%2Fx/status").await;
    assert_eq!(status["state"], "failure");
    // No status at all is `pending`, as GitHub answers.
    let none = get_json(&api, &format!("/commits/{NEXT}/status")).await;
    assert_eq!(
        (&none["state"], &none["total_count"]),
        (&json!("pending"), &json!(0))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_finds_its_own_job_and_the_check_run_it_reports_as() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/x", SHA)
        .check_run("ci", "completed", Some("success"))
        .own_job(1001, "council");
    let api = client(&gh, WORKFLOW_TOKEN);

    let jobs = get_json(&api, "/actions/runs/1001/jobs").await;
    assert_eq!(jobs["total_count"], 1);
    let job = &jobs["jobs"][0];
    assert_eq!(
        (
            &job["name"],
            &job["run_id"],
            &job["head_sha"],
            &job["status"]
        ),
        (
            &json!("council"),
            &json!(1001),
            &json!(SHA),
            &json!("in_progress")
        )
    );
    let url = job["check_run_url"].as_str().unwrap();
    let id: u64 = url.rsplit('/').next().unwrap().parse().unwrap();
    let runs = get_json(&api, &format!("/commits/{SHA}/check-runs")).await;
    let own = runs["check_runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .expect("the job's check run");
    assert_eq!(own["name"], "council");
    assert_eq!(own["status"], "in_progress");
    assert_eq!(
        get_json(&api, "/actions/runs/999/jobs").await,
        json!({"total_count": 0, "jobs": []})
    );
}
