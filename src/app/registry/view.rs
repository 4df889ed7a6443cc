//! What `report` and `assign` show: the step summary, the terminal's view and `--json`
//! (pure). Agent ids are restricted, but reasons quote task and project ids that come
//! from comments, so every value goes through `render::text`.

use serde_json::{Value, json};

use council_protocol::context_report::{Ranking, Registry, Report};
use council_protocol::render::text::{cell, escape_inline, literal, visible};

pub struct ReportView<'a> {
    pub repo: &'a str,
    pub registry: u64,
    pub report: &'a Report,
    /// `posted`, `updated`, `unchanged`, `dry_run` or `read_only`.
    pub outcome: &'static str,
    pub url: &'a str,
    pub body: &'a str,
    pub requests: u32,
}

fn headline(v: &ReportView) -> String {
    match v.outcome {
        "posted" => format!("Posted the report: {}", v.url),
        "updated" => format!("Updated the report in place: {}", v.url),
        "unchanged" => format!("The report was already posted as is: {}", v.url),
        "dry_run" => "Dry run: nothing was posted.".to_owned(),
        _ => "Not posted: the token may not write comments (403).".to_owned(),
    }
}

pub fn report_markdown(v: &ReportView) -> String {
    format!(
        "### agent-council · report · {}#{}\n\nAgent {} · {}\n\n<sub>GitHub API requests: {}</sub>\n",
        v.repo,
        v.registry,
        literal(&v.report.agent_id),
        escape_inline(&headline(v)),
        v.requests
    )
}

pub fn report_plain(v: &ReportView) -> String {
    // On a terminal the warning says why, once (on stderr).
    let headline = match v.outcome {
        "read_only" => "Not posted (see the warning).".to_owned(),
        _ => headline(v),
    };
    let mut out = format!(
        "report of {} on {}#{}: {headline}\n",
        visible(&v.report.agent_id),
        v.repo,
        v.registry,
    );
    if v.outcome == "dry_run" {
        out.push_str("--- the comment that would be posted ---\n");
        out.push_str(v.body);
        out.push_str("--- end ---\n");
    }
    out
}

pub fn report_json(v: &ReportView) -> Value {
    let mut out = json!({
        "repository": v.repo,
        "registry_issue": v.registry,
        "agent": v.report.agent_id,
        "outcome": v.outcome,
        "comment_url": v.url,
        "report": v.report.json,
        "requests": v.requests,
    });
    if v.outcome == "dry_run" {
        out["body"] = json!(v.body);
    }
    out
}

/// What `--apply` did to the issue's labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelChange {
    NotAsked,
    NoneQualifies,
    AlreadySet(String),
    DryRun { add: String, remove: Vec<String> },
    Applied { add: String, remove: Vec<String> },
    ReadOnly(String),
}

impl LabelChange {
    fn describe(&self) -> String {
        match self {
            LabelChange::NotAsked => {
                "no label applied (ask for it to label the issue: --apply, or `apply: true` over MCP)"
                    .to_owned()
            }
            LabelChange::NoneQualifies => {
                "no agent qualifies: the issue's labels were left as they are".to_owned()
            }
            LabelChange::AlreadySet(l) => format!("the issue already carries {l}"),
            LabelChange::DryRun { add, remove } => {
                format!("dry run: would add {add}{}", removed(remove))
            }
            LabelChange::Applied { add, remove } => format!("labelled {add}{}", removed(remove)),
            LabelChange::ReadOnly(l) => {
                format!("{l} was not applied: the token may not label issues")
            }
        }
    }
}

fn removed(labels: &[String]) -> String {
    if labels.is_empty() {
        String::new()
    } else {
        format!(" and removed {}", labels.join(", "))
    }
}

pub struct AssignView<'a> {
    pub repo: &'a str,
    pub issue: u64,
    pub registry: u64,
    pub ranking: &'a Ranking,
    pub found: &'a Registry,
    pub label: &'a LabelChange,
    pub pages: usize,
    pub comments: usize,
    pub requests: u32,
}

