//! `council policy check [PATH] [--branch NAME]… [--target BASE]…`: the policy as council
//! reads it (or the first problem, with file, line and column), and how sample branch
//! names fare against each target, and whether a name alone makes a pull request an
//! agent's (the preflight MCP `check_branch` answers too), without an event or the API.

use crate::runner::Runner;
use std::path::Path;

use serde_json::{Value, json};

use super::super::policy_source::read_local;
use crate::cli::PolicyCheckArgs;
use crate::request::DEFAULT_POLICY_PATH;
use council_protocol::actors::{Actor, ActorFacts, classify};
use council_protocol::error::{Outcome, Result};
use council_protocol::gates::guard::{evaluate_branch, passed};
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::gates::{GateOutcome, Verdict, thousands};
use council_protocol::policy::queue::QUEUED_LABEL;
use council_protocol::policy::{Policy, Queue};
use council_protocol::render::text::visible;

pub fn run(args: &PolicyCheckArgs, cwd: &Path, out: &Runner) -> Result<Outcome> {
    let (path, explicit) = match &args.path {
        Some(path) => (path.to_string_lossy().into_owned(), true),
        None => (DEFAULT_POLICY_PATH.to_string(), false),
    };
    let policy = read_local(cwd, &path, explicit)?;
    let targets = targets(&policy, &args.target);
    let verdicts: Vec<BranchVerdicts> = args
        .branch
        .iter()
        .map(|b| BranchVerdicts::of(&policy, b, &targets))
        .collect();
    if args.json.json {
        out.println(&as_json(&policy, &targets, &verdicts).to_string());
    } else {
        out.print(&describe(&policy));
        if !verdicts.is_empty() {
            out.print(&format!("\n{}", table(&targets, &verdicts)));
        }
    }
    // A sample name no target accepts is what a user runs this to catch.
    if verdicts.iter().any(|v| !v.passes_any()) {
        Ok(Outcome::GateFailed)
    } else {
        Ok(Outcome::Passed)
    }
}

/// The bases to try: the ones asked for, else every literal target of the rules.
fn targets(policy: &Policy, asked: &[String]) -> Vec<String> {
    if !asked.is_empty() {
        return asked.to_vec();
    }
    let mut out: Vec<String> = Vec::new();
    for rule in &policy.branches.rules {
        for target in &rule.targets {
            if target.is_literal() && !out.contains(&target.glob) {
                out.push(target.glob.clone());
            }
        }
    }
    out
}

/// One sample name's guard decision against each target, and its class by the name
/// alone.
struct BranchVerdicts {
    branch: String,
    per_target: Vec<Vec<GateOutcome>>,
    actor: Actor,
}

impl BranchVerdicts {
    fn of(policy: &Policy, branch: &str, targets: &[String]) -> BranchVerdicts {
        let per_target = targets
            .iter()
            .map(|base| evaluate_branch(policy, branch, base))
            .collect();
        BranchVerdicts {
            branch: branch.to_string(),
            per_target,
            actor: classify(
                &policy.actors.agents,
                &ActorFacts {
                    author: None,
                    head: branch,
                    labels: None,
                    commits: None,
                },
            ),
        }
    }

    fn passes_any(&self) -> bool {
        self.per_target.iter().any(|gates| passed(gates))
    }

    /// The naming gate's failure (the same for every target), when the name fails it.
    fn naming_failure(&self) -> Option<&GateOutcome> {
        self.per_target
            .first()?
            .iter()
            .find(|g| g.gate == "naming_convention" && g.verdict == Verdict::Fail)
    }
}

/// "pass", or which gate failed.
fn cell(gates: &[GateOutcome]) -> &'static str {
    if passed(gates) {
        "pass"
    } else if gates
        .iter()
        .any(|g| g.gate == "naming_convention" && g.verdict == Verdict::Fail)
    {
        "fail: name"
    } else {
        "fail: target"
    }
}

