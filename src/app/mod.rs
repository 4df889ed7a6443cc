//! The only orchestrator: load inputs → decide (pure) → apply effects → report.

mod audit_file;
mod context;
mod effects;
mod finish;
mod input_file;
mod ledger;
mod marked_comment;
mod pipeline;
mod policy_source;
mod registry;
mod run_json;
mod stages;
mod state;
mod targets;
mod two_phase;
mod upload;
mod verify;
mod workspace_file;

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Outcome, Result};
use crate::event::Event;
use crate::github::{GitHub, GitHubConfig, RepoName};
use crate::plan::{Plan, stages_for};
use crate::runner::Level;
use crate::settings::{CommandKind, Secret, Settings};
use crate::stage::{Outputs, Stage};

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
    match settings.command {
        CommandKind::Auto => {
            let event = load_event(settings)?;
            match stages_for(&event, settings.registry_issue.is_some()) {
                Plan::Run(stages) => run_stages(settings, event, &stages).await,
                Plan::Nothing(why) => nothing_to_do(settings, &why),
            }
        }
        CommandKind::Run(Stage::Verify) => verify::run(settings, &settings.verify),
        CommandKind::Run(Stage::StateGet) => state::get(settings, None).await,
        CommandKind::Run(Stage::StatePut) => state::put(settings, None).await,
        CommandKind::Run(Stage::ContextValidate) => context::validate(settings),
        CommandKind::Run(Stage::ContextSync) => context::sync(settings, None).await,
        CommandKind::ContextShow => context::show(settings),
        CommandKind::Run(Stage::Report) => registry::report(settings).await,
        CommandKind::Run(Stage::Assign) => registry::assign(settings, None).await,
        CommandKind::Run(stage @ (Stage::Guard | Stage::Review)) => {
            pipeline::command(settings, stage).await
        }
        CommandKind::Run(Stage::Release) => {
            let event = match (&settings.event, settings.pr) {
                (Some(_), _) => load_event(settings)?,
                (None, Some(_)) => Event::cli(Stage::Release.name()),
                (None, None) => {
                    return Err(Error::Usage(
                        "release needs a pull request: --pr N (with --repo owner/name outside \
                         Actions), or an event (--event FILE --event-name NAME)"
                            .to_string(),
                    ));
                }
            };
            pipeline::run_release(settings, &event).await
        }
    }
}

/// The stages `auto` planned for an event.
async fn run_stages(settings: &Settings, event: Event, stages: &[Stage]) -> Result<Outcome> {
    match stages.first() {
        Some(Stage::Guard) => pipeline::run(settings, &event, stages).await,
        Some(Stage::StateGet) => state::get(settings, Some(event)).await,
        Some(Stage::Release) => pipeline::run_release(settings, &event).await,
        Some(Stage::Assign) => registry::assign(settings, Some(event)).await,
        Some(&other) => not_available(settings, other),
        None => nothing_to_do(settings, "no stage to run"),
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

/// Stages SPEC.md names that this build does not implement yet: say so plainly, exit 0.
fn not_available(settings: &Settings, stage: Stage) -> Result<Outcome> {
    let why = format!("`{stage}` is not available in this version of council; nothing was done");
    nothing_to_do(settings, &why)
}

fn nothing_to_do(settings: &Settings, why: &str) -> Result<Outcome> {
    settings.runner.annotate(Level::Notice, "council", why);
    settings.runner.set_outputs(&Outputs::pending().pairs())?;
    if settings.json {
        println!("{}", run_json::nothing_to_do(settings, why));
    } else if !settings.in_actions {
        println!("{why}");
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
        ReadError::Io(e) => Error::io(&shown, e),
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

fn repository_of(settings: &Settings, event: Option<&Event>) -> Result<RepoName> {
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
fn github_client(
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

fn now() -> String {
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
