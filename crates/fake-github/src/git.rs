//! The world's git: commits made on branches, shortcuts made real, branch moves with
//! their consequences, and merges of one commit into a branch.
//!
//! Every move of a branch goes through [`World::set_branch`], which records who moved it
//! (a per-ref history of SHA and login, beside the request log's tokens), lets the pull
//! requests whose head it is follow, starts CI where the world's CI rule says so, and
//! marks merged every open pull request into that branch whose head the branch now
//! contains, as GitHub does on any push that brings a pull request's commits in.

use std::sync::Arc;

use crate::diff;
use crate::graph::{Blob, NewCommit, Signature, Tree};
use crate::world::{PrFile, World};

/// Who writes a ref or a commit: a token's identity, or a login a test names for a push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    pub login: String,
    /// The token used, when the write came through the API.
    pub token: Option<String>,
}

impl Writer {
    /// A push by `login` (no token: a test's scene).
    pub fn push(login: &str) -> Writer {
        Writer {
            login: login.to_string(),
            token: None,
        }
    }
}

/// One write of a ref, oldest first in [`World::ref_log`]: what it pointed at after the
/// write (`None`: deleted) and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefWrite {
    pub sha: Option<String>,
    pub login: String,
    pub token: Option<String>,
    /// The world clock's instant of the write.
    pub at: String,
    /// Not a fast-forward (a forced update, or a branch set by a scene).
    pub forced: bool,
}

/// What merging a commit into a branch came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeOutcome {
    /// The new merge commit, now the branch's head.
    Merged(String),
    /// The branch already contains the commit: nothing to merge.
    AlreadyMerged,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeError {
    UnknownBase,
    UnknownHead,
    Conflict(Vec<String>),
}

/// What a scene's commit holds (`FakeGitHub::push_to`): files to write or delete on top
/// of its parent's tree, a message, an author, whether GitHub verified it.
#[derive(Debug, Clone, Default)]
pub struct CommitSpec {
    pub changes: Vec<(String, Option<Blob>)>,
    pub message: String,
    /// Default `octocat`.
    pub author: Option<String>,
    pub verified: bool,
}

impl World {
    /// Whether the world knows `sha` as a commit: in the graph, or named by a shortcut
    /// (a branch head, a pull request's head or base, files or checks at it).
    pub fn knows_commit(&self, sha: &str) -> bool {
        self.graph.contains(sha)
            || self.branches.values().any(|s| s == sha)
            || self
                .pulls
                .values()
                .any(|pr| pr.head_sha == sha || pr.base_sha == sha)
            || self.diffs.contains_key(sha)
            || (is_sha(sha) && (self.files.contains_key(sha) || self.commits.contains_key(sha)))
    }

    /// Makes a SHA the shortcuts named into a graph commit, so that it can be merged,
    /// compared and built on: a pull request's head becomes a child of its base whose
    /// tree is the base's with the pull request's files applied; any other known SHA a
    /// root whose tree is the files the world holds at it (or at a branch it heads).
    /// False when the world does not know it.
    pub fn ensure_commit(&mut self, sha: &str) -> bool {
        self.ensure_commit_within(sha, 0)
    }

