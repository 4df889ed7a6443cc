//! The seed's point (key fields of every item first, exact values, what was left out
//! counted) on the GitHub API's own shape, and properties for any JSON.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

const REPOS_280: &str = include_str!("../../../../../tests/data/github/repos-280.json");

/// The budget `state put` gives a memory in a comment (a little under the limit).
const BUDGET: usize = 62_000;

fn repos() -> Value {
    serde_json::from_str(REPOS_280).expect("fixture")
}

/// `out` is `original` with values left out and nothing changed: objects keep a subset
/// of their members in order, arrays a subsequence of their items, key-field members
/// and scalars are equal. The marker is not part of the original.
fn is_filtered(original: &Value, out: &Value) -> bool {
    match (original, out) {
        (Value::Object(a), Value::Object(b)) => {
            let mut position = 0;
            b.iter().all(|(key, value)| {
                let Some(index) = a.keys().position(|k| k == key) else {
                    return false;
                };
                let in_order = index >= position;
                position = index;
                in_order
                    && match KEY_FIELDS.contains(&key.as_str()) {
                        true => a[key] == *value,
                        false => is_filtered(&a[key], value),
                    }
            })
        }
        (Value::Array(a), Value::Array(b)) => {
            let mut rest = a.iter();
            b.iter()
                .all(|item| rest.any(|candidate| is_filtered(candidate, item)))
        }
        (a, b) => a == b,
    }
}

/// `out` without its top-level marker.
fn without_marker(out: &Value) -> Value {
    match out {
        Value::Object(map) => {
            let mut map = map.clone();
            map.shift_remove(OMITTED_KEY);
            Value::Object(map)
        }
        Value::Array(items) => {
            let mut items = items.clone();
            if items.last().is_some_and(|l| l.get(OMITTED_KEY).is_some()) {
                items.pop();
            }
            Value::Array(items)
        }
        other => other.clone(),
    }
}

#[test]
fn a_small_value_is_untouched() {
    let value = json!({"a": 1});
    let compaction = compact_json(&value, 100);
    assert_eq!(compaction.value, value);
    assert!(!compaction.changed());
}

