//! The command line as a user meets it: each subcommand's own help, `--json` on every
//! command, `command` given twice, tokens and the HMAC key from the environment or a
//! file (never only an argument, which `ps` shows to every user), what a 401 says, and
//! one error style.

use serde_json::Value;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::WORKFLOW_TOKEN;
use crate::support::world::PrFile;
use crate::support::{Council, REPO, Run, data, pr_event};

const HEAD: &str = "feature/devops/PBI-001-login";
const SHA: &str = "1111111111111111111111111111111111111111";
const BAD_TOKEN: &str = "ghs_not_a_token_github_knows";

fn help(args: &[&str]) -> String {
    let run = Council::cli().args(args).run_blocking();
    run.assert_code(0);
    run.stdout
}

/// The long flag names a help text lists.
/// The flags a help text lists (its examples use them too, so they end the list).
fn flags_in(help: &str) -> Vec<&str> {
    let listed = help.split("\nExamples:").next().unwrap_or(help);
    listed
        .split_whitespace()
        .filter(|w| w.starts_with("--"))
        .map(|w| w.split(['[', '=', ',']).next().unwrap())
        .collect()
}

fn json(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    })
}

fn event_args() -> Vec<String> {
    vec![
        "--event".into(),
        data("events/pull_request.opened.json")
            .to_str()
            .unwrap()
            .into(),
        "--event-name".into(),
        "pull_request".into(),
    ]
}

fn with_event(council: Council) -> Council {
    let args = event_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    council.args(&args)
}

/// The fake world with PR 7 (well named, to develop, a docs change) and issue 1.
async fn world() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.file("develop", ".github/council.yml", "");
    let _ = gh
        .pr(7)
        .head(HEAD, SHA)
        .base("develop")
        .file(PrFile::added("docs/a.md", "a"));
    gh.issue(1, "Codertocat", "Fix the typo in the README.");
    gh
}

/// A CLI run against the fake world, the token in `GH_TOKEN` as the README shows.
fn cli(gh: &FakeGitHub) -> Council {
    Council::cli()
        .api(&gh.uri())
        .env("GH_TOKEN", WORKFLOW_TOKEN)
}

// ------------------------------------------------------------------------------ help

