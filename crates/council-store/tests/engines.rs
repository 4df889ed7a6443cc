//! The store on both engines: opening and migrating, the append-only rule kept by the
//! database itself, a newer schema refused, an unreachable store named without its
//! password, and PostgreSQL's TLS modes against a real server with a certificate of its
//! own CA. See `support` for how the engines are had.

#![allow(clippy::string_slice)] // test code: a panic there is a failing test

mod support;

use council_store::{Offer, SCHEMA_VERSION, Store, StoreError};
use serde_json::{Value, json};
use support::{NOW, TestDb, each_engine, ledger, parse, with_options};

/// The rows of `sql`, or the failure named with the engine.
async fn rows(store: &mut Store, db: &TestDb, sql: &str) -> Vec<Vec<Value>> {
    store
        .query_raw(sql)
        .await
        .unwrap_or_else(|e| panic!("{}: {sql}: {e}", db.engine))
}

#[tokio::test]
async fn opening_migrates_once_and_opening_again_changes_nothing() {
    assert_eq!(SCHEMA_VERSION, 2);
    let all = vec![
        vec![json!(1), json!("audit store")],
        vec![json!(2), json!("attribution")],
    ];
    for db in each_engine().await {
        let migrations = "SELECT version, name FROM schema_migrations ORDER BY version";
        let mut store = db.open().await;
        assert_eq!(
            rows(&mut store, &db, migrations).await,
            all,
            "{}",
            db.engine
        );
        let applied = rows(&mut store, &db, "SELECT applied_at FROM schema_migrations").await;
        assert_eq!(applied, vec![vec![json!(NOW)]; 2], "{}", db.engine);
        drop(store);

        // Again, later: nothing is applied twice, nothing is re-stamped.
        let mut store = Store::open(&db.url, "2026-02-02T00:00:00Z")
            .await
            .unwrap_or_else(|e| panic!("{}: the second open: {e}", db.engine));
        assert_eq!(
            rows(&mut store, &db, migrations).await,
            all,
            "{}",
            db.engine
        );
        let applied = rows(&mut store, &db, "SELECT applied_at FROM schema_migrations").await;
        assert_eq!(applied, vec![vec![json!(NOW)]; 2], "{}", db.engine);
        for table in [
            "workflow_contexts",
            "timeline_entries",
            "verification_failures",
            "agent_context_reports",
            "sync_state",
            "synced_pulls",
        ] {
            let count = rows(&mut store, &db, &format!("SELECT COUNT(*) FROM {table}")).await;
            assert_eq!(count, vec![vec![json!(0)]], "{}: {table}", db.engine);
        }
        assert_eq!(store.engine(), db.engine);
    }
}

/// Councils started at once on a new store (parallel jobs of one workflow) all open it:
/// one makes the tables, the others wait for it and find them made. (On PostgreSQL two
/// `CREATE TABLE IF NOT EXISTS` at once fail one of them: a few rounds show it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn councils_opening_a_new_store_at_once_all_open_it() {
    for _ in 0..3 {
        for db in each_engine().await {
            let opens: Vec<_> = (0..6)
                .map(|_| {
                    let url = db.url.clone();
                    tokio::spawn(async move { Store::open(&url, NOW).await.map(drop) })
                })
                .collect();
            for open in opens {
                let opened = open.await.expect("the task ran");
                assert!(opened.is_ok(), "{}: {}", db.engine, opened.unwrap_err());
            }
            let mut store = db.open().await;
            let migrations = rows(
                &mut store,
                &db,
                "SELECT version FROM schema_migrations ORDER BY version",
            )
            .await;
            assert_eq!(
                migrations,
                vec![vec![json!(1)], vec![json!(2)]],
                "{}",
                db.engine
            );
        }
    }
}

