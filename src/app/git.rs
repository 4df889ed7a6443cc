//! The local repository read with git (branch names, the origin remote), for the tools a
//! user runs in a checkout; no pull request decision reads it.

use std::path::Path;
use std::process::Command;

pub(crate) enum GitError {
    /// git could not be started (not installed, say).
    NotRun(std::io::Error),
    /// git ran and failed; its own message.
    Failed(String),
}

/// `git -C dir ARGS…`'s standard output.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(GitError::NotRun)?;
    if !output.status.success() {
        return Err(GitError::Failed(
            String::from_utf8_lossy(&output.stderr).trim().to_string(),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
