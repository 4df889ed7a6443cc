//! The authoring tools: commands that only read and write local files (`init`, `policy
//! check`, `completions`, `man`). No event, no token, no API, so they run before any run
//! settings are resolved, and the same way inside and outside Actions.

mod init;
mod manual;
mod policy_check;

use std::path::Path;

use crate::cli::{PolicyCommand, ToolCommand};
use crate::runner::Runner;
use council_protocol::error::{Error, Outcome, Result};

pub fn run(tool: &ToolCommand, cwd: &Path, out: &Runner) -> Result<Outcome> {
    match tool {
        ToolCommand::Init(args) => init::run(args, cwd, out),
        ToolCommand::Policy(PolicyCommand::Check(args)) => policy_check::run(args, cwd, out),
        // An audit command: `invoke` resolves it as a request (it opens the store).
        ToolCommand::Policy(PolicyCommand::Simulate(_)) => Err(Error::Usage(
            "`council policy simulate` runs as an audit command".to_string(),
        )),
        ToolCommand::Completions(args) => manual::completions(args.shell, out),
        ToolCommand::Man(args) => manual::man_pages(&cwd.join(&args.dir), out),
    }
}
