//! `state put` inputs → the state to write: validation, and the overlay on the latest
//! state (fields not given are carried over, unknown elements included).

use serde_json::Value;

use crate::agent_state::model::{AgentState, Memory, Progress, is_step_token};
use crate::error::Error;
use crate::markdown::count_tasks;

/// Validated inputs; `None` fields are carried over from the latest state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PutRequest {
    pub intent: Option<String>,
    pub step: Option<String>,
    pub progress: Option<ProgressInput>,
    pub memory: Option<Memory>,
    pub next_action: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressInput {
    Value(Progress),
    /// floor(100 × checked / all) over the issue body's task list.
    Auto,
}

/// Raw text of the inputs (`memory` already read from `@path` when it was one).
#[derive(Debug, Clone, Copy, Default)]
pub struct PutInputs<'a> {
    pub intent: Option<&'a str>,
    pub step: Option<&'a str>,
    pub progress: Option<&'a str>,
    pub memory: Option<&'a str>,
    pub next_action: Option<&'a str>,
}

pub fn validate(inputs: &PutInputs) -> Result<PutRequest, Error> {
    let bad = |input: &str, why: String| Error::Input(format!("input `{input}`: {why}"));
    let step = match inputs.step.map(str::trim) {
        Some(s) if !is_step_token(s) => {
            return Err(bad(
                "step",
                format!(
                    "`{s}` is not a step token: use lower-case letters, digits, `_` and `-`, \
                     starting with a letter (e.g. waiting_for_review)"
                ),
            ));
        }
        other => other.map(str::to_string),
    };
    let progress = match inputs.progress.map(str::trim) {
        None => None,
        Some("auto") => Some(ProgressInput::Auto),
        Some(p) => Some(ProgressInput::Value(
            p.parse::<u8>()
                .ok()
                .and_then(Progress::new)
                .ok_or_else(|| {
                    bad(
                        "progress",
                        format!("`{p}` is not a whole number from 0 to 100, or `auto`"),
                    )
                })?,
        )),
    };
    let memory = match inputs.memory {
        None => None,
        Some(text) => {
            let value: Value = serde_json::from_str(text)
                .map_err(|e| bad("memory", format!("not valid JSON: {e}")))?;
            Some(Memory::from_value(&value))
        }
    };
    Ok(PutRequest {
        intent: inputs.intent.map(str::to_string),
        step,
        progress,
        memory,
        next_action: inputs.next_action.map(str::to_string),
    })
}

/// The new state: the request over the latest state; `auto` progress from the issue body.
pub fn overlay(latest: &AgentState, request: &PutRequest, issue_body: &str) -> AgentState {
    let mut state = latest.clone();
    if let Some(v) = &request.intent {
        state.intent = Some(v.clone());
    }
    if let Some(v) = &request.step {
        state.step = Some(v.clone());
    }
    if let Some(v) = &request.next_action {
        state.next_action = Some(v.clone());
    }
    if let Some(v) = &request.memory {
        state.memory = Some(v.clone());
    }
    match request.progress {
        Some(ProgressInput::Value(p)) => state.progress = Some(p),
        Some(ProgressInput::Auto) => {
            state.progress = Progress::new(count_tasks(issue_body).percent())
        }
        None => {}
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(
        step: Option<&'a str>,
        progress: Option<&'a str>,
        memory: Option<&'a str>,
    ) -> PutInputs<'a> {
        PutInputs {
            intent: Some("fix_bug"),
            step,
            progress,
            memory,
            next_action: None,
        }
    }

    #[test]
    fn valid_inputs() {
        let r = validate(&inputs(Some("testing"), Some("60"), Some("{\"a\":[1,2]}"))).unwrap();
        assert_eq!(r.step.as_deref(), Some("testing"));
        assert_eq!(
            r.progress,
            Some(ProgressInput::Value(Progress::new(60).unwrap()))
        );
        assert_eq!(r.memory.unwrap().to_compact_string(), "{\"a\":[1,2]}");
        assert_eq!(
            validate(&inputs(None, Some("auto"), None))
                .unwrap()
                .progress,
            Some(ProgressInput::Auto)
        );
        assert_eq!(
            validate(&inputs(None, Some("0"), None)).unwrap().progress,
            Progress::new(0).map(ProgressInput::Value)
        );
    }

    #[test]
    fn invalid_inputs_name_the_input() {
        for (i, needle) in [
            (inputs(Some("Testing"), None, None), "input `step`"),
            (inputs(Some("wait for review"), None, None), "input `step`"),
            (inputs(None, Some("-1"), None), "input `progress`"),
            (inputs(None, Some("101"), None), "input `progress`"),
            (inputs(None, Some("60%"), None), "input `progress`"),
            (inputs(None, None, Some("{not json")), "input `memory`"),
        ] {
            let e = validate(&i).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains(needle), "{e}");
        }
    }

    #[test]
    fn fields_not_given_are_carried_over() {
        let mut latest = AgentState::initial();
        latest.intent = Some("old".into());
        latest.memory = Some(Memory::from_value(&serde_json::json!({"k": 1})));
        let request = validate(&PutInputs {
            step: Some("coding"),
            progress: Some("auto"),
            ..PutInputs::default()
        })
        .unwrap();
        let body = "- [x] one\n- [ ] two\n- [x] three\n```\n- [ ] not a task\n```\n";
        let state = overlay(&latest, &request, body);
        assert_eq!(state.intent.as_deref(), Some("old"));
        assert_eq!(state.step.as_deref(), Some("coding"));
        assert_eq!(state.progress.map(Progress::value), Some(66));
        assert_eq!(state.memory.unwrap().to_compact_string(), "{\"k\":1}");
    }
}
