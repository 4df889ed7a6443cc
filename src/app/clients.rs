//! The repository a pull-request run acts on and the two clients it acts with.

use council_github::{GitHub, RepoName};
use council_protocol::error::Result;
use council_protocol::event::Event;

use super::repository;
use crate::env::RunEnv;
use crate::request::PipelineRequest;

pub struct Clients {
    pub repo: RepoName,
    /// The workflow token's client (`None`: no token).
    pub gh: Option<GitHub>,
    /// The release token's client: merges (and reverts) only.
    pub release: Option<GitHub>,
}

impl Clients {
    pub fn new(env: &RunEnv, req: &PipelineRequest, event: &Event) -> Result<Clients> {
        let repo = repository(&req.access, Some(event))?;
        let dry_run = req.access.dry_run;
        Ok(Clients {
            gh: env.github(&repo, req.access.token.as_ref(), dry_run)?,
            release: env.github(&repo, req.release_token.as_ref(), dry_run)?,
            repo,
        })
    }
}
