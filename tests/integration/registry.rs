//! `council report` and `council assign` over the fake GitHub: one report comment per
//! agent edited in place, the ranking from the registry's trusted reports, and the
//! `agent:<id>` label.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::support::fake_github::FakeGitHub;
use crate::support::{Council, REPO, Run, fixture};

const REGISTRY: u64 = 50;
const ISSUE: u64 = 51;
const OWNER: &str = "Codertocat";

fn report(
    agent: &str,
    minutes_ago: i64,
    used: u64,
    available: u64,
    tasks: &[&str],
    projects: &[&str],
) -> Value {
    json!({"contextReport": {
        "agentId": agent,
        "reportTimestamp": (Utc::now() - Duration::minutes(minutes_ago)).to_rfc3339(),
        "contextWindow": {"totalTokens": used, "availableTokens": available},
        "loadedProjects": projects.iter().map(|p| json!({"projectId": p, "filesLoaded": 10, "sizeInTokens": 100})).collect::<Vec<_>>(),
        "loadedTasks": tasks.iter().map(|t| json!({"taskId": t, "relevantFiles": 3})).collect::<Vec<_>>(),
        "capabilities": {"canStartImmediately": tasks, "needsContextLoad": []},
    }})
}

/// A report comment as another tool (or a human) would post it.
fn posted_report(value: &Value) -> String {
    format!("My context:\n\n<context-report>\n{value}\n</context-report>\n")
}

async fn world() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.issue(REGISTRY, OWNER, "Agents: post your context reports here.");
    gh.issue(ISSUE, OWNER, "Add SSR to the dashboard.");
    gh
}

fn report_cmd(gh: &FakeGitHub, value: &Value) -> Council {
    Council::action()
        .api(&gh.uri())
        .input("command", "report")
        .input("registry-issue", &REGISTRY.to_string())
        .input("report", &value.to_string())
}

fn assign(gh: &FakeGitHub) -> Council {
    Council::action()
        .api(&gh.uri())
        .input("command", "assign")
        .input("registry-issue", &REGISTRY.to_string())
        .input("issue", &ISSUE.to_string())
}

fn labels(gh: &FakeGitHub, issue: u64) -> Vec<String> {
    gh.edit(|w| {
        w.issues
            .get(&issue)
            .map(|i| i.labels.clone())
            .unwrap_or_default()
    })
}

