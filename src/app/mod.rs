//! The only orchestrator: load inputs → decide (pure) → apply effects → report.

mod guard;
mod ledger;
mod policy_source;
mod record;
mod state;
mod verify;

use std::path::{Path, PathBuf};

use crate::audit::ContextObject;
use crate::error::{Error, Outcome, Result};
use crate::event::Event;
use crate::github::{GitHub, GitHubConfig, RepoName};
use crate::plan::{Plan, Stage, stages_for};
use crate::runner::Level;
use crate::settings::{CommandKind, Settings};

pub async fn run(settings: Settings) -> Result<Outcome> {
    mask_derived_secrets(&settings);
    match &settings.command {
        CommandKind::Auto => {
            let event = load_event(&settings)?;
            match stages_for(&event, settings.registry_issue.is_some()) {
                Plan::Run(Stage::GuardThenReview) => guard::run(&settings, &event).await,
                Plan::Run(Stage::StateGet) => state::get(&settings, Some(event)).await,
                Plan::Run(stage) => not_available(&settings, stage_name(stage)),
                Plan::Nothing(why) => nothing_to_do(&settings, &why),
            }
        }
        CommandKind::Guard => {
            let event = load_event(&settings)?;
            if !event.is_pull_request_event() {
                return Err(Error::Usage(format!(
                    "guard runs on pull_request or pull_request_target events, not `{}`",
                    event.name
                )));
            }
            guard::run(&settings, &event).await
        }
        CommandKind::Verify(options) => verify::run(&settings, options),
        CommandKind::StateGet => state::get(&settings, None).await,
        CommandKind::StatePut => state::put(&settings, None).await,
        other => not_available(&settings, other.name()),
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

fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::GuardThenReview => "guard",
        Stage::Release | Stage::ReleasePostMerge => "release",
        Stage::StateGet => "state-get",
        Stage::Assign => "assign",
    }
}

/// Stages SPEC.md names that this build does not implement yet: say so plainly, exit 0.
fn not_available(settings: &Settings, what: &str) -> Result<Outcome> {
    let why = format!("`{what}` is not available in this version of council; nothing was done");
    nothing_to_do(settings, &why)
}

fn nothing_to_do(settings: &Settings, why: &str) -> Result<Outcome> {
    settings.runner.annotate(Level::Notice, "council", why);
    settings.runner.set_outputs(&pending_outputs())?;
    if !settings.in_actions {
        println!("{why}");
    }
    Ok(Outcome::Passed)
}

fn pending_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("guard-status", "PENDING".to_string()),
        ("review-status", "PENDING".to_string()),
        ("release-status", "PENDING".to_string()),
        ("artifact-id", String::new()),
    ]
}

fn load_event(settings: &Settings) -> Result<Event> {
    let source = settings.event.as_ref().ok_or_else(|| {
        Error::Usage(
            "no event: outside GitHub Actions pass --event FILE --event-name NAME \
             (e.g. --event examples/pull_request.opened.json --event-name pull_request)"
                .to_string(),
        )
    })?;
    let text = read_capped(&source.path)?;
    Event::parse(&source.name, &text, &source.path.display().to_string())
}

/// Event payloads are at most 25 MB on GitHub; anything larger is not an event.
fn read_capped(path: &Path) -> Result<String> {
    const MAX: u64 = 32 << 20;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.len() > MAX {
        return Err(Error::Event {
            path: path.display().to_string(),
            message: format!("{} bytes is larger than any webhook payload", meta.len()),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| Error::Event {
        path: path.display().to_string(),
        message: "not valid UTF-8".to_string(),
    })
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

/// A client when there is a token; `None` means "no API calls possible".
fn github_client(settings: &Settings, repo: &RepoName) -> Result<Option<GitHub>> {
    let Some(token) = &settings.token else {
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

/// Writes `out/audit/PR-<n>.json` under the workspace; returns the workspace-relative path.
fn write_audit(settings: &Settings, ctx: &ContextObject) -> Result<String> {
    let relative = format!("out/audit/{}.json", ctx.context_id);
    let path: PathBuf = settings.workspace.join(&relative);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    // Write then rename, so a reader never sees half a file.
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, ctx.to_pretty_json()).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
    Ok(relative)
}
