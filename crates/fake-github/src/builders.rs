//! Builders that let a test set the scene in one sentence:
//!
//! ```ignore
//! gh.pr(7).head("feature/x", SHA).base("develop")
//!     .files(&["src/lib.rs", "docs/lib.md"]).label("bot-approved")
//!     .check_run("ci", "completed", Some("success")).review("alice", "APPROVED", SHA);
//! ```
//!
//! Each call changes the world at once (there is no `build()`), so the order of calls is
//! the order of events: a check run lands on the head the PR has at that moment.

use crate::fake_github::FakeGitHub;
use crate::git::CommitSpec;
use crate::graph::Blob;
use crate::protection::{Kind, Protection};
use crate::routes::lock;
use crate::tokens::{Access, Scope, Token};
use crate::world::{
    AutoMerge, CheckRun, CommitStatus, Job, PrFile, PullRequest, Review, World, fake_sha, timestamp,
};

/// A pull request being described; created with defaults on first mention.
pub struct PrBuilder<'g> {
    gh: &'g FakeGitHub,
    number: u64,
}

impl<'g> PrBuilder<'g> {
    pub(super) fn new(gh: &'g FakeGitHub, number: u64) -> PrBuilder<'g> {
        let builder = PrBuilder { gh, number };
        builder.world(|w| {
            if !w.pulls.contains_key(&number) {
                let mut pr = PullRequest::new(number, w.owner());
                pr.base_sha = base_head(w, &pr.base_ref);
                w.branches.insert(pr.head_ref.clone(), pr.head_sha.clone());
                w.pulls.insert(number, pr);
            }
        });
        builder
    }

    fn world<T>(&self, change: impl FnOnce(&mut World) -> T) -> T {
        change(&mut lock(&self.gh.world))
    }

    fn edit(self, change: impl FnOnce(&mut PullRequest)) -> Self {
        self.world(|w| {
            if let Some(pr) = w.pulls.get_mut(&self.number) {
                change(pr);
            }
        });
        self
    }

    pub fn number(&self) -> u64 {
        self.number
    }

    /// The head SHA now (after `head`/`push`).
    pub fn head_sha(&self) -> String {
        self.world(|w| w.pr(self.number).map(|p| p.head_sha.clone()))
            .unwrap_or_default()
    }

    pub fn title(self, title: &str) -> Self {
        self.edit(|pr| pr.title = title.to_string())
    }

    pub fn body(self, body: &str) -> Self {
        self.edit(|pr| pr.body = body.to_string())
    }

    pub fn author(self, login: &str) -> Self {
        self.edit(|pr| pr.author = login.to_string())
    }

    /// The head branch and commit (a same-repository branch follows it).
    pub fn head(self, git_ref: &str, sha: &str) -> Self {
        self.world(|w| {
            if let Some(pr) = w.pulls.get_mut(&self.number) {
                let old = std::mem::replace(&mut pr.head_ref, git_ref.to_string());
                if !pr.fork {
                    w.branches.remove(&old);
                }
            }
            w.push_head(self.number, sha);
        });
        self
    }

    /// A new commit on the head branch.
    pub fn push(self, sha: &str) -> Self {
        self.world(|w| w.push_head(self.number, sha));
        self
    }

    /// A new commit on the head branch whose diff is `files` (instead of the files so far).
    pub fn push_with(self, sha: &str, files: Vec<PrFile>) -> Self {
        self.world(|w| {
            w.diffs.insert(sha.to_string(), files);
            w.push_head(self.number, sha);
        });
        self
    }

    /// The base branch; its head becomes the PR's base SHA.
    pub fn base(self, git_ref: &str) -> Self {
        self.world(|w| {
            let sha = base_head(w, git_ref);
            if let Some(pr) = w.pulls.get_mut(&self.number) {
                pr.base_ref = git_ref.to_string();
                pr.base_sha = sha;
            }
        });
        self
    }

    /// Retargeted to `git_ref` by its author, as after the scene set it up: the base
    /// changes and a `base_ref_changed` event is listed (a merge queue reads it).
    pub fn retarget(self, git_ref: &str) -> Self {
        let builder = self.base(git_ref);
        builder.world(|w| {
            let author = w
                .pulls
                .get(&builder.number)
                .map(|p| p.author.clone())
                .unwrap_or_default();
            w.label_event(builder.number, "base_ref_changed", "", &author);
        });
        builder
    }

    /// The head lives in `owner`'s fork (`head.repo.fork`, `owner:ref` label).
    pub fn fork(self, owner: &str) -> Self {
        self.world(|w| {
            if let Some(pr) = w.pulls.get_mut(&self.number) {
                pr.fork = true;
                pr.head_owner = owner.to_string();
                let head = pr.head_ref.clone();
                w.branches.remove(&head);
            }
        });
        self
    }

    pub fn draft(self) -> Self {
        self.edit(|pr| {
            pr.draft = true;
            pr.mergeable_state = "draft".to_string();
        })
    }

    pub fn closed(self) -> Self {
        self.edit(|pr| pr.open = false)
    }

    /// When it was opened (ISO 8601 with a zone; kept as GitHub writes it, in UTC).
    pub fn created_at(self, time: &str) -> Self {
        let time = scene_time(time);
        self.edit(|pr| pr.created_at = time)
    }

    /// When it was last updated. Later writes move it on from the world clock, which
    /// never goes back before it.
    pub fn updated_at(self, time: &str) -> Self {
        let time = scene_time(time);
        self.edit(|pr| pr.updated_at = time)
    }

    /// Closed at `time` (without a merge).
    pub fn closed_at(self, time: &str) -> Self {
        let time = scene_time(time);
        self.edit(|pr| {
            pr.open = false;
            pr.closed_at = Some(time);
        })
    }

    /// Merged (and so closed) at `time`, with a made-up merge commit unless it has one.
    pub fn merged_at(self, time: &str) -> Self {
        let time = scene_time(time);
        self.edit(|pr| {
            pr.open = false;
            pr.merged = true;
            pr.merged_at = Some(time.clone());
            pr.closed_at = Some(time);
            pr.mergeable = None;
            pr.mergeable_state = "unknown".to_string();
            if pr.merge_commit_sha.is_none() {
                pr.merge_commit_sha = Some(fake_sha(&format!("merge of #{}", pr.number)));
            }
        })
    }

    /// A label added now by the pull request's author (a `labeled` event too).
    pub fn label(self, name: &str) -> Self {
        self.world(|w| {
            let Some(pr) = w.pulls.get_mut(&self.number) else {
                return;
            };
            pr.labels.push(name.to_string());
            let author = pr.author.clone();
            w.label_event(self.number, "labeled", name, &author);
        });
        self
    }

    /// A label added at `time` by `actor` (its `labeled` event says when: a merge
    /// queue orders by it).
    pub fn label_at(self, name: &str, actor: &str, time: &str) -> Self {
        let time = scene_time(time);
        self.world(|w| {
            let Some(pr) = w.pulls.get_mut(&self.number) else {
                return;
            };
            if !pr.labels.iter().any(|l| l.eq_ignore_ascii_case(name)) {
                pr.labels.push(name.to_string());
            }
            w.label_event_at(self.number, "labeled", name, actor, &time);
        });
        self
    }

    /// A commit pushed to the head branch by the author, changing `files` (path,
    /// text): the first one starts from the base branch's head, later ones stack. Its
    /// files, compare, commits and the rollup's counts then come from the graph.
    pub fn commit(self, files: &[(&str, &str)], message: &str) -> Self {
        let spec = CommitSpec {
            changes: files
                .iter()
                .map(|(path, text)| (path.to_string(), Some(Blob::from(*text))))
                .collect(),
            message: message.to_string(),
            ..CommitSpec::default()
        };
        self.commit_spec(&spec)
    }

    /// [`PrBuilder::commit`] with every detail of the commit (`deletes`, a binary blob,
    /// another author, verified).
    pub fn commit_spec(self, spec: &CommitSpec) -> Self {
        self.world(|w| {
            let Some(pr) = w.pulls.get(&self.number).cloned() else {
                return;
            };
            let built = w.graph.get(&pr.head_sha).is_some_and(|c| !c.shortcut);
            let parent = match built {
                true => Some(pr.head_sha.clone()),
                false => {
                    base_head(w, &pr.base_ref);
                    let base = w.branch_commit(&pr.base_ref);
                    if let (Some(base), Some(pr)) = (&base, w.pulls.get_mut(&self.number)) {
                        pr.base_sha.clone_from(base);
                    }
                    base
                }
            };
            let author = spec.author.clone().unwrap_or_else(|| pr.author.clone());
            let sha = w.commit_with(parent.as_deref(), spec, &author);
            w.push_head(self.number, &sha);
        });
        self
    }

    /// `mergeable_state`, with the `mergeable` GitHub shows beside it (`dirty` is
    /// `false`, `unknown` is `null`, the rest `true`).
    pub fn mergeable_state(self, state: &str) -> Self {
        self.edit(|pr| {
            pr.mergeable_state = state.to_string();
            pr.mergeable = match state {
                "dirty" => Some(false),
                "unknown" => None,
                _ => Some(true),
            };
        })
    }

    /// `mergeable` alone (e.g. `None` while GitHub computes it).
    pub fn mergeable(self, mergeable: Option<bool>) -> Self {
        self.edit(|pr| pr.mergeable = mergeable)
    }

    pub fn auto_merge(self, enabled_by: &str, merge_method: &str) -> Self {
        self.edit(|pr| {
            pr.auto_merge = Some(AutoMerge {
                enabled_by: enabled_by.to_string(),
                merge_method: merge_method.to_string(),
            })
        })
    }

    pub fn in_merge_queue(self) -> Self {
        self.edit(|pr| pr.in_merge_queue = true)
    }

    /// Modified files, one changed line each.
    pub fn files(self, paths: &[&str]) -> Self {
        self.edit(|pr| {
            pr.files.extend(
                paths
                    .iter()
                    .map(|p| PrFile::modified(p, &["old line"], &["new line"])),
            )
        })
    }

    pub fn file(self, file: PrFile) -> Self {
        self.edit(|pr| pr.files.push(file))
    }

    /// `count` generated files (`src/generated/file_0001.rs`, …), one added line each:
    /// beyond 3,000 GitHub stops listing them.
    pub fn many_files(self, count: usize) -> Self {
        self.edit(|pr| pr.files.extend((1..=count).map(PrFile::generated)))
    }

    /// A submitted review (`APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `DISMISSED`) on
    /// commit `sha`.
    pub fn review(self, user: &str, state: &str, sha: &str) -> Self {
        self.world(|w| {
            let id = w.next_number_id();
            if let Some(pr) = w.pulls.get_mut(&self.number) {
                pr.reviews.push(Review {
                    id,
                    user: user.to_string(),
                    state: state.to_string(),
                    commit_id: sha.to_string(),
                    submitted_at: timestamp(id),
                    body: String::new(),
                });
            }
        });
        self
    }

    /// An approval of the current head.
    pub fn approved_by(self, user: &str) -> Self {
        let sha = self.head_sha();
        self.review(user, "APPROVED", &sha)
    }

    /// A check run on the current head (by GitHub Actions).
    pub fn check_run(self, name: &str, status: &str, conclusion: Option<&str>) -> Self {
        let sha = self.head_sha();
        self.gh.commit(&sha).check_run(name, status, conclusion);
        self
    }

    /// A commit status on the current head.
    pub fn status(self, context: &str, state: &str) -> Self {
        let sha = self.head_sha();
        self.gh.commit(&sha).status(context, state);
        self
    }

    /// The job running the action itself: an in-progress check run on the head, and
    /// the job of workflow run `run_id` that reports as it.
    pub fn own_job(self, run_id: u64, name: &str) -> Self {
        let sha = self.head_sha();
        self.gh.job(run_id, name, &sha);
        self
    }
}

/// What CI reported on one commit (a PR head, or a merge commit on the base).
pub struct CommitBuilder<'g> {
    gh: &'g FakeGitHub,
    sha: String,
}

