//! The merge queue on a simulated day (issue 28 §2): a benchmark that reports figures,
//! not a timed test. The real `council` binary is driven by the events a workflow would
//! deliver, against the fake GitHub with its commit graph and CI model, on simulated
//! time (the fake's clock):
//!
//! - 50 pull requests arrive over time (a seeded draw, about 5 minutes apart); each one's
//!   own CI reports green 10 minutes after it arrives, and release decides it then (the
//!   `check_suite` of its head);
//! - the repository's CI runs on every push to `council/queue/**` and takes 10 minutes;
//!   it is red when a tree holds a pull request that is really broken (5 % of them,
//!   drawn: green on their own head, red on the base) or both halves of a pair that is
//!   green alone and red together (3 pairs);
//! - someone moves the base by hand twice (a hotfix, with its `push`);
//! - every completed CI run on a queue commit is a `check_suite` event, every move of the
//!   base a `push`, and a `schedule` comes every 10 minutes while anything is queued.
//!
//! Three runs on the same arrivals: the queue with `batch_size` 1, with 4, and the
//! direct merge (no queue: release merges each green head, CI then runs on the base).
//! Reported: pull requests landed per hour of simulated time (first arrival to last
//! landing), CI runs per landing, queue commits and rebuilds by reason, and for the
//! direct merge the red commits the base received. Checked, for each queue run: every
//! commit the release token moved the base to was tested green on the queue branch as
//! that exact commit, before the move, by a fast-forward (nothing untested landed); no
//! pull request's own branch was written by anything but its author's pushes.
//!
//! Also printed: the API requests council made per run, by event (the rate-limit budget);
//! `QUEUE_BENCH_ROUTES=1` prints every run's requests by route.
//!
//! Run: `cargo bench --bench queue` (builds the release `council`; `COUNCIL_BIN=path`
//! runs another build; `QUEUE_BENCH_PRS=20` a shorter day). Prints one table.

#![allow(clippy::unwrap_used)] // a measurement: a panic is its failure, with the message
#![allow(clippy::string_slice)] // SHAs and names the benchmark made itself

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use council_fake_github::REPO;
use council_fake_github::ci::{Ci, Condition};
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::routes::lock;
use council_fake_github::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};
use council_protocol::audit::stored::{MARKER, parse};
use serde_json::{Value, json};

const BASE: &str = "master";
const QUEUE: &str = "council/queue/master";
const CI_MINUTES: u32 = 10;
const SCHEDULE_MINUTES: i64 = 10;
const PAIRS: usize = 3;
const HAND_MOVES: [i64; 2] = [60, 150];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Queue { batch: u32 },
    Direct,
}

impl Mode {
    fn name(self) -> String {
        match self {
            Mode::Queue { batch } => format!("queue, batch_size {batch}"),
            Mode::Direct => "direct merge".to_string(),
        }
    }
}

/// The day's pull requests, the same for every run.
#[derive(Debug, Clone)]
struct Day {
    /// Arrival minute of pull request `i + 1`.
    arrivals: Vec<i64>,
    broken: BTreeSet<u64>,
    pairs: Vec<(u64, u64)>,
}

