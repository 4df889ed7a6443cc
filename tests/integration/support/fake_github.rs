//! A fake GitHub on wiremock: the routes the product calls, and a record of what it sent.

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::REPO;

pub struct FakeGitHub {
    pub server: MockServer,
}

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        FakeGitHub {
            server: MockServer::start().await,
        }
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

    pub async fn viewer(&self, login: &str) {
        Mock::given(method("POST"))
            .and(path("/graphql"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"data": {"viewer": {"login": login}}})),
            )
            .mount(&self.server)
            .await;
    }

    pub async fn comments(&self, issue: u64, comments: Value) {
        Mock::given(method("GET"))
            .and(path(format!("/repos/{REPO}/issues/{issue}/comments")))
            .respond_with(ResponseTemplate::new(200).set_body_json(comments))
            .mount(&self.server)
            .await;
    }

    /// Comment creation echoes the body back, authored by `login`.
    pub async fn accept_comments(&self, issue: u64, status: u16, login: &str) {
        let login = login.to_string();
        Mock::given(method("POST"))
            .and(path(format!("/repos/{REPO}/issues/{issue}/comments")))
            .respond_with(move |req: &Request| {
                if status >= 400 {
                    return ResponseTemplate::new(status).set_body_json(
                        json!({"message": "Resource not accessible by integration"}),
                    );
                }
                let body: Value = serde_json::from_slice(&req.body).unwrap();
                ResponseTemplate::new(status).set_body_json(comment(
                    9001,
                    &login,
                    body["body"].as_str().unwrap(),
                ))
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

pub fn comment(id: u64, login: &str, body: &str) -> Value {
    json!({
        "id": id,
        "body": body,
        "user": {"login": login, "type": "Bot"},
        "author_association": "NONE",
        "html_url": format!("https://github.com/{REPO}/pull/2#issuecomment-{id}"),
        "created_at": "2026-11-22T10:00:00Z",
        "updated_at": "2026-11-22T10:00:00Z"
    })
}
