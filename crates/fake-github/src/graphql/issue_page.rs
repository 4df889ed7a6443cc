//! The product's anonymous issue query: the viewer, the policy blob at `HEAD:<path>`, and
//! `comments(last:, before:)` over the world's comments, oldest first, as GitHub pages
//! them (a cursor is the index of the comment it points at).

use serde_json::{Value, json};

use super::{Call, actor, error};
use crate::routes::Answer;
use crate::tokens::{Access, Scope};
use crate::world::World;

pub fn issue_page(world: &mut World, call: &Call) -> Answer {
    if world.issue_query_fails {
        return error("Field 'fullDatabaseId' doesn't exist on type 'IssueComment'");
    }
    if !call.may(Scope::Issues, Access::Read) && !call.may(Scope::PullRequests, Access::Read) {
        return error("Resource not accessible by integration");
    }
    let variables = &call.variables;
    let number = variables["number"].as_u64().unwrap_or(0);
    let policy = variables["policy"]
        .as_str()
        .and_then(|expr| expr.split_once(':'))
        .and_then(|(git_ref, path)| {
            let git_ref = match git_ref {
                "HEAD" => world.default_branch.as_str(),
                other => other,
            };
            world.file_at(git_ref, path)
        })
        .map(|text| json!({"text": text, "isTruncated": false}));
    let Some((author, body)) = world.issue_like(number) else {
        return Answer::ok(json!({
            "data": {"viewer": call.viewer(), "repository": {"policy": policy, "issueOrPullRequest": null}},
            "errors": [{"type": "NOT_FOUND", "message": format!("Could not resolve to an issue or pull request with the number of {number}.")}],
        }));
    };
    let all: Vec<&Value> = world.comments.on(number).collect();
    let last = variables["last"].as_u64().unwrap_or(0).min(100) as usize;
    let end = match variables["before"].as_str() {
        Some(cursor) => cursor
            .strip_prefix("cursor:")
            .and_then(|i| i.parse::<usize>().ok())
            .unwrap_or(0)
            .min(all.len()),
        None => all.len(),
    };
    let start = end.saturating_sub(last);
    let nodes: Vec<Value> = all[start..end].iter().map(|c| node(c)).collect();
    let start_cursor = (start < end).then(|| format!("cursor:{start}"));
    Answer::ok(json!({"data": {
        "viewer": call.viewer(),
        "repository": {
            "policy": policy,
            "issueOrPullRequest": {
                "author": actor(&author),
                "body": body,
                "comments": {
                    "pageInfo": {"hasPreviousPage": start > 0, "startCursor": start_cursor},
                    "nodes": nodes,
                },
            },
        },
    }}))
}

/// A REST comment as a GraphQL node.
fn node(c: &Value) -> Value {
    json!({
        "fullDatabaseId": c["id"].to_string(),
        "url": c["html_url"],
        "createdAt": c["created_at"],
        "body": c["body"],
        "authorAssociation": c["author_association"],
        "author": actor(c["user"]["login"].as_str().unwrap_or("")),
    })
}
