//! `council init`: a starter `.github/council.yml` (every key commented, the defaults
//! spelled out) and the workflows a repository needs, never replacing a file without
//! `--force`. With `--from-branches` the policy's rules are proposed from the branch names
//! the repository already has (read with git), so that today's branches pass.

use crate::runner::Runner;
use std::path::{Path, PathBuf};

use crate::app::git::{self, GitError};
use crate::cli::InitArgs;
use council_protocol::error::{Error, Outcome, Result};
use council_protocol::policy::propose::{propose, render_branches};

/// The commented policy every key of which is explained (the repository's own example).
const POLICY: &str = include_str!("../../../council.example.yml");
const GUARD_WORKFLOW: &str = include_str!("../../../examples/branch-policy.yml");
const REVIEW_RELEASE_WORKFLOW: &str = include_str!("../../../examples/review-release.yml");
const EVALUATE_WORKFLOW: &str = include_str!("../../../examples/two-phase-evaluate.yml");
const APPLY_WORKFLOW: &str = include_str!("../../../examples/two-phase-apply.yml");
const QUEUE_WORKFLOW: &str = include_str!("../../../examples/merge-queue.yml");

/// How the bundled workflows name the action before a release fills in its repository.
const PLACEHOLDER_ACTION: &str = "OWNER/agent-council@v0";

/// The action a release build's workflows use (set by the release build, when it knows).
fn default_action() -> &'static str {
    option_env!("COUNCIL_ACTION").unwrap_or(PLACEHOLDER_ACTION)
}

/// One file `init` writes: its path under the repository root, and its text.
#[derive(Debug)]
struct Planned {
    path: &'static str,
    text: String,
}

pub fn run(args: &InitArgs, cwd: &Path, out: &Runner) -> Result<Outcome> {
    let root = cwd.join(&args.dir);
    let action = args.action.as_deref().unwrap_or(default_action());
    check_action(action)?;
    let policy = if args.from_branches {
        let names = git_branches(&root)?;
        let default = default_branch(&root, &names);
        let proposal = propose(&names, default.as_deref());
        out.eprintln(&format!(
            "proposed {} rule{} from {} branch name{}{}",
            proposal.rules.len(),
            if proposal.rules.len() == 1 { "" } else { "s" },
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            if proposal.uncovered.is_empty() {
                String::new()
            } else {
                format!(
                    "; not covered (rename them, or add a rule): {}",
                    proposal.uncovered.join(", ")
                )
            }
        ));
        with_branches(POLICY, &render_branches(&proposal))
    } else {
        POLICY.to_string()
    };
    let policy = match args.queue {
        true => with_queue(&policy)?,
        false => policy,
    };
    let plan = plan(policy, action, args.two_phase, args.queue);

    if !args.force {
        let existing: Vec<&str> = plan
            .iter()
            .filter(|p| root.join(p.path).exists())
            .map(|p| p.path)
            .collect();
        if !existing.is_empty() {
            return Err(Error::Usage(format!(
                "{} already exist{}{}; nothing was written (--force replaces {}, or move {} \
                 away first)",
                existing.join(", "),
                if existing.len() == 1 { "s" } else { "" },
                if args.dir == Path::new(".") {
                    String::new()
                } else {
                    format!(" in {}", args.dir.display())
                },
                if existing.len() == 1 { "it" } else { "them" },
                if existing.len() == 1 { "it" } else { "them" },
            )));
        }
    }
    if args.dry_run {
        for p in &plan {
            out.println(&format!("==> {} <==\n{}", p.path, p.text));
        }
        out.eprintln("dry run: nothing was written");
        return Ok(Outcome::Passed);
    }
    for p in &plan {
        write(&root.join(p.path), &p.text)?;
        out.println(&format!("wrote {}", p.path));
    }
    out.print(&next_steps(action));
    if args.queue {
        out.print(&queue_steps());
    }
    Ok(Outcome::Passed)
}

