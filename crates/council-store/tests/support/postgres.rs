//! The PostgreSQL server the store's tests run against: a real one, never a mock.
//!
//! - `COUNCIL_TEST_DATABASE_URL=postgres://USER[:PASSWORD]@HOST[:PORT]/DB` names a server
//!   to use instead (its user must be allowed to `CREATE DATABASE`; the tests' own
//!   connection to it for that is plain, without TLS, and a `sslmode` in the URL applies
//!   to the store's connections only). The TLS tests need the CA, so they skip with it.
//! - Otherwise `ci/postgres.sh start` (once per test process) starts the repository's
//!   throwaway server on loopback, installing Debian's `postgresql` first when it can
//!   (root, apt); where it cannot (exit status 3), the PostgreSQL half of every test is
//!   skipped after one visible `SKIP: PostgreSQL …` line. Any other failure fails the tests.
//!
//! Each test gets a database of its own ([`Server::fresh_database`]), so tests running in
//! parallel never share tables.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio_postgres::{Client, NoTls};

/// A running server the tests may create databases on.
#[derive(Debug)]
pub struct Server {
    /// A URL to connect to for `CREATE DATABASE`, without TLS options
    /// (`postgres://postgres@127.0.0.1:54329/postgres` for `ci/postgres.sh`'s).
    pub url: String,
    /// The URL as given, with its TLS options: fresh databases' URLs keep them.
    given: String,
    /// `ci/postgres.sh`'s cluster folder, when that script started the server: its CA
    /// certificate is `ca.pem` there, its Unix socket is there too.
    pub dir: Option<PathBuf>,
}

enum State {
    Ready(Server),
    Skip(String),
    Failed(String),
}

static STATE: OnceLock<State> = OnceLock::new();

/// The server, once per test process: `None` where PostgreSQL cannot be had here (after
/// printing the one `SKIP: PostgreSQL …` line). Panics when it should start and does not.
pub fn postgres() -> Option<&'static Server> {
    match STATE.get_or_init(find) {
        State::Ready(server) => Some(server),
        State::Skip(_) => None,
        State::Failed(why) => panic!("{why}"),
    }
}

fn find() -> State {
    if let Ok(url) = std::env::var("COUNCIL_TEST_DATABASE_URL")
        && !url.trim().is_empty()
    {
        let url = url.trim().to_string();
        return State::Ready(Server {
            url: without_tls_options(&url),
            given: url,
            dir: None,
        });
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/postgres.sh");
    if !script.is_file() {
        return skip(format!(
            "{} is not here (a packaged crate?): set COUNCIL_TEST_DATABASE_URL",
            script.display()
        ));
    }
    let started = std::time::Instant::now();
    let run = |what: &str| {
        Command::new("bash")
            .arg(&script)
            .arg(what)
            .stdin(Stdio::null())
            .output()
    };
    let out = match run("start") {
        Ok(out) => out,
        Err(e) => return skip(format!("cannot run bash {}: {e}", script.display())),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        let reason = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return skip(
            reason
                .unwrap_or("ci/postgres.sh cannot start it")
                .to_string(),
        );
    }
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !url.starts_with("postgres://") {
        return State::Failed(format!(
            "ci/postgres.sh start failed ({}), so the PostgreSQL tests cannot run:\n{stderr}",
            out.status
        ));
    }
    let dir = run("ca").ok().and_then(|out| {
        let ca = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        (out.status.success() && ca.is_file()).then(|| ca.parent().map(Path::to_path_buf))?
    });
    // What starting took shows with --nocapture (an install, a first start, a reuse).
    println!(
        "PostgreSQL for the tests: {url} (ci/postgres.sh start: {:.2} s)",
        started.elapsed().as_secs_f64()
    );
    State::Ready(Server {
        url: url.clone(),
        given: url,
        dir,
    })
}

/// Skipping, said once per process where it shows even when the tests' output is
/// captured (straight to the standard error, not through `eprintln!`).
fn skip(reason: String) -> State {
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: PostgreSQL: the store tests run on SQLite only: {reason}"
    );
    State::Skip(reason)
}

/// A database of one test's own, dropped with it (kept when the test failed, for a look).
#[derive(Debug)]
pub struct Database {
    /// Its URL, with the server URL's TLS options.
    pub url: String,
    pub name: String,
    admin: String,
}

/// Test databases are named `council_test_<unix seconds>_<pid>_<n>`.
const PREFIX: &str = "council_test_";
/// Test databases older than this are left over (a killed run, a failed test): dropped.
const LEFT_OVER: Duration = Duration::from_secs(3600);

impl Server {
    /// Creates an empty database of its own (on the first call per process, after dropping
    /// test databases left over from earlier runs); its URL is in [`Database::url`].
    pub async fn fresh_database(&self) -> Database {
        static SWEPT: AtomicBool = AtomicBool::new(false);
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let client = admin(&self.url).await;
        let now = unix_now();
        if !SWEPT.swap(true, Ordering::SeqCst) {
            sweep(&client, now).await;
        }
        let name = format!(
            "{PREFIX}{now}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        client
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .await
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name} on {}: {e:?}", self.url));
        Database {
            url: with_database(&self.given, &name),
            name,
            admin: self.url.clone(),
        }
    }

    /// `ci/postgres.sh`'s CA certificate (the server's is for `localhost` and 127.0.0.1),
    /// when that script started the server.
    pub fn ca(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("ca.pem"))
    }

    /// The server's port, from its URL.
    pub fn port(&self) -> Option<u16> {
        let config: tokio_postgres::Config = self.url.parse().ok()?;
        config.get_ports().first().copied()
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("PostgreSQL: kept the failed test's database {}", self.url);
            return;
        }
        // Drop runs inside the test's runtime: the DROP goes on a thread with its own.
        let (admin_url, name) = (self.admin.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                let client = admin(&admin_url).await;
                drop_database(&client, &name).await;
            });
        });
        let _ = dropped.join();
    }
}

async fn admin(url: &str) -> Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url} to make a test database: {e:?}"));
    tokio::spawn(connection);
    client
}

/// `WITH (FORCE)` ends connections a test left open (PostgreSQL 13 and later).
async fn drop_database(client: &Client, name: &str) {
    let _ = client
        .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
        .await;
}

/// Drops the test databases made over [`LEFT_OVER`] ago (by any process).
async fn sweep(client: &Client, now: u64) {
    let Ok(rows) = client
        .query(
            "SELECT datname::text FROM pg_database WHERE starts_with(datname::text, $1)",
            &[&PREFIX],
        )
        .await
    else {
        return;
    };
    for row in rows {
        let name: String = row.get(0);
        let made = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('_').next())
            .and_then(|secs| secs.parse::<u64>().ok());
        if made.is_some_and(|made| made + LEFT_OVER.as_secs() < now) {
            drop_database(client, &name).await;
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `url` naming database `name` instead of its own, its options kept.
pub fn with_database(url: &str, name: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let authority = head.find("://").map_or(0, |i| i + 3);
    let path = head[authority..]
        .find('/')
        .map_or(head.len(), |i| authority + i);
    let mut out = format!("{}/{name}", &head[..path]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// The URL without `sslmode` and `sslrootcert`, which the tests' own plain connection
/// does not take (tokio-postgres refuses libpq's `verify-full`).
pub fn without_tls_options(url: &str) -> String {
    let Some((head, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let key = pair.split_once('=').map_or(*pair, |(k, _)| k);
            !pair.is_empty() && key != "sslmode" && key != "sslrootcert"
        })
        .collect();
    if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", kept.join("&"))
    }
}
