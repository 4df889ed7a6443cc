//! A fake GitHub on wiremock: a small stateful world (comments, the policy file, the
//! token's login) served on the routes the product calls, and a record of every request.

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
        gh.viewer().await;
        gh
    }

    /// Mounts the routes again after `server.reset()` (the world is kept); the policy
    /// file is 404 again (the default policy).
    pub async fn remount(&self) {
        self.mount_comments().await;
        self.viewer().await;
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

    async fn viewer(&self) {
        let world = self.world.clone();
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .respond_with(move |req: &Request| {
                let body = String::from_utf8_lossy(&req.body);
                if !body.contains("viewer { login __typename } }") || body.contains("repository") {
                    return ResponseTemplate::new(200)
                        .set_body_json(json!({"errors": [{"message": "not in this fake"}]}));
                }
                let login = world.lock().unwrap().login.clone();
                let bare = login.trim_end_matches("[bot]").to_string();
                ResponseTemplate::new(200).set_body_json(
                    json!({"data": {"viewer": {"login": bare, "__typename": "Bot"}}}),
                )
            })
            .mount(&self.server)
            .await;
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
                let mut response = ResponseTemplate::new(200).set_body_json(chunk);
                if page * per_page < all.len() {
                    let next = format!(
                        "{}{}?per_page={per_page}&page={}",
                        base(req),
                        req.url.path(),
                        page + 1
                    );
                    response =
                        response.insert_header("link", format!("<{next}>; rel=\"next\"").as_str());
                }
                response
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

    /// Requests other than the ledger's own (identity, comment list/read/write).
    pub async fn non_ledger_requests(&self) -> Vec<String> {
        self.requests()
            .await
            .into_iter()
            .filter(|r| !r.ends_with("/graphql") && !r.contains("/comments"))
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

fn base(req: &Request) -> String {
    format!("{}://{}", req.url.scheme(), req.url.authority())
}

pub fn comment(id: u64, issue: u64, login: &str, body: &str) -> Value {
    json!({
        "id": id,
        "issue": issue,
        "body": body,
        "user": {"login": login, "type": if login.ends_with("[bot]") { "Bot" } else { "User" }},
        "author_association": "NONE",
        "html_url": format!("https://github.com/{REPO}/pull/{issue}#issuecomment-{id}"),
        "created_at": format!("2026-11-22T10:{:02}:00Z", id % 60),
        "updated_at": "2026-11-22T10:00:00Z"
    })
}
