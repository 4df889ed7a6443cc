//! The artifact upload against fakes of the Results service (Twirp JSON) and the blob store,
//! and the REST download against a fake API with a redirect to a second host (spec §7).

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

use std::io::{Cursor, Read};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use council_github::artifact::{
    ArtifactError, DownloadOptions, RuntimeEnv, UploadOptions, UploadOutcome, UploadReport,
    UploadRequest, download_previous, upload, zip_audit_file,
};
use council_github::retry::RetryPolicy;
use council_github::{GitHub, GitHubConfig, RepoName};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const RUN_ID: &str = "ce7f54c7-61c7-4aae-887f-30da475f5f1a";
const JOB_ID: &str = "ca395085-040a-526b-2ce8-bdc85f692774";
const TWIRP: &str = "/twirp/github.actions.results.api.v1.ArtifactService/";
const BLOB_PATH: &str = "/blob/audit-PR-123.zip";
const AUDIT: &[u8] =
    br#"{"schema_version":1,"context_id":"PR-123","timeline":[{"id":"a","message":"h\u00e9"}]}"#;

// ---------------------------------------------------------------- fixtures

fn jwt(scp: &str) -> String {
    let payload = json!({ "scp": scp, "iss": "test" }).to_string();
    format!(
        "{}.{}.c2lnbmF0dXJl",
        URL_SAFE_NO_PAD.encode(r#"{"typ":"JWT","alg":"HS256"}"#),
        URL_SAFE_NO_PAD.encode(payload)
    )
}

fn token() -> String {
    jwt(&format!(
        "Actions.Example Actions.Results:{RUN_ID}:{JOB_ID}"
    ))
}

fn fast() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 5,
        base_delay: Duration::from_millis(2),
        max_delay: Duration::from_secs(2),
        ..RetryPolicy::default()
    }
}

fn options() -> UploadOptions {
    UploadOptions {
        retry: fast(),
        ..UploadOptions::default()
    }
}

fn env(results: &MockServer) -> RuntimeEnv {
    RuntimeEnv {
        runtime_token: Some(token()),
        // A path and trailing slash that must be dropped (pitfall P1).
        results_url: Some(format!("{}/some/path/", results.uri())),
        server_url: Some("https://github.com".into()),
        retention_days_limit: None,
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-06-01T12:00:00.123Z")
        .unwrap()
        .to_utc()
}

fn request(audit: &[u8]) -> UploadRequest<'_> {
    UploadRequest {
        pr_number: 123,
        audit_json: audit,
        retention_days: None,
        now: now(),
    }
}

/// A percent-encoded `sig` catches a client that re-encodes the SAS query.
fn signed_url(blob_base: &str) -> String {
    format!("{blob_base}{BLOB_PATH}?sv=x&sig=abc%3D")
}

fn rpc(name: &str) -> String {
    format!("{TWIRP}{name}")
}

fn create_ok(blob_base: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_json(json!({"ok": true, "signed_upload_url": signed_url(blob_base)}))
}

fn finalize_ok() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"ok": true, "artifact_id": "123"}))
}

fn twirp_error(status: u16, code: &str, msg: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"code": code, "msg": msg}))
}

async fn mount(server: &MockServer, rpc_name: &str, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(rpc(rpc_name)))
        .respond_with(response)
        .mount(server)
        .await;
}

/// A response for the first `times` calls only, ahead of the default mocks.
async fn mount_first(
    server: &MockServer,
    rpc_name: &str,
    times: u64,
    priority: u8,
    response: ResponseTemplate,
) {
    Mock::given(method("POST"))
        .and(path(rpc(rpc_name)))
        .respond_with(response)
        .up_to_n_times(times)
        .with_priority(priority)
        .mount(server)
        .await;
}

async fn mount_blob(blob: &MockServer) {
    Mock::given(method("PUT"))
        .and(path(BLOB_PATH))
        .respond_with(ResponseTemplate::new(201))
        .mount(blob)
        .await;
}

struct Fakes {
    results: MockServer,
    blob: MockServer,
}

/// Results service + blob store that accept everything (faults are mounted ahead of these).
async fn fakes() -> Fakes {
    let fakes = Fakes {
        results: MockServer::start().await,
        blob: MockServer::start().await,
    };
    mount(
        &fakes.results,
        "CreateArtifact",
        create_ok(&fakes.blob.uri()),
    )
    .await;
    mount(&fakes.results, "FinalizeArtifact", finalize_ok()).await;
    mount_blob(&fakes.blob).await;
    fakes
}

