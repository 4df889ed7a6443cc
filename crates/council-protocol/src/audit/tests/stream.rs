//! The streaming verifier: the same verdict as `verify` on every tampering a parsed
//! `Value` can show, and the tampering only the bytes show (duplicate member names,
//! trailing data, a truncated file); partial files and their proof by earlier files.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::chain::arb_entry;
use super::support::{KEY, doc, entries_mut, entry, entry_mut, sealed};
use crate::audit::chain::{ZERO_HASH, seal};
use crate::audit::verify::{
    EntryFacts, Omission, ProofError, Segment, StreamError, Tamper, TamperKind, VerifiedDocument,
    prove, verify, verify_reader,
};

fn read(text: &str, key: Option<&[u8]>) -> Result<VerifiedDocument, Tamper> {
    match verify_reader(text.as_bytes(), key) {
        Ok(doc) => Ok(doc),
        Err(StreamError::Invalid(t)) => Err(t),
        Err(StreamError::Io(e)) => panic!("reading from memory cannot fail: {e}"),
    }
}

fn tamper(text: &str, key: Option<&[u8]>) -> Tamper {
    read(text, key).expect_err("tampering must be detected")
}

fn ok(text: &str, key: Option<&[u8]>) -> VerifiedDocument {
    read(text, key).unwrap_or_else(|t| panic!("must verify: {t}"))
}

/// Both the compact and the pretty form of `doc` stream to `verify`'s verdict.
fn assert_agrees(doc: &Value, key: Option<&[u8]>) {
    let expected = verify(doc, key);
    for text in [
        serde_json::to_string(doc).expect("json"),
        serde_json::to_string_pretty(doc).expect("json"),
    ] {
        let streamed = read(&text, key).map(|d| d.report);
        assert_eq!(streamed, expected, "{text:.300}");
    }
}

/// A Context Object holding `timeline[dropped..]`, with `timeline_omitted` written after
/// the timeline, as the product writes it.
fn partial(full: &[Map<String, Value>], dropped: usize) -> Value {
    let mut d = doc(full[dropped..].to_vec());
    d["timeline_omitted"] = json!({"count": dropped, "head_hash": full[dropped - 1]["hash"]});
    d
}

fn text(doc: &Value) -> String {
    serde_json::to_string_pretty(doc).expect("json")
}

/// Every tampering `tamper.rs` covers, streamed: the same first problem.
#[test]
fn agrees_with_verify_on_every_tampering_of_the_content() {
    type Edit = fn(&mut Value);
    let edits: [Edit; 14] = [
        |_| {},
        |d| drop(entry_mut(d, 3).insert("message".into(), json!("all good"))),
        |d| entries_mut(d).swap(2, 3),
        |d| entries_mut(d).swap(0, 1),
        |d| drop(entries_mut(d).remove(3)),
        |d| drop(entries_mut(d).remove(0)),
        |d| entries_mut(d).insert(3, Value::Object(entry(99))),
        |d| drop(entry_mut(d, 1).insert("signature".into(), json!(42))),
        |d| drop(entry_mut(d, 4).remove("signature")),
        |d| drop(entry_mut(d, 2).remove("hash")),
        |d| drop(entry_mut(d, 2).insert("prev_hash".into(), json!([ZERO_HASH]))),
        |d| entries_mut(d)[2] = json!("oops"),
        |d| entries_mut(d).truncate(4),
        |d| {
            // Edited and the whole chain re-sealed without the key.
            let mut timeline: Vec<Map<String, Value>> = entries_mut(d)
                .iter()
                .filter_map(|e| e.as_object().cloned())
                .collect();
            timeline[2].insert("result".into(), json!("PASS"));
            seal(&mut timeline, 0, None).expect("seal");
            *d = doc(timeline);
        },
    ];
    for edit in edits {
        for key in [None, Some(KEY)] {
            let mut d = doc(sealed(6, Some(KEY)));
            edit(&mut d);
            assert_agrees(&d, key);
            // A bare timeline array too.
            assert_agrees(&d["timeline"], key);
        }
    }
    assert_agrees(&doc(sealed(6, Some(KEY))), Some(b"wrong key"));
}