#[tokio::test]
async fn the_database_refuses_to_change_or_delete_a_timeline_entry() {
    for db in each_engine().await {
        let mut store = db.open().await;
        let stored = ledger("o/r", 7, 2);
        let imported = store
            .import(&Offer::new(&stored, "test", NOW))
            .await
            .unwrap_or_else(|e| panic!("{}: import: {e}", db.engine));
        assert_eq!(imported.added, 2, "{}: {imported:?}", db.engine);
        let entries = "SELECT position, message FROM timeline_entries ORDER BY position";
        let before = rows(&mut store, &db, entries).await;
        assert_eq!(before.len(), 2, "{}", db.engine);

        let mut refused = vec![
            "UPDATE timeline_entries SET message = 'rewritten'",
            "UPDATE timeline_entries SET position = position + 10 WHERE position = 1",
            "DELETE FROM timeline_entries WHERE position = 1",
            "DELETE FROM timeline_entries",
        ];
        if db.is_postgres() {
            refused.push("TRUNCATE timeline_entries");
            refused.push("TRUNCATE timeline_entries CASCADE");
        }
        for sql in refused {
            match store.execute_raw(sql).await {
                Err(StoreError::Database(message)) => assert!(
                    message.contains("timeline_entries is append-only"),
                    "{}: {sql}: {message}",
                    db.engine
                ),
                other => panic!("{}: {sql} was not refused: {other:?}", db.engine),
            }
        }
        assert_eq!(
            rows(&mut store, &db, entries).await,
            before,
            "{}",
            db.engine
        );

        // Appending is what the table is for; the refusals left the connection usable.
        let more = ledger("o/r", 7, 3);
        let imported = store
            .import(&Offer::new(&more, "test", NOW))
            .await
            .unwrap_or_else(|e| panic!("{}: import: {e}", db.engine));
        assert_eq!((imported.added, imported.known), (1, 2), "{}", db.engine);
        assert_eq!(
            rows(&mut store, &db, entries).await.len(),
            3,
            "{}",
            db.engine
        );
    }
}

/// A store of version 1 (before attribution was recorded) is brought to version 2: its
/// pull requests took their author and branches from the unsigned header, and say so.
#[tokio::test]
async fn a_version_1_store_marks_its_attribution_as_the_headers() {
    for db in each_engine().await {
        let mut store = db.open().await;
        store
            .import(&Offer::new(&ledger("o/r", 7, 2), "test", NOW))
            .await
            .unwrap_or_else(|e| panic!("{}: import: {e}", db.engine));
        // As version 1 left it: no attribution column, one migration recorded.
        for sql in [
            "ALTER TABLE workflow_contexts DROP COLUMN attribution",
            "DELETE FROM schema_migrations WHERE version = 2",
        ] {
            store
                .execute_raw(sql)
                .await
                .unwrap_or_else(|e| panic!("{}: {sql}: {e}", db.engine));
        }
        drop(store);
        let mut store = db.open().await;
        assert_eq!(
            rows(
                &mut store,
                &db,
                "SELECT author, attribution FROM workflow_contexts"
            )
            .await,
            vec![vec![json!("agent-7"), json!("header")]],
            "{}",
            db.engine
        );
    }
}

#[tokio::test]
async fn a_store_made_by_a_newer_council_is_refused() {
    for db in each_engine().await {
        let mut store = db.open().await;
        store
            .execute_raw(
                "INSERT INTO schema_migrations (version, name, applied_at) \
                 VALUES (3, 'from a newer council', '2027-01-01T00:00:00Z')",
            )
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", db.engine));
        drop(store);
        match Store::open(&db.url, NOW).await {
            Err(e @ StoreError::Schema(_)) => {
                let text = e.to_string();
                assert!(e.is_usage(), "{}", db.engine);
                assert!(
                    text.contains("schema version 3, newer than this council knows (2)")
                        && text.contains("upgrade council"),
                    "{}: {text}",
                    db.engine
                );
            }
            Err(e) => panic!("{}: not a schema error: {e:?}", db.engine),
            Ok(_) => panic!("{}: a newer schema was opened", db.engine),
        }
    }
}

