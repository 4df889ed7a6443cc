//! Routes answered without a server: a request is parsed into a [`Ctx`] and served, so
//! these tests read the answer's status, body and headers directly.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

use serde_json::{Value, json};

use super::{Answer, Ctx, serve};
use crate::tokens::{RELEASE_TOKEN, WORKFLOW_TOKEN};
use crate::world::{PullRequest, World, parse_time};

const REPO: &str = "o/r";

fn world() -> World {
    World {
        api: "http://fake".to_string(),
        ..World::new(REPO)
    }
}

/// `METHOD /repos/o/r{rest}` with `token` and a JSON `body`.
fn call(world: &mut World, method: &str, rest: &str, token: &str, body: Value) -> Answer {
    let path_query = format!("/repos/{REPO}{rest}");
    let (path, query) = path_query.split_once('?').unwrap_or((&path_query, ""));
    let body = match body {
        Value::Null => Vec::new(),
        body => body.to_string().into_bytes(),
    };
    let ctx = Ctx {
        method: method.to_string(),
        path_query: path_query.clone(),
        path: path.to_string(),
        segments: path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        query: url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect(),
        token: Some(token.to_string()),
        accept: String::new(),
        body: &body,
    };
    serve(world, &ctx)
}

fn get(world: &mut World, rest: &str) -> Answer {
    call(world, "GET", rest, WORKFLOW_TOKEN, Value::Null)
}

fn numbers(answer: &Answer) -> Vec<u64> {
    assert_eq!(answer.status, 200, "{:?}", answer.body_json());
    answer
        .body_json()
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect()
}

fn link(answer: &Answer) -> Option<&str> {
    answer
        .headers
        .iter()
        .find(|(name, _)| name == "link")
        .map(|(_, value)| value.as_str())
}

fn updated_at(world: &World, number: u64) -> String {
    world.pr(number).unwrap().updated_at.clone()
}

/// Pull requests 1–5 opened in order; updated in the order 3, 1, 5, 2, 4.
fn five(world: &mut World) {
    for (n, updated) in [(1, 2), (2, 4), (3, 1), (4, 5), (5, 3)] {
        let mut pr = PullRequest::new(n, "o");
        pr.created_at = format!("2026-01-0{n}T10:00:00Z");
        pr.updated_at = format!("2026-02-0{updated}T10:00:00Z");
        world.pulls.insert(n, pr);
    }
}

#[test]
fn pulls_sort_by_created_or_updated_with_github_default_directions() {
    let mut w = world();
    five(&mut w);
    // GitHub: "Default: desc when sort is created or sort is not specified, otherwise asc".
    assert_eq!(numbers(&get(&mut w, "/pulls")), [5, 4, 3, 2, 1]);
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=created")),
        [5, 4, 3, 2, 1]
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?direction=asc")),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=updated")),
        [3, 1, 5, 2, 4]
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=updated&direction=desc")),
        [4, 2, 5, 1, 3]
    );
    // Not modelled: sorted as created, in their own default direction (ascending).
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=popularity")),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=long-running&direction=desc")),
        [5, 4, 3, 2, 1]
    );
    for bad in [
        "/pulls?sort=comments",
        "/pulls?direction=up",
        "/pulls?state=merged",
    ] {
        let answer = get(&mut w, bad);
        assert_eq!(answer.status, 422, "{bad}");
        assert_eq!(answer.body_json().unwrap()["message"], "Validation Failed");
    }
}

#[test]
fn equal_times_sort_by_number_and_state_filters_first() {
    let mut w = world();
    five(&mut w);
    for n in [2, 4] {
        w.pr_mut(n).unwrap().updated_at = "2026-03-01T00:00:00Z".to_string();
    }
    w.pr_mut(2).unwrap().open = false;
    assert_eq!(
        numbers(&get(&mut w, "/pulls?state=all&sort=updated&direction=desc")),
        [4, 2, 5, 1, 3]
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=updated&direction=desc")),
        [4, 5, 1, 3],
        "open ones by default"
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?state=closed&sort=updated")),
        [2]
    );
}