#[test]
fn duplicate_ids_and_hostile_values_agree_with_verify() {
    let mut timeline = sealed(6, None);
    let id = timeline[1]["id"].clone();
    timeline[4].insert("id".into(), id);
    seal(&mut timeline, 4, None).expect("seal");
    let d = doc(timeline);
    assert_agrees(&d, None);
    assert_eq!(
        tamper(&text(&d), None).kind,
        TamperKind::DuplicateId { first: 1 }
    );

    // Numbers, escapes and keys where a hand-written Value builder could differ from
    // serde_json's (the hash would then differ).
    let mut timeline = sealed(3, Some(KEY));
    timeline[1].insert(
        "odd".into(),
        json!({"1e21": 1e21, "neg": -0.0, "small": 5e-324, "max": u64::MAX, "min": i64::MIN,
               "f": 1.5, "big": 1_424_953_923_781_206.3, "\u{e000}": "\u{1f600}", "\u{1f600}": "\u{7}",
               "esc": "quote \" back \\ nl \n tab \t", "nested": [[[{"": null}]], true, false]}),
    );
    seal(&mut timeline, 1, Some(KEY)).expect("seal");
    let d = doc(timeline);
    assert!(verify(&d, Some(KEY)).is_ok());
    assert_agrees(&d, Some(KEY));
}

#[test]
fn keeps_the_facts_and_the_stored_state_and_gates() {
    let mut d = doc(sealed(4, None));
    d["state"] = json!({"guard_status": "FAIL"});
    d["gates"] = json!({"naming_convention": "FAIL", "pipeline_green": null});
    let mut timeline: Vec<_> = (0..2).map(entry).collect();
    timeline[1].insert("run_attempt".into(), json!("2"));
    timeline[1].remove("sha");
    seal(&mut timeline, 0, None).expect("seal");
    let mut with_odd_types = doc(timeline);
    with_odd_types["extra"] = json!({"anything": [1, 2]});

    let verified = ok(&text(&d), None);
    assert_eq!(verified.report.entries, 4);
    assert_eq!(verified.omitted, None);
    assert_eq!(verified.stored_state, Some(d["state"].clone()));
    assert_eq!(verified.stored_gates, Some(d["gates"].clone()));
    let first = &verified.facts[0];
    assert_eq!(first.id.as_deref(), Some("10000/1/guard/check:0"));
    assert_eq!(first.agent.as_deref(), Some("agent_guard"));
    assert_eq!(first.action.as_deref(), Some("check:branch-name"));
    assert_eq!(first.result.as_deref(), Some("FAIL"));
    assert_eq!(
        first.sha.as_deref(),
        Some("0123456789abcdef0123456789abcdef01234567")
    );
    assert_eq!(first.run_id.as_deref(), Some("10000"));
    assert_eq!(first.run_attempt, Some(1));
    assert_eq!(verified.facts[1].result.as_deref(), Some("PASS"));
    assert_eq!(
        verified.entry_hash(3).as_ref(),
        d["timeline"][3]["hash"]
            .as_str()
            .map(str::to_owned)
            .as_ref()
    );
    // Repeated strings are stored once.
    assert!(std::sync::Arc::ptr_eq(
        verified.facts[0].agent.as_ref().expect("agent"),
        verified.facts[3].agent.as_ref().expect("agent"),
    ));

    let odd = ok(&text(&with_odd_types), None);
    assert_eq!((odd.stored_state, odd.stored_gates), (None, None));
    assert_eq!(
        odd.facts[1].run_attempt, None,
        "a string is not a run attempt"
    );
    assert_eq!(odd.facts[1].sha, None);
    assert_eq!(
        odd.facts[1],
        EntryFacts {
            sha: None,
            run_attempt: None,
            ..odd.facts[1].clone()
        }
    );
}

