//! Raw inputs + the runner's environment → validated `Settings` (low → high).
//!
//! The environment is read once, in `RunnerEnv::from_process`; everything after that is
//! pure, so tests build settings from a list of pairs.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::cli::{self, Cli, ContextCommand, StateCommand};
use crate::runner::Runner;
use council_github::artifact::RuntimeEnv;
use council_github::retry::{RUN_BUDGET, RetryPolicy};
use council_protocol::audit::RunInfo;
use council_protocol::command::Command;
use council_protocol::error::{Error, Result};

/// A value that must never be printed: `Debug` shows `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// The runner variables this program reads, captured once.
#[derive(Clone, Default)]
pub struct RunnerEnv {
    vars: BTreeMap<String, String>,
}

/// Names only: some values are secrets.
impl std::fmt::Debug for RunnerEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.vars.keys()).finish()
    }
}

const RUNNER_VARS: &[&str] = &[
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
    // those to every user): see `Secrets::resolve`.
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COUNCIL_RELEASE_TOKEN",
    "COUNCIL_HMAC_KEY",
    "COUNCIL_HMAC_KEY_FILE",
    // The audit store's URL may hold a password: the environment, not an argument.
    "COUNCIL_DATABASE_URL",
];

impl RunnerEnv {
    pub fn from_process() -> RunnerEnv {
        RunnerEnv::from_pairs(
            RUNNER_VARS
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v))),
        )
    }

    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> RunnerEnv {
        RunnerEnv {
            vars: pairs.into_iter().collect(),
        }
    }

    /// Where outputs, the summary and annotations go (also when the settings are bad).
    pub fn runner(&self) -> Runner {
        Runner {
            actions: self.get("GITHUB_ACTIONS") == Some("true"),
            output_path: self.get("GITHUB_OUTPUT").map(PathBuf::from),
            summary_path: self.get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
        }
    }

    /// A variable's value; empty counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// What this run does: the stages `auto` plans from the event, or one named stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandKind {
    Auto,
    Run(Command),
    /// `council context show PATH` (CLI only: it reads a local file and writes nothing).
    ContextShow,
    /// `council mcp`: a Model Context Protocol server over stdio (CLI only).
    Mcp,
    /// `council audit …`: the audit store (CLI only).
    Audit(AuditTask),
}

/// What `council audit` does, with what its subcommand alone takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditTask {
    Import {
        files: Vec<PathBuf>,
    },
    Sync {
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
}

/// `--repo` and `--since` of the questions: only what was given (a store may hold many
/// repositories; `GITHUB_REPOSITORY` does not narrow it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub repo: Option<String>,
    pub since: Option<String>,
}

/// `council verify`: the file (the event's PR audit file when `None`), earlier files that
/// prove what it leaves out, and whether to take the rest on trust.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    pub file: Option<PathBuf>,
    pub with: Vec<PathBuf>,
    pub allow_partial: bool,
}

impl CommandKind {
    /// The `command` input's value.
    fn from_input(name: &str) -> Result<CommandKind> {
        match name.trim() {
            "auto" => Ok(CommandKind::Auto),
            other => Command::from_name(other)
                .map(CommandKind::Run)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "input `command`: unknown command `{other}`; use one of {}",
                        Command::list()
                    ))
                }),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CommandKind::Auto => "auto",
            CommandKind::Run(command) => command.name(),
            CommandKind::ContextShow => "context-show",
            CommandKind::Mcp => "mcp",
            CommandKind::Audit(_) => "audit",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateInputs {
    pub intent: Option<String>,
    pub step: Option<String>,
    pub progress: Option<String>,
    pub memory: Option<String>,
    pub next_action: Option<String>,
    pub summary: Option<String>,
    pub agent: Option<String>,
    pub plan: Option<String>,
    pub input_request: Option<String>,
    pub metrics: Option<String>,
}

/// `context-sync`: which way the mapping goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// The issue's latest `<agent-state>` onto the file.
    #[default]
    ToFile,
    /// The file as a new `<agent-state>` on the issue.
    ToIssue,
}

