//! A small GitHub in memory, driven by the queue's plan the way the app will drive it,
//! and SPEC's invariants checked over generated histories: random arrivals, pull
//! requests red alone or red in pairs, conflicts, base moves by hand (between runs and
//! under a landing), pushes to the queue branch by someone else, pull requests that are
//! closed, unlabelled, pushed to, fail a gate or wait, CI that never reports.
//!
//! Commits are sets of pull request ids (what they hold); a CI oracle says red when a
//! set holds a pull request red alone or both of a red pair. The same model measures the
//! queue (`queue_model_report`): landed per hour, CI runs per landing, rebuilds.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, TimeZone, Utc};

use crate::gates::release::{CheckFact, CheckKind, CheckState, Pipeline};
use crate::policy::Policy;
use crate::queue::*;
use crate::render::text::Message;
use crate::stage::Effect;

const BOT: &str = "council-bot[bot]";
const BASE: &str = "main";
const QUEUE: &str = "council/queue/main";
const SCRATCH: &str = "council/queue-build/main";
const LABEL: &str = "council:queued";

#[derive(Debug, Clone)]
struct Commit {
    parents: Vec<usize>,
    /// The pull requests it holds.
    holds: BTreeSet<u64>,
    message: String,
    by: Option<String>,
    at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Landed,
    /// Red, timed out or conflicting: `check:queue` FAIL.
    Dequeued,
    /// Left for something done to it (closed, unlabelled, pushed to, a gate failing).
    Left,
}

#[derive(Debug, Clone)]
struct Pr {
    head: usize,
    open: bool,
    merged: bool,
    labelled: bool,
    queued_at: i64,
    urgent: bool,
    head_moved: bool,
    fails_gate: bool,
    waits_until: i64,
    conflicts: bool,
    fate: Option<Fate>,
    /// Something was done to it by hand.
    touched: bool,
    /// How it left, when it did by `check:queue` FAIL.
    failed_by: Option<&'static str>,
}

/// A CI run on a commit: when it reports, and what.
#[derive(Debug, Clone, Copy)]
struct Ci {
    done_at: i64,
    green: bool,
    hangs: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Arrive(u64),
    CiDone,
    HandMove,
    Tick,
    Touch(u64, u8),
    ForeignPush,
}

/// What happened, for the report and the invariants.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub landed_prs: usize,
    pub landings: usize,
    pub ci_runs: usize,
    pub commits_built: usize,
    pub rebuilds: BTreeMap<&'static str, usize>,
    pub dequeued: usize,
    pub left: usize,
    pub hand_moves: usize,
    pub foreign_pushes: usize,
    pub refused: usize,
    pub runs: usize,
    pub last_landing: i64,
    pub first_arrival: i64,
    pub red_base_commits: usize,
}

/// The world: GitHub's part (commits, branches, pull requests, CI) and the scenario's.
struct World {
    commits: Vec<Commit>,
    branches: BTreeMap<String, usize>,
    prs: BTreeMap<u64, Pr>,
    ci: BTreeMap<usize, Ci>,
    now: i64,
    events: BTreeMap<(i64, u64), Event>,
    seq: u64,
    broken: BTreeSet<u64>,
    pairs: Vec<(u64, u64)>,
    ci_minutes: i64,
    hang: BTreeSet<usize>,
    /// Move the base by hand right before this many landings (under the landing).
    move_under_landing: usize,
    policy: Policy,
    tally: Tally,
    /// Queue commits council made, and whether each was decided on (landed, failed,
    /// made again or lost to a push by hand).
    ours: BTreeMap<usize, Option<&'static str>>,
    /// Commits the base was fast-forwarded to by the queue.
    landed_commits: Vec<usize>,
}

fn sha(id: usize) -> String {
    format!("{:040x}", id + 1)
}

fn id_of(sha: &str) -> usize {
    usize::from_str_radix(sha, 16).unwrap() - 1
}

fn time(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap() + Duration::minutes(minute)
}