/// What the file says, as council reads it.
fn describe(policy: &Policy) -> String {
    let b = &policy.branches;
    let mut out = format!("{}: valid\n", visible(&policy.source));
    out.push_str(&format!(
        "  branches: {} rule{}, {} exempt glob{}, {}\n",
        b.rules.len(),
        plural(b.rules.len()),
        b.exempt.len(),
        plural(b.exempt.len()),
        if b.case_sensitive {
            "case-sensitive"
        } else {
            "ignoring letter case"
        }
    ));
    for rule in &b.rules {
        out.push_str(&format!(
            "    {} -> {}\n",
            visible(&rule.label()),
            visible(&rule.target_list())
        ));
    }
    for exempt in &b.exempt {
        out.push_str(&format!("    exempt: {}\n", visible(&exempt.glob)));
    }
    let r = &policy.review;
    let on_off = |on: bool| if on { "on" } else { "off" };
    out.push_str(&format!(
        "  review: secret_scan {}, assistant_context {}, task_list {}, doc_coverage {}, \
         diff_size {}, approve label {:?}\n",
        on_off(r.secret_scan),
        on_off(r.assistant_context),
        on_off(r.task_list),
        on_off(r.docs.is_some()),
        on_off(r.diff_size.is_some()),
        r.approve_label
    ));
    let rel = &policy.release;
    out.push_str(&format!(
        "  release: merge_method {}, {} required approval{}, required checks: {}, rollback {}\n",
        rel.merge_method.as_str(),
        rel.required_approvals,
        plural(rel.required_approvals as usize),
        if rel.required_checks.is_empty() {
            "none".to_string()
        } else {
            visible(&rel.required_checks.join(", "))
        },
        on_off(rel.rollback)
    ));
    out.push_str(&queue_line(&policy.queue));
    out.push_str(&describe_actors(policy));
    let unreadable = b.rules.iter().filter(|r| r.suggestions.is_empty()).count();
    if unreadable > 0 {
        out.push_str(&format!(
            "  note: {unreadable} regex rule{} cannot suggest a name: a branch that fails \
             gets \"rename the branch\" without commands\n",
            plural(unreadable)
        ));
    }
    out
}

