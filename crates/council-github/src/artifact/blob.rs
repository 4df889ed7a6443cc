//! Upload to the Azure Blob SAS URL from CreateArtifact (spec §3.2): Put Block for each
//! ≤ 8 MiB slice, one after another (act appends blocks in arrival order), then Put Block
//! List. The SAS URL is the only credential: no Authorization header ever goes there.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::{Method, header};
use octocrab::Octocrab;

use super::{ArtifactError, Redact, retry_after, send, truncate};
use crate::client::{Reply, build_octocrab};
use crate::rest::encode;
use crate::retry::{Failure, GaveUp, RetryPolicy, retry};

/// The largest block the official client stages (its upload buffer size).
pub const MAX_BLOCK_SIZE: usize = 8 << 20;
/// Azure's limit on committed blocks per blob.
const MAX_BLOCKS: usize = 50_000;

pub(super) struct Blob {
    client: Octocrab,
    signed_url: String,
    host: String,
    policy: RetryPolicy,
    requests: Arc<AtomicU32>,
    redact: Redact,
}

impl Blob {
    /// The anonymous client gets the URL's origin as base: octocrab prepends a base *path*
    /// even to absolute URIs, so a base with a path would corrupt the SAS URL.
    pub fn new(
        signed_url: &str,
        policy: RetryPolicy,
        requests: Arc<AtomicU32>,
    ) -> Result<Blob, ArtifactError> {
        let bad = |why: &str| ArtifactError::Decode {
            what: "CreateArtifact".to_string(),
            message: format!("signed_upload_url {why}"),
        };
        let parsed = url::Url::parse(signed_url).map_err(|_| bad("is not a URL"))?;
        let host = parsed
            .host_str()
            .ok_or_else(|| bad("has no host"))?
            .to_string();
        if !matches!(parsed.scheme(), "http" | "https") || signed_url.contains('#') {
            return Err(bad("is not a plain http(s) URL"));
        }
        http::Uri::try_from(signed_url).map_err(|_| bad("is not a valid request URI"))?;
        let client = build_octocrab(&parsed.origin().ascii_serialization(), None)
            .map_err(|_| bad("has an unusable origin"))?;
        Ok(Blob {
            client,
            signed_url: signed_url.to_string(),
            host,
            policy,
            requests,
            redact: Redact::new(
                sig_secrets(signed_url)
                    .into_iter()
                    .chain(parsed.query().map(str::to_string)),
            ),
        })
    }

    /// Stages `data` in blocks of `block_size` (clamped to 1..=8 MiB) and commits them.
    /// Block ids come from `id_seed`, so a retried block re-uses its id (re-staging is safe).
    pub async fn upload(
        &self,
        data: &Bytes,
        block_size: usize,
        id_seed: &str,
    ) -> Result<(), ArtifactError> {
        let block_size = block_size.clamp(1, MAX_BLOCK_SIZE);
        let count = data.len().div_ceil(block_size).max(1);
        if count > MAX_BLOCKS {
            return Err(ArtifactError::Config(format!(
                "{} bytes need {count} blocks, more than Azure's {MAX_BLOCKS}",
                data.len()
            )));
        }
        let ids = block_ids(id_seed, count);
        for (index, id) in ids.iter().enumerate() {
            let start = index * block_size;
            let chunk = data.slice(start..(start + block_size).min(data.len()));
            let what = format!("uploading block {}/{count} to {}", index + 1, self.host);
            let url = with_params(
                &self.signed_url,
                &format!("comp=block&blockid={}", encode(id)),
            );
            self.put(&what, &url, &[], chunk).await?;
        }
        let what = format!("committing the block list on {}", self.host);
        let url = with_params(&self.signed_url, "comp=blocklist");
        let headers = [
            (header::CONTENT_TYPE.as_str(), "application/xml"),
            ("x-ms-blob-content-type", "application/zip"),
        ];
        self.put(&what, &url, &headers, Bytes::from(block_list_xml(&ids)))
            .await
    }

    async fn put(
        &self,
        what: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<(), ArtifactError> {
        retry(self.policy, |_| self.attempt(url, headers, body.clone()))
            .await
            .map(|_| ())
            .map_err(|gave_up| self.give_up(what, gave_up))
    }

    async fn attempt(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Reply, Failure> {
        let mut builder = http::Request::builder()
            .method(Method::PUT)
            .uri(url)
            .header(header::CONTENT_LENGTH, body.len())
            .header("x-ms-version", "2022-11-02");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let request = builder
            .body(body)
            .map_err(|e| Failure::fatal(format!("building the request: {e}")))?;
        classify(send(&self.client, request, &self.requests).await?)
    }

    fn give_up(&self, what: &str, gave_up: GaveUp) -> ArtifactError {
        self.redact.give_up(what, gave_up, blob_hint)
    }
}

fn blob_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => "The signed upload URL was refused or has expired: re-run the job",
        _ => {
            "The blob store rejected the upload: re-run the job; if it persists, report it \
              as a council bug with this message"
        }
    }
}