impl<'g> CommitBuilder<'g> {
    pub(super) fn new(gh: &'g FakeGitHub, sha: &str) -> CommitBuilder<'g> {
        CommitBuilder {
            gh,
            sha: sha.to_string(),
        }
    }

    /// A check run by `github-actions`; a later one with the same name is a re-run.
    pub fn check_run(self, name: &str, status: &str, conclusion: Option<&str>) -> Self {
        self.check_run_by("github-actions", name, status, conclusion)
    }

    /// A check run by another app (e.g. `codecov`).
    pub fn check_run_by(
        self,
        app_slug: &str,
        name: &str,
        status: &str,
        conclusion: Option<&str>,
    ) -> Self {
        {
            let mut w = lock(&self.gh.world);
            let id = w.next_number_id();
            let run = CheckRun {
                id,
                name: name.to_string(),
                head_sha: self.sha.clone(),
                status: status.to_string(),
                conclusion: conclusion.map(str::to_string),
                app_slug: app_slug.to_string(),
                started_at: timestamp(id),
                completed_at: (status == "completed").then(|| timestamp(id + 1)),
            };
            w.checks_mut(&self.sha).check_runs.push(run);
        }
        self
    }

    /// A commit status (`error`, `failure`, `pending`, `success`); a later one with the
    /// same context replaces it in the combined status.
    pub fn status(self, context: &str, state: &str) -> Self {
        {
            let mut w = lock(&self.gh.world);
            let id = w.next_number_id();
            let status = CommitStatus {
                id,
                context: context.to_string(),
                state: state.to_string(),
                description: Some(format!("{context}: {state}")),
                target_url: Some(format!("https://ci.example.com/{id}")),
                created_at: timestamp(id),
            };
            w.checks_mut(&self.sha).statuses.push(status);
        }
        self
    }
}

/// A token being described; unknown tokens start read-only as `github-actions[bot]`.
pub struct TokenBuilder<'g> {
    gh: &'g FakeGitHub,
    token: String,
}

