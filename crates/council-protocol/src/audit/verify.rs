//! Verification of a whole timeline: reports the first broken link, edited entry, bad
//! signature or duplicate id, with the entry's index (counted from 0, as in
//! `jq '.timeline[17]'`) and id.
//!
//! Integrity is checked before semantics: within one entry the order is shape, `hash`
//! and `prev_hash` format, link, content hash, signature, then duplicate id.
//!
//! Two ways in: [`verify`], [`verify_tail`] and [`verify_document`] check a parsed
//! `serde_json::Value` (the ledger's own objects); [`verify_reader`] reads a file's bytes
//! as a stream, one entry at a time, and also catches what a parsed `Value` has already
//! hidden: duplicate member names, trailing data and a truncated file. [`prove`] then
//! decides whether a file that leaves old entries out (`timeline_omitted`) is proven by
//! earlier files.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::canonical::CanonError;
use super::chain::{
    EntryHasher, HASH_PREFIX, Parts, SIGNATURE_PREFIX, ZERO_HASH, decode_lower_hex_32, is_hash,
    split,
};

mod proof;
mod stream;

use super::timeline::MAX_ENTRIES;

/// Why a `timeline_omitted.count` beyond [`MAX_ENTRIES`] is refused.
pub(crate) const COUNT_TOO_LARGE: &str = "\"count\" is more than 1,000,000,000, more entries than any \
     timeline holds: it was written by hand (positions that large overflow)";

pub use proof::{Proof, ProofError, Segment, prove};
pub use stream::{StreamError, verify_reader};

/// What a successful verification covered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Number of entries checked.
    pub entries: usize,
    /// True when a key was given, so every entry's signature was checked.
    pub signatures_checked: bool,
    /// The `hash` of the last entry: what the next entry's `prev_hash` must be (the zero
    /// hash, or the anchor, when there are no entries).
    pub head_hash: String,
}

/// The first problem found. `id` is the entry's id made safe to print (control and
/// invisible characters escaped, cut to 64 characters); it is `None` when the entry
/// has no string id or the problem is not about one entry.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}{kind}", location(*.index, .id.as_deref(), kind))]
pub struct Tamper {
    pub index: Option<usize>,
    pub id: Option<String>,
    pub kind: TamperKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TamperKind {
    #[error(
        "not a Context Object: expected a JSON object with a \"timeline\" array, or a timeline array"
    )]
    NotADocument,
    #[error("the anchor is not of the form sha256:<64 lowercase hex digits>")]
    BadAnchor,
    #[error("the HMAC key was rejected")]
    KeyRejected,
    #[error("is {found}, not a JSON object")]
    NotAnObject { found: &'static str },
    #[error("has no \"hash\": it was never sealed, or the field was removed")]
    MissingHash,
    #[error("\"hash\" is not of the form sha256:<64 lowercase hex digits>")]
    MalformedHash,
    #[error("has no \"prev_hash\": it was never sealed, or the field was removed")]
    MissingPrevHash,
    #[error("\"prev_hash\" is not of the form sha256:<64 lowercase hex digits>")]
    MalformedPrevHash,
    #[error(
        "\"prev_hash\" is {found} but the first entry must link to {expected}: entries before it were removed, or it was moved"
    )]
    BadFirstLink { expected: String, found: String },
    #[error(
        "\"prev_hash\" is {found} but the previous entry's hash is {expected}: an entry was removed, inserted or moved before this one"
    )]
    BrokenLink { expected: String, found: String },
    #[error("hash does not match its content: the entry was edited after it was written")]
    HashMismatch,
    #[error("has no \"signature\" but a key was given: it was added or re-sealed without the key")]
    MissingSignature,
    #[error("\"signature\" is not of the form hmac-sha256:<64 lowercase hex digits>")]
    MalformedSignature,
    #[error(
        "signature does not match: the entry was changed, or it was signed with a different key"
    )]
    BadSignature,
    #[error("has the same id as entry {first}: one decision is recorded twice")]
    DuplicateId { first: usize },
    #[error("{0}")]
    Unhashable(CanonError),
    /// Bad input rather than tampering: the file holds no JSON document at all.
    #[error("not a JSON document: {found}")]
    NotJson { found: String },
    /// `path` is where the object is, e.g. `timeline[17]` or `timeline[17].details[2]`.
    #[error(
        "{path}: duplicate member {name}: a JSON reader keeps only one of the two, so the file can show one value and be checked against another"
    )]
    DuplicateMember { path: String, name: String },
    #[error("the file ends inside the document (line {line}, column {column}): it was cut short")]
    Truncated { line: usize, column: usize },
    #[error(
        "more data follows the end of the document (line {line}, column {column}): something was appended"
    )]
    TrailingData { line: usize, column: usize },
    /// Starts as a JSON document but is not well-formed further in.
    #[error("not well-formed JSON ({detail}): the file was altered")]
    Malformed { detail: String },
    #[error(
        "\"timeline_omitted\" must be {{\"count\": <entries left out, at least 1>, \"head_hash\": \"sha256:<64 lowercase hex digits>\"}}: {why}"
    )]
    BadOmitted { why: &'static str },
}

