//! The Agent Context Report, validated strictly against the protocol's shape.
//!
//! The seed shows one report format (`{"contextReport": {…}}`) and one MCP tool argument
//! (the inner object); both are accepted. Every member the seed's example shows is
//! known; any other is an error, so a typo cannot silently drop a capability.
//!
//! Rules (where the seed is silent or wrong):
//! - Required: `agentId`, `contextWindow.totalTokens`, `contextWindow.availableTokens`,
//!   `loadedProjects[].projectId/filesLoaded/sizeInTokens`, `loadedTasks[].taskId/
//!   relevantFiles`, `capabilities.canStartImmediately` (the zod schema's list) and
//!   `reportTimestamp` (freshness needs it; `council report` fills it in when left out,
//!   as the seed's database did with `datetime('now')`). `capabilities.needsContextLoad`
//!   is optional: the seed's zod schema required it but its MCP schema omitted it, so
//!   calls that followed the schema were refused.
//! - `totalTokens` means tokens *used* (the seed's `percentFull` is total ÷ (total +
//!   available)). Token and file counts are whole numbers ≥ 0; `percentFull` is 0–100;
//!   `estimatedLoadTime` (seconds) a number ≥ 0.
//! - `agentId`: 1–44 characters of `A-Z a-z 0-9 . _ -`, so that `agent:<id>` is a
//!   valid GitHub label (50 characters at most).
//! - At most 1,000 projects, tasks, documents, and ids in each capability list; task and
//!   project ids are unique; a string holds at most 1,000 characters.
//! - Timestamps are ISO 8601 with a time zone.

use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use serde_json::{Map, Value};

use super::strict_json;
use crate::assistant_context::parse_timestamp;
use crate::chars::show_hidden;

pub const MAX_ITEMS: usize = 1_000;
pub const MAX_TEXT_CHARS: usize = 1_000;
pub const MAX_AGENT_ID_CHARS: usize = 44;

/// One validated report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub agent_id: String,
    /// `None` only before `council report` stamps it; a report read from a comment has it.
    pub report_timestamp: Option<String>,
    #[serde(skip)]
    pub reported_at: Option<DateTime<FixedOffset>>,
    pub total_tokens: u64,
    pub available_tokens: u64,
    pub project_ids: Vec<String>,
    pub task_ids: Vec<String>,
    pub can_start_immediately: Vec<String>,
    pub needs_context_load: Vec<String>,
    /// The report as given (comments dropped), for writing it back.
    #[serde(skip)]
    pub json: Value,
}

/// Why a report was refused: the member (`contextReport.loadedTasks[3].taskId`) and
/// what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.field, self.message)
        }
    }
}

/// Parses and validates a report (JSON with comments allowed). A refusal's field and
/// message are redacted ([`crate::redact::shown`]): they quote member names and values,
/// and reach a warning on the registry, the MCP reply and `council report`'s error.
pub fn parse_report(text: &str) -> Result<Report, ReportError> {
    read(text).map_err(|e| ReportError {
        field: crate::redact::shown(&e.field).into_owned(),
        message: crate::redact::shown(&e.message).into_owned(),
    })
}

