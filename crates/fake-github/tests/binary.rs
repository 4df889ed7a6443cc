//! `fake-github` as users start it: the line it prints, the world it serves, a write seen
//! by the next read, and the errors of a bad world file or a busy port.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn example_world() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fake-world/world.yml")
}

/// A running `fake-github`, killed when dropped.
struct Fake {
    child: Child,
    /// `NAME=value` pairs of the line it printed.
    env: Vec<(String, String)>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Fake {
    fn start(args: &[&str]) -> Fake {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fake-github"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let exports = line
            .trim_end()
            .strip_prefix("export ")
            .unwrap_or_else(|| panic!("an export line: {line:?}"));
        let env = exports
            .split(' ')
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap();
                (name.to_string(), value.to_string())
            })
            .collect();
        Fake { child, env }
    }

    fn var(&self, name: &str) -> &str {
        self.env
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.env))
    }

    /// One HTTP/1.1 request with the workflow token: the status and the JSON body.
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        self.request_as(self.var("GH_TOKEN"), method, path, body)
    }

    /// [`Fake::request`] with another token.
    fn request_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: &str,
    ) -> (u16, serde_json::Value) {
        let address = self.var("GITHUB_API_URL").trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, serde_json::from_str(body).unwrap_or_default())
    }
}

#[test]
fn it_prints_the_environment_and_serves_the_world_with_its_writes() {
    let world = example_world();
    let fake = Fake::start(&["--world", world.to_str().unwrap()]);
    assert!(fake.var("GITHUB_API_URL").starts_with("http://127.0.0.1:"));
    assert_eq!(fake.var("GITHUB_REPOSITORY"), "octo-org/hello-council");
    assert_eq!(fake.var("GH_TOKEN"), "ghs_fake_workflow_token");
    assert_eq!(fake.var("COUNCIL_RELEASE_TOKEN"), "ghs_fake_release_token");

    let (status, pull) = fake.request("GET", "/repos/octo-org/hello-council/pulls/1", "");
    assert_eq!(status, 200);
    assert_eq!(
        pull["head"]["ref"],
        "feature/demo/PBI-1-offline-walkthrough"
    );
    assert_eq!(
        pull["url"],
        format!(
            "{}/repos/octo-org/hello-council/pulls/1",
            fake.var("GITHUB_API_URL")
        ),
        "URLs in bodies name the address it listens on"
    );

    let comments = "/repos/octo-org/hello-council/issues/3/comments";
    let (status, _) = fake.request("POST", comments, r#"{"body": "hello"}"#);
    assert_eq!(status, 201);
    let (_, listed) = fake.request("GET", comments, "");
    assert_eq!(
        listed[0]["body"], "hello",
        "a write is seen by the next read"
    );
    assert_eq!(listed[0]["user"]["login"], "github-actions[bot]");

    let (status, _) = fake.request("GET", "/repos/someone/else/pulls/1", "");
    assert_eq!(status, 404, "one repository only");
}

#[test]
fn a_fixed_port_is_used() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let world = example_world();
    let fake = Fake::start(&[
        "--world",
        world.to_str().unwrap(),
        "--port",
        &port.to_string(),
    ]);
    assert_eq!(
        fake.var("GITHUB_API_URL"),
        format!("http://127.0.0.1:{port}")
    );
}