// ---------------------------------------------------------------- request inspection

async fn calls(server: &MockServer, rpc_name: &str) -> Vec<Request> {
    let all = server.received_requests().await.unwrap_or_default();
    all.into_iter()
        .filter(|r| r.url.path() == rpc(rpc_name))
        .collect()
}

fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Every Twirp request: POST, bearer runtime token, JSON, the run's own ids and the name.
fn assert_twirp(request: &Request) -> Value {
    let body = assert_twirp_ids(request);
    assert_eq!(body["name"], "audit-PR-123");
    body
}

fn assert_twirp_ids(request: &Request) -> Value {
    assert_eq!(request.method.as_str(), "POST");
    assert_eq!(
        header(request, "authorization"),
        Some(format!("Bearer {}", token()).as_str())
    );
    assert_eq!(header(request, "content-type"), Some("application/json"));
    assert_eq!(
        header(request, "content-length"),
        Some(request.body.len().to_string().as_str())
    );
    let body: Value = serde_json::from_slice(&request.body).expect("JSON body");
    assert_eq!(body["workflow_run_backend_id"], RUN_ID);
    assert_eq!(body["workflow_job_run_backend_id"], JOB_ID);
    body
}

fn assert_create(request: &Request) -> Value {
    let body = assert_twirp(request);
    assert_eq!(body["version"], json!(4), "version is a JSON number");
    assert!(
        body.get("mime_type").is_none(),
        "profile A sends no mime_type"
    );
    body
}

struct Staged {
    zip: Vec<u8>,
    block_ids: Vec<String>,
    block_puts: usize,
}

