//! The fault drill suite (issue 13, item 10): the real binary against the fake world
//! while GitHub misbehaves: 5xx bursts, the primary (429) and secondary (403) rate
//! limits with `Retry-After`, connection resets, slow and dripping replies, the ledger
//! comment deleted between its read and its write, and a 422 for a comment body GitHub
//! finds too long. Each drill checks the verdict, the exit code, the audit file (it
//! verifies, and holds the decisions) and the stored comment (it holds the same chain),
//! and prints one line with the attempts the run made and its total time:
//!
//!     cargo test --test integration faults:: -- --nocapture --test-threads 1

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use council_protocol::audit::stored::{MARKER, Stored, parse};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::world::PrFile;
use crate::support::{Council, Run, fixture, timeline};

const HEAD: &str = "feature/devops/PBI-001-login";
const SHA: &str = "1111111111111111111111111111111111111111";

/// The failing guard: the webhook example's head `changes` → `master` breaks the
/// default policy (both branch gates FAIL, exit 1). PR 2.
fn failing_guard(api: &str) -> Council {
    Council::action()
        .api(api)
        .event("pull_request", fixture("pull_request.opened"))
}

/// A passing guard and review: PR 7 from a well-named branch to `develop`, one code
/// file changed (guard PASS, review APPROVED, exit 0).
fn approving_world(gh: &FakeGitHub) {
    gh.file(
        "develop",
        ".github/council.yml",
        "review:\n  secret_scan: true\n",
    );
    let _ = gh
        .pr(7)
        .head(HEAD, SHA)
        .base("develop")
        .file(PrFile::modified("src/lib.rs", &["a"], &["b"]));
}

fn approving_review(gh: &FakeGitHub, api: &str) -> Council {
    Council::action()
        .api(api)
        .event("pull_request", gh.pr_event("opened", 7))
}

/// What one drill measured.
struct Drill {
    name: &'static str,
    run: Run,
    elapsed: Duration,
    /// Requests the world answered (faults included).
    answered: usize,
    /// Connections the drill's proxy broke before the world saw the request.
    broken: usize,
}

impl Drill {
    async fn go(name: &'static str, gh: &FakeGitHub, council: Council, broken: &Counter) -> Drill {
        let before = gh.calls().len();
        let started = Instant::now();
        let run = council.run().await;
        let elapsed = started.elapsed();
        Drill {
            name,
            run,
            elapsed,
            answered: gh.calls().len() - before,
            broken: broken.get(),
        }
    }

    fn attempts(&self) -> usize {
        self.answered + self.broken
    }

    /// The line `--nocapture` shows, and what the report of the suite quotes.
    fn report(&self, verdict: &str) {
        println!(
            "fault drill {:<44} verdict {:<28} exit {}  attempts {:>3}  time {:>6.2} s",
            self.name,
            verdict,
            self.run.code,
            self.attempts(),
            self.elapsed.as_secs_f64()
        );
    }
}

#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);