impl World {
    fn new(policy: Policy, ci_minutes: i64) -> World {
        let root = Commit {
            parents: vec![],
            holds: BTreeSet::new(),
            message: "root".into(),
            by: Some("alice".into()),
            at: 0,
        };
        World {
            commits: vec![root],
            branches: BTreeMap::from([(BASE.to_string(), 0)]),
            prs: BTreeMap::new(),
            ci: BTreeMap::new(),
            now: 0,
            events: BTreeMap::new(),
            seq: 0,
            broken: BTreeSet::new(),
            pairs: Vec::new(),
            ci_minutes,
            hang: BTreeSet::new(),
            move_under_landing: 0,
            policy,
            tally: Tally::default(),
            ours: BTreeMap::new(),
            landed_commits: Vec::new(),
        }
    }

    fn at(&mut self, minute: i64, event: Event) {
        self.seq += 1;
        self.events.insert((minute, self.seq), event);
    }

    fn commit(
        &mut self,
        parents: Vec<usize>,
        holds: BTreeSet<u64>,
        message: &str,
        by: &str,
    ) -> usize {
        self.commits.push(Commit {
            parents,
            holds,
            message: message.into(),
            by: Some(by.into()),
            at: self.now,
        });
        self.commits.len() - 1
    }

    /// The CI oracle: red when the commit holds a pull request red alone, or a red pair.
    fn red(&self, holds: &BTreeSet<u64>) -> bool {
        holds.iter().any(|p| self.broken.contains(p))
            || self
                .pairs
                .iter()
                .any(|(a, b)| holds.contains(a) && holds.contains(b))
    }

    fn base(&self) -> usize {
        self.branches[BASE]
    }

    fn is_ancestor(&self, old: usize, new: usize) -> bool {
        let mut stack = vec![new];
        let mut seen = BTreeSet::new();
        while let Some(c) = stack.pop() {
            if c == old {
                return true;
            }
            if seen.insert(c) {
                stack.extend(&self.commits[c].parents);
            }
        }
        false
    }

    /// A push to the queue branch starts CI on its commit (once per commit).
    fn pushed_queue(&mut self, commit: usize) {
        if self.ci.contains_key(&commit) {
            return;
        }
        let ours = self.ours.contains_key(&commit);
        let hangs = ours && self.hang.contains(&self.tally.ci_runs);
        let green = !self.red(&self.commits[commit].holds);
        let done_at = self.now + self.ci_minutes;
        self.ci.insert(
            commit,
            Ci {
                done_at,
                green,
                hangs,
            },
        );
        if ours {
            self.tally.ci_runs += 1;
        }
        if !hangs {
            self.at(done_at, Event::CiDone);
        }
    }

    // ---- What the app reads --------------------------------------------------------

    fn facts(&self) -> QueueFacts {
        let branch = self.branches.get(QUEUE).map(|tip| {
            let mut walk = vec![self.commit_fact(*tip)];
            while walk.len() < 16 {
                let Some(parent) = next_in_chain(walk.last().unwrap()) else {
                    break;
                };
                walk.push(self.commit_fact(id_of(parent)));
            }
            let checks = match self.ci.get(tip) {
                None => vec![],
                Some(run) => {
                    let state = if run.hangs || self.now < run.done_at {
                        CheckState::Pending("in progress".into())
                    } else if run.green {
                        CheckState::Success
                    } else {
                        CheckState::Red("failure".into())
                    };
                    vec![CheckFact {
                        name: "ci".into(),
                        kind: CheckKind::Run,
                        state,
                        id: None,
                        url: None,
                    }]
                }
            };
            QueueBranch::from_commits(
                &walk,
                Pipeline {
                    sha: sha(*tip),
                    checks,
                    complete: true,
                    ..Pipeline::default()
                },
            )
            .unwrap()
        });
        // Open labelled pull requests, and those the queue commit's merges name.
        let named: BTreeSet<u64> = branch
            .iter()
            .flat_map(|b| {
                b.chain
                    .links
                    .iter()
                    .filter_map(|l| l.note.as_ref().map(|n| n.pull))
            })
            .collect();
        let pulls = self
            .prs
            .iter()
            .filter(|(n, p)| (p.open && p.labelled) || named.contains(n))
            .map(|(n, p)| QueuedPr {
                number: *n,
                head_sha: sha(p.head),
                state: match (p.open, p.merged) {
                    (true, _) => PrState::Open,
                    (false, true) => PrState::Merged,
                    (false, false) => PrState::Closed,
                },
                labels: [
                    p.labelled.then(|| LABEL.to_string()),
                    p.urgent.then(|| "queue:urgent".to_string()),
                ]
                .into_iter()
                .flatten()
                .collect(),
                queued_at: Some(time(p.queued_at)),
                head_moved: p.head_moved,
                retargeted: false,
                verdict: Some(if p.fails_gate {
                    LiveVerdict::Fail {
                        gates: vec![
                            crate::gates::guard::target_gate()
                                .fail(Message::new().text("retargeted"), None),
                        ],
                    }
                } else if self.now < p.waits_until {
                    LiveVerdict::Waiting {
                        why: Message::new().text("an approval"),
                    }
                } else {
                    LiveVerdict::Pass
                }),
            })
            .collect();
        QueueFacts {
            repository_url: "https://github.com/o/r".into(),
            base: BaseFacts {
                name: BASE.into(),
                sha: sha(self.base()),
                linear_history: None,
            },
            release_login: Some(BOT.into()),
            pulls,
            branch,
            now: time(self.now),
        }
    }

