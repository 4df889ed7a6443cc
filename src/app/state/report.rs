//! What `state get` shows, and the parts `state put` shares: the step summary, the
//! CLI's readable view and its JSON (pure). Values from comments and inputs go through `render::text`, so they
//! render as literal text whatever they hold.

use serde_json::{Value, json};

use super::read::{Latest, MAX_COMMENTS};
use crate::agent_state::{AgentState, WarningKind};
use crate::render::text::{Message, cell, literal, visible};

/// The summary shows previews; outputs and `--json` carry the full values.
const PREVIEW_CHARS: usize = 1_000;

/// Facts about one read of an issue.
pub struct ReadReport<'a> {
    pub repo: &'a str,
    pub issue: u64,
    pub latest: &'a Latest,
    pub requests: u32,
}

/// `(name, value)` of every field, in block order; `None` = not in the block.
pub(super) fn fields(state: &AgentState) -> [(&'static str, Option<String>); 6] {
    [
        ("intent", state.intent.clone()),
        ("step", state.step.clone()),
        ("progress", state.progress.map(|p| p.value().to_string())),
        (
            "memory",
            state.memory.as_ref().map(|m| m.to_compact_string()),
        ),
        ("next_action", state.next_action.clone()),
        ("agent", state.agent.clone()),
    ]
}

fn preview(value: &str) -> String {
    match value.char_indices().nth(PREVIEW_CHARS) {
        Some((end, _)) => format!(
            "{}… ({} characters)",
            value.get(..end).unwrap_or(value),
            value.chars().count()
        ),
        None => value.to_string(),
    }
}

pub(super) fn cell_value(value: &Option<String>) -> String {
    match value {
        Some(v) => cell(&literal(&preview(v))),
        None => "—".to_string(),
    }
}

fn unknown_names(state: &AgentState) -> Vec<String> {
    state.unknown.iter().map(|u| u.name().to_string()).collect()
}

/// Lines about where the state came from and what was passed over; `put` words the
/// first one as the base of the new state.
pub(super) fn provenance(r: &ReadReport, markdown: bool, put: bool) -> Vec<String> {
    let render = |m: Message| if markdown { m.markdown() } else { m.plain() };
    let s = &r.latest.selection;
    let mut lines = Vec::new();
    let lead = match (&s.source, put) {
        (Some(src), _) => Message::new()
            .text(if put {
                "Fields not given were carried over from "
            } else {
                "Read from "
            })
            .link(&src.html_url)
            .text(" by ")
            .value(&src.author)
            .text(format!(" ({}).", src.created_at)),
        (None, false) => Message::new()
            .text("No trusted <agent-state> block on this issue: this is the initial state."),
        (None, true) => Message::new().text(
            "No trusted <agent-state> block on this issue yet: fields not given start from \
             the initial state.",
        ),
    };
    lines.push(render(lead));
    if s.ignored_untrusted > 0 {
        lines.push(render(Message::new().text(format!(
            "Ignored {} block{} from authors who are not trusted (add logins to the \
             trusted-authors input to trust them).",
            s.ignored_untrusted,
            plural(s.ignored_untrusted)
        ))));
    }
    let skipped = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Skipped)
        .count();
    if skipped > 0 {
        lines.push(render(Message::new().text(format!(
            "Skipped malformed blocks in {skipped} newer comment{} (see the warnings).",
            plural(skipped)
        ))));
    }
    if s.warnings.iter().any(|w| w.kind == WarningKind::Lenient) {
        lines.push(render(Message::new().text(
            "The block was read leniently: it holds characters its writer should have \
             escaped (see the warning).",
        )));
    }
    if r.latest.capped {
        lines.push(render(Message::new().text(format!(
            "Stopped after the newest {MAX_COMMENTS} comments without finding a trusted \
             block; older comments were not read."
        ))));
    }
    lines
}

pub(super) fn footer(r: &ReadReport) -> Vec<Message> {
    vec![
        Message::new().text(format!("policy: {}", r.latest.policy_source)),
        Message::new().text(format!(
            "comments read: {} in {} page{}",
            r.latest.comments_read,
            r.latest.pages,
            plural(r.latest.pages)
        )),
        Message::new().text(format!("GitHub API requests: {}", r.requests)),
    ]
}

pub(super) fn sub(notes: &[Message]) -> String {
    let notes: Vec<String> = notes.iter().map(Message::markdown).collect();
    format!("<sub>{}</sub>\n", notes.join(" · "))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub fn get_markdown(r: &ReadReport) -> String {
    let state = &r.latest.selection.state;
    let mut out = format!(
        "### agent-council · state-get · {}#{}\n\n| Field | Value |\n| --- | --- |\n",
        r.repo, r.issue
    );
    for (name, value) in fields(state) {
        out.push_str(&format!("| `{name}` | {} |\n", cell_value(&value)));
    }
    let unknown = unknown_names(state);
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|n| literal(n)).collect();
        out.push_str(&format!("| other elements | {} |\n", names.join(", ")));
    }
    out.push('\n');
    for line in provenance(r, true, false) {
        out.push_str(&line);
        out.push_str("\n\n");
    }
    out.push_str(&sub(&footer(r)));
    out
}

pub fn get_plain(r: &ReadReport) -> String {
    let mut out = format!("state of {}#{}\n", r.repo, r.issue);
    push_plain_fields(&mut out, &r.latest.selection.state, |_| None);
    for line in provenance(r, false, false) {
        out.push_str(&format!("  {line}\n"));
    }
    for note in footer(r) {
        out.push_str(&format!("  note: {}\n", note.plain()));
    }
    out
}

pub(super) fn push_plain_fields(
    out: &mut String,
    state: &AgentState,
    origin: impl Fn(&str) -> Option<String>,
) {
    for (name, value) in fields(state) {
        let shown = value.as_deref().map(visible).unwrap_or_else(|| "-".into());
        match origin(name) {
            Some(from) => out.push_str(&format!("  {name:<12} {shown}  ({from})\n")),
            None => out.push_str(&format!("  {name:<12} {shown}\n")),
        }
    }
    for name in unknown_names(state) {
        out.push_str(&format!("  {:<12} <{}>…\n", "other", visible(&name)));
    }
}

pub fn state_json(state: &AgentState) -> Value {
    let memory = state.memory.as_ref().map(|m| {
        m.to_value()
            .unwrap_or_else(|_| Value::String(m.as_str().to_string()))
    });
    json!({
        "intent": state.intent,
        "step": state.step,
        "progress": state.progress.map(|p| p.value()),
        "memory": memory,
        "next_action": state.next_action,
        "agent": state.agent,
        "unknown_elements": state.unknown.iter().map(|u| u.xml()).collect::<Vec<_>>(),
    })
}

pub(super) fn read_json(r: &ReadReport) -> Value {
    let s = &r.latest.selection;
    json!({
        "repository": r.repo,
        "issue": r.issue,
        "source": s.source,
        "ignored_untrusted": s.ignored_untrusted,
        "warnings": s.warnings,
        "pages": r.latest.pages,
        "capped": r.latest.capped,
        "requests": r.requests,
    })
}

pub fn get_json(r: &ReadReport) -> Value {
    let mut out = read_json(r);
    let s = &r.latest.selection;
    out["state"] = state_json(&s.state);
    out["comment_url"] = json!(s.source.as_ref().map_or("", |src| src.html_url.as_str()));
    out
}
