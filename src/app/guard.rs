//! The guard stage end to end: policy from the base branch → decision → close-on-fail →
//! Context Object → outputs, summary, annotations.

use super::record::record;
use super::{github_client, now, policy_source, repository, run_url};
use crate::audit::timeline::{Record, new_entry};
use crate::audit::{ContextObject, GuardStatus};
use crate::error::{Outcome, Result};
use crate::event::{Event, PullRequest};
use crate::gates::guard::{self, GuardDecision, GuardInput};
use crate::gates::{GateOutcome, Verdict};
use crate::github::GitHub;
use crate::render::summary::{self, StageReport};
use crate::render::text::Message;
use crate::render::{EffectReport, EffectResult, comment};
use crate::runner::Level;
use crate::settings::Settings;

pub async fn run(settings: &Settings, event: &Event) -> Result<Outcome> {
    let pr = event.pull_request()?;
    let repo = repository(settings, event)?;
    let gh = github_client(settings, &repo)?;
    let policy = policy_source::load(settings, gh.as_ref(), &pr.base_ref).await?;
    let previous_base = event.previous_base();
    let decision = guard::decide(&GuardInput {
        pr_number: pr.number,
        head: &pr.head_ref,
        base: &pr.base_ref,
        previous_base: previous_base.as_deref(),
        policy: &policy.branches,
        policy_source: &policy.source,
    });

    let effects = if decision.passed() || !settings.close_on_fail {
        Vec::new()
    } else {
        let body = comment::close_on_fail(
            &pr,
            &decision.gates(),
            &policy.source,
            run_url(settings, &repo).as_deref(),
        );
        close_on_fail(settings, gh.as_ref(), &pr, &body).await
    };

    let time = now();
    let mut ours = ContextObject::new(&repo.full(), &pr, &event.trigger(), &time);
    record_decision(&mut ours, settings, &pr, &decision, &effects, &time);
    let recorded = record(settings, gh.as_ref(), &repo, &pr, &ours).await?;
    let ctx = &recorded.context;

    let mut notes = vec![Message::new().text(format!("policy: {}", policy.source))];
    if let Some(gh) = &gh {
        notes.push(Message::new().text(format!("GitHub API requests: {}", gh.requests())));
    }
    notes.push(
        Message::new()
            .text("audit file: ")
            .value(&recorded.audit_path),
    );
    notes.extend(recorded.notes.iter().cloned());
    if decision.passed() {
        notes.push(
            Message::new().text(
                "review: not available in this version of council; review-status stays PENDING",
            ),
        );
    }
    let mut all_effects = effects.clone();
    all_effects.extend(recorded.effects.iter().cloned());
    let status = if decision.passed() { "PASS" } else { "FAIL" };
    let report = StageReport {
        stage: "guard",
        status,
        pr: &pr,
        gates: decision.gates().to_vec(),
        effects: &all_effects,
        notes,
    };
    if settings.in_actions {
        announce(settings, &decision, &all_effects);
    }
    settings
        .runner
        .append_summary(&summary::markdown(&report))?;
    settings.runner.set_outputs(&[
        ("guard-status", status.to_string()),
        (
            "review-status",
            ctx.state.review_status.as_str().to_string(),
        ),
        (
            "release-status",
            ctx.state.release_status.as_str().to_string(),
        ),
        ("context", ctx.to_compact_json()),
        ("audit-path", recorded.audit_path.clone()),
        ("artifact-id", recorded.artifact_id.clone()),
    ])?;
    if !settings.in_actions {
        print!("{}", summary::plain(&report));
    }

    Ok(if !decision.passed() {
        Outcome::GateFailed
    } else if all_effects.iter().any(EffectReport::failed) {
        Outcome::EffectFailed
    } else {
        Outcome::Passed
    })
}

/// Gates, state and timeline entries for this run.
fn record_decision(
    ctx: &mut ContextObject,
    settings: &Settings,
    pr: &PullRequest,
    decision: &GuardDecision,
    effects: &[EffectReport],
    time: &str,
) {
    for gate in decision.gates() {
        ctx.set_gate(gate.gate, gate.verdict.as_str());
    }
    ctx.state.guard_status = if decision.passed() {
        GuardStatus::Pass
    } else {
        GuardStatus::Fail
    };
    let checks = decision.gates().into_iter().map(|g| Record {
        stage: "guard",
        agent: "agent_guard",
        action: g.action.to_string(),
        result: g.verdict.as_str().to_string(),
        message: g.timeline_message(),
    });
    let actions = effects.iter().map(|e| Record {
        stage: "guard",
        agent: "agent_guard",
        action: e.action.to_string(),
        result: e.result_str().to_string(),
        message: e.message().plain(),
    });
    let entries: Vec<_> = checks
        .chain(actions)
        .map(|r| new_entry(&settings.run, &r, &pr.head_sha, time))
        .collect();
    ctx.append(entries);
}

