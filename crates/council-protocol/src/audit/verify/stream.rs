//! Verifying an audit file as a stream: serde_json's `Deserializer` over a reader drives
//! our own visitors, so each timeline entry is parsed, hashed, linked and
//! signature-checked, its small facts kept, and then dropped. Memory follows the largest
//! entry and the per-entry facts, never the whole document.
//!
//! Parsing into `serde_json::Value` first would hide tampering: `Value` keeps the last of
//! two members with the same name (a reader could be shown one value while the hash covers
//! another), and `from_slice` stops at the first problem without saying whether the file
//! was cut short or had data appended. Here every object at every depth is read by a
//! visitor that refuses duplicate names, and the end of the file is checked apart.
//!
//! Which failures are which (the CLI maps [`TamperKind::is_bad_input`] to exit 2):
//! - no JSON document at all (empty, or the first non-blank byte is not `{` or `[`):
//!   [`TamperKind::NotJson`], bad input: it is the wrong file, not a damaged audit file;
//! - a complete JSON document without a `timeline` array: [`TamperKind::NotADocument`],
//!   bad input, as before;
//! - anything else that starts as a document but breaks (cut short, not well-formed,
//!   followed by more data, duplicate names, a malformed `timeline_omitted`) is tampering:
//!   the product always writes one complete, well-formed document.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::json::{CheckSeed, Step, Stop, ValueSeed, duplicate, within};

use super::{
    COUNT_TOO_LARGE, EntryFacts, MAX_ENTRIES, Omission, Tamper, TamperKind, VerifiedDocument,
    VerifyReport, at, check_entry, link_error, printable, type_name, whole,
};
use crate::audit::chain::{
    EntryHasher, HASH_PREFIX, ZERO_HASH, decode_lower_hex_32, is_hash, split,
};

/// Why a file could not be verified.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The bytes could not be read: nothing can be said about the file.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The first problem found (tampering, or bad input: see [`TamperKind::is_bad_input`]).
    #[error("{0}")]
    Invalid(#[from] Tamper),
}

/// Verifies the audit file read from `reader` (a Context Object, or a bare timeline array
/// from the zero hash) without holding it in memory.
///
/// Succeeds when the file is one complete, well-formed JSON document without duplicate
/// member names, whose timeline chains from its anchor (the zero hash, or
/// `timeline_omitted.head_hash`) with valid hashes, signatures when a key is given, and
/// no id twice. A file with `timeline_omitted` is then verified but not yet proven: see
/// [`super::prove`].
///
/// The first problem is the one a reader of the whole file would name first: entries in
/// order (each as in [`super::verify_tail`]), then the document's own problems. Because
/// `timeline_omitted` may come after the timeline, the first entry's link to the anchor is
/// checked once the document is read, and the entries after a bad one are still parsed
/// (not hashed) to find that anchor.
pub fn verify_reader<R: BufRead>(
    mut reader: R,
    key: Option<&[u8]>,
) -> Result<VerifiedDocument, StreamError> {
    let skipped_lines = match first_byte(&mut reader)? {
        (None, _) => return Err(not_json("the file is empty").into()),
        (Some(b'{' | b'['), lines) => lines,
        (Some(b), _) => {
            let found = match b {
                0x20..=0x7E => format!("it starts with `{}`", char::from(b)),
                _ => format!("it starts with the byte 0x{b:02x}"),
            };
            return Err(not_json(&found).into());
        }
    };
    let hasher = EntryHasher::new(key).map_err(|_| whole(TamperKind::KeyRejected))?;
    let mut pass = Pass::new(hasher, key.is_some());
    let mut doc = Document::default();
    let mut de = serde_json::Deserializer::from_reader(reader);
    let ending = match (DocumentSeed {
        pass: &mut pass,
        doc: &mut doc,
    })
    .deserialize(&mut de)
    {
        Ok(()) => de.end().err().map(Ending::After),
        Err(e) => Some(Ending::Inside(e)),
    };
    pass.finish(doc, ending, skipped_lines)
}

fn not_json(found: &str) -> Tamper {
    whole(TamperKind::NotJson {
        found: found.to_owned(),
    })
}

