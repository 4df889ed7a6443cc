//! One input surface for the action and the CLI.
//!
//! - `council` with no subcommand is the action: every action input is a flag of the same
//!   name that also reads `INPUT_<NAME>` exactly as the runner sets it (hyphens kept), and
//!   `command` picks what runs (`auto` by default).
//! - `council <subcommand>` takes only the flags that subcommand uses (shared groups are
//!   flattened into each), still reading `INPUT_<NAME>`. Flags before the subcommand, and
//!   `command` together with a subcommand, are usage errors.
//!
//! Values stay raw strings here; `settings` validates them with messages that name the
//! input. Tokens and the HMAC key also come from environment variables or a file, which
//! `settings` reads: a value on the command line is visible to every user in `ps`.

use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

// Said under the help of each command that takes a token or a key: where secrets come from.
macro_rules! token_help {
    () => {
        "Secrets: the GitHub token comes from GH_TOKEN or GITHUB_TOKEN (--github-token overrides them)."
    };
}
macro_rules! release_help {
    () => {
        " The release token comes from COUNCIL_RELEASE_TOKEN (--release-token overrides it)."
    };
}
macro_rules! key_help {
    () => {
        " The HMAC key comes from COUNCIL_HMAC_KEY, or from a file: --hmac-key-file or \
         COUNCIL_HMAC_KEY_FILE (--hmac-key overrides them)."
    };
}
macro_rules! store_help {
    () => {
        "The store: --database-url, else COUNCIL_DATABASE_URL, else sqlite://council-audit.db \
         in the working directory (sqlite://PATH or postgres://USER@HOST/DATABASE; a password \
         belongs in COUNCIL_DATABASE_URL, not on the command line)."
    };
}
macro_rules! ps_help {
    () => {
        " A flag's value is visible to other users in `ps`: prefer the environment"
    };
}
macro_rules! token_only {
    () => {
        concat!(token_help!(), ps_help!(), ".")
    };
}
macro_rules! pr_secrets {
    () => {
        concat!(token_help!(), key_help!(), ps_help!(), " or the key file.")
    };
}
macro_rules! all_secrets {
    () => {
        concat!(
            token_help!(),
            release_help!(),
            key_help!(),
            ps_help!(),
            " or the key file."
        )
    };
}
macro_rules! key_only {
    () => {
        concat!("Secrets:", key_help!(), ps_help!(), " or the key file.")
    };
}

// Each subcommand's help ends with examples a user can copy (the repository and numbers
// are placeholders), then where its secrets come from.
const RUN_HELP: &str = concat!(
    "Examples:\n  council run --event event.json --event-name pull_request --dry-run\n  \
     council run --event event.json --event-name issue_comment\n\n",
    all_secrets!()
);
const GUARD_HELP: &str = concat!(
    "Examples:\n  council guard --event examples/pull_request.opened.json --dry-run\n  \
     council guard --repo octo-org/app --pr 42 --dry-run\n  \
     council guard --repo octo-org/app --pr 42 --policy .github/council.yml --json\n\n",
    pr_secrets!()
);
const REVIEW_HELP: &str = concat!(
    "Examples:\n  council review --repo octo-org/app --pr 42 --dry-run\n  \
     council review --event examples/pull_request.opened.json --json\n\n",
    pr_secrets!()
);
const RELEASE_HELP: &str = concat!(
    "Examples:\n  council release --repo octo-org/app --pr 42 --dry-run\n  \
     COUNCIL_RELEASE_TOKEN=… council release --repo octo-org/app --pr 42\n\n",
    all_secrets!()
);
const STATE_GET_HELP: &str = concat!(
    "Examples:\n  council state get --repo octo-org/app --issue 7\n  \
     council state get --repo octo-org/app --issue 7 --json\n\n",
    token_only!()
);
const STATE_PUT_HELP: &str = concat!(
    "Examples:\n  council state put --repo octo-org/app --issue 7 --intent add_login --step \
     testing --progress auto --memory '{\"files\": [\"auth.rs\"]}' --dry-run\n  \
     council state put --repo octo-org/app --issue 7 --intent add_login --step review \
     --progress 90 --memory @memory.json --input-request \"Merge now?\"\n\n",
    token_only!()
);
const VERIFY_HELP: &str = concat!(
    "Examples:\n  council verify out/audit/PR-7.json\n  \
     council verify out/audit/PR-7.json --with old/PR-7.json --hmac-key-file ~/.council-key\n\n",
    key_only!()
);
const CONTEXT_VALIDATE_HELP: &str = "Examples:\n  council context validate\n  council \
     context validate ASSISTANT_CONTEXT.md --json";
const CONTEXT_SHOW_HELP: &str = "Examples:\n  council context show ASSISTANT_CONTEXT.md\n  \
     council context show ASSISTANT_CONTEXT.yaml --json";
