//! A fake GitHub on wiremock: a small stateful world (issues, comments, the policy file,
//! the token's login) served on the routes the product calls, and a record of every
//! request. GraphQL serves the viewer query and the issue page (`comments(last:,
//! before:)` over the world's comments, oldest first, as GitHub pages them); REST pages
//! comments with GitHub's `Link` relations.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::REPO;

#[derive(Default)]
pub struct World {
    pub comments: Vec<Value>,
    next_id: u64,
    /// Status for comment writes (403 = a read-only token).
    pub write_status: Option<u16>,
    pub login: String,
    /// Issue number → (author login, body); unknown issues are 404.
    pub issues: BTreeMap<u64, (String, String)>,
    /// The policy file on the default branch, as GraphQL's `object(expression:)` sees it.
    pub default_policy: Option<String>,
    /// Answer the issue query with GraphQL errors (e.g. a GHES without `fullDatabaseId`).
    pub issue_query_fails: bool,
}

pub struct FakeGitHub {
    pub server: MockServer,
    pub world: Arc<Mutex<World>>,
}

impl FakeGitHub {
    /// The world with the comment routes mounted, as `github-actions[bot]`.
    pub async fn start() -> FakeGitHub {
        let gh = FakeGitHub {
            server: MockServer::start().await,
            world: Arc::new(Mutex::new(World {
                next_id: 5000,
                login: "github-actions[bot]".to_string(),
                ..World::default()
            })),
        };
        gh.mount_comments().await;
        gh.mount_issues().await;
        gh.graphql().await;
        gh
    }