    fn commit_fact(&self, c: usize) -> CommitFact {
        let commit = &self.commits[c];
        CommitFact {
            sha: sha(c),
            parents: commit.parents.iter().map(|p| sha(*p)).collect(),
            message: commit.message.clone(),
            verified_committer: commit.by.clone(),
            committed_at: time(commit.at),
        }
    }

    // ---- What the app writes ---------------------------------------------------------

    fn write_ref(&mut self, branch: &str, to: Option<usize>, create: bool) -> StepResult {
        assert!(
            branch == QUEUE || branch == SCRATCH,
            "a ref write outside council's branches: {branch}"
        );
        let exists = self.branches.contains_key(branch);
        match (to, create, exists) {
            (Some(_), true, true) => StepResult::Exists,
            (Some(_) | None, false, false) => StepResult::Missing,
            (Some(c), _, _) => {
                self.branches.insert(branch.to_string(), c);
                if branch == QUEUE {
                    self.pushed_queue(c);
                }
                StepResult::Done
            }
            (None, _, _) => {
                self.branches.remove(branch);
                StepResult::Done
            }
        }
    }

    fn perform(&mut self, effect: &Effect) -> StepResult {
        match effect {
            Effect::CreateRef { branch, sha } => self.write_ref(branch, Some(id_of(sha)), true),
            Effect::ResetRef { branch, sha } => self.write_ref(branch, Some(id_of(sha)), false),
            Effect::DeleteRef { branch } => self.write_ref(branch, None, false),
            Effect::MergeInto {
                branch,
                head,
                message,
            } => {
                assert_eq!(branch, SCRATCH, "merges go to the build branch only");
                let tip = self.branches[SCRATCH];
                let head = id_of(head);
                let pr = *self.commits[head].holds.iter().next().unwrap();
                if self.prs[&pr].conflicts {
                    return StepResult::Conflict;
                }
                if self.commits[tip]
                    .holds
                    .is_superset(&self.commits[head].holds)
                {
                    return StepResult::NothingToMerge;
                }
                let mut holds = self.commits[tip].holds.clone();
                holds.insert(pr);
                let merge = self.commit(vec![tip, head], holds, message, BOT);
                self.branches.insert(SCRATCH.to_string(), merge);
                self.ours.insert(merge, None);
                StepResult::Merged { sha: sha(merge) }
            }
            Effect::RemoveLabel { issue, label } => {
                assert_eq!(label, LABEL);
                self.prs.get_mut(issue).unwrap().labelled = false;
                StepResult::Done
            }
            Effect::CommentOnce { .. } => StepResult::Done,
            other => panic!("the queue asked for {other:?}"),
        }
    }

