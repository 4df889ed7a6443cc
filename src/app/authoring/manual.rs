//! Shell completions and man pages, generated from the one CLI definition so they can
//! never disagree with `--help`.

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::runner::Runner;
use council_protocol::error::{Error, Outcome, Result};

/// The completion script on stdout: `council completions bash > ~/.local/share/…`.
pub fn completions(shell: Shell, out: &Runner) -> Result<Outcome> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "council", &mut script);
    out.print(&String::from_utf8_lossy(&script));
    Ok(Outcome::Passed)
}

/// `council.1` and one page per subcommand (`council-state-get.1`), into `dir`.
pub fn man_pages(dir: &Path, out: &Runner) -> Result<Outcome> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("man page directory", dir, e))?;
    let command = Cli::command();
    let written = write_pages(&command, "council", dir)?;
    out.eprintln(&format!("wrote {written} man pages into {}", dir.display()));
    Ok(Outcome::Passed)
}

fn write_pages(command: &clap::Command, name: &str, dir: &Path) -> Result<usize> {
    let command = command.clone().name(name.to_string());
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(|e| Error::Usage(format!("cannot render the man page of {name}: {e}")))?;
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, page).map_err(|e| Error::io("man page", &path, e))?;
    let mut written = 1;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        written += write_pages(sub, &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(written)
}
