//! Earlier runs' `audit-PR-<n>` artifacts, served the way the REST API lists and
//! downloads them (a zip holding `PR-<n>.json`), for the ledger's fallbacks.

use std::io::Write;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use super::REPO;
use super::fake_github::FakeGitHub;

/// One earlier artifact: its id, the run that uploaded it, and the audit file it holds.
pub struct Artifact {
    pub id: u64,
    pub run_id: u64,
    pub audit: Value,
}

/// Serves `artifacts` for PR `pr` (any order; the product picks the newest by id).
pub async fn serve(gh: &FakeGitHub, pr: u64, artifacts: &[Artifact]) {
    let mut listed = Vec::new();
    for artifact in artifacts {
        let zip = zip_audit(pr, &artifact.audit);
        listed.push(json!({
            "id": artifact.id, "name": format!("audit-PR-{pr}"),
            "size_in_bytes": zip.len(), "expired": false,
            "workflow_run": {"id": artifact.run_id}
        }));
        Mock::given(method("GET"))
            .and(path(format!(
                "/repos/{REPO}/actions/artifacts/{}/zip",
                artifact.id
            )))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header("content-type", "application/zip")
                    .set_body_bytes(zip),
            )
            .mount(&gh.server)
            .await;
    }
    Mock::given(method("GET"))
        .and(path(format!("/repos/{REPO}/actions/artifacts")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"total_count": listed.len(), "artifacts": listed})),
        )
        .mount(&gh.server)
        .await;
}

fn zip_audit(pr: u64, audit: &Value) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(
        format!("PR-{pr}.json"),
        zip::write::SimpleFileOptions::default(),
    )
    .expect("zip entry");
    zip.write_all(
        serde_json::to_string_pretty(audit)
            .expect("json")
            .as_bytes(),
    )
    .expect("zip write");
    zip.finish().expect("zip").into_inner()
}

/// The artifacts one workflow run uploaded, by name (`GET /actions/runs/{id}/artifacts`).
pub async fn serve_run(gh: &FakeGitHub, run_id: u64, names: &[&str]) {
    let listed: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            json!({"id": 9000 + i, "name": name, "size_in_bytes": 10, "expired": false,
                   "workflow_run": {"id": run_id}})
        })
        .collect();
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/{REPO}/actions/runs/{run_id}/artifacts"
        )))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"total_count": listed.len(), "artifacts": listed})),
        )
        .mount(&gh.server)
        .await;
}
