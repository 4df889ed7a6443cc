//! What one queue run reads from GitHub, as values: the base, the pull requests in line
//! (and those a queue commit names), the queue branch with the chain its commit encodes
//! and the checks on it, and "now".

use chrono::{DateTime, Utc};

use super::message::{self, MergeNote};
use crate::gates::GateOutcome;
use crate::gates::release::Pipeline;
use crate::policy::Queue;
use crate::policy::queue::{MAX_BATCH, has_queued_label};
use crate::render::text::Message;

/// Everything a queue run decides from, read at the start of the run.
#[derive(Debug, Clone)]
pub struct QueueFacts {
    /// `https://github.com/owner/name`: links to queue commits in comments.
    pub repository_url: String,
    pub base: BaseFacts,
    /// The release token's identity as the REST API writes it (`my-app[bot]`); `None`
    /// without a release token (the queue does not run: pushes and merges made with the
    /// workflow token start no workflow).
    pub release_login: Option<String>,
    /// Every open pull request into the base with the queue label, and every pull request
    /// a queue commit's merges name (closed, unlabelled or moved ones included: they
    /// are how the plan tells why a merge in the queue commit no longer belongs there).
    pub pulls: Vec<QueuedPr>,
    /// The queue branch `<prefix><base>`, when it exists.
    pub branch: Option<QueueBranch>,
    pub now: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseFacts {
    pub name: String,
    /// The base's head now.
    pub sha: String,
    /// The rule that makes the base require linear history (branch protection's
    /// `required_linear_history`, or a ruleset's rule, named as the app found it), when
    /// one does: queue commits are merges, so such a base cannot take a queue.
    pub linear_history: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrState {
    Open,
    Closed,
    Merged,
}

/// A pull request as GitHub says it is now.
#[derive(Debug, Clone)]
pub struct QueuedPr {
    pub number: u64,
    pub head_sha: String,
    pub state: PrState,
    pub labels: Vec<String>,
    /// When the queue label was last added (the issue's `labeled` events); `None` when
    /// unknown (it then goes after every pull request whose time is known).
    pub queued_at: Option<DateTime<Utc>>,
    /// The head moved after the queue label was last added (a `committed` or
    /// `head_ref_force_pushed` event after the last `labeled` one, in the same timeline
    /// read). A queue commit holding an older head tells this by itself.
    pub head_moved: bool,
    /// The pull request was retargeted (a `base_ref_changed` event) after the queue label
    /// was last added: its place in line was for another base, so it leaves the queue.
    pub retargeted: bool,
    /// The release verdict on the head now, as the release stage decides it under the
    /// queue (`ReleaseFacts::queue`); `None` when this run did not decide it (see
    /// [`QueueFacts::to_decide`]): such a pull request keeps its place and is neither
    /// built into a queue commit nor landed.
    pub verdict: Option<LiveVerdict>,
}

impl QueuedPr {
    pub fn has_queue_label(&self) -> bool {
        has_queued_label(&self.labels)
    }
}

/// The release stage's verdict on a queued pull request's head, decided again in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveVerdict {
    /// Every gate passes: release would merge (queue) it.
    Pass,
    /// A gate fails: it leaves the queue.
    Fail { gates: Vec<GateOutcome> },
    /// Something is awaited (a check re-running, an approval, GitHub computing the
    /// mergeable state): it keeps its place, is not built into a queue commit, and one
    /// in the queue commit is dropped from it.
    Waiting { why: Message },
}

impl LiveVerdict {
    /// From a release decision on the pull request (`stage::release::evaluate` with
    /// `ReleaseFacts::queue` set and the review read, as `waits_only_for_review` asks):
    /// a failed gate fails it, every gate passing passes it, anything else waits.
    pub fn of_release(result: &crate::stage::StageResult) -> LiveVerdict {
        use crate::gates::Verdict;
        let failed: Vec<GateOutcome> = result
            .gates
            .iter()
            .filter(|g| g.verdict == Verdict::Fail)
            .cloned()
            .collect();
        if !failed.is_empty() {
            return LiveVerdict::Fail { gates: failed };
        }
        match result.gates.iter().find(|g| g.verdict != Verdict::Pass) {
            Some(g) => LiveVerdict::Waiting {
                why: g.message.clone(),
            },
            None if result.gates.is_empty() => LiveVerdict::Waiting {
                why: Message::new().text("no gate was decided"),
            },
            None => LiveVerdict::Pass,
        }
    }
}

/// The queue branch of the base and the commit it points at.
#[derive(Debug, Clone)]
pub struct QueueBranch {
    /// The queue commit (the branch's head).
    pub sha: String,
    /// Its committer date: the timeout counts from it. GitHub sets it when it makes the
    /// merge, and signs it.
    pub created_at: DateTime<Utc>,
    /// The merges it is made of, read by walking first parents from it.
    pub chain: Chain,
    /// The checks on the queue commit (`Pipeline::sha` must be `sha`), this run's own
    /// job left out.
    pub checks: Pipeline,
}

/// The merges a queue commit is made of, in the order they were made: the first one's
/// first parent is the base commit it was built on, each merge's second parent is a pull
/// request's head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    pub links: Vec<Link>,
    /// The commit the first merge was made on; empty when there is no merge.
    pub built_on: String,
    /// Why the commits do not form a queue commit council made, when they do not.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The merge commit.
    pub sha: String,
    /// Its second parent: the head of the pull request merged.
    pub head: String,
    /// Who made it, when GitHub verified its signature: the committer's login.
    pub made_by: Option<String>,
    /// What council wrote in its message, read back as a hint only.
    pub note: Option<MergeNote>,
}

