//! `council verify FILE [--with OLD_FILE…] [--allow-partial] [--hmac-key K]`: re-checks an
//! audit file's hash chain and signatures from SPEC.md's rules alone; exit 1 at the first
//! problem.
//!
//! Each file is read as a stream (memory follows the largest entry, not the file). A file
//! that leaves its oldest entries out (`timeline_omitted`) proves only the entries it
//! holds: the rest must be proven by the earlier files given with `--with` (the rule is in
//! `audit::verify::prove`), or be taken on trust with `--allow-partial`, which says how
//! many. Exit codes: 0 verified, 1 tampering or a partial file not proven, 2 bad usage, a
//! file that is not a JSON document / not a Context Object, or a file that cannot be read.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::RunEnv;
use crate::request::VerifyRequest;
use crate::runner::Level;
use council_protocol::audit::derive::derived;
use council_protocol::audit::head::Head;
use council_protocol::audit::verify::{
    EntryFacts, Proof, StreamError, VerifiedDocument, prove, verify_reader,
};
use council_protocol::error::{Error, Outcome, Result};

/// Files are streamed, but one entry is held whole, with its canonical form: a cap keeps
/// a hostile file of one giant entry from exhausting memory.
const MAX_FILE_BYTES: u64 = 1 << 30;

pub fn run(env: &RunEnv, options: &VerifyRequest) -> Result<Outcome> {
    let result = check(env, options);
    // `--json`: the report, or what was found (tampering is a result, exit 1); bad input
    // and unreadable files are errors only, on stderr.
    if options.json {
        match &result {
            Ok(report) => env.runner.println(&report.to_string()),
            Err(Error::Tampered(problem)) => env
                .runner
                .println(&(serde_json::json!({"verified": false, "problem": problem})).to_string()),
            Err(_) => {}
        }
    }
    result.map(|_| Outcome::Passed)
}

/// Verifies, says so, and returns the JSON report.
fn check(env: &RunEnv, options: &VerifyRequest) -> Result<Value> {
    let report = verify_files(env, options)?;
    let line = report["message"].as_str().unwrap_or_default();
    env.runner.append_summary(&format!(
        "### agent-council · verify\n\n✅ {}\n",
        council_protocol::render::text::escape_text(line)
    ))?;
    if env.in_actions {
        env.runner.annotate(Level::Notice, "council verify", line);
    } else if !options.json {
        env.runner.println(line);
    }
    Ok(report)
}

/// Verifies the files (paths relative to the workspace) and returns the JSON report;
/// says nothing (`Error::Tampered` is what was found wrong).
pub(crate) fn verify_files(env: &RunEnv, options: &VerifyRequest) -> Result<Value> {
    let path = match &options.file {
        Some(f) => env.workspace.join(f),
        None => default_file(env, options)?,
    };
    let paths: Vec<PathBuf> = std::iter::once(path)
        .chain(options.with.iter().map(|p| env.workspace.join(p)))
        .collect();
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let names: Vec<&str> = shown.iter().map(String::as_str).collect();
    let key = options.hmac_key.as_ref().map(|k| k.expose().as_bytes());
    let files = paths
        .iter()
        .zip(&names)
        .map(|(path, name)| verify_file(path, name, key))
        .collect::<Result<Vec<_>>>()?;
    let proof = prove(&files).map_err(|e| Error::Tampered(e.describe(&names)))?;
    if proof.trusted > 0 && !options.allow_partial {
        return Err(Error::Tampered(unproven(&files, &proof, &names)));
    }
    if let Some(forged) = derived_mismatch(&files, &proof, key) {
        return Err(Error::Tampered(format!("{}: {forged}", names[0])));
    }
    let mut line = passed_line(&files, &proof, &names);
    if proof.trusted > 0 {
        line.push_str(
            "; `state` and `gates` not checked (they depend on the entries taken on trust)",
        );
    }
    let report = &files[0].report;
    let proven_by: Vec<&str> = proof
        .segments
        .iter()
        .filter(|s| s.file != 0)
        .map(|s| names[s.file])
        .collect();
    Ok(serde_json::json!({
        "verified": true,
        "file": names[0],
        "entries": report.entries,
        "signatures_checked": report.signatures_checked,
        "head_hash": report.head_hash,
        "earlier_entries": proof.earlier_entries(),
        "proven_by": proven_by,
        "taken_on_trust": proof.trusted,
        "state_and_gates_checked": proof.trusted == 0,
        "message": line,
    }))
}