    /// One queue run, as the app will do it.
    fn run(&mut self) {
        self.tally.runs += 1;
        let facts = self.facts();
        let plan = plan(&facts, &self.policy);
        assert!(plan.setup.is_none());
        if let Some(b) = &facts.branch
            && self.ours.contains_key(&id_of(&b.sha))
        {
            self.decided_on(id_of(&b.sha), &plan);
        }
        for effect in &plan.effects {
            let _ = self.perform(effect);
        }
        self.apply_records(&plan.records, &facts);
        match plan.action {
            Action::Idle | Action::Wait { .. } => {}
            Action::Build(b) => self.build(b),
            Action::Land(l) => {
                // What lands is what the facts showed in test, green, as that commit.
                let branch = facts.branch.as_ref().unwrap();
                assert_eq!(branch.sha, l.sha);
                assert_eq!(branch.checks.sha, l.sha);
                assert!(!branch.checks.checks.is_empty());
                assert!(
                    branch
                        .checks
                        .checks
                        .iter()
                        .all(|c| c.state == CheckState::Success)
                );
                let landing = id_of(&l.sha);
                assert!(
                    self.ours.contains_key(&landing),
                    "only council's queue commits land"
                );
                if self.move_under_landing > 0 {
                    self.move_under_landing -= 1;
                    self.hand_move();
                }
                if self.is_ancestor(self.base(), landing) {
                    let run = self.ci[&landing];
                    assert!(
                        run.green && !run.hangs && run.done_at <= self.now,
                        "tested green"
                    );
                    self.branches.insert(BASE.to_string(), landing);
                    self.landed_commits.push(landing);
                    self.tally.landings += 1;
                    self.tally.last_landing = self.now;
                    for pr in self.commits[landing].holds.clone() {
                        let p = self.prs.get_mut(&pr).unwrap();
                        if p.open {
                            p.open = false;
                            p.merged = true;
                        }
                    }
                    let landed = l.landed();
                    for effect in &landed.effects {
                        let _ = self.perform(effect);
                    }
                    self.apply_records(&landed.records, &facts);
                    if let Some(next) = landed.next {
                        self.build(next);
                    }
                } else {
                    self.tally.refused += 1;
                    self.ours.insert(landing, Some("base moved"));
                    let not = l.refused(Refusal::of_response(422, "Update is not a fast forward"));
                    assert!(not.setup.is_none() && not.failed.is_none());
                    // The push that moved the base starts the next run.
                    self.at(self.now, Event::CiDone);
                }
            }
        }
    }

    /// The fate of the queue commit in test, from what the plan does with it.
    fn decided_on(&mut self, commit: usize, plan: &QueuePlan) {
        let fate = match &plan.action {
            Action::Wait { .. } => return,
            Action::Land(_) => "landed",
            Action::Build(b) => match &b.reason {
                BuildReason::Split { .. } => "failed",
                BuildReason::BaseMoved { .. } => "base moved",
                BuildReason::Dropped { .. } => "dropped",
                BuildReason::Next => "failed",
                BuildReason::Untrusted { .. } | BuildReason::Start => {
                    panic!("our own commit judged {:?}", b.reason)
                }
            },
            Action::Idle if plan.records.iter().any(QueueRecord::failed) => "failed",
            Action::Idle => "dropped",
        };
        let slot = self.ours.get_mut(&commit).unwrap();
        if slot.is_none() {
            *slot = Some(fate);
        }
    }

    fn build(&mut self, build: Build) {
        let reason = build.reason.clone();
        let mut b = build.start();
        loop {
            match b.step() {
                BuildStep::Do(effect) => {
                    let result = self.perform(&effect);
                    b.report(result);
                }
                BuildStep::Done(built) => {
                    assert!(built.failed.is_none());
                    let facts = self.facts();
                    self.apply_records(&built.records, &facts);
                    if built.sha.is_some() {
                        self.tally.commits_built += 1;
                        let key = match reason {
                            BuildReason::Start | BuildReason::Next => "none",
                            BuildReason::BaseMoved { .. } => "base moved",
                            BuildReason::Dropped { .. } => "dropped",
                            BuildReason::Split { .. } => "split",
                            BuildReason::Untrusted { .. } => "untrusted",
                        };
                        *self.tally.rebuilds.entry(key).or_default() += 1;
                    }
                    return;
                }
            }
        }
    }

