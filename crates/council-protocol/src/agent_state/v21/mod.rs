//! The Context Protocol v2.1 elements: `<plan>`, `<input_request>` and `<metrics>` (the
//! writer's name, `<agent>`, is a plain field of the block).
//!
//! A block keeps these elements as their exact source text (they round-trip byte for
//! byte like any element the product does not interpret); this module reads a typed
//! view of them. Each element is checked on its own: a bad one is a warning naming the
//! element and what to change, and neither it nor the rest of the block is dropped.
//!
//! Rules where the protocol is silent:
//! - An element that appears twice is a warning and neither copy is read: which one an
//!   agent meant cannot be told.
//! - Unknown child elements of a v2.1 element are a warning (a typo such as
//!   `<toolcalls>` must not silently read as "no metrics").
//! - Writing (`state put --plan/--input-request/--metrics`) goes through the same
//!   types, so what is written always reads back.

mod input_request;
mod metrics;
mod plan;
mod text;

pub use input_request::{ANSWERED, InputRequest, render as render_input_request};
pub use metrics::{Metrics, render as render_metrics};
pub use plan::{PlanItem, PlanStatus, render as render_plan};

use serde::Serialize;

use crate::agent_state::model::{AgentState, UnknownElement};

/// The names of the elements this module reads.
pub const ELEMENTS: [&str; 3] = ["plan", "input_request", "metrics"];

/// The typed v2.1 elements of one block, and what was wrong with the others.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct V21 {
    pub plan: Option<Vec<PlanItem>>,
    pub input_request: Option<InputRequest>,
    pub metrics: Option<Metrics>,
    /// One message per bad element, e.g. "`<plan>`: item 2 has status `blocked`; …".
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl V21 {
    /// The open question for the human, when the agent is waiting for one.
    pub fn open_question(&self) -> Option<&str> {
        self.input_request
            .as_ref()
            .filter(|r| r.is_open())
            .and_then(|r| r.question.as_deref())
    }
}

/// Reads the v2.1 elements of `state`.
pub fn read(state: &AgentState) -> V21 {
    let mut v21 = V21::default();
    for name in ELEMENTS {
        let found: Vec<&UnknownElement> =
            state.unknown.iter().filter(|u| u.name() == name).collect();
        let element = match found.as_slice() {
            [] => continue,
            [one] => *one,
            _ => {
                v21.warnings.push(format!(
                    "`<{name}>` appears {} times; keep one (none of them was read)",
                    found.len()
                ));
                continue;
            }
        };
        let result = match name {
            "plan" => plan::parse(element.xml()).map(|p| v21.plan = Some(p)),
            "input_request" => {
                input_request::parse(element.xml()).map(|r| v21.input_request = Some(r))
            }
            _ => metrics::parse(element.xml()).map(|m| v21.metrics = Some(m)),
        };
        if let Err(why) = result {
            v21.warnings.push(format!("`<{name}>` was not read: {why}"));
        }
    }
    v21
}

/// `state` with `element` in place of the element of the same name (or appended).
pub fn replace_element(state: &mut AgentState, element: UnknownElement) {
    match state
        .unknown
        .iter()
        .position(|u| u.name() == element.name())
    {
        Some(index) => {
            state.unknown[index] = element;
            let name = state.unknown[index].name().to_owned();
            // A second copy would make the element unreadable (see `read`).
            let mut seen = false;
            state.unknown.retain(|u| {
                if u.name() != name {
                    return true;
                }
                let keep = !seen;
                seen = true;
                keep
            });
        }
        None => state.unknown.push(element),
    }
}

#[cfg(test)]
mod tests;
