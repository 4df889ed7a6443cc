//! `council audit sync`: a generated world of pull requests with real ledger comments,
//! into a store, counting the requests; what changed only, resuming, refusing.

use council_fake_github::generate::Generate;
use serde_json::Value;

use crate::support::artifacts::{self, Artifact};
use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::ledgers::{HEAD_REF, audit_file, comment, guarded, ledger};
use crate::support::{Council, REPO, Run};

const TOKEN: &str = "ghs_test_token_value";

struct World {
    gh: FakeGitHub,
    store: tempfile::TempDir,
}

impl World {
    async fn generated(pulls: usize, registry: Option<u64>) -> World {
        let gh = FakeGitHub::start().await;
        gh.generate(&Generate {
            pulls,
            agents: 3,
            seed: 5,
            entries_per_pull: 8,
            registry_issue: registry,
            ..Generate::default()
        })
        .expect("a world");
        World {
            gh,
            store: tempfile::tempdir().unwrap(),
        }
    }

    async fn empty() -> World {
        World {
            gh: FakeGitHub::start().await,
            store: tempfile::tempdir().unwrap(),
        }
    }

    fn url(&self) -> String {
        format!("sqlite://{}", self.store.path().join("audit.db").display())
    }

    async fn council(&self, args: &[&str]) -> Run {
        let mut all = vec!["audit"];
        all.extend(args);
        Council::cli()
            .api(&self.gh.uri())
            .env("GH_TOKEN", TOKEN)
            .env("COUNCIL_DATABASE_URL", &self.url())
            .args(&all)
            .run()
            .await
    }

    async fn sync(&self, extra: &[&str]) -> (Run, Value) {
        let mut args = vec!["sync", "--repo", REPO, "--json"];
        args.extend(extra);
        let run = self.council(&args).await;
        let report =
            serde_json::from_str(run.stdout.lines().last().unwrap_or("{}")).unwrap_or(Value::Null);
        (run, report)
    }

    async fn query(&self, question: &str) -> Value {
        let run = self.council(&["query", question, "--json"]).await;
        run.assert_code(0);
        let all: Value = serde_json::from_str(&run.stdout).unwrap();
        all[question.replace('-', "_")].clone()
    }

