//! `PullRequestRollup`: what a release decision reads in one query, derived from the
//! same world as REST: `mergeable`, `mergeStateStatus`, `isDraft`, labels,
//! `latestOpinionatedReviews`, `autoMergeRequest`, `isInMergeQueue`, the head commit's
//! `statusCheckRollup` (latest check run per name, latest status per context), the merge
//! commit's once merged, and `viewer` when the query asks for it. Variables: `number`
//! (required); `first`/`after` page the rollup's `contexts`.

use serde_json::{Value, json};

use super::{Call, actor, typed_error};
use crate::routes::Answer;
use crate::routes::checks::{latest_runs, latest_statuses};
use crate::tokens::{Access, Scope};
use crate::world::{PullRequest, World};

pub fn pull_request(world: &mut World, call: &Call) -> Answer {
    let data = json!({"repository": {"pullRequest": null}});
    if !call.may(Scope::PullRequests, Access::Read) {
        return typed_error(
            data,
            "FORBIDDEN",
            "repository",
            "Resource not accessible by integration",
        );
    }
    let Some(number) = call.variables["number"].as_u64() else {
        return super::error("Variable $number of type Int! was provided invalid value");
    };
    let Some(pr) = world.pr(number) else {
        return typed_error(
            data,
            "NOT_FOUND",
            "repository",
            &format!("Could not resolve to a PullRequest with the number of {number}."),
        );
    };
    let reviews = latest_opinionated(pr);
    let pr_merged = pr.merged;
    // `listedCommits: commits(first: 100) @include(if: $commits)`: asked on the first
    // page of an open pull request's checks.
    let listed = (call.variables["commits"] == Value::Bool(true) && !pr_merged)
        .then(|| listed_commits(world, number, None));
    let Some(pr) = world.pr(number) else {
        return super::error("the pull request went away");
    };
    // A merged pull request's merge commit has checks of its own (the post-merge check).
    let merge_commit = pr
        .merge_commit_sha
        .as_ref()
        .map(|oid| json!({"oid": oid, "statusCheckRollup": rollup(world, oid, &call.variables)}));
    // `viewer` rides along when asked for, as GitHub answers it beside `repository`.
    let viewer = call.query.contains("viewer").then(|| call.viewer());
    let files = world.pr_files(number);
    let additions: u64 = files.iter().map(|f| f.additions).sum();
    let deletions: u64 = files.iter().map(|f| f.deletions).sum();
    let repo = &world.repo;
    Answer::ok(
        json!({"data": {"viewer": viewer, "repository": {"pullRequest": {
            "id": pr.node_id(),
            "number": pr.number,
            "title": pr.title,
            "url": format!("https://github.com/{repo}/pull/{}", pr.number),
            "body": (!pr.body.is_empty()).then_some(&pr.body),
            "author": actor(&pr.author),
            "state": if pr.merged { "MERGED" } else if pr.open { "OPEN" } else { "CLOSED" },
            "isDraft": pr.draft,
            "merged": pr.merged,
            "mergedBy": pr.merged_by.as_deref().map(actor),
            "mergeCommit": merge_commit,
            "changedFiles": files.len(),
            "additions": additions,
            "deletions": deletions,
            "timelineItems": {"nodes": cross_references(world, pr.number)},
            "mergeable": match pr.mergeable {
                Some(true) => "MERGEABLE",
                Some(false) => "CONFLICTING",
                None => "UNKNOWN",
            },
            "mergeStateStatus": pr.mergeable_state.to_ascii_uppercase(),
            "isInMergeQueue": pr.in_merge_queue,
            "autoMergeRequest": pr.auto_merge.as_ref().map(|a| json!({
                "enabledBy": actor(&a.enabled_by),
                "mergeMethod": a.merge_method.to_ascii_uppercase(),
            })),
            "headRefName": pr.head_ref,
            "headRefOid": pr.head_sha,
            "baseRefName": pr.base_ref,
            "baseRefOid": pr.base_sha,
            "isCrossRepository": pr.fork,
            "labels": {
                "totalCount": pr.labels.len(),
                "nodes": pr.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
            },
            "latestOpinionatedReviews": {"totalCount": reviews.len(), "nodes": reviews},
            "commits": {"nodes": [{"commit": {
                "oid": pr.head_sha,
                "statusCheckRollup": rollup(world, &pr.head_sha, &call.variables),
            }}]},
            "listedCommits": listed,
        }}}}),
    )
}

