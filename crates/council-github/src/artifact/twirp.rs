//! The Results service's Twirp transport (spec §2): JSON POSTs with the runtime token, the
//! official client's retry rules, and response shapes in both key spellings.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use bytes::Bytes;
use http::{Method, StatusCode, header};
use octocrab::Octocrab;
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::Value;

use super::{ArtifactError, Redact, retry_after, send, truncate};
use crate::client::{Reply, build_octocrab};
use crate::retry::{Failure, GaveUp, RetryPolicy, retry};

const SERVICE_PATH: &str = "/twirp/github.actions.results.api.v1.ArtifactService/";

pub(super) struct Twirp {
    client: Octocrab,
    policy: RetryPolicy,
    requests: Arc<AtomicU32>,
    redact: Redact,
}

impl Twirp {
    /// `origin` is the Results service's origin; requests go to relative paths so that
    /// octocrab adds the token (it adds it only to its own base host).
    pub fn new(
        origin: &str,
        token: &str,
        policy: RetryPolicy,
        requests: Arc<AtomicU32>,
    ) -> Result<Twirp, ArtifactError> {
        let client = build_octocrab(origin, Some(token))
            .map_err(|_| ArtifactError::Config("cannot use ACTIONS_RESULTS_URL".to_string()))?;
        Ok(Twirp {
            client,
            policy,
            requests,
            redact: Redact::new([token.to_string()]),
        })
    }

    /// One RPC, retried on 429/5xx, rate limits, non-JSON bodies and transport errors.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        what: &str,
        body: &Value,
    ) -> Result<T, ArtifactError> {
        let payload = Bytes::from(body.to_string());
        let reply = retry(self.policy, |_| self.attempt(method, payload.clone()))
            .await
            .map_err(|gave_up| self.give_up(what, gave_up))?;
        serde_json::from_slice(&reply.body).map_err(|e| ArtifactError::Decode {
            what: what.to_string(),
            message: e.to_string(),
        })
    }

    async fn attempt(&self, method: &str, payload: Bytes) -> Result<Reply, Failure> {
        let request = http::Request::builder()
            .method(Method::POST)
            .uri(format!("{SERVICE_PATH}{method}"))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::CONTENT_LENGTH, payload.len())
            .body(payload)
            .map_err(|e| Failure::fatal(format!("building the request: {e}")))?;
        classify(send(&self.client, request, &self.requests).await?)
    }

    fn give_up(&self, what: &str, gave_up: GaveUp) -> ArtifactError {
        let message = self.redact.clean(&gave_up.last.message);
        if message.contains("insufficient usage") {
            return ArtifactError::Quota {
                what: what.to_string(),
                message,
            };
        }
        self.redact.give_up(what, gave_up, twirp_hint)
    }
}

/// The official client's rules (§2.3), plus GitHub's 403 rate limits: retry 429/500/502/503/
/// 504 and any non-JSON body (a proxy's HTML page), never "insufficient usage".
fn classify(reply: Reply) -> Result<Reply, Failure> {
    let status = reply.status;
    let wait = retry_after(&reply.headers);
    let Some(json) = serde_json::from_slice::<Value>(&reply.body)
        .ok()
        .filter(Value::is_object)
    else {
        return Err(Failure {
            retryable: true,
            retry_after: wait,
            status: Some(status.as_u16()),
            unreachable: false,
            message: format!("{} with a body that is not JSON", status.as_u16()),
        });
    };
    if status.is_success() {
        return Ok(reply);
    }
    let message = twirp_message(&json, status);
    let quota = message.contains("insufficient usage");
    let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::FORBIDDEN
            && (wait.is_some() || message.to_ascii_lowercase().contains("rate limit")));
    Err(Failure {
        retryable: !quota && (rate_limited || matches!(status.as_u16(), 500 | 502 | 503 | 504)),
        retry_after: wait,
        status: Some(status.as_u16()),
        unreachable: false,
        message,
    })
}

