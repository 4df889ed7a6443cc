//! Realistic timelines for the bench and the end-to-end example.

use council_protocol::audit::chain::seal;
use serde_json::{Map, Value, json};

const AGENTS: [(&str, &str); 4] = [
    ("agent_guard", "check:branch-name"),
    ("agent_guard", "check:target-branch"),
    ("agent_review", "check:secret-scan"),
    ("agent_release", "action:merge"),
];

/// `n` sealed entries shaped like the product's: ~80-character messages, five entries per
/// run, a new head SHA every ten runs.
pub fn timeline(n: usize, key: Option<&[u8]>) -> Vec<Map<String, Value>> {
    let mut entries: Vec<Map<String, Value>> = (0..n)
        .map(|i| {
            let run = 9_876_543_210u64 + (i / 5) as u64;
            let (agent, action) = AGENTS[i % AGENTS.len()];
            let value = json!({
                "id": format!("{run}/1/council/{agent}/{action}/{i}"),
                "agent": agent,
                "action": action,
                "result": if i.is_multiple_of(7) { "FAIL" } else { "PASS" },
                "message": format!(
                    "Head feature/api/PBI-{:05}-add-login-flow matches rule \"feature\"; base develop ok",
                    i % 100_000
                ),
                "timestamp": format!("2026-05-{:02}T{:02}:{:02}:{:02}Z",
                                     1 + i / 86_400 % 28, i / 3600 % 24, i / 60 % 60, i % 60),
                "run_id": run.to_string(),
                "run_attempt": 1 + (i % 3) as u64,
                "sha": format!("{:040x}", (i / 50) as u128 * 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834),
            });
            match value {
                Value::Object(map) => map,
                _ => Map::new(),
            }
        })
        .collect();
    seal(&mut entries, 0, key).expect("realistic entries seal");
    entries
}

/// The Context Object around a timeline, as the product writes it.
pub fn document(entries: Vec<Map<String, Value>>) -> Value {
    json!({
        "schema_version": 1,
        "context_id": "PR-123",
        "repository": "owner/name",
        "timestamp": "2026-05-01T12:00:00Z",
        "trigger": "webhook:pull_request.synchronize",
        "timeline": entries.into_iter().map(Value::Object).collect::<Vec<_>>(),
    })
}
