//! action.yml and the CLI describe one input surface; they must not drift apart.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Action {
    inputs: BTreeMap<String, Input>,
    outputs: BTreeMap<String, Output>,
    runs: Runs,
}

#[derive(Deserialize)]
struct Runs {
    using: String,
    image: String,
}

#[derive(Deserialize)]
struct Input {
    description: String,
    default: Option<String>,
}

#[derive(Deserialize)]
struct Output {
    description: String,
}

fn action() -> Action {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml")).unwrap();
    let raw: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    serde_json::from_value(raw).unwrap()
}

#[test]
fn every_input_has_a_flag_and_every_flag_an_input() {
    let action = action();
    let mut from_action: Vec<String> = action.inputs.keys().cloned().collect();
    let mut from_cli = agent_council::cli::input_names();
    from_action.sort();
    from_cli.sort();
    assert_eq!(from_action, from_cli);
}

#[test]
fn every_input_is_documented_with_a_default() {
    for (name, input) in action().inputs {
        assert!(
            !input.description.trim().is_empty(),
            "{name} has no description"
        );
        assert!(input.default.is_some(), "{name} has no default");
    }
}

#[test]
fn every_output_of_the_contract_is_declared() {
    let outputs = action().outputs;
    for name in [
        "guard-status",
        "review-status",
        "release-status",
        "context",
        "audit-path",
        "artifact-id",
        "state-intent",
        "state-step",
        "state-progress",
        "state-memory",
        "state-next-action",
        "state-comment-url",
        "recommended-agent",
        "actor",
        "queue-status",
        "queue-sha",
    ] {
        let output = outputs
            .get(name)
            .unwrap_or_else(|| panic!("output {name} missing"));
        assert!(!output.description.trim().is_empty());
    }
}

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// main builds the Dockerfile; a release commit (ci/release.sh rewrite) names the
/// prebuilt image by digest. Nothing else may ship, and never a tag that can move.
#[test]
fn the_action_runs_the_dockerfile_on_main_or_an_image_pinned_by_digest() {
    let runs = action().runs;
    assert_eq!(runs.using, "docker");
    if runs.image == "Dockerfile" {
        let text = repo_file("action.yml");
        assert_eq!(
            text.lines().filter(|l| *l == "  image: Dockerfile").count(),
            1,
            "ci/release.sh replaces exactly this line"
        );
        return;
    }
    let pinned = regex::Regex::new(
        r"^docker://ghcr\.io/[a-z0-9][a-z0-9._-]*/agent-council@sha256:[0-9a-f]{64}$",
    )
    .unwrap();
    assert!(pinned.is_match(&runs.image), "{}", runs.image);
}

/// The image the release publishes (ci/Containerfile.prebuilt) and the one `uses:` builds
/// on main (the Dockerfile's last stage) are the same: the binary alone, started as root.
#[test]
fn both_images_hold_the_binary_alone_with_the_same_entrypoint() {
    for (file, copy) in [
        ("Dockerfile", "COPY --from=builder /council /council"),
        ("ci/Containerfile.prebuilt", "COPY council /council"),
    ] {
        let text = repo_file(file);
        let last_stage: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "FROM scratch")
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        assert_eq!(last_stage.first(), Some(&"FROM scratch"), "{file}");
        assert!(last_stage.contains(&copy), "{file}: {last_stage:?}");
        assert_eq!(
            last_stage.last(),
            Some(&r#"ENTRYPOINT ["/council"]"#),
            "{file}"
        );
        assert!(
            !last_stage.iter().any(|l| l.starts_with("USER")),
            "{file}: Docker actions run as root (see the Dockerfile)"
        );
    }
}

/// What the release checks before it builds (ci/release.sh check), checked on every
/// change: the changelog has a section for Cargo.toml's version, and the MSRV the README
/// and the book (docs/src/introduction.md, docs/src/development.md) promise is
/// Cargo.toml's `rust-version` (which CI builds with).
#[test]
fn the_version_and_the_msrv_agree_across_cargo_toml_changelog_and_readme() {
    let manifest = repo_file("Cargo.toml");
    let field = |name: &str| {
        manifest
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} = \"")))
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or_else(|| panic!("Cargo.toml has no {name}"))
            .to_string()
    };
    let version = field("version");
    let msrv = field("rust-version");
    assert!(
        repo_file("CHANGELOG.md")
            .lines()
            .any(|l| l.starts_with(&format!("## [{version}]"))),
        "CHANGELOG.md needs a section ## [{version}]"
    );
    for file in ["README.md", "docs/src/introduction.md"] {
        assert!(
            repo_file(file).contains(&format!("Rust ({msrv} or newer)")),
            "{file}: the two commands name the MSRV {msrv}"
        );
    }
    assert!(
        repo_file("docs/src/development.md").contains(&format!("**MSRV**: Rust {msrv} ")),
        "docs/src/development.md names the MSRV {msrv}"
    );
    let mut files = vec!["README.md".to_string(), "action.yml".to_string()];
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        files.push(format!("docs/src/{name}"));
    }
    for file in files {
        assert!(
            !repo_file(&file).contains("<owner>"),
            "{file}: write OWNER/agent-council: the release fills it in (ci/release.sh rewrite)"
        );
    }
}