#[test]
fn a_listing_by_update_pages_with_link_headers_that_keep_the_query() {
    let mut w = world();
    for n in 1..=250 {
        let mut pr = PullRequest::new(n, "o");
        // Updated in reverse order of number: #250 first, oldest #1.
        pr.updated_at = crate::world::format_time(1_800_000_000 - n as i64);
        w.pulls.insert(n, pr);
    }
    let query = "/pulls?state=all&sort=updated&direction=desc&per_page=100";
    let first = get(&mut w, query);
    assert_eq!(numbers(&first), (1..=100).collect::<Vec<_>>());
    let base = "http://fake/repos/o/r/pulls?state=all&sort=updated&direction=desc&per_page=100";
    assert_eq!(
        link(&first),
        Some(format!("<{base}&page=2>; rel=\"next\", <{base}&page=3>; rel=\"last\"").as_str())
    );
    let second = get(&mut w, &format!("{query}&page=2"));
    assert_eq!(numbers(&second), (101..=200).collect::<Vec<_>>());
    assert_eq!(
        link(&second),
        Some(
            format!(
                "<{base}&page=1>; rel=\"prev\", <{base}&page=3>; rel=\"next\", \
                 <{base}&page=3>; rel=\"last\", <{base}&page=1>; rel=\"first\""
            )
            .as_str()
        )
    );
    let last = get(&mut w, &format!("{query}&page=3"));
    assert_eq!(numbers(&last), (201..=250).collect::<Vec<_>>());
    assert!(
        !link(&last).unwrap().contains("rel=\"next\""),
        "the last page"
    );
    let beyond = get(&mut w, &format!("{query}&page=4"));
    assert_eq!(numbers(&beyond), Vec::<u64>::new());

    // A list carries the simple pull request, with its times.
    let pr = &first.body_json().unwrap()[0];
    assert_eq!(pr["updated_at"], updated_at(&w, 1));
    assert!(pr.get("comments").is_none() && pr.get("mergeable").is_none());
}

#[test]
fn default_times_are_made_up_from_the_number_as_before() {
    let mut w = world();
    w.pulls.insert(7, PullRequest::new(7, "o"));
    let pr = get(&mut w, "/pulls/7");
    let pr = pr.body_json().unwrap();
    assert_eq!(pr["created_at"], "2026-11-18T13:03:20Z");
    assert_eq!(pr["updated_at"], "2026-11-18T13:03:21Z");
    assert_eq!(pr["closed_at"], Value::Null);
    assert_eq!(pr["merged_at"], Value::Null);
    let issue = get(&mut w, "/issues/7");
    assert_eq!(issue.body_json().unwrap()["updated_at"], pr["updated_at"]);
}

#[test]
fn a_new_comment_updates_its_pull_request_an_edited_one_does_not() {
    let mut w = world();
    five(&mut w);
    let before = updated_at(&w, 3);
    let created = call(
        &mut w,
        "POST",
        "/issues/3/comments",
        WORKFLOW_TOKEN,
        json!({"body": "hi"}),
    );
    assert_eq!(created.status, 201);
    let comment = created.body_json().unwrap().clone();
    let after_create = updated_at(&w, 3);
    assert!(after_create > before, "{after_create} after {before}");
    assert!(
        after_create.as_str() >= comment["created_at"].as_str().unwrap(),
        "not before the comment it is for"
    );
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=updated&direction=desc"))[0],
        3,
        "now the most recently updated"
    );

    let id = comment["id"].as_u64().unwrap();
    let edited = call(
        &mut w,
        "PATCH",
        &format!("/issues/comments/{id}"),
        WORKFLOW_TOKEN,
        json!({"body": "hi again"}),
    );
    assert_eq!(edited.status, 200);
    assert_eq!(
        updated_at(&w, 3),
        after_create,
        "an edit is not an update of the PR"
    );
    let edited = edited.body_json().unwrap();
    assert!(edited["updated_at"].as_str() > comment["updated_at"].as_str());
    assert_eq!(edited["created_at"], comment["created_at"]);

    // A comment on a plain issue (not a pull request) moves no pull request.
    w.issues.insert(9, crate::world::Issue::default());
    let times: Vec<String> = (1..=5).map(|n| updated_at(&w, n)).collect();
    call(
        &mut w,
        "POST",
        "/issues/9/comments",
        WORKFLOW_TOKEN,
        json!({"body": "x"}),
    );
    assert_eq!(
        (1..=5).map(|n| updated_at(&w, n)).collect::<Vec<_>>(),
        times
    );
}