impl TamperKind {
    /// Not tampering but the wrong input: no JSON document at all, or a JSON document that
    /// is not a Context Object (an audit file the product wrote is always one), or a bad
    /// anchor passed by a caller. `council verify` exits 2 for these, 1 for the rest.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            TamperKind::NotJson { .. } | TamperKind::NotADocument | TamperKind::BadAnchor
        )
    }

    /// Kinds found before the link is checked (SPEC order: shape, hash formats, link…).
    fn precedes_link(&self) -> bool {
        use TamperKind as K;
        matches!(
            self,
            K::NotAnObject { .. }
                | K::MissingHash
                | K::MalformedHash
                | K::MissingPrevHash
                | K::MalformedPrevHash
        )
    }
}

/// What `timeline_omitted` records: the oldest `count` entries are left out, and
/// `head_hash` is the `hash` of the newest of them (the first kept entry's `prev_hash`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Omission {
    pub count: u64,
    pub head_hash: String,
}

/// The small facts of one timeline entry that rules over the whole timeline need (e.g.
/// recomputing `state` and `gates`), kept while the entry itself is dropped. A field is
/// `None` when the entry lacks it or it does not have the type the product writes
/// (strings; `run_attempt` an unsigned integer). Strings are shared: entries repeat the
/// same agent, action, result, SHA and run id many times.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryFacts {
    pub id: Option<Arc<str>>,
    pub agent: Option<Arc<str>>,
    pub action: Option<Arc<str>>,
    pub result: Option<Arc<str>>,
    pub sha: Option<Arc<str>>,
    pub run_id: Option<Arc<str>>,
    pub run_attempt: Option<u64>,
}

/// A file that verified on its own (chain from its anchor, signatures with a key, no
/// duplicate ids or member names, one complete JSON document).
///
/// Not proven yet when [`Self::omitted`] is set: see [`prove`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedDocument {
    pub report: VerifyReport,
    /// `timeline_omitted`, when the file leaves old entries out.
    pub omitted: Option<Omission>,
    /// One per timeline entry of this file, in order. For a partial file proven by
    /// earlier ones, [`Proof::facts`] gives the whole history's.
    pub facts: Vec<EntryFacts>,
    /// The top-level `state` and `gates` as stored (None when absent), for the rule that
    /// they must equal what the timeline derives.
    pub stored_state: Option<Value>,
    pub stored_gates: Option<Value>,
    /// The `chain_head` member the product writes (entry count and last hash, signed
    /// with the key).
    pub stored_head: Option<Value>,
    /// Each entry's `hash`, decoded: what [`prove`] links and compares files with.
    hashes: Vec<[u8; 32]>,
}

impl VerifiedDocument {
    /// Position in the whole history of this file's first entry.
    pub fn first_position(&self) -> u64 {
        self.omitted.as_ref().map_or(0, |o| o.count)
    }

    /// The `hash` of entry `index` of this file.
    pub fn entry_hash(&self, index: usize) -> Option<String> {
        self.hashes.get(index).map(|h| {
            let mut s = String::with_capacity(HASH_PREFIX.len() + 64);
            s.push_str(HASH_PREFIX);
            s.push_str(&hex::encode(h));
            s
        })
    }
}

/// Verifies a Context Object (`{"timeline": [...], ...}`) or a bare timeline array whose
/// first entry links to the zero hash.
pub fn verify(doc: &Value, key: Option<&[u8]>) -> Result<VerifyReport, Tamper> {
    let entries = match doc {
        Value::Array(entries) => entries,
        Value::Object(map) => match map.get("timeline") {
            Some(Value::Array(entries)) => entries,
            _ => return Err(whole(TamperKind::NotADocument)),
        },
        _ => return Err(whole(TamperKind::NotADocument)),
    };
    verify_tail(entries, ZERO_HASH, key)
}

/// A whole audit file: its timeline from the zero hash or, when the file records
/// `timeline_omitted` (older entries live in earlier artifacts), from that recorded head.
/// Returns the report and how many entries the file leaves out: those are not proven
/// (the head is the file's own claim; see [`prove`]), and duplicate member names are
/// already gone from a parsed `Value`. `council verify` reads files with
/// [`verify_reader`] instead.
pub fn verify_document(doc: &Value, key: Option<&[u8]>) -> Result<(VerifyReport, usize), Tamper> {
    let omitted = doc.get("timeline_omitted");
    let Some(omitted) = omitted else {
        return verify(doc, key).map(|report| (report, 0));
    };
    let entries = match doc.get("timeline") {
        Some(Value::Array(entries)) => entries,
        _ => return Err(whole(TamperKind::NotADocument)),
    };
    let head = omitted.get("head_hash").and_then(Value::as_str);
    let count = omitted.get("count").and_then(Value::as_u64);
    match (head, count) {
        (Some(_), Some(count)) if count > MAX_ENTRIES => Err(whole(TamperKind::BadOmitted {
            why: COUNT_TOO_LARGE,
        })),
        (Some(head), Some(count)) => verify_tail(entries, head, key).map(|r| (r, count as usize)),
        _ => Err(whole(TamperKind::BadAnchor)),
    }
}

