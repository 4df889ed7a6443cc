//! The Context Object between runs: one PR comment holding a human table and a hidden
//! machine block. Pure: parse, merge (append without duplicates, re-seal the chain),
//! derive gates from the timeline, and fit under GitHub's comment limit by replacing the
//! oldest entries with one-line summaries while keeping the chain head.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::chain::{ChainError, ZERO_HASH, seal_tail};
use super::context::{ContextObject, Entry};
use super::derive::decision;
use super::derive::derive;
use super::gates::GateValue;
use super::head::{Head, HeadError};
use super::timeline::{MAX_ENTRIES, MAX_ENTRIES_SHOWN};
use super::verify::{Tamper, VerifyReport, verify_tail};
use crate::gates::gate_key;
use crate::render::text::{escape_text, literal};
use crate::stage::Stage;

/// First line of every ledger comment; with the author check it finds the comment.
pub const MARKER: &str = "<!-- agent-council:ledger:v1 -->";
const DATA_OPEN: &str = "<!-- agent-council:ledger:data\n";
const DATA_CLOSE: &str = "\n-->";
/// The audit file's member holding the chain head (an addition to the seed's shape).
pub const CHAIN_HEAD: &str = "chain_head";
/// GitHub's limit, in code points.
pub const COMMENT_LIMIT: usize = 65_536;
/// Room left for GitHub's own accounting differences.
const MARGIN: usize = 512;
const TABLE_ROWS: usize = 10;

/// What the machine block holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    /// The Context Object; its timeline is the raw tail when entries were omitted.
    pub context: ContextObject,
    #[serde(default)]
    pub omitted: Omitted,
    /// The chain head as of the last write: catches entries dropped from the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<Head>,
}

/// Entries older than the raw tail: counted, the last one's hash kept as the anchor,
/// and one-line summaries while they fit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Omitted {
    pub count: usize,
    /// `hash` of the newest omitted entry: the raw tail's first `prev_hash`.
    #[serde(default)]
    pub head_hash: String,
    #[serde(default)]
    pub summaries: Vec<Summary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub id: String,
    pub hash: String,
    pub line: String,
}

/// Why a stored object is not adopted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StoredError {
    #[error("it fails verification at {0}")]
    Chain(Tamper),
    #[error("{0}")]
    Head(HeadError),
    #[error(
        "it says it leaves out {0} older entries (timeline_omitted), more than any timeline holds \
         ({MAX_ENTRIES_SHOWN}): the count was written by hand"
    )]
    TooManyOmitted(usize),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LedgerError {
    #[error("the ledger comment has no machine block")]
    NoData,
    #[error("the ledger comment's machine block is not a Context Object: {0}")]
    BadData(String),
}

/// Links shown in the human part.
#[derive(Debug, Clone, Default)]
pub struct Links {
    pub run_url: Option<String>,
    pub artifact: Option<String>,
}

impl Stored {
    pub fn new(context: ContextObject) -> Stored {
        Stored {
            context,
            omitted: Omitted::default(),
            head: None,
        }
    }

    /// The hash the next entry links to: the last entry's, or the anchor.
    pub fn last_hash(&self) -> &str {
        self.context
            .timeline
            .last()
            .map_or_else(|| self.anchor(), |e| e.hash.as_str())
    }

    /// The Context Object as an audit file holds it: with the chain head it was sealed
    /// to, so that a file whose last entries were dropped is caught too.
    pub fn file_context(&self) -> ContextObject {
        let mut context = self.context.clone();
        if let Some(head) = &self.head
            && let Ok(value) = serde_json::to_value(head)
        {
            context.extra.insert(CHAIN_HEAD.to_string(), value);
        }
        context
    }

