//! The chain head a stored ledger records about itself: how many entries it holds and
//! the last one's hash, signed with the key when there is one. The hash chain proves
//! every entry up to the last one, but not that the last one is the last: without this
//! record, dropping entries from the end leaves a chain that still verifies.

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::chain::SIGNATURE_PREFIX;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// Entries in the whole timeline, omitted ones included.
    pub entries: usize,
    /// `hash` of the last entry (the zero hash for an empty timeline).
    pub hash: String,
    /// `hmac-sha256:` over `agent-council:head:v1`, `entries` and `hash`, one per line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeadError {
    #[error(
        "it records no chain head, and with a key one is required (it was written without the key, or edited)"
    )]
    Missing,
    #[error(
        "its recorded chain head ({recorded} entries, last {recorded_hash}) does not match its entries ({found}, last {found_hash}): entries were removed from the end, or added"
    )]
    Mismatch {
        recorded: usize,
        recorded_hash: String,
        found: usize,
        found_hash: String,
    },
    #[error("its chain head's signature does not match: it was not written with this key")]
    BadSignature,
}

impl Head {
    pub fn new(entries: usize, hash: &str, key: Option<&[u8]>) -> Head {
        Head {
            entries,
            hash: hash.to_string(),
            signature: key.and_then(|k| mac(k, entries, hash)).map(|m| {
                format!(
                    "{SIGNATURE_PREFIX}{}",
                    hex::encode(m.finalize().into_bytes())
                )
            }),
        }
    }

    /// Whether this head describes a timeline of `entries` ending in `hash`, signed with
    /// `key` when one is given.
    pub fn check(
        recorded: Option<&Head>,
        entries: usize,
        hash: &str,
        key: Option<&[u8]>,
    ) -> Result<(), HeadError> {
        let Some(head) = recorded else {
            return match key {
                Some(_) => Err(HeadError::Missing),
                None => Ok(()),
            };
        };
        if head.entries != entries || head.hash != hash {
            return Err(HeadError::Mismatch {
                recorded: head.entries,
                recorded_hash: head.hash.clone(),
                found: entries,
                found_hash: hash.to_string(),
            });
        }
        let Some(key) = key else { return Ok(()) };
        let signed = head
            .signature
            .as_deref()
            .and_then(|s| s.strip_prefix(SIGNATURE_PREFIX))
            .and_then(|h| hex::decode(h).ok());
        match (signed, mac(key, head.entries, &head.hash)) {
            (Some(tag), Some(mac)) => mac.verify_slice(&tag).map_err(|_| HeadError::BadSignature),
            _ => Err(HeadError::BadSignature),
        }
    }
}

/// HMAC over the head's canonical text (`None` only if the key were refused, which
/// HMAC never does).
fn mac(key: &[u8], entries: usize, hash: &str) -> Option<Hmac<Sha256>> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).ok()?;
    mac.update(format!("agent-council:head:v1\n{entries}\n{hash}").as_bytes());
    Some(mac)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_checks_count_hash_and_signature() {
        let head = Head::new(3, "sha256:x", Some(b"k"));
        assert_eq!(Head::check(Some(&head), 3, "sha256:x", Some(b"k")), Ok(()));
        assert_eq!(Head::check(Some(&head), 3, "sha256:x", None), Ok(()));
        assert!(matches!(
            Head::check(Some(&head), 2, "sha256:y", Some(b"k")),
            Err(HeadError::Mismatch { .. })
        ));
        assert_eq!(
            Head::check(Some(&head), 3, "sha256:x", Some(b"other")),
            Err(HeadError::BadSignature)
        );
        let forged = Head::new(3, "sha256:x", None);
        assert_eq!(
            Head::check(Some(&forged), 3, "sha256:x", Some(b"k")),
            Err(HeadError::BadSignature)
        );
        assert_eq!(
            Head::check(None, 3, "sha256:x", Some(b"k")),
            Err(HeadError::Missing)
        );
        assert_eq!(Head::check(None, 3, "sha256:x", None), Ok(()));
    }
}
