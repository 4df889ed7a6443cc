//! A token in user input is never echoed: wherever a message quotes an ASSISTANT_CONTEXT
//! value or key, a policy's text or a context report's field, the token is shown as its
//! kind and length, in every place the run writes (stdout, stderr, annotations, summary,
//! outputs, the audit file, comments, `--json`).

use serde_json::{Value, json};

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::world::PrFile;
use crate::support::{Council, Run};

/// Shaped like a real classic token (the scanner rightly skips `ghp_xxxx…` placeholders).
const TOKEN: &str = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
const SHOWN: &str = "<GitHub token, 40 characters>";
const HEAD: &str = "feature/devops/PBI-001-login";
const SHA: &str = "1111111111111111111111111111111111111111";

/// The token as a value of a known field, as a key, as a timestamp and twice as a key.
fn context_file() -> String {
    format!("id: ctx-1\nstatus: {TOKEN}\n{TOKEN}: x\ncreated_at: \"{TOKEN}\"\n{TOKEN}: y\n")
}

/// No 8-character piece of the token in `text`: a prefix or a middle of it leaks too.
fn assert_nothing_of_the_token(what: &str, text: &str) {
    let bytes = TOKEN.as_bytes();
    for window in bytes.windows(8) {
        let piece = std::str::from_utf8(window).unwrap_or_default();
        assert!(
            !text.contains(piece),
            "`{piece}` of the token in {what}:\n{text}"
        );
    }
}

