//! `state put` inputs → the state to write: validation, and the overlay on the latest
//! state (fields not given are carried over, unknown elements included).

use serde::Deserialize;
use serde_json::Value;

use crate::agent_state::model::{AgentState, Memory, Progress, UnknownElement, is_step_token};
use crate::agent_state::v21::{
    InputRequest, Metrics, PlanItem, PlanStatus, render_input_request, render_metrics, render_plan,
    replace_element,
};
use crate::error::Error;
use crate::markdown::count_tasks;

/// Validated inputs; `None` fields are carried over from the latest state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PutRequest {
    pub agent: Option<String>,
    pub intent: Option<String>,
    pub step: Option<String>,
    pub progress: Option<ProgressInput>,
    pub memory: Option<Memory>,
    pub next_action: Option<String>,
    pub plan: Option<Vec<PlanItem>>,
    pub input_request: Option<InputRequest>,
    pub metrics: Option<Metrics>,
}

impl PutRequest {
    /// The v2.1 elements this request writes, as they will appear in the block.
    pub fn elements(&self) -> Vec<UnknownElement> {
        let mut xml = Vec::new();
        if let Some(plan) = &self.plan {
            xml.push(render_plan(plan));
        }
        if let Some(request) = &self.input_request {
            xml.push(render_input_request(request));
        }
        if let Some(metrics) = &self.metrics {
            xml.push(render_metrics(metrics));
        }
        // The renderers escape every value, so each is one well-formed element.
        xml.iter()
            .filter_map(|x| UnknownElement::from_xml(x).ok())
            .collect()
    }
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
    pub agent: Option<&'a str>,
    pub intent: Option<&'a str>,
    pub step: Option<&'a str>,
    pub progress: Option<&'a str>,
    pub memory: Option<&'a str>,
    pub next_action: Option<&'a str>,
    /// JSON: `[{"status": "done", "text": "…"}, …]`.
    pub plan: Option<&'a str>,
    /// JSON `{"status": …, "question": …}`, or plain text: an open question.
    pub input_request: Option<&'a str>,
    /// JSON `{"tool_calls": …, "errors": …, "cost_estimate": …, "generated_at": …}`.
    pub metrics: Option<&'a str>,
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
    let agent = match inputs.agent.map(str::trim) {
        Some("") => return Err(bad("agent", "is empty".into())),
        other => other.map(str::to_string),
    };
    Ok(PutRequest {
        agent,
        intent: inputs.intent.map(str::to_string),
        step,
        progress,
        memory,
        next_action: inputs.next_action.map(str::to_string),
        plan: inputs.plan.map(parse_plan).transpose()?,
        input_request: inputs.input_request.map(parse_input_request).transpose()?,
        metrics: inputs.metrics.map(parse_metrics).transpose()?,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanItemInput {
    status: String,
    text: String,
}

fn parse_plan(text: &str) -> Result<Vec<PlanItem>, Error> {
    let bad = |why: String| Error::Input(format!("input `plan`: {why}"));
    let items: Vec<PlanItemInput> = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "{e}; expected a JSON array such as [{{\"status\": \"done\", \"text\": \"Write the parser\"}}]"
        ))
    })?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let status = PlanStatus::parse(&item.status).ok_or_else(|| {
                bad(format!(
                    "item {} has status `{}`; use pending, in_progress or done",
                    i + 1,
                    item.status
                ))
            })?;
            if item.text.trim().is_empty() {
                return Err(bad(format!("item {} has no text", i + 1)));
            }
            Ok(PlanItem {
                status,
                text: item.text,
            })
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InputRequestInput {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    question: Option<String>,
}

fn parse_input_request(text: &str) -> Result<InputRequest, Error> {
    let bad = |why: String| Error::Input(format!("input `input-request`: {why}"));
    if !text.trim_start().starts_with('{') {
        return Ok(InputRequest::new(
            Some("waiting".to_owned()),
            Some(text.trim().to_owned()),
        ));
    }
    let input: InputRequestInput = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "{e}; expected {{\"status\": \"waiting\", \"question\": \"…\"}} or the question as plain text"
        ))
    })?;
    let question = input.question.filter(|q| !q.trim().is_empty());
    // Any status is the agent's own word (SPEC): only `answered` closes the request.
    let request = InputRequest::new(input.status, question);
    if request.is_open() && request.question.is_none() {
        return Err(bad(
            "an open request needs a `question` for the human".into()
        ));
    }
    Ok(request)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricsInput {
    #[serde(default)]
    tool_calls: Option<u64>,
    #[serde(default)]
    errors: Option<u64>,
    #[serde(default)]
    cost_estimate: Option<f64>,
    #[serde(default)]
    generated_at: Option<String>,
}

fn parse_metrics(text: &str) -> Result<Metrics, Error> {
    let bad = |why: String| Error::Input(format!("input `metrics`: {why}"));
    let input: MetricsInput = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "{e}; expected {{\"tool_calls\": 12, \"errors\": 0, \"cost_estimate\": 0.15}} \
             (whole numbers ≥ 0, a cost ≥ 0)"
        ))
    })?;
    if let Some(cost) = input.cost_estimate
        && !(cost.is_finite() && cost >= 0.0)
    {
        return Err(bad(format!("cost_estimate {cost} is not a number ≥ 0")));
    }
    if let Some(at) = &input.generated_at {
        crate::assistant_context::parse_timestamp(at)
            .map_err(|why| bad(format!("generated_at {why}")))?;
    }
    Ok(Metrics {
        tool_calls: input.tool_calls,
        errors: input.errors,
        cost_estimate: input.cost_estimate,
        generated_at: input.generated_at,
    })
}

