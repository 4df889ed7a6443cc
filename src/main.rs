use clap::Parser;

use agent_council::cli::Cli;
use agent_council::error::Error;
use agent_council::runner::Level;
use agent_council::settings::{RunnerEnv, Settings};

fn main() {
    // A bug must still end inside the contract's exit codes, with a message.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: council hit an internal error ({info}); this is a bug, please report it");
        std::process::exit(3);
    }));
    let cli = Cli::parse();
    let env = RunnerEnv::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let settings = match Settings::resolve(cli, &env, cwd) {
        Ok(settings) => settings,
        Err(e) => fail(None, &e),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => fail(
            Some(&settings),
            &Error::Usage(format!("cannot start the async runtime: {e}")),
        ),
    };
    match runtime.block_on(agent_council::app::run(settings.clone())) {
        Ok(outcome) => std::process::exit(outcome.exit_code()),
        Err(e) => fail(Some(&settings), &e),
    }
}

/// Reports an error where the user will look (annotation + summary in Actions) and exits
/// with its contract code.
fn fail(settings: Option<&Settings>, e: &Error) -> ! {
    match settings {
        Some(s) => {
            s.runner.annotate(Level::Error, e.title(), &e.to_string());
            let _ = s.runner.append_summary(&format!(
                "### agent-council · error\n\n{}\n",
                agent_council::render::text::escape_text(&e.to_string())
            ));
        }
        None => eprintln!("error: {e}"),
    }
    std::process::exit(e.exit_code())
}
