//! `council audit`: the audit store. `import` and `sync` put Context Objects in (verified:
//! a refused one is recorded, never merged), `query` and `report` read the common answers
//! back, `verify` checks every stored chain again. The rules are `council_store`'s; this
//! module opens the store, reaches GitHub and the files, and tells the user.
//!
//! `council policy simulate` runs here too (it reads the store): it replays a policy over
//! every stored pull request.
//!
//! Exit codes: 0 done; 1 an object was refused (tampered, or conflicting with the stored
//! chain), a stored chain does not verify, or (simulate) a verdict or class would
//! change; 2 bad usage, an unreadable file or a bad policy; 3 the store or GitHub
//! failed.

mod import;
mod progress;
mod query;
mod record;
mod report;
mod simulate;
mod sync;
mod table;
mod verify;

pub(crate) use record::record;

use chrono::{DateTime, NaiveDate};
use council_store::query::Filter;
use council_store::url::DEFAULT_URL;
use council_store::{DatabaseUrl, Store, StoreError};

use crate::env::RunEnv;
use crate::request::{AuditFilter, AuditRequest, AuditTask};
use crate::secret::Secret;
use council_protocol::error::{Error, Outcome, Result};

pub async fn run(env: &RunEnv, req: &AuditRequest) -> Result<Outcome> {
    match &req.task {
        AuditTask::Import { files } => import::run(env, req, files).await,
        AuditTask::Sync {
            access,
            registry_issue,
            trusted_authors,
            ledger_authors,
            full,
        } => {
            let sync = sync::SyncRequest {
                access,
                registry_issue: *registry_issue,
                trusted_authors,
                ledger_authors,
                full: *full,
            };
            sync::run(env, req, &sync).await
        }
        AuditTask::Query {
            question,
            filter,
            csv,
        } => query::run(env, req, question.as_deref(), filter, *csv).await,
        AuditTask::Report { html, filter } => report::run(env, req, html, filter).await,
        AuditTask::Verify { filter } => verify::run(env, req, filter).await,
        AuditTask::Simulate { policy, filter } => simulate::run(env, req, policy, filter).await,
    }
}

/// The store `url` names (default: `sqlite://council-audit.db` here), open and migrated.
pub(crate) async fn open(env: &RunEnv, url: Option<&Secret>) -> Result<Store> {
    let text = url.map_or(DEFAULT_URL, Secret::expose);
    let url = DatabaseUrl::parse(text, &env.workspace).map_err(store_error)?;
    Store::open(&url, &super::now()).await.map_err(store_error)
}

/// The store of this request's `database-url`, or the default one.
async fn open_default(env: &RunEnv, req: &AuditRequest) -> Result<Store> {
    open(env, req.database_url.as_ref()).await
}

/// A URL or schema the user must change is bad usage (2); a store that failed is 3.
pub(crate) fn store_error(e: StoreError) -> Error {
    let fix = match &e {
        StoreError::Connect { .. } => {
            " (check --database-url or COUNCIL_DATABASE_URL, and that the server is reachable)"
        }
        _ => "",
    };
    if e.is_usage() {
        Error::Usage(format!("{e}{fix}"))
    } else {
        Error::Store(format!("{e}{fix}"))
    }
}

/// `--repo` and `--since` as the store filters them.
fn filter(given: &AuditFilter) -> Result<Filter> {
    if let Some(repo) = &given.repo
        && council_github::RepoName::parse(repo).is_none()
    {
        return Err(Error::Usage(format!(
            "--repo `{repo}` is not an owner/name repository"
        )));
    }
    Ok(Filter {
        repository: given.repo.clone(),
        since_unix: given.since.as_deref().map(parse_since).transpose()?,
    })
}

/// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time.
fn parse_since(text: &str) -> Result<i64> {
    let text = text.trim();
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(day
            .and_hms_opt(0, 0, 0)
            .map_or(0, |t| t.and_utc().timestamp()));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp())
        .map_err(|_| {
            Error::Usage(format!(
                "--since `{text}` is not a date: use YYYY-MM-DD (e.g. 2026-01-31) or an RFC 3339 \
                 time (2026-01-31T12:00:00Z)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_day_or_a_time() {
        assert_eq!(parse_since("2026-03-08").unwrap(), 1_772_928_000);
        assert_eq!(
            parse_since("2026-03-08T01:00:00+01:00").unwrap(),
            1_772_928_000
        );
        let err = parse_since("last week").unwrap_err().to_string();
        assert!(err.contains("YYYY-MM-DD"), "{err}");
    }
}
