//! Where the policy is read: the base branch through the API in Actions (a PR must not
//! loosen its own gate), a local file on the CLI.

use std::path::Path;

use super::{ReadError, display_path, read_text};
use crate::env::RunEnv;
use crate::request::PolicyFile;
use council_github::GitHub;
use council_protocol::error::{Error, Result};
use council_protocol::policy::Policy;

/// A local policy file is read up to this size; the parser refuses what is over its own
/// (smaller) limit with a proper message, this only keeps `/dev/zero` from filling memory.
const MAX_READ: u64 = 4 << 20;

pub async fn load(
    env: &RunEnv,
    policy: &PolicyFile,
    gh: Option<&GitHub>,
    base_ref: &str,
) -> Result<Policy> {
    if env.in_actions {
        let gh = gh.ok_or_else(|| {
            crate::exit::no_token("the policy is read from the base branch through the API")
        })?;
        return at_branch(gh, &policy.path, base_ref).await;
    }
    local(env, policy)
}

/// `path` as `branch` holds it, through the API; the default policy when it has none.
pub(crate) async fn at_branch(gh: &GitHub, path: &str, branch: &str) -> Result<Policy> {
    match gh.get_file(path, Some(branch)).await? {
        Some(text) => Policy::parse(&text, &format!("{path}@{branch}")),
        None => {
            let mut default = Policy::default_policy();
            default.source = format!("default policy (no {path} on {branch})");
            Ok(default)
        }
    }
}

/// The CLI's policy: `--policy FILE`, else `.github/council.yml` of the working
/// directory, else the default policy.
pub(crate) fn local(env: &RunEnv, policy: &PolicyFile) -> Result<Policy> {
    read_local(&env.workspace, &policy.path, policy.explicit)
}

/// `policy_path` under `workspace`; missing, it is the default policy unless the user
/// named the file (`explicit`), which must then exist.
pub(crate) fn read_local(workspace: &Path, policy_path: &str, explicit: bool) -> Result<Policy> {
    let path = workspace.join(policy_path);
    let shown = display_path(workspace, Path::new(policy_path));
    match read_text(&path, MAX_READ) {
        Ok(text) => Policy::parse(&text, &shown),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
            let mut policy = Policy::default_policy();
            policy.source = format!("default policy (no local {shown})");
            Ok(policy)
        }
        Err(ReadError::Io(e)) => Err(Error::io("policy file", &shown, e)),
        Err(ReadError::TooLarge) => Err(Error::Policy {
            location: shown,
            message: format!("larger than {} MiB", MAX_READ >> 20),
        }),
        Err(ReadError::NotUtf8) => Err(Error::Policy {
            location: shown,
            message: "not UTF-8 text".to_string(),
        }),
    }
}
