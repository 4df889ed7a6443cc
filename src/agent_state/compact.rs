//! Deterministic, JSON-aware shrinking of `memory` so a comment fits GitHub's limit.
//!
//! The seed's order is kept without its LLM step: first shrink while keeping the
//! structure (long arrays and strings summarized with "(showing N of M)"), then keep
//! only key fields, then truncate with a visible notice. The result is always a JSON
//! value; sizes are code points of its compact serialization.
//!
//! Key fields keep their exact value whenever they are kept at all: they are never
//! shortened, only dropped whole (and reported) when even they do not fit. The
//! truncation notice's `preview` is a plain-text prefix of the original JSON, not
//! values, and is labelled as such.

use serde_json::{Map, Value};

/// Fields whose values are identifiers an agent needs verbatim.
pub const KEY_FIELDS: [&str; 12] = [
    "name",
    "full_name",
    "id",
    "number",
    "title",
    "url",
    "html_url",
    "path",
    "sha",
    "status",
    "state",
    "files_changed",
];

/// The key an object gets when some of its entries were dropped.
pub const OMITTED_KEY: &str = "(omitted)";

const MAX_NOTES: usize = 12;

#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    pub value: Value,
    pub original_chars: usize,
    pub compacted_chars: usize,
    /// What was shortened or dropped, for the comment's summary.
    pub notes: Vec<String>,
    /// True when even key-field extraction did not fit and the notice replaced it.
    pub truncated: bool,
}

impl Compaction {
    pub fn changed(&self) -> bool {
        !self.notes.is_empty() || self.truncated
    }
}

/// Code points of the compact serialization, the unit GitHub's limit counts.
pub fn json_chars(value: &Value) -> usize {
    value.to_string().chars().count()
}

struct Level {
    items: usize,
    string_chars: usize,
    entries: usize,
    depth: usize,
    key_value_chars: usize,
    key_fields_only: bool,
}

const LEVELS: [Level; 7] = [
    Level {
        items: 100,
        string_chars: 4_000,
        entries: 200,
        depth: 32,
        key_value_chars: usize::MAX,
        key_fields_only: false,
    },
    Level {
        items: 50,
        string_chars: 1_000,
        entries: 100,
        depth: 16,
        key_value_chars: usize::MAX,
        key_fields_only: false,
    },
    Level {
        items: 20,
        string_chars: 300,
        entries: 50,
        depth: 12,
        key_value_chars: usize::MAX,
        key_fields_only: false,
    },
    Level {
        items: 10,
        string_chars: 120,
        entries: 25,
        depth: 8,
        key_value_chars: usize::MAX,
        key_fields_only: false,
    },
    Level {
        items: 5,
        string_chars: 60,
        entries: 12,
        depth: 6,
        key_value_chars: 8_000,
        key_fields_only: false,
    },
    Level {
        items: 5,
        string_chars: 40,
        entries: 8,
        depth: 6,
        key_value_chars: 2_000,
        key_fields_only: true,
    },
    Level {
        items: 2,
        string_chars: 20,
        entries: 4,
        depth: 4,
        key_value_chars: 400,
        key_fields_only: true,
    },
];

/// Shrinks `value` to at most `max_chars` code points when `max_chars` is at least
/// 4 (the size of `null`, the last resort); the same input always gives the same output.
pub fn compact_json(value: &Value, max_chars: usize) -> Compaction {
    let original_chars = json_chars(value);
    if original_chars <= max_chars {
        return Compaction {
            value: value.clone(),
            original_chars,
            compacted_chars: original_chars,
            notes: Vec::new(),
            truncated: false,
        };
    }
    for level in &LEVELS {
        let mut notes = Notes::default();
        let shrunk = shrink(value, level, 0, "$", &mut notes);
        let chars = json_chars(&shrunk);
        if chars <= max_chars {
            return Compaction {
                value: shrunk,
                original_chars,
                compacted_chars: chars,
                notes: notes.finish(),
                truncated: false,
            };
        }
    }
    let value = truncation_notice(value, original_chars, max_chars);
    Compaction {
        compacted_chars: json_chars(&value),
        value,
        original_chars,
        notes: vec![format!(
            "memory truncated: {} characters did not fit even as key fields",
            thousands(original_chars)
        )],
        truncated: true,
    }
}

#[derive(Default)]
struct Notes {
    kept: Vec<String>,
    more: usize,
}

