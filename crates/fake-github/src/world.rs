//! The fake GitHub's state: one repository as plain data, the way a test author thinks
//! of it (branches, files at refs, issues, pull requests with their files, labels and
//! reviews, check runs and statuses per commit, workflow jobs, tokens). Routes read and
//! change it under one lock, so REST and GraphQL answers are always derived from the
//! same facts and a merge is seen by every later request.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

use serde_json::Value;

use crate::ci::{Ci, CiRun};
use crate::faults::{Hook, QueuedFault};
use crate::git::RefWrite;
use crate::graph::Graph;
use crate::graphql::Operation;
use crate::log::{Call, RequestCounts};
use crate::protection::Protection;
use crate::tokens::Token;

/// The repository's default branch: the fixtures' `Codertocat/Hello-World` uses `master`.
pub const DEFAULT_BRANCH: &str = "master";

/// GitHub lists at most this many files of a pull request, however many changed.
pub const MAX_LISTED_FILES: usize = 3_000;

/// GitHub's compare endpoint lists at most this many files of a comparison.
pub const MAX_COMPARE_FILES: usize = 300;

#[derive(Default)]
pub struct World {
    /// REST issue comments as GitHub returns them, plus an `issue` key to filter on.
    pub comments: Comments,
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
    /// Head commit SHA → the files it changes against its pull request's base: what
    /// `compare/{base}...{sha}` lists. A pull request's own `files` are its current
    /// head's; a head it moved away from keeps its files here, so that a push and a push
    /// back restore them and a compare by SHA answers for any head it ever had.
    pub diffs: BTreeMap<String, Vec<PrFile>>,
    /// Commit SHA → the check runs and statuses reported on it.
    pub commits: BTreeMap<String, CommitChecks>,
    /// Commits with parents and trees (`graph.rs`), built by the scene or the API;
    /// empty in a world that uses only the shortcuts above.
    pub graph: Graph,
    /// Branch → every write of it since the world began (SHA and who wrote it), oldest
    /// first: a scene's pushes, ref updates and merges through the API.
    pub ref_log: BTreeMap<String, Vec<RefWrite>>,
    /// Branch protection rules and rulesets.
    pub protections: Vec<Protection>,
    /// The CI rule: which landings start a run, and what decides red or green.
    pub ci: Option<Ci>,
    /// Every CI run started, oldest first.
    pub ci_runs: Vec<CiRun>,
    /// Issue or pull request number → its `labeled` and `unlabeled` events, oldest first.
    pub issue_events: BTreeMap<u64, Vec<IssueEvent>>,
    /// Pull request number → every move of its head, oldest first: the timeline's
    /// `committed` items (and `head_ref_force_pushed` for a move that is not a
    /// fast-forward), which tell a merge queue that a head moved after it was queued.
    pub head_moves: BTreeMap<u64, Vec<HeadMove>>,
    /// Comment id → where it falls among its issue's events (the counter of
    /// [`World::next_number_id`]): the timeline lists comments in order with the rest.
    /// Comments a world file seeds have none and come first.
    pub comment_seq: BTreeMap<u64, u64>,
    /// Workflow run id → its jobs.
    pub runs: BTreeMap<u64, Vec<Job>>,
    /// Artifacts the workflow runs uploaded (`audit-PR-<n>`), oldest first: listed by
    /// `GET /actions/artifacts` (newest first, `name=` filters) and downloaded from
    /// `GET /actions/artifacts/{id}/zip`. A test's own mocks
    /// ([`crate::artifacts::serve`]) answer before these.
    pub artifacts: Vec<UploadedArtifact>,
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
    /// The world clock, in seconds since 1970: the last instant a write that updates a
    /// pull request was stamped with ([`World::tick`]). It only moves forward.
    pub clock: i64,
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
        // A commit built in the graph answers from its tree.
        if let Some(commit) = self.graph.get(&self.resolve(git_ref))
            && !commit.shortcut
            && let Some(crate::graph::Blob::Text(text)) = commit.tree.get(path)
        {
            return Some(text);
        }
        if let Some(text) = self.files.get(git_ref).and_then(|f| f.get(path)) {
            return Some(text);
        }
        self.branches
            .iter()
            .filter(|(_, sha)| *sha == git_ref)
            .find_map(|(name, _)| self.files.get(name).and_then(|f| f.get(path)))
    }

    /// The files head commit `sha` changes: its own recorded diff, else the files of the
    /// pull request whose head it is now. `None`: no commit the world knows. (A commit
    /// built in the graph is compared over the graph instead: [`World::graph_diff`].)
    pub fn diff_of(&self, sha: &str) -> Option<&[PrFile]> {
        if let Some(pr) = self.pulls.values().find(|pr| pr.head_sha == sha) {
            return Some(&pr.files);
        }
        self.diffs.get(sha).map(Vec::as_slice)
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
    /// its same-repository branch follows (a push by the pull request's author, recorded
    /// in [`World::ref_log`]); checks stay on the commit they ran on. A new head is an
    /// update of the pull request (`updated_at` moves) and, under a CI rule for pull
    /// requests, starts a CI run.
    pub fn push_head(&mut self, number: u64, sha: &str) {
        let Some(pr) = self.pulls.get(&number) else {
            return;
        };
        let (fork, head, author) = (pr.fork, pr.head_ref.clone(), pr.author.clone());
        let moved = self.move_pr_head(number, sha);
        if !fork {
            self.set_branch(&head, sha, &crate::git::Writer::push(&author));
        }
        if moved {
            self.ci_on_pull_request(number, sha);
        }
    }

    /// The pull request's side of a push to its head: `head_sha`, its files (a commit it
    /// leaves keeps its diff; one it gets brings its own, when known) and `updated_at`.
    /// Returns whether the head moved.
    pub(crate) fn move_pr_head(&mut self, number: u64, sha: &str) -> bool {
        let Some(pr) = self.pulls.get_mut(&number) else {
            return false;
        };
        let moved = pr.head_sha != sha;
        if moved {
            self.diffs
                .entry(pr.head_sha.clone())
                .or_insert_with(|| pr.files.clone());
            if let Some(files) = self.diffs.get(sha) {
                pr.files.clone_from(files);
            }
        }
        let old = std::mem::replace(&mut pr.head_sha, sha.to_string());
        let author = pr.author.clone();
        if moved {
            let forced = self.graph.contains(&old)
                && self.graph.contains(sha)
                && !self.graph.is_ancestor(&old, sha);
            let at = self.touch(number).unwrap_or_default();
            let seq = self.next_number_id();
            self.head_moves.entry(number).or_default().push(HeadMove {
                seq,
                sha: sha.to_string(),
                at,
                forced,
                actor: author,
            });
        }
        moved
    }

    /// The world clock's instant now, without moving it on (never before the fake's
    /// epoch nor any pull request's `updated_at`), in seconds since 1970.
    pub fn clock_now(&mut self) -> i64 {
        let newest = self
            .pulls
            .values()
            .map(|pr| pr.updated_at.as_str())
            .max()
            .and_then(parse_time)
            .unwrap_or(i64::MIN);
        self.clock = self.clock.max(newest).max(EPOCH);
        self.clock
    }

    /// [`World::clock_now`] as GitHub writes a time.
    pub fn now(&mut self) -> String {
        format_time(self.clock_now())
    }

    /// Records a `labeled` or `unlabeled` event on issue `number` by `actor`, now.
    pub fn label_event(&mut self, number: u64, event: &str, label: &str, actor: &str) {
        let at = self.now();
        self.label_event_at(number, event, label, actor, &at);
    }

    /// [`World::label_event`] at a given time (ISO 8601, as GitHub writes it).
    pub fn label_event_at(&mut self, number: u64, event: &str, label: &str, actor: &str, at: &str) {
        let id = self.next_number_id();
        self.issue_events
            .entry(number)
            .or_default()
            .push(IssueEvent {
                id,
                event: event.to_string(),
                label: label.to_string(),
                actor: actor.to_string(),
                created_at: at.to_string(),
            });
    }

    /// The next instant of the world clock: a second after the last one it gave, and
    /// after every pull request's `updated_at` (a scene may have set one ahead), so a
    /// pull request stamped with it is the most recently updated one.
    pub fn tick(&mut self) -> String {
        self.tick_after(i64::MIN)
    }

    /// [`World::tick`], and after `floor` (seconds since 1970) too: a write stamped with
    /// a time of its own (a comment's `created_at`) never goes back before it.
    pub fn tick_after(&mut self, floor: i64) -> String {
        let newest = self
            .pulls
            .values()
            .map(|pr| pr.updated_at.as_str())
            .max()
            .and_then(parse_time)
            .unwrap_or(i64::MIN);
        self.clock = self
            .clock
            .saturating_add(1)
            .max(newest.saturating_add(1))
            .max(floor.saturating_add(1));
        format_time(self.clock)
    }

    /// Pull request `number` was updated now, as GitHub counts updates (a comment on it,
    /// labels added or removed, a push, a merge, a close or reopen, an edit of its title
    /// or body; not an edit of an existing comment): its `updated_at` becomes the next
    /// instant of the clock, which is returned. `None` for a plain issue or no such
    /// number (issues hold no times).
    pub fn touch(&mut self, number: u64) -> Option<String> {
        self.touch_after(number, i64::MIN)
    }

    /// [`World::touch`] at an instant after `floor` (seconds since 1970).
    pub fn touch_after(&mut self, number: u64, floor: i64) -> Option<String> {
        if !self.pulls.contains_key(&number) {
            return None;
        }
        let now = self.tick_after(floor);
        let pr = self.pulls.get_mut(&number)?;
        pr.updated_at = now.clone();
        Some(now)
    }
}