fn plan(policy: String, action: &str, two_phase: bool, queue: bool) -> Vec<Planned> {
    let workflow = |text: &str| text.replace(PLACEHOLDER_ACTION, action);
    let mut plan = vec![
        Planned {
            path: ".github/council.yml",
            text: policy,
        },
        Planned {
            path: ".github/workflows/council-guard.yml",
            text: workflow(GUARD_WORKFLOW),
        },
        Planned {
            path: ".github/workflows/council.yml",
            text: workflow(match queue {
                true => QUEUE_WORKFLOW,
                false => REVIEW_RELEASE_WORKFLOW,
            }),
        },
    ];
    if two_phase {
        plan.push(Planned {
            path: ".github/workflows/council-evaluate.yml",
            text: workflow(EVALUATE_WORKFLOW),
        });
        plan.push(Planned {
            path: ".github/workflows/council-apply.yml",
            text: workflow(APPLY_WORKFLOW),
        });
    }
    plan
}

/// `uses:` takes `owner/repo[/path]@ref` or `docker://image`; anything else (a space, a
/// quote, a line break) would break or inject into the workflow files.
fn check_action(action: &str) -> Result<()> {
    let well_formed = !action.is_empty()
        && action
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@:+".contains(c))
        && (action.starts_with("docker://")
            || (action.contains('/') && action.contains('@') && !action.starts_with('@')));
    if well_formed {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "--action {action:?} is not an action reference; give OWNER/REPO@REF, e.g. \
             octo-org/agent-council@v0"
        )))
    }
}

/// The example policy with its `branches:` section replaced (up to the next top-level
/// line, the next section's comment).
fn with_branches(policy: &str, branches: &str) -> String {
    let lines: Vec<&str> = policy.split_inclusive('\n').collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "branches:") else {
        return format!("{policy}\n{branches}");
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t']))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut out: String = lines[..start].concat();
    out.push_str(branches);
    out.push('\n');
    out.push_str(&lines[end..].concat());
    out
}

/// The policy with the merge queue on: the example's `enabled: false` line in the
/// `queue:` section turned to `true`.
fn with_queue(policy: &str) -> Result<String> {
    const OFF: &str =
        "  enabled: false                    # false: release merges as described above";
    const ON: &str =
        "  enabled: true                     # false: release merges as described above";
    match policy.contains(OFF) {
        true => Ok(policy.replacen(OFF, ON, 1)),
        false => Err(Error::Usage(
            "--queue: the starter policy has no `queue:` section to turn on".to_string(),
        )),
    }
}

/// What the queue needs beyond the files written: CI on its branches, and a base that
/// lets the release token's identity push.
fn queue_steps() -> String {
    [
        "",
        "the merge queue (docs/src/queue.md):",
        "  5. make your CI run on pushes to the queue branches: add to its workflow's `on:`",
        "       push:",
        "         branches: [\"council/queue/**\"]",
        "     and name that workflow under `workflow_run` in .github/workflows/council.yml",
        "  6. branch protection of each base with a queue: the release token's identity (the",
        "     GitHub App) must be allowed to push to it: add the app to the bypass list of the",
        "     base's ruleset (classic protection: to \"Restrict who can push\" and \"Allow",
        "     specified actors to bypass required pull requests\"); everyone else keeps",
        "     \"Require a pull request\" and \"Require status checks\"",
        "  7. do not require linear history on those bases (a queue commit is made of merge",
        "     commits), and let the app create and delete council/queue/** and",
        "     council/queue-build/** (no ruleset may block them)",
        "",
    ]
    .join("\n")
}

/// Local and remote-tracking branch names, without the remote's name.
fn git_branches(root: &Path) -> Result<Vec<String>> {
    let refs = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads",
            "refs/remotes",
        ],
    )?;
    Ok(refs
        .lines()
        .filter_map(|r| {
            r.strip_prefix("refs/heads/").or_else(|| {
                r.strip_prefix("refs/remotes/")
                    .and_then(|rest| rest.split_once('/').map(|(_, name)| name))
            })
        })
        .filter(|name| *name != "HEAD")
        .map(str::to_string)
        .collect())
}

