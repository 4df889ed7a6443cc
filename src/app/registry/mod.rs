//! `council report` and `council assign`: context reports on the registry issue, and
//! the ranking of their agents for an issue (the scoring is `context_report`, pure).
//!
//! Requests: `report` lists the registry's comments once to find the agent's own (REST,
//! 100 per page) and writes at most one; `assign` reads the registry newest page first
//! through GraphQL (the first page also brings the token's login, the registry's author
//! and the policy) and the issue once: comment pages + 1, plus label writes with
//! `--apply`.

mod view;

use chrono::Utc;

use super::effects::Executor;
use super::input_file;
use super::state::{MAX_PAGES, Target, first_page, read_error};
use crate::env::RunEnv;
use crate::request::{AssignRequest, IssueRequest, ReportRequest};
use crate::runner::Level;
use council_github::issue_state::StateComment;
use council_protocol::context_report::{self, IssueFacts, RegistryComment, parse_report};
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::stage::{Effect, EffectResult, Output, Outputs};

use view::{AssignView, LabelChange, ReportView};

const REPORT_TITLE: &str = "council report";
const ASSIGN_TITLE: &str = "council assign";

fn registry_issue(registry_issue: Option<u64>, command: &str) -> Result<u64> {
    registry_issue.ok_or_else(|| {
        Error::Usage(format!(
            "`{command}` needs the registry issue that holds the agents' context reports: set \
             the `registry-issue` input (--registry-issue N)"
        ))
    })
}

/// `council report`: validate the report strictly, then edit the agent's one report
/// comment on the registry issue (or post it).
pub async fn report(env: &RunEnv, req: &ReportRequest) -> Result<Outcome> {
    let raw = req.report.as_deref().ok_or_else(|| {
        Error::Usage(
            "`report` needs the report: set the `report` input (--report @report.json or inline JSON)"
                .into(),
        )
    })?;
    let text = input_file::resolve_input(&env.workspace, "report", raw)?;
    let posted = post_report(env, &req.target, req.registry_issue, &text).await?;
    for w in &posted.warnings {
        env.runner.annotate(Level::Warning, REPORT_TITLE, w);
    }
    let view = posted.view();
    env.runner.append_summary(&view::report_markdown(&view))?;
    env.runner.set_outputs(&Outputs::pending().pairs())?;
    if req.target.json {
        env.runner.println(&view::report_json(&view).to_string());
    } else if !env.in_actions {
        env.runner.print(&view::report_plain(&view));
    }
    Ok(Outcome::Passed)
}

/// A report as `council report` left it on the registry issue.
pub(crate) struct PostedReport {
    pub repo: String,
    pub registry: u64,
    pub report: context_report::Report,
    /// `posted`, `updated`, `unchanged`, `dry_run` or `read_only`.
    pub outcome: &'static str,
    pub url: String,
    pub body: String,
    pub requests: u32,
    pub warnings: Vec<String>,
}

impl PostedReport {
    fn view(&self) -> ReportView<'_> {
        ReportView {
            repo: &self.repo,
            registry: self.registry,
            report: &self.report,
            outcome: self.outcome,
            url: &self.url,
            body: &self.body,
            requests: self.requests,
        }
    }
}

