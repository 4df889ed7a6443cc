//! Which entries of an offered object may be added: pure, from the stored hashes around
//! the object's positions. The store never merges two chains: any disagreement refuses
//! the whole object.

use std::collections::BTreeMap;

use council_protocol::audit::Entry;

/// What one object may add, decided against the stored hashes around its positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Indexes into the offered timeline of entries the store lacks.
    pub new: Vec<usize>,
    pub known: usize,
    pub conflict: Option<Conflict>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub position: u64,
    pub entry_id: String,
    pub stored_hash: String,
    pub offered_hash: String,
    pub problem: String,
}

/// A stored entry's `hash` and `prev_hash`, by position.
pub(crate) type Around = BTreeMap<u64, (String, String)>;

/// Entries at `first + i` are added where the store has no entry; an entry the store has
/// must be the same (same hash), and a new entry must link to a stored neighbour on
/// either side. Any disagreement refuses the whole object: two chains are never merged.
pub(crate) fn plan(first: u64, offered: &[Entry], stored: &Around) -> Plan {
    let mut out = Plan {
        new: Vec::new(),
        known: 0,
        conflict: None,
    };
    let conflict = |position: u64, e: &Entry, stored_hash: &str, problem: String| Conflict {
        position,
        entry_id: e.id.clone(),
        stored_hash: stored_hash.to_string(),
        offered_hash: e.hash.clone(),
        problem,
    };
    for (i, e) in offered.iter().enumerate() {
        let position = first + i as u64;
        if let Some((hash, _)) = stored.get(&position) {
            if *hash == e.hash {
                out.known += 1;
                continue;
            }
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "entry {position} differs from the stored entry {position}: the stored chain \
                     has {hash}, this object {}; {}",
                    e.hash,
                    if position == 0 && e.action == "action:ledger-reset" {
                        "this object is a new chain (a ledger reset) for a pull request whose \
                         earlier chain is stored"
                    } else {
                        "one of the two was rewritten"
                    }
                ),
            ));
            break;
        }
        // The previous position is stored but was not offered: the new entry must link to it.
        if i == 0
            && let Some(before) = position.checked_sub(1)
            && let Some((hash, _)) = stored.get(&before)
            && e.prev_hash != *hash
        {
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "entry {position} links to {}, but the stored entry {before} is {hash}: \
                     this object does not continue the stored chain",
                    e.prev_hash
                ),
            ));
            break;
        }
        // The next position is stored and not offered: it must link to this one.
        if i + 1 == offered.len()
            && let Some((hash, prev)) = stored.get(&(position + 1))
            && *prev != e.hash
        {
            out.conflict = Some(conflict(
                position,
                e,
                hash,
                format!(
                    "the stored entry {} links to {prev}, but this object's entry {position} is \
                     {}: the two chains disagree",
                    position + 1,
                    e.hash
                ),
            ));
            break;
        }
        out.new.push(i);
    }
    if out.conflict.is_some() {
        out.new.clear();
    }
    out
}

#[cfg(test)]
mod tests;
