//! `report_context` and `assign`: the Agent Context Report protocol's tool, and the
//! ranking it feeds.

use chrono::Utc;
#[cfg(test)]
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::app::registry::{post_report, rank, registry};
use crate::app::state::Target;
use crate::mcp::ToolContext;
use council_protocol::context_report::score::freshness;
use council_protocol::error::{Error, Result};

/// The schema of `report_context`'s input (camelCase): the protocol's report fields. The
/// full report shape, `{"contextReport": {...}}`, is accepted too.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // The schema's source: the report itself is validated by `parse_report`.
pub struct ReportContextArgs {
    /// Your agent id (letters, digits, `-`, `_`, `.`): one report per id
    agent_id: Option<String>,
    /// Your context window
    context_window: Option<ContextWindow>,
    /// Projects whose files you have loaded
    loaded_projects: Option<Vec<LoadedProject>>,
    /// Tasks whose context you have loaded
    loaded_tasks: Option<Vec<LoadedTask>>,
    /// Which tasks you can start now, and which need loading first
    capabilities: Option<Capabilities>,
    /// When the context was measured (RFC 3339; default: now)
    report_timestamp: Option<String>,
    /// Your model's context size in tokens
    model_context_size: Option<u64>,
    /// The full report shape instead of the fields above: {"contextReport": {...}}
    context_report: Option<Value>,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ContextWindow {
    /// Tokens in use
    total_tokens: u64,
    /// Tokens still free
    available_tokens: u64,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LoadedProject {
    project_id: String,
    /// Files of the project in your context
    files_loaded: u64,
    /// Tokens they take
    size_in_tokens: u64,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct LoadedTask {
    task_id: String,
    /// Files of the task in your context
    relevant_files: u64,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Capabilities {
    /// Task ids you hold the context for
    can_start_immediately: Vec<String>,
    /// Task ids you would have to load first
    needs_context_load: Option<Vec<String>>,
}

/// `report_context`'s arguments as given: the protocol's parser checks them member by
/// member (naming the field), as `council report` does, before any request.
#[derive(Deserialize)]
#[serde(transparent)]
pub struct ReportContextInput(Map<String, Value>);

pub async fn report_context(ctx: &ToolContext, args: ReportContextInput) -> Result<Value> {
    let text = serde_json::to_string(&args.0).map_err(|e| Error::Input(e.to_string()))?;
    let req = ctx.issue(None);
    let posted = post_report(&ctx.env, &req, ctx.req.registry_issue, &text).await?;
    let report = &posted.report;
    let (fresh, age) = freshness(report.reported_at, Utc::now());
    let message = match posted.outcome {
        "posted" => format!("Context report posted: {}", posted.url),
        "updated" => format!("Context report updated in place: {}", posted.url),
        "unchanged" => format!("Context report already posted as is: {}", posted.url),
        "dry_run" => "Dry run: the context report is valid; nothing was posted".to_string(),
        _ => "The context report is valid but was not posted: the token may not write \
              comments (403)"
            .to_string(),
    };
    Ok(json!({
        "success": matches!(posted.outcome, "posted" | "updated" | "unchanged" | "dry_run"),
        "message": message,
        "optimization": {
            "tasksSuitedForYou": report.can_start_immediately,
            "tasksRequiringLoad": report.needs_context_load,
        },
        "freshness": {
            "verdict": fresh.name(),
            "ageSeconds": age,
            "refreshNeeded": fresh.name() == "COLD",
        },
        "outcome": posted.outcome,
        "commentUrl": posted.url,
        "registryIssue": posted.registry,
        "warnings": posted.warnings,
    }))
}

/// `assign`'s arguments.
#[derive(Deserialize)]
#[cfg_attr(test, derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AssignArgs {
    /// The issue to rank agents for
    issue: u64,
    /// Label the issue agent:<id> (replacing an earlier agent:* label); default false
    #[serde(default)]
    apply: bool,
}

pub async fn assign(ctx: &ToolContext, args: AssignArgs) -> Result<Value> {
    let registry = registry(ctx.req.registry_issue, "assign")?;
    let req = ctx.issue(Some(args.issue));
    let target = Target::resolve_issue(&ctx.env, &req, args.issue, "assign")?;
    let assigned = rank(&ctx.env, &req, &target, registry, args.apply).await?;
    let mut out = assigned.json();
    out["warnings"] = json!(assigned.warnings);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use council_protocol::context_report::report::parse_report;

    /// What the schema requires and nothing more, leaf values chosen by name.
    fn minimal(schema: &Value, name: &str) -> Value {
        let kind = match &schema["type"] {
            Value::Array(kinds) => kinds[0].as_str().unwrap_or_default(),
            kind => kind.as_str().unwrap_or_default(),
        };
        match kind {
            "object" => {
                let mut map = Map::new();
                for field in schema["required"].as_array().into_iter().flatten() {
                    let field = field.as_str().unwrap();
                    map.insert(field.into(), minimal(&schema["properties"][field], field));
                }
                Value::Object(map)
            }
            "array" => json!([minimal(&schema["items"], name)]),
            "integer" => json!(1),
            _ => match name {
                "canStartImmediately" | "needsContextLoad" | "taskId" => json!("T-1"),
                _ => json!("agent-1"),
            },
        }
    }

    /// The tool's arguments are a report's fields; which of them a caller must give is
    /// said twice, by the schema and by the parser, and this holds the two together:
    /// the schema's minimum parses, and without any one field it lists as required, it
    /// does not.
    #[test]
    fn the_schema_requires_what_the_parser_requires() {
        let schema: Value = serde_json::from_str(include_str!("../schemas/report_context.json"))
            .expect("the committed schema is JSON");
        // The top-level fields are optional in the schema only because the whole
        // `{"contextReport": …}` shape may stand instead of them.
        let mut report = Map::new();
        for field in [
            "agentId",
            "contextWindow",
            "loadedProjects",
            "loadedTasks",
            "capabilities",
        ] {
            report.insert(field.into(), minimal(&schema["properties"][field], field));
        }
        let text = Value::Object(report.clone()).to_string();
        if let Err(e) = parse_report(&text) {
            panic!("the schema's minimal report is refused: {e:?}\n{text}");
        }
        let mut dropped = 0;
        for (field, value) in &report {
            let Some(object) = value.as_object().or_else(|| value[0].as_object()) else {
                continue;
            };
            for inner in object.keys() {
                let mut without = report.clone();
                let slot = &mut without[field];
                let target = if slot.is_array() { &mut slot[0] } else { slot };
                target.as_object_mut().unwrap().remove(inner);
                let text = Value::Object(without).to_string();
                assert!(
                    parse_report(&text).is_err(),
                    "the schema requires {field}.{inner}, the parser does not"
                );
                dropped += 1;
            }
        }
        assert!(dropped >= 5, "only {dropped} required fields were tried");
    }
}