#[test]
fn labels_merges_closes_edits_and_pushes_update_a_pull_request() {
    let mut w = world();
    five(&mut w);
    let mut last = updated_at(&w, 4);
    let mut moved = |w: &mut World, what: &str| {
        let now = updated_at(w, 1);
        assert!(now > last, "{what}: {now} after {last}");
        last = now;
    };
    let add = call(
        &mut w,
        "POST",
        "/issues/1/labels",
        WORKFLOW_TOKEN,
        json!(["bug"]),
    );
    assert_eq!(add.status, 200);
    moved(&mut w, "a label added");
    let unchanged = updated_at(&w, 1);
    call(
        &mut w,
        "POST",
        "/issues/1/labels",
        WORKFLOW_TOKEN,
        json!(["BUG"]),
    );
    assert_eq!(
        updated_at(&w, 1),
        unchanged,
        "a label it has already: no change"
    );
    call(
        &mut w,
        "DELETE",
        "/issues/1/labels/bug",
        WORKFLOW_TOKEN,
        Value::Null,
    );
    moved(&mut w, "a label removed");
    call(
        &mut w,
        "PATCH",
        "/pulls/1",
        WORKFLOW_TOKEN,
        json!({"title": "New"}),
    );
    moved(&mut w, "a title edit");
    let same = updated_at(&w, 1);
    call(
        &mut w,
        "PATCH",
        "/pulls/1",
        WORKFLOW_TOKEN,
        json!({"title": "New"}),
    );
    assert_eq!(updated_at(&w, 1), same, "the same title again");
    let closed = call(
        &mut w,
        "PATCH",
        "/pulls/1",
        WORKFLOW_TOKEN,
        json!({"state": "closed"}),
    );
    moved(&mut w, "a close");
    assert_eq!(closed.body_json().unwrap()["closed_at"], updated_at(&w, 1));
    let reopened = call(
        &mut w,
        "PATCH",
        "/pulls/1",
        WORKFLOW_TOKEN,
        json!({"state": "open"}),
    );
    moved(&mut w, "a reopen");
    assert_eq!(reopened.body_json().unwrap()["closed_at"], Value::Null);
    w.push_head(1, "3333333333333333333333333333333333333333");
    moved(&mut w, "a push");
    let head = w.pr(1).unwrap().head_sha.clone();
    let merged = call(
        &mut w,
        "PUT",
        "/pulls/1/merge",
        RELEASE_TOKEN,
        json!({"sha": head, "merge_method": "squash"}),
    );
    assert_eq!(merged.status, 200, "{:?}", merged.body_json());
    moved(&mut w, "a merge");
    let pr = get(&mut w, "/pulls/1");
    let pr = pr.body_json().unwrap();
    assert_eq!(pr["merged_at"], pr["updated_at"]);
    assert_eq!(pr["closed_at"], pr["updated_at"]);
}

