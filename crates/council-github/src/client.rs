//! The transport: octocrab's HTTP stack (rustls, compiled-in roots, auth, base URI), our
//! own retry policy, and error classification. Typed endpoints live in `rest.rs`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode, header};
use octocrab::Octocrab;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::RepoName;
use super::retry::{Failure, GaveUp, RetryPolicy, parse_retry_after, retry};

const ACCEPT_JSON: &str = "application/vnd.github+json";

/// Where and how to reach GitHub; built from the runner environment in `settings`.
#[derive(Clone)]
pub struct GitHubConfig {
    pub api_url: String,
    pub graphql_url: String,
    pub token: Option<String>,
    pub retry: RetryPolicy,
    /// A dry run: the client refuses every write (REST writes, GraphQL mutations)
    /// without sending it.
    pub read_only: bool,
}

impl std::fmt::Debug for GitHubConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHubConfig")
            .field("api_url", &self.api_url)
            .field("graphql_url", &self.graphql_url)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .finish()
    }
}

/// A response, fully read.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json<T: DeserializeOwned>(&self, what: &str) -> Result<T, ApiError> {
        serde_json::from_slice(&self.body).map_err(|e| ApiError::Decode {
            what: what.to_string(),
            message: e.to_string(),
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ApiError {
    /// A write asked of a read-only client (a dry run): nothing was sent.
    #[error("{what}: not sent (dry run: no write call is made)")]
    ReadOnly { what: String },
    #[error("{what}: not found (404)")]
    NotFound { what: String },
    /// 401: the token is not valid at all; no permission would help.
    #[error(
        "{what}: 401 {message}. The token is invalid, expired or revoked (no permission would \
         help): check the secret passed as `github-token`/`release-token` (an unset secret is \
         an empty input), or GH_TOKEN/GITHUB_TOKEN/COUNCIL_RELEASE_TOKEN on the CLI"
    )]
    BadCredentials { what: String, message: String },
    /// 403 that is not a rate limit: the token lacks a permission (fork PRs get a
    /// read-only token).
    #[error(
        "{what}: {status} {message}. The token lacks a permission: grant it in the workflow's \
         `permissions:` block, or expect this on pull requests from forks (read-only token)"
    )]
    Forbidden {
        what: String,
        status: u16,
        message: String,
    },
    #[error("{what}: {status} {message}")]
    Rejected {
        what: String,
        status: u16,
        message: String,
    },
    #[error(
        "{what}: {message} (gave up after {attempts} attempt{s}). GitHub may be degraded \
         (https://www.githubstatus.com) or the rate limit spent: re-run the job later",
        s = if *attempts == 1 { "" } else { "s" }
    )]
    Unavailable {
        what: String,
        attempts: u32,
        message: String,
    },
    #[error("{what}: unexpected response: {message}")]
    Decode { what: String, message: String },
    /// Nothing answers at the API's address (connection refused, a name that does not
    /// resolve, no route): not retried, and not GitHub's fault.
    #[error(
        "{what}: the GitHub API at {url} could not be reached ({message}; not retried). \
         Check GITHUB_API_URL{also}: unset, it is https://api.github.com; on GitHub \
         Enterprise Server, https://HOST/api/v3; for fake-github, the address it printed, \
         while it runs. Otherwise check the network",
        also = if *graphql { " and GITHUB_GRAPHQL_URL (default: GITHUB_API_URL's /graphql)" } else { "" }
    )]
    Unreachable {
        what: String,
        /// The address asked (no credentials).
        url: String,
        /// A GraphQL request (its URL is GITHUB_GRAPHQL_URL's).
        graphql: bool,
        message: String,
    },
}

impl ApiError {
    /// A write refused because the token may not write: a warning, not a failure.
    pub fn is_forbidden(&self) -> bool {
        matches!(self, ApiError::Forbidden { .. })
    }
}

impl From<ApiError> for council_protocol::error::Error {
    fn from(e: ApiError) -> Self {
        council_protocol::error::Error::Api(e.to_string())
    }
}

