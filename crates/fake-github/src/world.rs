//! The fake GitHub's state: one repository as plain data, the way a test author thinks
//! of it (branches, files at refs, issues, pull requests with their files, labels and
//! reviews, check runs and statuses per commit, workflow jobs, tokens). Routes read and
//! change it under one lock, so REST and GraphQL answers are always derived from the
//! same facts and a merge is seen by every later request.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::faults::{Hook, QueuedFault};
use crate::graphql::Operation;
use crate::log::{Call, RequestCounts};
use crate::tokens::Token;

/// The repository's default branch: the fixtures' `Codertocat/Hello-World` uses `master`.
pub const DEFAULT_BRANCH: &str = "master";

/// GitHub lists at most this many files of a pull request, however many changed.
pub const MAX_LISTED_FILES: usize = 3_000;

#[derive(Default)]
pub struct World {
    /// REST issue comments as GitHub returns them, plus an `issue` key to filter on.
    pub comments: Vec<Value>,
    pub(super) next_id: u64,
    /// Status for comment writes (403 = a read-only token), kept for older tests; new
    /// tests give the token fewer permissions instead.
    pub write_status: Option<u16>,
    /// Plain issues (pull requests live in `pulls`; GitHub answers both as issues).
    pub issues: BTreeMap<u64, Issue>,
    /// Answer the issue query with GraphQL errors (e.g. a GHES without `fullDatabaseId`).
    pub issue_query_fails: bool,
    /// The address the server listens on: `Link` headers and URLs in bodies name it.
    pub api: String,
    /// `owner/name` of the one repository the world holds (`/repos/{owner}/{name}/…`).
    pub repo: String,
    pub default_branch: String,
    /// Branch name → head SHA (the base branches, and same-repository PR heads).
    pub branches: BTreeMap<String, String>,
    /// Ref (branch name or SHA) → path → file text, for the contents API.
    pub files: BTreeMap<String, BTreeMap<String, String>>,
    pub pulls: BTreeMap<u64, PullRequest>,
    /// Commit SHA → the check runs and statuses reported on it.
    pub commits: BTreeMap<String, CommitChecks>,
    /// Workflow run id → its jobs.
    pub runs: BTreeMap<u64, Vec<Job>>,
    /// Token string → who it is and what it may do.
    pub tokens: BTreeMap<String, Token>,
    /// Merge methods the repository allows (its settings).
    pub merge_methods: Vec<String>,
    pub(super) faults: Vec<QueuedFault>,
    pub(super) hooks: Vec<Hook>,
    pub(super) graphql: BTreeMap<String, Operation>,
    /// Every request the world answered, in order.
    pub log: Vec<Call>,
    /// How many requests the world answered, in all and by route: kept whole when a
    /// long-lived world trims its `log`.
    pub counts: RequestCounts,
    /// How many writes of `log` a test has looked at (`FakeGitHub::take_writes`).
    pub(super) writes_seen: usize,
    pub(super) next_number_id: u64,
}

impl World {
    /// A world holding `repo` with only its default branch (`master`), the two default
    /// tokens ([`crate::tokens::defaults`]), the GraphQL operations the product sends and
    /// every merge method allowed; `api` is set once a server listens.
    pub fn new(repo: &str) -> World {
        World {
            next_id: 5000,
            repo: repo.to_string(),
            default_branch: DEFAULT_BRANCH.to_string(),
            branches: [(DEFAULT_BRANCH.to_string(), fake_sha(DEFAULT_BRANCH))].into(),
            tokens: crate::tokens::defaults(),
            graphql: crate::graphql::defaults(),
            merge_methods: vec!["merge".into(), "squash".into(), "rebase".into()],
            ..World::default()
        }
    }

    /// The repository's owner (the `owner` of `owner/name`).
    pub fn owner(&self) -> &str {
        self.repo.split('/').next().unwrap_or_default()
    }

    /// The repository's name (the `name` of `owner/name`).
    pub fn name(&self) -> &str {
        self.repo.split('/').nth(1).unwrap_or_default()
    }

    /// A pull request, or a plain issue, by number.
    pub fn issue_like(&self, number: u64) -> Option<(String, String)> {
        if let Some(pr) = self.pulls.get(&number) {
            return Some((pr.author.clone(), pr.body.clone()));
        }
        self.issues
            .get(&number)
            .map(|i| (i.author.clone(), i.body.clone()))
    }

    /// The labels of an issue or pull request, `None` when neither exists.
    pub fn labels_mut(&mut self, number: u64) -> Option<&mut Vec<String>> {
        if let Some(pr) = self.pulls.get_mut(&number) {
            return Some(&mut pr.labels);
        }
        self.issues.get_mut(&number).map(|i| &mut i.labels)
    }

    pub fn pr(&self, number: u64) -> Option<&PullRequest> {
        self.pulls.get(&number)
    }

    pub fn pr_mut(&mut self, number: u64) -> Option<&mut PullRequest> {
        self.pulls.get_mut(&number)
    }

    /// A branch name or a SHA, as `commits/{ref}/…` routes accept either.
    pub fn resolve(&self, git_ref: &str) -> String {
        let short = git_ref.strip_prefix("heads/").unwrap_or(git_ref);
        self.branches
            .get(short)
            .cloned()
            .unwrap_or_else(|| git_ref.to_string())
    }

