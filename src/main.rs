use agent_council::cli::{Cli, Command};
use agent_council::env::{RunEnv, Vars};
use agent_council::request::{self, Request};
use agent_council::runner::{Level, workflow_command};
use agent_council::{app, exit, mcp};
use council_protocol::error::Error;

fn main() {
    // A bug must still end inside the contract's exit codes, with a message in the one
    // error style (an annotation in Actions).
    std::panic::set_hook(Box::new(|info| {
        let message =
            format!("council hit an internal error ({info}); this is a bug, please report it");
        if std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true") {
            println!(
                "{}",
                workflow_command(Level::Error, "council: internal error", &message)
            );
        } else {
            eprintln!("error: {message}");
        }
        std::process::exit(3);
    }));
    let vars = Vars::from_process();
    let runner = vars.runner();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = Cli::parse_from_iter(&args).unwrap_or_else(|e| exit::refused(&runner, &args, e));
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    // Authoring tools read and write local files only: no environment, event or token.
    if let Some(Command::Tool(tool)) = &cli.command
        && tool.is_local()
    {
        match app::authoring::run(tool, &cwd) {
            Ok(outcome) => exit::with(outcome),
            Err(e) => exit::failed(&runner, &e),
        }
    }
    let env = RunEnv::resolve(vars, cwd).unwrap_or_else(|e| exit::failed(&runner, &e));
    let (request, warnings) =
        request::resolve(cli, &env).unwrap_or_else(|e| exit::failed(&runner, &e));
    for warning in &warnings {
        if matches!(request, Request::Mcp(_)) {
            // stdout is the MCP server's protocol stream, even inside Actions.
            eprintln!("warning: {warning}");
        } else {
            env.runner.annotate(Level::Warning, "council", warning);
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| {
            let e = Error::Usage(format!("cannot start the async runtime: {e}"));
            exit::failed(&env.runner, &e)
        });
    if let Request::Mcp(req) = request {
        // stdout is the protocol's: an error that stops the server goes to stderr only.
        match runtime.block_on(mcp::serve(env, *req)) {
            Ok(()) => std::process::exit(0),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(e.exit_code())
            }
        }
    }
    match runtime.block_on(app::run(&env, &request)) {
        Ok(outcome) => exit::with(outcome),
        Err(e) => exit::failed(&env.runner, &e),
    }
}