/// A small deterministic generator (xorshift64*): the same day every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Day {
    fn draw(prs: u64) -> Day {
        let mut rng = Rng(0x5EED_2028);
        let mut at = 0.0;
        let mut arrivals = Vec::new();
        let mut broken = BTreeSet::new();
        for n in 1..=prs {
            // About 5 minutes apart (1 to 9).
            at += 1.0 + 8.0 * rng.unit();
            arrivals.push(at.round() as i64);
            if rng.unit() < 0.05 {
                broken.insert(n);
            }
        }
        // Pairs of neighbours (so that a batch of 4 often holds both), none broken.
        let mut pairs = Vec::new();
        let mut n = 4;
        while pairs.len() < PAIRS && n < prs {
            if !broken.contains(&n) && !broken.contains(&(n + 1)) {
                pairs.push((n, n + 1));
                n += prs / PAIRS as u64;
            } else {
                n += 1;
            }
        }
        Day {
            arrivals,
            broken,
            pairs,
        }
    }

    /// The files pull request `n` writes.
    fn files(&self, n: u64) -> Vec<(String, String)> {
        let mut text = format!("pub fn pr_{n}() {{}}\n");
        if self.broken.contains(&n) {
            text.push_str("// BROKEN: green on its own head, red on the base\n");
        }
        let mut files = vec![(format!("src/pr_{n}.rs"), text)];
        for (k, (a, b)) in self.pairs.iter().enumerate() {
            if n == *a || n == *b {
                let half = if n == *a { "a" } else { "b" };
                files.push((format!("src/pair_{k}_{half}.rs"), format!("PAIR-{k}\n")));
            }
        }
        files
    }

    fn ci(&self, branches: &[&str]) -> Ci {
        let mut red = vec![Condition::Contains("BROKEN".into())];
        for k in 0..self.pairs.len() {
            let half = |h: &str| Condition::FileContains {
                path: format!("src/pair_{k}_{h}.rs"),
                text: format!("PAIR-{k}"),
            };
            red.push(Condition::All(vec![half("a"), half("b")]));
        }
        Ci::on(branches).checks(&[("ci", CI_MINUTES)]).red_when(red)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Arrive(u64),
    /// A pull request's own CI reported green: release decides it.
    HeadGreen(u64),
    HandMove(usize),
    /// CI finished on this queue commit (index into `shas`).
    QueueChecked(usize),
    Schedule,
}

/// What one simulated day came to.
#[derive(Debug, Default)]
struct Figures {
    landed: usize,
    dequeued: usize,
    minutes: i64,
    ci_runs: usize,
    queue_commits: usize,
    rebuilds: BTreeMap<&'static str, usize>,
    red_base_commits: usize,
    runs: usize,
    exits: BTreeMap<i32, usize>,
    hand_moves: usize,
    /// Per event name: council runs, API requests in all, the most in one run.
    requests: BTreeMap<String, (u64, u64, u64)>,
    problems: Vec<String>,
}

struct Sim {
    gh: FakeGitHub,
    day: Day,
    mode: Mode,
    bin: PathBuf,
    events: BTreeMap<(i64, u64), Event>,
    seq: u64,
    run_id: u64,
    /// The world clock at minute 0 (seconds since 1970).
    epoch: i64,
    ci_seen: usize,
    shas: Vec<String>,
    pushed: String,
    first_arrival: i64,
    last_landing: i64,
    figures: Figures,
}

impl Sim {
    fn new(gh: FakeGitHub, day: Day, mode: Mode, bin: PathBuf) -> Sim {
        let queue = match mode {
            Mode::Queue { batch } => {
                format!("queue:\n  enabled: true\n  batch_size: {batch}\n  timeout_minutes: 60\n")
            }
            Mode::Direct => String::new(),
        };
        let policy = format!(
            "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [{BASE}]\n\
             release:\n  require_label: \"\"\n{queue}"
        );
        gh.writes_not_checked("a benchmark: it checks its invariants itself");
        gh.commit_on(
            BASE,
            &[
                ("README.md", "a day of the merge queue\n"),
                (".github/council.yml", &policy),
            ],
            "init",
        );
        gh.protect(BASE).bypass(RELEASE_LOGIN);
        let ci = match mode {
            Mode::Queue { .. } => day.ci(&["council/queue/**"]),
            Mode::Direct => day.ci(&[BASE]),
        };
        gh.ci(ci);
        let epoch = lock(&gh.world).clock_now();
        let pushed = gh.branch_head(BASE).unwrap();
        let mut sim = Sim {
            gh,
            day,
            mode,
            bin,
            events: BTreeMap::new(),
            seq: 0,
            run_id: 10_000,
            epoch,
            ci_seen: 0,
            shas: Vec::new(),
            pushed,
            first_arrival: 0,
            last_landing: 0,
            figures: Figures::default(),
        };
        sim.ci_seen = sim.gh.ci_run_list().len();
        for (i, at) in sim.day.arrivals.clone().into_iter().enumerate() {
            sim.at(at, Event::Arrive(i as u64 + 1));
        }
        sim.first_arrival = sim.day.arrivals.first().copied().unwrap_or(0);
        for (k, at) in HAND_MOVES.iter().enumerate() {
            sim.at(*at, Event::HandMove(k));
        }
        if matches!(mode, Mode::Queue { .. }) {
            sim.at(SCHEDULE_MINUTES, Event::Schedule);
        }
        sim
    }

