//! Found by an attack review, each reproduced against an earlier version and fixed:
//! links planted in the workspace, dead and dripping APIs, hostile pagination, huge
//! replies and files, oversized comments, echoed tokens, control characters, local paths.

use std::os::unix::fs::symlink;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use council_github::rest::MAX_COMMENT_PAGES;
use council_github::retry::RetryPolicy;
use council_github::{GitHub, GitHubConfig, RepoName};

use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::{Council, REPO, fixture, pr_event};

fn failing_guard(api: &str) -> Council {
    Council::action()
        .api(api)
        .event("pull_request", fixture("pull_request.opened"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_file_is_never_written_through_a_planted_link() {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "runner state").unwrap();
    for planted in ["out", "out/audit", "out/audit/PR-2.json"] {
        let gh = FakeGitHub::start().await;
        gh.policy("master", None).await;
        let council = failing_guard(&gh.uri());
        let link = council.workspace().join(planted);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        let target = if planted.ends_with(".json") {
            victim.clone()
        } else {
            outside.path().to_path_buf()
        };
        symlink(&target, &link).unwrap();
        let run = council.run().await;
        run.assert_code(1);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "runner state");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
        // The verdict and every output stand; the failed write is reported by path.
        assert_eq!(run.output("guard-status"), "FAIL");
        assert_eq!(run.output("audit-path"), "");
        assert!(run.output("context").starts_with("{\"schema_version\":1"));
        let warned = run.annotations().join("\n");
        assert!(
            warned.contains(&format!("::error title=council audit file%3A action%3Awrite-audit::{planted} is a symbolic link")),
            "{warned}"
        );
        // The ledger's comment is written all the same.
        gh.expect_writes(&["POST /issues/2/comments"]);
    }
}

/// A server that accepts connections and then says nothing, or drips a reply one byte
/// at a time: both must end in bounded time.
async fn sluggish(drip: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                if !drip {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    return;
                }
                let head =
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100000\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for _ in 0..100_000 {
                    if socket.write_all(b"x").await.is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread")]
async fn silent_dripping_and_dead_apis_end_the_run_with_exit_3_and_outputs() {
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{addr}")
    };
    // A server that does not answer in time is retried; an address where nothing listens
    // is not (no wait would help), and the message names the variable to check.
    for (api, what, tries) in [
        (
            sluggish(false).await,
            "no complete reply within 0.3 s",
            "gave up after 5 attempts",
        ),
        (
            sluggish(true).await,
            "no complete reply within 0.3 s",
            "gave up after 5 attempts",
        ),
        (
            dead,
            "could not be reached",
            "not retried). Check GITHUB_API_URL",
        ),
    ] {
        let run = failing_guard(&api)
            .env("COUNCIL_REQUEST_TIMEOUT_MS", "300")
            .run()
            .await;
        run.assert_code(3);
        let said = run.annotations().join("\n");
        assert!(said.contains(what), "{api}: {said}");
        assert!(said.contains(tries), "{said}");
        for status in ["guard-status", "review-status", "release-status"] {
            assert_eq!(
                run.output(status),
                "PENDING",
                "outputs are written on exit 3"
            );
        }
    }
}

/// Offline, or with GITHUB_API_URL pointing at nothing, every command used to retry for
/// about 8 s and then blame GitHub; now it stops at the first refused connection and
/// says which variable to check.
#[tokio::test(flavor = "multi_thread")]
async fn an_api_nobody_answers_at_fails_at_once_naming_github_api_url() {
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{addr}")
    };
    let started = std::time::Instant::now();
    let run = Council::cli()
        .args(&["guard", "--pr", "1", "--repo", REPO])
        .env("GH_TOKEN", "ghs_test_token_value")
        .env("GITHUB_API_URL", &dead)
        // The default backoff: five attempts would take 7.5 s or more.
        .env("COUNCIL_RETRY_BASE_MS", "500")
        .run()
        .await;
    let took = started.elapsed();
    run.assert_code(3);
    assert!(
        run.stderr.contains(&format!(
            "error: reading pull request #1: the GitHub API at {dead} could not be reached"
        )),
        "{}",
        run.stderr
    );
    for words in [
        "not retried",
        "Check GITHUB_API_URL",
        "https://api.github.com",
    ] {
        assert!(run.stderr.contains(words), "{words}: {}", run.stderr);
    }
    assert!(!run.stderr.contains("githubstatus"), "not GitHub's fault");
    assert!(took < Duration::from_secs(5), "no backoff: {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_that_failed_for_good_is_not_asked_again() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    // The policy is read; then every GraphQL call hangs: the identity lookup gives up and
    // the rest of the ledger's calls are not made at all.
    gh.fail_next(
        "POST",
        "/graphql",
        100,
        Fault::slow(Duration::from_secs(30)),
    );
    let run = failing_guard(&gh.uri())
        .env("COUNCIL_REQUEST_TIMEOUT_MS", "200")
        .run()
        .await;
    run.assert_code(1);
    let graphql = gh
        .requests()
        .await
        .into_iter()
        .filter(|r| r.ends_with("/graphql"))
        .count();
    assert_eq!(graphql, 5, "one call's bounded attempts, then no more");
    assert!(
        gh.requests().await.iter().all(|r| !r.contains("/user")),
        "{:?}",
        gh.requests().await
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_link_chains_are_not_followed_without_end_or_off_the_host() {
    let elsewhere = MockServer::start().await;
    for (name, next) in [
        (
            "loop",
            "/repos/Codertocat/Hello-World/issues/2/comments?per_page=100".to_string(),
        ),
        ("off host", format!("{}/steal?page=2", elsewhere.uri())),
        (
            "endless",
            "/repos/Codertocat/Hello-World/issues/2/comments?page={n}".to_string(),
        ),
    ] {
        let api = MockServer::start().await;
        let base = api.uri();
        Mock::given(method("GET"))
            .and(path(format!("/repos/{REPO}/issues/2/comments")))
            .respond_with(move |req: &wiremock::Request| {
                let n: u64 = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "page")
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(1);
                let target = next.replace("{n}", &(n + 1).to_string());
                let target = if target.starts_with('/') {
                    format!("{base}{target}")
                } else {
                    target
                };
                ResponseTemplate::new(200)
                    .set_body_json(json!([]))
                    .insert_header("link", format!("<{target}>; rel=\"next\"").as_str())
            })
            .mount(&api)
            .await;
        let gh = client(&api.uri());
        let err = gh.list_comments(2).await.unwrap_err().to_string();
        let pages = api.received_requests().await.unwrap().len();
        let (bound, says) = match name {
            "loop" => (1, "leads back to a page already read"),
            "off host" => (1, "points away from the API's host"),
            _ => (MAX_COMMENT_PAGES, "more than 300 pages"),
        };
        assert_eq!(pages, bound, "{name}");
        assert!(err.contains(says), "{name}: {err}");
    }
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the token never went to another host"
    );
}

/// A timeline is read from its newest end: the first page's `last` relation is followed
/// as well as `next`, so either one pointing at another host is refused, like any `Link`,
/// and the token never goes there.
#[tokio::test(flavor = "multi_thread")]
async fn a_timeline_read_from_its_newest_end_follows_no_link_off_the_host() {
    let elsewhere = MockServer::start().await;
    let steal = |page: u32| format!("{}/steal?page={page}", elsewhere.uri());
    let own = format!("/repos/{REPO}/issues/2/timeline?per_page=100&page=2");
    for (name, links) in [
        (
            "last off host",
            format!("<{own}>; rel=\"next\", <{}>; rel=\"last\"", steal(50)),
        ),
        (
            "next off host",
            format!("<{}>; rel=\"next\", <{}>; rel=\"last\"", steal(2), steal(2)),
        ),
    ] {
        let api = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path(format!("/repos/{REPO}/issues/2/timeline")))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!([]))
                    .insert_header("link", links.as_str()),
            )
            .mount(&api)
            .await;
        let gh = client(&api.uri());
        let err = gh.timeline(2).await.unwrap_err().to_string();
        assert!(
            err.contains("points away from the API's host"),
            "{name}: {err}"
        );
        assert_eq!(api.received_requests().await.unwrap().len(), 1, "{name}");
    }
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the token never went to another host"
    );
}

