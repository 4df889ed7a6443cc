//! What `state put` shows: what happened to the comment, where each field came from,
//! and in a dry run the comment itself (pure).

use serde_json::{Value, json};

use super::view::{
    ReadReport, cell_value, fields, footer, provenance, push_plain_fields, read_json, state_json,
    sub,
};
use council_protocol::agent_state::RenderedComment;
use council_protocol::agent_state::put::{ProgressInput, PutRequest};
use council_protocol::markdown::count_tasks;
use council_protocol::render::code_block;
use council_protocol::render::text::{Message, visible};

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

/// Where each written field came from.
fn origin(p: &PutReport, field: &str) -> String {
    let before = &p.read.latest.selection.state;
    let req = p.request;
    let given = match field {
        "intent" => req.intent.is_some(),
        "step" => req.step.is_some(),
        "memory" => req.memory.is_some(),
        "next_action" => req.next_action.is_some(),
        "agent" => req.agent.is_some(),
        "plan" => req.plan.is_some(),
        "input_request" => req.input_request.is_some(),
        "metrics" => req.metrics.is_some(),
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
        // On a terminal the warning says why, once (on stderr).
        Written::ReadOnly if !markdown => Message::new().text("Not posted (see the warning)."),
        Written::ReadOnly => Message::new().text(READ_ONLY),
    };
    if markdown { m.markdown() } else { m.plain() }
}

/// Why a read-only token posted nothing, and the fix: the warning, and the summary's
/// headline.
pub const READ_ONLY: &str = "Not posted: the token may not write comments (403). Grant \
     \"issues: write\" in the workflow's permissions (runs of pull_request from forks \
     always get a read-only token).";

/// What compaction dropped, for the summary and the terminal's notice.
pub fn compaction_note(p: &PutReport) -> Option<Message> {
    let c = p.rendered.compaction.as_ref()?;
    let mut m = Message::new().text(format!(
        "memory was compacted to fit GitHub's comment limit ({} → {} characters)",
        c.original_chars, c.compacted_chars
    ));
    for line in &c.notes {
        m = m.text("; ").value(line);
    }
    Some(m)
}

/// Notes under the table; on a terminal (`markdown` false) compaction is a notice on
/// stderr instead.
fn put_notes(p: &PutReport, markdown: bool) -> Vec<Message> {
    let mut notes = Vec::new();
    if markdown {
        notes.extend(compaction_note(p));
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
    out.push_str(&super::view::v21_markdown(&p.rendered.state));
    for note in put_notes(p, true) {
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
    for note in put_notes(p, false) {
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
