//! The one `<context-report>` comment per agent on the registry issue: written by
//! `council report` behind a hidden marker naming the agent (so it is found and edited
//! in place), read from any comment that holds a block.
//!
//! Reading rules where the protocol is silent: blocks are
//! `<context-report>…</context-report>`, fenced or bare; a block on a quoted line (`>`,
//! a reply quoting another comment) does not count; the last block of a comment is its
//! report; a code fence just inside the tags is allowed.

use serde_json::Value;

use super::report::Report;
use crate::agent_state::COMMENT_CHAR_LIMIT;

const OPEN: &str = "<context-report>";
const CLOSE: &str = "</context-report>";
const MARKER_PREFIX: &str = "<!-- council:context-report agent=";

/// The hidden first line of an agent's report comment. Agent ids are restricted to
/// `A-Z a-z 0-9 . _ -`, so the marker needs no escaping.
pub fn marker(agent_id: &str) -> String {
    format!("{MARKER_PREFIX}{agent_id} -->")
}

/// The comment `council report` posts for `report` (stamped), or why it cannot.
pub fn render(report: &Report) -> Result<String, String> {
    let json = serde_json::to_string_pretty(&report.json).map_err(|e| e.to_string())?;
    // `<` only occurs inside JSON strings; as `\u003c` no value can close the block.
    let json = json.replace('<', "\\u003c");
    let fence = "`".repeat(longest_backtick_run(&json).max(2) + 1);
    let used = percent(report.total_tokens, report.available_tokens).map_or_else(
        || "no capacity declared".to_owned(),
        |p| format!("{:.1} % of the window used", 100.0 - p),
    );
    let can_start = match report.can_start_immediately.len() {
        0 => "no task loaded".to_owned(),
        n if n <= 5 => format!("can start {}", report.can_start_immediately.join(", ")),
        n => format!("can start {} tasks", n),
    };
    let body = format!(
        "{}\n**Context report** · agent `{}` · {used} · {} · reported {}\n\n{fence}\n{OPEN}\n{json}\n{CLOSE}\n{fence}\n",
        marker(&report.agent_id),
        report.agent_id,
        crate::render::text::escape_inline(&can_start),
        report.report_timestamp.as_deref().unwrap_or("now"),
    );
    let chars = body.chars().count();
    if chars > COMMENT_CHAR_LIMIT {
        return Err(format!(
            "the report comment would be {chars} characters, more than GitHub's limit of {COMMENT_CHAR_LIMIT}; report fewer documents, projects or tasks"
        ));
    }
    Ok(body)
}

/// Percent of the window free, `None` when the report declares no capacity at all.
pub fn percent(used: u64, available: u64) -> Option<f64> {
    let total = u128::from(used) + u128::from(available);
    (total > 0).then(|| available as f64 * 100.0 / total as f64)
}

/// The text of the last block of `body` that is not on a quoted line.
pub fn last_block(body: &str) -> Option<&str> {
    let mut found = None;
    let mut rest = body;
    let mut offset = 0;
    while let Some(start) = rest.find(OPEN) {
        let absolute = offset + start;
        let inner_start = absolute + OPEN.len();
        let Some(end) = body.get(inner_start..).and_then(|r| r.find(CLOSE)) else {
            break;
        };
        let line_start = body
            .get(..absolute)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |i| i + 1);
        let quoted = body
            .get(line_start..absolute)
            .is_some_and(|l| l.trim_start().starts_with('>'));
        if !quoted {
            found = body.get(inner_start..inner_start + end);
        }
        offset = inner_start + end + CLOSE.len();
        rest = body.get(offset..).unwrap_or("");
    }
    found.map(strip_fence)
}

/// How many blocks `body` holds (for counting untrusted ones without reading them).
pub fn count_blocks(body: &str) -> usize {
    body.matches(OPEN).count()
}

/// The inside of a block without a code fence written just inside the tags.
fn strip_fence(inner: &str) -> &str {
    let trimmed = inner.trim();
    let Some((first, after)) = trimmed.split_once('\n') else {
        return trimmed;
    };
    let Some(fence) = ["```", "~~~"]
        .into_iter()
        .find(|f| first.trim().starts_with(f))
    else {
        return trimmed;
    };
    match after.rsplit_once('\n') {
        Some((body, last)) if last.trim().starts_with(fence) => body,
        _ if after.trim().starts_with(fence) => "",
        _ => after,
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// The agent id a report names, even when the report is invalid, so that its agent
/// still shows in the ranking (without a score) instead of silently vanishing.
pub fn claimed_agent(block: &str) -> Option<String> {
    let value = super::strict_json::parse(block).ok()?;
    let inner = value.get("contextReport").unwrap_or(&value);
    let id = inner.get("agentId").and_then(Value::as_str)?;
    let valid = !id.is_empty()
        && id.len() <= super::report::MAX_AGENT_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    valid.then(|| id.to_owned())
}