pub struct GitHub {
    rest: Octocrab,
    graphql: Octocrab,
    graphql_path: String,
    pub repo: RepoName,
    retry: RetryPolicy,
    requests: AtomicU32,
    writes: AtomicU32,
    identity: tokio::sync::OnceCell<Option<super::Identity>>,
    read_only: bool,
    /// Set when a request gave up because the server could not be reached or did not
    /// answer in time: later requests fail at once instead of waiting all over again.
    unreachable: Mutex<Option<GaveUpFor>>,
    /// The last 401 (`what`, message): a token GitHub does not accept explains why later
    /// lookups that swallow errors (the token's identity) found nothing.
    bad_credentials: Mutex<Option<(String, String)>>,
    /// Redacted from every message built from a reply (a proxy may echo the token).
    token: Option<String>,
    /// GitHub's clock, from the `Date` header of the last reply that had one.
    server_time: Mutex<Option<chrono::DateTime<chrono::Utc>>>,
    /// `scheme://host:port` of the REST API: the only origin a `Link` is followed to.
    origin: String,
    /// The REST and GraphQL URLs as messages show them (no credentials).
    rest_url: String,
    graphql_url: String,
}

/// Why an earlier request gave up for good on transport, for the requests after it.
#[derive(Debug, Clone)]
enum GaveUpFor {
    /// Nothing answers at the address: the same error again.
    Unreachable {
        url: String,
        graphql: bool,
        message: String,
    },
    /// Timeouts or dropped connections, retried until the policy was spent.
    NoAnswer(String),
}

impl GitHub {
    pub fn new(
        config: &GitHubConfig,
        repo: RepoName,
    ) -> Result<GitHub, council_protocol::error::Error> {
        // The API's own URL first: the GraphQL URL defaults to one built from it, and a
        // mistake in it is GITHUB_API_URL's.
        let rest_url = api_url("GITHUB_API_URL", &config.api_url)?;
        let graphql_url = api_url("GITHUB_GRAPHQL_URL", &config.graphql_url)?;
        let (graphql_base, graphql_path) = split_graphql_url(&config.graphql_url)?;
        Ok(GitHub {
            rest: build_octocrab(&config.api_url, config.token.as_deref())?,
            graphql: build_octocrab(&graphql_base, config.token.as_deref())?,
            graphql_path,
            repo,
            retry: config.retry,
            requests: AtomicU32::new(0),
            writes: AtomicU32::new(0),
            identity: tokio::sync::OnceCell::new(),
            read_only: config.read_only,
            unreachable: Mutex::new(None),
            bad_credentials: Mutex::new(None),
            token: config.token.clone(),
            server_time: Mutex::new(None),
            origin: url::Url::parse(&config.api_url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_default(),
            rest_url,
            graphql_url,
        })
    }

    /// HTTP requests sent so far, retries included: the run's rate-limit cost.
    pub fn requests(&self) -> u32 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Write requests (anything but GET and GraphQL queries) sent so far.
    pub fn writes(&self) -> u32 {
        self.writes.load(Ordering::Relaxed)
    }

    /// GitHub's clock as its last reply dated it (`Date`), when one did: decisions that
    /// count minutes against times GitHub wrote (a queue commit's age) count by the same
    /// clock, whatever the runner's says.
    pub fn server_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.server_time.lock().ok().and_then(|t| *t)
    }

    fn note_date(&self, headers: &HeaderMap) {
        let date = headers
            .get(header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| chrono::DateTime::parse_from_rfc2822(v).ok());
        if let (Some(date), Ok(mut slot)) = (date, self.server_time.lock()) {
            *slot = Some(date.with_timezone(&chrono::Utc));
        }
    }

    pub(super) fn identity_cell(&self) -> &tokio::sync::OnceCell<Option<super::Identity>> {
        &self.identity
    }

    /// `/repos/{owner}/{name}` + `rest`.
    pub fn repo_path(&self, rest: &str) -> String {
        format!("/repos/{}/{}{}", self.repo.owner, self.repo.name, rest)
    }

