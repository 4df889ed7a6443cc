use agent_council::env::Vars;
use agent_council::invoke::invoke;
use agent_council::runner::{Level, Sink, workflow_command};

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
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let vars = Vars::from_process();
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let code = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(invoke(&args, vars, cwd, Sink::Process)),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            3
        }
    };
    std::process::exit(code)
}