impl Notes {
    fn push(&mut self, note: String) {
        if self.kept.len() < MAX_NOTES {
            self.kept.push(note);
        } else {
            self.more += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.more > 0 {
            self.kept.push(format!("and {} more", self.more));
        }
        self.kept
    }
}

fn shrink(value: &Value, level: &Level, depth: usize, path: &str, notes: &mut Notes) -> Value {
    match value {
        Value::String(text) => {
            let total = text.chars().count();
            if total <= level.string_chars {
                return value.clone();
            }
            let kept: String = text.chars().take(level.string_chars).collect();
            notes.push(format!(
                "{path}: showing {} of {} characters",
                level.string_chars,
                thousands(total)
            ));
            Value::String(format!(
                "{kept}… (showing {} of {} characters)",
                level.string_chars, total
            ))
        }
        Value::Array(items) if depth >= level.depth => {
            notes.push(format!("{path}: array of {} items summarized", items.len()));
            Value::String(format!("(array of {} items)", items.len()))
        }
        Value::Object(map) if depth >= level.depth => {
            notes.push(format!("{path}: object with {} keys summarized", map.len()));
            Value::String(format!("(object with {} keys)", map.len()))
        }
        Value::Array(items) => {
            let mut kept: Vec<Value> = items
                .iter()
                .take(level.items)
                .enumerate()
                .map(|(i, item)| shrink(item, level, depth + 1, &format!("{path}[{i}]"), notes))
                .collect();
            if items.len() > level.items {
                notes.push(format!(
                    "{path}: showing {} of {} items",
                    level.items,
                    thousands(items.len())
                ));
                kept.push(Value::String(format!(
                    "… (showing {} of {} items)",
                    level.items,
                    items.len()
                )));
            }
            Value::Array(kept)
        }
        Value::Object(map) => shrink_object(map, level, depth, path, notes),
        _ => value.clone(),
    }
}

fn shrink_object(
    map: &Map<String, Value>,
    level: &Level,
    depth: usize,
    path: &str,
    notes: &mut Notes,
) -> Value {
    let mut kept = Map::new();
    let (mut other_kept, mut dropped) = (0usize, 0usize);
    for (key, item) in map {
        let item_path = child_path(path, key);
        if KEY_FIELDS.contains(&key.as_str()) {
            if json_chars(item) <= level.key_value_chars {
                kept.insert(key.clone(), item.clone());
            } else {
                notes.push(format!(
                    "{item_path}: key field dropped, too large to keep exactly"
                ));
            }
            continue;
        }
        let wanted =
            other_kept < level.entries && (!level.key_fields_only || holds_key_field(item));
        if wanted {
            other_kept += 1;
            kept.insert(
                key.clone(),
                shrink(item, level, depth + 1, &item_path, notes),
            );
        } else {
            dropped += 1;
        }
    }
    if dropped > 0 {
        notes.push(format!("{path}: dropped {dropped} of {} keys", map.len()));
        if !kept.contains_key(OMITTED_KEY) {
            kept.insert(
                OMITTED_KEY.to_owned(),
                Value::String(format!(
                    "showing {} of {} keys",
                    map.len() - dropped,
                    map.len()
                )),
            );
        }
    }
    Value::Object(kept)
}

fn holds_key_field(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, item)| KEY_FIELDS.contains(&key.as_str()) || holds_key_field(item)),
        Value::Array(items) => items.iter().any(holds_key_field),
        _ => false,
    }
}

fn child_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

/// The last resort: a notice, with as much of the original text as still fits.
fn truncation_notice(value: &Value, original_chars: usize, max_chars: usize) -> Value {
    let notice = |preview: String| {
        serde_json::json!({
            "truncated": true,
            "notice": format!(
                "memory was {} characters and did not fit in the comment; preview is the start of its JSON text",
                thousands(original_chars)
            ),
            "preview": preview,
        })
    };
    let empty = notice(String::new());
    let room = max_chars.saturating_sub(json_chars(&empty));
    if room == 0 {
        let short = Value::String(format!(
            "(memory truncated: {} characters)",
            thousands(original_chars)
        ));
        return if json_chars(&short) <= max_chars {
            short
        } else {
            Value::Null
        };
    }
    let text = value.to_string();
    let mut take = room;
    loop {
        let preview: String = text.chars().take(take).collect();
        let candidate = notice(preview);
        let over = json_chars(&candidate).saturating_sub(max_chars);
        if over == 0 {
            return candidate;
        }
        // Escapes make the preview longer than the characters it holds.
        take = take.saturating_sub(over.max(1));
        if take == 0 {
            return empty;
        }
    }
}

