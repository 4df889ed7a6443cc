//! Each way of tampering with a file, and the exact first problem `verify` reports.

use serde_json::{Value, json};

use super::support::{KEY, doc, entries_mut, entry, entry_mut, sealed};
use crate::audit::chain::{ZERO_HASH, entry_hash, seal};
use crate::audit::verify::{Tamper, TamperKind, verify, verify_tail};

fn first_problem(doc: &Value, key: Option<&[u8]>) -> Tamper {
    verify(doc, key).expect_err("tampering must be detected")
}

fn assert_at(t: &Tamper, index: usize, kind: &TamperKind) {
    assert_eq!(t.index, Some(index), "{t}");
    assert_eq!(&t.kind, kind, "{t}");
}

fn link_kind(t: &Tamper) -> &'static str {
    match t.kind {
        TamperKind::BrokenLink { .. } => "broken",
        TamperKind::BadFirstLink { .. } => "first",
        _ => "other",
    }
}

#[test]
fn edited_message() {
    let mut d = doc(sealed(6, Some(KEY)));
    entry_mut(&mut d, 3).insert("message".into(), json!("all good, merge it"));
    for key in [None, Some(KEY)] {
        let t = first_problem(&d, key);
        assert_at(&t, 3, &TamperKind::HashMismatch);
        assert_eq!(t.id.as_deref(), Some("10003/1/guard/check:3"));
    }
}

#[test]
fn reordered_entries() {
    let mut d = doc(sealed(6, None));
    entries_mut(&mut d).swap(2, 3);
    let t = first_problem(&d, None);
    assert_eq!((t.index, link_kind(&t)), (Some(2), "broken"));

    let mut d = doc(sealed(6, None));
    entries_mut(&mut d).swap(0, 1);
    let t = first_problem(&d, None);
    assert_eq!((t.index, link_kind(&t)), (Some(0), "first"));
}

#[test]
fn dropped_entry() {
    let mut d = doc(sealed(6, None));
    let expected = d["timeline"][2]["hash"].as_str().map(str::to_owned);
    let found = d["timeline"][3]["hash"].as_str().map(str::to_owned);
    entries_mut(&mut d).remove(3);
    let t = first_problem(&d, None);
    let (Some(expected), Some(found)) = (expected, found) else {
        panic!("sealed")
    };
    assert_at(&t, 3, &TamperKind::BrokenLink { expected, found });

    let mut d = doc(sealed(6, None));
    entries_mut(&mut d).remove(0);
    assert_eq!(link_kind(&first_problem(&d, None)), "first");
}

#[test]
fn dropping_the_last_entries_only_shows_in_the_head_hash() {
    // Inherent to any hash chain: a truncated file is a valid shorter chain. Callers
    // compare `head_hash` with the head kept elsewhere (the PR comment).
    let full = sealed(6, None);
    let head = full[5]["hash"].clone();
    let report = verify(&doc(full[..4].to_vec()), None).expect("valid prefix");
    assert_ne!(Value::String(report.head_hash), head);
}

#[test]
fn inserted_unsealed_entry() {
    let mut d = doc(sealed(6, None));
    entries_mut(&mut d).insert(3, Value::Object(entry(99)));
    assert_at(&first_problem(&d, None), 3, &TamperKind::MissingHash);
}

#[test]
fn inserted_forged_entry_resealed_mid_chain() {
    // The forger links the new entry to entry 2 and hashes it correctly, but cannot make
    // the old entry 3 (now 4) link to it without re-sealing everything after it.
    let mut timeline = sealed(6, None);
    let mut forged = vec![timeline[2].clone(), entry(99)];
    seal(&mut forged, 1, None).expect("seal");
    timeline.insert(3, forged.remove(1));
    let t = first_problem(&doc(timeline), None);
    assert_eq!((t.index, link_kind(&t)), (Some(4), "broken"));
}

#[test]
fn inserted_forged_entry_with_everything_resealed_is_caught_by_the_key() {
    let mut timeline = sealed(6, Some(KEY));
    timeline.insert(3, entry(99));
    seal(&mut timeline, 3, None).expect("forger re-seals without the key");
    let d = doc(timeline);
    // Without the key a full re-seal is indistinguishable from the real thing.
    assert!(verify(&d, None).is_ok());
    assert_at(
        &first_problem(&d, Some(KEY)),
        3,
        &TamperKind::MissingSignature,
    );
}

