//! `state put`: validate the inputs, refuse secrets, read the latest state, overlay the
//! inputs on it, and post the comment once per workflow run.

use sha2::{Digest, Sha256};

use super::get::announce;
use super::put_view::{self, PutReport, Written};
use super::read::{Latest, read_latest};
use super::view::ReadReport;
use super::{Target, outputs};
use crate::app::effects::Executor;
use crate::app::input_file;
use crate::env::RunEnv;
use crate::request::{IssueRequest, StateFields, StatePutRequest};
use crate::runner::Level;
use council_protocol::agent_state::put::{PutInputs, PutRequest, overlay, validate};
use council_protocol::agent_state::{AgentState, RenderedComment, render_block, render_comment};
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::secrets::{SecretMatch, find_secrets};
use council_protocol::stage::{Effect, EffectReport, EffectResult};

pub async fn run(env: &RunEnv, req: &StatePutRequest, event: Option<Event>) -> Result<Outcome> {
    let request = request(env, &req.fields, req.summary.as_deref())?;
    let summary = req.summary.as_deref();
    check_secrets(env, req.allow_secrets, &request, summary)?;
    let target = Target::resolve(env, &req.target, event, "state put")?;
    let latest = read_latest(env, &req.target, &target.gh, target.issue).await?;
    announce(env, &latest);
    let state = overlay(&latest.selection.state, &request, &latest.issue_body);
    publish(
        env,
        &req.target,
        &target,
        &latest,
        &request,
        &state,
        summary,
    )
    .await
}

/// Posts `state` (the latest state with `request` applied) once per workflow run, and
/// reports it: summary, outputs, and the CLI's view. `context sync --direction
/// to-issue` posts through here too.
pub(crate) async fn publish(
    env: &RunEnv,
    req: &IssueRequest,
    target: &Target,
    latest: &Latest,
    request: &PutRequest,
    state: &AgentState,
    summary: Option<&str>,
) -> Result<Outcome> {
    let (rendered, written, run_key) =
        write_state(env, req.access.dry_run, target, latest, state, summary).await?;
    let repo = target.repo.full();
    let put = PutReport {
        read: ReadReport {
            repo: &repo,
            issue: target.issue,
            latest,
            requests: target.gh.requests(),
        },
        request,
        rendered: &rendered,
        written: &written,
        run_key: &run_key,
    };
    for (level, message) in put_notes(&put, env.in_actions) {
        env.runner.annotate(level, "council state put", &message);
    }
    env.runner.append_summary(&put_view::put_markdown(&put))?;
    env.runner
        .set_outputs(&outputs(&rendered.state, written.url()).pairs())?;
    if req.json {
        env.runner.println(&put_view::put_json(&put).to_string());
    } else if !env.in_actions {
        env.runner.print(&put_view::put_plain(&put));
    }
    // A read-only token is a warning, not a failure (SPEC, exit codes); the empty
    // `state-comment-url` tells a workflow that nothing was written.
    Ok(Outcome::Passed)
}

/// What a put says besides its result: a read-only token, a compacted memory.
fn put_notes(put: &PutReport, in_actions: bool) -> Vec<(Level, String)> {
    let mut out = Vec::new();
    if *put.written == Written::ReadOnly {
        out.push((
            Level::Warning,
            format!(
                "{}#{}: {}",
                put.read.repo,
                put.read.issue,
                put_view::READ_ONLY
            ),
        ));
    }
    if let Some(note) = put_view::compaction_note(put) {
        // The step summary has the details in Actions; elsewhere only this line does.
        let message = if in_actions {
            "memory was compacted to fit GitHub's 65,536-character comment limit; the step \
             summary says what was dropped"
                .to_string()
        } else {
            note.plain()
        };
        out.push((Level::Notice, message));
    }
    out
}

/// Renders `state` and posts it (once per run key) through the executor.
async fn write_state(
    env: &RunEnv,
    dry_run: bool,
    target: &Target,
    latest: &Latest,
    state: &AgentState,
    summary: Option<&str>,
) -> Result<(RenderedComment, Written, String)> {
    let run_key = run_key(env, state);
    let rendered = render_comment(state, summary, &run_key)
        .map_err(|e| Error::Input(format!("state put: {e}")))?;
    let written = write(dry_run, target, latest, &run_key, &rendered.body).await?;
    Ok((rendered, written, run_key))
}

/// `state put` on the target's issue, validated (and secrets refused) before any
/// request: the result as `council state put --json` prints it, and what the CLI would
/// warn about; prints nothing.
pub(crate) async fn put_json(
    env: &RunEnv,
    req: &StatePutRequest,
    target: &Target,
) -> Result<(serde_json::Value, Vec<String>)> {
    let request = request(env, &req.fields, req.summary.as_deref())?;
    let summary = req.summary.as_deref();
    check_secrets(env, req.allow_secrets, &request, summary)?;
    let latest = read_latest(env, &req.target, &target.gh, target.issue).await?;
    let mut warnings = super::get::warnings(&latest);
    let state = overlay(&latest.selection.state, &request, &latest.issue_body);
    let (rendered, written, run_key) = write_state(
        env,
        req.target.access.dry_run,
        target,
        &latest,
        &state,
        summary,
    )
    .await?;
    let repo = target.repo.full();
    let put = PutReport {
        read: ReadReport {
            repo: &repo,
            issue: target.issue,
            latest: &latest,
            requests: target.gh.requests(),
        },
        request: &request,
        rendered: &rendered,
        written: &written,
        run_key: &run_key,
    };
    warnings.extend(put_notes(&put, false).into_iter().map(|(_, m)| m));
    Ok((put_view::put_json(&put), warnings))
}