/// Everything the run wrote but the file the test planted the token in.
fn assert_run_clean(run: &Run, planted: &[&str]) {
    assert_nothing_of_the_token("stdout", &run.stdout);
    assert_nothing_of_the_token("stderr", &run.stderr);
    assert_nothing_of_the_token("the summary", &run.summary);
    for (name, value) in &run.outputs {
        assert_nothing_of_the_token(name, value);
    }
    let root = run.workspace.path();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if !planted.iter().any(|p| root.join(p) == path) {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                assert_nothing_of_the_token(&path.display().to_string(), &text);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn context_validate_names_token_values_and_keys_by_kind_and_length() {
    let validate = |json: bool| {
        let mut args = vec!["context", "validate", "ASSISTANT_CONTEXT.yaml"];
        if json {
            args.push("--json");
        }
        Council::cli()
            .workspace_file("ASSISTANT_CONTEXT.yaml", &context_file())
            .args(&args)
    };
    let run = validate(false).run().await;
    run.assert_code(1);
    assert_run_clean(&run, &["ASSISTANT_CONTEXT.yaml"]);
    // The verdict on stdout; each problem once, on stderr.
    assert_eq!(run.stdout, "invalid  ASSISTANT_CONTEXT.yaml (7 problems)\n");
    assert_eq!(
        run.stderr,
        format!(
            "error: council context: ASSISTANT_CONTEXT.yaml:2:9: `status`: `status` is `{SHOWN}`; use one of active, paused, completed
error: council context: ASSISTANT_CONTEXT.yaml:2:9: `status`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store
error: council context: ASSISTANT_CONTEXT.yaml:3:1: `{SHOWN}`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store
error: council context: ASSISTANT_CONTEXT.yaml:4:13: `created_at`: `created_at` is not an ISO 8601 date and time with a time zone, such as 2025-12-30T10:00:00+01:00 or 2025-12-30T09:00:00Z (found `{SHOWN}`)
error: council context: ASSISTANT_CONTEXT.yaml:4:14: `created_at`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store
error: council context: ASSISTANT_CONTEXT.yaml:5:1: `{SHOWN}`: `{SHOWN}` appears more than once (first on line 3); keep one
error: council context: ASSISTANT_CONTEXT.yaml:5:1: `{SHOWN}`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store
"
        )
    );

    let run = validate(true).run().await;
    run.assert_code(1);
    assert_run_clean(&run, &["ASSISTANT_CONTEXT.yaml"]);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let fields: Vec<&str> = json["files"][0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "status",
            "status",
            SHOWN,
            "created_at",
            "created_at",
            SHOWN,
            SHOWN
        ]
    );

    let run = Council::cli()
        .workspace_file("ASSISTANT_CONTEXT.yaml", &context_file())
        .args(&["context", "show", "ASSISTANT_CONTEXT.yaml", "--json"])
        .run()
        .await;
    run.assert_code(1);
    assert_run_clean(&run, &["ASSISTANT_CONTEXT.yaml"]);
    assert!(run.stdout.contains(SHOWN), "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_context_validate_action_annotates_without_the_token() {
    let run = Council::action()
        .input("command", "context-validate")
        .workspace_file(
            "ASSISTANT_CONTEXT.md",
            &format!("---\n{}---\n", context_file()),
        )
        .run()
        .await;
    run.assert_code(1);
    assert_run_clean(&run, &["ASSISTANT_CONTEXT.md"]);
    let errors = run.annotations().join("\n");
    assert!(
        errors.contains(&format!("`status` is `{SHOWN}`")),
        "{errors}"
    );
    assert!(
        run.summary.contains("GitHub token, 40 characters"),
        "{}",
        run.summary
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_review_quotes_the_file_without_the_token_in_the_ledger_comment() {
    let gh = FakeGitHub::start().await;
    gh.file("develop", ".github/council.yml", "");
    let _ = gh
        .pr(7)
        .head(HEAD, SHA)
        .base("develop")
        .file(PrFile::modified(
            "ASSISTANT_CONTEXT.md",
            &[],
            &[&format!("status: {TOKEN}")],
        ));
    gh.file(
        SHA,
        "ASSISTANT_CONTEXT.md",
        &format!("---\n{}---\n", context_file()),
    );
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.audit(7)["gates"]["assistant_context"], "FAIL");
    run.assert_no_secret(TOKEN);
    assert_run_clean(&run, &[]);
    let comments = gh.comment_bodies().join("\n");
    assert_nothing_of_the_token("the comments", &comments);
    assert!(
        comments.contains("GitHub token, 40 characters"),
        "{comments}"
    );
    gh.expect_writes(&["POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_policy_with_a_token_shaped_key_is_refused_without_echoing_it() {
    let gh = FakeGitHub::start().await;
    gh.file(
        "develop",
        ".github/council.yml",
        &format!("review:\n  {TOKEN}: true\n"),
    );
    let _ = gh.pr(7).head(HEAD, SHA).base("develop");
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    run.assert_code(2);
    run.assert_no_secret(TOKEN);
    assert_run_clean(&run, &[]);
    let errors = run.annotations().join("\n");
    assert!(
        errors.contains(&format!("unknown field `{SHOWN}`")),
        "{errors}"
    );
}

fn report_with(freshness: &str) -> Value {
    json!({"contextReport": {
        "agentId": "claude-a",
        "reportTimestamp": "2026-01-01T10:00:00Z",
        "contextWindow": {"totalTokens": 1, "availableTokens": 2},
        "loadedProjects": [{"projectId": "p", "filesLoaded": 1, "sizeInTokens": 1, "freshness": freshness}],
        "loadedTasks": [],
        "capabilities": {"canStartImmediately": []},
    }})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_context_report_quoting_a_token_is_refused_without_echoing_it() {
    let gh = FakeGitHub::start().await;
    gh.issue(50, "Codertocat", "Registry.");
    gh.issue(51, "Codertocat", "Task.");
    for report in [
        report_with(TOKEN),
        serde_json::from_str(&format!(
            r#"{{"contextReport": {{"agentId": "a", "{TOKEN}": 1}}}}"#
        ))
        .unwrap(),
    ] {
        let run = Council::action()
            .api(&gh.uri())
            .input("command", "report")
            .input("registry-issue", "50")
            .input("report", &report.to_string())
            .run()
            .await;
        run.assert_code(2);
        run.assert_no_secret(TOKEN);
        assert_run_clean(&run, &[]);
        assert!(run.stdout.contains(SHOWN), "{}", run.stdout);
    }
    // Another agent's report on the registry: a warning that names the field.
    gh.seed(
        50,
        "Codertocat",
        &format!(
            "<context-report>\n{}\n</context-report>",
            report_with(TOKEN)
        ),
    );
    let run = Council::action()
        .api(&gh.uri())
        .input("command", "assign")
        .input("registry-issue", "50")
        .input("issue", "51")
        .run()
        .await;
    run.assert_code(0);
    run.assert_no_secret(TOKEN);
    assert_run_clean(&run, &[]);
    let warnings = run.annotations().join("\n");
    assert!(
        warnings.contains(&format!("freshness`: is `{SHOWN}`")),
        "{warnings}"
    );
}
