//! The run environment: what the runner (or a terminal) says about this run, read once.
//! Everything after [`RunEnv::resolve`] is pure over it, so tests build one from pairs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use council_github::artifact::RuntimeEnv;
use council_github::retry::{RUN_BUDGET, RetryPolicy};
use council_github::{GitHub, GitHubConfig, RepoName};
use council_protocol::audit::RunInfo;
use council_protocol::error::{Error, Result};

use crate::runner::Runner;
use crate::secret::Secret;

/// The variables this program reads, captured once.
#[derive(Clone, Default)]
pub struct Vars {
    vars: BTreeMap<String, String>,
}

/// Names only: some values are secrets.
impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.vars.keys()).finish()
    }
}

const READ: &[&str] = &[
    "GITHUB_ACTIONS",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_API_URL",
    "GITHUB_GRAPHQL_URL",
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_REPOSITORY_ID",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_JOB",
    "GITHUB_WORKSPACE",
    "GITHUB_RETENTION_DAYS",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RESULTS_URL",
    "COUNCIL_RETRY_BASE_MS",
    "COUNCIL_REQUEST_TIMEOUT_MS",
    // Secrets for CLI use, so that none has to be a command-line argument (`ps` shows
    // those to every user): see `request::secrets`.
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COUNCIL_RELEASE_TOKEN",
    "COUNCIL_HMAC_KEY",
    "COUNCIL_HMAC_KEY_FILE",
    // The audit store's URL may hold a password: the environment, not an argument.
    "COUNCIL_DATABASE_URL",
];

impl Vars {
    /// The variables this program reads, and every action input (`INPUT_*`).
    pub fn from_process() -> Vars {
        // A variable that is not UTF-8 is none of ours (`vars()` would panic on it).
        let pairs = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
        Vars::from_pairs(
            pairs.filter(|(k, _)| READ.contains(&k.as_str()) || k.starts_with("INPUT_")),
        )
    }

    /// An action input's variable as the runner set it (`INPUT_DRY-RUN`), blank or not.
    pub fn input(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Vars {
        Vars {
            vars: pairs.into_iter().collect(),
        }
    }

    /// A variable's value; empty counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// Where outputs, the summary and annotations go (also when nothing else resolves).
    pub fn runner(&self) -> Runner {
        Runner {
            actions: self.in_actions(),
            output_path: self.get("GITHUB_OUTPUT").map(PathBuf::from),
            summary_path: self.get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            sink: crate::runner::Sink::Process,
        }
    }

    pub fn in_actions(&self) -> bool {
        self.get("GITHUB_ACTIONS") == Some("true")
    }
}

/// Where GitHub is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub api_url: String,
    pub graphql_url: String,
    pub server_url: String,
}

/// The event file the runner hands over (`GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`), or
/// the CLI's `--event`/`--event-name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSource {
    pub name: String,
    pub path: PathBuf,
}

/// This run as the environment describes it.
#[derive(Debug, Clone)]
pub struct RunEnv {
    pub in_actions: bool,
    pub runner: Runner,
    /// The working directory: where relative paths given on a command line start.
    pub cwd: PathBuf,
    /// `GITHUB_WORKSPACE`, else the working directory: where the audit file goes and
    /// workspace paths (`@memory.json`) start.
    pub workspace: PathBuf,
    pub run: RunInfo,
    pub endpoints: Endpoints,
    pub retry: RetryPolicy,
    /// The Actions artifact service (uploads happen only inside Actions).
    pub artifact: RuntimeEnv,
    /// `GITHUB_REPOSITORY`.
    pub repository: Option<String>,
    /// `GITHUB_REPOSITORY_ID`: the repository's numeric id, which artifacts of its own
    /// runs carry.
    pub repository_id: Option<u64>,
    /// `GITHUB_EVENT_NAME`/`GITHUB_EVENT_PATH`, when both are set.
    pub event: Option<EventSource>,
    pub vars: Vars,
}