    /// A stored object from an audit file: `timeline_omitted` becomes the anchor of a
    /// file that leaves old entries out, `chain_head` the recorded head.
    pub fn from_file(mut context: ContextObject) -> Stored {
        let omitted = match context.extra.shift_remove("timeline_omitted") {
            None => Omitted::default(),
            Some(v) => Omitted {
                count: v.get("count").and_then(Value::as_u64).unwrap_or(0) as usize,
                head_hash: v
                    .get("head_hash")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                summaries: Vec::new(),
            },
        };
        let head = context
            .extra
            .shift_remove(CHAIN_HEAD)
            .and_then(|v| serde_json::from_value(v).ok());
        Stored {
            context,
            omitted,
            head,
        }
    }

    /// Entries in the whole timeline, omitted ones included.
    pub fn total_entries(&self) -> usize {
        self.omitted
            .count
            .saturating_add(self.context.timeline.len())
    }

    /// The `prev_hash` of the first raw entry.
    pub fn anchor(&self) -> &str {
        if self.omitted.count == 0 {
            ZERO_HASH
        } else {
            &self.omitted.head_hash
        }
    }

    pub fn is_complete(&self) -> bool {
        self.omitted.count == 0
    }

    /// Checks the raw tail's chain (and signatures with a key) from the anchor, and that
    /// the recorded head (required with a key) says it ends where it ends.
    pub fn verify(&self, key: Option<&[u8]>) -> Result<VerifyReport, StoredError> {
        // Positions are `count + index`: a count near the integers' end overflows them.
        if self.omitted.count as u64 > MAX_ENTRIES {
            return Err(StoredError::TooManyOmitted(self.omitted.count));
        }
        let entries: Vec<Value> = self
            .context
            .timeline
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
            .collect();
        let report = verify_tail(&entries, self.anchor(), key).map_err(StoredError::Chain)?;
        Head::check(
            self.head.as_ref(),
            self.total_entries(),
            self.last_hash(),
            key,
        )
        .map_err(StoredError::Head)?;
        Ok(report)
    }

    /// An entry with this id is recorded, raw or summarised.
    pub fn knows(&self, id: &str) -> bool {
        self.context.timeline.iter().any(|e| e.id == id)
            || self.omitted.summaries.iter().any(|s| s.id == id)
    }

    /// Appends entries not recorded yet and seals them onto the chain; returns how many.
    pub fn append(&mut self, entries: &[Entry], key: Option<&[u8]>) -> Result<usize, ChainError> {
        let from = self.context.timeline.len();
        let summarised = |e: &&Entry| self.omitted.summaries.iter().any(|s| s.id == e.id);
        let fresh: Vec<Entry> = entries.iter().filter(|e| !summarised(e)).cloned().collect();
        let added = self.context.append(fresh);
        if added > 0 {
            // Only the new entries are sealed: they link to the last stored one's hash.
            let anchor = match from.checked_sub(1) {
                Some(last) => self.context.timeline[last].hash.clone(),
                None => self.anchor().to_string(),
            };
            let mut maps = to_maps(&self.context.timeline[from..]);
            seal_tail(&mut maps, 0, &anchor, key)?;
            self.context.timeline.truncate(from);
            self.context.timeline.extend(from_maps(maps));
        }
        if added > 0 || self.head.is_none() {
            self.head = Some(Head::new(self.total_entries(), self.last_hash(), key));
        }
        Ok(added)
    }

    /// Moves the `n` oldest raw entries into the omitted summaries.
    fn omit_oldest(&mut self, n: usize) {
        let n = n.min(self.context.timeline.len().saturating_sub(1));
        for entry in self.context.timeline.drain(..n) {
            self.omitted.count = self.omitted.count.saturating_add(1);
            self.omitted.head_hash = entry.hash.clone();
            self.omitted.summaries.push(Summary {
                line: format!(
                    "{} {} {} {}",
                    entry.timestamp, entry.agent, entry.action, entry.result
                ),
                id: entry.id,
                hash: entry.hash,
            });
        }
    }
}