/// Twirp errors carry `msg`; GitHub's front end answers rate limits with `message`.
fn twirp_message(json: &Value, status: StatusCode) -> String {
    let text = ["msg", "message", "code"]
        .iter()
        .find_map(|key| {
            json.get(*key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error"));
    format!("{} {}", status.as_u16(), truncate(text, 300))
}

fn twirp_hint(status: u16) -> &'static str {
    match status {
        401 => "The runtime token was refused (it may have expired): re-run the job",
        403 => {
            "The artifact service refused this job: check the repository's Actions \
                settings, then re-run the job"
        }
        409 => "An artifact with this name already exists in this workflow run",
        400 | 404 | 422 => {
            "The artifact service rejected the request: re-run the job; if \
                            it persists, report it as a council bug with this message"
        }
        _ => "Re-run the job",
    }
}

/// `ok` must be present and true (proto3 JSON omits a false bool).
#[derive(Debug, Deserialize)]
pub(super) struct CreateResponse {
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default, alias = "signedUploadUrl")]
    pub signed_upload_url: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct FinalizeResponse {
    #[serde(default)]
    pub ok: Option<bool>,
    #[serde(default, alias = "artifactId", deserialize_with = "int64")]
    pub artifact_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ListResponse {
    #[serde(default)]
    pub artifacts: Vec<ListedArtifact>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ListedArtifact {
    #[serde(alias = "workflowRunBackendId")]
    pub workflow_run_backend_id: String,
    #[serde(alias = "workflowJobRunBackendId")]
    pub workflow_job_run_backend_id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, alias = "databaseId", deserialize_with = "int64")]
    pub database_id: Option<String>,
}

/// DeleteArtifact's answer is not checked beyond being JSON: the delete is best effort.
#[derive(Debug, Deserialize)]
pub(super) struct Ignored {}

/// proto3 JSON sends int64 as a string; act/Gitea-style servers may send a number.
fn int64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Ok(Some(n.to_string())),
        Some(other) => Err(serde::de::Error::custom(format!(
            "expected an int64 (string or integer), got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;

    fn reply(status: u16, body: &str) -> Reply {
        Reply {
            status: StatusCode::from_u16(status).unwrap(),
            headers: HeaderMap::new(),
            body: Bytes::from(body.to_string()),
        }
    }

    #[test]
    fn statuses_are_classified_like_the_official_client() {
        for status in [429, 500, 502, 503, 504] {
            assert!(
                classify(reply(status, r#"{"msg":"x"}"#))
                    .unwrap_err()
                    .retryable,
                "{status}"
            );
        }
        for status in [400, 401, 403, 404, 409, 501] {
            assert!(
                !classify(reply(status, r#"{"msg":"x"}"#))
                    .unwrap_err()
                    .retryable,
                "{status}"
            );
        }
        assert!(classify(reply(200, "<html>")).unwrap_err().retryable);
        assert!(classify(reply(404, "<html>")).unwrap_err().retryable);
        assert!(classify(reply(200, r#"{"ok":true}"#)).is_ok());
        let quota = classify(reply(
            500,
            r#"{"msg":"insufficient usage to create artifact"}"#,
        ));
        assert!(!quota.unwrap_err().retryable);
        let secondary = classify(reply(
            403,
            r#"{"message":"You have exceeded a secondary rate limit"}"#,
        ));
        assert!(secondary.unwrap_err().retryable);
    }

    #[test]
    fn responses_accept_both_spellings_and_int64_forms() {
        let snake: FinalizeResponse =
            serde_json::from_str(r#"{"ok":true,"artifact_id":"42"}"#).unwrap();
        let camel: FinalizeResponse =
            serde_json::from_str(r#"{"ok":true,"artifactId":42}"#).unwrap();
        assert_eq!(snake.artifact_id.as_deref(), Some("42"));
        assert_eq!(camel.artifact_id.as_deref(), Some("42"));
        let bad = serde_json::from_str::<FinalizeResponse>(r#"{"artifact_id":1.5}"#);
        assert!(bad.is_err());
        let create: CreateResponse =
            serde_json::from_str(r#"{"ok":true,"signedUploadUrl":"u","extra":1}"#).unwrap();
        assert_eq!(create.signed_upload_url.as_deref(), Some("u"));
    }
}
