//! How a run ends, in one place: the exit code of an outcome or an error, told in the one
//! error style (`error: …` on a terminal; an annotation and a summary section in Actions)
//! with the outputs written (every stage `PENDING`) so that a workflow can read them.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::runner::Runner;
use council_protocol::error::Error;
use council_protocol::stage::Outputs;

/// The code of an error that stopped the run before (or instead of) a verdict, once
/// told.
pub fn failed(runner: &Runner, e: &Error) -> i32 {
    let _ = runner.set_outputs(&Outputs::pending().pairs());
    runner.report(e);
    e.exit_code()
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
        runner.eprintln(&format!(
            "error: {}",
            council_protocol::redact::shown(&hint)
        ));
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