/// An artifact a workflow run of the repository's own code uploaded.
#[derive(Debug, Clone)]
pub struct UploadedArtifact {
    pub id: u64,
    pub name: String,
    pub run_id: u64,
    pub created_at: String,
    /// The zip as downloaded.
    pub zip: Vec<u8>,
}

/// The world's comments in the order they were made, each as REST returns it plus the
/// `issue` it is on: a `Vec<Value>` to read and change (tests edit bodies in place), with
/// an index by issue built on the first read after a change, so that reading one pull
/// request's comments in a world of 10,000 costs its own comments, not everyone's.
#[derive(Debug, Clone, Default)]
pub struct Comments {
    list: Vec<Value>,
    /// Issue number → positions in `list`; dropped by any change through `DerefMut`.
    by_issue: OnceLock<BTreeMap<u64, Vec<usize>>>,
}

impl Comments {
    /// Appends a comment, keeping the index.
    pub fn push(&mut self, comment: Value) {
        let at = self.list.len();
        if let (Some(index), Some(issue)) = (self.by_issue.get_mut(), comment["issue"].as_u64()) {
            index.entry(issue).or_default().push(at);
        }
        self.list.push(comment);
    }

    /// The comments on issue (or pull request) `issue`, oldest first.
    pub fn on(&self, issue: u64) -> impl Iterator<Item = &Value> {
        self.index()
            .get(&issue)
            .into_iter()
            .flatten()
            .filter_map(|&at| self.list.get(at))
    }