/// Reassembles the blob as the store would: blocks by id, in the committed list's order.
async fn assembled(blob: &MockServer) -> Staged {
    let requests = blob.received_requests().await.unwrap_or_default();
    let mut blocks = std::collections::HashMap::new();
    let mut block_puts = 0;
    let mut committed = None;
    for r in &requests {
        assert_eq!(r.method.as_str(), "PUT");
        assert_eq!(r.url.path(), BLOB_PATH);
        assert!(
            r.headers.get("authorization").is_none(),
            "no Authorization to the blob host"
        );
        assert_eq!(
            header(r, "content-length"),
            Some(r.body.len().to_string().as_str())
        );
        let query = r.url.query().unwrap_or_default();
        assert!(
            query.starts_with("sv=x&sig=abc%3D&comp="),
            "SAS kept verbatim: {query}"
        );
        let param = |name: &str| {
            r.url
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        match param("comp").as_deref() {
            Some("block") => {
                block_puts += 1;
                blocks.insert(param("blockid").expect("blockid"), r.body.clone());
            }
            Some("blocklist") => {
                assert_eq!(header(r, "content-type"), Some("application/xml"));
                assert_eq!(header(r, "x-ms-blob-content-type"), Some("application/zip"));
                committed = Some(String::from_utf8(r.body.clone()).unwrap());
            }
            other => panic!("unexpected comp {other:?}"),
        }
    }
    let xml = committed.expect("a Put Block List");
    assert!(xml.starts_with(r#"<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>"#));
    let block_ids: Vec<String> = xml
        .split("<Latest>")
        .skip(1)
        .map(|s| s.split("</Latest>").next().unwrap().to_string())
        .collect();
    let zip = block_ids.iter().flat_map(|id| blocks[id].clone()).collect();
    assert!(
        block_ids.iter().all(|id| id.len() == block_ids[0].len()),
        "same-length ids"
    );
    assert!(
        block_ids.iter().all(|id| STANDARD.decode(id).is_ok()),
        "base64 ids"
    );
    Staged {
        zip,
        block_ids,
        block_puts,
    }
}

/// The zip root holds exactly `PR-123.json`, with the original bytes.
fn assert_zip_holds(zip: &[u8], original: &[u8]) {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).unwrap();
    assert_eq!(archive.len(), 1);
    let mut entry = archive.by_index(0).unwrap();
    assert_eq!(entry.name().unwrap(), "PR-123.json");
    let mut bytes = Vec::new();
    entry.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes, original);
}

fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Finalize carries the assembled blob's size (a string) and hash.
async fn assert_finalized(fakes: &Fakes, original: &[u8]) -> Staged {
    let staged = assembled(&fakes.blob).await;
    assert_zip_holds(&staged.zip, original);
    let finals = calls(&fakes.results, "FinalizeArtifact").await;
    let body = assert_twirp(finals.last().expect("a FinalizeArtifact"));
    assert_eq!(
        body["size"],
        json!(staged.zip.len().to_string()),
        "size is a JSON string"
    );
    assert_eq!(body["hash"], json!(sha256(&staged.zip)));
    staged
}

fn uploaded(report: &UploadReport) -> (String, u64, String) {
    match &report.result {
        Ok(UploadOutcome::Uploaded {
            artifact_id,
            size,
            digest,
        }) => (artifact_id.clone(), *size, digest.clone()),
        other => panic!("expected an upload, got {other:?}"),
    }
}

fn failed(report: &UploadReport) -> &ArtifactError {
    let e = report.result.as_ref().expect_err("expected a failure");
    let text = e.to_string();
    assert!(
        !text.contains("abc%3D") && !text.contains("sv=x"),
        "no signed query: {text}"
    );
    assert!(!text.contains(&token()), "no token: {text}");
    e
}

// ---------------------------------------------------------------- happy paths

#[tokio::test]
async fn uploads_in_four_requests_with_every_field_checked() {
    let fakes = fakes().await;
    let mut req = request(AUDIT);
    req.retention_days = Some(30);
    let report = upload(&env(&fakes.results), &req, &options()).await;

    let (id, size, digest) = uploaded(&report);
    assert_eq!(id, "123");
    assert_eq!(report.requests, 4);
    let creates = calls(&fakes.results, "CreateArtifact").await;
    assert_eq!(creates.len(), 1);
    let body = assert_create(&creates[0]);
    assert_eq!(body["expires_at"], "2026-07-01T12:00:00.123Z");
    let staged = assert_finalized(&fakes, AUDIT).await;
    assert_eq!((staged.block_puts, staged.block_ids.len()), (1, 1));
    assert_eq!(size, staged.zip.len() as u64);
    assert_eq!(digest, sha256(&staged.zip));
    assert_eq!(
        staged.zip,
        zip_audit_file(123, AUDIT).unwrap(),
        "deterministic zip"
    );
    assert_eq!(
        report.secrets,
        vec!["abc=".to_string(), "abc%3D".to_string()]
    );
    assert!(report.warnings.is_empty() && report.replaced.is_none());
}

#[tokio::test]
async fn camel_case_answers_and_numeric_int64_are_accepted() {
    for artifact_id in [json!("4242424242"), json!(4242424242u64)] {
        let results = MockServer::start().await;
        let blob = MockServer::start().await;
        let url = signed_url(&blob.uri());
        mount(
            &results,
            "CreateArtifact",
            ResponseTemplate::new(200).set_body_json(json!({"ok": true, "signedUploadUrl": url})),
        )
        .await;
        mount(
            &results,
            "FinalizeArtifact",
            ResponseTemplate::new(200)
                .set_body_json(json!({"ok": true, "artifactId": artifact_id})),
        )
        .await;
        mount_blob(&blob).await;
        let report = upload(&env(&results), &request(AUDIT), &options()).await;
        assert_eq!(uploaded(&report).0, "4242424242");
    }
}

#[tokio::test]
async fn large_files_go_in_several_same_length_blocks_in_order() {
    // Incompressible content so that the zip spans several 256-byte blocks.
    let mut audit = Vec::new();
    let mut seed = Sha256::digest(b"seed").to_vec();
    for _ in 0..40 {
        seed = Sha256::digest(&seed).to_vec();
        audit.extend_from_slice(hex::encode(&seed).as_bytes());
    }
    let fakes = fakes().await;
    let opts = UploadOptions {
        block_size: 256,
        ..options()
    };
    let report = upload(&env(&fakes.results), &request(&audit), &opts).await;
    uploaded(&report);
    let staged = assert_finalized(&fakes, &audit).await;
    let expected_blocks = staged.zip.len().div_ceil(256);
    assert!(expected_blocks >= 3);
    assert_eq!(staged.block_ids.len(), expected_blocks);
    assert_eq!(report.requests as usize, 3 + expected_blocks);
    // The commit lists the blocks in the order they were sent.
    let sent: Vec<String> = fakes
        .blob
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter_map(|r| {
            r.url
                .query_pairs()
                .find(|(k, _)| k == "blockid")
                .map(|(_, v)| v.into_owned())
        })
        .collect();
    assert_eq!(sent, staged.block_ids);
}

#[tokio::test]
async fn a_blob_host_equal_to_the_results_host_still_gets_no_token() {
    let results = MockServer::start().await;
    mount(&results, "CreateArtifact", create_ok(&results.uri())).await;
    mount(&results, "FinalizeArtifact", finalize_ok()).await;
    mount_blob(&results).await;
    let report = upload(&env(&results), &request(AUDIT), &options()).await;
    uploaded(&report);
    let puts: Vec<Request> = results
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.method.as_str() == "PUT")
        .collect();
    assert_eq!(puts.len(), 2);
    assert!(
        puts.iter()
            .all(|r| r.headers.get("authorization").is_none())
    );
}

