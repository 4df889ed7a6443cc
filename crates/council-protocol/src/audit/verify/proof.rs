//! Proving a file that leaves its oldest entries out (`timeline_omitted`) with earlier
//! audit files that hold them.
//!
//! A partial file checks its first entry against `timeline_omitted.head_hash`, a value it
//! carries itself: dropping the oldest entries and writing their last hash there yields a
//! file that verifies. So such a file proves only its own entries; the ones it leaves out
//! are proven by earlier files, by this rule:
//!
//! 1. Every file verifies on its own ([`super::verify_reader`], with the same key).
//! 2. Entry `i` of a file that omits `count` entries is at position `count + i` of the
//!    history (a complete file starts at 0).
//! 3. A file that omits `count` entries is continued back by a given earlier file that
//!    holds position `count - 1` with `hash == head_hash`. Each hash covers the
//!    `prev_hash` before it, so that one match proves every entry before it, as that
//!    earlier file has it. The earlier file may itself be partial and be continued by a
//!    still earlier one; the history is proven once a complete file is reached. When
//!    several files hold the position, the one that reaches furthest back is taken.
//! 4. Every file (used or not) agrees with that history wherever both hold a position:
//!    same `hash`. A difference is a rewritten history (a fork), or a file of another
//!    pull request.
//! 5. No `id` appears twice in the history: one decision is recorded once, across files
//!    as within one.
//!
//! What is left unproven (the history does not reach position 0) is reported as
//! [`Proof::trusted`], for the caller to refuse or, when asked, accept.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ops::Range;

use serde::Serialize;
use thiserror::Error;

use super::{EntryFacts, VerifiedDocument, printable};
use crate::audit::chain::{HASH_PREFIX, decode_lower_hex_32};

/// Entries `entries` of `files[file]`, one stretch of the proven history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub file: usize,
    pub entries: Range<usize>,
}

/// The history [`prove`] could establish, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// From the oldest proven stretch to the newest file's last entry.
    pub segments: Vec<Segment>,
    /// Entries before the oldest proven stretch, held by no given file: 0 when the
    /// history is proven from its first entry.
    pub trusted: u64,
}

impl Proof {
    /// The file whose `timeline_omitted` no given file proves, when [`Self::trusted`] > 0.
    pub fn unproven_file(&self) -> Option<usize> {
        (self.trusted > 0)
            .then(|| self.segments.first().map(|s| s.file))
            .flatten()
    }

    /// The facts of every proven entry, oldest first (`files` as given to [`prove`]).
    pub fn facts<'a>(
        &'a self,
        files: &'a [VerifiedDocument],
    ) -> impl Iterator<Item = &'a EntryFacts> + 'a {
        self.segments
            .iter()
            .flat_map(move |s| files[s.file].facts[s.entries.clone()].iter())
    }

    /// How many of the proven entries come from files other than `files[0]`.
    pub fn earlier_entries(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| s.file != 0)
            .map(|s| s.entries.len())
            .sum()
    }
}

/// Files that contradict each other. Files are named by their index in [`prove`]'s input;
/// [`ProofError::describe`] names them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProofError {
    #[error(
        "file {file} entry {index} and file {other} entry {other_index} are both at position {position} of the history but differ"
    )]
    Fork {
        file: usize,
        index: usize,
        other: usize,
        other_index: usize,
        position: u64,
    },
    #[error("file {file} entry {index} has the same id as file {first_file} entry {first_index}")]
    DuplicateId {
        file: usize,
        index: usize,
        first_file: usize,
        first_index: usize,
        id: String,
    },
}

impl ProofError {
    /// The message with the files' names (`names[i]` for `files[i]`).
    pub fn describe(&self, names: &[&str]) -> String {
        let name = |i: usize| names.get(i).copied().unwrap_or("?");
        match self {
            ProofError::Fork {
                file,
                index,
                other,
                other_index,
                position,
            } => format!(
                "{} entry {index} and {} entry {other_index} are both entry {position} of the history but differ: \
                 the history was rewritten, or the files are not of the same pull request",
                name(*file),
                name(*other),
            ),
            ProofError::DuplicateId {
                file,
                index,
                first_file,
                first_index,
                id,
            } => format!(
                "{} entry {index} (id {id}) has the same id as {} entry {first_index}: one decision is recorded twice",
                name(*file),
                name(*first_file),
            ),
        }
    }
}

