//! What the graph tests share: a world with builders, and requests served without a
//! server (`routes::request`), read as status and JSON.

#![allow(dead_code)] // each test file uses its own part

use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::routes;
use serde_json::Value;

#[allow(unused_imports)] // each test file uses its own part
pub use council_fake_github::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};

/// A world for one test; its writes are the test's subject, checked by value.
pub async fn world() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("the graph tests check answers and the world, not the write log");
    gh
}

/// `METHOD /repos/{repo}{rest}` with `token` and a JSON body: the status and the body.
pub fn http(gh: &FakeGitHub, method: &str, rest: &str, token: &str, body: Value) -> (u16, Value) {
    let path = match rest.starts_with("/graphql") {
        true => rest.to_string(),
        false => format!("/repos/{}{rest}", gh.repo()),
    };
    gh.edit(|w| {
        let answer = routes::request(w, method, &path, Some(token), &body);
        (
            answer.status,
            answer.body_json().cloned().unwrap_or(Value::Null),
        )
    })
}

/// A GET with the workflow token.
pub fn get(gh: &FakeGitHub, rest: &str) -> (u16, Value) {
    http(gh, "GET", rest, WORKFLOW_TOKEN, Value::Null)
}

/// The body of a 200 GET.
pub fn ok(gh: &FakeGitHub, rest: &str) -> Value {
    let (status, body) = get(gh, rest);
    assert_eq!(status, 200, "GET {rest}: {body}");
    body
}

/// An error's `message`.
pub fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

/// The `filename`s of a list of files.
pub fn filenames(files: &Value) -> Vec<String> {
    files
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["filename"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The `sha`s of a list of commits.
pub fn shas(commits: &Value) -> Vec<String> {
    commits
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["sha"].as_str().unwrap_or_default().to_string())
        .collect()
}