    /// Mounts the routes again after `server.reset()` (the world is kept); the policy
    /// file is 404 again (the default policy).
    pub async fn remount(&self) {
        self.mount_comments().await;
        self.mount_issues().await;
        self.graphql().await;
        Mock::given(method("GET"))
            .and(path_regex(format!("^/repos/{REPO}/contents/")))
            .respond_with(ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})))
            .mount(&self.server)
            .await;
    }

    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// The policy file at a ref (`None` = 404, the default policy applies).
    pub async fn policy(&self, git_ref: &str, text: Option<&str>) {
        let response = match text {
            Some(t) => ResponseTemplate::new(200).set_body_string(t),
            None => ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})),
        };
        Mock::given(method("GET"))
            .and(path(format!("/repos/{REPO}/contents/.github/council.yml")))
            .and(query_param("ref", git_ref))
            .and(header("authorization", "Bearer ghs_test_token_value"))
            .respond_with(response)
            .mount(&self.server)
            .await;
    }

    /// One responder for every GraphQL query: the identity query and the issue page.
    async fn graphql(&self) {
        let world = self.world.clone();
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .respond_with(move |req: &Request| {
                let payload: Value = serde_json::from_slice(&req.body).unwrap_or_default();
                let query = payload["query"].as_str().unwrap_or("");
                let world = world.lock().unwrap();
                if query.contains("issueOrPullRequest") {
                    return issue_page(&world, &payload["variables"]);
                }
                if !query.contains("viewer { login __typename } }") || query.contains("repository")
                {
                    return graphql_error("not in this fake");
                }
                ResponseTemplate::new(200)
                    .set_body_json(json!({"data": {"viewer": actor(&world.login)}}))
            })
            .mount(&self.server)
            .await;
    }

    /// An issue (or pull request) the state commands can read.
    pub fn issue(&self, number: u64, author: &str, body: &str) {
        let mut w = self.world.lock().unwrap();
        w.issues
            .insert(number, (author.to_string(), body.to_string()));
    }

    /// The token's login (`name[bot]` for apps).
    pub fn set_login(&self, login: &str) {
        self.world.lock().unwrap().login = login.to_string();
    }

    pub fn set_default_policy(&self, text: &str) {
        self.world.lock().unwrap().default_policy = Some(text.to_string());
    }

    pub fn fail_issue_query(&self) {
        self.world.lock().unwrap().issue_query_fails = true;
    }

    /// A comment with an author association (OWNER, MEMBER, COLLABORATOR, NONE, …).
    pub fn seed_as(&self, issue: u64, author: &str, association: &str, body: &str) -> u64 {
        let id = self.seed(issue, author, body);
        let mut w = self.world.lock().unwrap();
        if let Some(c) = w.comments.iter_mut().find(|c| c["id"] == id) {
            c["author_association"] = association.into();
        }
        id
    }

    /// `count` comments on `issue`, the body of each from its 0-based index.
    pub fn seed_many(
        &self,
        issue: u64,
        count: usize,
        author: &str,
        body: impl Fn(usize) -> String,
    ) {
        let mut w = self.world.lock().unwrap();
        for i in 0..count {
            w.next_id += 1;
            let id = w.next_id;
            w.comments.push(comment(id, issue, author, &body(i)));
        }
    }

    /// A comment already on the PR/issue.
    pub fn seed(&self, issue: u64, author: &str, body: &str) -> u64 {
        let mut w = self.world.lock().unwrap();
        w.next_id += 1;
        let id = w.next_id;
        w.comments.push(comment(id, issue, author, body));
        id
    }

    pub fn comment_bodies(&self) -> Vec<String> {
        self.world
            .lock()
            .unwrap()
            .comments
            .iter()
            .map(|c| c["body"].as_str().unwrap_or("").to_string())
            .collect()
    }

    pub fn set_write_status(&self, status: u16) {
        self.world.lock().unwrap().write_status = Some(status);
    }

    async fn mount_comments(&self) {
        let issue_comments = format!(r"^/repos/{REPO}/issues/(\d+)/comments$");
        let one_comment = format!(r"^/repos/{REPO}/issues/comments/(\d+)$");
        let w = self.world.clone();
        // Links name the address the server listens on: `localhost` from the request
        // could resolve to ::1, where nothing listens.
        let server = self.server.uri();
        Mock::given(method("GET"))
            .and(path_regex(issue_comments.clone()))
            .respond_with(move |req: &Request| {
                let issue = number(req, 4);
                let world = w.lock().unwrap();
                let all: Vec<&Value> = world
                    .comments
                    .iter()
                    .filter(|c| c["issue"] == issue)
                    .collect();
                let page: usize = query(req, "page").unwrap_or(1);
                let per_page: usize = query(req, "per_page").unwrap_or(30);
                let chunk: Vec<&Value> = all
                    .iter()
                    .skip((page - 1) * per_page)
                    .take(per_page)
                    .copied()
                    .collect();
                let response = ResponseTemplate::new(200).set_body_json(chunk);
                let last = all.len().div_ceil(per_page).max(1);
                let url = |p: usize| {
                    format!(
                        "<{}{}?per_page={per_page}&page={p}>",
                        server,
                        req.url.path()
                    )
                };
                let mut links = Vec::new();
                if page > 1 {
                    links.push(format!("{}; rel=\"prev\"", url(page - 1)));
                }
                if page < last {
                    links.push(format!("{}; rel=\"next\"", url(page + 1)));
                    links.push(format!("{}; rel=\"last\"", url(last)));
                }
                if page > 1 {
                    links.push(format!("{}; rel=\"first\"", url(1)));
                }
                if links.is_empty() {
                    response
                } else {
                    response.insert_header("link", links.join(", ").as_str())
                }
            })
            .mount(&self.server)
            .await;
        let w = self.world.clone();
        Mock::given(method("POST"))
            .and(path_regex(issue_comments))
            .respond_with(move |req: &Request| {
                let issue = number(req, 4);
                let mut world = w.lock().unwrap();
                if let Some(status) = world.write_status {
                    return denied(status);
                }
                let body: Value = serde_json::from_slice(&req.body).unwrap();
                world.next_id += 1;
                let id = world.next_id;
                let login = world.login.clone();
                let c = comment(id, issue, &login, body["body"].as_str().unwrap());
                world.comments.push(c.clone());
                ResponseTemplate::new(201).set_body_json(c)
            })
            .mount(&self.server)
            .await;
        let w = self.world.clone();
        Mock::given(method("GET"))
            .and(path_regex(one_comment.clone()))
            .respond_with(move |req: &Request| {
                let id = number(req, 5);
                let world = w.lock().unwrap();
                match world.comments.iter().find(|c| c["id"] == id) {
                    Some(c) => ResponseTemplate::new(200).set_body_json(c),
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            })
            .mount(&self.server)
            .await;
        let w = self.world.clone();
        Mock::given(method("PATCH"))
            .and(path_regex(one_comment.clone()))
            .respond_with(move |req: &Request| {
                let id = number(req, 5);
                let mut world = w.lock().unwrap();
                if let Some(status) = world.write_status {
                    return denied(status);
                }
                let body: Value = serde_json::from_slice(&req.body).unwrap();
                match world.comments.iter_mut().find(|c| c["id"] == id) {
                    Some(c) => {
                        c["body"] = body["body"].clone();
                        ResponseTemplate::new(200).set_body_json(c.clone())
                    }
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            })
            .mount(&self.server)
            .await;
        let w = self.world.clone();
        Mock::given(method("DELETE"))
            .and(path_regex(one_comment))
            .respond_with(move |req: &Request| {
                let id = number(req, 5);
                let mut world = w.lock().unwrap();
                world.comments.retain(|c| c["id"] != id);
                ResponseTemplate::new(204)
            })
            .mount(&self.server)
            .await;
    }

    async fn mount_issues(&self) {
        let w = self.world.clone();
        Mock::given(method("GET"))
            .and(path_regex(format!(r"^/repos/{REPO}/issues/(\d+)$")))
            .respond_with(move |req: &Request| {
                let number = number(req, 4);
                let world = w.lock().unwrap();
                match world.issues.get(&number) {
                    Some((author, body)) => ResponseTemplate::new(200).set_body_json(json!({
                        "number": number,
                        "user": {"login": author, "type": kind(author)},
                        "body": body,
                    })),
                    None => {
                        ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"}))
                    }
                }
            })
            .mount(&self.server)
            .await;
    }

    pub async fn accept_close(&self, pr: u64, status: u16) {
        let body = if status >= 400 {
            json!({"message": "Resource not accessible by integration"})
        } else {
            json!({"number": pr, "state": "closed"})
        };
        Mock::given(method("PATCH"))
            .and(path(format!("/repos/{REPO}/pulls/{pr}")))
            .respond_with(ResponseTemplate::new(status).set_body_json(body))
            .mount(&self.server)
            .await;
    }

    /// `METHOD /path?query` of every request, in order.
    pub async fn requests_with_query(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| match r.url.query() {
                Some(q) => format!("{} {}?{q}", r.method, r.url.path()),
                None => format!("{} {}", r.method, r.url.path()),
            })
            .collect()
    }

    /// The `variables` of every GraphQL request, in order.
    pub async fn graphql_variables(&self) -> Vec<Value> {
        self.bodies("POST")
            .await
            .into_iter()
            .filter(|b| b.get("query").is_some())
            .map(|b| b["variables"].clone())
            .collect()
    }

    /// Bodies of the comments posted, in order.
    pub async fn posted(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/comments"))
            .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
            .map(|b| b["body"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// `METHOD /path` of every request, in order.
    pub async fn requests(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| format!("{} {}", r.method, r.url.path()))
            .collect()
    }

    /// Requests other than the ledger's own (identity, comment list/read/write, the
    /// previous audit artifacts).
    pub async fn non_ledger_requests(&self) -> Vec<String> {
        self.requests()
            .await
            .into_iter()
            .filter(|r| {
                !r.ends_with("/graphql")
                    && !r.contains("/comments")
                    && !r.contains("/actions/artifacts")
            })
            .collect()
    }

    pub async fn writes(&self) -> Vec<String> {
        self.requests()
            .await
            .into_iter()
            .filter(|r| !r.starts_with("GET") && !r.ends_with("/graphql"))
            .collect()
    }

    pub async fn bodies(&self, method_name: &str) -> Vec<Value> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.method.as_str() == method_name)
            .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
            .collect()
    }
}

