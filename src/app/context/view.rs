//! What the context commands show: the step summary, the terminal's view and `--json`
//! (pure). Paths, field values and problems come from files a pull request may change,
//! so they go through `render::text` and render as literal text.

use serde_json::{Value, json};

use council_protocol::assistant_context::{ContextFile, Field, Fields, Problem};
use council_protocol::render::text::{cell, escape_inline, literal, visible};

/// One file's verdict.
pub struct Checked {
    pub path: String,
    pub result: Result<ContextFile, Vec<Problem>>,
}

pub fn validate_markdown(checked: &[Checked], capped: bool) -> String {
    let invalid = checked.iter().filter(|c| c.result.is_err()).count();
    let mut out = format!(
        "### agent-council · context-validate\n\n{} file{} checked, {invalid} invalid.\n\n",
        checked.len(),
        plural(checked.len())
    );
    if !checked.is_empty() {
        out.push_str("| File | Result |\n| --- | --- |\n");
    }
    for c in checked {
        let result = match &c.result {
            Ok(file) if file.warnings().is_empty() => "valid".to_owned(),
            Ok(file) => format!(
                "valid, {} warning{}",
                file.warnings().len(),
                plural(file.warnings().len())
            ),
            Err(problems) => format!(
                "**invalid**: {} problem{}",
                problems.len(),
                plural(problems.len())
            ),
        };
        out.push_str(&format!("| {} | {result} |\n", cell(&literal(&c.path))));
    }
    let problems: Vec<String> = checked
        .iter()
        .flat_map(|c| match &c.result {
            Err(problems) => problems.clone(),
            Ok(file) => file.warnings().to_vec(),
        })
        .map(|p| format!("- {}", escape_inline(&p.to_string())))
        .collect();
    if !problems.is_empty() {
        out.push('\n');
        out.push_str(&problems.join("\n"));
        out.push('\n');
    }
    if capped {
        out.push_str(
            "\nThe repository has too many entries: the search for files stopped early.\n",
        );
    }
    out
}

/// Each file's verdict, one line each; its problems and warnings are told once, on
/// stderr (see `announce_problems`).
pub fn validate_plain(checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        match &c.result {
            Ok(file) if file.warnings().is_empty() => {
                out.push_str(&format!("ok       {}\n", visible(&c.path)));
            }
            Ok(file) => out.push_str(&format!(
                "ok       {} ({})\n",
                visible(&c.path),
                count(file.warnings().len(), "warning")
            )),
            Err(problems) => out.push_str(&format!(
                "invalid  {} ({})\n",
                visible(&c.path),
                count(problems.len(), "problem")
            )),
        }
    }
    if checked.is_empty() {
        out.push_str("no ASSISTANT_CONTEXT.md or .yaml file found\n");
    }
    out
}

pub fn file_json(c: &Checked) -> Value {
    match &c.result {
        Ok(file) => json!({
            "path": c.path,
            "valid": true,
            "fields": file.fields(),
            "unknown_fields": file.unknown_fields(),
            "body": file.body(),
            "warnings": file.warnings(),
            "problems": [],
        }),
        Err(problems) => json!({
            "path": c.path,
            "valid": false,
            "problems": problems,
        }),
    }
}

pub fn validate_json(checked: &[Checked], capped: bool) -> Value {
    json!({
        "files": checked.iter().map(file_json).collect::<Vec<_>>(),
        "invalid": checked.iter().filter(|c| c.result.is_err()).count(),
        "capped": capped,
    })
}

/// `(name, value)` of the RFC's fields as one-line text; `None` = missing.
pub fn field_rows(fields: &Fields) -> Vec<(&'static str, Option<String>)> {
    let list = |v: &Option<Vec<String>>| v.as_ref().map(|items| items.join(" · "));
    Field::ALL
        .into_iter()
        .map(|field| {
            let value = match field {
                Field::Id => fields.id.clone(),
                Field::CreatedAt => fields.created_at.as_ref().map(|t| t.text.clone()),
                Field::UpdatedAt => fields.updated_at.as_ref().map(|t| t.text.clone()),
                Field::User => fields.user.clone(),
                Field::Location => fields.location.clone(),
                Field::Purpose => fields.purpose.clone(),
                Field::FilesChanged => list(&fields.files_changed),
                Field::NextSteps => list(&fields.next_steps),
                Field::Status => fields.status.map(|s| s.name().to_owned()),
            };
            (field.name(), value)
        })
        .collect()
}