impl Direction {
    fn from_input(value: Option<String>) -> Result<Direction> {
        match non_empty(value).as_deref().map(str::trim) {
            None | Some("to-file") => Ok(Direction::ToFile),
            Some("to-issue") => Ok(Direction::ToIssue),
            Some(other) => Err(Error::Usage(format!(
                "input `direction` (--direction): `{other}` is not a direction; use to-file or to-issue"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::ToFile => "to-file",
            Direction::ToIssue => "to-issue",
        }
    }
}

/// The ASSISTANT_CONTEXT commands' inputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextInputs {
    /// `context-file` (`--file`): the file `context sync` reads and writes.
    pub file: Option<String>,
    pub direction: Direction,
    /// `context validate PATH…` / `context show PATH`; empty = every file in the repository.
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSource {
    pub name: String,
    pub path: PathBuf,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub command: CommandKind,
    /// `council verify`'s file and options (in the action: the event's PR's audit file).
    pub verify: VerifyOptions,
    pub in_actions: bool,
    pub dry_run: bool,
    pub close_on_fail: bool,
    pub upload_artifact: bool,
    pub policy_path: String,
    /// `--policy`/`policy:` was given (on the CLI a missing explicit file is an error).
    pub policy_explicit: bool,
    pub token: Option<Secret>,
    pub release_token: Option<Secret>,
    pub hmac_key: Option<Secret>,
    pub retention_days: Option<u32>,
    pub issue: Option<u64>,
    /// `--pr N` (CLI): the pull request review/release act on, read through the API.
    pub pr: Option<u64>,
    pub registry_issue: Option<u64>,
    pub trusted_authors: Vec<String>,
    pub state: StateInputs,
    pub event: Option<EventSource>,
    pub repo: Option<String>,
    /// `GITHUB_REPOSITORY_ID` (Actions): the repository's numeric id, which artifacts of
    /// its own runs carry.
    pub repository_id: Option<u64>,
    pub run: RunInfo,
    pub workspace: PathBuf,
    pub api_url: String,
    pub graphql_url: String,
    pub server_url: String,
    pub retry: RetryPolicy,
    pub runner: Runner,
    pub artifact: RuntimeEnv,
    pub json: bool,
    pub allow_secrets: bool,
    pub context: ContextInputs,
    /// `report`: the context report, inline JSON or `@path`.
    pub report: Option<String>,
    /// `assign --apply` (always on in Actions, where `dry-run` is the way to write nothing).
    pub apply: bool,
    /// `database-url` (`--database-url`, else `COUNCIL_DATABASE_URL`): the audit store.
    /// A stage run writes its Context Object there only when one is given; `council
    /// audit` falls back to `sqlite://council-audit.db`.
    pub database_url: Option<Secret>,
    /// Said once the run starts (e.g. a token given as a command-line argument).
    pub warnings: Vec<String>,
}

pub const DEFAULT_POLICY_PATH: &str = ".github/council.yml";

impl Settings {
    pub fn resolve(cli: Cli, env: &RunnerEnv, cwd: PathBuf) -> Result<Settings> {
        let mut verify = VerifyOptions::default();
        let mut context_paths = Vec::new();
        let (command, i, local) = match cli.command {
            None => {
                let command = match non_empty(cli.inputs.command.clone()) {
                    Some(name) => CommandKind::from_input(&name)?,
                    None => CommandKind::Auto,
                };
                (command, cli.inputs, cli.local)
            }
            Some(sub) => {
                // With a subcommand, the top level holds only what `INPUT_*` set there.
                if let Some(name) = non_empty(cli.inputs.command) {
                    return Err(Error::Usage(format!(
                        "the command is given twice: `--command {name}` (or INPUT_COMMAND) and \
                         the subcommand `{}`; give one: `council {}` or `council --command \
                         {name}`",
                        sub.name(),
                        sub.name()
                    )));
                }
                let (inputs, local) = sub.flags();
                let command = match sub {
                    cli::Command::Run(_) => CommandKind::Auto,
                    cli::Command::Guard(_) => CommandKind::Run(Command::Guard),
                    cli::Command::Review(_) => CommandKind::Run(Command::Review),
                    cli::Command::Release(_) => CommandKind::Run(Command::Release),
                    cli::Command::State(StateCommand::Get(_)) => {
                        CommandKind::Run(Command::StateGet)
                    }
                    cli::Command::State(StateCommand::Put(_)) => {
                        CommandKind::Run(Command::StatePut)
                    }
                    cli::Command::Context(ContextCommand::Validate(a)) => {
                        context_paths = a.paths;
                        CommandKind::Run(Command::ContextValidate)
                    }
                    cli::Command::Context(ContextCommand::Show(a)) => {
                        context_paths = vec![a.path];
                        CommandKind::ContextShow
                    }
                    cli::Command::Context(ContextCommand::Sync(_)) => {
                        CommandKind::Run(Command::ContextSync)
                    }
                    cli::Command::Tool(_) => {
                        return Err(Error::Usage(format!(
                            "`council {}` reads and writes local files only and takes no run \
                             settings",
                            sub.name()
                        )));
                    }
                    cli::Command::Report(_) => CommandKind::Run(Command::Report),
                    cli::Command::Assign(_) => CommandKind::Run(Command::Assign),
                    cli::Command::Mcp(_) => CommandKind::Mcp,
                    cli::Command::Audit(a) => CommandKind::Audit(audit_task(a)),
                    cli::Command::Verify(a) => {
                        verify = VerifyOptions {
                            file: Some(a.file),
                            with: a.with,
                            allow_partial: a.allow_partial,
                        };
                        CommandKind::Run(Command::Verify)
                    }
                };
                (command, inputs, local)
            }
        };
        let in_actions = env.get("GITHUB_ACTIONS") == Some("true");
        let policy_input = non_empty(i.policy);
        let policy_explicit = policy_input.is_some();
        let policy_path = policy_input.unwrap_or_else(|| DEFAULT_POLICY_PATH.to_string());
        if in_actions {
            check_repo_path(&policy_path)?;
        }
        let api_url = env
            .get("GITHUB_API_URL")
            .unwrap_or("https://api.github.com")
            .trim_end_matches('/')
            .to_string();
        let graphql_url = env
            .get("GITHUB_GRAPHQL_URL")
            .map(str::to_string)
            .unwrap_or_else(|| default_graphql_url(&api_url));
        let server_url = env
            .get("GITHUB_SERVER_URL")
            .unwrap_or("https://github.com")
            .trim_end_matches('/')
            .to_string();
        let run = match env.get("GITHUB_RUN_ID") {
            Some(run_id) => RunInfo {
                run_id: run_id.to_string(),
                run_attempt: parse_number(env.get("GITHUB_RUN_ATTEMPT"), "GITHUB_RUN_ATTEMPT")?
                    .unwrap_or(1),
                job: env.get("GITHUB_JOB").unwrap_or("job").to_string(),
            },
            None => RunInfo::local(),
        };
        let workspace = env
            .get("GITHUB_WORKSPACE")
            .map(PathBuf::from)
            .unwrap_or_else(|| cwd.clone());
        let hmac_key = KeySources {
            env,
            cwd: &cwd,
            workspace: &workspace,
            in_actions,
        }
        .resolve(non_empty(i.hmac_key), local.hmac_key_file.clone())?;
        Ok(Settings {
            command,
            verify,
            in_actions,
            dry_run: parse_bool(i.dry_run, "dry-run")?.unwrap_or(false),
            close_on_fail: parse_bool(i.close_on_fail, "close-on-fail")?.unwrap_or(false),
            upload_artifact: parse_bool(i.upload_artifact, "upload-artifact")?.unwrap_or(true),
            policy_path,
            policy_explicit,
            token: token(
                non_empty(i.github_token),
                env,
                &["GH_TOKEN", "GITHUB_TOKEN"],
            ),
            release_token: token(non_empty(i.release_token), env, &["COUNCIL_RELEASE_TOKEN"]),
            hmac_key,
            warnings: exposed_secret_warnings(
                &cli.secrets_on_command_line,
                i.database_url.as_deref(),
            ),
            database_url: non_empty(i.database_url)
                .or_else(|| env.get("COUNCIL_DATABASE_URL").map(str::to_string))
                .map(|u| Secret(u.trim().to_string()))
                .filter(|u| !u.expose().is_empty()),
            retention_days: parse_retention(i.retention_days)?,
            issue: parse_number(non_empty(i.issue).as_deref(), "issue")?,
            pr: parse_number(non_empty(local.pr.clone()).as_deref(), "pr")?,
            registry_issue: parse_number(non_empty(i.registry_issue).as_deref(), "registry-issue")?,
            trusted_authors: split_list(non_empty(i.trusted_authors)),
            state: StateInputs {
                intent: non_empty(i.intent),
                step: non_empty(i.step),
                progress: non_empty(i.progress),
                memory: non_empty(i.memory),
                next_action: non_empty(i.next_action),
                summary: non_empty(i.summary),
                agent: non_empty(i.agent),
                plan: non_empty(i.plan),
                input_request: non_empty(i.input_request),
                metrics: non_empty(i.metrics),
            },
            context: ContextInputs {
                file: non_empty(i.context_file),
                direction: Direction::from_input(i.direction)?,
                paths: context_paths,
            },
            report: non_empty(i.report),
            apply: local.apply || in_actions,
            event: event_source(&local, env)?,
            repo: non_empty(local.repo)
                .or_else(|| env.get("GITHUB_REPOSITORY").map(str::to_string)),
            repository_id: env
                .get("GITHUB_REPOSITORY_ID")
                .and_then(|id| id.trim().parse().ok()),
            run,
            workspace,
            api_url,
            graphql_url,
            server_url: server_url.clone(),
            retry: RetryPolicy::with_base_ms(parse_number(
                env.get("COUNCIL_RETRY_BASE_MS"),
                "COUNCIL_RETRY_BASE_MS",
            )?)
            .with_request_timeout_ms(parse_number(
                env.get("COUNCIL_REQUEST_TIMEOUT_MS"),
                "COUNCIL_REQUEST_TIMEOUT_MS",
            )?)
            .with_budget(RUN_BUDGET),
            runner: env.runner(),
            artifact: RuntimeEnv {
                runtime_token: env.get("ACTIONS_RUNTIME_TOKEN").map(str::to_string),
                results_url: env.get("ACTIONS_RESULTS_URL").map(str::to_string),
                server_url: Some(server_url),
                retention_days_limit: env.get("GITHUB_RETENTION_DAYS").map(str::to_string),
            },
            json: local.json,
            allow_secrets: local.allow_secrets,
        })
    }
}

/// `council audit`'s subcommand, as a task.
fn audit_task(command: cli::AuditCommand) -> AuditTask {
    match command {
        cli::AuditCommand::Import(a) => AuditTask::Import { files: a.files },
        cli::AuditCommand::Sync(a) => AuditTask::Sync {
            ledger_authors: a.ledger_author,
            full: a.full,
        },
        cli::AuditCommand::Query(a) => AuditTask::Query {
            question: a.question,
            filter: audit_filter(a.filter),
            csv: a.csv,
        },
        cli::AuditCommand::Report(a) => AuditTask::Report {
            html: a.html.unwrap_or_default(),
            filter: audit_filter(a.filter),
        },
        cli::AuditCommand::Verify(a) => AuditTask::Verify {
            filter: audit_filter(a.filter),
        },
    }
}

fn audit_filter(args: cli::AuditFilterArgs) -> AuditFilter {
    AuditFilter {
        repo: non_empty(args.repo),
        since: non_empty(args.since),
    }
}

/// A token: the flag or `INPUT_*` value, else the first of `vars` that is set. Tokens
/// never hold whitespace: a trailing newline from a secret store is dropped.
fn token(given: Option<String>, env: &RunnerEnv, vars: &[&str]) -> Option<Secret> {
    given
        .or_else(|| vars.iter().find_map(|v| env.get(v).map(str::to_string)))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .map(Secret)
}

/// Where the HMAC key came from and where files are looked for.
struct KeySources<'a> {
    env: &'a RunnerEnv,
    cwd: &'a Path,
    workspace: &'a Path,
    in_actions: bool,
}

impl KeySources<'_> {
    /// `--hmac-key`/`INPUT_HMAC-KEY` or `--hmac-key-file`, else `COUNCIL_HMAC_KEY` or
    /// `COUNCIL_HMAC_KEY_FILE`: a key and a key file at the same level is a usage error
    /// (which one was meant?); the flags beat the environment.
    fn resolve(&self, key: Option<String>, file: Option<PathBuf>) -> Result<Option<Secret>> {
        let file = file.filter(|f| !f.as_os_str().is_empty());
        match (key, file) {
            (Some(_), Some(_)) => Err(Error::Usage(
                "both `hmac-key` (--hmac-key or INPUT_HMAC-KEY) and --hmac-key-file are set: \
                 give one"
                    .into(),
            )),
            (Some(key), None) => Ok(Some(Secret(key))),
            (None, Some(file)) => self.read(&file, "--hmac-key-file").map(Some),
            (None, None) => match (
                self.env.get("COUNCIL_HMAC_KEY"),
                self.env.get("COUNCIL_HMAC_KEY_FILE"),
            ) {
                (Some(_), Some(_)) => Err(Error::Usage(
                    "both COUNCIL_HMAC_KEY and COUNCIL_HMAC_KEY_FILE are set: unset one".into(),
                )),
                (Some(key), None) => Ok(Some(Secret(key.to_string()))),
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
        Ok(Secret(key))
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
fn exposed_secret_warnings(flags: &[&str], database_url: Option<&str>) -> Vec<String> {
    flags
        .iter()
        // A database URL without a password holds no secret.
        .filter(|flag| {
            **flag != "database-url" || database_url.is_some_and(council_store::url::holds_password)
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

fn non_empty(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.trim().is_empty())
}

/// `true`/`false` in any letter case, as `@actions/core`'s `getBooleanInput` reads them.
fn parse_bool(v: Option<String>, input: &str) -> Result<Option<bool>> {
    match non_empty(v) {
        None => Ok(None),
        Some(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(Error::Usage(format!(
                "input `{input}` (--{input}): `{s}` is not a boolean; use true or false"
            ))),
        },
    }
}

fn parse_number(v: Option<&str>, input: &str) -> Result<Option<u64>> {
    match v.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => s
            .trim_start_matches('#')
            .parse::<u64>()
            .map(Some)
            .map_err(|_| Error::Usage(format!("`{input}`: `{s}` is not a whole number"))),
    }
}

fn parse_retention(v: Option<String>) -> Result<Option<u32>> {
    match parse_number(non_empty(v).as_deref(), "retention-days")? {
        None | Some(0) => Ok(None),
        Some(days) if days <= 400 => Ok(Some(days as u32)),
        Some(days) => Err(Error::Usage(format!(
            "input `retention-days`: {days} days is more than any repository allows (1-90 by default, 400 at most)"
        ))),
    }
}

/// Comma- or newline-separated logins.
fn split_list(v: Option<String>) -> Vec<String> {
    v.map(|s| {
        s.split([',', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

/// GHES serves REST at `/api/v3` and GraphQL at `/api/graphql`.
fn default_graphql_url(api_url: &str) -> String {
    match api_url.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{api_url}/graphql"),
    }
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

fn event_source(local: &crate::cli::LocalFlags, env: &RunnerEnv) -> Result<Option<EventSource>> {
    let path = local
        .event
        .clone()
        .or_else(|| env.get("GITHUB_EVENT_PATH").map(PathBuf::from));
    let typed = non_empty(local.event_name.clone());
    // GitHub sets only real names; a typed one may be a typo, caught before it reads
    // as "nothing to do" or a stage that does not fit.
    if let Some(why) = typed
        .as_deref()
        .and_then(council_protocol::event::unknown_event_name)
    {
        return Err(Error::Usage(format!("--event-name: {why}")));
    }
    let name = typed.or_else(|| env.get("GITHUB_EVENT_NAME").map(str::to_string));
    match (name, path) {
        (Some(name), Some(path)) => Ok(Some(EventSource { name, path })),
        (None, None) => Ok(None),
        (None, Some(_)) => Err(Error::Usage(
            "an event file was given without its name: add --event-name (e.g. pull_request) or set GITHUB_EVENT_NAME".into(),
        )),
        (Some(name), None) => Err(Error::Usage(format!(
            "event `{name}` was named but no payload was given: add --event FILE or set GITHUB_EVENT_PATH"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn resolve(args: &[&str], env: &[(&str, &str)]) -> Result<Settings> {
        let cli = Cli::parse_from_iter(args).unwrap();
        let env = RunnerEnv::from_pairs(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Settings::resolve(cli, &env, PathBuf::from("/work"))
    }

    #[test]
    fn defaults_outside_actions() {
        let s = resolve(&["council"], &[]).unwrap();
        assert_eq!(s.command, CommandKind::Auto);
        assert!(!s.in_actions && !s.dry_run && !s.close_on_fail && s.upload_artifact);
        assert_eq!(s.policy_path, ".github/council.yml");
        assert_eq!(s.api_url, "https://api.github.com");
        assert_eq!(s.graphql_url, "https://api.github.com/graphql");
        assert_eq!(s.run, RunInfo::local());
        assert_eq!(s.workspace, PathBuf::from("/work"));
    }

    #[test]
    fn ghes_urls() {
        let s = resolve(
            &["council"],
            &[("GITHUB_API_URL", "https://ghe.corp/api/v3/")],
        )
        .unwrap();
        assert_eq!(s.api_url, "https://ghe.corp/api/v3");
        assert_eq!(s.graphql_url, "https://ghe.corp/api/graphql");
    }

    #[test]
    fn the_command_input_picks_the_subcommand() {
        let s = resolve(&["council", "--command", "state-get"], &[]).unwrap();
        assert_eq!(s.command, CommandKind::Run(Command::StateGet));
        let s = resolve(&["council", "context", "show", "A.md", "--json"], &[]).unwrap();
        assert_eq!(s.command, CommandKind::ContextShow);
        assert_eq!(s.context.paths, vec![PathBuf::from("A.md")]);
        let err = resolve(&["council", "--command", "merge-everything"], &[]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn the_command_input_and_a_subcommand_together_are_an_error() {
        // `council guard --command review` is refused by the parser; the input can still
        // arrive through INPUT_COMMAND.
        let mut cli = Cli::parse_from_iter(["council", "guard"]).unwrap();
        cli.inputs.command = Some("review".into());
        let err =
            Settings::resolve(cli, &RunnerEnv::default(), PathBuf::from("/work")).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("given twice"), "{err}");
        // An empty input is unset.
        let mut cli = Cli::parse_from_iter(["council", "guard"]).unwrap();
        cli.inputs.command = Some(" ".into());
        assert!(Settings::resolve(cli, &RunnerEnv::default(), PathBuf::from("/work")).is_ok());
    }

    #[test]
    fn booleans_are_strict() {
        assert!(
            resolve(&["council", "--dry-run=TRUE"], &[])
                .unwrap()
                .dry_run
        );
        let err = resolve(&["council", "--dry-run=yes"], &[]).unwrap_err();
        assert!(err.to_string().contains("input `dry-run`"), "{err}");
        assert!(
            !resolve(&["council", "--upload-artifact=false"], &[])
                .unwrap()
                .upload_artifact
        );
    }

    #[test]
    fn numbers_and_lists() {
        let s = resolve(
            &[
                "council",
                "--issue",
                "#12",
                "--trusted-authors",
                "a, b\nrenovate[bot]",
                "--retention-days",
                "7",
            ],
            &[],
        )
        .unwrap();
        assert_eq!(s.issue, Some(12));
        assert_eq!(s.trusted_authors, vec!["a", "b", "renovate[bot]"]);
        assert_eq!(s.retention_days, Some(7));
        assert!(resolve(&["council", "--issue", "twelve"], &[]).is_err());
        assert!(resolve(&["council", "--retention-days", "9999"], &[]).is_err());
    }

    #[test]
    fn policy_paths_must_stay_in_the_repository_in_actions() {
        for bad in ["/etc/passwd", "../x.yml", ".github/../../x", "a\\b"] {
            let err =
                resolve(&["council", "--policy", bad], &[("GITHUB_ACTIONS", "true")]).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}");
        }
    }

    #[test]
    fn runner_variables() {
        let s = resolve(
            &["council"],
            &[
                ("GITHUB_ACTIONS", "true"),
                ("GITHUB_RUN_ID", "99"),
                ("GITHUB_RUN_ATTEMPT", "3"),
                ("GITHUB_JOB", "gate"),
                ("GITHUB_EVENT_NAME", "pull_request"),
                ("GITHUB_EVENT_PATH", "/github/workflow/event.json"),
                ("GITHUB_WORKSPACE", "/github/workspace"),
                ("GITHUB_RUN_ATTEMPT", "3"),
            ],
        )
        .unwrap();
        assert!(s.in_actions);
        assert_eq!(
            s.run.entry_id("guard", "check:x"),
            "99/3/gate/guard/check:x"
        );
        assert_eq!(s.event.unwrap().name, "pull_request");
        assert_eq!(s.workspace, PathBuf::from("/github/workspace"));
    }

    #[test]
    fn direction_and_apply() {
        let s = resolve(&["council", "--direction", "to-issue"], &[]).unwrap();
        assert_eq!(s.context.direction, Direction::ToIssue);
        assert_eq!(
            resolve(&["council"], &[]).unwrap().context.direction,
            Direction::ToFile
        );
        let err = resolve(&["council", "--direction", "sideways"], &[]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(!resolve(&["council", "assign"], &[]).unwrap().apply);
        assert!(
            resolve(&["council", "assign", "--apply"], &[])
                .unwrap()
                .apply
        );
        assert!(
            resolve(&["council", "assign"], &[("GITHUB_ACTIONS", "true")])
                .unwrap()
                .apply
        );
    }

    #[test]
    fn a_mistyped_event_name_is_a_usage_error_naming_the_real_one() {
        let args = [
            "council",
            "--event",
            "e.json",
            "--event-name",
            "pull-request",
        ];
        let err = resolve(&args, &[]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert_eq!(
            err.to_string(),
            "--event-name: `pull-request` is not a GitHub event name; did you mean `pull_request`?"
        );
        // The runner's own name is GitHub's: never second-guessed.
        let env = [
            ("GITHUB_EVENT_NAME", "made_up_event"),
            ("GITHUB_EVENT_PATH", "/e.json"),
        ];
        assert_eq!(
            resolve(&["council"], &env).unwrap().event.unwrap().name,
            "made_up_event"
        );
    }

    #[test]
    fn half_an_event_is_a_usage_error() {
        assert!(resolve(&["council", "--event", "e.json"], &[]).is_err());
        assert!(resolve(&["council", "--event-name", "push"], &[]).is_err());
    }

    #[test]
    fn secrets_do_not_show_in_debug() {
        let s = resolve(
            &["council", "--github-token", "ghp_abc", "--hmac-key", "k3y"],
            &[],
        )
        .unwrap();
        let debug = format!("{s:?}");
        assert!(!debug.contains("ghp_abc") && !debug.contains("k3y"));
        let env = RunnerEnv::from_pairs([("GH_TOKEN".to_string(), "ghp_env".to_string())]);
        assert!(!format!("{env:?}").contains("ghp_env"));
    }

    #[test]
    fn tokens_come_from_the_flag_else_gh_token_else_github_token() {
        let token = |args: &[&str], env: &[(&str, &str)]| {
            resolve(args, env)
                .unwrap()
                .token
                .map(|t| t.expose().to_string())
        };
        let both = [("GH_TOKEN", "gh"), ("GITHUB_TOKEN", "github")];
        assert_eq!(token(&["council"], &both).as_deref(), Some("gh"));
        assert_eq!(
            token(
                &["council"],
                &[("GH_TOKEN", ""), ("GITHUB_TOKEN", "github\n")]
            )
            .as_deref(),
            Some("github"),
            "empty counts as unset; a trailing newline is no part of a token"
        );
        assert_eq!(
            token(
                &["council", "state", "get", "--github-token", "flag"],
                &both
            )
            .as_deref(),
            Some("flag")
        );
        assert_eq!(token(&["council"], &[]), None);
        let s = resolve(&["council"], &both).unwrap();
        assert_eq!(
            s.release_token, None,
            "never the workflow token: it must not merge"
        );
        let s = resolve(&["council"], &[("COUNCIL_RELEASE_TOKEN", "rel")]).unwrap();
        assert_eq!(s.release_token.unwrap().expose(), "rel");
    }

    #[test]
    fn secrets_given_as_arguments_are_warned_about() {
        let s = resolve(&["council", "guard", "--github-token", "t"], &[]).unwrap();
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("GH_TOKEN") && !s.warnings[0].contains(" t "));
        assert!(
            resolve(&["council", "guard"], &[("GH_TOKEN", "t")])
                .unwrap()
                .warnings
                .is_empty()
        );
    }

    fn key_file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        path
    }

    #[test]
    fn the_hmac_key_comes_from_the_flag_a_file_or_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = key_file(dir.path(), "key", "from-file\n", 0o600);
        let file = file.to_str().unwrap();
        let key = |args: &[&str], env: &[(&str, &str)]| {
            resolve(args, env).map(|s| s.hmac_key.map(|k| k.expose().to_string()))
        };
        let env = [("COUNCIL_HMAC_KEY", "from-env")];
        assert_eq!(
            key(&["council"], &env).unwrap().as_deref(),
            Some("from-env")
        );
        assert_eq!(
            key(&["council", "verify", "x", "--hmac-key-file", file], &env)
                .unwrap()
                .as_deref(),
            Some("from-file"),
            "a flag beats the environment; one trailing newline is not part of the key"
        );
        assert_eq!(
            key(&["council", "verify", "x", "--hmac-key", "flag"], &env)
                .unwrap()
                .as_deref(),
            Some("flag")
        );
        assert_eq!(
            key(&["council"], &[("COUNCIL_HMAC_KEY_FILE", file)])
                .unwrap()
                .as_deref(),
            Some("from-file")
        );
        let both = [("COUNCIL_HMAC_KEY", "k"), ("COUNCIL_HMAC_KEY_FILE", file)];
        assert_eq!(key(&["council"], &both).unwrap_err().exit_code(), 2);
        assert_eq!(key(&["council"], &[]).unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_must_be_private_regular_and_not_empty() {
        let dir = tempfile::tempdir().unwrap();
        let err = |path: &Path, env: &[(&str, &str)]| {
            let args = [
                "council",
                "verify",
                "x",
                "--hmac-key-file",
                path.to_str().unwrap(),
            ];
            resolve(&args, env).unwrap_err()
        };
        let open = key_file(dir.path(), "open", "k", 0o644);
        let e = err(&open, &[]);
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("chmod 600"), "{e}");
        assert!(!e.to_string().contains(": k"), "{e}");
        // Group-readable is allowed (a team's group), as are links to a private file.
        let group = key_file(dir.path(), "group", "k", 0o640);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&group, &link).unwrap();
        let args = [
            "council",
            "verify",
            "x",
            "--hmac-key-file",
            link.to_str().unwrap(),
        ];
        assert_eq!(resolve(&args, &[]).unwrap().hmac_key.unwrap().expose(), "k");
        let empty = key_file(dir.path(), "empty", "\n", 0o600);
        assert!(err(&empty, &[]).to_string().contains("empty"));
        assert!(
            err(dir.path(), &[])
                .to_string()
                .contains("not a regular file")
        );
        assert!(
            err(&dir.path().join("missing"), &[])
                .to_string()
                .contains("cannot be read")
        );
        let big = key_file(dir.path(), "big", &"k".repeat(70_000), 0o600);
        assert!(err(&big, &[]).to_string().contains("larger than"));
        // In Actions, not from the workspace (a checkout may plant it), even via a link.
        let ws = dir.path().to_str().unwrap();
        let private = key_file(dir.path(), "private", "k", 0o600);
        let actions = [("GITHUB_ACTIONS", "true"), ("GITHUB_WORKSPACE", ws)];
        assert!(err(&private, &actions).to_string().contains("workspace"));
        let outside = tempfile::tempdir().unwrap();
        let planted = outside.path().join("planted");
        std::os::unix::fs::symlink(&private, &planted).unwrap();
        assert!(err(&planted, &actions).to_string().contains("workspace"));
    }
}
