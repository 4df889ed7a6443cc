//! `council verify`: passes on every file the product writes, exits 1 on tampering
//! (including duplicate member names, a truncated file and trailing data) and on a
//! partial file its earlier files do not prove.

use std::path::{Path, PathBuf};

use council_protocol::audit::chain::seal;
use serde_json::{Map, Value, json};

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
    // No JSON document at all, or one that is not a Context Object: the wrong file.
    for text in ["", " \n", "\"text\"", "42", "{\"timeline\": 5}", "{}"] {
        std::fs::write(&path, text).unwrap();
        verify(&path, &[]).assert_code(2);
    }
    verify(&dir.path().join("missing.json"), &[]).assert_code(2);
    verify(dir.path(), &[]).assert_code(2);
    // A document that starts but is cut short is a truncated file: tampering (SPEC).
    for text in ["{", "[1,2", "{\"timeline\": [{\"id\": \"x\""] {
        std::fs::write(&path, text).unwrap();
        verify(&path, &[]).assert_code(1);
    }
}

/// `n` sealed entries shaped like the product's, as one history.
fn history(n: usize, key: Option<&[u8]>) -> Vec<Map<String, Value>> {
    let mut entries: Vec<Map<String, Value>> = (0..n)
        .map(|i| {
            let value = json!({
                "id": format!("{}/1/council/guard/check:branch-name", 500 + i),
                "agent": "agent_guard",
                "action": "check:branch-name",
                "result": if i % 3 == 0 { "FAIL" } else { "PASS" },
                "message": format!("run {i}: head feature/x matches rule feature"),
                "timestamp": "2026-05-01T12:00:00Z",
                "run_id": format!("{}", 500 + i),
                "run_attempt": 1,
                "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            });
            match value {
                Value::Object(map) => map,
                _ => unreachable!(),
            }
        })
        .collect();
    seal(&mut entries, 0, key).unwrap();
    entries
}

/// Writes the audit file holding `full[from..to]` as the product would: `state` and
/// `gates` derived from the history up to `to`, the chain head (signed with `k` when the
/// entries are), and `timeline_omitted` after the timeline when `from > 0`.
fn write_part(
    dir: &Path,
    name: &str,
    full: &[Map<String, Value>],
    from: usize,
    to: usize,
) -> PathBuf {
    let history: Vec<council_protocol::audit::Entry> = full[..to]
        .iter()
        .map(|e| serde_json::from_value(Value::Object(e.clone())).unwrap())
        .collect();
    let (state, gates) = council_protocol::audit::derive::derived(&history);
    let key: Option<&[u8]> = full[0].contains_key("signature").then_some(b"k");
    let head = council_protocol::audit::head::Head::new(
        to,
        history.last().map_or("", |e| e.hash.as_str()),
        key,
    );
    let mut doc = json!({
        "schema_version": 1,
        "context_id": "PR-2",
        "repository": "Codertocat/Hello-World",
        "state": state,
        "gates": gates,
        "timeline": full[from..to].iter().cloned().map(Value::Object).collect::<Vec<_>>(),
        "chain_head": head,
    });
    if from > 0 {
        doc["timeline_omitted"] = json!({"count": from, "head_hash": full[from - 1]["hash"]});
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_forged_anchor_after_dropping_the_oldest_entries_is_not_proven() {
    // The issue: drop the oldest entries of a real file, record their head as omitted.
    let (_dir, path) = audit_file(Some("k"));
    edit(&path, |d| {
        let dropped = d["timeline"].as_array_mut().unwrap().remove(0);
        d["timeline_omitted"] = json!({"count": 1, "head_hash": dropped["hash"]});
    });
    let run = verify(&path, &["--hmac-key", "k"]);
    run.assert_code(1);
    assert!(
        run.stderr.contains("leaves out its 1 oldest entries")
            && run.stderr.contains("--with")
            && run.stderr.contains("--allow-partial"),
        "{}",
        run.stderr
    );

    let dir = tempfile::tempdir().unwrap();
    let full = history(10, None);
    let new = write_part(dir.path(), "new.json", &full, 4, 10);
    verify(&new, &[]).assert_code(1);
    let run = verify(&new, &["--allow-partial"]);
    run.assert_code(0);
    assert!(
        run.stdout.contains("6 entries verified")
            && run
                .stdout
                .contains("4 older entries taken on trust (--allow-partial)"),
        "{}",
        run.stdout
    );
}

#[test]
fn earlier_files_given_with_prove_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let full = history(30, Some(b"k"));
    let new = write_part(dir.path(), "new.json", &full, 20, 30);
    let old = write_part(dir.path(), "old.json", &full, 0, 25);
    let run = verify(&new, &["--with", arg(&old), "--hmac-key", "k"]);
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("10 entries verified, hash chain and signatures")
            && run.stdout.contains("the 20 entries before them proven by")
            && run.stdout.contains("old.json"),
        "{}",
        run.stdout
    );
    run.assert_no_secret("k\"");

    // An earlier file that is itself partial, proven by a still earlier one; the files
    // in any order, repeated or after one --with.
    let middle = write_part(dir.path(), "middle.json", &full, 8, 20);
    let oldest = write_part(dir.path(), "oldest.json", &full, 0, 10);
    verify(&new, &["--with", arg(&oldest), arg(&middle)]).assert_code(0);
    verify(&new, &["--with", arg(&middle), "--with", arg(&oldest)]).assert_code(0);
    // Without the oldest, 8 entries stay unproven.
    let run = verify(&new, &["--with", arg(&middle)]);
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("8 of the oldest entries are not proven")
            && run
                .stderr
                .contains("middle.json leaves out its 8 oldest entries"),
        "{}",
        run.stderr
    );
    let run = verify(&new, &["--with", arg(&middle), "--allow-partial"]);
    run.assert_code(0);
    assert!(
        run.stdout.contains("the 12 entries before them proven by")
            && run.stdout.contains("8 older entries taken on trust"),
        "{}",
        run.stdout
    );
}

#[test]
fn earlier_files_that_do_not_prove_it_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let full = history(30, None);
    let new = write_part(dir.path(), "new.json", &full, 20, 30);

    // Too short: it stops before the omitted head.
    let short = write_part(dir.path(), "short.json", &full, 0, 15);
    verify(&new, &["--with", arg(&short)]).assert_code(1);

    // Another history (re-sealed after an edit): a fork.
    let mut rewritten = full.clone();
    rewritten[22].insert("result".into(), json!("FAIL"));
    seal(&mut rewritten, 22, None).unwrap();
    let forked = write_part(dir.path(), "forked.json", &rewritten, 0, 25);
    let run = verify(&new, &["--with", arg(&forked)]);
    run.assert_code(1);
    assert!(
        run.stderr.contains("forked.json entry 22")
            && run.stderr.contains("the history was rewritten"),
        "{}",
        run.stderr
    );

    // An earlier file that was tampered with: named.
    let old = write_part(dir.path(), "old.json", &full, 0, 25);
    edit(&old, |d| d["timeline"][3]["result"] = "PASS".into());
    let run = verify(&new, &["--with", arg(&old)]);
    run.assert_code(1);
    assert!(run.stderr.contains("old.json: entry 3"), "{}", run.stderr);

    // An earlier file that cannot be read is bad usage.
    verify(&new, &["--with", arg(&dir.path().join("missing.json"))]).assert_code(2);
    // --with is no way around a bad signature in the earlier file.
    let signed = history(30, Some(b"k"));
    let new = write_part(dir.path(), "new-signed.json", &signed, 20, 30);
    let unsigned_old = write_part(dir.path(), "old-unsigned.json", &full, 0, 25);
    verify(&new, &["--with", arg(&unsigned_old), "--hmac-key", "k"]).assert_code(1);
}

