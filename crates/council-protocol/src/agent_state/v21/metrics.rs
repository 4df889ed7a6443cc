//! `<metrics>`: `<tool_calls>`, `<errors>` (whole numbers), `<cost_estimate>` (a
//! non-negative decimal, e.g. `0.15`) and `<generated_at>` (ISO 8601 with a zone; the
//! origin's PowerShell writer always adds it). Each is optional.

use serde::Serialize;

use super::text::{children, escape};
use crate::assistant_context::parse_timestamp;
use crate::chars::show_hidden;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub tool_calls: Option<u64>,
    pub errors: Option<u64>,
    pub cost_estimate: Option<f64>,
    pub generated_at: Option<String>,
}

impl Metrics {
    /// The tool calls when they are above `max_tool_calls` (the policy's
    /// `agent_state.max_tool_calls`): an agent that keeps calling tools may be looping.
    /// Equal is fine: the limit is the last count allowed.
    pub fn too_many_tool_calls(&self, max_tool_calls: u64) -> Option<u64> {
        self.tool_calls.filter(|&calls| calls > max_tool_calls)
    }
}

pub(super) fn parse(xml: &str) -> Result<Metrics, String> {
    let mut metrics = Metrics::default();
    let mut seen: Vec<String> = Vec::new();
    for child in children(xml, "metrics")? {
        if seen.contains(&child.name) {
            return Err(format!("`<{}>` appears more than once", child.name));
        }
        seen.push(child.name.clone());
        let text = child.text.trim();
        let shown = || show_hidden(text, 40);
        match child.name.as_str() {
            "tool_calls" | "errors" => {
                let value = text.parse::<u64>().map_err(|_| {
                    format!(
                        "`<{}>` is `{}`; expected a whole number ≥ 0",
                        child.name,
                        shown()
                    )
                })?;
                if child.name == "tool_calls" {
                    metrics.tool_calls = Some(value);
                } else {
                    metrics.errors = Some(value);
                }
            }
            "cost_estimate" => {
                let valid = !text.is_empty()
                    && text.chars().all(|c| c.is_ascii_digit() || c == '.')
                    && text.matches('.').count() <= 1
                    && text.chars().any(|c| c.is_ascii_digit());
                let value = valid
                    .then(|| text.parse::<f64>().ok())
                    .flatten()
                    .ok_or_else(|| {
                        format!(
                            "`<cost_estimate>` is `{}`; expected a number ≥ 0 such as 0.15",
                            shown()
                        )
                    })?;
                metrics.cost_estimate = Some(value);
            }
            "generated_at" => {
                parse_timestamp(text)
                    .map_err(|why| format!("`<generated_at>` {why} (found `{}`)", shown()))?;
                metrics.generated_at = Some(text.to_owned());
            }
            other => {
                return Err(format!(
                    "`<{}>` is not a metric; use tool_calls, errors, cost_estimate or generated_at",
                    show_hidden(other, 40)
                ));
            }
        }
    }
    Ok(metrics)
}

pub fn render(metrics: &Metrics) -> String {
    let mut out = String::from("<metrics>\n");
    if let Some(n) = metrics.tool_calls {
        out.push_str(&format!("    <tool_calls>{n}</tool_calls>\n"));
    }
    if let Some(n) = metrics.errors {
        out.push_str(&format!("    <errors>{n}</errors>\n"));
    }
    if let Some(cost) = metrics.cost_estimate {
        out.push_str(&format!("    <cost_estimate>{cost}</cost_estimate>\n"));
    }
    if let Some(at) = &metrics.generated_at {
        out.push_str(&format!(
            "    <generated_at>{}</generated_at>\n",
            escape(at)
        ));
    }
    out.push_str("  </metrics>");
    out
}
