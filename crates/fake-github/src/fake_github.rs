//! A fake GitHub on wiremock: the in-memory world of `world.rs` served over HTTP by one
//! responder (`routes/`, `graphql/`), with builders to set the scene (`builders.rs`),
//! fault drills (`faults.rs`), per-token permissions (`tokens.rs`) and a request log
//! (`log.rs`). The older helpers (`seed`, `policy`, `requests`, …) work as before, now
//! on top of the same world.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::REPO;
use crate::builders::{
    self, CommitBuilder, PrBuilder, ProtectionBuilder, PushBuilder, TokenBuilder,
};
use crate::ci::{Ci, CiRun};
use crate::faults::{Fault, Hook, HookFn, QueuedFault, Target, When};
use crate::git::{CommitSpec, MergeError, MergeOutcome, RefWrite, Writer};
use crate::graph::{Blob, Commit, Tree};
use crate::graphql::Operation;
use crate::log::Call;
use crate::routes::{WorldResponder, lock};
use crate::tokens::WORKFLOW_TOKEN;
use crate::world::PullRequest;
pub use crate::world::World;

pub use crate::routes::comment;

/// The policy file the product reads (`policy` input default).
const POLICY: &str = ".github/council.yml";

/// Every write a test's runs make must be looked at: when a world goes away with writes
/// nobody took ([`FakeGitHub::take_writes`]), the test fails, unless it said why they do
/// not matter ([`FakeGitHub::writes_not_checked`]).
pub struct FakeGitHub {
    pub server: MockServer,
    pub world: Arc<Mutex<World>>,
    /// Why this test's writes are not checked, when it said so.
    unchecked: std::sync::OnceLock<&'static str>,
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        // A test that already failed says why; a second panic would abort the run.
        if std::thread::panicking() || self.unchecked.get().is_some() {
            return;
        }
        self.assert_all_writes_seen();
    }
}

impl FakeGitHub {
    /// The world with every route mounted: the workflow token is `github-actions[bot]`,
    /// the release token `council-release[bot]`; `master` is the default branch.
    pub async fn start() -> FakeGitHub {
        let server = MockServer::start().await;
        let world = World {
            api: server.uri(),
            ..World::new(REPO)
        };
        let gh = FakeGitHub {
            server,
            world: Arc::new(Mutex::new(world)),
            unchecked: std::sync::OnceLock::new(),
        };
        gh.mount().await;
        gh
    }

    /// The routes the older fake mounted (GraphQL, issues, comments) keep their
    /// precedence: at the default priority, mounted first, they answer before a mock a
    /// test mounts later. Every other route yields to a test's own mocks.
    async fn mount(&self) {
        let repo = self.repo();
        let legacy = format!(r"^(/graphql|/repos/{repo}/issues/(\d+|\d+/comments|comments/\d+))$");
        Mock::given(path_regex(legacy))
            .respond_with(self.responder())
            .mount(&self.server)
            .await;
        Mock::given(path_regex(".*"))
            .respond_with(self.responder())
            .with_priority(u8::MAX)
            .mount(&self.server)
            .await;
    }

    fn responder(&self) -> WorldResponder {
        WorldResponder {
            world: self.world.clone(),
        }
    }

    /// A world holding issue `number` by `author` (the state commands' scene).
    pub async fn with_issue(number: u64, author: &str, body: &str) -> FakeGitHub {
        let gh = FakeGitHub::start().await;
        gh.issue(number, author, body);
        gh
    }

    /// Mounts the routes again after `server.reset()`; the world is kept.
    pub async fn remount(&self) {
        self.mount().await;
    }

    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// `owner/name` of the world's repository ([`REPO`] unless a test changed it).
    pub fn repo(&self) -> String {
        lock(&self.world).repo.clone()
    }

    // ------------------------------------------------------------------ the scene

