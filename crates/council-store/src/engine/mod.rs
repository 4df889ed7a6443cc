//! One connection, either engine, behind the few calls the store makes: statements with
//! positional parameters, rows of plain values, batches (migrations) and transactions.
//!
//! SQL is written once, with `?` placeholders, in the subset both engines speak; the
//! PostgreSQL side numbers them (`$1`, `$2`, …). Integers are 64-bit in both (BIGINT in
//! PostgreSQL), reals are doubles, times are text plus Unix seconds.

mod postgres;
mod sqlite;
mod tls;

use crate::StoreError;
use crate::url::DatabaseUrl;

/// A value read from a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Cell {
    pub fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(i) => Some(*i),
            Cell::Real(r) => Some(*r as i64),
            _ => None,
        }
    }

    // For the questions and the report, which read reals; nothing reads one yet.
    #[allow(dead_code)]
    pub fn real(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Real(r) => Some(*r),
            _ => None,
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn into_text(self) -> Option<String> {
        match self {
            Cell::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// A statement parameter; a null is typed, as PostgreSQL wants it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param<'a> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<&'a str>),
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(s: &'a str) -> Self {
        Param::Text(Some(s))
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(s: &'a String) -> Self {
        Param::Text(Some(s))
    }
}

impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(s: Option<&'a str>) -> Self {
        Param::Text(s)
    }
}

impl From<i64> for Param<'_> {
    fn from(i: i64) -> Self {
        Param::Int(Some(i))
    }
}

impl From<Option<i64>> for Param<'_> {
    fn from(i: Option<i64>) -> Self {
        Param::Int(i)
    }
}

impl From<f64> for Param<'_> {
    fn from(r: f64) -> Self {
        Param::Real(Some(r))
    }
}

impl From<Option<f64>> for Param<'_> {
    fn from(r: Option<f64>) -> Self {
        Param::Real(r)
    }
}

pub type Row = Vec<Cell>;

pub enum Conn {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

impl Conn {
    pub async fn open(url: &DatabaseUrl) -> Result<Conn, StoreError> {
        match url {
            DatabaseUrl::Sqlite { path } => sqlite::Sqlite::open(path).map(Conn::Sqlite),
            DatabaseUrl::Postgres(pg) => postgres::Postgres::connect(pg).await.map(Conn::Postgres),
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Conn::Postgres(_))
    }

    /// Runs a statement; the rows it changed.
    pub async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        match self {
            Conn::Sqlite(c) => c.execute(sql, params),
            Conn::Postgres(c) => c.execute(sql, params).await,
        }
    }

    pub async fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        match self {
            Conn::Sqlite(c) => c.query(sql, params),
            Conn::Postgres(c) => c.query(sql, params).await,
        }
    }

    pub async fn query_one(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// Several statements without parameters (a migration).
    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.batch(sql),
            Conn::Postgres(c) => c.batch(sql).await,
        }
    }

    /// Starts a transaction that writes: SQLite takes its write lock at once (two
    /// writers wait for each other instead of failing half-way), PostgreSQL a plain one.
    pub async fn begin(&mut self) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(c) => c.batch("BEGIN IMMEDIATE"),
            Conn::Postgres(c) => c.batch("BEGIN").await,
        }
    }

    pub async fn commit(&mut self) -> Result<(), StoreError> {
        self.batch("COMMIT").await
    }

    /// Ends a failed transaction; its own failure is not the one to report.
    pub async fn rollback(&mut self) {
        let _ = self.batch("ROLLBACK").await;
    }
}

/// `?` placeholders numbered for PostgreSQL (`$1`, …), outside quoted text.
pub(crate) fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut quote: Option<char> = None;
    for c in sql.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), c) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '?') => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            (None, c) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes_only() {
        assert_eq!(
            numbered("SELECT a FROM t WHERE b = ? AND c = '?' AND \"d?\" = ?"),
            "SELECT a FROM t WHERE b = $1 AND c = '?' AND \"d?\" = $2"
        );
    }
}