/// origin's HEAD when known, else `main` or `master` when one exists.
fn default_branch(root: &Path, names: &[String]) -> Option<String> {
    if let Ok(head) = git(
        root,
        &["symbolic-ref", "--short", "refs/remotes/origin/HEAD"],
    ) && let Some((_, name)) = head.trim().split_once('/')
    {
        return Some(name.to_string());
    }
    ["main", "master"]
        .into_iter()
        .find(|d| names.iter().any(|n| n == d))
        .map(str::to_string)
}

fn git(root: &Path, args: &[&str]) -> Result<String> {
    git::git(root, args).map_err(|e| match e {
        GitError::NotRun(e) => Error::Usage(format!(
            "--from-branches reads the branch names with git, which could not be run: {e}"
        )),
        GitError::Failed(why) => Error::Usage(format!(
            "--from-branches: `git {}` failed in {}: {why}",
            args.join(" "),
            root.display(),
        )),
    })
}

fn write(path: &PathBuf, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("directory", dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io("file", path, e))
}

fn next_steps(action: &str) -> String {
    let mut out = String::from(
        "\nnext:\n  1. council policy check --branch \"$(git branch --show-current)\"   (how \
         your branch names fare; edit .github/council.yml until they pass)\n  2. commit the \
         files to the default branch: each pull request is checked against the policy on \
         its base branch\n  3. make the `guard` check required in the branch protection of \
         the branches you protect\n  4. to let council merge, set up a release token: \
         docs/src/release.md, \"Set-up: a release token\"\n",
    );
    if action == PLACEHOLDER_ACTION {
        out.push_str(&format!(
            "note: the workflows use `{PLACEHOLDER_ACTION}`: replace OWNER with the \
             repository council is published from (or run init with --action OWNER/REPO@REF)\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use council_protocol::policy::Policy;

    #[test]
    fn the_starter_policy_parses_and_spells_out_the_default_rules() {
        let policy = Policy::parse(POLICY, ".github/council.yml").unwrap();
        assert_eq!(policy.branches.rules.len(), 4);
    }

    #[test]
    fn proposed_branches_replace_the_rules_and_keep_every_other_section() {
        let branches = "branches:\n  rules:\n    - pattern: \"fix-*\"\n      targets: [main]\n";
        let text = with_branches(POLICY, branches);
        let policy = Policy::parse(&text, "x.yml").unwrap();
        assert_eq!(policy.branches.rules.len(), 1);
        assert!(text.contains("# The review stage"));
        assert!(text.contains("release:\n"));
        assert!(!text.contains("feature/*/PBI-*-*\""));
    }

    #[test]
    fn the_queue_turns_the_policy_on_and_writes_its_workflow() {
        let text = with_queue(POLICY).unwrap();
        let policy = Policy::parse(&text, ".github/council.yml").unwrap();
        assert!(policy.queue.enabled);
        let plan = plan(text, "octo-org/agent-council@v1", false, true);
        let council = plan
            .iter()
            .find(|p| p.path == ".github/workflows/council.yml")
            .unwrap();
        for trigger in [
            "  push:",
            "  schedule:",
            "  check_suite:",
            "  status:",
            "  workflow_run:",
        ] {
            assert!(council.text.contains(trigger), "{trigger}");
        }
        assert!(council.text.contains("group: council-queue\n"));
        assert!(queue_steps().contains("branches: [\"council/queue/**\"]"));
    }

    #[test]
    fn workflows_name_the_action_given() {
        let plan = plan(String::new(), "octo-org/agent-council@v1", true, true);
        assert_eq!(plan.len(), 5);
        for p in &plan[1..] {
            assert!(!p.text.contains("OWNER/"), "{}", p.path);
            assert!(p.text.contains("octo-org/agent-council@v1"), "{}", p.path);
        }
    }

    #[test]
    fn an_action_that_would_break_the_yaml_is_refused() {
        for bad in [
            "x",
            "a/b",
            "a/b@v1\n  run: evil",
            "a/b@v1 # x",
            "\"a/b@v1\"",
            "@a/b",
        ] {
            assert!(check_action(bad).is_err(), "{bad:?}");
        }
        for good in [
            "a/b@v1",
            "octo-org/agent-council/sub@main",
            "docker://ghcr.io/o/c:1",
        ] {
            assert!(check_action(good).is_ok(), "{good:?}");
        }
    }
}
