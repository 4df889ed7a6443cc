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

/// A PostgreSQL URL: the `tokio_postgres::Config` it connects with, and the TLS choice
/// tokio-postgres cannot take (libpq's `verify-ca`, `verify-full` and `sslrootcert`).
///
/// What messages show is made from that same `config`, never from the text: the user,
/// hosts, ports and database it parsed to, and `:***` when it holds a password. So the
/// parse that connects and the one that is shown can never disagree about where the
/// password ends (a password may hold `/`, `?`, `#` or `:` unencoded).
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    pub(crate) config: Box<tokio_postgres::Config>,
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

impl TlsMode {
    fn name(self) -> &'static str {
        match self {
            TlsMode::Disable => "disable",
            TlsMode::Prefer => "prefer",
            TlsMode::Require => "require",
            TlsMode::VerifyCa => "verify-ca",
            TlsMode::VerifyFull => "verify-full",
        }
    }
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
        for scheme in ["postgres://", "postgresql://"] {
            if let Some(rest) = text.strip_prefix(scheme) {
                return postgres(scheme, rest).map(DatabaseUrl::Postgres);
            }
        }
        let scheme = text.split_once(':').map_or("", |(s, _)| s);
        // The text is shown only when it cannot hold a password (no user-info, no
        // `password=`); otherwise its scheme alone.
        let shown = if may_hold_password(text) {
            String::new()
        } else {
            format!("`{text}` ")
        };
        Err(StoreError::Url(format!(
            "{shown}is not a database URL: use sqlite://PATH (default {DEFAULT_URL}) or \
             postgres://USER@HOST/DATABASE{}",
            if scheme.is_empty() {
                String::new()
            } else {
                format!(" (`{scheme}:` is not one of them)")
            }
        )))
    }

    /// The URL as messages show it: made from what it parsed to, a password as `***`.
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
            DatabaseUrl::Postgres(pg) => match pg.config.get_dbname() {
                Some(name) => format!("PostgreSQL database {name}"),
                None => "PostgreSQL".to_string(),
            },
        }
    }

    /// The URL holds a password (in its user-info or a `password=` parameter).
    pub fn has_password(&self) -> bool {
        match self {
            DatabaseUrl::Sqlite { .. } => false,
            DatabaseUrl::Postgres(pg) => pg.config.get_password().is_some(),
        }
    }
}

/// Whether `text`, given as a database URL, holds a password: what it parses to says
/// so; text that does not parse counts when it could (user-info or `password=`).
pub fn holds_password(text: &str) -> bool {
    match DatabaseUrl::parse(text, Path::new("/")) {
        Ok(url) => url.has_password(),
        Err(_) => may_hold_password(text),
    }
}

fn may_hold_password(text: &str) -> bool {
    text.contains('@') || text.to_ascii_lowercase().contains("password")
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

/// No message about a PostgreSQL URL quotes it: it may hold a password.
fn refused(why: &str) -> StoreError {
    StoreError::Url(format!(
        "(a PostgreSQL URL, not shown: it may hold a password): {why}"
    ))
}

/// `rest` is the URL after its scheme. It is split where tokio-postgres's URL parser
/// splits it (the user-info ends at the first `@`, the parameters start at the first
/// `?` after it); `sslmode` and `sslrootcert` are taken out, and the rest is parsed by
/// tokio-postgres itself: that `Config` both connects and is shown.
fn postgres(scheme: &str, rest: &str) -> Result<PostgresUrl, StoreError> {
    // Two `@`s: one of them belongs to a user name, password, database or parameter,
    // and a reader (libpq splits at the last, tokio-postgres at the first) may take
    // part of a password for the host.
    if rest.matches('@').count() > 1 {
        return Err(refused(
            "it holds more than one `@`: write an `@` in a user name, password, database \
             name or parameter as %40",
        ));
    }
    let (userinfo, after) = match rest.split_once('@') {
        Some((userinfo, after)) => (Some(userinfo), after),
        None => (None, rest),
    };
    let (user, password) = userinfo
        .map(|u| u.split_once(':').unwrap_or((u, "")))
        .unwrap_or_default();
    // `postgres://host/db?password=a@b`: the `@` ends what tokio-postgres takes for the
    // user-info, so host, database and parameters would be read as a user and password,
    // and the end of the password as the host. A password may hold `/` and `?` (tokio-
    // postgres takes them), but not what reads as parameters before the `@`.
    let parameters = password
        .split_once('?')
        .is_some_and(|(_, after)| after.contains('='));
    if user.contains(['/', '?']) || parameters {
        return Err(refused(
            "its `@` does not end a user name and password before the host: write an `@` \
             in a database name or parameter as %40 (and a `?` in a password as %3F)",
        ));
    }
    let (host_and_path, query) = match after.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (after, None),
    };
    let base = match userinfo {
        Some(userinfo) => format!("{userinfo}@{host_and_path}"),
        None => host_and_path.to_string(),
    };
    let mut tls = None;
    let mut root_cert = None;
    let mut kept = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match decode(key).as_str() {
            "sslmode" => {
                tls = Some(match decode(value).as_str() {
                    "disable" => TlsMode::Disable,
                    "allow" | "prefer" => TlsMode::Prefer,
                    "require" => TlsMode::Require,
                    "verify-ca" => TlsMode::VerifyCa,
                    "verify-full" => TlsMode::VerifyFull,
                    other => {
                        return Err(refused(&format!(
                            "sslmode `{other}` is not one of disable, prefer, require, \
                             verify-ca, verify-full"
                        )));
                    }
                });
            }
            "sslrootcert" => root_cert = Some(PathBuf::from(decode(value))),
            _ if !pair.is_empty() => kept.push(pair),
            _ => {}
        }
    }
    let connect = match kept.is_empty() {
        true => format!("{scheme}{base}"),
        false => format!("{scheme}{base}?{}", kept.join("&")),
    };
    let config: tokio_postgres::Config = connect
        .parse()
        .map_err(|e: tokio_postgres::Error| refused(&parse_error(&e)))?;
    let shown = show(scheme, &config, tls);
    Ok(PostgresUrl {
        config: Box::new(config),
        tls: tls.unwrap_or(TlsMode::Prefer),
        root_cert,
        shown,
    })
}