    fn at(&mut self, minute: i64, event: Event) {
        self.seq += 1;
        self.events.insert((minute, self.seq), event);
    }

    /// The simulated minute the world clock is at.
    fn minute(&self) -> i64 {
        (lock(&self.gh.world).clock - self.epoch) / 60
    }

    /// The world clock moved to `minute` (never back): CI runs complete as it passes.
    fn advance_to(&mut self, minute: i64) {
        let now = self.minute();
        if minute > now {
            self.gh.advance_minutes((minute - now) as u32);
        }
    }

    fn day(&mut self) -> Figures {
        let mut guard = 0;
        while let Some(((minute, _), event)) = self.events.pop_first() {
            guard += 1;
            assert!(guard < 5_000, "the simulation does not settle");
            self.advance_to(minute);
            match event {
                Event::Arrive(n) => {
                    let files = self.day.files(n);
                    let files: Vec<(&str, &str)> = files
                        .iter()
                        .map(|(p, t)| (p.as_str(), t.as_str()))
                        .collect();
                    // Opened now (the fake's made-up times would move its clock on).
                    let now = lock(&self.gh.world).now();
                    self.gh
                        .pr(n)
                        .created_at(&now)
                        .updated_at(&now)
                        .base(BASE)
                        .author(&format!("agent-{}", n % 7))
                        .commit(&files, &format!("change {n}"));
                    self.at(minute + i64::from(CI_MINUTES), Event::HeadGreen(n));
                }
                Event::HeadGreen(n) => {
                    let head = self.gh.pr(n).head_sha();
                    self.gh.pr(n).check_run("ci", "completed", Some("success"));
                    let payload = check_suite(&head, &format!("feature/pr-{n}"), "change");
                    self.council("check_suite", payload);
                }
                Event::HandMove(k) => {
                    self.gh
                        .push_to(BASE)
                        .file(&format!("HOTFIX-{k}.md"), "a fix by hand\n")
                        .message("hotfix by hand")
                        .by("alice")
                        .done();
                    self.figures.hand_moves += 1;
                }
                Event::QueueChecked(i) => {
                    let sha = self.shas[i].clone();
                    let message = self
                        .gh
                        .commit_state(&sha)
                        .map(|c| c.message)
                        .unwrap_or_default();
                    self.council("check_suite", check_suite(&sha, QUEUE, &message));
                }
                Event::Schedule => {
                    self.council("schedule", json!({"schedule": "*/10 * * * *"}));
                    if self.busy() {
                        self.at(minute + SCHEDULE_MINUTES, Event::Schedule);
                    }
                }
            }
            self.after();
        }
        self.finish()
    }

    /// Anything still queued or in test, or still to arrive.
    fn busy(&self) -> bool {
        let w = lock(&self.gh.world);
        let queued = w
            .pulls
            .values()
            .any(|p| p.open && p.labels.iter().any(|l| l == "council:queued"));
        queued
            || w.branches.contains_key(QUEUE)
            || self
                .events
                .values()
                .any(|e| matches!(e, Event::Arrive(_) | Event::HeadGreen(_)))
    }

