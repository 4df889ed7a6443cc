//! Worlds of many pull requests, made in seconds and the same every time for a seed: the
//! fake behind benchmarks and tests of commands that read a whole repository (`council
//! audit sync`). Each pull request carries the ledger comment `council` writes, by
//! `github-actions[bot]`, holding a sealed Context Object built with `council-protocol`
//! as the product builds it: the guard and review of its opening and of each push, a
//! re-run now and then, the release's red pipelines, merges and a few reverts, spread
//! over weeks (busier weeks and quieter ones, few weekend hours). A registry issue can
//! hold the agents' `<context-report>` comments.
//!
//! ```
//! use council_fake_github::generate::{Generate, world};
//!
//! let (world, made) = world(&Generate { pulls: 50, ..Generate::default() }).expect("made");
//! assert_eq!(world.pulls.len(), 50);
//! assert!(made.entries > 50 * 9 && made.entries < 50 * 16, "about 12 each");
//! ```

use std::collections::BTreeSet;

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::{self, Links, Stored};
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
use council_protocol::context_report;
use council_protocol::event::PullRequest as EventPull;
use serde_json::json;

use crate::routes::comment;
use crate::tokens::RELEASE_LOGIN;
use crate::world::{
    Issue, PullRequest, UploadedArtifact, World, fake_sha, format_time, parse_time, timestamp,
};

/// The login `council` writes its ledger comments as (the workflow token's).
pub const LEDGER_AUTHOR: &str = "github-actions[bot]";
/// The humans who author some pull requests beside the agents.
pub const HUMANS: [&str; 2] = ["alice", "bob"];
/// The label review adds when it approves.
pub const APPROVED_LABEL: &str = "bot-approved";
/// The branch pull requests target when the guard lets them.
pub const TARGET: &str = "develop";

/// What to generate. Every field has a default ([`Generate::default`]); world files
/// name them in a `generate:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generate {
    /// How many pull requests (numbered from 1, skipping numbers the world already uses
    /// and the registry issue's).
    pub pulls: usize,
    /// Agents `agent-1` … `agent-<agents>` author most pull requests ([`HUMANS`] the
    /// rest), and each reports on the registry issue.
    pub agents: usize,
    /// The same seed makes the same world.
    pub seed: u64,
    /// Timeline entries in a pull request's Context Object, on average: each has from
    /// 0.4 times as many up, most near it, a few several times it (pushed to again and
    /// again); runs come whole (the guard's 2 entries, the guard and review's 7, the
    /// release's 1 or 2).
    pub entries_per_pull: usize,
    /// The pull requests are opened over this many weeks, ending at `until`.
    pub weeks: u32,
    /// The end of the generated history (ISO 8601 with a zone): everything generated
    /// happens before it. Default: the fake's epoch ([`timestamp`]`(0)`,
    /// 2026-11-18T11:06:40Z), so writes made later, stamped by the world clock, come
    /// after it.
    pub until: String,
    /// A plain issue of this number, the agents' registry: one `<context-report>` comment
    /// per agent (a few agents' reports are old; one agent reported twice).
    pub registry_issue: Option<u64>,
    /// Entries signed with HMAC-SHA256 under this key; unsigned (chained only) without.
    pub hmac_key: Option<String>,
}

impl Default for Generate {
    fn default() -> Generate {
        Generate {
            pulls: 100,
            agents: 8,
            seed: 1,
            entries_per_pull: 12,
            weeks: 12,
            until: timestamp(0),
            registry_issue: None,
            hmac_key: None,
        }
    }
}

/// What was generated: the figures a benchmark or a test checks against what it read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Generated {
    /// The pull requests' numbers, lowest first.
    pub numbers: Vec<u64>,
    /// Timeline entries over all Context Objects.
    pub entries: usize,
    pub open: usize,
    pub merged: usize,
    /// Closed without a merge.
    pub closed: usize,
    /// Merged, then reverted (release status `ROLLED_BACK`).
    pub reverted: usize,
    /// `<context-report>` comments on the registry issue.
    pub reports: usize,
    /// `audit-PR-<n>` artifacts: one for each pull request whose ledger comment holds only
    /// the newest entries (the whole object is in the artifact).
    pub artifacts: usize,
    /// The newest `updated_at` of the generated pull requests.
    pub newest_update: String,
}

/// Why a [`Generate`] was refused: the field and what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerateError {
    pub field: &'static str,
    pub message: String,
}

impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for GenerateError {}

fn refused(field: &'static str, message: impl Into<String>) -> GenerateError {
    GenerateError {
        field,
        message: message.into(),
    }
}

/// A world of repository [`crate::REPO`] (its two default tokens, `master` and
/// `develop`) holding what `spec` asks for.
pub fn world(spec: &Generate) -> Result<(World, Generated), GenerateError> {
    let mut world = World::new(crate::REPO);
    let made = fill(&mut world, spec)?;
    Ok((world, made))
}

