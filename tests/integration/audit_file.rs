//! An audit file already on disk: replaced, with a notice, only when this run's Context
//! Object continues its chain; any other file (a longer chain, another chain, text that
//! is not a Context Object) is kept byte for byte, and the new object is written beside
//! it with a warning, `audit-path` naming where it went. Nothing is lost, and the exit
//! code stays the verdict's.

use serde_json::Value;

use crate::support::fake_github::FakeGitHub;
use crate::support::ledgers::{audit_file, ledger};
use crate::support::{Council, Run, fixture};

const FILE: &str = "out/audit/PR-2.json";

/// The guard on the bundled `pull_request.opened` payload (PR 2, `changes` → `master`:
/// FAIL under the default policy), as a workflow step on the fake world.
fn action(gh: &FakeGitHub, run_id: &str) -> Council {
    Council::action()
        .api(&gh.uri())
        .env("GITHUB_RUN_ID", run_id)
        .event("pull_request", fixture("pull_request.opened"))
}

/// The same on a laptop: no token, so a new chain of this run's two entries.
fn cli() -> Council {
    Council::cli().event("pull_request", fixture("pull_request.opened"))
}

fn read(run: &Run, path: &str) -> String {
    std::fs::read_to_string(run.workspace.path().join(path)).unwrap()
}

/// The files of `out/audit`, sorted.
fn files(run: &Run) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(run.workspace.path().join("out/audit"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The name beside `PR-2.json` that a kept file sends this run's object to: `PR-2.` and
/// the first 12 hex digits of its chain head.
fn beside(object: &Value) -> String {
    let head = object["chain_head"]["hash"].as_str().unwrap();
    format!("out/audit/PR-2.{}.json", &head["sha256:".len()..][..12])
}

fn verifies(run: &Run, path: &str) {
    let file = run.workspace.path().join(path);
    Council::cli()
        .args(&["verify", file.to_str().unwrap()])
        .run_blocking()
        .assert_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_whose_chain_this_run_continues_is_replaced_with_a_notice() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let first = action(&gh, "1").run().await;
    first.assert_code(1);
    let earlier = read(&first, FILE);
    // The next run continues the comment's chain: two entries more.
    let run = action(&gh, "2").workspace_file(FILE, &earlier).run().await;
    run.assert_code(1);
    assert_eq!(run.output("audit-path"), FILE);
    assert_eq!(run.audit(2)["timeline"].as_array().unwrap().len(), 4);
    let notices: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.contains("title=council audit file"))
        .collect();
    assert_eq!(
        notices,
        [
            "::notice title=council audit file::replaced out/audit/PR-2.json: this run's \
          Context Object (4 entries) continues its chain of 2 entries"
        ]
    );
    assert_eq!(files(&run), ["PR-2.json"]);
    verifies(&run, FILE);
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_longer_chain_is_kept_and_the_new_object_written_beside_it() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let sha = fixture("pull_request.opened")["pull_request"]["head"]["sha"]
        .as_str()
        .unwrap()
        .to_string();
    let entries = [
        ("agent_guard", "check:branch-name", "PASS"),
        ("agent_guard", "check:target-branch", "PASS"),
        ("agent_review", "check:secret-scan", "PASS"),
    ];
    let longer = ledger(2, "master", &sha, "900", &entries, Some("k"));
    let planted = serde_json::to_string_pretty(&audit_file(&longer)).unwrap();
    let run = action(&gh, "1").workspace_file(FILE, &planted).run().await;
    run.assert_code(1);
    let object: Value = serde_json::from_str(run.output("context")).unwrap();
    let written = beside(&object);
    assert_eq!(run.output("audit-path"), written);
    let warnings: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.contains("title=council audit file"))
        .collect();
    assert_eq!(
        warnings,
        [format!(
            "::warning title=council audit file::kept out/audit/PR-2.json: its chain has 3 \
             entries, this run's only 2; this run's Context Object was written to {written} \
             instead (move out/audit/PR-2.json away for the next run to write it there)"
        )]
    );
    assert_eq!(read(&run, FILE), planted, "kept byte for byte");
    let new: Value = serde_json::from_str(&read(&run, &written)).unwrap();
    assert_eq!(new, object);
    verifies(&run, &written);
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_terminal_another_chain_is_kept_with_one_warning_on_stderr() {
    // Another chain of two entries (an earlier run's, on another head).
    let entries = [
        ("agent_guard", "check:branch-name", "FAIL"),
        ("agent_guard", "check:target-branch", "FAIL"),
    ];
    let other = ledger(2, "master", &"c".repeat(40), "900", &entries, None);
    let planted = serde_json::to_string_pretty(&audit_file(&other)).unwrap();
    let run = cli()
        .workspace_file(FILE, &planted)
        .args(&["--json"])
        .run()
        .await;
    run.assert_code(1);
    let json: Value = serde_json::from_str(&run.stdout).expect("stdout is one JSON document");
    let written = json["outputs"]["audit-path"].as_str().unwrap().to_string();
    assert_eq!(written, beside(&json["outputs"]["context"]));
    assert_eq!(
        run.stderr,
        format!(
            "warning: council audit file: kept out/audit/PR-2.json: its chain of 2 entries is \
             not the one this run continues (entry 1 differs); this run's Context Object was \
             written to {written} instead (move out/audit/PR-2.json away for the next run to \
             write it there)\n"
        )
    );
    assert_eq!(read(&run, FILE), planted);
    verifies(&run, &written);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_that_is_not_a_context_object_is_kept_and_the_new_one_written_beside_it() {
    let not_json = "{\"timeline\": [";
    let binary = "\u{0}\u{1}\u{fffd}";
    let entries = [("agent_guard", "check:branch-name", "PASS")];
    let other_pr = audit_file(&ledger(9, "main", &"a".repeat(40), "1", &entries, None));
    let other_pr = serde_json::to_string(&other_pr).unwrap();
    for (planted, why) in [
        (
            not_json,
            "it is not a Context Object (EOF while parsing a list at line 1 column 14)",
        ),
        (
            binary,
            "it is not a Context Object (expected value at line 1 column 1)",
        ),
        (
            other_pr.as_str(),
            "it holds the Context Object PR-9 of Codertocat/Hello-World",
        ),
    ] {
        let run = cli().workspace_file(FILE, planted).run().await;
        run.assert_code(1);
        assert_eq!(read(&run, FILE), planted, "kept byte for byte");
        let names = files(&run);
        assert_eq!(names.len(), 2, "{names:?}");
        let written = format!("out/audit/{}", names[0]);
        assert!(written.starts_with("out/audit/PR-2.") && written != FILE);
        assert!(
            run.stdout
                .contains(&format!("note: audit file: \"{written}\"")),
            "{}",
            run.stdout
        );
        assert_eq!(
            run.stderr,
            format!(
                "warning: council audit file: kept out/audit/PR-2.json: {why}; this run's \
                 Context Object was written to {written} instead (move out/audit/PR-2.json \
                 away for the next run to write it there)\n"
            )
        );
        verifies(&run, &written);
    }
}
