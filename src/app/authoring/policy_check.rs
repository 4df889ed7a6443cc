//! `council policy check [PATH] [--branch NAME]… [--target BASE]…`: the policy as council
//! reads it (or the first problem, with file, line and column), and how sample branch
//! names fare against each target, without an event or the API.

use crate::runner::Runner;
use std::path::Path;

use serde_json::{Value, json};

use super::super::policy_source::read_local;
use crate::cli::PolicyCheckArgs;
use crate::request::DEFAULT_POLICY_PATH;
use council_protocol::error::{Outcome, Result};
use council_protocol::gates::guard::{evaluate_branch, passed};
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::gates::{GateOutcome, Verdict};
use council_protocol::policy::Policy;
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

/// One sample name's guard decision against each target.
struct BranchVerdicts {
    branch: String,
    per_target: Vec<Vec<GateOutcome>>,
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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
    out = out.trim_end().to_string();
    out.push('\n');
    for row in rows {
        let mut line = format!("{}  ", pad(&visible(&row.branch), branch_col));
        for (gates, w) in row.per_target.iter().zip(&target_cols) {
            line.push_str(&pad(cell(gates), *w));
        }
        out.push_str(line.trim_end());
        out.push('\n');
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
            json!({"branch": row.branch, "passes_any": row.passes_any(), "targets": per_target})
        })
        .collect();
    json!({
        "policy": policy.source,
        "valid": true,
        "rules": policy.branches.rules.len(),
        "exempt": policy.branches.exempt.len(),
        "targets": targets,
        "branches": branches,
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
        "#);
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
        branch         -> develop    -> main
        feature/login  pass          fail: target
        hotfix/db      pass          pass
        fix-typo       fail: name    fail: name

        fix-typo: Branch "fix-typo" matches no naming rule of .github/council.yml. Allowed: feature/* → develop; hotfix/* → main, develop.
          fix: rename the branch and open a new pull request into "develop" (renaming the head branch of an open pull request closes it). Run one of these, replacing each <name> with a name (no /):
            git branch -m fix-typo 'feature/<name>' && git push -u origin 'feature/<name>' && git push origin --delete fix-typo
            git branch -m fix-typo 'hotfix/<name>' && git push -u origin 'hotfix/<name>' && git push origin --delete fix-typo
        "#);
        assert!(rows[0].passes_any() && rows[1].passes_any() && !rows[2].passes_any());
    }
}