    fn apply_records(&mut self, records: &[QueueRecord], facts: &QueueFacts) {
        for r in records {
            let p = self.prs.get_mut(&r.pr).unwrap();
            match (r.action, r.result) {
                ("action:merge", _) => {
                    assert!(p.merged, "#{} recorded landed but not merged", r.pr);
                    if p.fate.is_none() {
                        p.fate = Some(Fate::Landed);
                        self.tally.landed_prs += 1;
                    }
                }
                ("check:queue", "FAIL") => {
                    assert!(p.fate.is_none());
                    p.fate = Some(Fate::Dequeued);
                    self.tally.dequeued += 1;
                    let why = if r.message.contains("conflicts with") {
                        "conflict"
                    } else if r.message.starts_with("No verdict") {
                        "timeout"
                    } else {
                        "red"
                    };
                    p.failed_by = Some(why);
                    if why == "red" {
                        // Found alone on the base as it is: the commit held it and the
                        // base, nothing else, and CI was red on exactly that.
                        let branch = facts.branch.as_ref().unwrap();
                        let commit = &self.commits[id_of(&branch.sha)];
                        let base = &self.commits[id_of(&facts.base.sha)];
                        let extra: Vec<u64> =
                            commit.holds.difference(&base.holds).copied().collect();
                        assert_eq!(extra, [r.pr], "dequeued only when tested alone");
                        assert!(
                            self.broken.contains(&r.pr)
                                || self.pairs.iter().any(|(a, b)| {
                                    (*a == r.pr && base.holds.contains(b))
                                        || (*b == r.pr && base.holds.contains(a))
                                })
                        );
                    }
                }
                ("action:dequeue", _) => {
                    assert!(
                        p.touched,
                        "#{} left the queue though nothing was done to it",
                        r.pr
                    );
                    if p.fate.is_none() {
                        p.fate = Some(Fate::Left);
                        self.tally.left += 1;
                    }
                }
                _ => {}
            }
        }
    }

    // ---- What people do --------------------------------------------------------------

    fn hand_move(&mut self) {
        let base = self.base();
        let holds = self.commits[base].holds.clone();
        let c = self.commit(vec![base], holds, "hotfix by hand", "alice");
        self.branches.insert(BASE.to_string(), c);
        self.tally.hand_moves += 1;
    }

    fn arrive(&mut self, n: u64) {
        let base = self.base();
        let head = self.commit(vec![base], BTreeSet::from([n]), "work", "dev");
        let p = self.prs.get_mut(&n).unwrap();
        p.head = head;
        p.open = true;
        p.labelled = true;
        p.queued_at = self.now;
    }

    fn touch(&mut self, n: u64, how: u8) {
        let now = self.now;
        let Some(p) = self.prs.get(&n) else { return };
        if !p.open || !p.labelled {
            return;
        }
        match how % 5 {
            0 => {
                let p = self.prs.get_mut(&n).unwrap();
                p.open = false;
                p.touched = true;
            }
            1 => {
                let p = self.prs.get_mut(&n).unwrap();
                p.labelled = false;
                p.touched = true;
                p.fate = Some(Fate::Left);
                self.tally.left += 1;
            }
            2 => {
                let base = self.base();
                let head = self.commit(vec![base], BTreeSet::from([n]), "more work", "dev");
                let p = self.prs.get_mut(&n).unwrap();
                p.head = head;
                p.head_moved = true;
                p.touched = true;
            }
            3 => {
                let p = self.prs.get_mut(&n).unwrap();
                p.fails_gate = true;
                p.touched = true;
            }
            _ => {
                // Waiting is no reason to leave: not `touched`.
                self.prs.get_mut(&n).unwrap().waits_until = now + 20;
            }
        }
    }

    fn foreign_push(&mut self) {
        if let Some(tip) = self.branches.get(QUEUE).copied() {
            let holds = self.commits[tip].holds.clone();
            let c = self.commit(vec![tip], holds, "fix the queue by hand", "mallory");
            self.branches.insert(QUEUE.to_string(), c);
            if let Some(slot) = self.ours.get_mut(&tip)
                && slot.is_none()
            {
                *slot = Some("lost to a push");
            }
            self.tally.foreign_pushes += 1;
            self.pushed_queue(c);
        }
    }