#[tokio::test]
async fn retention_is_capped_by_the_repository_limit_with_a_warning() {
    let fakes = fakes().await;
    let mut e = env(&fakes.results);
    e.retention_days_limit = Some("10".into());
    let mut req = request(AUDIT);
    req.retention_days = Some(30);
    let report = upload(&e, &req, &options()).await;
    uploaded(&report);
    let body = assert_create(&calls(&fakes.results, "CreateArtifact").await[0]);
    assert_eq!(body["expires_at"], "2026-06-11T12:00:00.123Z");
    assert_eq!(report.warnings.len(), 1);
    assert!(report.warnings[0].contains("GITHUB_RETENTION_DAYS=10"));
}

// ---------------------------------------------------------------- skipped, bad token

#[tokio::test]
async fn outside_actions_or_on_ghes_nothing_is_sent() {
    let results = MockServer::start().await;
    let cases = [
        RuntimeEnv::default(),
        RuntimeEnv {
            runtime_token: Some(" ".into()),
            ..env(&results)
        },
        RuntimeEnv {
            results_url: None,
            ..env(&results)
        },
        RuntimeEnv {
            server_url: Some("https://github.acme.com".into()),
            ..env(&results)
        },
    ];
    for case in cases {
        let report = upload(&case, &request(AUDIT), &options()).await;
        match &report.result {
            Ok(UploadOutcome::Skipped { reason }) => {
                assert!(reason.contains("skipped"), "{reason}")
            }
            other => panic!("expected Skipped, got {other:?}"),
        }
        assert_eq!(report.requests, 0);
    }
    assert!(results.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_token_without_actions_results_fails_before_any_request() {
    let results = MockServer::start().await;
    for bad in [
        jwt("Actions.Example Actions.AnotherExample:test"),
        jwt("Actions.Results:only-one"),
        "not-a-jwt".into(),
    ] {
        let e = RuntimeEnv {
            runtime_token: Some(bad),
            ..env(&results)
        };
        let report = upload(&e, &request(AUDIT), &options()).await;
        assert!(matches!(failed(&report), ArtifactError::Token(_)));
        assert_eq!(report.requests, 0);
        let kind = council_protocol::error::Error::from(report.result.unwrap_err()).kind();
        assert_eq!(kind, council_protocol::error::Kind::Service);
    }
    assert!(results.received_requests().await.unwrap().is_empty());
}

// ---------------------------------------------------------------- Twirp faults

#[tokio::test]
async fn create_500_502_503_then_success() {
    let fakes = fakes().await;
    for (priority, status) in [(1, 500), (2, 502), (3, 503)] {
        mount_first(
            &fakes.results,
            "CreateArtifact",
            1,
            priority,
            twirp_error(status, "internal", "boom"),
        )
        .await;
    }
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    let creates = calls(&fakes.results, "CreateArtifact").await;
    assert_eq!(creates.len(), 4);
    creates.iter().for_each(|c| {
        assert_create(c);
    });
    assert_eq!(report.requests, 7);
    assert_finalized(&fakes, AUDIT).await;
}

#[tokio::test]
async fn create_503_five_times_fails_after_exactly_five_attempts() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "CreateArtifact",
        100,
        1,
        twirp_error(503, "unavailable", "down"),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    match failed(&report) {
        ArtifactError::Unavailable {
            attempts, message, ..
        } => {
            assert_eq!(*attempts, 5);
            assert!(message.contains("503"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 5);
    assert!(fakes.blob.received_requests().await.unwrap().is_empty());
    assert!(report.secrets.is_empty());
}

#[tokio::test]
async fn a_non_json_answer_is_retried() {
    let fakes = fakes().await;
    let html = ResponseTemplate::new(200).set_body_raw("<html>proxy</html>", "text/html");
    mount_first(&fakes.results, "CreateArtifact", 1, 1, html).await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 2);
}

#[tokio::test]
async fn a_429_waits_for_retry_after() {
    let fakes = fakes().await;
    let limited =
        twirp_error(429, "resource_exhausted", "slow down").insert_header("Retry-After", "1");
    mount_first(&fakes.results, "CreateArtifact", 1, 1, limited).await;
    let started = Instant::now();
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 2);
}

#[tokio::test]
async fn a_secondary_rate_limit_403_is_retried() {
    let fakes = fakes().await;
    let limited = ResponseTemplate::new(403).set_body_json(json!({
        "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
    }));
    mount_first(&fakes.results, "FinalizeArtifact", 1, 1, limited).await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert_eq!(calls(&fakes.results, "FinalizeArtifact").await.len(), 2);
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 1);
}

#[tokio::test]
async fn other_4xx_are_not_retried() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "CreateArtifact",
        100,
        1,
        twirp_error(400, "invalid_argument", "bad name"),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    match failed(&report) {
        ArtifactError::Rejected {
            status: 400,
            message,
            hint,
            ..
        } => {
            assert!(message.contains("bad name"));
            assert!(hint.contains("re-run the job"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(report.requests, 1);
}

#[tokio::test]
async fn insufficient_usage_is_a_quota_error_without_retry() {
    let fakes = fakes().await;
    let quota = twirp_error(
        403,
        "permission_denied",
        "insufficient usage to create artifact",
    );
    mount_first(&fakes.results, "CreateArtifact", 100, 1, quota).await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    let e = failed(&report);
    assert!(matches!(e, ArtifactError::Quota { .. }), "{e:?}");
    assert!(e.to_string().contains("Delete old artifacts"));
    assert_eq!(report.requests, 1);
}

#[tokio::test]
async fn ok_false_or_absent_is_an_error_without_retry() {
    for body in [
        json!({"ok": false, "signed_upload_url": "http://x/y"}),
        json!({}),
    ] {
        let fakes = fakes().await;
        mount_first(
            &fakes.results,
            "CreateArtifact",
            100,
            1,
            ResponseTemplate::new(200).set_body_json(body),
        )
        .await;
        let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
        assert!(matches!(failed(&report), ArtifactError::NotOk { .. }));
        assert_eq!(report.requests, 1);
    }
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "FinalizeArtifact",
        100,
        1,
        ResponseTemplate::new(200).set_body_json(json!({"ok": false})),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    assert!(matches!(failed(&report), ArtifactError::NotOk { .. }));
    assert_eq!(report.requests, 4);
}

// ---------------------------------------------------------------- finalize faults (P6)

#[tokio::test]
async fn a_failing_finalize_is_retried_alone_and_never_recreates() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "FinalizeArtifact",
        100,
        1,
        twirp_error(500, "internal", "db down"),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    let e = failed(&report);
    assert!(
        matches!(e, ArtifactError::Unavailable { attempts: 5, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("FinalizeArtifact"));
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 1);
    assert_eq!(calls(&fakes.results, "FinalizeArtifact").await.len(), 5);
    assert_eq!(assembled(&fakes.blob).await.block_puts, 1);
    assert_eq!(report.secrets.len(), 2, "masks are returned on failure too");
}

#[tokio::test]
async fn a_finalize_503_then_success_keeps_the_first_signed_url() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "FinalizeArtifact",
        2,
        1,
        twirp_error(503, "unavailable", "x"),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 1);
    assert_eq!(report.requests, 6);
    assert_finalized(&fakes, AUDIT).await;
}

// ---------------------------------------------------------------- blob faults

#[tokio::test]
async fn a_blob_500_resends_the_same_block() {
    let fakes = fakes().await;
    Mock::given(method("PUT"))
        .and(query_param("comp", "block"))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&fakes.blob)
        .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    let staged = assert_finalized(&fakes, AUDIT).await;
    assert_eq!((staged.block_puts, staged.block_ids.len()), (2, 1));
}

#[tokio::test]
async fn a_blob_403_is_not_retried_and_leaks_no_signature() {
    let fakes = fakes().await;
    let denied = ResponseTemplate::new(403).set_body_raw(
        "<?xml version=\"1.0\"?><Error><Code>AuthenticationFailed</Code><Message>sig=abc%3D</Message></Error>",
        "application/xml",
    );
    Mock::given(method("PUT"))
        .respond_with(denied)
        .with_priority(1)
        .mount(&fakes.blob)
        .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    let e = failed(&report).to_string();
    assert!(
        e.contains("AuthenticationFailed") && e.contains("re-run the job"),
        "{e}"
    );
    assert_eq!(fakes.blob.received_requests().await.unwrap().len(), 1);
    assert!(calls(&fakes.results, "FinalizeArtifact").await.is_empty());
}

/// A proxy in front of the blob store that resets the first connection after reading part
/// of the request, and pipes every later connection through.
async fn resetting_proxy(target: SocketAddr) -> (String, Arc<AtomicU32>) {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicU32::new(0));
    let seen = connections.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            if seen.fetch_add(1, Ordering::SeqCst) == 0 {
                let mut partial = [0u8; 100];
                let _ = inbound.read(&mut partial).await;
                let _ = inbound.set_zero_linger();
                drop(inbound);
                continue;
            }
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (base, connections)
}

