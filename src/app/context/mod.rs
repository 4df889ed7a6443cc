//! `council context validate|show|sync` and the action commands `context-validate` and
//! `context-sync`: files read from the workspace, checked with
//! [`council_protocol::assistant_context::validate`], and mapped to and from an issue's latest
//! `<agent-state>` (the mapping itself is `assistant_context::sync`).
//!
//! Exit codes: an invalid file is a failed check (1, like a gate); a file that cannot be
//! read, a path outside the workspace or a sync of an invalid file is bad input (2).

mod find;
mod view;

use std::path::{Path, PathBuf};

use crate::cli::values::Direction;
use crate::env::RunEnv;
use crate::request::{ContextShowRequest, ContextSyncRequest, ContextValidateRequest};
use crate::runner::{FileLine, Level};
use council_protocol::agent_state::put::ProgressInput;
use council_protocol::agent_state::put::PutRequest;
use council_protocol::assistant_context::{self, ContextFile, MAX_FILE_BYTES, sync};
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::event::Event;
use council_protocol::stage::Outputs;

use super::state::{Target, announce, finish, publish, read_latest};
use super::workspace_file::{self, WorkspacePath};
use view::{Checked, SyncToFile};

const TITLE: &str = "council context";

/// `context validate [PATH…]`: the named files, else `context-file`, else every
/// ASSISTANT_CONTEXT file in the workspace.
pub fn validate(env: &RunEnv, req: &ContextValidateRequest) -> Result<Outcome> {
    let (paths, capped) = match named_paths(env, &req.paths)? {
        Some(paths) => (paths, false),
        None => {
            let found = find::in_workspace(&env.workspace);
            (found.files, found.capped)
        }
    };
    let mut checked = Vec::with_capacity(paths.len());
    for path in paths {
        let text = workspace_file::read(&env.workspace, &path, MAX_FILE_BYTES as u64 + 1)?
            .ok_or_else(|| Error::Usage(format!("{}: no such file", path.shown)))?;
        let result = assistant_context::validate(&path.shown, &text);
        checked.push(Checked {
            path: path.shown,
            result,
        });
    }
    announce_problems(env, &checked);
    if checked.is_empty() {
        env.runner.annotate(
            Level::Notice,
            TITLE,
            "no ASSISTANT_CONTEXT.md or .yaml file in the repository; nothing to check",
        );
    }
    if capped {
        env.runner.annotate(
            Level::Warning,
            TITLE,
            &format!(
                "the repository holds more than {} entries; the search for ASSISTANT_CONTEXT \
                 files stopped there (name the files to check them all)",
                find::MAX_ENTRIES
            ),
        );
    }
    env.runner
        .append_summary(&view::validate_markdown(&checked, capped))?;
    env.runner.set_outputs(&Outputs::pending().pairs())?;
    if req.json {
        env.runner
            .println(&view::validate_json(&checked, capped).to_string());
    } else if !env.in_actions {
        env.runner.print(&view::validate_plain(&checked));
    }
    Ok(if checked.iter().any(|c| c.result.is_err()) {
        Outcome::GateFailed
    } else {
        Outcome::Passed
    })
}

/// Each problem of an invalid file (an error) and each warning of a valid one, once: as
/// an annotation on the file's line in Actions, `error: …`/`warning: …` on stderr on a
/// terminal (stdout says only each file's verdict).
fn announce_problems(env: &RunEnv, checked: &[Checked]) {
    for c in checked {
        let (level, problems) = match &c.result {
            Err(problems) => (Level::Error, problems.as_slice()),
            Ok(file) => (Level::Warning, file.warnings()),
        };
        for p in problems {
            let at = FileLine {
                file: p.file.clone(),
                line: p.line,
                column: p.column,
            };
            env.runner.annotate_at(level, TITLE, &at, &p.to_string());
        }
    }
}

/// `context show PATH`: one file's fields (exit 1 with its problems when invalid).
pub fn show(env: &RunEnv, req: &ContextShowRequest) -> Result<Outcome> {
    let path = workspace_file::resolve(&env.workspace, "context show", &req.path)?;
    let text = workspace_file::read(&env.workspace, &path, MAX_FILE_BYTES as u64 + 1)?
        .ok_or_else(|| Error::Usage(format!("{}: no such file", path.shown)))?;
    let checked = Checked {
        result: assistant_context::validate(&path.shown, &text),
        path: path.shown,
    };
    announce_problems(env, std::slice::from_ref(&checked));
    if req.json {
        env.runner.println(&view::file_json(&checked).to_string());
    } else {
        match &checked.result {
            Ok(file) => env.runner.print(&view::show_plain(file)),
            Err(_) => env
                .runner
                .print(&view::validate_plain(std::slice::from_ref(&checked))),
        }
    }
    Ok(match checked.result {
        Ok(_) => Outcome::Passed,
        Err(_) => Outcome::GateFailed,
    })
}