/// The merge queue as council reads it, and what it needs to run.
fn queue_line(q: &Queue) -> String {
    if !q.enabled {
        return "  queue: off (release merges a pull request directly)\n".to_string();
    }
    let required = match q.required_checks.is_empty() {
        true => format!("none named in {}", q.required_checks_key),
        false => format!(
            "{}, from {}",
            visible(&q.required_checks.join(", ")),
            q.required_checks_key
        ),
    };
    let priority = match q.priority_labels.is_empty() {
        true => "none".to_string(),
        false => visible(&q.priority_labels.join(", ")),
    };
    format!(
        "  queue: on: release labels {QUEUED_LABEL} instead of merging; the queue commit of \
         base B is tested on {} (built on {}), up to {} pull request{} at a time; it lands \
         when at least one check has reported and every check is green (required: \
         {required}); no verdict after {} minute{} dequeues; priority labels: {priority}\n    \
         needs: the release-token input, CI on push to {}**, a base whose protection lets \
         the release token push and does not require linear history\n",
        visible(&q.branch("B")),
        visible(&q.build_branch("B")),
        q.batch_size,
        plural(q.batch_size as usize),
        q.timeout_minutes,
        plural(q.timeout_minutes as usize),
        visible(&q.branch_prefix),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Globs named in a line of the description; the rest are counted.
const LISTED_GLOBS: usize = 8;

/// `actors`: what makes a pull request an agent's, and what an agent's is held to.
fn describe_actors(policy: &Policy) -> String {
    let agents = &policy.actors.agents;
    let mut out = String::new();
    if agents.is_off() {
        out.push_str(
            "  actors: detection off (no login, branch, trailer or label makes an agent)\n",
        );
    } else {
        out.push_str(&format!(
            "  actors: an agent's pull request when any of {} login{}, {} branch{}, {} \
             trailer{}, {} label{} matches\n",
            agents.logins.len(),
            plural(agents.logins.len()),
            agents.branches.len(),
            if agents.branches.len() == 1 { "" } else { "es" },
            agents.trailers.len(),
            plural(agents.trailers.len()),
            agents.labels.len(),
            plural(agents.labels.len()),
        ));
        let lists: [(&str, Vec<&str>); 4] = [
            (
                "logins",
                agents.logins.iter().map(|g| g.glob.as_str()).collect(),
            ),
            (
                "branches",
                agents.branches.iter().map(|g| g.glob.as_str()).collect(),
            ),
            (
                "trailers",
                agents.trailers.iter().map(|g| g.glob.as_str()).collect(),
            ),
            ("labels", agents.labels.iter().map(String::as_str).collect()),
        ];
        for (name, globs) in lists {
            if !globs.is_empty() {
                out.push_str(&format!("    {name}: {}\n", listed(&globs)));
            }
        }
    }
    let rules = &policy.actors.agent;
    let mut held = Vec::new();
    held.push(match rules.human_approvals {
        0 => "no human approval".to_string(),
        n => format!("{n} human approval{} of the head", plural(n as usize)),
    });
    held.push(if rules.forbidden_paths.is_empty() {
        "no forbidden paths".to_string()
    } else {
        format!(
            "may not change {}",
            listed(
                &rules
                    .forbidden_paths
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
            )
        )
    });
    held.push(match &rules.diff_size {
        None => "review.diff_size as anyone".to_string(),
        Some(d) => {
            let mut limits = Vec::new();
            if let Some(files) = d.max_files {
                limits.push(format!("{} files", thousands(files)));
            }
            if let Some(lines) = d.max_changed_lines {
                limits.push(format!("{} changed lines", thousands(lines)));
            }
            match limits.is_empty() {
                true => "no diff limit of its own".to_string(),
                false => format!("at most {}", limits.join(" and ")),
            }
        }
    });
    held.push(match rules.label.as_str() {
        "" => "no label".to_string(),
        label => format!("label {}", visible(&format!("{label:?}"))),
    });
    out.push_str(&format!("    agents' rules: {}\n", held.join(", ")));
    out
}

/// Globs as a line shows them: the first few, then how many more.
fn listed(globs: &[&str]) -> String {
    let mut out: Vec<String> = globs
        .iter()
        .take(LISTED_GLOBS)
        .map(|g| visible(g))
        .collect();
    if globs.len() > LISTED_GLOBS {
        out.push(format!("and {} more", globs.len() - LISTED_GLOBS));
    }
    out.join(", ")
}

/// Names down, targets across; each name that fails its naming rule gets the first fix.
fn table(targets: &[String], rows: &[BranchVerdicts]) -> String {
    let width = |s: &str| s.chars().count();
    let branch_col = rows
        .iter()
        .map(|r| width(&visible(&r.branch)))
        .chain([width("branch")])
        .max()
        .unwrap_or(6);
    let target_cols: Vec<usize> = targets
        .iter()
        .map(|t| width(&visible(t)).max(width("fail: target")) + 2)
        .collect();
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(width(s))));
    let mut out = format!("{}  ", pad("branch", branch_col));
    for (t, w) in targets.iter().zip(&target_cols) {
        out.push_str(&pad(&format!("-> {}", visible(t)), *w));
    }
    out.push_str("by name");
    out.push('\n');
    for row in rows {
        let mut line = format!("{}  ", pad(&visible(&row.branch), branch_col));
        for (gates, w) in row.per_target.iter().zip(&target_cols) {
            line.push_str(&pad(cell(gates), *w));
        }
        line.push_str(row.actor.class.as_str());
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for row in rows.iter().filter(|r| r.actor.is_agent()) {
        out.push_str(&format!(
            "\n{}: an agent's pull request whatever its author: {}\n",
            visible(&row.branch),
            row.actor.message().plain()
        ));
    }
    for row in rows {
        if let Some(gate) = row.naming_failure() {
            out.push_str(&format!(
                "\n{}: {}\n",
                visible(&row.branch),
                gate.message.plain()
            ));
            if let Some(fix) = &gate.fix {
                out.push_str(&format!("  fix: {}\n", fix.advice.plain()));
                for command in &fix.commands {
                    out.push_str(&format!("    {command}\n"));
                }
            }
        }
    }
    out
}

fn as_json(policy: &Policy, targets: &[String], rows: &[BranchVerdicts]) -> Value {
    let branches: Vec<Value> = rows
        .iter()
        .map(|row| {
            let per_target: serde_json::Map<String, Value> = targets
                .iter()
                .zip(&row.per_target)
                .map(|(target, gates)| {
                    (
                        target.clone(),
                        json!({"passed": passed(gates), "gates": GateVerdict::all(gates)}),
                    )
                })
                .collect();
            json!({
                "branch": row.branch,
                "passes_any": row.passes_any(),
                "targets": per_target,
                "actor": {"class": row.actor.class.as_str(), "message": row.actor.message().plain()},
            })
        })
        .collect();
    let agents = &policy.actors.agents;
    let rules = &policy.actors.agent;
    let globs = |g: &[council_protocol::policy::actors::ActorGlob]| -> Vec<String> {
        g.iter().map(|g| g.glob.clone()).collect()
    };
    json!({
        "policy": policy.source,
        "valid": true,
        "rules": policy.branches.rules.len(),
        "exempt": policy.branches.exempt.len(),
        "actors": {
            "detection": !agents.is_off(),
            "agents": {
                "logins": globs(&agents.logins),
                "branches": globs(&agents.branches),
                "trailers": agents.trailers.iter().map(|t| t.glob.clone()).collect::<Vec<_>>(),
                "labels": agents.labels,
            },
            "agent": {
                "human_approvals": rules.human_approvals,
                "forbidden_paths": rules.forbidden_paths,
                "diff_size": rules.diff_size.as_ref().map(|d| json!({
                    "max_files": d.max_files,
                    "max_changed_lines": d.max_changed_lines,
                })),
                "label": rules.label,
            },
        },
        "targets": targets,
        "branches": branches,
        "queue": queue_json(&policy.queue),
    })
}

fn queue_json(q: &Queue) -> Value {
    json!({
        "enabled": q.enabled,
        "branch_prefix": q.branch_prefix,
        "priority_labels": q.priority_labels,
        "required_checks": q.required_checks,
        "required_checks_from": q.required_checks_key,
        "timeout_minutes": q.timeout_minutes,
        "batch_size": q.batch_size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> Policy {
        Policy::parse(text, ".github/council.yml").unwrap()
    }

    const POLICY: &str = "branches:\n  exempt: [\"dependabot/**\"]\n  rules:\n    - name: feature\n      pattern: \"feature/*\"\n      targets: [develop]\n    - name: hotfix\n      pattern: \"hotfix/*\"\n      targets: [main, develop]\n";

    #[test]
    fn the_description_says_what_council_reads() {
        insta::assert_snapshot!(describe(&policy(POLICY)), @r#"
        .github/council.yml: valid
          branches: 2 rules, 1 exempt glob, case-sensitive
            feature (feature/*) -> develop
            hotfix (hotfix/*) -> main, develop
            exempt: dependabot/**
          review: secret_scan on, assistant_context on, task_list off, doc_coverage off, diff_size off, approve label "bot-approved"
          release: merge_method merge, 0 required approvals, required checks: none, rollback off
          queue: off (release merges a pull request directly)
          actors: an agent's pull request when any of 3 logins, 5 branches, 4 trailers, 1 label matches
            logins: copilot-swe-agent[bot], devin-ai-integration[bot], *-agent[bot]
            branches: copilot/**, claude/**, codex/**, cursor/**, devin/**
            trailers: Co-authored-by: Claude *, Co-authored-by: Copilot *, Assisted-by: *, Generated-by: *
            labels: agent
            agents' rules: 1 human approval of the head, may not change .github/workflows/**, .github/council.yml, CODEOWNERS, .github/CODEOWNERS, at most 50 files and 1,000 changed lines, label "agent-authored"
        "#);
        let queued = policy(&format!(
            "{POLICY}queue:\n  enabled: true\n  batch_size: 4\n  required_checks: [\"ci / test\"]\n"
        ));
        insta::assert_snapshot!(queue_line(&queued.queue), @"
        queue: on: release labels council:queued instead of merging; the queue commit of base B is tested on council/queue/B (built on council/queue-build/B), up to 4 pull requests at a time; it lands when at least one check has reported and every check is green (required: ci / test, from queue.required_checks); no verdict after 60 minutes dequeues; priority labels: queue:urgent
          needs: the release-token input, CI on push to council/queue/**, a base whose protection lets the release token push and does not require linear history
        ");
        let off = policy(
            "actors:\n  agents: {logins: [], branches: [], trailers: [], labels: []}\n  agent: \
             {human_approvals: 0, forbidden_paths: [], diff_size: null, label: \"\"}\n",
        );
        assert_eq!(
            describe_actors(&off),
            "  actors: detection off (no login, branch, trailer or label makes an agent)\n    \
             agents' rules: no human approval, no forbidden paths, review.diff_size as anyone, \
             no label\n"
        );
    }

    #[test]
    fn sample_names_get_a_verdict_per_target_and_the_fix() {
        let p = policy(POLICY);
        let targets = targets(&p, &[]);
        assert_eq!(targets, ["develop", "main"]);
        let rows: Vec<BranchVerdicts> = ["feature/login", "hotfix/db", "fix-typo"]
            .iter()
            .map(|b| BranchVerdicts::of(&p, b, &targets))
            .collect();
        insta::assert_snapshot!(table(&targets, &rows), @r#"
        branch         -> develop    -> main       by name
        feature/login  pass          fail: target  human
        hotfix/db      pass          pass          human
        fix-typo       fail: name    fail: name    human

        fix-typo: Branch "fix-typo" matches no naming rule of .github/council.yml. Allowed: feature/* → develop; hotfix/* → main, develop.
          fix: rename the branch and open a new pull request into "develop" (renaming the head branch of an open pull request closes it). Run one of these, replacing each <name> with a name (no /):
            git branch -m fix-typo 'feature/<name>' && git push -u origin 'feature/<name>' && git push origin --delete fix-typo
            git branch -m fix-typo 'hotfix/<name>' && git push -u origin 'hotfix/<name>' && git push origin --delete fix-typo
        "#);
        assert!(rows[0].passes_any() && rows[1].passes_any() && !rows[2].passes_any());
    }

    #[test]
    fn a_name_that_alone_makes_an_agent_s_pull_request_says_so() {
        let p =
            policy("branches:\n  rules:\n    - pattern: \"copilot/**\"\n      targets: [main]\n");
        let targets = targets(&p, &[]);
        let rows = [BranchVerdicts::of(&p, "copilot/fix-1", &targets)];
        insta::assert_snapshot!(table(&targets, &rows), @r#"
        branch         -> main       by name
        copilot/fix-1  pass          agent

        copilot/fix-1: an agent's pull request whatever its author: agent (branch): head branch "copilot/fix-1" matches actors.agents.branches "copilot/**".
        "#);
        let json = as_json(&p, &targets, &rows);
        assert_eq!(json["branches"][0]["actor"]["class"], "agent");
        assert_eq!(json["actors"]["agent"]["human_approvals"], 1);
        assert_eq!(json["actors"]["agents"]["branches"][0], "copilot/**");
    }
}
