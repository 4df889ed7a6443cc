//! How a run ends, in one place: the exit code of an outcome or an error, told in the one
//! error style (`error: …` on a terminal; an annotation and a summary section in Actions)
//! with the outputs written (every stage `PENDING`) so that a workflow can read them.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::runner::Runner;
use council_protocol::error::{Error, Kind, Outcome};
use council_protocol::stage::Outputs;

/// The contract's exit code of an error's kind: 1 tampering was found (a result, like a
/// failed gate), 2 bad usage, policy or input, 3 a service failed after bounded retries.
pub fn kind_code(kind: Kind) -> i32 {
    match kind {
        Kind::Tampered => 1,
        Kind::BadInput => 2,
        Kind::Service => 3,
    }
}

pub fn code(e: &Error) -> i32 {
    kind_code(e.kind())
}

/// The exit code of how a run ended: 0 passed, 1 a gate failed, 3 every gate passed and
/// an effect failed; an undecided stage, its error's.
pub fn outcome_code(outcome: Outcome) -> i32 {
    match outcome {
        Outcome::Passed => 0,
        Outcome::GateFailed => 1,
        Outcome::EffectFailed => 3,
        Outcome::Unfinished(kind) => kind_code(kind),
    }
}

/// A one-line title for the error's `::error title=…::` annotation.
pub fn title(e: &Error) -> &'static str {
    match e {
        Error::Usage(_) => "council: bad usage",
        Error::Event { .. } => "council: bad event",
        Error::Policy { .. } => "council: bad policy",
        Error::Input(_) => "council: bad input",
        Error::Io { .. } => "council: file error",
        Error::Api(_) => "council: GitHub API failed",
        Error::Artifact(_) => "council: artifact upload failed",
        Error::Tampered(_) => "council: audit file tampered",
        Error::Store(_) => "council: audit store failed",
    }
}

/// The step summary's section for an error.
pub fn summary_section(e: &Error) -> String {
    format!(
        "### agent-council · error\n\n{}\n",
        council_protocol::render::text::escape_text(&e.to_string())
    )
}

/// No token for the GitHub API where one is needed; `why` says what needs it. The fix
/// names every way to give one, for a workflow and for the CLI.
pub fn no_token(why: impl std::fmt::Display) -> Error {
    Error::Usage(format!(
        "no GitHub token: {why}. In a workflow set the `github-token` input (its default \
         `${{{{ github.token }}}}` is enough); on the CLI set GH_TOKEN or GITHUB_TOKEN"
    ))
}

/// The code of an error that stopped the run before (or instead of) a verdict, once
/// told.
pub fn failed(runner: &Runner, e: &Error) -> i32 {
    let _ = runner.set_outputs(&Outputs::pending().pairs());
    runner.report(e);
    code(e)
}

/// The code of a command line clap refused, once told. Help and version are not errors
/// (exit 0, on stdout). In Actions an input with a bad value (`INPUT_DRY-RUN=yes`) is a
/// usage error like any other (outputs, annotation, exit 2), and so is a bad value on a
/// terminal (one line); flags of a subcommand given before its name are told where they
/// go; anything else is clap's own message.
pub fn refused(runner: &Runner, args: &[OsString], e: clap::Error) -> i32 {
    let help = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !help && (runner.actions || e.kind() == ErrorKind::ValueValidation) {
        return failed(runner, &Error::Usage(usage_message(&e)));
    }
    if !help && let Some(hint) = crate::cli::flag_order::hint(args) {
        // Outside Actions (above): the terminal's error line, redacted and with controls
        // shown, as every other error's.
        runner.error("council", &hint);
        return 2;
    }
    let text = e.render().to_string();
    match e.use_stderr() {
        true => runner.sink_stderr(&text),
        false => runner.print(&text),
    }
    e.exit_code()
}

/// A refused value said as the contract says bad input: which input, what is wrong
/// (`input `dry-run` (--dry-run): `yes` is not a boolean; use true or false`).
fn usage_message(e: &clap::Error) -> String {
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => Some(arg.clone()),
        _ => None,
    };
    let flag = arg.as_deref().and_then(|a| {
        let long = a.strip_prefix("--")?;
        let end = long.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))?;
        long.get(..end)
    });
    let first = e.render().to_string();
    let line = first.lines().next().unwrap_or_default();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    match (e.kind(), flag) {
        (ErrorKind::ValueValidation, Some(flag)) => {
            let why = line.split_once("': ").map_or(line, |(_, why)| why);
            match crate::cli::input_names().iter().any(|i| i == flag) {
                true => format!("input `{flag}` (--{flag}): {why}"),
                false => format!("--{flag}: {why}"),
            }
        }
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_contract() {
        assert_eq!(code(&Error::Usage("x".into())), 2);
        let policy = Error::Policy {
            location: "a:1:1".into(),
            message: "m".into(),
        };
        assert_eq!(code(&policy), 2);
        assert_eq!(code(&Error::Api("x".into())), 3);
        assert_eq!(code(&Error::Artifact("x".into())), 3);
        assert_eq!(code(&Error::Store("x".into())), 3);
        assert_eq!(code(&Error::Tampered("x".into())), 1);
        assert_eq!(outcome_code(Outcome::Passed), 0);
        assert_eq!(outcome_code(Outcome::GateFailed), 1);
        assert_eq!(outcome_code(Outcome::EffectFailed), 3);
        assert_eq!(outcome_code(Outcome::Unfinished(Kind::BadInput)), 2);
    }
}
