//! The step summary (`GITHUB_STEP_SUMMARY`) and the CLI's readable view.

use super::text::{Message, cell, literal};
use super::{EffectReport, EffectResult, code_block};
use crate::event::PullRequest;
use crate::gates::{GateOutcome, Verdict, distinct_fixes};

/// One stage's results, as the summary shows them.
#[derive(Debug, Clone)]
pub struct StageReport<'a> {
    pub stage: &'static str,
    pub status: &'static str,
    pub pr: &'a PullRequest,
    pub gates: Vec<&'a GateOutcome>,
    pub effects: &'a [EffectReport],
    /// Footnotes: where the policy came from, API requests, audit file, ...
    pub notes: Vec<Message>,
}

fn icon(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "✅ PASS",
        Verdict::Fail => "❌ FAIL",
    }
}

pub fn markdown(report: &StageReport) -> String {
    let pr = report.pr;
    let mut out = format!(
        "### agent-council · {} · {}\n\n",
        report.stage, report.status
    );
    out.push_str(&format!(
        "Pull request #{}: {} → {} (head {})\n\n",
        pr.number,
        literal(&pr.head_ref),
        literal(&pr.base_ref),
        literal(short_sha(&pr.head_sha)),
    ));
    out.push_str("| Gate | Result | Why |\n| --- | --- | --- |\n");
    for gate in &report.gates {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            gate.gate,
            icon(gate.verdict),
            cell(&gate.message.markdown())
        ));
    }
    out.push('\n');
    let mut shown = Vec::new();
    for gate in &report.gates {
        let Some(fix) = &gate.fix else { continue };
        if shown.contains(&fix) {
            continue;
        }
        shown.push(fix);
        out.push_str(&format!(
            "**How to fix `{}`:** {}\n\n",
            gate.gate,
            fix.advice.markdown()
        ));
        if !fix.commands.is_empty() {
            out.push_str(&code_block(&fix.commands));
            out.push('\n');
        }
    }
    if !report.effects.is_empty() {
        out.push_str("| Effect | Result |\n| --- | --- |\n");
        for effect in report.effects {
            let result = match &effect.result {
                EffectResult::Done(_) => "✅ done",
                EffectResult::Skipped(_) => "⏭️ skipped",
                EffectResult::Failed(_) => "⚠️ failed",
            };
            out.push_str(&format!(
                "| `{}` | {}: {} |\n",
                effect.action,
                result,
                cell(&effect.message().markdown())
            ));
        }
        out.push('\n');
    }
    if !report.notes.is_empty() {
        let notes: Vec<String> = report.notes.iter().map(Message::markdown).collect();
        out.push_str(&format!("<sub>{}</sub>\n", notes.join(" · ")));
    }
    out
}

/// The CLI's view: the same facts as plain text.
pub fn plain(report: &StageReport) -> String {
    let mut out = format!(
        "{} {} on #{} ({} -> {})\n",
        report.stage,
        report.status,
        report.pr.number,
        crate::render::text::visible(&report.pr.head_ref),
        crate::render::text::visible(&report.pr.base_ref)
    );
    for gate in &report.gates {
        out.push_str(&format!(
            "  {:<18} {}  {}\n",
            gate.gate,
            gate.verdict.as_str(),
            gate.message.plain()
        ));
    }
    for (_, fix) in distinct_fixes(&report.gates) {
        out.push_str(&format!("  fix: {}\n", fix.advice.plain()));
        for command in &fix.commands {
            out.push_str(&format!("    {command}\n"));
        }
    }
    for effect in report.effects {
        out.push_str(&format!(
            "  {:<18} {}  {}\n",
            effect.action,
            effect.result_str(),
            effect.message().plain()
        ));
    }
    for note in &report.notes {
        out.push_str(&format!("  note: {}\n", note.plain()));
    }
    out
}

pub fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