    pub async fn get(
        &self,
        what: &str,
        path: &str,
        accept: Option<&str>,
    ) -> Result<Reply, ApiError> {
        self.call(what, Method::GET, path, None, accept).await
    }

    pub async fn send_json(
        &self,
        what: &str,
        method: Method,
        path: &str,
        body: &Value,
    ) -> Result<Reply, ApiError> {
        self.call(what, method, path, Some(body), None).await
    }

    pub async fn delete(&self, what: &str, path: &str) -> Result<Reply, ApiError> {
        self.call(what, Method::DELETE, path, None, None).await
    }

    /// A GraphQL request; `errors` in the reply become `Rejected`.
    pub async fn graphql<T: DeserializeOwned>(
        &self,
        what: &str,
        payload: &Value,
    ) -> Result<T, ApiError> {
        let is_mutation = payload
            .get("query")
            .and_then(Value::as_str)
            .is_some_and(is_graphql_mutation);
        let reply = self
            .call_on(
                &self.graphql,
                what,
                Method::POST,
                &self.graphql_path,
                Some(payload),
                None,
                is_mutation,
            )
            .await?;
        #[derive(serde::Deserialize)]
        struct Envelope<T> {
            data: Option<T>,
            #[serde(default)]
            errors: Vec<Value>,
        }
        let envelope: Envelope<T> = reply.json(what)?;
        if let (Some(data), true) = (envelope.data, envelope.errors.is_empty()) {
            return Ok(data);
        }
        let message = self.redact(
            &envelope
                .errors
                .iter()
                .filter_map(|e| e.get("message").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("; "),
        );
        // GraphQL answers 200 with `type: FORBIDDEN` where REST answers 403: the same
        // missing permission, handled the same way (a read-only token is a warning).
        let forbidden = envelope
            .errors
            .iter()
            .any(|e| e.get("type").and_then(Value::as_str) == Some("FORBIDDEN"));
        Err(match forbidden {
            true => ApiError::Forbidden {
                what: what.to_string(),
                status: 403,
                message,
            },
            false => ApiError::Rejected {
                what: what.to_string(),
                status: reply.status.as_u16(),
                message,
            },
        })
    }

    async fn call(
        &self,
        what: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
        accept: Option<&str>,
    ) -> Result<Reply, ApiError> {
        let is_write = method != Method::GET;
        self.call_on(&self.rest, what, method, path, body, accept, is_write)
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn call_on(
        &self,
        client: &Octocrab,
        what: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
        accept: Option<&str>,
        is_write: bool,
    ) -> Result<Reply, ApiError> {
        if is_write && self.read_only {
            return Err(ApiError::ReadOnly {
                what: what.to_string(),
            });
        }
        match self.unreachable.lock().ok().and_then(|u| u.clone()) {
            Some(GaveUpFor::Unreachable {
                url,
                graphql,
                message,
            }) => {
                return Err(ApiError::Unreachable {
                    what: what.to_string(),
                    url,
                    graphql,
                    message,
                });
            }
            Some(GaveUpFor::NoAnswer(why)) => {
                return Err(ApiError::Unavailable {
                    what: what.to_string(),
                    attempts: 0,
                    message: format!("not tried: an earlier request of this run gave up ({why})"),
                });
            }
            _ => {}
        }
        let outcome = retry(self.retry, |_| {
            let method = method.clone();
            async move {
                self.requests.fetch_add(1, Ordering::Relaxed);
                if is_write {
                    self.writes.fetch_add(1, Ordering::Relaxed);
                }
                let reply = send(client, method, path, body, accept.unwrap_or(ACCEPT_JSON)).await?;
                classify(reply, self.token.as_deref())
            }
        })
        .await;
        if let Ok(reply) = &outcome {
            self.note_date(&reply.headers);
        }
        outcome.map_err(|gave_up| {
            let later = if gave_up.last.unreachable {
                // Which client asked: the GraphQL one has its own URL.
                let graphql = std::ptr::eq(client, &self.graphql);
                Some(GaveUpFor::Unreachable {
                    url: match graphql {
                        true => self.graphql_url.clone(),
                        false => self.rest_url.clone(),
                    },
                    graphql,
                    message: gave_up.last.message.clone(),
                })
            } else if gave_up.last.retryable && gave_up.last.status.is_none() {
                Some(GaveUpFor::NoAnswer(gave_up.last.message.clone()))
            } else {
                None
            };
            let e = match &later {
                Some(GaveUpFor::Unreachable {
                    url,
                    graphql,
                    message,
                }) => ApiError::Unreachable {
                    what: what.to_string(),
                    url: url.clone(),
                    graphql: *graphql,
                    message: message.clone(),
                },
                _ => give_up(what, gave_up),
            };
            if let Some(later) = later
                && let Ok(mut unreachable) = self.unreachable.lock()
            {
                *unreachable = Some(later);
            }
            if let ApiError::BadCredentials { what, message } = &e
                && let Ok(mut last) = self.bad_credentials.lock()
            {
                *last = Some((what.clone(), message.clone()));
            }
            e
        })
    }

    /// The last request GitHub refused with 401 in this run, as its error.
    pub fn bad_credentials(&self) -> Option<ApiError> {
        let last = self.bad_credentials.lock().ok()?.clone()?;
        Some(ApiError::BadCredentials {
            what: last.0,
            message: last.1,
        })
    }

    /// `url` as a path when it is on the API's own origin (`Link` URLs are absolute,
    /// first requests are paths): one form for both, to tell a page already read.
    pub fn path_of<'u>(&self, url: &'u str) -> &'u str {
        match url.strip_prefix(self.origin.as_str()) {
            Some(path) if path.starts_with('/') => path,
            _ => url,
        }
    }