/// An edit of the file's text.
type Change = fn(&str) -> String;

#[test]
fn duplicate_member_names_are_tampering() {
    for key in [None, Some("k")] {
        let key_args: Vec<&str> = key.map(|k| vec!["--hmac-key", k]).unwrap_or_default();
        // Top level, in an entry (a second "result" after the hashed one: a reader of
        // the file sees PASS), and nested in an entry's values.
        let edits: [(&str, Change, &str); 3] = [
            (
                "top level",
                |t| {
                    t.replacen(
                        "\"context_id\"",
                        "\"context_id\": \"PR-1\",\n  \"context_id\"",
                        1,
                    )
                },
                "the top-level object: duplicate member \"context_id\"",
            ),
            (
                "entry",
                |t| {
                    let second = t.match_indices("\"result\"").nth(1).unwrap().0;
                    let end = second + t[second..].find(",\n").unwrap();
                    format!("{},\n      \"result\": \"PASS\"{}", &t[..end], &t[end..])
                },
                "timeline[1]: duplicate member \"result\"",
            ),
            (
                "nested",
                |t| {
                    t.replacen(
                        "\"message\"",
                        "\"details\": {\"checks\": [{\"ok\": false, \"ok\": true}]},\n      \"message\"",
                        1,
                    )
                },
                "timeline[0].details.checks[0]: duplicate member \"ok\"",
            ),
        ];
        for (what, change, expected) in edits {
            let (_dir, path) = audit_file(key);
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, change(&text)).unwrap();
            let run = verify(&path, &key_args);
            run.assert_code(1);
            assert!(run.stderr.contains(expected), "{what}: {}", run.stderr);
        }
    }
}

