//! The runner's environment as the Results service needs it: whether to upload at all
//! (spec §1.3), the backend ids inside the runtime token (§1.2), and `expires_at` (§5.2).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD_INDIFFERENT;
use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde_json::Value;

use super::ArtifactError;

/// The runner variables the upload reads. The settings module fills it from the process
/// environment; this module never reads the environment itself. Empty strings count as unset.
#[derive(Clone, Default)]
pub struct RuntimeEnv {
    /// `ACTIONS_RUNTIME_TOKEN`: a JWT; given only to JavaScript and container actions.
    pub runtime_token: Option<String>,
    /// `ACTIONS_RESULTS_URL`: only its origin is used.
    pub results_url: Option<String>,
    /// `GITHUB_SERVER_URL`, default `https://github.com`: decides GHES.
    pub server_url: Option<String>,
    /// `GITHUB_RETENTION_DAYS`: the longest retention the repository allows, as given.
    pub retention_days_limit: Option<String>,
}

impl std::fmt::Debug for RuntimeEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeEnv")
            .field("runtime_token", &set(&self.runtime_token).map(|_| "***"))
            .field("results_url", &self.results_url)
            .field("server_url", &self.server_url)
            .field("retention_days_limit", &self.retention_days_limit)
            .finish()
    }
}

/// The two ids of the `Actions.Results:<run>:<job>` scope, opaque strings sent back verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendIds {
    pub workflow_run: String,
    pub workflow_job_run: String,
}

/// What the upload may use once the environment says it can run.
pub(super) struct Runtime {
    pub token: String,
    /// `scheme://host[:port]` of `ACTIONS_RESULTS_URL` (pitfall P1: never the path).
    pub origin: String,
    pub ids: BackendIds,
}

pub(super) enum Resolved {
    Ready(Runtime),
    Skip(String),
}

fn set(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// Skips (no request) on GHES and outside Actions; a present but bad token or URL is an
/// artifact-service failure, because the runner itself handed it over.
pub(super) fn resolve(env: &RuntimeEnv) -> Result<Resolved, ArtifactError> {
    let server = set(&env.server_url);
    if is_ghes(server) {
        return Ok(Resolved::Skip(format!(
            "artifact upload skipped: `{}` is GitHub Enterprise Server, which has no Actions \
             artifacts v4 service; the audit file stays on disk",
            server.unwrap_or_default()
        )));
    }
    let (Some(token), Some(url)) = (set(&env.runtime_token), set(&env.results_url)) else {
        return Ok(Resolved::Skip(outside_actions_reason(env)));
    };
    Ok(Resolved::Ready(Runtime {
        ids: backend_ids(token)?,
        origin: results_origin(url)?,
        token: token.to_string(),
    }))
}

fn outside_actions_reason(env: &RuntimeEnv) -> String {
    let missing: Vec<&str> = [
        ("ACTIONS_RUNTIME_TOKEN", &env.runtime_token),
        ("ACTIONS_RESULTS_URL", &env.results_url),
    ]
    .into_iter()
    .filter(|(_, value)| set(value).is_none())
    .map(|(name, _)| name)
    .collect();
    format!(
        "artifact upload skipped: {} not set (not running as a GitHub Actions container \
         action; `run:` steps do not receive these variables); the audit file stays on disk",
        missing.join(" and ")
    )
}

/// The toolkit's `isGhes`: anything but github.com, `*.ghe.com` and `*.localhost` is GHES.
/// A server URL that does not parse counts as GHES, so that nothing is sent to a guess.
pub fn is_ghes(server_url: Option<&str>) -> bool {
    let url = server_url.unwrap_or("https://github.com");
    let Some(host) = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
    else {
        return true;
    };
    let host = host.to_ascii_uppercase();
    !(host == "GITHUB.COM" || host.ends_with(".GHE.COM") || host.ends_with(".LOCALHOST"))
}

fn results_origin(url: &str) -> Result<String, ArtifactError> {
    let bad = || {
        ArtifactError::Config(
            "ACTIONS_RESULTS_URL is not an http(s) URL: the runner set a value this program \
             cannot use; re-run the job, and report it if it persists"
                .to_string(),
        )
    };
    let parsed = url::Url::parse(url).map_err(|_| bad())?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(bad());
    }
    Ok(parsed.origin().ascii_serialization())
}