const CONTEXT_SYNC_HELP: &str = concat!(
    "Examples:\n  council context sync --repo octo-org/app --issue 7 --file \
     ASSISTANT_CONTEXT.md\n  council context sync --repo octo-org/app --issue 7 --file \
     ASSISTANT_CONTEXT.md --direction to-issue --dry-run\n\n",
    token_only!()
);
const REPORT_HELP: &str = concat!(
    "Examples:\n  council report --repo octo-org/app --registry-issue 1 --report \
     @examples/context-report.json --dry-run\n  council report --repo octo-org/app \
     --registry-issue 1 --report @report.json\n\n",
    token_only!()
);
const ASSIGN_HELP: &str = concat!(
    "Examples:\n  council assign --repo octo-org/app --issue 7 --registry-issue 1\n  \
     council assign --repo octo-org/app --issue 7 --registry-issue 1 --apply\n\n",
    token_only!()
);
const MCP_HELP: &str = concat!(
    "Examples:\n  council mcp --repo octo-org/app --registry-issue 1\n  \
     council mcp --read-only\n  \
     council mcp --tools check_branch,get_agent_state,put_agent_state --policy .github/council.yml\n\n\
     Serves the Model Context Protocol over stdio (stdout carries protocol messages only; logs \
     go to stderr): register it with an agent (Claude Code .mcp.json, VS Code \
     .vscode/mcp.json, Cursor .cursor/mcp.json). Tools: report_context, check_branch, \
     get_agent_state, put_agent_state, assign, verify_ledger, pr_status.\n\n",
    token_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
const AUDIT_IMPORT_HELP: &str = concat!(
    "Examples:\n  council audit import out/audit/PR-7.json\n  \
     council audit import artifacts/*.json --database-url postgres://council@db.internal/audit\n\n",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
const AUDIT_SYNC_HELP: &str = concat!(
    "Examples:\n  council audit sync --repo octo-org/app\n  \
     council audit sync --repo octo-org/app --registry-issue 1 --database-url sqlite://audit.db\n\n\
     Lists the repository's pull requests updated since the last sync (100 per request) and \
     reads each changed one's Context Object comment (written by github-actions[bot], the \
     token's own login, or a --ledger-author); when none verifies, the newest audit-PR-<n> \
     artifact of the repository's own runs. Resumes where a stopped sync left off; --full \
     reads every pull request again.\n\n",
    token_help!(),
    " ",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
const AUDIT_QUERY_HELP: &str = concat!(
    "Examples:\n  council audit query\n  council audit query agents --json\n  \
     council audit query merge-time --csv --repo octo-org/app --since 2026-01-01\n\n\
     Questions: agents (guard pass rate per agent and the check failed most, review findings, \
     merges), findings (checks by gate), merge-time (open to merge), rollbacks, failures \
     (objects whose verification failed). Without a question, all of them. The agent is the \
     pull request's author.\n\n",
    store_help!()
);
const AUDIT_REPORT_HELP: &str = concat!(
    "Examples:\n  council audit report --html site\n  \
     council audit report --html site --repo octo-org/app --since 2026-01-01\n\n\
     Writes DIR/index.html: one self-contained page (no network) with pass rates per agent \
     over time, gate failures by rule, time to merge, each pull request's timeline and a \
     verification badge per pull request.\n\n",
    store_help!()
);
const AUDIT_VERIFY_HELP: &str = concat!(
    "Examples:\n  council audit verify\n  council audit verify --repo octo-org/app \
     --hmac-key-file ~/.council-key --json\n\n\
     Checks every stored chain again from the store alone (hashes, links, signatures with a \
     key): finds an entry changed or removed in the database itself.\n\n",
    store_help!(),
    key_help!(),
    ps_help!(),
    " or the key file."
);
const INIT_HELP: &str = "Examples:\n  council init\n  council init --from-branches \
     --dry-run\n  council init --two-phase --action octo-org/agent-council@v0 --force";
const POLICY_CHECK_HELP: &str = "Examples:\n  council policy check\n  council policy check \
     --branch \"$(git branch --show-current)\"\n  council policy check .github/council.yml \
     --branch feature/login --branch fix-typo --target main --json";
const COMPLETIONS_HELP: &str = "Examples:\n  council completions bash > \
     ~/.local/share/bash-completion/completions/council\n  council completions zsh > \
     ~/.zfunc/_council\n  council completions fish > ~/.config/fish/completions/council.fish";
const MAN_HELP: &str = "Examples:\n  council man man && man ./man/council.1\n  sudo council \
     man /usr/local/share/man/man1";

#[derive(Debug, Parser)]
#[command(
    name = "council",
    version,
    about = "Guard, review and release gates for pull requests shared by agents and humans",
    long_about = None,
    after_help = concat!(
        "Examples:\n  council init --from-branches\n  council policy check --branch \
         \"$(git branch --show-current)\"\n  council guard --event \
         examples/pull_request.opened.json --dry-run\n\n",
        "With no subcommand council runs as the GitHub Action: every input is read from \
         INPUT_<NAME> or its flag, and --command (default auto) picks what runs. A subcommand \
         takes only its own flags: council <COMMAND> --help.\n\n",
        token_help!(),
        release_help!(),
        key_help!(),
        ps_help!(),
        " or the key file.\n\nExit codes: 0 passed or nothing to do, 1 a gate failed, 2 bad usage or input, \
         3 the GitHub API failed."
    ),
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub inputs: Inputs,

    #[command(flatten)]
    pub local: LocalFlags,

    /// Secret flags given on the command line (visible in `ps`), by long name: filled by
    /// [`Cli::parse_args`], which sees where each value came from.
    #[arg(skip)]
    pub secrets_on_command_line: Vec<&'static str>,
}

impl Cli {
    /// Parses the process arguments (clap prints help and usage errors itself, exit 2;
    /// a flag before its subcommand is told where it goes).
    pub fn parse_args() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        Cli::parse_from_iter(&args).unwrap_or_else(|e| crate::flag_order::exit(&args, e))
    }

    /// [`Cli::parse_args`] over given arguments (tests).
    pub fn parse_from_iter<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Cli::command().try_get_matches_from(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        cli.secrets_on_command_line = secrets_on_command_line(&matches);
        Ok(cli)
    }
}

/// The flags that carry a secret, by clap id and long name.
const SECRET_FLAGS: [(&str, &str); 4] = [
    ("github_token", "github-token"),
    ("release_token", "release-token"),
    ("hmac_key", "hmac-key"),
    // Only a URL holding a password is a secret: `settings` tells them apart.
    ("database_url", "database-url"),
];

fn secrets_on_command_line(matches: &ArgMatches) -> Vec<&'static str> {
    let mut m = matches;
    while let Some((_, sub)) = m.subcommand() {
        m = sub;
    }
    SECRET_FLAGS
        .iter()
        .filter(|(id, _)| m.ids().any(|i| i.as_str() == *id))
        .filter(|(id, _)| m.value_source(id) == Some(ValueSource::CommandLine))
        .map(|(_, long)| *long)
        .collect()
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Run the stages that fit the event (`command: auto`).
    #[command(after_help = RUN_HELP)]
    Run(RunArgs),
    /// Branch-name and target-branch gates on a pull request.
    #[command(after_help = GUARD_HELP)]
    Guard(GuardArgs),
    /// Review the pull request's diff (behind the guard).
    #[command(after_help = REVIEW_HELP)]
    Review(ReviewArgs),
    /// Merge when the pipeline is green.
    #[command(after_help = RELEASE_HELP)]
    Release(ReleaseArgs),
    /// Read or write `<agent-state>` blocks on an issue.
    #[command(subcommand)]
    State(StateCommand),
    /// Check the hash chain and signatures of an audit file.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// ASSISTANT_CONTEXT files.
    #[command(subcommand)]
    Context(ContextCommand),
    /// Post an agent's context report on the registry issue.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Rank agents for an issue from their context reports.
    #[command(after_help = ASSIGN_HELP)]
    Assign(AssignArgs),
    /// Serve council's tools to agents over the Model Context Protocol (stdio).
    #[command(after_help = MCP_HELP)]
    Mcp(McpArgs),
    /// Keep every pull request's ledger in an audit store (SQLite or PostgreSQL): import,
    /// sync, query, report, verify.
    #[command(subcommand)]
    Audit(AuditCommand),
    #[command(flatten)]
    Tool(ToolCommand),
}

