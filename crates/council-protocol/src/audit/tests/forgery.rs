//! The ledger's promise as a property: whatever is edited in a stored Context Object,
//! either the next run refuses to adopt it, or the edit changes nothing that run records
//! (stage statuses, gates). No run decides a merge from it at all (see the release
//! stage's property test in `tests/integration/release_trust.rs`).
//!
//! Two forgers: with `hmac-key` set, one who edits entries and may re-hash the chain but
//! has no key; without a key, one who edits entries without re-hashing (re-hashing
//! without a key is undetectable by design: SPEC says signatures are what make a ledger
//! unforgeable by anyone who can write the comment).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::audit::adopt::{Found, Subject, adopt};
use crate::audit::chain::seal;
use crate::audit::derive::derived;
use crate::audit::stored::{Links, Stored, merge, parse, render};
use crate::audit::timeline::{Record, RunInfo, new_entry};
use crate::audit::{ContextObject, Entry};

const KEY: &[u8] = b"ledger-key";
/// The sample pull request's object, as `ledger` writes it.
const SUBJECT: Subject = Subject {
    context_id: "PR-2",
    repository: "o/r",
};
const SHAS: [&str; 2] = ["aaaa", "bbbb"];

/// What a later run decides from a stored object.
#[derive(Debug, PartialEq)]
struct Decided {
    state: String,
    gates: String,
}

fn decided(stored: &Stored) -> Decided {
    let (state, gates) = derived(&stored.context.timeline);
    Decided {
        state: serde_json::to_string(&state).unwrap_or_default(),
        gates: serde_json::to_string(&gates).unwrap_or_default(),
    }
}

/// A ledger of `runs` runs, each deciding guard and review on one of two SHAs.
fn ledger(runs: &[(u8, bool, bool)], key: Option<&[u8]>) -> Stored {
    let pr = crate::event::sample_pull_request();
    let mut stored: Option<Stored> = None;
    for (i, &(sha, guard, review)) in runs.iter().enumerate() {
        let run = RunInfo {
            run_id: format!("{}", 100 + i),
            run_attempt: 1,
            job: "council".into(),
        };
        let mut ours = ContextObject::new("o/r", &pr, "t", "2026-01-01T00:00:00Z");
        let verdict = |pass: bool| if pass { "PASS" } else { "FAIL" };
        let record = |stage: &'static str, agent: &'static str, action: &str, pass| Record {
            stage,
            agent,
            action: action.into(),
            result: verdict(pass).into(),
            message: "m".into(),
        };
        let sha = SHAS[usize::from(sha % 2)];
        for r in [
            record("guard", "agent_guard", "check:branch-name", guard),
            record("guard", "agent_guard", "check:target-branch", true),
            record("review", "agent_review", "check:secret-scan", review),
        ] {
            ours.timeline.push(new_entry(&run, &r, sha, "t"));
        }
        stored = Some(merge(stored, &ours, key).expect("sealing works"));
    }
    stored.expect("at least one run")
}

/// One edit of a stored object's entries (or of the fields beside them).
#[derive(Debug, Clone)]
enum Edit {
    Field {
        entry: usize,
        field: &'static str,
        value: Value,
    },
    Remove(usize),
    Swap(usize, usize),
    Duplicate(usize),
    State(Value),
    Gates(Value),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    let field = prop::sample::select(vec![
        "result",
        "action",
        "agent",
        "sha",
        "message",
        "id",
        "run_id",
        "run_attempt",
        "timestamp",
        "hash",
        "prev_hash",
        "signature",
        "extra",
    ]);
    let value = prop_oneof![
        Just(json!("PASS")),
        Just(json!("FAIL")),
        Just(json!("agent_review")),
        Just(json!("check:branch-name")),
        Just(json!("aaaa")),
        Just(json!("bbbb")),
        Just(json!(7)),
        Just(Value::Null),
        "[a-z:_]{0,12}".prop_map(Value::String),
    ];
    prop_oneof![
        (0usize..64, field, value).prop_map(|(entry, field, value)| Edit::Field {
            entry,
            field,
            value
        }),
        (0usize..64).prop_map(Edit::Remove),
        (0usize..64, 0usize..64).prop_map(|(a, b)| Edit::Swap(a, b)),
        (0usize..64).prop_map(Edit::Duplicate),
        Just(Edit::State(
            json!({"guard_status": "PASS", "review_status": "APPROVED", "release_status": "MERGED"})
        )),
        Just(Edit::Gates(
            json!({"naming_convention": "PASS", "secret_scan": "PASS"})
        )),
    ]
}

fn apply(stored: &Stored, edit: &Edit, reseal: bool) -> Value {
    let mut value = serde_json::to_value(stored).unwrap();
    let n = stored.context.timeline.len();
    let timeline = value["context"]["timeline"].as_array_mut().unwrap();
    match edit {
        Edit::Field {
            entry,
            field,
            value,
        } => {
            timeline[entry % n][*field] = value.clone();
        }
        Edit::Remove(i) => {
            timeline.remove(i % n);
        }
        Edit::Swap(a, b) => timeline.swap(a % n, b % n),
        Edit::Duplicate(i) => {
            let copy = timeline[i % n].clone();
            timeline.insert(i % n, copy);
        }
        Edit::State(s) => value["context"]["state"] = s.clone(),
        Edit::Gates(g) => value["context"]["gates"] = g.clone(),
    }
    if reseal && let Some(entries) = value["context"]["timeline"].as_array_mut() {
        let mut maps: Vec<Map<String, Value>> = entries
            .iter()
            .filter_map(|e| e.as_object().cloned())
            .collect();
        if seal(&mut maps, 0, None).is_ok() {
            *entries = maps.into_iter().map(Value::Object).collect();
        }
    }
    value
}

/// What the next run finds: the edited object as it would be stored in the comment.
fn found(value: &Value) -> Found {
    let parsed = match serde_json::from_value::<Stored>(value.clone()) {
        Ok(stored) => parse(&render(&stored, &Links::default())),
        Err(e) => Err(crate::audit::stored::LedgerError::BadData(e.to_string())),
    };
    Found {
        source: "comment".into(),
        parsed,
    }
}

fn entries_changed(original: &Stored, adopted: &Stored) -> bool {
    let plain = |s: &Stored| -> Vec<Entry> { s.context.timeline.clone() };
    plain(original) != plain(adopted)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn with_a_key_every_entry_edit_is_refused_or_decides_nothing(
        runs in prop::collection::vec((any::<u8>(), any::<bool>(), any::<bool>()), 1..6),
        edit in edit_strategy(),
        reseal in any::<bool>(),
    ) {
        let original = ledger(&runs, Some(KEY));
        let edited = apply(&original, &edit, reseal);
        let adopted = adopt(vec![found(&edited)], Some(KEY), &SUBJECT);
        if let Some(stored) = adopted.verified.first() {
            prop_assert!(
                !entries_changed(&original, stored),
                "an edited entry was adopted: {edit:?}"
            );
            prop_assert_eq!(decided(stored), decided(&original));
        }
    }

    #[test]
    fn without_a_key_an_edit_not_rehashed_is_refused_or_decides_nothing(
        runs in prop::collection::vec((any::<u8>(), any::<bool>(), any::<bool>()), 1..6),
        edit in edit_strategy(),
    ) {
        let original = ledger(&runs, None);
        let edited = apply(&original, &edit, false);
        let adopted = adopt(vec![found(&edited)], None, &SUBJECT);
        if let Some(stored) = adopted.verified.first() {
            prop_assert_eq!(decided(stored), decided(&original), "{:?}", edit);
        }
    }
}