fn client(api: &str) -> GitHub {
    let config = GitHubConfig {
        api_url: api.to_string(),
        graphql_url: format!("{api}/graphql"),
        token: Some("ghs_test_token_value".to_string()),
        retry: RetryPolicy::default(),
        read_only: false,
    };
    GitHub::new(&config, RepoName::parse(REPO).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_reply_is_refused_at_once_and_an_echoed_token_is_redacted() {
    let gh = FakeGitHub::start().await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/contents/.github/council.yml")))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'a'; 33 << 20]))
        .mount(&gh.server)
        .await;
    let run = failing_guard(&gh.uri()).run().await;
    run.assert_code(3);
    assert_eq!(gh.non_ledger_requests().await.len(), 1, "never retried");
    assert!(run.annotations().join("\n").contains("larger than 32 MiB"));

    let gh = FakeGitHub::start().await;
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/contents/.github/council.yml")))
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({
            "message": "Bad token ghs_test_token_value, also ghp_8fK2mQ7xR4vN9cT1wL6pZ3bH5sJ0dY2gU7aE"
        })))
        .mount(&gh.server)
        .await;
    let run = failing_guard(&gh.uri()).run().await;
    run.assert_code(3);
    assert!(
        run.summary
            .contains("Bad token &#42;&#42;&#42;, also &#42;&#42;&#42;"),
        "{}",
        run.summary
    );
    run.assert_no_secret("ghs_test_token_value");
    run.assert_no_secret("ghp_8fK2mQ7xR4vN9cT1wL6p");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_event_file_is_bad_input_not_a_full_memory() {
    let run = Council::cli()
        .args(&[
            "guard",
            "--event",
            "/dev/zero",
            "--event-name",
            "pull_request",
        ])
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("larger than 32 MiB"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_explanation_is_cut_and_posted_before_the_close() {
    let gh = FakeGitHub::start().await;
    let message = "Only release branches. ".repeat(4_000);
    let policy = format!(
        "branches:\n  rules:\n    - pattern: \"release/*\"\n      targets: [main]\n      message: \"{message}\"\n"
    );
    gh.policy("develop", Some(&policy)).await;
    gh.accept_close(2, 200).await;
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", pr_event("opened", "release/x", "develop"))
        .run()
        .await;
    run.assert_code(1);
    let posted = gh.posted().await;
    let explanation = posted
        .iter()
        .find(|b| b.starts_with("<!-- agent-council:close-on-fail"))
        .expect("the explanation was posted");
    assert!(explanation.chars().count() <= 65_536);
    assert!(explanation.contains("cut to fit"), "says it was cut");
    assert_eq!(gh.bodies("PATCH").await, vec![json!({"state": "closed"})]);
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn control_characters_never_reach_a_workflow_command_raw() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let run = failing_guard(&gh.uri())
        .event(
            "pull_request",
            pr_event("opened", "evil\u{1b}[2J\u{85}::error::x", "master"),
        )
        .run()
        .await;
    run.assert_code(1);
    for line in run.stdout.lines() {
        assert!(
            !line.chars().any(|c| c.is_control() && c != '\t'),
            "{line:?}"
        );
    }
    let errors: Vec<_> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::error"))
        .collect();
    assert_eq!(
        errors.len(),
        2,
        "one per failed gate, none injected: {errors:?}"
    );
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_local_absolute_path_reaches_messages_or_the_audit_file() {
    let outside = tempfile::tempdir().unwrap();
    let policy = outside.path().join("strict.yml");
    std::fs::write(
        &policy,
        "branches:\n  rules:\n    - pattern: \"release/*\"\n      targets: [main]\n",
    )
    .unwrap();
    let council = Council::cli().args(&[
        "guard",
        "--dry-run",
        "--policy",
        policy.to_str().unwrap(),
        "--event",
        crate::support::data("events/pull_request.opened.json")
            .to_str()
            .unwrap(),
        "--event-name",
        "pull_request",
    ]);
    let workspace = council.workspace().to_path_buf();
    let run = council.run().await;
    run.assert_code(1);
    let audit = std::fs::read_to_string(workspace.join("out/audit/PR-2.json")).unwrap();
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("audit", &audit),
    ] {
        assert!(
            !text.contains(outside.path().to_str().unwrap()),
            "{what} names a local path: {text}"
        );
    }
    assert!(run.stdout.contains("strict.yml"), "{}", run.stdout);
}
