//! `council audit report --html DIR`: `DIR/index.html`, one self-contained page.

use std::path::Path;

use council_protocol::error::{Error, Outcome, Result};
use council_store::report::render_html;

use super::{filter, open_default, store_error};
use crate::app::{display_path, now};
use crate::env::RunEnv;
use crate::request::{AuditFilter, AuditRequest};
use crate::runner::Level;

pub async fn run(
    env: &RunEnv,
    req: &AuditRequest,
    dir: &Path,
    given: &AuditFilter,
) -> Result<Outcome> {
    let filter = filter(given)?;
    let mut store = open_default(env, req).await?;
    let data = store
        .report_data(&filter, &now())
        .await
        .map_err(store_error)?;
    let page = render_html(&data);
    let dir = env.workspace.join(dir);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("report folder", &dir, e))?;
    let path = dir.join("index.html");
    std::fs::write(&path, &page).map_err(|e| Error::io("report file", &path, e))?;
    let line = format!(
        "wrote {} ({} KiB): {} pull request{}{}, {} entries, from {}",
        display_path(&env.workspace, &path),
        page.len().div_ceil(1024),
        data.totals.contexts,
        if data.totals.contexts == 1 { "" } else { "s" },
        if data.omitted_prs > 0 {
            format!(" ({} listed, the newest)", data.prs.len())
        } else {
            String::new()
        },
        data.totals.entries,
        store.shown()
    );
    if env.in_actions {
        env.runner
            .annotate(Level::Notice, "council audit report", &line);
    } else {
        env.runner.println(&line.to_string());
    }
    Ok(Outcome::Passed)
}
