//! The step summary (`GITHUB_STEP_SUMMARY`) and the CLI's readable view of a run of one or
//! more pipeline stages.

use super::code_block;
use super::text::{Message, cell, literal, visible};
use crate::event::PullRequest;
use crate::gates::{GateOutcome, Verdict, distinct_fixes};
use crate::stage::{EffectReport, EffectResult, StageResult};

/// What a run decided and did, as the summary shows it.
#[derive(Debug, Clone)]
pub struct RunReport<'a> {
    pub pr: &'a PullRequest,
    pub stages: &'a [StageResult],
    /// Every effect in the order it ran: the stages' own, then the ledger comment and
    /// the upload.
    pub effects: &'a [EffectReport],
    /// Footnotes: where the policy came from, API requests, audit file, ...
    pub notes: Vec<Message>,
}

fn icon(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "✅ PASS",
        Verdict::Fail => "❌ FAIL",
        Verdict::Pending => "⏳ PENDING",
    }
}

fn effect_icon(result: &EffectResult) -> &'static str {
    match result {
        EffectResult::Done(_) => "✅ done",
        EffectResult::Unchanged(_) => "✅ unchanged",
        EffectResult::Skipped(_) => "⏭️ skipped",
        EffectResult::Refused(_) => "⛔ not allowed",
        EffectResult::Pending(_) => "⏳ waiting",
        EffectResult::Failed(_) => "⚠️ failed",
    }
}

pub fn markdown(report: &RunReport) -> String {
    let pr = report.pr;
    let mut out = String::new();
    for stage in report.stages {
        out.push_str(&format!(
            "### agent-council · {} · {}\n\n",
            stage.stage,
            stage.status.as_str()
        ));
        out.push_str(&format!(
            "Pull request #{}: {} → {} (head {})\n\n",
            pr.number,
            literal(&pr.head_ref),
            literal(&pr.base_ref),
            literal(short_sha(&pr.head_sha)),
        ));
        gates_table(&mut out, &stage.gates);
    }
    if !report.effects.is_empty() {
        out.push_str("| Effect | Result |\n| --- | --- |\n");
        for effect in report.effects {
            out.push_str(&format!(
                "| `{}` | {}: {} |\n",
                effect.action,
                effect_icon(&effect.result),
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

fn gates_table(out: &mut String, gates: &[GateOutcome]) {
    if gates.is_empty() {
        return;
    }
    out.push_str("| Gate | Result | Why |\n| --- | --- | --- |\n");
    for gate in gates {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            gate.gate,
            icon(gate.verdict),
            cell(&gate.message.markdown())
        ));
    }
    out.push('\n');
    let all: Vec<&GateOutcome> = gates.iter().collect();
    for (gate, fix) in distinct_fixes(&all) {
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
}

/// The CLI's view: the same facts as plain text.
pub fn plain(report: &RunReport) -> String {
    let mut out = String::new();
    for stage in report.stages {
        out.push_str(&format!(
            "{} {} on #{} ({} -> {})\n",
            stage.stage,
            stage.status.as_str(),
            report.pr.number,
            visible(&report.pr.head_ref),
            visible(&report.pr.base_ref)
        ));
        for gate in &stage.gates {
            out.push_str(&format!(
                "  {:<18} {:<7}  {}\n",
                gate.gate,
                gate.verdict.as_str(),
                gate.message.plain()
            ));
        }
        let all: Vec<&GateOutcome> = stage.gates.iter().collect();
        for (_, fix) in distinct_fixes(&all) {
            out.push_str(&format!("  fix: {}\n", fix.advice.plain()));
            for command in &fix.commands {
                out.push_str(&format!("    {command}\n"));
            }
        }
    }
    for effect in report.effects {
        out.push_str(&format!(
            "  {:<18} {:<7}  {}\n",
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
