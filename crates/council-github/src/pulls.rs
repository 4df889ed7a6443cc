//! What the release stage reads and writes, one small method per call: a pull request
//! and the pull requests of a commit (REST), the one GraphQL query that answers most of
//! a release decision (`PullRequestRollup`), a workflow run's jobs, and the revert
//! mutation. The merge itself is `rest.rs`'s `merge_pull`.

use serde::Deserialize;

/// A pull request as the list answers it: what a sync needs to decide whether to read it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PullSummary {
    pub number: u64,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub user: Option<crate::rest::User>,
    #[serde(default)]
    pub created_at: Option<String>,
    pub updated_at: String,
    #[serde(default)]
    pub closed_at: Option<String>,
    #[serde(default)]
    pub merged_at: Option<String>,
    /// The branches and head commit: with `user`, who the audit store attributes the
    /// pull request to (the ledger's own header is unsigned).
    #[serde(default)]
    pub head: Option<PullBranch>,
    #[serde(default)]
    pub base: Option<PullBranch>,
}

/// A pull request's `head` or `base` as the list answers it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PullBranch {
    #[serde(rename = "ref")]
    pub name: String,
    #[serde(default)]
    pub sha: Option<String>,
}
use serde_json::{Value, json};

use super::client::{ApiError, GitHub};
use super::rest::{Identity, rest_login};
use council_protocol::error::Error;
use council_protocol::event::PullRequest;

/// A release decision reads at most this many pages of checks (100 each): more than any
/// real pipeline; what lies beyond counts as pending, never as green.
pub const MAX_CHECK_PAGES: usize = 50;
/// Jobs of one workflow run read at most (100 each).
const MAX_JOB_PAGES: usize = 5;

/// One query for what a release decision needs about a pull request: its state, title,
/// body, author, branches, mergeability, labels, each writer's latest review (and the
/// commit it reviewed), native auto-merge and merge queue, its first 100 commits (their
/// messages and the accounts GitHub credits as their authors and co-authors: who is an
/// agent, and whose approval of an agent's pull request counts), and the newest report
/// of every check on its head (or, once merged, on its merge commit, who merged it and
/// the pull requests that refer to it), with `viewer` (the token's identity, which the
/// ledger needs) on the side. `contexts` pages with `$after`; the commits come with the
/// first page only (`$commits`), and further ones with [`COMMITS_QUERY`].
/// `{optional:…}` marks what an older server may not know: [`RollupShape`] leaves those
/// out once the server says so.
const ROLLUP_QUERY: &str = "query PullRequestRollup($owner: String!, $repo: String!, \
$number: Int!, $first: Int!, $after: String, $merged: Boolean!, $commits: Boolean!) {
  viewer { login __typename }
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      id number title body url state isDraft merged
      author { login __typename }
      mergedBy { login __typename }
      headRefName headRefOid baseRefName baseRefOid
      changedFiles additions deletions
      mergeable {optional:mergeStateStatus} {optional:isInMergeQueue}
      {optional:autoMergeRequest}
      labels(first: 100) { nodes { name } }
      latestOpinionatedReviews(first: 100, writersOnly: true) {
        nodes { author { login __typename } state commit { oid } }
      }
      commits(last: 1) @skip(if: $merged) {
        nodes { commit { oid statusCheckRollup { ...Checks } } }
      }
      listedCommits: commits(first: 100) @include(if: $commits) { ...Listed }
      mergeCommit @include(if: $merged) { oid statusCheckRollup { ...Checks } }
      {optional:timelineItems}
    }
  }
}
fragment Checks on StatusCheckRollup {
  state
  contexts(first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      __typename
      ... on CheckRun {
        databaseId name status conclusion detailsUrl
        checkSuite { app { slug } }
      }
      ... on StatusContext { context state targetUrl }
    }
  }
}
fragment Listed on PullRequestCommitConnection {
  totalCount
  pageInfo { hasNextPage endCursor }
  nodes { commit { oid message authors(first: 10) { nodes { user { login } } } } }
}";

/// The pull request's commits after the first 100 (`$after`), as [`ROLLUP_QUERY`] reads
/// them, with the head they were listed for.
const COMMITS_QUERY: &str = "query PullRequestCommits($owner: String!, $repo: String!, \
$number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      headRefOid
      listedCommits: commits(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { commit { oid message authors(first: 10) { nodes { user { login } } } } }
      }
    }
  }
}";

