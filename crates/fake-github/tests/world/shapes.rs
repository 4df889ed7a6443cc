//! Every answer carries the fields of GitHub's own examples (the workspace's
//! `tests/data/github/`, shared with the other crates' tests).

use std::path::Path;

use http::Method;
use serde_json::{Value, json};

use super::{SHA, client, get_json, repo};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::{RELEASE_TOKEN, WORKFLOW_TOKEN};
use council_fake_github::world::PrFile;

/// An example answer from GitHub's OpenAPI description (`tests/data/github/`).
fn example(name: &str) -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/data/github/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).expect("JSON")
}

/// Keys of GitHub's example that the world's answer lacks, at `at` and one level into
/// the objects named in `nested` (nested users and repositories carry fewer fields).
fn missing(example: &Value, ours: &Value, at: &str, nested: &[&str]) -> Vec<String> {
    let (Some(theirs), Some(mine)) = (example.as_object(), ours.as_object()) else {
        return vec![format!("{at}: not an object")];
    };
    let mut out = Vec::new();
    for (key, value) in theirs {
        match mine.get(key) {
            None => out.push(format!("{at}.{key}")),
            Some(v) if nested.contains(&key.as_str()) => {
                let first = |x: &Value| x.as_array().and_then(|a| a.first()).cloned();
                let (theirs, mine) = match (first(value), first(v)) {
                    (Some(t), Some(m)) => (t, m),
                    _ => (value.clone(), v.clone()),
                };
                out.extend(missing(&theirs, &mine, &format!("{at}.{key}"), &[]));
            }
            Some(_) => {}
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_has_the_fields_of_githubs_own_examples() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the fake world's own answers to writes");
    gh.pr(7)
        .head("feature/x", SHA)
        .label("bug")
        .approved_by("alice")
        .file(PrFile::added("src/a.rs", "fn a() {}"))
        .check_run("ci", "completed", Some("success"))
        .status("deploy", "success")
        .own_job(1001, "council");
    gh.file("master", "README.md", "hello\n");
    let api = client(&gh, WORKFLOW_TOKEN);
    let labels = api
        .send_json(
            "labels",
            Method::POST,
            &repo("/issues/7/labels"),
            &json!({"labels": ["bug"]}),
        )
        .await
        .unwrap()
        .json::<Value>("labels")
        .unwrap();
    let answers = [
        (
            "pull-request",
            get_json(&api, "/pulls/7").await,
            &["head", "base"][..],
        ),
        (
            "pull-request-simple-items",
            get_json(&api, "/pulls").await,
            &["head", "base"],
        ),
        ("issue", get_json(&api, "/issues/7").await, &[]),
        (
            "diff-entry-items",
            get_json(&api, "/pulls/7/files").await,
            &[],
        ),
        ("label-items", labels, &[]),
        (
            "pull-request-review-items",
            get_json(&api, "/pulls/7/reviews").await,
            &[],
        ),
        (
            "check-run-paginated",
            get_json(&api, &format!("/commits/{SHA}/check-runs")).await,
            &["check_runs"],
        ),
        (
            "combined-commit-status",
            get_json(&api, &format!("/commits/{SHA}/status")).await,
            &["statuses"],
        ),
        (
            "job-paginated",
            get_json(&api, "/actions/runs/1001/jobs").await,
            &["jobs"],
        ),
        (
            "content-file",
            get_json(&api, "/contents/README.md").await,
            &[],
        ),
    ];
    let mut gaps = Vec::new();
    for (name, ours, nested) in answers {
        let theirs = example(name);
        let (theirs, ours) = match (theirs.as_array(), ours.as_array()) {
            (Some(t), Some(o)) => (t[0].clone(), o[0].clone()),
            _ => (theirs, ours),
        };
        gaps.extend(missing(&theirs, &ours, name, nested));
    }
    let merged: Value = client(&gh, RELEASE_TOKEN)
        .send_json("merging", Method::PUT, &repo("/pulls/7/merge"), &json!({}))
        .await
        .unwrap()
        .json("merge")
        .unwrap();
    gaps.extend(missing(
        &example("pull-request-merge-result"),
        &merged,
        "merge",
        &[],
    ));
    assert!(
        gaps.is_empty(),
        "fields GitHub sends and the world does not:\n{}",
        gaps.join("\n")
    );
}