/// Adds what `spec` asks for to `world`: its pull requests, their ledger comments, the
/// registry issue. The branch `develop` is added when missing.
pub fn fill(world: &mut World, spec: &Generate) -> Result<Generated, GenerateError> {
    let shared = Shared::new(world, spec)?;
    let numbers = numbers(world, spec)?;
    let plans = schedule(spec, &shared, &numbers);
    let made = in_parallel(&plans, |plan| make(&shared, plan))?;
    let mut summary = Generated {
        numbers,
        ..Generated::default()
    };
    for pull in made {
        summary.entries += pull.entries;
        match pull.fate {
            Fate::Open => summary.open += 1,
            Fate::Closed => summary.closed += 1,
            Fate::Merged => summary.merged += 1,
        }
        summary.reverted += usize::from(pull.reverted);
        if summary.newest_update < pull.pr.updated_at {
            summary.newest_update.clone_from(&pull.pr.updated_at);
        }
        let number = pull.pr.number;
        world
            .branches
            .insert(pull.pr.head_ref.clone(), pull.pr.head_sha.clone());
        world.pulls.insert(number, pull.pr);
        world.next_id += 1;
        let mut c = comment(
            &world.repo,
            world.next_id,
            number,
            LEDGER_AUTHOR,
            &pull.ledger,
        );
        c["created_at"] = format_time(pull.ledger_created).into();
        c["updated_at"] = format_time(pull.ledger_updated).into();
        world.comments.push(c);
        if let Some((run_id, zip)) = pull.artifact {
            world.next_id += 1;
            world.artifacts.push(UploadedArtifact {
                id: world.next_id,
                name: format!("audit-PR-{number}"),
                run_id,
                created_at: format_time(pull.ledger_updated),
                zip,
            });
            summary.artifacts += 1;
        }
    }
    if let Some(number) = spec.registry_issue {
        summary.reports = registry(world, spec, &shared, number)?;
    }
    Ok(summary)
}

// ------------------------------------------------------------------- the plan

/// What every pull request's generation reads.
struct Shared {
    repo: String,
    until: i64,
    agents: usize,
    entries: usize,
    seed: u64,
    key: Option<Vec<u8>>,
    target_sha: String,
    /// The branch a refused pull request targets instead, and its head.
    wrong_target: String,
    wrong_target_sha: String,
}

impl Shared {
    fn new(world: &mut World, spec: &Generate) -> Result<Shared, GenerateError> {
        if spec.pulls > 1_000_000 {
            return Err(refused("pulls", "at most 1000000"));
        }
        if !(1..=1_000).contains(&spec.agents) {
            return Err(refused("agents", "1 to 1000"));
        }
        if !(1..=1_000).contains(&spec.entries_per_pull) {
            return Err(refused("entries_per_pull", "1 to 1000"));
        }
        if !(1..=520).contains(&spec.weeks) {
            return Err(refused("weeks", "1 to 520"));
        }
        let until = parse_time(&spec.until).ok_or_else(|| {
            refused(
                "until",
                "an ISO 8601 time with a zone, such as 2026-11-16T00:00:00Z",
            )
        })?;
        if spec.hmac_key.as_deref() == Some("") {
            return Err(refused(
                "hmac_key",
                "an empty key signs nothing; leave it out",
            ));
        }
        let target_sha = world
            .branches
            .entry(TARGET.to_string())
            .or_insert_with(|| fake_sha(TARGET))
            .clone();
        let wrong_target = match world.default_branch.as_str() {
            TARGET => "main".to_string(),
            other => other.to_string(),
        };
        let wrong_target_sha = world
            .branches
            .entry(wrong_target.clone())
            .or_insert_with(|| fake_sha(&wrong_target))
            .clone();
        Ok(Shared {
            repo: world.repo.clone(),
            until,
            agents: spec.agents,
            entries: spec.entries_per_pull,
            seed: spec.seed,
            key: spec.hmac_key.as_ref().map(|k| k.as_bytes().to_vec()),
            target_sha,
            wrong_target,
            wrong_target_sha,
        })
    }
}

/// The numbers from 1 up that the world's issues and pull requests and the registry
/// issue leave free.
fn numbers(world: &World, spec: &Generate) -> Result<Vec<u64>, GenerateError> {
    let mut used: BTreeSet<u64> = world
        .pulls
        .keys()
        .chain(world.issues.keys())
        .copied()
        .collect();
    if let Some(registry) = spec.registry_issue {
        if registry == 0 {
            return Err(refused("registry_issue", "numbers start at 1"));
        }
        if !used.insert(registry) {
            return Err(refused(
                "registry_issue",
                format!("#{registry} is already an issue or a pull request of the world"),
            ));
        }
    }
    Ok((1..)
        .filter(|n| !used.contains(n))
        .take(spec.pulls)
        .collect())
}

/// One pull request to make: its number, when it was opened, its own random stream.
struct Plan {
    number: u64,
    created: i64,
}

const DAY: i64 = 86_400;
const WEEK: i64 = 7 * DAY;

/// Opening times, oldest first (so numbers grow with time, as on GitHub): each week gets
/// a share that varies and grows (adoption), mostly on weekdays in working hours; the
/// last day before `until` is left for the newest ones' runs.
fn schedule(spec: &Generate, shared: &Shared, numbers: &[u64]) -> Vec<Plan> {
    let mut r = Rng::new(mix(spec.seed, u64::MAX));
    let weeks = spec.weeks as usize;
    let weights: Vec<f64> = (0..weeks)
        .map(|k| (0.5 + r.unit()) * (1.0 + k as f64 / weeks as f64))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut counts: Vec<usize> = weights
        .iter()
        .map(|w| (w / total * numbers.len() as f64).floor() as usize)
        .collect();
    let mut left = numbers.len() - counts.iter().sum::<usize>();
    for count in counts.iter_mut().rev() {
        if left == 0 {
            break;
        }
        *count += 1;
        left -= 1;
    }
    let end = shared.until - DAY;
    let start = end - WEEK * spec.weeks as i64;
    let mut times = Vec::with_capacity(numbers.len());
    for (k, count) in counts.iter().enumerate() {
        let week = start + WEEK * k as i64;
        for _ in 0..*count {
            let mut at = week + r.between(0, WEEK);
            // Weekends and nights are quieter: most draws that land there move.
            for _ in 0..3 {
                let weekend = matches!(weekday(at), 5 | 6);
                let hour = at.rem_euclid(DAY) / 3_600;
                let working = !weekend && (7..20).contains(&hour);
                if working || r.chance(0.15) {
                    break;
                }
                at = week + r.between(0, WEEK);
            }
            times.push(at.min(end - 1));
        }
    }
    times.sort_unstable();
    numbers
        .iter()
        .zip(times)
        .map(|(&number, created)| Plan { number, created })
        .collect()
}

