//! Tokens and the request log: 401, 403, logins, unseen writes.

use council_github::ApiError;
use http::Method;
use serde_json::{Value, json};

use super::{client, get_json, raw, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::{Access, Scope, WORKFLOW_TOKEN};

#[tokio::test(flavor = "multi_thread")]
async fn tokens_are_401_when_unknown_and_403_without_the_permission() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(2);

    let (status, body) = raw(&gh, "GET", &repo("/pulls/2"), "ghs_forged", Value::Null).await;
    assert_eq!((status, &body["message"]), (401, &json!("Bad credentials")));
    let unknown = client(&gh, "ghs_forged")
        .get("a PR", &repo("/pulls/2"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, ApiError::BadCredentials { .. }),
        "{unknown}"
    );

    // A fork PR's token reads but may not write.
    gh.token(WORKFLOW_TOKEN).read_only();
    let api = client(&gh, WORKFLOW_TOKEN);
    assert_eq!(get_json(&api, "/pulls/2").await["number"], 2);
    let refused = api.create_comment(2, "hello").await.unwrap_err();
    assert!(
        matches!(&refused, ApiError::Forbidden { status: 403, message, .. }
            if message == "Resource not accessible by integration"),
        "{refused}"
    );

    // A user's token that may write issues comments as that user.
    gh.token("ghp_alice")
        .login("alice")
        .grant(Scope::Issues, Access::Write);
    let alice = client(&gh, "ghp_alice");
    assert_eq!(
        alice.create_comment(2, "hi").await.unwrap().author(),
        "alice"
    );
    let me: Value = alice
        .get("who", "/user", None)
        .await
        .unwrap()
        .json("who")
        .unwrap();
    assert_eq!(me["login"], "alice");
    let app = api.get("who", "/user", None).await.unwrap_err();
    assert!(
        matches!(app, ApiError::Forbidden { status: 403, .. }),
        "an app token has no user: {app}"
    );
    gh.token("ghp_alice").revoke(Scope::Issues);
    let (status, body) = raw(
        &gh,
        "POST",
        &repo("/issues/2/comments"),
        "ghp_alice",
        json!({"body": "again"}),
    )
    .await;
    assert_eq!(
        (status, &body["message"]),
        (
            403,
            &json!("Resource not accessible by personal access token")
        )
    );

    let tokens: Vec<(String, Option<String>, u16)> = gh
        .calls()
        .into_iter()
        .map(|c| (c.line(), c.token, c.status))
        .filter(|(line, ..)| line.starts_with("POST"))
        .collect();
    assert_eq!(
        tokens,
        [
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some(WORKFLOW_TOKEN.to_string()),
                403
            ),
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some("ghp_alice".to_string()),
                201
            ),
            (
                format!("POST {}", repo("/issues/2/comments")),
                Some("ghp_alice".to_string()),
                403
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_tells_which_writes_the_test_has_seen() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    let api = client(&gh, WORKFLOW_TOKEN);
    get_json(&api, "/pulls/7").await;
    api.create_comment(7, "ledger").await.unwrap();
    api.send_json(
        "labels",
        Method::POST,
        &repo("/issues/7/labels"),
        &json!({"labels": ["bot-approved"]}),
    )
    .await
    .unwrap();

    assert_eq!(
        gh.call_lines(),
        [
            format!("GET {}", repo("/pulls/7")),
            format!("POST {}", repo("/issues/7/comments")),
            format!("POST {}", repo("/issues/7/labels")),
        ]
    );
    let writes = gh.take_writes();
    assert_eq!(writes.len(), 2);
    assert_eq!(writes[0].body, json!({"body": "ledger"}));
    assert_eq!(writes[1].token.as_deref(), Some(WORKFLOW_TOKEN));
    gh.assert_all_writes_seen();
    assert!(gh.take_writes().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[should_panic(expected = "writes the test never looked at")]
async fn an_unseen_write_fails_the_test() {
    let gh = FakeGitHub::start().await;
    gh.pr(7);
    client(&gh, WORKFLOW_TOKEN)
        .create_comment(7, "surprise")
        .await
        .unwrap();
    gh.assert_all_writes_seen();
}