    /// What the world did meanwhile: new CI runs (their completions become events),
    /// and a moved base (its `push`).
    fn after(&mut self) {
        loop {
            let runs = self.gh.ci_run_list();
            for run in &runs[self.ci_seen..] {
                if run.branch.starts_with("council/queue/") {
                    self.shas.push(run.sha.clone());
                    let done = (run.started - self.epoch) / 60 + i64::from(CI_MINUTES);
                    self.at(done, Event::QueueChecked(self.shas.len() - 1));
                }
            }
            self.ci_seen = runs.len();
            let head = self.gh.branch_head(BASE).unwrap();
            if head == self.pushed {
                return;
            }
            let before = std::mem::replace(&mut self.pushed, head.clone());
            if self.mode == Mode::Direct {
                continue;
            }
            let payload = json!({
                "ref": format!("refs/heads/{BASE}"),
                "before": before,
                "after": head,
                "created": false,
                "deleted": false,
                "forced": false,
                "head_commit": {"id": head},
                "repository": {"full_name": REPO},
            });
            self.council("push", payload);
        }
    }

    /// One run of the action on `event`, as the runner runs it.
    fn council(&mut self, event: &str, payload: Value) {
        self.run_id += 1;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("event.json");
        std::fs::write(&path, payload.to_string()).unwrap();
        let api = self.gh.uri();
        let started = std::time::Instant::now();
        let (served, routes) = {
            let w = lock(&self.gh.world);
            (w.counts.total, w.counts.by_route.clone())
        };
        let out = Command::new(&self.bin)
            .env_clear()
            .current_dir(dir.path())
            .envs([
                ("GITHUB_ACTIONS", "true"),
                ("GITHUB_REPOSITORY", REPO),
                ("GITHUB_REPOSITORY_ID", "186853002"),
                ("GITHUB_RUN_ATTEMPT", "1"),
                ("GITHUB_JOB", "council"),
                ("GITHUB_SERVER_URL", "https://github.com"),
                ("COUNCIL_RETRY_BASE_MS", "1"),
                ("INPUT_COMMAND", "auto"),
                ("INPUT_GITHUB-TOKEN", WORKFLOW_TOKEN),
                ("INPUT_RELEASE-TOKEN", RELEASE_TOKEN),
                ("INPUT_POLICY", ".github/council.yml"),
                ("INPUT_UPLOAD-ARTIFACT", "false"),
                ("GITHUB_EVENT_NAME", event),
            ])
            .env("GITHUB_RUN_ID", self.run_id.to_string())
            .env("GITHUB_API_URL", &api)
            .env("GITHUB_GRAPHQL_URL", format!("{api}/graphql"))
            .env("GITHUB_EVENT_PATH", &path)
            .env("GITHUB_WORKSPACE", dir.path())
            .env("GITHUB_OUTPUT", dir.path().join("output"))
            .env("GITHUB_STEP_SUMMARY", dir.path().join("summary"))
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        if std::env::var_os("QUEUE_BENCH_DEBUG").is_some() {
            eprintln!(
                "minute {} run {} {event} exit {code} in {:?}\n{}",
                self.minute(),
                self.run_id,
                started.elapsed(),
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter(|l| l.starts_with("::error") || l.starts_with("::warning"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        self.figures.runs += 1;
        *self.figures.exits.entry(code).or_default() += 1;
        let used = lock(&self.gh.world).counts.total - served;
        if std::env::var_os("QUEUE_BENCH_ROUTES").is_some() {
            let w = lock(&self.gh.world);
            let by: Vec<String> = w
                .counts
                .by_route
                .iter()
                .filter_map(|(route, n)| {
                    let before = routes.get(route).copied().unwrap_or(0);
                    (*n > before).then(|| format!("{} {route}", n - before))
                })
                .collect();
            eprintln!(
                "run {} {event}: {used} requests: {}",
                self.run_id,
                by.join(", ")
            );
        }
        let seen = self.figures.requests.entry(event.to_string()).or_default();
        *seen = (seen.0 + 1, seen.1 + used, seen.2.max(used));
        if !matches!(code, 0 | 1) {
            self.figures.problems.push(format!(
                "run {} ({event}) exited {code}: {}",
                self.run_id,
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter(|l| l.starts_with("::error"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
    }

    fn finish(&mut self) -> Figures {
        let mut f = std::mem::take(&mut self.figures);
        let w = lock(&self.gh.world);
        let merged: Vec<&council_fake_github::world::PullRequest> =
            w.pulls.values().filter(|p| p.merged).collect();
        f.landed = merged.len();
        self.last_landing = merged
            .iter()
            .filter_map(|p| p.merged_at.as_deref())
            .filter_map(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| (t.timestamp() - self.epoch) / 60)
            .max()
            .unwrap_or(0);
        f.minutes = self.last_landing - self.first_arrival;
        let runs = &w.ci_runs;
        let on = |prefix: &'static str| runs.iter().filter(move |r| r.branch.starts_with(prefix));
        f.ci_runs = match self.mode {
            Mode::Queue { .. } => on("council/queue/").count(),
            Mode::Direct => on(BASE).count(),
        };
        f.red_base_commits = on(BASE).filter(|r| r.red).count();
        // The queue's records: queue commits made, by why, and pull requests dequeued.
        let mut commits: BTreeMap<String, &'static str> = BTreeMap::new();
        for comment in w.comments.iter() {
            let Some(body) = comment["body"].as_str() else {
                continue;
            };
            if !body.contains(MARKER) {
                continue;
            }
            let Ok(stored) = parse(body) else { continue };
            for e in &stored.context.timeline {
                if e.action == "check:queue" && e.result == "FAIL" {
                    f.dequeued += 1;
                }
                if e.action != "action:queue-test" {
                    continue;
                }
                let Some(sha) = e
                    .message
                    .split("in the queue commit ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                else {
                    continue;
                };
                let why = if e.message.contains("the base moved") {
                    "base moved"
                } else if e.message.contains("made again without") {
                    "dropped"
                } else if e.message.contains("first half of the red batch") {
                    "split"
                } else if e.message.contains("did not write") {
                    "foreign branch"
                } else {
                    "next in line"
                };
                commits.insert(sha.trim_matches('"').to_string(), why);
            }
        }
        f.queue_commits = commits.len();
        for why in commits.values() {
            *f.rebuilds.entry(why).or_default() += 1;
        }
        if matches!(self.mode, Mode::Queue { .. }) {
            f.problems.extend(check_invariants(&w));
        }
        f
    }
}

/// The invariants of a queue run, from what the world recorded.
fn check_invariants(w: &council_fake_github::world::World) -> Vec<String> {
    let mut problems = Vec::new();
    let tested_green: BTreeMap<&str, i64> = w
        .ci_runs
        .iter()
        .filter(|r| r.branch == QUEUE && !r.red)
        .map(|r| (r.sha.as_str(), r.started + i64::from(CI_MINUTES) * 60))
        .collect();
    for write in w.ref_log.get(BASE).into_iter().flatten() {
        if write.token.as_deref() != Some(RELEASE_TOKEN) {
            continue;
        }
        let Some(sha) = &write.sha else {
            problems.push("the release token deleted the base".into());
            continue;
        };
        let at = chrono::DateTime::parse_from_rfc3339(&write.at)
            .map(|t| t.timestamp())
            .unwrap_or(i64::MAX);
        match tested_green.get(sha.as_str()) {
            Some(done) if *done <= at && !write.forced => {}
            Some(_) if write.forced => {
                problems.push(format!("{} landed by a forced update", &sha[..7]))
            }
            Some(_) => problems.push(format!("{} landed before its CI finished", &sha[..7])),
            None => problems.push(format!(
                "{} landed without a green test as that commit",
                &sha[..7]
            )),
        }
    }
    for pr in w.pulls.values() {
        for write in w.ref_log.get(&pr.head_ref).into_iter().flatten() {
            if write.token.is_some() {
                problems.push(format!(
                    "#{}'s branch {} was written by {}",
                    pr.number, pr.head_ref, write.login
                ));
            }
        }
    }
    problems
}

/// A `check_suite.completed` payload for commit `sha` on `branch`, its commit named.
fn check_suite(sha: &str, branch: &str, message: &str) -> Value {
    json!({
        "action": "completed",
        "check_suite": {
            "head_sha": sha,
            "head_branch": branch,
            "status": "completed",
            "conclusion": "success",
            "pull_requests": [],
            "head_commit": {"id": sha, "message": message},
        },
        "repository": {"full_name": REPO},
    })
}

fn binary() -> PathBuf {
    std::env::var_os("COUNCIL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_council")))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it as a quick check.
    let quick =
        std::env::args().any(|a| a == "--test") && std::env::var_os("QUEUE_BENCH_PRS").is_none();
    let prs: u64 = std::env::var("QUEUE_BENCH_PRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 6 } else { 50 });
    let day = Day::draw(prs);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "merge queue benchmark: {prs} pull requests over {} minutes; really broken: {:?}; \
         green alone, red together: {:?}; the base moved by hand at minutes {:?}; CI {CI_MINUTES} min",
        day.arrivals.last().copied().unwrap_or(0),
        day.broken,
        day.pairs,
        HAND_MOVES
    );
    println!(
        "| run | landed | dequeued | hours | landed/hour | CI runs | CI runs/landing | queue commits | rebuilds | red base commits | council runs | invariants |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failed = false;
    let modes = [
        Mode::Queue { batch: 1 },
        Mode::Queue { batch: 4 },
        Mode::Direct,
    ];
    // The three days run side by side (each its own fake GitHub): a run mostly waits.
    let days: Vec<(Mode, Figures)> = std::thread::scope(|scope| {
        let running: Vec<_> = modes
            .iter()
            .map(|&mode| {
                let handle = runtime.handle().clone();
                let day = day.clone();
                scope.spawn(move || {
                    let gh = handle.block_on(FakeGitHub::start());
                    (mode, Sim::new(gh, day, mode, binary()).day())
                })
            })
            .collect();
        running.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for (mode, f) in days {
        let hours = f.minutes as f64 / 60.0;
        let rebuilds: usize = f
            .rebuilds
            .iter()
            .filter(|(why, _)| **why != "next in line")
            .map(|(_, n)| n)
            .sum();
        let why: Vec<String> = f
            .rebuilds
            .iter()
            .filter(|(why, _)| **why != "next in line")
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        let invariants = match (mode, f.problems.is_empty()) {
            (Mode::Direct, _) => "n/a".to_string(),
            (_, true) => "hold".to_string(),
            (_, false) => {
                failed = true;
                format!("BROKEN: {}", f.problems.join("; "))
            }
        };
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {} | {} | {} | {}{} | {} | {} | {} |",
            mode.name(),
            f.landed,
            f.dequeued,
            hours,
            if hours > 0.0 {
                f.landed as f64 / hours
            } else {
                0.0
            },
            f.ci_runs,
            if f.landed > 0 {
                format!("{:.2}", f.ci_runs as f64 / f.landed as f64)
            } else {
                "-".into()
            },
            if mode == Mode::Direct {
                "-".to_string()
            } else {
                f.queue_commits.to_string()
            },
            rebuilds,
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join(", "))
            },
            f.red_base_commits,
            f.runs,
            invariants
        );
        for (event, (runs, total, most)) in &f.requests {
            eprintln!(
                "{}: {event}: {runs} runs, {:.1} API requests a run, at most {most}",
                mode.name(),
                *total as f64 / *runs as f64
            );
        }
        eprintln!(
            "{}: exit codes {:?}, {} hand moves{}",
            mode.name(),
            f.exits,
            f.hand_moves,
            if mode == Mode::Direct && !f.problems.is_empty() {
                format!("; {}", f.problems.join("; "))
            } else {
                String::new()
            }
        );
    }
    assert!(
        !failed,
        "an invariant of the merge queue broke (see the table)"
    );
}