    /// [`World::ensure_commit`], at most `MAX_SHORTCUT_DEPTH` pull requests deep: a scene
    /// whose pull requests are each other's bases ends in a root, not a loop.
    fn ensure_commit_within(&mut self, sha: &str, depth: usize) -> bool {
        const MAX_SHORTCUT_DEPTH: usize = 64;
        if self.graph.contains(sha) {
            return true;
        }
        if !self.knows_commit(sha) {
            return false;
        }
        let date = self.now();
        let pr = self
            .pulls
            .values()
            .find(|pr| pr.head_sha == sha && pr.base_sha != sha)
            .filter(|_| depth < MAX_SHORTCUT_DEPTH)
            .map(|pr| {
                (
                    pr.base_sha.clone(),
                    pr.author.clone(),
                    pr.title.clone(),
                    pr.files.clone(),
                )
            });
        let new = match pr {
            Some((base, author, title, files)) if self.ensure_commit_within(&base, depth + 1) => {
                let mut tree = self.tree(&base).map(|t| (*t).clone()).unwrap_or_default();
                apply_files(&mut tree, &files, self.files.get(sha));
                NewCommit {
                    parents: vec![base],
                    tree: Arc::new(tree),
                    message: title,
                    author: Signature::of(&author, &date),
                    committer: Signature::of(&author, &date),
                    verified: false,
                    sha: Some(sha.to_string()),
                    shortcut: true,
                }
            }
            _ => {
                let mut tree = Tree::new();
                let names = self
                    .branches
                    .iter()
                    .filter(|(_, s)| *s == sha)
                    .map(|(name, _)| name.as_str());
                for at in std::iter::once(sha).chain(names) {
                    for (path, text) in self.files.get(at).into_iter().flatten() {
                        tree.entry(path.clone())
                            .or_insert_with(|| Blob::Text(text.clone()));
                    }
                }
                NewCommit {
                    parents: Vec::new(),
                    tree: Arc::new(tree),
                    message: "Initial commit".to_string(),
                    author: Signature::of("octocat", &date),
                    committer: Signature::of("octocat", &date),
                    verified: false,
                    sha: Some(sha.to_string()),
                    shortcut: true,
                }
            }
        };
        self.graph.insert(new).is_ok()
    }

    /// A commit's tree (`None`: not a graph commit).
    pub fn tree(&self, sha: &str) -> Option<Arc<Tree>> {
        self.graph.get(sha).map(|c| c.tree.clone())
    }

    /// The head of `branch`, made a graph commit; `None` when there is no such branch.
    pub fn branch_commit(&mut self, branch: &str) -> Option<String> {
        let sha = self.branches.get(branch)?.clone();
        self.ensure_commit(&sha).then_some(sha)
    }

    /// A commit on `branch` (created from the default branch's head when new) with
    /// `spec`'s changes, pushed by its author: the branch moves to it. Returns its SHA.
    pub fn commit_on(&mut self, branch: &str, spec: &CommitSpec) -> String {
        let parent = self.branch_commit(branch).or_else(|| {
            let default = self.default_branch.clone();
            self.branch_commit(&default)
        });
        let author = spec.author.clone().unwrap_or_else(|| "octocat".to_string());
        let sha = self.commit_with(parent.as_deref(), spec, &author);
        self.set_branch(branch, &sha, &Writer::push(&author));
        sha
    }

    /// A commit on top of `parent` (a root when `None`) with `spec`'s changes; no ref
    /// moves.
    pub fn commit_with(&mut self, parent: Option<&str>, spec: &CommitSpec, author: &str) -> String {
        let mut tree = parent
            .and_then(|p| self.tree(p))
            .map(|t| (*t).clone())
            .unwrap_or_default();
        for (path, blob) in &spec.changes {
            match blob {
                Some(blob) => tree.insert(path.clone(), blob.clone()),
                None => tree.remove(path),
            };
        }
        let date = self.tick();
        let message = match spec.message.is_empty() {
            true => "Update files".to_string(),
            false => spec.message.clone(),
        };
        self.graph
            .insert(NewCommit {
                parents: parent.map(str::to_string).into_iter().collect(),
                tree: Arc::new(tree),
                message,
                author: Signature::of(author, &date),
                committer: Signature::of(author, &date),
                verified: spec.verified,
                sha: None,
                shortcut: false,
            })
            .unwrap_or_default()
    }

    /// Moves (or creates) `branch` to `sha`, by `by`: records the write, lets the pull
    /// requests whose head it is follow, starts CI, and marks merged the open pull
    /// requests into it whose head it now contains. A write that is not a fast-forward
    /// (as far as the graph can tell) is recorded as forced.
    pub fn set_branch(&mut self, branch: &str, sha: &str, by: &Writer) {
        let old = self.branches.insert(branch.to_string(), sha.to_string());
        if old.as_deref() == Some(sha) {
            return;
        }
        let forced = old
            .as_deref()
            .is_some_and(|old| !self.graph.is_ancestor(old, sha));
        let at = self.now();
        self.ref_log
            .entry(branch.to_string())
            .or_default()
            .push(RefWrite {
                sha: Some(sha.to_string()),
                login: by.login.clone(),
                token: by.token.clone(),
                at,
                forced,
            });
        let heads: Vec<u64> = self
            .pulls
            .values()
            .filter(|pr| pr.open && !pr.fork && pr.head_ref == branch && pr.head_sha != sha)
            .map(|pr| pr.number)
            .collect();
        for number in &heads {
            self.move_pr_head(*number, sha);
        }
        self.ci_on_push(branch, sha);
        for number in heads {
            self.ci_on_pull_request(number, sha);
        }
        self.merge_contained(branch, old.as_deref(), sha, by);
    }