#[tokio::test]
async fn a_connection_reset_mid_upload_is_retried() {
    let fakes = fakes().await;
    let (proxy, connections) = resetting_proxy(*fakes.blob.address()).await;
    mount_first(&fakes.results, "CreateArtifact", 100, 1, create_ok(&proxy)).await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert!(connections.load(Ordering::SeqCst) >= 2);
    // The reset attempt never reached the store; the retry did, with the same block.
    let staged = assert_finalized(&fakes, AUDIT).await;
    assert_eq!((staged.block_puts, staged.block_ids.len()), (1, 1));
    assert_eq!(report.requests, 5);
}

// ---------------------------------------------------------------- 409: delete then create

fn listed(job: &str, id: &str) -> Value {
    json!({"workflow_run_backend_id": RUN_ID, "workflow_job_run_backend_id": job, "database_id": id,
           "name": "audit-PR-123", "size": "10", "created_at": "2026-06-01T11:00:00Z", "digest": "sha256:00"})
}

const EXISTS: &str = "an artifact with this name already exists on the workflow run";

#[tokio::test]
async fn a_409_deletes_the_earlier_artifact_and_creates_again() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "CreateArtifact",
        1,
        1,
        twirp_error(409, "already_exists", EXISTS),
    )
    .await;
    let list = json!({"artifacts": [listed("other-job", "9"), listed("guard-job", "77")]});
    mount(
        &fakes.results,
        "ListArtifacts",
        ResponseTemplate::new(200).set_body_json(list),
    )
    .await;
    mount(
        &fakes.results,
        "DeleteArtifact",
        ResponseTemplate::new(200).set_body_json(json!({"ok": true, "artifact_id": "77"})),
    )
    .await;

    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    uploaded(&report);
    assert_eq!(report.replaced.as_deref(), Some("77"));
    assert_eq!(report.requests, 7);
    let listing = assert_twirp_ids(&calls(&fakes.results, "ListArtifacts").await[0]);
    assert_eq!(listing["name_filter"], "audit-PR-123");
    assert!(listing.get("name").is_none());
    let deletes = calls(&fakes.results, "DeleteArtifact").await;
    assert_eq!(deletes.len(), 1);
    let delete: Value = deletes[0].body_json().unwrap();
    assert_eq!(
        delete,
        json!({"workflow_run_backend_id": RUN_ID, "workflow_job_run_backend_id": "guard-job", "name": "audit-PR-123"})
    );
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 2);
    assert_finalized(&fakes, AUDIT).await;
}