/// Validates `text` (a context report, JSON) strictly, before any request, then edits the
/// agent's one report comment on the registry issue (or posts it) through the executor.
pub(crate) async fn post_report(
    env: &RunEnv,
    req: &IssueRequest,
    registry_issue_given: Option<u64>,
    text: &str,
) -> Result<PostedReport> {
    let registry = registry_issue(registry_issue_given, "report")?;
    let bad = |why: String| Error::Input(format!("input `report`: {why}"));
    let now = crate::app::now();
    let report = parse_report(text)
        .map_err(|e| bad(e.to_string()))?
        .stamped(&now);
    if let Some(at) = report.reported_at
        && at.signed_duration_since(Utc::now()).num_seconds() > 300
    {
        return Err(bad(format!(
            "`contextReport.reportTimestamp` ({}) is in the future; report the time the context was measured",
            report.report_timestamp.as_deref().unwrap_or_default()
        )));
    }
    let body = context_report::render(&report).map_err(bad)?;
    let target = Target::resolve_issue(env, req, registry, "report")?;
    let marker = context_report::marker(&report.agent_id);
    let executor = Executor {
        gh: Some(&target.gh),
        release: None,
        dry_run: req.access.dry_run,
        pr: None,
    };
    let effect = Effect::UpsertComment {
        issue: registry,
        marker,
        body: body.clone(),
    };
    let performed = executor.perform(&effect).await;
    let mut warnings = performed.warnings.clone();
    let url = performed
        .comment
        .as_ref()
        .map(|c| c.html_url.clone())
        .unwrap_or_default();
    let outcome = match (&performed.report.result, performed.error) {
        (EffectResult::Done(_), _) if performed.created => "posted",
        (EffectResult::Done(_), _) => "updated",
        (EffectResult::Unchanged(_), _) => "unchanged",
        (EffectResult::Skipped(_), _) if req.access.dry_run => "dry_run",
        (EffectResult::Refused(_), _) => {
            warnings.push(
                "the token may not write comments (403): the report was not posted; grant \
                 \"issues: write\" in the workflow's permissions"
                    .to_string(),
            );
            "read_only"
        }
        (_, Some(e)) => return Err(read_error(e, registry, &target.gh)),
        (_, None) => return Err(Error::Api(performed.report.message().plain())),
    };
    Ok(PostedReport {
        repo: target.repo.full(),
        registry,
        report,
        outcome,
        url,
        body,
        requests: target.gh.requests(),
        warnings,
    })
}

/// `council assign`: rank the registry's agents for the issue; with `--apply` (always
/// in Actions) label it `agent:<id>`.
pub async fn assign(env: &RunEnv, req: &AssignRequest, event: Option<Event>) -> Result<Outcome> {
    let registry = registry_issue(req.registry_issue, "assign")?;
    let target = Target::resolve(env, &req.target, event, "assign")?;
    let assigned = rank(env, &req.target, &target, registry, req.apply).await?;
    for warning in &assigned.warnings {
        env.runner.annotate(Level::Warning, ASSIGN_TITLE, warning);
    }
    let view = assigned.view();
    env.runner.append_summary(&view::assign_markdown(&view))?;
    let mut outputs = Outputs::pending();
    outputs.set(
        Output::RecommendedAgent,
        assigned.ranking.recommended.clone().unwrap_or_default(),
    );
    env.runner.set_outputs(&outputs.pairs())?;
    if req.target.json {
        env.runner.println(&view::assign_json(&view).to_string());
    } else if !env.in_actions {
        env.runner.print(&view::assign_plain(&view));
    }
    Ok(Outcome::Passed)
}

/// The ranking of the registry's agents for an issue, and what labelling did.
pub(crate) struct Assigned {
    repo: String,
    issue: u64,
    registry: u64,
    pub ranking: context_report::Ranking,
    found: context_report::Registry,
    label: LabelChange,
    pages: usize,
    comments: usize,
    requests: u32,
    pub warnings: Vec<String>,
}

impl Assigned {
    fn view(&self) -> AssignView<'_> {
        AssignView {
            repo: &self.repo,
            issue: self.issue,
            registry: self.registry,
            ranking: &self.ranking,
            found: &self.found,
            label: &self.label,
            pages: self.pages,
            comments: self.comments,
            requests: self.requests,
        }
    }

    /// What `council assign --json` prints.
    pub fn json(&self) -> serde_json::Value {
        view::assign_json(&self.view())
    }
}

/// The registry issue a command names (`--registry-issue`).
pub(crate) fn registry(registry_issue_given: Option<u64>, command: &str) -> Result<u64> {
    registry_issue(registry_issue_given, command)
}

