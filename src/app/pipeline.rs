//! A pull-request run (`guard`, `review`, `release`): the event, loaded once; the pull
//! requests it is about, selected in one place (`--pr`, the event's, the two-phase apply's,
//! a commit's); then, for each, the planned stages evaluated in order (a stage runs only
//! while every gate before it passed) and [`finish`]. What each stage reads lives in
//! `stages/<stage>.rs`; its decision is pure, in `council_protocol::stage`.

use super::clients::Clients;
use super::finish::{PrRun, finish, perform};
use super::pulls_of_event::{self, Pulls};
use super::queue::{self, Carried, Queue};
use super::stages::{self, Evaluated, StageInput};
use super::{load_event, nothing_to_do, policy_source, two_phase};
use crate::env::RunEnv;
use crate::request::PipelineRequest;
use crate::runner::Level;
use council_protocol::command::Command;
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::{Event, PullRequest};
use council_protocol::gates::Verdict;
use council_protocol::policy::Policy;
use council_protocol::policy::queue::is_queued_label;
use council_protocol::queue::QueueOutputs;
use council_protocol::render::text::Message;
use council_protocol::stage::{Outputs, Stage, StageResult, release};

/// The run: `event` is the one `auto` planned it for, else the request's (`--event`, the
/// runner's), else (with `--pr`) none.
pub async fn run(env: &RunEnv, req: &PipelineRequest, event: Option<Event>) -> Result<Outcome> {
    let command = req.command;
    let event = match (event, &req.event, req.pr) {
        (Some(event), _, _) => event,
        (None, Some(source), _) => load_event(env, Some(source))?,
        (None, None, Some(_)) => Event::cli(command.name()),
        (None, None, None) => return Err(needs_a_pull_request(command)),
    };
    let clients = Clients::new(env, req, &event)?;
    let selected = select(req, &event, &clients).await?;
    let q = Queue {
        env,
        req,
        event: &event,
        clients: &clients,
    };
    // The merge queues the event acts on (release only; `--pr` names one pull request),
    // asked after the pull requests' own runs so that a base's policy is read once.
    let queue_run = req.command == Command::Release && req.pr.is_none();
    let mut policies = Policies::new();
    let pulls = match selected {
        Pulls::Found(pulls) => pulls,
        Pulls::Nothing(why) => {
            let queues = match queue_run {
                true => queue::bases_of(&q, false, &mut policies).await?,
                false => Vec::new(),
            };
            if queues.is_empty() {
                return nothing_to_do(env, req.invoked_as, req.json, &why);
            }
            Vec::new()
        }
    };
    // Every run writes its outputs: these stand when no pull request gets to `finish`
    // (each one that does writes its own over them).
    env.runner.set_outputs(&Outputs::pending().pairs())?;
    let many = pulls.len() > 1;
    let mut worst = Outcome::Passed;
    let mut carried: Vec<(Carried, Policy)> = Vec::new();
    for pr in &pulls {
        match run_pr(env, req, &event, &clients, pr, &mut policies).await {
            Ok(PrEnd::Finished(outcome)) => worst = worst.worst(outcome),
            Ok(PrEnd::Queued(c, policy)) => carried.push((*c, *policy)),
            Err(e) if !many => return Err(e),
            // One pull request's error must not keep the others from being decided.
            Err(e) => {
                env.runner.error(
                    crate::exit::title(&e),
                    &format!("pull request #{}: {e}", pr.number),
                );
                worst = worst.worst(Outcome::Unfinished(e.kind()));
            }
        }
    }
    let queues = match queue_run {
        true => queue::bases_of(&q, !pulls.is_empty(), &mut policies).await?,
        false => Vec::new(),
    };
    if carried.is_empty() && queues.is_empty() {
        return Ok(worst);
    }
    let outputs = advance_queues(&q, queues, carried, &mut worst).await;
    let pairs = [
        (
            "queue-status",
            outputs.status.map_or("", |s| s.as_str()).to_string(),
        ),
        ("queue-sha", outputs.sha.unwrap_or_default()),
    ];
    if let Err(e) = env.runner.set_outputs(&pairs) {
        env.runner
            .annotate(Level::Warning, "council outputs", &e.to_string());
    }
    Ok(worst)
}

/// Each queue the event acts on, and the queue of each base release just put a pull
/// request in line for (its test starts in this run: a label added by the workflow token
/// starts no workflow). SPEC: the outputs describe the queue commit left in test, else
/// the one landed last.
async fn advance_queues(
    q: &Queue<'_>,
    mut queues: Vec<(String, Policy)>,
    carried: Vec<(Carried, Policy)>,
    worst: &mut Outcome,
) -> QueueOutputs {
    let from_event = queues.len();
    for (c, policy) in &carried {
        if !queues.iter().any(|(b, _)| *b == c.pr.base_ref) {
            queues.push((c.pr.base_ref.clone(), policy.clone()));
        }
    }
    let mut carried: Vec<Carried> = carried.into_iter().map(|(c, _)| c).collect();
    let mut outputs = QueueOutputs::default();
    for (i, (base, policy)) in queues.into_iter().enumerate() {
        let (mine, rest): (Vec<Carried>, Vec<Carried>) =
            carried.into_iter().partition(|c| c.pr.base_ref == base);
        carried = rest;
        let only_if_idle = i >= from_event;
        let (ended, said) = queue::advance(q, &base, &policy, mine, only_if_idle).await;
        *worst = worst.worst(ended);
        outputs = outputs.then(said);
    }
    outputs
}