    /// How many comments issue `issue` has.
    pub fn count_on(&self, issue: u64) -> usize {
        self.index().get(&issue).map_or(0, Vec::len)
    }

    fn index(&self) -> &BTreeMap<u64, Vec<usize>> {
        self.by_issue.get_or_init(|| {
            let mut index: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
            for (at, comment) in self.list.iter().enumerate() {
                if let Some(issue) = comment["issue"].as_u64() {
                    index.entry(issue).or_default().push(at);
                }
            }
            index
        })
    }
}

impl Deref for Comments {
    type Target = Vec<Value>;

    fn deref(&self) -> &Vec<Value> {
        &self.list
    }
}

impl DerefMut for Comments {
    /// Any change may move a comment or its `issue`: the index is rebuilt on next read.
    fn deref_mut(&mut self) -> &mut Vec<Value> {
        self.by_issue.take();
        &mut self.list
    }
}

impl From<Vec<Value>> for Comments {
    fn from(list: Vec<Value>) -> Comments {
        Comments {
            list,
            by_issue: OnceLock::new(),
        }
    }
}

impl<'a> IntoIterator for &'a Comments {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
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
    /// The commits a merge brought into the base (when the base came to contain the
    /// head), oldest first: `GET /pulls/{n}/commits` once merged, and what
    /// `GET /commits/{sha}/pulls` finds the pull request by.
    pub landed_commits: Vec<String>,
    pub files: Vec<PrFile>,
    pub reviews: Vec<Review>,
    /// ISO 8601 in UTC, as GitHub writes them (`2026-11-18T11:06:40Z`): made up from the
    /// number by default (`created_at` [`timestamp`]`(n * 1000)`, `updated_at` a second
    /// later); writes that update the pull request move `updated_at` ([`World::touch`]).
    pub created_at: String,
    pub updated_at: String,
    /// Set when it is closed (merged ones too); a pull request closed without one shows
    /// [`timestamp`]`(n * 1000 + 2)`.
    pub closed_at: Option<String>,
    /// Set when it is merged; likewise made up when merged without one.
    pub merged_at: Option<String>,
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
            landed_commits: Vec::new(),
            files: Vec::new(),
            reviews: Vec::new(),
            created_at: timestamp(number * 1000),
            updated_at: timestamp(number * 1000 + 1),
            closed_at: None,
            merged_at: None,
        }
    }

    /// `closed_at` as GitHub shows it: `None` while open.
    pub fn closed_at_shown(&self) -> Option<String> {
        (!self.open).then(|| {
            self.closed_at
                .clone()
                .unwrap_or_else(|| timestamp(self.number * 1000 + 2))
        })
    }

    /// `merged_at` as GitHub shows it: `None` unless merged.
    pub fn merged_at_shown(&self) -> Option<String> {
        self.merged.then(|| {
            self.merged_at
                .clone()
                .or_else(|| self.closed_at.clone())
                .unwrap_or_else(|| timestamp(self.number * 1000 + 2))
        })
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

/// A `labeled` or `unlabeled` event of an issue or pull request
/// (`GET /issues/{n}/events`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueEvent {
    pub id: u64,
    /// `labeled`, `unlabeled`, or `base_ref_changed` (a retarget: no label).
    pub event: String,
    /// The label added or removed; empty for a retarget.
    pub label: String,
    pub actor: String,
    pub created_at: String,
}