/// `council audit …`: the audit store.
// Parsed once per process: the size of a variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Subcommand)]
pub enum AuditCommand {
    /// Store Context Object files (downloaded audit artifacts), verified; exit 1 when one
    /// is refused (tampered, or conflicting with the stored chain).
    #[command(after_help = AUDIT_IMPORT_HELP)]
    Import(AuditImportArgs),
    /// Store every pull request's Context Object from GitHub, and the registry's context
    /// reports; incremental and resumable.
    #[command(after_help = AUDIT_SYNC_HELP)]
    Sync(AuditSyncArgs),
    /// Answer the common questions (`--json`, `--csv`).
    #[command(after_help = AUDIT_QUERY_HELP)]
    Query(AuditQueryArgs),
    /// Write a self-contained HTML report of the store.
    #[command(after_help = AUDIT_REPORT_HELP)]
    Report(AuditReportArgs),
    /// Check every stored chain again; exit 1 when one does not verify.
    #[command(after_help = AUDIT_VERIFY_HELP)]
    Verify(AuditVerifyArgs),
}

/// `--database-url`: the audit store.
#[derive(Debug, Clone, Default, Args)]
pub struct StoreArgs {
    /// The audit store: sqlite://PATH or postgres://… (default: $COUNCIL_DATABASE_URL, else
    /// sqlite://council-audit.db)
    #[arg(
        long,
        env = "INPUT_DATABASE-URL",
        hide_env = true,
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database_url: Option<String>,
}

/// `--database-url` of a stage run: where its Context Object also goes.
#[derive(Debug, Clone, Default, Args)]
pub struct RunStoreArgs {
    /// Also write the Context Object to this audit store once the ledger comment holds it
    /// (default: $COUNCIL_DATABASE_URL, else none)
    #[arg(
        long,
        env = "INPUT_DATABASE-URL",
        hide_env = true,
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database_url: Option<String>,
}

/// `--repo`, `--since`: which pull requests a question looks at.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditFilterArgs {
    /// Only this repository (owner/name)
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// Only entries from this day or time on (YYYY-MM-DD or RFC 3339), and the pull
    /// requests that have one
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
}

/// `council audit import`.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditImportArgs {
    /// Context Object files (out/audit/PR-<n>.json, downloaded artifacts)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council audit sync`.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditSyncArgs {
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    /// Also store the context reports of this registry issue
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N")]
    pub registry_issue: Option<String>,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Also take ledger comments written by this login (repeatable; default:
    /// github-actions[bot] and the token's own login)
    #[arg(long, value_name = "LOGIN")]
    pub ledger_author: Vec<String>,
    /// Read every pull request again, not only those updated since the last sync
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council audit query`.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditQueryArgs {
    /// agents, findings, merge-time, rollbacks or failures (default: all)
    #[arg(value_name = "QUESTION")]
    pub question: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub filter: AuditFilterArgs,
    #[command(flatten)]
    pub json: JsonArgs,
    /// Print CSV (several questions: one table after another, each after a `# name` line)
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
}

/// `council audit report`.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditReportArgs {
    /// The folder to write index.html into (created when missing)
    #[arg(long, value_name = "DIR", required = true)]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub filter: AuditFilterArgs,
}

/// `council audit verify`.
#[derive(Debug, Clone, Default, Args)]
pub struct AuditVerifyArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub filter: AuditFilterArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// Commands that only read and write local files: no event, no token, no API.
#[derive(Debug, Clone, Subcommand)]
pub enum ToolCommand {
    /// Write a starter .github/council.yml and the workflows a repository needs.
    #[command(after_help = INIT_HELP)]
    Init(InitArgs),
    /// Check a policy file, and how branch names fare against it.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Write man pages (council.1, council-guard.1, …) into a directory.
    #[command(after_help = MAN_HELP)]
    Man(ManArgs),
}

#[derive(Debug, Clone, Subcommand)]
pub enum PolicyCommand {
    /// Lint a policy file without an event; with --branch, show each name's verdict per
    /// target. Exit 2 when the policy is invalid, 1 when a --branch may target nothing.
    #[command(after_help = POLICY_CHECK_HELP)]
    Check(PolicyCheckArgs),
}

