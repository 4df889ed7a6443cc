//! The review stage end to end over the fake world: after a passing guard, the files
//! GitHub lists decide `APPROVED` or `CHANGES_REQUESTED`, shown in the one Context
//! Object comment, with the approve label following the verdict.

use serde_json::Value;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::WORKFLOW_TOKEN;
use crate::support::world::PrFile;
use crate::support::{Council, REPO, Run};

const HEAD: &str = "feature/devops/PBI-001-login";
const SHA: &str = "1111111111111111111111111111111111111111";
const TOKEN: &str = "ghp_8fK2mQ7xR4vN9cT1wL6pZ3bH5sJ0dY2gU7aE";
const DOCS_POLICY: &str = r#"
review:
  docs:
    code: ["src/**"]
    docs: ["docs/**", "*.md"]
    map:
      - {code: ["src/api/**"], docs: ["docs/api/**"]}
    skip_label: "no-docs"
  diff_size: {max_files: 100, max_changed_lines: 2000, skip_label: "large-diff-ok"}
  task_list: true
"#;

/// A world with PR 7 from a well-named branch to develop, and `policy` on develop.
async fn world(policy: &str, files: Vec<PrFile>) -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.file("develop", ".github/council.yml", policy);
    let mut pr = gh.pr(7).head(HEAD, SHA).base("develop");
    for f in files {
        pr = pr.file(f);
    }
    let _ = pr;
    gh
}

fn review_run(gh: &FakeGitHub) -> Council {
    Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
}