fn read(text: &str) -> Result<Report, ReportError> {
    let value = strict_json::parse(text).map_err(|e| ReportError {
        field: String::new(),
        message: format!("not valid JSON at {e}"),
    })?;
    let (inner, prefix) = match &value {
        Value::Object(map) if map.contains_key("contextReport") => {
            if let Some(other) = map.keys().find(|k| *k != "contextReport") {
                return Err(unknown(other, &["contextReport"]));
            }
            (&map["contextReport"], "contextReport")
        }
        _ => (&value, "contextReport"),
    };
    let r = Reader::new(prefix);
    let report = r.object(
        inner,
        &[
            "agentId",
            "reportTimestamp",
            "modelContextSize",
            "contextWindow",
            "loadedProjects",
            "loadedTasks",
            "loadedDocuments",
            "capabilities",
            "memoryState",
        ],
    )?;
    let agent_id = r.string(report, "agentId", true)?.unwrap_or_default();
    check_agent_id(&agent_id, &r.path("agentId"))?;
    let report_timestamp = r.string(report, "reportTimestamp", false)?;
    let reported_at = match &report_timestamp {
        Some(text) => Some(r.timestamp(text, "reportTimestamp")?),
        None => None,
    };
    r.count(report, "modelContextSize", false)?;

    let window_reader = r.child("contextWindow");
    let window = window_reader.object(
        r.member(report, "contextWindow", true)?
            .unwrap_or(&Value::Null),
        &["totalTokens", "percentFull", "availableTokens"],
    )?;
    let total_tokens = window_reader
        .count(window, "totalTokens", true)?
        .unwrap_or(0);
    let available_tokens = window_reader
        .count(window, "availableTokens", true)?
        .unwrap_or(0);
    if let Some(percent) = window_reader.number(window, "percentFull")?
        && percent > 100.0
    {
        return Err(ReportError {
            field: window_reader.path("percentFull"),
            message: format!("is {percent}; a percentage is 0 to 100"),
        });
    }

    let mut project_ids = Vec::new();
    for (i, project) in r.array(report, "loadedProjects", true)?.iter().enumerate() {
        let p = r.item("loadedProjects", i);
        let project = p.object(
            project,
            &[
                "projectId",
                "projectName",
                "loadedAt",
                "filesLoaded",
                "categories",
                "sizeInTokens",
                "freshness",
            ],
        )?;
        let id = p.string(project, "projectId", true)?.unwrap_or_default();
        p.string(project, "projectName", false)?;
        if let Some(at) = p.string(project, "loadedAt", false)? {
            p.timestamp(&at, "loadedAt")?;
        }
        p.count(project, "filesLoaded", true)?;
        p.count(project, "sizeInTokens", true)?;
        if let Some(freshness) = p.string(project, "freshness", false)?
            && !matches!(freshness.as_str(), "HOT" | "WARM" | "COLD")
        {
            return Err(ReportError {
                field: p.path("freshness"),
                message: format!(
                    "is `{}`; use HOT, WARM or COLD",
                    show_hidden(&freshness, 40)
                ),
            });
        }
        if let Some(categories) = p.member(project, "categories", false)? {
            let c = p.child("categories");
            let map = c.object(categories, &[])?;
            // Category names are free; their counts are not.
            if map.len() > 100 {
                return Err(ReportError {
                    field: c.prefix.clone(),
                    message: "holds more than 100 categories".into(),
                });
            }
            for name in map.keys() {
                c.count(map, name, true)?;
            }
        }
        unique(&mut project_ids, id, &p.path("projectId"))?;
    }

    let mut task_ids = Vec::new();
    for (i, task) in r.array(report, "loadedTasks", true)?.iter().enumerate() {
        let t = r.item("loadedTasks", i);
        let task = t.object(
            task,
            &[
                "taskId",
                "taskName",
                "contextLoaded",
                "relevantFiles",
                "tokensUsed",
            ],
        )?;
        let id = t.string(task, "taskId", true)?.unwrap_or_default();
        t.string(task, "taskName", false)?;
        t.boolean(task, "contextLoaded")?;
        t.count(task, "relevantFiles", true)?;
        t.count(task, "tokensUsed", false)?;
        unique(&mut task_ids, id, &t.path("taskId"))?;
    }

    for (i, document) in r
        .array(report, "loadedDocuments", false)?
        .iter()
        .enumerate()
    {
        let d = r.item("loadedDocuments", i);
        let document = d.object(document, &["type", "path", "sizeInTokens", "loadedAt"])?;
        d.string(document, "type", false)?;
        d.string(document, "path", true)?;
        d.count(document, "sizeInTokens", false)?;
        if let Some(at) = d.string(document, "loadedAt", false)? {
            d.timestamp(&at, "loadedAt")?;
        }
    }

    let c = r.child("capabilities");
    let capabilities = c.object(
        r.member(report, "capabilities", true)?
            .unwrap_or(&Value::Null),
        &[
            "canStartImmediately",
            "needsContextLoad",
            "estimatedLoadTime",
        ],
    )?;
    let can_start_immediately = c.strings(capabilities, "canStartImmediately", true)?;
    let needs_context_load = c.strings(capabilities, "needsContextLoad", false)?;
    c.number(capabilities, "estimatedLoadTime")?;

    if let Some(memory) = r.member(report, "memoryState", false)? {
        let m = r.child("memoryState");
        let memory = m.object(
            memory,
            &[
                "conversationLength",
                "oldestMessage",
                "systemPromptTokens",
                "conversationTokens",
                "remainingForWork",
            ],
        )?;
        for name in [
            "conversationLength",
            "systemPromptTokens",
            "conversationTokens",
            "remainingForWork",
        ] {
            m.count(memory, name, false)?;
        }
        if let Some(at) = m.string(memory, "oldestMessage", false)? {
            m.timestamp(&at, "oldestMessage")?;
        }
    }
    // A token anywhere in a report would reach the registry issue (readable by everyone
    // who can read the repository), `assign`'s ranking, its output and an `agent:` label:
    // refused when posted, and ignored (a warning) when found on the registry.
    let secrets: Vec<String> = crate::secrets::find_secrets(&value.to_string())
        .iter()
        .map(|m| m.kind.to_string())
        .collect();
    if !secrets.is_empty() {
        return Err(ReportError {
            field: String::new(),
            message: format!(
                "holds a secret ({}): a report is posted where everyone who can read the \
                 repository reads it",
                secrets.join(", ")
            ),
        });
    }
    Ok(Report {
        agent_id,
        report_timestamp,
        reported_at,
        total_tokens,
        available_tokens,
        project_ids,
        task_ids,
        can_start_immediately,
        needs_context_load,
        json: Value::Object(wrap(inner)),
    })
}