/// `council init`.
#[derive(Debug, Clone, Default, Args)]
pub struct InitArgs {
    /// The repository's root
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Replace files that exist
    #[arg(long)]
    pub force: bool,
    /// Also write the fork-safe two-phase pair (council-evaluate.yml, council-apply.yml)
    #[arg(long)]
    pub two_phase: bool,
    /// Propose branch rules that the repository's existing branches (local and
    /// remote-tracking, read with git) would pass
    #[arg(long)]
    pub from_branches: bool,
    /// The action the workflows use (default: this build's, else OWNER/agent-council@v0)
    #[arg(long, value_name = "OWNER/REPO@REF")]
    pub action: Option<String>,
    /// Print what would be written; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// `council policy check`.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicyCheckArgs {
    /// The policy file (default: .github/council.yml, else the built-in default policy)
    pub path: Option<PathBuf>,
    /// A branch name to try against every target (repeatable)
    #[arg(long, value_name = "NAME")]
    pub branch: Vec<String>,
    /// A base branch to try the names against (repeatable; default: the rules' targets)
    #[arg(long, value_name = "BASE")]
    pub target: Vec<String>,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `council man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Where to write the pages (created if missing)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

// Parsed once per process: the size of a variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Subcommand)]
pub enum StateCommand {
    /// The latest trusted `<agent-state>` of an issue.
    #[command(after_help = STATE_GET_HELP)]
    Get(StateGetArgs),
    /// Post a new `<agent-state>` comment.
    #[command(after_help = STATE_PUT_HELP)]
    Put(StatePutArgs),
}

// Parsed once per process: the size of a variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Subcommand)]
pub enum ContextCommand {
    /// Check ASSISTANT_CONTEXT files (default: every ASSISTANT_CONTEXT.md/.yaml in the
    /// repository); exit 1 naming file, line, column and field when one is invalid.
    #[command(after_help = CONTEXT_VALIDATE_HELP)]
    Validate(ContextValidateArgs),
    /// One file's fields, unknown keys and body (`--json` for machines).
    #[command(after_help = CONTEXT_SHOW_HELP)]
    Show(ContextShowArgs),
    /// Map an issue's latest `<agent-state>` onto the file (`--direction to-file`, the
    /// default) or post the file as an `<agent-state>` (`to-issue`).
    #[command(after_help = CONTEXT_SYNC_HELP)]
    Sync(ContextSyncArgs),
}

/// The action's inputs (see action.yml); a test keeps the two lists equal. Top level only:
/// `council` with no subcommand is the action.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Action inputs (each also read from INPUT_<NAME>)")]
pub struct Inputs {
    /// auto, guard, review, release, state-get, state-put, context-validate, context-sync, report, assign, verify
    #[arg(long, env = "INPUT_COMMAND", value_name = "NAME")]
    pub command: Option<String>,
    /// Token for everything but merging (default: $GH_TOKEN, else $GITHUB_TOKEN)
    #[arg(
        long,
        env = "INPUT_GITHUB-TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub github_token: Option<String>,
    /// The only token used to merge (default: $COUNCIL_RELEASE_TOKEN)
    #[arg(
        long,
        env = "INPUT_RELEASE-TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub release_token: Option<String>,
    /// Policy path (read at the base branch in Actions; a local file on the CLI)
    #[arg(long, env = "INPUT_POLICY", value_name = "PATH")]
    pub policy: Option<String>,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, env = "INPUT_CLOSE-ON-FAIL", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub close_on_fail: Option<String>,
    /// Decide and write the audit file; make no write call to the API
    #[arg(long, env = "INPUT_DRY-RUN", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub dry_run: Option<String>,
    /// Key that signs timeline entries (HMAC-SHA256; default: $COUNCIL_HMAC_KEY)
    #[arg(
        long,
        env = "INPUT_HMAC-KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub hmac_key: Option<String>,
    /// Upload the audit file as an artifact
    #[arg(long, env = "INPUT_UPLOAD-ARTIFACT", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub upload_artifact: Option<String>,
    /// Artifact retention in days
    #[arg(long, env = "INPUT_RETENTION-DAYS", value_name = "DAYS")]
    pub retention_days: Option<String>,
    /// Issue number for state / assign commands
    #[arg(long, env = "INPUT_ISSUE", value_name = "N")]
    pub issue: Option<String>,
    /// state-put: what the agent is trying to do
    #[arg(long, env = "INPUT_INTENT")]
    pub intent: Option<String>,
    /// state-put: the current step (a lower-case token)
    #[arg(long, env = "INPUT_STEP")]
    pub step: Option<String>,
    /// state-put: 0-100, or `auto` (from the issue's task list)
    #[arg(long, env = "INPUT_PROGRESS")]
    pub progress: Option<String>,
    /// state-put: a JSON value, inline or `@path`
    #[arg(long, env = "INPUT_MEMORY")]
    pub memory: Option<String>,
    /// state-put: the suggested next action
    #[arg(long, env = "INPUT_NEXT-ACTION")]
    pub next_action: Option<String>,
    /// state-put: the human summary shown above the block
    #[arg(long, env = "INPUT_SUMMARY")]
    pub summary: Option<String>,
    /// state-put: the writing agent's name (`<agent>`)
    #[arg(long, env = "INPUT_AGENT")]
    pub agent: Option<String>,
    /// state-put: `<plan>` as JSON [{"status": "done", "text": "…"}], inline or `@path`
    #[arg(long, env = "INPUT_PLAN")]
    pub plan: Option<String>,
    /// state-put: `<input_request>`: a question for the human, or JSON {"status", "question"}
    #[arg(long, env = "INPUT_INPUT-REQUEST")]
    pub input_request: Option<String>,
    /// state-put: `<metrics>` as JSON {"tool_calls", "errors", "cost_estimate", "generated_at"}
    #[arg(long, env = "INPUT_METRICS")]
    pub metrics: Option<String>,
    /// context-sync: the ASSISTANT_CONTEXT file, relative to the workspace
    #[arg(
        long,
        env = "INPUT_CONTEXT-FILE",
        visible_alias = "file",
        value_name = "PATH"
    )]
    pub context_file: Option<String>,
    /// context-sync: `to-file` (default) or `to-issue`
    #[arg(long, env = "INPUT_DIRECTION")]
    pub direction: Option<String>,
    /// report: the agent's context report, JSON inline or `@path`
    #[arg(long, env = "INPUT_REPORT", value_name = "JSON")]
    pub report: Option<String>,
    /// Extra logins whose blocks are trusted (comma or newline separated)
    #[arg(long, env = "INPUT_TRUSTED-AUTHORS", value_name = "LOGINS")]
    pub trusted_authors: Option<String>,
    /// Issue that holds agents' context reports
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", value_name = "N")]
    pub registry_issue: Option<String>,
    /// Also write each run's Context Object to this audit store (sqlite://PATH or
    /// postgres://…; default: $COUNCIL_DATABASE_URL, else none)
    #[arg(
        long,
        env = "INPUT_DATABASE-URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database_url: Option<String>,
}

/// Flags for local use; in Actions their values come from the runner's variables.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Local runs")]
pub struct LocalFlags {
    /// The event payload file (default: $GITHUB_EVENT_PATH)
    #[arg(long, value_name = "FILE")]
    pub event: Option<PathBuf>,
    /// The event name, e.g. pull_request (default: $GITHUB_EVENT_NAME)
    #[arg(long, value_name = "NAME")]
    pub event_name: Option<String>,
    /// review / release: the pull request to act on (default: the event's)
    #[arg(long, value_name = "N")]
    pub pr: Option<String>,
    /// owner/name (default: $GITHUB_REPOSITORY, else the event's repository)
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// HMAC key file, instead of `hmac-key` (default: $COUNCIL_HMAC_KEY_FILE)
    #[arg(long, value_name = "PATH")]
    pub hmac_key_file: Option<PathBuf>,
    /// Print the result as JSON (one object per line)
    #[arg(long)]
    pub json: bool,
    /// state put: post even when the memory looks like it holds a secret
    #[arg(long)]
    pub allow_secrets: bool,
    /// assign: label the issue `agent:<id>` (in Actions the label is always applied,
    /// unless `dry-run`)
    #[arg(long)]
    pub apply: bool,
}

// ---------------------------------------------------------------- subcommand flags
//
// Each subcommand flattens the groups it uses; every flag that is an action input keeps
// reading `INPUT_<NAME>` (hidden from help: on a terminal the flag is what counts).

/// `--github-token`, `--repo`: how the GitHub API is reached.
#[derive(Debug, Clone, Default, Args)]
pub struct ApiArgs {
    /// GitHub API token (default: $GH_TOKEN, else $GITHUB_TOKEN)
    #[arg(
        long,
        env = "INPUT_GITHUB-TOKEN",
        hide_env = true,
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub github_token: Option<String>,
    /// owner/name (default: $GITHUB_REPOSITORY, else the event's repository)
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
}

/// `--event`, `--event-name`: the webhook payload the run is about.
#[derive(Debug, Clone, Default, Args)]
pub struct EventArgs {
    /// The event payload file (default: $GITHUB_EVENT_PATH)
    #[arg(long, value_name = "FILE")]
    pub event: Option<PathBuf>,
    /// The event name, e.g. pull_request (default: $GITHUB_EVENT_NAME)
    #[arg(long, value_name = "NAME")]
    pub event_name: Option<String>,
}

/// `--policy`.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicyArgs {
    /// Policy file (default: .github/council.yml if present, else the built-in policy)
    #[arg(long, env = "INPUT_POLICY", hide_env = true, value_name = "PATH")]
    pub policy: Option<String>,
}

/// `--dry-run`.
#[derive(Debug, Clone, Default, Args)]
pub struct DryRunArgs {
    /// Decide and report; make no write call to the GitHub API
    #[arg(long, env = "INPUT_DRY-RUN", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub dry_run: Option<String>,
}

/// `--hmac-key`, `--hmac-key-file`: the key that signs (or checks) timeline entries.
#[derive(Debug, Clone, Default, Args)]
pub struct SignArgs {
    /// HMAC-SHA256 key of timeline entries (default: $COUNCIL_HMAC_KEY)
    #[arg(
        long,
        env = "INPUT_HMAC-KEY",
        hide_env = true,
        hide_env_values = true,
        value_name = "KEY",
        conflicts_with = "hmac_key_file"
    )]
    pub hmac_key: Option<String>,
    /// File holding the HMAC key, not readable by other users (default:
    /// $COUNCIL_HMAC_KEY_FILE)
    #[arg(long, value_name = "PATH")]
    pub hmac_key_file: Option<PathBuf>,
}

/// `--upload-artifact`, `--retention-days`: the audit artifact (inside Actions only).
#[derive(Debug, Clone, Default, Args)]
pub struct AuditArgs {
    /// Upload the audit file as an artifact (inside GitHub Actions)
    #[arg(long, env = "INPUT_UPLOAD-ARTIFACT", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub upload_artifact: Option<String>,
    /// Artifact retention in days
    #[arg(
        long,
        env = "INPUT_RETENTION-DAYS",
        hide_env = true,
        value_name = "DAYS"
    )]
    pub retention_days: Option<String>,
}

/// `--trusted-authors`.
#[derive(Debug, Clone, Default, Args)]
pub struct TrustArgs {
    /// Extra logins whose blocks are trusted (comma or newline separated)
    #[arg(
        long,
        env = "INPUT_TRUSTED-AUTHORS",
        hide_env = true,
        value_name = "LOGINS"
    )]
    pub trusted_authors: Option<String>,
}

/// `--json`.
#[derive(Debug, Clone, Default, Args)]
pub struct JsonArgs {
    /// Print the result as JSON (one object per line)
    #[arg(long)]
    pub json: bool,
}

/// `council run`.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub api: ApiArgs,
    /// The only token used to merge (default: $COUNCIL_RELEASE_TOKEN)
    #[arg(
        long,
        env = "INPUT_RELEASE-TOKEN",
        hide_env = true,
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub release_token: Option<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, env = "INPUT_CLOSE-ON-FAIL", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub close_on_fail: Option<String>,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub audit: AuditArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Issue that holds agents' context reports (`issues` opened: assign)
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N")]
    pub registry_issue: Option<String>,
    /// assign: label the issue `agent:<id>` (always in Actions, unless dry-run)
    #[arg(long)]
    pub apply: bool,
    #[command(flatten)]
    pub store: RunStoreArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council guard` and `council review` (review runs behind the guard).
#[derive(Debug, Clone, Default, Args)]
pub struct GuardArgs {
    #[command(flatten)]
    pub event: EventArgs,
    /// The pull request to act on, read through the API (default: the event's)
    #[arg(long, value_name = "N")]
    pub pr: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, env = "INPUT_CLOSE-ON-FAIL", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub close_on_fail: Option<String>,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub audit: AuditArgs,
    #[command(flatten)]
    pub store: RunStoreArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

pub type ReviewArgs = GuardArgs;

/// `council release`.
#[derive(Debug, Clone, Default, Args)]
pub struct ReleaseArgs {
    #[command(flatten)]
    pub event: EventArgs,
    /// The pull request to act on, read through the API (default: the event's)
    #[arg(long, value_name = "N")]
    pub pr: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    /// The only token used to merge (default: $COUNCIL_RELEASE_TOKEN)
    #[arg(
        long,
        env = "INPUT_RELEASE-TOKEN",
        hide_env = true,
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub release_token: Option<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub audit: AuditArgs,
    #[command(flatten)]
    pub store: RunStoreArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// The issue a state command works on.
#[derive(Debug, Clone, Default, Args)]
pub struct IssueArgs {
    /// The issue (default: the event's)
    #[arg(long, env = "INPUT_ISSUE", hide_env = true, value_name = "N")]
    pub issue: Option<String>,
}

/// `council state get`.
#[derive(Debug, Clone, Default, Args)]
pub struct StateGetArgs {
    #[command(flatten)]
    pub issue: IssueArgs,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// The fields of a new `<agent-state>` block.
#[derive(Debug, Clone, Default, Args)]
pub struct StateFields {
    /// What the agent is trying to do
    #[arg(long, env = "INPUT_INTENT", hide_env = true)]
    pub intent: Option<String>,
    /// The current step (a lower-case token)
    #[arg(long, env = "INPUT_STEP", hide_env = true)]
    pub step: Option<String>,
    /// 0-100, or `auto` (from the issue's task list)
    #[arg(long, env = "INPUT_PROGRESS", hide_env = true)]
    pub progress: Option<String>,
    /// A JSON value, inline or `@path`
    #[arg(long, env = "INPUT_MEMORY", hide_env = true)]
    pub memory: Option<String>,
    /// The suggested next action
    #[arg(long, env = "INPUT_NEXT-ACTION", hide_env = true)]
    pub next_action: Option<String>,
    /// The writing agent's name (`<agent>`)
    #[arg(long, env = "INPUT_AGENT", hide_env = true)]
    pub agent: Option<String>,
    /// `<plan>` as JSON [{"status": "done", "text": "…"}], inline or `@path`
    #[arg(long, env = "INPUT_PLAN", hide_env = true)]
    pub plan: Option<String>,
    /// `<input_request>`: a question for the human, or JSON {"status", "question"}
    #[arg(long, env = "INPUT_INPUT-REQUEST", hide_env = true)]
    pub input_request: Option<String>,
    /// `<metrics>` as JSON {"tool_calls", "errors", "cost_estimate", "generated_at"}
    #[arg(long, env = "INPUT_METRICS", hide_env = true)]
    pub metrics: Option<String>,
}

/// `--summary`, `--allow-secrets`: what is posted above a block, and the secret check.
#[derive(Debug, Clone, Default, Args)]
pub struct PostArgs {
    /// The human summary shown above the block
    #[arg(long, env = "INPUT_SUMMARY", hide_env = true)]
    pub summary: Option<String>,
    /// Post even when a field looks like it holds a secret
    #[arg(long)]
    pub allow_secrets: bool,
}

/// `council state put`.
#[derive(Debug, Clone, Default, Args)]
pub struct StatePutArgs {
    #[command(flatten)]
    pub issue: IssueArgs,
    #[command(flatten)]
    pub fields: StateFields,
    #[command(flatten)]
    pub post: PostArgs,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council verify`.
#[derive(Debug, Clone, Default, Args)]
pub struct VerifyArgs {
    /// The Context Object file (`out/audit/PR-<n>.json`)
    pub file: PathBuf,
    /// Earlier audit files that hold the entries FILE leaves out (`timeline_omitted`)
    #[arg(long, value_name = "OLD_FILE", num_args = 1..)]
    pub with: Vec<PathBuf>,
    /// Pass a file that leaves entries out without proving them (says how many)
    #[arg(long)]
    pub allow_partial: bool,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council context validate`.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextValidateArgs {
    /// Files to check
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council context show`.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextShowArgs {
    /// The ASSISTANT_CONTEXT file
    pub path: PathBuf,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council context sync`.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextSyncArgs {
    #[command(flatten)]
    pub issue: IssueArgs,
    /// The ASSISTANT_CONTEXT file, relative to the workspace
    #[arg(
        long,
        env = "INPUT_CONTEXT-FILE",
        hide_env = true,
        visible_alias = "file",
        value_name = "PATH"
    )]
    pub context_file: Option<String>,
    /// `to-file` (default) or `to-issue`
    #[arg(long, env = "INPUT_DIRECTION", hide_env = true)]
    pub direction: Option<String>,
    #[command(flatten)]
    pub post: PostArgs,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council report`.
#[derive(Debug, Clone, Default, Args)]
pub struct ReportArgs {
    /// The agent's context report, JSON inline or `@path`
    #[arg(long, env = "INPUT_REPORT", hide_env = true, value_name = "JSON")]
    pub report: Option<String>,
    /// Issue that holds agents' context reports
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N")]
    pub registry_issue: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council assign`.
#[derive(Debug, Clone, Default, Args)]
pub struct AssignArgs {
    #[command(flatten)]
    pub issue: IssueArgs,
    /// Issue that holds agents' context reports
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N")]
    pub registry_issue: Option<String>,
    /// Label the issue `agent:<id>` (in Actions the label is always applied, unless
    /// dry-run)
    #[arg(long)]
    pub apply: bool,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub event: EventArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// `council mcp`.
#[derive(Debug, Clone, Default, Args)]
pub struct McpArgs {
    /// List only the tools that write nothing (check_branch, get_agent_state,
    /// verify_ledger, pr_status)
    #[arg(long)]
    pub read_only: bool,
    /// Serve only these tools (comma separated; default: all)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Issue that holds agents' context reports (report_context, assign)
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N")]
    pub registry_issue: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
}

// ------------------------------------------------ subcommand flags → the one raw surface

impl Command {
    /// The subcommand as typed (`state get`).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Run(_) => "run",
            Command::Guard(_) => "guard",
            Command::Review(_) => "review",
            Command::Release(_) => "release",
            Command::State(StateCommand::Get(_)) => "state get",
            Command::State(StateCommand::Put(_)) => "state put",
            Command::Verify(_) => "verify",
            Command::Context(ContextCommand::Validate(_)) => "context validate",
            Command::Context(ContextCommand::Show(_)) => "context show",
            Command::Context(ContextCommand::Sync(_)) => "context sync",
            Command::Report(_) => "report",
            Command::Assign(_) => "assign",
            Command::Mcp(_) => "mcp",
            Command::Audit(AuditCommand::Import(_)) => "audit import",
            Command::Audit(AuditCommand::Sync(_)) => "audit sync",
            Command::Audit(AuditCommand::Query(_)) => "audit query",
            Command::Audit(AuditCommand::Report(_)) => "audit report",
            Command::Audit(AuditCommand::Verify(_)) => "audit verify",
            Command::Tool(ToolCommand::Init(_)) => "init",
            Command::Tool(ToolCommand::Policy(PolicyCommand::Check(_))) => "policy check",
            Command::Tool(ToolCommand::Completions(_)) => "completions",
            Command::Tool(ToolCommand::Man(_)) => "man",
        }
    }

