//! The Context Protocol's v2.1 elements end to end: the origin project's own example
//! read back as outputs and a summary that asks the human, a bad element as a warning,
//! the loop warning from the policy, and `state put` writing the elements.

use crate::support::fake_github::FakeGitHub;
use crate::support::{Council, REPO};

const ISSUE: u64 = 1;
const AUTHOR: &str = "Codertocat";

/// Git-Core-Protocol's `CONTEXT_PROTOCOL.md` v2.1 example, as an agent posts it.
const ORIGIN_EXAMPLE: &str = r#"Necesito credenciales para continuar.

```xml
<agent-state>
  <!-- 1. INTENCIÓN Y ESTADO -->
  <intent>implement_auth_flow</intent>
  <step>waiting_for_input</step>
  <progress>45</progress>
  <plan>
    <item status="done">Analizar requisitos de OAuth</item>
    <item status="done">Crear estructura de base de datos</item>
    <item status="in_progress">Implementar endpoints de API</item>
    <item status="pending">Crear frontend de login</item>
    <item status="pending">Tests de integración</item>
  </plan>
  <input_request>
    <status>waiting</status> <!-- waiting | received | none -->
    <question>¿Cuál es el Client ID de Google para el entorno de staging?</question>
  </input_request>
  <metrics>
    <tool_calls>12</tool_calls>
    <errors>0</errors>
    <cost_estimate>0.15</cost_estimate>
  </metrics>
  <memory>
    {
      "last_file_edited": "src/auth/router.ts",
      "blockers": []
    }
  </memory>
  <next_action>check_user_response</next_action>
</agent-state>
```
"#;

async fn world() -> FakeGitHub {
    FakeGitHub::with_issue(ISSUE, AUTHOR, "OAuth for staging.").await
}

fn get(gh: &FakeGitHub) -> Council {
    Council::state_get(&gh.uri(), ISSUE)
}

fn put(gh: &FakeGitHub) -> Council {
    Council::state_put(&gh.uri(), ISSUE)
}

