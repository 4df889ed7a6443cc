//! A database on a real PostgreSQL for the audit commands' tests: the server
//! `ci/postgres.sh` starts on loopback (installing Debian's package when it can), or
//! `COUNCIL_TEST_DATABASE_URL`'s. Where none can be had, the caller gets `None` after a
//! visible `SKIP:` line (the store crate's own tests cover both engines in depth).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static BASE: OnceLock<Option<String>> = OnceLock::new();

fn base() -> Option<String> {
    BASE.get_or_init(|| {
        if let Ok(url) = std::env::var("COUNCIL_TEST_DATABASE_URL")
            && !url.trim().is_empty()
        {
            return Some(url.trim().to_string());
        }
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ci/postgres.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg("start")
            .stdin(Stdio::null())
            .output()
            .ok()?;
        if out.status.success() {
            return String::from_utf8(out.stdout)
                .ok()
                .map(|s| s.trim().to_string());
        }
        let _ = writeln!(
            std::io::stderr(),
            "SKIP: PostgreSQL: the audit commands' PostgreSQL test runs on SQLite only: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        None
    })
    .clone()
}

/// A new, empty database's URL (named like the store crate's test databases, which
/// `ci/postgres.sh`'s users sweep after an hour).
pub async fn fresh_database() -> Option<String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let base = base()?;
    let (client, connection) = tokio_postgres::connect(&base, tokio_postgres::NoTls)
        .await
        .expect("the test server accepts a connection");
    tokio::spawn(connection);
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = format!(
        "council_test_{secs}_{}_it{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    client
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .await
        .expect("CREATE DATABASE");
    let (head, _) = base.rsplit_once('/').expect("a URL with a database");
    Some(format!("{head}/{name}"))
}
