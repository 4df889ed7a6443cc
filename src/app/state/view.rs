//! What `state get` shows, and the parts `state put` shares: the step summary, the
//! CLI's readable view and its JSON (pure). Values from comments and inputs go through `render::text`, so they
//! render as literal text whatever they hold.

use serde_json::{Value, json};

use super::read::{Latest, MAX_COMMENTS};
use crate::app::columns::aligned;
use council_protocol::agent_state::v21::{self, Metrics, PlanItem, PlanStatus};
use council_protocol::agent_state::{AgentState, ROOT, WarningKind, Withheld};
use council_protocol::render::text::{Message, cell, escape_inline, literal, visible};

/// The summary shows previews; outputs and `--json` carry the full values.
const PREVIEW_CHARS: usize = 1_000;

/// Facts about one read of an issue.
pub struct ReadReport<'a> {
    pub repo: &'a str,
    pub issue: u64,
    pub latest: &'a Latest,
    pub requests: u32,
}

/// `(name, value)` of every field, in block order, then the v2.1 elements as one-line
/// summaries; `None` = not in the block.
pub(super) fn fields(state: &AgentState) -> [(&'static str, Option<String>); 9] {
    let v21 = v21::read(state);
    let present = |name: &str| state.unknown.iter().any(|u| u.name() == name);
    let invalid = || "invalid (see the warning)".to_owned();
    let plan = present("plan").then(|| v21.plan.as_deref().map_or_else(invalid, plan_summary));
    let request = present("input_request").then(|| {
        v21.input_request.as_ref().map_or_else(invalid, |r| {
            // Shown as written, since any status is the agent's own word.
            let status = r
                .status
                .as_deref()
                .unwrap_or(if r.open { "open" } else { "closed" });
            match &r.question {
                Some(q) => format!("{status}: {q}"),
                None => status.to_owned(),
            }
        })
    });
    let metrics =
        present("metrics").then(|| v21.metrics.as_ref().map_or_else(invalid, metrics_summary));
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
        ("plan", plan),
        ("input_request", request),
        ("metrics", metrics),
    ]
}

fn plan_summary(items: &[PlanItem]) -> String {
    let count = |status| items.iter().filter(|i| i.status == status).count();
    format!(
        "{} items: {} done, {} in progress, {} pending",
        items.len(),
        count(PlanStatus::Done),
        count(PlanStatus::InProgress),
        count(PlanStatus::Pending)
    )
}