/// The first byte that is not JSON whitespace, and how many lines came before it. Peeks:
/// the byte stays in the reader for the parser.
fn first_byte<R: BufRead>(reader: &mut R) -> io::Result<(Option<u8>, usize)> {
    let mut lines = 0;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((None, lines));
        }
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        if let Some(&b) = buf.iter().find(|b| !blank(b)) {
            return Ok((Some(b), lines));
        }
        // A whole buffer of blanks (rare): consume it, and count its lines so that
        // positions reported later still match the file.
        lines += buf.iter().filter(|&&b| b == b'\n').count();
        let n = buf.len();
        reader.consume(n);
    }
}

/// How the parse ended, when not cleanly.
enum Ending {
    /// The document itself did not parse (or a visitor stopped it).
    Inside(serde_json::Error),
    /// The document parsed, but more than whitespace follows it.
    After(serde_json::Error),
}

/// What the top level holds besides the timeline.
#[derive(Default)]
struct Document {
    /// A bare timeline array rather than a Context Object.
    bare: bool,
    timeline: bool,
    omitted: Option<Value>,
    state: Option<Value>,
    gates: Option<Value>,
    head: Option<Value>,
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", printable(name))
}

/// The state of one pass over the timeline.
struct Pass {
    hasher: EntryHasher,
    signed: bool,
    /// `hash` of the previous entry (entry 0 is linked in [`Pass::finish`]).
    prev: String,
    /// Entry 0's well-formed `prev_hash` and printable id: linked once the anchor is known.
    first_link: Option<(String, Option<String>)>,
    hashes: Vec<[u8; 32]>,
    facts: Vec<EntryFacts>,
    /// Shares the id strings with `facts`: one copy of each id.
    ids: HashMap<Arc<str>, usize>,
    /// Agent, action, result, SHA and run id repeat across entries: one copy each.
    strings: HashSet<Arc<str>>,
    /// The first bad entry; the entries after it are only parsed.
    entry_error: Option<Tamper>,
    stop: Option<Stop>,
}

impl Pass {
    fn new(hasher: EntryHasher, signed: bool) -> Pass {
        Pass {
            hasher,
            signed,
            prev: String::with_capacity(HASH_PREFIX.len() + 64),
            first_link: None,
            hashes: Vec::new(),
            facts: Vec::new(),
            ids: HashMap::new(),
            strings: HashSet::new(),
            entry_error: None,
            stop: None,
        }
    }

    /// Checks entry `index` (as `verify_tail` does, but leaving entry 0's link for
    /// later) and keeps its facts.
    fn entry(&mut self, index: usize, value: &Value) {
        let Value::Object(entry) = value else {
            let found = type_name(value);
            self.entry_error = Some(at(index, None, TamperKind::NotAnObject { found }));
            return;
        };
        let parts = split(entry);
        let id = parts.id.and_then(Value::as_str);
        if index == 0
            && let Some(prev_hash) = parts.prev_hash.and_then(Value::as_str)
            && is_hash(prev_hash)
        {
            self.first_link = Some((prev_hash.to_owned(), id.map(printable)));
        }
        let prev = (index > 0).then_some(self.prev.as_str());
        let hash = match check_entry(parts, index, prev, &mut self.hasher, self.signed) {
            Ok(hash) => hash,
            Err(kind) => {
                self.entry_error = Some(at(index, id, kind));
                return;
            }
        };
        let id = match id {
            None => None,
            Some(id) => {
                if let Some(&first) = self.ids.get(id) {
                    let kind = TamperKind::DuplicateId { first };
                    self.entry_error = Some(at(index, Some(id), kind));
                    return;
                }
                let id: Arc<str> = Arc::from(id);
                self.ids.insert(Arc::clone(&id), index);
                Some(id)
            }
        };
        // check_entry accepted the hash, so it decodes.
        let decoded = hash
            .strip_prefix(HASH_PREFIX)
            .and_then(decode_lower_hex_32)
            .unwrap_or_default();
        self.hashes.push(decoded);
        self.prev.clear();
        self.prev.push_str(hash);
        let mut text = |name: &str| {
            let s = entry.get(name).and_then(Value::as_str)?;
            Some(intern(&mut self.strings, s))
        };
        let facts = EntryFacts {
            id,
            agent: text("agent"),
            action: text("action"),
            result: text("result"),
            sha: text("sha"),
            run_id: text("run_id"),
            run_attempt: entry.get("run_attempt").and_then(Value::as_u64),
        };
        self.facts.push(facts);
    }

