//! The hash chain over timeline entries (SPEC.md, "Context Object").
//!
//! canonical form = the entry without `hash` and `signature`, as RFC 8785 JSON;
//! `hash` = "sha256:" + hex SHA-256(canonical form); `prev_hash` = the previous entry's
//! `hash`, or [`ZERO_HASH`] for the first; `signature` = "hmac-sha256:" +
//! hex HMAC-SHA256(key, canonical form). `prev_hash` is inside the canonical form, so
//! the hash and the signature both cover the link. Fields this version does not know
//! are hashed like any other, so entries written by newer versions still verify.

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::canonical::{self, CanonError};

pub const HASH_PREFIX: &str = "sha256:";
pub const SIGNATURE_PREFIX: &str = "hmac-sha256:";
/// `prev_hash` of the first entry of a timeline.
pub const ZERO_HASH: &str =
    "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// Top-level entry fields left out of the canonical form.
const UNHASHED: [&str; 2] = ["hash", "signature"];
const HEX: &[u8; 16] = b"0123456789abcdef";

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EntryError {
    #[error("it cannot be hashed: {0}")]
    Canonical(#[from] CanonError),
    /// HMAC accepts keys of any length, so this is not expected to happen.
    #[error("the HMAC key was rejected")]
    KeyRejected,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChainError {
    #[error("timeline entry {index}: {source}")]
    Entry {
        index: usize,
        #[source]
        source: EntryError,
    },
    #[error(
        "timeline entry {index} has no well-formed \"hash\", so the entries after it cannot be linked to it"
    )]
    PrevUnsealed { index: usize },
    #[error("the anchor is not of the form sha256:<64 lowercase hex digits>")]
    BadAnchor,
}

/// The canonical form of `entry`: the bytes that are hashed and signed.
pub fn canonical_form(entry: &Map<String, Value>) -> Result<String, CanonError> {
    let mut out = String::new();
    canonical::write_object_without(&mut out, entry, &UNHASHED)?;
    Ok(out)
}

/// `"sha256:" + hex` of the entry's canonical form (its stored `hash` is ignored).
pub fn entry_hash(entry: &Map<String, Value>) -> Result<String, EntryError> {
    let mut hasher = EntryHasher::new(None)?;
    hasher.load(entry)?;
    Ok(hasher.hash())
}

/// `"hmac-sha256:" + hex` of the entry's canonical form under `key`.
pub fn entry_signature(entry: &Map<String, Value>, key: &[u8]) -> Result<String, EntryError> {
    let mut hasher = EntryHasher::new(Some(key))?;
    hasher.load(entry)?;
    Ok(hasher.signature().unwrap_or_default())
}

/// Whether `s` is `"sha256:"` followed by exactly 64 lowercase hex digits.
pub fn is_hash(s: &str) -> bool {
    s.strip_prefix(HASH_PREFIX)
        .and_then(decode_lower_hex_32)
        .is_some()
}

/// Value of each lowercase hex digit; 0xFF for every other byte.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0xFFu8; 256];
    let mut i = 0;
    while i < 16 {
        table[HEX[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// Decodes exactly 64 lowercase hex digits; anything else is `None`.
pub(super) fn decode_lower_hex_32(s: &str) -> Option<[u8; 32]> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let (hi, lo) = (
            HEX_VALUE[usize::from(pair[0])],
            HEX_VALUE[usize::from(pair[1])],
        );
        if (hi | lo) > 0xF {
            return None;
        }
        *o = hi << 4 | lo;
    }
    Some(out)
}

/// One pass over an entry: the members that are hashed (all but [`UNHASHED`]), and the
/// fields verify reads, so that no key is looked up twice.
pub(super) struct Parts<'a> {
    pub members: Vec<(&'a String, &'a Value)>,
    pub hash: Option<&'a Value>,
    pub prev_hash: Option<&'a Value>,
    pub signature: Option<&'a Value>,
    pub id: Option<&'a Value>,
}

pub(super) fn split(entry: &Map<String, Value>) -> Parts<'_> {
    let mut parts = Parts {
        members: Vec::with_capacity(entry.len()),
        hash: None,
        prev_hash: None,
        signature: None,
        id: None,
    };
    for (key, value) in entry {
        match key.as_str() {
            "hash" => parts.hash = Some(value),
            "signature" => parts.signature = Some(value),
            other => {
                match other {
                    "prev_hash" => parts.prev_hash = Some(value),
                    "id" => parts.id = Some(value),
                    _ => {}
                }
                parts.members.push((key, value));
            }
        }
    }
    parts
}

