//! The commands that work on an issue's comments: `state get`/`put`, `context sync`,
//! `report`, `assign`.

use crate::cli::values::Direction;
use crate::env::EventSource;

use super::{Access, PolicyFile};

/// An issue a command reads (and writes) comments on, and whose blocks it trusts.
#[derive(Debug, Clone)]
pub struct IssueRequest {
    /// `issue`, else the event's issue or pull request.
    pub issue: Option<u64>,
    pub event: Option<EventSource>,
    pub access: Access,
    /// The policy whose `agent_state.trusted_authors` add to `trusted_authors`.
    pub policy: PolicyFile,
    /// `trusted-authors`: logins whose blocks are trusted besides the issue's author and
    /// the repository's members.
    pub trusted_authors: Vec<String>,
    pub json: bool,
}

/// `state get`.
#[derive(Debug, Clone)]
pub struct StateGetRequest {
    pub target: IssueRequest,
}

/// The fields of a new `<agent-state>` block as given: `memory` and `plan` may be
/// `@path` (a file in the workspace), read when the block is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateFields {
    pub intent: Option<String>,
    pub step: Option<String>,
    pub progress: Option<String>,
    pub memory: Option<String>,
    pub next_action: Option<String>,
    pub agent: Option<String>,
    pub plan: Option<String>,
    pub input_request: Option<String>,
    pub metrics: Option<String>,
}

/// `state put`.
#[derive(Debug, Clone)]
pub struct StatePutRequest {
    pub target: IssueRequest,
    pub fields: StateFields,
    /// The human summary shown above the block.
    pub summary: Option<String>,
    /// Post even when a field looks like it holds a secret.
    pub allow_secrets: bool,
}

/// `context sync`.
#[derive(Debug, Clone)]
pub struct ContextSyncRequest {
    pub target: IssueRequest,
    /// The ASSISTANT_CONTEXT file, relative to the workspace.
    pub file: Option<String>,
    pub direction: Direction,
    pub summary: Option<String>,
    pub allow_secrets: bool,
}

/// `report`: an agent's context report, posted on the registry issue.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// The registry issue is the target (`issue` is unused).
    pub target: IssueRequest,
    pub registry_issue: Option<u64>,
    /// Inline JSON or `@path`.
    pub report: Option<String>,
}

/// `assign`: rank the registry's agents for an issue.
#[derive(Debug, Clone)]
pub struct AssignRequest {
    pub target: IssueRequest,
    pub registry_issue: Option<u64>,
    /// Label the issue `agent:<id>` (always in Actions, where `dry-run` writes nothing).
    pub apply: bool,
}
