//! `council mcp`: the Model Context Protocol server over stdio, driven by a raw JSON-RPC
//! client (schemas, annotations, selection, bad input) and by the official Python SDK
//! (`tests/mcp/client.py`: every tool against the fake GitHub).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::support::fake_github::FakeGitHub;
use crate::support::{REPO, binary};

const TOKEN: &str = "ghs_test_token_value";

/// A `council mcp` process and a line-by-line JSON-RPC client.
pub(crate) struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Session {
    pub(crate) fn start(api: &str, args: &[&str], dir: &Path) -> Session {
        let mut child = Command::new(binary())
            .arg("mcp")
            .args(["--repo", REPO])
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GITHUB_API_URL", api)
            .env("GH_TOKEN", TOKEN)
            .env("COUNCIL_RETRY_BASE_MS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            stdin,
            stdout,
            next: 0,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "council-test", "version": "1"}}),
        );
        assert_eq!(init["serverInfo"]["name"], "council", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Every line on stdout must be a JSON-RPC message: nothing else may reach it.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a non-protocol line ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    fn tools(&mut self) -> Vec<Value> {
        self.request("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .clone()
    }

    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> (bool, String) {
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (result["isError"] == json!(true), text)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/integration/mcp/snapshots")
}

/// Each tool's input schema and annotations are snapshotted: a change is deliberate
/// (`COUNCIL_UPDATE_SNAPSHOTS=1` rewrites them), and a tool without one fails.
#[tokio::test(flavor = "multi_thread")]
async fn every_tool_schema_and_annotation_matches_its_snapshot() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &[], dir.path());
    let tools = s.tools();
    assert_eq!(
        names(&tools),
        agent_council::mcp::tool_names(),
        "every tool is listed, in order"
    );
    let update = std::env::var_os("COUNCIL_UPDATE_SNAPSHOTS").is_some();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let snapshot = json!({
            "name": name,
            "title": tool["title"],
            "description": tool["description"],
            "inputSchema": tool["inputSchema"],
            "annotations": tool["annotations"],
        });
        let path = snapshot_dir().join(format!("{name}.json"));
        let text = format!("{}\n", serde_json::to_string_pretty(&snapshot).unwrap());
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let stored = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "tool `{name}` has no schema snapshot at {}: run with COUNCIL_UPDATE_SNAPSHOTS=1",
                path.display()
            )
        });
        assert_eq!(
            stored, text,
            "tool `{name}`'s schema changed: if deliberate, COUNCIL_UPDATE_SNAPSHOTS=1"
        );
    }
    // No stale snapshot of a tool that is gone.
    for entry in std::fs::read_dir(snapshot_dir()).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let tool = file.trim_end_matches(".json");
        assert!(names(&tools).contains(&tool), "snapshot of no tool: {file}");
    }
    // Annotations: read-only tools say so; writers say whether they replace things.
    for tool in &tools {
        let a = &tool["annotations"];
        let read_only = a["readOnlyHint"].as_bool().unwrap();
        assert!(a["destructiveHint"].is_boolean(), "{tool}");
        let writer = matches!(
            tool["name"].as_str().unwrap(),
            "report_context" | "put_agent_state" | "assign"
        );
        assert_eq!(read_only, !writer, "{}", tool["name"]);
    }
    assert!(gh.calls().is_empty(), "listing tools made requests");
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_lists_only_tools_that_write_nothing_and_tools_selects() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &["--read-only"], dir.path());
    assert_eq!(
        names(&s.tools()),
        [
            "check_branch",
            "get_agent_state",
            "verify_ledger",
            "pr_status"
        ]
    );
    let (error, text) = s.call("put_agent_state", json!({"issue": 1, "step": "coding"}));
    assert!(
        error && text.contains("no tool `put_agent_state`"),
        "{text}"
    );
    drop(s);

    let mut s = Session::start(
        &gh.uri(),
        &["--tools", "check_branch,assign", "--read-only"],
        dir.path(),
    );
    assert_eq!(names(&s.tools()), ["check_branch"], "read-only wins");
    drop(s);

    let out = Command::new(binary())
        .args(["mcp", "--repo", REPO, "--tools", "check_branch,merge"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`merge` is not a tool"), "{stderr}");
    assert!(gh.calls().is_empty());
}

/// Bad input is a tool result naming the field, found before any request; the server
/// keeps serving.
#[tokio::test(flavor = "multi_thread")]
async fn bad_input_names_the_field_before_any_request_and_the_server_keeps_serving() {
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &["--registry-issue", "50"], dir.path());
    let cases = [
        (
            "check_branch",
            json!({"branch": 5, "target": "main"}),
            "`branch`",
        ),
        ("check_branch", json!({"branch": "x"}), "`target`"),
        ("get_agent_state", json!({"issue": "seven"}), "`issue`"),
        (
            "put_agent_state",
            json!({"issue": 7, "colour": "red"}),
            "colour",
        ),
        (
            "put_agent_state",
            json!({"issue": 7, "progress": 140}),
            "progress",
        ),
        (
            "put_agent_state",
            json!({"issue": 7, "memory": {"token": "ghp_Tq7Lx2Vb9Nc4Wz8Hd1Rk6Mp3Js5Gf0Ya7Eu2"}}),
            "`memory`",
        ),
        (
            "report_context",
            json!({"agentId": "a", "contextWindow": {"totalTokens": -1, "availableTokens": 5},
                   "loadedProjects": [], "loadedTasks": [],
                   "capabilities": {"canStartImmediately": [], "needsContextLoad": []}}),
            "contextWindow.totalTokens",
        ),
        ("assign", json!({}), "issue"),
        ("verify_ledger", json!({}), "`pr` or `file`"),
        ("pr_status", json!({"pr": 1, "entries": 1000}), "`entries`"),
    ];
    for (tool, args, field) in cases {
        let (error, text) = s.call(tool, args.clone());
        assert!(error, "{tool} {args}: {text}");
        assert!(
            text.contains(field),
            "{tool} {args}: `{text}` does not name {field}"
        );
    }
    assert!(
        gh.calls().is_empty(),
        "bad input made requests: {:?}",
        gh.call_lines()
    );
    // Still serving: a good call answers.
    let (error, text) = s.call(
        "check_branch",
        json!({"branch": "feature/ui/PBI-7-login", "target": "develop", "policy": "none.yml"}),
    );
    assert!(error && text.contains("none.yml"), "{text}");
    std::fs::write(
        dir.path().join("policy.yml"),
        "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [\"develop\"]\n",
    )
    .unwrap();
    let (error, text) = s.call(
        "check_branch",
        json!({"branch": "fix-typo", "target": "develop", "policy": "policy.yml"}),
    );
    assert!(!error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["passed"], false);
    assert_eq!(answer["gates"][0]["result"], "FAIL");
    assert_eq!(answer["gates"][0]["action"], "check:branch-name");
    assert!(
        answer["gates"][0]["fix"]["commands"][0]
            .as_str()
            .unwrap()
            .contains("git branch -m"),
        "{answer}"
    );
}

