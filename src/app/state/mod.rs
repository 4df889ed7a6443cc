//! `state get` and `state put`: the latest trusted `<agent-state>` of an issue, read
//! newest page first, and a new block posted on top of it.
//!
//! `Target` and `read_latest` are shared with `context sync`, which maps the same state
//! onto an ASSISTANT_CONTEXT file.

mod get;
mod put;
mod put_view;
mod read;
mod view;

pub use get::run as get;
pub(crate) use get::{announce, finish, latest_json};
pub use put::run as put;
pub(crate) use put::{publish, put_json};
pub(crate) use read::{MAX_PAGES, first_page, read_error, read_latest};

use super::{client, load_event, repository};
use crate::env::RunEnv;
use crate::request::IssueRequest;
use council_github::{GitHub, RepoName};
use council_protocol::agent_state::AgentState;
use council_protocol::error::{Error, Result};
use council_protocol::event::Event;
use council_protocol::stage::{Output, Outputs};

/// The issue a state command works on, and a client for its repository.
pub(crate) struct Target {
    pub(crate) issue: u64,
    pub(crate) repo: RepoName,
    pub(crate) gh: GitHub,
}

impl Target {
    /// Issue: the `issue` input, else the event's `issue.number`. The event is read only
    /// when the inputs leave something open, so `command: state-get` with `issue` set
    /// works on any event (`workflow_dispatch`, `schedule`, …).
    pub(crate) fn resolve(
        env: &RunEnv,
        req: &IssueRequest,
        event: Option<Event>,
        command: &str,
    ) -> Result<Target> {
        let needs_event = req.issue.is_none() || req.access.repo.is_none();
        let event = match event {
            Some(event) => Some(event),
            None if needs_event && req.event.is_some() => {
                Some(load_event(env, req.event.as_ref())?)
            }
            None => None,
        };
        let issue = match req.issue {
            Some(issue) => issue,
            None => match &event {
                Some(e) => e.issue_number()?.ok_or_else(|| {
                    Error::Usage(format!(
                        "`{command}` needs an issue: event `{}` has none, so set the `issue` \
                         input (--issue N)",
                        e.name
                    ))
                })?,
                None => {
                    return Err(Error::Usage(format!(
                        "`{command}` needs an issue: set the `issue` input (--issue N)"
                    )));
                }
            },
        };
        let repo = repository(&req.access, event.as_ref())?;
        Target::with_issue(env, req, issue, repo, command)
    }

    /// A named issue of the run's repository (the registry issue of `report`).
    pub(crate) fn resolve_issue(
        env: &RunEnv,
        req: &IssueRequest,
        issue: u64,
        command: &str,
    ) -> Result<Target> {
        let event = match req.access.repo {
            None if req.event.is_some() => Some(load_event(env, req.event.as_ref())?),
            _ => None,
        };
        let repo = repository(&req.access, event.as_ref())?;
        Target::with_issue(env, req, issue, repo, command)
    }

    fn with_issue(
        env: &RunEnv,
        req: &IssueRequest,
        issue: u64,
        repo: RepoName,
        command: &str,
    ) -> Result<Target> {
        let gh = client(env, &req.access, &repo)?.ok_or_else(|| {
            crate::exit::no_token(format!(
                "`{command}` reads the issue through the GitHub API"
            ))
        })?;
        Ok(Target { issue, repo, gh })
    }
}

/// `state-*` outputs (empty for fields the block leaves out), plus `PENDING` for the
/// PR stages that did not run.
pub(crate) fn outputs(state: &AgentState, comment_url: &str) -> Outputs {
    let v21 = council_protocol::agent_state::v21::read(state);
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut out = Outputs::pending();
    out.set(Output::StateIntent, text(&state.intent))
        .set(Output::StateStep, text(&state.step))
        .set(
            Output::StateProgress,
            state
                .progress
                .map(|p| p.value().to_string())
                .unwrap_or_default(),
        )
        .set(
            Output::StateMemory,
            state
                .memory
                .as_ref()
                .map(|m| m.to_compact_string())
                .unwrap_or_default(),
        )
        .set(Output::StateNextAction, text(&state.next_action))
        .set(Output::StateAgent, text(&state.agent))
        .set(
            Output::StatePlan,
            json_output(&v21.plan.clone().unwrap_or_default()),
        )
        .set(Output::StateInputRequest, json_output(&v21.input_request))
        .set(Output::StateCommentUrl, comment_url);
    out
}

fn json_output(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}
