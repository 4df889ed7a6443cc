//! The one end of every pull-request run, whatever stages ran: perform the effects the
//! stages asked for, seal the timeline onto the ledger, write the audit file, upload it,
//! then annotations, summary and outputs, and the exit code, decided in one place.
//! Nothing here fails the run by returning early: a failed effect is reported and the
//! verdict's code and outputs stand.

use super::audit_file;
use super::effects::Executor;
use super::ledger::Ledger;
use super::run_json;
use super::upload::{Upload, upload};
use super::{now, run_url};
use crate::runner::Level;
use crate::settings::Settings;
use council_github::artifact::artifact_name;
use council_github::{GitHub, RepoName};
use council_protocol::audit::stored::Links;
use council_protocol::audit::{ContextObject, ReleaseStatus};
use council_protocol::error::{Error, Outcome};
use council_protocol::event::{Event, PullRequest};
use council_protocol::gates::Verdict;
use council_protocol::render::summary::{self, RunReport};
use council_protocol::render::text::Message;
use council_protocol::stage::result::{entries, outcome};
use council_protocol::stage::{
    EffectReport, EffectResult, Output, Outputs, Stage, StageResult, Status,
};

/// Everything a pull-request run acts with.
pub struct PrRun<'a> {
    pub settings: &'a Settings,
    pub event: &'a Event,
    pub repo: &'a RepoName,
    pub pr: &'a PullRequest,
    /// The workflow token's client (`None`: no token, nothing is read or written).
    pub gh: Option<&'a GitHub>,
    /// The release token's client: merges only.
    pub release: Option<&'a GitHub>,
}

/// Where an annotation about an effect comes from.
struct Done {
    title: String,
    report: EffectReport,
}

pub async fn finish(
    run: &PrRun<'_>,
    mut results: Vec<StageResult>,
    unfinished: Option<Error>,
) -> Outcome {
    let settings = run.settings;
    let executor = Executor {
        gh: run.gh,
        release: run.release,
        dry_run: settings.dry_run,
        pr: Some(run.pr),
    };
    let mut reports = Vec::with_capacity(results.len());
    for result in &mut results {
        let done = executor.run(&result.effects).await;
        settle_release(result, &done);
        reports.push(done);
    }
    let time = now();
    let mut ours = ContextObject::new(&run.repo.full(), run.pr, &run.event.trigger(), &time);
    ours.append(entries(
        &results,
        &reports,
        &settings.run,
        &run.pr.head_sha,
        &time,
    ));
    let mut done: Vec<Done> = results
        .iter()
        .zip(reports)
        .flat_map(|(result, reports)| {
            reports.into_iter().map(move |report| Done {
                title: format!("council {}", result.stage),
                report,
            })
        })
        .collect();

    let ledger = Ledger {
        settings,
        gh: run.gh,
        executor: &executor,
        repo: run.repo,
        repo_id: settings
            .repository_id
            .or_else(|| run.event.repository_id(&run.repo.full())),
        pr: run.pr,
        links: Links {
            run_url: run_url(settings, run.repo),
            artifact: Some(artifact_name(run.pr.number)),
        },
        stage: results.first().map_or(Stage::Guard, |r| r.stage),
    };
    let persisted = ledger.persist(&ours).await;
    for warning in &persisted.warnings {
        settings
            .runner
            .annotate(Level::Warning, "council ledger", warning);
    }
    done.extend(persisted.effect.map(|report| Done {
        title: "council ledger".to_string(),
        report,
    }));
    let context = persisted.context;

    let mut notes: Vec<Message> = results.iter().flat_map(|r| r.notes.clone()).collect();
    if let Some(gh) = run.gh {
        notes.push(Message::new().text(format!("GitHub API requests: {}", gh.requests())));
    }
    let audit_path = match audit_file::write(
        &settings.workspace,
        &context.context_id,
        &context.to_pretty_json(),
    ) {
        Ok(path) => {
            notes.push(Message::new().text("audit file: ").value(&path));
            Some(path)
        }
        Err(why) => {
            done.push(Done {
                title: "council audit file".to_string(),
                report: EffectReport::new(
                    "action:write-audit",
                    EffectResult::Failed(Message::new().text(why)),
                ),
            });
            None
        }
    };
    notes.extend(persisted.notes);
    let mut artifact_id = String::new();
    if audit_path.is_some() {
        match upload(settings, run.pr.number, &context).await {
            Upload::Done(id, report) => {
                artifact_id = id;
                done.push(Done {
                    title: "council artifact".to_string(),
                    report,
                });
            }
            Upload::Off(why) => notes.push(Message::new().text(why)),
            Upload::Skipped(why) => {
                settings
                    .runner
                    .annotate(Level::Notice, "council artifact", &why);
                notes.push(Message::new().text(format!("artifact not uploaded: {why}")));
            }
            Upload::Failed(report) => done.push(Done {
                title: "council artifact".to_string(),
                report,
            }),
        }
    }

    if settings.in_actions {
        announce(settings, &results, &done);
    }
    if let Some(e) = &unfinished {
        settings.runner.error(e.title(), &e.to_string());
    }
    let effects: Vec<EffectReport> = done.into_iter().map(|d| d.report).collect();
    let report = RunReport {
        pr: run.pr,
        stages: &results,
        effects: &effects,
        notes,
    };
    let mut markdown = summary::markdown(&report);
    if let Some(e) = &unfinished {
        markdown.push('\n');
        markdown.push_str(&e.summary_section());
    }
    let mut outputs = Outputs::of_results(&results);
    outputs
        .set(Output::Context, context.to_compact_json())
        .set(Output::AuditPath, audit_path.unwrap_or_default())
        .set(Output::ArtifactId, artifact_id);
    // Outputs first: a summary that cannot be written must not cost the outputs.
    if let Err(e) = settings.runner.set_outputs(&outputs.pairs()) {
        settings
            .runner
            .annotate(Level::Warning, "council outputs", &e.to_string());
    }
    if let Err(e) = settings.runner.append_summary(&markdown) {
        settings
            .runner
            .annotate(Level::Warning, "council summary", &e.to_string());
    }
    let ended = outcome(
        &results,
        effects.iter().any(EffectReport::failed),
        unfinished.as_ref().map(Error::exit_code),
    );
    if settings.json {
        let json = run_json::pr_run(
            settings,
            &run.repo.full(),
            &report,
            &outputs,
            ended.exit_code(),
            unfinished.as_ref(),
        );
        println!("{json}");
    } else if !settings.in_actions {
        print!("{}", summary::plain(&report));
    }
    ended
}

