//! `state get`: the latest trusted state of an issue → outputs, summary, warnings.

use super::read::{Latest, MAX_COMMENTS, read_latest};
use super::report::{self, ReadReport};
use super::{Target, outputs};
use crate::error::{Outcome, Result};
use crate::event::Event;
use crate::runner::Level;
use crate::settings::Settings;

pub async fn run(settings: &Settings, event: Option<Event>) -> Result<Outcome> {
    let target = Target::resolve(settings, event, "state get")?;
    let latest = read_latest(settings, &target.gh, target.issue).await?;
    announce(settings, &latest);
    let repo = target.repo.full();
    let read = ReadReport {
        repo: &repo,
        issue: target.issue,
        latest: &latest,
        requests: target.gh.requests(),
    };
    settings
        .runner
        .append_summary(&report::get_markdown(&read))?;
    let url = latest
        .selection
        .source
        .as_ref()
        .map_or("", |s| s.html_url.as_str());
    settings
        .runner
        .set_outputs(&outputs(&latest.selection.state, url).pairs())?;
    if settings.json {
        println!("{}", report::get_json(&read));
    } else if !settings.in_actions {
        print!("{}", report::get_plain(&read));
    }
    Ok(Outcome::Passed)
}

/// One warning per skipped malformed block (with its comment's URL), and one when the
/// page cap left older comments unread.
pub(super) fn announce(settings: &Settings, latest: &Latest) {
    for warning in &latest.selection.warnings {
        settings
            .runner
            .annotate(Level::Warning, "council state", &warning.message);
    }
    if latest.capped {
        settings.runner.annotate(
            Level::Warning,
            "council state",
            &format!(
                "no trusted <agent-state> block in the newest {MAX_COMMENTS} comments; older \
                 comments were not read, so the state is the initial one"
            ),
        );
    }
}
