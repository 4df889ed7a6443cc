//! One line per problem, naming the input: on a terminal every problem and notice is
//! told once, on stderr (stdout holds the result, and with `--json` only JSON); a bad
//! input is named as what it is (the event file, the policy file, the event name) with
//! the fix; a flag before its subcommand is told where it goes.

use serde_json::Value;

use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::WORKFLOW_TOKEN;
use crate::support::{Council, REPO, Run, fixture};

/// A CLI run in a workspace that holds the bundled `pull_request.opened` payload as
/// `pr.json` (and, as `closed.json`, the same pull request closed).
fn cli() -> Council {
    let opened = fixture("pull_request.opened");
    let mut closed = opened.clone();
    closed["action"] = "closed".into();
    Council::cli()
        .workspace_file("pr.json", &opened.to_string())
        .workspace_file("closed.json", &closed.to_string())
}

/// The run ended with exit 2 and one line on stderr, nothing on stdout; that line.
fn one_error(run: &Run) -> &str {
    run.assert_code(2);
    assert_eq!(run.stdout, "", "stderr: {}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    run.stderr.trim_end()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_input_is_named_as_what_it_is_with_the_fix() {
    let cases: [(&[&str], &str); 8] = [
        (
            &[
                "guard",
                "--event",
                "nope.json",
                "--event-name",
                "pull_request",
            ],
            "error: event file nope.json: no such file or directory",
        ),
        (
            &["guard", "--dry-run"],
            "error: guard needs a pull request: an event (--event FILE --event-name \
             pull_request, e.g. --event examples/pull_request.opened.json), or --pr N (with \
             --repo owner/name outside Actions) to read it through the API",
        ),
        (
            &[
                "guard",
                "--event",
                "pr.json",
                "--event-name",
                "pull-request",
            ],
            "error: --event-name: `pull-request` is not a GitHub event name; did you mean \
             `pull_request`?",
        ),
        (
            &["guard", "--event", "pr.json", "--event-name", "issues"],
            "error: event pr.json: `issues` payloads have an object `issue`; this one does \
             not. Does GITHUB_EVENT_NAME (or --event-name) name the event in the file?",
        ),
        (
            &[
                "guard",
                "--event",
                "pr.json",
                "--event-name",
                "pull_request",
                "--policy",
                "nope.yml",
            ],
            "error: policy file nope.yml: no such file or directory",
        ),
        (
            &["--dry-run", "guard", "--event", "pr.json"],
            "error: move `--dry-run` after `guard`: council guard --dry-run --event pr.json",
        ),
        (
            &["--json", "state", "get", "--issue", "1"],
            "error: move `--json` after `state get`: council state get --json --issue 1",
        ),
        (
            // A word the hint repeats cannot drive the terminal.
            &["--dry-run", "guard", "--event", "a\u{1b}[2J.json"],
            "error: move `--dry-run` after `guard`: council guard --dry-run --event \
             'a<U+001B>[2J.json'",
        ),
    ];
    for (args, says) in cases {
        let run = cli().args(args).process().run().await;
        assert_eq!(one_error(&run), says, "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_policy_value_of_the_wrong_kind_says_what_is_expected() {
    let run = cli()
        .workspace_file("p.yml", "review:\n  diff_size:\n    max_files: ten\n")
        .args(&[
            "guard",
            "--event",
            "pr.json",
            "--event-name",
            "pull_request",
        ])
        .args(&["--dry-run", "--policy", "p.yml"])
        .process()
        .run()
        .await;
    assert_eq!(
        one_error(&run),
        "error: policy p.yml:3:16: review.diff_size.max_files: expected a whole number (0 or \
         more), found `ten`"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_to_do_is_one_notice_on_stderr_and_json_stays_json() {
    let args = [
        "run",
        "--event",
        "closed.json",
        "--event-name",
        "pull_request",
    ];
    let run = cli().args(&args).process().run().await;
    run.assert_code(0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "notice: council: event `pull_request` with action `closed` is not one council \
         handles; nothing to do\n"
    );
    let json = cli().args(&args).args(&["--json"]).process().run().await;
    json.assert_code(0);
    let doc: Value = serde_json::from_str(&json.stdout).expect("stdout is one JSON document");
    assert_eq!(json.stdout.lines().count(), 1);
    assert!(doc["notice"].as_str().unwrap().ends_with("nothing to do"));
    assert_eq!(
        json.stderr, run.stderr,
        "the notice is told once, on stderr"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_guard_on_a_terminal_prints_its_result_on_stdout_and_nothing_twice() {
    let run = cli()
        .args(&[
            "guard",
            "--event",
            "pr.json",
            "--event-name",
            "pull_request",
            "--dry-run",
        ])
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.stderr, "", "a failed gate is the result, on stdout");
    assert!(run.stdout.starts_with("guard FAIL on #2"), "{}", run.stdout);
    let json = cli()
        .args(&[
            "guard",
            "--event",
            "pr.json",
            "--event-name",
            "pull_request",
        ])
        .args(&["--dry-run", "--json"])
        .process()
        .run()
        .await;
    json.assert_code(1);
    let doc: Value = serde_json::from_str(&json.stdout).expect("stdout is one JSON document");
    assert_eq!(doc["outputs"]["guard-status"], "FAIL");
    assert_eq!(json.stderr, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_put_is_one_warning_and_the_result_points_at_it() {
    let gh = FakeGitHub::with_issue(1, "Codertocat", "Fix the typo.").await;
    gh.set_write_status(403);
    let run = Council::cli()
        .api(&gh.uri())
        .env("GH_TOKEN", WORKFLOW_TOKEN)
        .args(&[
            "state", "put", "--issue", "1", "--repo", REPO, "--step", "coding",
        ])
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(
        run.stderr,
        format!(
            "warning: council state put: {REPO}#1: Not posted: the token may not write \
             comments (403). Grant \"issues: write\" in the workflow's permissions (runs of \
             pull_request from forks always get a read-only token).\n"
        )
    );
    assert!(
        run.stdout.starts_with(&format!(
            "state put on {REPO}#1: Not posted (see the warning).\n"
        )),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("403"), "{}", run.stdout);
    gh.expect_writes(&["POST /issues/1/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_report_or_label_is_one_warning_and_the_result_points_at_it() {
    let gh = FakeGitHub::start().await;
    gh.issue(50, "Codertocat", "Agents: post your context reports here.");
    gh.issue(51, "Codertocat", "Add SSR to the dashboard.");
    let report = serde_json::json!({"contextReport": {
        "agentId": "claude-a",
        "reportTimestamp": chrono::Utc::now().to_rfc3339(),
        "contextWindow": {"totalTokens": 10, "availableTokens": 90},
        "loadedProjects": [],
        "loadedTasks": [{"taskId": "#51", "relevantFiles": 3}],
        "capabilities": {"canStartImmediately": ["#51"], "needsContextLoad": []},
    }});
    gh.seed(
        50,
        "github-actions[bot]",
        &format!("<context-report>\n{report}\n</context-report>\n"),
    );
    gh.token("ghs_read_only").read_only();
    let cli = |command: &str| {
        Council::cli()
            .api(&gh.uri())
            .env("GH_TOKEN", "ghs_read_only")
            .args(&[command, "--repo", REPO, "--registry-issue", "50"])
    };
    let run = cli("report")
        .args(&["--report", &report.to_string()])
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(
        run.stderr,
        "warning: council report: the token may not write comments (403): the report was not \
         posted; grant \"issues: write\" in the workflow's permissions\n"
    );
    assert_eq!(
        run.stdout,
        format!("report of claude-a on {REPO}#50: Not posted (see the warning).\n")
    );

    let run = cli("assign")
        .args(&["--issue", "51", "--apply"])
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(
        run.stderr,
        "warning: council assign: the token may not label issues (403): `agent:claude-a` was \
         not applied; grant \"issues: write\" in the workflow's permissions\n"
    );
    assert!(
        run.stdout
            .contains("\n  note: agent:claude-a was not applied (see the warning)\n"),
        "{}",
        run.stdout
    );
    gh.expect_writes(&["POST /issues/50/comments", "POST /issues/51/labels"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn compaction_on_a_terminal_is_one_notice_that_says_what_was_dropped() {
    let gh = FakeGitHub::with_issue(1, "Codertocat", "List the repositories.").await;
    let repos = std::fs::read_to_string(crate::support::data("github/repos-280.json")).unwrap();
    let run = Council::cli()
        .api(&gh.uri())
        .env("GH_TOKEN", WORKFLOW_TOKEN)
        .workspace_file("memory.json", &repos)
        .args(&["state", "put", "--issue", "1", "--repo", REPO])
        .args(&["--memory", "@memory.json", "--dry-run"])
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "notice: council state put: memory was compacted to fit GitHub's comment limit ("
        ) && !run.stderr.contains("step summary"),
        "{}",
        run.stderr
    );
    // The table still says the memory was compacted; no note repeats the notice.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  memory         input, compacted  ["))
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("note: memory was compacted"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_input_value_in_actions_is_exit_2_with_outputs_and_an_annotation() {
    // The value parser refuses `yes`; the run still ends as every run does.
    let run = Council::action()
        .input("dry-run", "yes")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(2);
    assert_eq!(run.output("guard-status"), "PENDING");
    let errors: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .contains("input `dry-run` (--dry-run): `yes` is not a boolean; use true or false"),
        "{errors:?}"
    );
}
