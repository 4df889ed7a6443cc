//! What `state get` and `state put` show: the step summary, the CLI's readable view and
//! its JSON (pure). Values from comments and inputs go through `render::text`, so they
//! render as literal text whatever they hold.

use serde_json::{Value, json};

use super::read::{Latest, MAX_COMMENTS};
use crate::agent_state::put::{ProgressInput, PutRequest};
use crate::agent_state::{AgentState, RenderedComment};
use crate::markdown::count_tasks;
use crate::render::code_block;
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

/// What happened to the comment `state put` rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Posted(String),
    /// This run (same run id, job and block) posted it before: a re-run.
    AlreadyPosted(String),
    DryRun,
    /// The token may not write (403); a warning, not a failure.
    ReadOnly,
}

impl Written {
    pub fn url(&self) -> &str {
        match self {
            Written::Posted(url) | Written::AlreadyPosted(url) => url,
            Written::DryRun | Written::ReadOnly => "",
        }
    }

    fn key(&self) -> &'static str {
        match self {
            Written::Posted(_) => "posted",
            Written::AlreadyPosted(_) => "already_posted",
            Written::DryRun => "dry_run",
            Written::ReadOnly => "read_only",
        }
    }
}

pub struct PutReport<'a> {
    pub read: ReadReport<'a>,
    pub request: &'a PutRequest,
    pub rendered: &'a RenderedComment,
    pub written: &'a Written,
    pub run_key: &'a str,
}

/// `(name, value)` of every field, in block order; `None` = not in the block.
fn fields(state: &AgentState) -> [(&'static str, Option<String>); 6] {
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

fn cell_value(value: &Option<String>) -> String {
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
fn provenance(r: &ReadReport, markdown: bool, put: bool) -> Vec<String> {
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
    if !s.warnings.is_empty() {
        lines.push(render(Message::new().text(format!(
            "Skipped malformed blocks in {} newer comment{} (see the warnings).",
            s.warnings.len(),
            plural(s.warnings.len())
        ))));
    }
    if r.latest.capped {
        lines.push(render(Message::new().text(format!(
            "Stopped after the newest {MAX_COMMENTS} comments without finding a trusted \
             block; older comments were not read."
        ))));
    }
    lines
}

fn footer(r: &ReadReport) -> Vec<Message> {
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

fn sub(notes: &[Message]) -> String {
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

fn push_plain_fields(
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

fn read_json(r: &ReadReport) -> Value {
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

/// Where each written field came from.
fn origin(p: &PutReport, field: &str) -> String {
    let before = &p.read.latest.selection.state;
    let req = p.request;
    let given = match field {
        "intent" => req.intent.is_some(),
        "step" => req.step.is_some(),
        "memory" => req.memory.is_some(),
        "next_action" => req.next_action.is_some(),
        "progress" => match req.progress {
            Some(ProgressInput::Auto) => {
                let tasks = count_tasks(&p.read.latest.issue_body);
                return format!("task list: {} of {} checked", tasks.checked, tasks.total);
            }
            Some(ProgressInput::Value(_)) => true,
            None => false,
        },
        _ => false,
    };
    let compacted = field == "memory" && p.rendered.compaction.is_some();
    let had = fields(before)
        .into_iter()
        .any(|(name, value)| name == field && value.is_some());
    let from = match (given, had) {
        (true, _) => "input",
        (false, true) => "carried over",
        (false, false) => "not set",
    };
    if compacted {
        format!("{from}, compacted")
    } else {
        from.to_string()
    }
}

fn put_headline(p: &PutReport, markdown: bool) -> String {
    let m = match p.written {
        Written::Posted(url) => Message::new().text("Posted ").link(url),
        Written::AlreadyPosted(url) => Message::new()
            .text("Already posted by this workflow run, nothing new was posted: ")
            .link(url),
        Written::DryRun => {
            Message::new().text("Dry run: nothing was posted; the comment below would be.")
        }
        Written::ReadOnly => Message::new().text(
            "Not posted: the token may not write comments (403). Grant \"issues: write\" in \
             the workflow's permissions (runs of pull_request from forks always get a \
             read-only token).",
        ),
    };
    if markdown { m.markdown() } else { m.plain() }
}

fn put_notes(p: &PutReport) -> Vec<Message> {
    let mut notes = Vec::new();
    if let Some(c) = &p.rendered.compaction {
        let mut m = Message::new().text(format!(
            "memory was compacted to fit GitHub's comment limit ({} → {} characters)",
            c.original_chars, c.compacted_chars
        ));
        for line in &c.notes {
            m = m.text("; ").value(line);
        }
        notes.push(m);
    }
    if p.rendered.summary_truncated {
        notes.push(Message::new().text("the summary was cut to fit"));
    }
    notes
}

pub fn put_markdown(p: &PutReport) -> String {
    let r = &p.read;
    let mut out = format!(
        "### agent-council · state-put · {}#{}\n\n{}\n\n| Field | Value | From |\n| --- | --- | --- |\n",
        r.repo,
        r.issue,
        put_headline(p, true)
    );
    for (name, value) in fields(&p.rendered.state) {
        out.push_str(&format!(
            "| `{name}` | {} | {} |\n",
            cell_value(&value),
            origin(p, name)
        ));
    }
    out.push('\n');
    for note in put_notes(p) {
        out.push_str(&format!("{}\n\n", note.markdown()));
    }
    for line in provenance(r, true, true) {
        out.push_str(&format!("{line}\n\n"));
    }
    if *p.written == Written::DryRun {
        let lines: Vec<String> = p.rendered.body.lines().map(str::to_string).collect();
        out.push_str("<details><summary>The comment</summary>\n\n");
        out.push_str(&code_block(&lines));
        out.push_str("\n</details>\n\n");
    }
    let mut footer = vec![Message::new().text("run key: ").value(p.run_key)];
    footer.extend(self::footer(r));
    out.push_str(&sub(&footer));
    out
}

pub fn put_plain(p: &PutReport) -> String {
    let r = &p.read;
    let mut out = format!(
        "state put on {}#{}: {}\n",
        r.repo,
        r.issue,
        put_headline(p, false)
    );
    push_plain_fields(&mut out, &p.rendered.state, |name| Some(origin(p, name)));
    for note in put_notes(p) {
        out.push_str(&format!("  note: {}\n", note.plain()));
    }
    for line in provenance(r, false, true) {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&format!("  run key: {}\n", visible(p.run_key)));
    if *p.written == Written::DryRun {
        out.push_str("--- the comment that would be posted ---\n");
        out.push_str(&p.rendered.body);
        out.push_str("--- end ---\n");
    }
    out
}

pub fn put_json(p: &PutReport) -> Value {
    let mut out = read_json(&p.read);
    out["outcome"] = json!(p.written.key());
    out["comment_url"] = json!(p.written.url());
    out["run_key"] = json!(p.run_key);
    out["state"] = state_json(&p.rendered.state);
    out["compacted"] = json!(p.rendered.compaction.is_some());
    if *p.written == Written::DryRun {
        out["body"] = json!(p.rendered.body);
    }
    out
}
