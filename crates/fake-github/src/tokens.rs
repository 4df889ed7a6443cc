//! Who a token is and what it may do, as GitHub decides per request: an unknown token is
//! 401 "Bad credentials"; a known one lacking the permission a route needs is 403
//! "Resource not accessible by integration". Permissions are the scopes of a workflow's
//! `permissions:` block, so a test states a token the way a workflow file does.

use std::collections::BTreeMap;

/// The workflow's `GITHUB_TOKEN` in every `Council::action()` run.
pub const WORKFLOW_TOKEN: &str = "ghs_test_token_value";
/// The `release-token` input: the only token that may merge (or open a revert PR).
pub const RELEASE_TOKEN: &str = "ghs_release_token_value";
pub const RELEASE_LOGIN: &str = "council-release[bot]";

/// Named as a workflow's `permissions:` block names them (`pull-requests`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    Actions,
    Checks,
    Contents,
    Issues,
    Metadata,
    PullRequests,
    Statuses,
}

/// `read` < `write`: write includes read, as in a workflow's `permissions:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Read,
    Write,
}

const ALL: [Scope; 7] = [
    Scope::Actions,
    Scope::Checks,
    Scope::Contents,
    Scope::Issues,
    Scope::Metadata,
    Scope::PullRequests,
    Scope::Statuses,
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The REST login (`name[bot]` for apps); GraphQL's `viewer` drops the suffix.
    pub login: String,
    pub permissions: BTreeMap<Scope, Access>,
}

impl Token {
    /// Everything readable, nothing writable: a fork PR's `GITHUB_TOKEN`.
    pub fn read_only(login: &str) -> Token {
        Token {
            login: login.to_string(),
            permissions: ALL.iter().map(|s| (*s, Access::Read)).collect(),
        }
    }

    /// A workflow token with `contents: read` and write elsewhere: it comments, labels
    /// and closes, but cannot merge (GitHub's restricted default for `contents`, and the
    /// reason the product takes a separate release token).
    pub fn workflow(login: &str) -> Token {
        let mut token = Token::read_only(login);
        for scope in ALL {
            if scope != Scope::Contents && scope != Scope::Metadata {
                token.permissions.insert(scope, Access::Write);
            }
        }
        token
    }

    /// Write on everything (`contents: write` included): may merge and revert.
    pub fn release(login: &str) -> Token {
        let mut token = Token::workflow(login);
        token.permissions.insert(Scope::Contents, Access::Write);
        token
    }

    pub fn may(&self, scope: Scope, access: Access) -> bool {
        self.permissions.get(&scope).is_some_and(|a| *a >= access)
    }

    /// At least `access` on one of `scopes` (GitHub accepts, e.g., issues or
    /// pull-requests permission for a PR comment).
    pub fn may_any(&self, scopes: &[Scope], access: Access) -> bool {
        scopes.iter().any(|s| self.may(*s, access))
    }
}

/// The tokens every world starts with.
pub fn defaults() -> BTreeMap<String, Token> {
    BTreeMap::from([
        (
            WORKFLOW_TOKEN.to_string(),
            Token::workflow("github-actions[bot]"),
        ),
        (RELEASE_TOKEN.to_string(), Token::release(RELEASE_LOGIN)),
    ])
}

/// GitHub words a refusal after the kind of token: apps (`ghs_`) and personal tokens
/// are told apart.
pub fn forbidden_message(token: &str) -> &'static str {
    if token.starts_with("ghp_") || token.starts_with("github_pat_") {
        "Resource not accessible by personal access token"
    } else {
        "Resource not accessible by integration"
    }
}