#[test]
fn changed_signature() {
    let mut d = doc(sealed(5, Some(KEY)));
    let e = entry_mut(&mut d, 2);
    let sig = e["signature"].as_str().unwrap_or_default();
    let flipped = if sig.ends_with('0') { "1" } else { "0" };
    let changed = format!("{}{flipped}", &sig[..sig.len() - 1]);
    e.insert("signature".into(), json!(changed));
    assert_at(&first_problem(&d, Some(KEY)), 2, &TamperKind::BadSignature);
    // The hash chain does not cover signatures: without a key the file is still valid.
    assert!(verify(&d, None).is_ok());
}

#[test]
fn wrong_key() {
    let d = doc(sealed(5, Some(KEY)));
    assert_at(
        &first_problem(&d, Some(b"not-the-key")),
        0,
        &TamperKind::BadSignature,
    );
}

#[test]
fn missing_signature_when_a_key_is_required() {
    let mut d = doc(sealed(5, Some(KEY)));
    entry_mut(&mut d, 4).remove("signature");
    assert_at(
        &first_problem(&d, Some(KEY)),
        4,
        &TamperKind::MissingSignature,
    );
    // A file sealed without a key fails at its first entry.
    let unsigned = doc(sealed(3, None));
    assert_at(
        &first_problem(&unsigned, Some(KEY)),
        0,
        &TamperKind::MissingSignature,
    );
}

#[test]
fn malformed_signature() {
    for bad in [
        json!("hmac-sha256:xyz"),
        json!(7),
        json!("sha256:".to_owned() + &"a".repeat(64)),
    ] {
        let mut d = doc(sealed(3, Some(KEY)));
        entry_mut(&mut d, 1).insert("signature".into(), bad);
        assert_at(
            &first_problem(&d, Some(KEY)),
            1,
            &TamperKind::MalformedSignature,
        );
    }
}

#[test]
fn duplicate_id() {
    let mut timeline = sealed(6, None);
    let id = timeline[1]["id"].clone();
    timeline[4].insert("id".into(), id);
    seal(&mut timeline, 4, None).expect("re-seal so only the duplicate is wrong");
    let t = first_problem(&doc(timeline), None);
    assert_at(&t, 4, &TamperKind::DuplicateId { first: 1 });
}

#[test]
fn non_object_entry() {
    for (bad, found) in [
        (json!("oops"), "a string"),
        (json!([1]), "an array"),
        (json!(null), "null"),
    ] {
        let mut d = doc(sealed(4, None));
        entries_mut(&mut d)[2] = bad;
        let t = first_problem(&d, None);
        assert_at(&t, 2, &TamperKind::NotAnObject { found });
        assert_eq!(t.id, None);
    }
}

#[test]
fn empty_timeline_is_valid() {
    for key in [None, Some(KEY)] {
        let report = verify(&json!({"timeline": []}), key).expect("valid");
        assert_eq!((report.entries, report.head_hash.as_str()), (0, ZERO_HASH));
        assert_eq!(verify(&json!([]), key).map(|r| r.entries), Ok(0));
    }
}

#[test]
fn not_a_document() {
    for bad in [
        json!(42),
        json!("x"),
        json!({"timeline": {}}),
        json!({"entries": []}),
        json!(null),
    ] {
        let t = first_problem(&bad, None);
        assert_eq!((t.index, t.kind), (None, TamperKind::NotADocument));
    }
}

#[test]
fn hostile_hash_fields() {
    let cases = [
        ("hash", Some(json!(42)), TamperKind::MalformedHash),
        ("hash", Some(json!(null)), TamperKind::MalformedHash),
        (
            "hash",
            Some(json!({"sha256": "…"})),
            TamperKind::MalformedHash,
        ),
        (
            "hash",
            Some(json!(ZERO_HASH.to_uppercase())),
            TamperKind::MalformedHash,
        ),
        (
            "hash",
            Some(json!(format!("{ZERO_HASH}0"))),
            TamperKind::MalformedHash,
        ),
        ("hash", None, TamperKind::MissingHash),
        (
            "prev_hash",
            Some(json!([ZERO_HASH])),
            TamperKind::MalformedPrevHash,
        ),
        ("prev_hash", None, TamperKind::MissingPrevHash),
    ];
    for (field, value, kind) in cases {
        let mut d = doc(sealed(4, None));
        let e = entry_mut(&mut d, 1);
        match value {
            Some(v) => e.insert(field.into(), v),
            None => e.remove(field),
        };
        assert_at(&first_problem(&d, None), 1, &kind);
    }
}

