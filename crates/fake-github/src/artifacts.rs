//! Earlier runs' `audit-PR-<n>` artifacts, served the way the REST API lists and
//! downloads them (a zip holding `PR-<n>.json`), for the ledger's fallbacks.

use std::io::Write;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::REPO_ID;
use crate::fake_github::FakeGitHub;

/// The id of a fork of [`crate::REPO`]: a run of its pull request's code carries it as
/// `head_repository_id`.
pub const FORK_ID: u64 = 999_000_001;

/// One earlier artifact: its id, the run that uploaded it, whose code that run ran
/// (this repository's, or a fork's), and the audit file it holds.
pub struct Artifact {
    pub id: u64,
    pub run_id: u64,
    pub head_repository_id: u64,
    pub audit: Value,
}

impl Artifact {
    /// Uploaded by a run of this repository's own code.
    pub fn own(id: u64, run_id: u64, audit: Value) -> Artifact {
        Artifact {
            id,
            run_id,
            head_repository_id: REPO_ID,
            audit,
        }
    }

    /// Uploaded by a run of a fork's pull request (in this repository, of the fork's code).
    pub fn fork(id: u64, run_id: u64, audit: Value) -> Artifact {
        Artifact {
            head_repository_id: FORK_ID,
            ..Artifact::own(id, run_id, audit)
        }
    }
}

/// Serves `artifacts` for PR `pr` (any order; the product picks the newest by id), listed
/// as the REST API lists them: with their run's repository and head repository ids.
pub async fn serve(gh: &FakeGitHub, pr: u64, artifacts: &[Artifact]) {
    let repo = gh.repo();
    let mut listed = Vec::new();
    for artifact in artifacts {
        let zip = zip_audit(pr, &artifact.audit);
        listed.push(json!({
            "id": artifact.id, "name": format!("audit-PR-{pr}"),
            "size_in_bytes": zip.len(), "expired": false,
            "workflow_run": {
                "id": artifact.run_id,
                "repository_id": REPO_ID,
                "head_repository_id": artifact.head_repository_id,
            }
        }));
        Mock::given(method("GET"))
            .and(path(format!(
                "/repos/{repo}/actions/artifacts/{}/zip",
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
        .and(path(format!("/repos/{repo}/actions/artifacts")))
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
    let repo = gh.repo();
    let listed: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            json!({"id": 9000 + i, "name": name, "size_in_bytes": 10, "expired": false,
                   "workflow_run": {"id": run_id, "repository_id": REPO_ID,
                                    "head_repository_id": REPO_ID}})
        })
        .collect();
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/{repo}/actions/runs/{run_id}/artifacts"
        )))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"total_count": listed.len(), "artifacts": listed})),
        )
        .mount(&gh.server)
        .await;
}
