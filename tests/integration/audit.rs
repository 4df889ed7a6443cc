//! `council audit`: Context Objects into a store (files, the action's own runs) and the
//! answers out of it, through the real binary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::fake_github::FakeGitHub;
use crate::support::ledgers::{audit_file, guarded, ledger};
use crate::support::{Council, Run, pr_event};

/// A store file in its own folder, as `sqlite:///abs/path` (the folder outlives the runs).
struct StoreFile {
    dir: tempfile::TempDir,
}

impl StoreFile {
    fn new() -> StoreFile {
        StoreFile {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn url(&self) -> String {
        format!("sqlite://{}", self.dir.path().join("audit.db").display())
    }

    /// `council audit ARGS…` on this store.
    async fn audit(&self, args: &[&str]) -> Run {
        let mut all = vec!["audit"];
        all.extend(args);
        Council::cli()
            .args(&all)
            .env("COUNCIL_DATABASE_URL", &self.url())
            .run()
            .await
    }

    async fn query(&self, question: &str) -> Value {
        let run = self.audit(&["query", question, "--json"]).await;
        run.assert_code(0);
        let all: Value = serde_json::from_str(&run.stdout).unwrap();
        all[question.replace('-', "_")].clone()
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("audit.db")
    }
}

/// Writes `value` as a file in `dir`; its path.
fn file(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn audit_files_are_stored_once_and_answer_the_questions() {
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let failing = ledger(
        3,
        "develop",
        &"c".repeat(40),
        "500",
        &[
            ("agent_guard", "check:branch-name", "FAIL"),
            ("agent_guard", "check:target-branch", "PASS"),
        ],
        None,
    );
    let passing = ledger(
        4,
        "develop",
        &"d".repeat(40),
        "501",
        &[
            ("agent_guard", "check:branch-name", "PASS"),
            ("agent_guard", "check:target-branch", "PASS"),
            ("agent_review", "check:secret-scan", "FAIL"),
        ],
        None,
    );
    let a = file(files.path(), "PR-3.json", &audit_file(&failing));
    let b = file(files.path(), "PR-4.json", &audit_file(&passing));
    let run = store.audit(&["import", &a, &b]).await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("PR-3 of Codertocat/Hello-World: 2 new entries"),
        "{}",
        run.stdout
    );
    // Again: nothing new, nothing refused.
    let again = store.audit(&["import", &a, &b, "--json"]).await;
    again.assert_code(0);
    let report: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(report["files"][0]["added"], 0);
    assert_eq!(report["files"][0]["known"], 2);
    assert_eq!(report["refused"], 0);

    let agents = store.query("agents").await;
    assert_eq!(agents[0]["agent"], "octocat");
    assert_eq!(agents[0]["prs"], 2);
    assert_eq!(agents[0]["guard_runs"], 2);
    assert_eq!(agents[0]["guard_passed"], 1);
    assert_eq!(agents[0]["top_failing_rule"], "check:branch-name");
    assert_eq!(agents[0]["review_findings"], 1);
    let findings = store.query("findings").await;
    let scan = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == "check:secret-scan")
        .unwrap();
    assert_eq!(
        (scan["stage"].as_str(), scan["failed"].as_u64()),
        (Some("review"), Some(1))
    );

    // Every question at once, as tables and as CSV.
    let all = store.audit(&["query"]).await;
    all.assert_code(0);
    for question in [
        "agents:",
        "findings:",
        "merge-time:",
        "rollbacks:",
        "failures:",
    ] {
        assert!(all.stdout.contains(question), "{question}\n{}", all.stdout);
    }
    let csv = store.audit(&["query", "agents", "--csv"]).await;
    csv.assert_code(0);
    assert!(
        csv.stdout
            .starts_with("agent,prs,guard_runs,guard_passed,pass_rate,"),
        "{}",
        csv.stdout
    );
    assert!(
        csv.stdout
            .contains("octocat,2,2,1,50.0%,check:branch-name,1,1,0"),
        "{}",
        csv.stdout
    );
    let verify = store.audit(&["verify"]).await;
    verify.assert_code(0);
    assert!(
        verify.stdout.contains("every chain verifies"),
        "{}",
        verify.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_or_conflicting_file_is_refused_recorded_and_exits_1() {
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let original = ledger(
        5,
        "develop",
        &"e".repeat(40),
        "600",
        &[("agent_guard", "check:branch-name", "FAIL")],
        None,
    );
    let good = file(files.path(), "PR-5.json", &audit_file(&original));
    store.audit(&["import", &good]).await.assert_code(0);

    // An edited verdict: the hash no longer matches.
    let mut edited = audit_file(&original);
    edited["timeline"][0]["result"] = "PASS".into();
    let edited = file(files.path(), "edited.json", &edited);
    let run = store.audit(&["import", &edited]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("refused and recorded"),
        "{}",
        run.stderr
    );

    // A whole chain re-sealed without a key: it verifies, but is not the stored one.
    let resealed = ledger(
        5,
        "develop",
        &"e".repeat(40),
        "600",
        &[("agent_guard", "check:branch-name", "PASS")],
        None,
    );
    let resealed = file(files.path(), "resealed.json", &audit_file(&resealed));
    let run = store.audit(&["import", &resealed, "--json"]).await;
    run.assert_code(1);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let why = report["files"][0]["refused"].as_str().unwrap();
    assert!(
        why.contains("entry 0 differs from the stored entry 0"),
        "{why}"
    );

    let failures = store.query("failures").await;
    assert_eq!(failures.as_array().unwrap().len(), 2, "{failures}");
    assert!(failures.as_array().unwrap().iter().all(|f| f["pr"] == 5));
    // The stored verdict is still the original one.
    let agents = store.query("agents").await;
    assert_eq!(agents[0]["guard_passed"], 0);
    // Not a Context Object at all: bad input, exit 2, nothing stored.
    let junk = files.path().join("junk.json");
    std::fs::write(&junk, "{\"not\": \"an audit file\"}").unwrap();
    let run = store.audit(&["import", junk.to_str().unwrap()]).await;
    run.assert_code(2);
}

/// The acceptance run's attack: `timeline_omitted.count` = 2^63 − 1 (its unsigned
/// `chain_head` to match) put the entries past the store's integers, and `audit import`
/// failed on the database (exit 3, "UNIQUE constraint failed"). It is tampering: the file
/// is refused and recorded (exit 1), and the other files are stored.
#[tokio::test(flavor = "multi_thread")]
async fn an_omitted_count_past_any_timeline_is_refused_as_tampering() {
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let full = ledger(
        12,
        "develop",
        &"a".repeat(40),
        "800",
        &[
            ("agent_guard", "check:branch-name", "PASS"),
            ("agent_guard", "check:target-branch", "PASS"),
            ("agent_review", "check:secret-scan", "PASS"),
        ],
        None,
    );
    let timeline = full.context.timeline.clone();
    let mut forged = audit_file(&full);
    forged["timeline"] = serde_json::to_value(&timeline[1..]).unwrap();
    forged["timeline_omitted"] =
        serde_json::json!({"count": i64::MAX, "head_hash": timeline[0].hash});
    forged["chain_head"] = serde_json::json!({
        "entries": i64::MAX as u64 + 2,
        "hash": timeline[2].hash,
    });
    let forged = file(files.path(), "forged.json", &forged);
    let genuine = ledger(
        13,
        "develop",
        &"b".repeat(40),
        "801",
        &[("agent_guard", "check:branch-name", "PASS")],
        None,
    );
    let genuine = file(files.path(), "PR-13.json", &audit_file(&genuine));
    let run = store.audit(&["import", &forged, &genuine, "--json"]).await;
    run.assert_code(1);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["refused"], 1, "{report}");
    let why = report["files"][0]["refused"].as_str().unwrap();
    assert!(why.contains("timeline_omitted"), "{why}");
    assert_eq!(report["files"][1]["added"], 1, "{report}");
    let failures = store.query("failures").await;
    assert_eq!(failures[0]["pr"], 12, "{failures}");
    // Offered again: refused again, never a store failure.
    store.audit(&["import", &forged]).await.assert_code(1);
}

/// The acceptance run's attack, as a file: the header (unsigned) edited to name author
/// `innocent-alice` and another source branch, the signed entries untouched. A file is
/// no live read, so nothing vouches for its author: it is stored as unverified and every
/// answer says so; where the signed guard entries name the branch they judged, a header
/// naming another is refused as edited (exit 1).
#[tokio::test(flavor = "multi_thread")]
async fn an_imported_header_is_never_taken_as_a_verified_attribution() {
    const KEY: &str = "audit key";
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let mut edited = ledger(
        18,
        "develop",
        &"1".repeat(40),
        "940",
        &[
            ("agent_guard", "check:branch-name", "FAIL"),
            ("agent_guard", "check:target-branch", "FAIL"),
        ],
        Some(KEY),
    );
    edited.context.subject.author = "innocent-alice".into();
    edited.context.subject.source_branch = "feature/devops/PBI-018-hers".into();
    let edited = file(files.path(), "PR-18.json", &audit_file(&edited));
    let run = store.audit(&["import", &edited, "--hmac-key", KEY]).await;
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("its author and branches are unverified"),
        "{}",
        run.stdout
    );
    let agents = store.query("agents").await;
    assert_eq!(
        (&agents[0]["agent"], &agents[0]["unverified_prs"]),
        (&Value::from("innocent-alice"), &Value::from(1)),
        "{agents}"
    );
    let table = store.audit(&["query", "agents"]).await;
    assert!(
        table
            .stdout
            .contains("unverified: pull requests whose author"),
        "{}",
        table.stdout
    );
    let verify = store.audit(&["verify", "--hmac-key", KEY]).await;
    verify.assert_code(0);
    assert!(
        verify
            .stdout
            .contains("1 attributed by their unsigned header alone"),
        "{}",
        verify.stdout
    );

    // Signed guard entries that name the branch they judged contradict the edit.
    let mut forged = guarded(19, "develop", &"2".repeat(40), "941", Some(KEY));
    forged.context.subject.author = "innocent-alice".into();
    forged.context.subject.source_branch = "feature/devops/PBI-019-hers".into();
    let forged = file(files.path(), "PR-19.json", &audit_file(&forged));
    let run = store
        .audit(&["import", &forged, "--hmac-key", KEY, "--json"])
        .await;
    run.assert_code(1);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let why = report["files"][0]["refused"].as_str().unwrap();
    assert!(
        why.contains("source_branch") && why.contains("edited"),
        "{why}"
    );
    let agents = store.query("agents").await;
    assert_eq!(agents[0]["prs"], 1, "PR-19 is not stored: {agents}");
    // The genuine file of the same run is stored.
    let genuine = guarded(19, "develop", &"2".repeat(40), "941", Some(KEY));
    let genuine = file(files.path(), "PR-19.genuine.json", &audit_file(&genuine));
    store
        .audit(&["import", &genuine, "--hmac-key", KEY])
        .await
        .assert_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_row_edited_in_the_database_is_found_by_audit_verify() {
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let stored = ledger(
        6,
        "develop",
        &"f".repeat(40),
        "700",
        &[
            ("agent_guard", "check:branch-name", "FAIL"),
            ("agent_guard", "check:target-branch", "FAIL"),
        ],
        None,
    );
    let path = file(files.path(), "PR-6.json", &audit_file(&stored));
    store.audit(&["import", &path]).await.assert_code(0);
    // Someone with the file drops the guard and rewrites a verdict.
    let url = council_store::DatabaseUrl::parse(&store.url(), Path::new("/")).unwrap();
    let mut raw = council_store::Store::open(&url, "2026-01-01T00:00:00Z")
        .await
        .unwrap();
    let refused = raw
        .execute_raw("UPDATE timeline_entries SET result = 'PASS' WHERE position = 0")
        .await;
    assert!(refused.is_err(), "the trigger refuses an update");
    raw.execute_raw("DROP TRIGGER timeline_entries_no_update")
        .await
        .unwrap();
    raw.execute_raw("UPDATE timeline_entries SET result = 'PASS' WHERE position = 0")
        .await
        .unwrap();
    drop(raw);
    let run = store.audit(&["verify", "--json"]).await;
    run.assert_code(1);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["verified"], false);
    let problem = report["failed"][0]["problem"].as_str().unwrap();
    assert!(
        problem.contains("hash does not match its content"),
        "{problem}"
    );
    assert!(store.path().exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_action_writes_its_context_object_to_the_store_once_the_comment_holds_it() {
    let store = StoreFile::new();
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    let event = pr_event("opened", "feature/devops/PBI-001-login", "develop");
    let head = event["pull_request"]["head"]["sha"].as_str().unwrap();
    gh.pr(2)
        .head("feature/devops/PBI-001-login", head)
        .base("develop");
    let run = Council::action()
        .api(&gh.uri())
        .input("database-url", &store.url())
        .event("pull_request", event.clone())
        .run()
        .await;
    run.assert_code(0);
    assert!(run.summary.contains("action:store"), "{}", run.summary);
    let entries = run.audit(2)["timeline"].as_array().unwrap().len();
    let agents = store.query("agents").await;
    assert_eq!(agents[0]["prs"], 1);
    assert_eq!(agents[0]["guard_passed"], 1);
    // The run read the pull request itself: its author is vouched for.
    assert_eq!(agents[0]["unverified_prs"], 0, "{agents}");
    // The same event again: the store follows the comment (no conflict), and a dry run
    // writes nothing to it.
    let again = Council::action()
        .api(&gh.uri())
        .input("database-url", &store.url())
        .env("GITHUB_RUN_ID", "1002")
        .event("pull_request", event.clone())
        .run()
        .await;
    again.assert_code(0);
    let dry = Council::action()
        .api(&gh.uri())
        .input("database-url", &store.url())
        .input("dry-run", "true")
        .env("GITHUB_RUN_ID", "1003")
        .event("pull_request", event)
        .run()
        .await;
    dry.assert_code(0);
    assert!(
        dry.annotations()
            .iter()
            .any(|a| a.contains("dry run: the Context Object was not written to the audit store")),
        "{:?}",
        dry.annotations()
    );
    // The second run reads the pull request's labels as they are now (the approve label
    // the first one added is there), so it adds nothing.
    gh.expect_writes(&[
        "POST /issues/2/labels",
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
    ]);
    let totals = store.audit(&["verify", "--json"]).await;
    totals.assert_code(0);
    let report: Value = serde_json::from_str(&totals.stdout).unwrap();
    assert_eq!(report["failed"], Value::Array(Vec::new()));
    assert!(
        report["entries"].as_u64().unwrap() > entries as u64,
        "{report}"
    );
    assert!(store.query("failures").await.as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_that_cannot_be_used_says_why_without_the_password() {
    let store = StoreFile::new();
    let bad = store
        .audit(&["query", "--database-url", "mysql://root:hunter2@db/x"])
        .await;
    bad.assert_code(2);
    assert!(bad.stderr.contains("mysql:"), "{}", bad.stderr);
    assert!(!bad.stderr.contains("hunter2"));
    // Nothing listens on port 1: the store failed (3), named without its password.
    let down = Council::cli()
        .args(&["audit", "query"])
        .env(
            "COUNCIL_DATABASE_URL",
            "postgres://council:hunter2@127.0.0.1:1/audit",
        )
        .run()
        .await;
    down.assert_code(3);
    assert!(
        down.stderr
            .contains("postgres://council:***@127.0.0.1:1/audit"),
        "{}",
        down.stderr
    );
    down.assert_no_secret("hunter2");
    // A password on the command line is warned about (other users see it in `ps`).
    let warned = store
        .audit(&[
            "query",
            "--database-url",
            "postgres://council:hunter2@127.0.0.1:1/audit",
        ])
        .await;
    assert!(
        warned
            .stderr
            .contains("--database-url was given on the command line"),
        "{}",
        warned.stderr
    );
    let unknown = store.audit(&["query", "agent"]).await;
    unknown.assert_code(2);
    assert!(
        unknown.stderr.contains("use one of agents, findings"),
        "{}",
        unknown.stderr
    );
    let since = store.audit(&["query", "--since", "yesterday"]).await;
    since.assert_code(2);
}

/// The acceptance run's attack: a password holding `/` (or `?`, `#`, `:`; written as it
/// is or percent-encoded) works as a connection string, and was printed whole in the
/// error, from `--database-url` and `COUNCIL_DATABASE_URL` alike, without the warning
/// about the command line.
#[tokio::test(flavor = "multi_thread")]
async fn a_password_holding_url_delimiters_is_never_printed() {
    let store = StoreFile::new();
    for url in [
        "postgres://council:s3/Zq8pW@127.0.0.1:1/audit",
        "postgres://council:s3?Zq8pW@127.0.0.1:1/audit",
        "postgres://council:s3#Zq8pW@127.0.0.1:1/audit",
        "postgres://council:s3:Zq8pW/x?y#z@127.0.0.1:1/audit",
        "postgres://council:s3%2FZq8pW@127.0.0.1:1/audit",
        "postgres://council:s3%40Zq8pW@127.0.0.1:1/audit",
        "postgres://council@127.0.0.1:1/audit?password=s3%2FZq8pW",
    ] {
        // Nothing listens on port 1: the store failed (3), named without its password.
        let from_env = Council::cli()
            .args(&["audit", "query", "--json"])
            .env("COUNCIL_DATABASE_URL", url)
            .run()
            .await;
        from_env.assert_code(3);
        assert!(
            from_env
                .stderr
                .contains("postgres://council:***@127.0.0.1:1/audit"),
            "{url}: {}",
            from_env.stderr
        );
        from_env.assert_no_secret("Zq8pW");
        let given = store
            .audit(&["verify", "--json", "--database-url", url])
            .await;
        given.assert_code(3);
        given.assert_no_secret("Zq8pW");
        assert!(
            given
                .stderr
                .contains("--database-url was given on the command line"),
            "{url}: {}",
            given.stderr
        );
    }
    // An `@` written as it is would split the password (part of it read as the host):
    // refused as bad usage, and neither part is shown.
    for url in [
        "postgres://council:s3@Zq8pW@127.0.0.1:1/audit",
        "postgres://127.0.0.1:1/audit?password=s3@Zq8pW",
    ] {
        let run = store.audit(&["query", "--database-url", url]).await;
        run.assert_code(2);
        assert!(run.stderr.contains("%40"), "{}", run.stderr);
        run.assert_no_secret("Zq8pW");
        run.assert_no_secret("s3@");
        assert!(
            run.stderr
                .contains("--database-url was given on the command line"),
            "{}",
            run.stderr
        );
    }
}

/// The same passwords on a store that answers: the success lines, `--json`'s
/// `"database"` and the report's store name show none of it.
#[tokio::test(flavor = "multi_thread")]
async fn a_store_reached_with_such_a_password_never_prints_it() {
    let Some(url) = crate::support::postgres::fresh_database().await else {
        return;
    };
    // The test server trusts loopback: any password connects.
    let (scheme, rest) = url.split_once("://").unwrap();
    let (user, rest) = rest.split_once('@').unwrap();
    let (host, db) = rest.split_once('/').unwrap();
    let secret = "Zq8pW";
    let with_password = format!("{scheme}://{user}:s3/{secret}?#x@{rest}");
    let shown = format!("{scheme}://{user}:***@{host}/{db}");
    let files = tempfile::tempdir().unwrap();
    let object = ledger(
        5,
        "develop",
        &"e".repeat(40),
        "600",
        &[("agent_guard", "check:branch-name", "PASS")],
        None,
    );
    let path = file(files.path(), "PR-5.json", &audit_file(&object));
    let run = |args: Vec<String>| {
        let url = with_password.clone();
        async move {
            let mut all = vec!["audit".to_string()];
            all.extend(args);
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            Council::cli()
                .args(&all)
                .env("COUNCIL_DATABASE_URL", &url)
                .run()
                .await
        }
    };
    let import = run(vec!["import".into(), path.clone()]).await;
    import.assert_code(0);
    import.assert_no_secret(secret);
    let json = run(vec!["import".into(), path, "--json".into()]).await;
    json.assert_code(0);
    json.assert_no_secret(secret);
    let out: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(out["database"], shown.as_str());
    for args in [
        vec!["query", "--json"],
        vec!["verify"],
        vec!["verify", "--json"],
    ] {
        let done = run(args.iter().map(|a| a.to_string()).collect()).await;
        done.assert_code(0);
        done.assert_no_secret(secret);
        assert!(done.stdout.contains(&shown), "{args:?}: {}", done.stdout);
    }
    let dir = tempfile::tempdir().unwrap();
    let report = run(vec![
        "report".into(),
        "--html".into(),
        dir.path().display().to_string(),
    ])
    .await;
    report.assert_code(0);
    report.assert_no_secret(secret);
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(!page.contains(secret));
    assert!(page.contains(&format!("PostgreSQL database {db}")));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_report_is_one_page_written_where_asked() {
    let store = StoreFile::new();
    let files = tempfile::tempdir().unwrap();
    let stored = ledger(
        8,
        "develop",
        &"a".repeat(40),
        "800",
        &[("agent_guard", "check:branch-name", "PASS")],
        None,
    );
    let path = file(files.path(), "PR-8.json", &audit_file(&stored));
    store.audit(&["import", &path]).await.assert_code(0);
    let site = files.path().join("site");
    let run = store
        .audit(&["report", "--html", site.to_str().unwrap()])
        .await;
    run.assert_code(0);
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    // The store's pull request is in the page's data, and the page names the store
    // without the folder it lives in (a report may be published).
    assert!(
        page.contains("\"pr\":8,"),
        "the pull request's row is embedded"
    );
    assert!(
        page.contains("\"store\":\"SQLite file audit.db\""),
        "the store named"
    );
    let folder = store.dir.path().display().to_string();
    assert!(!page.contains(&folder), "no local path in the page");
    assert!(run.stdout.contains("1 pull request,"), "{}", run.stdout);
}