fn warnings(run: &crate::support::Run) -> Vec<&str> {
    run.annotations()
        .into_iter()
        .filter(|a| a.starts_with("::warning"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_origin_example_is_exposed_and_its_question_asked() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, ORIGIN_EXAMPLE);
    let run = get(&gh).run().await;
    run.assert_code(0);
    let plan: serde_json::Value = serde_json::from_str(run.output("state-plan")).unwrap();
    assert_eq!(plan.as_array().map(Vec::len), Some(5));
    assert_eq!(
        plan[2],
        serde_json::json!({"status": "in_progress", "text": "Implementar endpoints de API"})
    );
    assert_eq!(
        run.output("state-input-request"),
        r#"{"status":"waiting","question":"¿Cuál es el Client ID de Google para el entorno de staging?","open":true}"#
    );
    assert!(warnings(&run).is_empty(), "{:?}", run.annotations());
    insta::assert_snapshot!(run.summary, @r"
    ### agent-council · state-get · Codertocat/Hello-World#1

    | Field | Value |
    | --- | --- |
    | `intent` | <code>implement&#95;auth&#95;flow</code> |
    | `step` | <code>waiting&#95;for&#95;input</code> |
    | `progress` | <code>45</code> |
    | `memory` | <code>{&quot;last&#95;file&#95;edited&quot;&#58;&quot;src/auth/router.ts&quot;,&quot;blockers&quot;&#58;&#91;&#93;}</code> |
    | `next_action` | <code>check&#95;user&#95;response</code> |
    | `agent` | — |
    | `plan` | <code>5 items&#58; 2 done, 1 in progress, 2 pending</code> |
    | `input_request` | <code>waiting&#58; ¿Cuál es el Client ID de Google para el entorno de staging?</code> |
    | `metrics` | <code>tool&#95;calls 12 · errors 0 · cost&#95;estimate 0.15</code> |

    > [!IMPORTANT]
    > **The agent is waiting for your answer:** ¿Cuál es el Client ID de Google para el entorno de staging?

    **Plan**

    - [x] Analizar requisitos de OAuth
    - [x] Crear estructura de base de datos
    - [ ] Implementar endpoints de API _(in progress)_
    - [ ] Crear frontend de login
    - [ ] Tests de integración

    Read from <https://github.com/Codertocat/Hello-World/pull/1#issuecomment-5001> by <code>Codertocat</code> (2026-11-18T12:30:01Z).

    <sub>policy: default policy (no .github/council.yml on the default branch) · comments read: 1 in 1 page · GitHub API requests: 1</sub>
    ");
}

#[tokio::test(flavor = "multi_thread")]
async fn json_output_carries_the_typed_elements() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, ORIGIN_EXAMPLE);
    let run = Council::cli()
        .api(&gh.uri())
        .args(&[
            "state",
            "get",
            "--issue",
            "1",
            "--repo",
            REPO,
            "--json",
            "--github-token",
            "ghs_test_token_value",
        ])
        .run()
        .await;
    run.assert_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        json["state"]["metrics"],
        serde_json::json!({"tool_calls": 12, "errors": 0, "cost_estimate": 0.15, "generated_at": null})
    );
    assert_eq!(json["state"]["input_request"]["open"], true);
    assert_eq!(json["state"]["plan"][0]["status"], "done");
    assert_eq!(json["state"]["element_warnings"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn too_many_tool_calls_warn_of_a_loop() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, ORIGIN_EXAMPLE);
    gh.set_default_policy("agent_state:\n  max_tool_calls: 10\n");
    let run = get(&gh).run().await;
    run.assert_code(0);
    let shown = warnings(&run);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].contains("metrics.tool_calls is 12, above agent_state.max_tool_calls (10): the agent may be looping"),
        "{shown:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_element_is_a_warning_and_the_rest_of_the_block_counts() {
    let gh = world().await;
    gh.seed(
        ISSUE,
        AUTHOR,
        "<agent-state><step>coding</step><plan><item status=\"blocked\">x</item></plan>\
         <input_request><status>answered</status></input_request></agent-state>",
    );
    let run = get(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("state-step"), "coding");
    assert_eq!(run.output("state-plan"), "[]");
    assert_eq!(
        run.output("state-input-request"),
        r#"{"status":"answered","question":null,"open":false}"#
    );
    let shown = warnings(&run);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].contains("`<plan>` was not read: item 1 has status `blocked`"),
        "{shown:?}"
    );
    assert!(
        run.summary
            .contains("| `plan` | <code>invalid (see the warning)</code> |"),
        "{}",
        run.summary
    );
    assert!(
        !run.summary.contains("waiting for your answer"),
        "{}",
        run.summary
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn put_writes_agent_plan_request_and_metrics_and_keeps_other_elements() {
    let gh = world().await;
    gh.seed(
        ISSUE,
        AUTHOR,
        "<agent-state><step>coding</step><plan><item status=\"done\">old</item></plan><friction>kept</friction></agent-state>",
    );
    let run = put(&gh)
        .workspace_file("agent/plan.json", r#"[{"status": "done", "text": "Parse <input> & validate"}, {"status": "pending", "text": "Ship"}]"#)
        .input("agent", "claude")
        .input("plan", "@agent/plan.json")
        .input("input-request", "Which region should staging use?")
        .input("metrics", r#"{"tool_calls": 3, "errors": 0, "cost_estimate": 0.02, "generated_at": "2026-01-02T03:04:05Z"}"#)
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
      <step>coding</step>
      <plan>
        <item status="done">Parse &lt;input&gt; &amp; validate</item>
        <item status="pending">Ship</item>
      </plan>
      <friction>kept</friction>
      <input_request>
        <status>waiting</status>
        <question>Which region should staging use?</question>
      </input_request>
      <metrics>
        <tool_calls>3</tool_calls>
        <errors>0</errors>
        <cost_estimate>0.02</cost_estimate>
        <generated_at>2026-01-02T03:04:05Z</generated_at>
      </metrics>
    </agent-state>
    "#);
    assert_eq!(run.output("state-agent"), "claude");
    assert_eq!(
        run.output("state-input-request"),
        r#"{"status":"waiting","question":"Which region should staging use?","open":true}"#
    );
    assert!(
        run.summary.contains("The agent is waiting for your answer"),
        "{}",
        run.summary
    );
    // What was posted reads back with the same elements.
    let back = get(&gh).run().await;
    assert_eq!(back.output("state-plan"), run.output("state-plan"));
    gh.expect_writes(&["POST /issues/1/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_are_refused_in_every_element_and_nothing_is_posted() {
    let gh = world().await;
    let token = format!("ghp_{}", "x9Y8".repeat(9));
    // `true`: refused as a secret; `false`: refused by the input's own rules first (a
    // step is a lower-case token, a timestamp is a timestamp), never echoing it.
    for (input, value, as_secret) in [
        ("input-request", format!("Use {token}?"), true),
        (
            "input-request",
            format!(r#"{{"status": "{token}", "question": "Which region?"}}"#),
            true,
        ),
        (
            "plan",
            format!(r#"[{{"status": "done", "text": "export GH={token}"}}]"#),
            true,
        ),
        ("agent", token.clone(), true),
        ("intent", format!("deploy with {token}"), true),
        ("next-action", format!("push using {token}"), true),
        ("memory", format!(r#"{{"notes": "{token}"}}"#), true),
        (
            "memory",
            format!(r#"{{"notes": "\u0067{}"}}"#, &token[1..]),
            true,
        ),
        ("summary", format!("token: {token}"), true),
        ("step", token.clone(), false),
        (
            "metrics",
            format!(r#"{{"tool_calls": 3, "generated_at": "{token}"}}"#),
            false,
        ),
    ] {
        let run = put(&gh).input(input, &value).run().await;
        run.assert_code(2);
        let needle = match as_secret {
            true => format!("input `{input}` looks like it holds a GitHub token"),
            false => format!("`{input}`"),
        };
        assert!(run.stdout.contains(&needle), "{input}: {}", run.stdout);
        run.assert_no_secret(&token[4..]);
    }
    assert!(gh.posted().await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_sized_memory_keeps_every_repository_name_and_says_what_was_left_out() {
    let gh = world().await;
    let repos = std::fs::read_to_string(crate::support::data("github/repos-280.json")).unwrap();
    let run = put(&gh)
        .workspace_file("memory.json", &repos)
        .input("memory", "@memory.json")
        .input("step", "listing")
        .run()
        .await;
    run.assert_code(0);
    let posted = gh.posted().await;
    let chars = posted[0].chars().count();
    assert!((65_536 * 9 / 10..=65_536).contains(&chars), "{chars}");
    let memory: serde_json::Value = serde_json::from_str(run.output("state-memory")).unwrap();
    let original: serde_json::Value = serde_json::from_str(&repos).unwrap();
    let kept = memory.as_array().unwrap();
    for (item, orig) in kept.iter().zip(original.as_array().unwrap()) {
        assert_eq!(
            (&item["name"], &item["full_name"]),
            (&orig["name"], &orig["full_name"])
        );
    }
    assert_eq!(kept[280]["(omitted)"]["of"], 9_240);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::notice") && a.contains("compacted")),
        "{:?}",
        run.annotations()
    );
    assert!(run.summary.contains("items kept"), "{}", run.summary);
    gh.expect_writes(&["POST /issues/1/comments"]);
}

/// A block whose only v2.1 content is an input request with `status`.
fn asking(status: &str) -> String {
    format!(
        "<agent-state><step>blocked</step><input_request><status>{status}</status>\
         <question>Which AWS region hosts staging?</question></input_request></agent-state>"
    )
}

/// A block that reports `calls` tool calls.
fn calls(calls: u64) -> String {
    format!(
        "<agent-state><step>coding</step><metrics><tool_calls>{calls}</tool_calls></metrics>\
         </agent-state>"
    )
}

fn loop_warnings(run: &crate::support::Run) -> Vec<&str> {
    warnings(run)
        .into_iter()
        .filter(|w| w.contains("may be looping"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn any_status_but_answered_is_an_open_question_kept_verbatim() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, &asking("open"));
    let run = get(&gh).run().await;
    run.assert_code(0);
    assert!(warnings(&run).is_empty(), "{:?}", run.annotations());
    assert_eq!(
        run.output("state-input-request"),
        r#"{"status":"open","question":"Which AWS region hosts staging?","open":true}"#
    );
    assert!(
        run.summary.contains(
            "| `input_request` | <code>open&#58; Which AWS region hosts staging?</code> |"
        ),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "> **The agent is waiting for your answer:** Which AWS region hosts staging?"
        ),
        "{}",
        run.summary
    );

    gh.seed(ISSUE, AUTHOR, &asking("Needs-Human"));
    let run = Council::cli()
        .api(&gh.uri())
        .args(&[
            "state",
            "get",
            "--issue",
            "1",
            "--repo",
            REPO,
            "--json",
            "--github-token",
            "ghs_test_token_value",
        ])
        .run()
        .await;
    run.assert_code(0);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        json["state"]["input_request"],
        serde_json::json!({"status": "Needs-Human", "question": "Which AWS region hosts staging?", "open": true})
    );
    assert_eq!(json["state"]["element_warnings"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answered_request_is_closed_whatever_its_case() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, &asking("Answered"));
    let run = get(&gh).run().await;
    run.assert_code(0);
    assert!(warnings(&run).is_empty(), "{:?}", run.annotations());
    assert_eq!(
        run.output("state-input-request"),
        r#"{"status":"Answered","question":"Which AWS region hosts staging?","open":false}"#
    );
    assert!(
        !run.summary.contains("waiting for your answer"),
        "{}",
        run.summary
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn put_writes_any_status_and_it_reads_back() {
    let gh = world().await;
    let run = put(&gh)
        .input(
            "input-request",
            r#"{"status": "needs-human", "question": "Ship on Friday?"}"#,
        )
        .run()
        .await;
    run.assert_code(0);
    let posted = gh.posted().await;
    assert_eq!(posted.len(), 1);
    assert!(
        posted[0].contains("<status>needs-human</status>"),
        "{}",
        posted[0]
    );
    let back = get(&gh).run().await;
    assert_eq!(
        back.output("state-input-request"),
        r#"{"status":"needs-human","question":"Ship on Friday?","open":true}"#
    );
    gh.expect_writes(&["POST /issues/1/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_policys_max_tool_calls_decides_the_loop_warning() {
    let gh = world().await;
    gh.set_default_policy("agent_state:\n  max_tool_calls: 3\n");
    gh.seed(ISSUE, AUTHOR, &calls(5));
    let run = get(&gh).run().await;
    run.assert_code(0);
    let shown = loop_warnings(&run);
    assert_eq!(shown.len(), 1, "{:?}", run.annotations());
    assert!(
        shown[0].contains("metrics.tool_calls is 5, above agent_state.max_tool_calls (3)"),
        "{shown:?}"
    );

    gh.set_default_policy("agent_state:\n  max_tool_calls: 50\n");
    gh.seed(ISSUE, AUTHOR, &calls(20));
    let run = get(&gh).run().await;
    run.assert_code(0);
    assert!(warnings(&run).is_empty(), "{:?}", run.annotations());

    // Through the REST fallback the policy is a second read; it still decides.
    gh.fail_issue_query();
    gh.set_default_policy("agent_state:\n  max_tool_calls: 19\n");
    let run = get(&gh).run().await;
    run.assert_code(0);
    assert_eq!(loop_warnings(&run).len(), 1, "{:?}", run.annotations());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_takes_max_tool_calls_from_a_local_policy() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, &calls(5));
    let cli = |policy: &str| {
        Council::cli()
            .api(&gh.uri())
            .workspace_file("council.yml", policy)
            .args(&[
                "state",
                "get",
                "--issue",
                "1",
                "--repo",
                REPO,
                "--policy",
                "council.yml",
                "--github-token",
                "ghs_test_token_value",
            ])
    };
    let run = cli("agent_state:\n  max_tool_calls: 3\n").run().await;
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("metrics.tool_calls is 5, above agent_state.max_tool_calls (3)"),
        "{}",
        run.stderr
    );

    gh.seed(ISSUE, AUTHOR, &calls(20));
    let run = cli("agent_state:\n  max_tool_calls: 50\n").run().await;
    run.assert_code(0);
    assert!(!run.stderr.contains("may be looping"), "{}", run.stderr);
}

/// SPEC (Policy file): without `--policy` the CLI reads `.github/council.yml` of the
/// working directory, and the default policy when there is none; the API's copy is the
/// action's.
#[tokio::test(flavor = "multi_thread")]
async fn the_cli_reads_the_checked_out_policy_without_the_flag() {
    let gh = world().await;
    gh.seed(ISSUE, AUTHOR, &calls(5));
    gh.set_default_policy("agent_state:\n  max_tool_calls: 50\n");
    let args = [
        "state",
        "get",
        "--issue",
        "1",
        "--repo",
        REPO,
        "--github-token",
        "ghs_test_token_value",
    ];
    let run = Council::cli()
        .api(&gh.uri())
        .workspace_file(".github/council.yml", "agent_state:\n  max_tool_calls: 3\n")
        .args(&args)
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("metrics.tool_calls is 5, above agent_state.max_tool_calls (3)"),
        "{}",
        run.stderr
    );

    gh.set_default_policy("agent_state:\n  max_tool_calls: 3\n");
    let run = Council::cli().api(&gh.uri()).args(&args).run().await;
    run.assert_code(0);
    assert!(!run.stderr.contains("may be looping"), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("default policy (no local .github/council.yml)"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn put_warns_of_a_loop_in_the_state_it_builds_on_by_the_policy() {
    let gh = world().await;
    gh.set_default_policy("agent_state:\n  max_tool_calls: 3\n");
    gh.seed(ISSUE, AUTHOR, &calls(5));
    let run = put(&gh).input("step", "reviewing").run().await;
    run.assert_code(0);
    let shown = loop_warnings(&run);
    assert_eq!(shown.len(), 1, "{:?}", run.annotations());
    assert!(
        shown[0].contains("metrics.tool_calls is 5, above agent_state.max_tool_calls (3)"),
        "{shown:?}"
    );
    gh.expect_writes(&["POST /issues/1/comments"]);
}

// ------------------------------------------------ secrets in a block that is read

/// Shaped like a real classic token (the scanner rightly skips `ghp_xxxx…`).
const TOKEN: &str = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
/// The token after its `_`: what is left of it in Markdown that writes `_` as `&#95;`.
const TOKEN_TAIL: &str = "R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";

/// A trusted block with `element` in place of the plain fields' defaults or added.
fn block_with(root: &str, element: &str) -> String {
    let mut fields = vec![
        ("intent", "<intent>ship_it</intent>".to_string()),
        ("step", "<step>coding</step>".to_string()),
        ("progress", "<progress>40</progress>".to_string()),
        (
            "next_action",
            "<next_action>run_tests</next_action>".to_string(),
        ),
    ];
    let name = element
        .trim_start_matches('<')
        .split(['>', ' '])
        .next()
        .unwrap()
        .to_string();
    match fields.iter_mut().find(|(n, _)| *n == name) {
        Some(field) => field.1 = element.to_string(),
        None if !element.is_empty() => fields.push(("", element.to_string())),
        None => {}
    }
    let body: Vec<String> = fields
        .into_iter()
        .map(|(_, xml)| format!("  {xml}"))
        .collect();
    format!(
        "A human answered in the block.\n\n```xml\n<agent-state{root}>\n{}\n</agent-state>\n```\n",
        body.join("\n")
    )
}

/// Where a human (or an agent) might leave a token in a block, each element of the
/// protocol: as written, hidden behind an XML reference, in CDATA or a JSON escape.
fn secret_cases() -> Vec<(&'static str, String, String)> {
    let t = TOKEN;
    // The same token with one character written as a reference / a JSON escape.
    let referenced = format!(
        "{}&#x{:X};{}",
        &t[..10],
        u32::from(t.as_bytes()[10]),
        &t[11..]
    );
    let json_escaped = format!("\\u00{:x}{}", t.as_bytes()[0], &t[1..]);
    let el = |name: &'static str, xml: String| (name, String::new(), xml);
    vec![
        el("intent", format!("<intent>deploy with {t}</intent>")),
        el("intent", format!("<intent><![CDATA[{t}]]></intent>")),
        el("step", format!("<step>{t}</step>")),
        el(
            "next_action",
            format!("<next_action>push using {t}</next_action>"),
        ),
        el(
            "memory",
            format!(r#"<memory>{{"notes": "use {t} to push"}}</memory>"#),
        ),
        el(
            "memory",
            format!(r#"<memory>{{"notes": "{json_escaped}"}}</memory>"#),
        ),
        el("agent", format!("<agent>{t}</agent>")),
        el(
            "plan",
            format!(
                r#"<plan><item status="done">read the docs</item><item status="pending">export GH={t}</item></plan>"#
            ),
        ),
        el(
            "plan",
            format!(r#"<plan><item status="{t}">x</item></plan>"#),
        ),
        el(
            "input_request",
            format!(
                "<input_request><status>waiting</status><question>Is {t} the right token?</question></input_request>"
            ),
        ),
        el(
            "input_request",
            format!(
                "<input_request><status>waiting</status><question>Is {referenced} right?</question></input_request>"
            ),
        ),
        el(
            "input_request",
            format!(
                "<input_request><status>{t}</status><question>Which region?</question></input_request>"
            ),
        ),
        el(
            "metrics",
            format!(
                "<metrics><tool_calls>3</tool_calls><generated_at>{t}</generated_at></metrics>"
            ),
        ),
        el(
            "reviewer_notes",
            format!("<reviewer_notes>token: {t}</reviewer_notes>"),
        ),
        (
            "agent-state",
            format!(r#" version="2.1" origin="{t}""#),
            String::new(),
        ),
    ]
}

/// A secret in any element of the block that is read never reaches the outputs, the
/// step summary, the log, `--json` or the next block `state put` writes: the element
/// is withheld, a warning names the comment and the element (never the value), and the
/// rest of the block still counts.
#[tokio::test(flavor = "multi_thread")]
async fn a_secret_in_any_element_is_withheld_on_read_and_never_carried_over() {
    for (element, root, xml) in secret_cases() {
        let gh = world().await;
        let id = gh.seed(ISSUE, AUTHOR, &block_with(&root, &xml));
        let url = format!("https://github.com/{REPO}/pull/{ISSUE}#issuecomment-{id}");
        let case = format!("{element}: {root}{xml}");

        let run = get(&gh).run().await;
        run.assert_code(0);
        run.assert_no_secret(TOKEN_TAIL);
        assert_eq!(run.output("state-comment-url"), url, "{case}");
        let expected_step = if element == "step" { "" } else { "coding" };
        assert_eq!(run.output("state-step"), expected_step, "{case}");
        assert_eq!(run.output("state-progress"), "40", "{case}");
        let warned = warnings(&run);
        assert!(
            warned.iter().any(|w| w.contains(&url)
                && w.contains(&format!("<{element}>"))
                && w.contains("Withheld")),
            "{case}: {warned:?}"
        );
        assert!(
            run.summary.contains("Withheld from the block: ")
                && run.summary.contains(&format!(
                    "<code>&lt;{}&gt;</code>",
                    element.replace('_', "&#95;")
                )),
            "{case}: {}",
            run.summary
        );

        let cli = Council::cli()
            .api(&gh.uri())
            .env("INPUT_GITHUB-TOKEN", "ghs_test_token_value")
            .args(&["state", "get", "--issue", "1", "--repo", REPO])
            .run()
            .await;
        cli.assert_code(0);
        cli.assert_no_secret(TOKEN_TAIL);
        let json = Council::cli()
            .api(&gh.uri())
            .env("INPUT_GITHUB-TOKEN", "ghs_test_token_value")
            .args(&["state", "get", "--issue", "1", "--repo", REPO, "--json"])
            .run()
            .await;
        json.assert_code(0);
        json.assert_no_secret(TOKEN_TAIL);
        let answer: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
        assert_eq!(
            answer["withheld"][0]["element"], element,
            "{case}: {answer}"
        );
        assert_eq!(answer["withheld"][0]["kind"], "GitHub token", "{case}");

        // Building on it: the withheld element is not written again.
        let next = put(&gh).input("progress", "50").run().await;
        next.assert_code(0);
        next.assert_no_secret(TOKEN_TAIL);
        let posted = gh.posted().await;
        for part in [&TOKEN[..10], &TOKEN[12..]] {
            assert!(!posted[0].contains(part), "{case}: carried over");
        }
        gh.expect_writes(&["POST /issues/1/comments"]);
    }
}
