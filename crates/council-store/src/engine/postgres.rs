//! PostgreSQL through tokio-postgres, TLS through rustls (see `tls`). Statements are
//! prepared once per connection and reused.

use std::collections::HashMap;
use std::time::Duration;

use rustls::CertificateError;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, Statement};

use super::tls;
use super::{Cell, Param, Row, numbered};
use crate::StoreError;
use crate::url::{PostgresUrl, TlsMode};

pub struct Postgres {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl Postgres {
    pub async fn connect(url: &PostgresUrl) -> Result<Postgres, StoreError> {
        let shown = format!("{url:?}");
        let fail = |message: String| StoreError::Connect {
            url: shown.clone(),
            message,
        };
        // The very Config the URL was parsed to, and shown from.
        let mut config: Config = (*url.config).clone();
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("council");
        }
        let client = match url.tls {
            TlsMode::Disable => {
                config.ssl_mode(tokio_postgres::config::SslMode::Disable);
                let (client, connection) = config
                    .connect(tokio_postgres::NoTls)
                    .await
                    .map_err(|e| fail(message(&e)))?;
                tokio::spawn(connection);
                client
            }
            mode => {
                config.ssl_mode(match mode {
                    TlsMode::Prefer => tokio_postgres::config::SslMode::Prefer,
                    _ => tokio_postgres::config::SslMode::Require,
                });
                let connector = tls::connector(mode, url.root_cert.as_deref()).map_err(fail)?;
                let (client, connection) = config
                    .connect(connector)
                    .await
                    .map_err(|e| fail(tls_message(&e, url)))?;
                tokio::spawn(connection);
                client
            }
        };
        Ok(Postgres {
            client,
            prepared: HashMap::new(),
        })
    }

    async fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let statement = self
            .client
            .prepare(&numbered(sql))
            .await
            .map_err(|e| db(&e))?;
        self.prepared.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    pub async fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        let statement = self.statement(sql).await?;
        let boxed = boxed(params);
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref() as _).collect();
        self.client
            .execute(&statement, &refs)
            .await
            .map_err(|e| db(&e))
    }

    pub async fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql).await?;
        let boxed = boxed(params);
        let refs: Vec<&(dyn ToSql + Sync)> = boxed.iter().map(|b| b.as_ref() as _).collect();
        let rows = self
            .client
            .query(&statement, &refs)
            .await
            .map_err(|e| db(&e))?;
        rows.iter().map(cells).collect()
    }

    pub async fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        self.client.batch_execute(sql).await.map_err(|e| db(&e))
    }
}

fn boxed(params: &[Param<'_>]) -> Vec<Box<dyn ToSql + Sync + Send>> {
    params
        .iter()
        .map(|p| -> Box<dyn ToSql + Sync + Send> {
            match *p {
                Param::Int(i) => Box::new(i),
                Param::Real(r) => Box::new(r),
                Param::Text(t) => Box::new(t.map(str::to_string)),
            }
        })
        .collect()
}

fn cells(row: &tokio_postgres::Row) -> Result<Row, StoreError> {
    let mut out = Vec::with_capacity(row.len());
    for (i, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let get_err = |e: tokio_postgres::Error| db(&e);
        let cell = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)
                .map_err(get_err)?
                .map(Cell::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)
                .map_err(get_err)?
                .map(Cell::Real)
        } else if *ty == Type::FLOAT4 {
            row.try_get::<_, Option<f32>>(i)
                .map_err(get_err)?
                .map(|v| Cell::Real(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into()))
        } else if [Type::TEXT, Type::VARCHAR, Type::NAME, Type::BPCHAR].contains(ty) {
            row.try_get::<_, Option<String>>(i)
                .map_err(get_err)?
                .map(Cell::Text)
        } else {
            return Err(StoreError::Database(format!(
                "column `{}` has type {ty}, which the store does not read (a bug: cast it in the query)",
                column.name()
            )));
        };
        out.push(cell.unwrap_or(Cell::Null));
    }
    Ok(out)
}

/// tokio-postgres says "db error" for every server error: the server's own words are in
/// the `DbError`, and a connection failure's cause in the source chain.
fn message(e: &tokio_postgres::Error) -> String {
    if let Some(d) = e.as_db_error() {
        let mut text = format!("{}: {}", d.severity(), d.message());
        if let Some(detail) = d.detail() {
            text.push_str(&format!(" ({detail})"));
        }
        return text;
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// A TLS connection's failure: a certificate `verify-ca`/`verify-full` did not accept is
/// said in words first (rustls names the reason by a variant only: `UnknownIssuer`).
fn tls_message(e: &tokio_postgres::Error, url: &PostgresUrl) -> String {
    let text = message(e);
    let Some(why) = certificate_error(e) else {
        return text;
    };
    let trusted = match &url.root_cert {
        Some(path) => format!("a CA in sslrootcert {}", path.display()),
        None => "one of the Mozilla root CAs built into council (no sslrootcert was given)".into(),
    };
    let said = match why {
        CertificateError::UnknownIssuer => format!(
            "the server's certificate is not trusted: it was not issued by {trusted}; give the \
             CA that issued it as sslrootcert=PATH"
        ),
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
            "the server's certificate is not trusted for this host: it does not name the host \
             the URL connects to (sslmode=verify-full checks the name)"
                .to_string()
        }
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            "the server's certificate is not trusted: it has expired".to_string()
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "the server's certificate is not trusted: it is not valid yet (or this machine's \
             clock is behind)"
                .to_string()
        }
        _ => "the server's certificate is not trusted".to_string(),
    };
    format!("{said} ({text})")
}

/// The certificate rustls refused, from the error's causes (an `io::Error` around it).
fn certificate_error(e: &tokio_postgres::Error) -> Option<&CertificateError> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let inner = s
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .map_or(s, |inner| inner as &(dyn std::error::Error + 'static));
        if let Some(rustls::Error::InvalidCertificate(why)) = inner.downcast_ref::<rustls::Error>()
        {
            return Some(why);
        }
        source = s.source();
    }
    None
}

fn db(e: &tokio_postgres::Error) -> StoreError {
    StoreError::Database(message(e))
}
