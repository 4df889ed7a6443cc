//! The latest state of an issue: pages of comments newest first, stopping at the first
//! page that holds a trusted valid block. The first page also brings the token's login,
//! the issue author and body, and the policy text, so the common case is one request.

use crate::env::RunEnv;
use crate::request::IssueRequest;
use council_github::issue_state::{IssuePage, PAGE, StateComment};
use council_github::{ApiError, GitHub};
use council_protocol::agent_state::{
    IssueComment, Selection, StateScan, TrustConfig, find_run_key,
};
use council_protocol::error::{Error, Result};
use council_protocol::policy::Policy;

/// Pages read before giving up on finding a block (20,000 comments): a bound on the
/// requests one step may spend, since older pages are only read while nothing is found.
pub const MAX_PAGES: usize = 200;
pub const MAX_COMMENTS: usize = MAX_PAGES * PAGE;

pub struct Latest {
    pub selection: Selection,
    pub issue_body: String,
    /// Where the trusted-authors list came from, for the summary.
    pub policy_source: String,
    pub pages: usize,
    pub comments_read: usize,
    /// Older comments were left unread because of [`MAX_PAGES`].
    pub capped: bool,
    /// The run key of the comment the state came from, when the token's login wrote it.
    pub own_run_key: Option<String>,
    /// `agent_state.max_tool_calls` of the policy: more `metrics.tool_calls` warns.
    pub max_tool_calls: u64,
}

/// An issue's newest page of comments (one request, with the policy), the policy, and
/// who may write state on the issue.
pub(crate) async fn first_page(
    env: &RunEnv,
    req: &IssueRequest,
    gh: &GitHub,
    issue: u64,
) -> Result<(IssuePage, Policy, TrustConfig)> {
    let mut page = gh
        .issue_page(issue, req.policy.path.as_str(), None)
        .await
        .map_err(|e| read_error(e, issue, gh))?;
    let policy = trust_policy(env, req, page.policy.take())?;
    let mut trusted_logins = req.trusted_authors.clone();
    trusted_logins.extend(policy.agent_state.trusted_authors.iter().cloned());
    let trust = TrustConfig {
        issue_author: std::mem::take(&mut page.issue_author),
        token_login: page.viewer.clone(),
        trusted_logins,
    };
    Ok((page, policy, trust))
}

pub async fn read_latest(
    env: &RunEnv,
    req: &IssueRequest,
    gh: &GitHub,
    issue: u64,
) -> Result<Latest> {
    let path = req.policy.path.as_str();
    let (mut page, policy, trust) = first_page(env, req, gh, issue).await?;
    let issue_body = std::mem::take(&mut page.issue_body);
    let mut scan = StateScan::new(&trust);
    let (mut pages, mut comments_read, mut capped) = (0, 0, false);
    loop {
        pages += 1;
        comments_read += page.comments.len();
        let comments: Vec<IssueComment<'_>> = page.comments.iter().map(borrowed).collect();
        if scan.feed(&comments) {
            break;
        }
        let Some(cursor) = page.older.take() else {
            break;
        };
        if pages >= MAX_PAGES {
            capped = true;
            break;
        }
        page = gh
            .issue_page(issue, path, Some(&cursor))
            .await
            .map_err(|e| read_error(e, issue, gh))?;
    }
    let selection = scan.finish();
    let own_run_key = own_run_key(&selection, &page, trust.token_login.as_deref());
    Ok(Latest {
        selection,
        issue_body,
        policy_source: policy.source,
        pages,
        comments_read,
        capped,
        own_run_key,
        max_tool_calls: policy.agent_state.max_tool_calls,
    })
}

/// Scanning stops at the page that held the find, so the source comment is on `page`.
fn own_run_key(selection: &Selection, page: &IssuePage, login: Option<&str>) -> Option<String> {
    let source = selection.source.as_ref()?;
    let login = login?;
    page.comments
        .iter()
        .find(|c| c.id == source.comment_id && c.author.eq_ignore_ascii_case(login))
        .and_then(|c| find_run_key(&c.body))
}

fn borrowed(c: &StateComment) -> IssueComment<'_> {
    IssueComment {
        id: c.id,
        author: &c.author,
        association: &c.association,
        body: &c.body,
        html_url: &c.html_url,
        created_at: &c.created_at,
    }
}

/// The policy whose `agent_state` section (trusted authors, `max_tool_calls`) applies.
/// In Actions it is the default branch's file from the same request as the comments (an
/// issue comment cannot change it); the CLI reads the local file as every command does
/// (SPEC, Policy file), so a user's checkout decides, not what the API happens to hold.
fn trust_policy(env: &RunEnv, req: &IssueRequest, api_text: Option<String>) -> Result<Policy> {
    if !env.in_actions {
        return crate::app::policy_source::local(env, &req.policy);
    }
    let path = &req.policy.path;
    let mut policy = match api_text {
        Some(text) => Policy::parse(&text, &format!("{path}@HEAD"))?,
        None => Policy::default_policy(),
    };
    policy.source = if policy.source == council_protocol::policy::DEFAULT_SOURCE {
        format!("default policy (no {path} on the default branch)")
    } else {
        format!("{path} on the default branch")
    };
    Ok(policy)
}

pub(crate) fn read_error(e: ApiError, issue: u64, gh: &GitHub) -> Error {
    match e {
        ApiError::NotFound { .. } => Error::Input(format!(
            "issue #{issue} was not found in {}, or the token cannot read it: check the `issue` \
             input and the repository",
            gh.repo
        )),
        e => e.into(),
    }
}
