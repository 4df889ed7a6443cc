//! Files at a ref: raw, base64 JSON, 404, and the older policy helpers.

use serde_json::json;

use super::{client, get_json};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::WORKFLOW_TOKEN;

#[tokio::test(flavor = "multi_thread")]
async fn files_at_a_ref_come_raw_or_as_base64_json_and_404_when_absent() {
    let gh = FakeGitHub::start().await;
    gh.file("develop", "docs/a b.md", "hello\nworld\n");
    let api = client(&gh, WORKFLOW_TOKEN);

    assert_eq!(
        api.get_file("docs/a b.md", Some("develop")).await.unwrap(),
        Some("hello\nworld\n".to_string())
    );
    assert_eq!(
        api.get_file("docs/a b.md", Some("main")).await.unwrap(),
        None
    );
    assert_eq!(
        api.get_file("nothing.md", Some("develop")).await.unwrap(),
        None
    );
    let object = get_json(&api, "/contents/docs/a%20b.md?ref=develop").await;
    assert_eq!(
        (&object["type"], &object["encoding"], &object["path"]),
        (&json!("file"), &json!("base64"), &json!("docs/a b.md"))
    );
    assert_eq!(object["content"], "aGVsbG8Kd29ybGQK\n");

    // The older helpers write the same files.
    gh.policy("main", Some("version: 1\n")).await;
    assert_eq!(
        api.get_file(".github/council.yml", Some("main"))
            .await
            .unwrap()
            .as_deref(),
        Some("version: 1\n")
    );
    gh.policy("main", None).await;
    assert_eq!(
        api.get_file(".github/council.yml", Some("main"))
            .await
            .unwrap(),
        None
    );
    gh.set_default_policy("version: 1\n");
    assert!(
        api.get_file(".github/council.yml", None)
            .await
            .unwrap()
            .is_some()
    );
}