    fn finish(
        self,
        doc: Document,
        ending: Option<Ending>,
        skipped_lines: usize,
    ) -> Result<VerifiedDocument, StreamError> {
        let omission = doc.omitted.as_ref().map(omission);
        // The anchor is known for a bare timeline, from a well-formed `timeline_omitted`,
        // or from its absence in a document read to its end.
        let anchor = match (&omission, doc.bare) {
            (_, true) => Some(ZERO_HASH.to_owned()),
            (Some(Ok(o)), _) => Some(o.head_hash.clone()),
            (Some(Err(_)), _) => None,
            (None, _) if ending.is_none() => Some(ZERO_HASH.to_owned()),
            (None, _) => None,
        };
        let link = match (&self.first_link, &anchor) {
            (Some((found, id)), Some(anchor)) if found != anchor => Some(Tamper {
                index: Some(0),
                id: id.clone(),
                kind: link_error(0, anchor, found),
            }),
            _ => None,
        };
        // Entries first, in order; at entry 0 the link ranks after the shape checks.
        let first_bad_entry = match (self.entry_error, link) {
            (Some(e), Some(_)) if e.index == Some(0) && e.kind.precedes_link() => Some(e),
            (_, Some(link)) => Some(link),
            (e, None) => e,
        };
        if let Some(tamper) = first_bad_entry {
            return Err(tamper.into());
        }
        if let Some(ending) = ending {
            return Err(match self.stop {
                Some(Stop::Duplicate { name, path }) => duplicate_tamper(name, path).into(),
                Some(Stop::Shape) => whole(TamperKind::NotADocument).into(),
                None => classify(ending, skipped_lines),
            });
        }
        if !doc.timeline {
            return Err(whole(TamperKind::NotADocument).into());
        }
        let omitted = omission.transpose().map_err(whole)?;
        let head_hash = match (self.hashes.is_empty(), anchor) {
            (false, _) => self.prev,
            (true, anchor) => anchor.unwrap_or_else(|| ZERO_HASH.to_owned()),
        };
        Ok(VerifiedDocument {
            report: VerifyReport {
                entries: self.facts.len(),
                signatures_checked: self.signed,
                head_hash,
            },
            omitted,
            facts: self.facts,
            stored_state: doc.state,
            stored_gates: doc.gates,
            stored_head: doc.head,
            hashes: self.hashes,
        })
    }
}

fn intern(strings: &mut HashSet<Arc<str>>, s: &str) -> Arc<str> {
    if let Some(shared) = strings.get(s) {
        return Arc::clone(shared);
    }
    let shared: Arc<str> = Arc::from(s);
    strings.insert(Arc::clone(&shared));
    shared
}

/// `timeline_omitted` as the product writes it: `{"count": n >= 1, "head_hash": hash}`.
/// Other members are allowed (newer versions may add some).
fn omission(value: &Value) -> Result<Omission, TamperKind> {
    let bad = |why| TamperKind::BadOmitted { why };
    let Value::Object(map) = value else {
        return Err(bad("it is not an object"));
    };
    let count = match map.get("count").map(Value::as_u64) {
        Some(Some(0)) => return Err(bad("\"count\" is 0")),
        Some(Some(n)) if n > MAX_ENTRIES => return Err(bad(COUNT_TOO_LARGE)),
        Some(Some(n)) => n,
        _ => return Err(bad("\"count\" is missing or not a whole number")),
    };
    match map.get("head_hash").and_then(Value::as_str) {
        Some(h) if is_hash(h) => Ok(Omission {
            count,
            head_hash: h.to_owned(),
        }),
        _ => Err(bad("\"head_hash\" is missing or malformed")),
    }
}

fn duplicate_tamper(name: String, mut path: Vec<Step>) -> Tamper {
    path.reverse();
    // Inside the timeline: `timeline[i]…` in a Context Object, `[i]…` in a bare array.
    let index = match path.as_slice() {
        [Step::Key(k), Step::Index(i), ..] if k == "timeline" => Some(*i),
        [Step::Index(i), ..] => Some(*i),
        _ => None,
    };
    Tamper {
        index,
        id: None,
        kind: TamperKind::DuplicateMember {
            path: shown_path(&path),
            name: quoted(&name),
        },
    }
}

/// `timeline[17].details["odd key"][2]`, like a jq path without its leading dot.
fn shown_path(path: &[Step]) -> String {
    if path.is_empty() {
        return "the top-level object".to_owned();
    }
    let mut out = String::new();
    for step in path {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(k) if is_plain_name(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Key(k) => out.push_str(&format!("[{}]", quoted(k))),
        }
    }
    out
}