pub fn show_plain(file: &ContextFile) -> String {
    let mut out = format!("{}\n", visible(file.path()));
    for (name, value) in field_rows(file.fields()) {
        let shown = value.as_deref().map_or_else(|| "-".to_owned(), visible);
        out.push_str(&format!("  {name:<14} {shown}\n"));
    }
    let unknown = file.unknown_fields();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|n| visible(n)).collect();
        out.push_str(&format!("  {:<14} {}\n", "other keys", names.join(", ")));
    }
    if let Some(body) = file.body() {
        out.push_str(&format!(
            "  {:<14} {} lines\n",
            "body",
            body.lines().count()
        ));
    }
    out
}

/// `1 problem`, `2 problems`.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// What `context sync --direction to-file` did.
pub struct SyncToFile<'a> {
    pub repo: &'a str,
    pub issue: u64,
    pub path: &'a str,
    pub before: &'a Fields,
    pub after: &'a Fields,
    pub created: bool,
    /// `written`, `unchanged` or `dry_run`.
    pub outcome: &'static str,
    pub text: &'a str,
}

pub fn sync_markdown(s: &SyncToFile) -> String {
    let headline = match (s.outcome, s.created) {
        ("written", true) => "Created the file.",
        ("written", false) => "Updated the file.",
        ("unchanged", _) => "The file already matched; nothing was written.",
        _ => "Dry run: the file was not written.",
    };
    let mut out = format!(
        "### agent-council · context-sync · {}#{} → {}\n\n{headline}\n\n| Field | Before | After |\n| --- | --- | --- |\n",
        s.repo,
        s.issue,
        escape_inline(s.path)
    );
    let before = field_rows(s.before);
    for ((name, old), (_, new)) in before.into_iter().zip(field_rows(s.after)) {
        if old != new {
            out.push_str(&format!(
                "| `{name}` | {} | {} |\n",
                shown_cell(&old),
                shown_cell(&new)
            ));
        }
    }
    out
}

fn shown_cell(value: &Option<String>) -> String {
    value
        .as_deref()
        .map_or_else(|| "—".to_owned(), |v| cell(&literal(v)))
}

pub fn sync_plain(s: &SyncToFile) -> String {
    let mut out = format!(
        "context sync {}#{} -> {}: {}\n",
        s.repo,
        s.issue,
        visible(s.path),
        s.outcome.replace('_', " ")
    );
    for ((name, old), (_, new)) in field_rows(s.before).into_iter().zip(field_rows(s.after)) {
        if old != new {
            let show = |v: &Option<String>| v.as_deref().map_or_else(|| "-".to_owned(), visible);
            out.push_str(&format!("  {name:<14} {} -> {}\n", show(&old), show(&new)));
        }
    }
    if s.outcome == "dry_run" {
        out.push_str("--- the file that would be written ---\n");
        out.push_str(s.text);
        if !s.text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("--- end ---\n");
    }
    out
}

pub fn sync_json(s: &SyncToFile) -> Value {
    let changed: Vec<&str> = field_rows(s.before)
        .into_iter()
        .zip(field_rows(s.after))
        .filter(|((_, a), (_, b))| a != b)
        .map(|((name, _), _)| name)
        .collect();
    let mut out = json!({
        "direction": "to-file",
        "repository": s.repo,
        "issue": s.issue,
        "file": s.path,
        "outcome": s.outcome,
        "created": s.created,
        "changed": changed,
        "fields": s.after,
    });
    if s.outcome == "dry_run" {
        out["text"] = json!(s.text);
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
