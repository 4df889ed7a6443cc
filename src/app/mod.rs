//! The only orchestrator: load inputs → decide (pure) → apply effects → report.

mod audit;
mod audit_file;
pub(crate) mod columns;
mod context;
mod effects;
mod facts;
mod finish;
pub(crate) mod git;
mod input_file;
pub(crate) mod ledger;
pub(crate) mod marked_comment;
mod pipeline;
pub(crate) mod policy_source;
mod pulls_of_event;
pub(crate) mod reports;
pub(crate) mod run_json;
pub(crate) mod state;
pub mod tools;
mod two_phase;
mod upload;
pub(crate) mod verify;
mod workspace_file;

use std::io::Read;
use std::path::Path;

use crate::runner::Level;
use crate::settings::{CommandKind, Secret, Settings};
use council_github::{GitHub, GitHubConfig, RepoName};
use council_protocol::command::Command;
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::plan::{Plan, command_for};
use council_protocol::stage::Outputs;

/// Runs the command. Whatever happens, the run's outputs are written: an error before a
/// stage could decide leaves every status `PENDING` (SPEC: exit 3 included).
pub async fn run(settings: Settings) -> Result<Outcome> {
    mask_derived_secrets(&settings);
    let result = dispatch(&settings).await;
    if result.is_err() {
        let _ = settings.runner.set_outputs(&Outputs::pending().pairs());
    }
    result
}

async fn dispatch(settings: &Settings) -> Result<Outcome> {
    match &settings.command {
        CommandKind::Auto => {
            let event = load_event(settings)?;
            match command_for(&event, settings.registry_issue.is_some()) {
                Plan::Run(command) => run_command(settings, command, Some(event)).await,
                Plan::Nothing(why) => nothing_to_do(settings, &why),
            }
        }
        CommandKind::Run(command) => run_command(settings, *command, None).await,
        CommandKind::ContextShow => context::show(settings),
        CommandKind::Audit(task) => audit::run(settings, task).await,
        // `main` serves `council mcp` itself (it is no action command).
        CommandKind::Mcp => Err(Error::Usage(
            "`council mcp` is a server: run it as `council mcp`, not as the action's command"
                .to_string(),
        )),
    }
}

/// One command, on the event `auto` planned it for (`None`: the command was asked for,
/// and reads `--event`/`--pr`/`--issue` itself).
async fn run_command(
    settings: &Settings,
    command: Command,
    event: Option<Event>,
) -> Result<Outcome> {
    match command {
        Command::Guard | Command::Review => pipeline::command(settings, command, event).await,
        Command::Release => pipeline::release(settings, event).await,
        Command::StateGet => state::get(settings, event).await,
        Command::StatePut => state::put(settings, event).await,
        Command::ContextValidate => context::validate(settings),
        Command::ContextSync => context::sync(settings, event).await,
        Command::Report => reports::report(settings).await,
        Command::Assign => reports::assign(settings, event).await,
        Command::Verify => verify::run(settings, &settings.verify),
    }
}

/// The runner masks the tokens it hands us (secrets, `github.token`), but not forms
/// derived from them: the Basic-auth encoding git and some tools print is masked here.
/// The raw token is never written, not even in a mask command.
fn mask_derived_secrets(settings: &Settings) {
    use base64::Engine as _;
    if !settings.in_actions {
        return;
    }
    for token in [&settings.token, &settings.release_token]
        .into_iter()
        .flatten()
    {
        let basic = base64::engine::general_purpose::STANDARD
            .encode(format!("x-access-token:{}", token.expose()));
        println!("::add-mask::{basic}");
    }
}

/// Nothing to do is a notice, told once (on stderr on a terminal); `--json` prints its
/// document on stdout as well.
fn nothing_to_do(settings: &Settings, why: &str) -> Result<Outcome> {
    settings.runner.annotate(Level::Notice, "council", why);
    settings.runner.set_outputs(&Outputs::pending().pairs())?;
    if settings.json {
        println!("{}", run_json::nothing_to_do(settings, why));
    }
    Ok(Outcome::Passed)
}

