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

const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "audit store",
    sqlite: include_str!("../migrations/sqlite/0001_audit_store.sql"),
    postgres: include_str!("../migrations/postgres/0001_audit_store.sql"),
}];

/// The newest schema this build writes.
pub const SCHEMA_VERSION: i64 = 1;

/// Brings the store to [`SCHEMA_VERSION`]; how many migrations ran.
pub async fn migrate(conn: &mut Conn, now: &str) -> Result<usize, StoreError> {
    conn.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (\
           version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    )
    .await?;
    let mut applied = 0;
    for migration in MIGRATIONS {
        conn.begin().await?;
        let result = apply(conn, migration, now).await;
        match result {
            Ok(ran) => {
                conn.commit().await?;
                applied += usize::from(ran);
            }
            Err(e) => {
                conn.rollback().await;
                return Err(e);
            }
        }
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

/// Applies one migration unless it is recorded; inside the caller's transaction, which
/// on PostgreSQL also holds a lock so that two first runs do not both create the tables.
async fn apply(conn: &mut Conn, migration: &Migration, now: &str) -> Result<bool, StoreError> {
    if conn.is_postgres() {
        // One lock number for council's migrations, released at the end of the transaction.
        conn.batch("SELECT pg_advisory_xact_lock(7467398262)")
            .await?;
    }
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
