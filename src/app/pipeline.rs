//! A pull-request run: read what the stages need (the event, the base-branch policy),
//! evaluate the planned stages in order (a stage runs only while every gate before it
//! passed), then [`finish`].

use super::finish::{PrRun, finish};
use super::{github_client, policy_source, repository, run_url};
use crate::error::{Outcome, Result};
use crate::event::Event;
use crate::render::text::Message;
use crate::settings::Settings;
use crate::stage::guard::GuardStage;
use crate::stage::{self, Stage, StageResult};

pub async fn run(settings: &Settings, event: &Event, stages: &[Stage]) -> Result<Outcome> {
    let pr = event.pull_request()?;
    let repo = repository(settings, event)?;
    let gh = github_client(settings, &repo, settings.token.as_ref())?;
    let release = github_client(settings, &repo, settings.release_token.as_ref())?;
    let policy = policy_source::load(settings, gh.as_ref(), &pr.base_ref).await?;
    let url = run_url(settings, &repo);
    let previous_base = event.previous_base();

    let mut results: Vec<StageResult> = Vec::new();
    for &planned in stages {
        if results.iter().any(StageResult::failed) {
            break;
        }
        match planned {
            Stage::Guard => results.push(stage::guard::evaluate(&GuardStage {
                pr: &pr,
                previous_base: previous_base.as_deref(),
                policy: &policy,
                close_on_fail: settings.close_on_fail,
                run_url: url.as_deref(),
            })),
            other => {
                if let Some(last) = results.last_mut() {
                    last.notes.push(Message::new().text(format!(
                        "{other}: not available in this version of council; {other}-status \
                         stays PENDING"
                    )));
                }
            }
        }
    }
    let run = PrRun {
        settings,
        event,
        repo: &repo,
        pr: &pr,
        gh: gh.as_ref(),
        release: release.as_ref(),
    };
    Ok(finish(&run, results, None).await)
}
