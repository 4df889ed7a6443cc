//! What the merge queue reads and writes, one small method per call: branch refs (read,
//! create, move, delete, with GitHub's answers told apart), merges of a commit into a
//! branch (`POST /merges`), a commit with its parents, message, signature and the
//! accounts GitHub attributes it to, the checks on a commit (REST), the rules a base's
//! rulesets apply, the open pull requests into a base, and an issue's timeline (when a
//! label was added, whether the head moved since).
//!
//! Every write here is the release token's to make (a push or merge by the workflow
//! token starts no workflow, so no CI would test a queue commit); the executor picks
//! the client.

use http::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::client::{ApiError, GitHub};
use super::rest::encode;

/// The timeline as read; what it says of the queue label is the protocol's to decide.
pub use council_protocol::queue::{Timeline, TimelineItem};

/// Pages of the open pull requests into one base read at most (100 each).
pub const MAX_PULL_PAGES: usize = 10;
/// Pages of one issue's timeline read at most (100 items each).
pub const MAX_TIMELINE_PAGES: usize = 10;
/// Pages of check runs on one commit read at most (100 each); beyond, the checks count as
/// incomplete (never green).
pub const MAX_CHECK_RUN_PAGES: usize = 10;

/// What GitHub answered to a ref write that it may refuse for a reason the caller
/// expects (the branch exists already, or not at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefWrite {
    Done,
    /// `POST /git/refs`: 422 "Reference already exists".
    Exists,
    /// `PATCH` or `DELETE`: 422 "Reference does not exist" (or 404).
    Missing,
}

/// What `POST /merges` answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// 201: the new merge commit, now the branch's head.
    Commit(String),
    /// 204: the branch already contains the head.
    NothingToMerge,
    /// 409: a merge conflict.
    Conflict,
}

/// A commit as `GET /commits/{sha}` answers it, as much as the queue reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub sha: String,
    pub parents: Vec<String>,
    pub message: String,
    /// The committer's date (ISO 8601).
    pub committed_at: String,
    /// The accounts GitHub attributes the author and committer to (`None`: an email of
    /// no account). A merge GitHub made (`POST /merges`) is authored by the token's
    /// identity and committed by `web-flow`.
    pub author_login: Option<String>,
    pub committer_login: Option<String>,
    /// GitHub verified its signature.
    pub verified: bool,
}

impl CommitInfo {
    /// Who made the commit, as far as GitHub vouches for it: for a commit GitHub signed
    /// itself (committer `web-flow`: a merge or API commit), the account that asked for
    /// it (its author); for another verified commit, its committer; `None` unverified.
    pub fn made_by(&self) -> Option<&str> {
        if !self.verified {
            return None;
        }
        match self.committer_login.as_deref() {
            Some("web-flow") => self.author_login.as_deref(),
            other => other,
        }
    }
}

/// A check run on a commit (REST).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub details_url: Option<String>,
    pub html_url: Option<String>,
    pub app: Option<super::pulls::App>,
}

impl CheckRun {
    pub fn app_slug(&self) -> &str {
        self.app.as_ref().map_or("", |a| a.slug.as_str())
    }
}

/// A commit status context's latest state (the combined status).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StatusContext {
    pub context: String,
    pub state: String,
    pub target_url: Option<String>,
}

/// The checks reported on one commit: every check run and every status context.
#[derive(Debug, Clone, Default)]
pub struct CommitChecks {
    pub runs: Vec<CheckRun>,
    pub statuses: Vec<StatusContext>,
    /// Every page was read.
    pub complete: bool,
}

/// One rule a ruleset applies to a branch (`GET /rules/branches/{branch}`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct BranchRule {
    /// `required_linear_history`, `update`, `pull_request`, `non_fast_forward`, …
    #[serde(rename = "type")]
    pub kind: String,
    pub ruleset_id: Option<u64>,
    pub ruleset_source: Option<String>,
}

