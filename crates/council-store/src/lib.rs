//! agent-council's audit store: every pull request's Context Object, its timeline entries
//! and the agents' context reports, in SQLite (the default: one file, the library compiled
//! in) or PostgreSQL (an organisation's), with one schema and versioned migrations.
//!
//! The store keeps the ledger's rules: an object is stored only when its chain verifies;
//! entries are append-only (the database refuses updates and deletes); a re-import never
//! rewrites a stored entry, and one that conflicts with the stored chain is recorded as a
//! verification failure, with the offered document as evidence, never merged. The common
//! questions ([`query`]) and the HTML report ([`report`]) read it back.
//!
//! ```no_run
//! # async fn example(stored: council_protocol::audit::stored::Stored) -> Result<(), council_store::StoreError> {
//! use council_store::{DatabaseUrl, Offer, Store};
//! let url = DatabaseUrl::parse("sqlite://council-audit.db", std::path::Path::new("."))?;
//! let mut store = Store::open(&url, "2026-01-01T00:00:00Z").await?;
//! let imported = store
//!     .import(&Offer::new(&stored, "out/audit/PR-7.json", "2026-01-01T00:00:00Z"))
//!     .await?;
//! println!("{} new entries, {}", imported.added, imported.verification.as_str());
//! # Ok(()) }
//! ```

// Unit tests slice freely: a panic there is a failing test. The lib itself is checked
// without `cfg(test)` (`cargo clippy --all-targets` builds both).
#![cfg_attr(test, allow(clippy::string_slice))]

mod context_reports;
mod engine;
pub mod filter;
pub mod import;
mod migrate;
pub mod query;
pub mod recorded;
pub mod report;
mod sync_state;
mod text;
pub mod url;
pub mod verify;

pub use context_reports::ReportRow;
pub use import::{Attribution, BY_GITHUB, BY_HEADER, Imported, Offer, PrFacts, Verification, unix};
pub use migrate::SCHEMA_VERSION;
pub use url::DatabaseUrl;

use engine::Conn;

/// Why the store could not do what was asked. Findings (an object that does not verify,
/// a conflict) are not errors: they are recorded and returned as results.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A malformed `--database-url` (bad usage).
    #[error("database URL {0}")]
    Url(String),
    /// The database could not be reached or opened.
    #[error("cannot open the audit store {url}: {message}")]
    Connect { url: String, message: String },
    /// The schema is not one this build can use.
    #[error("audit store: {0}")]
    Schema(String),
    /// A statement failed.
    #[error("audit store: {0}")]
    Database(String),
}

impl StoreError {
    /// Bad usage (a URL or a schema the user must change), rather than a store that failed.
    pub fn is_usage(&self) -> bool {
        matches!(self, StoreError::Url(_) | StoreError::Schema(_))
    }
}

/// An open store, migrated to this build's schema.
pub struct Store {
    conn: Conn,
    url: DatabaseUrl,
}

impl Store {
    /// Connects and brings the schema up to date (`now` stamps applied migrations).
    pub async fn open(url: &DatabaseUrl, now: &str) -> Result<Store, StoreError> {
        let mut conn = Conn::open(url).await?;
        migrate::migrate(&mut conn, now).await?;
        Ok(Store {
            conn,
            url: url.clone(),
        })
    }

    /// The URL as messages show it (no password).
    pub fn shown(&self) -> String {
        self.url.shown()
    }

    pub fn engine(&self) -> &'static str {
        self.url.engine()
    }

    /// The store as a published page names it (no path, host or user).
    pub fn label(&self) -> String {
        self.url.label()
    }

    /// Refreshes the planner's statistics after a bulk load (a sync, an import), so the
    /// questions use the indexes from the first query on: `ANALYZE` on PostgreSQL (its
    /// autovacuum would get there later), `PRAGMA optimize` on SQLite.
    pub async fn optimize(&mut self) -> Result<(), StoreError> {
        if self.conn.is_postgres() {
            self.conn
                .batch("ANALYZE workflow_contexts; ANALYZE timeline_entries")
                .await
        } else {
            self.conn.batch("PRAGMA optimize").await
        }
    }

    /// For tests only, not part of the API (hidden from the documentation): runs one
    /// statement as written (no parameters) on the store's connection, past every rule
    /// the store's own calls keep. The database's own rules (triggers, constraints) still
    /// apply: that is what tests use it to show. Returns the rows it changed.
    #[doc(hidden)]
    pub async fn execute_raw(&mut self, sql: &str) -> Result<u64, StoreError> {
        self.conn.execute(sql, &[]).await
    }

    /// For tests only, not part of the API (hidden from the documentation): the rows of
    /// one query as written (no parameters), each value as JSON: a null, a number (an
    /// integer or a real) or a string.
    #[doc(hidden)]
    pub async fn query_raw(
        &mut self,
        sql: &str,
    ) -> Result<Vec<Vec<serde_json::Value>>, StoreError> {
        use engine::Cell;
        use serde_json::Value;
        let rows = self.conn.query(sql, &[]).await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|cell| match cell {
                        Cell::Null => Value::Null,
                        Cell::Int(i) => Value::from(i),
                        Cell::Real(r) => Value::from(r),
                        Cell::Text(t) => Value::from(t),
                    })
                    .collect()
            })
            .collect())
    }
}
