//! `council audit verify`: every stored chain checked again from the store alone.

use council_protocol::error::{Outcome, Result};
use serde_json::json;

use super::{filter, open_default, store_error};
use crate::env::RunEnv;
use crate::request::{AuditFilter, AuditRequest};
use crate::runner::Level;

pub async fn run(env: &RunEnv, req: &AuditRequest, given: &AuditFilter) -> Result<Outcome> {
    let filter = filter(given)?;
    let mut store = open_default(env, req).await?;
    let key = req.hmac_key.as_ref().map(|k| k.expose().as_bytes());
    let verdicts = store
        .verify_stored(&filter, key)
        .await
        .map_err(store_error)?;
    // Not a broken chain: a record no live read vouches for the author of, said so.
    let unverified = store
        .totals(&filter)
        .await
        .map_err(store_error)?
        .unverified_attribution;
    let bad: Vec<_> = verdicts.iter().filter(|v| !v.verified).collect();
    let entries: u64 = verdicts.iter().map(|v| v.entries).sum();
    let missing: u64 = verdicts.iter().map(|v| v.missing).sum();
    let line = format!(
        "{}: {} pull requests, {entries} entries checked ({}){}{}; {}",
        store.shown(),
        verdicts.len(),
        if key.is_some() {
            "hash chain and signatures"
        } else {
            "hash chain; no --hmac-key: signatures not checked"
        },
        if missing > 0 {
            format!("; {missing} older entries are not in the store (only tails were imported)")
        } else {
            String::new()
        },
        if unverified > 0 {
            format!(
                "; {unverified} attributed by their unsigned header alone (imported files: \
                 author and branches unverified until `council audit sync` reads them)"
            )
        } else {
            String::new()
        },
        if bad.is_empty() {
            "every chain verifies".to_string()
        } else {
            format!("{} do not verify", bad.len())
        }
    );
    for v in &bad {
        env.runner.annotate(
            Level::Error,
            "council audit verify",
            &format!(
                "{} PR-{}: {}",
                v.repository,
                v.pr,
                v.problem.as_deref().unwrap_or("does not verify")
            ),
        );
    }
    if req.json {
        env.runner.println(
            &(json!({
                "database": store.shown(),
                "verified": bad.is_empty(),
                "contexts": verdicts.len(),
                "entries": entries,
                "missing": missing,
                "unverified_attribution": unverified,
                "signatures_checked": key.is_some(),
                "failed": bad,
            }))
            .to_string(),
        );
    } else if env.in_actions {
        env.runner
            .annotate(Level::Notice, "council audit verify", &line);
    } else {
        env.runner.println(&line.to_string());
    }
    Ok(if bad.is_empty() {
        Outcome::Passed
    } else {
        Outcome::GateFailed
    })
}