/// Monday 0 … Sunday 6 (1970-01-01 was a Thursday).
fn weekday(at: i64) -> i64 {
    (at.div_euclid(DAY) + 3).rem_euclid(7)
}

/// `make` over every plan, on every core, in order (each pull request's randomness is its
/// own, so the result does not depend on how the work is split).
fn in_parallel<T: Send>(
    plans: &[Plan],
    make: impl Fn(&Plan) -> Result<T, GenerateError> + Sync,
) -> Result<Vec<T>, GenerateError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 16);
    let chunk = plans.len().div_ceil(threads).max(1);
    let make = &make;
    let parts: Vec<Result<Vec<T>, GenerateError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(make).collect::<Result<Vec<T>, _>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(refused("pulls", "generation failed")))
            })
            .collect()
    });
    let mut all = Vec::with_capacity(plans.len());
    for part in parts {
        all.extend(part?);
    }
    Ok(all)
}

// ------------------------------------------------------------- one pull request

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Open,
    Merged,
    /// Closed without a merge.
    Closed,
}

struct Made {
    pr: PullRequest,
    ledger: String,
    /// The last run's id and its `audit-PR-<n>` zip (the whole object), when the comment
    /// holds only the newest entries.
    artifact: Option<(u64, Vec<u8>)>,
    ledger_created: i64,
    ledger_updated: i64,
    entries: usize,
    fate: Fate,
    reverted: bool,
}

/// One workflow run's part of the timeline.
struct Run {
    /// Seconds after the pull request was opened (squeezed later to end before `until`).
    at: i64,
    run_id: String,
    attempt: u64,
    job: &'static str,
    trigger: &'static str,
    sha: String,
    /// Run while the pull request was a draft (the guard alone).
    trigger_is_draft: bool,
    /// A push just before the run (an update of the pull request).
    pushed: bool,
    records: Vec<Record>,
}

/// A run before the release decides: what it records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The guard alone, on a draft.
    Draft,
    /// The guard and review.
    Full,
    /// The release, finding the pipeline red.
    Red,
}

const AREAS: [&str; 8] = [
    "auth", "billing", "search", "api", "ui", "infra", "docs", "ledger",
];
const WORK: [&str; 12] = [
    "login",
    "retry",
    "cache",
    "export",
    "pagination",
    "webhooks",
    "metrics",
    "limits",
    "tokens",
    "reports",
    "sync",
    "layout",
];
const VERBS: [&str; 6] = ["Add", "Fix", "Speed up", "Document", "Refactor", "Test"];
const REVIEW_CHECKS: [&str; 5] = [
    "check:doc-coverage",
    "check:diff-size",
    "check:secret-scan",
    "check:assistant-context",
    "check:task-list",
];
/// How often each review check fails before the last run.
const REVIEW_FAILS: [f64; 5] = [0.15, 0.08, 0.03, 0.05, 0.12];
const RUN_ID_BASE: u64 = 7_000_000_000;