/// The fields of [`ROLLUP_QUERY`] a decision can do without, and their selections. A
/// server that does not know one (a GHES: `isInMergeQueue`) is asked again without it.
const OPTIONAL_FIELDS: [(&str, &str); 4] = [
    ("mergeStateStatus", "mergeStateStatus"),
    ("isInMergeQueue", "isInMergeQueue"),
    (
        "autoMergeRequest",
        "autoMergeRequest { enabledBy { login __typename } mergeMethod }",
    ),
    // The pull requests that refer to a merged one: a revert opened by the release
    // token is among them.
    (
        "timelineItems",
        "timelineItems(last: 100, itemTypes: [CROSS_REFERENCED_EVENT]) @include(if: $merged) { \
         nodes { ... on CrossReferencedEvent { source { __typename ... on PullRequest { \
         number headRefName author { login __typename } } } } } }",
    ),
];

/// Which optional fields of the rollup query this server was found not to know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RollupShape {
    pub dropped: Vec<&'static str>,
}

impl RollupShape {
    fn query(&self) -> String {
        let mut query = ROLLUP_QUERY.to_string();
        for (name, selection) in OPTIONAL_FIELDS {
            let kept = if self.dropped.contains(&name) {
                ""
            } else {
                selection
            };
            query = query.replace(&format!("{{optional:{name}}}"), kept);
        }
        query
    }

    /// Leaves out the optional fields GitHub's error names as unknown; `false` when it
    /// names none that can be left out (the error stands).
    fn drop_unknown(&mut self, message: &str) -> bool {
        let mut dropped = false;
        for field in unknown_fields(message) {
            if let Some((name, _)) = OPTIONAL_FIELDS.iter().find(|(n, _)| *n == field)
                && !self.dropped.contains(name)
            {
                self.dropped.push(name);
                dropped = true;
            }
        }
        dropped
    }
}

/// The fields a GraphQL error says a type does not have: GitHub answers `Field
/// 'isInMergeQueue' doesn't exist on type 'PullRequest'` (one error per field).
fn unknown_fields(message: &str) -> Vec<&str> {
    message
        .split("Field '")
        .skip(1)
        .filter_map(|rest| {
            let (field, after) = rest.split_once('\'')?;
            after
                .trim_start()
                .starts_with("doesn't exist on type")
                .then_some(field)
        })
        .collect()
}

const REVERT_MUTATION: &str = "mutation RevertPullRequest($input: RevertPullRequestInput!) {
  revertPullRequest(input: $input) { revertPullRequest { number url } }
}";

/// `PullRequestRollup`'s pull request. Every field has a default: a field the query
/// left out for an older server (see [`RollupShape`]) reads as absent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RollupPr {
    /// The node id (`revertPullRequest` takes it).
    pub id: String,
    pub number: u64,
    pub title: String,
    /// `null` for an empty description.
    pub body: Option<String>,
    pub url: String,
    /// `OPEN`, `CLOSED`, `MERGED`.
    pub state: String,
    pub is_draft: bool,
    pub merged: bool,
    /// `null` when the account was deleted.
    pub author: Option<Actor>,
    pub merged_by: Option<Actor>,
    pub head_ref_name: String,
    pub head_ref_oid: String,
    pub base_ref_name: String,
    /// The base branch's head now: what the diff of the decision is read against.
    pub base_ref_oid: String,
    pub changed_files: Option<u64>,
    pub additions: Option<u64>,
    pub deletions: Option<u64>,
    /// `MERGEABLE`, `CONFLICTING`, `UNKNOWN`.
    pub mergeable: String,
    /// `CLEAN`, `DIRTY`, `BEHIND`, `BLOCKED`, `UNSTABLE`, `HAS_HOOKS`, `DRAFT`, `UNKNOWN`.
    pub merge_state_status: String,
    pub is_in_merge_queue: bool,
    pub auto_merge_request: Option<AutoMergeRequest>,
    pub labels: Nodes<LabelNode>,
    pub latest_opinionated_reviews: Nodes<ReviewNode>,
    pub commits: Nodes<CommitWrap>,
    /// The first 100 commits, oldest first (first page of the checks only).
    pub listed_commits: Option<ListedCommits>,
    pub merge_commit: Option<CommitNode>,
    /// Merged only: the pull requests that refer to this one.
    pub timeline_items: Nodes<CrossReference>,
}

