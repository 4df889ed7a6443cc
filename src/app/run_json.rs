//! `--json` for the pull-request commands (`guard`, `review`, `release`, `run`): one
//! compact object per pull request, on its own line (a release event may be about
//! several). It holds what the run decided and did: the outputs (with `context` as an
//! object, not a string), each stage's gates, each effect, the notes, the exit code and
//! the error that left a stage undecided.

use serde_json::{Map, Value, json};

use council_protocol::error::Error;
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::render::summary::RunReport;
use council_protocol::stage::{EffectReport, EffectResult, Output, Outputs};

pub fn pr_run(
    command: &str,
    repository: &str,
    report: &RunReport,
    outputs: &Outputs,
    exit_code: i32,
    error: Option<&Error>,
) -> Value {
    let pr = report.pr;
    let stages: Vec<Value> = report
        .stages
        .iter()
        .map(|stage| {
            json!({
                "stage": stage.stage.name(),
                "status": stage.status.as_str(),
                "gates": GateVerdict::all(&stage.gates),
                "notes": stage.notes.iter().map(|n| n.plain()).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "command": command,
        "repository": repository,
        "pull_request": {
            "number": pr.number,
            "head": pr.head_ref,
            "base": pr.base_ref,
            "head_sha": pr.head_sha,
        },
        "exit_code": exit_code,
        "outputs": outputs_json(outputs),
        "stages": stages,
        "effects": report.effects.iter().map(effect_json).collect::<Vec<_>>(),
        "notes": report.notes.iter().map(|n| n.plain()).collect::<Vec<_>>(),
        "error": error.map(error_json),
    })
}

/// A run that had nothing to decide (an event no stage handles, a closed pull request).
pub fn nothing_to_do(command: &str, why: &str) -> Value {
    json!({
        "command": command,
        "exit_code": 0,
        "outputs": outputs_json(&Outputs::pending()),
        "notice": why,
    })
}

/// Output names to values; `context` (compact JSON) as the object it holds.
fn outputs_json(outputs: &Outputs) -> Value {
    let mut map = Map::new();
    for (name, value) in outputs.pairs() {
        let value = match serde_json::from_str::<Value>(&value) {
            Ok(parsed) if name == Output::Context.name() => parsed,
            _ => Value::String(value),
        };
        map.insert(name.to_string(), value);
    }
    Value::Object(map)
}

fn effect_json(effect: &EffectReport) -> Value {
    let result = match effect.result {
        EffectResult::Done(_) => "done",
        EffectResult::Unchanged(_) => "unchanged",
        EffectResult::Skipped(_) => "skipped",
        EffectResult::Refused(_) => "refused",
        EffectResult::Pending(_) => "pending",
        EffectResult::Failed(_) => "failed",
    };
    json!({
        "action": effect.action,
        "result": result,
        "message": effect.message().plain(),
    })
}

fn error_json(e: &Error) -> Value {
    json!({"title": crate::exit::title(e), "message": e.to_string(), "exit_code": crate::exit::code(e)})
}