    /// Deletes `branch`, by `by`; false when there was none.
    pub fn delete_branch(&mut self, branch: &str, by: &Writer) -> bool {
        if self.branches.remove(branch).is_none() {
            return false;
        }
        let at = self.now();
        self.ref_log
            .entry(branch.to_string())
            .or_default()
            .push(RefWrite {
                sha: None,
                login: by.login.clone(),
                token: by.token.clone(),
                at,
                forced: false,
            });
        true
    }

    /// Every open pull request into `base` whose head `sha` now contains (and `old` did
    /// not) is merged, by whoever moved the base, with `sha` as its merge commit.
    fn merge_contained(&mut self, base: &str, old: Option<&str>, sha: &str, by: &Writer) {
        if !self.graph.contains(sha) {
            return;
        }
        let landed: Vec<(u64, Vec<String>)> = self
            .pulls
            .values()
            .filter(|pr| pr.open && pr.base_ref == base)
            .filter(|pr| self.graph.is_ancestor(&pr.head_sha, sha))
            .filter(|pr| old.is_none_or(|old| !self.graph.is_ancestor(&pr.head_sha, old)))
            .map(|pr| {
                let commits = old
                    .and_then(|old| self.graph.only_in(&pr.head_sha, old))
                    .unwrap_or_else(|| vec![pr.head_sha.clone()]);
                (pr.number, commits)
            })
            .collect();
        for (number, commits) in landed {
            let now = self.touch(number);
            if let Some(pr) = self.pulls.get_mut(&number) {
                pr.open = false;
                pr.merged = true;
                pr.merged_by = Some(by.login.clone());
                pr.merge_commit_sha = Some(sha.to_string());
                pr.merged_at.clone_from(&now);
                pr.closed_at = now;
                pr.mergeable = None;
                pr.mergeable_state = "unknown".to_string();
                pr.auto_merge = None;
                pr.in_merge_queue = false;
                pr.landed_commits = commits;
            }
        }
    }

    /// Merges `head` (a branch or a SHA) into `base` as `POST /merges` does: a merge
    /// commit whose parents are the base's head and the head, made and verified by
    /// GitHub for `by`, and the base moved to it (no protection is asked: a scene's
    /// merge; the route asks first).
    pub fn merge_into(
        &mut self,
        base: &str,
        head: &str,
        message: Option<&str>,
        by: &Writer,
    ) -> Result<MergeOutcome, MergeError> {
        let outcome = self.merge_commit(base, head, message, by)?;
        if let MergeOutcome::Merged(sha) = &outcome {
            self.set_branch(base, sha, by);
        }
        Ok(outcome)
    }

    /// The merge commit of `head` into `base` ([`World::merge_into`]), made but not yet
    /// the base's head.
    pub fn merge_commit(
        &mut self,
        base: &str,
        head: &str,
        message: Option<&str>,
        by: &Writer,
    ) -> Result<MergeOutcome, MergeError> {
        let ours = self.branch_commit(base).ok_or(MergeError::UnknownBase)?;
        let theirs = match self.branches.get(head).cloned() {
            Some(sha) => sha,
            None => head.to_string(),
        };
        if !self.ensure_commit(&theirs) {
            return Err(MergeError::UnknownHead);
        }
        if self.graph.is_ancestor(&theirs, &ours) {
            return Ok(MergeOutcome::AlreadyMerged);
        }
        let merged = self.merged_tree(&ours, &theirs)?;
        let date = self.tick();
        let message = message
            .map(str::to_string)
            .unwrap_or_else(|| format!("Merge {head} into {base}"));
        let sha = self
            .graph
            .insert(NewCommit {
                parents: vec![ours, theirs],
                tree: Arc::new(merged),
                message,
                author: Signature::of(&by.login, &date),
                committer: Signature::github(&date),
                verified: true,
                sha: None,
                shortcut: false,
            })
            .map_err(|_| MergeError::UnknownHead)?;
        Ok(MergeOutcome::Merged(sha))
    }