/// Backend ids from the `scp` claim, exactly as the toolkit reads them (spec §1.2): the
/// payload is decoded without checking the signature (only the service can check it).
pub fn backend_ids(token: &str) -> Result<BackendIds, ArtifactError> {
    let invalid = |why: &str| ArtifactError::Token(why.to_string());
    let payload = token
        .split('.')
        .nth(1)
        .ok_or_else(|| invalid("not a JWT"))?;
    let bytes = decode_base64url(payload).ok_or_else(|| invalid("payload is not base64url"))?;
    let claims: Value =
        serde_json::from_slice(&bytes).map_err(|_| invalid("payload is not JSON"))?;
    let scp = claims
        .get("scp")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("no `scp` claim"))?;
    let scope = scp
        .split(' ')
        .map(|s| s.split(':').collect::<Vec<_>>())
        .find(|parts| parts.first() == Some(&"Actions.Results"))
        .ok_or_else(|| invalid("no `Actions.Results` scope"))?;
    match scope.as_slice() {
        [_, run, job] => Ok(BackendIds {
            workflow_run: run.to_string(),
            workflow_job_run: job.to_string(),
        }),
        _ => Err(invalid("the `Actions.Results` scope does not have 3 parts")),
    }
}

/// base64url with or without padding; the standard alphabet is accepted too, as jwt-decode
/// does (it maps `-`/`_` to `+`/`/` before `atob`).
fn decode_base64url(text: &str) -> Option<Vec<u8>> {
    let normalized: String = text
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD_INDIFFERENT.decode(normalized).ok()
}

