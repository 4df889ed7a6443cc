//! The registry issue's reports: every trusted comment's last `<context-report>` block,
//! validated, and each agent's latest report (pure).
//!
//! Rules (reports are untrusted input):
//! - Only comments the agent-state trust rule trusts are read (issue author,
//!   OWNER/MEMBER/COLLABORATOR, the token's identity, `trusted-authors`); blocks in
//!   others are counted, never parsed.
//! - An invalid report is a warning naming its comment and field. When no valid report
//!   of that agent exists but its `agentId` can be read (and is not itself a token), the
//!   agent is listed without a score, so a broken report is visible rather than
//!   silently gone. A report holding a token anywhere is invalid.
//! - Several reports of one agent (different tokens, hand-posted copies): the latest
//!   `reportTimestamp` that is not in the future counts, then the newest comment; the
//!   others are counted as superseded.
//! - No roster of agents exists: the registry issue is the roster, so any agent id a
//!   trusted comment reports is a candidate.

use chrono::{DateTime, Utc};

use super::comment::{claimed_agent, count_blocks, last_block};
use super::report::{Report, parse_report};
use super::score::Candidate;
use crate::agent_state::TrustConfig;

/// One comment of the registry issue.
#[derive(Debug, Clone, Copy)]
pub struct RegistryComment<'a> {
    pub id: u64,
    pub author: &'a str,
    pub association: &'a str,
    pub body: &'a str,
    pub html_url: &'a str,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registry {
    /// One per agent, ordered by agent id.
    pub candidates: Vec<Candidate>,
    pub warnings: Vec<String>,
    /// Valid reports read (all agents, superseded ones included).
    pub reports_read: usize,
    /// Blocks in comments from untrusted authors.
    pub ignored_untrusted: usize,
    /// Older reports of an agent that has a newer one.
    pub superseded: usize,
}

pub fn collect(
    comments: &[RegistryComment<'_>],
    trust: &TrustConfig,
    now: DateTime<Utc>,
) -> Registry {
    let mut registry = Registry::default();
    // agent id → (report, comment id, comment url)
    let mut latest: std::collections::BTreeMap<String, (Report, u64, String)> = Default::default();
    let mut broken: std::collections::BTreeMap<String, (String, String)> = Default::default();
    for comment in comments {
        if !trust.trusts(comment.author, comment.association) {
            registry.ignored_untrusted += count_blocks(comment.body);
            continue;
        }
        let Some(block) = last_block(comment.body) else {
            continue;
        };
        match parse_report(block) {
            Err(error) => {
                registry.warnings.push(format!(
                    "ignored the context report in {}: {error}",
                    comment.html_url
                ));
                // An id that is itself a token is not listed: the ranking goes to the
                // job summary, the `--json` output and maybe a label.
                if let Some(agent) = claimed_agent(block)
                    && !crate::secrets::contains_secret(&agent)
                {
                    broken
                        .entry(agent)
                        .or_insert_with(|| (error.to_string(), comment.html_url.to_owned()));
                }
            }
            Ok(report) if report.reported_at.is_none() => {
                registry.warnings.push(format!(
                    "ignored the context report in {}: `contextReport.reportTimestamp` is required to tell how fresh it is",
                    comment.html_url
                ));
                broken.entry(report.agent_id.clone()).or_insert_with(|| {
                    ("no reportTimestamp".to_owned(), comment.html_url.to_owned())
                });
            }
            Ok(report) => {
                registry.reports_read += 1;
                let key = order_key(&report, comment.id, now);
                match latest.get(&report.agent_id) {
                    Some((kept, kept_id, _)) if order_key(kept, *kept_id, now) >= key => {
                        registry.superseded += 1;
                    }
                    Some(_) => {
                        registry.superseded += 1;
                        latest.insert(
                            report.agent_id.clone(),
                            (report, comment.id, comment.html_url.to_owned()),
                        );
                    }
                    None => {
                        latest.insert(
                            report.agent_id.clone(),
                            (report, comment.id, comment.html_url.to_owned()),
                        );
                    }
                }
            }
        }
    }
    for (agent, (why, url)) in broken {
        if !latest.contains_key(&agent) {
            registry.candidates.push(Candidate {
                agent_id: agent,
                report: None,
                comment_url: url,
                problem: Some(why),
            });
        }
    }
    registry.candidates.extend(
        latest
            .into_iter()
            .map(|(agent, (report, _, url))| Candidate {
                agent_id: agent,
                report: Some(report),
                comment_url: url,
                problem: None,
            }),
    );
    registry
        .candidates
        .sort_by(|a, b| a.agent_id.as_bytes().cmp(b.agent_id.as_bytes()));
    registry
}

/// Later is greater: not in the future, then the report's time, then the comment id.
fn order_key(report: &Report, comment_id: u64, now: DateTime<Utc>) -> (bool, Option<i64>, u64) {
    let at = report.reported_at.map(|t| t.timestamp());
    let not_future = at.is_some_and(|t| t <= now.timestamp());
    (not_future, at, comment_id)
}