fn verdicts(run: &Run) -> Vec<(String, String)> {
    let audit = run.audit(7);
    audit["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["agent"] == "agent_review")
        .map(|e| {
            (
                e["action"].as_str().unwrap().to_string(),
                e["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ledger_body(gh: &FakeGitHub) -> String {
    gh.comment_bodies()
        .into_iter()
        .find(|b| b.starts_with("<!-- agent-council:ledger:v1 -->"))
        .expect("the Context Object comment")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_docs_change_with_its_code_is_approved_and_labelled() {
    let gh = world(
        DOCS_POLICY,
        vec![
            PrFile::modified("src/api/login.rs", &["old"], &["new"]),
            PrFile::added("docs/api/login.md", "# Login"),
        ],
    )
    .await;
    let run = review_run(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    assert_eq!(run.output("review-status"), "APPROVED");
    assert_eq!(
        verdicts(&run),
        [
            ("check:actor".into(), "PASS".into()),
            ("check:doc-coverage".into(), "PASS".into()),
            ("check:diff-size".into(), "PASS".into()),
            ("check:secret-scan".into(), "PASS".into()),
            ("check:assistant-context".into(), "PASS".into()),
            ("check:task-list".into(), "PASS".into()),
            ("action:label".into(), "DONE".into()),
        ]
    );
    assert_eq!(gh.pr_state(7).labels, ["bot-approved"]);
    let audit = run.audit(7);
    assert_eq!(audit["state"]["review_status"], "APPROVED");
    assert_eq!(audit["gates"]["secret_scan"], "PASS");
    // Guard and review together: the policy, the diff of the head by SHA (with its
    // first 100 commits, whose trailers the class reads) and the head before the ledger.
    let before_ledger: Vec<String> = gh
        .call_lines()
        .into_iter()
        .take_while(|c| !c.contains("/graphql"))
        .collect();
    assert_eq!(
        before_ledger,
        [
            "GET /repos/Codertocat/Hello-World/contents/.github/council.yml?ref=develop",
            &format!(
                "GET /repos/Codertocat/Hello-World/compare/{}...{SHA}?per_page=100",
                crate::support::world::fake_sha("develop")
            ),
            // The head once more: the label follows the newest head only.
            "GET /repos/Codertocat/Hello-World/pulls/7",
            "POST /repos/Codertocat/Hello-World/issues/7/labels",
        ],
        "the policy, the diff, the head, the label: then the ledger"
    );
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn code_without_docs_requests_changes_per_mapped_pair_and_shows_findings() {
    let gh = world(
        DOCS_POLICY,
        vec![
            PrFile::modified("src/api/login.rs", &["old"], &["new"]),
            PrFile::added("docs/guide.md", "# Guide"),
        ],
    )
    .await;
    gh.pr(7).label("bot-approved");
    let run = review_run(&gh).run().await;
    run.assert_code(1);
    assert_eq!(run.output("review-status"), "CHANGES_REQUESTED");
    let audit = run.audit(7);
    assert_eq!(audit["gates"]["doc_coverage"], "FAIL");
    let body = ledger_body(&gh);
    assert!(
        body.contains("- ❌ `doc_coverage`: review.docs.map&#91;0&#93;: 1 file changed under"),
        "{body}"
    );
    assert!(body.contains("src/api/login.rs"), "{body}");
    assert!(
        gh.pr_state(7).labels.is_empty(),
        "the approve label is removed"
    );
    let annotations = run.annotations().join("\n");
    assert!(
        annotations
            .contains("::error title=council review%3A doc_coverage (check%3Adoc-coverage)::"),
        "{annotations}"
    );
    gh.expect_writes(&[
        "DELETE /issues/7/labels/bot-approved",
        "POST /issues/7/comments",
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn skip_labels_skip_with_the_reason_recorded() {
    let gh = world(
        DOCS_POLICY,
        vec![PrFile::modified("src/lib.rs", &["a"], &["b"])],
    )
    .await;
    gh.pr(7).label("no-docs");
    let run = review_run(&gh).run().await;
    run.assert_code(0);
    let entry = run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "check:doc-coverage")
        .cloned()
        .unwrap();
    assert_eq!(entry["result"], "PASS");
    assert!(
        entry["message"]
            .as_str()
            .unwrap()
            .starts_with("Skipped: the pull request has the label")
    );
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn renamed_removed_and_binary_files_count_as_changes() {
    let policy = "review:\n  docs: {code: [\"src/**\"], docs: [\"docs/**\"]}\n";
    // A doc moved out of docs/ counts under its old path: docs changed.
    let gh = world(
        policy,
        vec![
            PrFile::renamed("docs/old.md", "notes/old.md"),
            PrFile::removed("src/dead.rs", "fn dead() {}"),
            PrFile::binary("src/logo.png"),
        ],
    )
    .await;
    let run = review_run(&gh).run().await;
    run.assert_code(0);
    let secret = run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "check:secret-scan")
        .cloned()
        .unwrap();
    assert!(
        secret["message"]
            .as_str()
            .unwrap()
            .contains("1 file without a patch from GitHub"),
        "{secret}"
    );
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
    // A removed source file alone is a code change without docs.
    let gh = world(policy, vec![PrFile::removed("src/dead.rs", "fn dead() {}")]).await;
    review_run(&gh).run().await.assert_code(1);
    gh.expect_writes(&["POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_being_removed_is_no_finding_an_added_one_is_and_its_value_goes_nowhere() {
    let gh = world(
        "",
        vec![PrFile::modified(
            "config/prod.env",
            &[&format!("TOKEN={TOKEN}")],
            &["TOKEN=${{ secrets.TOKEN }}"],
        )],
    )
    .await;
    review_run(&gh).run().await.assert_code(0);
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);

    let gh = world(
        "",
        vec![PrFile::modified(
            "config/prod.env",
            &[],
            &["# settings", &format!("TOKEN={TOKEN}")],
        )],
    )
    .await;
    let run = review_run(&gh).run().await;
    run.assert_code(1);
    assert_eq!(run.output("review-status"), "CHANGES_REQUESTED");
    let body = ledger_body(&gh);
    assert!(body.contains("line 2 (GitHub token)"), "{body}");
    run.assert_no_secret(TOKEN);
    run.assert_no_secret("ghp_8fK2mQ7xR4");
    for body in gh.comment_bodies() {
        assert!(!body.contains("ghp_8fK2mQ7xR4"), "{body}");
    }
    gh.expect_writes(&["POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_300_file_cap_of_a_diff_by_commit_the_gates_that_could_not_see_every_file_fail_closed()
 {
    let gh = world(
        DOCS_POLICY
            .replace("max_files: 100", "max_files: 5000")
            .as_str(),
        Vec::new(),
    )
    .await;
    gh.pr(7)
        .many_files(320)
        .file(PrFile::added("docs/api/x.md", "x"));
    let run = review_run(&gh).run().await;
    run.assert_code(1);
    let reads = gh
        .call_lines()
        .iter()
        .filter(|c| c.contains("/compare/") || c.contains("/files"))
        .count();
    assert_eq!(
        reads, 1,
        "one read: GitHub's compare lists its 300 files at once"
    );
    let audit = run.audit(7);
    assert_eq!(audit["gates"]["secret_scan"], "FAIL");
    assert_eq!(audit["gates"]["doc_coverage"], "FAIL");
    assert!(
        run.summary
            .contains("GitHub lists at most 300 files of a diff read by commit"),
        "{}",
        run.summary
    );
    gh.expect_writes(&["POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rerun_posts_nothing_new_and_edits_nothing_unchanged() {
    let gh = world(DOCS_POLICY, vec![PrFile::added("docs/a.md", "a")]).await;
    review_run(&gh).run().await.assert_code(0);
    let first = gh.take_writes().len();
    assert!(first >= 2, "the comment and the label");
    // The same step again in the same attempt: nothing new to record, nothing written.
    review_run(&gh).run().await.assert_code(0);
    let writes: Vec<String> = gh
        .take_writes()
        .iter()
        .map(|c| format!("{} {}", c.method, c.path))
        .collect();
    assert!(writes.is_empty(), "{writes:?}");
    assert_eq!(gh.comment_bodies().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_token_still_decides_and_explains_the_two_phase_pattern() {
    let gh = world(
        DOCS_POLICY,
        vec![PrFile::modified("src/lib.rs", &[], &["x"])],
    )
    .await;
    gh.pr(7).fork("forker");
    gh.token(WORKFLOW_TOKEN).read_only();
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("review-status"), "CHANGES_REQUESTED");
    assert!(run.output("context").contains("CHANGES_REQUESTED"));
    let warnings: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::warning"))
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("workflow_run")),
        "the warning explains the two-phase pattern: {warnings:?}"
    );
    assert!(gh.take_writes().iter().all(|c| c.status == 403));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_workflow_run_half_decides_again_and_applies() {
    let gh = world(DOCS_POLICY, vec![PrFile::added("docs/a.md", "a")]).await;
    gh.pr(7).fork("forker");
    // Phase one ran on `pull_request` with a read-only token and uploaded audit-PR-7.
    let run_event: Value = serde_json::json!({
        "action": "completed",
        "workflow_run": {"id": 555, "head_sha": SHA, "pull_requests": [], "conclusion": "success"},
        "repository": {"full_name": "Codertocat/Hello-World"},
    });
    crate::support::artifacts::serve_run(&gh, 555, &["audit-PR-7"]).await;
    let run = Council::action()
        .api(&gh.uri())
        .input("command", "review")
        .event("workflow_run", run_event)
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("review-status"), "APPROVED");
    assert_eq!(gh.pr_state(7).labels, ["bot-approved"]);
    assert!(ledger_body(&gh).contains("| review | APPROVED |"));
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_reviews_and_writes_nothing() {
    let gh = world(DOCS_POLICY, vec![PrFile::added("docs/a.md", "a")]).await;
    let run = review_run(&gh).input("dry-run", "true").run().await;
    run.assert_code(0);
    assert_eq!(run.output("review-status"), "APPROVED");
    assert!(gh.take_writes().is_empty());
    let label = run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "action:label")
        .cloned()
        .unwrap();
    assert_eq!(label["result"], "SKIPPED");
    assert!(
        label["message"]
            .as_str()
            .unwrap()
            .starts_with("dry run: would add the label")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_reviews_a_pull_request_by_number() {
    let gh = world(DOCS_POLICY, vec![PrFile::added("docs/a.md", "a")]).await;
    let run = Council::cli()
        .args(&[
            "review",
            "--pr",
            "7",
            "--repo",
            "Codertocat/Hello-World",
            "--github-token",
            WORKFLOW_TOKEN,
            "--dry-run",
        ])
        .api(&gh.uri())
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("review APPROVED on #7"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn changed_assistant_context_files_are_validated_at_the_head() {
    let valid = "---\nid: ctx-1\nstatus: active\nnext_steps: [\"ship\"]\n---\nNotes.\n";
    let invalid = format!("---\nid: ctx-1\nstatus: sleeping\npurpose: \"{TOKEN}\"\n---\n");
    let gh = world(
        "",
        vec![
            PrFile::modified("ASSISTANT_CONTEXT.md", &[], &["status: active"]),
            PrFile::modified("agents/b/ASSISTANT_CONTEXT.md", &[], &["x"]),
        ],
    )
    .await;
    gh.file(SHA, "ASSISTANT_CONTEXT.md", valid);
    gh.file(SHA, "agents/b/ASSISTANT_CONTEXT.md", &invalid);
    let run = review_run(&gh).run().await;
    run.assert_code(1);
    let audit = run.audit(7);
    assert_eq!(audit["gates"]["assistant_context"], "FAIL");
    let body = ledger_body(&gh);
    assert!(
        body.contains("agents/b/ASSISTANT&#95;CONTEXT.md")
            || body.contains("agents/b/ASSISTANT_CONTEXT.md"),
        "{body}"
    );
    assert!(body.contains("status"), "{body}");
    run.assert_no_secret(TOKEN);
    let reads: Vec<String> = gh
        .call_lines()
        .into_iter()
        .filter(|c| c.contains("ASSISTANT_CONTEXT"))
        .collect();
    assert_eq!(
        reads.len(),
        2,
        "each changed file read once, at the head: {reads:?}"
    );
    assert!(
        reads.iter().all(|r| r.contains(&format!("ref={SHA}"))),
        "{reads:?}"
    );
    gh.expect_writes(&["POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_does_not_answer_for_the_pull_request_still_gets_a_review() {
    // A proxy or a minimal server that serves the files but not `GET /pulls/{n}`: the
    // head cannot be read again, and the review decides on the files listed, saying so.
    let gh = world(DOCS_POLICY, vec![PrFile::added("docs/x.md", "# x")]).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(format!("/repos/{REPO}/pulls/7")))
        .respond_with(wiremock::ResponseTemplate::new(404))
        .mount(&gh.server)
        .await;
    let run = review_run(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("review-status"), "APPROVED");
    assert!(
        run.summary.contains("could not be read again (404)"),
        "{}",
        run.summary
    );
    gh.expect_writes(&["POST /issues/7/labels", "POST /issues/7/comments"]);
}