    /// Whether `url` is on the REST API's own origin (`Link` URLs are absolute, and the
    /// client would send its token wherever they point).
    pub fn is_own_origin(&self, url: &str) -> bool {
        url::Url::parse(url).is_ok_and(|u| u.origin().ascii_serialization() == self.origin)
    }

    /// `text` with this client's token and anything shaped like a token replaced.
    pub fn redact(&self, text: &str) -> String {
        council_protocol::secrets::redact(text, self.token.as_deref())
    }
}

/// `url` as messages show it, when it is an http(s) URL with a host; otherwise the usage
/// error naming `variable` and what to set it to (octocrab would panic on a URL without
/// a scheme, and retry one with another scheme as if GitHub were down).
fn api_url(variable: &str, url: &str) -> Result<String, council_protocol::error::Error> {
    let why = match url::Url::parse(url) {
        Err(e) => e.to_string(),
        Ok(u) if !matches!(u.scheme(), "http" | "https") => {
            format!("the scheme is `{}`, not http or https", u.scheme())
        }
        Ok(u) if u.host_str().is_none_or(str::is_empty) => "it has no host".to_string(),
        Ok(mut u) => {
            // Credentials in the URL never reach a message.
            let _ = u.set_username("");
            let _ = u.set_password(None);
            return Ok(u.as_str().trim_end_matches('/').to_string());
        }
    };
    Err(council_protocol::error::Error::Usage(format!(
        "{variable} `{url}` is not the URL of a GitHub API ({why}). Unset it for \
         https://api.github.com; on GitHub Enterprise Server set https://HOST/api/v3; for \
         fake-github, the http://127.0.0.1:PORT it printed"
    )))
}

/// Octocrab for one base URL; no token means anonymous requests.
pub fn build_octocrab(
    base: &str,
    token: Option<&str>,
) -> Result<Octocrab, council_protocol::error::Error> {
    let bad = |e: &dyn std::fmt::Display| {
        council_protocol::error::Error::Usage(format!("API URL `{base}`: {e}"))
    };
    let mut builder = Octocrab::builder()
        .base_uri(base)
        .map_err(|e| bad(&e))?
        .set_connect_timeout(Some(Duration::from_secs(10)))
        .set_read_timeout(Some(Duration::from_secs(60)));
    if let Some(token) = token {
        builder = builder.personal_token(token.to_string());
    }
    builder.build().map_err(|e| bad(&e))
}

