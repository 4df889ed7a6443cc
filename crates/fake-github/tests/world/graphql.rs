//! GraphQL by operation: the rollup and revert operations, dispatch, unknown operations.

use council_github::ApiError;
use http::Method;
use serde_json::{Value, json};

use super::{NEXT, SHA, client, get_json, repo};
use council_fake_github::REPO;
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::faults::Fault;
use council_fake_github::graphql;
use council_fake_github::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};

const ROLLUP: &str = "query PullRequestRollup($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) { pullRequest(number: $number) { mergeStateStatus } }
}";

fn rollup_request(number: u64) -> Value {
    json!({"query": ROLLUP, "variables": {"owner": "Codertocat", "repo": "Hello-World", "number": number}})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rollup_query_sees_what_rest_sees() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7)
        .head("feature/x", SHA)
        .label("bot-approved")
        .mergeable_state("blocked")
        .auto_merge("alice", "squash")
        .review("alice", "APPROVED", SHA)
        .review("alice", "COMMENTED", SHA)
        .review("bob", "APPROVED", SHA)
        .review("bob", "CHANGES_REQUESTED", SHA)
        .check_run("ci", "completed", Some("success"))
        .status("deploy", "pending")
        .own_job(1001, "council");
    let api = client(&gh, WORKFLOW_TOKEN);

    let data: Value = api.graphql("rollup", &rollup_request(7)).await.unwrap();
    let pr = &data["repository"]["pullRequest"];
    assert_eq!(pr["mergeStateStatus"], "BLOCKED");
    assert_eq!(pr["mergeable"], "MERGEABLE");
    assert_eq!(pr["state"], "OPEN");
    assert_eq!(pr["isInMergeQueue"], false);
    assert_eq!(pr["autoMergeRequest"]["mergeMethod"], "SQUASH");
    assert_eq!(pr["headRefOid"], SHA);
    assert_eq!(pr["labels"]["nodes"][0]["name"], "bot-approved");
    let reviews: Vec<(&str, &str)> = pr["latestOpinionatedReviews"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["author"]["login"].as_str().unwrap(),
                r["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reviews,
        [("alice", "APPROVED"), ("bob", "CHANGES_REQUESTED")]
    );
    let rollup = &pr["commits"]["nodes"][0]["commit"]["statusCheckRollup"];
    assert_eq!(rollup["state"], "PENDING");
    assert_eq!(rollup["contexts"]["totalCount"], 3);
    let kinds: Vec<&str> = rollup["contexts"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["__typename"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["CheckRun", "CheckRun", "StatusContext"]);

    // A merge through REST shows in GraphQL.
    gh.pr(7).mergeable_state("clean");
    let merged: Value = client(&gh, RELEASE_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    let data: Value = api.graphql("rollup", &rollup_request(7)).await.unwrap();
    let pr = &data["repository"]["pullRequest"];
    assert_eq!(pr["state"], "MERGED");
    assert_eq!(pr["mergeCommit"]["oid"], merged["sha"]);
    assert_eq!(pr["autoMergeRequest"], Value::Null);

    // A commit nothing reported on has no rollup.
    gh.pr(8).head("feature/y", NEXT);
    let data: Value = api.graphql("rollup", &rollup_request(8)).await.unwrap();
    assert_eq!(
        data["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]["statusCheckRollup"],
        Value::Null
    );
    let missing = api
        .graphql::<Value>("rollup", &rollup_request(99))
        .await
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("Could not resolve to a PullRequest"),
        "{missing}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn graphql_dispatches_on_the_operation_and_refuses_unknown_ones() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).mergeable_state("dirty");
    let api = client(&gh, WORKFLOW_TOKEN);

    // `operationName` wins over the text (here an anonymous query).
    let data: Value = api
        .graphql(
            "rollup",
            &json!({
                "operationName": "PullRequestRollup",
                "query": "query($number: Int!) { repository { pullRequest(number: $number) { mergeable } } }",
                "variables": {"number": 7},
            }),
        )
        .await
        .unwrap();
    assert_eq!(
        data["repository"]["pullRequest"]["mergeable"],
        "CONFLICTING"
    );

    // The product's anonymous identity query still works.
    let viewer: Value = api
        .graphql(
            "viewer",
            &json!({"query": "query { viewer { login __typename } }"}),
        )
        .await
        .unwrap();
    assert_eq!(
        viewer["viewer"],
        json!({"login": "github-actions", "__typename": "Bot"})
    );

    let unknown = api
        .graphql::<Value>(
            "unknown",
            &json!({"query": "# a comment first\nquery ReleaseFacts { viewer { login } }"}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, ApiError::Rejected { message, .. } if message.contains("`ReleaseFacts`")),
        "{unknown}"
    );
    // Registered under the product's own name, it answers.
    gh.graphql_operation("ReleaseFacts", graphql::rollup::pull_request);
    let data: Value = api
        .graphql(
            "facts",
            &json!({"query": "query ReleaseFacts($number: Int!) { x }", "variables": {"number": 7}}),
        )
        .await
        .unwrap();
    assert_eq!(data["repository"]["pullRequest"]["number"], 7);

    let operations: Vec<Option<String>> = gh.calls().into_iter().map(|c| c.operation).collect();
    assert_eq!(
        operations,
        [
            Some("PullRequestRollup".to_string()),
            Some("viewer".to_string()),
            Some("ReleaseFacts".to_string()),
            Some("ReleaseFacts".to_string()),
        ]
    );
    // Faults can target an operation by name.
    gh.fail_next("POST", "ReleaseFacts", 1, Fault::status(400, "bad"));
    let failed = api
        .graphql::<Value>(
            "facts",
            &json!({"query": "query ReleaseFacts($number: Int!) { x }", "variables": {"number": 7}}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(failed, ApiError::Rejected { status: 400, .. }),
        "{failed}"
    );
}

const REVERT: &str = "mutation RevertPullRequest($input: RevertPullRequestInput!) {
  revertPullRequest(input: $input) { revertPullRequest { number url } }
}";

#[tokio::test(flavor = "multi_thread")]
async fn the_revert_mutation_opens_a_pull_request_with_the_release_token() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7)
        .title("Add login")
        .head("feature/x", SHA)
        .base("develop");
    let release = client(&gh, RELEASE_TOKEN);
    release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap();
    let id = gh.pr_state(7).node_id();
    let revert = json!({"query": REVERT, "variables": {"input": {"pullRequestId": id}}});

    let refused = client(&gh, WORKFLOW_TOKEN)
        .graphql::<Value>("revert", &revert)
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("Resource not accessible by integration"),
        "{refused}"
    );

    let data: Value = release.graphql("revert", &revert).await.unwrap();
    let created = &data["revertPullRequest"]["revertPullRequest"];
    assert_eq!(created["number"], 8);
    let pr = gh.pr_state(8);
    assert_eq!(pr.title, "Revert \"Add login\"");
    assert_eq!(pr.base_ref, "develop");
    assert_eq!(pr.head_ref, "revert-7-feature/x");
    assert_eq!(pr.author, RELEASE_LOGIN);
    assert!(pr.open);
    assert_eq!(
        get_json(&release, "/pulls/8").await["body"],
        format!("Reverts {REPO}#7")
    );
    let writes: Vec<(String, Option<String>)> = gh
        .take_writes()
        .into_iter()
        .map(|c| (c.operation.unwrap_or(c.path), c.token))
        .collect();
    assert_eq!(
        writes,
        [
            (repo("/pulls/7/merge"), Some(RELEASE_TOKEN.to_string())),
            (
                "RevertPullRequest".to_string(),
                Some(WORKFLOW_TOKEN.to_string())
            ),
            (
                "RevertPullRequest".to_string(),
                Some(RELEASE_TOKEN.to_string())
            ),
        ]
    );
    // An open pull request cannot be reverted.
    let open = gh.pr_state(8).node_id();
    let error = release
        .graphql::<Value>(
            "revert",
            &json!({"query": REVERT, "variables": {"input": {"pullRequestId": open}}}),
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("not merged"), "{error}");
}