impl<'g> TokenBuilder<'g> {
    pub(super) fn new(gh: &'g FakeGitHub, token: &str) -> TokenBuilder<'g> {
        lock(&gh.world)
            .tokens
            .entry(token.to_string())
            .or_insert_with(|| Token::read_only("github-actions[bot]"));
        TokenBuilder {
            gh,
            token: token.to_string(),
        }
    }

    fn edit(self, change: impl FnOnce(&mut Token)) -> Self {
        if let Some(t) = lock(&self.gh.world).tokens.get_mut(&self.token) {
            change(t);
        }
        self
    }

    pub fn login(self, login: &str) -> Self {
        self.edit(|t| t.login = login.to_string())
    }

    /// Read on everything, write on nothing: a fork PR's token.
    pub fn read_only(self) -> Self {
        self.edit(|t| *t = Token::read_only(&t.login))
    }

    pub fn grant(self, scope: Scope, access: Access) -> Self {
        self.edit(|t| {
            t.permissions.insert(scope, access);
        })
    }

    pub fn revoke(self, scope: Scope) -> Self {
        self.edit(|t| {
            t.permissions.remove(&scope);
        })
    }
}

/// Scene-setting for files of a pull request.
impl PrFile {
    fn new(filename: &str, status: &str) -> PrFile {
        PrFile {
            filename: filename.to_string(),
            status: status.to_string(),
            previous_filename: None,
            additions: 0,
            deletions: 0,
            patch: None,
        }
    }

