//! A refused object, kept in `verification_failures` with the evidence: a re-sync that
//! offers the same object again records nothing new.

use sha2::{Digest, Sha256};

use super::plan::Conflict;
use super::{clamp, printable, unix};
use crate::StoreError;
use crate::engine::{Conn, Param};

/// The evidence kept with a refused object, at most.
const MAX_DOCUMENT_CHARS: usize = 8 << 20;

/// A refused object, as `verification_failures` keeps it.
pub(super) struct Failure<'a> {
    pub context: Option<i64>,
    pub repository: &'a str,
    pub context_id: &'a str,
    pub source: &'a str,
    pub conflict: Option<&'a Conflict>,
    pub problem: &'a str,
    pub document: Option<&'a str>,
    pub now: &'a str,
}

impl Failure<'_> {
    pub async fn record(&self, conn: &mut Conn) -> Result<(), StoreError> {
        let mut hasher = Sha256::new();
        for part in [
            self.source,
            self.problem,
            self.conflict.map_or("", |c| c.offered_hash.as_str()),
        ] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        let fingerprint = hex::encode(hasher.finalize());
        let document = self.document.map(|d| {
            if d.chars().count() > MAX_DOCUMENT_CHARS {
                None
            } else {
                Some(printable(d))
            }
        });
        let problem = match &document {
            Some(None) => format!(
                "{} (the document, over {} MiB, is not kept)",
                self.problem,
                MAX_DOCUMENT_CHARS >> 20
            ),
            _ => self.problem.to_string(),
        };
        let c = self.conflict;
        let position = c.map(|c| clamp(c.position));
        let entry_id = c.map(|c| printable(&c.entry_id));
        let stored_hash = c.map(|c| printable(&c.stored_hash));
        let offered_hash = c.map(|c| printable(&c.offered_hash));
        conn.execute(
            "INSERT INTO verification_failures (context, repository, context_id, source, \
             position, entry_id, stored_hash, offered_hash, problem, fingerprint, document, \
             found_at, found_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (repository, context_id, fingerprint) DO NOTHING",
            &[
                Param::Int(self.context),
                printable(self.repository).as_str().into(),
                printable(self.context_id).as_str().into(),
                printable(self.source).as_str().into(),
                Param::Int(position),
                Param::Text(entry_id.as_deref()),
                Param::Text(stored_hash.as_deref()),
                Param::Text(offered_hash.as_deref()),
                printable(&problem).as_str().into(),
                fingerprint.as_str().into(),
                Param::Text(document.flatten().as_deref()),
                self.now.into(),
                Param::Int(Some(unix(self.now).unwrap_or(0))),
            ],
        )
        .await?;
        Ok(())
    }
}