impl Counter {
    fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// The status outputs, e.g. `guard FAIL, review PENDING`.
fn verdict(run: &Run) -> String {
    format!(
        "guard {}, review {}",
        run.output("guard-status"),
        run.output("review-status")
    )
}

/// The one ledger comment's stored object, when there is one.
fn stored(gh: &FakeGitHub) -> Option<Stored> {
    let bodies: Vec<String> = gh
        .comment_bodies()
        .into_iter()
        .filter(|b| b.starts_with(MARKER))
        .collect();
    assert!(bodies.len() <= 1, "one ledger comment at most: {bodies:#?}");
    bodies
        .first()
        .map(|b| parse(b).expect("the comment parses"))
}

/// `council verify` on the run's audit file.
fn verifies(run: &Run, pr: u64) -> bool {
    let file = run.workspace.path().join(format!("out/audit/PR-{pr}.json"));
    Council::cli()
        .args(&["verify", file.to_str().unwrap()])
        .run_blocking()
        .code
        == 0
}

fn actions(audit: &Value) -> Vec<String> {
    timeline(audit, &["action", "result"])
}

/// The audit file verifies, holds `want` (action and result, in order), and the stored
/// comment holds the same chain.
fn check_ledger(gh: &FakeGitHub, run: &Run, pr: u64, want: &[&str]) {
    let audit = run.audit(pr);
    assert_eq!(actions(&audit), want, "audit file of PR {pr}");
    assert!(verifies(run, pr), "the audit file verifies");
    let stored = stored(gh).expect("the ledger comment is stored");
    let hashes: Vec<&str> = stored
        .context
        .timeline
        .iter()
        .map(|e| e.hash.as_str())
        .collect();
    let file: Vec<&str> = audit["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["hash"].as_str().unwrap())
        .collect();
    assert_eq!(hashes, file, "the comment holds the audit file's chain");
}

const GUARD_FAIL: [&str; 2] = ["check:branch-name FAIL", "check:target-branch FAIL"];
/// Guard and review passed, and the approve label was added.
const APPROVED: [&str; 6] = [
    "check:branch-name PASS",
    "check:target-branch PASS",
    "check:actor PASS",
    "check:secret-scan PASS",
    "check:assistant-context PASS",
    "action:label DONE",
];

// ------------------------------------------------------------------------- drills

#[tokio::test(flavor = "multi_thread")]
async fn drill_5xx_burst_within_the_retries_decides_as_if_nothing_happened() {
    let gh = FakeGitHub::start().await;
    approving_world(&gh);
    gh.fail_next(
        "GET",
        "/contents/.github/council.yml",
        2,
        Fault::bad_gateway(),
    );
    gh.fail_next(
        "GET",
        "/compare/",
        3,
        Fault::status(503, "Service Unavailable"),
    );
    gh.fail_next(
        "POST",
        "/issues/7/comments",
        2,
        Fault::status(500, "Server Error"),
    );
    let drill = Drill::go(
        "5xx burst (7 replies, retried)",
        &gh,
        approving_review(&gh, &gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(0);
    assert_eq!(verdict(&drill.run), "guard PASS, review APPROVED");
    check_ledger(&gh, &drill.run, 7, &APPROVED);
    assert_eq!(gh.pr_state(7).labels, ["bot-approved"]);
    let failed = gh.calls().iter().filter(|c| c.status >= 500).count();
    assert_eq!(failed, 7, "every fault was met once");
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&[
        "POST /issues/7/labels",
        "POST /issues/7/comments",
        "POST /issues/7/comments",
        "POST /issues/7/comments",
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_5xx_burst_past_the_retries_is_exit_3_with_outputs_and_no_verdict() {
    let gh = FakeGitHub::start().await;
    gh.fail_next(
        "GET",
        "/contents/.github/council.yml",
        50,
        Fault::bad_gateway(),
    );
    let drill = Drill::go(
        "5xx burst (policy read never answers)",
        &gh,
        failing_guard(&gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(3);
    assert_eq!(verdict(&drill.run), "guard PENDING, review PENDING");
    assert_eq!(drill.answered, 5, "one read's five attempts, nothing after");
    let said = drill.run.annotations().join("\n");
    assert!(said.contains("gave up after 5 attempts"), "{said}");
    // No verdict: nothing is recorded and nothing is posted.
    assert!(stored(&gh).is_none());
    assert!(gh.take_writes().is_empty());
    drill.report(&verdict(&drill.run));
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_primary_rate_limit_429_waits_for_retry_after() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.fail_next(
        "GET",
        "/contents/.github/council.yml",
        1,
        Fault::rate_limited(1),
    );
    gh.fail_next("GET", "/issues/2/comments", 1, Fault::rate_limited(1));
    let drill = Drill::go(
        "429 + Retry-After 1 s (twice)",
        &gh,
        failing_guard(&gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    check_ledger(&gh, &drill.run, 2, &GUARD_FAIL);
    assert!(
        drill.elapsed >= Duration::from_secs(2),
        "each Retry-After was honoured"
    );
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_secondary_rate_limit_403_waits_and_is_not_a_missing_permission() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.fail_next(
        "POST",
        "/issues/2/comments",
        1,
        Fault::secondary_rate_limit(1),
    );
    let drill = Drill::go(
        "secondary rate limit 403 + Retry-After 1 s",
        &gh,
        failing_guard(&gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    check_ledger(&gh, &drill.run, 2, &GUARD_FAIL);
    assert!(drill.elapsed >= Duration::from_secs(1));
    assert!(
        !drill.run.annotations().join("\n").contains("read-only"),
        "not taken for a read-only token"
    );
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_connection_resets_are_retried() {
    let gh = FakeGitHub::start().await;
    approving_world(&gh);
    let proxy = Proxy::start(&gh.uri(), vec![Mode::Reset, Mode::Reset]).await;
    gh.edit(|w| w.api = proxy.uri.clone());
    let drill = Drill::go(
        "connection resets (first 2 connections)",
        &gh,
        approving_review(&gh, &proxy.uri),
        &proxy.broken,
    )
    .await;
    drill.run.assert_code(0);
    assert_eq!(verdict(&drill.run), "guard PASS, review APPROVED");
    check_ledger(&gh, &drill.run, 7, &APPROVED);
    assert_eq!(drill.broken, 2, "every planned reset happened");
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_slow_replies_within_and_beyond_the_request_timeout() {
    // Within the timeout: only late.
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.fail_next(
        "GET",
        "/contents/.github/council.yml",
        1,
        Fault::slow(Duration::from_millis(400)),
    );
    gh.fail_next(
        "GET",
        "/issues/2/comments",
        1,
        Fault::slow(Duration::from_millis(400)),
    );
    let council = failing_guard(&gh.uri()).env("COUNCIL_REQUEST_TIMEOUT_MS", "2000");
    let drill = Drill::go(
        "slow replies (0.4 s, timeout 2 s)",
        &gh,
        council,
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    check_ledger(&gh, &drill.run, 2, &GUARD_FAIL);
    assert!(drill.elapsed >= Duration::from_millis(800));
    drill.report(&verdict(&drill.run));

    // Beyond it: the late attempts are abandoned and retried.
    gh.expect_writes(&["POST /issues/2/comments"]);

    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.fail_next(
        "GET",
        "/contents/.github/council.yml",
        2,
        Fault::slow(Duration::from_secs(5)),
    );
    let council = failing_guard(&gh.uri()).env("COUNCIL_REQUEST_TIMEOUT_MS", "300");
    let drill = Drill::go(
        "slow replies (5 s, timeout 0.3 s)",
        &gh,
        council,
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    check_ledger(&gh, &drill.run, 2, &GUARD_FAIL);
    assert!(
        drill.elapsed < Duration::from_secs(5),
        "never waited for a slow reply"
    );
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_a_dripping_reply_is_cut_at_the_request_timeout_and_retried() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let proxy = Proxy::start(
        &gh.uri(),
        vec![
            Mode::Drip(Duration::from_millis(40)),
            Mode::Drip(Duration::from_millis(40)),
        ],
    )
    .await;
    gh.edit(|w| w.api = proxy.uri.clone());
    let council = failing_guard(&proxy.uri).env("COUNCIL_REQUEST_TIMEOUT_MS", "500");
    let drill = Drill::go(
        "dripping replies (1 byte / 40 ms)",
        &gh,
        council,
        &proxy.broken,
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    check_ledger(&gh, &drill.run, 2, &GUARD_FAIL);
    assert_eq!(drill.broken, 2, "both dripping replies were abandoned");
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_the_comment_deleted_between_read_and_write_keeps_the_chain() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    failing_guard(&gh.uri())
        .env("GITHUB_RUN_ID", "1")
        .run()
        .await
        .assert_code(1);
    let first = stored(&gh).expect("run 1 stored the ledger");
    let id = gh.edit(|w| w.comments[0]["id"].as_u64().unwrap());
    gh.delete_comment_after_read(id);
    let council = failing_guard(&gh.uri()).env("GITHUB_RUN_ID", "2");
    let drill = Drill::go(
        "comment deleted between read and write",
        &gh,
        council,
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    let want = [GUARD_FAIL, GUARD_FAIL].concat();
    check_ledger(&gh, &drill.run, 2, &want);
    let now = stored(&gh).unwrap();
    assert_eq!(
        now.context.timeline[..2],
        first.context.timeline[..],
        "run 1's entries are kept, not restarted"
    );
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&[
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
        "POST /issues/2/comments",
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn drill_a_422_for_a_body_too_long_keeps_the_verdict_and_the_audit_file() {
    let too_long = json!({
        "message": "Validation Failed",
        "errors": [{"resource": "IssueComment", "code": "custom", "field": "body",
                    "message": "body is too long (maximum is 65536 characters)"}],
        "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
        "status": "422"
    });
    // A failed gate: the verdict decides the code (1).
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.fail_next(
        "POST",
        "/issues/2/comments",
        10,
        Fault::json(422, too_long.clone()),
    );
    let drill = Drill::go(
        "422 body too long (guard FAIL)",
        &gh,
        failing_guard(&gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(1);
    assert_eq!(verdict(&drill.run), "guard FAIL, review PENDING");
    assert_eq!(actions(&drill.run.audit(2)), GUARD_FAIL);
    assert!(verifies(&drill.run, 2));
    assert!(stored(&gh).is_none(), "nothing was stored");
    let posts = gh
        .calls()
        .iter()
        .filter(|c| c.method == "POST" && c.path.contains("/comments"))
        .count();
    assert_eq!(posts, 1, "a 422 is not retried");
    assert!(
        drill
            .run
            .annotations()
            .join("\n")
            .contains("body is too long"),
        "{}",
        drill.run.stdout
    );
    drill.report(&verdict(&drill.run));

    // Every gate passed: the failed effect makes it 3, the verdict's outputs stand.
    gh.expect_writes(&["POST /issues/2/comments"]);

    let gh = FakeGitHub::start().await;
    approving_world(&gh);
    gh.fail_next("POST", "/issues/7/comments", 10, Fault::json(422, too_long));
    let drill = Drill::go(
        "422 body too long (review APPROVED)",
        &gh,
        approving_review(&gh, &gh.uri()),
        &Counter::default(),
    )
    .await;
    drill.run.assert_code(3);
    assert_eq!(verdict(&drill.run), "guard PASS, review APPROVED");
    assert!(verifies(&drill.run, 7));
    assert!(stored(&gh).is_none());
    drill.report(&verdict(&drill.run));
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}

// ------------------------------------------------------------------ the proxy

/// What the proxy does with one connection, in the order connections arrive; past the
/// plan, it passes every connection through.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Reads the request, then resets the connection (RST, no reply).
    Reset,
    /// Forwards the request, then sends the reply one byte per interval.
    Drip(Duration),
    Pass,
}

/// A TCP proxy in front of the fake world for faults below HTTP.
struct Proxy {
    uri: String,
    /// Connections reset or dripped.
    broken: Counter,
}

impl Proxy {
    async fn start(upstream: &str, plan: Vec<Mode>) -> Proxy {
        let upstream = upstream.trim_start_matches("http://").to_string();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let uri = format!("http://{}", listener.local_addr().unwrap());
        let broken = Counter::default();
        let count = broken.clone();
        tokio::spawn(async move {
            let mut plan = plan.into_iter();
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let mode = plan.next().unwrap_or(Mode::Pass);
                let upstream = upstream.clone();
                let count = count.clone();
                tokio::spawn(async move { serve(client, &upstream, mode, count).await });
            }
        });
        Proxy { uri, broken }
    }
}

async fn serve(mut client: TcpStream, upstream: &str, mode: Mode, broken: Counter) {
    match mode {
        Mode::Pass => {
            let Ok(mut server) = TcpStream::connect(upstream).await else {
                return;
            };
            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        }
        Mode::Reset => {
            let mut buf = [0u8; 8192];
            let _ = client.read(&mut buf).await;
            broken.0.fetch_add(1, Ordering::SeqCst);
            // SO_LINGER 0: closing sends RST instead of FIN.
            let _ = client.set_zero_linger();
            drop(client);
        }
        Mode::Drip(every) => {
            let Ok(mut server) = TcpStream::connect(upstream).await else {
                return;
            };
            let mut buf = vec![0u8; 65536];
            let Ok(n) = client.read(&mut buf).await else {
                return;
            };
            if server.write_all(&buf[..n]).await.is_err() {
                return;
            }
            broken.0.fetch_add(1, Ordering::SeqCst);
            let mut reply = Vec::new();
            let mut chunk = [0u8; 8192];
            // One reply (the world answers with a Content-Length and keeps the line
            // open): read what comes within a moment.
            while let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(200), server.read(&mut chunk)).await
            {
                if n == 0 {
                    break;
                }
                reply.extend_from_slice(&chunk[..n]);
            }
            for byte in reply {
                if client.write_all(&[byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(every).await;
            }
        }
    }
}