/// `expires_at` for CreateArtifact: omitted without retention days (the repository default
/// applies); capped by `GITHUB_RETENTION_DAYS` when that is smaller, as the toolkit does.
pub(super) fn expires_at(
    requested: Option<u32>,
    limit: Option<&str>,
    now: DateTime<Utc>,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, ArtifactError> {
    let Some(mut days) = requested.filter(|d| *d > 0) else {
        return Ok(None);
    };
    if let Some(raw) = limit.map(str::trim).filter(|s| !s.is_empty()) {
        match raw.parse::<u32>() {
            Ok(max) if max > 0 && max < days => {
                warnings.push(format!(
                    "retention-days {days} is more than this repository allows \
                     (GITHUB_RETENTION_DAYS={max}): the artifact is kept {max} days"
                ));
                days = max;
            }
            Ok(_) => {}
            Err(_) => warnings.push(format!(
                "GITHUB_RETENTION_DAYS `{raw}` is not a number of days: ignored"
            )),
        }
    }
    let expiry = TimeDelta::try_days(days.into())
        .and_then(|d| now.checked_add_signed(d))
        .ok_or(ArtifactError::Retention(days))?;
    Ok(Some(expiry.to_rfc3339_opts(SecondsFormat::Millis, true)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};

    fn jwt_with(engine: &impl base64::Engine, payload: &str) -> String {
        format!(
            "{}.{}.c2ln",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256"}"#),
            engine.encode(payload)
        )
    }

    const TOOLKIT_SCP: &str = "Actions.Example Actions.AnotherExample:test \
        Actions.Results:ce7f54c7-61c7-4aae-887f-30da475f5f1a:ca395085-040a-526b-2ce8-bdc85f692774";

    fn scp_token(engine: &impl base64::Engine, scp: &str) -> String {
        jwt_with(engine, &serde_json::json!({ "scp": scp }).to_string())
    }

    #[test]
    fn toolkit_vector_gives_both_ids() {
        for token in [
            scp_token(&URL_SAFE_NO_PAD, TOOLKIT_SCP),
            scp_token(&URL_SAFE, TOOLKIT_SCP),
        ] {
            let ids = backend_ids(&token).unwrap();
            assert_eq!(ids.workflow_run, "ce7f54c7-61c7-4aae-887f-30da475f5f1a");
            assert_eq!(ids.workflow_job_run, "ca395085-040a-526b-2ce8-bdc85f692774");
        }
    }

    #[test]
    fn toolkit_failing_vectors_fail() {
        let none = scp_token(
            &URL_SAFE_NO_PAD,
            "Actions.Example Actions.AnotherExample:test",
        );
        let two = scp_token(&URL_SAFE_NO_PAD, "Actions.Example Actions.Results:ce7f54c7");
        for token in [none, two] {
            let e = backend_ids(&token).unwrap_err();
            assert!(
                e.to_string().starts_with("Failed to get backend IDs"),
                "{e}"
            );
        }
    }

    #[test]
    fn url_alphabet_and_standard_alphabet_both_decode() {
        // `?>?` encodes to `Pz4_` in base64url and `Pz4/` in standard base64.
        let payload = r#"{"x":"?>?","scp":"Actions.Results:1:2"}"#;
        assert!(URL_SAFE_NO_PAD.encode(payload).contains(['-', '_']));
        for token in [
            jwt_with(&URL_SAFE_NO_PAD, payload),
            jwt_with(&STANDARD, payload),
        ] {
            assert_eq!(backend_ids(&token).unwrap().workflow_job_run, "2");
        }
    }

    #[test]
    fn malformed_tokens_are_errors_not_panics() {
        for token in [
            "",
            "abc",
            "a.!!!.c",
            "a..c",
            &jwt_with(&URL_SAFE_NO_PAD, "[]"),
            &jwt_with(&URL_SAFE_NO_PAD, r#"{"scp":7}"#),
            &scp_token(&URL_SAFE_NO_PAD, ""),
            &scp_token(&URL_SAFE_NO_PAD, "Actions.Results:a:b:c"),
        ] {
            assert!(backend_ids(token).is_err(), "{token}");
        }
    }

    #[test]
    fn ghes_detection_follows_the_toolkit() {
        assert!(!is_ghes(None));
        assert!(!is_ghes(Some("https://github.com")));
        assert!(!is_ghes(Some("https://GitHub.com/")));
        assert!(!is_ghes(Some("https://acme.ghe.com")));
        assert!(!is_ghes(Some("http://github.localhost:3000")));
        assert!(is_ghes(Some("https://github.acme.com")));
        assert!(is_ghes(Some("https://ghe.com.evil.example")));
        assert!(is_ghes(Some("not a url")));
    }

    #[test]
    fn results_origin_drops_the_path() {
        assert_eq!(
            results_origin("https://results-receiver.actions.githubusercontent.com/").unwrap(),
            "https://results-receiver.actions.githubusercontent.com"
        );
        assert_eq!(
            results_origin("http://127.0.0.1:8080/a/b?c").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(results_origin("file:///tmp").is_err());
        assert!(results_origin("nope").is_err());
    }

    #[test]
    fn retention_is_capped_and_formatted_in_utc() {
        let now = DateTime::parse_from_rfc3339("2026-06-01T12:00:00.123Z")
            .unwrap()
            .to_utc();
        let mut warnings = Vec::new();
        assert_eq!(
            expires_at(None, Some("5"), now, &mut warnings).unwrap(),
            None
        );
        assert_eq!(expires_at(Some(0), None, now, &mut warnings).unwrap(), None);
        assert_eq!(
            expires_at(Some(30), Some("90"), now, &mut warnings)
                .unwrap()
                .as_deref(),
            Some("2026-07-01T12:00:00.123Z")
        );
        assert!(warnings.is_empty());
        assert_eq!(
            expires_at(Some(30), Some("10"), now, &mut warnings)
                .unwrap()
                .as_deref(),
            Some("2026-06-11T12:00:00.123Z")
        );
        assert_eq!(warnings.len(), 1);
        expires_at(Some(3), Some("x"), now, &mut warnings).unwrap();
        assert_eq!(warnings.len(), 2);
        assert!(expires_at(Some(u32::MAX), None, now, &mut warnings).is_err());
    }

    #[test]
    fn debug_hides_the_token() {
        let env = RuntimeEnv {
            runtime_token: Some("secret-jwt".into()),
            ..RuntimeEnv::default()
        };
        assert!(!format!("{env:?}").contains("secret-jwt"));
    }
}