fn set_labels(gh: &FakeGitHub, issue: u64, labels: &[&str]) {
    gh.edit(|w| {
        if let Some(i) = w.issues.get_mut(&issue) {
            i.labels = labels.iter().map(|l| l.to_string()).collect();
        }
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn report_posts_one_comment_per_agent_and_edits_it_in_place() {
    let gh = world().await;
    let first = report("claude-a", 1, 45_000, 155_000, &["T011"], &["localbrain"]);
    let run = report_cmd(&gh, &first).run().await;
    run.assert_code(0);
    let writes = gh.take_writes();
    assert_eq!(writes.len(), 1);
    assert_eq!(
        writes[0].line(),
        format!("POST /repos/{REPO}/issues/{REGISTRY}/comments")
    );
    let bodies = gh.comment_bodies();
    assert!(
        bodies[0].starts_with("<!-- council:context-report agent=claude-a -->\n"),
        "{}",
        bodies[0]
    );

    // The same report again writes nothing; a new one edits the same comment.
    report_cmd(&gh, &first).run().await.assert_code(0);
    assert!(gh.take_writes().is_empty());
    let second = report(
        "claude-a",
        0,
        60_000,
        140_000,
        &["T011", "T014"],
        &["localbrain"],
    );
    let run = report_cmd(&gh, &second).run().await;
    run.assert_code(0);
    let writes = gh.take_writes();
    assert_eq!(writes.len(), 1);
    assert!(
        writes[0]
            .line()
            .starts_with(&format!("PATCH /repos/{REPO}/issues/comments/")),
        "{}",
        writes[0].line()
    );
    assert_eq!(gh.comment_bodies().len(), 1);
    assert!(
        run.summary.contains("Updated the report in place"),
        "{}",
        run.summary
    );

    // Another agent gets its own comment; a racing duplicate of ours is folded away.
    report_cmd(&gh, &report("gemini-b", 0, 1, 1, &[], &[]))
        .run()
        .await
        .assert_code(0);
    let duplicate = gh.comment_bodies()[0].clone();
    gh.seed(REGISTRY, "github-actions[bot]", &duplicate);
    let third = report("claude-a", 0, 61_000, 139_000, &["T011"], &[]);
    report_cmd(&gh, &third).run().await.assert_code(0);
    let writes: Vec<String> = gh.take_writes().iter().map(|c| c.line()).collect();
    assert_eq!(writes.len(), 3, "{writes:?}");
    assert!(writes[2].starts_with("DELETE"), "{writes:?}");
    assert_eq!(gh.comment_bodies().len(), 2);
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_report_is_exit_2_naming_the_field_and_nothing_is_posted() {
    let gh = world().await;
    let token = format!("ghp_{}", "r4T5".repeat(9));
    let mut negative = report("a", 0, 1, 1, &[], &[]);
    negative["contextReport"]["contextWindow"]["totalTokens"] = json!(-3);
    let mut future = report("a", 0, 1, 1, &[], &[]);
    future["contextReport"]["reportTimestamp"] =
        json!((Utc::now() + Duration::hours(2)).to_rfc3339());
    let mut secret = report("a", 0, 1, 1, &[], &[]);
    secret["contextReport"]["loadedTasks"] =
        json!([{"taskId": "T1", "taskName": format!("use {token}"), "relevantFiles": 1}]);
    for (value, needle) in [
        (
            negative,
            "`contextReport.contextWindow.totalTokens`: is -3; counts cannot be negative",
        ),
        (future, "is in the future"),
        (secret, "holds a secret (GitHub token)"),
        (
            json!({"contextReport": {"agentId": "a"}}),
            "`contextReport.contextWindow`: is required",
        ),
    ] {
        let run = report_cmd(&gh, &value).run().await;
        run.assert_code(2);
        assert!(run.stdout.contains(needle), "{needle}: {}", run.stdout);
        run.assert_no_secret(&token);
    }
    assert!(gh.take_writes().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_seed_example_with_comments_is_accepted_from_a_file() {
    let gh = world().await;
    let example = include_str!("../../crates/council-protocol/src/context_report/tests.rs")
        .split("const SEED_EXAMPLE: &str = r#\"")
        .nth(1)
        .and_then(|rest| rest.split("\"#;").next())
        .unwrap()
        .replace("2025-10-09T22:30:00Z", &Utc::now().to_rfc3339());
    let run = Council::action()
        .api(&gh.uri())
        .input("command", "report")
        .input("registry-issue", &REGISTRY.to_string())
        .input("report", "@agent/report.jsonc")
        .workspace_file("agent/report.jsonc", &example)
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(gh.take_writes().len(), 1);
}

fn seed_registry(gh: &FakeGitHub) {
    // The token's own reports (as `council report` writes them) …
    for value in [
        report("claude-a", 5, 45_000, 155_000, &["T011"], &["Hello-World"]),
        report("gemini-b", 10, 190_000, 10_000, &["T011"], &[]),
    ] {
        let agent = value["contextReport"]["agentId"]
            .as_str()
            .unwrap()
            .to_owned();
        gh.seed(
            REGISTRY,
            "github-actions[bot]",
            &format!(
                "<!-- council:context-report agent={agent} -->\n{}",
                posted_report(&value)
            ),
        );
    }
    // … a maintainer's hand-posted one, a stale one, a forged one, a broken one.
    gh.seed_as(
        REGISTRY,
        "octo-maintainer",
        "MEMBER",
        &posted_report(&report("human-c", 20, 0, 0, &["#51"], &[])),
    );
    gh.seed_as(
        REGISTRY,
        "octo-maintainer",
        "MEMBER",
        &posted_report(&report("cold-d", 180, 1, 99, &["T011"], &["Hello-World"])),
    );
    gh.seed_as(
        REGISTRY,
        "mallory",
        "NONE",
        &posted_report(&report(
            "evil-e",
            0,
            0,
            1_000_000,
            &["T011"],
            &["Hello-World"],
        )),
    );
    gh.seed_as(
        REGISTRY,
        "octo-maintainer",
        "MEMBER",
        "<context-report>{\"contextReport\": {\"agentId\": \"broken-f\", \"contextWindow\": {\"totalTokens\": \"many\"}}}</context-report>",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn assign_ranks_trusted_reports_and_labels_the_issue() {
    let gh = world().await;
    seed_registry(&gh);
    set_labels(&gh, ISSUE, &["task:T011", "agent:gemini-b", "bug"]);
    let run = assign(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "claude-a");
    assert_eq!(labels(&gh, ISSUE), ["task:T011", "bug", "agent:claude-a"]);
    let writes: Vec<String> = gh.take_writes().iter().map(|c| c.line()).collect();
    assert_eq!(
        writes,
        [
            format!("POST /repos/{REPO}/issues/{ISSUE}/labels"),
            format!("DELETE /repos/{REPO}/issues/{ISSUE}/labels/agent%3Agemini-b"),
        ]
    );
    let warnings: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::warning"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`contextReport.contextWindow.totalTokens`: must be a whole number"),
        "{warnings:?}"
    );
    // Ages are whole minutes; the reports were made 1 to 180 minutes before the run.
    insta::assert_snapshot!(run.summary, @r"
    ### agent-council · assign · Codertocat/Hello-World#51

    Recommended: claude-a

    | # | Agent | Score | Freshness | Why |
    | --- | --- | --- | --- | --- |
    | 1 | <code>claude-a</code> | 100 | HOT · 5 min ago | +50 can start T011 immediately<br>+30 project Hello-World loaded<br>+20 77.5 % of the window free |
    | 2 | <code>cold-d</code> | 100 | COLD (refresh) · 3 h 0 min ago | +50 can start T011 immediately<br>+30 project Hello-World loaded<br>+20 99.0 % of the window free<br>the report is 2 hours old or more: COLD, refresh it |
    | 3 | <code>human-c</code> | 50 | HOT · 20 min ago | +50 can start &#35;51 immediately<br>no free-space score: the report declares no capacity (0 tokens) |
    | 4 | <code>gemini-b</code> | 20 | HOT · 10 min ago | +50 can start T011 immediately<br>−30 only 5.0 % of the window free |
    | 5 | <code>broken-f</code> | 0 | COLD (refresh) · no report | no valid report (&#96;contextReport.contextWindow.totalTokens&#96;: must be a whole number ≥ 0, not a string): no score, no free-space score |

    <sub>registry &#35;50: 6 comments in 1 page, 4 valid reports · 1 report from untrusted authors ignored · 1 invalid report (see the warnings) · labelled agent:claude-a and removed agent:gemini-b · GitHub API requests: 4</sub>
    ");

    // Run again: the label is right, nothing is written.
    assign(&gh).run().await.assert_code(0);
    assert!(gh.take_writes().is_empty());
    gh.assert_all_writes_seen();
}

/// `council assign --json` for issue 51 from the CLI (no `--apply`).
async fn assign_json(gh: &FakeGitHub) -> Run {
    Council::cli()
        .api(&gh.uri())
        .args(&[
            "assign",
            "--issue",
            "51",
            "--registry-issue",
            "50",
            "--repo",
            REPO,
            "--json",
            "--github-token",
            "ghs_test_token_value",
        ])
        .run()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn json_and_the_cli_without_apply_write_nothing() {
    let gh = world().await;
    seed_registry(&gh);
    set_labels(&gh, ISSUE, &["task:T011"]);
    let run = assign_json(&gh).await;
    run.assert_code(0);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["recommended"], "claude-a");
    let agents: Vec<&str> = json["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    assert_eq!(
        agents,
        ["claude-a", "cold-d", "human-c", "gemini-b", "broken-f"]
    );
    assert_eq!(json["ignored_untrusted"], 1);
    assert_eq!(json["ranking"][1]["refresh"], true);
    assert_eq!(json["ranking"][2]["percent_free"], Value::Null);
    assert!(gh.take_writes().is_empty());
    // One GraphQL page of the registry, one read of the issue.
    assert_eq!(json["requests"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn issues_opened_under_auto_runs_assign() {
    let gh = world().await;
    let mut event = fixture("issues.opened");
    event["issue"]["number"] = json!(ISSUE);
    gh.seed(
        REGISTRY,
        "github-actions[bot]",
        &posted_report(&report("claude-a", 1, 10, 90, &["#51"], &[])),
    );
    let run = Council::action()
        .api(&gh.uri())
        .input("registry-issue", &REGISTRY.to_string())
        .event("issues", event.clone())
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "claude-a");
    assert_eq!(labels(&gh, ISSUE), ["agent:claude-a"]);
    gh.take_writes();
    // Without the registry, the event is a notice.
    let run = Council::action()
        .api(&gh.uri())
        .event("issues", event)
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::notice") && a.contains("registry-issue"))
    );
}

/// Labels are user text: an emoji or an accented letter where `agent:` would end (byte
/// 6) once panicked the run (exit 3) on `issues opened`. Only real `agent:*` labels are
/// replaced; the others stay as they were.
#[tokio::test(flavor = "multi_thread")]
async fn multi_byte_labels_are_kept_and_only_agent_labels_replaced() {
    let gh = world().await;
    let mut event = fixture("issues.opened");
    event["issue"]["number"] = json!(ISSUE);
    gh.seed(
        REGISTRY,
        "github-actions[bot]",
        &posted_report(&report("claude-a", 1, 10, 90, &["#51"], &[])),
    );
    // `📝` spans bytes 5..9, `€` bytes 4..7, `é` starts at byte 6, `á` shifts `:` to 6.
    let kept = ["docs 📝", "tag:€x", "ágent:x", "📝"];
    let mut seeded = kept.to_vec();
    seeded.push("agent:é");
    set_labels(&gh, ISSUE, &seeded);
    let run = Council::action()
        .api(&gh.uri())
        .input("registry-issue", &REGISTRY.to_string())
        .event("issues", event)
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "claude-a");
    let mut expected = kept.to_vec();
    expected.push("agent:claude-a");
    assert_eq!(labels(&gh, ISSUE), expected);
    let writes: Vec<String> = gh.take_writes().iter().map(|c| c.line()).collect();
    assert_eq!(
        writes,
        [
            format!("POST /repos/{REPO}/issues/{ISSUE}/labels"),
            format!("DELETE /repos/{REPO}/issues/{ISSUE}/labels/agent%3A%C3%A9"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn when_no_agent_qualifies_the_output_is_empty_and_labels_stay() {
    let gh = world().await;
    gh.seed(
        REGISTRY,
        "github-actions[bot]",
        &posted_report(&report("full", 1, 99, 1, &[], &[])),
    );
    gh.seed(
        REGISTRY,
        "github-actions[bot]",
        &posted_report(&report("stale", 300, 1, 99, &["#51"], &[])),
    );
    set_labels(&gh, ISSUE, &["agent:someone"]);
    let run = assign(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "");
    assert_eq!(labels(&gh, ISSUE), ["agent:someone"]);
    assert!(gh.take_writes().is_empty());
    assert!(
        run.summary.contains("No agent qualifies"),
        "{}",
        run.summary
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_token_is_a_warning_not_a_failure() {
    let gh = world().await;
    gh.seed(
        REGISTRY,
        "github-actions[bot]",
        &posted_report(&report("claude-a", 1, 10, 90, &["#51"], &[])),
    );
    gh.token("ghs_read_only").read_only();
    let run = assign(&gh)
        .input("github-token", "ghs_read_only")
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "claude-a");
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::warning") && a.contains("may not label"))
    );
    let run = report_cmd(&gh, &report("x", 0, 1, 1, &[], &[]))
        .input("github-token", "ghs_read_only")
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::warning") && a.contains("403"))
    );
    assert!(labels(&gh, ISSUE).is_empty());
    gh.expect_writes(&["POST /issues/51/labels", "POST /issues/50/comments"]);
}

/// The registry a busy team would have: 1,000 agents' reports among 5,000 comments.
fn seed_big_registry(gh: &FakeGitHub) {
    for i in 0..5_000usize {
        let body = if i % 5 == 0 {
            let agent = format!("agent-{:04}", i / 5);
            let tasks: Vec<String> = (0..20).map(|t| format!("T{:03}", (i + t) % 400)).collect();
            let tasks: Vec<&str> = tasks.iter().map(String::as_str).collect();
            let value = report(
                &agent,
                (i % 150) as i64,
                (i as u64 % 97) * 1_000,
                100_000,
                &tasks,
                &["Hello-World"],
            );
            format!(
                "<!-- council:context-report agent={agent} -->\n{}",
                posted_report(&value)
            )
        } else {
            format!("Progress note {i}: nothing to report.")
        };
        gh.seed(REGISTRY, "github-actions[bot]", &body);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_5000_comment_registry_costs_its_comment_pages_plus_one_request() {
    let gh = world().await;
    seed_big_registry(&gh);
    set_labels(&gh, ISSUE, &["task:T011"]);
    let started = std::time::Instant::now();
    let run = assign_json(&gh).await;
    let elapsed = started.elapsed();
    run.assert_code(0);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["reports_read"], 1_000);
    assert_eq!(json["ranking"].as_array().map(Vec::len), Some(1_000));
    assert_eq!(json["pages"], 50);
    assert_eq!(json["requests"], 51, "50 comment pages + the issue");
    // Measured, not asserted (shared CI machines vary): see docs/src/reports.md's figures.
    eprintln!(
        "assign over 1,000 reports in 5,000 comments: {elapsed:?} for the whole run against the fake"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_report_on_the_registry_that_holds_a_token_is_ignored_and_never_echoed() {
    // Posted by a trusted hand (or another tool) straight onto the registry: `council
    // report` would have refused it, `assign` must not spread it.
    const TOKEN: &str = "ghp_Q7vLm2Xr9TnB4kWz8YdH3sJc6PfA1uEo5GiR";
    let gh = world().await;
    seed_registry(&gh);
    for value in [
        report(TOKEN, 1, 1, 999_999, &["T011"], &["Hello-World"]),
        report("leaky-g", 1, 1, 999_999, &["T011"], &[TOKEN]),
    ] {
        gh.seed_as(
            REGISTRY,
            "octo-maintainer",
            "MEMBER",
            &posted_report(&value),
        );
    }
    let run = assign(&gh).run().await;
    run.assert_code(0);
    assert_eq!(run.output("recommended-agent"), "claude-a");
    let warnings: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::warning") && a.contains("holds a secret (GitHub token)"))
        .collect();
    assert_eq!(warnings.len(), 2, "{:?}", run.annotations());
    run.assert_no_secret(TOKEN);
    run.assert_no_secret(&TOKEN[4..16]);
    assert!(labels(&gh, ISSUE).iter().all(|l| !l.contains("ghp_")));
    gh.expect_writes(&["POST /issues/51/labels"]);
}
