//! `--database-url`: `sqlite://PATH` (relative to the working directory, or absolute as
//! `sqlite:///abs/path`) or `postgres://…` / `postgresql://…` in libpq's URL form.
//!
//! A URL may carry a password: it is never shown. [`DatabaseUrl::shown`] is the form
//! every message uses.

use std::path::{Path, PathBuf};

use crate::StoreError;

/// The default store: a SQLite file in the working directory.
pub const DEFAULT_URL: &str = "sqlite://council-audit.db";

#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Sqlite { path: PathBuf },
    Postgres(PostgresUrl),
}

/// A PostgreSQL URL, split into what tokio-postgres parses and the TLS choice it cannot
/// (libpq's `verify-ca`, `verify-full` and `sslrootcert`).
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    /// The URL without `sslmode`/`sslrootcert`, for `tokio_postgres::Config`.
    pub(crate) connect: String,
    pub(crate) tls: TlsMode,
    pub(crate) root_cert: Option<PathBuf>,
    shown: String,
}

/// libpq's `sslmode`, as libpq means it: `prefer` (the default) and `require` encrypt
/// without checking the server's certificate; `verify-ca` checks that a trusted CA
/// issued it, `verify-full` that too and that it names the host (against `sslrootcert`,
/// else the Mozilla roots built in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

// The URL holds a password: Debug shows what Display shows.
impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl std::fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl DatabaseUrl {
    /// Parses a URL; a relative SQLite path is taken from `cwd`.
    pub fn parse(text: &str, cwd: &Path) -> Result<DatabaseUrl, StoreError> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("sqlite://") {
            return sqlite(rest, cwd);
        }
        if let Some(rest) = text.strip_prefix("sqlite:") {
            return sqlite(rest, cwd);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return postgres(text).map(DatabaseUrl::Postgres);
        }
        let scheme = text.split_once(':').map_or("", |(s, _)| s);
        Err(StoreError::Url(format!(
            "`{}` is not a database URL: use sqlite://PATH (default {DEFAULT_URL}) or \
             postgres://USER@HOST/DATABASE{}",
            redact(text),
            if scheme.is_empty() {
                String::new()
            } else {
                format!(" (`{scheme}:` is not one of them)")
            }
        )))
    }

    /// The URL as messages show it: a password replaced by `***`.
    pub fn shown(&self) -> String {
        match self {
            DatabaseUrl::Sqlite { path } => format!("sqlite://{}", path.display()),
            DatabaseUrl::Postgres(pg) => pg.shown.clone(),
        }
    }

    pub fn engine(&self) -> &'static str {
        match self {
            DatabaseUrl::Sqlite { .. } => "SQLite",
            DatabaseUrl::Postgres(_) => "PostgreSQL",
        }
    }

    /// The store as a page meant to be published names it: the engine and the file's or
    /// database's name, never a local path, host or user.
    pub fn label(&self) -> String {
        match self {
            DatabaseUrl::Sqlite { path } => format!(
                "SQLite file {}",
                path.file_name()
                    .map_or_else(|| "?".into(), |n| n.to_string_lossy().into_owned())
            ),
            DatabaseUrl::Postgres(pg) => {
                let name = pg
                    .connect
                    .parse::<tokio_postgres::Config>()
                    .ok()
                    .and_then(|c| c.get_dbname().map(str::to_string));
                match name {
                    Some(name) => format!("PostgreSQL database {name}"),
                    None => "PostgreSQL".to_string(),
                }
            }
        }
    }
}

fn sqlite(rest: &str, cwd: &Path) -> Result<DatabaseUrl, StoreError> {
    // `sqlite://file.db?mode=…`: options are not taken; say so rather than make a file
    // named `file.db?mode=…`.
    if rest.contains('?') {
        return Err(StoreError::Url(format!(
            "sqlite://{rest}: a SQLite URL is a path only (sqlite://PATH), without `?` options"
        )));
    }
    if rest.is_empty() {
        return Err(StoreError::Url(
            "sqlite://: the URL names no file (sqlite://council-audit.db, or sqlite:///abs/path.db)"
                .to_string(),
        ));
    }
    let path = Path::new(rest);
    Ok(DatabaseUrl::Sqlite {
        path: if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        },
    })
}

fn postgres(text: &str) -> Result<PostgresUrl, StoreError> {
    let (base, query) = match text.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (text, None),
    };
    let mut tls = TlsMode::Prefer;
    let mut root_cert = None;
    let mut kept = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                tls = match value {
                    "disable" => TlsMode::Disable,
                    "allow" | "prefer" => TlsMode::Prefer,
                    "require" => TlsMode::Require,
                    "verify-ca" => TlsMode::VerifyCa,
                    "verify-full" => TlsMode::VerifyFull,
                    other => {
                        return Err(StoreError::Url(format!(
                            "{}: sslmode `{other}` is not one of disable, prefer, require, \
                             verify-ca, verify-full",
                            redact(text)
                        )));
                    }
                }
            }
            "sslrootcert" => root_cert = Some(PathBuf::from(percent_decode(value))),
            _ if !pair.is_empty() => kept.push(pair),
            _ => {}
        }
    }
    let connect = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    // tokio-postgres would accept `sslmode` itself; with it removed, the rest must parse.
    connect
        .parse::<tokio_postgres::Config>()
        .map_err(|e| StoreError::Url(format!("{}: {e}", redact(text))))?;
    Ok(PostgresUrl {
        connect,
        tls,
        root_cert,
        shown: redact(text),
    })
}

