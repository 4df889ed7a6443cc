//! GraphQL by operation: a request is dispatched on its operation name (`operationName`,
//! or `query Name(…)` / `mutation Name(…)` in the text) to a handler registered in the
//! world; the product's anonymous queries (the viewer, the issue page) are recognised by
//! their text. Anything else is a GraphQL `errors` reply, as GitHub answers a query it
//! cannot run. Handlers do not evaluate selections: each returns the whole shape its
//! operation may ask for, built from the same world state the REST routes serve.

mod issue_page;
pub mod revert;
pub mod rollup;

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::{Value, json};

use super::routes::{Answer, Ctx, Reply};
use super::tokens::{Access, Scope, Token};
use super::world::World;

/// A registered operation: the world (to read or change) and the call.
pub type Operation = fn(&mut World, &Call) -> Answer;

/// One GraphQL request, as a handler sees it.
pub struct Call {
    pub query: String,
    pub variables: Value,
    /// The token's entry (`None` when anonymous).
    pub token: Option<Token>,
}

impl Call {
    pub fn may(&self, scope: Scope, access: Access) -> bool {
        self.token.as_ref().is_some_and(|t| t.may(scope, access))
    }

    /// The token's login as GraphQL shows it (no `[bot]` suffix).
    pub fn viewer(&self) -> Value {
        actor(self.token.as_ref().map(|t| t.login.as_str()).unwrap_or(""))
    }
}

/// The operations every world knows; tests add their own with `graphql_operation`.
pub fn defaults() -> BTreeMap<String, Operation> {
    BTreeMap::from([
        (
            "PullRequestRollup".to_string(),
            rollup::pull_request as Operation,
        ),
        (
            "PullRequestCommits".to_string(),
            rollup::commits as Operation,
        ),
        ("RevertPullRequest".to_string(), revert::revert as Operation),
    ])
}

pub fn serve(world: &mut World, ctx: &Ctx) -> Reply {
    let payload = ctx.json()?;
    let Some(query) = payload["query"].as_str() else {
        return Ok(error(
            "A query attribute must be specified and must be a string.",
        ));
    };
    let call = Call {
        query: query.to_string(),
        variables: payload["variables"].clone(),
        token: ctx.caller(world).cloned(),
    };
    if let Some(name) = declared_name(&payload) {
        return Ok(match world.graphql.get(&name).copied() {
            Some(operation) => operation(world, &call),
            None => error(&format!(
                "this fake GitHub has no GraphQL operation `{name}`: register one with \
                 FakeGitHub::graphql_operation"
            )),
        });
    }
    if query.contains("issueOrPullRequest") {
        return Ok(issue_page::issue_page(world, &call));
    }
    if query.contains("viewer { login __typename } }") && !query.contains("repository") {
        return Ok(Answer::ok(json!({"data": {"viewer": call.viewer()}})));
    }
    Ok(error("not in this fake"))
}

/// The operation's name for logs and faults: declared, or the anonymous query's root.
pub fn operation_name(payload: &Value) -> Option<String> {
    declared_name(payload).or_else(|| {
        let query = payload["query"].as_str()?;
        ["issueOrPullRequest", "viewer"]
            .into_iter()
            .find(|root| query.contains(root))
            .map(str::to_string)
    })
}

/// `operationName`, else the name after the first `query`/`mutation` keyword.
fn declared_name(payload: &Value) -> Option<String> {
    if let Some(name) = payload["operationName"].as_str() {
        return Some(name.to_string());
    }
    // The first operation's name counts (GitHub asks for `operationName` otherwise).
    static NAMED: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
        regex::Regex::new(r"^(?:query|mutation|subscription)\s+([_A-Za-z]\w*)").ok()
    });
    let query = without_comments(payload["query"].as_str()?);
    NAMED.as_ref()?.captures(query).map(|c| c[1].to_string())
}

/// A mutation changes the world: the request log counts it as a write.
pub fn is_mutation(payload: &Value) -> bool {
    payload["query"]
        .as_str()
        .is_some_and(|q| without_comments(q).starts_with("mutation"))
}

/// The document from its first token on (leading `#` comment lines skipped).
fn without_comments(query: &str) -> &str {
    let mut rest = query.trim_start();
    while let Some(comment) = rest.strip_prefix('#') {
        rest = comment.split_once('\n').map_or("", |(_, r)| r).trim_start();
    }
    rest
}

/// An actor as GraphQL shows it: bots lose their `[bot]` suffix, and an account that
/// REST names otherwise gets GraphQL's name ([`crate::accounts`]).
pub fn actor(login: &str) -> Value {
    if let Some(graphql) = crate::accounts::graphql_login(login) {
        return json!({"login": graphql, "__typename": "Bot"});
    }
    let kind = if login.ends_with("[bot]") {
        "Bot"
    } else {
        "User"
    };
    json!({"login": login.trim_end_matches("[bot]"), "__typename": kind})
}

/// A reply with only `errors` (status 200, as GitHub sends them).
pub fn error(message: &str) -> Answer {
    Answer::ok(json!({"data": null, "errors": [{"message": message}]}))
}

/// A typed error beside partial data (`FORBIDDEN`, `NOT_FOUND`, …), at `path`.
pub fn typed_error(data: Value, kind: &str, path: &str, message: &str) -> Answer {
    Answer::ok(json!({
        "data": data,
        "errors": [{"type": kind, "path": [path], "message": message}],
    }))
}