#[test]
fn duplicate_member_names_at_any_depth_are_tampering() {
    let base = text(&doc(sealed(4, Some(KEY))));
    let cases = [
        // (text to find, text to put before it, path, name, entry index)
        (
            "\"context_id\"",
            "\"context_id\": \"PR-999\",\n  ",
            "the top-level object",
            "context_id",
            None,
        ),
        (
            "\"timeline\"",
            "\"timeline\": [],\n  ",
            "the top-level object",
            "timeline",
            None,
        ),
    ];
    for (find, insert, path, name, index) in cases {
        let at = base.find(find).expect("present");
        let edited = format!("{}{insert}{}", &base[..at], &base[at..]);
        for key in [None, Some(KEY)] {
            let t = tamper(&edited, key);
            assert_eq!(t.index, index, "{t}");
            assert_eq!(
                t.kind,
                TamperKind::DuplicateMember {
                    path: path.into(),
                    name: format!("\"{name}\"")
                }
            );
        }
    }

    // In an entry: a second "result" (the one a reader sees last) next to the hashed one.
    let entry2 = base.find("\"10002/1/guard/check:2\"").expect("entry 2");
    let result = entry2 + base[entry2..].find("\"result\"").expect("result");
    let edited = format!(
        "{}\"result\": \"PASS\",\n      {}",
        &base[..result],
        &base[result..]
    );
    let t = tamper(&edited, None);
    assert_eq!(t.index, Some(2));
    insta::assert_snapshot!(t, @r#"timeline[2]: duplicate member "result": a JSON reader keeps only one of the two, so the file can show one value and be checked against another"#);
    assert_eq!(tamper(&edited, Some(KEY)), t);

    // Nested inside an entry's values, in the timeline_omitted object, in an unknown
    // top-level member, and in a bare timeline array.
    let mut timeline = sealed(3, None);
    timeline[1].insert(
        "details".into(),
        json!({"list": [0, {"k": 1, "odd key": {"z": 1}}]}),
    );
    seal(&mut timeline, 0, None).expect("seal");
    let mut d = partial(&timeline, 1);
    d["later"] = json!({"x": [{"y": 1}]});
    let nested = text(&d);
    let variants = [
        (
            nested.replacen("\"z\": 1", "\"z\": 1, \"z\": 2", 1),
            "timeline[0].details.list[1][\"odd key\"]",
            "z",
            Some(0),
        ),
        (
            nested.replacen("\"count\": 1", "\"count\": 1, \"count\": 0", 1),
            "timeline_omitted",
            "count",
            None,
        ),
        (
            nested.replacen("\"y\": 1", "\"y\": 1, \"y\": 1", 1),
            "later.x[0]",
            "y",
            None,
        ),
        (
            serde_json::to_string(&d["timeline"])
                .expect("json")
                .replacen("\"k\":1", "\"k\":1,\"k\":1", 1),
            "[0].details.list[1]",
            "k",
            Some(0),
        ),
    ];
    for (edited, path, name, index) in variants {
        assert_ne!(edited, nested);
        let t = tamper(&edited, None);
        assert_eq!(t.index, index, "{t}");
        assert_eq!(
            t.kind,
            TamperKind::DuplicateMember {
                path: path.into(),
                name: format!("\"{name}\"")
            }
        );
    }
}

#[test]
fn every_truncation_is_tampering() {
    let full = text(&doc(sealed(3, Some(KEY))));
    let end = full.rfind('}').expect("closing brace");
    // Every cut after the first byte and before the closing brace (stepping over the
    // middle of the long hex strings, which adds nothing).
    for cut in (1..=end).filter(|c| *c < 1500 || c % 7 == 0) {
        if !full.is_char_boundary(cut) {
            continue;
        }
        let t = tamper(&full[..cut], Some(KEY));
        assert!(
            matches!(t.kind, TamperKind::Truncated { .. }),
            "cut at {cut}: {t}"
        );
        assert!(!t.kind.is_bad_input());
    }
    let t = tamper(&full[..full.len() / 2], None);
    assert!(t.to_string().contains("it was cut short"), "{t}");
    // The complete document verifies, with or without the final newline.
    ok(&full[..=end], Some(KEY));
}

#[test]
fn trailing_data_is_tampering() {
    let full = text(&doc(sealed(3, None)));
    for tail in ["{}", "\n{\"timeline\": []}", "x", "\0", "]", ",", "\n\n  1"] {
        let t = tamper(&format!("{full}{tail}"), None);
        assert!(
            matches!(t.kind, TamperKind::TrailingData { .. }),
            "{tail:?}: {t}"
        );
        assert_eq!(t.index, None);
    }
    ok(&format!("{full}\n \t\r\n"), None);
    let t = tamper(&format!("{full}{{}}"), None);
    insta::assert_snapshot!(t, @"more data follows the end of the document (line 45, column 2): something was appended");
}

#[test]
fn a_document_broken_further_in_is_tampering_no_document_is_bad_input() {
    let full = text(&doc(sealed(2, None)));
    for broken in [
        full.replacen("\"agent\":", "\"agent\"", 1),
        full.replacen("\"run_attempt\": 1", "\"run_attempt\": 1x", 1),
        full.replacen("\"agent_guard\"", "\"agent\u{1}guard\"", 1),
        full.replacen("\"timeline\": [", "\"timeline\": [,", 1),
    ] {
        let t = tamper(&broken, None);
        assert!(matches!(t.kind, TamperKind::Malformed { .. }), "{t}");
        assert!(!t.kind.is_bad_input());
    }
    for none in ["", "  \n\t ", "\"text\"", "42", "null", "\u{feff}{}", "x{}"] {
        let t = tamper(none, None);
        assert!(
            matches!(t.kind, TamperKind::NotJson { .. }),
            "{none:?}: {t}"
        );
        assert!(t.kind.is_bad_input());
    }
    for not_an_audit_file in [
        "{}",
        "{\"timeline\": 5}",
        "{\"timeline\": {}}",
        "{\"a\": [1]}",
    ] {
        let t = tamper(not_an_audit_file, None);
        assert_eq!(t.kind, TamperKind::NotADocument, "{not_an_audit_file}");
        assert!(t.kind.is_bad_input());
    }
    // Positions count the blank lines before the document, even a whole buffer of them.
    let padded = format!("{}{}", "\n".repeat(100_000), &full[..20]);
    let small_buffer = std::io::BufReader::with_capacity(16, padded.as_bytes());
    let Err(StreamError::Invalid(t)) = verify_reader(small_buffer, None) else {
        panic!("truncated")
    };
    assert!(
        matches!(t.kind, TamperKind::Truncated { line: 100_002, .. }),
        "{t}"
    );
}

#[test]
fn the_anchor_may_come_after_the_timeline() {
    let full = sealed(8, Some(KEY));
    for omitted_first in [false, true] {
        let mut d = partial(&full, 3);
        if omitted_first {
            let omitted = d["timeline_omitted"].take();
            let mut reordered = Map::new();
            reordered.insert("timeline_omitted".into(), omitted);
            if let Value::Object(rest) = d {
                reordered.extend(rest.into_iter().filter(|(k, _)| k != "timeline_omitted"));
            }
            d = Value::Object(reordered);
        }
        let verified = ok(&text(&d), Some(KEY));
        assert_eq!(verified.report.entries, 5);
        assert_eq!(
            verified.omitted,
            Some(Omission {
                count: 3,
                head_hash: full[2]["hash"].as_str().expect("hash").into()
            })
        );
        assert_eq!(verified.first_position(), 3);

        // A wrong anchor is a bad first link, whichever comes first.
        d["timeline_omitted"]["head_hash"] = full[1]["hash"].clone();
        let t = tamper(&text(&d), Some(KEY));
        assert!(matches!(t.kind, TamperKind::BadFirstLink { .. }), "{t}");
        assert_eq!(t.index, Some(0));
        assert_eq!(t.id.as_deref(), Some("10003/1/guard/check:3"));
    }
    // Without timeline_omitted the first entry of a tail does not link to the zero hash.
    let t = tamper(&text(&doc(full[3..].to_vec())), None);
    assert!(matches!(t.kind, TamperKind::BadFirstLink { .. }), "{t}");
}

#[test]
fn the_first_problem_in_order_even_when_the_anchor_comes_last() {
    let full = sealed(6, None);
    // Bad link at entry 0 (anchor after the timeline) and an edit at entry 4: entry 0.
    let mut d = partial(&full, 2);
    d["timeline_omitted"]["head_hash"] = json!(ZERO_HASH);
    entry_mut(&mut d, 3).insert("message".into(), json!("edited"));
    let t = tamper(&text(&d), None);
    assert_eq!(
        (t.index, matches!(t.kind, TamperKind::BadFirstLink { .. })),
        (Some(0), true)
    );

    // At entry 0, a missing hash comes before the link, the link before the content.
    let mut d = partial(&full, 2);
    d["timeline_omitted"]["head_hash"] = json!(ZERO_HASH);
    entry_mut(&mut d, 0).remove("hash");
    assert_eq!(tamper(&text(&d), None).kind, TamperKind::MissingHash);
    let mut d = partial(&full, 2);
    d["timeline_omitted"]["head_hash"] = json!(ZERO_HASH);
    entry_mut(&mut d, 0).insert("message".into(), json!("edited"));
    assert!(matches!(
        tamper(&text(&d), None).kind,
        TamperKind::BadFirstLink { .. }
    ));

    // An entry problem comes before the document's own (here a truncation after it).
    let mut d = doc(full.clone());
    entry_mut(&mut d, 1).insert("message".into(), json!("edited"));
    let cut = text(&d);
    let t = tamper(&cut[..cut.len() - 10], None);
    assert_eq!((t.index, t.kind), (Some(1), TamperKind::HashMismatch));
}

#[test]
fn a_malformed_timeline_omitted_is_tampering() {
    let full = sealed(4, None);
    assert!(
        crate::audit::verify::COUNT_TOO_LARGE.contains(crate::audit::timeline::MAX_ENTRIES_SHOWN)
    );
    for (omitted, why) in [
        (json!(null), "it is not an object"),
        (
            json!({"count": 0, "head_hash": full[0]["hash"]}),
            "\"count\" is 0",
        ),
        (
            json!({"count": -1, "head_hash": full[0]["hash"]}),
            "\"count\" is missing or not a whole number",
        ),
        (
            json!({"head_hash": full[0]["hash"]}),
            "\"count\" is missing or not a whole number",
        ),
        (json!({"count": 1}), "\"head_hash\" is missing or malformed"),
        (
            json!({"count": 1, "head_hash": "sha256:nope"}),
            "\"head_hash\" is missing or malformed",
        ),
        // Positions beyond any timeline (2^63 - 1 overflowed the store's).
        (
            json!({"count": i64::MAX, "head_hash": full[0]["hash"]}),
            crate::audit::verify::COUNT_TOO_LARGE,
        ),
        (
            json!({"count": u64::MAX, "head_hash": full[0]["hash"]}),
            crate::audit::verify::COUNT_TOO_LARGE,
        ),
    ] {
        let mut d = doc(full[1..].to_vec());
        d["timeline_omitted"] = omitted;
        let t = tamper(&text(&d), None);
        assert_eq!(
            (t.index, t.kind.clone()),
            (None, TamperKind::BadOmitted { why })
        );
        assert!(!t.kind.is_bad_input());
    }
}

#[test]
fn a_forged_anchor_verifies_alone_but_proves_nothing() {
    // The issue: drop the oldest entries, write their head as timeline_omitted.
    let full = sealed(10, Some(KEY));
    let forged = ok(&text(&partial(&full, 4)), Some(KEY));
    let files = [forged];
    let proof = prove(&files).expect("consistent");
    assert_eq!(proof.trusted, 4);
    assert_eq!(proof.unproven_file(), Some(0));
    assert_eq!(
        proof.segments,
        [Segment {
            file: 0,
            entries: 0..6
        }]
    );
}

#[test]
fn earlier_files_prove_what_a_file_leaves_out() {
    let full = sealed(20, Some(KEY));
    let newest = ok(&text(&partial(&full, 12)), Some(KEY));
    // The complete earlier artifact, as long as the newest or shorter.
    for earlier_len in [12, 15, 20] {
        let earlier = ok(&text(&doc(full[..earlier_len].to_vec())), Some(KEY));
        let files = [newest.clone(), earlier];
        let proof = prove(&files).expect("proven");
        assert_eq!(proof.trusted, 0);
        assert_eq!(proof.earlier_entries(), 12);
        let ids: Vec<_> = proof.facts(&files).map(|f| f.id.clone()).collect();
        let expected: Vec<_> = (0..20)
            .map(|i| full[i]["id"].as_str().map(std::sync::Arc::from))
            .collect();
        assert_eq!(ids, expected);
    }

    // A chain of partial files: [0, 5) complete, [3, 9) partial, newest [12, 20).
    let a = ok(&text(&doc(full[..5].to_vec())), Some(KEY));
    let b = ok(&text(&partial(&full[..12], 3)), Some(KEY));
    let files = [newest.clone(), b.clone(), a.clone()];
    let proof = prove(&files).expect("proven");
    assert_eq!(proof.trusted, 0);
    assert_eq!(
        proof.segments,
        [
            Segment {
                file: 2,
                entries: 0..3
            },
            Segment {
                file: 1,
                entries: 0..9
            },
            Segment {
                file: 0,
                entries: 0..8
            },
        ]
    );
    assert_eq!(proof.facts(&files).count(), 20);

    // Without the complete one, the partial earlier file leaves 3 on trust.
    let files = [newest.clone(), b];
    let proof = prove(&files).expect("consistent");
    assert_eq!((proof.trusted, proof.unproven_file()), (3, Some(1)));

    // A file that does not reach the anchor proves nothing.
    let files = [
        newest.clone(),
        ok(&text(&doc(full[..11].to_vec())), Some(KEY)),
    ];
    assert_eq!(prove(&files).expect("consistent").trusted, 12);
    let files = [newest, a];
    assert_eq!(prove(&files).expect("consistent").trusted, 12);
}

#[test]
fn earlier_files_that_rewrite_the_history_or_repeat_an_id_fail() {
    let full = sealed(12, None);
    let newest = ok(&text(&partial(&full, 6)), None);

    // The earlier file agrees up to the anchor but then has a different entry 8.
    let mut rewritten = full.clone();
    rewritten[8].insert("result".into(), json!("PASS-edited"));
    seal(&mut rewritten, 8, None).expect("seal");
    let earlier = ok(&text(&doc(rewritten)), None);
    let err = prove(&[newest.clone(), earlier]).expect_err("fork");
    assert_eq!(
        err,
        ProofError::Fork {
            file: 1,
            index: 8,
            other: 0,
            other_index: 2,
            position: 8
        }
    );
    insta::assert_snapshot!(err.describe(&["NEW.json", "OLD.json"]), @"OLD.json entry 8 and NEW.json entry 2 are both entry 8 of the history but differ: the history was rewritten, or the files are not of the same pull request");

    // A file of another history given as well, even one not needed for the proof.
    let mut another = sealed(3, None);
    another[0].insert("message".into(), json!("another pull request"));
    seal(&mut another, 0, None).expect("seal");
    let other = ok(&text(&doc(another)), None);
    let earlier = ok(&text(&doc(full[..6].to_vec())), None);
    let files = [newest.clone(), earlier.clone(), other];
    assert!(matches!(
        prove(&files),
        Err(ProofError::Fork { file: 2, .. })
    ));

    // The same id in the earlier part and in the newest file.
    let mut repeated = full.clone();
    let id = repeated[2]["id"].clone();
    repeated[9].insert("id".into(), id);
    seal(&mut repeated, 9, None).expect("seal");
    let newest = ok(&text(&partial(&repeated, 6)), None);
    let earlier = ok(&text(&doc(repeated[..6].to_vec())), None);
    let err = prove(&[newest, earlier]).expect_err("duplicate id");
    assert_eq!(
        err.describe(&["NEW.json", "OLD.json"]),
        "NEW.json entry 3 (id 10002/1/guard/check:2) has the same id as OLD.json entry 2: one decision is recorded twice"
    );
}

#[test]
fn a_complete_file_needs_no_earlier_file_but_must_agree_with_those_given() {
    let full = sealed(6, None);
    let newest = ok(&text(&doc(full.clone())), None);
    let prefix = ok(&text(&doc(full[..3].to_vec())), None);
    let proof = prove(&[newest.clone(), prefix]).expect("a prefix agrees");
    assert_eq!((proof.trusted, proof.earlier_entries()), (0, 0));
    let other = ok(&text(&doc(sealed(2, Some(KEY)))), None);
    assert!(prove(&[newest, other]).is_ok(), "signatures are not hashed");
    let mut changed = sealed(6, None);
    changed[1].insert("message".into(), json!("other"));
    seal(&mut changed, 0, None).expect("seal");
    let changed = ok(&text(&doc(changed)), None);
    let newest = ok(&text(&doc(full)), None);
    assert!(matches!(
        prove(&[newest, changed]),
        Err(ProofError::Fork { position: 1, .. })
    ));
}

#[test]
fn an_empty_timeline_and_a_bare_array() {
    for key in [None, Some(KEY)] {
        let empty = ok("{\"timeline\": []}", key);
        assert_eq!(
            (empty.report.entries, empty.report.head_hash.as_str()),
            (0, ZERO_HASH)
        );
        assert_eq!(ok("[]", key).report.entries, 0);
    }
    let full = sealed(3, None);
    let mut d = doc(Vec::new());
    d["timeline_omitted"] = json!({"count": 3, "head_hash": full[2]["hash"]});
    let verified = ok(&text(&d), None);
    assert_eq!(Value::String(verified.report.head_hash), full[2]["hash"]);
    let bare = serde_json::to_string(&Value::Array(full.into_iter().map(Value::Object).collect()))
        .expect("json");
    assert_eq!(ok(&bare, None).report.entries, 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn streaming_agrees_with_verify_on_arbitrary_entries(
        mut timeline in prop::collection::vec(arb_entry(), 0..8),
        key in prop::option::of(prop::collection::vec(any::<u8>(), 0..40)),
        edit in any::<prop::sample::Index>(),
    ) {
        for (i, e) in timeline.iter_mut().enumerate() {
            e.insert("id".into(), json!(format!("id-{i}")));
        }
        seal(&mut timeline, 0, key.as_deref()).expect("seal");
        let mut d = doc(timeline);
        let text = serde_json::to_string(&d).expect("json");
        prop_assert!(read(&text, key.as_deref()).is_ok());
        // One edit somewhere: the same verdict as verify.
        if let Some(entries) = d["timeline"].as_array_mut().filter(|e| !e.is_empty()) {
            let i = edit.index(entries.len());
            entries[i]["edited"] = json!(true);
        }
        let text = serde_json::to_string(&d).expect("json");
        prop_assert_eq!(read(&text, key.as_deref()).map(|v| v.report), verify(&d, key.as_deref()));
    }
}