fn make(shared: &Shared, plan: &Plan) -> Result<Made, GenerateError> {
    let n = plan.number;
    let mut r = Rng::new(mix(shared.seed, n));
    let author = if r.chance(0.85) {
        format!("agent-{}", 1 + r.below(shared.agents as u64))
    } else {
        HUMANS[r.below(HUMANS.len() as u64) as usize].to_string()
    };
    let area = AREAS[r.below(AREAS.len() as u64) as usize];
    let work = WORK[r.below(WORK.len() as u64) as usize];
    let branch_ok = !r.chance(0.04);
    let head_ref = match branch_ok {
        true => format!("feature/{area}/PBI-{n}-{work}"),
        false => format!("quick-fix-{n}"),
    };
    let target_ok = !r.chance(0.03);
    let (base_ref, base_sha) = match target_ok {
        true => (TARGET.to_string(), shared.target_sha.clone()),
        false => (shared.wrong_target.clone(), shared.wrong_target_sha.clone()),
    };
    let title = format!(
        "PBI-{n}: {} {area} {work}",
        VERBS[r.below(VERBS.len() as u64) as usize]
    );
    let age = shared.until - plan.created;
    let fate = match (branch_ok && target_ok, age < 2 * DAY) {
        (false, _) if age > 3 * DAY && r.chance(0.7) => Fate::Closed,
        (false, _) => Fate::Open,
        (true, true) if r.chance(0.3) => Fate::Merged,
        (true, true) => Fate::Open,
        (true, false) => match r.unit() {
            x if x < 0.82 => Fate::Merged,
            x if x < 0.92 => Fate::Closed,
            _ => Fate::Open,
        },
    };
    let reverted = fate == Fate::Merged && r.chance(0.04);
    let release_run = fate == Fate::Merged || r.chance(0.3);
    let tail = usize::from(release_run) + usize::from(fate == Fate::Merged) + usize::from(reverted);
    const FULL: usize = 2 + REVIEW_CHECKS.len();
    let mut entries = entries_of(shared.entries, &mut r);
    if fate == Fate::Merged {
        // Nothing merges unreviewed: a guard and review run, then the release.
        entries = entries.max(FULL + tail);
    }
    let tail = tail.min(entries / 2);
    let reviewed = entries - tail;

    // The runs before the release, whole as `council` makes them: the guard alone while
    // the pull request is a draft (opened as one, pushed to), then the guard and review
    // of each head (ready for review, pushes, a re-run now and then), and a red pipeline
    // once (release finds CI failing); as many as the entries asked for allow.
    let full = reviewed / FULL;
    let rem = if full == 0 { reviewed } else { reviewed % FULL };
    let mut steps: Vec<(Step, usize)> = vec![(Step::Draft, 2); rem / 2];
    if full == 0 {
        if rem % 2 == 1 {
            steps.push((Step::Draft, 1));
        }
    } else {
        steps.push((Step::Full, FULL));
        if rem % 2 == 1 {
            steps.push((Step::Red, 1));
        }
        steps.extend(std::iter::repeat_n((Step::Full, FULL), full - 1));
    }
    let last_full = steps.iter().rposition(|(step, _)| *step == Step::Full);
    let mut runs: Vec<Run> = Vec::new();
    let mut pushes = 0u64;
    let mut run_index = 0u64;
    let mut approved_at = None;
    for (i, (step, count)) in steps.iter().copied().enumerate() {
        let previous = runs.last();
        let rerun = step == Step::Full
            && previous.is_some_and(|p| p.job == "review" && p.attempt < 3 && failed(&p.records))
            && r.chance(0.25);
        let ready = step == Step::Full && previous.is_some_and(|p| p.trigger_is_draft);
        let pushed = match step {
            Step::Red => false,
            _ => previous.is_some() && !rerun && !ready,
        };
        let at = match previous {
            None => r.between(60, 600),
            Some(p) if rerun => p.at + r.between(300, 3_600),
            Some(p) if step == Step::Red || ready => p.at + r.between(600, 6 * 3_600),
            Some(p) => p.at + r.between(1_200, 30 * 3_600),
        };
        pushes += u64::from(pushed);
        let (run_id, attempt) = match (rerun, previous) {
            (true, Some(p)) => (p.run_id.clone(), p.attempt + 1),
            _ => {
                run_index += 1;
                ((RUN_ID_BASE + n * 1_000 + run_index).to_string(), 1)
            }
        };
        let trigger = match (step, previous) {
            (Step::Red, _) => "webhook:workflow_run.completed",
            (_, None) => "webhook:pull_request.opened",
            (_, Some(p)) if rerun => p.trigger,
            _ if ready => "webhook:pull_request.ready_for_review",
            _ => "webhook:pull_request.synchronize",
        };
        let records = match step {
            Step::Red => vec![pipeline(false)],
            Step::Draft | Step::Full => {
                let all_pass = Some(i) == last_full && fate == Fate::Merged;
                let mut records = vec![
                    guard(
                        "check:branch-name",
                        branch_ok,
                        match branch_ok {
                            true => format!("`{head_ref}` matches rule `feature`"),
                            false => format!(
                                "`{head_ref}` matches no rule: name it \
                                 feature/<area>/PBI-<n>-<what>"
                            ),
                        },
                    ),
                    guard(
                        "check:target-branch",
                        target_ok,
                        match target_ok {
                            true => format!("`feature` branches may target `{base_ref}`"),
                            false => {
                                format!("`feature` branches target `{TARGET}`, not `{base_ref}`")
                            }
                        },
                    ),
                ];
                if step == Step::Full {
                    for (check, fails) in REVIEW_CHECKS.iter().zip(REVIEW_FAILS) {
                        let pass = all_pass || !r.chance(fails);
                        records.push(review(check, pass, &mut r));
                    }
                }
                records.truncate(count);
                records
            }
        };
        if step == Step::Full && !failed(&records) && approved_at.is_none() {
            approved_at = Some(at + count as i64 + 20);
        }
        runs.push(Run {
            at,
            run_id,
            attempt,
            job: if step == Step::Red {
                "release"
            } else {
                "review"
            },
            trigger,
            trigger_is_draft: step == Step::Draft,
            sha: fake_sha(&format!("generated #{n} push {pushes}")),
            pushed,
            records,
        });
    }
    let draft = fate == Fate::Open && last_full.is_none();
    let head_sha = runs.last().map_or_else(
        || fake_sha(&format!("generated #{n} push 0")),
        |run| run.sha.clone(),
    );
    let merge_sha = fake_sha(&format!("squash #{n} {head_sha}"));

    // The release: a red pipeline, or a green one and the merge; a revert days later.
    let mut done = runs.last().map_or(0, |run| run.at + 60);
    let mut closed = None;
    if tail > 0 {
        let merge = fate == Fate::Merged && tail >= 2;
        let at = done + r.between(600, 20 * 3_600);
        let mut records = vec![pipeline(merge)];
        if merge {
            records.push(Record {
                stage: "release",
                agent: "agent_release",
                action: "action:merge".into(),
                result: "DONE".into(),
                message: format!("merged (squash) as {}", &merge_sha[..7]),
            });
        }
        run_index += 1;
        runs.push(Run {
            at,
            run_id: (RUN_ID_BASE + n * 1_000 + run_index).to_string(),
            attempt: 1,
            job: "release",
            trigger: "webhook:workflow_run.completed",
            trigger_is_draft: false,
            sha: head_sha.clone(),
            pushed: false,
            records,
        });
        done = at + 10;
    }
    let mut reverted_done = false;
    if reverted && tail >= 3 {
        run_index += 1;
        runs.push(Run {
            at: done + r.between(2 * 3_600, 4 * DAY),
            run_id: (RUN_ID_BASE + n * 1_000 + run_index).to_string(),
            attempt: 1,
            job: "release",
            trigger: "webhook:workflow_run.completed",
            trigger_is_draft: false,
            sha: head_sha.clone(),
            pushed: false,
            records: vec![Record {
                stage: "release",
                agent: "agent_release",
                action: "action:revert".into(),
                result: "DONE".into(),
                message: format!(
                    "ci failed on the merge commit {}: revert opened",
                    &merge_sha[..7]
                ),
            }],
        });
        reverted_done = true;
    }
    if fate == Fate::Closed {
        closed = Some(done + r.between(3_600, 3 * DAY));
    }

    // Everything ends before `until`: a life that would run past it is squeezed.
    let last = [runs.last().map(|run| run.at), closed, approved_at]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0)
        + 60;
    // Ten minutes to spare: the runs' entries are a second apart after their start.
    let room = (shared.until - 600 - plan.created).max(1);
    let squeeze = |offset: i64| -> i64 {
        match last > room {
            true => plan.created + (offset as i128 * room as i128 / last as i128) as i64,
            false => plan.created + offset,
        }
    };

    // The Context Object, run after run, merged and sealed as `council` does.
    let key = shared.key.as_deref();
    let mut stored: Option<Stored> = None;
    let mut labels: Vec<String> = Vec::new();
    let mut updates = vec![plan.created];
    let mut ledger_created = None;
    let mut ledger_updated = plan.created;
    let mut recorded = 0;
    let mut merged_at = None;
    let mut last_run = None;
    for (i, run) in runs.iter().enumerate() {
        let start = squeeze(run.at).max(ledger_updated + 1);
        if run.pushed {
            updates.push(start - 30);
        }
        if approved_at.is_some_and(|a| squeeze(a) <= start) && labels.is_empty() {
            labels.push(APPROVED_LABEL.to_string());
        }
        let info = RunInfo {
            run_id: run.run_id.clone(),
            run_attempt: run.attempt,
            job: run.job.to_string(),
        };
        let snapshot = EventPull {
            number: n,
            title: title.clone(),
            body: String::new(),
            author: author.clone(),
            head_ref: head_ref.clone(),
            head_sha: run.sha.clone(),
            head_repo: Some(shared.repo.clone()),
            base_ref: base_ref.clone(),
            base_sha: base_sha.clone(),
            base_repo: shared.repo.clone(),
            state: "open".into(),
            draft: false,
            labels: labels.clone(),
            html_url: format!("https://github.com/{}/pull/{n}", shared.repo),
            changed_files: None,
            additions: None,
            deletions: None,
        };
        let mut ours =
            ContextObject::new(&shared.repo, &snapshot, run.trigger, &format_time(start));
        for (k, record) in run.records.iter().enumerate() {
            let when = format_time(start + k as i64);
            ours.timeline
                .push(new_entry(&info, record, &run.sha, &when));
        }
        recorded += run.records.len();
        stored = Some(stored::merge(stored, &ours, key).map_err(|e| {
            refused(
                "hmac_key",
                format!("pull request #{n} could not be sealed: {e}"),
            )
        })?);
        let end = start + run.records.len() as i64;
        if i == 0 {
            // The first run creates the comment: an update of the pull request.
            ledger_created = Some(end);
            updates.push(end);
        }
        ledger_updated = end;
        if run
            .records
            .iter()
            .any(|e| e.action == "action:merge" && e.result == "DONE")
        {
            merged_at = Some(end);
            updates.push(end);
        }
        last_run = Some(run);
    }
    if let Some(approved) = approved_at {
        updates.push(squeeze(approved).min(shared.until - 1));
        if labels.is_empty() {
            labels.push(APPROVED_LABEL.to_string());
        }
    }
    let closed_at = closed.map(|c| squeeze(c).max(ledger_updated + 1).min(shared.until - 1));
    updates.extend(closed_at);
    let links = Links {
        run_url: last_run.map(|run| {
            format!(
                "https://github.com/{}/actions/runs/{}/attempts/{}",
                shared.repo, run.run_id, run.attempt
            )
        }),
        artifact: Some(format!("audit-PR-{n}")),
    };
    let Some(stored) = stored else {
        return Err(refused("entries_per_pull", "at least 1"));
    };
    let whole = stored.clone();
    let (kept, ledger) = stored::render_fitting(stored, &links);
    // The comment holds only the newest entries: the run's artifact, the whole object,
    // is where a reader finds the older ones (`council audit sync` downloads it).
    let artifact = match (kept.omitted.count > 0, &last_run) {
        (true, Some(run)) => Some((
            run.run_id.parse().unwrap_or_default(),
            zip_audit(n, &whole.file_context()),
        )),
        _ => None,
    };

    let mut pr = PullRequest::new(n, shared.repo.split('/').next().unwrap_or_default());
    pr.title = title;
    pr.body = format!("Opened by {author} for PBI-{n}.");
    pr.author = author;
    pr.head_ref = head_ref;
    pr.head_sha = head_sha;
    pr.base_ref = base_ref;
    pr.base_sha = base_sha;
    pr.labels = labels;
    pr.draft = draft;
    if draft {
        pr.mergeable_state = "draft".to_string();
    }
    pr.created_at = format_time(plan.created);
    match fate {
        Fate::Open => {}
        Fate::Closed => {
            pr.open = false;
            pr.closed_at = closed_at.map(format_time);
        }
        Fate::Merged => {
            let at = merged_at.unwrap_or(ledger_updated);
            pr.open = false;
            pr.merged = true;
            pr.merged_by = Some(RELEASE_LOGIN.to_string());
            pr.merge_commit_sha = Some(merge_sha);
            pr.merged_at = Some(format_time(at));
            pr.closed_at = Some(format_time(at));
            pr.mergeable = None;
            pr.mergeable_state = "unknown".to_string();
        }
    }
    let updated = updates.into_iter().max().unwrap_or(plan.created);
    pr.updated_at = format_time(updated);
    Ok(Made {
        pr,
        ledger,
        artifact,
        ledger_created: ledger_created.unwrap_or(plan.created),
        ledger_updated,
        entries: recorded,
        fate,
        reverted: reverted_done,
    })
}

