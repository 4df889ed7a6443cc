//! The authoring tools as a new user runs them: `init` in a fresh repository, `policy
//! check` on what it wrote, completions and man pages. No API: nothing is served.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{RUN_TIMEOUT, binary, output_within};

fn council(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(binary());
    cmd.current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GH_TOKEN")
        .env_remove("GITHUB_TOKEN")
        // A temporary directory inside someone's checkout is still not a repository.
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir));
    output_within(cmd, RUN_TIMEOUT)
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn init_writes_a_policy_and_workflows_and_never_overwrites_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = council(
        dir.path(),
        &["init", "--action", "octo-org/agent-council@v1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for file in [
        ".github/council.yml",
        ".github/workflows/council-guard.yml",
        ".github/workflows/council.yml",
    ] {
        let written = std::fs::read_to_string(dir.path().join(file)).unwrap();
        if file.contains("workflows") {
            assert!(
                written.contains("uses: octo-org/agent-council@v1"),
                "{file}"
            );
        }
    }
    assert!(
        !dir.path()
            .join(".github/workflows/council-apply.yml")
            .exists()
    );

    // Edited by the user, then init again: refused, the edit kept, every clash named.
    let policy = dir.path().join(".github/council.yml");
    std::fs::write(&policy, "version: 1\n").unwrap();
    let again = council(dir.path(), &["init", "--two-phase"]);
    assert_eq!(again.status.code(), Some(2));
    let stderr = text(&again.stderr);
    assert!(stderr.contains(".github/council.yml, .github/workflows/council-guard.yml"));
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), "version: 1\n");
    assert!(
        !dir.path()
            .join(".github/workflows/council-apply.yml")
            .exists()
    );

    let forced = council(dir.path(), &["init", "--two-phase", "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(
        dir.path()
            .join(".github/workflows/council-apply.yml")
            .exists()
    );
    assert_ne!(std::fs::read_to_string(&policy).unwrap(), "version: 1\n");
}

#[test]
fn init_from_branches_proposes_rules_today_s_branches_pass() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(
        dir.path(),
        &["commit", "-q", "--allow-empty", "-m", "start"],
    );
    let branches = ["develop", "feature/login", "fix-typo", "fix-ci", "wip"];
    for branch in branches {
        git(dir.path(), &["branch", branch]);
    }
    let out = council(dir.path(), &["init", "--from-branches"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not covered (rename them, or add a rule): wip"));

    let check = council(
        dir.path(),
        &[
            "policy",
            "check",
            "--branch",
            "feature/login",
            "--branch",
            "fix-typo",
            "--target",
            "develop",
        ],
    );
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    let stdout = text(&check.stdout);
    assert!(
        stdout.starts_with(".github/council.yml: valid\n"),
        "{stdout}"
    );
    assert!(stdout.contains("feature/login  pass"), "{stdout}");

    let wip = council(dir.path(), &["policy", "check", "--branch", "wip"]);
    assert_eq!(wip.status.code(), Some(1));
    assert!(text(&wip.stdout).contains("wip: Branch \"wip\" matches no naming rule"));
}

#[test]
fn from_branches_outside_a_git_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = council(dir.path(), &["init", "--from-branches"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--from-branches"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.path().join(".github").exists());
}

#[test]
fn policy_check_names_the_file_line_and_field_of_a_bad_policy() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.yml"),
        "branches:\n  rules:\n    - patern: \"x/*\"\n",
    )
    .unwrap();
    let out = council(dir.path(), &["policy", "check", "p.yml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("p.yml:3:"), "{stderr}");
    assert!(stderr.contains("patern"), "{stderr}");

    let missing = council(dir.path(), &["policy", "check", "nope.yml"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn policy_check_json_is_one_object_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = council(
        dir.path(),
        &[
            "policy",
            "check",
            "--json",
            "--branch",
            "hotfix/INC-1-db",
            "--target",
            "main",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["branches"][0]["targets"]["main"]["passed"], true);
    assert_eq!(
        value["policy"],
        "default policy (no local .github/council.yml)"
    );
}

#[test]
fn completions_and_man_pages_come_from_the_cli_definition() {
    let dir = tempfile::tempdir().unwrap();
    let bash = council(dir.path(), &["completions", "bash"]);
    assert_eq!(bash.status.code(), Some(0));
    let script = text(&bash.stdout);
    assert!(script.contains("council") && script.contains("--from-branches"));

    let man = council(dir.path(), &["man", "man"]);
    assert_eq!(man.status.code(), Some(0), "{}", text(&man.stderr));
    let page = std::fs::read_to_string(dir.path().join("man/council-state-get.1")).unwrap();
    assert!(page.contains(".TH"), "{page}");
    assert!(dir.path().join("man/council.1").exists());
    assert!(dir.path().join("man/council-policy-check.1").exists());
}

#[test]
fn the_sample_context_report_is_valid() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/context-report.json"),
    )
    .unwrap();
    let report = council_protocol::context_report::parse_report(&text).unwrap();
    assert_eq!(report.agent_id, "claude-code-frontend");
}