fn age(seconds: Option<i64>) -> String {
    match seconds {
        None => "no report".to_owned(),
        Some(s) if s < 0 => "in the future".to_owned(),
        Some(s) if s < 3600 => format!("{} min ago", s / 60),
        Some(s) if s < 172_800 => format!("{} h {} min ago", s / 3600, s % 3600 / 60),
        Some(s) => format!("{} days ago", s / 86_400),
    }
}

fn recommendation(v: &AssignView) -> String {
    match &v.ranking.recommended {
        Some(agent) => format!("Recommended: {agent}"),
        None if v.ranking.ranking.is_empty() => {
            "No agent has a trusted report on the registry issue.".to_owned()
        }
        None => "No agent qualifies (a fresh report with a score above 0).".to_owned(),
    }
}

/// The notes under the ranking; `terminal`: what a warning already said on stderr is
/// only pointed at.
fn notes(v: &AssignView, terminal: bool) -> Vec<String> {
    let f = v.found;
    let mut notes = vec![format!(
        "registry #{}: {} in {}, {}",
        v.registry,
        count(v.comments, "comment"),
        count(v.pages, "page"),
        count(f.reports_read, "valid report")
    )];
    if f.ignored_untrusted > 0 {
        notes.push(format!(
            "{} from untrusted authors ignored",
            count(f.ignored_untrusted, "report")
        ));
    }
    if f.superseded > 0 {
        notes.push(format!(
            "{} superseded",
            count(f.superseded, "older report")
        ));
    }
    if !f.warnings.is_empty() {
        notes.push(format!(
            "{} (see the warnings)",
            count(f.warnings.len(), "invalid report")
        ));
    }
    notes.push(match v.label {
        LabelChange::ReadOnly(l) if terminal => format!("{l} was not applied (see the warning)"),
        label => label.describe(),
    });
    notes.push(format!("GitHub API requests: {}", v.requests));
    notes
}

/// `1 page`, `2 pages`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub fn assign_markdown(v: &AssignView) -> String {
    let mut out = format!(
        "### agent-council · assign · {}#{}\n\n{}\n\n",
        v.repo,
        v.issue,
        escape_inline(&recommendation(v))
    );
    if !v.ranking.ranking.is_empty() {
        out.push_str("| # | Agent | Score | Freshness | Why |\n| --- | --- | --- | --- | --- |\n");
        for (i, s) in v.ranking.ranking.iter().enumerate() {
            let freshness = if s.refresh {
                format!("{} (refresh) · {}", s.freshness.name(), age(s.age_seconds))
            } else {
                format!("{} · {}", s.freshness.name(), age(s.age_seconds))
            };
            let why: Vec<String> = s.reasons.iter().map(|r| escape_inline(r)).collect();
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                i + 1,
                cell(&literal(&s.agent)),
                s.score,
                freshness,
                cell(&why.join("<br>"))
            ));
        }
        out.push('\n');
    }
    let notes: Vec<String> = notes(v, false).iter().map(|n| escape_inline(n)).collect();
    out.push_str(&format!("<sub>{}</sub>\n", notes.join(" · ")));
    out
}

pub fn assign_plain(v: &AssignView) -> String {
    let mut out = format!("assign {}#{}: {}\n", v.repo, v.issue, recommendation(v));
    for (i, s) in v.ranking.ranking.iter().enumerate() {
        out.push_str(&format!(
            "{:>3}. {:<24} {:>4}  {}{}  {}\n",
            i + 1,
            visible(&s.agent),
            s.score,
            s.freshness.name(),
            if s.refresh { " (refresh)" } else { "" },
            age(s.age_seconds)
        ));
        for reason in &s.reasons {
            out.push_str(&format!("       {}\n", visible(reason)));
        }
    }
    for note in notes(v, true) {
        out.push_str(&format!("  note: {}\n", visible(&note)));
    }
    out
}

pub fn assign_json(v: &AssignView) -> Value {
    json!({
        "repository": v.repo,
        "issue": v.issue,
        "registry_issue": v.registry,
        "recommended": v.ranking.recommended,
        "ranking": v.ranking.ranking,
        "reports_read": v.found.reports_read,
        "ignored_untrusted": v.found.ignored_untrusted,
        "superseded": v.found.superseded,
        "warnings": v.found.warnings,
        "label": v.label.describe(),
        "pages": v.pages,
        "comments": v.comments,
        "requests": v.requests,
    })
}
