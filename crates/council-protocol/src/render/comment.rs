//! Comments posted on pull requests.

use super::code_block;
use super::text::{cell, literal};
use crate::event::PullRequest;
use crate::gates::{GateOutcome, Verdict, distinct_fixes};

/// Hidden marker of the close-on-fail explanation: one per head SHA and base, so the same
/// event processed twice finds it and posts nothing new.
pub fn close_marker(pr: &PullRequest) -> String {
    format!(
        "<!-- agent-council:close-on-fail pr={} head={} base={} -->",
        pr.number,
        pr.head_sha,
        super::text::percent_encode(&pr.base_ref)
    )
}

pub fn close_on_fail(
    pr: &PullRequest,
    gates: &[&GateOutcome],
    policy_source: &str,
    run_url: Option<&str>,
) -> String {
    let mut out = close_marker(pr);
    out.push_str("\n### This pull request was closed by the branch policy\n\n");
    out.push_str(&format!(
        "{} → {} does not meet the {}.\n\n",
        literal(&pr.head_ref),
        literal(&pr.base_ref),
        crate::render::text::escape_text(policy_source)
    ));
    out.push_str("| Gate | Result | Why |\n| --- | --- | --- |\n");
    for gate in gates {
        let result = match gate.verdict {
            Verdict::Pass => "✅ PASS",
            Verdict::Fail => "❌ FAIL",
            Verdict::Pending => "⏳ PENDING",
        };
        out.push_str(&format!(
            "| `{}` | {result} | {} |\n",
            gate.gate,
            cell(&gate.message.markdown())
        ));
    }
    out.push('\n');
    let failed: Vec<&GateOutcome> = gates
        .iter()
        .copied()
        .filter(|g| g.verdict == Verdict::Fail)
        .collect();
    for (_, fix) in distinct_fixes(&failed) {
        out.push_str(&format!("**How to fix:** {}\n\n", fix.advice.markdown()));
        if !fix.commands.is_empty() {
            out.push_str(&code_block(&fix.commands));
            out.push('\n');
        }
    }
    match run_url {
        Some(url) => out.push_str(&format!("<sub>agent-council · [run]({url})</sub>\n")),
        None => out.push_str("<sub>agent-council</sub>\n"),
    }
    out
}
