//! Generators shared by the property tests of every block module: text built from the
//! pieces that break naive XML, Markdown and JSON handling, and states made of it.

use proptest::prelude::*;
use serde_json::Value;

use crate::agent_state::model::{AgentState, Memory, Progress};

/// A state whose text fields all hold `value`.
pub(crate) fn text_state(value: &str) -> AgentState {
    AgentState {
        agent: Some(value.to_owned()),
        intent: Some(value.to_owned()),
        step: Some(value.to_owned()),
        next_action: Some(value.to_owned()),
        ..AgentState::default()
    }
}

/// Text made of pieces that break naive XML, Markdown, JSON or trimming, and any string.
pub(crate) fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<String>(),
        Just("<".to_owned()),
        Just("&".to_owned()),
        Just("]]>".to_owned()),
        Just("</memory>".to_owned()),
        Just("-->".to_owned()),
        Just("```".to_owned()),
        Just("~~~~".to_owned()),
        Just("`".to_owned()),
        Just("\n> ".to_owned()),
        Just("\n    ".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just(" ".to_owned()),
        Just("\u{a0}".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("\u{200b}".to_owned()),
        Just("<agent-state>".to_owned()),
        Just("</agent-state>".to_owned()),
        Just("&lt;".to_owned()),
        Just("<!--".to_owned()),
        Just("\0".to_owned()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

/// Any JSON value, nested a few levels, with hostile strings as keys and values.
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        hostile_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((hostile_text(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Any state without unknown elements, memory written compact or pretty.
pub(crate) fn agent_state() -> impl Strategy<Value = AgentState> {
    let text = || prop::option::of(hostile_text());
    (
        (text(), text(), text(), text()),
        prop::option::of(0u8..=100),
        prop::option::of(json_value()),
        any::<bool>(),
    )
        .prop_map(
            |((agent, intent, step, next_action), progress, memory, pretty)| {
                let memory = memory.map(|value| match pretty {
                    true => Memory::from_value_pretty(&value),
                    false => Memory::from_value(&value),
                });
                AgentState {
                    agent,
                    intent,
                    step,
                    progress: progress.and_then(Progress::new),
                    memory,
                    next_action,
                    ..AgentState::default()
                }
            },
        )
}