impl Report {
    /// The report with its timestamp set (what `council report` posts when the agent
    /// left it out).
    pub fn stamped(mut self, now: &str) -> Report {
        if self.report_timestamp.is_none() {
            if let Some(inner) = self
                .json
                .get_mut("contextReport")
                .and_then(Value::as_object_mut)
            {
                let mut stamped = Map::new();
                for (key, value) in std::mem::take(inner) {
                    stamped.insert(key.clone(), value);
                    if key == "agentId" {
                        stamped.insert("reportTimestamp".to_owned(), Value::String(now.to_owned()));
                    }
                }
                *inner = stamped;
            }
            self.reported_at = parse_timestamp(now).ok();
            self.report_timestamp = Some(now.to_owned());
        }
        self
    }
}

fn wrap(inner: &Value) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("contextReport".to_owned(), inner.clone());
    map
}

fn check_agent_id(id: &str, field: &str) -> Result<(), ReportError> {
    let valid = !id.is_empty()
        && id.chars().count() <= MAX_AGENT_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(())
    } else {
        Err(ReportError {
            field: field.to_owned(),
            message: format!(
                "is `{}`; an agent id is 1 to {MAX_AGENT_ID_CHARS} characters of letters, digits, `.`, `_` and `-` (it becomes the label `agent:<id>`)",
                show_hidden(id, 60)
            ),
        })
    }
}

fn unique(seen: &mut Vec<String>, id: String, field: &str) -> Result<(), ReportError> {
    if seen.contains(&id) {
        return Err(ReportError {
            field: field.to_owned(),
            message: format!(
                "`{}` appears twice; ids must be unique",
                show_hidden(&id, 60)
            ),
        });
    }
    seen.push(id);
    Ok(())
}

fn unknown(key: &str, known: &[&str]) -> ReportError {
    ReportError {
        field: key.to_owned(),
        message: format!(
            "is not a member of the report; known here: {}",
            known.join(", ")
        ),
    }
}

/// Reads members under a path prefix, naming the path in every error.
struct Reader {
    prefix: String,
}

impl Reader {
    fn new(prefix: &str) -> Reader {
        Reader {
            prefix: prefix.to_owned(),
        }
    }

    fn path(&self, name: &str) -> String {
        format!("{}.{name}", self.prefix)
    }

    fn child(&self, name: &str) -> Reader {
        Reader::new(&self.path(name))
    }

    fn item(&self, name: &str, index: usize) -> Reader {
        Reader::new(&format!("{}[{index}]", self.path(name)))
    }

    fn error(&self, name: &str, message: impl Into<String>) -> ReportError {
        ReportError {
            field: self.path(name),
            message: message.into(),
        }
    }