fn request(env: &RunEnv, s: &StateFields, summary: Option<&str>) -> Result<PutRequest> {
    let file = |input: &str, raw: &Option<String>| {
        raw.as_deref()
            .map(|raw| input_file::resolve_input(&env.workspace, input, raw))
            .transpose()
    };
    let memory = file("memory", &s.memory)?;
    let plan = file("plan", &s.plan)?;
    let mut request = validate(&PutInputs {
        agent: s.agent.as_deref(),
        intent: s.intent.as_deref(),
        step: s.step.as_deref(),
        progress: s.progress.as_deref(),
        memory: memory.as_deref(),
        next_action: s.next_action.as_deref(),
        plan: plan.as_deref(),
        input_request: s.input_request.as_deref(),
        metrics: s.metrics.as_deref(),
    })?;
    if request == PutRequest::default() && summary.is_none() {
        return Err(Error::Usage(
            "`state put` has nothing to write: set at least one of the inputs intent, step, \
             progress, memory, next-action, agent, plan, input-request, metrics or summary"
                .to_string(),
        ));
    }
    // The origin's writer stamps every metrics block; so does this one.
    if let Some(metrics) = &mut request.metrics
        && metrics.generated_at.is_none()
    {
        metrics.generated_at = Some(crate::app::now());
    }
    Ok(request)
}

/// Checks what this run adds (fields carried over are already on the issue), before any
/// request, so that a refused put costs nothing and posts nothing.
fn check_secrets(
    env: &RunEnv,
    allow_secrets: bool,
    request: &PutRequest,
    summary: Option<&str>,
) -> Result<()> {
    let given = AgentState {
        agent: request.agent.clone(),
        intent: request.intent.clone(),
        step: request.step.clone(),
        memory: request.memory.clone(),
        next_action: request.next_action.clone(),
        unknown: request.elements(),
        ..AgentState::default()
    };
    let mut found: Vec<String> = given
        .find_secrets()
        .iter()
        .map(|(field, m)| describe(&input_name(field), m))
        .collect();
    if let Some(summary) = summary {
        found.extend(find_secrets(summary).iter().map(|m| describe("summary", m)));
    }
    if found.is_empty() {
        return Ok(());
    }
    if allow_secrets {
        env.runner.annotate(
            Level::Warning,
            "council state put",
            &format!("posting although {} (--allow-secrets)", found.join("; ")),
        );
        return Ok(());
    }
    Err(Error::Input(format!(
        "refusing to post: {}. Nothing was posted. Keep secrets out of agent state (an issue \
         comment is public to everyone who can read the issue), or pass --allow-secrets if \
         this is not a secret",
        found.join("; ")
    )))
}

/// Names the kind and position only: the value must never reach a log.
fn describe(input: &str, m: &SecretMatch) -> String {
    format!(
        "input `{input}` looks like it holds a {} (line {}, column {})",
        m.kind, m.line, m.column
    )
}

/// The input a block field or element came from (`next_action` ← `next-action`).
fn input_name(field: &str) -> String {
    field.replace('_', "-")
}

/// `{run id}/{job}/{16 hex of SHA-256 of the block}`: a re-run of the same workflow run
/// writing the same state finds its comment; another state in the same job is new.
fn run_key(env: &RunEnv, state: &AgentState) -> String {
    let digest = hex::encode(Sha256::digest(render_block(state).as_bytes()));
    format!(
        "{}/{}/{}",
        env.run.run_id,
        env.run.job,
        digest.get(..16).unwrap_or(&digest)
    )
}

/// Posts nothing when the latest state already is this run's comment. Only the comment
/// the state was read from counts: if a job writes A, then B, then A again, the third
/// write must land even though A's comment carries the same key.
async fn write(
    dry_run: bool,
    target: &Target,
    latest: &Latest,
    run_key: &str,
    body: &str,
) -> Result<Written> {
    if latest.own_run_key.as_deref() == Some(run_key)
        && let Some(source) = &latest.selection.source
    {
        return Ok(Written::AlreadyPosted(source.html_url.clone()));
    }
    let executor = Executor {
        gh: Some(&target.gh),
        release: None,
        dry_run,
        pr: None,
    };
    let effect = Effect::PostComment {
        issue: target.issue,
        body: body.to_string(),
    };
    let performed = executor.perform(&effect).await;
    match (performed.report.result, performed.comment, performed.error) {
        (EffectResult::Done(_), Some(comment), _) => Ok(Written::Posted(comment.html_url)),
        (EffectResult::Skipped(_), ..) if dry_run => Ok(Written::DryRun),
        (EffectResult::Refused(_), ..) => Ok(Written::ReadOnly),
        (_, _, Some(e)) => Err(e.into()),
        (result, ..) => Err(Error::Api(
            EffectReport::new(effect.action(), result).message().plain(),
        )),
    }
}
