//! A fixed vector anyone can re-check from SPEC.md alone. The expected strings were
//! computed independently with Python 3.11:
//!
//! ```text
//! c = json.dumps({k: v for k, v in e.items() if k not in ("hash", "signature")},
//!                sort_keys=True, separators=(",", ":"), ensure_ascii=False)
//! hash = "sha256:" + hashlib.sha256(c.encode()).hexdigest()
//! signature = "hmac-sha256:" + hmac.new(b"secret", c.encode(), hashlib.sha256).hexdigest()
//! ```
//! (Python's key order equals RFC 8785's here: all keys are ASCII.)

use serde_json::Value;

use crate::audit::chain::{canonical_form, entry_hash, entry_signature, seal};
use crate::audit::verify::verify;

const DOC: &str = r#"{"timeline": [
  {"id": "1234567890/1/guard/check:branch-name", "agent": "agent_guard",
   "action": "check:branch-name", "result": "PASS",
   "message": "Head \"feature/api/PBI-12-login\" matches rule feature — ok ✓ 😀\tтест\u0007",
   "timestamp": "2026-05-01T12:00:00Z", "run_id": "1234567890", "run_attempt": 1,
   "sha": "0123456789abcdef0123456789abcdef01234567",
   "prev_hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
   "hash": "sha256:8b02e8578039c36aba169049f49555fc0410ab8efc58439c0210ec768f6ed974",
   "signature": "hmac-sha256:bfba627b4a2260b04dc20ec760006061c944fb81950cf1da0b26d84ed1670b8e"},
  {"id": "1234567890/1/guard/check:target-branch", "agent": "agent_guard",
   "action": "check:target-branch", "result": "FAIL",
   "message": "Base main is not allowed for feature/*: target develop",
   "timestamp": "2026-05-01T12:00:01Z", "run_id": "1234567890", "run_attempt": 1,
   "sha": "0123456789abcdef0123456789abcdef01234567",
   "prev_hash": "sha256:8b02e8578039c36aba169049f49555fc0410ab8efc58439c0210ec768f6ed974",
   "hash": "sha256:f569efaa028f69e817d8b9ecf4bb2664cbf2124aca590a83209cca9b5538bc61",
   "signature": "hmac-sha256:0c81058c24aedf24563db5ffed4a7b110f349b44da6a61108cad63099e237160"}
]}"#;

const CANONICAL: [&str; 2] = [
    r#"{"action":"check:branch-name","agent":"agent_guard","id":"1234567890/1/guard/check:branch-name","message":"Head \"feature/api/PBI-12-login\" matches rule feature — ok ✓ 😀\tтест\u0007","prev_hash":"sha256:0000000000000000000000000000000000000000000000000000000000000000","result":"PASS","run_attempt":1,"run_id":"1234567890","sha":"0123456789abcdef0123456789abcdef01234567","timestamp":"2026-05-01T12:00:00Z"}"#,
    r#"{"action":"check:target-branch","agent":"agent_guard","id":"1234567890/1/guard/check:target-branch","message":"Base main is not allowed for feature/*: target develop","prev_hash":"sha256:8b02e8578039c36aba169049f49555fc0410ab8efc58439c0210ec768f6ed974","result":"FAIL","run_attempt":1,"run_id":"1234567890","sha":"0123456789abcdef0123456789abcdef01234567","timestamp":"2026-05-01T12:00:01Z"}"#,
];
const HASH: [&str; 2] = [
    "sha256:8b02e8578039c36aba169049f49555fc0410ab8efc58439c0210ec768f6ed974",
    "sha256:f569efaa028f69e817d8b9ecf4bb2664cbf2124aca590a83209cca9b5538bc61",
];
const SIGNATURE: [&str; 2] = [
    "hmac-sha256:bfba627b4a2260b04dc20ec760006061c944fb81950cf1da0b26d84ed1670b8e",
    "hmac-sha256:0c81058c24aedf24563db5ffed4a7b110f349b44da6a61108cad63099e237160",
];

#[test]
fn fixed_vector_matches_an_independent_implementation() {
    let doc: Value = serde_json::from_str(DOC).expect("valid JSON");
    let Some(entries) = doc["timeline"].as_array() else {
        panic!("timeline")
    };
    for (i, e) in entries.iter().enumerate() {
        let Some(e) = e.as_object() else {
            panic!("entry {i}")
        };
        assert_eq!(canonical_form(e).as_deref(), Ok(CANONICAL[i]));
        assert_eq!(entry_hash(e).as_deref(), Ok(HASH[i]));
        assert_eq!(entry_signature(e, b"secret").as_deref(), Ok(SIGNATURE[i]));
    }
    let report = verify(&doc, Some(b"secret")).expect("the vector verifies");
    assert_eq!(report.head_hash, HASH[1]);
}

#[test]
fn sealing_the_bare_entries_reproduces_the_vector() {
    let doc: Value = serde_json::from_str(DOC).expect("valid JSON");
    let Some(entries) = doc["timeline"].as_array() else {
        panic!("timeline")
    };
    let mut bare: Vec<_> = entries
        .iter()
        .filter_map(|e| e.as_object().cloned())
        .map(|mut e| {
            for field in ["prev_hash", "hash", "signature"] {
                e.shift_remove(field);
            }
            e
        })
        .collect();
    seal(&mut bare, 0, Some(b"secret")).expect("seal");
    for (i, e) in bare.iter().enumerate() {
        assert_eq!(
            (e["hash"].as_str(), e["signature"].as_str()),
            (Some(HASH[i]), Some(SIGNATURE[i]))
        );
    }
}