#[test]
fn a_truncated_file_or_trailing_data_is_tampering() {
    for key in [None, Some("k")] {
        let key_args: Vec<&str> = key.map(|k| vec!["--hmac-key", k]).unwrap_or_default();
        let (_dir, path) = audit_file(key);
        let text = std::fs::read_to_string(&path).unwrap();
        // Cut inside the timeline, and right after its last entry.
        let last_entry_end = text.rfind('}').unwrap();
        let inner_end = text[..last_entry_end].rfind('}').unwrap() + 1;
        for cut in [text.len() / 2, inner_end, last_entry_end] {
            std::fs::write(&path, &text[..cut]).unwrap();
            let run = verify(&path, &key_args);
            run.assert_code(1);
            assert!(run.stderr.contains("it was cut short"), "{}", run.stderr);
        }
        for tail in ["{}", "\n{\"timeline\": []}\n", "garbage"] {
            std::fs::write(&path, format!("{text}{tail}")).unwrap();
            let run = verify(&path, &key_args);
            run.assert_code(1);
            assert!(
                run.stderr.contains("more data follows the end"),
                "{}",
                run.stderr
            );
        }
        std::fs::write(&path, format!("{text}\n\n")).unwrap();
        verify(&path, &key_args).assert_code(0);
    }
}

#[test]
fn stored_state_and_gates_must_be_what_the_timeline_implies() {
    let (_dir, path) = audit_file(None);
    verify(&path, &[]).assert_code(0);
    edit(&path, |d| d["state"]["guard_status"] = "PASS".into());
    let run = verify(&path, &[]);
    run.assert_code(1);
    assert!(run.stderr.contains("the stored `state`"), "{}", run.stderr);

    let (_dir, path) = audit_file(None);
    edit(&path, |d| d["gates"]["naming_convention"] = "PASS".into());
    let run = verify(&path, &[]);
    run.assert_code(1);
    assert!(run.stderr.contains("the stored `gates`"), "{}", run.stderr);
}

#[test]
fn entries_dropped_from_the_end_are_caught_by_the_signed_chain_head() {
    let (_dir, path) = audit_file(Some("k"));
    verify(&path, &["--hmac-key", "k"]).assert_code(0);
    edit(&path, |d| {
        d["timeline"].as_array_mut().unwrap().truncate(1);
        // Even with state and gates made to match the shorter history.
        d["state"]["guard_status"] = "FAIL".into();
        d["gates"]["target_policy"] = Value::Null;
    });
    let run = verify(&path, &["--hmac-key", "k"]);
    run.assert_code(1);
    assert!(run.stderr.contains("chain head"), "{}", run.stderr);
    edit(&path, |d| {
        d.as_object_mut().unwrap().remove("chain_head");
    });
    let run = verify(&path, &["--hmac-key", "k"]);
    run.assert_code(1);
    assert!(
        run.stderr.contains("records no chain head"),
        "{}",
        run.stderr
    );
}
