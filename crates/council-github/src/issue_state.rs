//! Reading an issue for `<agent-state>`: one GraphQL request returns the token's login,
//! the issue's author and body, the policy file and the newest 100 comments; older pages
//! are fetched only when needed. REST is the fallback (GHES without the fields we ask
//! for, or GraphQL refused), jumping to the last page through the `Link` header.

use serde::Deserialize;
use serde_json::{Value, json};

use super::client::{ApiError, GitHub};
use super::rest::{Comment, link};

/// Comments per page (GitHub's maximum for both APIs).
pub const PAGE: usize = 100;

/// A comment in the shape the trust rules read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateComment {
    pub id: u64,
    /// REST-style login: bots carry their `[bot]` suffix.
    pub author: String,
    pub association: String,
    pub body: String,
    pub html_url: String,
    pub created_at: String,
}

/// One page of an issue, newest page first; `older` fetches the page before it.
#[derive(Debug, Clone, Default)]
pub struct IssuePage {
    pub issue_author: String,
    pub issue_body: String,
    /// `Some` on the first page when the token's login is known.
    pub viewer: Option<String>,
    /// The policy text at the default branch, `None` when the file does not exist.
    pub policy: Option<String>,
    /// Oldest first within the page.
    pub comments: Vec<StateComment>,
    pub older: Option<Cursor>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    GraphQl(String),
    Rest(String),
}

const QUERY: &str = "query($owner: String!, $repo: String!, $number: Int!, $last: Int!, $before: String, $policy: String!) {
  viewer { login __typename }
  repository(owner: $owner, name: $repo) {
    policy: object(expression: $policy) { ... on Blob { text isTruncated } }
    issueOrPullRequest(number: $number) {
      ... on Issue { author { login __typename } body comments(last: $last, before: $before) { ...page } }
      ... on PullRequest { author { login __typename } body comments(last: $last, before: $before) { ...page } }
    }
  }
}
fragment page on IssueCommentConnection {
  pageInfo { hasPreviousPage startCursor }
  nodes { fullDatabaseId url createdAt body authorAssociation author { login __typename } }
}";

impl GitHub {
    /// The newest page (or the one before `cursor`).
    pub async fn issue_page(
        &self,
        number: u64,
        policy_path: &str,
        cursor: Option<&Cursor>,
    ) -> Result<IssuePage, ApiError> {
        match cursor {
            Some(Cursor::Rest(url)) => self.rest_page(url, number).await,
            Some(Cursor::GraphQl(before)) => {
                self.graphql_page(number, policy_path, Some(before)).await
            }
            None => match self.graphql_page(number, policy_path, None).await {
                Ok(page) => Ok(page),
                // GraphQL refused or a field unknown (older GHES): REST still works.
                Err(
                    ApiError::Rejected { .. }
                    | ApiError::Forbidden { .. }
                    | ApiError::Decode { .. },
                ) => self.rest_first_page(number, policy_path).await,
                Err(e) => Err(e),
            },
        }
    }

    async fn graphql_page(
        &self,
        number: u64,
        policy_path: &str,
        before: Option<&str>,
    ) -> Result<IssuePage, ApiError> {
        let what = format!("reading issue #{number}");
        let variables = json!({
            "owner": self.repo.owner,
            "repo": self.repo.name,
            "number": number,
            "last": PAGE,
            "before": before,
            "policy": format!("HEAD:{policy_path}"),
        });
        let data: Data = self
            .graphql(&what, &json!({ "query": QUERY, "variables": variables }))
            .await?;
        let issue = data
            .repository
            .and_then(|r| Some((r.policy, r.issue?)))
            .ok_or_else(|| ApiError::NotFound { what: what.clone() })?;
        let (policy, issue) = issue;
        let comments = issue
            .comments
            .nodes
            .into_iter()
            .flatten()
            .map(StateComment::from)
            .collect();
        Ok(IssuePage {
            issue_author: issue.author.map(|a| a.rest_login()).unwrap_or_default(),
            issue_body: issue.body.unwrap_or_default(),
            viewer: data.viewer.map(|v| v.rest_login()),
            policy: policy.and_then(|p| p.text),
            comments,
            older: issue
                .comments
                .page_info
                .has_previous_page
                .then_some(issue.comments.page_info.start_cursor)
                .flatten()
                .map(Cursor::GraphQl),
        })
    }