#[tokio::test]
async fn a_409_that_persists_is_a_clear_conflict() {
    let fakes = fakes().await;
    mount_first(
        &fakes.results,
        "CreateArtifact",
        100,
        1,
        twirp_error(409, "already_exists", EXISTS),
    )
    .await;
    mount(
        &fakes.results,
        "ListArtifacts",
        ResponseTemplate::new(200).set_body_json(json!({"artifacts": []})),
    )
    .await;
    let report = upload(&env(&fakes.results), &request(AUDIT), &options()).await;
    let e = failed(&report);
    assert!(matches!(e, ArtifactError::Conflict { .. }), "{e:?}");
    assert!(e.to_string().contains("already exists"));
    assert_eq!(calls(&fakes.results, "CreateArtifact").await.len(), 2);
    assert!(calls(&fakes.results, "DeleteArtifact").await.is_empty());
}

// ---------------------------------------------------------------- REST download

async fn github(api: &MockServer) -> GitHub {
    let config = GitHubConfig {
        api_url: api.uri(),
        graphql_url: format!("{}/graphql", api.uri()),
        token: Some("ghs_test".into()),
        retry: fast(),
        read_only: false,
    };
    GitHub::new(&config, RepoName::parse("o/r").unwrap()).unwrap()
}

fn rest_artifact(id: u64, run: u64, expired: bool, digest: Option<String>) -> Value {
    json!({"id": id, "node_id": "x", "name": "audit-PR-123", "size_in_bytes": 300, "expired": expired,
           "archive_download_url": format!("https://api.example/repos/o/r/actions/artifacts/{id}/zip"),
           "created_at": "2026-06-01T11:00:00Z", "digest": digest,
           "workflow_run": {"id": run, "head_branch": "feat/x", "head_sha": "abc"}})
}

