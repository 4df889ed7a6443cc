//! The commit graph's answers carry the fields of GitHub's own examples
//! (`tests/data/github/`, copied from GitHub's OpenAPI description), so code written
//! against GitHub's documented shape reads the fake's answers too.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

mod support;

use serde_json::{Value, json};
use support::*;

fn example(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/github")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Keys of GitHub's example that ours lacks, at `at` and one level into `nested` (users
/// embedded in answers carry fewer fields, as everywhere in the fake).
fn missing(theirs: &Value, ours: &Value, at: &str, nested: &[&str]) -> Vec<String> {
    let first = |v: &Value| match v {
        Value::Array(items) => items.first().cloned().unwrap_or(Value::Null),
        v => v.clone(),
    };
    let (theirs, ours) = (first(theirs), first(ours));
    let (Some(theirs), Some(ours)) = (theirs.as_object(), ours.as_object()) else {
        return vec![format!("{at}: not an object")];
    };
    let mut gaps = Vec::new();
    for (key, value) in theirs {
        match ours.get(key) {
            None => gaps.push(format!("{at}.{key}")),
            Some(mine) if nested.contains(&key.as_str()) => {
                gaps.extend(missing(value, mine, &format!("{at}.{key}"), &[]));
            }
            Some(_) => {}
        }
    }
    gaps
}

#[tokio::test]
async fn graph_answers_have_the_fields_of_githubs_examples() {
    let gh = world().await;
    let base = gh.commit_on("master", &[("a.rs", "a\n")], "a");
    gh.pr(7).commit(&[("b.rs", "b\n")], "b").label("queued");
    let head = gh.pr(7).head_sha();
    gh.commit_on("master", &[("c.rs", "c\n")], "c");
    let (_, created) = http(
        &gh,
        "POST",
        "/git/refs",
        RELEASE_TOKEN,
        json!({"ref": "refs/heads/council/queue/master", "sha": base}),
    );
    let (_, merged) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "council/queue/master", "head": "feature/pr-7"}),
    );
    let (_, updated) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/council/queue/master",
        RELEASE_TOKEN,
        json!({"sha": gh.branch_head("master").unwrap(), "force": true}),
    );
    let commit = ["commit", "parents", "files", "stats"];
    let answers = [
        ("commit", ok(&gh, &format!("/commits/{head}")), &commit[..]),
        ("commit", merged, &commit),
        (
            "commit-items",
            ok(&gh, "/pulls/7/commits"),
            &["commit", "parents"],
        ),
        (
            "git-commit",
            ok(&gh, &format!("/git/commits/{head}")),
            &["tree", "parents", "verification"],
        ),
        ("git-ref", ok(&gh, "/git/ref/heads/master"), &["object"]),
        ("git-ref", created, &["object"]),
        ("git-ref", updated, &["object"]),
        (
            "git-ref-items",
            ok(&gh, "/git/matching-refs/heads/"),
            &["object"],
        ),
        (
            "commit-comparison",
            ok(&gh, &format!("/compare/master...{head}")),
            &["base_commit", "merge_base_commit", "commits", "files"],
        ),
        (
            "issue-event-for-issue-items",
            ok(&gh, "/issues/7/events"),
            &["label"],
        ),
    ];
    let mut gaps = Vec::new();
    for (name, ours, nested) in answers {
        gaps.extend(missing(&example(name), &ours, name, nested));
    }
    assert!(
        gaps.is_empty(),
        "fields GitHub sends and the world does not:\n{}",
        gaps.join("\n")
    );
}
