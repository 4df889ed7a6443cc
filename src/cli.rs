//! One input surface for the action and the CLI: every action input is a flag of the same
//! name that also reads `INPUT_<NAME>` exactly as the runner sets it (hyphens kept).
//!
//! Values stay raw strings here; `settings` validates them with messages that name the input.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "council",
    version,
    about = "Guard, review and release gates for pull requests shared by agents and humans",
    long_about = None,
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub inputs: Inputs,

    #[command(flatten)]
    pub local: LocalFlags,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Run the stages that fit the event (`command: auto`).
    Run,
    /// Branch-name and target-branch gates on a pull request event.
    Guard,
    /// Review the pull request's diff.
    Review,
    /// Merge when the pipeline is green.
    Release,
    /// Read or write `<agent-state>` blocks on an issue.
    #[command(subcommand)]
    State(StateCommand),
    /// Check the hash chain and signatures of an audit file.
    Verify {
        /// The Context Object file (`out/audit/PR-<n>.json`).
        file: PathBuf,
        /// Earlier audit files that hold the entries FILE leaves out (`timeline_omitted`)
        #[arg(long, value_name = "OLD_FILE", num_args = 1..)]
        with: Vec<PathBuf>,
        /// Pass a file that leaves entries out without proving them (says how many)
        #[arg(long)]
        allow_partial: bool,
    },
    /// ASSISTANT_CONTEXT files.
    #[command(subcommand)]
    Context(ContextCommand),
    /// Post an agent's context report on the registry issue.
    Report,
    /// Rank agents for an issue from their context reports.
    Assign,
}

#[derive(Debug, Clone, Subcommand)]
pub enum StateCommand {
    /// The latest trusted `<agent-state>` of an issue.
    Get,
    /// Post a new `<agent-state>` comment.
    Put,
}

#[derive(Debug, Clone, Subcommand)]
pub enum ContextCommand {
    /// Check ASSISTANT_CONTEXT files (default: every ASSISTANT_CONTEXT.md/.yaml in the
    /// repository); exit 1 naming file, line, column and field when one is invalid.
    Validate {
        /// Files to check.
        paths: Vec<PathBuf>,
    },
    /// One file's fields, unknown keys and body (`--json` for machines).
    Show {
        /// The ASSISTANT_CONTEXT file.
        path: PathBuf,
    },
    /// Map an issue's latest `<agent-state>` onto the file (`--direction to-file`, the
    /// default) or post the file as an `<agent-state>` (`to-issue`).
    Sync,
}

/// The action's inputs (see action.yml); a test keeps the two lists equal.
#[derive(Debug, Clone, Default, Args)]
pub struct Inputs {
    /// auto, guard, review, release, state-get, state-put, context-validate, context-sync, report, assign, verify
    #[arg(long, global = true, env = "INPUT_COMMAND", value_name = "NAME")]
    pub command: Option<String>,
    /// Token for everything but merging
    #[arg(
        long,
        global = true,
        env = "INPUT_GITHUB-TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub github_token: Option<String>,
    /// The only token used to merge
    #[arg(
        long,
        global = true,
        env = "INPUT_RELEASE-TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub release_token: Option<String>,
    /// Policy path (read at the base branch in Actions; a local file on the CLI)
    #[arg(long, global = true, env = "INPUT_POLICY", value_name = "PATH")]
    pub policy: Option<String>,
    /// Close the pull request with an explanatory comment when the guard fails
    #[arg(long, global = true, env = "INPUT_CLOSE-ON-FAIL", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub close_on_fail: Option<String>,
    /// Decide and write the audit file; make no write call to the API
    #[arg(long, global = true, env = "INPUT_DRY-RUN", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub dry_run: Option<String>,
    /// Key that signs timeline entries (HMAC-SHA256)
    #[arg(
        long,
        global = true,
        env = "INPUT_HMAC-KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub hmac_key: Option<String>,
    /// Upload the audit file as an artifact
    #[arg(long, global = true, env = "INPUT_UPLOAD-ARTIFACT", value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub upload_artifact: Option<String>,
    /// Artifact retention in days
    #[arg(long, global = true, env = "INPUT_RETENTION-DAYS", value_name = "DAYS")]
    pub retention_days: Option<String>,
    /// Issue number for state / assign commands
    #[arg(long, global = true, env = "INPUT_ISSUE", value_name = "N")]
    pub issue: Option<String>,
    /// state-put: what the agent is trying to do
    #[arg(long, global = true, env = "INPUT_INTENT")]
    pub intent: Option<String>,
    /// state-put: the current step (a lower-case token)
    #[arg(long, global = true, env = "INPUT_STEP")]
    pub step: Option<String>,
    /// state-put: 0-100, or `auto` (from the issue's task list)
    #[arg(long, global = true, env = "INPUT_PROGRESS")]
    pub progress: Option<String>,
    /// state-put: a JSON value, inline or `@path`
    #[arg(long, global = true, env = "INPUT_MEMORY")]
    pub memory: Option<String>,
    /// state-put: the suggested next action
    #[arg(long, global = true, env = "INPUT_NEXT-ACTION")]
    pub next_action: Option<String>,
    /// state-put: the human summary shown above the block
    #[arg(long, global = true, env = "INPUT_SUMMARY")]
    pub summary: Option<String>,
    /// state-put: the writing agent's name (`<agent>`)
    #[arg(long, global = true, env = "INPUT_AGENT")]
    pub agent: Option<String>,
    /// state-put: `<plan>` as JSON [{"status": "done", "text": "…"}], inline or `@path`
    #[arg(long, global = true, env = "INPUT_PLAN")]
    pub plan: Option<String>,
    /// state-put: `<input_request>`: a question for the human, or JSON {"status", "question"}
    #[arg(long, global = true, env = "INPUT_INPUT-REQUEST")]
    pub input_request: Option<String>,
    /// state-put: `<metrics>` as JSON {"tool_calls", "errors", "cost_estimate", "generated_at"}
    #[arg(long, global = true, env = "INPUT_METRICS")]
    pub metrics: Option<String>,
    /// context-sync: the ASSISTANT_CONTEXT file, relative to the workspace
    #[arg(
        long,
        global = true,
        env = "INPUT_CONTEXT-FILE",
        visible_alias = "file",
        value_name = "PATH"
    )]
    pub context_file: Option<String>,
    /// context-sync: `to-file` (default) or `to-issue`
    #[arg(long, global = true, env = "INPUT_DIRECTION")]
    pub direction: Option<String>,
    /// report: the agent's context report, JSON inline or `@path`
    #[arg(long, global = true, env = "INPUT_REPORT", value_name = "JSON")]
    pub report: Option<String>,
    /// Extra logins whose blocks are trusted (comma or newline separated)
    #[arg(
        long,
        global = true,
        env = "INPUT_TRUSTED-AUTHORS",
        value_name = "LOGINS"
    )]
    pub trusted_authors: Option<String>,
    /// Issue that holds agents' context reports
    #[arg(long, global = true, env = "INPUT_REGISTRY-ISSUE", value_name = "N")]
    pub registry_issue: Option<String>,
}