/// Ranks the registry's agents for `target`'s issue; with `apply`, labels it
/// `agent:<id>` through the executor (a dry run writes nothing).
pub(crate) async fn rank(
    env: &RunEnv,
    req: &IssueRequest,
    target: &Target,
    registry: u64,
    apply: bool,
) -> Result<Assigned> {
    let gh = &target.gh;
    let path = req.policy.path.as_str();
    let (mut page, _, trust) = first_page(env, req, gh, registry).await?;
    let mut comments: Vec<StateComment> = Vec::new();
    let (mut pages, mut capped) = (1usize, false);
    loop {
        let older = page.older.take();
        comments.append(&mut page.comments);
        let Some(cursor) = older else {
            break;
        };
        if pages >= MAX_PAGES {
            capped = true;
            break;
        }
        page = gh
            .issue_page(registry, path, Some(&cursor))
            .await
            .map_err(|e| read_error(e, registry, gh))?;
        pages += 1;
    }
    let info = gh
        .issue_info(target.issue)
        .await
        .map_err(|e| read_error(e, target.issue, gh))?;
    let now = Utc::now();
    let borrowed: Vec<RegistryComment<'_>> = comments
        .iter()
        .map(|c| RegistryComment {
            id: c.id,
            author: &c.author,
            association: &c.association,
            body: &c.body,
            html_url: &c.html_url,
        })
        .collect();
    let found = context_report::collect(&borrowed, &trust, now);
    let repo = target.repo.full();
    let facts = IssueFacts {
        number: info.number,
        title: info.title.clone(),
        labels: info.labels.clone(),
        repository: repo.clone(),
    };
    let ranking = context_report::rank(&found.candidates, &facts, now);
    let mut warnings = found.warnings.clone();
    if capped {
        warnings.push(format!(
            "the registry issue has more than {} comments; older reports were not read",
            MAX_PAGES * council_github::issue_state::PAGE
        ));
    }
    let label = if apply {
        apply_label(
            req.access.dry_run,
            target,
            &info.labels,
            ranking.recommended.as_deref(),
            &mut warnings,
        )
        .await?
    } else {
        LabelChange::NotAsked
    };
    Ok(Assigned {
        repo,
        issue: target.issue,
        registry,
        ranking,
        found,
        label,
        pages,
        comments: comments.len(),
        requests: gh.requests(),
        warnings,
    })
}

/// Labels the issue `agent:<id>`, removing an earlier `agent:*` label. Nothing is
/// written when no agent qualifies (the issue keeps what it has), when the label is
/// already right, or in a dry run.
async fn apply_label(
    dry_run: bool,
    target: &Target,
    labels: &[String],
    recommended: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<LabelChange> {
    let Some(agent) = recommended else {
        return Ok(LabelChange::NoneQualifies);
    };
    let wanted = format!("agent:{agent}");
    let stale: Vec<String> = labels
        .iter()
        // `get`, not `[..6]`: a label is user text, and byte 6 may fall inside a character.
        .filter(|l| l.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("agent:")) && **l != wanted)
        .cloned()
        .collect();
    let present = labels.contains(&wanted);
    if present && stale.is_empty() {
        return Ok(LabelChange::AlreadySet(wanted));
    }
    let executor = Executor {
        gh: Some(&target.gh),
        release: None,
        dry_run,
        pr: None,
    };
    let mut effects = Vec::new();
    if !present {
        effects.push(Effect::AddLabel {
            issue: target.issue,
            label: wanted.clone(),
        });
    }
    effects.extend(stale.iter().map(|old| Effect::RemoveLabel {
        issue: target.issue,
        label: old.clone(),
    }));
    // One at a time, stopping at the first that did not happen: a label that could not
    // be added must not cost the issue its old one.
    for effect in &effects {
        let performed = executor.perform(effect).await;
        match performed.report.result {
            EffectResult::Done(_) | EffectResult::Unchanged(_) => {}
            EffectResult::Skipped(_) if dry_run => {
                return Ok(LabelChange::DryRun {
                    add: wanted,
                    remove: stale,
                });
            }
            EffectResult::Refused(_) => {
                warnings.push(format!(
                    "the token may not label issues (403): `{wanted}` was not applied; \
                     grant \"issues: write\" in the workflow's permissions"
                ));
                return Ok(LabelChange::ReadOnly(wanted));
            }
            _ => {
                return Err(match performed.error {
                    Some(e) => e.into(),
                    None => Error::Api(performed.report.message().plain()),
                });
            }
        }
    }
    Ok(LabelChange::Applied {
        add: wanted,
        remove: stale,
    })
}
