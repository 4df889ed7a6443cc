//! Merges: who may merge, 409 on a moved head, 405 by state or setting, the base moving.

use council_github::ApiError;
use http::Method;
use serde_json::{Value, json};

use super::{NEXT, SHA, client, get_json, numbers, raw, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};

#[tokio::test(flavor = "multi_thread")]
async fn only_the_release_token_merges_and_the_base_moves_to_the_merge_commit() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7).head("feature/x", SHA).base("develop");
    let merge = json!({"sha": SHA, "merge_method": "squash"});

    let refused = client(&gh, WORKFLOW_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ApiError::Forbidden { status: 403, message, .. }
            if message == "Resource not accessible by integration"),
        "{refused}"
    );

    let release = client(&gh, RELEASE_TOKEN);
    let wrong = release
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": NEXT}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        wrong,
        ApiError::Rejected {
            what: "merging".into(),
            status: 409,
            message: "Head branch was modified. Review and try the merge again.".into()
        }
    );

    let merged: Value = release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    assert_eq!(merged["merged"], true);
    assert_eq!(merged["message"], "Pull Request successfully merged");
    let sha = merged["sha"].as_str().unwrap().to_string();
    let pr = gh.pr_state(7);
    assert!(pr.merged && !pr.open);
    assert_eq!(pr.merge_commit_sha.as_deref(), Some(sha.as_str()));
    assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
    assert_eq!(gh.branch_head("develop"), Some(sha.clone()));
    // A push of the merge commit: `develop` is not the default branch, so GitHub lists
    // only open pull requests for the commit (none) ...
    let api = client(&gh, WORKFLOW_TOKEN);
    assert_eq!(
        numbers(&get_json(&api, &format!("/commits/{sha}/pulls")).await),
        Vec::<u64>::new()
    );
    // ... and the pull requests recently closed into `develop` hold it.
    let closed = get_json(
        &api,
        "/pulls?state=closed&base=develop&sort=updated&direction=desc",
    )
    .await;
    assert_eq!(numbers(&closed), [7]);
    assert_eq!(closed[0]["merge_commit_sha"], json!(sha));
    let rest = get_json(&api, "/pulls/7").await;
    assert_eq!(
        (&rest["state"], &rest["merged"], &rest["merge_commit_sha"]),
        (&json!("closed"), &json!(true), &json!(sha))
    );
    assert_eq!(rest["merged_by"]["login"], RELEASE_LOGIN);

    let again = release
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &merge)
        .await
        .unwrap_err();
    assert!(
        matches!(&again, ApiError::Rejected { status: 405, message, .. } if message == "Pull Request is not mergeable"),
        "{again}"
    );
    let merges: Vec<_> = gh
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/merge"))
        .map(|c| (c.token.unwrap_or_default(), c.status))
        .collect();
    assert_eq!(
        merges,
        [
            (WORKFLOW_TOKEN.to_string(), 403),
            (RELEASE_TOKEN.to_string(), 409),
            (RELEASE_TOKEN.to_string(), 200),
            (RELEASE_TOKEN.to_string(), 405),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_head_pushed_between_the_read_and_the_merge_is_a_409() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7).head("feature/x", SHA);
    let release = client(&gh, RELEASE_TOKEN);
    let read = get_json(&release, "/pulls/7").await;
    let head = read["head"]["sha"].as_str().unwrap().to_string();
    gh.push_before_merge(7, NEXT);

    let moved = release
        .send_json(
            "merging",
            Method::PUT,
            &repo("/pulls/7/merge"),
            &json!({"sha": head}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(moved, ApiError::Rejected { status: 409, .. }),
        "{moved}"
    );
    let pr = gh.pr_state(7);
    assert_eq!(pr.head_sha, NEXT);
    assert!(!pr.merged);
    assert_eq!(gh.branch_head("feature/x").as_deref(), Some(NEXT));
}

#[tokio::test(flavor = "multi_thread")]
async fn mergeable_states_decide_405_and_the_repository_decides_the_method() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    let release = client(&gh, RELEASE_TOKEN);
    let states = [
        ("dirty", 405),
        ("blocked", 405),
        ("behind", 405),
        ("draft", 405),
        ("unstable", 200),
        ("has_hooks", 200),
        ("clean", 200),
    ];
    for (n, (state, expected)) in (10..).zip(states) {
        gh.pr(n).mergeable_state(state);
        let status = match release
            .send_json(
                "merging",
                Method::PUT,
                &repo(&format!("/pulls/{n}/merge")),
                &json!({}),
            )
            .await
        {
            Ok(reply) => reply.status.as_u16(),
            Err(ApiError::Rejected { status, .. }) => status,
            Err(e) => panic!("{state}: {e}"),
        };
        assert_eq!(status, expected, "mergeable_state {state}");
    }
    gh.pr(20).draft();
    gh.allow_merge_methods(&["squash"]);
    gh.pr(21);
    for (n, body, message) in [
        (
            20,
            json!({"merge_method": "squash"}),
            "Pull Request is not mergeable",
        ),
        (
            21,
            json!({}),
            "Merge commits are not allowed on this repository.",
        ),
    ] {
        let (status, reply) = raw(
            &gh,
            "PUT",
            &repo(&format!("/pulls/{n}/merge")),
            RELEASE_TOKEN,
            body,
        )
        .await;
        assert_eq!((status, reply["message"].as_str()), (405, Some(message)));
    }
    let (status, _) = raw(
        &gh,
        "PUT",
        &repo("/pulls/21/merge"),
        RELEASE_TOKEN,
        json!({"merge_method": "fast-forward"}),
    )
    .await;
    assert_eq!(status, 422);
}
