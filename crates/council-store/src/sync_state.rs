//! Where `council audit sync` got to, per repository, and what it last read of each
//! pull request: what makes a second sync read only what changed, and a sync killed
//! half-way resume without reading again what it stored.

use crate::engine::{Cell, Param};
use crate::{Store, StoreError};

impl Store {
    /// The newest `updated_at` a finished sync of `repository` listed.
    pub async fn listed_until(&mut self, repository: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_one(
                "SELECT listed_until FROM sync_state WHERE repository = ?",
                &[repository.into()],
            )
            .await?
            .and_then(|row| row.into_iter().next())
            .and_then(Cell::into_text))
    }

    /// Records a finished sync: the next one lists from `listed_until` on.
    pub async fn finish_sync(
        &mut self,
        repository: &str,
        listed_until: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO sync_state (repository, listed_until, finished_at) VALUES (?, ?, ?) \
                 ON CONFLICT (repository) DO UPDATE SET listed_until = excluded.listed_until, \
                 finished_at = excluded.finished_at",
                &[repository.into(), listed_until.into(), now.into()],
            )
            .await?;
        Ok(())
    }

    /// The pull request's `updated_at` when a sync last read it, and when that was.
    pub async fn pull_synced(
        &mut self,
        repository: &str,
        pr: u64,
    ) -> Result<Option<(String, String)>, StoreError> {
        let row = self
            .conn
            .query_one(
                "SELECT pr_updated_at, synced_at FROM synced_pulls \
                 WHERE repository = ? AND pr_number = ?",
                &[repository.into(), Param::Int(i64::try_from(pr).ok())],
            )
            .await?;
        Ok(row.and_then(|mut r| {
            let synced = std::mem::replace(&mut r[1], Cell::Null).into_text()?;
            let updated = std::mem::replace(&mut r[0], Cell::Null).into_text()?;
            Some((updated, synced))
        }))
    }

    /// Records that a sync read the pull request as of `updated_at`, and what it found.
    pub async fn pull_read(
        &mut self,
        repository: &str,
        pr: u64,
        updated_at: &str,
        outcome: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO synced_pulls (repository, pr_number, pr_updated_at, synced_at, outcome) \
                 VALUES (?, ?, ?, ?, ?) ON CONFLICT (repository, pr_number) DO UPDATE SET \
                 pr_updated_at = excluded.pr_updated_at, synced_at = excluded.synced_at, \
                 outcome = excluded.outcome",
                &[
                    repository.into(),
                    Param::Int(i64::try_from(pr).ok()),
                    updated_at.into(),
                    now.into(),
                    outcome.into(),
                ],
            )
            .await?;
        Ok(())
    }
}
