//! `council verify FILE [--hmac-key K]`: re-checks an audit file's hash chain and
//! signatures from SPEC.md's rules alone; exit 1 at the first broken link.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::audit::verify::{TamperKind, VerifyReport, verify_document};
use crate::error::{Error, Outcome, Result};
use crate::runner::Level;
use crate::settings::Settings;

/// Audit files are one JSON document; a cap keeps a hostile path from exhausting memory.
const MAX_FILE_BYTES: u64 = 1 << 30;

pub fn run(settings: &Settings, file: Option<&Path>) -> Result<Outcome> {
    let path = match file {
        Some(f) => settings.workspace.join(f),
        None => default_file(settings)?,
    };
    let doc = read(&path)?;
    let key = settings.hmac_key.as_ref().map(|k| k.expose().as_bytes());
    let shown = path.display().to_string();
    match verify_document(&doc, key) {
        Ok((report, omitted)) => {
            let line = passed_line(&shown, &report, omitted);
            settings.runner.append_summary(&format!(
                "### agent-council · verify\n\n✅ {}\n",
                crate::render::text::escape_text(&line)
            ))?;
            if settings.in_actions {
                settings
                    .runner
                    .annotate(Level::Notice, "council verify", &line);
            } else {
                println!("{line}");
            }
            Ok(Outcome::Passed)
        }
        Err(tamper)
            if matches!(
                tamper.kind,
                TamperKind::NotADocument | TamperKind::BadAnchor
            ) =>
        {
            Err(Error::Input(format!("{shown}: {tamper}")))
        }
        Err(tamper) => Err(Error::Tampered(format!("{shown}: {tamper}"))),
    }
}

fn passed_line(file: &str, report: &VerifyReport, omitted: usize) -> String {
    let signatures = if report.signatures_checked {
        "hash chain and signatures"
    } else {
        "hash chain (no --hmac-key: signatures not checked)"
    };
    let mut line = format!(
        "{file}: {} entries verified, {signatures}; head {}",
        report.entries, report.head_hash
    );
    if omitted > 0 {
        line.push_str(&format!(
            "; the {omitted} entries before them are in earlier audit artifacts (checked from their chain head)"
        ));
    }
    line
}

fn read(path: &Path) -> Result<Value> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::Input(format!(
            "{}: larger than 1 GiB",
            path.display()
        )));
    }
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_slice(&text)
        .map_err(|e| Error::Input(format!("{}: not valid JSON: {e}", path.display())))
}

/// In the action (`command: verify` without a file): the audit file of the event's PR.
fn default_file(settings: &Settings) -> Result<PathBuf> {
    let event = super::load_event(settings)?;
    let pr = event.pull_request()?;
    Ok(settings
        .workspace
        .join(format!("out/audit/PR-{}.json", pr.number)))
}