/// `PR-<n>.json` in a zip, as the workflow uploads the audit file.
fn zip_audit(n: u64, context: &ContextObject) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let written = zip
        .start_file(
            format!("PR-{n}.json"),
            zip::write::SimpleFileOptions::default(),
        )
        .and_then(|()| Ok(zip.write_all(context.to_pretty_json().as_bytes())?));
    match written.and_then(|()| zip.finish()) {
        Ok(cursor) => cursor.into_inner(),
        // Writing to memory does not fail; an empty zip would be refused as a bad archive.
        Err(_) => Vec::new(),
    }
}

/// This pull request's number of entries: `mean` on average, from 0.4 × `mean` up,
/// most near it, a few several times it (the pull requests pushed to again and again).
fn entries_of(mean: usize, r: &mut Rng) -> usize {
    // 0.4 + 0.6 × an exponential draw: a mean of 1.
    let factor = 0.4 + 0.6 * -(1.0 - r.unit()).ln();
    ((mean as f64 * factor).round() as usize).clamp(1, mean.saturating_mul(5))
}

fn guard(action: &str, pass: bool, message: String) -> Record {
    Record {
        stage: "guard",
        agent: "agent_guard",
        action: action.to_string(),
        result: if pass { "PASS" } else { "FAIL" }.into(),
        message,
    }
}

