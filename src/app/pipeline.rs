//! A pull-request run: read what the stages need (the event, the base-branch policy),
//! evaluate the planned stages in order (a stage runs only while every gate before it
//! passed), then [`finish`]. Each stage's reading lives in `stages/<stage>.rs`; its
//! decision is pure, in `council_protocol::stage`.

use super::facts::{self, Evaluated, StageInput};
use super::finish::{PrRun, finish};
use super::pulls_of_event::{self, Pulls};
use super::{github_client, load_event, policy_source, repository, run_url, two_phase};
use crate::runner::Level;
use crate::settings::Settings;
use council_github::{GitHub, RepoName};
use council_protocol::command::Command;
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::{Event, PullRequest};
use council_protocol::render::text::Message;
use council_protocol::stage::{Outputs, Stage, StageResult};

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

/// `guard` or `review` (from `auto` on a pull request event, the `command` input, or the
/// CLI): the pull request named by `--pr`, else the event's, else (review on
/// `workflow_run`) every pull request of the triggering run. Review runs behind the
/// guard.
pub async fn command(
    settings: &Settings,
    command: Command,
    event: Option<Event>,
) -> Result<Outcome> {
    let stages = command.stages();
    let event = match (event, &settings.event, settings.pr) {
        (Some(event), _, _) => event,
        (None, Some(_), _) => load_event(settings)?,
        (None, None, Some(_)) => Event::cli(command.name()),
        (None, None, None) => {
            return Err(Error::Usage(format!(
                "{command} needs a pull request: an event (--event FILE --event-name \
                 pull_request, e.g. --event examples/pull_request.opened.json), or --pr N \
                 (with --repo owner/name outside Actions) to read it through the API"
            )));
        }
    };
    let clients = Clients::new(settings, &event)?;
    if let Some(number) = settings.pr {
        let gh = clients.gh.as_ref().ok_or_else(|| {
            Error::no_token(format!(
                "--pr {number}: the pull request is read through the API"
            ))
        })?;
        let pr = gh.pull_request(number).await?;
        return run_pr(settings, &event, &clients, &pr, stages).await;
    }
    if event.is_pull_request_event() {
        let pr = event.pull_request()?;
        return run_pr(settings, &event, &clients, &pr, stages).await;
    }
    if command == Command::Review && event.name == "workflow_run" {
        return two_phase::apply(settings, &event, &clients, stages).await;
    }
    Err(Error::Usage(format!(
        "{command} runs on pull_request or pull_request_target events, not `{}`; pass --pr N{}",
        event.name,
        if command == Command::Review {
            ", or run it on `workflow_run` after the pull request's workflow (two-phase)"
        } else {
            ""
        }
    )))
}

/// `release` (from `auto` on a review, label, check, status or push event, the `command`
/// input, or the CLI): every pull request the event is about, each on its own (its own
/// Context Object, ledger write and audit file). The run ends with the worst of their
/// outcomes.
pub async fn release(settings: &Settings, event: Option<Event>) -> Result<Outcome> {
    let event = match (event, &settings.event, settings.pr) {
        (Some(event), _, _) => event,
        (None, Some(_), _) => load_event(settings)?,
        (None, None, Some(_)) => Event::cli(Command::Release.name()),
        (None, None, None) => {
            return Err(Error::Usage(
                "release needs a pull request: --pr N (with --repo owner/name outside \
                 Actions), or an event (--event FILE --event-name NAME)"
                    .to_string(),
            ));
        }
    };
    let clients = Clients::new(settings, &event)?;
    let pulls = match settings.pr {
        Some(number) => {
            let gh = clients.gh.as_ref().ok_or_else(|| {
                Error::no_token(format!(
                    "--pr {number}: the pull request is read through the API"
                ))
            })?;
            vec![gh.pull_request(number).await?]
        }
        None => match pulls_of_event::find(&event, clients.gh.as_ref()).await? {
            Pulls::Found(pulls) => pulls,
            Pulls::Nothing(why) => return super::nothing_to_do(settings, &why),
        },
    };
    // Every run writes its outputs: these stand when no pull request gets to `finish`
    // (each one that does writes its own over them).
    settings.runner.set_outputs(&Outputs::pending().pairs())?;
    let many = pulls.len() > 1;
    let mut worst = Outcome::Passed;
    for pr in &pulls {
        match run_pr(settings, &event, &clients, pr, &[Stage::Release]).await {
            Ok(outcome) => worst = worst.worst(outcome),
            Err(e) if !many => return Err(e),
            // One pull request's error must not keep the others from being decided.
            Err(e) => {
                settings
                    .runner
                    .error(e.title(), &format!("pull request #{}: {e}", pr.number));
                worst = worst.worst(Outcome::Unfinished(e.exit_code()));
            }
        }
    }
    Ok(worst)
}

/// One pull request through the planned stages, then [`finish`]. An error before any
/// stage decided is the run's error; a later stage that cannot decide leaves the
/// earlier verdicts standing (SPEC: exit 3 with what was decided so far). When no stage
/// had anything to decide (a merge that was not council's, a closed pull request), the
/// run says why and touches neither the ledger nor the audit file.
pub async fn run_pr(
    settings: &Settings,
    event: &Event,
    clients: &Clients,
    pr: &PullRequest,
    stages: &[Stage],
) -> Result<Outcome> {
    let policy = policy_source::load(settings, clients.gh.as_ref(), &pr.base_ref).await?;
    let url = run_url(settings, &clients.repo);
    // What the ledger and the audit file describe: the pull request as the event had it,
    // or as a stage read it at decision time.
    let mut subject = pr.clone();
    let mut results: Vec<StageResult> = Vec::new();
    let mut unfinished: Option<Error> = None;
    let mut undecided: Vec<Message> = Vec::new();
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
        match facts::evaluate(stage, &input).await {
            Ok(Evaluated::Decided(result)) => results.push(result),
            Ok(Evaluated::DecidedOn(result, live)) => {
                results.push(result);
                subject = *live;
            }
            Ok(Evaluated::Skipped(note)) => match results.last_mut() {
                Some(last) => last.notes.push(note),
                None => undecided.push(note),
            },
            Err(e) if results.is_empty() => return Err(e),
            Err(e) => {
                unfinished = Some(e);
                break;
            }
        }
    }
    if results.is_empty() && unfinished.is_none() {
        let why: Vec<String> = undecided.iter().map(Message::plain).collect();
        let why = format!("#{}: {}", pr.number, why.join("; "));
        settings.runner.annotate(Level::Notice, "council", &why);
        if settings.json {
            println!("{}", super::run_json::nothing_to_do(settings, &why));
        }
        return Ok(Outcome::Passed);
    }
    let run = PrRun {
        settings,
        event,
        repo: &clients.repo,
        pr: &subject,
        gh: clients.gh.as_ref(),
        release: clients.release.as_ref(),
    };
    Ok(finish(&run, results, unfinished).await)
}