    /// The flags this subcommand was given, on the one raw surface `settings` reads (the
    /// action's inputs and the local flags); what the subcommand does not take stays unset.
    pub fn flags(&self) -> (Inputs, LocalFlags) {
        let mut raw = (Inputs::default(), LocalFlags::default());
        let groups: &dyn Fill = match self {
            Command::Run(a) => a,
            Command::Guard(a) | Command::Review(a) => a,
            Command::Release(a) => a,
            Command::State(StateCommand::Get(a)) => a,
            Command::State(StateCommand::Put(a)) => a,
            Command::Verify(a) => a,
            Command::Context(ContextCommand::Validate(a)) => &a.json,
            Command::Context(ContextCommand::Show(a)) => &a.json,
            Command::Context(ContextCommand::Sync(a)) => a,
            Command::Report(a) => a,
            Command::Assign(a) => a,
            Command::Mcp(a) => a,
            Command::Audit(AuditCommand::Import(a)) => a,
            Command::Audit(AuditCommand::Sync(a)) => a,
            Command::Audit(AuditCommand::Query(a)) => a,
            Command::Audit(AuditCommand::Report(a)) => a,
            Command::Audit(AuditCommand::Verify(a)) => a,
            // Tools take none of the run's flags (main runs them before any settings).
            Command::Tool(_) => &(),
        };
        groups.fill(&mut raw.0, &mut raw.1);
        raw
    }
}

/// Writes a group's values onto the raw surface.
trait Fill {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags);
}

/// Several groups onto the raw surface, in order.
fn fill_groups(groups: &[&dyn Fill], i: &mut Inputs, l: &mut LocalFlags) {
    for group in groups {
        group.fill(i, l);
    }
}

impl Fill for ApiArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        i.github_token.clone_from(&self.github_token);
        l.repo.clone_from(&self.repo);
    }
}

impl Fill for EventArgs {
    fn fill(&self, _: &mut Inputs, l: &mut LocalFlags) {
        l.event.clone_from(&self.event);
        l.event_name.clone_from(&self.event_name);
    }
}

impl Fill for PolicyArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.policy.clone_from(&self.policy);
    }
}

