//! What `council policy simulate` replays: every stored pull request's recorded
//! branches, author, guard verdicts and class, read in one statement (one row per pull
//! request, its newest `check:actor` message beside it), in the order of the store.

use crate::engine::Cell;
use crate::query::{Filter, count, opt_text, text};
use crate::{Store, StoreError};

/// One pull request as the store recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedPullRow {
    pub repository: String,
    pub number: u64,
    /// `subject.source_branch`, `subject.target_branch`, `subject.author`.
    pub head: String,
    pub base: String,
    pub author: String,
    /// Who vouches for the author and branches: `github`, or `header` (unverified).
    pub attribution: String,
    /// `gates.naming_convention` and `gates.target_policy` as stored (`PASS`, `FAIL`);
    /// `None` when not recorded.
    pub naming_convention: Option<String>,
    pub target_policy: Option<String>,
    /// The message of the newest `check:actor` entry, when there is one.
    pub actor: Option<String>,
}

/// The two gates of the stored `gates` object replay compares; the rest is not read.
#[derive(serde::Deserialize, Default)]
struct GuardGates {
    #[serde(default)]
    naming_convention: Option<String>,
    #[serde(default)]
    target_policy: Option<String>,
}

impl Store {
    /// Every pull request the filter keeps, with what replay needs, by repository and
    /// number. One pass: the newest `check:actor` entry of each is found through the
    /// entries' primary key (its context, newest position first), never by a scan.
    pub async fn recorded_pulls(
        &mut self,
        filter: &Filter,
    ) -> Result<Vec<RecordedPullRow>, StoreError> {
        let w = filter.context_conditions();
        let rows = self
            .conn
            .query(
                &format!(
                    "SELECT c.repository, c.pr_number, c.source_branch, c.target_branch, \
                     c.author, c.attribution, c.gates, \
                     (SELECT e.message FROM timeline_entries e WHERE e.context = c.id \
                     AND e.action = 'check:actor' ORDER BY e.position DESC LIMIT 1) \
                     FROM workflow_contexts c WHERE 1 = 1{} \
                     ORDER BY c.repository, c.pr_number",
                    w.sql
                ),
                &w.params,
            )
            .await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let gates: GuardGates = row
                    .get(6)
                    .and_then(Cell::text)
                    .and_then(|g| serde_json::from_str(g).ok())
                    .unwrap_or_default();
                RecordedPullRow {
                    repository: text(&row, 0),
                    number: count(&row, 1),
                    head: text(&row, 2),
                    base: text(&row, 3),
                    author: text(&row, 4),
                    attribution: text(&row, 5),
                    naming_convention: gates.naming_convention,
                    target_policy: gates.target_policy,
                    actor: opt_text(&row, 7),
                }
            })
            .collect())
    }
}
