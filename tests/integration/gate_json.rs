//! SPEC: "A gate's verdict has one JSON shape wherever it is printed". The same branch,
//! target and policy through a run's `--json`, `policy check --json` and MCP
//! `check_branch` give the same verdicts, each exactly `{gate, action, result, message,
//! fix}`.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::mcp::Session;
use crate::support::fake_github::FakeGitHub;
use crate::support::{binary, pr_event};

const POLICY: &str = "branches:\n  rules:\n    - name: feature\n      pattern: \"feature/*\"\n      targets: [develop]\n";

fn council_json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env_clear()
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{stdout}"))
}

fn assert_shape(gates: &Value) {
    for gate in gates.as_array().unwrap() {
        let keys: Vec<&str> = gate
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["gate", "action", "result", "message", "fix"],
            "{gate}"
        );
        match gate["result"].as_str().unwrap() {
            "FAIL" => assert!(gate["fix"]["commands"].is_array(), "{gate}"),
            "PASS" => assert!(gate["fix"].is_null(), "{gate}"),
            other => panic!("unexpected result {other}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verdict_is_the_same_json_on_every_surface() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("policy.yml"), POLICY).unwrap();
    for (branch, passes) in [("fix-typo", false), ("feature/login", true)] {
        let event = pr_event("opened", branch, "develop");
        let event_path = dir.path().join("event.json");
        std::fs::write(&event_path, event.to_string()).unwrap();
        let run = council_json(
            dir.path(),
            &[
                "guard",
                "--json",
                "--dry-run",
                "--policy",
                "policy.yml",
                "--event",
                "event.json",
                "--event-name",
                "pull_request",
            ],
        );
        let from_run = run["stages"][0]["gates"].clone();
        let check = council_json(
            dir.path(),
            &[
                "policy",
                "check",
                "policy.yml",
                "--json",
                "--branch",
                branch,
                "--target",
                "develop",
            ],
        );
        let from_check = check["branches"][0]["targets"]["develop"]["gates"].clone();
        let gh = FakeGitHub::start().await;
        let mut session = Session::start(&gh.uri(), &[], dir.path());
        let (error, text) = session.call(
            "check_branch",
            json!({"branch": branch, "target": "develop", "policy": "policy.yml"}),
        );
        assert!(!error, "{text}");
        let from_mcp = serde_json::from_str::<Value>(&text).unwrap()["gates"].clone();
        assert_shape(&from_run);
        assert_eq!(from_run, from_check, "run --json and policy check --json");
        assert_eq!(from_run, from_mcp, "run --json and MCP check_branch");
        assert_eq!(
            from_run[0]["result"] == "PASS",
            passes,
            "{branch}: {from_run}"
        );
    }
}