impl Fill for DryRunArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.dry_run.clone_from(&self.dry_run);
    }
}

impl Fill for SignArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        i.hmac_key.clone_from(&self.hmac_key);
        l.hmac_key_file.clone_from(&self.hmac_key_file);
    }
}

impl Fill for AuditArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.upload_artifact.clone_from(&self.upload_artifact);
        i.retention_days.clone_from(&self.retention_days);
    }
}

impl Fill for TrustArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.trusted_authors.clone_from(&self.trusted_authors);
    }
}

impl Fill for () {
    fn fill(&self, _: &mut Inputs, _: &mut LocalFlags) {}
}

impl Fill for JsonArgs {
    fn fill(&self, _: &mut Inputs, l: &mut LocalFlags) {
        l.json = self.json;
    }
}

impl Fill for IssueArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.issue.clone_from(&self.issue);
    }
}

impl Fill for StateFields {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.intent.clone_from(&self.intent);
        i.step.clone_from(&self.step);
        i.progress.clone_from(&self.progress);
        i.memory.clone_from(&self.memory);
        i.next_action.clone_from(&self.next_action);
        i.agent.clone_from(&self.agent);
        i.plan.clone_from(&self.plan);
        i.input_request.clone_from(&self.input_request);
        i.metrics.clone_from(&self.metrics);
    }
}