    /// A file's text at a ref: the ref as written, else the branch whose head it is.
    pub fn file_at(&self, git_ref: &str, path: &str) -> Option<&String> {
        if let Some(text) = self.files.get(git_ref).and_then(|f| f.get(path)) {
            return Some(text);
        }
        self.branches
            .iter()
            .filter(|(_, sha)| *sha == git_ref)
            .find_map(|(name, _)| self.files.get(name).and_then(|f| f.get(path)))
    }

    pub fn checks_mut(&mut self, sha: &str) -> &mut CommitChecks {
        self.commits.entry(sha.to_string()).or_default()
    }

    /// Ids for reviews, check runs, jobs, labels…: one counter, so they never collide.
    pub fn next_number_id(&mut self) -> u64 {
        self.next_number_id += 1;
        self.next_number_id
    }

    /// Moves a pull request's head (a push to its branch), as a hook or a builder does:
    /// its same-repository branch follows; checks stay on the commit they ran on.
    pub fn push_head(&mut self, number: u64, sha: &str) {
        let Some(pr) = self.pulls.get_mut(&number) else {
            return;
        };
        pr.head_sha = sha.to_string();
        if !pr.fork {
            let head = pr.head_ref.clone();
            self.branches.insert(head, sha.to_string());
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Issue {
    /// `None`: "Issue #<n>".
    pub title: Option<String>,
    pub author: String,
    pub body: String,
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PullRequest {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub author: String,
    pub head_ref: String,
    pub head_sha: String,
    /// The head lives in a fork (`head.repo.fork`, a read-only workflow token).
    pub fork: bool,
    /// Owner of the head repository (the fork's owner, or the base repository's).
    pub head_owner: String,
    pub base_ref: String,
    pub base_sha: String,
    pub open: bool,
    pub draft: bool,
    pub labels: Vec<String>,
    /// `true`, `false`, or `None` while GitHub is still computing it.
    pub mergeable: Option<bool>,
    /// clean, dirty, behind, unknown, blocked, unstable, draft, has_hooks.
    pub mergeable_state: String,
    /// `auto_merge`: `None`, or the merge method auto-merge was enabled with.
    pub auto_merge: Option<AutoMerge>,
    pub in_merge_queue: bool,
    pub merged: bool,
    pub merged_by: Option<String>,
    pub merge_commit_sha: Option<String>,
    pub files: Vec<PrFile>,
    pub reviews: Vec<Review>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoMerge {
    pub enabled_by: String,
    pub merge_method: String,
}

impl PullRequest {
    pub fn new(number: u64, owner: &str) -> PullRequest {
        PullRequest {
            number,
            title: format!("Pull request #{number}"),
            body: String::new(),
            author: "octocat".to_string(),
            head_ref: format!("feature/pr-{number}"),
            head_sha: fake_sha(&format!("head of #{number}")),
            fork: false,
            head_owner: owner.to_string(),
            base_ref: DEFAULT_BRANCH.to_string(),
            base_sha: fake_sha(DEFAULT_BRANCH),
            open: true,
            draft: false,
            labels: Vec::new(),
            mergeable: Some(true),
            mergeable_state: "clean".to_string(),
            auto_merge: None,
            in_merge_queue: false,
            merged: false,
            merged_by: None,
            merge_commit_sha: None,
            files: Vec::new(),
            reviews: Vec::new(),
        }
    }

    /// `open`, `closed` (merged pull requests are closed too, as on GitHub).
    pub fn state(&self) -> &'static str {
        if self.open { "open" } else { "closed" }
    }

    /// `owner:ref`, what `?head=` filters on.
    pub fn head_label(&self) -> String {
        format!("{}:{}", self.head_owner, self.head_ref)
    }

    /// GraphQL's global id (`pullRequestId` in mutations).
    pub fn node_id(&self) -> String {
        format!("PR_kwDOfake{:06}", self.number)
    }
}

/// One entry of `GET /pulls/{n}/files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrFile {
    pub filename: String,
    /// added, removed, modified, renamed, copied, changed, unchanged.
    pub status: String,
    pub previous_filename: Option<String>,
    pub additions: u64,
    pub deletions: u64,
    /// The unified diff hunk(s); `None` for binary files (and very large diffs).
    pub patch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub id: u64,
    pub user: String,
    /// APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED (PENDING ones are not listed).
    pub state: String,
    pub commit_id: String,
    pub submitted_at: String,
    pub body: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitChecks {
    pub check_runs: Vec<CheckRun>,
    pub statuses: Vec<CommitStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub head_sha: String,
    /// queued, in_progress, completed, waiting, requested, pending.
    pub status: String,
    /// success, failure, neutral, cancelled, skipped, timed_out, action_required; `None`
    /// until completed.
    pub conclusion: Option<String>,
    pub app_slug: String,
    pub started_at: String,
    pub completed_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitStatus {
    pub id: u64,
    pub context: String,
    /// error, failure, pending, success.
    pub state: String,
    pub description: Option<String>,
    pub target_url: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: u64,
    pub run_id: u64,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    /// The check run this job reports as (GitHub gives it the job's id).
    pub check_run_id: u64,
}

/// A 40-hex-digit SHA made from any text: stable across runs, distinct per input.
pub fn fake_sha(seed: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(seed.as_bytes()))[..40].to_string()
}

/// Timestamps advance one second per id, so order by time is order by id.
pub fn timestamp(id: u64) -> String {
    chrono::DateTime::from_timestamp(1_795_000_000 + id as i64, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}
