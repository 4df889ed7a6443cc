//! The offline walkthrough stays true: examples/fake-world/world.yml, served by the fake
//! `fake-github` is built from (in this process: a test binary can only run its own
//! package's binaries), examples/fake-world/walkthrough.sh run with this build's
//! `council`, the world checked afterwards, and docs/src/try-offline.md showing exactly
//! the commands the script ran, in its order.

use std::path::{Path, PathBuf};
use std::process::Command;

use council_fake_github::fixture::{self, Loaded};
use council_fake_github::routes::lock;
use council_fake_github::standalone::{self, Served};

use crate::support::{Council, RUN_TIMEOUT, binary, output_within};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn world_dir() -> PathBuf {
    root().join("examples/fake-world")
}

async fn serve(loaded: Loaded) -> (Served, Vec<(&'static str, String)>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let served = standalone::serve(loaded.world, listener, false).await;
    let env = loaded.environment.variables(&served.uri());
    (served, env)
}

/// The `council …` lines of the chapter's sh blocks between its walkthrough markers.
fn chapter_commands() -> Vec<String> {
    let chapter = std::fs::read_to_string(root().join("docs/src/try-offline.md")).unwrap();
    let start = chapter
        .find("<!-- walkthrough:")
        .expect("the walkthrough's start marker");
    let end = chapter
        .find("<!-- walkthrough: end -->")
        .expect("the walkthrough's end marker");
    let mut in_sh = false;
    let mut commands = Vec::new();
    for line in chapter[start..end].lines() {
        match line {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            _ if in_sh && line.starts_with("council ") => commands.push(line.to_string()),
            _ => {}
        }
    }
    commands
}

#[tokio::test(flavor = "multi_thread")]
async fn the_walkthrough_runs_every_command_against_the_example_world() {
    let loaded = fixture::load(&world_dir().join("world.yml")).unwrap();
    let (served, env) = serve(loaded).await;

    // The event `council run` reads is the world's pull request #2.
    let event: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(world_dir().join("pull_request.opened.json")).unwrap(),
    )
    .unwrap();
    {
        let w = lock(&served.world);
        let pr = w.pr(2).unwrap();
        let payload = &event["pull_request"];
        assert_eq!(payload["number"], 2);
        assert_eq!(payload["head"]["ref"], pr.head_ref.as_str());
        assert_eq!(payload["head"]["sha"], pr.head_sha.as_str());
        assert_eq!(payload["base"]["ref"], pr.base_ref.as_str());
        assert_eq!(payload["base"]["sha"], pr.base_sha.as_str());
        assert_eq!(payload["base"]["repo"]["full_name"], w.repo.as_str());
    }

    // `council` on PATH, as the chapter has users put it there.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(binary(), bin.path().join("council")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg(world_dir().join("walkthrough.sh"))
        .env_clear()
        .env("PATH", path)
        .env("WORK", work.path())
        .envs(env);
    let started = std::time::Instant::now();
    let out = tokio::task::spawn_blocking(move || output_within(cmd, RUN_TIMEOUT))
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "walkthrough.sh\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    eprintln!("the walkthrough took {:?}", started.elapsed());
    assert!(stdout.contains("every command ran as expected"), "{stdout}");

    let ran: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("$ "))
        .collect();
    assert_eq!(
        ran,
        chapter_commands(),
        "docs/src/try-offline.md shows the commands walkthrough.sh runs, in its order"
    );
    for said in [
        "guard PASS on #1",
        "review APPROVED on #1",
        "release ELIGIBLE on #1",
        "would merge pull request #1 into `develop` (squash)",
        "release MERGED on #1",
        "guard FAIL on #2",
        "progress       task list: 2 of 4 checked  50",
        "Recommended: agent-a",
    ] {
        assert!(
            stdout.contains(said),
            "the chapter says {said:?}:\n{stdout}"
        );
    }

    // What the world holds now.
    let w = lock(&served.world);
    let merged = w.pr(1).unwrap();
    assert!(merged.merged && !merged.open, "#1 is merged");
    assert_eq!(merged.merged_by.as_deref(), Some("council-release[bot]"));
    assert!(
        merged.labels.contains(&"bot-approved".to_string()),
        "{:?}",
        merged.labels
    );
    let failed = w.pr(2).unwrap();
    assert!(failed.open, "close-on-fail is off: #2 stays open");
    let bodies = |issue: u64| -> Vec<String> {
        w.comments
            .iter()
            .filter(|c| c["issue"] == issue)
            .map(|c| c["body"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(bodies(1).len(), 1, "one Context Object comment on #1");
    assert!(bodies(2)[0].contains("FAIL"), "{:?}", bodies(2));
    assert!(bodies(3)[0].contains("<agent-state>"), "{:?}", bodies(3));
    assert_eq!(bodies(4).len(), 2, "agent-b's report and agent-a's");
    assert_eq!(w.issues[&5].labels, ["agent:agent-a"]);
    let context = std::fs::read_to_string(work.path().join("ASSISTANT_CONTEXT.md")).unwrap();
    assert!(context.contains("status: active"), "{context}");
    assert!(work.path().join("out/audit/PR-1.json").is_file());
}

/// The chapter's "Your own world": what a red check, a request for changes and a token
/// in an added line do to #1.
#[tokio::test(flavor = "multi_thread")]
async fn the_chapters_edits_of_the_world_do_what_it_says() {
    let text = std::fs::read_to_string(world_dir().join("world.yml")).unwrap();
    let edited = text
        .replace("conclusion: success", "conclusion: failure")
        .replace("state: APPROVED", "state: CHANGES_REQUESTED")
        .replace(
            "              true\n",
            "              true\n          // token = \"ghp_R8x2KqLm9ZtW4vNc7YpB3sHd6JfG1aUeXo5T\"\n",
        );
    assert_ne!(edited, text);
    let loaded = fixture::parse(&edited, "world.yml", &world_dir()).unwrap();
    let (served, env) = serve(loaded).await;
    let policy = std::fs::read_to_string(world_dir().join("council.yml")).unwrap();
    let council = |args: &[&str]| {
        env.iter()
            .fold(Council::cli().args(args), |c, (name, value)| {
                c.env(name, value)
            })
            .workspace_file(".github/council.yml", &policy)
    };

    let review = council(&["review", "--pr", "1", "--dry-run"]).run().await;
    review.assert_code(1);
    assert!(
        review.stdout.contains(
            "secret_scan        FAIL     Found 1 secret in added lines: \"src/offline.rs\" line 4"
        ),
        "{}",
        review.stdout
    );

    let release = council(&["release", "--pr", "1", "--dry-run"]).run().await;
    release.assert_code(1);
    for said in [
        "pipeline_green     FAIL     1 red check",
        "merge_ready        PENDING  Waiting: ",
        "\"alice\" requested changes (their latest review)",
    ] {
        assert!(release.stdout.contains(said), "{said}: {}", release.stdout);
    }
    drop(served);
}