fn review(action: &str, pass: bool, r: &mut Rng) -> Record {
    let lines = r.between(4, 1_400);
    let message = match (action, pass) {
        ("check:doc-coverage", true) => {
            format!("{} changed source files, each with its docs", 1 + lines % 6)
        }
        ("check:doc-coverage", false) => "src/sync.rs changed without docs/sync.md".to_string(),
        ("check:diff-size", true) => format!("{} changed lines (limit 1500)", lines),
        ("check:diff-size", false) => {
            format!("{} changed lines, over the limit of 1500", 1_500 + lines)
        }
        ("check:secret-scan", true) => format!("no secrets in {lines} added lines"),
        ("check:secret-scan", false) => format!(
            "a token-shaped string in src/config.rs line {}",
            1 + lines % 90
        ),
        ("check:assistant-context", true) => "ASSISTANT_CONTEXT.yaml is valid".to_string(),
        ("check:assistant-context", false) => {
            "ASSISTANT_CONTEXT.yaml:3: `updated_at` has no time zone".to_string()
        }
        ("check:task-list", true) => format!("{0} of {0} tasks checked", 2 + lines % 5),
        (_, _) => format!("{} of {} tasks checked", lines % 3, 3 + lines % 3),
    };
    Record {
        stage: "review",
        agent: "agent_review",
        action: action.to_string(),
        result: if pass { "PASS" } else { "FAIL" }.into(),
        message,
    }
}

fn pipeline(green: bool) -> Record {
    Record {
        stage: "release",
        agent: "agent_release",
        action: "check:pipeline".into(),
        result: if green { "PASS" } else { "FAIL" }.into(),
        message: match green {
            true => "ci, lint: success on the head".into(),
            false => "ci: failure on the head".into(),
        },
    }
}

fn failed(records: &[Record]) -> bool {
    records.iter().any(|e| e.result == "FAIL")
}

// ------------------------------------------------------------- the registry issue

/// The registry issue and one report per agent (at most 20), posted by `council report`
/// as the workflow token's identity, a few by `alice` (its author, a member); the first
/// agent reported twice (its older report is superseded), a few reports are weeks old.
fn registry(
    world: &mut World,
    spec: &Generate,
    shared: &Shared,
    number: u64,
) -> Result<usize, GenerateError> {
    world.issues.insert(
        number,
        Issue {
            title: Some("Agent context registry".to_string()),
            author: HUMANS[0].to_string(),
            body: "Agents post their `<context-report>` here (`council report`).".to_string(),
            labels: vec!["registry".to_string()],
        },
    );
    let mut r = Rng::new(mix(spec.seed, u64::MAX - 1));
    let mut reports = Vec::new();
    for agent in 1..=shared.agents.min(20) {
        let age = match agent % 4 {
            0 => r.between(10 * DAY, 40 * DAY),
            _ => r.between(600, 2 * DAY),
        };
        reports.push((agent, shared.until - age));
        if agent == 1 {
            reports.push((agent, shared.until - r.between(20 * DAY, 30 * DAY)));
        }
    }
    reports.sort_by_key(|(_, at)| *at);
    for (agent, at) in &reports {
        let body = report_comment(*agent, *at, &mut r)?;
        let (author, association) = match agent % 5 {
            0 => (HUMANS[0], "MEMBER"),
            _ => (LEDGER_AUTHOR, "NONE"),
        };
        world.next_id += 1;
        let mut c = comment(&world.repo, world.next_id, number, author, &body);
        c["author_association"] = association.into();
        c["created_at"] = format_time(*at).into();
        c["updated_at"] = format_time(*at).into();
        world.comments.push(c);
    }
    Ok(reports.len())
}

fn report_comment(agent: usize, at: i64, r: &mut Rng) -> Result<String, GenerateError> {
    let window = 200_000;
    let used = r.between(20_000, 180_000);
    let task = 40 + r.below(30);
    let json = json!({"contextReport": {
        "agentId": format!("agent-{agent}"),
        "reportTimestamp": format_time(at),
        "modelContextSize": window,
        "contextWindow": {"totalTokens": used, "availableTokens": window - used},
        "loadedProjects": [{
            "projectId": "hello-council",
            "filesLoaded": r.between(40, 600),
            "sizeInTokens": used / 2,
            "freshness": if r.chance(0.7) { "HOT" } else { "WARM" },
        }],
        "loadedTasks": [{"taskId": format!("T{task:03}"), "relevantFiles": r.between(3, 40)}],
        "capabilities": {
            "canStartImmediately": [format!("T{task:03}")],
            "needsContextLoad": [format!("T{:03}", task + 1)],
        },
    }});
    let text = json.to_string();
    let report = context_report::parse_report(&text).map_err(|e| {
        refused(
            "registry_issue",
            format!("a generated report is refused: {e}"),
        )
    })?;
    context_report::render(&report).map_err(|e| refused("registry_issue", e))
}

// ------------------------------------------------------------------ randomness