/// The error names the URL as it was parsed, password hidden, and says why.
fn assert_connect_error(result: Result<Store, StoreError>, shown: &str, why: &str) {
    let e = match result {
        Ok(_) => panic!("{shown} opened"),
        Err(e) => e,
    };
    let (text, debug) = (e.to_string(), format!("{e:?}"));
    let StoreError::Connect { url, message } = &e else {
        panic!("{shown}: not a connection error: {debug}");
    };
    assert_eq!(url, shown);
    assert!(message.contains(why), "{shown}: {message}");
    assert!(!e.is_usage(), "{text}");
    assert!(text.contains(shown), "{text}");
    for secret in ["secret", "hunter2"] {
        assert!(!text.contains(secret), "{text}");
        assert!(!debug.contains(secret), "{debug}");
    }
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_is_named_without_its_password() {
    for db in each_engine().await {
        if db.is_postgres() {
            // The server is there; the database is not.
            let url = support::postgres::with_database(&db.text, "council_no_such_database");
            assert_connect_error(
                Store::open(&parse(&url), NOW).await,
                &url,
                "database \"council_no_such_database\" does not exist",
            );
        } else {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let missing = format!("sqlite://{}/no/such/folder/a.db", dir.path().display());
            assert_connect_error(
                Store::open(&parse(&missing), NOW).await,
                &missing,
                "does not exist (council creates the file, not its folder)",
            );
            let not_sqlite = dir.path().join("notes.db");
            std::fs::write(
                &not_sqlite,
                "not a database, but long enough to be read as one\n".repeat(20),
            )
            .expect("a file");
            let url = format!("sqlite://{}", not_sqlite.display());
            assert_connect_error(
                Store::open(&parse(&url), NOW).await,
                &url,
                "is not a SQLite database",
            );
        }
    }
    // Nothing listens on port 1: no server is needed to show this.
    for (url, shown) in [
        (
            "postgres://u:secret@127.0.0.1:1/x",
            "postgres://u:***@127.0.0.1:1/x",
        ),
        (
            "postgresql://u@127.0.0.1:1/x?password=hunter2&sslmode=disable",
            "postgresql://u:***@127.0.0.1:1/x?sslmode=disable",
        ),
    ] {
        assert_connect_error(
            Store::open(&parse(url), NOW).await,
            shown,
            "Connection refused",
        );
    }
}

/// Whether the store's own connection is encrypted, as the server sees it.
async fn encrypted(store: &mut Store) -> bool {
    let ssl = store
        .query_raw("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .await
        .expect("pg_stat_ssl");
    match ssl.as_slice() {
        [row] if row == &[json!(1)] => true,
        [row] if row == &[json!(0)] => false,
        other => panic!("pg_stat_ssl: {other:?}"),
    }
}

/// A fresh PostgreSQL database on the server `ci/postgres.sh` started (whose CA is
/// known), with its CA; `None` (said) without one.
async fn tls_server() -> Option<(TestDb, std::path::PathBuf)> {
    let server = support::postgres::postgres()?;
    let Some(ca) = server.ca() else {
        eprintln!("the TLS tests need ci/postgres.sh's server (COUNCIL_TEST_DATABASE_URL is set)");
        return None;
    };
    Some((support::postgresql().await?, ca))
}

async fn open_with(db: &TestDb, url: &str) -> Result<Store, StoreError> {
    assert!(db.is_postgres());
    Store::open(&parse(url), NOW).await
}

#[tokio::test]
async fn tls_disable_connects_in_the_clear_and_prefer_the_default_encrypts() {
    let Some((db, _)) = tls_server().await else {
        return;
    };
    let mut store = open_with(&db, &with_options(&db.text, "sslmode=disable"))
        .await
        .expect("sslmode=disable");
    assert!(!encrypted(&mut store).await);
    for url in [db.text.clone(), with_options(&db.text, "sslmode=prefer")] {
        let mut store = open_with(&db, &url).await.expect(&url);
        assert!(encrypted(&mut store).await, "{url}");
    }
}

#[tokio::test]
async fn tls_require_encrypts_without_checking_the_certificate() {
    let Some((db, _)) = tls_server().await else {
        return;
    };
    // The certificate's CA is known to no one here, and 127.0.0.1 is not checked: libpq's
    // `require` is encryption only.
    let url = with_options(&db.text, "sslmode=require");
    let mut store = open_with(&db, &url).await.expect(&url);
    assert!(encrypted(&mut store).await);
}

#[tokio::test]
async fn tls_verify_full_checks_the_certificate_against_sslrootcert() {
    let Some((db, ca)) = tls_server().await else {
        return;
    };
    let by_name = db.text.replacen("@127.0.0.1:", "@localhost:", 1);
    assert_ne!(by_name, db.text);
    for (host_url, mode) in [
        (&by_name, "verify-full"),
        (&db.text, "verify-full"),
        (&by_name, "verify-ca"),
    ] {
        let url = with_options(
            host_url,
            &format!("sslmode={mode}&sslrootcert={}", ca.display()),
        );
        let mut store = open_with(&db, &url)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(encrypted(&mut store).await, "{url}");
    }
}

/// libpq's `verify-ca` checks who issued the certificate, not the name it is for:
/// connecting by a name the certificate does not list (`hostaddr` reaches the server)
/// passes `verify-ca` and fails `verify-full`.
#[tokio::test]
async fn tls_verify_ca_checks_the_issuer_and_verify_full_the_host_name_too() {
    let Some((db, ca)) = tls_server().await else {
        return;
    };
    let other_name = with_options(
        &db.text.replacen("@127.0.0.1:", "@db.council.invalid:", 1),
        "hostaddr=127.0.0.1",
    );
    let url = with_options(
        &other_name,
        &format!("sslmode=verify-ca&sslrootcert={}", ca.display()),
    );
    let mut store = open_with(&db, &url)
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    assert!(encrypted(&mut store).await, "{url}");

    let url = with_options(
        &other_name,
        &format!("sslmode=verify-full&sslrootcert={}", ca.display()),
    );
    match open_with(&db, &url).await {
        Err(StoreError::Connect { message, .. }) => assert!(
            message.contains("the server's certificate is not trusted for this host"),
            "{message}"
        ),
        Err(e) => panic!("not a connection error: {e:?}"),
        Ok(_) => panic!("{url}: a certificate for another name was trusted"),
    }

    // verify-ca without the CA: the Mozilla roots did not issue it.
    let url = with_options(&other_name, "sslmode=verify-ca");
    match open_with(&db, &url).await {
        Err(StoreError::Connect { message, .. }) => assert!(
            message.contains("the server's certificate is not trusted: it was not issued by"),
            "{message}"
        ),
        Err(e) => panic!("not a connection error: {e:?}"),
        Ok(_) => panic!("{url}: a certificate of an unknown CA was trusted"),
    }
}

#[tokio::test]
async fn tls_verify_full_refuses_a_certificate_it_does_not_trust() {
    let Some((db, ca)) = tls_server().await else {
        return;
    };
    let by_name = db.text.replacen("@127.0.0.1:", "@localhost:", 1);
    // Without sslrootcert the Mozilla roots are the only ones trusted.
    let url = with_options(&by_name, "sslmode=verify-full");
    match open_with(&db, &url).await {
        Err(StoreError::Connect { message, .. }) => {
            assert!(message.contains("not trusted"), "{message}")
        }
        Err(e) => panic!("not a connection error: {e:?}"),
        Ok(_) => panic!("{url}: a certificate of an unknown CA was trusted"),
    }
    // A root file that holds no certificate, or is not there, is named.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").expect("a file");
    for (root, why) in [
        (empty.clone(), "no certificate in it could be read"),
        (dir.path().join("missing.pem"), "missing.pem"),
    ] {
        let url = with_options(
            &by_name,
            &format!("sslmode=verify-full&sslrootcert={}", root.display()),
        );
        match open_with(&db, &url).await {
            Err(StoreError::Connect { message, .. }) => assert!(
                message.contains(&format!("sslrootcert {}", root.display()))
                    && message.contains(why),
                "{message}"
            ),
            Err(e) => panic!("not a connection error: {e:?}"),
            Ok(_) => panic!("{url} opened"),
        }
    }
    assert!(ca.is_file());
}

/// libpq's usual local connection, through the Unix socket in `host=`: no TLS there
/// (the server offers none on a socket), so the default `prefer` connects in the clear.
#[tokio::test]
async fn a_unix_socket_connects_with_the_default_sslmode() {
    let Some((db, ca)) = tls_server().await else {
        return;
    };
    let server = support::postgres::postgres().expect("the server");
    let dir = ca.parent().expect("the cluster folder");
    let port = server.port().expect("a port");
    if !dir.join(format!(".s.PGSQL.{port}")).exists() {
        eprintln!(
            "no Unix socket in {} (a path too long for one)",
            dir.display()
        );
        return;
    }
    let name = db.text.rsplit_once('/').expect("a database").1;
    let url = format!(
        "postgres://postgres@/{name}?host={}&port={port}",
        dir.display()
    );
    let mut store = open_with(&db, &url)
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    assert!(!encrypted(&mut store).await);
}

#[test]
fn test_urls_name_another_database_and_keep_their_options() {
    use support::postgres::{with_database, without_tls_options};
    assert_eq!(
        with_database("postgres://postgres@127.0.0.1:54329/postgres", "t1"),
        "postgres://postgres@127.0.0.1:54329/t1"
    );
    assert_eq!(
        with_database("postgresql://u:p@h/db?sslmode=require", "t2"),
        "postgresql://u:p@h/t2?sslmode=require"
    );
    assert_eq!(
        with_database("postgres://h?x=1", "t3"),
        "postgres://h/t3?x=1"
    );
    assert_eq!(
        without_tls_options("postgres://h/d?sslmode=verify-full&application_name=a&sslrootcert=/c"),
        "postgres://h/d?application_name=a"
    );
    assert_eq!(
        without_tls_options("postgres://h/d?sslmode=require"),
        "postgres://h/d"
    );
}