    async fn requests(&self) -> Vec<String> {
        self.gh.requests().await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_first_sync_reads_each_pull_request_once_and_a_second_reads_nothing() {
    let world = World::generated(150, None).await;
    let (run, report) = world.sync(&[]).await;
    run.assert_code(0);
    let tally = &report["tally"];
    assert_eq!(tally["listed"], 150, "{report}");
    assert_eq!(tally["list_pages"], 2);
    assert_eq!(tally["read"], 150);
    assert_eq!(tally["refused"], 0);
    // One list page per 100 pull requests, one read per pull request: nothing else.
    let requests = world.requests().await;
    assert_eq!(requests.len(), 152, "{requests:#?}");
    assert_eq!(report["requests"], 152);
    assert_eq!(
        requests.iter().filter(|r| r.ends_with("/comments")).count(),
        150
    );
    let verify = world.council(&["verify", "--json"]).await;
    verify.assert_code(0);
    let verified: Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_eq!(verified["contexts"], 150);
    assert_eq!(
        verified["entries"].as_u64(),
        tally["entries_added"].as_u64()
    );
    // Merged pull requests have GitHub's open and merge times.
    let (summary, prs) = {
        let merge = world.query("merge-time").await;
        (merge["summary"].clone(), merge["prs"].clone())
    };
    assert!(summary["count"].as_u64().unwrap() > 0, "{summary}");
    assert!(prs[0]["opened_at"].as_str().unwrap().ends_with('Z'));
    let agents = world.query("agents").await;
    let runs: u64 = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["guard_runs"].as_u64().unwrap())
        .sum();
    assert!(runs >= 150, "every pull request had a guard run: {agents}");

    // Nothing changed: one list page, no read.
    let (run, report) = world.sync(&[]).await;
    run.assert_code(0);
    assert_eq!(report["tally"]["read"], 0, "{report}");
    assert_eq!(report["requests"], 1, "{report}");

    // A comment on one pull request: only that one is read again.
    world.gh.edit(|w| w.touch(42));
    let (run, report) = world.sync(&[]).await;
    run.assert_code(0);
    assert_eq!(report["tally"]["read"], 1, "{report}");
    assert_eq!(
        report["tally"]["entries_added"], 0,
        "nothing new in its ledger"
    );
    // --full reads them all again and adds nothing.
    let (run, report) = world.sync(&["--full"]).await;
    run.assert_code(0);
    assert_eq!(report["tally"]["read"], 150, "{report}");
    assert_eq!(report["tally"]["entries_added"], 0, "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sync_stopped_half_way_resumes_without_reading_again() {
    let world = World::generated(30, None).await;
    // The comments of one pull request fail every attempt (5) of this sync: it stops
    // there (exit 3).
    world
        .gh
        .fail_next("GET", "/issues/17/comments", 5, Fault::bad_gateway());
    let (run, _) = world.sync(&[]).await;
    run.assert_code(3);
    let first: Vec<String> = world
        .requests()
        .await
        .into_iter()
        .filter(|r| r.ends_with("/comments") && !r.contains("/issues/17/"))
        .collect();
    let before = world.requests().await.len();
    let (run, report) = world.sync(&[]).await;
    run.assert_code(0);
    let read_now = report["tally"]["read"].as_u64().unwrap() as usize;
    assert_eq!(
        read_now + first.len(),
        30,
        "the second sync reads only what the first did not store: {report}"
    );
    assert_eq!(
        report["tally"]["unchanged"].as_u64().unwrap() as usize,
        first.len()
    );
    assert!(world.requests().await.len() - before < 30);
    let verify = world.council(&["verify", "--json"]).await;
    let verified: Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_eq!(verified["contexts"], 30);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_comment_is_recorded_and_the_verifying_artifact_stored_instead() {
    let world = World::empty().await;
    let sha = "a".repeat(40);
    let entries = [
        ("agent_guard", "check:branch-name", "FAIL"),
        ("agent_guard", "check:target-branch", "PASS"),
    ];
    let original = ledger(7, "develop", &sha, "900", &entries, None);
    let _ = world
        .gh
        .pr(7)
        .head("feature/devops/PBI-007-release", &sha)
        .base("develop");
    // The comment's verdict was edited in place; the artifact holds the original.
    let forged = comment(&original).replacen("\"result\":\"FAIL\"", "\"result\":\"PASS\"", 1);
    assert_ne!(forged, comment(&original));
    world.gh.seed_as(7, "github-actions[bot]", "NONE", &forged);
    // A copy of the marker by someone else is ignored, never stored.
    world.gh.seed_as(7, "mallory", "NONE", &comment(&original));
    artifacts::serve(
        &world.gh,
        7,
        &[Artifact::own(31, 4001, audit_file(&original))],
    )
    .await;
    let (run, report) = world.sync(&[]).await;
    run.assert_code(1);
    assert_eq!(report["tally"]["refused"], 1, "{report}");
    assert_eq!(report["tally"]["from_artifacts"], 1, "{report}");
    assert_eq!(report["tally"]["untrusted_ledger_comments"], 1, "{report}");
    let failures = world.query("failures").await;
    assert_eq!(failures.as_array().unwrap().len(), 1, "{failures}");
    assert!(
        failures[0]["problem"]
            .as_str()
            .unwrap()
            .contains("fails verification"),
        "{failures}"
    );
    // The stored verdict is the artifact's: the branch name failed.
    let agents = world.query("agents").await;
    assert_eq!(agents[0]["guard_passed"], 0, "{agents}");
    assert_eq!(agents[0]["top_failing_rule"], "check:branch-name");
}

/// The acceptance run's attack: a ledger comment whose `timeline_omitted.count` is
/// 2^63 − 1 (its unsigned head to match) stopped every sync at that pull request (exit 3,
/// the database refusing the positions). It is refused as tampering and recorded, and
/// the sync goes on with the other pull requests.
#[tokio::test(flavor = "multi_thread")]
async fn a_comment_with_an_omitted_count_past_any_timeline_is_refused_and_the_sync_goes_on() {
    use council_protocol::audit::head::Head;
    let world = World::empty().await;
    let entries = [
        ("agent_guard", "check:branch-name", "PASS"),
        ("agent_guard", "check:target-branch", "PASS"),
        ("agent_review", "check:secret-scan", "PASS"),
    ];
    for (n, sha) in [(14, "d".repeat(40)), (15, "e".repeat(40))] {
        let _ = world
            .gh
            .pr(n)
            .head("feature/devops/PBI-007-release", &sha)
            .base("develop");
        let full = ledger(n, "develop", &sha, "910", &entries, None);
        let mut stored = full.clone();
        if n == 14 {
            stored.context.timeline = full.context.timeline[1..].to_vec();
            stored.omitted.count = i64::MAX as usize;
            stored.omitted.head_hash = full.context.timeline[0].hash.clone();
            stored.head = Some(Head::new(
                stored.total_entries(),
                &full.context.timeline[2].hash,
                None,
            ));
        }
        world
            .gh
            .seed_as(n, "github-actions[bot]", "NONE", &comment(&stored));
    }
    for _ in 0..2 {
        let (run, report) = world.sync(&["--full"]).await;
        run.assert_code(1);
        assert_eq!(report["tally"]["read"], 2, "{report}");
        assert_eq!(report["tally"]["refused"], 1, "{report}");
        assert_eq!(report["tally"]["entries_added"].as_u64().unwrap() % 3, 0);
    }
    let failures = world.query("failures").await;
    assert_eq!(failures.as_array().unwrap().len(), 1, "{failures}");
    assert_eq!(failures[0]["pr"], 14);
    assert!(
        failures[0]["problem"]
            .as_str()
            .unwrap()
            .contains("timeline_omitted"),
        "{failures}"
    );
    let verify = world.council(&["verify", "--json"]).await;
    verify.assert_code(0);
    let verified: Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_eq!(
        (verified["contexts"].as_u64(), verified["entries"].as_u64()),
        (Some(1), Some(3))
    );
}

/// The acceptance run's attack: the ledger comment's machine block edited so that its
/// header (unsigned) names author `innocent-alice` and another source branch, the signed
/// entries untouched. It was stored as verified and `query agents` blamed her. The store
/// attributes the pull request as GitHub's listing says, and records the header as a
/// verification failure (exit 1).
#[tokio::test(flavor = "multi_thread")]
async fn a_header_naming_another_author_is_recorded_and_github_attributes_the_pull_request() {
    const KEY: &str = "audit key";
    let world = World::empty().await;
    let sha = "f".repeat(40);
    let mut forged = ledger(
        16,
        "develop",
        &sha,
        "920",
        &[
            ("agent_guard", "check:branch-name", "FAIL"),
            ("agent_guard", "check:target-branch", "FAIL"),
        ],
        Some(KEY),
    );
    forged.context.subject.author = "innocent-alice".into();
    forged.context.subject.source_branch = "feature/devops/PBI-016-hers".into();
    let _ = world.gh.pr(16).head(HEAD_REF, &sha).base("develop");
    world
        .gh
        .seed_as(16, "github-actions[bot]", "NONE", &comment(&forged));
    let (run, report) = world.sync(&["--hmac-key", KEY]).await;
    run.assert_code(1);
    assert_eq!(report["tally"]["disputed"], 1, "{report}");
    assert_eq!(report["tally"]["entries_added"], 2, "{report}");
    assert!(
        run.stderr
            .contains("author `innocent-alice` where GitHub says `octocat`"),
        "{}",
        run.stderr
    );
    let agents = world.query("agents").await;
    assert_eq!(agents.as_array().unwrap().len(), 1, "{agents}");
    assert_eq!(agents[0]["agent"], "octocat", "{agents}");
    assert_eq!(agents[0]["unverified_prs"], 0, "{agents}");
    assert_eq!(agents[0]["guard_runs"], 1, "{agents}");
    let failures = world.query("failures").await;
    assert!(
        failures[0]["problem"]
            .as_str()
            .unwrap()
            .contains("the unsigned header was edited"),
        "{failures}"
    );
    // The chain itself is sound: `audit verify` checks it and finds nothing; what the
    // header said is in the failures, and nothing stored attributes it to her.
    let verify = world
        .council(&["verify", "--json", "--hmac-key", KEY])
        .await;
    verify.assert_code(0);
    let verified: Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_eq!(verified["unverified_attribution"], 0, "{verified}");
}

/// The same edit on a ledger whose signed guard entries name the branch they judged:
/// the header contradicts them, so the comment is refused whole, and the verifying
/// artifact of the run is stored instead.
#[tokio::test(flavor = "multi_thread")]
async fn a_header_contradicting_its_signed_entries_is_refused_and_the_artifact_stored() {
    const KEY: &str = "audit key";
    let world = World::empty().await;
    let sha = "9".repeat(40);
    let original = guarded(17, "develop", &sha, "930", Some(KEY));
    let mut forged = original.clone();
    forged.context.subject.author = "innocent-alice".into();
    forged.context.subject.source_branch = "feature/devops/PBI-017-hers".into();
    let _ = world.gh.pr(17).head(HEAD_REF, &sha).base("develop");
    world
        .gh
        .seed_as(17, "github-actions[bot]", "NONE", &comment(&forged));
    artifacts::serve(
        &world.gh,
        17,
        &[Artifact::own(51, 4003, audit_file(&original))],
    )
    .await;
    let (run, report) = world.sync(&["--hmac-key", KEY]).await;
    run.assert_code(1);
    assert_eq!(report["tally"]["refused"], 1, "{report}");
    assert_eq!(report["tally"]["from_artifacts"], 1, "{report}");
    let failures = world.query("failures").await;
    let problem = failures[0]["problem"].as_str().unwrap();
    assert!(
        problem.contains("source_branch `feature/devops/PBI-017-hers`")
            && problem.contains("signed guard entry"),
        "{problem}"
    );
    let agents = world.query("agents").await;
    assert_eq!(agents[0]["agent"], "octocat", "{agents}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comment_for_another_pull_request_is_refused() {
    let world = World::empty().await;
    let sha = "b".repeat(40);
    let other = ledger(
        8,
        "develop",
        &sha,
        "901",
        &[("agent_guard", "check:branch-name", "PASS")],
        None,
    );
    let _ = world
        .gh
        .pr(9)
        .head("feature/devops/PBI-009-x", &sha)
        .base("develop");
    world
        .gh
        .seed_as(9, "github-actions[bot]", "NONE", &comment(&other));
    let (run, report) = world.sync(&[]).await;
    run.assert_code(1);
    assert_eq!(report["tally"]["refused"], 1, "{report}");
    let failures = world.query("failures").await;
    assert!(
        failures[0]["problem"]
            .as_str()
            .unwrap()
            .contains("not of PR-9"),
        "{failures}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_registrys_reports_are_stored_once() {
    let world = World::generated(5, Some(900)).await;
    let (run, report) = world.sync(&["--registry-issue", "900"]).await;
    run.assert_code(0);
    let added = report["tally"]["reports_added"].as_u64().unwrap();
    assert!(added >= 3, "{report}");
    let (run, report) = world.sync(&["--registry-issue", "900"]).await;
    run.assert_code(0);
    assert_eq!(report["tally"]["reports_added"], 0, "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sync_needs_a_token_and_a_repository() {
    let world = World::empty().await;
    let run = Council::cli()
        .api(&world.gh.uri())
        .env("COUNCIL_DATABASE_URL", &world.url())
        .args(&["audit", "sync", "--repo", REPO])
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("no GitHub token"), "{}", run.stderr);
    let run = Council::cli()
        .api(&world.gh.uri())
        .env("GH_TOKEN", TOKEN)
        .env("COUNCIL_DATABASE_URL", &world.url())
        .args(&["audit", "sync"])
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("--repo"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_comment_holding_only_the_newest_entries_is_completed_from_the_artifact() {
    let world = World::empty().await;
    let sha = "c".repeat(40);
    let entries = [
        ("agent_guard", "check:branch-name", "PASS"),
        ("agent_guard", "check:target-branch", "PASS"),
        ("agent_review", "check:secret-scan", "PASS"),
        ("agent_review", "check:diff-size", "FAIL"),
    ];
    let full = ledger(11, "develop", &sha, "902", &entries, None);
    // What the ledger writes when the timeline no longer fits a comment: the oldest
    // entries omitted, anchored by the hash of the newest omitted one.
    let mut tail = full.clone();
    tail.context.timeline = full.context.timeline[2..].to_vec();
    tail.omitted.count = 2;
    tail.omitted.head_hash = full.context.timeline[1].hash.clone();
    let _ = world.gh.pr(11).head(HEAD_REF, &sha).base("develop");
    world
        .gh
        .seed_as(11, "github-actions[bot]", "NONE", &comment(&tail));
    artifacts::serve(&world.gh, 11, &[Artifact::own(41, 4002, audit_file(&full))]).await;
    let (run, report) = world.sync(&[]).await;
    run.assert_code(0);
    assert_eq!(report["tally"]["from_artifacts"], 1, "{report}");
    assert_eq!(report["tally"]["partial"], 0, "completed: {report}");
    assert_eq!(report["tally"]["entries_added"], 4, "{report}");
    let verify = world.council(&["verify", "--json"]).await;
    verify.assert_code(0);
    let verified: Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_eq!(
        (verified["entries"].as_u64(), verified["missing"].as_u64()),
        (Some(4), Some(0))
    );
}

/// The same commands on PostgreSQL: a sync, the questions, the report and verify.
#[tokio::test(flavor = "multi_thread")]
async fn the_audit_commands_work_the_same_on_postgresql() {
    let Some(url) = crate::support::postgres::fresh_database().await else {
        return;
    };
    let world = World::generated(40, Some(900)).await;
    let run = |args: Vec<String>| {
        let url = url.clone();
        let api = world.gh.uri();
        async move {
            let mut all = vec!["audit".to_string()];
            all.extend(args);
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            Council::cli()
                .api(&api)
                .env("GH_TOKEN", TOKEN)
                .env("COUNCIL_DATABASE_URL", &url)
                .args(&all)
                .run()
                .await
        }
    };
    let sync = run(vec![
        "sync".into(),
        "--repo".into(),
        REPO.into(),
        "--registry-issue".into(),
        "900".into(),
        "--json".into(),
    ])
    .await;
    sync.assert_code(0);
    let report: Value = serde_json::from_str(sync.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["tally"]["read"], 40, "{report}");
    assert!(
        report["database"]
            .as_str()
            .unwrap()
            .starts_with("postgres://")
    );
    let again = run(vec![
        "sync".into(),
        "--repo".into(),
        REPO.into(),
        "--json".into(),
    ])
    .await;
    again.assert_code(0);
    let report: Value = serde_json::from_str(again.stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (
            report["tally"]["read"].as_u64(),
            report["requests"].as_u64()
        ),
        (Some(0), Some(1))
    );

    // The same answers as the same world synced into SQLite.
    let lite = World::generated(40, None).await;
    lite.sync(&[]).await.0.assert_code(0);
    for question in ["agents", "findings", "merge-time", "rollbacks"] {
        let on_postgres = run(vec!["query".into(), question.into(), "--json".into()]).await;
        on_postgres.assert_code(0);
        let pg: Value = serde_json::from_str(&on_postgres.stdout).unwrap();
        let key = question.replace('-', "_");
        assert_eq!(pg[&key], lite.query(question).await, "{question}");
    }
    let verify = run(vec!["verify".into()]).await;
    verify.assert_code(0);
    let dir = tempfile::tempdir().unwrap();
    let report = run(vec![
        "report".into(),
        "--html".into(),
        dir.path().display().to_string(),
    ])
    .await;
    report.assert_code(0);
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        page.contains("PostgreSQL database council_test_"),
        "the store named without host or user"
    );
}
