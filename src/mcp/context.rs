//! What every tool acts with: the server's request (repository, token, policy, key,
//! registry issue) and an environment that writes nothing to a runner.

use council_github::{GitHub, RepoName};
use council_protocol::error::{Error, Result};

use crate::env::RunEnv;
use crate::request::{IssueRequest, McpRequest};

pub struct ToolContext {
    pub env: RunEnv,
    pub req: McpRequest,
}

impl ToolContext {
    /// The repository the server acts on.
    pub fn repo(&self) -> Result<RepoName> {
        let full = self.req.access.repo.clone().ok_or_else(|| {
            Error::Usage(
                "no repository: start the server with --repo owner/name, or in a git checkout \
                 whose origin is on GitHub"
                    .to_string(),
            )
        })?;
        RepoName::parse(&full)
            .ok_or_else(|| Error::Usage(format!("`{full}` is not an owner/name repository")))
    }

    /// A client for the server's token (dry run: writes refused by the client itself).
    pub fn client(&self, why: &str) -> Result<GitHub> {
        let repo = self.repo()?;
        crate::app::client(&self.env, &self.req.access, &repo)?
            .ok_or_else(|| crate::exit::no_token(why))
    }

    /// An issue of the server's repository, with the server's trust settings, as the
    /// issue commands take it.
    pub fn issue(&self, issue: Option<u64>) -> IssueRequest {
        IssueRequest {
            issue,
            event: None,
            access: self.req.access.clone(),
            policy: self.req.policy.clone(),
            trusted_authors: self.req.trusted_authors.clone(),
            json: false,
        }
    }
}
