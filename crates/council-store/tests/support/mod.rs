//! What the store's tests share: a fresh, empty database on each engine for every test,
//! and valid Context Objects to import.
//!
//! Every store test runs against both engines: SQLite (a file in a temporary folder) and
//! PostgreSQL (a database of its own on a real server: the one `ci/postgres.sh` starts on
//! loopback, or `COUNCIL_TEST_DATABASE_URL`'s; see [`postgres`]). Where PostgreSQL cannot
//! be had here the tests run on SQLite alone, after one visible `SKIP: PostgreSQL …` line.
//!
//! ```ignore
//! mod support;
//!
//! #[tokio::test]
//! async fn an_import_adds_the_entries() {
//!     for db in support::each_engine().await {
//!         let mut store = db.open().await;
//!         let stored = support::ledger("o/r", 7, 3);
//!         let offer = council_store::Offer::new(&stored, "test", support::NOW);
//!         let imported = store.import(&offer).await.expect(db.engine);
//!         assert_eq!(imported.added, 3, "{}", db.engine);
//!     }
//! }
//! ```
//!
//! Each [`TestDb`] removes its database when dropped (a PostgreSQL database is dropped,
//! a SQLite folder deleted), except after a failed assertion: then it is kept for a look,
//! and its name printed (`ci/postgres.sh` drops test databases over an hour old).

// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

pub mod postgres;

use std::path::Path;

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::{Stored, merge};
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
use council_protocol::event::Event;
use council_store::{DatabaseUrl, Store};

pub use postgres::Database;

/// The time the tests stamp everything with.
pub const NOW: &str = "2026-01-01T00:00:00Z";

/// One engine's fresh, empty database (not yet migrated: [`TestDb::open`] does that).
pub struct TestDb {
    /// `SQLite` or `PostgreSQL`: name it in assertion messages.
    pub engine: &'static str,
    pub url: DatabaseUrl,
    /// The URL as text (with the PostgreSQL database's own name), to add options to.
    pub text: String,
    keep: Keep,
}

enum Keep {
    Sqlite(tempfile::TempDir),
    Postgres(Database),
}

impl TestDb {
    /// The store, opened (and so migrated) at [`NOW`]; panics naming the engine.
    pub async fn open(&self) -> Store {
        match Store::open(&self.url, NOW).await {
            Ok(store) => store,
            Err(e) => panic!("{}: cannot open {}: {e}", self.engine, self.url.shown()),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self.keep, Keep::Postgres(_))
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Keep::Sqlite(dir) = &mut self.keep
        {
            dir.disable_cleanup(true);
            eprintln!("{}: kept {} for a look", self.engine, self.url.shown());
        }
    }
}

/// A fresh SQLite store's URL, in a temporary folder of its own.
pub fn sqlite() -> TestDb {
    let dir = tempfile::Builder::new()
        .prefix("council-store-test")
        .tempdir()
        .expect("a temporary folder");
    let text = format!("sqlite://{}", dir.path().join("audit.db").display());
    TestDb {
        engine: "SQLite",
        url: parse(&text),
        text,
        keep: Keep::Sqlite(dir),
    }
}

/// A fresh PostgreSQL database, when a server can be had here (else `None`, after the
/// one SKIP line).
pub async fn postgresql() -> Option<TestDb> {
    let database = postgres::postgres()?.fresh_database().await;
    let text = database.url.clone();
    Some(TestDb {
        engine: "PostgreSQL",
        url: parse(&text),
        text,
        keep: Keep::Postgres(database),
    })
}

/// Both engines, each with a fresh database: SQLite always, PostgreSQL when a server can
/// be had here. Loop over them: `for db in each_engine().await { … }`.
pub async fn each_engine() -> Vec<TestDb> {
    let mut out = vec![sqlite()];
    out.extend(postgresql().await);
    out
}

/// A URL the store takes (a relative SQLite path would be taken from `/`).
pub fn parse(text: &str) -> DatabaseUrl {
    DatabaseUrl::parse(text, Path::new("/")).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `url` with `option=value` pairs added to its query (`?` or `&`).
pub fn with_options(url: &str, options: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{options}")
}

/// A pull request's Context Object holding `entries` sealed guard entries (one per run,
/// `check:n`, PASS), unsigned; it verifies. Same arguments, same object.
pub fn ledger(repository: &str, pr: u64, entries: usize) -> Stored {
    let mut ours = context(repository, pr);
    for i in 0..entries {
        let run = RunInfo {
            run_id: format!("run-{i}"),
            run_attempt: 1,
            job: "guard".to_string(),
        };
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: format!("check:n{i}"),
            result: "PASS".into(),
            message: format!("check {i} passed"),
        };
        ours.timeline
            .push(new_entry(&run, &record, &ours.subject.head_sha, NOW));
    }
    merge(None, &ours, None).expect("a sealed ledger")
}

/// A pull request's Context Object with an empty timeline (the doc example's pull
/// request, with the number and repository given).
pub fn context(repository: &str, pr: u64) -> ContextObject {
    let payload = serde_json::json!({
        "action": "opened",
        "number": pr,
        "pull_request": {
            "number": pr, "title": "Login", "body": null, "user": {"login": "agent-7"},
            "state": "open", "draft": false, "labels": [],
            "html_url": format!("https://github.com/{repository}/pull/{pr}"),
            "head": {"ref": "feature/auth/PBI-7-login",
                     "sha": "1111111111111111111111111111111111111111",
                     "repo": {"full_name": repository}},
            "base": {"ref": "develop", "sha": "2222222222222222222222222222222222222222",
                     "repo": {"full_name": repository}}
        }
    });
    let pr = Event::parse("pull_request", &payload.to_string(), "event.json")
        .and_then(|e| e.pull_request())
        .expect("a pull_request event");
    ContextObject::new(repository, &pr, "webhook:pull_request.opened", NOW)
}