/// One annotation per failed gate, naming the rule and the fix; warnings for effects.
fn announce(settings: &Settings, decision: &GuardDecision, effects: &[EffectReport]) {
    for gate in decision.gates() {
        if gate.verdict == Verdict::Fail {
            settings.runner.annotate(
                Level::Error,
                &annotation_title(gate),
                &gate.timeline_message(),
            );
        }
    }
    for effect in effects {
        let level = match effect.result {
            EffectResult::Done(_) => continue,
            EffectResult::Skipped(_) => Level::Notice,
            EffectResult::Failed(_) => Level::Warning,
        };
        settings.runner.annotate(
            level,
            &format!("council guard: {}", effect.action),
            &effect.message().plain(),
        );
    }
}

fn annotation_title(gate: &GateOutcome) -> String {
    format!("council guard: {} ({})", gate.gate, gate.action)
}

/// Explain, then close. Each step degrades to a skip when the token may not write.
async fn close_on_fail(
    settings: &Settings,
    gh: Option<&GitHub>,
    pr: &PullRequest,
    body: &str,
) -> Vec<EffectReport> {
    let skip_both = |why: Message| {
        vec![
            EffectReport {
                action: "action:comment",
                result: EffectResult::Skipped(why.clone()),
            },
            EffectReport {
                action: "action:close-pr",
                result: EffectResult::Skipped(why),
            },
        ]
    };
    if settings.dry_run {
        return skip_both(
            Message::new()
                .text("dry run: would explain the failure in a comment and close the pull request"),
        );
    }
    if pr.state == "closed" {
        return skip_both(Message::new().text("the pull request is already closed"));
    }
    let Some(gh) = gh else {
        return skip_both(Message::new().text("no github-token, so nothing can be written"));
    };
    let comment = explain(gh, pr, body).await;
    let close = match gh.close_pull(pr.number).await {
        Ok(()) => EffectResult::Done(Message::new().text(format!("closed #{}", pr.number))),
        Err(e) if e.is_forbidden() => EffectResult::Skipped(read_only(pr)),
        Err(e) => EffectResult::Failed(Message::new().text(e.to_string())),
    };
    vec![
        comment,
        EffectReport {
            action: "action:close-pr",
            result: close,
        },
    ]
}

async fn explain(gh: &GitHub, pr: &PullRequest, body: &str) -> EffectReport {
    let marker = comment::close_marker(pr);
    let me = gh.identity().await;
    let result = match gh.list_comments(pr.number).await {
        Err(e) if e.is_forbidden() => EffectResult::Skipped(read_only(pr)),
        Err(e) => EffectResult::Failed(Message::new().text(e.to_string())),
        Ok(comments) => {
            let ours = comments
                .iter()
                .find(|c| c.body().starts_with(&marker) && c.is_by(me.as_ref()));
            match ours {
                Some(existing) => EffectResult::Skipped(
                    Message::new()
                        .text("the explanation is already posted: ")
                        .link(&existing.html_url),
                ),
                None => match gh.create_comment(pr.number, body).await {
                    Ok(c) => EffectResult::Done(
                        Message::new()
                            .text("explained the failure: ")
                            .link(&c.html_url),
                    ),
                    Err(e) if e.is_forbidden() => EffectResult::Skipped(read_only(pr)),
                    Err(e) => EffectResult::Failed(Message::new().text(e.to_string())),
                },
            }
        }
    };
    EffectReport {
        action: "action:comment",
        result,
    }
}

fn read_only(pr: &PullRequest) -> Message {
    let why = if pr.is_from_fork() {
        "the token is read-only (pull requests from forks get a read-only GITHUB_TOKEN on \
         `pull_request`); the check still fails. Use `pull_request_target` (it never runs PR code) \
         to let council comment and close"
    } else {
        "the token may not write: grant `pull-requests: write` and `issues: write` in the \
         workflow's `permissions:`; the check still fails"
    };
    Message::new().text(why)
}