/// A pull request's head moved (a push to its branch): a `committed` item of its
/// timeline, and a `head_ref_force_pushed` one too when `forced`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadMove {
    /// Where it falls among the issue's events (ids and this come from one counter):
    /// the timeline lists what happened in the order it happened.
    pub seq: u64,
    pub sha: String,
    /// The world clock's instant of the push.
    pub at: String,
    /// Not a fast-forward of the head before.
    pub forced: bool,
    /// Who pushed (the pull request's author).
    pub actor: String,
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

/// The fake's epoch, `timestamp(0)`: 2026-11-18T11:06:40Z.
pub const EPOCH: i64 = 1_795_000_000;

/// Timestamps advance one second per id, so order by time is order by id.
pub fn timestamp(id: u64) -> String {
    format_time(EPOCH.saturating_add(i64::try_from(id).unwrap_or(i64::MAX)))
}

/// Seconds since 1970 as GitHub writes a time: `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_time(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A time in ISO 8601 with a zone (`2026-01-05T09:30:00Z`, `…+01:00`) as seconds
/// since 1970; `None` for anything else.
pub fn parse_time(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.timestamp())
}

/// A time as GitHub writes it, from any ISO 8601 time with a zone; `None` when `text`
/// is not one.
pub fn normalize_time(text: &str) -> Option<String> {
    parse_time(text).map(format_time)
}
