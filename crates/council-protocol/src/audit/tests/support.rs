//! Builders for realistic timelines.

use serde_json::{Map, Value, json};

use crate::audit::chain::seal;

pub const KEY: &[u8] = b"secret";

/// One unsealed entry shaped like the product's (SPEC.md, "Context Object").
pub fn entry(i: usize) -> Map<String, Value> {
    let value = json!({
        "id": format!("1000{}/1/guard/check:{i}", i % 7),
        "agent": "agent_guard",
        "action": "check:branch-name",
        "result": if i.is_multiple_of(3) { "FAIL" } else { "PASS" },
        "message": format!("entry {i}: head feature/api/PBI-{i}-login matches rule feature"),
        "timestamp": "2026-05-01T12:00:00Z",
        "run_id": format!("1000{}", i % 7),
        "run_attempt": 1,
        "sha": "0123456789abcdef0123456789abcdef01234567",
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `n` entries sealed from the zero hash.
pub fn sealed(n: usize, key: Option<&[u8]>) -> Vec<Map<String, Value>> {
    let mut timeline: Vec<_> = (0..n).map(entry).collect();
    seal(&mut timeline, 0, key).expect("sealing realistic entries works");
    timeline
}

/// A Context Object holding `timeline`.
pub fn doc(timeline: Vec<Map<String, Value>>) -> Value {
    let entries = timeline.into_iter().map(Value::Object).collect();
    json!({"schema_version": 1, "context_id": "PR-123", "timeline": Value::Array(entries)})
}

/// Mutable access to entry `i` of a document built by [`doc`].
pub fn entry_mut(doc: &mut Value, i: usize) -> &mut Map<String, Value> {
    doc["timeline"][i]
        .as_object_mut()
        .expect("entry is an object")
}

pub fn entries_mut(doc: &mut Value) -> &mut Vec<Value> {
    doc["timeline"]
        .as_array_mut()
        .expect("timeline is an array")
}