/// Verifies a kept tail of a longer timeline: its first entry must link to
/// `anchor_prev_hash` (the hash of the last entry cut off) instead of the zero hash.
/// Duplicate ids are only detected within the tail.
pub fn verify_tail(
    entries: &[Value],
    anchor_prev_hash: &str,
    key: Option<&[u8]>,
) -> Result<VerifyReport, Tamper> {
    if !is_hash(anchor_prev_hash) {
        return Err(whole(TamperKind::BadAnchor));
    }
    let mut hasher = EntryHasher::new(key).map_err(|_| whole(TamperKind::KeyRejected))?;
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    let mut prev = anchor_prev_hash;
    for (index, value) in entries.iter().enumerate() {
        let Value::Object(entry) = value else {
            let found = type_name(value);
            return Err(at(index, None, TamperKind::NotAnObject { found }));
        };
        let parts = split(entry);
        let id = parts.id.and_then(Value::as_str);
        let checked =
            check_entry(parts, index, Some(prev), &mut hasher, key.is_some()).and_then(|hash| {
                // Ids are only compared when they are strings, as the product writes them.
                let Some(id) = id else { return Ok(hash) };
                match seen.entry(id) {
                    Entry::Occupied(first) => Err(TamperKind::DuplicateId {
                        first: *first.get(),
                    }),
                    Entry::Vacant(slot) => {
                        slot.insert(index);
                        Ok(hash)
                    }
                }
            });
        match checked {
            Ok(hash) => prev = hash,
            Err(kind) => return Err(at(index, id, kind)),
        }
    }
    Ok(VerifyReport {
        entries: entries.len(),
        signatures_checked: key.is_some(),
        head_hash: prev.to_owned(),
    })
}

/// Checks one entry against the previous hash; returns its own hash. With `prev` `None`
/// the link is left to the caller (a streamed file's anchor may come after its timeline).
fn check_entry<'a>(
    mut parts: Parts<'a>,
    index: usize,
    prev: Option<&str>,
    hasher: &mut EntryHasher,
    signed: bool,
) -> Result<&'a str, TamperKind> {
    use TamperKind as K;
    let hash = hash_field(parts.hash, K::MissingHash, K::MalformedHash)?;
    let prev_hash = hash_field(parts.prev_hash, K::MissingPrevHash, K::MalformedPrevHash)?;
    if let Some(prev) = prev
        && prev_hash != prev
    {
        return Err(link_error(index, prev, prev_hash));
    }
    hasher
        .load_members(&mut parts.members)
        .map_err(K::Unhashable)?;
    if hash.strip_prefix(HASH_PREFIX).map(str::as_bytes) != Some(&hasher.hash_hex()[..]) {
        return Err(K::HashMismatch);
    }
    if signed {
        let tag = match parts.signature {
            None => return Err(K::MissingSignature),
            Some(Value::String(s)) => s
                .strip_prefix(SIGNATURE_PREFIX)
                .and_then(decode_lower_hex_32)
                .ok_or(K::MalformedSignature)?,
            Some(_) => return Err(K::MalformedSignature),
        };
        if !hasher.signature_matches(&tag) {
            return Err(K::BadSignature);
        }
    }
    Ok(hash)
}

fn link_error(index: usize, expected: &str, found: &str) -> TamperKind {
    let (expected, found) = (expected.to_owned(), found.to_owned());
    match index {
        0 => TamperKind::BadFirstLink { expected, found },
        _ => TamperKind::BrokenLink { expected, found },
    }
}

fn hash_field(
    value: Option<&Value>,
    missing: TamperKind,
    malformed: TamperKind,
) -> Result<&str, TamperKind> {
    match value {
        None => Err(missing),
        Some(Value::String(s)) if is_hash(s) => Ok(s),
        Some(_) => Err(malformed),
    }
}

fn whole(kind: TamperKind) -> Tamper {
    Tamper {
        index: None,
        id: None,
        kind,
    }
}

fn at(index: usize, id: Option<&str>, kind: TamperKind) -> Tamper {
    Tamper {
        index: Some(index),
        id: id.map(printable),
        kind,
    }
}

/// An id from the file, safe for logs and `::error::` lines: it may be huge or hold
/// newlines, bidi overrides or zero-width characters meant to mislead the reader.
fn printable(id: &str) -> String {
    const MAX: usize = 64;
    let mut out: String = id.chars().take(MAX).flat_map(char::escape_debug).collect();
    if id.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

/// "entry 17 (id …): ", unless the kind names its own place.
fn location(index: Option<usize>, id: Option<&str>, kind: &TamperKind) -> String {
    if matches!(kind, TamperKind::DuplicateMember { .. }) {
        return String::new();
    }
    match (index, id) {
        (Some(i), Some(id)) => format!("entry {i} (id {id}): "),
        (Some(i), None) => format!("entry {i}: "),
        (None, _) => String::new(),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