/// `comments(last: N, before: cursor)` over the issue's comments, oldest first; a cursor
/// is the index of the comment it points at.
fn issue_page(world: &World, variables: &Value) -> ResponseTemplate {
    if world.issue_query_fails {
        return graphql_error("Field 'fullDatabaseId' doesn't exist on type 'IssueComment'");
    }
    let number = variables["number"].as_u64().unwrap_or(0);
    let policy = world
        .default_policy
        .as_ref()
        .map(|text| json!({"text": text, "isTruncated": false}));
    let Some((author, body)) = world.issues.get(&number) else {
        return ResponseTemplate::new(200).set_body_json(json!({
            "data": {"viewer": actor(&world.login), "repository": {"policy": policy, "issueOrPullRequest": null}},
            "errors": [{"type": "NOT_FOUND", "message": format!("Could not resolve to an issue or pull request with the number of {number}.")}],
        }));
    };
    let all: Vec<&Value> = world
        .comments
        .iter()
        .filter(|c| c["issue"] == number)
        .collect();
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
    ResponseTemplate::new(200).set_body_json(json!({"data": {
        "viewer": actor(&world.login),
        "repository": {
            "policy": policy,
            "issueOrPullRequest": {
                "author": actor(author),
                "body": body,
                "comments": {
                    "pageInfo": {"hasPreviousPage": start > 0, "startCursor": start_cursor},
                    "nodes": nodes,
                },
            },
        },
    }}))
}

/// A REST comment as a GraphQL node: bots lose their `[bot]` suffix, as on GitHub.
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

fn actor(login: &str) -> Value {
    json!({"login": login.trim_end_matches("[bot]"), "__typename": kind(login)})
}

fn kind(login: &str) -> &'static str {
    if login.ends_with("[bot]") {
        "Bot"
    } else {
        "User"
    }
}

fn graphql_error(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_json(json!({"data": null, "errors": [{"message": message}]}))
}

fn denied(status: u16) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .set_body_json(json!({"message": "Resource not accessible by integration"}))
}

fn number(req: &Request, segment: usize) -> u64 {
    req.url
        .path()
        .split('/')
        .nth(segment + 1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn query<T: std::str::FromStr>(req: &Request, name: &str) -> Option<T> {
    req.url
        .query_pairs()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
}

/// Ids grow with time, one second apart, so ordering by `created_at` is ordering by id.
pub fn comment(id: u64, issue: u64, login: &str, body: &str) -> Value {
    let created = chrono::DateTime::from_timestamp(1_795_000_000 + id as i64, 0)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    json!({
        "id": id,
        "issue": issue,
        "body": body,
        "user": {"login": login, "type": kind(login)},
        "author_association": "NONE",
        "html_url": format!("https://github.com/{REPO}/pull/{issue}#issuecomment-{id}"),
        "created_at": created,
        "updated_at": created,
    })
}
