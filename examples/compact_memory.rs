//! What `state put` keeps of an oversized memory: budget used and key fields kept, for
//! the 280-repository fixture and for about 10 MB of the same API JSON.
//!
//!   cargo run --release --example compact_memory

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::time::Instant;

use council_protocol::agent_state::{AgentState, COMMENT_CHAR_LIMIT, Memory, render_comment};
use serde_json::Value;

const FIXTURE: &str = include_str!("../tests/data/github/repos-280.json");

fn main() {
    let repos: Value = serde_json::from_str(FIXTURE).expect("fixture");
    report("280 repositories", &repos);
    let items = repos.as_array().cloned().unwrap_or_default();
    let mut big = Vec::new();
    let mut bytes = 0;
    while bytes < 10 << 20 {
        for (i, item) in items.iter().enumerate() {
            let mut item = item.clone();
            let n = big.len();
            item["id"] = Value::from(10_000_000 + n as u64);
            item["name"] = Value::from(format!("repo-{n}"));
            item["full_name"] = Value::from(format!("owner-{}/repo-{n}", i % 50));
            bytes += item.to_string().len() + 1;
            big.push(item);
        }
    }
    report("10 MB of repositories", &Value::Array(big));
}

fn report(label: &str, memory: &Value) {
    let original = memory.to_string();
    let items = memory.as_array().map_or(0, Vec::len);
    let state = AgentState {
        step: Some("coding".into()),
        memory: Some(Memory::from_value(memory)),
        ..AgentState::default()
    };
    let started = Instant::now();
    let rendered = render_comment(&state, Some("Listed the repositories."), "run/1").expect("fits");
    let elapsed = started.elapsed();
    let kept: Value = rendered
        .state
        .memory
        .as_ref()
        .and_then(|m| m.to_value().ok())
        .unwrap_or_default();
    let kept_items = kept.as_array().cloned().unwrap_or_default();
    let exact = |field: &str| {
        kept_items
            .iter()
            .zip(memory.as_array().into_iter().flatten())
            .filter(|(k, o)| k.get(field).is_some() && k.get(field) == o.get(field))
            .count()
    };
    let compaction = rendered.compaction.as_ref();
    println!("{label}: {} bytes of JSON, {items} items", original.len());
    println!(
        "  comment: {} of {COMMENT_CHAR_LIMIT} characters ({:.1} %), rendered in {:.0} ms",
        rendered.chars,
        rendered.chars as f64 * 100.0 / COMMENT_CHAR_LIMIT as f64,
        elapsed.as_secs_f64() * 1000.0
    );
    println!(
        "  items kept: {} of {items}; exact name: {}, full_name: {}, id: {}, html_url: {}",
        kept_items.len().saturating_sub(1),
        exact("name"),
        exact("full_name"),
        exact("id"),
        exact("html_url")
    );
    if let Some(c) = compaction {
        for note in &c.notes {
            println!("  note: {note}");
        }
    }
}