/// GHES serves GraphQL at `/api/graphql`, beside (not under) the REST base `/api/v3`, so
/// the GraphQL client gets its own base.
fn split_graphql_url(url: &str) -> Result<(String, String), council_protocol::error::Error> {
    let parsed = url::Url::parse(url).map_err(|e| {
        council_protocol::error::Error::Usage(format!("GITHUB_GRAPHQL_URL `{url}`: {e}"))
    })?;
    let origin = parsed.origin().ascii_serialization();
    let path = if parsed.path().is_empty() {
        "/graphql"
    } else {
        parsed.path()
    };
    Ok((origin, path.to_string()))
}

async fn send(
    client: &Octocrab,
    method: Method,
    path: &str,
    body: Option<&Value>,
    accept: &str,
) -> Result<Reply, Failure> {
    let builder = http::Request::builder()
        .method(method)
        .uri(path)
        .header(header::ACCEPT, accept)
        .header("X-GitHub-Api-Version", "2022-11-28");
    let request = client
        .build_request(builder, body)
        .map_err(|e| Failure::fatal(format!("building the request: {e}")))?;
    execute(client, request, MAX_API_BODY).await
}

/// API replies beyond this are not GitHub's: the largest page the product reads is 100
/// comments of at most 65,536 characters (about 26 MB in the worst UTF-8); audit zips
/// are far smaller. A reply beyond it is a final failure, never retried.
const MAX_API_BODY: usize = 32 << 20;

/// One request through octocrab's stack, the reply read in full up to `max_body` bytes.
pub(crate) async fn execute(
    client: &Octocrab,
    request: http::Request<impl Into<octocrab::OctoBody>>,
    max_body: usize,
) -> Result<Reply, Failure> {
    let response = client
        .execute(request)
        .await
        .map_err(|e| match unreachable_reason(&e) {
            Some(why) => Failure::unreachable(why),
            None => Failure::transient(format!("connection failed: {}", innermost(&e)), None),
        })?;
    let (parts, body) = response.into_parts();
    let body = http_body_util::BodyExt::collect(http_body_util::Limited::new(body, max_body))
        .await
        .map_err(|e| {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                Failure::fatal(format!(
                    "the reply is larger than {} MiB, more than any reply this product reads",
                    max_body >> 20
                ))
            } else {
                Failure::transient(format!("reading the response failed: {e}"), None)
            }
        })?
        .to_bytes();
    Ok(Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    })
}

/// What a transport error says when nothing at the address can answer: the connection
/// was refused, the host name does not resolve (hyper-util's resolver reports a `dns
/// error`, with the system's reason inside), or no route leads there. A timeout or a
/// dropped connection is not this: those are retried.
fn unreachable_reason(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use std::io::ErrorKind;
    let mut dns = None;
    let mut source = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if dns.is_some() {
                return Some(format!("the host name does not resolve: {io}"));
            }
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::NetworkUnreachable
                    | ErrorKind::HostUnreachable
            ) {
                return Some(io.to_string());
            }
        }
        if s.to_string() == "dns error" {
            dns = Some("the host name does not resolve".to_string());
        }
        source = s.source();
    }
    dns
}

/// octocrab nests causes; the innermost says what actually went wrong (never the URL).
pub(crate) fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message = s.to_string();
        source = s.source();
    }
    message
}

/// Non-2xx replies become failures: retryable for 5xx and rate limits, final otherwise.
fn classify(reply: Reply, token: Option<&str>) -> Result<Reply, Failure> {
    let status = reply.status;
    if status.is_success() {
        return Ok(reply);
    }
    let message = council_protocol::secrets::redact(&error_message(&reply), token);
    let retry_after = reply
        .headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let rate_limited = status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::FORBIDDEN
            && (retry_after.is_some()
                || message.to_ascii_lowercase().contains("rate limit")
                || reply
                    .headers
                    .get("x-ratelimit-remaining")
                    .is_some_and(|v| v == "0")));
    if rate_limited {
        let wait = retry_after.or_else(|| rate_limit_reset(&reply.headers));
        return Err(Failure {
            retryable: true,
            retry_after: wait.or(Some(Duration::from_secs(60))),
            status: Some(status.as_u16()),
            unreachable: false,
            message: format!("{} rate limited: {message}", status.as_u16()),
        });
    }
    Err(Failure {
        retryable: matches!(status.as_u16(), 500 | 502 | 503 | 504),
        retry_after,
        status: Some(status.as_u16()),
        unreachable: false,
        message,
    })
}