/// Flags for local use; in Actions their values come from the runner's variables.
#[derive(Debug, Clone, Default, Args)]
pub struct LocalFlags {
    /// The event payload file (default: $GITHUB_EVENT_PATH)
    #[arg(long, global = true, value_name = "FILE")]
    pub event: Option<PathBuf>,
    /// The event name, e.g. pull_request (default: $GITHUB_EVENT_NAME)
    #[arg(long, global = true, value_name = "NAME")]
    pub event_name: Option<String>,
    /// review / release: the pull request to act on (default: the event's)
    #[arg(long, global = true, value_name = "N")]
    pub pr: Option<String>,
    /// owner/name (default: $GITHUB_REPOSITORY, else the event's repository)
    #[arg(long, global = true, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// Print machine-readable JSON instead of the readable view
    #[arg(long, global = true)]
    pub json: bool,
    /// state put: post even when the memory looks like it holds a secret
    #[arg(long, global = true)]
    pub allow_secrets: bool,
    /// assign: label the issue `agent:<id>` (in Actions the label is always applied,
    /// unless `dry-run`)
    #[arg(long, global = true)]
    pub apply: bool,
}

/// The action input names this CLI reads, in action.yml's spelling.
pub fn input_names() -> Vec<String> {
    use clap::CommandFactory;
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
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_input_flag_reads_its_runner_variable() {
        for arg in Cli::command().get_arguments() {
            let (Some(long), Some(env)) = (arg.get_long(), arg.get_env()) else {
                continue;
            };
            assert_eq!(
                env.to_str().unwrap(),
                format!("INPUT_{}", long.to_uppercase())
            );
        }
    }

    #[test]
    fn bare_boolean_flags_mean_true() {
        let cli = Cli::try_parse_from(["council", "guard", "--dry-run", "--close-on-fail=false"])
            .unwrap();
        assert_eq!(cli.inputs.dry_run.as_deref(), Some("true"));
        assert_eq!(cli.inputs.close_on_fail.as_deref(), Some("false"));
        assert!(matches!(cli.command, Some(Command::Guard)));
    }

    #[test]
    fn context_commands_take_paths_and_file_is_an_alias() {
        let cli =
            Cli::try_parse_from(["council", "context", "validate", "a.md", "b/c.yaml"]).unwrap();
        assert!(
            matches!(&cli.command, Some(Command::Context(ContextCommand::Validate { paths })) if paths.len() == 2)
        );
        let cli = Cli::try_parse_from([
            "council", "context", "sync", "--issue", "3", "--file", "X.md",
        ])
        .unwrap();
        assert_eq!(cli.inputs.context_file.as_deref(), Some("X.md"));
    }

    #[test]
    fn verify_takes_a_file_after_flags() {
        let cli = Cli::try_parse_from(["council", "verify", "--dry-run", "x.json"]).unwrap();
        assert!(
            matches!(cli.command, Some(Command::Verify { file, .. }) if file.as_os_str() == "x.json")
        );
    }

    #[test]
    fn verify_takes_earlier_files_repeated_or_together() {
        let cli = Cli::try_parse_from([
            "council",
            "verify",
            "new.json",
            "--with",
            "a.json",
            "b.json",
            "--with",
            "c.json",
            "--allow-partial",
        ])
        .unwrap();
        let Some(Command::Verify {
            file,
            with,
            allow_partial,
        }) = cli.command
        else {
            panic!("verify")
        };
        assert_eq!(file.as_os_str(), "new.json");
        assert_eq!(with, ["a.json", "b.json", "c.json"].map(PathBuf::from));
        assert!(allow_partial);
    }
}