/// The policies read in this run, by base branch: each is read once.
pub(super) type Policies = std::collections::BTreeMap<String, Policy>;

/// How one pull request's run ended: finished, or (release put it in the merge queue)
/// handed to the queue's run, which writes its ledger once with the queue's records.
enum PrEnd {
    Finished(Outcome),
    Queued(Box<Carried>, Box<Policy>),
}

/// The pull requests a run is about, selected here and nowhere else: `--pr N` (read
/// through the API), the pull request event's, the open ones at the head of the
/// two-phase apply's `workflow_run`, or (release) those of the event's commit.
async fn select(req: &PipelineRequest, event: &Event, clients: &Clients) -> Result<Pulls> {
    if let Some(number) = req.pr {
        let gh = clients.gh.as_ref().ok_or_else(|| {
            crate::exit::no_token(format!(
                "--pr {number}: the pull request is read through the API"
            ))
        })?;
        return Ok(Pulls::Found(vec![gh.pull_request(number).await?]));
    }
    match req.command {
        Command::Release => pulls_of_event::find(event, clients.gh.as_ref()).await,
        _ if event.is_pull_request_event() => Ok(Pulls::Found(vec![event.pull_request()?])),
        Command::Review if event.name == "workflow_run" => {
            two_phase::pulls(event, clients.gh.as_ref()).await
        }
        command => Err(Error::Usage(format!(
            "{command} runs on pull_request or pull_request_target events, not `{}`; pass --pr N{}",
            event.name,
            if command == Command::Review {
                ", or run it on `workflow_run` after the pull request's workflow (two-phase)"
            } else {
                ""
            }
        ))),
    }
}

fn needs_a_pull_request(command: Command) -> Error {
    Error::Usage(match command {
        Command::Release => "release needs a pull request: --pr N (with --repo owner/name \
             outside Actions), or an event (--event FILE --event-name NAME)"
            .to_string(),
        _ => format!(
            "{command} needs a pull request: an event (--event FILE --event-name \
             pull_request, e.g. --event examples/pull_request.opened.json), or --pr N \
             (with --repo owner/name outside Actions) to read it through the API"
        ),
    })
}

/// One pull request through the planned stages, then [`finish`]. An error before any
/// stage decided is the run's error; a later stage that cannot decide leaves the
/// earlier verdicts standing (SPEC: exit 3 with what was decided so far). When no stage
/// had anything to decide (a merge that was not council's, a closed pull request), the
/// run says why and touches neither the ledger nor the audit file.
async fn run_pr(
    env: &RunEnv,
    req: &PipelineRequest,
    event: &Event,
    clients: &Clients,
    pr: &PullRequest,
    policies: &mut Policies,
) -> Result<PrEnd> {
    let policy = match policies.get(&pr.base_ref) {
        Some(policy) => policy.clone(),
        None => {
            let policy =
                policy_source::load(env, &req.policy, clients.gh.as_ref(), &pr.base_ref).await?;
            policies.insert(pr.base_ref.clone(), policy.clone());
            policy
        }
    };
    let url = env.run_url(&clients.repo);
    // What the ledger and the audit file describe: the pull request as the event had it,
    // or as a stage read it at decision time.
    let mut subject = pr.clone();
    let mut results: Vec<StageResult> = Vec::new();
    let mut unfinished: Option<Error> = None;
    let mut undecided: Vec<Message> = Vec::new();
    for &stage in req.command.stages() {
        if results.iter().any(StageResult::failed) {
            break;
        }
        let input = StageInput {
            env,
            req,
            event,
            clients,
            pr,
            policy: &policy,
            run_url: url.as_deref(),
            for_queue: false,
        };
        match stages::evaluate(stage, &input).await {
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
        // A notice only: the outputs are this run's, and another pull request of the
        // same event may have written them already.
        env.runner.annotate(Level::Notice, "council", &why);
        if req.json {
            env.runner
                .println(&super::run_json::nothing_to_do(req.invoked_as, &why).to_string());
        }
        return Ok(PrEnd::Finished(Outcome::Passed));
    }
    let run = PrRun {
        env,
        req,
        event,
        repo: &clients.repo,
        pr: &subject,
        gh: clients.gh.as_ref(),
        release: clients.release.as_ref(),
    };
    if starts_queue(req, event, &policy, &results) {
        let reports = perform(&run, &mut results).await;
        let carried = Carried {
            pr: subject.clone(),
            results,
            reports,
            unfinished,
        };
        return Ok(PrEnd::Queued(Box::new(carried), Box::new(policy)));
    }
    Ok(PrEnd::Finished(finish(&run, results, unfinished).await))
}

/// Whether this pull request's release decision starts its base's merge queue in this
/// run: release put it in line (a label the workflow token adds starts no workflow), or
/// the event is the queue's label being added and every gate passes. Not in a dry run,
/// where nothing is written.
fn starts_queue(
    req: &PipelineRequest,
    event: &Event,
    policy: &Policy,
    results: &[StageResult],
) -> bool {
    if req.access.dry_run || !policy.queue.enabled {
        return false;
    }
    let Some(release) = results.iter().find(|r| r.stage == Stage::Release) else {
        return false;
    };
    let passed =
        !release.gates.is_empty() && release.gates.iter().all(|g| g.verdict == Verdict::Pass);
    let label_added = event.name == "pull_request"
        && event.action.as_deref() == Some("labeled")
        && event
            .payload
            .pointer("/label/name")
            .and_then(serde_json::Value::as_str)
            .is_some_and(is_queued_label);
    release::queued(release) || (label_added && passed)
}