fn verify_file(path: &Path, name: &str, key: Option<&[u8]>) -> Result<VerifiedDocument> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io("audit file", path, e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::Input(format!("{name}: larger than 1 GiB")));
    }
    let file = File::open(path).map_err(|e| Error::io("audit file", path, e))?;
    match verify_reader(BufReader::with_capacity(1 << 16, file), key) {
        Ok(doc) => Ok(doc),
        Err(StreamError::Io(e)) => Err(Error::io("audit file", path, e)),
        Err(StreamError::Invalid(t)) if t.kind.is_bad_input() => {
            Err(Error::Input(format!("{name}: {t}")))
        }
        Err(StreamError::Invalid(t)) => Err(Error::Tampered(format!("{name}: {t}"))),
    }
}

/// The stored `state`, `gates` and `chain_head` of the newest file against what its whole
/// (proven) history implies; `None` when they agree, or cannot be checked because older
/// entries were taken on trust.
fn derived_mismatch(
    files: &[VerifiedDocument],
    proof: &Proof,
    key: Option<&[u8]>,
) -> Option<String> {
    let newest = &files[0];
    if proof.trusted > 0 {
        return None;
    }
    let facts: Vec<&EntryFacts> = proof.facts(files).collect();
    let (state, gates) = derived(&facts);
    if let Some(stored) = &newest.stored_state {
        let expected = serde_json::to_value(state).unwrap_or_default();
        if *stored != expected {
            return Some(format!(
                "the stored `state` {stored} is not what the timeline implies ({expected}): it was edited"
            ));
        }
    }
    if let Some(stored) = &newest.stored_gates {
        let expected = serde_json::to_value(&gates).unwrap_or_default();
        if *stored != expected {
            return Some(format!(
                "the stored `gates` {stored} are not what the timeline implies ({expected}): they were edited"
            ));
        }
    }
    let recorded: Option<Head> = match &newest.stored_head {
        None => None,
        Some(value) => match serde_json::from_value(value.clone()) {
            Ok(head) => Some(head),
            Err(e) => return Some(format!("its `chain_head` is not well formed: {e}")),
        },
    };
    // Files written before the head was recorded have none; with a key one is expected.
    if recorded.is_some() || key.is_some() {
        let total = facts.len();
        if let Err(e) = Head::check(recorded.as_ref(), total, &newest.report.head_hash, key) {
            return Some(e.to_string());
        }
    }
    None
}

/// Why a partial history is refused, and the two ways on.
fn unproven(files: &[VerifiedDocument], proof: &Proof, names: &[&str]) -> String {
    let stop = proof.unproven_file().unwrap_or(0);
    let (count, head) = files[stop]
        .omitted
        .as_ref()
        .map(|o| (o.count, o.head_hash.as_str()))
        .unwrap_or_default();
    let ways = "give the earlier audit files that hold them (`council verify FILE --with OLD_FILE…`), \
                or pass --allow-partial to take them on trust";
    if stop == 0 && files.len() == 1 {
        format!(
            "{}: the file leaves out its {count} oldest entries (timeline_omitted), so it does not prove them: \
             its first entry links to {head}, a value the file carries itself; {ways}",
            names[0]
        )
    } else {
        format!(
            "{}: {} of the oldest entries are not proven: {} leaves out its {count} oldest entries and no \
             --with file holds entry {} of the history with hash {head}; {ways}",
            names[0],
            proof.trusted,
            names[stop],
            count.saturating_sub(1)
        )
    }
}

fn passed_line(files: &[VerifiedDocument], proof: &Proof, names: &[&str]) -> String {
    let report = &files[0].report;
    let signatures = if report.signatures_checked {
        "hash chain and signatures"
    } else {
        "hash chain (no --hmac-key: signatures not checked)"
    };
    let mut line = format!(
        "{}: {} entries verified, {signatures}; head {}",
        names[0], report.entries, report.head_hash
    );
    let earlier = proof.earlier_entries();
    if earlier > 0 {
        let by: Vec<&str> = proof
            .segments
            .iter()
            .filter(|s| s.file != 0)
            .map(|s| names[s.file])
            .collect();
        line.push_str(&format!(
            "; the {earlier} entries before them proven by {}",
            by.join(", ")
        ));
    }
    if proof.trusted > 0 {
        line.push_str(&format!(
            "; {} older entries taken on trust (--allow-partial): they are in earlier audit artifacts, \
             not checked here",
            proof.trusted
        ));
    }
    line
}

/// In the action (`command: verify` without a file): the audit file of the event's PR.
fn default_file(env: &RunEnv, options: &VerifyRequest) -> Result<PathBuf> {
    let event = super::load_event(env, options.event.as_ref())?;
    let pr = event.pull_request()?;
    Ok(env
        .workspace
        .join(format!("out/audit/PR-{}.json", pr.number)))
}