struct Rest {
    api: MockServer,
    blob: MockServer,
    zip: Vec<u8>,
}

/// Artifacts 10 (run 100), 12 (expired) and 13 (the current run 130): 10 is the one to read.
async fn rest(digest_of: &[u8]) -> Rest {
    let rest = Rest {
        api: MockServer::start().await,
        blob: MockServer::start().await,
        zip: zip_audit_file(123, AUDIT).unwrap(),
    };
    let list = json!({"total_count": 3, "artifacts": [
        rest_artifact(10, 100, false, Some(sha256(digest_of))),
        rest_artifact(12, 120, true, None),
        rest_artifact(13, 130, false, None)]});
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts"))
        .respond_with(ResponseTemplate::new(200).set_body_json(list))
        .mount(&rest.api)
        .await;
    let location = format!("{}/dl/10.zip?sig=blobsecret", rest.blob.uri());
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts/10/zip"))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", location.as_str()))
        .mount(&rest.api)
        .await;
    Mock::given(method("GET"))
        .and(path("/dl/10.zip"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(rest.zip.clone(), "application/zip"))
        .mount(&rest.blob)
        .await;
    rest
}

fn exclude(run: u64) -> DownloadOptions {
    DownloadOptions {
        exclude_run_id: Some(run),
        ..DownloadOptions::default()
    }
}

#[tokio::test]
async fn downloads_the_newest_earlier_file_without_forwarding_the_token() {
    let rest = rest(&zip_audit_file(123, AUDIT).unwrap()).await;
    let gh = github(&rest.api).await;
    let got = download_previous(&gh, 123, &exclude(130))
        .await
        .unwrap()
        .expect("a file");
    assert_eq!((got.artifact_id, got.run_id), (10, Some(100)));
    assert_eq!(got.json, AUDIT);

    let api = rest.api.received_requests().await.unwrap();
    assert_eq!(api.len(), 2);
    assert!(
        api.iter()
            .all(|r| header(r, "authorization") == Some("Bearer ghs_test"))
    );
    let list_query: Vec<(String, String)> = api[0]
        .url
        .query_pairs()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    assert!(list_query.contains(&("name".into(), "audit-PR-123".into())));
    assert!(list_query.contains(&("per_page".into(), "100".into())));
    let blob = rest.blob.received_requests().await.unwrap();
    assert_eq!(blob.len(), 1);
    assert!(
        blob[0].headers.get("authorization").is_none(),
        "token not forwarded cross-origin"
    );
    assert_eq!(blob[0].url.query(), Some("sig=blobsecret"));
}

#[tokio::test]
async fn without_exclusion_the_current_runs_artifact_is_newest() {
    let rest = rest(b"").await;
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts/13/zip"))
        .respond_with(ResponseTemplate::new(302).insert_header(
            "Location",
            format!("{}/dl/10.zip", rest.blob.uri()).as_str(),
        ))
        .mount(&rest.api)
        .await;
    let gh = github(&rest.api).await;
    let got = download_previous(&gh, 123, &DownloadOptions::default())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.artifact_id, 13);
}

#[tokio::test]
async fn a_digest_mismatch_is_rejected() {
    let rest = rest(b"something else").await;
    let gh = github(&rest.api).await;
    let e = download_previous(&gh, 123, &exclude(130))
        .await
        .unwrap_err();
    assert!(
        matches!(e, ArtifactError::DigestMismatch { id: 10, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("re-run the job"));
    let kind = council_protocol::error::Error::from(e).kind();
    assert_eq!(kind, council_protocol::error::Kind::Service);
}

#[tokio::test]
async fn pages_are_followed_and_nothing_found_is_none() {
    let api = MockServer::start().await;
    let next = format!(
        "<{}/repos/o/r/actions/artifacts?name=audit-PR-123&per_page=100&page=2>; rel=\"next\"",
        api.uri()
    );
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts"))
        .and(query_param("page", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"total_count": 2, "artifacts": [rest_artifact(5, 50, true, None)]}),
        ))
        .with_priority(1)
        .mount(&api)
        .await;
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Link", next.as_str())
                .set_body_json(
                    json!({"total_count": 2, "artifacts": [rest_artifact(4, 130, false, None)]}),
                ),
        )
        .mount(&api)
        .await;
    let gh = github(&api).await;
    assert_eq!(
        download_previous(&gh, 123, &exclude(130)).await.unwrap(),
        None
    );
    let requests = api.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "both pages, no download");
    assert!(
        requests
            .iter()
            .all(|r| header(r, "authorization") == Some("Bearer ghs_test"))
    );
}