    /// Everything until nothing is left to do: each event, then a queue run.
    fn simulate(&mut self) {
        let tick = 15;
        self.at(tick, Event::Tick);
        let mut guard = 0;
        while let Some(((minute, seq), event)) = self.events.pop_first() {
            guard += 1;
            assert!(guard < 20_000, "the queue does not settle");
            let _ = seq;
            self.now = minute;
            match event {
                Event::Arrive(n) => self.arrive(n),
                Event::HandMove => self.hand_move(),
                Event::Touch(n, how) => self.touch(n, how),
                Event::ForeignPush => self.foreign_push(),
                Event::CiDone => {}
                Event::Tick => {
                    if self.busy() {
                        self.at(minute + tick, Event::Tick);
                    }
                }
            }
            self.run();
            if !self.busy() && !self.events.values().any(|e| *e != Event::Tick) {
                break;
            }
            if self.busy() && !self.events.values().any(|e| *e == Event::Tick) {
                self.at(minute + tick, Event::Tick);
            }
        }
    }

    fn busy(&self) -> bool {
        self.branches.contains_key(QUEUE) || self.prs.values().any(|p| p.open && p.labelled)
    }
}

/// One pull request of a scenario: arrival minute, red alone, conflicts, urgent,
/// something done to it (kind, minutes after arrival).
type PrPlan = (i64, bool, bool, bool, Option<(u8, i64)>);

/// A generated history.
#[derive(Debug, Clone)]
struct Scenario {
    batch: u32,
    /// Per pull request: arrival minute, red alone, conflicts, urgent, something done to
    /// it (kind, minutes after arrival).
    prs: Vec<PrPlan>,
    pairs: Vec<(usize, usize)>,
    moves: Vec<i64>,
    foreign: Vec<i64>,
    under_landing: usize,
    hangs: Vec<usize>,
}

fn world_of(s: &Scenario) -> World {
    let mut policy = Policy::default_policy();
    policy.queue.enabled = true;
    policy.queue.batch_size = s.batch;
    let mut w = World::new(policy, 10);
    let n = s.prs.len() as u64;
    for (i, (arrival, broken, conflicts, urgent, touch)) in s.prs.iter().enumerate() {
        let number = i as u64 + 1;
        w.prs.insert(
            number,
            Pr {
                head: 0,
                open: false,
                merged: false,
                labelled: false,
                queued_at: 0,
                urgent: *urgent,
                head_moved: false,
                fails_gate: false,
                waits_until: 0,
                conflicts: *conflicts,
                fate: None,
                touched: false,
                failed_by: None,
            },
        );
        if *broken {
            w.broken.insert(number);
        }
        w.at(*arrival, Event::Arrive(number));
        if let Some((how, after)) = touch {
            w.at(arrival + after, Event::Touch(number, *how));
        }
    }
    for (a, b) in &s.pairs {
        let (a, b) = (*a as u64 % n + 1, *b as u64 % n + 1);
        if a != b {
            w.pairs.push((a, b));
        }
    }
    for m in &s.moves {
        w.at(*m, Event::HandMove);
    }
    for f in &s.foreign {
        w.at(*f, Event::ForeignPush);
    }
    w.move_under_landing = s.under_landing;
    w.hang = s.hangs.iter().copied().collect();
    w
}