/// The new state: the request over the latest state; `auto` progress from the issue body.
pub fn overlay(latest: &AgentState, request: &PutRequest, issue_body: &str) -> AgentState {
    let mut state = latest.clone();
    if let Some(v) = &request.agent {
        state.agent = Some(v.clone());
    }
    for element in request.elements() {
        replace_element(&mut state, element);
    }
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
            ..PutInputs::default()
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
            assert_eq!(e.kind(), crate::error::Kind::BadInput);
            assert!(e.to_string().contains(needle), "{e}");
        }
    }

    #[test]
    fn v21_inputs_are_parsed_strictly() {
        let request = validate(&PutInputs {
            agent: Some(" claude "),
            plan: Some(
                r#"[{"status": "done", "text": "a"}, {"status": "in_progress", "text": "b <c>"}]"#,
            ),
            input_request: Some("What is the staging Client ID?"),
            metrics: Some(r#"{"tool_calls": 16, "errors": 1, "cost_estimate": 0.15}"#),
            ..PutInputs::default()
        })
        .unwrap();
        assert_eq!(request.agent.as_deref(), Some("claude"));
        assert_eq!(request.plan.as_ref().map(Vec::len), Some(2));
        assert_eq!(request.input_request.as_ref().map(|r| r.open), Some(true));
        assert_eq!(
            request.metrics.as_ref().and_then(|m| m.tool_calls),
            Some(16)
        );
        let names: Vec<String> = request
            .elements()
            .iter()
            .map(|e| e.name().to_owned())
            .collect();
        assert_eq!(names, ["plan", "input_request", "metrics"]);
        for (inputs, needle) in [
            (
                PutInputs {
                    plan: Some(r#"[{"status": "blocked", "text": "a"}]"#),
                    ..PutInputs::default()
                },
                "input `plan`: item 1 has status `blocked`",
            ),
            (
                PutInputs {
                    plan: Some(r#"[{"status": "done", "text": "a", "x": 1}]"#),
                    ..PutInputs::default()
                },
                "unknown field `x`",
            ),
            (
                PutInputs {
                    plan: Some(r#"{"status": "done"}"#),
                    ..PutInputs::default()
                },
                "input `plan`",
            ),
            (
                PutInputs {
                    input_request: Some(r#"{"status": "waiting"}"#),
                    ..PutInputs::default()
                },
                "needs a `question`",
            ),
            (
                PutInputs {
                    input_request: Some(r#"{"status": "later"}"#),
                    ..PutInputs::default()
                },
                "needs a `question`",
            ),
            (
                PutInputs {
                    metrics: Some(r#"{"tool_calls": -1}"#),
                    ..PutInputs::default()
                },
                "input `metrics`",
            ),
            (
                PutInputs {
                    metrics: Some(r#"{"cost_estimate": -0.5}"#),
                    ..PutInputs::default()
                },
                "not a number ≥ 0",
            ),
            (
                PutInputs {
                    metrics: Some(r#"{"generated_at": "today"}"#),
                    ..PutInputs::default()
                },
                "generated_at",
            ),
            (
                PutInputs {
                    agent: Some("  "),
                    ..PutInputs::default()
                },
                "input `agent`",
            ),
        ] {
            let e = validate(&inputs).unwrap_err();
            assert_eq!(e.kind(), crate::error::Kind::BadInput);
            assert!(e.to_string().contains(needle), "{e}");
        }
    }

    #[test]
    fn an_input_request_takes_any_status_as_written() {
        for (status, open) in [
            ("needs-human", true),
            ("Pending", true),
            (" open ", true),
            ("ANSWERED", false),
        ] {
            let json = serde_json::json!({"status": status, "question": "q"}).to_string();
            let request = validate(&PutInputs {
                input_request: Some(&json),
                ..PutInputs::default()
            })
            .unwrap()
            .input_request
            .unwrap();
            assert_eq!(request.status.as_deref(), Some(status.trim()));
            assert_eq!(request.open, open, "{status}");
        }
    }

    #[test]
    fn v21_elements_replace_their_namesakes_and_keep_others() {
        let latest = crate::agent_state::parse_block(
            "<agent-state><agent>old</agent><plan/><friction>x</friction></agent-state>",
        )
        .unwrap();
        let request = validate(&PutInputs {
            agent: Some("new"),
            plan: Some(r#"[{"status": "pending", "text": "next"}]"#),
            ..PutInputs::default()
        })
        .unwrap();
        let state = overlay(&latest, &request, "");
        assert_eq!(state.agent.as_deref(), Some("new"));
        let names: Vec<&str> = state.unknown.iter().map(UnknownElement::name).collect();
        assert_eq!(names, ["plan", "friction"]);
        assert_eq!(
            crate::agent_state::v21::read(&state).plan.map(|p| p.len()),
            Some(1)
        );
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