    /// A pull request, created with defaults on first mention (head
    /// `feature/pr-<n>`, base `master`, mergeable and clean, by `octocat`).
    pub fn pr(&self, number: u64) -> PrBuilder<'_> {
        PrBuilder::new(self, number)
    }

    /// What CI reported on a commit.
    pub fn commit(&self, sha: &str) -> CommitBuilder<'_> {
        CommitBuilder::new(self, sha)
    }

    /// A token and its permissions (`WORKFLOW_TOKEN` and `RELEASE_TOKEN` exist already).
    pub fn token(&self, token: &str) -> TokenBuilder<'_> {
        TokenBuilder::new(self, token)
    }

    /// A branch at `sha` (a push by `octocat` when `sha` is a graph commit: CI and
    /// pull requests merged follow, as on any push).
    pub fn branch(&self, name: &str, sha: &str) {
        let mut w = lock(&self.world);
        match w.graph.contains(sha) {
            true => w.set_branch(name, sha, &Writer::push("octocat")),
            false => {
                w.branches.insert(name.to_string(), sha.to_string());
            }
        }
    }

    /// A file at a ref (branch name or SHA) for the contents API.
    pub fn file(&self, git_ref: &str, path: &str, text: &str) {
        lock(&self.world)
            .files
            .entry(git_ref.to_string())
            .or_default()
            .insert(path.to_string(), text.to_string());
    }

    // ------------------------------------------------------------ the commit graph

    /// A commit on `branch` (from the default branch's head when the branch is new)
    /// writing `files` (path, text), pushed by `octocat`: the branch moves to it, with
    /// all a push brings (CI, pull requests merged). Returns its SHA.
    pub fn commit_on(&self, branch: &str, files: &[(&str, &str)], message: &str) -> String {
        let spec = CommitSpec {
            changes: files
                .iter()
                .map(|(path, text)| (path.to_string(), Some(Blob::from(*text))))
                .collect(),
            message: message.to_string(),
            ..CommitSpec::default()
        };
        lock(&self.world).commit_on(branch, &spec)
    }

    /// A commit on `branch` described in full: `.file(…)`, `.delete(…)`, `.by(…)`,
    /// `.verified()`, then `.done()` pushes it.
    pub fn push_to(&self, branch: &str) -> PushBuilder<'_> {
        PushBuilder::new(self, branch)
    }

    /// `head` (a branch or SHA) merged into `base` by `login`, as `POST /merges` does,
    /// without asking the protections (a scene's merge).
    pub fn merge(&self, base: &str, head: &str, login: &str) -> Result<MergeOutcome, MergeError> {
        lock(&self.world).merge_into(base, head, None, &Writer::push(login))
    }

    /// Protects branches matching `branch` (a glob) with a ruleset: updates and
    /// deletion only by its bypass list, no force pushes.
    pub fn protect(&self, branch: &str) -> ProtectionBuilder<'_> {
        ProtectionBuilder::new(self, branch)
    }

    /// The world's CI rule (replacing any).
    pub fn ci(&self, ci: Ci) {
        lock(&self.world).ci = Some(ci);
    }

    /// Moves the world clock until every CI check has completed; how many did.
    pub fn ci_tick(&self) -> usize {
        lock(&self.world).ci_tick()
    }

    /// Moves the world clock `minutes` on; how many CI checks completed.
    pub fn advance_minutes(&self, minutes: u32) -> usize {
        lock(&self.world).advance_minutes(minutes)
    }

    /// How many CI runs started.
    pub fn ci_runs(&self) -> usize {
        lock(&self.world).ci_runs.len()
    }

    /// Every CI run started, oldest first.
    pub fn ci_run_list(&self) -> Vec<CiRun> {
        lock(&self.world).ci_runs.clone()
    }

    /// Every write of `branch`, oldest first: the SHA it pointed at after (`None`:
    /// deleted) and who wrote it.
    pub fn ref_history(&self, branch: &str) -> Vec<RefWrite> {
        lock(&self.world)
            .ref_log
            .get(branch)
            .cloned()
            .unwrap_or_default()
    }

    /// A commit of the graph (a shortcut's SHA is made one first).
    pub fn commit_state(&self, sha: &str) -> Option<Commit> {
        let mut w = lock(&self.world);
        w.ensure_commit(sha);
        w.graph.get(sha).cloned()
    }

    /// The tree at a branch or SHA (empty when the world knows no such commit).
    pub fn tree_at(&self, git_ref: &str) -> Tree {
        let mut w = lock(&self.world);
        let sha = w.resolve(git_ref);
        w.ensure_commit(&sha);
        w.tree(&sha).map(|t| (*t).clone()).unwrap_or_default()
    }

    /// Whether `ancestor` is reachable from `descendant` (branches or SHAs).
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        let w = lock(&self.world);
        w.graph
            .is_ancestor(&w.resolve(ancestor), &w.resolve(descendant))
    }

    /// A job of workflow run `run_id` on `sha`, in progress, reporting as a check run of
    /// the same name; returns the job's (and check run's) id.
    pub fn job(&self, run_id: u64, name: &str, sha: &str) -> u64 {
        builders::add_job(&mut lock(&self.world), run_id, name, sha)
    }

    /// Merge methods the repository allows (all three by default).
    pub fn allow_merge_methods(&self, methods: &[&str]) {
        lock(&self.world).merge_methods = methods.iter().map(|m| m.to_string()).collect();
    }

    /// A GraphQL operation by name (replacing one of the same name).
    pub fn graphql_operation(&self, name: &str, operation: Operation) {
        lock(&self.world)
            .graphql
            .insert(name.to_string(), operation);
    }

    /// Adds generated pull requests (with their ledger comments) and a registry issue to
    /// the world ([`crate::generate`]); returns what was made.
    pub fn generate(
        &self,
        spec: &crate::generate::Generate,
    ) -> Result<crate::generate::Generated, crate::generate::GenerateError> {
        crate::generate::fill(&mut lock(&self.world), spec)
    }

    /// How many requests the world answered, in all and by route.
    pub fn request_counts(&self) -> crate::log::RequestCounts {
        lock(&self.world).counts.clone()
    }

    /// Changes the world directly, for anything the builders do not say.
    pub fn edit<T>(&self, change: impl FnOnce(&mut World) -> T) -> T {
        change(&mut lock(&self.world))
    }

    // ------------------------------------------------------------ fault drills

    /// The next `times` requests to `method` + `fragment` get `fault`.
    pub fn fail_next(&self, method: &str, fragment: &str, times: usize, fault: Fault) {
        lock(&self.world).faults.push(QueuedFault {
            target: Target::new(method, fragment),
            remaining: times,
            fault,
        });
    }

    /// A one-shot change of the world just before the next matching request is answered.
    pub fn before(
        &self,
        method: &str,
        fragment: &str,
        hook: impl FnOnce(&mut World) + Send + 'static,
    ) {
        self.hook(When::Before, method, fragment, Box::new(hook));
    }

    /// A one-shot change of the world just after the next matching request is answered.
    pub fn after(
        &self,
        method: &str,
        fragment: &str,
        hook: impl FnOnce(&mut World) + Send + 'static,
    ) {
        self.hook(When::After, method, fragment, Box::new(hook));
    }

    fn hook(&self, when: When, method: &str, fragment: &str, run: HookFn) {
        lock(&self.world).hooks.push(Hook {
            target: Target::new(method, fragment),
            when,
            run,
        });
    }

    /// Someone pushes `sha` to the PR's head between the caller's read and its merge.
    pub fn push_before_merge(&self, pr: u64, sha: &str) {
        let sha = sha.to_string();
        self.before("PUT", &format!("/pulls/{pr}/merge"), move |w| {
            w.push_head(pr, &sha)
        });
    }

    /// Someone deletes comment `id` right after the caller next reads comments.
    pub fn delete_comment_after_read(&self, id: u64) {
        self.after("GET", "/comments", move |w| {
            w.comments.retain(|c| c["id"] != id)
        });
    }

    // --------------------------------------------------------------- assertions

    /// The pull request as the world holds it now.
    pub fn pr_state(&self, number: u64) -> PullRequest {
        lock(&self.world)
            .pr(number)
            .cloned()
            .unwrap_or_else(|| panic!("no pull request #{number} in the world"))
    }

    pub fn branch_head(&self, name: &str) -> Option<String> {
        lock(&self.world).branches.get(name).cloned()
    }

    /// Every request the world answered, in order.
    pub fn calls(&self) -> Vec<Call> {
        lock(&self.world).log.clone()
    }

    /// `METHOD /path?query` of every request the world answered.
    pub fn call_lines(&self) -> Vec<String> {
        self.calls().iter().map(Call::line).collect()
    }

    /// Writes not yet taken, now counted as seen by the test.
    pub fn take_writes(&self) -> Vec<Call> {
        let mut w = lock(&self.world);
        let writes: Vec<Call> = w.log.iter().filter(|c| c.write).cloned().collect();
        let new = writes[w.writes_seen.min(writes.len())..].to_vec();
        w.writes_seen = writes.len();
        new
    }

    /// Takes every write not taken yet and checks them, in order, as `METHOD /path` with
    /// the repository prefix and the query left out (`POST /issues/2/comments`).
    pub fn expect_writes(&self, expected: &[&str]) {
        let prefix = format!("/repos/{}", self.repo());
        let writes: Vec<String> = self
            .take_writes()
            .iter()
            .map(|c| {
                let path = c.path.split('?').next().unwrap_or("");
                format!("{} {}", c.method, path.replace(&prefix, ""))
            })
            .collect();
        assert_eq!(writes, expected, "the writes of this test's runs");
    }

    /// This test's writes are not what it checks (`why` says what it checks instead):
    /// the world will not fail it for writes nobody took.
    pub fn writes_not_checked(&self, why: &'static str) {
        let _ = self.unchecked.set(why);
    }

    /// Fails when a write happened that the test never took: every effect on GitHub
    /// must be asserted. Checked when the world goes away; call it to check earlier.
    pub fn assert_all_writes_seen(&self) {
        let w = lock(&self.world);
        let unseen: Vec<String> = w
            .log
            .iter()
            .filter(|c| c.write)
            .skip(w.writes_seen)
            .map(|c| {
                let body: String = c.body.to_string().chars().take(120).collect();
                format!("{c} with {:?}: {body}", c.token)
            })
            .collect();
        assert!(
            unseen.is_empty(),
            "writes the test never looked at:\n{}",
            unseen.join("\n")
        );
    }

    // ------------------------------------------------------ the older helpers

    /// The policy file at a ref (`None` = 404, the default policy applies).
    pub async fn policy(&self, git_ref: &str, text: Option<&str>) {
        let mut w = lock(&self.world);
        let files = w.files.entry(git_ref.to_string()).or_default();
        match text {
            Some(t) => files.insert(POLICY.to_string(), t.to_string()),
            None => files.remove(POLICY),
        };
    }

    /// An issue (or pull request) the state commands can read.
    pub fn issue(&self, number: u64, author: &str, body: &str) {
        lock(&self.world).issues.insert(
            number,
            crate::world::Issue {
                title: None,
                author: author.to_string(),
                body: body.to_string(),
                labels: Vec::new(),
            },
        );
    }

    /// The workflow token's login (`name[bot]` for apps).
    pub fn set_login(&self, login: &str) {
        if let Some(t) = lock(&self.world).tokens.get_mut(WORKFLOW_TOKEN) {
            t.login = login.to_string();
        }
    }

    /// The policy file on the default branch (GraphQL's `object(expression:)` and REST
    /// without a ref both see it).
    pub fn set_default_policy(&self, text: &str) {
        let mut w = lock(&self.world);
        let branch = w.default_branch.clone();
        w.files
            .entry(branch)
            .or_default()
            .insert(POLICY.to_string(), text.to_string());
    }

    pub fn fail_issue_query(&self) {
        lock(&self.world).issue_query_fails = true;
    }

    /// A comment with an author association (OWNER, MEMBER, COLLABORATOR, NONE, …).
    pub fn seed_as(&self, issue: u64, author: &str, association: &str, body: &str) -> u64 {
        let id = self.seed(issue, author, body);
        let mut w = lock(&self.world);
        if let Some(c) = w.comments.iter_mut().find(|c| c["id"] == id) {
            c["author_association"] = association.into();
        }
        id
    }

    /// `count` comments on `issue`, the body of each from its 0-based index.
    pub fn seed_many(
        &self,
        issue: u64,
        count: usize,
        author: &str,
        body: impl Fn(usize) -> String,
    ) {
        for i in 0..count {
            self.seed(issue, author, &body(i));
        }
    }

    /// A comment already on the PR/issue.
    pub fn seed(&self, issue: u64, author: &str, body: &str) -> u64 {
        let mut w = lock(&self.world);
        w.next_id += 1;
        let id = w.next_id;
        let c = comment(&w.repo, id, issue, author, body);
        let seq = w.next_number_id();
        w.comment_seq.insert(id, seq);
        w.comments.push(c);
        id
    }

    pub fn comment_bodies(&self) -> Vec<String> {
        lock(&self.world)
            .comments
            .iter()
            .map(|c| c["body"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// Every comment write answers `status` (older tests; new ones use `token(…)`).
    pub fn set_write_status(&self, status: u16) {
        lock(&self.world).write_status = Some(status);
    }

    /// `PATCH /pulls/{pr}` answers `status` whatever the world says.
    pub async fn accept_close(&self, pr: u64, status: u16) {
        let body = if status >= 400 {
            json!({"message": "Resource not accessible by integration"})
        } else {
            json!({"number": pr, "state": "closed"})
        };
        Mock::given(method("PATCH"))
            .and(path(format!("/repos/{}/pulls/{pr}", self.repo())))
            .respond_with(ResponseTemplate::new(status).set_body_json(body))
            .mount(&self.server)
            .await;
    }

    /// `METHOD /path?query` of every request, in order.
    pub async fn requests_with_query(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| match r.url.query() {
                Some(q) => format!("{} {}?{q}", r.method, r.url.path()),
                None => format!("{} {}", r.method, r.url.path()),
            })
            .collect()
    }

    /// The `variables` of every GraphQL request, in order.
    pub async fn graphql_variables(&self) -> Vec<Value> {
        self.bodies("POST")
            .await
            .into_iter()
            .filter(|b| b.get("query").is_some())
            .map(|b| b["variables"].clone())
            .collect()
    }

    /// Bodies of the comments posted, in order.
    pub async fn posted(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/comments"))
            .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
            .map(|b| b["body"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// `METHOD /path` of every request, in order.
    pub async fn requests(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| format!("{} {}", r.method, r.url.path()))
            .collect()
    }

    /// Requests other than the ledger's own (identity, comment list/read/write, the
    /// previous audit artifacts).
    pub async fn non_ledger_requests(&self) -> Vec<String> {
        self.requests()
            .await
            .into_iter()
            .filter(|r| {
                !r.ends_with("/graphql")
                    && !r.contains("/comments")
                    && !r.contains("/actions/artifacts")
            })
            .collect()
    }

    pub async fn writes(&self) -> Vec<String> {
        self.requests()
            .await
            .into_iter()
            .filter(|r| !r.starts_with("GET") && !r.ends_with("/graphql"))
            .collect()
    }

    pub async fn bodies(&self, method_name: &str) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.method.as_str() == method_name)
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }
}