    /// `value` as an object whose members are all `known` (any names when empty).
    fn object<'v>(
        &self,
        value: &'v Value,
        known: &[&str],
    ) -> Result<&'v Map<String, Value>, ReportError> {
        let map = value.as_object().ok_or_else(|| ReportError {
            field: self.prefix.clone(),
            message: format!("must be an object, not {}", kind(value)),
        })?;
        if !known.is_empty()
            && let Some(other) = map.keys().find(|k| !known.contains(&k.as_str()))
        {
            return Err(ReportError {
                field: self.path(other),
                message: format!(
                    "is not a member of the report here; known: {}",
                    known.join(", ")
                ),
            });
        }
        Ok(map)
    }

    fn member<'v>(
        &self,
        map: &'v Map<String, Value>,
        name: &str,
        required: bool,
    ) -> Result<Option<&'v Value>, ReportError> {
        match map.get(name) {
            None if required => Err(self.error(name, "is required")),
            None => Ok(None),
            Some(value) => Ok(Some(value)),
        }
    }

    fn string(
        &self,
        map: &Map<String, Value>,
        name: &str,
        required: bool,
    ) -> Result<Option<String>, ReportError> {
        let Some(value) = self.member(map, name, required)? else {
            return Ok(None);
        };
        let text = value
            .as_str()
            .ok_or_else(|| self.error(name, format!("must be a string, not {}", kind(value))))?;
        if text.chars().count() > MAX_TEXT_CHARS {
            return Err(self.error(name, format!("is longer than {MAX_TEXT_CHARS} characters")));
        }
        if required && text.trim().is_empty() {
            return Err(self.error(name, "is empty"));
        }
        Ok(Some(text.to_owned()))
    }

    /// A whole number ≥ 0.
    fn count(
        &self,
        map: &Map<String, Value>,
        name: &str,
        required: bool,
    ) -> Result<Option<u64>, ReportError> {
        let Some(value) = self.member(map, name, required)? else {
            return Ok(None);
        };
        match value {
            Value::Number(n) if n.as_u64().is_some() => Ok(n.as_u64()),
            Value::Number(n)
                if n.as_i64().is_some_and(|v| v < 0) || n.as_f64().is_some_and(|v| v < 0.0) =>
            {
                Err(self.error(name, format!("is {n}; counts cannot be negative")))
            }
            Value::Number(n) => {
                Err(self.error(name, format!("is {n}; expected a whole number ≥ 0")))
            }
            other => Err(self.error(
                name,
                format!("must be a whole number ≥ 0, not {}", kind(other)),
            )),
        }
    }

    /// A number ≥ 0, when present.
    fn number(&self, map: &Map<String, Value>, name: &str) -> Result<Option<f64>, ReportError> {
        let Some(value) = self.member(map, name, false)? else {
            return Ok(None);
        };
        match value.as_f64() {
            Some(v) if v >= 0.0 && v.is_finite() => Ok(Some(v)),
            Some(v) => Err(self.error(name, format!("is {v}; expected a number ≥ 0"))),
            None => Err(self.error(name, format!("must be a number, not {}", kind(value)))),
        }
    }

    fn boolean(&self, map: &Map<String, Value>, name: &str) -> Result<(), ReportError> {
        match self.member(map, name, false)? {
            None | Some(Value::Bool(_)) => Ok(()),
            Some(other) => {
                Err(self.error(name, format!("must be true or false, not {}", kind(other))))
            }
        }
    }

    fn array<'v>(
        &self,
        map: &'v Map<String, Value>,
        name: &str,
        required: bool,
    ) -> Result<&'v [Value], ReportError> {
        let Some(value) = self.member(map, name, required)? else {
            return Ok(&[]);
        };
        let items = value
            .as_array()
            .ok_or_else(|| self.error(name, format!("must be a list, not {}", kind(value))))?;
        if items.len() > MAX_ITEMS {
            return Err(self.error(
                name,
                format!("holds {} items; at most {MAX_ITEMS} are read", items.len()),
            ));
        }
        Ok(items)
    }

    fn strings(
        &self,
        map: &Map<String, Value>,
        name: &str,
        required: bool,
    ) -> Result<Vec<String>, ReportError> {
        let items = self.array(map, name, required)?;
        let item = self.child(name);
        items
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_str() {
                Some(s) if s.chars().count() <= MAX_TEXT_CHARS => Ok(s.to_owned()),
                Some(_) => Err(ReportError {
                    field: format!("{}[{i}]", item.prefix),
                    message: format!("is longer than {MAX_TEXT_CHARS} characters"),
                }),
                None => Err(ReportError {
                    field: format!("{}[{i}]", item.prefix),
                    message: format!("must be a string, not {}", kind(v)),
                }),
            })
            .collect()
    }

    fn timestamp(&self, text: &str, name: &str) -> Result<DateTime<FixedOffset>, ReportError> {
        parse_timestamp(text)
            .map_err(|why| self.error(name, format!("{why} (found `{}`)", show_hidden(text, 40))))
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
