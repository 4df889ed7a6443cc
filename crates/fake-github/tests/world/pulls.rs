//! Pull requests: one, the open ones by head label, those of a commit, all of them by
//! update (what `council audit sync` reads), and the updates GitHub counts.

use council_github::ApiError;
use serde_json::Value;

use super::{NEXT, SHA, client, get_json, numbers, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;

#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_reads_back_as_the_scene_set_it() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .title("Add login")
        .author("alice")
        .head("feature/x", SHA)
        .base("develop")
        .label("bot-approved")
        .mergeable_state("behind")
        .auto_merge("alice", "squash");
    let api = client(&gh, WORKFLOW_TOKEN);

    let pr = get_json(&api, "/pulls/7").await;
    assert_eq!(pr["number"], 7);
    assert_eq!(pr["title"], "Add login");
    assert_eq!(pr["user"]["login"], "alice");
    assert_eq!(pr["state"], "open");
    assert_eq!(pr["draft"], false);
    assert_eq!(pr["head"]["ref"], "feature/x");
    assert_eq!(pr["head"]["sha"], SHA);
    assert_eq!(pr["head"]["label"], "Codertocat:feature/x");
    assert_eq!(pr["head"]["repo"]["fork"], false);
    assert_eq!(pr["base"]["ref"], "develop");
    assert_eq!(pr["base"]["sha"], gh.branch_head("develop").unwrap());
    assert_eq!(pr["labels"][0]["name"], "bot-approved");
    assert_eq!(pr["mergeable"], true);
    assert_eq!(pr["mergeable_state"], "behind");
    assert_eq!(pr["auto_merge"]["merge_method"], "squash");
    assert_eq!(pr["merged"], false);
    assert_eq!(pr["merge_commit_sha"], Value::Null);

    let missing = api.get("a PR", &repo("/pulls/8"), None).await.unwrap_err();
    assert!(matches!(missing, ApiError::NotFound { .. }), "{missing}");
    // A pull request is an issue too.
    let issue = get_json(&api, "/issues/7").await;
    assert_eq!(issue["user"]["login"], "alice");
    assert!(issue.get("pull_request").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn open_pulls_are_found_by_head_label_and_by_commit() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).head("feature/x", SHA);
    gh.pr(8).head("feature/y", NEXT).fork("mallory");
    gh.pr(9).head("feature/z", SHA).closed();
    let api = client(&gh, WORKFLOW_TOKEN);

    let mine = get_json(&api, "/pulls?state=open&head=Codertocat:feature/x").await;
    assert_eq!(numbers(&mine), [7]);
    let fork = get_json(&api, "/pulls?state=open&head=mallory:feature/y").await;
    assert_eq!(numbers(&fork), [8]);
    assert_eq!(fork[0]["head"]["repo"]["fork"], true);
    assert_eq!(fork[0]["head"]["repo"]["full_name"], "mallory/Hello-World");
    assert!(
        fork[0].get("mergeable").is_none(),
        "lists carry no mergeability"
    );
    // `head` needs the owner, as GitHub documents.
    assert_eq!(
        numbers(&get_json(&api, "/pulls?state=open&head=feature/x").await),
        Vec::<u64>::new()
    );
    assert_eq!(numbers(&get_json(&api, "/pulls").await), [8, 7]);
    assert_eq!(
        numbers(&get_json(&api, "/pulls?state=all").await),
        [9, 8, 7]
    );
    // Only open ones: the commit is not on the default branch (GitHub's documented rule).
    assert_eq!(
        numbers(&get_json(&api, &format!("/commits/{SHA}/pulls")).await),
        [7]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn pulls_list_by_update_as_github_documents_and_writes_move_updated_at() {
    let gh = FakeGitHub::start().await;
    gh.pr(7).updated_at("2026-01-03T00:00:00Z");
    gh.pr(8)
        .updated_at("2026-01-01T00:00:00Z")
        .closed_at("2026-01-01T00:00:00Z");
    gh.pr(9).updated_at("2026-01-02T00:00:00+01:00");
    let api = client(&gh, WORKFLOW_TOKEN);

    // "Default: desc when sort is created or sort is not specified, otherwise asc."
    let by_update = "/pulls?state=all&sort=updated";
    assert_eq!(numbers(&get_json(&api, by_update).await), [8, 9, 7]);
    let newest_first = format!("{by_update}&direction=desc");
    assert_eq!(numbers(&get_json(&api, &newest_first).await), [7, 9, 8]);
    let nine = get_json(&api, "/pulls/9").await;
    assert_eq!(
        nine["updated_at"], "2026-01-01T23:00:00Z",
        "in UTC, as GitHub writes it"
    );
    let eight = get_json(&api, "/pulls/8").await;
    assert_eq!(eight["state"], "closed");
    assert_eq!(eight["closed_at"], "2026-01-01T00:00:00Z");

    // A comment updates #8; editing it afterwards does not.
    let posted = api
        .create_comment(8, "a comment")
        .await
        .unwrap_or_else(|e| panic!("comment: {e}"));
    assert_eq!(numbers(&get_json(&api, &newest_first).await), [8, 7, 9]);
    let updated = gh.pr_state(8).updated_at;
    api.update_comment(posted.id, "edited")
        .await
        .unwrap_or_else(|e| panic!("edit: {e}"));
    assert_eq!(
        gh.pr_state(8).updated_at,
        updated,
        "an edit is no update of the PR"
    );
    gh.expect_writes(&[
        "POST /issues/8/comments",
        &format!("PATCH /issues/comments/{}", posted.id),
    ]);
}
