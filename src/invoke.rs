//! One invocation of `council`, as the process runs it and as a test runs it in-process:
//! the command line parsed, the environment read, the request resolved and run, and the
//! exit code. `main` adds only the panic hook, the async runtime and `exit`.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::cli::{Cli, Command};
use crate::env::{RunEnv, Vars};
use crate::request::{self, Request};
use crate::runner::{Level, Sink};
use crate::{app, exit, mcp};

/// Runs `args` (the program's name first) with the variables `vars`, in `cwd`; what it
/// prints goes to `sink`. The exit code, decided as the contract says.
pub async fn invoke(args: &[OsString], vars: Vars, cwd: PathBuf, sink: Sink) -> i32 {
    let mut runner = vars.runner();
    runner.sink = sink.clone();
    let cli = match Cli::parse_with(args, &|name| vars.input(name)) {
        Ok(cli) => cli,
        Err(e) => return exit::refused(&runner, args, e),
    };
    // Authoring tools read and write local files only: no environment, event or token.
    if let Some(Command::Tool(tool)) = &cli.command
        && tool.is_local()
    {
        return match app::authoring::run(tool, &cwd, &runner) {
            Ok(outcome) => exit::outcome_code(outcome),
            Err(e) => exit::failed(&runner, &e),
        };
    }
    let mut env = match RunEnv::resolve(vars, cwd) {
        Ok(env) => env,
        Err(e) => return exit::failed(&runner, &e),
    };
    env.runner.sink = sink;
    let (request, warnings) = match request::resolve(cli, &env) {
        Ok(resolved) => resolved,
        Err(e) => return exit::failed(&env.runner, &e),
    };
    for warning in &warnings {
        if matches!(request, Request::Mcp(_)) {
            // stdout is the MCP server's protocol stream, even inside Actions.
            env.runner.eprintln(&format!("warning: {warning}"));
        } else {
            env.runner.annotate(Level::Warning, "council", warning);
        }
    }
    if let Request::Mcp(req) = request {
        // stdout is the protocol's: an error that stops the server goes to stderr only.
        return match mcp::serve(env.clone(), *req).await {
            Ok(()) => 0,
            Err(e) => {
                env.runner.eprintln(&format!("error: {e}"));
                exit::code(&e)
            }
        };
    }
    match app::run(&env, &request).await {
        Ok(outcome) => exit::outcome_code(outcome),
        Err(e) => exit::failed(&env.runner, &e),
    }
}