/// `assign` with `apply: true` on an issue whose labels are multi-byte text: the label
/// `docs 📝` once panicked the server (slicing it at byte 6), which closed stdout.
#[tokio::test(flavor = "multi_thread")]
async fn assign_with_a_multi_byte_label_answers_and_the_server_keeps_serving() {
    let gh = FakeGitHub::start().await;
    gh.issue(50, "Codertocat", "Agents: post your context reports here.");
    gh.issue(51, "Codertocat", "Add SSR to the dashboard.");
    let report = json!({"contextReport": {
        "agentId": "agent-a",
        "reportTimestamp": chrono::Utc::now().to_rfc3339(),
        "contextWindow": {"totalTokens": 10, "availableTokens": 90},
        "loadedProjects": [],
        "loadedTasks": [],
        "capabilities": {"canStartImmediately": ["#51"], "needsContextLoad": []},
    }});
    gh.seed(
        50,
        "github-actions[bot]",
        &format!("<context-report>\n{report}\n</context-report>\n"),
    );
    gh.edit(|w| {
        if let Some(issue) = w.issues.get_mut(&51) {
            issue.labels = vec!["docs 📝".into(), "agent:é".into()];
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &["--registry-issue", "50"], dir.path());
    let (error, text) = s.call("assign", json!({"issue": 51, "apply": true}));
    assert!(!error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["recommended"], "agent-a", "{answer}");
    let labels = gh.edit(|w| w.issues[&51].labels.clone());
    assert_eq!(labels, ["docs 📝", "agent:agent-a"]);
    gh.take_writes();
    // Still serving: the same call again finds the label right and writes nothing.
    let (error, text) = s.call("assign", json!({"issue": 51, "apply": true}));
    assert!(!error, "{text}");
    assert!(gh.take_writes().is_empty());
}

/// The official MCP Python SDK as the client, against the fake GitHub: every tool,
/// valid and invalid input, then the fake world is checked. Skipped (with a line saying
/// so) when the SDK cannot be installed.
#[tokio::test(flavor = "multi_thread")]
async fn python_sdk_client_calls_every_tool() {
    let Some(python) = python_with_mcp() else {
        println!("SKIP: the MCP Python SDK (PyPI `mcp`) could not be installed");
        return;
    };
    let gh = FakeGitHub::start().await;
    gh.issue(50, "Codertocat", "Agents: post your context reports here.");
    gh.issue(
        51,
        "Codertocat",
        "Add SSR to the dashboard. T011\n\n- [x] plan\n- [ ] code",
    );
    gh.issue(7, "Codertocat", "Login page.\n\n- [x] design\n- [ ] build");
    gh.policy(
        "develop",
        Some("branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [\"develop\"]\n"),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = crate::support::output_within(
        {
            let mut cmd = Command::new(&python);
            cmd.arg(&script)
                .arg(binary())
                .arg(REPO)
                .current_dir(dir.path())
                .env("GITHUB_API_URL", gh.uri())
                .env("GH_TOKEN", TOKEN)
                .env("COUNCIL_RETRY_BASE_MS", "1");
            cmd
        },
        std::time::Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(r["server"], "council");
    assert_eq!(r["tools"].as_array().unwrap().len(), 7);
    assert_eq!(
        r["read_only_tools"],
        json!([
            "check_branch",
            "get_agent_state",
            "verify_ledger",
            "pr_status"
        ])
    );
    assert_eq!(r["prompts"], json!(["report_context"]));
    // report_context: the protocol's answer, and the comment on the registry issue.
    let report = &r["report_context"];
    assert_eq!(report["success"], true, "{report}");
    assert_eq!(report["optimization"]["tasksSuitedForYou"], json!(["T011"]));
    assert_eq!(
        report["optimization"]["tasksRequiringLoad"],
        json!(["T018"])
    );
    assert_eq!(report["freshness"]["verdict"], "HOT");
    assert!(r["report_context_bad"]["is_error"].as_bool().unwrap());
    assert!(
        r["report_context_bad"]["text"]
            .as_str()
            .unwrap()
            .contains("availableTokens")
    );
    // assign: agent-a ranked, label applied only when asked.
    assert_eq!(r["assign"]["recommended"], "agent-a", "{}", r["assign"]);
    assert!(
        r["assign"]["label"]
            .as_str()
            .unwrap()
            .starts_with("no label applied")
    );
    assert_eq!(
        r["assign_apply"]["label"], "labelled agent:agent-a",
        "{}",
        r["assign_apply"]
    );
    // check_branch: through the API's policy at the target.
    assert_eq!(r["check_pass"]["passed"], true, "{}", r["check_pass"]);
    assert_eq!(r["check_fail"]["passed"], false);
    // state: put then get, v2.1 elements included; a secret is refused.
    assert_eq!(r["put"]["outcome"], "posted", "{}", r["put"]);
    assert_eq!(r["get"]["state"]["step"], "coding", "{}", r["get"]);
    assert_eq!(r["get"]["state"]["progress"], 50, "{}", r["get"]);
    assert_eq!(
        r["get"]["state"]["plan"][0]["text"], "design",
        "{}",
        r["get"]
    );
    assert!(r["put_secret"]["is_error"].as_bool().unwrap());
    // verify_ledger and pr_status on a PR council never ran on.
    assert_eq!(r["verify"]["verified"], false);
    assert_eq!(r["pr_status"]["found"], false);
    assert_eq!(r["pr_status"]["state"]["guard_status"], "PENDING");
    // The fake world: one report comment, one state comment, one label.
    let (reports, states, labels) = gh.edit(|w| {
        let on = |n: u64| {
            w.comments
                .iter()
                .filter(|c| c["issue"] == json!(n))
                .map(|c| c["body"].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        (on(50), on(7), w.issues[&51].labels.clone())
    });
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("<context-report>") && reports[0].contains("agent-a"));
    assert_eq!(states.len(), 1, "{states:?}");
    assert!(states[0].contains("<agent-state>") && !states[0].contains("ghp_"));
    assert_eq!(labels, ["agent:agent-a"]);
    gh.writes_not_checked("the world's comments and labels are checked instead");
}

/// The MCP Inspector's CLI mode (npm `@modelcontextprotocol/inspector`) lists the tools a
/// `--read-only` server offers. Skipped (with a line saying so) without npm or the package.
#[test]
fn mcp_inspector_cli_lists_the_read_only_tools() {
    let Some(inspector) = mcp_inspector() else {
        println!(
            "SKIP: the MCP Inspector (npm @modelcontextprotocol/inspector) could not be installed"
        );
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(inspector);
    cmd.env("HOME", home.path())
        .args(["--cli", "--method", "tools/list"])
        .arg(binary())
        .args(["mcp", "--repo", REPO, "--read-only"]);
    let out = crate::support::output_within(cmd, crate::support::RUN_TIMEOUT);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "check_branch",
            "get_agent_state",
            "verify_ledger",
            "pr_status"
        ]
    );
    for tool in listed["tools"].as_array().unwrap() {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }
}

/// The Inspector installed once under the target directory (a pinned version).
fn mcp_inspector() -> Option<PathBuf> {
    let prefix = binary().parent()?.parent()?.join("mcp-inspector");
    let bin = prefix.join("node_modules/.bin/mcp-inspector");
    if !bin.exists() {
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
            .arg(&prefix)
            .arg("@modelcontextprotocol/inspector@2.12.0")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !installed {
            return None;
        }
    }
    bin.exists().then_some(bin)
}

/// A Python with the MCP SDK: `COUNCIL_MCP_PYTHON`, else a venv made once under the
/// target directory (`python3 -m venv` + `pip install 'mcp>=2,<3'`).
fn python_with_mcp() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COUNCIL_MCP_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let target = binary().parent()?.parent()?.to_path_buf();
    let venv = target.join("mcp-venv");
    let python = venv.join("bin/python");
    let ok = |p: &Path| {
        Command::new(p)
            .args(["-c", "import mcp.client.stdio"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if ok(&python) {
        return Some(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success());
    let installed = made
        && Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "mcp>=2,<3"])
            .status()
            .is_ok_and(|s| s.success());
    (installed && ok(&python)).then_some(python)
}

/// A measurement, not a check (benches/mcp.sh runs it in release): `report_context`
/// round trips against the fake GitHub, each one a validation, a comment list and an
/// edit.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: benches/mcp.sh"]
async fn mcp_report_round_trip_timing() {
    let gh = FakeGitHub::start().await;
    gh.issue(50, "Codertocat", "Agents: post your context reports here.");
    gh.writes_not_checked("a measurement");
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &["--registry-issue", "50"], dir.path());
    let mut times = Vec::new();
    for i in 0..50u64 {
        let report = json!({
            "agentId": "agent-a",
            "contextWindow": {"totalTokens": 1000 + i, "availableTokens": 150_000},
            "loadedProjects": [{"projectId": "app", "filesLoaded": 10, "sizeInTokens": 100}],
            "loadedTasks": [{"taskId": "T1", "relevantFiles": 2}],
            "capabilities": {"canStartImmediately": ["T1"], "needsContextLoad": []},
        });
        let t0 = std::time::Instant::now();
        let (error, text) = s.call("report_context", report);
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
        assert!(!error, "{text}");
    }
    times.sort_by(f64::total_cmp);
    println!(
        "report_context round trip against the fake GitHub: median {:.2} ms, p90 {:.2} ms ({} calls)",
        times[times.len() / 2],
        times[times.len() * 9 / 10],
        times.len()
    );
}

/// Without a Context Object comment, `verify_ledger` and `pr_status` take the newest
/// `audit-PR-<n>` artifact of a run of this repository's own code, as the ledger does;
/// a fork's run's artifact is never read.
#[tokio::test(flavor = "multi_thread")]
async fn verify_ledger_falls_back_to_an_own_runs_artifact_never_a_forks() {
    use crate::support::artifacts::{self, Artifact};
    use crate::support::ledgers::{self, HEAD_REF};

    const SHA: &str = "1111111111111111111111111111111111111111";
    for fork in [true, false] {
        let gh = FakeGitHub::start().await;
        gh.pr(7).head(HEAD_REF, SHA).base("develop");
        let stored = ledgers::ledger(
            7,
            "develop",
            SHA,
            "4242",
            &[("agent_guard", "check:branch-name", "PASS")],
            None,
        );
        let file = ledgers::audit_file(&stored);
        let artifact = match fork {
            true => Artifact::fork(50, 4242, file),
            false => Artifact::own(50, 4242, file),
        };
        artifacts::serve(&gh, 7, &[artifact]).await;
        gh.writes_not_checked("read-only tools");
        let dir = tempfile::tempdir().unwrap();
        let mut s = Session::start(&gh.uri(), &["--read-only"], dir.path());
        let (is_error, text) = s.call("verify_ledger", json!({"pr": 7}));
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        let (_, text) = s.call("pr_status", json!({"pr": 7}));
        let status: Value = serde_json::from_str(&text).unwrap();
        if fork {
            assert_eq!(answer["verified"], false, "{answer}");
            assert!(
                answer["notes"][0]
                    .as_str()
                    .unwrap()
                    .contains("1 audit artifact not read"),
                "{answer}"
            );
            assert_eq!(status["found"], false, "{status}");
        } else {
            assert_eq!(answer["verified"], true, "{answer}");
            assert_eq!(answer["from_artifact"], true);
            assert_eq!(
                answer["source"],
                "artifact 50 (`audit-PR-7`) uploaded by workflow run 4242"
            );
            assert_eq!(answer["entries"], 1);
            assert_eq!(status["found"], true, "{status}");
            assert_eq!(status["state"]["guard_status"], "PASS", "{status}");
        }
    }
}

/// `put_agent_state` and `get_agent_state` share `state put`/`state get`'s paths: a
/// memory that fills a comment to GitHub's limit is posted whole and reads back (it
/// was cut 512 characters short of the limit, losing `</agent-state>`), and a secret a
/// human left in a block is withheld from the answer, with a warning naming where.
#[tokio::test(flavor = "multi_thread")]
async fn state_tools_post_a_full_comment_whole_and_withhold_a_secret_they_read() {
    const SECRET: &str = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ";
    let gh = FakeGitHub::start().await;
    gh.issue(7, "Codertocat", "Login page.");
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &[], dir.path());
    let notes: Vec<String> = (0..4_000)
        .map(|i| format!("note {i}: {}", "😀".repeat(20)))
        .collect();
    let (error, text) = s.call(
        "put_agent_state",
        json!({"issue": 7, "step": "coding", "memory": {"notes": notes}}),
    );
    assert!(!error, "{text}");
    let posted = gh.posted().await;
    let chars = posted[0].chars().count();
    assert!((65_024..=65_536).contains(&chars), "{chars}");
    assert!(posted[0].contains("</agent-state>"));
    let (error, text) = s.call("get_agent_state", json!({"issue": 7}));
    assert!(!error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["state"]["step"], "coding", "{answer}");
    assert!(answer["state"]["memory"]["notes"].is_array(), "{answer}");
    assert_eq!(answer["warnings"], json!([]), "{answer}");

    gh.seed(
        7,
        "Codertocat",
        &format!(
            "<agent-state><step>waiting</step><input_request><status>waiting</status>\
             <question>Is {SECRET} the token?</question></input_request></agent-state>"
        ),
    );
    let (error, text) = s.call("get_agent_state", json!({"issue": 7}));
    assert!(!error, "{text}");
    assert!(!text.contains(&SECRET[4..]), "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["state"]["step"], "waiting", "{answer}");
    assert_eq!(answer["state"]["input_request"], Value::Null, "{answer}");
    assert_eq!(answer["withheld"][0]["element"], "input_request");
    assert!(
        answer["warnings"][0]
            .as_str()
            .unwrap()
            .contains("Withheld <input_request> (GitHub token)"),
        "{answer}"
    );
    gh.expect_writes(&["POST /issues/7/comments"]);
}