impl RunEnv {
    pub fn resolve(vars: Vars, cwd: PathBuf) -> Result<RunEnv> {
        let api_url = vars
            .get("GITHUB_API_URL")
            .unwrap_or("https://api.github.com")
            .trim_end_matches('/')
            .to_string();
        let graphql_url = vars
            .get("GITHUB_GRAPHQL_URL")
            .map(str::to_string)
            .unwrap_or_else(|| default_graphql_url(&api_url));
        let server_url = vars
            .get("GITHUB_SERVER_URL")
            .unwrap_or("https://github.com")
            .trim_end_matches('/')
            .to_string();
        let run = match vars.get("GITHUB_RUN_ID") {
            Some(run_id) => RunInfo {
                run_id: run_id.to_string(),
                run_attempt: number(vars.get("GITHUB_RUN_ATTEMPT"), "GITHUB_RUN_ATTEMPT")?
                    .unwrap_or(1),
                job: vars.get("GITHUB_JOB").unwrap_or("job").to_string(),
            },
            None => RunInfo::local(),
        };
        let workspace = vars
            .get("GITHUB_WORKSPACE")
            .map(PathBuf::from)
            .unwrap_or_else(|| cwd.clone());
        let retry = RetryPolicy::with_base_ms(number(
            vars.get("COUNCIL_RETRY_BASE_MS"),
            "COUNCIL_RETRY_BASE_MS",
        )?)
        .with_request_timeout_ms(number(
            vars.get("COUNCIL_REQUEST_TIMEOUT_MS"),
            "COUNCIL_REQUEST_TIMEOUT_MS",
        )?)
        .with_budget(RUN_BUDGET);
        let event = match (vars.get("GITHUB_EVENT_NAME"), vars.get("GITHUB_EVENT_PATH")) {
            (Some(name), Some(path)) => Some(EventSource {
                name: name.to_string(),
                path: PathBuf::from(path),
            }),
            _ => None,
        };
        Ok(RunEnv {
            in_actions: vars.in_actions(),
            runner: vars.runner(),
            cwd,
            workspace,
            run,
            artifact: RuntimeEnv {
                runtime_token: vars.get("ACTIONS_RUNTIME_TOKEN").map(str::to_string),
                results_url: vars.get("ACTIONS_RESULTS_URL").map(str::to_string),
                server_url: Some(server_url.clone()),
                retention_days_limit: vars.get("GITHUB_RETENTION_DAYS").map(str::to_string),
            },
            endpoints: Endpoints {
                api_url,
                graphql_url,
                server_url,
            },
            retry,
            repository: vars.get("GITHUB_REPOSITORY").map(str::to_string),
            repository_id: vars
                .get("GITHUB_REPOSITORY_ID")
                .and_then(|id| id.trim().parse().ok()),
            event,
            vars,
        })
    }

    /// A client for `repo` with one token; `None` when there is no token. A dry run's
    /// clients refuse every write themselves.
    pub fn github(
        &self,
        repo: &RepoName,
        token: Option<&Secret>,
        dry_run: bool,
    ) -> Result<Option<GitHub>> {
        let Some(token) = token else {
            return Ok(None);
        };
        let config = GitHubConfig {
            api_url: self.endpoints.api_url.clone(),
            graphql_url: self.endpoints.graphql_url.clone(),
            token: Some(token.expose().to_string()),
            retry: self.retry,
            read_only: dry_run,
        };
        GitHub::new(&config, repo.clone()).map(Some)
    }

    /// The workflow run's page, for links; `None` outside Actions.
    pub fn run_url(&self, repo: &RepoName) -> Option<String> {
        (self.run.run_id != "local").then(|| {
            format!(
                "{}/{}/actions/runs/{}/attempts/{}",
                self.endpoints.server_url, repo, self.run.run_id, self.run.run_attempt
            )
        })
    }

    /// A path as messages, files and comments show it: relative to the workspace when
    /// inside it, else just its file name (a runner's absolute paths mean nothing to a
    /// reader and tell an attacker about the machine).
    pub fn display_path(&self, path: &Path) -> String {
        crate::app::display_path(&self.workspace, path)
    }
}

/// GHES serves REST at `/api/v3` and GraphQL at `/api/graphql`.
fn default_graphql_url(api_url: &str) -> String {
    match api_url.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api_url}/graphql"),
    }
}

fn number<T: std::str::FromStr>(value: Option<&str>, name: &str) -> Result<Option<T>> {
    match value.map(str::trim) {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| Error::Usage(format!("{name}: `{text}` is not a whole number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> RunEnv {
        let vars = Vars::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        RunEnv::resolve(vars, PathBuf::from("/work")).unwrap()
    }

    #[test]
    fn defaults_outside_actions() {
        let e = env(&[]);
        assert!(!e.in_actions);
        assert_eq!(e.endpoints.api_url, "https://api.github.com");
        assert_eq!(e.endpoints.graphql_url, "https://api.github.com/graphql");
        assert_eq!(e.run, RunInfo::local());
        assert_eq!(e.workspace, PathBuf::from("/work"));
        assert_eq!(e.event, None);
    }

    #[test]
    fn ghes_urls() {
        let e = env(&[("GITHUB_API_URL", "https://ghe.corp/api/v3/")]);
        assert_eq!(e.endpoints.api_url, "https://ghe.corp/api/v3");
        assert_eq!(e.endpoints.graphql_url, "https://ghe.corp/api/graphql");
    }

    #[test]
    fn runner_variables() {
        let e = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_EVENT_PATH", "/github/workflow/event.json"),
            ("GITHUB_WORKSPACE", "/github/workspace"),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_RUN_ATTEMPT", "2"),
            ("GITHUB_JOB", "council"),
            ("GITHUB_REPOSITORY_ID", "186853002"),
        ]);
        assert!(e.in_actions);
        assert_eq!(
            e.run,
            RunInfo {
                run_id: "42".into(),
                run_attempt: 2,
                job: "council".into()
            }
        );
        assert_eq!(e.event.unwrap().name, "pull_request");
        assert_eq!(e.workspace, PathBuf::from("/github/workspace"));
        assert_eq!(e.repository_id, Some(186_853_002));
        let vars = Vars::from_pairs([
            ("GITHUB_RUN_ID".into(), "1".into()),
            ("GITHUB_RUN_ATTEMPT".into(), "x".into()),
        ]);
        assert!(RunEnv::resolve(vars, PathBuf::from("/")).is_err());
    }

    #[test]
    fn secrets_do_not_show_in_debug() {
        let vars = Vars::from_pairs([("GH_TOKEN".into(), "ghp_env".into())]);
        assert!(!format!("{vars:?}").contains("ghp_env"));
    }
}
