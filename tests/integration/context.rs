//! `context-validate` and `context-sync` end to end: files in the workspace, problems as
//! annotations on their lines, and the mapping to and from the issue's `<agent-state>`.

use crate::support::Council;
use crate::support::fake_github::FakeGitHub;

const ISSUE: u64 = 1;
const AUTHOR: &str = "Codertocat";

const VALID: &str = "---\nid: ctx-1\n# the owner\nuser: Ada\nstatus: active\ntags: [auth]   # unknown, kept\nnext_steps:\n  - write tests\n---\n# Log\n\n- 2026-01-01: started\n";

fn validate() -> Council {
    Council::action().input("command", "context-validate")
}

fn sync(gh: &FakeGitHub) -> Council {
    Council::action()
        .api(&gh.uri())
        .input("command", "context-sync")
        .input("issue", &ISSUE.to_string())
        .input("context-file", "ASSISTANT_CONTEXT.md")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_file_in_the_repository_is_checked_and_problems_point_at_lines() {
    let run = validate()
        .workspace_file("ASSISTANT_CONTEXT.md", VALID)
        .workspace_file(
            "tools/agent/ASSISTANT_CONTEXT.yaml",
            "id: 7\nstatus: done\nupdated_at: 2026-01-01\n",
        )
        .run()
        .await;
    run.assert_code(1);
    let errors: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::error"))
        .collect();
    insta::assert_debug_snapshot!(errors, @r#"
    [
        "::error file=tools/agent/ASSISTANT_CONTEXT.yaml,line=1,col=5,title=council context::tools/agent/ASSISTANT_CONTEXT.yaml:1:5: `id`: `id` must be a string, but `7` is read as a number; quote it",
        "::error file=tools/agent/ASSISTANT_CONTEXT.yaml,line=2,col=9,title=council context::tools/agent/ASSISTANT_CONTEXT.yaml:2:9: `status`: `status` is `done`; use one of active, paused, completed",
        "::error file=tools/agent/ASSISTANT_CONTEXT.yaml,line=3,col=13,title=council context::tools/agent/ASSISTANT_CONTEXT.yaml:3:13: `updated_at`: `updated_at` has a date but no time and time zone; write e.g. 2025-12-30T10:00:00+01:00 (found `2026-01-01`)",
    ]
    "#);
    insta::assert_snapshot!(run.summary, @r"
    ### agent-council · context-validate

    2 files checked, 1 invalid.

    | File | Result |
    | --- | --- |
    | <code>ASSISTANT&#95;CONTEXT.md</code> | valid |
    | <code>tools/agent/ASSISTANT&#95;CONTEXT.yaml</code> | **invalid**: 3 problems |

    - tools/agent/ASSISTANT&#95;CONTEXT.yaml:1:5: &#96;id&#96;: &#96;id&#96; must be a string, but &#96;7&#96; is read as a number; quote it
    - tools/agent/ASSISTANT&#95;CONTEXT.yaml:2:9: &#96;status&#96;: &#96;status&#96; is &#96;done&#96;; use one of active, paused, completed
    - tools/agent/ASSISTANT&#95;CONTEXT.yaml:3:13: &#96;updated&#95;at&#96;: &#96;updated&#95;at&#96; has a date but no time and time zone; write e.g. 2025-12-30T10:00:00+01:00 (found &#96;2026-01-01&#96;)
    ");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_repository_passes_and_one_without_files_says_so() {
    let run = validate()
        .workspace_file("docs/ASSISTANT_CONTEXT.md", VALID)
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.summary.contains("1 file checked, 0 invalid."),
        "{}",
        run.summary
    );
    let run = validate().run().await;
    run.assert_code(0);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::notice") && a.contains("no ASSISTANT_CONTEXT"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_names_files_and_a_secret_by_field_and_line_only() {
    let token = format!("ghp_{}", "k7L6".repeat(9));
    let run = Council::cli()
        .workspace_file(
            "a/ASSISTANT_CONTEXT.md",
            &format!("---\nid: a\npurpose: \"deploy with {token}\"\n---\n"),
        )
        .workspace_file("b/ASSISTANT_CONTEXT.md", VALID)
        .args(&[
            "context",
            "validate",
            "a/ASSISTANT_CONTEXT.md",
            "b/ASSISTANT_CONTEXT.md",
        ])
        .run()
        .await;
    run.assert_code(1);
    // The file itself holds the token (planted by the test); nothing council printed does.
    assert!(!run.stdout.contains(&token) && !run.stderr.contains(&token));
    // Each file's verdict on stdout; each problem once, on stderr.
    insta::assert_snapshot!(run.stdout, @r"
    invalid  a/ASSISTANT_CONTEXT.md (1 problem)
    ok       b/ASSISTANT_CONTEXT.md
    ");
    insta::assert_snapshot!(run.stderr, @"error: council context: a/ASSISTANT_CONTEXT.md:3:23: `purpose`: holds a plaintext secret (GitHub token); RFC 0001 forbids secrets in ASSISTANT_CONTEXT files: point to an environment variable or a secret store");
    let run = Council::cli()
        .args(&["context", "validate", "../outside.md"])
        .run()
        .await;
    run.assert_code(2);
}

#[tokio::test(flavor = "multi_thread")]
async fn show_prints_fields_or_json() {
    let run = Council::cli()
        .workspace_file("ASSISTANT_CONTEXT.md", VALID)
        .args(&["context", "show", "ASSISTANT_CONTEXT.md", "--json"])
        .run()
        .await;
    run.assert_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        json["fields"]["next_steps"],
        serde_json::json!(["write tests"])
    );
    assert_eq!(json["unknown_fields"], serde_json::json!(["tags"]));
    assert_eq!(json["body"], "# Log\n\n- 2026-01-01: started\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn sync_to_file_maps_the_latest_state_and_keeps_every_other_byte() {
    let gh = FakeGitHub::start().await;
    gh.issue(ISSUE, AUTHOR, "Auth.");
    gh.seed(
        ISSUE,
        AUTHOR,
        "<agent-state><intent>add_auth</intent><step>waiting_for_review</step><progress>70</progress>\
         <memory>{\"files_changed\": [\"auth.ts\"], \"pending\": \"integration_tests\"}</memory>\
         <next_action>run_tests_again</next_action></agent-state>",
    );
    let council = sync(&gh).workspace_file("ASSISTANT_CONTEXT.md", VALID);
    let path = council.workspace().join("ASSISTANT_CONTEXT.md");
    let run = council.run().await;
    run.assert_code(0);
    let written = std::fs::read_to_string(&path).unwrap();
    let stamp = written
        .lines()
        .find(|l| l.starts_with("updated_at: "))
        .unwrap()
        .to_owned();
    insta::assert_snapshot!(written.replace(&stamp, "updated_at: <now>"), @r"
    ---
    id: ctx-1
    # the owner
    user: Ada
    status: paused
    tags: [auth]   # unknown, kept
    next_steps:
      - run_tests_again
    files_changed:
      - auth.ts
    purpose: add_auth
    updated_at: <now>
    ---
    # Log

    - 2026-01-01: started
    ");
    assert_eq!(run.output("state-step"), "waiting_for_review");
    assert!(gh.posted().await.is_empty(), "to-file posts nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn sync_to_issue_posts_the_file_as_state_and_keeps_the_memory() {
    let gh = FakeGitHub::start().await;
    gh.issue(ISSUE, AUTHOR, "Auth.");
    gh.seed(
        ISSUE,
        AUTHOR,
        "<agent-state><agent>claude</agent><step>coding</step><memory>{\"attempts\": 2}</memory></agent-state>",
    );
    let run = sync(&gh)
        .input("direction", "to-issue")
        .workspace_file(
            "ASSISTANT_CONTEXT.md",
            "---\npurpose: Finish the auth flow\nstatus: paused\nnext_steps: [ask for the client id]\nfiles_changed: [src/auth.rs]\n---\n",
        )
        .run()
        .await;
    run.assert_code(0);
    let posted = gh.posted().await;
    assert_eq!(posted.len(), 1);
    let block = posted[0]
        .split("```xml\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .unwrap();
    insta::assert_snapshot!(block, @r#"
    <agent-state>
      <agent>claude</agent>
      <intent>Finish the auth flow</intent>
      <step>waiting</step>
      <memory>{"attempts":2,"files_changed":["src/auth.rs"]}</memory>
      <next_action>ask for the client id</next_action>
    </agent-state>
    "#);
    assert_eq!(run.output("state-step"), "waiting");
    gh.expect_writes(&["POST /issues/1/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_or_secret_file_is_never_synced() {
    let gh = FakeGitHub::start().await;
    gh.issue(ISSUE, AUTHOR, "Auth.");
    let token = format!("ghp_{}", "q1W2".repeat(9));
    let bad = format!("---\npurpose: \"{token}\"\n---\n");
    for direction in ["to-issue", "to-file"] {
        let council = sync(&gh)
            .input("direction", direction)
            .workspace_file("ASSISTANT_CONTEXT.md", &bad);
        let path = council.workspace().join("ASSISTANT_CONTEXT.md");
        let run = council.run().await;
        run.assert_code(2);
        assert!(
            run.stdout
                .contains("`purpose`: holds a plaintext secret (GitHub token)"),
            "{}",
            run.stdout
        );
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            bad,
            "{direction}: the file is untouched"
        );
    }
    assert!(gh.posted().await.is_empty());
    let run = sync(&gh).input("direction", "sideways").run().await;
    run.assert_code(2);
}
