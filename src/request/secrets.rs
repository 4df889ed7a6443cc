//! Where secrets come from: a flag or `INPUT_*` value, else the environment (`GH_TOKEN`,
//! `COUNCIL_RELEASE_TOKEN`, `COUNCIL_HMAC_KEY`, `COUNCIL_DATABASE_URL`), else a key file;
//! and a warning for each secret given as a command-line argument.

use std::io::Read;
use std::path::{Path, PathBuf};

use council_protocol::error::{Error, Result};

use crate::env::{RunEnv, Vars};
use crate::secret::Secret;

/// A token: the flag or `INPUT_*` value, else the first of `vars` that is set. Tokens
/// never hold whitespace: a trailing newline from a secret store is dropped.
pub(super) fn token(given: Option<Secret>, env: &RunEnv, vars: &[&str]) -> Option<Secret> {
    given.or_else(|| {
        vars.iter()
            .find_map(|v| env.vars.get(v))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(Secret::new)
    })
}

/// The workflow token: `github-token`, else `GH_TOKEN`, else `GITHUB_TOKEN`.
pub(super) fn workflow_token(given: Option<Secret>, env: &RunEnv) -> Option<Secret> {
    token(given, env, &["GH_TOKEN", "GITHUB_TOKEN"])
}

/// The release token: `release-token`, else `COUNCIL_RELEASE_TOKEN`.
pub(super) fn release_token(given: Option<Secret>, env: &RunEnv) -> Option<Secret> {
    token(given, env, &["COUNCIL_RELEASE_TOKEN"])
}

/// The audit store's URL: `database-url`, else `COUNCIL_DATABASE_URL`.
pub(super) fn database_url(given: Option<Secret>, env: &RunEnv) -> Option<Secret> {
    token(given, env, &["COUNCIL_DATABASE_URL"])
}

/// The HMAC key: `hmac-key` or `--hmac-key-file`, else the environment's.
pub(super) fn hmac_key(
    key: Option<Secret>,
    file: Option<PathBuf>,
    env: &RunEnv,
) -> Result<Option<Secret>> {
    KeySources {
        vars: &env.vars,
        cwd: &env.cwd,
        workspace: &env.workspace,
        in_actions: env.in_actions,
    }
    .resolve(key, file)
}

/// Where the HMAC key came from and where files are looked for.
pub(super) struct KeySources<'a> {
    vars: &'a Vars,
    cwd: &'a Path,
    workspace: &'a Path,
    in_actions: bool,
}

impl KeySources<'_> {
    /// `--hmac-key`/`INPUT_HMAC-KEY` or `--hmac-key-file`, else `COUNCIL_HMAC_KEY` or
    /// `COUNCIL_HMAC_KEY_FILE`: a key and a key file at the same level is a usage error
    /// (which one was meant?); the flags beat the environment.
    pub(super) fn resolve(
        &self,
        key: Option<Secret>,
        file: Option<PathBuf>,
    ) -> Result<Option<Secret>> {
        let file = file.filter(|f| !f.as_os_str().is_empty());
        match (key, file) {
            (Some(_), Some(_)) => Err(Error::Usage(
                "both `hmac-key` (--hmac-key or INPUT_HMAC-KEY) and --hmac-key-file are set: \
                 give one"
                    .into(),
            )),
            (Some(key), None) => Ok(Some(key)),
            (None, Some(file)) => self.read(&file, "--hmac-key-file").map(Some),
            (None, None) => match (
                self.vars.get("COUNCIL_HMAC_KEY"),
                self.vars.get("COUNCIL_HMAC_KEY_FILE"),
            ) {
                (Some(_), Some(_)) => Err(Error::Usage(
                    "both COUNCIL_HMAC_KEY and COUNCIL_HMAC_KEY_FILE are set: unset one".into(),
                )),
                (Some(key), None) => Ok(Some(Secret::new(key))),
                (None, Some(file)) => self
                    .read(Path::new(file), "COUNCIL_HMAC_KEY_FILE")
                    .map(Some),
                (None, None) => Ok(None),
            },
        }
    }

    /// The key in a file. Symbolic links are followed (Docker and Kubernetes secrets are
    /// links), but what they reach must be a regular file of at most 64 KiB that other
    /// users can neither read nor write (like ssh with a private key), UTF-8 text; one
    /// trailing newline is not part of the key, and an empty key is an error. In Actions a
    /// file inside the workspace is refused, even through a link: the workspace may hold
    /// a pull request's checkout, which would choose the key.
    fn read(&self, given: &Path, source: &str) -> Result<Secret> {
        let path = self.cwd.join(given);
        let shown = given.display();
        let bad = |why: String| Error::Usage(format!("{source} {shown}: {why}"));
        let meta = std::fs::metadata(&path).map_err(|e| bad(format!("cannot be read: {e}")))?;
        if !meta.is_file() {
            return Err(bad("not a regular file".into()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o007 != 0 {
                return Err(bad(format!(
                    "other users of this machine can read or write the key (mode {mode:03o}): \
                     run `chmod 600 {shown}` (for a Kubernetes secret volume, defaultMode: 0400)"
                )));
            }
        }
        if self.in_actions && self.in_workspace(&path) {
            return Err(bad(
                "the file is inside the workspace, where a pull request's checkout could \
                 plant it: write the key to $RUNNER_TEMP, or pass it in COUNCIL_HMAC_KEY"
                    .into(),
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_KEY_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| bad(format!("cannot be read: {e}")))?;
        if bytes.len() as u64 > MAX_KEY_FILE_BYTES {
            return Err(bad(format!(
                "larger than {} KiB: not a key",
                MAX_KEY_FILE_BYTES >> 10
            )));
        }
        let mut key = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
        if key.ends_with('\n') {
            key.pop();
            if key.ends_with('\r') {
                key.pop();
            }
        }
        if key.is_empty() {
            return Err(bad("the file is empty".into()));
        }
        Ok(Secret::new(key))
    }

    /// `path` is the workspace or inside it, as written or once links are resolved.
    fn in_workspace(&self, path: &Path) -> bool {
        let lexical = path.starts_with(self.workspace);
        let resolved = match (path.canonicalize(), self.workspace.canonicalize()) {
            (Ok(p), Ok(w)) => p.starts_with(w),
            _ => false,
        };
        lexical || resolved
    }
}

const MAX_KEY_FILE_BYTES: u64 = 64 << 10;

/// A warning per secret given as a command-line argument: `ps` shows every process's
/// arguments to every user of the machine, and shells keep them in their history.
pub fn exposed_secret_warnings(flags: &[&str], database_url: Option<&Secret>) -> Vec<String> {
    flags
        .iter()
        // A database URL without a password holds no secret.
        .filter(|flag| {
            **flag != "database-url"
                || database_url.is_some_and(|u| council_store::url::holds_password(u.expose()))
        })
        .map(|flag| {
            let instead = match *flag {
                "github-token" => "set GH_TOKEN (or GITHUB_TOKEN) instead",
                "release-token" => "set COUNCIL_RELEASE_TOKEN instead",
                "database-url" => {
                    "set COUNCIL_DATABASE_URL instead (or a ~/.pgpass file and a URL without \
                     the password)"
                }
                _ => "set COUNCIL_HMAC_KEY or use --hmac-key-file instead",
            };
            format!(
                "--{flag} was given on the command line, where other users of this machine \
                 can read it (`ps`) and the shell keeps it in its history: {instead}"
            )
        })
        .collect()
}
