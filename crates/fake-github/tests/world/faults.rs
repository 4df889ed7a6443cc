//! Fault drills: outages, rate limits, slow and lost replies, a comment deleted mid-flight.

use std::time::{Duration, Instant};

use council_github::ApiError;
use http::Method;
use serde_json::json;

use super::{SHA, client, get_json, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::faults::Fault;
use council_fake_github::tokens::{RELEASE_TOKEN, WORKFLOW_TOKEN};

#[tokio::test(flavor = "multi_thread")]
async fn queued_faults_answer_the_next_requests_then_the_world_does() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    let api = client(&gh, WORKFLOW_TOKEN);
    let statuses = |gh: &FakeGitHub| -> Vec<u16> { gh.calls().iter().map(|c| c.status).collect() };

    gh.fail_next("GET", "/pulls/7", 2, Fault::bad_gateway());
    assert_eq!(get_json(&api, "/pulls/7").await["number"], 7);
    assert_eq!(statuses(&gh), [502, 502, 200], "retried through the outage");

    gh.fail_next("GET", "/pulls/7", 1, Fault::rate_limited(1));
    let started = Instant::now();
    get_json(&api, "/pulls/7").await;
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After");
    assert_eq!(statuses(&gh)[3..], [429, 200]);

    gh.fail_next("GET", "/pulls/7", 1, Fault::secondary_rate_limit(1));
    get_json(&api, "/pulls/7").await;
    assert_eq!(statuses(&gh)[5..], [403, 200]);

    gh.fail_next(
        "GET",
        "/pulls/7",
        1,
        Fault::slow(Duration::from_millis(300)),
    );
    let started = Instant::now();
    get_json(&api, "/pulls/7").await;
    assert!(started.elapsed() >= Duration::from_millis(300));

    // Other routes are not touched by a fault.
    gh.fail_next("GET", "/pulls/7/files", 5, Fault::status(500, "boom"));
    assert_eq!(get_json(&api, "/pulls/7").await["number"], 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_that_happened_behind_a_502_is_not_mergeable_on_retry() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7).head("feature/x", SHA);
    gh.fail_next(
        "PUT",
        "/pulls/7/merge",
        1,
        Fault::bad_gateway().after_applying(),
    );
    let retried = client(&gh, RELEASE_TOKEN)
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": SHA}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(retried, ApiError::Rejected { status: 405, .. }),
        "{retried}"
    );
    assert!(gh.pr_state(7).merged, "the first attempt merged");
    let statuses: Vec<u16> = gh.calls().iter().map(|c| c.status).collect();
    assert_eq!(statuses, [502, 405]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comment_deleted_between_read_and_write_is_a_404_on_edit() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    let id = gh.seed(2, "github-actions[bot]", "ledger");
    gh.delete_comment_after_read(id);
    let api = client(&gh, WORKFLOW_TOKEN);
    let listed = api.list_comments(2).await.unwrap();
    assert_eq!(listed[0].id, id, "the read still saw it");
    let edit = api.update_comment(id, "new").await.unwrap_err();
    assert!(matches!(edit, ApiError::NotFound { .. }), "{edit}");
    assert!(gh.comment_bodies().is_empty());
}
