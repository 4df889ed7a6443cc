//! A pull-request run: read what the stages need (the event, the base-branch policy),
//! evaluate the planned stages in order (a stage runs only while every gate before it
//! passed), then [`finish`]. Each stage's reading lives in `stages/<stage>.rs`; its
//! decision is pure, in `crate::stage`.

use super::finish::{PrRun, finish};
use super::stages::{self, Evaluated, StageInput};
use super::{github_client, load_event, policy_source, repository, run_url, two_phase};
use crate::error::{Error, Outcome, Result};
use crate::event::{Event, PullRequest};
use crate::github::{GitHub, RepoName};
use crate::settings::Settings;
use crate::stage::{Stage, StageResult};

/// The repository and the two clients a run acts with.
pub struct Clients {
    pub repo: RepoName,
    /// The workflow token's client (`None`: no token).
    pub gh: Option<GitHub>,
    /// The release token's client: merges (and reverts) only.
    pub release: Option<GitHub>,
}

impl Clients {
    pub fn new(settings: &Settings, event: &Event) -> Result<Clients> {
        let repo = repository(settings, event)?;
        Ok(Clients {
            gh: github_client(settings, &repo, settings.token.as_ref())?,
            release: github_client(settings, &repo, settings.release_token.as_ref())?,
            repo,
        })
    }
}

/// The pull request of a `pull_request`/`pull_request_target` event through `stages`.
pub async fn run(settings: &Settings, event: &Event, stages: &[Stage]) -> Result<Outcome> {
    let pr = event.pull_request()?;
    let clients = Clients::new(settings, event)?;
    run_pr(settings, event, &clients, &pr, stages).await
}

/// `command: guard|review` (and `council guard|review`): the pull request named by
/// `--pr`, else the event's, else (review on `workflow_run`) every pull request of the
/// triggering run. Review runs behind the guard, as in `auto`.
pub async fn command(settings: &Settings, stage: Stage) -> Result<Outcome> {
    let stages = match stage {
        Stage::Review => vec![Stage::Guard, Stage::Review],
        other => vec![other],
    };
    let event = match settings.event {
        Some(_) => load_event(settings)?,
        None => Event::local(),
    };
    let clients = Clients::new(settings, &event)?;
    if let Some(number) = settings.pr {
        let gh = clients.gh.as_ref().ok_or_else(|| {
            Error::Usage(format!(
                "--pr {number}: the pull request is read through the API; set `github-token`"
            ))
        })?;
        let pr = gh.get_pull(number).await?;
        return run_pr(settings, &event, &clients, &pr, &stages).await;
    }
    if event.is_pull_request_event() {
        let pr = event.pull_request()?;
        return run_pr(settings, &event, &clients, &pr, &stages).await;
    }
    if stage == Stage::Review && event.name == "workflow_run" {
        return two_phase::apply(settings, &event, &clients, &stages).await;
    }
    Err(Error::Usage(format!(
        "{stage} runs on pull_request or pull_request_target events, not `{}`; pass --pr N{}",
        event.name,
        if stage == Stage::Review {
            ", or run it on `workflow_run` after the pull request's workflow (two-phase)"
        } else {
            ""
        }
    )))
}

/// One pull request through the planned stages, then [`finish`]. An error before any
/// stage decided is the run's error; a later stage that cannot decide leaves the
/// earlier verdicts standing (SPEC: exit 3 with what was decided so far).
pub async fn run_pr(
    settings: &Settings,
    event: &Event,
    clients: &Clients,
    pr: &PullRequest,
    stages: &[Stage],
) -> Result<Outcome> {
    let policy = policy_source::load(settings, clients.gh.as_ref(), &pr.base_ref).await?;
    let url = run_url(settings, &clients.repo);
    let mut results: Vec<StageResult> = Vec::new();
    let mut unfinished: Option<Error> = None;
    for &stage in stages {
        if results.iter().any(StageResult::failed) {
            break;
        }
        let input = StageInput {
            settings,
            event,
            clients,
            pr,
            policy: &policy,
            run_url: url.as_deref(),
        };
        match stages::evaluate(stage, &input).await {
            Ok(Evaluated::Decided(result)) => results.push(result),
            Ok(Evaluated::Skipped(note)) => {
                if let Some(last) = results.last_mut() {
                    last.notes.push(note);
                }
            }
            Err(e) if results.is_empty() => return Err(e),
            Err(e) => {
                unfinished = Some(e);
                break;
            }
        }
    }
    let run = PrRun {
        settings,
        event,
        repo: &clients.repo,
        pr,
        gh: clients.gh.as_ref(),
        release: clients.release.as_ref(),
    };
    Ok(finish(&run, results, unfinished).await)
}