impl Fill for PostArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        i.summary.clone_from(&self.summary);
        l.allow_secrets = self.allow_secrets;
    }
}

impl Fill for RunArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 9] = [
            &self.event,
            &self.api,
            &self.policy,
            &self.dry_run,
            &self.sign,
            &self.audit,
            &self.trust,
            &self.store,
            &self.json,
        ];
        fill_groups(&groups, i, l);
        i.release_token.clone_from(&self.release_token);
        i.close_on_fail.clone_from(&self.close_on_fail);
        i.registry_issue.clone_from(&self.registry_issue);
        l.apply = self.apply;
    }
}

impl Fill for StoreArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.database_url.clone_from(&self.database_url);
    }
}

impl Fill for RunStoreArgs {
    fn fill(&self, i: &mut Inputs, _: &mut LocalFlags) {
        i.database_url.clone_from(&self.database_url);
    }
}

// `--repo` of a question filters the store (`settings` reads it from the task), and is
// not the repository a run acts on.
impl Fill for AuditFilterArgs {
    fn fill(&self, _: &mut Inputs, _: &mut LocalFlags) {}
}

impl Fill for AuditImportArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.store, &self.sign, &self.json], i, l);
    }
}

impl Fill for AuditSyncArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 5] = [&self.api, &self.store, &self.sign, &self.trust, &self.json];
        fill_groups(&groups, i, l);
        i.registry_issue.clone_from(&self.registry_issue);
    }
}

impl Fill for AuditQueryArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.store, &self.filter, &self.json], i, l);
    }
}

impl Fill for AuditReportArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.store, &self.filter], i, l);
    }
}

impl Fill for AuditVerifyArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.store, &self.filter, &self.sign, &self.json], i, l);
    }
}

impl Fill for McpArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 5] = [
            &self.api,
            &self.policy,
            &self.trust,
            &self.dry_run,
            &self.sign,
        ];
        fill_groups(&groups, i, l);
        i.registry_issue.clone_from(&self.registry_issue);
    }
}

impl Fill for GuardArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 8] = [
            &self.event,
            &self.api,
            &self.policy,
            &self.dry_run,
            &self.sign,
            &self.audit,
            &self.store,
            &self.json,
        ];
        fill_groups(&groups, i, l);
        l.pr.clone_from(&self.pr);
        i.close_on_fail.clone_from(&self.close_on_fail);
    }
}

impl Fill for ReleaseArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 8] = [
            &self.event,
            &self.api,
            &self.policy,
            &self.dry_run,
            &self.sign,
            &self.audit,
            &self.store,
            &self.json,
        ];
        fill_groups(&groups, i, l);
        l.pr.clone_from(&self.pr);
        i.release_token.clone_from(&self.release_token);
    }
}

impl Fill for StateGetArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 6] = [
            &self.issue,
            &self.api,
            &self.event,
            &self.policy,
            &self.trust,
            &self.json,
        ];
        fill_groups(&groups, i, l);
    }
}

impl Fill for StatePutArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 9] = [
            &self.issue,
            &self.fields,
            &self.post,
            &self.api,
            &self.event,
            &self.policy,
            &self.trust,
            &self.dry_run,
            &self.json,
        ];
        fill_groups(&groups, i, l);
    }
}

impl Fill for VerifyArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.sign, &self.json], i, l);
    }
}

impl Fill for ContextSyncArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 8] = [
            &self.issue,
            &self.post,
            &self.api,
            &self.event,
            &self.policy,
            &self.trust,
            &self.dry_run,
            &self.json,
        ];
        fill_groups(&groups, i, l);
        i.context_file.clone_from(&self.context_file);
        i.direction.clone_from(&self.direction);
    }
}

impl Fill for ReportArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        fill_groups(&[&self.api, &self.event, &self.dry_run, &self.json], i, l);
        i.report.clone_from(&self.report);
        i.registry_issue.clone_from(&self.registry_issue);
    }
}

impl Fill for AssignArgs {
    fn fill(&self, i: &mut Inputs, l: &mut LocalFlags) {
        let groups: [&dyn Fill; 7] = [
            &self.issue,
            &self.api,
            &self.event,
            &self.policy,
            &self.trust,
            &self.dry_run,
            &self.json,
        ];
        fill_groups(&groups, i, l);
        i.registry_issue.clone_from(&self.registry_issue);
        l.apply = self.apply;
    }
}

