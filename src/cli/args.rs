//! The flags of each subcommand: shared groups flattened into the subcommands that take
//! them. Every flag that is an action input keeps reading `INPUT_<NAME>` (hidden from
//! help: on a terminal the flag is what counts), and every value is typed here by its
//! value parser (`values`).

use std::path::PathBuf;

use clap::Args;

use super::values::{self, CommandInput, Direction, Logins};
use crate::secret::Secret;

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
        value_name = "URL",
        value_parser = values::secret
    )]
    pub database_url: Option<Secret>,
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
        value_name = "URL",
        value_parser = values::secret
    )]
    pub database_url: Option<Secret>,
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
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub registry_issue: Option<u64>,
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
    /// Turn the merge queue on: `queue.enabled: true`, and a council workflow with the
    /// queue's triggers (push, schedule, checks on queue commits) and a concurrency group
    /// for its runs; prints what CI and branch protection need
    #[arg(long)]
    pub queue: bool,
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

/// `council policy simulate`.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicySimulateArgs {
    /// The policy file to replay (default: .github/council.yml, else the built-in default
    /// policy)
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub filter: AuditFilterArgs,
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
        value_name = "TOKEN",
        value_parser = values::secret
    )]
    pub github_token: Option<Secret>,
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
    #[arg(long, value_name = "NAME", value_parser = values::event_name)]
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
    #[arg(long, env = "INPUT_DRY-RUN", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = values::boolean)]
    pub dry_run: Option<bool>,
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
        conflicts_with = "hmac_key_file",
        value_parser = values::key
    )]
    pub hmac_key: Option<Secret>,
    /// File holding the HMAC key, not readable by other users (default:
    /// $COUNCIL_HMAC_KEY_FILE)
    #[arg(long, value_name = "PATH")]
    pub hmac_key_file: Option<PathBuf>,
}

/// `--upload-artifact`, `--retention-days`: the audit file as an artifact (inside Actions only).
#[derive(Debug, Clone, Default, Args)]
pub struct UploadArgs {
    /// Upload the audit file as an artifact (inside GitHub Actions)
    #[arg(long, env = "INPUT_UPLOAD-ARTIFACT", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = values::boolean)]
    pub upload_artifact: Option<bool>,
    /// Artifact retention in days
    #[arg(
        long,
        env = "INPUT_RETENTION-DAYS",
        hide_env = true,
        value_name = "DAYS",
        value_parser = values::retention_days
    )]
    pub retention_days: Option<u32>,
}

/// `--trusted-authors`.
#[derive(Debug, Clone, Default, Args)]
pub struct TrustArgs {
    /// Extra logins whose blocks are trusted (comma or newline separated)
    #[arg(
        long,
        env = "INPUT_TRUSTED-AUTHORS",
        hide_env = true,
        value_name = "LOGINS",
        value_parser = values::logins
    )]
    pub trusted_authors: Option<Logins>,
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
        value_name = "TOKEN",
        value_parser = values::secret
    )]
    pub release_token: Option<Secret>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, env = "INPUT_CLOSE-ON-FAIL", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = values::boolean)]
    pub close_on_fail: Option<bool>,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub upload: UploadArgs,
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Issue that holds agents' context reports (`issues` opened: assign)
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub registry_issue: Option<u64>,
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
    #[arg(long, value_name = "N", value_parser = values::number)]
    pub pr: Option<u64>,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, env = "INPUT_CLOSE-ON-FAIL", hide_env = true, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = values::boolean)]
    pub close_on_fail: Option<bool>,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub upload: UploadArgs,
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
    #[arg(long, value_name = "N", value_parser = values::number)]
    pub pr: Option<u64>,
    #[command(flatten)]
    pub api: ApiArgs,
    /// The only token used to merge (default: $COUNCIL_RELEASE_TOKEN)
    #[arg(
        long,
        env = "INPUT_RELEASE-TOKEN",
        hide_env = true,
        hide_env_values = true,
        value_name = "TOKEN",
        value_parser = values::secret
    )]
    pub release_token: Option<Secret>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub dry_run: DryRunArgs,
    #[command(flatten)]
    pub sign: SignArgs,
    #[command(flatten)]
    pub upload: UploadArgs,
    #[command(flatten)]
    pub store: RunStoreArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// The issue a state command works on.
#[derive(Debug, Clone, Default, Args)]
pub struct IssueArgs {
    /// The issue (default: the event's)
    #[arg(long, env = "INPUT_ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub issue: Option<u64>,
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

/// `--context-file`, `--direction`: the file `context sync` maps, and which way.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextFileArgs {
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
    #[arg(long, env = "INPUT_DIRECTION", hide_env = true, value_parser = values::direction)]
    pub direction: Option<Direction>,
}

/// `council context sync`.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextSyncArgs {
    #[command(flatten)]
    pub issue: IssueArgs,
    #[command(flatten)]
    pub context: ContextFileArgs,
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
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub registry_issue: Option<u64>,
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
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub registry_issue: Option<u64>,
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
    #[arg(long, env = "INPUT_REGISTRY-ISSUE", hide_env = true, value_name = "N", value_parser = values::number)]
    pub registry_issue: Option<u64>,
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

/// The action: `council` with no subcommand. Every action input (see action.yml; a test
/// keeps the two lists equal) is a flag that also reads `INPUT_<NAME>`: what `council run`
/// takes, and the inputs of the commands `command` names.
#[derive(Debug, Clone, Default, Args)]
#[command(
    next_help_heading = "The action's options (an action input is also read from INPUT_<NAME>)"
)]
pub struct ActionArgs {
    /// auto, guard, review, release, state-get, state-put, context-validate, context-sync, report, assign, verify
    #[arg(long, env = "INPUT_COMMAND", hide_env = true, value_name = "NAME", value_parser = values::command)]
    pub command: Option<CommandInput>,
    #[command(flatten)]
    pub run: RunArgs,
    /// review / release: the pull request to act on, read through the API (default: the
    /// event's)
    #[arg(long, value_name = "N", value_parser = values::number)]
    pub pr: Option<u64>,
    #[command(flatten)]
    pub issue: IssueArgs,
    #[command(flatten)]
    pub fields: StateFields,
    #[command(flatten)]
    pub post: PostArgs,
    #[command(flatten)]
    pub context: ContextFileArgs,
    /// report: the agent's context report, JSON inline or `@path`
    #[arg(long, env = "INPUT_REPORT", hide_env = true, value_name = "JSON")]
    pub report: Option<String>,
}
