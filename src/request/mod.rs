//! One typed request per command, resolved from the parsed command line (or the action's
//! inputs) and the run environment, as uv resolves `XxxSettings` from its arguments and
//! environment: every value is checked here once, with a message that names the input,
//! and the app reads fields, never strings.
//!
//! The action (`council` with no subcommand) names its command with the `command` input;
//! `auto` leaves it to the event, which [`crate::app`] loads once and plans from
//! ([`AutoRequest`]).

mod action;
mod audit;
mod issue;
mod pipeline;
mod secrets;
mod subcommand;

use std::path::PathBuf;

use council_protocol::error::{Error, Result};

pub use action::AutoRequest;
pub use audit::{AuditFilter, AuditRequest, AuditTask};
pub use issue::{
    AssignRequest, ContextSyncRequest, IssueRequest, ReportRequest, StateFields, StateGetRequest,
    StatePutRequest,
};
pub use pipeline::{PipelineRequest, Upload};

use crate::cli::values::Direction;
use crate::env::{EventSource, RunEnv};
use crate::secret::Secret;

/// What one process does.
#[derive(Debug, Clone)]
pub enum Request {
    /// The action with `command: auto` (or `council run`): the event decides.
    Auto(Box<AutoRequest>),
    Pipeline(Box<PipelineRequest>),
    StateGet(StateGetRequest),
    StatePut(Box<StatePutRequest>),
    ContextValidate(ContextValidateRequest),
    ContextShow(ContextShowRequest),
    ContextSync(Box<ContextSyncRequest>),
    Report(ReportRequest),
    Assign(AssignRequest),
    Verify(VerifyRequest),
    Audit(Box<AuditRequest>),
    Mcp(Box<McpRequest>),
}

impl Request {
    /// The command's name, as `--json` documents and messages say it.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Auto(_) => "auto",
            Request::Pipeline(p) => p.command.name(),
            Request::StateGet(_) => "state-get",
            Request::StatePut(_) => "state-put",
            Request::ContextValidate(_) => "context-validate",
            Request::ContextShow(_) => "context-show",
            Request::ContextSync(_) => "context-sync",
            Request::Report(_) => "report",
            Request::Assign(_) => "assign",
            Request::Verify(_) => "verify",
            Request::Audit(_) => "audit",
            Request::Mcp(_) => "mcp",
        }
    }
}

/// How a command reaches GitHub: the repository, the workflow token, and whether writes
/// are refused (`dry-run`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// `--repo`, else `GITHUB_REPOSITORY`; else the event's repository, once loaded.
    pub repo: Option<String>,
    /// `github-token`, else `GH_TOKEN`, else `GITHUB_TOKEN`.
    pub token: Option<Secret>,
    pub dry_run: bool,
}

/// Where the policy is read: in Actions at the base branch through the API, on the CLI a
/// local file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFile {
    pub path: String,
    /// `--policy`/`policy:` was given (on the CLI a missing explicit file is an error).
    pub explicit: bool,
}

pub const DEFAULT_POLICY_PATH: &str = ".github/council.yml";

impl PolicyFile {
    /// The `policy` input or flag; in Actions a path that leaves the repository is bad
    /// input (it is read at the base branch through the API).
    pub fn resolve(given: Option<String>, env: &RunEnv) -> Result<PolicyFile> {
        let explicit = given.is_some();
        let path = given.unwrap_or_else(|| DEFAULT_POLICY_PATH.to_string());
        if env.in_actions {
            check_repo_path(&path)?;
        }
        Ok(PolicyFile { path, explicit })
    }
}

/// `context validate`: the files (empty: every ASSISTANT_CONTEXT file of the workspace).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextValidateRequest {
    pub paths: Vec<PathBuf>,
    pub json: bool,
}

/// `context show`: one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextShowRequest {
    pub path: PathBuf,
    pub json: bool,
}

/// `council verify`: the file (the event's pull request's audit file when `None`, as the
/// action's `verify` command has it), earlier files that prove what it leaves out, and
/// whether to take the rest on trust.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyRequest {
    pub file: Option<PathBuf>,
    pub with: Vec<PathBuf>,
    pub allow_partial: bool,
    pub hmac_key: Option<Secret>,
    pub event: Option<EventSource>,
    pub json: bool,
}

/// `council mcp`: the server's tools and what they act with.
#[derive(Debug, Clone)]
pub struct McpRequest {
    pub read_only: bool,
    /// Only these tools (empty: all).
    pub tools: Vec<String>,
    pub access: Access,
    pub policy: PolicyFile,
    pub trusted_authors: Vec<String>,
    pub hmac_key: Option<Secret>,
    pub registry_issue: Option<u64>,
}

/// `context sync`'s direction, when none is given.
pub fn direction(given: Option<Direction>) -> Direction {
    given.unwrap_or_default()
}

/// A path inside the repository: relative, no `..`, no backslashes.
fn check_repo_path(path: &str) -> Result<()> {
    let bad = path.starts_with('/')
        || path.contains('\\')
        || path.split('/').any(|seg| seg.is_empty() || seg == "..");
    if bad {
        return Err(Error::Usage(format!(
            "input `policy`: `{path}` must be a relative path inside the repository, such as .github/council.yml"
        )));
    }
    Ok(())
}

pub use secrets::exposed_secret_warnings;
pub use subcommand::resolve;

#[cfg(test)]
mod tests;