#[test]
fn the_clock_only_moves_forward_past_every_update() {
    let mut w = world();
    five(&mut w);
    // A scene set one pull request far ahead: a later update still comes after it.
    w.pr_mut(5).unwrap().updated_at = "2030-01-01T00:00:00Z".to_string();
    let touched = w.touch(2).unwrap();
    assert_eq!(touched, "2030-01-01T00:00:01Z");
    let again = w.touch(3).unwrap();
    assert!(again > touched);
    assert_eq!(w.touch(99), None, "no such pull request");
    assert_eq!(w.clock, parse_time(&again).unwrap());
}

#[test]
fn every_request_is_counted_by_route() {
    let mut w = world();
    five(&mut w);
    get(&mut w, "/pulls?state=all&per_page=100");
    get(&mut w, "/pulls?state=all&per_page=100&page=2");
    get(&mut w, "/issues/1/comments");
    get(&mut w, "/issues/2/comments");
    call(
        &mut w,
        "POST",
        "/issues/2/comments",
        "unknown-token",
        json!({"body": "x"}),
    );
    assert_eq!(w.counts.total, 5);
    assert_eq!(
        w.counts.by_route,
        [
            (
                "GET /repos/{owner}/{repo}/issues/{n}/comments".to_string(),
                2
            ),
            ("GET /repos/{owner}/{repo}/pulls".to_string(), 2),
            (
                "POST /repos/{owner}/{repo}/issues/{n}/comments".to_string(),
                1
            ),
        ]
        .into()
    );
}

#[test]
fn comments_of_one_issue_are_read_through_the_index_even_after_changes() {
    let mut w = world();
    five(&mut w);
    for n in [1, 2, 1, 3, 1] {
        call(
            &mut w,
            "POST",
            &format!("/issues/{n}/comments"),
            WORKFLOW_TOKEN,
            json!({"body": format!("on {n}")}),
        );
    }
    let bodies = |w: &mut World, n: u64| -> Vec<String> {
        let answer = get(w, &format!("/issues/{n}/comments"));
        answer
            .body_json()
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["body"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(bodies(&mut w, 1), ["on 1", "on 1", "on 1"]);
    // A test changes the list directly: the index follows.
    w.comments.retain(|c| c["issue"] != 1 || c["id"] != 5001);
    w.comments[0]["body"] = "edited".into();
    assert_eq!(bodies(&mut w, 1), ["on 1", "on 1"]);
    assert_eq!(bodies(&mut w, 2), ["edited"]);
    let pr = get(&mut w, "/pulls/1");
    assert_eq!(pr.body_json().unwrap()["comments"], 2);
}

#[test]
fn a_revert_pull_request_is_opened_now_on_the_clock() {
    let mut w = world();
    five(&mut w);
    let mut merged = PullRequest::new(6, "o");
    merged.merged = true;
    merged.open = false;
    merged.merge_commit_sha = Some("4444444444444444444444444444444444444444".to_string());
    let id = merged.node_id();
    w.pulls.insert(6, merged);
    let body = json!({
        "query": "mutation RevertPullRequest($input: RevertPullRequestInput!) { revertPullRequest(input: $input) { clientMutationId } }",
        "variables": {"input": {"pullRequestId": id}},
    })
    .to_string()
    .into_bytes();
    let ctx = Ctx {
        method: "POST".to_string(),
        path_query: "/graphql".to_string(),
        path: "/graphql".to_string(),
        segments: vec!["graphql".to_string()],
        query: Vec::new(),
        token: Some(RELEASE_TOKEN.to_string()),
        accept: String::new(),
        body: &body,
    };
    let answer = serve(&mut w, &ctx);
    let opened =
        answer.body_json().unwrap()["data"]["revertPullRequest"]["revertPullRequest"]["number"]
            .as_u64()
            .unwrap_or_else(|| panic!("{:?}", answer.body_json()));
    let revert = w.pr(opened).unwrap().clone();
    assert_eq!(revert.created_at, revert.updated_at);
    assert_eq!(
        numbers(&get(&mut w, "/pulls?sort=updated&direction=desc"))[0],
        opened,
        "the newest update"
    );
    assert!(revert.created_at > updated_at(&w, 4));
}