/// Event payloads are at most 25 MB on GitHub; anything larger is not an event.
const MAX_EVENT_BYTES: u64 = 32 << 20;

fn load_event(settings: &Settings) -> Result<Event> {
    let source = settings.event.as_ref().ok_or_else(|| {
        Error::Usage(
            "no event: outside GitHub Actions pass --event FILE --event-name NAME \
             (e.g. --event examples/pull_request.opened.json --event-name pull_request)"
                .to_string(),
        )
    })?;
    let shown = display_path(&settings.workspace, &source.path);
    let text = read_text(&source.path, MAX_EVENT_BYTES).map_err(|e| match e {
        ReadError::Io(e) => Error::io("event file", &shown, e),
        ReadError::TooLarge => Error::Event {
            path: shown.clone(),
            message: format!(
                "larger than {} MiB: not a webhook payload",
                MAX_EVENT_BYTES >> 20
            ),
        },
        ReadError::NotUtf8 => Error::Event {
            path: shown.clone(),
            message: "not valid UTF-8".to_string(),
        },
    })?;
    Event::parse(&source.name, &text, &shown)
}

pub(crate) enum ReadError {
    Io(std::io::Error),
    TooLarge,
    NotUtf8,
}

/// A local text file of at most `max` bytes, read without trusting its reported size
/// (`/dev/zero` and FIFOs report none).
pub(crate) fn read_text(path: &Path, max: u64) -> std::result::Result<String, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    read_open(file, max)
}

/// [`read_text`] of a file already opened (and, say, checked to be a regular file).
pub(crate) fn read_open(file: std::fs::File, max: u64) -> std::result::Result<String, ReadError> {
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)
}

/// A path as messages, files and comments show it: relative to the workspace when inside
/// it, else just its file name (a runner's absolute paths mean nothing to a reader and
/// tell an attacker about the machine).
pub(crate) fn display_path(workspace: &Path, path: &Path) -> String {
    if path.is_relative() {
        return path.display().to_string();
    }
    match path.strip_prefix(workspace) {
        Ok(inside) => inside.display().to_string(),
        Err(_) => path.file_name().map_or_else(
            || "the file".to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    }
}

/// The repository the run acts on: `--repo`/`GITHUB_REPOSITORY`, else the event's.
fn repository(settings: &Settings, event: &Event) -> Result<RepoName> {
    repository_of(settings, Some(event))
}

pub(crate) fn repository_of(settings: &Settings, event: Option<&Event>) -> Result<RepoName> {
    let full = settings
        .repo
        .clone()
        .or_else(|| event.and_then(|e| e.repository.clone()))
        .ok_or_else(|| {
            Error::Usage(
                "no repository: set GITHUB_REPOSITORY or pass --repo owner/name".to_string(),
            )
        })?;
    RepoName::parse(&full)
        .ok_or_else(|| Error::Usage(format!("`{full}` is not an owner/name repository")))
}

/// A client for one token; `None` means "no API calls possible with it". A dry run's
/// clients refuse every write themselves.
pub(crate) fn github_client(
    settings: &Settings,
    repo: &RepoName,
    token: Option<&Secret>,
) -> Result<Option<GitHub>> {
    let Some(token) = token else {
        return Ok(None);
    };
    let config = GitHubConfig {
        api_url: settings.api_url.clone(),
        graphql_url: settings.graphql_url.clone(),
        token: Some(token.expose().to_string()),
        retry: settings.retry,
        read_only: settings.dry_run,
    };
    GitHub::new(&config, repo.clone()).map(Some)
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn run_url(settings: &Settings, repo: &RepoName) -> Option<String> {
    (settings.run.run_id != "local").then(|| {
        format!(
            "{}/{}/actions/runs/{}/attempts/{}",
            settings.server_url, repo, settings.run.run_id, settings.run.run_attempt
        )
    })
}
