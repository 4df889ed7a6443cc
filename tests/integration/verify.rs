//! `council verify`: passes on every file the product writes, exits 1 on tampering.

use serde_json::Value;

use crate::support::{Council, fixture};

/// A real audit file, written by a guard dry run, optionally signed.
fn audit_file(key: Option<&str>) -> (tempfile::TempDir, std::path::PathBuf) {
    let mut council = Council::cli().args(&["guard", "--dry-run"]);
    if let Some(k) = key {
        council = council.args(&["--hmac-key", k]);
    }
    let run = council
        .event("pull_request", fixture("pull_request.opened"))
        .run_blocking();
    run.assert_code(1);
    let path = run.workspace.path().join("out/audit/PR-2.json");
    (run.workspace, path)
}

fn verify(path: &std::path::Path, extra: &[&str]) -> crate::support::Run {
    let file = path.to_str().unwrap().to_string();
    let mut args = vec!["verify", file.as_str()];
    args.extend_from_slice(extra);
    Council::cli().args(&args).run_blocking()
}

fn edit(path: &std::path::Path, f: impl FnOnce(&mut Value)) {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut doc);
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

#[test]
fn files_the_product_writes_verify() {
    let (_dir, path) = audit_file(None);
    let run = verify(&path, &[]);
    run.assert_code(0);
    assert!(run.stdout.contains("2 entries verified"), "{}", run.stdout);
    let (_dir, path) = audit_file(Some("s3cret-key"));
    let run = verify(&path, &["--hmac-key", "s3cret-key"]);
    run.assert_code(0);
    assert!(run.stdout.contains("signatures"), "{}", run.stdout);
    run.assert_no_secret("s3cret-key");
}

#[test]
fn tampering_exits_1_and_names_the_entry() {
    let (_dir, path) = audit_file(Some("k"));
    edit(&path, |d| d["timeline"][1]["result"] = "PASS".into());
    let run = verify(&path, &["--hmac-key", "k"]);
    run.assert_code(1);
    assert!(run.stderr.contains("entry 1"), "{}", run.stderr);

    let (_dir, path) = audit_file(Some("k"));
    let run = verify(&path, &["--hmac-key", "wrong"]);
    run.assert_code(1);
    assert!(run.stderr.contains("signature"), "{}", run.stderr);
    run.assert_no_secret("wrong");

    let (_dir, path) = audit_file(None);
    edit(&path, |d| {
        d["timeline"].as_array_mut().unwrap().remove(0);
    });
    verify(&path, &[]).assert_code(1);

    let (_dir, path) = audit_file(None);
    edit(&path, |d| d["timeline"].as_array_mut().unwrap().swap(0, 1));
    verify(&path, &[]).assert_code(1);
}

#[test]
fn unreadable_files_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.json");
    for text in ["", "{", "[1,2", "\"text\"", "{\"timeline\": 5}"] {
        std::fs::write(&path, text).unwrap();
        verify(&path, &[]).assert_code(2);
    }
    verify(&dir.path().join("missing.json"), &[]).assert_code(2);
}