/// `PullRequestCommits`: the commits after `$after`, 100 at most, with the head.
pub fn commits(world: &mut World, call: &Call) -> Answer {
    let data = json!({"repository": {"pullRequest": null}});
    if !call.may(Scope::PullRequests, Access::Read) {
        return typed_error(
            data,
            "FORBIDDEN",
            "repository",
            "Resource not accessible by integration",
        );
    }
    let Some(number) = call.variables["number"].as_u64() else {
        return super::error("Variable $number of type Int! was provided invalid value");
    };
    let Some(head) = world.pr(number).map(|pr| pr.head_sha.clone()) else {
        return typed_error(
            data,
            "NOT_FOUND",
            "repository",
            &format!("Could not resolve to a PullRequest with the number of {number}."),
        );
    };
    let listed = listed_commits(world, number, call.variables["after"].as_str());
    Answer::ok(json!({"data": {"repository": {"pullRequest": {
        "headRefOid": head,
        "listedCommits": listed,
    }}}}))
}

/// GraphQL's `commits(first: 100, after:)` of a pull request: oldest first (its head
/// alone when the scene did not build its commits), each with its message and
/// `authors(first: 10)`: the accounts GitHub credits by email, the author's and each
/// `Co-authored-by` trailer's. A `GitActor`'s `user` is a `User`: an app (and an email
/// of no account) has none.
fn listed_commits(world: &mut World, number: u64, after: Option<&str>) -> Value {
    let shas = match world.pr_commits(number) {
        Some(shas) => shas,
        None => {
            let head = world.pr(number).map(|pr| pr.head_sha.clone());
            head.into_iter()
                .filter(|h| world.ensure_commit(h))
                .collect()
        }
    };
    let start = after
        .and_then(|c| c.strip_prefix("commit:"))
        .and_then(|i| i.parse::<usize>().ok())
        .map_or(0, |i| i + 1)
        .min(shas.len());
    let end = (start + 100).min(shas.len());
    let nodes: Vec<Value> = shas[start..end]
        .iter()
        .filter_map(|sha| world.graph.get(sha))
        .map(|c| {
            let mut logins: Vec<Option<String>> = vec![c.author.login.clone()];
            logins.extend(co_authors(&c.message));
            let authors: Vec<Value> = logins
                .into_iter()
                .take(10)
                .map(|login| {
                    let user = login
                        .filter(|l| !crate::accounts::is_app(l))
                        .map(|l| json!({"login": l}));
                    json!({"user": user})
                })
                .collect();
            json!({"commit": {
                "oid": c.sha,
                "message": c.message,
                "authors": {"nodes": authors},
            }})
        })
        .collect();
    json!({
        "totalCount": shas.len(),
        "pageInfo": {
            "hasNextPage": end < shas.len(),
            "endCursor": (end > start).then(|| format!("commit:{}", end - 1)),
        },
        "nodes": nodes,
    })
}

/// The accounts of a message's `Co-authored-by: Name <email>` lines, as GitHub maps a
/// no-reply email (`login@…` or `id+login@users.noreply.github.com`) to its account;
/// `None` for an email the fake knows no account of.
fn co_authors(message: &str) -> Vec<Option<String>> {
    message
        .lines()
        .filter_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case("co-authored-by")
                .then_some(value)
        })
        .map(|value| {
            let email = value.split_once('<')?.1.split_once('>')?.0.trim();
            let local = email.strip_suffix("@users.noreply.github.com")?;
            let login = local.split_once('+').map_or(local, |(_, l)| l);
            (!login.is_empty()).then(|| login.to_string())
        })
        .collect()
}