/// `12345` as `12,345`, for summaries people read.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn repos(n: usize) -> Value {
        Value::Array(
            (0..n)
                .map(|i| {
                    json!({
                        "name": format!("repo-{i}"),
                        "full_name": format!("owner/repo-{i}"),
                        "html_url": format!("https://github.com/owner/repo-{i}"),
                        "description": "x".repeat(300),
                        "topics": ["a", "b", "c"],
                        "stargazers_count": i,
                    })
                })
                .collect(),
        )
    }

    #[test]
    fn a_small_value_is_untouched() {
        let value = json!({"a": 1});
        let compaction = compact_json(&value, 100);
        assert_eq!(compaction.value, value);
        assert!(!compaction.changed());
    }

    #[test]
    fn long_arrays_and_strings_are_summarized_with_counts() {
        let value = json!({"log": "y".repeat(10_000), "files": (0..500).collect::<Vec<_>>()});
        let compaction = compact_json(&value, 3_000);
        assert!(compaction.compacted_chars <= 3_000);
        assert_eq!(
            compaction.notes,
            [
                "$.log: showing 1000 of 10,000 characters",
                "$.files: showing 50 of 500 items"
            ]
        );
        let files = compaction.value["files"].as_array().map(Vec::len);
        assert_eq!(files, Some(51));
        assert_eq!(
            compaction.value["files"][50],
            json!("… (showing 50 of 500 items)")
        );
    }

    #[test]
    fn key_fields_keep_exact_values() {
        let value = repos(200);
        let compaction = compact_json(&value, 4_000);
        assert!(
            compaction.compacted_chars <= 4_000,
            "{}",
            compaction.compacted_chars
        );
        assert!(!compaction.truncated);
        let first = &compaction.value[0];
        assert_eq!(first["name"], json!("repo-0"));
        assert_eq!(first["full_name"], json!("owner/repo-0"));
        assert_eq!(first["html_url"], json!("https://github.com/owner/repo-0"));
    }

    #[test]
    fn an_oversized_key_field_is_dropped_whole() {
        let value = json!({"files_changed": (0..5_000).map(|i| format!("src/file_{i}.rs")).collect::<Vec<_>>(), "id": 7});
        let compaction = compact_json(&value, 500);
        assert_eq!(compaction.value, json!({"id": 7}));
        assert_eq!(
            compaction.notes,
            ["$.files_changed: key field dropped, too large to keep exactly"]
        );
    }

    #[test]
    fn an_oversized_key_field_that_fits_alone_beats_truncation() {
        let value = json!({"title": "t".repeat(50_000), "n": 1});
        let compaction = compact_json(&value, 1_000);
        assert_eq!(compaction.value, json!({"n": 1}));
        assert!(!compaction.truncated);
    }

    #[test]
    fn truncation_leaves_a_visible_notice() {
        let value = json!({"id": "i".repeat(300), "note": "n".repeat(5_000)});
        let compaction = compact_json(&value, 200);
        assert!(compaction.truncated);
        assert!(compaction.compacted_chars <= 200);
        assert_eq!(compaction.value["truncated"], json!(true));
        let preview = compaction.value["preview"].as_str().unwrap_or_default();
        assert!(preview.starts_with("{\"id\":\"iii"), "{preview}");
        assert_eq!(
            compaction.notes,
            ["memory truncated: 5,319 characters did not fit even as key fields"]
        );
        assert_eq!(
            compact_json(&value, 40).value,
            json!("(memory truncated: 5,319 characters)")
        );
        assert_eq!(compact_json(&value, 5).value, Value::Null);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    fn exact_key_fields_kept(original: &Value, compacted: &Value) -> bool {
        match (original, compacted) {
            (Value::Object(a), Value::Object(b)) => b.iter().all(|(key, value)| match a.get(key) {
                Some(orig) if KEY_FIELDS.contains(&key.as_str()) => orig == value,
                Some(orig) => exact_key_fields_kept(orig, value),
                None => key == OMITTED_KEY,
            }),
            (Value::Array(a), Value::Array(b)) => a
                .iter()
                .zip(b.iter())
                .all(|(x, y)| exact_key_fields_kept(x, y)),
            _ => true,
        }
    }

    proptest! {
        #[test]
        fn compaction_fits_is_deterministic_and_keeps_key_fields(
            value in crate::agent_state::testing::json_value(),
            budget in 4usize..2_000,
        ) {
            let first = compact_json(&value, budget);
            prop_assert!(first.compacted_chars <= budget);
            prop_assert_eq!(first.compacted_chars, json_chars(&first.value));
            prop_assert_eq!(&first, &compact_json(&value, budget));
            if !first.truncated {
                prop_assert!(exact_key_fields_kept(&value, &first.value));
            }
        }
    }
}
