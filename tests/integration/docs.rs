//! The book in docs/ and the README: the CLI reference is generated from the CLI itself, and
//! the links the README and the chapters hold lead somewhere.
//!
//! `COUNCIL_UPDATE_DOCS=1 cargo test --test integration docs` rewrites docs/src/cli.md.

use std::path::{Path, PathBuf};

use agent_council::cli::Cli;
use clap::CommandFactory;

const REGENERATE: &str = "COUNCIL_UPDATE_DOCS=1 cargo test --test integration docs";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every command path: `[]` (council itself), `["guard"]`, …, `["state", "get"]`, in the
/// order `council --help` lists them.
fn command_paths(cmd: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
    out.push(path.to_vec());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut next = path.to_vec();
        next.push(sub.get_name().to_string());
        command_paths(sub, &next, out);
    }
}

/// `council [PATH…] --help` as a user sees it in a pipe: no colour, the environment empty
/// (an `INPUT_*` variable would show up as `[env: …=value]`) and the width fixed (clap
/// wraps at 100 columns when it cannot ask a terminal; `COLUMNS` pins it should the
/// `wrap_help` feature ever ask).
fn long_help(path: &[String]) -> String {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_council"));
    cmd.args(path)
        .arg("--help")
        .env_clear()
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1");
    let out = crate::support::output_within(cmd, crate::support::RUN_TIMEOUT);
    assert_eq!(
        out.status.code(),
        Some(0),
        "council {} --help: {}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("help is UTF-8");
    assert!(!text.contains('\u{1b}'), "no colour in a pipe: {text}");
    assert!(!text.contains("```"), "help text would end the code block");
    text
}

fn cli_reference() -> String {
    let mut paths = Vec::new();
    command_paths(&Cli::command(), &[], &mut paths);
    let mut md = String::from(
        "# CLI reference\n\
         \n\
         <!-- Generated from the CLI by tests/integration/docs.rs: do not edit. After changing\n\
         \x20    a flag or a help text, run: COUNCIL_UPDATE_DOCS=1 cargo test --test integration docs -->\n\
         \n\
         Every command's `--help`, exactly as `council` prints it (`council <COMMAND> --help`).\n\
         How the commands fit together, `--json` and where secrets come from are in\n\
         [The CLI and tokens](command-line.md); every flag that is also an action input is in\n\
         [the inputs table](action.md#inputs).\n",
    );
    for path in &paths {
        let name = std::iter::once("council")
            .chain(path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let help = long_help(path);
        md.push_str(&format!(
            "\n## `{name}`\n\n```text\n{}\n```\n",
            help.trim_end()
        ));
    }
    md
}

#[test]
fn docs_cli_reference_is_the_clis_own_help() {
    let file = root().join("docs/src/cli.md");
    let expected = cli_reference();
    if std::env::var_os("COUNCIL_UPDATE_DOCS").is_some() {
        std::fs::write(&file, &expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&file).unwrap_or_default();
    if actual != expected {
        let first = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
        panic!(
            "docs/src/cli.md is not what the CLI prints (first difference at line {}:\n  \
             file: {:?}\n  CLI:  {:?}).\nRegenerate it with: {REGENERATE}",
            first + 1,
            actual.lines().nth(first).unwrap_or("<end of file>"),
            expected.lines().nth(first).unwrap_or("<end of file>"),
        );
    }
}

/// Markdown links `[text](target)` outside code blocks and code spans.
fn links(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold no links: drop them first.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let target = &rest[at + 2..];
            let end = target.find(')').unwrap_or(target.len());
            found.push(target[..end].to_string());
            rest = &target[end..];
        }
    }
    found
}

/// GitHub's id for a heading: lower case, spaces to hyphens, punctuation dropped.
fn github_anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn anchors(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(github_anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// Relative links from `file` (README.md or a chapter): the file exists, and a `#fragment`
/// into a Markdown file names one of its headings. The built book's links are checked on
/// the HTML by ci/book_links.py; this covers the README, which the book does not build.
fn check_links(file: &Path) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut checked = 0;
    for link in links(&text) {
        if link.starts_with("http://") || link.starts_with("https://") || link.is_empty() {
            continue;
        }
        let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
        let target: PathBuf = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        assert!(
            target.exists(),
            "{}: the link {link} leads nowhere",
            file.display()
        );
        if !fragment.is_empty() && target.extension().is_some_and(|e| e == "md") {
            let headings = anchors(&std::fs::read_to_string(&target).unwrap());
            assert!(
                headings.iter().any(|h| h == fragment),
                "{}: the link {link} names no heading of {} ({headings:?})",
                file.display(),
                target.display()
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn docs_readme_links_resolve_and_every_chapter_is_in_the_summary() {
    let readme = root().join("README.md");
    assert!(check_links(&readme) >= 20, "the README links to the book");
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    let readme_text = std::fs::read_to_string(&readme).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name == "SUMMARY.md" || !name.ends_with(".md") {
            continue;
        }
        assert!(
            listed.contains(&name),
            "docs/src/{name} is not in docs/src/SUMMARY.md"
        );
        if name != "spec.md" {
            assert!(
                readme_text.contains(&format!("(docs/src/{name})")),
                "the README's chapter table does not link docs/src/{name}"
            );
        }
        check_links(&src.join(&name));
    }
}

/// The README fits on a screen; the rest is in the book.
#[test]
fn docs_readme_stays_short() {
    let lines = std::fs::read_to_string(root().join("README.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines < 250,
        "README.md has {lines} lines: move detail into a chapter of docs/src/"
    );
}