/// A GraphQL document whose (first) operation is a mutation.
fn is_graphql_mutation(query: &str) -> bool {
    let mut rest = query.trim_start();
    // Leading comments (`# …`) are allowed before the operation.
    while let Some(stripped) = rest.strip_prefix('#') {
        rest = stripped
            .split_once('\n')
            .map_or("", |(_, r)| r)
            .trim_start();
    }
    rest.starts_with("mutation")
}

/// `x-ratelimit-reset` is an epoch second; wait until then (capped by the policy).
fn rate_limit_reset(headers: &HeaderMap) -> Option<Duration> {
    let reset: i64 = headers
        .get("x-ratelimit-reset")?
        .to_str()
        .ok()?
        .parse()
        .ok()?;
    let now = chrono::Utc::now().timestamp();
    Some(Duration::from_secs(reset.saturating_sub(now).max(1) as u64))
}

/// GitHub's `message`, with the reasons of a validation failure (`errors[].message`, or
/// its `field` and `code`): "Validation Failed" alone does not say that a comment body was
/// too long.
fn error_message(reply: &Reply) -> String {
    let from_json = serde_json::from_slice::<Value>(&reply.body)
        .ok()
        .and_then(|v| {
            let message = v.get("message").and_then(Value::as_str)?;
            let reasons: Vec<String> = v
                .get("errors")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(error_reason)
                .take(3)
                .collect();
            Some(match reasons.is_empty() {
                true => message.to_string(),
                false => format!("{message}: {}", reasons.join("; ")),
            })
        });
    from_json.unwrap_or_else(|| {
        reply
            .status
            .canonical_reason()
            .unwrap_or("unexpected status")
            .to_string()
    })
}

/// One entry of a 422's `errors`: its message, else `field` and `code`, shortened.
fn error_reason(error: &Value) -> Option<String> {
    let text = match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_string(),
        None => {
            let field = error.get("field").and_then(Value::as_str)?;
            let code = error
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("invalid");
            format!("{field} {code}")
        }
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(200).collect())
}