    async fn rest_first_page(&self, number: u64, policy_path: &str) -> Result<IssuePage, ApiError> {
        let what = format!("reading issue #{number}");
        #[derive(Deserialize)]
        struct Issue {
            user: Option<super::rest::User>,
            body: Option<String>,
        }
        let issue: Issue = self
            .get(&what, &self.repo_path(&format!("/issues/{number}")), None)
            .await?
            .json(&what)?;
        let first = self.repo_path(&format!("/issues/{number}/comments?per_page={PAGE}"));
        let reply = self.get(&what, &first, None).await?;
        let mut page = match link(&reply.headers, "last") {
            Some(last) => self.rest_page(&last, number).await?,
            None => rest_comments(
                &reply.json::<Vec<Comment>>(&what)?,
                link(&reply.headers, "prev"),
            ),
        };
        page.issue_author = issue.user.map(|u| u.login).unwrap_or_default();
        page.issue_body = issue.body.unwrap_or_default();
        page.viewer = self.identity().await.map(|i| i.login);
        page.policy = self.get_file(policy_path, None).await.ok().flatten();
        Ok(page)
    }

    async fn rest_page(&self, url: &str, number: u64) -> Result<IssuePage, ApiError> {
        let what = format!("reading comments of #{number}");
        let reply = self.get(&what, url, None).await?;
        Ok(rest_comments(
            &reply.json::<Vec<Comment>>(&what)?,
            link(&reply.headers, "prev"),
        ))
    }
}

fn rest_comments(comments: &[Comment], prev: Option<String>) -> IssuePage {
    IssuePage {
        comments: comments
            .iter()
            .map(|c| StateComment {
                id: c.id,
                author: c.author().to_string(),
                association: c.author_association.clone().unwrap_or_default(),
                body: c.body().to_string(),
                html_url: c.html_url.clone(),
                created_at: c.created_at.clone(),
            })
            .collect(),
        older: prev.map(Cursor::Rest),
        ..IssuePage::default()
    }
}

#[derive(Deserialize)]
struct Data {
    viewer: Option<Actor>,
    repository: Option<Repository>,
}

#[derive(Deserialize)]
struct Repository {
    policy: Option<Blob>,
    #[serde(rename = "issueOrPullRequest")]
    issue: Option<IssueNode>,
}

#[derive(Deserialize)]
struct Blob {
    text: Option<String>,
}

#[derive(Deserialize)]
struct IssueNode {
    author: Option<Actor>,
    body: Option<String>,
    comments: Connection,
}

#[derive(Deserialize)]
struct Connection {
    #[serde(rename = "pageInfo")]
    page_info: PageInfo,
    nodes: Vec<Option<Node>>,
}

#[derive(Deserialize)]
struct PageInfo {
    #[serde(rename = "hasPreviousPage")]
    has_previous_page: bool,
    #[serde(rename = "startCursor")]
    start_cursor: Option<String>,
}

#[derive(Deserialize)]
struct Node {
    #[serde(rename = "fullDatabaseId")]
    id: Value,
    url: String,
    #[serde(rename = "createdAt")]
    created_at: String,
    body: String,
    #[serde(rename = "authorAssociation")]
    association: String,
    author: Option<Actor>,
}

#[derive(Deserialize)]
struct Actor {
    login: String,
    #[serde(rename = "__typename", default)]
    typename: String,
}

impl Actor {
    fn rest_login(self) -> String {
        super::rest::rest_login(self.login, &self.typename)
    }
}

impl From<Node> for StateComment {
    fn from(n: Node) -> StateComment {
        // `fullDatabaseId` is a BigInt, sent as a string.
        let id = match &n.id {
            Value::String(s) => s.parse().unwrap_or(0),
            v => v.as_u64().unwrap_or(0),
        };
        StateComment {
            id,
            author: n.author.map(Actor::rest_login).unwrap_or_default(),
            association: n.association,
            body: n.body,
            html_url: n.url,
            created_at: n.created_at,
        }
    }
}