/// Establishes the history of `files[0]` (the newest file) from `files[1..]` (earlier
/// files), each already verified on its own. See the module docs for the rule.
pub fn prove(files: &[VerifiedDocument]) -> Result<Proof, ProofError> {
    let Some(newest) = files.first() else {
        return Ok(Proof {
            segments: Vec::new(),
            trusted: 0,
        });
    };
    let mut segments = Vec::new();
    let mut used = vec![false; files.len()];
    used[0] = true;
    let (mut current, mut end) = (0, end_of(newest));
    let trusted = loop {
        let file = &files[current];
        let start = file.first_position();
        segments.push(Segment {
            file: current,
            entries: 0..len(start, end),
        });
        let Some(omitted) = &file.omitted else {
            break 0;
        };
        let anchor = omitted
            .head_hash
            .strip_prefix(HASH_PREFIX)
            .and_then(decode_lower_hex_32);
        let target = start - 1; // start = count >= 1
        let next = files
            .iter()
            .enumerate()
            .filter(|&(j, earlier)| {
                !used[j] && anchor.is_some() && hash_at(earlier, target) == anchor.as_ref()
            })
            .min_by_key(|(_, earlier)| earlier.first_position());
        match next {
            Some((j, _)) => {
                used[j] = true;
                (current, end) = (j, start);
            }
            None => break start,
        }
    };
    segments.reverse();
    let proof = Proof { segments, trusted };
    agree(files, &proof)?;
    unique_ids(files, &proof)?;
    Ok(proof)
}

fn end_of(file: &VerifiedDocument) -> u64 {
    file.first_position()
        .saturating_add(file.hashes.len() as u64)
}

/// Entries of a file starting at `start` that lie before `end`.
fn len(start: u64, end: u64) -> usize {
    usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX)
}

fn hash_at(file: &VerifiedDocument, position: u64) -> Option<&[u8; 32]> {
    let index = position.checked_sub(file.first_position())?;
    file.hashes.get(usize::try_from(index).ok()?)
}

/// Rule 4: every file holds the history's hash at every position both hold.
fn agree(files: &[VerifiedDocument], proof: &Proof) -> Result<(), ProofError> {
    for (j, file) in files.iter().enumerate() {
        let start = file.first_position();
        for segment in &proof.segments {
            let other = &files[segment.file];
            let other_start = other.first_position();
            // Positions both hold: [from, to).
            let from = start.max(other_start);
            let to = end_of(file).min(other_start.saturating_add(segment.entries.len() as u64));
            let mut position = from;
            while position < to {
                let (index, other_index) = (len(start, position), len(other_start, position));
                if file.hashes[index] != other.hashes[other_index] {
                    return Err(ProofError::Fork {
                        file: j,
                        index,
                        other: segment.file,
                        other_index,
                        position,
                    });
                }
                position += 1;
            }
        }
    }
    Ok(())
}

/// Rule 5, across the files of the history (each file has no duplicate on its own).
fn unique_ids(files: &[VerifiedDocument], proof: &Proof) -> Result<(), ProofError> {
    if proof.segments.len() < 2 {
        return Ok(());
    }
    let mut seen: HashMap<&str, (usize, usize)> = HashMap::new();
    for segment in &proof.segments {
        let facts = &files[segment.file].facts[segment.entries.clone()];
        for (i, facts) in facts.iter().enumerate() {
            let index = segment.entries.start + i;
            let Some(id) = facts.id.as_deref() else {
                continue;
            };
            match seen.entry(id) {
                Entry::Vacant(slot) => {
                    slot.insert((segment.file, index));
                }
                Entry::Occupied(first) => {
                    let (first_file, first_index) = *first.get();
                    return Err(ProofError::DuplicateId {
                        file: segment.file,
                        index,
                        first_file,
                        first_index,
                        id: printable(id),
                    });
                }
            }
        }
    }
    Ok(())
}