fn give_up(what: &str, gave_up: GaveUp) -> ApiError {
    let what = what.to_string();
    let Failure {
        retryable,
        status,
        message,
        ..
    } = gave_up.last;
    match status {
        _ if retryable => ApiError::Unavailable {
            what,
            attempts: gave_up.attempts,
            message: match status {
                Some(s) if !message.starts_with(&s.to_string()) => format!("{s} {message}"),
                _ => message,
            },
        },
        Some(404) => ApiError::NotFound { what },
        Some(401) => ApiError::BadCredentials { what, message },
        Some(status @ 403) => ApiError::Forbidden {
            what,
            status,
            message,
        },
        Some(status) => ApiError::Rejected {
            what,
            status,
            message,
        },
        None => ApiError::Unavailable {
            what,
            attempts: gave_up.attempts,
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphql_url_splits_into_origin_and_path() {
        assert_eq!(
            split_graphql_url("https://api.github.com/graphql").unwrap(),
            ("https://api.github.com".to_string(), "/graphql".to_string())
        );
        assert_eq!(
            split_graphql_url("https://ghe.example.com/api/graphql").unwrap(),
            (
                "https://ghe.example.com".to_string(),
                "/api/graphql".to_string()
            )
        );
        assert!(split_graphql_url("not a url").is_err());
    }

    #[test]
    fn a_validation_failure_says_which_field_and_why() {
        let reply = |body: Value| Reply {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            headers: HeaderMap::new(),
            body: Bytes::from(body.to_string()),
        };
        // Found by the fault drill of a comment GitHub finds too long.
        let too_long = reply(serde_json::json!({
            "message": "Validation Failed",
            "errors": [{"resource": "IssueComment", "code": "custom", "field": "body",
                        "message": "body is too long (maximum is 65536 characters)"}]
        }));
        assert_eq!(
            error_message(&too_long),
            "Validation Failed: body is too long (maximum is 65536 characters)"
        );
        let coded = reply(serde_json::json!({
            "message": "Validation Failed",
            "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}, "odd"]
        }));
        assert_eq!(
            error_message(&coded),
            "Validation Failed: name already_exists"
        );
        let plain = reply(serde_json::json!({"message": "Not Found", "errors": []}));
        assert_eq!(error_message(&plain), "Not Found");
    }

    /// An address nobody listens on (a port just closed).
    fn closed_port() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{address}")
    }

    fn client(api: &str) -> GitHub {
        let config = GitHubConfig {
            api_url: api.to_string(),
            graphql_url: format!("{api}/graphql"),
            token: Some("ghs_secret".into()),
            retry: RetryPolicy::default(),
            read_only: false,
        };
        GitHub::new(&config, RepoName::parse("o/r").unwrap()).unwrap()
    }

    #[tokio::test]
    async fn an_api_nobody_answers_at_is_asked_once_and_named() {
        let api = closed_port();
        let gh = client(&api);
        let e = gh.get("reading x", "/x", None).await.unwrap_err();
        assert!(
            matches!(e, ApiError::Unreachable { graphql: false, .. }),
            "{e:?}"
        );
        let said = e.to_string();
        assert!(
            said.contains(&format!("the GitHub API at {api} could not be reached")),
            "{said}"
        );
        assert!(said.contains("GITHUB_API_URL"), "{said}");
        assert!(said.contains("https://api.github.com"), "{said}");
        assert_eq!(
            gh.requests(),
            1,
            "not retried (the default policy retries 5 times)"
        );
        let again = gh
            .graphql::<Value>(
                "the viewer",
                &serde_json::json!({"query": "{ viewer { login } }"}),
            )
            .await
            .unwrap_err();
        assert!(matches!(again, ApiError::Unreachable { .. }), "{again:?}");
        assert_eq!(gh.requests(), 1, "a later request is not sent at all");
    }

    #[tokio::test]
    async fn refused_connections_and_unknown_names_are_unreachable() {
        for base in [closed_port(), "http://no-such-host.invalid".to_string()] {
            let octocrab = build_octocrab(&base, None).unwrap();
            let request = octocrab
                .build_request::<Value>(http::Request::builder().uri("/x"), None)
                .unwrap();
            let e = octocrab.execute(request).await.unwrap_err();
            let why = unreachable_reason(&e).unwrap_or_else(|| panic!("{base}: {e:?}"));
            if base.ends_with(".invalid") {
                assert!(why.starts_with("the host name does not resolve"), "{why}");
            }
        }
    }

    #[test]
    fn an_api_url_must_be_http_with_a_host() {
        assert_eq!(
            api_url("GITHUB_API_URL", "https://user:pw@ghe.corp/api/v3/").unwrap(),
            "https://ghe.corp/api/v3"
        );
        for (url, why) in [
            ("localhost:8787", "the scheme is `localhost`"),
            ("ftp://127.0.0.1:1", "the scheme is `ftp`"),
            ("not a url", "relative URL without a base"),
            ("http://", "empty host"),
        ] {
            let e = api_url("GITHUB_API_URL", url).unwrap_err();
            assert_eq!(
                e.kind(),
                council_protocol::error::Kind::BadInput,
                "bad usage: {e}"
            );
            let said = e.to_string();
            assert!(
                said.starts_with(&format!("GITHUB_API_URL `{url}`")),
                "{said}"
            );
            assert!(said.contains(why), "{said}");
        }
    }

    #[test]
    fn config_debug_hides_the_token() {
        let c = GitHubConfig {
            api_url: "https://api.github.com".into(),
            graphql_url: "https://api.github.com/graphql".into(),
            token: Some("ghs_secret".into()),
            retry: RetryPolicy::default(),
            read_only: false,
        };
        assert!(!format!("{c:?}").contains("ghs_secret"));
    }
}