    /// A new file, every line of `text` added.
    pub fn added(filename: &str, text: &str) -> PrFile {
        let lines: Vec<&str> = text.lines().collect();
        PrFile::modified(filename, &[], &lines).status("added")
    }

    /// A deleted file, every line of `text` removed.
    pub fn removed(filename: &str, text: &str) -> PrFile {
        let lines: Vec<&str> = text.lines().collect();
        PrFile::modified(filename, &lines, &[]).status("removed")
    }

    /// One hunk: `removed` lines out, `added` lines in.
    pub fn modified(filename: &str, removed: &[&str], added: &[&str]) -> PrFile {
        let old_start = usize::from(!removed.is_empty());
        let new_start = usize::from(!added.is_empty());
        let mut patch = format!(
            "@@ -{old_start},{} +{new_start},{} @@",
            removed.len(),
            added.len()
        );
        for line in removed {
            patch.push_str(&format!("\n-{line}"));
        }
        for line in added {
            patch.push_str(&format!("\n+{line}"));
        }
        PrFile {
            additions: added.len() as u64,
            deletions: removed.len() as u64,
            patch: Some(patch),
            ..PrFile::new(filename, "modified")
        }
    }

    /// Moved without a change: no patch, no lines.
    pub fn renamed(from: &str, to: &str) -> PrFile {
        PrFile {
            previous_filename: Some(from.to_string()),
            ..PrFile::new(to, "renamed")
        }
    }

    /// A binary file: GitHub sends no `patch`.
    pub fn binary(filename: &str) -> PrFile {
        PrFile::new(filename, "added")
    }

    /// The `n`th generated file of a big PR.
    pub fn generated(n: usize) -> PrFile {
        PrFile::added(
            &format!("src/generated/file_{n:04}.rs"),
            &format!("pub const N: usize = {n};"),
        )
    }

    /// Another status (`copied`, `changed`, `unchanged`, …).
    pub fn status(mut self, status: &str) -> PrFile {
        self.status = status.to_string();
        self
    }

    /// The file it was renamed or copied from.
    pub fn from(mut self, previous: &str) -> PrFile {
        self.previous_filename = Some(previous.to_string());
        self
    }

