//! Where the policy is read: the base branch through the API in Actions (a PR must not
//! loosen its own gate), a local file on the CLI.

use crate::error::{Error, Result};
use crate::github::GitHub;
use crate::policy::Policy;
use crate::settings::Settings;

pub async fn load(settings: &Settings, gh: Option<&GitHub>, base_ref: &str) -> Result<Policy> {
    if settings.in_actions {
        let gh = gh.ok_or_else(|| {
            Error::Usage(
                "input `github-token` is empty: the policy is read from the base branch through \
                 the API (the default `${{ github.token }}` is enough)"
                    .to_string(),
            )
        })?;
        let file = format!("{}@{base_ref}", settings.policy_path);
        return match gh.get_file(&settings.policy_path, Some(base_ref)).await? {
            Some(text) => Policy::parse(&text, &file),
            None => {
                let mut policy = Policy::default_policy();
                policy.source =
                    format!("default policy (no {} on {base_ref})", settings.policy_path);
                Ok(policy)
            }
        };
    }
    let path = settings.workspace.join(&settings.policy_path);
    match std::fs::read_to_string(&path) {
        Ok(text) => Policy::parse(&text, &settings.policy_path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !settings.policy_explicit => {
            let mut policy = Policy::default_policy();
            policy.source = format!("default policy (no local {})", settings.policy_path);
            Ok(policy)
        }
        Err(e) => Err(Error::io(path, e)),
    }
}
