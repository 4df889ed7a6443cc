//! `council audit …`: the audit store.

use std::path::PathBuf;

use super::{Access, PolicyFile};
use crate::secret::Secret;

#[derive(Debug, Clone)]
pub struct AuditRequest {
    pub task: AuditTask,
    /// `database-url`, else `COUNCIL_DATABASE_URL`; `None`: `sqlite://council-audit.db`.
    pub database_url: Option<Secret>,
    pub hmac_key: Option<Secret>,
    pub json: bool,
}

/// What `council audit` does, with what its subcommand alone takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditTask {
    Import {
        files: Vec<PathBuf>,
    },
    Sync {
        access: Access,
        registry_issue: Option<u64>,
        trusted_authors: Vec<String>,
        ledger_authors: Vec<String>,
        full: bool,
    },
    Query {
        question: Option<String>,
        filter: AuditFilter,
        csv: bool,
    },
    Report {
        html: PathBuf,
        filter: AuditFilter,
    },
    Verify {
        filter: AuditFilter,
    },
    /// `council policy simulate`: the policy file to replay over the store.
    Simulate {
        policy: PolicyFile,
        filter: AuditFilter,
    },
}

/// `--repo` and `--since` of the questions: only what was given (a store may hold many
/// repositories; `GITHUB_REPOSITORY` does not narrow it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub repo: Option<String>,
    pub since: Option<String>,
}
