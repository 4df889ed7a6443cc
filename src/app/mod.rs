//! The only orchestrator: load inputs → decide (pure) → apply effects → report.

mod audit;
mod audit_file;
pub mod authoring;
mod clients;
pub(crate) mod columns;
mod context;
mod effects;
mod finish;
pub(crate) mod git;
mod input_file;
pub(crate) mod ledger;
pub(crate) mod marked_comment;
mod pipeline;
pub(crate) mod policy_source;
pub(crate) mod pr_ledger;
mod pulls_of_event;
pub(crate) mod queue;
pub(crate) mod registry;
pub(crate) mod run_json;
mod stages;
pub(crate) mod state;
mod two_phase;
mod upload;
pub(crate) mod verify;
mod workspace_file;

use std::io::Read;
use std::path::Path;

use crate::env::{EventSource, RunEnv};
use crate::request::{Access, Request};
use crate::runner::Level;
use crate::secret::Secret;
use council_github::{GitHub, RepoName};
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::plan::{Plan, command_for};
use council_protocol::stage::Outputs;

/// Runs the request. Whatever happens, the run's outputs are written: an error before a
/// stage could decide leaves every status `PENDING` (SPEC: exit 3 included).
pub async fn run(env: &RunEnv, request: &Request) -> Result<Outcome> {
    mask_derived_secrets(env, request);
    let result = dispatch(env, request).await;
    if result.is_err() {
        let _ = env.runner.set_outputs(&Outputs::pending().pairs());
    }
    result
}

/// `auto` loads the event (once: the command it plans gets it) and plans from it; every
/// other request is its own command.
async fn dispatch(env: &RunEnv, request: &Request) -> Result<Outcome> {
    match request {
        Request::Auto(auto) => {
            let event = load_event(env, auto.event.as_ref())?;
            match command_for(&event, auto.registry_issue().is_some()) {
                Plan::Run(command) => {
                    let planned = auto.for_command(command, env)?;
                    run_command(env, &planned, Some(event)).await
                }
                Plan::Nothing(why) => nothing_to_do(env, "auto", auto.json, &why),
            }
        }
        other => run_command(env, other, None).await,
    }
}

/// One command, on the event `auto` planned it for (`None`: the command was asked for,
/// and reads `--event`/`--pr`/`--issue` itself).
async fn run_command(env: &RunEnv, request: &Request, event: Option<Event>) -> Result<Outcome> {
    match request {
        Request::Pipeline(r) => pipeline::run(env, r, event).await,
        Request::StateGet(r) => state::get(env, r, event).await,
        Request::StatePut(r) => state::put(env, r, event).await,
        Request::ContextValidate(r) => context::validate(env, r),
        Request::ContextShow(r) => context::show(env, r),
        Request::ContextSync(r) => context::sync(env, r, event).await,
        Request::Report(r) => registry::report(env, r).await,
        Request::Assign(r) => registry::assign(env, r, event).await,
        Request::Verify(r) => verify::run(env, r),
        Request::Audit(r) => audit::run(env, r).await,
        // `main` serves `council mcp` itself; `auto` was planned above.
        Request::Mcp(_) | Request::Auto(_) => Err(Error::Usage(format!(
            "`{}` cannot run here: run `council mcp` as a server, and `auto` on an event",
            request.name()
        ))),
    }
}

/// The runner masks the tokens it hands us (secrets, `github.token`), but not forms
/// derived from them: the Basic-auth encoding git and some tools print is masked here.
/// The raw token is never written, not even in a mask command.
fn mask_derived_secrets(env: &RunEnv, request: &Request) {
    use base64::Engine as _;
    if !env.in_actions {
        return;
    }
    for token in tokens(request) {
        let basic = base64::engine::general_purpose::STANDARD
            .encode(format!("x-access-token:{}", token.expose()));
        env.runner.println(&format!("::add-mask::{basic}"));
    }
}

/// The GitHub tokens a request holds.
fn tokens(request: &Request) -> Vec<&Secret> {
    let (workflow, release) = match request {
        Request::Pipeline(r) => (r.access.token.as_ref(), r.release_token.as_ref()),
        Request::StateGet(r) => (r.target.access.token.as_ref(), None),
        Request::StatePut(r) => (r.target.access.token.as_ref(), None),
        Request::ContextSync(r) => (r.target.access.token.as_ref(), None),
        Request::Report(r) => (r.target.access.token.as_ref(), None),
        Request::Assign(r) => (r.target.access.token.as_ref(), None),
        Request::Auto(_)
        | Request::ContextValidate(_)
        | Request::ContextShow(_)
        | Request::Verify(_)
        | Request::Audit(_)
        | Request::Mcp(_) => (None, None),
    };
    workflow.into_iter().chain(release).collect()
}

/// Nothing to do is a notice, told once (on stderr on a terminal); `--json` prints its
/// document on stdout as well.
fn nothing_to_do(env: &RunEnv, command: &str, json: bool, why: &str) -> Result<Outcome> {
    env.runner.annotate(Level::Notice, "council", why);
    env.runner.set_outputs(&Outputs::pending().pairs())?;
    if json {
        env.runner
            .println(&run_json::nothing_to_do(command, why).to_string());
    }
    Ok(Outcome::Passed)
}

/// Event payloads are at most 25 MB on GitHub; anything larger is not an event.
const MAX_EVENT_BYTES: u64 = 32 << 20;

/// The event a run is about, read from its file (the runner's, or `--event`).
pub(crate) fn load_event(env: &RunEnv, source: Option<&EventSource>) -> Result<Event> {
    let source = source.ok_or_else(|| {
        Error::Usage(
            "no event: outside GitHub Actions pass --event FILE --event-name NAME \
             (e.g. --event examples/pull_request.opened.json --event-name pull_request)"
                .to_string(),
        )
    })?;
    let shown = display_path(&env.workspace, &source.path);
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

/// The repository a command acts on: `--repo`/`GITHUB_REPOSITORY`, else the event's.
pub(crate) fn repository(access: &Access, event: Option<&Event>) -> Result<RepoName> {
    let full = access
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

/// The workflow token's client for `repo`; `None` means "no API calls possible". A dry
/// run's client refuses every write itself.
pub(crate) fn client(env: &RunEnv, access: &Access, repo: &RepoName) -> Result<Option<GitHub>> {
    env.github(repo, access.token.as_ref(), access.dry_run)
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