/// The URL with any password (`user:password@`, `password=`) replaced by `***`.
// Every index is where an ASCII character (`://`, `/`, `?`, `@`, `:`) was found, so a
// char boundary.
#[allow(clippy::string_slice)]
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    if let Some(scheme_end) = out.find("://") {
        let rest_start = scheme_end + 3;
        let authority_end = out[rest_start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| rest_start + i);
        if let Some(at) = out[rest_start..authority_end].rfind('@') {
            let userinfo = &out[rest_start..rest_start + at];
            if let Some(colon) = userinfo.find(':') {
                let start = rest_start + colon + 1;
                out.replace_range(start..rest_start + at, "***");
            }
        }
    }
    if let Some(q) = out.find('?') {
        let (head, query) = out.split_at(q + 1);
        let query: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => pair.to_string(),
            })
            .collect();
        out = format!("{head}{}", query.join("&"));
    }
    out
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = bytes.get(i + 1..i + 3)
            && let Ok(hex) = std::str::from_utf8(hex)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DatabaseUrl, StoreError> {
        DatabaseUrl::parse(text, Path::new("/srv/checkout"))
    }

    #[test]
    fn sqlite_paths_are_relative_to_the_working_directory_or_absolute() {
        assert_eq!(
            parse(DEFAULT_URL).unwrap(),
            DatabaseUrl::Sqlite {
                path: PathBuf::from("/srv/checkout/council-audit.db")
            }
        );
        assert_eq!(
            parse("sqlite:///var/lib/council.db").unwrap().shown(),
            "sqlite:///var/lib/council.db"
        );
        assert_eq!(
            parse("sqlite:audit/a.db").unwrap().shown(),
            "sqlite:///srv/checkout/audit/a.db"
        );
        assert!(parse("sqlite://").is_err());
        assert!(parse("sqlite://a.db?mode=ro").is_err());
    }

    #[test]
    fn postgres_urls_keep_their_password_out_of_every_message() {
        let url = parse("postgres://council:s3cret@db.example:5432/audit?sslmode=require").unwrap();
        assert_eq!(
            url.shown(),
            "postgres://council:***@db.example:5432/audit?sslmode=require"
        );
        assert!(!format!("{url:?}").contains("s3cret"));
        assert_eq!(url.label(), "PostgreSQL database audit");
        assert_eq!(
            parse(DEFAULT_URL).unwrap().label(),
            "SQLite file council-audit.db"
        );
        let DatabaseUrl::Postgres(pg) = url else {
            panic!("postgres")
        };
        assert_eq!(pg.tls, TlsMode::Require);
        assert_eq!(
            pg.connect,
            "postgres://council:s3cret@db.example:5432/audit"
        );
        assert_eq!(
            redact("postgresql://u@h/d?password=hunter2&application_name=x"),
            "postgresql://u@h/d?password=***&application_name=x"
        );
    }

    #[test]
    fn libpq_ssl_modes_are_understood_and_others_refused() {
        for (mode, want) in [
            ("disable", TlsMode::Disable),
            ("prefer", TlsMode::Prefer),
            ("require", TlsMode::Require),
            ("verify-ca", TlsMode::VerifyCa),
            ("verify-full", TlsMode::VerifyFull),
        ] {
            let DatabaseUrl::Postgres(pg) = parse(&format!(
                "postgres://u@h/d?sslmode={mode}&sslrootcert=%2Ftmp%2Fca.pem"
            ))
            .unwrap() else {
                panic!("postgres")
            };
            assert_eq!(pg.tls, want);
            assert_eq!(pg.root_cert, Some(PathBuf::from("/tmp/ca.pem")));
        }
        let err = parse("postgres://u:pw@h/d?sslmode=always").unwrap_err();
        assert!(err.to_string().contains("sslmode `always`"), "{err}");
        assert!(!err.to_string().contains("pw@"), "{err}");
    }

    proptest::proptest! {
        /// Any text is a URL or an error, never a panic, and no message shows a password.
        #[test]
        fn any_text_parses_or_is_refused_without_showing_a_password(
            user in "[a-z]{1,8}",
            password in "[A-Za-z0-9]{6,12}",
            rest in "\\PC{0,40}",
        ) {
            let _ = parse(&rest);
            let text = format!("postgres://{user}:{password}@{rest}");
            let shown = match parse(&text) {
                Ok(url) => format!("{} {url:?}", url.shown()),
                Err(e) => e.to_string(),
            };
            let at = format!(":{password}@");
            proptest::prop_assert!(!shown.contains(&at), "{shown}");
        }
    }

    #[test]
    fn other_schemes_are_named_in_the_error() {
        let err = parse("mysql://root:pw@localhost/x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`mysql:` is not one of them"), "{err}");
        assert!(!err.contains(":pw@"), "{err}");
        assert!(parse("council.db").is_err());
    }
}
