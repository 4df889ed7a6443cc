//! The ledger end to end: one comment per PR, merged across runs (even concurrent
//! ones), duplicates folded in, forgeries ignored, the artifact uploaded.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::artifacts::{self, Artifact};
use crate::support::fake_github::FakeGitHub;
use crate::support::{Council, fixture, pr_event};

/// The head SHA of the bundled `pull_request` payloads.
const FIXTURE_HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

const LEDGER: &str = "<!-- agent-council:ledger:v1 -->";

fn ledgers(gh: &FakeGitHub) -> Vec<Value> {
    gh.comment_bodies()
        .iter()
        .filter(|b| b.starts_with(LEDGER))
        .map(|b| {
            let start = b.find("ledger:data\n").unwrap() + "ledger:data\n".len();
            let end = b.rfind("\n-->").unwrap();
            serde_json::from_str(&b[start..end]).unwrap()
        })
        .collect()
}

fn run_guard(gh: &FakeGitHub, run_id: &str) -> Council {
    Council::action()
        .api(&gh.uri())
        .env("GITHUB_RUN_ID", run_id)
        .event("pull_request", fixture("pull_request.opened"))
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_runs_lose_and_duplicate_nothing() {
    const RUNS: usize = 20;
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("how often the racing runs rewrite the comment depends on their interleaving; what the comment ends up holding is checked");
    gh.policy("master", None).await;
    let runs: Vec<_> = (0..RUNS)
        .map(|i| {
            run_guard(&gh, &format!("{}", 7000 + i))
                .input("hmac-key", "ledger-key")
                // The read-back pauses are multiples of the retry base: this race needs
                // them as long as in production (500 ms), not the tests' 1 ms.
                .env("COUNCIL_RETRY_BASE_MS", "500")
        })
        .map(|council| tokio::task::spawn_blocking(move || council.run_blocking()))
        .collect();
    for handle in runs {
        let run = handle.await.unwrap();
        run.assert_code(1);
        assert!(
            !run.stdout.contains("::warning"),
            "no run gave up: {}",
            run.stdout
        );
    }
    let stored = ledgers(&gh);
    assert_eq!(stored.len(), 1, "one Context Object comment");
    let timeline = stored[0]["context"]["timeline"].as_array().unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for entry in timeline {
        *seen
            .entry(entry["id"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for i in 0..RUNS {
        for check in ["check:branch-name", "check:target-branch"] {
            let id = format!("{}/1/council/guard/{check}", 7000 + i);
            assert_eq!(seen.get(&id), Some(&1), "{id} present exactly once");
        }
    }
    assert_eq!(timeline.len(), RUNS * 2, "nothing else, nothing twice");
    // The stored chain verifies with the key.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ledger.json");
    // The comment keeps the chain head beside the object; an audit file carries it inside.
    let mut audit = stored[0]["context"].clone();
    audit["chain_head"] = stored[0]["head"].clone();
    std::fs::write(&file, serde_json::to_string(&audit).unwrap()).unwrap();
    Council::cli()
        .args(&["verify", file.to_str().unwrap(), "--hmac-key", "ledger-key"])
        .run()
        .await
        .assert_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn later_runs_append_to_the_one_comment_and_the_audit_file_holds_all() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    run_guard(&gh, "1").run().await.assert_code(1);
    let second = run_guard(&gh, "2").run().await;
    second.assert_code(1);
    assert_eq!(ledgers(&gh).len(), 1);
    let audit = second.audit(2);
    let ids: Vec<&str> = audit["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "1/1/council/guard/check:branch-name",
            "1/1/council/guard/check:target-branch",
            "2/1/council/guard/check:branch-name",
            "2/1/council/guard/check:target-branch"
        ]
    );
    assert_eq!(
        second.output("context"),
        serde_json::to_string(&audit).unwrap()
    );
    // A re-run is a new attempt: new entries.
    let rerun = run_guard(&gh, "2")
        .env("GITHUB_RUN_ATTEMPT", "2")
        .run()
        .await;
    assert_eq!(rerun.audit(2)["timeline"].as_array().unwrap().len(), 6);
    gh.expect_writes(&[
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
        "PATCH /issues/comments/5001",
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn duplicate_comments_are_folded_into_the_oldest_and_deleted() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    run_guard(&gh, "1").run().await.assert_code(1);
    let first = gh.comment_bodies()[0].clone();
    // Another run created a second ledger comment (a race, or a past bug).
    let other = FakeGitHub::start().await;
    other.policy("master", None).await;
    run_guard(&other, "2").run().await.assert_code(1);
    gh.seed(2, "github-actions[bot]", &other.comment_bodies()[0]);
    assert_eq!(ledgers(&gh).len(), 2);
    run_guard(&gh, "3").run().await.assert_code(1);
    let stored = ledgers(&gh);
    assert_eq!(stored.len(), 1, "the newer duplicate is gone");
    assert!(gh.comment_bodies()[0].starts_with(LEDGER));
    assert_ne!(
        gh.comment_bodies()[0],
        first,
        "the oldest was kept and extended"
    );
    let runs: Vec<&str> = stored[0]["context"]["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs, ["1", "1", "2", "2", "3", "3"]);
    // The oldest is edited, the newer duplicate deleted.
    gh.expect_writes(&[
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
        "DELETE /issues/comments/5002",
    ]);
    other.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_ledger_comment_from_someone_else_is_ignored() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let forged = format!(
        "{LEDGER}\n<!-- agent-council:ledger:data\n{}\n-->",
        json!({"context": {"forged": true}})
    );
    gh.seed(2, "mallory", &forged);
    run_guard(&gh, "1").run().await.assert_code(1);
    let bodies = gh.comment_bodies();
    assert_eq!(bodies.len(), 2, "ours was created beside the forgery");
    assert_eq!(bodies[0], forged, "the forgery is untouched");
    assert_eq!(ledgers(&gh).len(), 2);
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_ledger_comment_is_reported() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    run_guard(&gh, "1").run().await.assert_code(1);
    {
        let mut world = gh.world.lock().unwrap();
        let body = world.comments[0]["body"].as_str().unwrap().to_string();
        world.comments[0]["body"] = body
            .replacen("\"result\":\"FAIL\"", "\"result\":\"PASS\"", 1)
            .into();
    }
    let run = run_guard(&gh, "2").run().await;
    run.assert_code(1);
    assert!(
        run.stdout.contains("::warning title=council ledger::")
            && run.stdout.contains("fails verification"),
        "{}",
        run.stdout
    );
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

/// A minimal Results service and blob store that accept one upload.
async fn results_service(finalize_status: u16) -> MockServer {
    let server = MockServer::start().await;
    let twirp = "/twirp/github.actions.results.api.v1.ArtifactService/";
    let blob = format!("{}/blob/audit.zip?sv=x&sig=abc%3D", server.uri());
    Mock::given(method("POST"))
        .and(path(format!("{twirp}CreateArtifact")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"ok": true, "signed_upload_url": blob})),
        )
        .mount(&server)
        .await;
    Mock::given(method("PUT"))
        .and(path_regex("^/blob/"))
        .respond_with(ResponseTemplate::new(201))
        .mount(&server)
        .await;
    let finalize = if finalize_status == 200 {
        ResponseTemplate::new(200).set_body_json(json!({"ok": true, "artifact_id": "4242"}))
    } else {
        ResponseTemplate::new(finalize_status)
            .set_body_json(json!({"code": "internal", "msg": "boom"}))
    };
    Mock::given(method("POST"))
        .and(path(format!("{twirp}FinalizeArtifact")))
        .respond_with(finalize)
        .mount(&server)
        .await;
    server
}

fn runtime_token() -> String {
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!(
        "{}.{}.sig",
        b64(&json!({"alg": "HS256"})),
        b64(&json!({"scp": "Actions.Results:run-backend:job-backend"}))
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_file_is_uploaded_as_an_artifact() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    // The head the bundled payload names, so that review reads its diff by that SHA.
    gh.pr(2).head("feature/devops/PBI-001-login", FIXTURE_HEAD);
    let results = results_service(200).await;
    let run = Council::action()
        .api(&gh.uri())
        .env("ACTIONS_RUNTIME_TOKEN", &runtime_token())
        .env("ACTIONS_RESULTS_URL", &results.uri())
        .event(
            "pull_request",
            pr_event("opened", "feature/devops/PBI-001-login", "develop"),
        )
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("artifact-id"), "4242");
    run.assert_no_secret(&runtime_token());
    assert!(run.summary.contains("audit-PR-2"), "{}", run.summary);
    gh.expect_writes(&["POST /issues/2/labels", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_upload_is_exit_3_when_the_gates_passed_and_1_when_they_failed() {
    for (event, want) in [
        (
            pr_event("opened", "feature/devops/PBI-001-login", "develop"),
            3,
        ),
        (pr_event("opened", "changes", "develop"), 1),
    ] {
        let gh = FakeGitHub::start().await;
        gh.policy("develop", None).await;
        gh.pr(2).head("feature/devops/PBI-001-login", FIXTURE_HEAD);
        let results = results_service(500).await;
        let run = Council::action()
            .api(&gh.uri())
            .env("ACTIONS_RUNTIME_TOKEN", &runtime_token())
            .env("ACTIONS_RESULTS_URL", &results.uri())
            .event("pull_request", event)
            .run()
            .await;
        run.assert_code(want);
        assert_eq!(run.output("artifact-id"), "");
        assert!(
            run.workspace.path().join("out/audit/PR-2.json").exists(),
            "the file stays on disk"
        );
        assert!(run.summary.contains("stays on disk"), "{}", run.summary);
        // The passing guard leads to an approving review, whose label comes first.
        match want {
            3 => gh.expect_writes(&["POST /issues/2/labels", "POST /issues/2/comments"]),
            _ => gh.expect_writes(&["POST /issues/2/comments"]),
        }
    }
}

/// The ledger's API cost per run, by case (the policy read is the guard's own).
#[tokio::test(flavor = "multi_thread")]
async fn api_calls_per_run_by_case() {
    async fn ledger_calls(gh: &FakeGitHub) -> Vec<String> {
        let all = gh.requests().await;
        gh.server.reset().await;
        all.into_iter()
            .filter(|r| !r.contains("/contents/"))
            .collect()
    }
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    // 1. The first run finds no comment, so it looks for a previous audit artifact (a
    //    deleted comment must not restart the chain silently), then creates the comment.
    run_guard(&gh, "1").run().await.assert_code(1);
    assert_eq!(
        ledger_calls(&gh).await,
        [
            "POST /graphql",
            "GET /repos/Codertocat/Hello-World/issues/2/comments",
            "GET /repos/Codertocat/Hello-World/actions/artifacts",
            "POST /repos/Codertocat/Hello-World/issues/2/comments",
            "GET /repos/Codertocat/Hello-World/issues/comments/5001"
        ]
    );
    // 2. A later run, the ledger quiet for a while: one edit, one read-back.
    gh.remount().await;
    {
        let mut world = gh.world.lock().unwrap();
        let body = world.comments[0]["body"].as_str().unwrap().to_string();
        // The object's own timestamp (the first one in the machine block) goes back in time.
        let stamp = regex::Regex::new(r#""timestamp":"[^"]+""#).unwrap();
        let old = stamp.replace(&body, r#""timestamp":"2020-01-01T00:00:00Z""#);
        world.comments[0]["body"] = old.into_owned().into();
    }
    run_guard(&gh, "2").run().await.assert_code(1);
    assert_eq!(
        ledger_calls(&gh).await,
        [
            "POST /graphql",
            "GET /repos/Codertocat/Hello-World/issues/2/comments",
            "PATCH /repos/Codertocat/Hello-World/issues/comments/5001",
            "GET /repos/Codertocat/Hello-World/issues/comments/5001"
        ]
    );
    // 3. Right after another run: the read-back goes on for a few seconds.
    gh.remount().await;
    run_guard(&gh, "3").run().await.assert_code(1);
    let calls = ledger_calls(&gh).await;
    assert_eq!(calls.len(), 6, "{calls:?}");
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.ends_with("/comments/5001"))
            .count(),
        4
    );
    // 4. A dry run reads (the identity is a GraphQL query, not a mutation) and writes
    //    nothing.
    gh.remount().await;
    run_guard(&gh, "4")
        .input("dry-run", "true")
        .run()
        .await
        .assert_code(1);
    assert_eq!(
        ledger_calls(&gh).await,
        [
            "POST /graphql",
            "GET /repos/Codertocat/Hello-World/issues/2/comments"
        ]
    );
    // 5. A read-only token: the write is refused, nothing more is tried.
    gh.remount().await;
    gh.set_write_status(403);
    run_guard(&gh, "5").run().await.assert_code(1);
    assert_eq!(ledger_calls(&gh).await.len(), 3);
    gh.expect_writes(&[
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
        "PATCH /issues/comments/5001",
        "PATCH /issues/comments/5001",
    ]);
}

/// A ledger whose comment holds only its tail: `entries` runs, messages long enough that
/// the comment had to drop the oldest entries to summaries. Returns the comment body and
/// the full Context Object (what the previous run's artifact holds).
fn compacted_ledger(entries: usize) -> (String, Value) {
    use council_protocol::audit::ContextObject;
    use council_protocol::audit::stored::{Links, merge, render_fitting};
    use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
    use council_protocol::event::Event;
    let event = serde_json::to_string(&fixture("pull_request.opened")).unwrap();
    let pr = Event::parse("pull_request", &event, "e")
        .unwrap()
        .pull_request()
        .unwrap();
    let mut stored = None;
    for i in 0..entries {
        let mut ctx = ContextObject::new(
            "Codertocat/Hello-World",
            &pr,
            "webhook:pull_request.opened",
            "2020-01-01T00:00:00Z",
        );
        let run = RunInfo {
            run_id: format!("{}", 100 + i),
            run_attempt: 1,
            job: "council".into(),
        };
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: "check:branch-name".into(),
            result: "FAIL".into(),
            message: "a long explanation ".repeat(60),
        };
        ctx.timeline = vec![new_entry(
            &run,
            &record,
            &pr.head_sha,
            "2020-01-01T00:00:00Z",
        )];
        stored = Some(merge(stored, &ctx, None).unwrap());
    }
    let full = stored.unwrap();
    let (kept, body) = render_fitting(full.clone(), &Links::default());
    assert!(!kept.is_complete(), "the comment had to compact");
    (body, serde_json::to_value(&full.context).unwrap())
}

async fn serve_previous_artifact(gh: &FakeGitHub, context: &Value) {
    let audit = context.clone();
    artifacts::serve(gh, 2, &[Artifact::own(77, 900, audit)]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_compacted_comment_is_completed_from_the_previous_artifact() {
    let (body, full) = compacted_ledger(120);
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.seed(2, "github-actions[bot]", &body);
    serve_previous_artifact(&gh, &full).await;
    let run = run_guard(&gh, "9000").run().await;
    run.assert_code(1);
    let audit = run.audit(2);
    let timeline = audit["timeline"].as_array().unwrap();
    assert_eq!(
        timeline.len(),
        122,
        "120 earlier entries, all of them, and this run's 2"
    );
    assert!(audit.get("timeline_omitted").is_none());
    assert_eq!(timeline[..120], full["timeline"].as_array().unwrap()[..]);
    let file = run.workspace.path().join("out/audit/PR-2.json");
    Council::cli()
        .args(&["verify", file.to_str().unwrap()])
        .run()
        .await
        .assert_code(0);
    assert!(gh.comment_bodies()[0].chars().count() <= 65_536);
    gh.expect_writes(&["PATCH /issues/comments/5001"]);
}

/// SPEC: a file that leaves old entries out is not proven by itself; `council verify`
/// exits 1 for it unless given the earlier files or `--allow-partial`.
#[tokio::test(flavor = "multi_thread")]
async fn without_the_artifact_the_audit_file_holds_the_tail_and_verifies_only_as_partial() {
    let (body, _) = compacted_ledger(120);
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.seed(2, "github-actions[bot]", &body);
    let run = run_guard(&gh, "9000").run().await;
    run.assert_code(1);
    assert!(
        run.stdout.contains("earlier `audit-PR-2` artifacts"),
        "{}",
        run.stdout
    );
    let audit = run.audit(2);
    let omitted = audit["timeline_omitted"]["count"].as_u64().unwrap();
    assert_eq!(
        omitted as usize + audit["timeline"].as_array().unwrap().len(),
        122
    );
    let file = run.workspace.path().join("out/audit/PR-2.json");
    let verify = Council::cli()
        .args(&["verify", file.to_str().unwrap()])
        .run()
        .await;
    verify.assert_code(1);
    assert!(
        verify
            .stderr
            .contains(&format!("leaves out its {omitted} oldest entries")),
        "{}",
        verify.stderr
    );
    let verify = Council::cli()
        .args(&["verify", file.to_str().unwrap(), "--allow-partial"])
        .run()
        .await;
    verify.assert_code(0);
    assert!(
        verify.stdout.contains("earlier audit artifacts")
            && verify
                .stdout
                .contains(&format!("{omitted} older entries taken on trust")),
        "{}",
        verify.stdout
    );
    gh.expect_writes(&["PATCH /issues/comments/5001"]);
}
