//! SQLite through rusqlite, with the library compiled in (`bundled`): the static binary
//! needs nothing installed. Calls are synchronous; the store's async calls run them in
//! place (one connection, one process, short statements).

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags};

use super::{Cell, Param, Row};
use crate::StoreError;

/// How long a writer waits for another (an action step and a sync on one file).
const LOCK_WAIT: Duration = Duration::from_secs(30);

pub struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    pub fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let shown = format!("sqlite://{}", path.display());
        let fail = |e: rusqlite::Error| StoreError::Connect {
            url: shown.clone(),
            message: e.to_string(),
        };
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
            && !parent.is_dir()
        {
            return Err(StoreError::Connect {
                url: shown,
                message: format!(
                    "the folder {} does not exist (council creates the file, not its folder)",
                    parent.display()
                ),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(fail)?;
        // Another process writing (an action step and a sync) waits, up to a bound.
        conn.busy_timeout(LOCK_WAIT).map_err(fail)?;
        // WAL lets readers (a report) go on while a sync writes; NORMAL is durable at
        // every checkpoint and safe against corruption in WAL mode. Switching a new file
        // to WAL needs it alone for a moment, and SQLite answers "locked" at once, without
        // the busy timeout, while another process does the same: wait and try again.
        let pragmas =
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;";
        let started = std::time::Instant::now();
        loop {
            match conn.execute_batch(pragmas) {
                Ok(()) => break,
                Err(e) if is_busy(&e) && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(e) => {
                    return Err(StoreError::Connect {
                        url: shown.clone(),
                        message: not_a_database(e),
                    });
                }
            }
        }
        Ok(Sqlite { conn })
    }

    pub fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let mut statement = self.conn.prepare_cached(sql).map_err(db)?;
        let changed = statement
            .execute(rusqlite::params_from_iter(params.iter().map(value)))
            .map_err(db)?;
        Ok(changed as u64)
    }

    pub fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.conn.prepare_cached(sql).map_err(db)?;
        let width = statement.column_count();
        let mut rows = statement
            .query(rusqlite::params_from_iter(params.iter().map(value)))
            .map_err(db)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(db)? {
            let mut cells = Vec::with_capacity(width);
            for i in 0..width {
                cells.push(match row.get_ref(i).map_err(db)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(i) => Cell::Int(i),
                    ValueRef::Real(r) => Cell::Real(r),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Cell::Text(String::from_utf8_lossy(t).into_owned())
                    }
                });
            }
            out.push(cells);
        }
        Ok(out)
    }

    pub fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn.execute_batch(sql).map_err(db)
    }
}

fn value(param: &Param<'_>) -> Value {
    match *param {
        Param::Int(Some(i)) => Value::Integer(i),
        Param::Real(Some(r)) => Value::Real(r),
        Param::Text(Some(t)) => Value::Text(t.to_string()),
        Param::Int(None) | Param::Real(None) | Param::Text(None) => Value::Null,
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

/// "file is not a database" says what happened; say what to do as well.
fn not_a_database(e: rusqlite::Error) -> String {
    let text = e.to_string();
    if text.contains("not a database") {
        format!(
            "{text}: the file exists but is not a SQLite database; point --database-url at another file"
        )
    } else {
        text
    }
}
