//! Labels: added and removed as GitHub answers, 404 and 422 included.

use http::Method;
use serde_json::{Value, json};

use super::{client, raw, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;

#[tokio::test(flavor = "multi_thread")]
async fn labels_are_added_and_removed_as_github_answers() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7).label("bug");
    let api = client(&gh, WORKFLOW_TOKEN);

    let added = api
        .send_json(
            "labels",
            Method::POST,
            &repo("/issues/7/labels"),
            &json!({"labels": ["bot-approved", "Bug", "needs review/ci"]}),
        )
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    let names: Vec<&str> = added
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(names, ["bug", "bot-approved", "needs review/ci"]);

    let left = api
        .delete("a label", &repo("/issues/7/labels/needs%20review%2Fci"))
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    assert_eq!(left.as_array().unwrap().len(), 2);
    assert_eq!(gh.pr_state(7).labels, ["bug", "bot-approved"]);

    let (status, body) = raw(
        &gh,
        "DELETE",
        &repo("/issues/7/labels/wontfix"),
        WORKFLOW_TOKEN,
        Value::Null,
    )
    .await;
    assert_eq!(
        (status, &body["message"]),
        (404, &json!("Label does not exist"))
    );
    let (status, body) = raw(
        &gh,
        "POST",
        &repo("/issues/7/labels"),
        WORKFLOW_TOKEN,
        json!({"names": ["x"]}),
    )
    .await;
    assert_eq!(
        (status, &body["message"]),
        (422, &json!("Validation Failed"))
    );
    let (status, _) = raw(
        &gh,
        "POST",
        &repo("/issues/8/labels"),
        WORKFLOW_TOKEN,
        json!({"labels": ["x"]}),
    )
    .await;
    assert_eq!(status, 404, "no such issue");
}