#[test]
fn a_subcommands_help_lists_only_its_flags() {
    insta::assert_snapshot!(help(&["guard", "--help"]), @"
    Branch-name and target-branch gates on a pull request

    Usage: council guard [OPTIONS]

    Options:
          --event <FILE>              The event payload file (default: $GITHUB_EVENT_PATH)
          --event-name <NAME>         The event name, e.g. pull_request (default: $GITHUB_EVENT_NAME)
          --pr <N>                    The pull request to act on, read through the API (default: the event's)
          --github-token <TOKEN>      GitHub API token (default: $GH_TOKEN, else $GITHUB_TOKEN)
          --repo <OWNER/NAME>         owner/name (default: $GITHUB_REPOSITORY, else the event's repository)
          --policy <PATH>             Policy file (default: .github/council.yml if present, else the built-in policy)
          --close-on-fail[=<BOOL>]    Close the pull request with an explanatory comment when the guard fails
          --dry-run[=<BOOL>]          Decide and report; make no write call to the GitHub API
          --hmac-key <KEY>            HMAC-SHA256 key of timeline entries (default: $COUNCIL_HMAC_KEY)
          --hmac-key-file <PATH>      File holding the HMAC key, not readable by other users (default: $COUNCIL_HMAC_KEY_FILE)
          --upload-artifact[=<BOOL>]  Upload the audit file as an artifact (inside GitHub Actions)
          --retention-days <DAYS>     Artifact retention in days
          --database-url <URL>        Also write the Context Object to this audit store once the ledger comment holds it (default: $COUNCIL_DATABASE_URL, else none)
          --json                      Print the result as JSON (one object per line)
      -h, --help                      Print help

    Examples:
      council guard --event examples/pull_request.opened.json --dry-run
      council guard --repo octo-org/app --pr 42 --dry-run
      council guard --repo octo-org/app --pr 42 --policy .github/council.yml --json

    Secrets: the GitHub token comes from GH_TOKEN or GITHUB_TOKEN (--github-token overrides them). The HMAC key comes from COUNCIL_HMAC_KEY, or from a file: --hmac-key-file or COUNCIL_HMAC_KEY_FILE (--hmac-key overrides them). A flag's value is visible to other users in `ps`: prefer the environment or the key file.
    ");
    insta::assert_snapshot!(help(&["verify", "--help"]), @"
    Check the hash chain and signatures of an audit file

    Usage: council verify [OPTIONS] <FILE>

    Arguments:
      <FILE>  The Context Object file (`out/audit/PR-<n>.json`)

    Options:
          --with <OLD_FILE>...    Earlier audit files that hold the entries FILE leaves out (`timeline_omitted`)
          --allow-partial         Pass a file that leaves entries out without proving them (says how many)
          --hmac-key <KEY>        HMAC-SHA256 key of timeline entries (default: $COUNCIL_HMAC_KEY)
          --hmac-key-file <PATH>  File holding the HMAC key, not readable by other users (default: $COUNCIL_HMAC_KEY_FILE)
          --json                  Print the result as JSON (one object per line)
      -h, --help                  Print help

    Examples:
      council verify out/audit/PR-7.json
      council verify out/audit/PR-7.json --with old/PR-7.json --hmac-key-file ~/.council-key

    Secrets: The HMAC key comes from COUNCIL_HMAC_KEY, or from a file: --hmac-key-file or COUNCIL_HMAC_KEY_FILE (--hmac-key overrides them). A flag's value is visible to other users in `ps`: prefer the environment or the key file.
    ");
    insta::assert_snapshot!(help(&["context", "show", "--help"]), @"
    One file's fields, unknown keys and body (`--json` for machines)

    Usage: council context show [OPTIONS] <PATH>

    Arguments:
      <PATH>  The ASSISTANT_CONTEXT file

    Options:
          --json  Print the result as JSON (one object per line)
      -h, --help  Print help

    Examples:
      council context show ASSISTANT_CONTEXT.md
      council context show ASSISTANT_CONTEXT.yaml --json
    ");
}

#[test]
fn each_subcommand_has_the_flags_that_apply_to_it() {
    let state_get = help(&["state", "get", "--help"]);
    assert_eq!(
        flags_in(&state_get),
        [
            "--issue",
            "--github-token",
            "--repo",
            "--event",
            "--event-name",
            "--policy",
            "--trusted-authors",
            "--json",
            "--help",
        ],
        "{state_get}"
    );
    let release = help(&["release", "--help"]);
    let release = flags_in(&release);
    assert!(release.contains(&"--release-token") && !release.contains(&"--close-on-fail"));
    let put = help(&["state", "put", "--help"]);
    let put = flags_in(&put);
    for flag in ["--intent", "--memory", "--allow-secrets", "--dry-run"] {
        assert!(put.contains(&flag), "{flag}: {put:?}");
    }
    for flag in ["--hmac-key", "--close-on-fail", "--release-token", "--pr"] {
        assert!(!put.contains(&flag), "{flag}: {put:?}");
    }
    // The top level is the action: every input, and where secrets come from.
    let top = help(&["--help"]);
    for flag in [
        "--command",
        "--intent",
        "--registry-issue",
        "--hmac-key-file",
    ] {
        assert!(flags_in(&top).contains(&flag), "{flag}");
    }
    assert!(top.contains("GH_TOKEN") && top.contains("COUNCIL_HMAC_KEY"));
}

// ------------------------------------------------------------------------ --command

#[tokio::test(flavor = "multi_thread")]
async fn command_together_with_a_subcommand_is_bad_usage() {
    for args in [
        &["guard", "--command", "review"][..],
        &["--command", "review", "guard"],
    ] {
        let run = with_event(Council::cli().args(args)).run().await;
        run.assert_code(2);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
    let run = with_event(Council::cli().args(&["guard"]))
        .env("INPUT_COMMAND", "review")
        .run()
        .await;
    run.assert_code(2);
    assert!(
        run.stderr.starts_with("error: the command is given twice")
            && run.stderr.contains("council guard"),
        "{}",
        run.stderr
    );
    // An empty input is unset: the guard runs (and fails on the fixture's branch).
    let run = with_event(Council::cli().args(&["guard", "--dry-run"]))
        .env("INPUT_COMMAND", "")
        .run()
        .await;
    run.assert_code(1);
    assert!(run.stdout.starts_with("guard FAIL on #2"), "{}", run.stdout);
}

// ---------------------------------------------------------------------------- --json

#[tokio::test(flavor = "multi_thread")]
async fn guard_prints_its_result_as_json() {
    let run = with_event(Council::cli().args(&["guard", "--json"]))
        .run()
        .await;
    run.assert_code(1);
    let out = json(&run);
    assert_eq!(out["command"], "guard");
    assert_eq!(out["exit_code"], 1);
    assert_eq!(out["outputs"]["guard-status"], "FAIL");
    assert_eq!(out["outputs"]["review-status"], "PENDING");
    assert_eq!(
        out["outputs"]["context"]["gates"]["naming_convention"], "FAIL",
        "context is the object, not a string"
    );
    assert_eq!(out["outputs"]["audit-path"], "out/audit/PR-2.json");
    let gates = &out["stages"][0]["gates"];
    assert_eq!(gates[0]["gate"], "naming_convention");
    assert_eq!(gates[0]["result"], "FAIL");
    assert!(gates[0]["fix"]["advice"].is_string(), "{gates}");
    assert!(out["effects"].is_array() && out["error"].is_null());

    // A passing guard, through the same event with a well-named branch.
    let run = Council::cli()
        .args(&["guard", "--json"])
        .event("pull_request", pr_event("opened", HEAD, "develop"))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(json(&run)["outputs"]["guard-status"], "PASS");
}

#[tokio::test(flavor = "multi_thread")]
async fn review_dry_run_prints_its_result_as_json() {
    let gh = world().await;
    let run = cli(&gh)
        .args(&["review", "--pr", "7", "--repo", REPO, "--dry-run", "--json"])
        .run()
        .await;
    run.assert_code(0);
    let out = json(&run);
    assert_eq!(out["pull_request"]["number"], 7);
    assert_eq!(out["outputs"]["guard-status"], "PASS");
    assert_eq!(out["outputs"]["review-status"], "APPROVED");
    let stages: Vec<&str> = out["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages, ["guard", "review"]);
    assert!(
        out["effects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["result"] != "done"),
        "a dry run does nothing: {}",
        out["effects"]
    );
    assert!(gh.take_writes().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn verify_prints_its_report_as_json() {
    let guard = with_event(Council::cli().args(&["guard"]))
        .env("COUNCIL_HMAC_KEY", "k3y")
        .run()
        .await;
    let file = guard.workspace.path().join("out/audit/PR-2.json");
    let file = file.to_str().unwrap();
    let run = Council::cli()
        .env("COUNCIL_HMAC_KEY", "k3y")
        .args(&["verify", file, "--json"])
        .run()
        .await;
    run.assert_code(0);
    let out = json(&run);
    assert_eq!(out["verified"], true);
    assert_eq!(out["signatures_checked"], true);
    assert!(out["entries"].as_u64().unwrap() >= 2, "{out}");
    assert!(out["head_hash"].as_str().unwrap().starts_with("sha256:"));

    // Tampering is a result too: exit 1, the problem in JSON, the error on stderr.
    let run = Council::cli()
        .env("COUNCIL_HMAC_KEY", "not-the-key")
        .args(&["verify", file, "--json"])
        .run()
        .await;
    run.assert_code(1);
    let out = json(&run);
    assert_eq!(out["verified"], false);
    assert!(
        out["problem"].as_str().unwrap().contains("signature"),
        "{out}"
    );
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn state_get_context_show_and_assign_print_json() {
    let gh = world().await;
    let run = cli(&gh)
        .args(&["state", "get", "--issue", "1", "--repo", REPO, "--json"])
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(json(&run)["state"]["step"], "planning");

    let run = Council::cli()
        .workspace_file(
            "ASSISTANT_CONTEXT.md",
            "---\nid: ctx-1\nstatus: active\n---\nNotes.\n",
        )
        .args(&["context", "show", "ASSISTANT_CONTEXT.md", "--json"])
        .run()
        .await;
    run.assert_code(0);
    assert!(run.stdout.contains("ctx-1"));
    json(&run);

    gh.issue(50, "Codertocat", "Agents: post your context reports here.");
    let run = cli(&gh)
        .args(&[
            "assign",
            "--issue",
            "1",
            "--registry-issue",
            "50",
            "--repo",
            REPO,
            "--json",
        ])
        .run()
        .await;
    run.assert_code(0);
    assert!(json(&run)["ranking"].is_array());
    assert!(gh.take_writes().is_empty());
}

// ------------------------------------------------------------------ tokens and keys

#[tokio::test(flavor = "multi_thread")]
async fn the_token_comes_from_gh_token_else_github_token() {
    let gh = world().await;
    let state_get = || {
        Council::cli()
            .api(&gh.uri())
            .args(&["state", "get", "--issue", "1", "--repo", REPO])
    };
    for var in ["GH_TOKEN", "GITHUB_TOKEN"] {
        let run = state_get().env(var, WORKFLOW_TOKEN).run().await;
        run.assert_code(0);
        run.assert_no_secret(WORKFLOW_TOKEN);
        assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    }
    // GH_TOKEN first (as `gh` reads them): a bad one there is what is used.
    let run = state_get()
        .env("GH_TOKEN", BAD_TOKEN)
        .env("GITHUB_TOKEN", WORKFLOW_TOKEN)
        .run()
        .await;
    run.assert_code(3);
    // The flag (or INPUT_GITHUB-TOKEN) beats both, with a warning about `ps`.
    let run = state_get()
        .env("GH_TOKEN", BAD_TOKEN)
        .args(&["--github-token", WORKFLOW_TOKEN])
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("warning: council: --github-token was given on the command line")
            && run.stderr.contains("GH_TOKEN"),
        "{}",
        run.stderr
    );
    run.assert_no_secret(WORKFLOW_TOKEN);
    // No token anywhere: the fix names the variables.
    let run = state_get().run().await;
    run.assert_code(2);
    assert!(
        run.stderr.starts_with("error: ") && run.stderr.contains("GH_TOKEN"),
        "{}",
        run.stderr
    );
}

fn private_file(dir: &std::path::Path, name: &str, text: &str, mode: u32) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_hmac_key_comes_from_the_environment_or_a_private_file() {
    let keys = tempfile::tempdir().unwrap();
    let key_file = private_file(keys.path(), "hmac.key", "k3y\n", 0o600);
    let guard = with_event(Council::cli().args(&["guard", "--hmac-key-file", &key_file]))
        .run()
        .await;
    guard.assert_code(1);
    guard.assert_no_secret("k3y");
    let audit = guard.audit(2);
    assert!(
        audit["timeline"][0]["signature"]
            .as_str()
            .unwrap()
            .starts_with("hmac-sha256:")
    );
    let file = guard.workspace.path().join("out/audit/PR-2.json");
    let file = file.to_str().unwrap();
    let verify = || Council::cli().args(&["verify", file]);
    verify()
        .env("COUNCIL_HMAC_KEY", "k3y")
        .run()
        .await
        .assert_code(0);
    verify()
        .env("COUNCIL_HMAC_KEY_FILE", &key_file)
        .run()
        .await
        .assert_code(0);
    verify()
        .env("COUNCIL_HMAC_KEY", "other")
        .run()
        .await
        .assert_code(1);
    // A key file others may read is refused, naming the fix and never the key.
    let open = private_file(keys.path(), "open.key", "k3y", 0o644);
    let run = verify().args(&["--hmac-key-file", &open]).run().await;
    run.assert_code(2);
    assert!(
        run.stderr.starts_with("error: --hmac-key-file ") && run.stderr.contains("chmod 600"),
        "{}",
        run.stderr
    );
    run.assert_no_secret("k3y");
}

/// The command lines of the README and the book are what people copy: none may put a
/// secret where `ps` shows it, and the docs say where secrets come from instead.
#[test]
fn the_documented_examples_keep_secrets_off_the_command_line() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs/src")).unwrap() {
        let path = entry.unwrap().path();
        // cli.md is `--help`, generated: it names every flag, which is its job.
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("cli.md") {
            docs.push(path);
        }
    }
    docs.sort();
    let readme = docs
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut in_code = false;
    let mut commands = 0;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let invokes = line.trim_start().starts_with("council ")
            || line.contains("$ council ")
            || line.contains("run: council ");
        if !invokes || !in_code {
            continue;
        }
        commands += 1;
        for flag in ["--github-token", "--release-token", "--hmac-key "] {
            assert!(
                !line.contains(flag),
                "a documented example passes {flag}: {line}"
            );
        }
        assert!(!line.contains("--hmac-key="), "{line}");
    }
    assert!(
        commands >= 10,
        "examples found in the README and the book: {commands}"
    );
    for name in [
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "COUNCIL_HMAC_KEY",
        "--hmac-key-file",
        "COUNCIL_RELEASE_TOKEN",
    ] {
        assert!(
            readme.contains(name),
            "neither the README nor the book mentions {name}"
        );
    }
}

// ---------------------------------------------------------------- 401 and error style

#[tokio::test(flavor = "multi_thread")]
async fn a_401_says_the_token_is_invalid_not_that_it_lacks_a_permission() {
    let gh = world().await;
    let checks = |run: &Run, text: &str| {
        run.assert_code(3);
        assert!(
            text.contains("401") && text.contains("token is invalid, expired or revoked"),
            "{text}"
        );
        assert!(!text.contains("lacks a permission"), "{text}");
        run.assert_no_secret(BAD_TOKEN);
    };
    // state get: the read of the issue.
    let run = Council::cli()
        .api(&gh.uri())
        .env("GH_TOKEN", BAD_TOKEN)
        .args(&["state", "get", "--issue", "1", "--repo", REPO])
        .run()
        .await;
    checks(&run, &run.stderr);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(run.stderr.contains("GH_TOKEN"), "{}", run.stderr);
    // review --pr: the read of the pull request.
    let run = Council::cli()
        .api(&gh.uri())
        .env("GH_TOKEN", BAD_TOKEN)
        .args(&["review", "--pr", "7", "--repo", REPO, "--dry-run"])
        .run()
        .await;
    checks(&run, &run.stderr);
    // The guard decides without the API on the CLI: its verdict stands (exit 1), and the
    // ledger comment that could not be written says why, not "identity unknown".
    let run = with_event(
        Council::cli()
            .api(&gh.uri())
            .env("GH_TOKEN", BAD_TOKEN)
            .args(&["guard"]),
    )
    .run()
    .await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("warning: council ledger:")
            && run
                .stderr
                .contains("401 Bad credentials. The token is invalid"),
        "{}",
        run.stderr
    );
    // The action: the policy read on the base branch; an annotation and the summary.
    let run = Council::action()
        .api(&gh.uri())
        .input("github-token", BAD_TOKEN)
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    let annotations = run.annotations().join("\n");
    checks(&run, &annotations);
    assert!(annotations.starts_with("::error title="), "{annotations}");
    assert!(run.summary.contains("invalid"), "{}", run.summary);
    assert_eq!(run.output("guard-status"), "PENDING");
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_read_the_same_on_every_command() {
    // Usage errors from the parser, from the settings and from a command: one
    // `error: ` line first, saying what to do.
    let cases: [(&[&str], &str); 4] = [
        (&["guard", "--frobnicate"], "--frobnicate"),
        (&["guard", "--dry-run=maybe"], "use true or false"),
        (&["state", "get", "--repo", REPO], "--issue N"),
        (&["verify", "missing.json"], "missing.json"),
    ];
    for (args, says) in cases {
        let run = Council::cli().args(args).run().await;
        run.assert_code(2);
        assert!(
            run.stderr.starts_with("error: ") && run.stderr.contains(says),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stderr.matches("error:").count(), 1, "{}", run.stderr);
    }
}
