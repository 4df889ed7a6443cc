//! In-process cost of `council assign` on a busy registry: 1,000 agents' reports among
//! 5,000 comments, read, validated, kept per agent and ranked (everything `assign`
//! does between receiving the comment pages and writing the label).
//!
//!   cargo run --release --example assign_registry

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::time::Instant;

use chrono::{Duration, Utc};
use council_protocol::agent_state::TrustConfig;
use council_protocol::context_report::{self, IssueFacts, RegistryComment};
use serde_json::json;

fn main() {
    let now = Utc::now();
    let bodies: Vec<String> = (0..5_000usize)
        .map(|i| {
            if i % 5 != 0 {
                return format!("Progress note {i}: nothing to report.");
            }
            let agent = format!("agent-{:04}", i / 5);
            let tasks: Vec<String> = (0..20).map(|t| format!("T{:03}", (i + t) % 400)).collect();
            let report = json!({"contextReport": {
                "agentId": agent,
                "reportTimestamp": (now - Duration::minutes((i % 150) as i64)).to_rfc3339(),
                "contextWindow": {"totalTokens": (i as u64 % 97) * 1_000, "availableTokens": 100_000},
                "loadedProjects": [{"projectId": "Hello-World", "filesLoaded": 10, "sizeInTokens": 100}],
                "loadedTasks": tasks.iter().map(|t| json!({"taskId": t, "relevantFiles": 3})).collect::<Vec<_>>(),
                "capabilities": {"canStartImmediately": tasks, "needsContextLoad": []},
            }});
            format!("<!-- council:context-report agent={agent} -->\n<context-report>\n{report:#}\n</context-report>\n")
        })
        .collect();
    let bytes: usize = bodies.iter().map(String::len).sum();
    let comments: Vec<RegistryComment<'_>> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| RegistryComment {
            id: i as u64,
            author: "github-actions[bot]",
            association: "NONE",
            body,
            html_url: "https://github.com/o/r/issues/50",
        })
        .collect();
    let trust = TrustConfig {
        token_login: Some("github-actions[bot]".into()),
        ..TrustConfig::default()
    };
    let issue = IssueFacts {
        number: 51,
        title: "T011: React Query + SSR".into(),
        labels: vec![],
        repository: "Codertocat/Hello-World".into(),
    };
    let started = Instant::now();
    let registry = context_report::collect(&comments, &trust, now);
    let collected = started.elapsed();
    let ranking = context_report::rank(&registry.candidates, &issue, now);
    let total = started.elapsed();
    println!(
        "5,000 comments ({} KB), {} reports: collected in {:.1} ms, ranked in {:.1} ms, {:.1} ms in all; recommended {}",
        bytes / 1024,
        registry.reports_read,
        collected.as_secs_f64() * 1000.0,
        (total - collected).as_secs_f64() * 1000.0,
        total.as_secs_f64() * 1000.0,
        ranking.recommended.as_deref().unwrap_or("-")
    );
}
