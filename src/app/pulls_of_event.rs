//! Which pull requests a release event is about. A review or a label names its pull
//! request; a check suite, a workflow run, a status or a push names a commit, and one
//! request (`GET /commits/{sha}/pulls`) finds the open pull requests whose head it is
//! and, after a merge into the default branch, the pull request whose merge commit it
//! is. GitHub lists that one only for the default branch: a merge commit pushed to
//! another base (`develop`) is found among the pull requests closed into it last (one
//! more request, only then). And it lists an open pull request whose head is already on
//! the default branch not at all: the check suite's or workflow run's own list of pull
//! requests names those (one request each, only then).

use serde_json::Value;

use council_github::GitHub;
use council_protocol::error::Result;
use council_protocol::event::{Event, PullRequest};

/// The pull requests to evaluate, or why there are none.
#[derive(Debug)]
pub enum Pulls {
    Found(Vec<PullRequest>),
    Nothing(String),
}

/// What a commit-named event may find: open pull requests at that head, and (push and
/// workflow_run only, SPEC's rollback triggers) the merged one whose merge commit it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Open,
    OpenOrMerged,
    /// A push to `branch`: the pull request merged into it.
    MergedInto,
}

pub async fn find(event: &Event, gh: Option<&GitHub>) -> Result<Pulls> {
    // `branch`: where a merge commit would have landed (the pushed branch, the branch
    // the workflow ran on).
    let (sha, wanted, branch) = match event.name.as_str() {
        "pull_request" | "pull_request_target" | "pull_request_review" => {
            return Ok(Pulls::Found(vec![event.pull_request()?]));
        }
        "check_suite" => (event.str_field("check_suite.head_sha")?, Wanted::Open, None),
        "status" => (event.str_field("sha")?, Wanted::Open, None),
        // A fork's run names whatever commit and branch the fork chose: it may ask about
        // open pull requests at that head, never about a merge (no rollback from it).
        "workflow_run" if event.run_is_from_fork() => (
            event.str_field("workflow_run.head_sha")?,
            Wanted::Open,
            None,
        ),
        "workflow_run" => (
            event.str_field("workflow_run.head_sha")?,
            Wanted::OpenOrMerged,
            event.str_field("workflow_run.head_branch").ok(),
        ),
        "push" => {
            let git_ref = event.str_field("ref")?;
            let after = event.str_field("after")?;
            let Some(branch) = git_ref.strip_prefix("refs/heads/") else {
                return Ok(Pulls::Nothing(format!(
                    "push of `{git_ref}`: not a branch, so not a merge to check"
                )));
            };
            if after.bytes().all(|b| b == b'0') {
                return Ok(Pulls::Nothing(format!(
                    "push deleted branch `{branch}`: nothing to check"
                )));
            }
            (after, Wanted::MergedInto, Some(branch.to_string()))
        }
        other => {
            return Ok(Pulls::Nothing(format!(
                "the release stage acts on reviews, labels, checks, statuses and pushes, not \
                 on `{other}`"
            )));
        }
    };
    let gh = gh.ok_or_else(|| {
        crate::exit::no_token(format!(
            "the pull requests of commit {sha} are found through the API"
        ))
    })?;
    let mut pulls = lookup(event, gh, &sha, wanted, branch.as_deref()).await?;
    if pulls.is_empty()
        && wanted != Wanted::Open
        && let Some(base) = &branch
    {
        let what = format!("GET /pulls?state=closed&base={base}");
        let closed = gh.recently_closed_into(base).await?;
        keep(
            &mut pulls,
            &closed,
            &what,
            &sha,
            Wanted::MergedInto,
            Some(base),
        )?;
    }
    if pulls.is_empty() {
        let short = sha.get(..7).unwrap_or(&sha);
        return Ok(Pulls::Nothing(match wanted {
            Wanted::Open => format!("no open pull request has head {short}; nothing to release"),
            Wanted::OpenOrMerged => format!(
                "{short} is neither the head of an open pull request nor the merge commit of \
                 one; nothing to release or check"
            ),
            Wanted::MergedInto => format!(
                "{short} on `{}` is not the merge commit of a pull request; nothing to check",
                branch.unwrap_or_default()
            ),
        }));
    }
    Ok(Pulls::Found(pulls))
}

/// The open pull requests whose head is `sha`: one lookup by the commit (a page of 100),
/// plus the ones a check suite's or workflow run's payload names that the lookup missed
/// (GitHub fills that list itself). Never from names a workflow chose: a fork's run
/// picks its artifacts' and branches' names.
pub async fn open_at_head(event: &Event, gh: &GitHub, sha: &str) -> Result<Vec<PullRequest>> {
    lookup(event, gh, sha, Wanted::Open, None).await
}

/// The pull requests `GET /commits/{sha}/pulls` lists that the event is about, and the
/// open ones at head `sha` that the event's payload names and the lookup missed: a head
/// commit that is also on the default branch (a `develop` → `main` pull request where
/// `develop` is the default) is listed with the merged pull request that brought it,
/// not the open one (one request each, only then).
async fn lookup(
    event: &Event,
    gh: &GitHub,
    sha: &str,
    wanted: Wanted,
    branch: Option<&str>,
) -> Result<Vec<PullRequest>> {
    let what = format!("GET /commits/{sha}/pulls");
    let mut pulls = Vec::new();
    let found = gh.pulls_of_commit(sha).await?;
    keep(&mut pulls, &found, &what, sha, wanted, branch)?;
    for number in payload_pulls(event, sha) {
        if !pulls.iter().any(|p| p.number == number) {
            let value = gh.get_pull(number).await?;
            let what = format!("GET /pulls/{number}");
            keep(&mut pulls, &[value], &what, sha, Wanted::Open, None)?;
        }
    }
    Ok(pulls)
}

/// Adds the pull requests of `found` that the event is about: open at head `sha`, or
/// merged with `sha` as merge commit (into `branch`, when known).
fn keep(
    pulls: &mut Vec<PullRequest>,
    found: &[Value],
    what: &str,
    sha: &str,
    wanted: Wanted,
    branch: Option<&str>,
) -> Result<()> {
    for value in found {
        let pr = PullRequest::from_api(value, what)?;
        if pulls.iter().any(|p| p.number == pr.number) {
            continue;
        }
        let at_head = pr.state == "open" && pr.head_sha == sha;
        let merged_here =
            merge_commit(value) == Some(sha) && branch.is_none_or(|b| b == pr.base_ref);
        let wanted = match wanted {
            Wanted::Open => at_head,
            Wanted::OpenOrMerged => at_head || merged_here,
            Wanted::MergedInto => merged_here,
        };
        if wanted {
            pulls.push(pr);
        }
    }
    Ok(())
}

/// The numbers of the pull requests a check suite or workflow run payload names with
/// head `sha` (GitHub fills them for same-repository pull requests only).
fn payload_pulls(event: &Event, sha: &str) -> Vec<u64> {
    let root = match event.name.as_str() {
        "check_suite" => "/check_suite/pull_requests",
        "workflow_run" => "/workflow_run/pull_requests",
        _ => return Vec::new(),
    };
    event
        .payload
        .pointer(root)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p.pointer("/head/sha").and_then(Value::as_str) == Some(sha))
        .filter_map(|p| p.get("number").and_then(Value::as_u64))
        .collect()
}

/// The merge commit of a merged pull request (`merged_at` set), from the API's answer.
fn merge_commit(value: &Value) -> Option<&str> {
    value.get("merged_at").filter(|v| !v.is_null())?;
    value.get("merge_commit_sha")?.as_str()
}