#[test]
fn the_280_repositories_keep_every_name_and_use_the_budget() {
    let value = repos();
    let compaction = compact_json(&value, BUDGET);
    let items = compaction.value.as_array().expect("an array");
    assert!(compaction.compacted_chars <= BUDGET);
    assert!(
        compaction.compacted_chars * 10 >= BUDGET * 9,
        "uses {} of {BUDGET}",
        compaction.compacted_chars
    );
    // 280 items, then the marker.
    assert_eq!(items.len(), 281);
    let original = value.as_array().expect("an array");
    for (kept, orig) in items.iter().zip(original) {
        for field in ["name", "full_name", "id", "url", "html_url"] {
            assert_eq!(kept[field], orig[field], "{field} of {}", orig["full_name"]);
        }
    }
    assert!(is_filtered(&value, &without_marker(&compaction.value)));
    let marker = &items[280][OMITTED_KEY];
    assert_eq!(marker["of"], json!(compaction.values));
    assert_eq!(marker["left_out"], json!(compaction.left_out));
    assert_eq!(marker["original_chars"], json!(271_571));
    insta::assert_debug_snapshot!(compaction.notes, @r#"
    [
        "$: 280 of 280 items kept",
        "key fields: 1,633 of 2,100 kept, exact (shallow ones first)",
        "other values: 0 of 7,140 kept",
        "7,607 of 9,240 values left out, counted in \"(omitted)\"; nothing kept was shortened",
    ]
    "#);
}

#[test]
fn no_item_keeps_other_fields_before_every_item_keeps_its_key_fields() {
    let value = repos();
    for budget in [10_000, 30_000, 55_000, 80_000, 150_000] {
        let compaction = compact_json(&value, budget);
        let items = without_marker(&compaction.value);
        let items = items.as_array().expect("an array");
        let has_other = items.iter().any(|item| {
            item.as_object().is_some_and(|m| {
                m.keys()
                    .any(|k| !KEY_FIELDS.contains(&k.as_str()) && k != "owner" && k != "license")
            })
        });
        let all_top_keys = items.len() == 280
            && items
                .iter()
                .zip(value.as_array().into_iter().flatten())
                .all(|(kept, orig)| {
                    ["name", "full_name", "id", "url", "html_url"]
                        .iter()
                        .all(|f| kept.get(*f) == orig.get(*f))
                });
        assert!(!has_other || all_top_keys, "budget {budget}");
        assert!(compaction.compacted_chars <= budget);
        assert!(
            compaction.compacted_chars * 10 >= budget * 9,
            "budget {budget}: {}",
            compaction.compacted_chars
        );
    }
}

#[test]
fn an_oversized_key_field_is_left_out_whole_and_counted() {
    let files: Vec<String> = (0..5_000).map(|i| format!("src/file_{i}.rs")).collect();
    let value = json!({"files_changed": files, "id": 7, "note": "short"});
    let compaction = compact_json(&value, 500);
    assert_eq!(
        compaction.value,
        json!({"id": 7, "note": "short", "(omitted)": {"left_out": 1, "of": 3, "original_chars": 93_931}})
    );
    assert!(compaction.truncated);
}

#[test]
fn a_scalar_that_does_not_fit_becomes_the_marker() {
    let value = json!("x".repeat(10_000));
    let compaction = compact_json(&value, 200);
    assert_eq!(
        compaction.value,
        json!({"(omitted)": {"left_out": 1, "of": 1, "original_chars": 10_002}})
    );
    assert_eq!(compact_json(&value, 10).value, Value::Null);
}

#[test]
fn the_marker_never_overwrites_a_member() {
    let value = json!({"(omitted)": "mine", "big": "b".repeat(500), "small": 1});
    let compaction = compact_json(&value, 150);
    assert_eq!(compaction.value["(omitted)"], json!("mine"));
    assert_eq!(compaction.value["(omitted 2)"]["left_out"], json!(1));
    assert_eq!(compaction.value["small"], json!(1));
}

#[test]
fn weights_count_what_the_comment_escapes() {
    let value = json!({"a": "<&>".repeat(100), "b": "plain".repeat(20)});
    let xml = |c: char| match c {
        '<' | '>' => 4,
        '&' => 5,
        _ => 1,
    };
    let compaction = compact_json_with(&value, 400, &xml);
    let measured: usize = compaction.value.to_string().chars().map(xml).sum();
    assert!(measured <= 400, "{measured}");
    assert_eq!(compaction.value.get("a"), None);
    assert_eq!(compaction.value["b"], value["b"]);
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
    assert_eq!(thousands(1_234_567), "1,234,567");
}

/// Objects with a few small fields, some of them key fields, in arrays.
fn small_records() -> impl Strategy<Value = Value> {
    let field = prop_oneof![
        Just("name"),
        Just("id"),
        Just("title"),
        Just("description"),
        Just("stars"),
        Just("lang")
    ];
    let scalar = prop_oneof![
        "[a-z]{0,12}".prop_map(Value::String),
        (0u32..100_000).prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
    ];
    let record = prop::collection::btree_map(field, scalar, 1..6)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
    prop::collection::vec(record, 20..200).prop_map(Value::Array)
}

proptest! {
    #[test]
    fn any_json_fits_keeps_key_fields_exact_and_changes_nothing(
        value in crate::agent_state::testing::json_value(),
        budget in 4usize..2_000,
    ) {
        let first = compact_json(&value, budget);
        prop_assert!(first.compacted_chars <= budget);
        prop_assert_eq!(first.compacted_chars, json_chars(&first.value));
        prop_assert_eq!(&first, &compact_json(&value, budget));
        // The output is JSON that reads back as itself.
        let text = first.value.to_string();
        prop_assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(first.value.clone()));
        if first.value != Value::Null || value == Value::Null {
            prop_assert!(is_filtered(&value, &without_marker(&first.value)) || first.value.get(OMITTED_KEY).is_some());
        }
    }

    #[test]
    fn small_values_fill_at_least_ninety_percent(value in small_records(), tenths in 2usize..9) {
        let total = json_chars(&value);
        let budget = (total * tenths / 10).max(400);
        prop_assume!(budget < total);
        let compaction = compact_json(&value, budget);
        prop_assert!(compaction.compacted_chars <= budget);
        prop_assert!(compaction.compacted_chars * 10 >= budget * 9, "{} of {budget}", compaction.compacted_chars);
        prop_assert!(is_filtered(&value, &without_marker(&compaction.value)));
    }
}