/// A release's status is what became of this run's own merge or revert (done, no release
/// token, a head that moved), never what the stored ledger says happened earlier.
fn settle_release(result: &mut StageResult, reports: &[EffectReport]) {
    let Status::Release(decided) = result.status else {
        return;
    };
    let done = |action: &str| {
        reports
            .iter()
            .any(|r| r.action == action && matches!(r.result, EffectResult::Done(_)))
    };
    let tried = |action: &str| {
        reports
            .iter()
            .any(|r| r.action == action && !matches!(r.result, EffectResult::Skipped(_)))
    };
    let settled = if done("action:revert") {
        ReleaseStatus::RolledBack
    } else if done("action:merge") {
        ReleaseStatus::Merged
    } else if decided == ReleaseStatus::Eligible && tried("action:merge") {
        // GitHub refused it (the head moved, the state changed) or it failed.
        ReleaseStatus::Pending
    } else {
        decided
    };
    result.status = Status::Release(settled);
}

/// One error annotation per failed gate, naming the rule and the fix, and a notice per
/// gate that waits (what it waits for); a warning for a refused or failed effect, a
/// notice for a skipped or waiting one.
fn announce(settings: &Settings, results: &[StageResult], done: &[Done]) {
    for result in results {
        for gate in &result.gates {
            let level = match gate.verdict {
                Verdict::Pass => continue,
                Verdict::Fail => Level::Error,
                Verdict::Pending => Level::Notice,
            };
            settings.runner.annotate(
                level,
                &format!("council {}: {} ({})", result.stage, gate.gate, gate.action),
                &gate.timeline_message(),
            );
        }
    }
    for d in done {
        let level = match d.report.result {
            EffectResult::Done(_) | EffectResult::Unchanged(_) => continue,
            EffectResult::Skipped(_) | EffectResult::Pending(_) => Level::Notice,
            EffectResult::Refused(_) => Level::Warning,
            // A failed effect decides exit 3 when every gate passed: an error, not a hint.
            EffectResult::Failed(_) => Level::Error,
        };
        settings.runner.annotate(
            level,
            &format!("{}: {}", d.title, d.report.action),
            &d.report.message().plain(),
        );
    }
}
