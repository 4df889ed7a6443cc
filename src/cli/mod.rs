//! One input surface for the action and the CLI.
//!
//! - `council` with no subcommand is the action: every action input is a flag of the same
//!   name that also reads `INPUT_<NAME>` exactly as the runner sets it (hyphens kept), and
//!   `command` picks what runs (`auto` by default).
//! - `council <subcommand>` takes only the flags that subcommand uses (shared groups are
//!   flattened into each), still reading `INPUT_<NAME>`. Flags before the subcommand, and
//!   `command` together with a subcommand, are usage errors.
//!
//! Values are typed by their value parsers (`values`); an input the workflow leaves
//! empty counts as unset. `crate::request` turns a parsed command line and the runner's
//! environment into one typed request per command. Tokens and the HMAC key also come
//! from environment variables or a file: a value on the command line is visible to every
//! user in `ps`.

#[macro_use]
mod help;
pub mod args;
pub mod flag_order;
pub mod values;

use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

pub use args::*;
use help::*;

#[derive(Debug, Parser)]
#[command(
    name = "council",
    version,
    about = "Guard, review and release gates for pull requests shared by agents and humans",
    long_about = None,
    after_help = ROOT_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub action: ActionArgs,

    /// Secret flags given on the command line (visible in `ps`), by long name: filled by
    /// [`Cli::parse_from_iter`], which sees where each value came from.
    #[arg(skip)]
    pub secrets_on_command_line: Vec<&'static str>,
}

impl Cli {
    /// [`Cli::parse_with`] with no `INPUT_*` variable (tests).
    pub fn parse_from_iter<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        Cli::parse_with(args, &|_| None)
    }

    /// The arguments, with each input's variable (`INPUT_DRY-RUN`) as `input` gives it:
    /// the process's environment, or a test's.
    pub fn parse_with<I, T>(
        args: I,
        input: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let matches = with_inputs(Cli::command(), input).try_get_matches_from(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        cli.secrets_on_command_line = secrets_on_command_line(&matches);
        Ok(cli)
    }
}

/// Each flag that is an action input takes its value from its variable when the command
/// line does not give it. The runner sets every input a workflow leaves empty to `""`
/// (`INPUT_DRY-RUN=`), and an empty input counts as unset: such a variable is not read
/// at all, so that no value parser sees it and the flag's own default stands. The value
/// is the flag's default, never shown in help (it may be a token).
fn with_inputs(command: clap::Command, input: &dyn Fn(&str) -> Option<String>) -> clap::Command {
    command
        .mut_args(|arg| {
            let Some(name) = arg.get_env().and_then(|n| n.to_str()).map(str::to_string) else {
                return arg;
            };
            let arg = arg.env(None);
            match input(&name).filter(|v| !v.trim().is_empty()) {
                Some(value) => arg.default_value(value).hide_default_value(true),
                None => arg,
            }
        })
        .mut_subcommands(|sub| with_inputs(sub, input))
}

/// The flags that carry a secret, by clap id and long name.
const SECRET_FLAGS: [(&str, &str); 4] = [
    ("github_token", "github-token"),
    ("release_token", "release-token"),
    ("hmac_key", "hmac-key"),
    // Only a URL holding a password is a secret: `request` tells them apart.
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
    /// Replay a policy against every pull request in the audit store: the guard verdicts
    /// and agent/human classes that would change. Exit 1 when any would.
    #[command(after_help = POLICY_SIMULATE_HELP)]
    Simulate(PolicySimulateArgs),
}

impl ToolCommand {
    /// Reads and writes local files only (`policy simulate` opens the audit store, which
    /// may be a server, and reads `COUNCIL_DATABASE_URL`: it runs as an audit command).
    pub fn is_local(&self) -> bool {
        !matches!(self, ToolCommand::Policy(PolicyCommand::Simulate(_)))
    }
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
            Command::Tool(ToolCommand::Policy(PolicyCommand::Simulate(_))) => "policy simulate",
            Command::Tool(ToolCommand::Completions(_)) => "completions",
            Command::Tool(ToolCommand::Man(_)) => "man",
        }
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
    use std::path::PathBuf;

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
        let Some(Command::Guard(guard)) =
            parse(&["council", "guard", "--dry-run", "--close-on-fail=false"]).command
        else {
            panic!("guard")
        };
        assert_eq!(guard.dry_run.dry_run, Some(true));
        assert_eq!(guard.close_on_fail, Some(false));
        assert!(Cli::parse_from_iter(["council", "guard", "--dry-run=yes"]).is_err());
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
        let Some(Command::Context(ContextCommand::Sync(sync))) = parse(&[
            "council", "context", "sync", "--issue", "#3", "--file", "X.md",
        ])
        .command
        else {
            panic!("context sync")
        };
        assert_eq!(sync.context.context_file.as_deref(), Some("X.md"));
        assert_eq!(sync.issue.issue, Some(3));
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
