//! The fake GitHub checked against itself over real HTTP, through the product's own
//! client: every route, pagination, tokens and permissions, merges, fault drills and
//! GraphQL dispatch. Review and release tests rely on these answers being GitHub's.
//! One file per resource under `world/`; the helpers they share are here. (The world
//! with the real `council` binary is the root package's `tests/integration/world.rs`.)

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

mod ci;
mod contents;
mod faults;
mod files;
mod graphql;
mod labels;
mod merges;
mod pulls;
mod queue_calls;
mod reviews;
mod shapes;
mod tokens;

use std::time::Duration;

use council_github::retry::RetryPolicy;
use council_github::{GitHub, GitHubConfig, RepoName};
use serde_json::Value;

use council_fake_github::REPO;
use council_fake_github::fake_github::FakeGitHub;

pub const SHA: &str = "1111111111111111111111111111111111111111";
pub const NEXT: &str = "2222222222222222222222222222222222222222";

/// The product's client for one token, retrying fast.
pub fn client(gh: &FakeGitHub, token: &str) -> GitHub {
    let config = GitHubConfig {
        api_url: gh.uri(),
        graphql_url: format!("{}/graphql", gh.uri()),
        token: Some(token.to_string()),
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_secs(5),
            ..RetryPolicy::default()
        },
        read_only: false,
    };
    GitHub::new(&config, RepoName::parse(REPO).expect("repo name")).expect("client")
}

pub fn repo(rest: &str) -> String {
    format!("/repos/{REPO}{rest}")
}

pub async fn get_json(api: &GitHub, path: &str) -> Value {
    api.get(path, &repo(path), None)
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"))
        .json(path)
        .expect("JSON")
}

pub fn numbers(list: &Value) -> Vec<u64> {
    list.as_array()
        .expect("a list")
        .iter()
        .filter_map(|p| p["number"].as_u64())
        .collect()
}

/// One request over a plain socket: GitHub's exact status and error body, which the
/// product's client folds into its error types.
pub async fn raw(
    gh: &FakeGitHub,
    method: &str,
    path: &str,
    token: &str,
    body: Value,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = gh.server.address();
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}