/// (Re)computes `prev_hash`, `hash` and `signature` of the entries from index `from` on,
/// linking the first of them to the stored `hash` of entry `from - 1` (or to
/// [`ZERO_HASH`]). Entries before `from` are not touched. Without a key any stale
/// `signature` is removed, since it could no longer match.
///
/// On error, entries `from..index` are sealed and the rest are as they were.
pub fn seal(
    timeline: &mut [Map<String, Value>],
    from: usize,
    key: Option<&[u8]>,
) -> Result<(), ChainError> {
    seal_tail(timeline, from, ZERO_HASH, key)
}

/// [`seal`] for a kept tail of a longer timeline: entry 0 links to `anchor_prev_hash`
/// (the `hash` of the last entry that was cut off) instead of [`ZERO_HASH`].
pub fn seal_tail(
    timeline: &mut [Map<String, Value>],
    from: usize,
    anchor_prev_hash: &str,
    key: Option<&[u8]>,
) -> Result<(), ChainError> {
    if !is_hash(anchor_prev_hash) {
        return Err(ChainError::BadAnchor);
    }
    if from >= timeline.len() {
        return Ok(());
    }
    let mut prev = match from.checked_sub(1) {
        None => anchor_prev_hash.to_owned(),
        Some(p) => match timeline[p].get("hash").and_then(Value::as_str) {
            Some(h) if is_hash(h) => h.to_owned(),
            _ => return Err(ChainError::PrevUnsealed { index: p }),
        },
    };
    let mut hasher = EntryHasher::new(key).map_err(|source| ChainError::Entry {
        index: from,
        source,
    })?;
    for (index, entry) in timeline.iter_mut().enumerate().skip(from) {
        let old_prev = entry.insert("prev_hash".to_owned(), Value::String(prev));
        if let Err(e) = hasher.load(entry) {
            // Leave the failing entry exactly as it was.
            match old_prev {
                Some(v) => entry.insert("prev_hash".to_owned(), v),
                None => entry.shift_remove("prev_hash"),
            };
            return Err(ChainError::Entry {
                index,
                source: e.into(),
            });
        }
        let hash = hasher.hash();
        // shift_remove, not remove: with preserve_order, remove would swap keys around.
        entry.shift_remove("hash");
        entry.shift_remove("signature");
        entry.insert("hash".to_owned(), Value::String(hash.clone()));
        if let Some(signature) = hasher.signature() {
            entry.insert("signature".to_owned(), Value::String(signature));
        }
        prev = hash;
    }
    Ok(())
}

/// Hashes many entries with one reused canonical-form buffer and one keyed MAC state.
/// Deliberately not `Debug`: it holds key material.
pub(super) struct EntryHasher {
    buf: String,
    mac: Option<Hmac<Sha256>>,
}

impl EntryHasher {
    pub(super) fn new(key: Option<&[u8]>) -> Result<Self, EntryError> {
        let mac = match key {
            Some(k) => Some(
                <Hmac<Sha256> as KeyInit>::new_from_slice(k)
                    .map_err(|_| EntryError::KeyRejected)?,
            ),
            None => None,
        };
        Ok(Self {
            buf: String::with_capacity(512),
            mac,
        })
    }

    /// Puts the canonical form of `entry` into the buffer for the calls below.
    pub(super) fn load(&mut self, entry: &Map<String, Value>) -> Result<(), CanonError> {
        self.buf.clear();
        canonical::write_object_without(&mut self.buf, entry, &UNHASHED)
    }

    /// Puts the canonical form of the given members (see [`split`]) into the buffer.
    pub(super) fn load_members(
        &mut self,
        members: &mut [(&String, &Value)],
    ) -> Result<(), CanonError> {
        self.buf.clear();
        canonical::write_object_members(&mut self.buf, members)
    }

    pub(super) fn hash_hex(&self) -> [u8; 64] {
        to_hex(&Sha256::digest(self.buf.as_bytes()))
    }

    pub(super) fn hash(&self) -> String {
        prefixed(HASH_PREFIX, &self.hash_hex())
    }

    pub(super) fn signature(&self) -> Option<String> {
        let mut mac = self.mac.clone()?;
        mac.update(self.buf.as_bytes());
        Some(prefixed(
            SIGNATURE_PREFIX,
            &to_hex(&mac.finalize().into_bytes()),
        ))
    }

    /// Constant-time comparison of a raw tag; false without a key.
    pub(super) fn signature_matches(&self, tag: &[u8]) -> bool {
        self.mac.clone().is_some_and(|mut mac| {
            mac.update(self.buf.as_bytes());
            mac.verify_slice(tag).is_ok()
        })
    }
}

fn to_hex(bytes: &[u8]) -> [u8; 64] {
    let mut out = [b'0'; 64];
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 0xF)];
    }
    out
}

fn prefixed(prefix: &str, hex: &[u8; 64]) -> String {
    let mut s = String::with_capacity(prefix.len() + hex.len());
    s.push_str(prefix);
    s.extend(hex.iter().map(|&b| char::from(b)));
    s
}