#[tokio::test]
async fn a_forbidden_listing_says_to_grant_actions_read() {
    let api = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"message": "Resource not accessible by integration"})),
        )
        .mount(&api)
        .await;
    let e = download_previous(&github(&api).await, 123, &DownloadOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("grant `actions: read`")
            || e.to_string().contains("Grant `actions: read`"),
        "{e}"
    );
    assert_eq!(api.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_secondary_rate_limit_on_the_listing_is_retried() {
    let rest = rest(&zip_audit_file(123, AUDIT).unwrap()).await;
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts"))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("Retry-After", "1")
                .set_body_json(json!({"message": "You have exceeded a secondary rate limit"})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&rest.api)
        .await;
    let got = download_previous(&github(&rest.api).await, 123, &exclude(130))
        .await
        .unwrap();
    assert_eq!(got.unwrap().artifact_id, 10);
    assert_eq!(rest.api.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn oversized_or_unsafe_archives_are_refused() {
    let rest = rest(b"").await;
    let small = DownloadOptions {
        max_zip_bytes: 100,
        ..exclude(130)
    };
    let e = download_previous(&github(&rest.api).await, 123, &small)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("more than the 100"), "{e}");
    assert!(
        rest.blob.received_requests().await.unwrap().is_empty(),
        "refused before download"
    );

    let tiny_json = DownloadOptions {
        max_json_bytes: 10,
        ..exclude(130)
    };
    let rest = rest_without_digest().await;
    let e = download_previous(&github(&rest.api).await, 123, &tiny_json)
        .await
        .unwrap_err();
    assert!(matches!(e, ArtifactError::BadArchive { .. }), "{e:?}");
}

async fn rest_without_digest() -> Rest {
    let rest = Rest {
        api: MockServer::start().await,
        blob: MockServer::start().await,
        zip: zip_audit_file(123, AUDIT).unwrap(),
    };
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"artifacts": [rest_artifact(10, 100, false, None)]})),
        )
        .mount(&rest.api)
        .await;
    Mock::given(method("GET"))
        .and(path("/repos/o/r/actions/artifacts/10/zip"))
        .respond_with(ResponseTemplate::new(302).insert_header(
            "Location",
            format!("{}/dl/10.zip", rest.blob.uri()).as_str(),
        ))
        .mount(&rest.api)
        .await;
    Mock::given(method("GET"))
        .and(path("/dl/10.zip"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(rest.zip.clone(), "application/zip"))
        .mount(&rest.blob)
        .await;
    rest
}

// ---------------------------------------------------------------- no panics on any input

mod never_panics {
    use council_github::artifact::{backend_ids, is_ghes, read_audit_file, zip_audit_file};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn tokens_and_server_urls(text in ".{0,200}") {
            let _ = backend_ids(&text);
            let _ = backend_ids(&format!("a.{text}.c"));
            let _ = is_ghes(Some(&text));
        }

        #[test]
        fn arbitrary_bytes_as_a_zip(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = read_audit_file(&bytes, 1, 1 << 20);
        }

        #[test]
        fn corrupted_zips(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
            let mut zip = zip_audit_file(1, br#"{"timeline":[1,2,3]}"#).unwrap();
            for (at, value) in flips {
                let len = zip.len();
                zip[at % len] = value;
            }
            let _ = read_audit_file(&zip, 1, 1 << 20);
        }
    }
}

/// The lead's runtime may spawn these: their futures must be `Send`.
#[allow(dead_code)]
fn futures_are_send(env: &RuntimeEnv, gh: &GitHub) {
    fn send<T: Send>(_: T) {}
    send(upload(env, &request(AUDIT), &options()));
    send(download_previous(gh, 1, &DownloadOptions::default()));
}