    /// The three-way merge of two graph commits' trees from their merge base.
    pub fn merged_tree(&self, ours: &str, theirs: &str) -> Result<Tree, MergeError> {
        let empty = Arc::new(Tree::new());
        let base = self
            .graph
            .merge_base(ours, theirs)
            .and_then(|b| self.tree(&b))
            .unwrap_or(empty);
        let (Some(o), Some(t)) = (self.tree(ours), self.tree(theirs)) else {
            return Err(MergeError::UnknownHead);
        };
        diff::merge(&base, &o, &t).map_err(|c| MergeError::Conflict(c.paths))
    }

    /// The files a pull request changes: from the graph when its head is a commit built
    /// there (the diff from the merge base of its base branch and its head, as GitHub
    /// shows a pull request), else its own `files`. A closed or merged one keeps the
    /// files it had against its `base_sha`.
    pub fn pr_files(&self, number: u64) -> Vec<PrFile> {
        let Some(pr) = self.pulls.get(&number) else {
            return Vec::new();
        };
        // An open pull request is compared with its base branch as it is now; a closed
        // or merged one with the base it had (once merged, the branch contains it).
        let base = match pr.open {
            true => self
                .branches
                .get(&pr.base_ref)
                .cloned()
                .unwrap_or_else(|| pr.base_sha.clone()),
            false => pr.base_sha.clone(),
        };
        match self.graph_diff(&base, &pr.head_sha) {
            Some(files) => files,
            None => pr.files.clone(),
        }
    }

    /// `base...head` over the graph: the files `head` changes since the merge base.
    /// `None` unless `head` is a commit built in the graph (not a shortcut) and `base`
    /// one the graph knows.
    pub fn graph_diff(&self, base: &str, head: &str) -> Option<Vec<PrFile>> {
        let commit = self.graph.get(head)?;
        if commit.shortcut || !self.graph.contains(base) {
            return None;
        }
        let from = self
            .graph
            .merge_base(base, head)
            .and_then(|b| self.tree(&b))
            .unwrap_or_default();
        Some(diff::trees(&from, &commit.tree))
    }

    /// The commits of a pull request, oldest first: those its head has and its base
    /// branch has not (once merged, the ones it landed); `None` when its head is not a
    /// graph commit.
    pub fn pr_commits(&self, number: u64) -> Option<Vec<String>> {
        let pr = self.pulls.get(&number)?;
        if !self.graph.contains(&pr.head_sha) {
            return None;
        }
        if pr.merged && !pr.landed_commits.is_empty() {
            return Some(pr.landed_commits.clone());
        }
        let base = self.branches.get(&pr.base_ref).unwrap_or(&pr.base_sha);
        if !self.graph.contains(base) {
            return Some(vec![pr.head_sha.clone()]);
        }
        self.graph.only_in(&pr.head_sha, base)
    }
}

/// A pull request's shortcut files applied to a tree: removed ones go, the others get
/// the text the world holds at the head, else their patch's added lines.
fn apply_files(
    tree: &mut Tree,
    files: &[PrFile],
    at_head: Option<&std::collections::BTreeMap<String, String>>,
) {
    for file in files {
        if let Some(previous) = &file.previous_filename
            && let Some(blob) = tree.remove(previous)
        {
            tree.insert(file.filename.clone(), blob);
        }
        if file.status == "removed" {
            tree.remove(&file.filename);
            continue;
        }
        let text = match at_head.and_then(|files| files.get(&file.filename)) {
            Some(text) => text.clone(),
            None => match &file.patch {
                Some(patch) => patch
                    .lines()
                    .filter_map(|l| l.strip_prefix('+'))
                    .map(|l| format!("{l}\n"))
                    .collect(),
                None if file.status == "renamed" => continue,
                None => {
                    tree.insert(
                        file.filename.clone(),
                        Blob::Id(crate::world::fake_sha(&format!("binary {}", file.filename))),
                    );
                    continue;
                }
            },
        };
        tree.insert(file.filename.clone(), Blob::Text(text));
    }
}

/// 40 lower-case hex digits.
pub fn is_sha(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