/// Merges this run's object into the stored one: the stored timeline first, our new
/// entries appended and sealed; subject, trigger and timestamp are ours (we wrote last).
pub fn merge(
    stored: Option<Stored>,
    ours: &ContextObject,
    key: Option<&[u8]>,
) -> Result<Stored, ChainError> {
    let Some(stored) = stored else {
        let mut fresh = ours.clone();
        fresh.timeline.clear();
        let mut merged = Stored::new(fresh);
        merged.append(&ours.timeline, key)?;
        derive(&mut merged.context);
        return Ok(merged);
    };
    let mut merged = stored;
    if merged.append(&ours.timeline, key)? > 0 {
        let ctx = &mut merged.context;
        ctx.schema_version = ours.schema_version;
        ctx.repository = ours.repository.clone();
        ctx.timestamp = ours.timestamp.clone();
        ctx.trigger = ours.trigger.clone();
        ctx.subject = ours.subject.clone();
    }
    // Even when nothing was added (the same step ran twice): stored values are not trusted.
    derive(&mut merged.context);
    Ok(merged)
}

/// The comment body, compacted until it fits; returns what it holds.
pub fn render_fitting(mut stored: Stored, links: &Links) -> (Stored, String) {
    loop {
        let body = render(&stored, links);
        let chars = body.chars().count();
        if chars + MARGIN <= COMMENT_LIMIT {
            return (stored, body);
        }
        if stored.context.timeline.len() > 1 {
            let chunk = (stored.context.timeline.len() / 8).max(1);
            stored.omit_oldest(chunk);
        } else if !stored.omitted.summaries.is_empty() {
            let chunk = (stored.omitted.summaries.len() / 4).max(1);
            stored.omitted.summaries.drain(..chunk);
        } else {
            // Nothing left to give way (entry messages are capped when they are made, and
            // a sealed entry is never shortened): GitHub will say no, and the write is a
            // failed effect.
            return (stored, body);
        }
    }
}

pub fn render(stored: &Stored, links: &Links) -> String {
    let ctx = &stored.context;
    let mut out = String::new();
    out.push_str(MARKER);
    out.push_str(&format!("\n### agent-council · {}\n\n", ctx.context_id));
    out.push_str("| Stage | Status |\n| --- | --- |\n");
    out.push_str(&format!(
        "| guard | {} |\n",
        ctx.state.guard_status.as_str()
    ));
    out.push_str(&format!(
        "| review | {} |\n",
        ctx.state.review_status.as_str()
    ));
    out.push_str(&format!(
        "| release | {} |\n\n",
        ctx.state.release_status.as_str()
    ));
    out.push_str("| Gate | Result |\n| --- | --- |\n");
    for (gate, value) in ctx.gates.iter() {
        let shown = match gate {
            // Always a PASS: what it says is the class, and the kinds of evidence.
            "actor" => class_shown(&ctx.timeline),
            _ => None,
        };
        let shown = shown.unwrap_or_else(|| value.map_or("not run", GateValue::as_str).to_string());
        out.push_str(&format!("| `{gate}` | {shown} |\n"));
    }
    out.push_str(&findings(&ctx.timeline));
    let total = stored.omitted.count.saturating_add(ctx.timeline.len());
    let shown: Vec<&Entry> = ctx.timeline.iter().rev().take(TABLE_ROWS).collect();
    out.push_str(&format!(
        "\n<details><summary>Last {} of {total} timeline entries</summary>\n\n",
        shown.len()
    ));
    out.push_str("| When | Agent | Action | Result | Run |\n| --- | --- | --- | --- | --- |\n");
    for e in shown.into_iter().rev() {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            escape_text(&e.timestamp),
            escape_text(&e.agent),
            literal(&e.action),
            escape_text(&e.result),
            escape_text(&format!("{}#{}", e.run_id, e.run_attempt)),
        ));
    }
    out.push_str("\n</details>\n\n");
    let head = ctx
        .timeline
        .last()
        .map(|e| e.hash.as_str())
        .unwrap_or(stored.anchor());
    let mut footer = vec![format!("chain head {}", literal(head))];
    if let Some(artifact) = &links.artifact {
        footer.push(format!("full timeline: artifact {}", literal(artifact)));
    }
    if let Some(url) = &links.run_url {
        footer.push(format!("[last run]({url})"));
    }
    out.push_str(&format!("<sub>{}</sub>\n", footer.join(" · ")));
    out.push_str(DATA_OPEN);
    out.push_str(&html_safe_json(stored));
    out.push_str(DATA_CLOSE);
    out
}

