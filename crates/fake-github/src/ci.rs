//! A CI model: when a commit lands on a branch the world's rule names (a push: the
//! queue's branches, `main`) or becomes a pull request's head (with `pull_requests`), a
//! CI run starts on it: one check run per configured check, `queued` at first,
//! `in_progress` once the clock moves, `completed` when the clock passes its duration,
//! with `success` or `failure` decided by a function of the commit's tree. So two pull
//! requests can each be green and red together ("red when files A and B both hold the
//! marker"), and a benchmark counts CI runs per landing ([`World::ci_runs`]).
//!
//! The clock is the world clock; a test moves it with `FakeGitHub::advance_minutes` or
//! finishes everything with `FakeGitHub::ci_tick`. Every landing starts a run, as
//! GitHub Actions starts one per `push` event: a commit tested on a queue branch and
//! then fast-forwarded onto `main` is run again there when `main` is in the rule.

use std::sync::Arc;

use council_protocol::policy::glob::Glob;

use crate::graph::Tree;
use crate::world::{CheckRun, World, format_time};

/// The world's CI rule.
#[derive(Clone)]
pub struct Ci {
    /// Branch globs (`*` inside a segment, `**` across) whose pushes start a run.
    pub branches: Vec<String>,
    /// A pull request's new head starts a run (the `pull_request` event).
    pub pull_requests: bool,
    /// The check runs each run reports, with how long each takes.
    pub checks: Vec<CiCheck>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiCheck {
    pub name: String,
    pub minutes: u32,
}

/// Red or green, from the commit's tree.
#[derive(Clone)]
pub enum Verdict {
    /// Red when any condition holds.
    RedWhen(Vec<Condition>),
    /// Red when the function says so (a test's own rule).
    Custom(Arc<dyn Fn(&Tree) -> bool + Send + Sync>),
}

/// A fact about a tree, for a data-described verdict (a world file's `red_when`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Some file's text contains this.
    Contains(String),
    /// The file exists.
    Exists(String),
    /// The file exists and its text contains this.
    FileContains { path: String, text: String },
    /// Every condition holds.
    All(Vec<Condition>),
}

impl Condition {
    pub fn holds(&self, tree: &Tree) -> bool {
        match self {
            Condition::Contains(text) => tree
                .values()
                .any(|b| b.text().is_some_and(|t| t.contains(text.as_str()))),
            Condition::Exists(path) => tree.contains_key(path),
            Condition::FileContains { path, text } => tree
                .get(path)
                .and_then(|b| b.text())
                .is_some_and(|t| t.contains(text.as_str())),
            Condition::All(all) => all.iter().all(|c| c.holds(tree)),
        }
    }
}

impl Verdict {
    pub fn red(&self, tree: &Tree) -> bool {
        match self {
            Verdict::RedWhen(conditions) => conditions.iter().any(|c| c.holds(tree)),
            Verdict::Custom(red) => red(tree),
        }
    }
}

impl Ci {
    /// Runs on pushes to `branches`, one check `ci` of 5 minutes, red when any file
    /// contains `BROKEN`.
    pub fn on(branches: &[&str]) -> Ci {
        Ci {
            branches: branches.iter().map(|b| b.to_string()).collect(),
            pull_requests: false,
            checks: vec![CiCheck {
                name: "ci".to_string(),
                minutes: 5,
            }],
            verdict: Verdict::RedWhen(vec![Condition::Contains("BROKEN".to_string())]),
        }
    }

    /// Also on every new pull request head.
    pub fn pull_requests(mut self) -> Ci {
        self.pull_requests = true;
        self
    }

    /// The checks each run reports (replacing `ci`), each with its duration.
    pub fn checks(mut self, checks: &[(&str, u32)]) -> Ci {
        self.checks = checks
            .iter()
            .map(|(name, minutes)| CiCheck {
                name: name.to_string(),
                minutes: *minutes,
            })
            .collect();
        self
    }

    /// Red when any of `conditions` holds.
    pub fn red_when(mut self, conditions: Vec<Condition>) -> Ci {
        self.verdict = Verdict::RedWhen(conditions);
        self
    }

    /// Red when `red` says so.
    pub fn red_if(mut self, red: impl Fn(&Tree) -> bool + Send + Sync + 'static) -> Ci {
        self.verdict = Verdict::Custom(Arc::new(red));
        self
    }

    fn runs_on(&self, branch: &str) -> bool {
        self.branches
            .iter()
            .any(|glob| Glob::new(glob, true).is_match(branch))
    }
}

impl std::fmt::Debug for Ci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ci")
            .field("branches", &self.branches)
            .field("pull_requests", &self.pull_requests)
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