/// The action input names this CLI reads, in action.yml's spelling.
pub fn input_names() -> Vec<String> {
    Cli::command()
        .get_arguments()
        .filter_map(|a| a.get_env())
        .filter_map(|env| env.to_str())
        .filter_map(|env| env.strip_prefix("INPUT_"))
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::parse_from_iter(args).unwrap()
    }

    /// Words as a POSIX shell splits them, for quotes without escapes or expansions.
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word: Option<String> = None;
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.get_or_insert_with(String::new).push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    word.get_or_insert_with(String::new);
                }
                (None, c) if c.is_whitespace() => words.extend(word.take()),
                (None, c) => word.get_or_insert_with(String::new).push(c),
            }
        }
        words.extend(word);
        words
    }

    /// Every command a user can run ends its help with examples that parse.
    #[test]
    fn every_command_shows_examples_that_parse() {
        fn walk(command: &clap::Command, path: &mut Vec<String>, leaves: &mut Vec<String>) {
            let subs: Vec<&clap::Command> = command
                .get_subcommands()
                .filter(|s| s.get_name() != "help")
                .collect();
            if subs.is_empty() {
                let help = command
                    .get_after_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                let examples: Vec<&str> = help
                    .split("\n\n")
                    .next()
                    .filter(|first| first.starts_with("Examples:"))
                    .map(|first| first.lines().skip(1).map(str::trim).collect())
                    .unwrap_or_default();
                assert!(
                    examples.len() >= 2,
                    "council {} shows no examples",
                    path.join(" ")
                );
                leaves.extend(examples.into_iter().map(str::to_string));
            }
            for sub in subs {
                path.push(sub.get_name().to_string());
                walk(sub, path, leaves);
                path.pop();
            }
        }
        let mut examples = Vec::new();
        walk(&Cli::command(), &mut Vec::new(), &mut examples);
        for example in examples {
            // The shell's part (`VAR=… `, `> file`, `&& man …`, `$(…)`) is not ours.
            let line = example.split(" > ").next().unwrap_or(&example);
            let line = line.split(" && ").next().unwrap_or(line);
            let words: Vec<String> = shell_words(line)
                .into_iter()
                .skip_while(|w| w != "council")
                .collect();
            assert!(!words.is_empty(), "{example}");
            if let Err(e) = Cli::parse_from_iter(words) {
                panic!("the example `{example}` does not parse: {e}");
            }
        }
    }

    fn flags(args: &[&str]) -> (Inputs, LocalFlags) {
        parse(args).command.expect("a subcommand").flags()
    }

    /// Every command of the tree, the top level included.
    fn all_commands(cmd: &clap::Command) -> Vec<clap::Command> {
        let mut out = vec![cmd.clone()];
        for sub in cmd.get_subcommands() {
            out.extend(all_commands(sub));
        }
        out
    }

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_input_flag_reads_its_runner_variable_in_every_subcommand() {
        let mut seen = 0;
        for cmd in all_commands(&Cli::command()) {
            for arg in cmd.get_arguments() {
                let (Some(long), Some(env)) = (arg.get_long(), arg.get_env()) else {
                    continue;
                };
                assert_eq!(
                    env.to_str().unwrap(),
                    format!("INPUT_{}", long.to_uppercase()),
                    "{} --{long}",
                    cmd.get_name()
                );
                seen += 1;
            }
        }
        assert!(seen > 60, "{seen}");
    }

    #[test]
    fn a_subcommand_reads_only_the_inputs_it_takes() {
        let names = |cmd: &clap::Command| -> Vec<String> {
            cmd.get_arguments()
                .filter_map(|a| a.get_long().map(str::to_string))
                .collect()
        };
        let cli = Cli::command();
        let guard = names(cli.find_subcommand("guard").unwrap());
        assert!(guard.contains(&"close-on-fail".to_string()));
        assert!(!guard.contains(&"intent".to_string()) && !guard.contains(&"command".to_string()));
        let verify = names(cli.find_subcommand("verify").unwrap());
        assert!(!verify.contains(&"github-token".to_string()));
        assert!(verify.contains(&"hmac-key-file".to_string()));
    }

    #[test]
    fn bare_boolean_flags_mean_true() {
        let (inputs, _) = flags(&["council", "guard", "--dry-run", "--close-on-fail=false"]);
        assert_eq!(inputs.dry_run.as_deref(), Some("true"));
        assert_eq!(inputs.close_on_fail.as_deref(), Some("false"));
        assert!(matches!(
            parse(&["council", "guard"]).command,
            Some(Command::Guard(_))
        ));
    }

    #[test]
    fn flags_belong_after_their_subcommand() {
        for args in [
            &["council", "--dry-run", "guard"][..],
            &["council", "--json", "state", "get"],
            &["council", "--command", "review", "guard"],
            &["council", "guard", "--command", "review"],
            &["council", "verify", "x.json", "--github-token", "t"],
            &["council", "context", "show", "A.md", "--issue", "3"],
        ] {
            let err = Cli::parse_from_iter(args).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn context_commands_take_paths_and_file_is_an_alias() {
        let cli = parse(&["council", "context", "validate", "a.md", "b/c.yaml"]);
        assert!(
            matches!(&cli.command, Some(Command::Context(ContextCommand::Validate(a))) if a.paths.len() == 2)
        );
        let (inputs, _) = flags(&[
            "council", "context", "sync", "--issue", "3", "--file", "X.md",
        ]);
        assert_eq!(inputs.context_file.as_deref(), Some("X.md"));
        assert_eq!(inputs.issue.as_deref(), Some("3"));
    }

    #[test]
    fn verify_takes_a_file_after_flags() {
        let cli = parse(&["council", "verify", "--json", "x.json"]);
        assert!(
            matches!(cli.command, Some(Command::Verify(a)) if a.file.as_os_str() == "x.json" && a.json.json)
        );
    }

    #[test]
    fn verify_takes_earlier_files_repeated_or_together() {
        let cli = parse(&[
            "council",
            "verify",
            "new.json",
            "--with",
            "a.json",
            "b.json",
            "--with",
            "c.json",
            "--allow-partial",
        ]);
        let Some(Command::Verify(args)) = cli.command else {
            panic!("verify")
        };
        assert_eq!(args.file.as_os_str(), "new.json");
        assert_eq!(args.with, ["a.json", "b.json", "c.json"].map(PathBuf::from));
        assert!(args.allow_partial);
    }

    #[test]
    fn the_key_and_the_key_file_are_one_choice() {
        let err = Cli::parse_from_iter([
            "council",
            "verify",
            "x.json",
            "--hmac-key",
            "k",
            "--hmac-key-file",
            "f",
        ])
        .unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn secrets_given_as_arguments_are_noticed() {
        let cli = parse(&[
            "council",
            "release",
            "--github-token",
            "t",
            "--release-token",
            "r",
            "--hmac-key-file",
            "f",
        ]);
        assert_eq!(
            cli.secrets_on_command_line,
            ["github-token", "release-token"]
        );
        let cli = parse(&["council", "--hmac-key", "k"]);
        assert_eq!(cli.secrets_on_command_line, ["hmac-key"]);
        assert!(
            parse(&["council", "state", "get"])
                .secrets_on_command_line
                .is_empty()
        );
    }
}