impl RollupPr {
    /// The commit whose checks decide: the head, or once merged the merge commit.
    pub fn decisive_commit(&self) -> Option<&CommitNode> {
        if self.merged {
            self.merge_commit.as_ref()
        } else {
            self.commits
                .nodes
                .iter()
                .flatten()
                .next()
                .map(|c| &c.commit)
        }
    }
}

/// A GraphQL connection's `nodes`; GitHub may put `null` in place of a node it cannot
/// show.
#[derive(Debug, Clone, Deserialize)]
#[serde(bound = "T: Deserialize<'de>")]
pub struct Nodes<T> {
    #[serde(default)]
    pub nodes: Vec<Option<T>>,
}

impl<T> Default for Nodes<T> {
    fn default() -> Self {
        Nodes { nodes: Vec::new() }
    }
}

impl<T> Nodes<T> {
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.nodes.iter().flatten()
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AutoMergeRequest {
    pub enabled_by: Option<Actor>,
    pub merge_method: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Actor {
    pub login: String,
    #[serde(rename = "__typename")]
    pub typename: String,
}

impl Actor {
    /// The login as REST spells it (`name[bot]` for apps).
    pub fn rest_login(&self) -> String {
        rest_login(self.login.clone(), &self.typename)
    }
}

/// A `CrossReferencedEvent`: something that mentioned the pull request.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrossReference {
    pub source: Option<Referrer>,
}

/// The referring item; only pull requests carry these fields.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Referrer {
    pub number: Option<u64>,
    pub head_ref_name: Option<String>,
    pub author: Option<Actor>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LabelNode {
    pub name: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ReviewNode {
    pub author: Option<Actor>,
    pub state: String,
    /// The commit reviewed (`null` when GitHub no longer has it).
    pub commit: Option<Oid>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Oid {
    pub oid: String,
}

/// A page of a pull request's commits.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListedCommits {
    pub total_count: u64,
    pub page_info: PageInfo,
    pub nodes: Vec<Option<ListedCommitWrap>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ListedCommitWrap {
    pub commit: ListedCommit,
}

/// One commit: its message, and the accounts GitHub credits as its authors and
/// co-authors (`Commit.authors`: a `GitActor` whose email belongs to no person has no
/// `user`, and an app is not a `User`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ListedCommit {
    pub oid: String,
    pub message: String,
    pub authors: Nodes<GitActor>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GitActor {
    pub user: Option<UserLogin>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct UserLogin {
    pub login: String,
}

impl ListedCommit {
    /// The logins GitHub credits (persons only).
    pub fn author_logins(&self) -> impl Iterator<Item = &str> {
        self.authors
            .iter()
            .filter_map(|a| a.user.as_ref())
            .map(|u| u.login.as_str())
            .filter(|l| !l.is_empty())
    }
}

impl ListedCommits {
    pub fn iter(&self) -> impl Iterator<Item = &ListedCommit> {
        self.nodes.iter().flatten().map(|w| &w.commit)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CommitWrap {
    pub commit: CommitNode,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CommitNode {
    pub oid: String,
    /// `null` when nothing reported on the commit.
    pub status_check_rollup: Option<Rollup>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Rollup {
    pub contexts: Contexts,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Contexts {
    pub total_count: u64,
    pub page_info: PageInfo,
    pub nodes: Vec<Option<ContextNode>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

/// A check run or a commit status, told apart by `__typename`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "__typename")]
pub enum ContextNode {
    CheckRun(CheckRunNode),
    StatusContext(StatusNode),
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CheckRunNode {
    pub database_id: Option<u64>,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub details_url: Option<String>,
    pub check_suite: Option<CheckSuite>,
}

impl CheckRunNode {
    pub fn app_slug(&self) -> &str {
        self.check_suite
            .as_ref()
            .and_then(|s| s.app.as_ref())
            .map_or("", |a| a.slug.as_str())
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CheckSuite {
    pub app: Option<App>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct App {
    pub slug: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatusNode {
    pub context: String,
    pub state: String,
    pub target_url: Option<String>,
}

/// A job of a workflow run (`GET /actions/runs/{id}/jobs`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Job {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub head_sha: String,
    /// `…/check-runs/{id}`: the check run the job reports as.
    pub check_run_url: String,
}

impl Job {
    pub fn check_run_id(&self) -> Option<u64> {
        self.check_run_url.rsplit('/').next()?.parse().ok()
    }
}

/// The pull request a revert opened.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Reverted {
    pub number: u64,
    pub url: String,
}

impl GitHub {
    /// `GET /pulls/{n}` as the same `PullRequest` an event carries; a pull request that
    /// is not there (or not readable with this token) is bad input naming it.
    pub async fn pull_request(&self, number: u64) -> Result<PullRequest, Error> {
        let value = match self.get_pull(number).await {
            Ok(value) => value,
            Err(ApiError::NotFound { .. }) => {
                return Err(Error::Input(format!(
                    "pull request #{number} was not found in {}, or the token cannot read it",
                    self.repo
                )));
            }
            Err(e) => return Err(e.into()),
        };
        PullRequest::from_api(&value, &format!("GET /pulls/{number}"))
    }

    /// `GET /pulls/{n}`, as JSON: the same fields as an event's `pull_request`.
    pub async fn get_pull(&self, number: u64) -> Result<Value, ApiError> {
        let what = format!("reading pull request #{number}");
        self.get(&what, &self.repo_path(&format!("/pulls/{number}")), None)
            .await?
            .json(&what)
    }

    /// `GET /commits/{sha}/pulls`: the open pull requests whose commits include `sha`,
    /// and, when `sha` is on the default branch, the merged one that brought it; one
    /// request (100 are plenty for one commit).
    pub async fn pulls_of_commit(&self, sha: &str) -> Result<Vec<Value>, ApiError> {
        let what = format!("finding the pull requests of commit {sha}");
        let url = self.repo_path(&format!(
            "/commits/{}/pulls?per_page=100",
            super::rest::encode(sha)
        ));
        self.get(&what, &url, None).await?.json(&what)
    }

    /// The pull requests closed most recently into `base`, newest first (one page): how a
    /// push to a base that is not the default branch finds the pull request it merged,
    /// which `GET /commits/{sha}/pulls` lists only for the default branch.
    /// The first page of the repository's pull requests, every state, most recently
    /// updated first (100 per page): a sync reads on with [`GitHub::get_page`] until it
    /// reaches what it read before.
    pub fn pulls_by_update_url(&self) -> String {
        self.repo_path("/pulls?state=all&sort=updated&direction=desc&per_page=100")
    }

    pub async fn recently_closed_into(&self, base: &str) -> Result<Vec<Value>, ApiError> {
        let what = format!("listing the pull requests closed into {base}");
        let url = self.repo_path(&format!(
            "/pulls?state=closed&base={}&sort=updated&direction=desc&per_page=30",
            super::rest::encode(base)
        ));
        self.get(&what, &url, None).await?.json(&what)
    }

    /// One page of `PullRequestRollup` (`after`: the checks' cursor); `merged` asks for
    /// the merge commit's checks instead of the head's. `None`: no such pull request.
    /// A server that does not know an optional field is asked again without it, and
    /// `shape` remembers that for the next pages. The token's identity comes along and
    /// is kept, so that finding the ledger comment afterwards costs no request of its own.
    pub async fn pull_rollup(
        &self,
        number: u64,
        merged: bool,
        after: Option<&str>,
        shape: &mut RollupShape,
    ) -> Result<Option<RollupPr>, ApiError> {
        #[derive(Deserialize)]
        struct Data {
            #[serde(default)]
            viewer: Option<Actor>,
            repository: Option<Repository>,
        }
        #[derive(Deserialize)]
        struct Repository {
            #[serde(rename = "pullRequest")]
            pull_request: Option<RollupPr>,
        }
        let variables = json!({
            "owner": self.repo.owner,
            "repo": self.repo.name,
            "number": number,
            "first": 100,
            "after": after,
            "merged": merged,
            // The commits once, with the first page of checks.
            "commits": !merged && after.is_none(),
        });
        let what = format!("reading pull request #{number} and its checks");
        let data: Data = loop {
            let payload = json!({
                "operationName": "PullRequestRollup",
                "query": shape.query(),
                "variables": variables,
            });
            match self.graphql(&what, &payload).await {
                Ok(data) => break data,
                Err(ApiError::Rejected { message, .. }) if shape.drop_unknown(&message) => {}
                Err(e) => return Err(e),
            }
        };
        if let Some(viewer) = data.viewer.filter(|v| !v.login.is_empty()) {
            let _ = self.identity_cell().set(Some(Identity {
                login: viewer.rest_login(),
            }));
        }
        Ok(data.repository.and_then(|r| r.pull_request))
    }

    /// The pull request's commits after cursor `after` (100 at most), and the head they
    /// were listed for; `None`: no such pull request.
    pub async fn pull_commits(
        &self,
        number: u64,
        after: &str,
    ) -> Result<Option<(String, ListedCommits)>, ApiError> {
        #[derive(Deserialize)]
        struct Data {
            repository: Option<Repository>,
        }
        #[derive(Deserialize)]
        struct Repository {
            #[serde(rename = "pullRequest")]
            pull_request: Option<Pull>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Pull {
            #[serde(default)]
            head_ref_oid: String,
            #[serde(default)]
            listed_commits: ListedCommits,
        }
        let what = format!("reading the commits of pull request #{number}");
        let data: Data = self
            .graphql(
                &what,
                &json!({
                    "operationName": "PullRequestCommits",
                    "query": COMMITS_QUERY,
                    "variables": {
                        "owner": self.repo.owner,
                        "repo": self.repo.name,
                        "number": number,
                        "after": after,
                    },
                }),
            )
            .await?;
        Ok(data
            .repository
            .and_then(|r| r.pull_request)
            .map(|p| (p.head_ref_oid, p.listed_commits)))
    }

    /// The jobs of workflow run `run_id` (its latest attempt).
    pub async fn run_jobs(&self, run_id: &str) -> Result<Vec<Job>, ApiError> {
        #[derive(Deserialize)]
        struct Page {
            #[serde(default)]
            jobs: Vec<Job>,
        }
        let url = self.repo_path(&format!(
            "/actions/runs/{}/jobs?per_page=100",
            super::rest::encode(run_id)
        ));
        let pages: Vec<Page> = self
            .get_pages(
                &format!("listing the jobs of workflow run {run_id}"),
                url,
                MAX_JOB_PAGES,
            )
            .await?;
        Ok(pages.into_iter().flat_map(|p| p.jobs).collect())
    }

    /// Opens a pull request that reverts the merged pull request with node id
    /// `pull_id` (GraphQL `revertPullRequest`: GitHub makes the branch and the commit).
    pub async fn revert_pull(
        &self,
        pull_id: &str,
        title: &str,
        body: &str,
    ) -> Result<Reverted, ApiError> {
        #[derive(Deserialize)]
        struct Data {
            #[serde(rename = "revertPullRequest")]
            revert: Option<Payload>,
        }
        #[derive(Deserialize)]
        struct Payload {
            #[serde(rename = "revertPullRequest")]
            pull_request: Option<Reverted>,
        }
        let what = "opening a revert pull request";
        let data: Data = self
            .graphql(
                what,
                &json!({
                    "operationName": "RevertPullRequest",
                    "query": REVERT_MUTATION,
                    "variables": {"input": {
                        "pullRequestId": pull_id,
                        "title": title,
                        "body": body,
                        "draft": false,
                    }},
                }),
            )
            .await?;
        data.revert
            .and_then(|r| r.pull_request)
            .ok_or_else(|| ApiError::Decode {
                what: what.to_string(),
                message: "GitHub answered without the new pull request".to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rollup_nodes_are_told_apart_by_typename_and_nulls_are_skipped() {
        let contexts: Contexts = serde_json::from_value(json!({
            "totalCount": 3,
            "pageInfo": {"hasNextPage": false, "endCursor": null},
            "nodes": [
                {"__typename": "CheckRun", "databaseId": 7, "name": "ci", "status": "COMPLETED",
                 "conclusion": "SUCCESS", "checkSuite": {"app": {"slug": "github-actions"}}},
                {"__typename": "StatusContext", "context": "deploy", "state": "PENDING"},
                null,
                {"__typename": "SomethingNew", "x": 1}
            ]
        }))
        .unwrap();
        let kinds: Vec<String> = contexts
            .nodes
            .iter()
            .flatten()
            .map(|n| match n {
                ContextNode::CheckRun(r) => format!("run {} {}", r.name, r.app_slug()),
                ContextNode::StatusContext(s) => format!("status {}", s.context),
                ContextNode::Other => "other".to_string(),
            })
            .collect();
        assert_eq!(kinds, ["run ci github-actions", "status deploy", "other"]);
    }

    #[test]
    fn unknown_optional_fields_are_left_out_and_others_are_not() {
        let mut shape = RollupShape::default();
        assert!(shape.query().contains("isInMergeQueue"));
        assert!(!shape.query().contains("{optional:"));
        let ghes = "Field 'isInMergeQueue' doesn't exist on type 'PullRequest'; Field \
                    'autoMergeRequest' doesn't exist on type 'PullRequest'";
        assert!(shape.drop_unknown(ghes));
        assert_eq!(shape.dropped, ["isInMergeQueue", "autoMergeRequest"]);
        let query = shape.query();
        assert!(!query.contains("isInMergeQueue") && !query.contains("autoMergeRequest"));
        assert!(query.contains("mergeStateStatus") && query.contains("statusCheckRollup"));
        // Asked again for the same field, or for one the decision needs: the error stands.
        assert!(!shape.drop_unknown(ghes));
        assert!(!shape.drop_unknown("Field 'headRefOid' doesn't exist on type 'PullRequest'"));
        assert!(!shape.drop_unknown("Something went wrong"));
    }

    #[test]
    fn the_commits_come_with_the_first_page_and_name_the_persons_github_credits() {
        let query = RollupShape::default().query();
        assert!(query.contains("listedCommits: commits(first: 100) @include(if: $commits)"));
        assert!(query.contains("authors(first: 10) { nodes { user { login } } }"));
        assert!(query.contains("latestOpinionatedReviews(first: 100, writersOnly: true)"));
        let pr: RollupPr = serde_json::from_value(json!({
            "latestOpinionatedReviews": {"nodes": [
                {"author": {"login": "dave", "__typename": "User"}, "state": "APPROVED",
                 "commit": {"oid": "abc"}},
                {"author": null, "state": "APPROVED", "commit": null}
            ]},
            "listedCommits": {
                "totalCount": 101,
                "pageInfo": {"hasNextPage": true, "endCursor": "c100"},
                "nodes": [{"commit": {"oid": "abc", "message": "Fix\n\nCo-authored-by: bob <b>",
                    "authors": {"nodes": [{"user": {"login": "alice"}}, {"user": null},
                                          {"user": {"login": "bob"}}]}}}, null]
            }
        }))
        .unwrap();
        let reviews: Vec<Option<&str>> = pr
            .latest_opinionated_reviews
            .iter()
            .map(|r| r.commit.as_ref().map(|c| c.oid.as_str()))
            .collect();
        assert_eq!(reviews, [Some("abc"), None]);
        let listed = pr.listed_commits.unwrap();
        assert_eq!(listed.total_count, 101);
        assert!(listed.page_info.has_next_page);
        let commits: Vec<&ListedCommit> = listed.iter().collect();
        assert_eq!(commits.len(), 1);
        assert_eq!(
            commits[0].author_logins().collect::<Vec<_>>(),
            ["alice", "bob"]
        );
        // Asked without the commits (a later page of checks): none.
        let later: RollupPr = serde_json::from_value(json!({"number": 7})).unwrap();
        assert!(later.listed_commits.is_none());
    }

    #[test]
    fn the_decisive_commit_is_the_head_until_merged() {
        let pr: RollupPr = serde_json::from_value(json!({
            "merged": false,
            "commits": {"nodes": [{"commit": {"oid": "head", "statusCheckRollup": null}}]},
            "mergeCommit": {"oid": "merge"}
        }))
        .unwrap();
        assert_eq!(pr.decisive_commit().unwrap().oid, "head");
        let merged = RollupPr { merged: true, ..pr };
        assert_eq!(merged.decisive_commit().unwrap().oid, "merge");
        let job = Job {
            check_run_url: "https://api.github.com/repos/o/r/check-runs/42".into(),
            ..Job::default()
        };
        assert_eq!(job.check_run_id(), Some(42));
    }
}