/// SPEC's invariants over a finished history.
fn check_invariants(w: &World, s: &Scenario) {
    // Every commit the queue moved the base to was a queue commit council made, tested
    // green as that commit (checked as it landed), and the base never held red.
    for c in &w.landed_commits {
        assert!(w.ours.contains_key(c));
        assert!(!w.red(&w.commits[*c].holds), "a red commit landed");
    }
    assert!(!w.red(&w.commits[w.base()].holds));
    // No pull request's own branch moved but by its author (the model's touch), and
    // every ref council wrote was its own (asserted as written).
    for (n, p) in &w.prs {
        // Settled: every pull request landed, was dequeued, or left for what was done
        // to it; nothing waits forever.
        if !p.touched && p.fate.is_none() {
            panic!("#{n} never settled: {p:?}");
        }
        if p.fate == Some(Fate::Landed) {
            assert!(!w.broken.contains(n), "#{n} is red alone and landed");
        }
        // Green with the base and with whatever landed before it: it lands.
        let partner_landed = w.pairs.iter().any(|(a, b)| {
            (a == n && w.prs[b].fate == Some(Fate::Landed))
                || (b == n && w.prs[a].fate == Some(Fate::Landed))
        });
        let hung = p.failed_by == Some("timeout");
        if !p.touched && !p.conflicts && !w.broken.contains(n) && !partner_landed && !hung {
            assert_eq!(p.fate, Some(Fate::Landed), "#{n} is green and did not land");
        }
        if p.conflicts && !p.touched {
            assert_eq!(p.failed_by, Some("conflict"));
        }
    }
    // Rebuilds only for a moved base (once per move), dropped pull requests, splits,
    // or a queue branch someone else wrote.
    let t = &w.tally;
    let count = |k: &str| t.rebuilds.get(k).copied().unwrap_or(0);
    assert!(count("base moved") <= t.hand_moves, "{t:?}");
    assert!(count("untrusted") <= t.foreign_pushes, "{t:?}");
    let touches = s.prs.iter().filter(|p| p.4.is_some()).count();
    assert!(count("dropped") <= touches, "{t:?}");
    // Every queue commit council made was decided on: landed, failed, made again for
    // a reason, or lost to a push by hand; none is left in test.
    assert!(!w.branches.contains_key(QUEUE));
    for (c, fate) in &w.ours {
        // Intermediate merges of a chain are not queue commits of their own.
        if w.ci.contains_key(c) {
            assert!(fate.is_some(), "queue commit {c} was never decided on");
        }
    }
    let clean = s.moves.is_empty()
        && s.foreign.is_empty()
        && s.under_landing == 0
        && s.hangs.is_empty()
        && touches == 0
        && w.broken.is_empty()
        && w.pairs.is_empty()
        && s.prs.iter().all(|p| !p.2);
    if clean {
        // Without failures or moves, each queue commit lands, and each is tested once.
        assert_eq!(t.commits_built, t.landings, "{t:?}");
        assert_eq!(t.ci_runs, t.commits_built, "{t:?}");
        assert_eq!(t.landed_prs, s.prs.len());
        if s.batch == 1 {
            assert_eq!(t.landings, s.prs.len(), "N landings cost N queue commits");
        }
    }
}

fn scenario() -> impl proptest::strategy::Strategy<Value = Scenario> {
    use proptest::prelude::*;
    let pr = (
        0i64..90,
        proptest::bool::weighted(0.12),
        proptest::bool::weighted(0.06),
        proptest::bool::weighted(0.1),
        proptest::option::weighted(0.15, (0u8..5, 0i64..40)),
    );
    (
        1u32..=4,
        proptest::collection::vec(pr, 1..14),
        proptest::collection::vec((0usize..14, 0usize..14), 0..3),
        proptest::collection::vec(0i64..200, 0..3),
        proptest::collection::vec(0i64..200, 0..2),
        0usize..2,
        proptest::collection::vec(0usize..12, 0..2),
    )
        .prop_map(
            |(batch, prs, pairs, moves, foreign, under_landing, hangs)| Scenario {
                batch,
                prs,
                pairs,
                moves,
                foreign,
                under_landing,
                hangs,
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 160, ..Default::default() })]

    /// SPEC's invariants hold over any history the scenario generator makes.
    #[test]
    fn queue_model_invariants_hold_over_generated_histories(s in scenario()) {
        let mut w = world_of(&s);
        w.simulate();
        check_invariants(&w, &s);
    }

    /// Without failures, moves or anything done by hand: N landings cost N ÷ batch
    /// queue commits when the line is full, each tested once.
    #[test]
    fn queue_model_a_clean_history_wastes_no_queue_commit(
        batch in 1u32..=4,
        arrivals in proptest::collection::vec(0i64..60, 1..20),
    ) {
        let s = Scenario {
            batch,
            prs: arrivals.iter().map(|a| (*a, false, false, false, None)).collect(),
            pairs: vec![],
            moves: vec![],
            foreign: vec![],
            under_landing: 0,
            hangs: vec![],
        };
        let mut w = world_of(&s);
        w.simulate();
        check_invariants(&w, &s);
    }
}