fn metrics_summary(m: &Metrics) -> String {
    let mut parts = Vec::new();
    if let Some(n) = m.tool_calls {
        parts.push(format!("tool_calls {n}"));
    }
    if let Some(n) = m.errors {
        parts.push(format!("errors {n}"));
    }
    if let Some(c) = m.cost_estimate {
        parts.push(format!("cost_estimate {c}"));
    }
    if let Some(at) = &m.generated_at {
        parts.push(format!("generated_at {at}"));
    }
    if parts.is_empty() {
        "empty".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// The open question as a quote the human cannot miss, and the plan as a task list
/// (Markdown, every value escaped).
pub(super) fn v21_markdown(state: &AgentState) -> String {
    let v21 = v21::read(state);
    let mut out = String::new();
    if let Some(question) = v21.open_question() {
        out.push_str(&format!(
            "> [!IMPORTANT]\n> **The agent is waiting for your answer:** {}\n\n",
            escape_inline(question)
        ));
    }
    if let Some(plan) = v21.plan.as_ref().filter(|p| !p.is_empty()) {
        out.push_str("**Plan**\n\n");
        for item in plan {
            let (mark, note) = match item.status {
                PlanStatus::Done => ("x", ""),
                PlanStatus::InProgress => (" ", " _(in progress)_"),
                PlanStatus::Pending => (" ", ""),
            };
            out.push_str(&format!("- [{mark}] {}{note}\n", escape_inline(&item.text)));
        }
        out.push('\n');
    }
    out
}

/// The same for a terminal.
fn v21_plain(state: &AgentState) -> String {
    let v21 = v21::read(state);
    let mut out = String::new();
    if let Some(question) = v21.open_question() {
        out.push_str(&format!("  QUESTION for you: {}\n", visible(question)));
    }
    for item in v21.plan.iter().flatten() {
        let mark = match item.status {
            PlanStatus::Done => "[x]",
            PlanStatus::InProgress => "[~]",
            PlanStatus::Pending => "[ ]",
        };
        out.push_str(&format!("  plan {mark} {}\n", visible(&item.text)));
    }
    out
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

/// Elements other than the v2.1 ones, which have rows of their own.
fn unknown_names(state: &AgentState) -> Vec<String> {
    state
        .unknown
        .iter()
        .map(|u| u.name().to_string())
        .filter(|name| !v21::ELEMENTS.contains(&name.as_str()))
        .collect()
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
    if !s.withheld.is_empty() {
        let mut line = Message::new().text(if put {
            "Withheld from the block the fields came from: "
        } else {
            "Withheld from the block: "
        });
        for (n, w) in s.withheld.iter().enumerate() {
            if n > 0 {
                line = line.text(", ");
            }
            line = match w.element.as_str() {
                ROOT => line.text("the attributes of ").value(format!("<{ROOT}>")),
                name => line.value(format!("<{name}>")),
            };
        }
        lines.push(render(line.text(format!(
            ". What {} looks like a secret ({}), so it is in no output{} (see the warning).",
            if s.withheld.len() == 1 {
                "it holds"
            } else {
                "they hold"
            },
            kinds(&s.withheld),
            if put { " and not in the new block" } else { "" },
        ))));
    }
    if s.warnings.iter().any(|w| w.kind == WarningKind::Lenient) {
        lines.push(render(Message::new().text(
            "The block was read leniently: it holds characters its writer should have \
             escaped (see the warning).",
        )));
    }
    // On a terminal the warning says it (once, on stderr); the summary keeps its line.
    if r.latest.capped && markdown {
        lines.push(render(Message::new().text(format!(
            "Stopped after the newest {MAX_COMMENTS} comments without finding a trusted \
             block; older comments were not read."
        ))));
    }
    lines
}

/// The kinds of secret withheld, each once, in order.
fn kinds(withheld: &[Withheld]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for w in withheld {
        if !kinds.contains(&w.kind) {
            kinds.push(w.kind);
        }
    }
    kinds.join(", ")
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
    out.push_str(&v21_markdown(state));
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
    out.push_str(&v21_plain(&r.latest.selection.state));
    for line in provenance(r, false, false) {
        out.push_str(&format!("  {line}\n"));
    }
    for note in footer(r) {
        out.push_str(&format!("  note: {}\n", note.plain()));
    }
    out
}

/// The fields as a table: name, then (for `put`) where the value came from, then the
/// value. Every column but the last is as wide as its widest cell (in characters), so
/// the values line up whatever the names; the value, last, may be as long as it is.
pub(super) fn push_plain_fields(
    out: &mut String,
    state: &AgentState,
    origin: impl Fn(&str) -> Option<String>,
) {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (name, value) in fields(state) {
        let shown = value.as_deref().map(visible).unwrap_or_else(|| "-".into());
        let mut row = vec![name.to_string()];
        row.extend(origin(name));
        row.push(shown);
        rows.push(row);
    }
    for name in unknown_names(state) {
        let mut row = vec!["other".to_string()];
        row.extend(origin("other").map(|_| String::new()));
        row.push(format!("<{}>…", visible(&name)));
        rows.push(row);
    }
    out.push_str(&aligned(&rows, "  "));
}

pub fn state_json(state: &AgentState) -> Value {
    let memory = state.memory.as_ref().map(|m| {
        m.to_value()
            .unwrap_or_else(|_| Value::String(m.as_str().to_string()))
    });
    let v21 = v21::read(state);
    json!({
        "intent": state.intent,
        "step": state.step,
        "progress": state.progress.map(|p| p.value()),
        "memory": memory,
        "next_action": state.next_action,
        "agent": state.agent,
        "plan": v21.plan,
        "input_request": v21.input_request,
        "metrics": v21.metrics,
        "element_warnings": v21.warnings,
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
        "withheld": s.withheld,
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

#[cfg(test)]
mod tests {
    use super::*;
    use council_protocol::agent_state::parse_block;

    fn table(xml: &str, origin: impl Fn(&str) -> Option<String>) -> String {
        let state = parse_block(xml).unwrap();
        let mut out = String::new();
        push_plain_fields(&mut out, &state, origin);
        out
    }

    #[test]
    fn the_field_table_lines_up_whatever_the_names_and_values() {
        let question = "Which of the three database migrations should run first: \
                        the users table, the orders table, or the 日本語 audit log?";
        let xml = format!(
            "<agent-state><intent>ship</intent><step>waiting_for_answer</step>\
             <progress>40</progress><next_action>ask</next_action>\
             <input_request><status>open</status><question>{question}</question></input_request>\
             <reviewer_notes>x</reviewer_notes></agent-state>"
        );
        insta::assert_snapshot!(table(&xml, |_| None), @r"
          intent         ship
          step           waiting_for_answer
          progress       40
          memory         -
          next_action    ask
          agent          -
          plan           -
          input_request  open: Which of the three database migrations should run first: the users table, the orders table, or the 日本語 audit log?
          metrics        -
          other          <reviewer_notes>…
        ");
        let from = |name: &str| {
            Some(match name {
                "intent" | "input_request" => "input".to_string(),
                "progress" => "task list: 2 of 5 checked".to_string(),
                _ => "carried over".to_string(),
            })
        };
        insta::assert_snapshot!(table(&xml, from), @r"
          intent         input                      ship
          step           carried over               waiting_for_answer
          progress       task list: 2 of 5 checked  40
          memory         carried over               -
          next_action    carried over               ask
          agent          carried over               -
          plan           carried over               -
          input_request  input                      open: Which of the three database migrations should run first: the users table, the orders table, or the 日本語 audit log?
          metrics        carried over               -
          other                                     <reviewer_notes>…
        ");
    }
}
