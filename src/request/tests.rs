//! Command lines and environments → requests: what each value becomes, where secrets come
//! from, and what is refused (exit 2) before anything runs.

use std::path::{Path, PathBuf};

use council_protocol::command::Command;

use super::*;
use crate::cli::Cli;
use crate::cli::values::Direction;
use crate::env::{RunEnv, Vars};

/// The request, or the message of what refused it (the parser's or the resolver's) and
/// its exit code.
fn resolve_all(
    args: &[&str],
    env: &[(&str, &str)],
) -> std::result::Result<(Request, Vec<String>), (i32, String)> {
    let cli = Cli::parse_from_iter(args).map_err(|e| (e.exit_code(), e.to_string()))?;
    let vars = Vars::from_pairs(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let env = RunEnv::resolve(vars, PathBuf::from("/work"))
        .map_err(|e| (crate::exit::code(&e), e.to_string()))?;
    super::resolve(cli, &env).map_err(|e| (crate::exit::code(&e), e.to_string()))
}

fn resolve(args: &[&str], env: &[(&str, &str)]) -> std::result::Result<Request, (i32, String)> {
    resolve_all(args, env).map(|(r, _)| r)
}

fn auto_json(args: &[&str], env: &[(&str, &str)]) -> bool {
    match resolve(args, env).unwrap() {
        Request::Auto(a) => a.json,
        other => panic!("{other:?}"),
    }
}

fn pipeline(args: &[&str], env: &[(&str, &str)]) -> PipelineRequest {
    match resolve(args, env).unwrap() {
        Request::Pipeline(p) => *p,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_action_runs_auto_unless_its_command_names_one() {
    assert!(!auto_json(&["council"], &[]));
    assert!(matches!(
        resolve(&["council", "--command", "state-get"], &[]).unwrap(),
        Request::StateGet(_)
    ));
    let guard = pipeline(&["council", "--command", "guard"], &[]);
    assert_eq!((guard.command, guard.invoked_as), (Command::Guard, "guard"));
    assert!(matches!(
        resolve(&["council", "context", "show", "A.md", "--json"], &[]).unwrap(),
        Request::ContextShow(ContextShowRequest { path, json: true }) if path == Path::new("A.md")
    ));
    let (code, message) = resolve(&["council", "--command", "merge-everything"], &[]).unwrap_err();
    assert_eq!(code, 2);
    assert!(
        message.contains("unknown command `merge-everything`"),
        "{message}"
    );
}

#[test]
fn the_command_input_and_a_subcommand_together_are_an_error() {
    // `council guard --command review` is refused by the parser; the input can still
    // arrive through INPUT_COMMAND.
    let mut cli = Cli::parse_from_iter(["council", "guard"]).unwrap();
    cli.action.command = Some(crate::cli::values::CommandInput::Named(Command::Review));
    let env = RunEnv::resolve(Vars::default(), PathBuf::from("/work")).unwrap();
    let err = super::resolve(cli, &env).unwrap_err();
    assert_eq!(crate::exit::code(&err), 2);
    assert!(err.to_string().contains("given twice"), "{err}");
}

#[test]
fn defaults_outside_actions() {
    let guard = pipeline(&["council", "guard"], &[]);
    assert!(!guard.access.dry_run && !guard.close_on_fail && guard.upload.enabled);
    assert_eq!(guard.policy.path, ".github/council.yml");
    assert!(!guard.policy.explicit);
    assert_eq!(guard.upload.retention_days, None);
}

#[test]
fn booleans_are_strict() {
    assert!(
        pipeline(&["council", "guard", "--dry-run=TRUE"], &[])
            .access
            .dry_run
    );
    let (code, message) = resolve(&["council", "--dry-run=yes"], &[]).unwrap_err();
    assert_eq!(code, 2);
    assert!(message.contains("`yes` is not a boolean"), "{message}");
    assert!(
        !pipeline(&["council", "guard", "--upload-artifact=false"], &[])
            .upload
            .enabled
    );
}

#[test]
fn numbers_and_lists() {
    let get = match resolve(
        &[
            "council",
            "state",
            "get",
            "--issue",
            "#12",
            "--trusted-authors",
            "a, b\nrenovate[bot]",
        ],
        &[],
    )
    .unwrap()
    {
        Request::StateGet(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(get.target.issue, Some(12));
    assert_eq!(get.target.trusted_authors, vec!["a", "b", "renovate[bot]"]);
    assert_eq!(
        pipeline(&["council", "guard", "--retention-days", "7"], &[])
            .upload
            .retention_days,
        Some(7)
    );
    assert_eq!(
        pipeline(&["council", "guard", "--retention-days", "0"], &[])
            .upload
            .retention_days,
        None
    );
    assert!(resolve(&["council", "--issue", "twelve"], &[]).is_err());
    assert!(resolve(&["council", "--retention-days", "9999"], &[]).is_err());
}

#[test]
fn policy_paths_must_stay_in_the_repository_in_actions() {
    for bad in ["/etc/passwd", "../x.yml", ".github/../../x", "a\\b"] {
        let (code, _) =
            resolve(&["council", "--policy", bad], &[("GITHUB_ACTIONS", "true")]).unwrap_err();
        assert_eq!(code, 2, "{bad}");
    }
}

#[test]
fn direction_and_apply() {
    let sync = |args: &[&str]| match resolve(args, &[]).unwrap() {
        Request::ContextSync(r) => r.direction,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        sync(&[
            "council",
            "--command",
            "context-sync",
            "--direction",
            "to-issue"
        ]),
        Direction::ToIssue
    );
    assert_eq!(sync(&["council", "context", "sync"]), Direction::ToFile);
    assert_eq!(
        resolve(&["council", "--direction", "sideways"], &[])
            .unwrap_err()
            .0,
        2
    );
    let apply = |args: &[&str], env: &[(&str, &str)]| match resolve(args, env).unwrap() {
        Request::Assign(r) => r.apply,
        other => panic!("{other:?}"),
    };
    assert!(!apply(&["council", "assign"], &[]));
    assert!(apply(&["council", "assign", "--apply"], &[]));
    assert!(apply(&["council", "assign"], &[("GITHUB_ACTIONS", "true")]));
}

#[test]
fn a_mistyped_event_name_is_a_usage_error_naming_the_real_one() {
    let args = [
        "council",
        "--event",
        "e.json",
        "--event-name",
        "pull-request",
    ];
    let (code, message) = resolve(&args, &[]).unwrap_err();
    assert_eq!(code, 2);
    assert!(
        message.contains("`pull-request` is not a GitHub event name; did you mean `pull_request`?"),
        "{message}"
    );
    // The runner's own name is GitHub's: never second-guessed.
    let env = [
        ("GITHUB_EVENT_NAME", "made_up_event"),
        ("GITHUB_EVENT_PATH", "/e.json"),
    ];
    let Request::Auto(auto) = resolve(&["council"], &env).unwrap() else {
        panic!("auto")
    };
    assert_eq!(auto.event.unwrap().name, "made_up_event");
}

#[test]
fn half_an_event_is_a_usage_error() {
    assert!(resolve(&["council", "--event", "e.json"], &[]).is_err());
    assert!(resolve(&["council", "--event-name", "push"], &[]).is_err());
}

#[test]
fn secrets_do_not_show_in_debug() {
    let request = resolve(
        &[
            "council",
            "guard",
            "--github-token",
            "ghp_abc",
            "--hmac-key",
            "k3y",
        ],
        &[],
    )
    .unwrap();
    let debug = format!("{request:?}");
    assert!(
        !debug.contains("ghp_abc") && !debug.contains("k3y"),
        "{debug}"
    );
}

#[test]
fn tokens_come_from_the_flag_else_gh_token_else_github_token() {
    let token = |args: &[&str], env: &[(&str, &str)]| {
        pipeline(args, env)
            .access
            .token
            .map(|t| t.expose().to_string())
    };
    let both = [("GH_TOKEN", "gh"), ("GITHUB_TOKEN", "github")];
    assert_eq!(token(&["council", "guard"], &both).as_deref(), Some("gh"));
    assert_eq!(
        token(
            &["council", "guard"],
            &[("GH_TOKEN", ""), ("GITHUB_TOKEN", "github\n")]
        )
        .as_deref(),
        Some("github"),
        "empty counts as unset; a trailing newline is no part of a token"
    );
    assert_eq!(
        token(&["council", "guard", "--github-token", "flag"], &both).as_deref(),
        Some("flag")
    );
    assert_eq!(token(&["council", "guard"], &[]), None);
    assert_eq!(
        pipeline(&["council", "release"], &both).release_token,
        None,
        "never the workflow token: it must not merge"
    );
    let release = pipeline(&["council", "release"], &[("COUNCIL_RELEASE_TOKEN", "rel")]);
    assert_eq!(release.release_token.unwrap().expose(), "rel");
}

#[test]
fn secrets_given_as_arguments_are_warned_about() {
    let (_, warnings) = resolve_all(&["council", "guard", "--github-token", "t"], &[]).unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("GH_TOKEN") && !warnings[0].contains(" t "));
    let (_, none) = resolve_all(&["council", "guard"], &[("GH_TOKEN", "t")]).unwrap();
    assert!(none.is_empty());
}

fn key_file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = mode;
    path
}

fn verify_key(
    args: &[&str],
    env: &[(&str, &str)],
) -> std::result::Result<Option<String>, (i32, String)> {
    resolve(args, env).map(|r| match r {
        Request::Verify(v) => v.hmac_key.map(|k| k.expose().to_string()),
        Request::Pipeline(p) => p.hmac_key.map(|k| k.expose().to_string()),
        other => panic!("{other:?}"),
    })
}

#[test]
fn the_hmac_key_comes_from_the_flag_a_file_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = key_file(dir.path(), "key", "from-file\n", 0o600);
    let file = file.to_str().unwrap();
    let env = [("COUNCIL_HMAC_KEY", "from-env")];
    assert_eq!(
        verify_key(&["council", "guard"], &env).unwrap().as_deref(),
        Some("from-env")
    );
    assert_eq!(
        verify_key(&["council", "verify", "x", "--hmac-key-file", file], &env)
            .unwrap()
            .as_deref(),
        Some("from-file"),
        "a flag beats the environment; one trailing newline is not part of the key"
    );
    assert_eq!(
        verify_key(&["council", "verify", "x", "--hmac-key", "flag"], &env)
            .unwrap()
            .as_deref(),
        Some("flag")
    );
    assert_eq!(
        verify_key(&["council", "guard"], &[("COUNCIL_HMAC_KEY_FILE", file)])
            .unwrap()
            .as_deref(),
        Some("from-file")
    );
    let both = [("COUNCIL_HMAC_KEY", "k"), ("COUNCIL_HMAC_KEY_FILE", file)];
    assert_eq!(verify_key(&["council", "guard"], &both).unwrap_err().0, 2);
    assert_eq!(verify_key(&["council", "guard"], &[]).unwrap(), None);
}

#[cfg(unix)]
#[test]
fn a_key_file_must_be_private_regular_and_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    let err = |path: &Path, env: &[(&str, &str)]| {
        let args = [
            "council",
            "verify",
            "x",
            "--hmac-key-file",
            path.to_str().unwrap(),
        ];
        verify_key(&args, env).unwrap_err()
    };
    let open = key_file(dir.path(), "open", "k", 0o644);
    let (code, message) = err(&open, &[]);
    assert_eq!(code, 2);
    assert!(message.contains("chmod 600"), "{message}");
    assert!(!message.contains(": k"), "{message}");
    // Group-readable is allowed (a team's group), as are links to a private file.
    let group = key_file(dir.path(), "group", "k", 0o640);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&group, &link).unwrap();
    let args = [
        "council",
        "verify",
        "x",
        "--hmac-key-file",
        link.to_str().unwrap(),
    ];
    assert_eq!(verify_key(&args, &[]).unwrap().as_deref(), Some("k"));
    let empty = key_file(dir.path(), "empty", "\n", 0o600);
    assert!(err(&empty, &[]).1.contains("empty"));
    assert!(err(dir.path(), &[]).1.contains("not a regular file"));
    assert!(
        err(&dir.path().join("missing"), &[])
            .1
            .contains("cannot be read")
    );
    let big = key_file(dir.path(), "big", &"k".repeat(70_000), 0o600);
    assert!(err(&big, &[]).1.contains("larger than"));
    // In Actions, not from the workspace (a checkout may plant it), even via a link.
    let ws = dir.path().to_str().unwrap();
    let private = key_file(dir.path(), "private", "k", 0o600);
    let actions = [("GITHUB_ACTIONS", "true"), ("GITHUB_WORKSPACE", ws)];
    assert!(err(&private, &actions).1.contains("workspace"));
    let outside = tempfile::tempdir().unwrap();
    let planted = outside.path().join("planted");
    std::os::unix::fs::symlink(&private, &planted).unwrap();
    assert!(err(&planted, &actions).1.contains("workspace"));
}