/// tokio-postgres's words, its cause included ("invalid value for option `port`"): they
/// name an option and what is wrong with it, never a value.
fn parse_error(e: &tokio_postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// The URL as parsed: user, `:***` for a password, hosts and ports, database, and the
/// `sslmode` when one was given. Each part percent-encoded as a URL needs it.
fn show(scheme: &str, config: &tokio_postgres::Config, tls: Option<TlsMode>) -> String {
    use tokio_postgres::config::Host;
    let mut out = scheme.to_string();
    let user = config.get_user().map(encode);
    let password = config.get_password().is_some();
    if user.is_some() || password {
        out.push_str(user.as_deref().unwrap_or_default());
        if password {
            out.push_str(":***");
        }
        out.push('@');
    }
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let name = match host {
                Host::Tcp(name) if name.contains(':') => format!("[{name}]"),
                Host::Tcp(name) => encode(name),
                #[cfg(unix)]
                Host::Unix(path) => encode(&path.to_string_lossy()),
            };
            let port = ports.get(i).or(match ports.len() {
                1 => ports.first(),
                _ => None,
            });
            match port {
                Some(port) => format!("{name}:{port}"),
                None => name,
            }
        })
        .collect();
    out.push_str(&hosts.join(","));
    if let Some(db) = config.get_dbname() {
        out.push('/');
        out.push_str(&encode(db));
    }
    if let Some(mode) = tls {
        out.push_str("?sslmode=");
        out.push_str(mode.name());
    }
    out
}