fn is_plain_name(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn classify(ending: Ending, skipped_lines: usize) -> StreamError {
    use serde_json::error::Category;
    let (e, after) = match ending {
        Ending::Inside(e) => (e, false),
        Ending::After(e) => (e, true),
    };
    let (line, column) = (e.line() + skipped_lines, e.column());
    let kind = match e.classify() {
        Category::Io => return StreamError::Io(e.into()),
        _ if after => TamperKind::TrailingData { line, column },
        Category::Eof => TamperKind::Truncated { line, column },
        Category::Syntax | Category::Data => {
            let message = e.to_string();
            let detail = match message.rsplit_once(" at line ") {
                Some((detail, _)) => detail,
                None => &message,
            };
            TamperKind::Malformed {
                detail: format!("{detail} at line {line}, column {column}"),
            }
        }
    };
    whole(kind).into()
}

/// The top level: a Context Object, or a bare timeline array.
struct DocumentSeed<'p> {
    pass: &'p mut Pass,
    doc: &'p mut Document,
}

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Context Object or a timeline array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.doc.bare = true;
        self.doc.timeline = true;
        timeline(self.pass, seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (pass, doc) = (self.pass, self.doc);
        let mut names: HashSet<String> = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            if names.contains(&name) {
                return Err(duplicate(&mut pass.stop, name));
            }
            let read = match name.as_str() {
                "timeline" => {
                    doc.timeline = true;
                    map.next_value_seed(TimelineSeed { pass: &mut *pass })
                }
                "timeline_omitted" | "state" | "gates" | "chain_head" => {
                    let slot = match name.as_str() {
                        "timeline_omitted" => &mut doc.omitted,
                        "state" => &mut doc.state,
                        "chain_head" => &mut doc.head,
                        _ => &mut doc.gates,
                    };
                    map.next_value_seed(ValueSeed {
                        stop: &mut pass.stop,
                        members: 0,
                    })
                    .map(|value| *slot = Some(value))
                }
                _ => map.next_value_seed(CheckSeed {
                    stop: &mut pass.stop,
                }),
            };
            if let Err(e) = read {
                within(&mut pass.stop, Step::Key(name));
                return Err(e);
            }
            names.insert(name);
        }
        Ok(())
    }
}

/// Streams the entries of a timeline array.
fn timeline<'de, A: SeqAccess<'de>>(pass: &mut Pass, mut seq: A) -> Result<(), A::Error> {
    let mut index = 0;
    loop {
        match seq.next_element_seed(EntrySeed {
            pass: &mut *pass,
            index,
        }) {
            Ok(Some(())) => index += 1,
            Ok(None) => return Ok(()),
            Err(e) => {
                within(&mut pass.stop, Step::Index(index));
                return Err(e);
            }
        }
    }
}

struct TimelineSeed<'p> {
    pass: &'p mut Pass,
}

impl TimelineSeed<'_> {
    fn not_an_array<E: de::Error>(self) -> Result<(), E> {
        self.pass.stop = Some(Stop::Shape);
        Err(E::custom("\"timeline\" is not an array"))
    }
}

impl<'de> DeserializeSeed<'de> for TimelineSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TimelineSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a timeline array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        timeline(self.pass, seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.not_an_array()
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.not_an_array()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.not_an_array()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.not_an_array()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_array()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_array()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.not_an_array()
    }
}

/// One timeline entry: built as a `Value` (its canonical form needs every member),
/// checked, reduced to its facts, and dropped.
struct EntrySeed<'p> {
    pass: &'p mut Pass,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.pass.entry_error.is_some() {
            // Already failed: read on only to find `timeline_omitted` (see verify_reader).
            d.deserialize_ignored_any(IgnoredAny)?;
            return Ok(());
        }
        let value = ValueSeed {
            stop: &mut self.pass.stop,
            members: ENTRY_MEMBERS,
        }
        .deserialize(d)?;
        self.pass.entry(self.index, &value);
        Ok(())
    }
}

/// Room for the members of an entry as the product writes it (12 with a signature).
/// Sized up front, the member table of each entry stays a small allocation: grown by
/// doubling it would reach 16 slots, over 1 KiB, a size at which glibc's malloc sweeps
/// the small chunks the previous entry freed, once per entry.
const ENTRY_MEMBERS: usize = 15;