impl GitHub {
    /// The head of `branch`, `None` when there is no such branch.
    pub async fn branch_head(&self, branch: &str) -> Result<Option<String>, ApiError> {
        #[derive(Deserialize)]
        struct Ref {
            object: Object,
        }
        #[derive(Deserialize)]
        struct Object {
            sha: String,
        }
        let what = format!("reading the branch {branch}");
        let url = self.repo_path(&format!("/git/ref/heads/{}", ref_path(branch)));
        match self.get(&what, &url, None).await {
            Ok(reply) => Ok(Some(reply.json::<Ref>(&what)?.object.sha)),
            Err(ApiError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every branch whose name starts with `prefix`, with its head, sorted by name.
    pub async fn branches_starting(&self, prefix: &str) -> Result<Vec<(String, String)>, ApiError> {
        #[derive(Deserialize)]
        struct Ref {
            #[serde(rename = "ref")]
            name: String,
            object: Object,
        }
        #[derive(Deserialize)]
        struct Object {
            sha: String,
        }
        let what = format!("listing the branches {prefix}*");
        let url = self.repo_path(&format!(
            "/git/matching-refs/heads/{}?per_page=100",
            ref_path(prefix)
        ));
        let pages: Vec<Vec<Ref>> = self.get_pages(&what, url, MAX_PULL_PAGES).await?;
        Ok(pages
            .into_iter()
            .flatten()
            .filter_map(|r| {
                let branch = r.name.strip_prefix("refs/heads/")?.to_string();
                Some((branch, r.object.sha))
            })
            .collect())
    }

    /// A new branch at `sha`.
    pub async fn create_branch(&self, branch: &str, sha: &str) -> Result<RefWrite, ApiError> {
        let what = format!("creating the branch {branch}");
        let body = json!({ "ref": format!("refs/heads/{branch}"), "sha": sha });
        match self
            .send_json(&what, Method::POST, &self.repo_path("/git/refs"), &body)
            .await
        {
            Ok(_) => Ok(RefWrite::Done),
            Err(ApiError::Rejected {
                status: 422,
                message,
                ..
            }) if message.contains("already exists") => Ok(RefWrite::Exists),
            Err(e) => Err(e),
        }
    }

    /// `branch` moved to `sha`: with `force: false` only when that is a fast-forward
    /// (GitHub answers 422 "Update is not a fast forward" otherwise, left to the caller
    /// as an error, like a protection's refusal).
    pub async fn move_branch(
        &self,
        branch: &str,
        sha: &str,
        force: bool,
    ) -> Result<RefWrite, ApiError> {
        let what = match force {
            true => format!("pointing the branch {branch} at {}", short(sha)),
            false => format!("fast-forwarding {branch} to {}", short(sha)),
        };
        let url = self.repo_path(&format!("/git/refs/heads/{}", ref_path(branch)));
        let body = json!({ "sha": sha, "force": force });
        match self.send_json(&what, Method::PATCH, &url, &body).await {
            Ok(_) => Ok(RefWrite::Done),
            Err(e) if is_missing_ref(&e) => Ok(RefWrite::Missing),
            Err(e) => Err(e),
        }
    }

    pub async fn delete_branch(&self, branch: &str) -> Result<RefWrite, ApiError> {
        let what = format!("deleting the branch {branch}");
        let url = self.repo_path(&format!("/git/refs/heads/{}", ref_path(branch)));
        match self.delete(&what, &url).await {
            Ok(_) => Ok(RefWrite::Done),
            Err(e) if is_missing_ref(&e) => Ok(RefWrite::Missing),
            Err(e) => Err(e),
        }
    }

    /// Commit `head` merged into `branch` with `message` (`POST /merges`).
    pub async fn merge_into(
        &self,
        branch: &str,
        head: &str,
        message: &str,
    ) -> Result<Merged, ApiError> {
        #[derive(Deserialize)]
        struct Commit {
            sha: String,
        }
        let what = format!("merging {} into {branch}", short(head));
        let body = json!({ "base": branch, "head": head, "commit_message": message });
        match self
            .send_json(&what, Method::POST, &self.repo_path("/merges"), &body)
            .await
        {
            Ok(reply) if reply.status == http::StatusCode::NO_CONTENT => Ok(Merged::NothingToMerge),
            Ok(reply) => Ok(Merged::Commit(reply.json::<Commit>(&what)?.sha)),
            Err(ApiError::Rejected { status: 409, .. }) => Ok(Merged::Conflict),
            Err(e) => Err(e),
        }
    }

    /// A commit (`GET /commits/{sha}`): parents, message, signature, accounts.
    pub async fn commit_info(&self, sha: &str) -> Result<CommitInfo, ApiError> {
        #[derive(Deserialize)]
        struct Reply {
            sha: String,
            commit: Inner,
            #[serde(default)]
            author: Option<Account>,
            #[serde(default)]
            committer: Option<Account>,
            #[serde(default)]
            parents: Vec<Parent>,
        }
        #[derive(Deserialize)]
        struct Inner {
            #[serde(default)]
            message: String,
            #[serde(default)]
            committer: Option<Person>,
            #[serde(default)]
            verification: Option<Verification>,
        }
        #[derive(Deserialize)]
        struct Account {
            login: String,
        }
        #[derive(Deserialize)]
        struct Person {
            #[serde(default)]
            date: Option<String>,
        }
        #[derive(Deserialize)]
        struct Verification {
            #[serde(default)]
            verified: bool,
        }
        #[derive(Deserialize)]
        struct Parent {
            sha: String,
        }
        let what = format!("reading commit {}", short(sha));
        let url = self.repo_path(&format!("/commits/{}", encode(sha)));
        let reply: Reply = self.get(&what, &url, None).await?.json(&what)?;
        Ok(CommitInfo {
            sha: reply.sha,
            parents: reply.parents.into_iter().map(|p| p.sha).collect(),
            message: reply.commit.message,
            committed_at: reply
                .commit
                .committer
                .and_then(|c| c.date)
                .unwrap_or_default(),
            author_login: reply.author.map(|a| a.login),
            committer_login: reply.committer.map(|a| a.login),
            verified: reply.commit.verification.is_some_and(|v| v.verified),
        })
    }

    /// Every check run and status context on commit `sha`.
    pub async fn commit_checks(&self, sha: &str) -> Result<CommitChecks, ApiError> {
        #[derive(Deserialize)]
        struct Runs {
            #[serde(default)]
            check_runs: Vec<CheckRun>,
        }
        #[derive(Deserialize)]
        struct Combined {
            #[serde(default)]
            statuses: Vec<StatusContext>,
        }
        let what = format!("reading the checks on {}", short(sha));
        let url = self.repo_path(&format!(
            "/commits/{}/check-runs?per_page=100&filter=latest",
            encode(sha)
        ));
        let (pages, more): (Vec<Runs>, bool) =
            self.get_pages_upto(&what, url, MAX_CHECK_RUN_PAGES).await?;
        let url = self.repo_path(&format!("/commits/{}/status?per_page=100", encode(sha)));
        let combined: Combined = self.get(&what, &url, None).await?.json(&what)?;
        Ok(CommitChecks {
            runs: pages.into_iter().flat_map(|p| p.check_runs).collect(),
            statuses: combined.statuses,
            complete: !more,
        })
    }

    /// The rules the repository's rulesets apply to `branch`; none when the API is not
    /// there or not readable (GHES before rulesets, a token without `metadata: read`).
    pub async fn branch_rules(&self, branch: &str) -> Result<Vec<BranchRule>, ApiError> {
        let what = format!("reading the rules of {branch}");
        let url = self.repo_path(&format!(
            "/rules/branches/{}?per_page=100",
            ref_path(branch)
        ));
        match self.get_pages::<Vec<BranchRule>>(&what, url, 3).await {
            Ok(pages) => Ok(pages.into_iter().flatten().collect()),
            Err(ApiError::NotFound { .. } | ApiError::Forbidden { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// A ruleset's name, when it can be read.
    pub async fn ruleset_name(&self, id: u64) -> Option<String> {
        #[derive(Deserialize)]
        struct Ruleset {
            name: String,
        }
        let what = format!("reading ruleset {id}");
        let url = self.repo_path(&format!("/rulesets/{id}"));
        let reply = self.get(&what, &url, None).await.ok()?;
        reply.json::<Ruleset>(&what).ok().map(|r| r.name)
    }

    /// The open pull requests that carry `label` (into `base` when one is given), as the
    /// pull request list answers them. A repository's first 1,000 open pull requests
    /// are read from that list (one request per 100); beyond, those the issue list finds
    /// by the label (each read on its own), so that a busy repository, or pull requests
    /// opened from forks by anyone, cannot push the labelled ones out of reach.
    pub async fn open_pulls_labelled(
        &self,
        label: &str,
        base: Option<&str>,
    ) -> Result<Vec<Value>, ApiError> {
        let into = base.map(|b| format!(" into {b}")).unwrap_or_default();
        let what = format!("listing the open pull requests{into}");
        let filter = base
            .map(|b| format!("&base={}", encode(b)))
            .unwrap_or_default();
        let url = self.repo_path(&format!(
            "/pulls?state=open{filter}&sort=created&direction=asc&per_page=100"
        ));
        let (pages, more) = self
            .get_pages_upto::<Vec<Value>>(&what, url, MAX_PULL_PAGES)
            .await?;
        let mut found: Vec<Value> = pages
            .into_iter()
            .flatten()
            .filter(|p| has_label(p, label))
            .collect();
        if !more {
            return Ok(found);
        }
        let what = format!("listing the open issues labelled {label}");
        let url = self.repo_path(&format!(
            "/issues?state=open&labels={}&per_page=100",
            encode(label)
        ));
        let issues: Vec<Vec<Value>> = self.get_pages(&what, url, MAX_PULL_PAGES).await?;
        let mut numbers: Vec<u64> = issues
            .into_iter()
            .flatten()
            .filter(|i| i.get("pull_request").is_some())
            .filter_map(|i| i.get("number").and_then(Value::as_u64))
            .filter(|n| !found.iter().any(|f| f["number"].as_u64() == Some(*n)))
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        for number in numbers {
            let pull = match self.get_pull(number).await {
                Ok(pull) => pull,
                Err(ApiError::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            let open = pull["state"].as_str() == Some("open");
            let into =
                base.is_none_or(|b| pull.pointer("/base/ref").and_then(Value::as_str) == Some(b));
            if open && into && has_label(&pull, label) {
                found.push(pull);
            }
        }
        Ok(found)
    }

    /// Issue `number`'s timeline, oldest first: labels added and removed, pushes, retargets
    /// (and comments, which the queue skips); the newest 1,000 items of a longer one.
    pub async fn timeline(&self, number: u64) -> Result<Timeline, ApiError> {
        let what = format!("reading the timeline of #{number}");
        let url = self.repo_path(&format!("/issues/{number}/timeline?per_page=100"));
        let (pages, complete): (Vec<Vec<Value>>, bool) = self
            .get_newest_pages(&what, url, MAX_TIMELINE_PAGES)
            .await?;
        Ok(Timeline {
            items: pages.into_iter().flatten().map(timeline_item).collect(),
            complete,
        })
    }
}

/// Whether a pull request as the API answers it carries `label` (GitHub compares label
/// names without case).
fn has_label(pull: &Value, label: &str) -> bool {
    pull.get("labels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|l| l.get("name").and_then(Value::as_str))
        .any(|l| council_protocol::actors::same_label(l, label))
}

fn timeline_item(v: Value) -> TimelineItem {
    let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    let event = text("/event").unwrap_or_default();
    let at = match event.as_str() {
        "committed" => text("/committer/date"),
        _ => text("/created_at"),
    };
    TimelineItem {
        label: text("/label/name"),
        at,
        event,
    }
}

/// A branch name in a ref path: each segment encoded, the slashes kept (GitHub reads
/// `heads/council/queue/main`).
fn ref_path(branch: &str) -> String {
    branch.split('/').map(encode).collect::<Vec<_>>().join("/")
}

fn is_missing_ref(e: &ApiError) -> bool {
    match e {
        ApiError::NotFound { .. } => true,
        ApiError::Rejected {
            status: 422,
            message,
            ..
        } => message.contains("does not exist"),
        _ => false,
    }
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(verified: bool, author: Option<&str>, committer: Option<&str>) -> CommitInfo {
        CommitInfo {
            sha: "a".repeat(40),
            parents: Vec::new(),
            message: String::new(),
            committed_at: String::new(),
            author_login: author.map(str::to_string),
            committer_login: committer.map(str::to_string),
            verified,
        }
    }

    #[test]
    fn who_made_a_commit_is_what_github_vouches_for() {
        let bot = "council-release[bot]";
        assert_eq!(info(true, Some(bot), Some("web-flow")).made_by(), Some(bot));
        assert_eq!(
            info(true, Some(bot), Some("alice")).made_by(),
            Some("alice")
        );
        assert_eq!(info(false, Some(bot), Some("web-flow")).made_by(), None);
        assert_eq!(info(true, None, Some("web-flow")).made_by(), None);
    }

    #[test]
    fn timeline_items_take_their_time_from_the_right_field() {
        let labeled = timeline_item(json!({
            "event": "labeled", "created_at": "2026-01-01T00:00:00Z",
            "label": {"name": "council:queued"}
        }));
        assert_eq!(labeled.label.as_deref(), Some("council:queued"));
        assert_eq!(labeled.at.as_deref(), Some("2026-01-01T00:00:00Z"));
        let committed = timeline_item(json!({
            "event": "committed", "sha": "abc",
            "committer": {"date": "2026-01-02T00:00:00Z"}
        }));
        assert_eq!(committed.at.as_deref(), Some("2026-01-02T00:00:00Z"));
        let odd = timeline_item(json!({"event": 3, "label": "x"}));
        assert_eq!(odd, TimelineItem::default());
        assert_eq!(
            ref_path("council/queue/release é"),
            "council/queue/release%20%C3%A9"
        );
    }
}