/// One CI run: a workflow run on one commit for one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiRun {
    pub sha: String,
    /// `push` or `pull_request`.
    pub event: String,
    /// The branch pushed, or the pull request's head branch.
    pub branch: String,
    /// The world clock when it started (seconds since 1970).
    pub started: i64,
    /// Its check runs' ids, one per configured check.
    pub check_runs: Vec<u64>,
    pub red: bool,
}

impl World {
    /// A push of `sha` to `branch`: a CI run when the rule names the branch.
    pub(crate) fn ci_on_push(&mut self, branch: &str, sha: &str) {
        if self.ci.as_ref().is_some_and(|ci| ci.runs_on(branch)) {
            self.start_ci(sha, "push", branch);
        }
    }

    /// Pull request `number`'s new head `sha`: a CI run when the rule covers pull
    /// requests.
    pub(crate) fn ci_on_pull_request(&mut self, number: u64, sha: &str) {
        if !self.ci.as_ref().is_some_and(|ci| ci.pull_requests) {
            return;
        }
        let branch = self
            .pulls
            .get(&number)
            .map(|pr| pr.head_ref.clone())
            .unwrap_or_default();
        self.start_ci(sha, "pull_request", &branch);
    }

    fn start_ci(&mut self, sha: &str, event: &str, branch: &str) {
        let Some(ci) = self.ci.clone() else { return };
        self.ensure_commit(sha);
        let tree = self.tree(sha).unwrap_or_default();
        let red = ci.verdict.red(&tree);
        let started = self.clock_now();
        let at = format_time(started);
        let mut ids = Vec::new();
        for check in &ci.checks {
            let id = self.next_number_id();
            self.checks_mut(sha).check_runs.push(CheckRun {
                id,
                name: check.name.clone(),
                head_sha: sha.to_string(),
                status: "queued".to_string(),
                conclusion: None,
                app_slug: "github-actions".to_string(),
                started_at: at.clone(),
                completed_at: None,
            });
            ids.push(id);
        }
        self.ci_runs.push(CiRun {
            sha: sha.to_string(),
            event: event.to_string(),
            branch: branch.to_string(),
            started,
            check_runs: ids,
            red,
        });
    }

    /// Moves the world clock `minutes` on: CI checks start, and those whose duration has
    /// passed complete. Returns how many completed.
    pub fn advance_minutes(&mut self, minutes: u32) -> usize {
        let now = self.clock_now().saturating_add(i64::from(minutes) * 60);
        self.clock = self.clock.max(now);
        self.settle_ci()
    }

    /// Moves the clock until every CI check has completed; returns how many did.
    pub fn ci_tick(&mut self) -> usize {
        let minutes = self.ci.as_ref().map_or(0, |ci| {
            ci.checks.iter().map(|c| c.minutes).max().unwrap_or(0)
        });
        let pending = self
            .ci_runs
            .iter()
            .flat_map(|run| run.check_runs.iter().map(move |id| (run, *id)))
            .filter(|(run, id)| {
                self.check_run(&run.sha, *id)
                    .is_some_and(|c| c.status != "completed")
            })
            .map(|(run, _)| run.started.saturating_add(i64::from(minutes) * 60))
            .max();
        match pending {
            Some(due) => {
                self.clock = self.clock.max(due);
                self.settle_ci()
            }
            None => 0,
        }
    }

    /// Brings every CI check run up to the clock.
    fn settle_ci(&mut self) -> usize {
        let Some(ci) = self.ci.clone() else { return 0 };
        let now = self.clock;
        let mut completed = 0;
        for run in self.ci_runs.clone() {
            for (check, id) in ci.checks.iter().zip(&run.check_runs) {
                let due = run.started.saturating_add(i64::from(check.minutes) * 60);
                let Some(check_run) = self
                    .commits
                    .get_mut(&run.sha)
                    .and_then(|c| c.check_runs.iter_mut().find(|r| r.id == *id))
                else {
                    continue;
                };
                if check_run.status == "completed" {
                    continue;
                }
                if now >= due {
                    check_run.status = "completed".to_string();
                    check_run.conclusion =
                        Some(if run.red { "failure" } else { "success" }.to_string());
                    check_run.completed_at = Some(format_time(due));
                    completed += 1;
                } else if now > run.started {
                    check_run.status = "in_progress".to_string();
                }
            }
        }
        completed
    }

    fn check_run(&self, sha: &str, id: u64) -> Option<&CheckRun> {
        self.commits
            .get(sha)?
            .check_runs
            .iter()
            .find(|r| r.id == id)
    }
}