/// Retry 408/429/5xx (the Azure SDK's and maelstrom's rule). Only Azure's error *code* is
/// reported: its detail text can quote the string-to-sign.
fn classify(reply: Reply) -> Result<Reply, Failure> {
    let status = reply.status.as_u16();
    if reply.status.is_success() {
        return Ok(reply);
    }
    let code = reply
        .headers
        .get("x-ms-error-code")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| xml_code(&reply.body))
        .unwrap_or_else(|| {
            reply
                .status
                .canonical_reason()
                .unwrap_or("error")
                .to_string()
        });
    Err(Failure {
        retryable: matches!(status, 408 | 429 | 500..=599),
        retry_after: retry_after(&reply.headers),
        status: Some(status),
        unreachable: false,
        message: format!("{status} {}", truncate(&code, 100)),
    })
}

fn xml_code(body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let (_, after) = text.split_once("<Code>")?;
    let (code, _) = after.split_once("</Code>")?;
    Some(code.to_string())
}

/// Appends `params` to the SAS URL as text: re-serialising the URL would re-encode the
/// signature and break it (act #6114).
pub(super) fn with_params(signed_url: &str, params: &str) -> String {
    let separator = match signed_url.rfind('?') {
        None => "?",
        Some(_) if signed_url.ends_with(['?', '&']) => "",
        Some(_) => "&",
    };
    format!("{signed_url}{separator}{params}")
}

/// Base64 of a 48-character ASCII string (seed prefix + zero-padded index), as the Azure
/// SDK does: every id of the blob has the same length, which Azure requires.
pub(super) fn block_ids(seed: &str, count: usize) -> Vec<String> {
    let prefix: String = seed
        .chars()
        .chain(std::iter::repeat('0'))
        .take(32)
        .collect();
    (0..count)
        .map(|index| STANDARD.encode(format!("{prefix}-{index:015}")))
        .collect()
}

fn block_list_xml(ids: &[String]) -> String {
    let mut xml = String::from(r#"<?xml version="1.0" encoding="utf-8"?><BlockList>"#);
    for id in ids {
        xml.push_str("<Latest>");
        xml.push_str(id);
        xml.push_str("</Latest>");
    }
    xml.push_str("</BlockList>");
    xml
}

/// The SAS `sig` as the toolkit masks it: decoded, as it appears in the URL, and
/// `encodeURIComponent`-encoded.
pub(super) fn sig_secrets(signed_url: &str) -> Vec<String> {
    let Some(query) = signed_url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(q))
    else {
        return Vec::new();
    };
    let mut secrets = Vec::new();
    for raw in query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("sig="))
    {
        let decoded: String = url::form_urlencoded::parse(format!("s={raw}").as_bytes())
            .map(|(_, v)| v.into_owned())
            .next()
            .unwrap_or_default();
        for secret in [decoded.clone(), raw.to_string(), encode(&decoded)] {
            if !secret.is_empty() && !secrets.contains(&secret) {
                secrets.push(secret);
            }
        }
    }
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_appended_without_touching_the_sas() {
        let url = "https://a.blob.core.windows.net/c/x.zip?sv=2022&sig=abc%3D";
        assert_eq!(
            with_params(url, "comp=blocklist"),
            format!("{url}&comp=blocklist")
        );
        assert_eq!(
            with_params("http://h/x", "comp=block"),
            "http://h/x?comp=block"
        );
        assert_eq!(
            with_params("http://h/x?", "comp=block"),
            "http://h/x?comp=block"
        );
        assert_eq!(
            with_params("http://h/x?a=1&", "comp=block"),
            "http://h/x?a=1&comp=block"
        );
    }

    #[test]
    fn block_ids_have_one_length_and_decode_to_48_chars() {
        let ids = block_ids("deadbeef", 12_345);
        assert!(ids.iter().all(|id| id.len() == ids[0].len()));
        let first = STANDARD.decode(&ids[0]).unwrap();
        assert_eq!(first.len(), 48);
        assert!(first.starts_with(b"deadbeef000"));
        assert_eq!(block_ids("", 1)[0].len(), 64);
        let mut unique = ids.clone();
        unique.dedup();
        assert_eq!(unique.len(), ids.len());
    }

    #[test]
    fn sig_is_found_in_every_form() {
        let secrets = sig_secrets("http://h/b.zip?sv=x&sig=abc%2B%3D&se=1");
        assert_eq!(secrets, vec!["abc+=", "abc%2B%3D"]);
        assert_eq!(sig_secrets("http://h/b.zip?sv=x"), Vec::<String>::new());
        assert_eq!(
            sig_secrets("http://h/b.zip?sig=a+b"),
            vec!["a b", "a+b", "a%20b"]
        );
    }

    #[test]
    fn block_list_is_in_order() {
        assert_eq!(
            block_list_xml(&["QQ==".into(), "Qg==".into()]),
            r#"<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>QQ==</Latest><Latest>Qg==</Latest></BlockList>"#
        );
    }

    #[test]
    fn azure_error_code_is_extracted() {
        assert_eq!(
            xml_code(
                b"<?xml?><Error><Code>AuthenticationFailed</Code><Message>sig=x</Message></Error>"
            )
            .as_deref(),
            Some("AuthenticationFailed")
        );
        assert_eq!(xml_code(b"<Code>unterminated"), None);
    }
}
