//! How a run ends, in one place: the exit code of an outcome or an error, told in the one
//! error style (`error: …` on a terminal; an annotation and a summary section in Actions)
//! with the outputs written (every stage `PENDING`) so that a workflow can read them.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::runner::Runner;
use council_protocol::error::{Error, Outcome};
use council_protocol::stage::Outputs;

/// Ends the process with an outcome's code.
pub fn with(outcome: Outcome) -> ! {
    std::process::exit(outcome.exit_code())
}

/// Ends the process on an error that stopped the run before (or instead of) a verdict.
pub fn failed(runner: &Runner, e: &Error) -> ! {
    let _ = runner.set_outputs(&Outputs::pending().pairs());
    runner.report(e);
    std::process::exit(e.exit_code())
}

/// Ends the process on a command line clap refused. Help and version are not errors. In
/// Actions an input with a bad value (`INPUT_DRY-RUN=yes`) is a usage error like any
/// other (outputs, annotation, exit 2); on a terminal clap says it, or, when flags of a
/// subcommand came before its name, where they go.
pub fn refused(runner: &Runner, args: &[OsString], e: clap::Error) -> ! {
    let help = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !help && (runner.actions || e.kind() == ErrorKind::ValueValidation) {
        failed(runner, &Error::Usage(usage_message(&e)));
    }
    crate::cli::flag_order::exit(args, e)
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
