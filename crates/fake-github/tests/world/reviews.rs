//! Reviews: listed in order, paginated.

use serde_json::Value;

use super::{NEXT, SHA, client, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;

#[tokio::test(flavor = "multi_thread")]
async fn reviews_are_listed_in_order_and_paginated() {
    let gh = FakeGitHub::start().await;
    let mut pr = gh
        .pr(7)
        .review("alice", "COMMENTED", SHA)
        .review("bob", "CHANGES_REQUESTED", SHA);
    for i in 0..33 {
        pr = pr.review(&format!("reviewer{i}"), "APPROVED", NEXT);
    }
    let api = client(&gh, WORKFLOW_TOKEN);
    let pages: Vec<Vec<Value>> = api
        .get_pages("reviews", repo("/pulls/7/reviews"), 10)
        .await
        .unwrap();
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [30, 5],
        "GitHub's 30 a page"
    );
    let first = &pages[0][0];
    assert_eq!(first["user"]["login"], "alice");
    assert_eq!(first["state"], "COMMENTED");
    assert_eq!(first["commit_id"], SHA);
    assert!(first["submitted_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(pages[1][4]["user"]["login"], "reviewer32");
}