fn fails(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fake-github"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "nothing to export");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bad_world_file_is_named_with_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("world.yml");
    std::fs::write(
        &file,
        "repository: o/r\ntokens:\n  - {token: t, login: bot, role: admin}\n",
    )
    .unwrap();
    let (code, stderr) = fails(&["--world", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!("{}: tokens[0].role: line 3", file.display())),
        "{stderr}"
    );
    assert!(stderr.contains("read-only, workflow, release"), "{stderr}");

    let (code, stderr) = fails(&["--world", "no/such/world.yml"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no/such/world.yml: cannot read it"),
        "{stderr}"
    );
}

#[test]
fn a_busy_port_says_so() {
    let busy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let world = example_world();
    let (code, stderr) = fails(&["--world", world.to_str().unwrap(), "--port", &port]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
}

#[test]
fn a_generated_world_is_served_by_update_and_its_requests_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("world.yml");
    std::fs::write(
        &file,
        "repository: o/r\ntokens:\n  - {token: t, login: \"github-actions[bot]\", role: workflow}\n\
         generate: {pulls: 250, registry_issue: 3}\n",
    )
    .unwrap();
    let fake = Fake::start(&["--world", file.to_str().unwrap()]);
    let list = "/repos/o/r/pulls?state=all&sort=updated&direction=desc&per_page=100";
    let mut seen = Vec::new();
    for page in 1..=3 {
        let (status, pulls) = fake.request("GET", &format!("{list}&page={page}"), "");
        assert_eq!(status, 200);
        seen.extend(pulls.as_array().unwrap().iter().map(|p| {
            (
                p["updated_at"].as_str().unwrap().to_string(),
                p["number"].as_u64().unwrap(),
            )
        }));
    }
    assert_eq!(seen.len(), 250);
    assert!(seen.windows(2).all(|w| w[0] >= w[1]), "newest update first");
    let newest = seen[0].1;
    let (_, comments) = fake.request("GET", &format!("/repos/o/r/issues/{newest}/comments"), "");
    assert_eq!(comments[0]["user"]["login"], "github-actions[bot]");
    assert!(
        comments[0]["body"]
            .as_str()
            .unwrap()
            .starts_with("<!-- agent-council:ledger:v1 -->")
    );

    let (status, counts) = fake.request("GET", "/_fake/requests", "");
    assert_eq!(status, 200);
    assert_eq!(counts["total"], 4);
    assert_eq!(counts["by_route"]["GET /repos/{owner}/{repo}/pulls"], 3);
    assert_eq!(
        counts["by_route"]["GET /repos/{owner}/{repo}/issues/{n}/comments"],
        1
    );
    let (_, cleared) = fake.request("DELETE", "/_fake/requests", "");
    assert_eq!(cleared, counts, "DELETE answers the counts it clears");
    let (_, counts) = fake.request("GET", "/_fake/requests", "");
    assert_eq!(counts["total"], 0, "counting starts again");
}

#[test]
fn the_queue_world_tests_a_queue_commit_when_its_clock_moves() {
    let world = example_world().with_file_name("queue.yml");
    let fake = Fake::start(&["--world", world.to_str().unwrap()]);
    let release = fake.var("COUNCIL_RELEASE_TOKEN").to_string();
    let repo = "/repos/octo-org/hello-council";
    let (status, develop) = fake.request("GET", &format!("{repo}/git/ref/heads/develop"), "");
    assert_eq!(status, 200);
    let base = develop["object"]["sha"].as_str().unwrap().to_string();
    let (status, _) = fake.request_as(
        &release,
        "POST",
        &format!("{repo}/git/refs"),
        &format!(r#"{{"ref": "refs/heads/council/queue/develop", "sha": "{base}"}}"#),
    );
    assert_eq!(status, 201);
    for head in ["feature/net/PBI-1-retry-limit", "feature/net/PBI-2-backoff"] {
        let body = format!(r#"{{"base": "council/queue/develop", "head": "{head}"}}"#);
        let (status, merged) = fake.request_as(&release, "POST", &format!("{repo}/merges"), &body);
        assert_eq!(status, 201, "{merged}");
    }
    let (_, clock) = fake.request("GET", "/_fake/clock", "");
    assert_eq!(
        (clock["ci_runs"].clone(), clock["pending"].clone()),
        (3.into(), 3.into())
    );
    let (status, clock) = fake.request("POST", "/_fake/clock?minutes=5", "");
    assert_eq!((status, clock["completed"].clone()), (200, 3.into()));
    let (_, runs) = fake.request(
        "GET",
        &format!("{repo}/commits/council%2Fqueue%2Fdevelop/check-runs"),
        "",
    );
    assert_eq!(
        runs["check_runs"][0]["conclusion"], "failure",
        "both markers"
    );
    assert_eq!(fake.request("POST", "/_fake/clock?minutes=soon", "").0, 400);

    let (_, queue) = fake.request(
        "GET",
        &format!("{repo}/git/ref/heads/council/queue/develop"),
        "",
    );
    let tested = queue["object"]["sha"].as_str().unwrap();
    let update = format!(r#"{{"sha": "{tested}", "force": false}}"#);
    let (status, _) = fake.request("PATCH", &format!("{repo}/git/refs/heads/develop"), &update);
    assert_eq!(status, 403, "the workflow token may not write contents");
    let (status, _) = fake.request_as(
        &release,
        "PATCH",
        &format!("{repo}/git/refs/heads/develop"),
        &update,
    );
    assert_eq!(status, 200, "the release token is on develop's bypass list");
    let (_, pull) = fake.request("GET", &format!("{repo}/pulls/2"), "");
    assert_eq!(pull["merged"], true);
    assert_eq!(pull["merged_by"]["login"], "council-release[bot]");
}
