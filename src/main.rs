use agent_council::cli::{Cli, Command};
use agent_council::runner::{Level, Runner, workflow_command};
use agent_council::settings::{RunnerEnv, Settings};
use council_protocol::error::Error;
use council_protocol::stage::Outputs;

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
    let cli = Cli::parse_args();
    let env = RunnerEnv::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    // Authoring tools read and write local files only: no settings, event or token.
    if let Some(Command::Tool(tool)) = &cli.command {
        match agent_council::app::tools::run(tool, &cwd) {
            Ok(outcome) => std::process::exit(outcome.exit_code()),
            Err(e) => fail(&env.runner(), &e),
        }
    }
    // `council mcp` keeps its own flags; the run's settings come from the shared ones.
    let mcp = match &cli.command {
        Some(Command::Mcp(args)) => Some(agent_council::mcp::Options {
            read_only: args.read_only,
            tools: args.tools.clone(),
        }),
        _ => None,
    };
    let settings = match Settings::resolve(cli, &env, cwd) {
        Ok(settings) => settings,
        Err(e) => {
            // Bad settings still end like any run: outputs (every stage PENDING), the
            // error where the user looks.
            let runner = env.runner();
            let _ = runner.set_outputs(&Outputs::pending().pairs());
            fail(&runner, &e)
        }
    };
    for warning in &settings.warnings {
        if mcp.is_some() {
            // stdout is the MCP server's protocol stream, even inside Actions.
            eprintln!("warning: {warning}");
        } else {
            settings.runner.annotate(Level::Warning, "council", warning);
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => fail(
            &settings.runner,
            &Error::Usage(format!("cannot start the async runtime: {e}")),
        ),
    };
    if let Some(options) = mcp {
        // stdout is the protocol's: an error that stops the server goes to stderr only.
        match runtime.block_on(agent_council::mcp::serve(settings.clone(), options)) {
            Ok(()) => std::process::exit(0),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(e.exit_code())
            }
        }
    }
    match runtime.block_on(agent_council::app::run(settings.clone())) {
        Ok(outcome) => std::process::exit(outcome.exit_code()),
        Err(e) => fail(&settings.runner, &e),
    }
}

/// Reports an error in the one style (`error: …` on a terminal, annotation + summary in
/// Actions) and exits with its contract code.
fn fail(runner: &Runner, e: &Error) -> ! {
    runner.report(e);
    std::process::exit(e.exit_code())
}
