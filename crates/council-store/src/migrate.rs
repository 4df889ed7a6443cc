//! Versioned migrations: each version is one SQL file per engine, applied once, in order,
//! in a transaction, and recorded in `schema_migrations`. A store made by a newer council
//! (a version this build does not know) is refused rather than written with old rules.

use crate::StoreError;
use crate::engine::{Conn, Param};

struct Migration {
    version: i64,
    name: &'static str,
    sqlite: &'static str,
    postgres: &'static str,
}

const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "audit store",
        sqlite: include_str!("../migrations/sqlite/0001_audit_store.sql"),
        postgres: include_str!("../migrations/postgres/0001_audit_store.sql"),
    },
    Migration {
        version: 2,
        name: "attribution",
        sqlite: include_str!("../migrations/sqlite/0002_attribution.sql"),
        postgres: include_str!("../migrations/postgres/0002_attribution.sql"),
    },
];

/// The newest schema this build writes.
pub const SCHEMA_VERSION: i64 = 2;

/// Brings the store to [`SCHEMA_VERSION`]; how many migrations ran.
pub async fn migrate(conn: &mut Conn, now: &str) -> Result<usize, StoreError> {
    // The table of applied versions is made under the migrations' lock too: two first
    // runs at once on PostgreSQL would both make it otherwise (CREATE TABLE IF NOT EXISTS
    // is not safe against another one running: one fails on the catalog's unique index).
    conn.begin().await?;
    let made = bootstrap(conn).await;
    finish(conn, made).await?;
    let mut applied = 0;
    for migration in MIGRATIONS {
        conn.begin().await?;
        let ran = apply(conn, migration, now).await;
        applied += usize::from(finish(conn, ran).await?);
    }
    let newest = current(conn).await?;
    if newest > SCHEMA_VERSION {
        return Err(StoreError::Schema(format!(
            "the store has schema version {newest}, newer than this council knows ({SCHEMA_VERSION}): \
             upgrade council, or use another database"
        )));
    }
    Ok(applied)
}

/// Commits the transaction when `result` is a success, else rolls it back.
async fn finish<T>(conn: &mut Conn, result: Result<T, StoreError>) -> Result<T, StoreError> {
    match result {
        Ok(value) => {
            conn.commit().await?;
            Ok(value)
        }
        Err(e) => {
            conn.rollback().await;
            Err(e)
        }
    }
}

/// On PostgreSQL, one lock number for council's migrations, held until the caller's
/// transaction ends: a second council opening the store meanwhile waits for the first.
async fn lock(conn: &mut Conn) -> Result<(), StoreError> {
    if conn.is_postgres() {
        conn.batch("SELECT pg_advisory_xact_lock(7467398262)")
            .await?;
    }
    Ok(())
}

async fn bootstrap(conn: &mut Conn) -> Result<(), StoreError> {
    lock(conn).await?;
    conn.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (\
           version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    )
    .await
}

/// Applies one migration unless it is recorded; inside the caller's transaction, under
/// the lock, so that two first runs do not both create the tables.
async fn apply(conn: &mut Conn, migration: &Migration, now: &str) -> Result<bool, StoreError> {
    lock(conn).await?;
    let done = conn
        .query_one(
            "SELECT version FROM schema_migrations WHERE version = ?",
            &[Param::Int(Some(migration.version))],
        )
        .await?
        .is_some();
    if done {
        return Ok(false);
    }
    let sql = if conn.is_postgres() {
        migration.postgres
    } else {
        migration.sqlite
    };
    conn.batch(sql).await.map_err(|e| {
        StoreError::Schema(format!(
            "migration {} ({}) failed: {e}",
            migration.version, migration.name
        ))
    })?;
    conn.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        &[
            Param::Int(Some(migration.version)),
            Param::Text(Some(migration.name)),
            Param::Text(Some(now)),
        ],
    )
    .await?;
    Ok(true)
}

async fn current(conn: &mut Conn) -> Result<i64, StoreError> {
    Ok(conn
        .query_one("SELECT MAX(version) FROM schema_migrations", &[])
        .await?
        .and_then(|row| row.first().and_then(|c| c.int()))
        .unwrap_or(0))
}