    /// No `patch` (GitHub leaves it out for binary files and very large diffs).
    pub fn without_patch(mut self) -> PrFile {
        self.patch = None;
        self
    }
}

/// A time a scene sets, as GitHub writes it; a test that writes no time is stopped.
fn scene_time(time: &str) -> String {
    crate::world::normalize_time(time).unwrap_or_else(|| {
        panic!("{time:?} is not an ISO 8601 time with a zone, such as 2026-01-05T09:30:00Z")
    })
}

/// The head of a base branch, made up (and remembered) on first mention.
fn base_head(w: &mut World, git_ref: &str) -> String {
    w.branches
        .entry(git_ref.to_string())
        .or_insert_with(|| fake_sha(git_ref))
        .clone()
}

/// A job of workflow run `run_id` on `sha`, in progress, with its check run.
pub(super) fn add_job(w: &mut World, run_id: u64, name: &str, sha: &str) -> u64 {
    let id = w.next_number_id();
    w.checks_mut(sha).check_runs.push(CheckRun {
        id,
        name: name.to_string(),
        head_sha: sha.to_string(),
        status: "in_progress".to_string(),
        conclusion: None,
        app_slug: "github-actions".to_string(),
        started_at: timestamp(id),
        completed_at: None,
    });
    w.runs.entry(run_id).or_default().push(Job {
        id,
        run_id,
        name: name.to_string(),
        head_sha: sha.to_string(),
        status: "in_progress".to_string(),
        conclusion: None,
        check_run_id: id,
    });
    id
}

/// A commit pushed to a branch (`FakeGitHub::push_to`): files written or deleted on top
/// of the branch's head, then `done()` pushes it and returns its SHA.
pub struct PushBuilder<'g> {
    gh: &'g FakeGitHub,
    branch: String,
    spec: CommitSpec,
}

impl<'g> PushBuilder<'g> {
    pub(super) fn new(gh: &'g FakeGitHub, branch: &str) -> PushBuilder<'g> {
        PushBuilder {
            gh,
            branch: branch.to_string(),
            spec: CommitSpec::default(),
        }
    }

    pub fn file(mut self, path: &str, text: &str) -> Self {
        self.spec
            .changes
            .push((path.to_string(), Some(Blob::from(text))));
        self
    }

    /// A binary file, named by its blob id (its diff has no patch).
    pub fn blob(mut self, path: &str, id: &str) -> Self {
        self.spec
            .changes
            .push((path.to_string(), Some(Blob::Id(id.to_string()))));
        self
    }

    pub fn delete(mut self, path: &str) -> Self {
        self.spec.changes.push((path.to_string(), None));
        self
    }

    pub fn message(mut self, message: &str) -> Self {
        self.spec.message = message.to_string();
        self
    }

    /// Pushed by `login` (its author and the ref's writer; default `octocat`).
    pub fn by(mut self, login: &str) -> Self {
        self.spec.author = Some(login.to_string());
        self
    }

    /// Signed and verified, as if GitHub had made it.
    pub fn verified(mut self) -> Self {
        self.spec.verified = true;
        self
    }

    /// Pushes it: the branch moves (with everything a push brings: CI, pull requests
    /// merged when the branch now contains their head). Returns its SHA.
    pub fn done(self) -> String {
        lock(&self.gh.world).commit_on(&self.branch, &self.spec)
    }
}

/// A branch protection being described (`FakeGitHub::protect`): a ruleset restricting
/// updates and deletion to its bypass list, with no force pushes.
pub struct ProtectionBuilder<'g> {
    gh: &'g FakeGitHub,
    index: usize,
}

impl<'g> ProtectionBuilder<'g> {
    pub(super) fn new(gh: &'g FakeGitHub, branch: &str) -> ProtectionBuilder<'g> {
        let mut w = lock(&gh.world);
        w.protections.push(Protection::ruleset(branch));
        let index = w.protections.len() - 1;
        drop(w);
        ProtectionBuilder { gh, index }
    }

    fn edit(self, change: impl FnOnce(&mut Protection)) -> Self {
        if let Some(p) = lock(&self.gh.world).protections.get_mut(self.index) {
            change(p);
        }
        self
    }

    /// May do what the rules forbid.
    pub fn bypass(self, login: &str) -> Self {
        self.edit(|p| p.bypass.push(login.to_string()))
    }

    /// A ruleset of this name (the default is named after the branch).
    pub fn named(self, name: &str) -> Self {
        self.edit(|p| p.kind = Kind::Ruleset(name.to_string()))
    }

    /// A classic branch protection rule instead of a ruleset.
    pub fn classic(self) -> Self {
        self.edit(|p| p.kind = Kind::Classic)
    }

    /// Anyone may update it (the other rules still apply).
    pub fn allow_updates(self) -> Self {
        self.edit(|p| p.restrict_updates = false)
    }

    pub fn require_pull_request(self) -> Self {
        self.edit(|p| p.require_pull_request = true)
    }

    pub fn linear_history(self) -> Self {
        self.edit(|p| p.required_linear_history = true)
    }

    pub fn allow_force_pushes(self) -> Self {
        self.edit(|p| p.block_force_pushes = false)
    }

    pub fn allow_deletions(self) -> Self {
        self.edit(|p| p.restrict_deletions = false)
    }
}
