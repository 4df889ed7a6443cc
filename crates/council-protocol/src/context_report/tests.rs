//! The seed's own report, every scoring rule and fix, the freshness boundaries, and
//! hostile reports.

use chrono::{DateTime, Duration, Utc};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::comment::last_block;
use super::*;
use crate::agent_state::TrustConfig;

/// The protocol's example, as the seed writes it (with its `//` comments).
const SEED_EXAMPLE: &str = r#"{
  "contextReport": {
    "agentId": "agent-a-uuid",
    "reportTimestamp": "2025-10-09T22:30:00Z",
    "modelContextSize": 200000,

    "contextWindow": {
      "totalTokens": 45000,
      "percentFull": 22.5,
      "availableTokens": 155000
    },

    "loadedProjects": [
      {
        "projectId": "localbrain",
        "projectName": "LocalBrain",
        "loadedAt": "2025-10-09T22:00:00Z",
        "filesLoaded": 500,
        "categories": {
          "specs": 42,
          "docs": 89,
          "code": 369
        },
        "sizeInTokens": 30000,
        "freshness": "HOT" // HOT | WARM | COLD
      }
    ],

    "loadedTasks": [
      {
        "taskId": "T011",
        "taskName": "React Query + SSR",
        "contextLoaded": true,
        "relevantFiles": 23,
        "tokensUsed": 5000
      }
    ],

    "loadedDocuments": [
      {
        "type": "CLAUDE_MD",
        "path": "CLAUDE.md",
        "sizeInTokens": 2000,
        "loadedAt": "2025-10-09T22:00:00Z"
      }
    ],

    "capabilities": {
      "canStartImmediately": ["T011", "T014"], // Has context
      "needsContextLoad": ["T018"], // Missing context
      "estimatedLoadTime": 15 // seconds
    },

    "memoryState": {
      "conversationLength": 150, // messages in thread
      "oldestMessage": "2025-10-09T20:00:00Z",
      "systemPromptTokens": 3200,
      "conversationTokens": 42000,
      "remainingForWork": 155000
    }
  }
}"#;

fn now() -> DateTime<Utc> {
    "2025-10-09T23:00:00Z".parse().expect("time")
}

fn issue() -> IssueFacts {
    IssueFacts {
        number: 7,
        title: "T011: React Query + SSR".to_owned(),
        labels: vec!["project:localbrain".to_owned()],
        repository: "octo/app".to_owned(),
    }
}

/// A minimal valid report (the MCP tool's argument shape, no `needsContextLoad`).
fn report(
    agent: &str,
    used: u64,
    available: u64,
    tasks: &[&str],
    projects: &[&str],
    at: DateTime<Utc>,
) -> Report {
    let text = json!({
        "agentId": agent,
        "reportTimestamp": at.to_rfc3339(),
        "contextWindow": {"totalTokens": used, "availableTokens": available},
        "loadedProjects": projects.iter().map(|p| json!({"projectId": p, "filesLoaded": 1, "sizeInTokens": 1})).collect::<Vec<_>>(),
        "loadedTasks": [],
        "capabilities": {"canStartImmediately": tasks},
    })
    .to_string();
    parse_report(&text).expect("valid")
}

fn candidate(report: Report) -> Candidate {
    Candidate {
        agent_id: report.agent_id.clone(),
        comment_url: format!("https://github.com/o/r/issues/1#{}", report.agent_id),
        report: Some(report),
        problem: None,
    }
}

fn scored(report: Report) -> score::Scored {
    score::score(&candidate(report), &issue(), now())
}

#[test]
fn the_seed_example_is_accepted_with_its_comments() {
    let parsed = parse_report(SEED_EXAMPLE).expect("the seed's own report is valid");
    assert_eq!(parsed.agent_id, "agent-a-uuid");
    assert_eq!(
        (parsed.total_tokens, parsed.available_tokens),
        (45_000, 155_000)
    );
    assert_eq!(parsed.can_start_immediately, ["T011", "T014"]);
    assert_eq!(parsed.needs_context_load, ["T018"]);
    assert_eq!(parsed.project_ids, ["localbrain"]);
    let s = score::score(&candidate(parsed), &issue(), now());
    assert_eq!(s.score, 100);
    insta::assert_debug_snapshot!((s.reasons, s.freshness, s.qualifies), @r#"
    (
        [
            "+50 can start T011 immediately",
            "+30 project localbrain loaded",
            "+20 77.5 % of the window free",
        ],
        Warm,
        true,
    )
    "#);
}

#[test]
fn the_mcp_argument_shape_without_needs_context_load_is_accepted() {
    let bare = r#"{"agentId": "b", "reportTimestamp": "2025-10-09T22:59:00Z",
        "contextWindow": {"totalTokens": 1, "availableTokens": 2},
        "loadedProjects": [], "loadedTasks": [], "capabilities": {"canStartImmediately": []}}"#;
    let parsed = parse_report(bare).expect("valid");
    assert!(parsed.needs_context_load.is_empty());
    assert_eq!(parsed.json["contextReport"]["agentId"], json!("b"));
}