#[test]
fn hostile_deeply_nested_values() {
    // As deep as serde_json will parse: still hashed, and an edit deep inside is caught.
    let depth = 120;
    let text = format!(
        "{}\"leaf\"{}",
        "{\"k\":[".repeat(depth / 2),
        "]}".repeat(depth / 2)
    );
    let nested: Value = serde_json::from_str(&text).expect("within serde_json's limit");
    let mut timeline = sealed(3, None);
    timeline[1].insert("details".into(), nested);
    seal(&mut timeline, 1, None).expect("seal");
    let mut d = doc(timeline);
    assert!(verify(&d, None).is_ok());
    let edited = serde_json::to_string(&d)
        .expect("json")
        .replace("\"leaf\"", "\"lea f\"");
    d = serde_json::from_str(&edited).expect("json");
    assert_at(&first_problem(&d, None), 1, &TamperKind::HashMismatch);

    // Deeper than the canonicalizer accepts (only possible for values built in code):
    // an error, never a stack overflow.
    let mut deep = json!(0);
    for _ in 0..600 {
        deep = json!([deep]);
    }
    let mut d = doc(sealed(3, None));
    entry_mut(&mut d, 2).insert("deep".into(), deep);
    let t = first_problem(&d, None);
    assert_eq!(t.index, Some(2));
    assert!(matches!(t.kind, TamperKind::Unhashable(_)), "{t}");
}

#[test]
fn hostile_huge_strings_and_ids() {
    let mut timeline = sealed(3, None);
    let evil_id = format!("x\n::error::fake\u{202e}{}", "y".repeat(1 << 20));
    timeline[1].insert("id".into(), json!(evil_id));
    timeline[1].insert("message".into(), json!("m".repeat(8 << 20)));
    seal(&mut timeline, 1, None).expect("seal");
    let mut d = doc(timeline);
    assert!(verify(&d, None).is_ok());
    entry_mut(&mut d, 1).insert("message".into(), json!("m".repeat((8 << 20) - 1)));
    let t = first_problem(&d, None);
    assert_at(&t, 1, &TamperKind::HashMismatch);
    let shown = t.to_string();
    assert!(shown.len() < 300, "bounded message: {} bytes", shown.len());
    assert!(
        !shown.contains('\n') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert!(
        shown.starts_with(r"entry 1 (id x\n::error::fake\u{202e}yyy"),
        "{shown}"
    );
}

#[test]
fn tail_with_a_wrong_or_malformed_anchor() {
    let full = sealed(6, None);
    let tail: Vec<Value> = full[3..].iter().cloned().map(Value::Object).collect();
    let wrong = full[1]["hash"].as_str().unwrap_or_default();
    let t = verify_tail(&tail, wrong, None).expect_err("wrong anchor");
    assert_eq!((t.index, link_kind(&t)), (Some(0), "first"));
    let t = verify_tail(&tail, "sha256:short", None).expect_err("bad anchor");
    assert_eq!((t.index, t.kind), (None, TamperKind::BadAnchor));
}

#[test]
fn messages_read_well_and_never_show_the_key() {
    let key = b"k3y-that-must-never-leak";
    let mut d = doc(sealed(4, Some(key)));
    entry_mut(&mut d, 2).insert("message".into(), json!("edited"));
    let edited = first_problem(&d, Some(key));
    insta::assert_snapshot!(edited, @"entry 2 (id 10002/1/guard/check:2): hash does not match its content: the entry was edited after it was written");

    let mut d = doc(sealed(4, Some(key)));
    entries_mut(&mut d).remove(1);
    let dropped = first_problem(&d, Some(key));
    let mut d = doc(sealed(4, Some(key)));
    entry_mut(&mut d, 1).insert("id".into(), json!("10000/1/guard/check:0"));
    let resealed = entry_hash(entry_mut(&mut d, 1)).expect("hash");
    entry_mut(&mut d, 1).insert("hash".into(), json!(resealed));
    let wrong_key = first_problem(&doc(sealed(2, Some(key))), Some(b"other"));
    insta::assert_snapshot!(wrong_key, @"entry 0 (id 10000/1/guard/check:0): signature does not match: the entry was changed, or it was signed with a different key");

    for t in [&edited, &dropped, &wrong_key, &first_problem(&d, Some(key))] {
        let (shown, debug) = (t.to_string(), format!("{t:?}"));
        assert!(
            !shown.contains("k3y") && !debug.contains("k3y"),
            "{shown} / {debug}"
        );
    }
    assert!(
        dropped
            .to_string()
            .contains("an entry was removed, inserted or moved before this one")
    );
}
