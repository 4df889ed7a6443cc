//! Sealing: the chain `seal` builds always verifies, and re-sealing is local.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::support::{KEY, doc, entry, sealed};
use crate::audit::chain::{
    ChainError, EntryError, ZERO_HASH, canonical_form, entry_hash, entry_signature, is_hash, seal,
    seal_tail,
};
use crate::audit::verify::{verify, verify_tail};

fn hashes(timeline: &[Map<String, Value>]) -> Vec<Value> {
    timeline.iter().map(|e| e["hash"].clone()).collect()
}

#[test]
fn zero_hash_is_the_spec_value() {
    assert_eq!(ZERO_HASH, format!("sha256:{}", "0".repeat(64)));
    assert!(is_hash(ZERO_HASH));
    assert!(!is_hash(&ZERO_HASH.to_uppercase()));
}

#[test]
fn seal_links_entries_and_verify_passes() {
    let timeline = sealed(5, Some(KEY));
    assert_eq!(timeline[0]["prev_hash"], ZERO_HASH);
    for pair in timeline.windows(2) {
        assert_eq!(pair[1]["prev_hash"], pair[0]["hash"]);
    }
    for e in &timeline {
        assert_eq!(e["hash"], entry_hash(e).expect("hash"));
        assert_eq!(e["signature"], entry_signature(e, KEY).expect("signature"));
    }
    let head = timeline[4]["hash"].clone();
    let report = verify(&doc(timeline), Some(KEY)).expect("valid");
    assert_eq!(report.entries, 5);
    assert!(report.signatures_checked);
    assert_eq!(Value::String(report.head_hash), head);
}

#[test]
fn resealing_from_the_middle_leaves_earlier_hashes_untouched() {
    let mut timeline = sealed(6, Some(KEY));
    let before = hashes(&timeline);
    timeline[3].insert("message".into(), json!("rewritten on purpose"));
    timeline.push(entry(6));
    seal(&mut timeline, 3, Some(KEY)).expect("seal");
    let after = hashes(&timeline);
    assert_eq!(after[..3], before[..3]);
    assert_ne!(after[3], before[3]);
    assert_eq!(timeline[3]["prev_hash"], before[2]);
    verify(&doc(timeline), Some(KEY)).expect("valid after re-seal");
}

#[test]
fn sealing_without_a_key_removes_stale_signatures() {
    let mut timeline = sealed(3, Some(KEY));
    seal(&mut timeline, 1, None).expect("seal");
    assert!(timeline[0].contains_key("signature"));
    assert!(!timeline[1].contains_key("signature") && !timeline[2].contains_key("signature"));
    let keys: Vec<&String> = timeline[1].keys().collect();
    assert_eq!(keys[keys.len() - 2..], ["prev_hash", "hash"]);
}

#[test]
fn unknown_fields_are_covered_by_the_hash() {
    let mut timeline = sealed(2, None);
    timeline[1].insert("added_by_v2".into(), json!({"nested": [1, 2.5, "x"]}));
    assert!(verify(&doc(timeline.clone()), None).is_err());
    seal(&mut timeline, 1, None).expect("seal");
    assert!(
        canonical_form(&timeline[1])
            .expect("canon")
            .contains(r#""added_by_v2":{"nested":[1,2.5,"x"]}"#)
    );
    verify(&doc(timeline), None).expect("valid");
}

#[test]
fn seal_refuses_to_link_to_an_unsealed_entry() {
    let mut timeline: Vec<_> = (0..3).map(entry).collect();
    assert_eq!(
        seal(&mut timeline, 2, None),
        Err(ChainError::PrevUnsealed { index: 1 })
    );
    assert_eq!(seal(&mut timeline, 9, None), Ok(()));
    assert_eq!(
        seal_tail(&mut timeline, 0, "sha256:nope", None),
        Err(ChainError::BadAnchor)
    );
}

#[test]
fn seal_error_leaves_the_failing_entry_as_it_was() {
    let mut deep = json!(0);
    for _ in 0..600 {
        deep = json!([deep]);
    }
    let mut timeline = sealed(3, None);
    timeline[1].insert("deep".into(), deep);
    let before = timeline[1].clone();
    let err = seal(&mut timeline, 0, None).expect_err("too deep");
    assert!(matches!(
        err,
        ChainError::Entry {
            index: 1,
            source: EntryError::Canonical(_)
        }
    ));
    assert_eq!(timeline[1], before);
    assert!(matches!(entry_hash(&before), Err(EntryError::Canonical(_))));
}

#[test]
fn a_sealed_tail_verifies_against_its_anchor() {
    let full = sealed(10, Some(KEY));
    let anchor = full[5]["hash"].as_str().expect("hash").to_owned();
    let tail: Vec<Value> = full[6..].iter().cloned().map(Value::Object).collect();
    let report = verify_tail(&tail, &anchor, Some(KEY)).expect("valid tail");
    assert_eq!(report.entries, 4);
    assert_eq!(Value::String(report.head_hash), full[9]["hash"]);

    // A tail sealed on its own (e.g. new entries appended to the kept tail) verifies too.
    let mut fresh: Vec<_> = (0..3).map(entry).collect();
    seal_tail(&mut fresh, 0, &anchor, None).expect("seal");
    assert_eq!(fresh[0]["prev_hash"], anchor.as_str());
    let fresh: Vec<Value> = fresh.into_iter().map(Value::Object).collect();
    verify_tail(&fresh, &anchor, None).expect("valid");
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,20}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

pub(super) fn arb_entry() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((any::<String>(), arb_value()), 0..8)
        .prop_map(|fields| fields.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn seal_then_verify_passes(mut timeline in prop::collection::vec(arb_entry(), 0..12),
                               key in prop::option::of(prop::collection::vec(any::<u8>(), 0..80))) {
        // Ids must be unique for verify; random entries may share one.
        for (i, e) in timeline.iter_mut().enumerate() {
            e.insert("id".into(), json!(format!("id-{i}")));
        }
        seal(&mut timeline, 0, key.as_deref()).expect("seal");
        let n = timeline.len();
        let report = verify(&doc(timeline), key.as_deref());
        prop_assert!(report.is_ok(), "{:?}", report);
        prop_assert_eq!(report.map(|r| r.entries).unwrap_or(0), n);
    }

    #[test]
    fn reseal_from_any_index_keeps_the_prefix(n in 1usize..20, from in 0usize..25) {
        let mut timeline = sealed(n, Some(KEY));
        let before = hashes(&timeline);
        seal(&mut timeline, from, None).expect("seal");
        let after = hashes(&timeline);
        let cut = from.min(n);
        prop_assert_eq!(&after[..cut], &before[..cut]);
        // Same content and same link: same hash, even when re-sealed.
        prop_assert_eq!(after, before);
        prop_assert!(verify(&doc(timeline), None).is_ok());
    }
}
