//! Test DSL: run the real `council` binary the way GitHub's runner runs a Docker action
//! (event file, INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, API at GITHUB_API_URL).

#![allow(dead_code)]

pub mod events;
pub mod ledgers;
pub mod postgres;

// The fake GitHub is its own crate (crates/fake-github), shared with `fake-github`, the
// offline world users try the commands on; the tests name its parts as before.
pub use council_fake_github::{
    REPO, artifacts, fake_github, faults, graphql, routes, tokens, world,
};

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_council::env::Vars;
use agent_council::invoke::invoke;
use agent_council::runner::Sink;

use serde_json::Value;

pub fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

pub fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(data(&format!("events/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The real PR payload with another head/base.
pub fn pr_event(action: &str, head: &str, base: &str) -> Value {
    let mut v = fixture(&format!("pull_request.{action}"));
    v["pull_request"]["head"]["ref"] = head.into();
    v["pull_request"]["base"]["ref"] = base.into();
    v
}

pub struct Council {
    args: Vec<String>,
    env: Vec<(String, String)>,
    event: Option<(String, EventBody)>,
    workspace: tempfile::TempDir,
    /// In a process of its own (the binary), not in this one.
    process: bool,
}

enum EventBody {
    Json(Value),
    Raw(String),
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: BTreeMap<String, String>,
    pub summary: String,
    pub workspace: tempfile::TempDir,
}

impl Council {
    /// A run inside "GitHub Actions" (GITHUB_ACTIONS=true) with the usual runner variables.
    pub fn action() -> Council {
        let workspace = tempfile::tempdir().unwrap();
        let env = vec![
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", REPO),
            ("GITHUB_REPOSITORY_ID", "186853002"),
            ("GITHUB_RUN_ID", "1001"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            ("GITHUB_JOB", "council"),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("COUNCIL_RETRY_BASE_MS", "1"),
            ("INPUT_COMMAND", "auto"),
            ("INPUT_GITHUB-TOKEN", "ghs_test_token_value"),
            ("INPUT_POLICY", ".github/council.yml"),
            ("INPUT_CLOSE-ON-FAIL", "false"),
            ("INPUT_DRY-RUN", "false"),
            ("INPUT_UPLOAD-ARTIFACT", "true"),
            ("INPUT_HMAC-KEY", ""),
            ("INPUT_RETENTION-DAYS", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Council {
            args: Vec::new(),
            env,
            event: None,
            workspace,
            process: false,
        }
    }

    /// A local CLI run (no runner variables).
    pub fn cli() -> Council {
        Council {
            args: Vec::new(),
            env: vec![("COUNCIL_RETRY_BASE_MS".into(), "1".into())],
            event: None,
            workspace: tempfile::tempdir().unwrap(),
            process: false,
        }
    }

    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|s| s.to_string()));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    pub fn input(self, name: &str, value: &str) -> Self {
        let key = format!("INPUT_{}", name.to_uppercase());
        self.env(&key, value)
    }

    /// `command: state-get` on `issue`, as a workflow step on the world at `api` runs it.
    pub fn state_get(api: &str, issue: u64) -> Council {
        Council::action()
            .api(api)
            .input("command", "state-get")
            .input("issue", &issue.to_string())
    }

    /// `command: state-put` on `issue` (the fields are inputs the test adds).
    pub fn state_put(api: &str, issue: u64) -> Council {
        Council::action()
            .api(api)
            .input("command", "state-put")
            .input("issue", &issue.to_string())
    }

    /// The `release-token` input set to the world's release token (the one that may merge).
    pub fn release_token(self) -> Self {
        self.input("release-token", tokens::RELEASE_TOKEN)
    }

    pub fn api(self, uri: &str) -> Self {
        self.env("GITHUB_API_URL", uri)
            .env("GITHUB_GRAPHQL_URL", &format!("{uri}/graphql"))
    }

    pub fn event(mut self, name: &str, payload: Value) -> Self {
        self.event = Some((name.to_string(), EventBody::Json(payload)));
        self
    }

    pub fn raw_event(mut self, name: &str, text: &str) -> Self {
        self.event = Some((name.to_string(), EventBody::Raw(text.to_string())));
        self
    }

    /// A file in the workspace (e.g. a head-branch policy that must be ignored).
    pub fn workspace_file(self, path: &str, text: &str) -> Self {
        let full = self.workspace.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
        self
    }

    pub fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    /// Runs it as the binary the runner starts (`council` in a process of its own), for
    /// what only a process can show: its exit status, its streams, its environment.
    pub fn process(mut self) -> Self {
        self.process = true;
        self
    }

    /// Runs the app in this process (the same `invoke` the binary runs, its output
    /// captured), unless the test asks for a process or `COUNCIL_BIN` names a binary to
    /// test.
    pub async fn run(self) -> Run {
        if self.process || std::env::var_os("COUNCIL_BIN").is_some() {
            return tokio::task::spawn_blocking(move || self.run_blocking())
                .await
                .unwrap();
        }
        let prepared = self.prepare();
        let (sink, captured) = Sink::capture();
        let vars = Vars::from_pairs(prepared.env.clone());
        let cwd = prepared.cwd.clone();
        let args = prepared.args.clone();
        let code = tokio::time::timeout(RUN_TIMEOUT, invoke(&args, vars, cwd, sink))
            .await
            .unwrap_or_else(|_| panic!("council did not finish within {RUN_TIMEOUT:?}"));
        let take = |m: &std::sync::Mutex<String>| std::mem::take(&mut *m.lock().unwrap());
        prepared.finish(code, take(&captured.stdout), take(&captured.stderr))
    }

    /// Runs the binary in a process of its own, and waits for it.
    pub fn run_blocking(self) -> Run {
        let prepared = self.prepare();
        let mut cmd = Command::new(binary());
        cmd.env_clear()
            .current_dir(&prepared.cwd)
            .args(prepared.args.iter().skip(1))
            .envs(prepared.env.iter().cloned());
        let out = output_within(cmd, RUN_TIMEOUT);
        prepared.finish(
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The command line and environment the runner would give, and where it writes.
    fn prepare(self) -> Prepared {
        let home = tempfile::tempdir().unwrap();
        let output = home.path().join("github_output");
        let summary = home.path().join("step_summary");
        let mut args: Vec<OsString> = vec!["council".into()];
        args.extend(self.args.iter().map(OsString::from));
        let mut env = self.env.clone();
        let is_action = self
            .env
            .iter()
            .any(|(k, v)| k == "GITHUB_ACTIONS" && v == "true");
        let path = |p: &Path| p.to_string_lossy().into_owned();
        if is_action {
            env.push(("GITHUB_WORKSPACE".into(), path(self.workspace.path())));
            env.push(("GITHUB_OUTPUT".into(), path(&output)));
            env.push(("GITHUB_STEP_SUMMARY".into(), path(&summary)));
        }
        if let Some((name, body)) = &self.event {
            let event = home.path().join("event.json");
            let text = match body {
                EventBody::Json(v) => serde_json::to_string_pretty(v).unwrap(),
                EventBody::Raw(t) => t.clone(),
            };
            std::fs::write(&event, text).unwrap();
            if is_action {
                env.push(("GITHUB_EVENT_NAME".into(), name.clone()));
                env.push(("GITHUB_EVENT_PATH".into(), path(&event)));
            } else {
                args.extend(["--event".into(), event.into_os_string()]);
                args.extend(["--event-name".into(), name.into()]);
            }
        }
        Prepared {
            cwd: self.workspace.path().to_path_buf(),
            args,
            env,
            output,
            summary,
            workspace: self.workspace,
            _home: home,
        }
    }
}

/// A run about to start: its command line, environment and working directory, and the
/// files the runner would read afterwards.
struct Prepared {
    cwd: PathBuf,
    args: Vec<OsString>,
    env: Vec<(String, String)>,
    output: PathBuf,
    summary: PathBuf,
    workspace: tempfile::TempDir,
    _home: tempfile::TempDir,
}

impl Prepared {
    fn finish(self, code: i32, stdout: String, stderr: String) -> Run {
        Run {
            code,
            stdout,
            stderr,
            outputs: parse_outputs(&std::fs::read_to_string(&self.output).unwrap_or_default()),
            summary: std::fs::read_to_string(&self.summary).unwrap_or_default(),
            workspace: self.workspace,
        }
    }
}

impl Run {
    pub fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| {
                panic!(
                    "no output `{name}`; outputs: {:?}\nstdout: {}\nstderr: {}",
                    self.outputs, self.stdout, self.stderr
                )
            })
    }

    pub fn audit(&self, pr: u64) -> Value {
        let path = self
            .workspace
            .path()
            .join(format!("out/audit/PR-{pr}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// `::error`/`::warning`/`::notice` lines.
    pub fn annotations(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| {
                l.starts_with("::error") || l.starts_with("::warning") || l.starts_with("::notice")
            })
            .collect()
    }

    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}\nsummary:\n{}",
            self.stdout, self.stderr, self.summary
        );
        self
    }

    /// Nothing the run printed or wrote may contain a secret.
    pub fn assert_no_secret(&self, secret: &str) {
        assert!(!self.stdout.contains(secret), "secret in stdout");
        assert!(!self.stderr.contains(secret), "secret in stderr");
        assert!(!self.summary.contains(secret), "secret in summary");
        assert!(
            !self.outputs.values().any(|v| v.contains(secret)),
            "secret in outputs"
        );
        for entry in walk(self.workspace.path()) {
            let text = std::fs::read_to_string(&entry).unwrap_or_default();
            assert!(!text.contains(secret), "secret in {}", entry.display());
        }
    }
}

/// Longer than any run of the product takes (its own deadline for all waiting together
/// is 5 minutes, and tests shorten retries to a millisecond): a run still going after
/// this is a hang, and fails the test instead of stalling the suite.
pub const RUN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `cmd` to the end like `Command::output`, killing it (and failing the test, with
/// what it printed so far) when it takes longer than `limit`.
pub fn output_within(mut cmd: Command, limit: std::time::Duration) -> std::process::Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("council starts");
    // Both pipes drain on their own threads, so a chatty run never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("council's status") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let out = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned();
            let err = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
            panic!("council did not finish within {limit:?}\nstdout:\n{out}\nstderr:\n{err}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The binary under test: this build's, or `COUNCIL_BIN` (benches/release.sh points it at
/// the release build to measure what users run).
/// Each timeline entry of an audit file as the named fields joined by spaces:
/// `timeline(&audit, &["action", "result"])` gives `"check:branch-name FAIL"`, ….
pub fn timeline(audit: &Value, fields: &[&str]) -> Vec<String> {
    audit["timeline"]
        .as_array()
        .expect("an audit file has a timeline")
        .iter()
        .map(|e| {
            fields
                .iter()
                .map(|f| {
                    e[*f]
                        .as_str()
                        .unwrap_or_else(|| panic!("entry without {f}: {e}"))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

pub fn binary() -> PathBuf {
    std::env::var_os("COUNCIL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_council")))
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Reads `name<<DELIM\nvalue\nDELIM` blocks (and plain `name=value` lines).
pub fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                value.push(l);
            }
            out.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_string(), value.to_string());
        }
    }
    out
}