/// The pull requests whose description mentions `#<number>` (a revert's "Reverts #7"),
/// as GitHub lists them among `CROSS_REFERENCED_EVENT`s.
fn cross_references(world: &World, number: u64) -> Vec<Value> {
    let mention = format!("#{number}");
    world
        .pulls
        .values()
        .filter(|pr| pr.number != number)
        .filter(|pr| {
            pr.body.match_indices(&mention).any(|(i, _)| {
                !pr.body[i + mention.len()..].starts_with(|c: char| c.is_ascii_digit())
            })
        })
        .map(|pr| {
            json!({"source": {
                "__typename": "PullRequest",
                "number": pr.number,
                "headRefName": pr.head_ref,
                "author": actor(&pr.author),
            }})
        })
        .collect()
}

/// Each reviewer's latest review that took a side (approved, changes requested, or a
/// dismissed one); comments alone do not count.
fn latest_opinionated(pr: &PullRequest) -> Vec<Value> {
    let mut latest: Vec<&crate::world::Review> = Vec::new();
    for review in pr.reviews.iter().filter(|r| r.state != "COMMENTED") {
        match latest.iter_mut().find(|r| r.user == review.user) {
            Some(slot) => *slot = review,
            None => latest.push(review),
        }
    }
    latest
        .into_iter()
        .map(|r| {
            json!({
                "author": actor(&r.user),
                "state": r.state,
                "submittedAt": r.submitted_at,
                "commit": {"oid": r.commit_id},
            })
        })
        .collect()
}

/// `null` when nothing reported on the commit, as GitHub answers.
fn rollup(world: &World, sha: &str, variables: &Value) -> Value {
    let repo = &world.repo;
    let Some(checks) = world.commits.get(sha) else {
        return Value::Null;
    };
    let mut contexts: Vec<(Value, &'static str)> = latest_runs(&checks.check_runs)
        .into_iter()
        .map(|r| {
            let state = match (r.status.as_str(), r.conclusion.as_deref()) {
                ("completed", Some("success" | "neutral" | "skipped")) => "SUCCESS",
                ("completed", _) => "FAILURE",
                _ => "PENDING",
            };
            let node = json!({
                "__typename": "CheckRun",
                "databaseId": r.id,
                "name": r.name,
                "status": r.status.to_ascii_uppercase(),
                "conclusion": r.conclusion.as_ref().map(|c| c.to_ascii_uppercase()),
                "startedAt": r.started_at,
                "completedAt": r.completed_at,
                "detailsUrl": format!("https://github.com/{repo}/runs/{}", r.id),
                "checkSuite": {"app": {"slug": r.app_slug}},
            });
            (node, state)
        })
        .collect();
    contexts.extend(latest_statuses(&checks.statuses).into_iter().map(|s| {
        let state = match s.state.as_str() {
            "success" => "SUCCESS",
            "pending" => "PENDING",
            "error" => "ERROR",
            _ => "FAILURE",
        };
        let node = json!({
            "__typename": "StatusContext",
            "context": s.context,
            "state": s.state.to_ascii_uppercase(),
            "description": s.description,
            "targetUrl": s.target_url,
            "createdAt": s.created_at,
        });
        (node, state)
    }));
    if contexts.is_empty() {
        return Value::Null;
    }
    let states: Vec<&str> = contexts.iter().map(|(_, s)| *s).collect();
    let state = ["FAILURE", "ERROR", "PENDING"]
        .into_iter()
        .find(|s| states.contains(s))
        .unwrap_or("SUCCESS");
    let first = variables["first"].as_u64().unwrap_or(100).min(100) as usize;
    let start = variables["after"]
        .as_str()
        .and_then(|c| c.strip_prefix("context:"))
        .and_then(|i| i.parse::<usize>().ok())
        .map_or(0, |i| i + 1);
    let end = (start + first).min(contexts.len());
    let start = start.min(end);
    let nodes: Vec<&Value> = contexts[start..end].iter().map(|(n, _)| n).collect();
    json!({
        "state": state,
        "contexts": {
            "totalCount": contexts.len(),
            "pageInfo": {
                "hasNextPage": end < contexts.len(),
                "endCursor": (end > start).then(|| format!("context:{}", end - 1)),
            },
            "nodes": nodes,
        },
    })
}
