//! action.yml and the CLI describe one input surface; they must not drift apart.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Action {
    inputs: BTreeMap<String, Input>,
    outputs: BTreeMap<String, Output>,
}

#[derive(Deserialize)]
struct Input {
    description: String,
    default: Option<String>,
}

#[derive(Deserialize)]
struct Output {
    description: String,
}

fn action() -> Action {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml")).unwrap();
    let raw: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    serde_json::from_value(raw).unwrap()
}

#[test]
fn every_input_has_a_flag_and_every_flag_an_input() {
    let action = action();
    let mut from_action: Vec<String> = action.inputs.keys().cloned().collect();
    let mut from_cli = agent_council::cli::input_names();
    from_action.sort();
    from_cli.sort();
    assert_eq!(from_action, from_cli);
}

#[test]
fn every_input_is_documented_with_a_default() {
    for (name, input) in action().inputs {
        assert!(
            !input.description.trim().is_empty(),
            "{name} has no description"
        );
        assert!(input.default.is_some(), "{name} has no default");
    }
}

#[test]
fn every_output_of_the_contract_is_declared() {
    let outputs = action().outputs;
    for name in [
        "guard-status",
        "review-status",
        "release-status",
        "context",
        "audit-path",
        "artifact-id",
        "state-intent",
        "state-step",
        "state-progress",
        "state-memory",
        "state-next-action",
        "state-comment-url",
        "recommended-agent",
    ] {
        let output = outputs
            .get(name)
            .unwrap_or_else(|| panic!("output {name} missing"));
        assert!(!output.description.trim().is_empty());
    }
}