/// Everything but RFC 3986's unreserved characters, percent-encoded.
fn encode(text: &str) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    const PART: &percent_encoding::AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    utf8_percent_encode(text, PART).to_string()
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
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
        assert!(url.has_password());
        assert_eq!(
            parse(DEFAULT_URL).unwrap().label(),
            "SQLite file council-audit.db"
        );
        let DatabaseUrl::Postgres(pg) = url else {
            panic!("postgres")
        };
        assert_eq!(pg.tls, TlsMode::Require);
        assert_eq!(pg.config.get_password(), Some(&b"s3cret"[..]));
        assert_eq!(
            pg.config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Prefer
        );
        let param = parse("postgresql://u@h/d?password=hunter2&application_name=x").unwrap();
        assert_eq!(param.shown(), "postgresql://u:***@h:5432/d");
        assert!(holds_password("postgresql://u@h/d?password=hunter2"));
        assert!(!holds_password("postgres://council@db.internal/audit"));
        assert!(!holds_password(DEFAULT_URL));
    }

    /// The acceptance run's attack: a password holding `/` (or `?`, `#`, `:`) was shown
    /// whole, because the text was cut at the first `/` to find it, while tokio-postgres
    /// takes the user-info up to the `@`.
    #[test]
    fn a_password_with_url_delimiters_is_the_one_connected_with_and_never_shown() {
        for (text, password) in [
            ("postgres://council:s3/Zq8pW@db.example/audit", "s3/Zq8pW"),
            ("postgres://council:s3?Zq8pW@db.example/audit", "s3?Zq8pW"),
            ("postgres://council:s3#Zq8pW@db.example/audit", "s3#Zq8pW"),
            (
                "postgres://council:s3:Zq/8?p#W@db.example/audit",
                "s3:Zq/8?p#W",
            ),
            ("postgres://council:s3%2FZq8pW@db.example/audit", "s3/Zq8pW"),
            ("postgres://council:s3%40Zq8pW@db.example/audit", "s3@Zq8pW"),
            (
                "postgres://council:s3%3Fsslmode=disable@db.example/audit",
                "s3?sslmode=disable",
            ),
            (
                "postgres://council:pässwörd/ü@db.example/audit",
                "pässwörd/ü",
            ),
        ] {
            let url = parse(text).unwrap();
            let DatabaseUrl::Postgres(pg) = &url else {
                panic!("postgres")
            };
            assert_eq!(
                pg.config.get_password(),
                Some(password.as_bytes()),
                "{text}"
            );
            assert_eq!(pg.config.get_hosts().len(), 1, "{text}");
            assert_eq!(pg.config.get_dbname(), Some("audit"), "{text}");
            // A `?` inside the password is no parameter: TLS stays libpq's default.
            assert_eq!(pg.tls, TlsMode::Prefer, "{text}");
            assert_eq!(url.shown(), "postgres://council:***@db.example:5432/audit");
            assert!(holds_password(text), "{text}");
        }
    }

    #[test]
    fn an_at_sign_that_would_split_a_password_is_refused_without_showing_it() {
        for text in [
            "postgres://council:s3@Zq8pW@db.example/audit",
            "postgres://council:s3@Zq/8pW@db.example/audit",
            "postgres://council:s3@Zq?x=y@db.example/audit",
            "postgres://db.example/audit?password=s3@Zq8pW",
            "postgresql://db.example/audit?application_name=x&password=s3@Zq8pW",
            "postgres://127.0.0.1:1/audit?password=s3@Zq8pW",
            "postgres://council:1/audit?sslmode=require&password=s3@Zq8pW",
            // What reads as parameters before the `@` may be the end of a URL.
            "postgres://council:s3?sslmode=disable@Zq8pW/audit",
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains("%40"), "{err}");
            for part in ["s3", "Zq8pW", "Zq"] {
                assert!(!err.contains(part), "{text}: {err}");
            }
            assert!(holds_password(text), "{text}");
        }
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
            let url = parse(&format!(
                "postgres://u@h/d?sslmode={mode}&sslrootcert=%2Ftmp%2Fca.pem"
            ))
            .unwrap();
            assert_eq!(url.shown(), format!("postgres://u@h:5432/d?sslmode={mode}"));
            let DatabaseUrl::Postgres(pg) = url else {
                panic!("postgres")
            };
            assert_eq!(pg.tls, want);
            assert_eq!(pg.root_cert, Some(PathBuf::from("/tmp/ca.pem")));
        }
        let err = parse("postgres://u:pw@h/d?sslmode=always").unwrap_err();
        assert!(err.to_string().contains("sslmode `always`"), "{err}");
        assert!(!err.to_string().contains("pw"), "{err}");
    }

    #[test]
    fn hosts_sockets_and_ports_are_shown_as_parsed() {
        let shown = |text: &str| parse(text).unwrap().shown();
        assert_eq!(shown("postgres:///audit"), "postgres:///audit");
        assert_eq!(
            shown("postgres://u@h1:5433,h2/audit"),
            "postgres://u@h1:5433,h2:5432/audit"
        );
        assert_eq!(
            shown("postgres://u@[::1]:6000/audit"),
            "postgres://u@[::1]:6000/audit"
        );
        assert_eq!(
            shown("postgresql:///audit?host=%2Fvar%2Frun%2Fpostgresql&user=me"),
            "postgresql://me@%2Fvar%2Frun%2Fpostgresql/audit"
        );
        let err = parse("postgres://u@h/d?port=x").unwrap_err().to_string();
        assert!(err.contains("port"), "{err}");
    }

    /// Each part of the URL alone, so a test knows what is shown without any password.
    #[derive(Debug, Clone)]
    struct Parts {
        user: String,
        host: String,
        db: String,
    }

    fn parts() -> impl proptest::strategy::Strategy<Value = Parts> {
        use proptest::prelude::*;
        (
            "[a-z][a-z0-9_]{0,7}",
            "[a-z]{1,8}(\\.[a-z]{2,4})?",
            "[a-z_]{1,10}",
        )
            .prop_map(|(user, host, db)| Parts { user, host, db })
    }

    /// Every form a message can show: the URL, its Debug, the page's label, an error.
    fn everything_shown(text: &str) -> String {
        match parse(text) {
            Ok(url) => format!("{}\n{url:?}\n{}", url.shown(), url.label()),
            Err(e) => e.to_string(),
        }
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
            let shown = everything_shown(&text);
            let at = format!(":{password}@");
            proptest::prop_assert!(!shown.contains(&at), "{shown}");
        }

        /// A password of any characters (multi-byte ones, `/`, `?`, `#`, `@`, `%`…),
        /// written as it is, percent-encoded, or as `password=`: what connects is that
        /// password, and nothing shown holds it, in any of its forms.
        #[test]
        fn a_password_of_any_characters_connects_and_is_never_shown(
            parts in parts(),
            password in "\\PC{4,24}",
            scheme in proptest::sample::select(vec!["postgres://", "postgresql://"]),
        ) {
            let Parts { user, host, db } = &parts;
            let encoded = encode(&password);
            // What is shown without any password: a password that is a part of it (`a`
            // in `audit`) cannot be told apart, so it is left out.
            let bare = everything_shown(&format!("{scheme}{user}@{host}/{db}"));
            proptest::prop_assume!(!bare.contains(&password) && !bare.contains(&encoded));
            let forms = [
                (format!("{scheme}{user}:{password}@{host}/{db}"), true),
                (format!("{scheme}{user}:{encoded}@{host}/{db}"), false),
                (format!("{scheme}{user}@{host}/{db}?password={encoded}"), false),
            ];
            // As it is in a parameter: a `&` would end it, `%` start an escape, and the
            // URL is trimmed, so those are encoded; an `@` must be refused.
            let in_parameter: String = password
                .chars()
                .map(|c| match c {
                    '%' | '&' => encode(&c.to_string()),
                    c if c.is_whitespace() => encode(&c.to_string()),
                    c => c.to_string(),
                })
                .collect();
            let text = format!("{scheme}{user}@{host}/{db}?password={in_parameter}");
            let shown = everything_shown(&text);
            proptest::prop_assert!(!shown.contains(&password), "{text} → {shown}");
            proptest::prop_assert!(holds_password(&text), "{text}");
            match parse(&text) {
                Ok(DatabaseUrl::Postgres(pg)) => {
                    proptest::prop_assert_eq!(pg.config.get_password(), Some(password.as_bytes()));
                }
                Ok(other) => proptest::prop_assert!(false, "{other:?}"),
                Err(_) => proptest::prop_assert!(password.contains('@'), "{text}"),
            }
            let bare_host = format!("{scheme}{host}/{db}?password={in_parameter}");
            let shown = everything_shown(&bare_host);
            proptest::prop_assert!(!shown.contains(&password), "{bare_host} → {shown}");
            for (text, raw) in forms {
                let shown = everything_shown(&text);
                proptest::prop_assert!(!shown.contains(&password), "{text} → {shown}");
                proptest::prop_assert!(!shown.contains(&encoded), "{text} → {shown}");
                proptest::prop_assert!(holds_password(&text), "{text}");
                match parse(&text) {
                    Ok(DatabaseUrl::Postgres(pg)) => {
                        // The shown URL and the connection are one parse: the password
                        // connected with is the one written (a raw one is decoded, as
                        // libpq does).
                        let want = match raw {
                            true => percent_encoding::percent_decode_str(&password).collect::<Vec<u8>>(),
                            false => password.as_bytes().to_vec(),
                        };
                        proptest::prop_assert_eq!(pg.config.get_password(), Some(&want[..]));
                        proptest::prop_assert_eq!(
                            &pg.shown,
                            &format!("{scheme}{user}:***@{host}:5432/{db}")
                        );
                    }
                    Ok(other) => proptest::prop_assert!(false, "{other:?}"),
                    // Only a raw `@` (it would split the password) or `?…=` (it reads
                    // as parameters) is refused.
                    Err(_) => proptest::prop_assert!(
                        raw && (password.contains('@')
                            || password.split_once('?').is_some_and(|(_, p)| p.contains('='))),
                        "{text}"
                    ),
                }
            }
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