/// `context sync`: the issue's latest state onto the file, or the file onto the issue.
pub async fn sync(env: &RunEnv, req: &ContextSyncRequest, event: Option<Event>) -> Result<Outcome> {
    let given = req.file.as_deref().ok_or_else(|| {
        Error::Usage(
            "`context sync` needs the file: set the `context-file` input (--file PATH)".into(),
        )
    })?;
    let path = workspace_file::resolve(&env.workspace, "input `context-file`", Path::new(given))?;
    let target = Target::resolve(env, &req.target, event, "context sync")?;
    match req.direction {
        Direction::ToFile => to_file(env, req, &target, &path).await,
        Direction::ToIssue => to_issue(env, req, &target, &path).await,
    }
}

async fn to_file(
    env: &RunEnv,
    req: &ContextSyncRequest,
    target: &Target,
    path: &WorkspacePath,
) -> Result<Outcome> {
    let latest = read_latest(env, &req.target, &target.gh, target.issue).await?;
    announce(env, &latest);
    let existing = workspace_file::read(&env.workspace, path, MAX_FILE_BYTES as u64 + 1)?;
    let created = existing.is_none();
    let text = existing.unwrap_or_else(|| ContextFile::empty_text(&path.shown).to_owned());
    let file = valid_file(&path.shown, &text)?;
    let edits = sync::to_file(&latest.selection.state, &crate::app::now());
    let written = file.edited(&edits).map_err(|e| {
        Error::Input(format!(
            "context sync: {} cannot take the issue's state: {e}",
            path.shown
        ))
    })?;
    let after = valid_file(&path.shown, &written)?;
    let outcome = if written == text && !created {
        "unchanged"
    } else if req.target.access.dry_run {
        "dry_run"
    } else {
        workspace_file::write(&env.workspace, path, &written)?;
        "written"
    };
    let repo = target.repo.full();
    let shown = SyncToFile {
        repo: &repo,
        issue: target.issue,
        path: &path.shown,
        before: file.fields(),
        after: after.fields(),
        created,
        outcome,
        text: &written,
    };
    finish(
        env,
        req.target.json,
        &latest,
        &view::sync_markdown(&shown),
        || view::sync_json(&shown),
        || view::sync_plain(&shown),
    )
}

async fn to_issue(
    env: &RunEnv,
    req: &ContextSyncRequest,
    target: &Target,
    path: &WorkspacePath,
) -> Result<Outcome> {
    let text = workspace_file::read(&env.workspace, path, MAX_FILE_BYTES as u64 + 1)?
        .ok_or_else(|| Error::Usage(format!("{}: no such file to post", path.shown)))?;
    // Validation refuses a file that holds a secret before anything is read or posted.
    let file = valid_file(&path.shown, &text)?;
    let latest = read_latest(env, &req.target, &target.gh, target.issue).await?;
    announce(env, &latest);
    let before = &latest.selection.state;
    let state = sync::to_state(file.fields(), before);
    let changed = |a: &Option<String>, b: &Option<String>| (a != b).then(|| b.clone()).flatten();
    let request = PutRequest {
        intent: changed(&before.intent, &state.intent),
        step: changed(&before.step, &state.step),
        next_action: changed(&before.next_action, &state.next_action),
        memory: (before.memory != state.memory)
            .then(|| state.memory.clone())
            .flatten(),
        progress: (before.progress != state.progress)
            .then_some(state.progress)
            .flatten()
            .map(ProgressInput::Value),
        ..PutRequest::default()
    };
    let summary = req
        .summary
        .clone()
        .unwrap_or_else(|| format!("Synced from {}.", path.shown));
    publish(
        env,
        &req.target,
        target,
        &latest,
        &request,
        &state,
        Some(&summary),
    )
    .await
}

fn valid_file(shown: &str, text: &str) -> Result<ContextFile> {
    assistant_context::validate(shown, text).map_err(|problems| {
        let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Error::Input(format!(
            "{shown} is not a valid ASSISTANT_CONTEXT file, so it is neither rewritten nor \
             posted: {}",
            list.join("; ")
        ))
    })
}

/// Paths named on the command line or in `context-file`; `None` = search the workspace.
fn named_paths(env: &RunEnv, given: &[PathBuf]) -> Result<Option<Vec<WorkspacePath>>> {
    if given.is_empty() {
        return Ok(None);
    }
    given
        .iter()
        .map(|p| workspace_file::resolve(&env.workspace, "context validate", p))
        .collect::<Result<Vec<_>>>()
        .map(Some)
}
