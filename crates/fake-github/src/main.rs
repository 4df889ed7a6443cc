//! `fake-github`: serves a world file on 127.0.0.1 until Ctrl-C, to try every `council`
//! command without GitHub. Prints one line on stdout, the environment to export (so
//! `… > env.sh` then `source env.sh` works too); the rest goes to stderr.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use council_fake_github::{fixture, standalone};

/// A fake GitHub holding the repository a world file describes, for trying `council`
/// offline. Writes (comments, labels, merges) change the world in memory: later commands
/// see them; nothing is saved.
#[derive(Parser)]
#[command(name = "fake-github", version)]
struct Args {
    /// The world file (YAML), e.g. examples/fake-world/world.yml
    #[arg(long, value_name = "FILE")]
    world: PathBuf,
    /// The port on 127.0.0.1 (default: any free one)
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Print each request on stderr as it is answered
    #[arg(long)]
    log: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let started = std::time::Instant::now();
    let loaded = match fixture::load(&args.world) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("fake-github: {e}");
            return ExitCode::from(2);
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "fake-github: cannot listen on 127.0.0.1:{}: {e} (another --port, or none \
                 for any free one)",
                args.port
            );
            return ExitCode::from(2);
        }
    };
    if let Some(made) = &loaded.generated {
        eprintln!(
            "fake-github: generated {} pull requests ({} open, {} merged, {} closed, {} \
             reverted; {} timeline entries; {} context reports; {} audit artifacts) in {:.1} s",
            made.numbers.len(),
            made.open,
            made.merged,
            made.closed,
            made.reverted,
            made.entries,
            made.reports,
            made.artifacts,
            started.elapsed().as_secs_f64()
        );
    }
    let environment = loaded.environment;
    let served = standalone::serve(loaded.world, listener, args.log).await;
    let exports: Vec<String> = environment
        .variables(&served.uri())
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    println!("export {}", exports.join(" "));
    eprintln!(
        "fake-github: {} from {} on {}: export the line above where you run council; \
         Ctrl-C stops it; GET /_fake/requests counts the requests answered",
        environment.repo,
        args.world.display(),
        served.uri()
    );
    // Until Ctrl-C, whose default action ends the process: there is nothing to save.
    std::future::pending::<()>().await;
    ExitCode::SUCCESS
}
