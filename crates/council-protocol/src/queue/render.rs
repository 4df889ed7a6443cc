//! The comments the queue posts on a pull request that leaves it for a failed test or a
//! conflict: one per queue commit (or per base and head for a conflict), found again by
//! its hidden marker so that a re-run posts nothing new.

use super::record::Member;
use crate::gates::GateOutcome;
use crate::gates::release::short;
use crate::render::code_block;
use crate::render::text::literal;

/// The marker of the comment on a pull request dequeued for the queue commit `sha`.
pub fn failed_marker(sha: &str) -> String {
    format!("<!-- agent-council:queue-failed commit={sha} -->")
}

/// The marker of the comment on a pull request whose merge into a queue commit built on
/// `base_sha` conflicted at head `head`.
pub fn conflict_marker(base_sha: &str, head: &str) -> String {
    format!("<!-- agent-council:queue-conflict base={base_sha} head={head} -->")
}

/// A link to a commit, shown by its short SHA.
fn commit_link(repository_url: &str, sha: &str) -> String {
    let shown = literal(short(sha));
    if repository_url.starts_with("https://") && !repository_url.contains(['(', ')', ' ', '<', '>'])
    {
        format!(
            "[{shown}]({}/commit/{sha})",
            repository_url.trim_end_matches('/')
        )
    } else {
        shown
    }
}

fn fix(out: &mut String, gate: &GateOutcome) {
    if let Some(fix) = &gate.fix {
        out.push_str(&format!("**How to fix:** {}\n\n", fix.advice.markdown()));
        if !fix.commands.is_empty() {
            out.push_str(&code_block(&fix.commands));
            out.push('\n');
        }
    }
}

/// A pull request tested alone (or found by bisection) on a red or timed-out queue
/// commit: it leaves the queue, and the comment says which checks and which commit.
pub fn failed_comment(
    member: &Member,
    sha: &str,
    base: &str,
    base_sha: &str,
    repository_url: &str,
    gate: &GateOutcome,
) -> String {
    let mut out = failed_marker(sha);
    out.push_str("\n### agent-council · merge queue\n\n");
    out.push_str(&format!(
        "#{} left the merge queue: the queue commit {} ({} at {} with head {} merged in) \
         did not pass.\n\n",
        member.number,
        commit_link(repository_url, sha),
        literal(base),
        commit_link(repository_url, base_sha),
        literal(short(&member.head)),
    ));
    out.push_str(&format!("{}\n\n", gate.message.markdown()));
    fix(&mut out, gate);
    out.push_str(&format!(
        "It was tested alone on the base, so this is its own failure. The label {} was \
         removed; release queues it again once its gates pass on a new head.\n\n\
         <sub>agent-council · merge queue</sub>\n",
        literal(crate::policy::queue::QUEUED_LABEL)
    ));
    out
}

/// A pull request whose merge into the queue commit conflicted.
pub fn conflict_comment(member: &Member, base_sha: &str, gate: &GateOutcome) -> String {
    let mut out = conflict_marker(base_sha, &member.head);
    out.push_str("\n### agent-council · merge queue\n\n");
    out.push_str(&format!("{}\n\n", gate.message.markdown()));
    fix(&mut out, gate);
    out.push_str(&format!(
        "The label {} was removed; release queues it again once its gates pass on the new \
         head.\n\n<sub>agent-council · merge queue</sub>\n",
        literal(crate::policy::queue::QUEUED_LABEL)
    ));
    out
}