/// One commit as the app reads it (`GET /repos/{o}/{r}/git/commits/{sha}` or GraphQL):
/// the input of [`Chain::from_commits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFact {
    pub sha: String,
    pub parents: Vec<String>,
    pub message: String,
    /// The committer's login when `verification.verified` is true; `None` for an
    /// unsigned commit or a signature GitHub could not verify.
    pub verified_committer: Option<String>,
    pub committed_at: DateTime<Utc>,
}

/// Whether a commit is a merge that council's queue wrote (two parents, council's
/// trailers).
pub fn is_queue_merge(commit: &CommitFact) -> bool {
    commit.parents.len() == 2 && message::read(&commit.message).is_some()
}

/// The commit the app's first-parent walk reads next, if any. The app reads the queue
/// branch's head, then this commit's first parent while there is one, at most
/// [`MAX_BATCH`] commits: a queue merge leads to the next one down until the merge made
/// on the base commit its message names (the base itself may be a queue commit that
/// landed, and is not read).
pub fn next_in_chain(commit: &CommitFact) -> Option<&str> {
    let note = message::read(&commit.message)?;
    match commit.parents.as_slice() {
        [first, _] if *first != note.base_sha => Some(first),
        _ => None,
    }
}

impl Chain {
    /// The chain of the commits of a first-parent walk, tip first (as
    /// [`next_in_chain`] drives it). Anything else than merges council wrote, each on the
    /// one before, down to the base commit their messages name, is a problem: the queue
    /// commit is rebuilt.
    pub fn from_commits(commits: &[CommitFact]) -> Chain {
        let broken = |why: String| Chain {
            links: Vec::new(),
            built_on: String::new(),
            problem: Some(why),
        };
        if commits.is_empty() {
            return broken("no commit was read".into());
        }
        if commits.len() > MAX_BATCH as usize {
            return broken(format!(
                "more than {MAX_BATCH} merges, more than a queue commit holds"
            ));
        }
        let mut links = Vec::with_capacity(commits.len());
        for (i, c) in commits.iter().enumerate() {
            let short = crate::gates::release::short(&c.sha);
            let [first, second] = c.parents.as_slice() else {
                return broken(format!(
                    "commit {short} has {} parents, not the two of a merge",
                    c.parents.len()
                ));
            };
            let Some(note) = message::read(&c.message) else {
                return broken(format!(
                    "commit {short} is not a merge of council's merge queue (its message has no queue trailers)"
                ));
            };
            let tip_base = links
                .first()
                .and_then(|l: &Link| l.note.as_ref())
                .map_or(&note.base_sha, |n| &n.base_sha);
            if note.base_sha != *tip_base {
                return broken(format!(
                    "commit {short} names another base commit than the queue commit's head"
                ));
            }
            if let Some(below) = commits.get(i + 1)
                && below.sha != *first
            {
                return broken(format!(
                    "commit {short}'s first parent is not the next commit read"
                ));
            }
            links.push(Link {
                sha: c.sha.clone(),
                head: second.clone(),
                made_by: c.verified_committer.clone(),
                note: Some(note),
            });
        }
        let built_on = commits
            .last()
            .and_then(|c| c.parents.first())
            .cloned()
            .unwrap_or_default();
        let named = links
            .first()
            .and_then(|l| l.note.as_ref())
            .map(|n| n.base_sha.clone());
        if named.as_deref() != Some(built_on.as_str()) {
            return broken(format!(
                "the merges were read down to {}, not to the base commit their messages name",
                crate::gates::release::short(&built_on)
            ));
        }
        links.reverse();
        Chain {
            links,
            built_on,
            problem: None,
        }
    }
}

impl QueueBranch {
    /// The branch from the app's walk (tip first) and the checks on the tip.
    pub fn from_commits(commits: &[CommitFact], checks: Pipeline) -> Option<QueueBranch> {
        let tip = commits.first()?;
        Some(QueueBranch {
            sha: tip.sha.clone(),
            created_at: tip.committed_at,
            chain: Chain::from_commits(commits),
            checks,
        })
    }

    /// The hint the queue commit's message carries (its last merge's note).
    pub fn note(&self) -> Option<&MergeNote> {
        self.chain.links.last().and_then(|l| l.note.as_ref())
    }
}

impl QueueFacts {
    /// The pull requests whose release verdict this run needs, in the order to decide
    /// them: those the queue commit holds, then the head of the line after them (twice
    /// the batch size, so that a conflict or a failed gate still leaves a full batch to
    /// test next, even when the queue commit lands in this run). Deciding one costs the
    /// release stage's requests, so the app decides only these.
    pub fn to_decide(&self, policy: &Queue) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        if let Some(branch) = &self.branch {
            for link in &branch.chain.links {
                let by_head = self
                    .pulls
                    .iter()
                    .find(|p| p.head_sha == link.head)
                    .map(|p| p.number);
                let by_note = link.note.as_ref().map(|n| n.pull);
                for n in by_head.into_iter().chain(by_note) {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
        let room = 2 * policy.batch_size as usize;
        let after: Vec<u64> = super::order::line(self, policy)
            .into_iter()
            .map(|p| p.number)
            .filter(|n| !out.contains(n))
            .take(room)
            .collect();
        out.extend(after);
        out
    }

    pub fn pull(&self, number: u64) -> Option<&QueuedPr> {
        self.pulls.iter().find(|p| p.number == number)
    }
}