#[test]
fn hostile_reports_are_refused_naming_the_field() {
    let base = json!({
        "agentId": "a",
        "reportTimestamp": "2025-10-09T22:59:00Z",
        "contextWindow": {"totalTokens": 1, "availableTokens": 2},
        "loadedProjects": [],
        "loadedTasks": [],
        "capabilities": {"canStartImmediately": []},
    });
    let with = |pointer: &str, value: Value| {
        let mut v = base.clone();
        match v.pointer_mut(pointer) {
            Some(slot) => *slot = value,
            None => {
                let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
                if let Some(Value::Object(map)) = v.pointer_mut(parent) {
                    map.insert(key.to_owned(), value);
                }
            }
        }
        v.to_string()
    };
    let without = |key: &str| {
        let mut v = base.clone();
        v.as_object_mut().map(|m| m.remove(key));
        v.to_string()
    };
    let many: Vec<Value> = (0..1_001)
        .map(|i| json!({"taskId": format!("T{i}"), "relevantFiles": 1}))
        .collect();
    let cases = [
        with("/contextWindow/totalTokens", json!(-5)),
        with("/contextWindow/availableTokens", json!(1.5)),
        with("/contextWindow/availableTokens", json!("lots")),
        with("/contextWindow/percentFull", json!(140)),
        without("agentId"),
        without("capabilities"),
        with("/agentId", json!("agent with spaces")),
        with("/agentId", json!("a".repeat(45))),
        with("/loadedTasks", Value::Array(many)),
        with(
            "/loadedTasks",
            json!([{"taskId": "T1", "relevantFiles": 1}, {"taskId": "T1", "relevantFiles": 2}]),
        ),
        with(
            "/loadedProjects",
            json!([{"projectId": "p", "filesLoaded": 1}]),
        ),
        with(
            "/loadedProjects",
            json!([{"projectId": "p", "filesLoaded": 1, "sizeInTokens": 1, "freshness": "LUKEWARM"}]),
        ),
        with("/capabilities/canStartImmediately", json!([1, 2])),
        with("/capabilities/secretPower", json!(true)),
        with("/reportTimestamp", json!("yesterday")),
        with("/extra", json!(1)),
        "{\"contextReport\": {\"agentId\": \"a\", \"agentId\": \"b\"}}".to_owned(),
        "{\"contextReport\": {}, \"more\": 1}".to_owned(),
        "[1, 2]".to_owned(),
        "{ not json".to_owned(),
        with(
            "/contextWindow/totalTokens",
            json!(18_446_744_073_709_551_616u128 as f64),
        ),
    ];
    let errors: Vec<String> = cases
        .iter()
        .map(|text| {
            parse_report(text)
                .map(|_| "accepted".to_owned())
                .unwrap_or_else(|e| e.to_string())
        })
        .collect();
    insta::assert_debug_snapshot!(errors, @r#"
    [
        "`contextReport.contextWindow.totalTokens`: is -5; counts cannot be negative",
        "`contextReport.contextWindow.availableTokens`: is 1.5; expected a whole number ≥ 0",
        "`contextReport.contextWindow.availableTokens`: must be a whole number ≥ 0, not a string",
        "`contextReport.contextWindow.percentFull`: is 140; a percentage is 0 to 100",
        "`contextReport.agentId`: is required",
        "`contextReport.capabilities`: is required",
        "`contextReport.agentId`: is `agent with spaces`; an agent id is 1 to 44 characters of letters, digits, `.`, `_` and `-` (it becomes the label `agent:<id>`)",
        "`contextReport.agentId`: is `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`; an agent id is 1 to 44 characters of letters, digits, `.`, `_` and `-` (it becomes the label `agent:<id>`)",
        "`contextReport.loadedTasks`: holds 1001 items; at most 1000 are read",
        "`contextReport.loadedTasks[1].taskId`: `T1` appears twice; ids must be unique",
        "`contextReport.loadedProjects[0].sizeInTokens`: is required",
        "`contextReport.loadedProjects[0].freshness`: is `LUKEWARM`; use HOT, WARM or COLD",
        "`contextReport.capabilities.canStartImmediately[0]`: must be a string, not a number",
        "`contextReport.capabilities.secretPower`: is not a member of the report here; known: canStartImmediately, needsContextLoad, estimatedLoadTime",
        "`contextReport.reportTimestamp`: is not an ISO 8601 date and time with a time zone, such as 2025-12-30T10:00:00+01:00 or 2025-12-30T09:00:00Z (found `yesterday`)",
        "`contextReport.extra`: is not a member of the report here; known: agentId, reportTimestamp, modelContextSize, contextWindow, loadedProjects, loadedTasks, loadedDocuments, capabilities, memoryState",
        "not valid JSON at line 1, column 44: the member `agentId` appears twice in one object",
        "`more`: is not a member of the report; known here: contextReport",
        "`contextReport`: must be an object, not a list",
        "not valid JSON at line 1, column 3: key must be a string",
        "`contextReport.contextWindow.totalTokens`: is 1.8446744073709552e+19; expected a whole number ≥ 0",
    ]
    "#);
}

#[test]
fn each_rule_scores_as_the_seed_says() {
    let at = now() - Duration::minutes(5);
    let cases = [
        (report("start", 10, 10, &["T011"], &[], at), 50),
        (report("project", 10, 10, &[], &["LocalBrain"], at), 30),
        (report("roomy", 10, 90, &[], &[], at), 20),
        (report("full", 95, 5, &[], &[], at), -30),
        (report("half", 50, 50, &[], &[], at), 0),
        (report("edge-10", 90, 10, &[], &[], at), 0),
        (report("all", 10, 90, &["#7"], &["octo/app"], at), 100),
    ];
    for (report, expected) in cases {
        let agent = report.agent_id.clone();
        assert_eq!(scored(report).score, expected, "{agent}");
    }
}

#[test]
fn zero_capacity_and_no_report_never_give_nan() {
    let empty = scored(report("empty", 0, 0, &["T011"], &[], now()));
    assert_eq!(empty.score, 50);
    assert_eq!(empty.percent_free, None);
    assert!(
        empty
            .reasons
            .iter()
            .any(|r| r.contains("no free-space score"))
    );
    let missing = score::score(
        &Candidate {
            agent_id: "ghost".into(),
            report: None,
            comment_url: String::new(),
            problem: Some("bad JSON".into()),
        },
        &issue(),
        now(),
    );
    assert_eq!(
        (missing.score, missing.qualifies, missing.percent_free),
        (0, false, None)
    );
    let json = serde_json::to_string(&missing).expect("serializes");
    assert!(!json.contains("NaN") && !json.contains("null,\"qualifies\":true"));
    let huge = scored(report("huge", u64::MAX, u64::MAX, &[], &[], now()));
    assert_eq!(huge.percent_free.map(|p| p.round()), Some(50.0));
}

#[test]
fn freshness_boundaries() {
    let age = |seconds: i64| {
        score::freshness(
            Some((now() - Duration::seconds(seconds)).fixed_offset()),
            now(),
        )
        .0
    };
    assert_eq!(age(29 * 60 + 59), Freshness::Hot);
    assert_eq!(age(30 * 60), Freshness::Warm);
    assert_eq!(age(2 * 3600 - 1), Freshness::Warm);
    assert_eq!(age(2 * 3600), Freshness::Cold);
    assert_eq!(age(0), Freshness::Hot);
    assert_eq!(age(-1), Freshness::Cold, "a report from the future is COLD");
    let future = scored(report(
        "future",
        10,
        90,
        &["T011"],
        &[],
        now() + Duration::hours(3),
    ));
    assert!(future.refresh && !future.qualifies);
    assert!(
        future
            .reasons
            .iter()
            .any(|r| r.contains("dated in the future"))
    );
}

#[test]
fn ties_go_to_the_fresher_report_then_the_agent_id() {
    let candidates: Vec<Candidate> = [
        report("b", 10, 90, &["T011"], &[], now() - Duration::minutes(20)),
        report("a", 10, 90, &["T011"], &[], now() - Duration::minutes(20)),
        report("c", 10, 90, &["T011"], &[], now() - Duration::minutes(1)),
        report("z", 10, 90, &["T011"], &[], now() + Duration::minutes(10)),
        report(
            "cold",
            10,
            90,
            &["T011"],
            &["localbrain"],
            now() - Duration::hours(3),
        ),
    ]
    .into_iter()
    .map(candidate)
    .collect();
    let ranking = rank(&candidates, &issue(), now());
    let order: Vec<&str> = ranking.ranking.iter().map(|s| s.agent.as_str()).collect();
    assert_eq!(order, ["cold", "c", "a", "b", "z"]);
    assert_eq!(
        ranking.recommended.as_deref(),
        Some("c"),
        "COLD never qualifies"
    );
    assert_eq!(
        rank(&[], &issue(), now()).recommended,
        None,
        "no agent, no recommendation"
    );
}

#[test]
fn the_registry_keeps_each_agents_latest_trusted_report() {
    let block = |r: &Report| super::render(r).expect("renders");
    let old = block(&report("a", 10, 90, &[], &[], now() - Duration::hours(1)));
    let new = block(&report(
        "a",
        10,
        90,
        &["T011"],
        &[],
        now() - Duration::minutes(1),
    ));
    let future = block(&report("a", 10, 90, &[], &[], now() + Duration::days(1)));
    let forged = block(&report(
        "evil",
        0,
        1_000_000,
        &["T011"],
        &["localbrain"],
        now(),
    ));
    let broken = "<context-report>{\"contextReport\": {\"agentId\": \"b\", \"contextWindow\": {\"totalTokens\": -1}}}</context-report>";
    let quoted = format!(
        "> {}",
        "<context-report>{\"agentId\": \"q\"}</context-report>"
    );
    let comments = [
        (1, "bot[bot]", "NONE", old.as_str()),
        (2, "bot[bot]", "NONE", new.as_str()),
        (3, "bot[bot]", "NONE", future.as_str()),
        (4, "mallory", "NONE", forged.as_str()),
        (5, "maintainer", "MEMBER", broken),
        (6, "maintainer", "MEMBER", quoted.as_str()),
        (7, "maintainer", "MEMBER", "just talk"),
    ];
    let comments: Vec<RegistryComment<'_>> = comments
        .iter()
        .map(|&(id, author, association, body)| RegistryComment {
            id,
            author,
            association,
            body,
            html_url: "u",
        })
        .collect();
    let trust = TrustConfig {
        token_login: Some("bot[bot]".into()),
        ..TrustConfig::default()
    };
    let registry = collect(&comments, &trust, now());
    let agents: Vec<(&str, bool)> = registry
        .candidates
        .iter()
        .map(|c| (c.agent_id.as_str(), c.report.is_some()))
        .collect();
    assert_eq!(agents, [("a", true), ("b", false)]);
    assert_eq!(
        registry.candidates[0]
            .report
            .as_ref()
            .map(|r| r.can_start_immediately.clone()),
        Some(vec!["T011".to_owned()])
    );
    assert_eq!(
        (
            registry.ignored_untrusted,
            registry.superseded,
            registry.reports_read
        ),
        (1, 2, 3)
    );
    insta::assert_debug_snapshot!(registry.warnings, @r#"
    [
        "ignored the context report in u: `contextReport.contextWindow.totalTokens`: is -1; counts cannot be negative",
    ]
    "#);
}

#[test]
fn a_rendered_comment_reads_back_and_no_value_can_close_its_block() {
    let text = SEED_EXAMPLE.replace("React Query + SSR", "</context-report> ``` <b>");
    let parsed = parse_report(&text).expect("valid");
    let body = super::render(&parsed).expect("fits");
    assert!(body.starts_with("<!-- council:context-report agent=agent-a-uuid -->\n"));
    let back = parse_report(last_block(&body).expect("a block")).expect("reads back");
    assert_eq!(back.json, parsed.json);
    insta::assert_snapshot!(body.lines().nth(1).unwrap_or_default(), @r"**Context report** · agent `agent-a-uuid` · 22.5 % of the window used · can start T011, T014 · reported 2025-10-09T22:30:00Z");
}

#[test]
fn stamping_fills_a_missing_timestamp_after_the_agent_id() {
    let text = r#"{"contextReport": {"agentId": "s", "contextWindow": {"totalTokens": 1, "availableTokens": 1},
        "loadedProjects": [], "loadedTasks": [], "capabilities": {"canStartImmediately": []}}}"#;
    let stamped = parse_report(text)
        .expect("valid")
        .stamped("2025-10-09T22:59:00Z");
    let keys: Vec<&String> = stamped.json["contextReport"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys[..2], ["agentId", "reportTimestamp"]);
    assert!(stamped.reported_at.is_some());
}

proptest! {
    #[test]
    fn any_text_is_refused_or_read_without_panicking(text in any::<String>()) {
        let _ = parse_report(&text);
        let _ = last_block(&format!("<context-report>{text}</context-report>"));
    }

    #[test]
    fn any_json_is_refused_or_read_without_panicking(value in crate::agent_state::testing::json_value()) {
        let _ = parse_report(&value.to_string());
        let _ = parse_report(&json!({"contextReport": value}).to_string());
    }
}