#[test]
fn queue_model_all_at_once_lands_n_in_n_over_batch_commits() {
    for batch in [1u32, 2, 4] {
        let s = Scenario {
            batch,
            prs: (0..12).map(|_| (0, false, false, false, None)).collect(),
            pairs: vec![],
            moves: vec![],
            foreign: vec![],
            under_landing: 0,
            hangs: vec![],
        };
        let mut w = world_of(&s);
        // All are labelled before the queue's first run: the line is full.
        while let Some((_, Event::Arrive(n))) = w.events.first_key_value().map(|(k, e)| (*k, *e)) {
            w.events.pop_first();
            w.arrive(n);
        }
        w.at(0, Event::CiDone);
        w.simulate();
        check_invariants(&w, &s);
        assert_eq!(
            w.tally.commits_built,
            12usize.div_ceil(batch as usize),
            "batch {batch}"
        );
        assert_eq!(w.tally.ci_runs, w.tally.commits_built);
    }
}

/// The benchmark's scenario: 50 pull requests arriving over 100 minutes, CI of 10
/// minutes, 5 % red alone, two pairs red together, the base moved by hand twice.
fn bench(batch: u32) -> Tally {
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let prs: Vec<_> = (0..50)
        .map(|i| (i as i64 * 2, next() % 100 < 5, false, false, None))
        .collect();
    let s = Scenario {
        batch,
        prs,
        pairs: vec![(7, 19), (23, 41)],
        moves: vec![45, 170],
        foreign: vec![],
        under_landing: 0,
        hangs: vec![],
    };
    let mut w = world_of(&s);
    w.simulate();
    check_invariants(&w, &s);
    let mut t = w.tally.clone();
    t.first_arrival = 0;
    t
}

/// Merging each pull request when its own CI is green, no queue: a pull request red
/// alone is caught by its own CI; two red together both merge, and the base is red.
fn direct() -> Tally {
    let mut t = Tally::default();
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let pairs = [(8u64, 20u64), (24, 42)];
    let mut base: BTreeSet<u64> = BTreeSet::new();
    for i in 0..50u64 {
        let broken = next() % 100 < 5;
        let arrives = i as i64 * 2;
        if broken {
            continue;
        }
        base.insert(i + 1);
        t.landed_prs += 1;
        t.landings += 1;
        t.last_landing = arrives + 10;
        if pairs
            .iter()
            .any(|(a, b)| base.contains(a) && base.contains(b))
        {
            t.red_base_commits += 1;
        }
    }
    t
}

fn line(name: &str, t: &Tally) -> String {
    let hours = (t.last_landing - t.first_arrival).max(1) as f64 / 60.0;
    let rebuilds: usize = t
        .rebuilds
        .iter()
        .filter(|(k, _)| **k != "none")
        .map(|(_, v)| v)
        .sum();
    format!(
        "| {name} | {} | {:.1} | {:.1} | {} | {:.2} | {} | {} | {} |",
        t.landed_prs,
        hours,
        t.landed_prs as f64 / hours,
        t.ci_runs,
        if t.landed_prs == 0 {
            0.0
        } else {
            t.ci_runs as f64 / t.landed_prs as f64
        },
        rebuilds,
        t.dequeued,
        t.red_base_commits,
    )
}

/// `cargo test -p council-protocol queue_model -- --nocapture` prints the figures.
#[test]
fn queue_model_report() {
    let one = bench(1);
    let four = bench(4);
    let direct = direct();
    println!(
        "\n50 PRs arriving every 2 min, CI 10 min, 5 % red alone, 2 pairs red together, base moved by hand twice"
    );
    println!(
        "| mode | landed | hours to last landing | landed per hour | queue CI runs | CI runs per landing | rebuilds | dequeued | red base commits |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    println!("{}", line("queue, batch_size 1", &one));
    println!("{}", line("queue, batch_size 4", &four));
    println!("{}", line("direct merge", &direct));
    println!(
        "rebuilds by reason: batch 1 {:?}; batch 4 {:?}",
        one.rebuilds, four.rebuilds
    );
    assert_eq!(one.red_base_commits + four.red_base_commits, 0);
    assert!(four.landed_prs == one.landed_prs && four.last_landing < one.last_landing);
}