/// SplitMix64: small, fast, and the same everywhere (no dependency for a test tool).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0 ≤ x < 1.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// 0 ≤ x < n (0 when n is 0).
    fn below(&mut self, n: u64) -> u64 {
        match n {
            0 => 0,
            _ => self.next() % n,
        }
    }

    /// lo ≤ x < hi.
    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below(hi.saturating_sub(lo).max(1) as u64) as i64
    }
}

/// A stream per (seed, pull request): one pull request's randomness never depends on
/// another's.
fn mix(seed: u64, n: u64) -> u64 {
    Rng::new(seed ^ n.wrapping_mul(0xD1B5_4A32_D192_ED03)).next()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

    use council_protocol::agent_state::TrustConfig;
    use council_protocol::audit::stored::{MARKER, parse};
    use council_protocol::audit::{ReleaseStatus, ReviewStatus};
    use council_protocol::context_report::{RegistryComment, collect};

    use super::*;

    fn small(seed: u64) -> Generate {
        Generate {
            pulls: 300,
            seed,
            registry_issue: Some(40),
            ..Generate::default()
        }
    }

    fn ledger(world: &World, n: u64) -> (&serde_json::Value, Stored) {
        let mut on = world.comments.on(n);
        let comment = on
            .next()
            .unwrap_or_else(|| panic!("#{n} has its ledger comment"));
        assert!(on.next().is_none(), "#{n}: one comment");
        let body = comment["body"].as_str().unwrap();
        assert!(body.starts_with(MARKER));
        (comment, parse(body).unwrap_or_else(|e| panic!("#{n}: {e}")))
    }

    #[test]
    fn every_ledger_comment_parses_verifies_and_tells_the_pull_requests_story() {
        let (world, made) = world(&small(1)).unwrap();
        assert_eq!(made.numbers.len(), 300);
        assert!(
            !made.numbers.contains(&40),
            "the registry issue's number is skipped"
        );
        assert_eq!(made.numbers.last(), Some(&301));
        assert_eq!(made.open + made.merged + made.closed, 300);
        let until = parse_time(&timestamp(0)).unwrap();
        let mut entries = 0;
        for &n in &made.numbers {
            let pr = world.pr(n).unwrap();
            let (comment, stored) = ledger(&world, n);
            assert_eq!(comment["user"]["login"], LEDGER_AUTHOR);
            let report = stored.verify(None).unwrap_or_else(|e| panic!("#{n}: {e}"));
            let _ = report;
            entries += stored.total_entries();
            let ctx = &stored.context;
            assert_eq!(ctx.subject.id, n);
            assert_eq!(
                ctx.subject.head_sha, pr.head_sha,
                "#{n}: the last run saw the head"
            );
            assert_eq!(ctx.subject.author, pr.author);
            // Times: opened, then updated, all before `until`.
            let created = parse_time(&pr.created_at).unwrap();
            let updated = parse_time(&pr.updated_at).unwrap();
            let commented = parse_time(comment["created_at"].as_str().unwrap()).unwrap();
            let edited = parse_time(comment["updated_at"].as_str().unwrap()).unwrap();
            assert!(
                created < commented && commented <= edited && edited < until,
                "#{n}"
            );
            assert!(
                commented <= updated && updated < until,
                "#{n}: the comment updated it"
            );
            for entry in &ctx.timeline {
                let at = parse_time(&entry.timestamp).unwrap();
                assert!(created < at && at <= edited, "#{n}: {}", entry.id);
            }
            match (pr.merged, pr.open) {
                (true, _) => {
                    let merged = pr.merged_at.as_deref().unwrap();
                    assert!(merged <= pr.updated_at.as_str());
                    assert!(matches!(
                        ctx.state.release_status,
                        ReleaseStatus::Merged | ReleaseStatus::RolledBack
                    ));
                    assert_eq!(ctx.state.review_status, ReviewStatus::Approved, "#{n}");
                    assert!(pr.labels.contains(&APPROVED_LABEL.to_string()));
                    assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
                }
                (false, false) => assert!(pr.closed_at.is_some()),
                (false, true) => assert!(pr.closed_at.is_none()),
            }
        }
        assert_eq!(entries, made.entries);
        let mean = made.entries as f64 / 300.0;
        assert!(
            (10.0..16.0).contains(&mean),
            "about 12 entries each: {mean}"
        );
        let newest = made
            .numbers
            .iter()
            .map(|n| &world.pr(*n).unwrap().updated_at)
            .max();
        assert_eq!(newest, Some(&made.newest_update));
    }

    #[test]
    fn the_same_seed_makes_the_same_world_another_seed_another() {
        let (a, made_a) = world(&small(7)).unwrap();
        let (b, made_b) = world(&small(7)).unwrap();
        assert_eq!(made_a, made_b);
        assert_eq!(a.pulls, b.pulls);
        assert_eq!(*a.comments, *b.comments);
        // Seed 7's figures, from one version of the generator to the next: a change
        // that moves them changes every benchmark's world, and says so here.
        assert_eq!(
            (
                made_a.open,
                made_a.merged,
                made_a.closed,
                made_a.reverted,
                made_a.entries
            ),
            (28, 232, 40, 3, 3_939)
        );
        let (c, made_c) = world(&small(8)).unwrap();
        assert_ne!(made_a.entries, made_c.entries);
        assert_ne!(a.pulls, c.pulls);
    }

    #[test]
    fn a_signed_world_verifies_with_its_key_only() {
        let spec = Generate {
            pulls: 20,
            hmac_key: Some("a secret key".to_string()),
            ..Generate::default()
        };
        let (world, made) = world(&spec).unwrap();
        for n in made.numbers {
            let (_, stored) = ledger(&world, n);
            assert!(stored.verify(Some(b"a secret key")).is_ok(), "#{n}");
            assert!(stored.verify(Some(b"another key")).is_err(), "#{n}");
            assert!(
                stored
                    .context
                    .timeline
                    .iter()
                    .all(|e| e.signature.is_some())
            );
        }
    }

    #[test]
    fn the_registry_holds_each_agents_latest_trusted_report() {
        let (world, made) = world(&small(1)).unwrap();
        assert_eq!(made.reports, 9, "8 agents, the first twice");
        let issue = &world.issues[&40];
        let comments: Vec<&serde_json::Value> = world.comments.on(40).collect();
        let comments: Vec<RegistryComment<'_>> = comments
            .iter()
            .map(|c| RegistryComment {
                id: c["id"].as_u64().unwrap(),
                author: c["user"]["login"].as_str().unwrap(),
                association: c["author_association"].as_str().unwrap(),
                body: c["body"].as_str().unwrap(),
                html_url: c["html_url"].as_str().unwrap(),
            })
            .collect();
        let trust = TrustConfig {
            issue_author: issue.author.clone(),
            token_login: Some(LEDGER_AUTHOR.to_string()),
            trusted_logins: Vec::new(),
        };
        let now = chrono::DateTime::from_timestamp(parse_time(&timestamp(0)).unwrap(), 0).unwrap();
        let registry = collect(&comments, &trust, now);
        assert!(registry.warnings.is_empty(), "{:?}", registry.warnings);
        assert_eq!(registry.reports_read, 9);
        assert_eq!(registry.superseded, 1);
        assert_eq!(registry.ignored_untrusted, 0);
        let agents: Vec<&str> = registry
            .candidates
            .iter()
            .map(|c| c.agent_id.as_str())
            .collect();
        assert_eq!(
            agents,
            [
                "agent-1", "agent-2", "agent-3", "agent-4", "agent-5", "agent-6", "agent-7",
                "agent-8"
            ]
        );
    }

    #[test]
    fn numbers_the_world_uses_are_left_alone_and_bad_specs_are_refused() {
        let fresh = || {
            let mut w = World::new(crate::REPO);
            w.pulls.insert(2, PullRequest::new(2, "Codertocat"));
            w.issues.insert(3, Issue::default());
            w
        };
        let mut w = fresh();
        let made = fill(
            &mut w,
            &Generate {
                pulls: 5,
                ..Generate::default()
            },
        )
        .unwrap();
        assert_eq!(made.numbers, [1, 4, 5, 6, 7]);
        assert!(w.branches.contains_key(TARGET));

        let refused = |spec: Generate| fill(&mut fresh(), &spec).unwrap_err().field;
        let base = Generate::default;
        assert_eq!(
            refused(Generate {
                registry_issue: Some(2),
                ..base()
            }),
            "registry_issue"
        );
        assert_eq!(
            refused(Generate {
                registry_issue: Some(0),
                ..base()
            }),
            "registry_issue"
        );
        assert_eq!(
            refused(Generate {
                agents: 0,
                ..base()
            }),
            "agents"
        );
        assert_eq!(
            refused(Generate {
                entries_per_pull: 0,
                ..base()
            }),
            "entries_per_pull"
        );
        assert_eq!(refused(Generate { weeks: 0, ..base() }), "weeks");
        assert_eq!(
            refused(Generate {
                until: "yesterday".into(),
                ..base()
            }),
            "until"
        );
        assert_eq!(
            refused(Generate {
                hmac_key: Some(String::new()),
                ..base()
            }),
            "hmac_key"
        );
    }

    #[test]
    fn many_entries_are_compacted_into_a_comment_that_still_verifies() {
        let spec = Generate {
            pulls: 3,
            entries_per_pull: 400,
            ..Generate::default()
        };
        let (world, made) = world(&spec).unwrap();
        assert_eq!(made.artifacts, 3, "each compacted comment has its artifact");
        for n in made.numbers {
            let (comment, stored) = ledger(&world, n);
            assert!(comment["body"].as_str().unwrap().chars().count() < stored::COMMENT_LIMIT);
            assert!(stored.verify(None).is_ok(), "#{n}");
            assert!(stored.omitted.count > 0, "#{n} compacted");
            // The artifact holds the whole object: the omitted entries and the tail.
            let artifact = world
                .artifacts
                .iter()
                .find(|a| a.name == format!("audit-PR-{n}"))
                .expect("artifact");
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&artifact.zip)).unwrap();
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut zip.by_name(&format!("PR-{n}.json")).unwrap(),
                &mut text,
            )
            .unwrap();
            let whole = Stored::from_file(serde_json::from_str(&text).unwrap());
            assert!(whole.verify(None).is_ok(), "#{n}");
            assert_eq!(whole.omitted.count, 0);
            assert_eq!(
                whole.context.timeline.len(),
                stored.omitted.count + stored.context.timeline.len()
            );
        }
        let (small, made) = super::world(&Generate::default()).unwrap();
        assert_eq!(
            (made.artifacts, small.artifacts.len()),
            (0, 0),
            "12 entries fit"
        );
    }

    #[test]
    fn opening_times_have_weeks_of_shape() {
        let spec = Generate {
            pulls: 2_000,
            ..Generate::default()
        };
        let (world, _) = world(&spec).unwrap();
        let mut per_week = std::collections::BTreeMap::<i64, usize>::new();
        let mut weekend = 0;
        for pr in world.pulls.values() {
            let at = parse_time(&pr.created_at).unwrap();
            *per_week.entry(at.div_euclid(WEEK)).or_default() += 1;
            weekend += usize::from(weekday(at) >= 5);
        }
        assert!(per_week.len() >= 12, "{per_week:?}");
        let (low, high) = (
            per_week.values().min().unwrap(),
            per_week.values().max().unwrap(),
        );
        assert!(high > &(low * 2), "busy weeks and quiet ones: {per_week:?}");
        // Two days in seven is 28 %: most weekend draws move to a weekday.
        assert!(weekend < 2_000 * 15 / 100, "fewer on weekends: {weekend}");
    }
}