/// The class the newest `check:actor` entry recorded, with the kinds of evidence that
/// made it an agent's (`agent (login, branch)`, `human`): the evidence itself is in the
/// findings below the table.
fn class_shown(timeline: &[Entry]) -> Option<String> {
    let entry = timeline.iter().rev().find(|e| e.action == "check:actor")?;
    let recorded = crate::actors::RecordedActor::parse(&entry.message)?;
    Some(match recorded.class {
        crate::actors::Class::Human => "human".to_string(),
        crate::actors::Class::Agent => {
            let kinds: Vec<&str> = recorded.kinds.iter().map(|k| k.as_str()).collect();
            format!("agent ({})", kinds.join(", "))
        }
    })
}

/// Each stage's newest decision with every check's reason: what a reader of the pull
/// request needs, in the one comment (no second bot comment, no review).
fn findings(timeline: &[Entry]) -> String {
    let mut out = String::new();
    for stage in Stage::PIPELINE {
        let decided = decision(timeline, stage);
        let checks = decided.checks();
        if checks.is_empty() {
            continue;
        }
        let sha = decided.sha();
        out.push_str(&format!(
            "\n**{stage}** on {}:\n\n",
            literal(sha.get(..7).unwrap_or(sha))
        ));
        for entry in checks {
            let icon = match entry.result.as_str() {
                "PASS" => "✅",
                "FAIL" => "❌",
                _ => "⏳",
            };
            let gate = gate_key(&entry.action).unwrap_or_default();
            out.push_str(&format!(
                "- {icon} `{gate}`: {}\n",
                escape_text(&shorten(&entry.message, FINDING_CHARS))
            ));
        }
    }
    out
}

/// A finding's reason as the comment shows it (the timeline keeps it whole).
const FINDING_CHARS: usize = 600;

fn shorten(text: &str, max: usize) -> String {
    match crate::chars::cut(text, max) {
        None => text.to_string(),
        Some(head) => format!("{head}…"),
    }
}

/// JSON with `<` and `>` escaped, so nothing in it can end the HTML comment around it.
/// The machine block's JSON: nothing in it can close the HTML comment it sits in or act
/// on the text around it. `<` and `>` and the invisible and direction-changing characters
/// user text may carry (a branch named with U+202E) are written as `\uXXXX` escapes:
/// the same JSON, so the same strings and hashes, but a comment body that shows nothing
/// other than what it says.
fn html_safe_json(stored: &Stored) -> String {
    let json = serde_json::to_string(stored).unwrap_or_default();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c == '<' || c == '>' || crate::chars::is_invisible(c) {
            // Outside strings JSON holds neither, so every one is inside a string;
            // beyond the BMP a `\u` escape is a UTF-16 surrogate pair.
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub fn is_ledger(body: &str) -> bool {
    body.starts_with(MARKER)
}

pub fn parse(body: &str) -> Result<Stored, LedgerError> {
    let (_, rest) = body.split_once(DATA_OPEN).ok_or(LedgerError::NoData)?;
    let (data, _) = rest.rsplit_once(DATA_CLOSE).ok_or(LedgerError::NoData)?;
    serde_json::from_str(data).map_err(|e| LedgerError::BadData(e.to_string()))
}

fn to_maps(entries: &[Entry]) -> Vec<Map<String, Value>> {
    entries
        .iter()
        .map(|e| match serde_json::to_value(e) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        })
        .collect()
}

fn from_maps(maps: Vec<Map<String, Value>>) -> Vec<Entry> {
    maps.into_iter()
        .filter_map(|m| serde_json::from_value(Value::Object(m)).ok())
        .collect()
}

#[cfg(test)]
mod tests;
