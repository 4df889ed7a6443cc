//! The decision of one queue run: from the facts read now, what the queue does (SPEC
//! "Merge queue"). Nothing carried over between runs decides: the queue commit's own
//! merges say what it holds (checked against the pull requests' heads), its checks say
//! whether it may land, and its message's hint only sizes the next queue commits.

use super::build::{Build, BuildReason};
use super::facts::{LiveVerdict, PrState, QueueBranch, QueueFacts, QueuedPr};
use super::land::Landing;
use super::order;
use super::record::{Member, QueueOutputs, QueueRecord, QueueStatus, SetupError};
use super::render;
use crate::error::Outcome;
use crate::gates::release::{Pipeline, short};
use crate::gates::{GateOutcome, QueueCheck, Verdict, queue_verdict};
use crate::policy::Policy;
use crate::policy::queue::QUEUED_LABEL;
use crate::render::text::Message;
use crate::stage::Effect;

/// What one queue run does, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuePlan {
    pub base: String,
    /// The queue cannot run: nothing else is done, the queue stays as it was (exit 3).
    pub setup: Option<SetupError>,
    /// Writes that come first, in order: labels removed and comments of pull requests
    /// that leave the queue, a queue branch deleted when nothing is left to test.
    pub effects: Vec<Effect>,
    /// Ledger entries decided now, each for its pull request.
    pub records: Vec<QueueRecord>,
    pub action: Action,
    /// Said as `::warning::` (a queue branch council did not write).
    pub warnings: Vec<Message>,
    /// For the summary: what the queue looked like and why it did what it did.
    pub notes: Vec<Message>,
    pub outputs: QueueOutputs,
}

/// The queue's move in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Nothing in test, and nothing to test.
    Idle,
    /// The queue commit `sha` waits for its checks.
    Wait { sha: String, gate: GateOutcome },
    /// Make a queue commit: drive [`Build::start`].
    Build(Build),
    /// Land the green queue commit: perform [`Landing::effect`], then
    /// [`Landing::landed`] (and its next build) or [`Landing::refused`].
    Land(Box<Landing>),
}

impl QueuePlan {
    fn new(base: &str) -> QueuePlan {
        QueuePlan {
            base: base.to_string(),
            setup: None,
            effects: Vec::new(),
            records: Vec::new(),
            action: Action::Idle,
            warnings: Vec::new(),
            notes: Vec::new(),
            outputs: QueueOutputs::default(),
        }
    }

    /// How the run ends, from this plan's part: a set-up error is exit 3, a pull request
    /// that left the queue for a failed test exits 1. The app adds what the later steps
    /// recorded ([`outcome`]).
    pub fn outcome(&self) -> Outcome {
        outcome(self.setup.as_ref(), &self.records)
    }
}

/// The end of a queue run: a set-up error (exit 3) first, then a failed test or conflict
/// recorded on a pull request (exit 1), else 0 (a failed write is the app's to add).
pub fn outcome(setup: Option<&SetupError>, records: &[QueueRecord]) -> Outcome {
    match setup {
        Some(e) => e.outcome(),
        None if records.iter().any(QueueRecord::failed) => Outcome::GateFailed,
        None => Outcome::Passed,
    }
}

/// What the queue does now, for the base in `facts`, under `policy` (the base's).
pub fn plan(facts: &QueueFacts, policy: &Policy) -> QueuePlan {
    let q = &policy.queue;
    let base = &facts.base;
    let mut plan = QueuePlan::new(&base.name);
    if !q.enabled {
        plan.notes.push(
            Message::new()
                .text("merge queue: off for ")
                .value(&base.name)
                .text(" (`queue.enabled: false`)"),
        );
        return plan;
    }
    let Some(login) = facts.release_login.as_deref() else {
        plan.setup = Some(SetupError::NoReleaseToken);
        return plan;
    };
    if let Some(rule) = &base.linear_history {
        plan.setup = Some(SetupError::LinearHistory { rule: rule.clone() });
        return plan;
    }
    let mut run = Run {
        facts,
        policy,
        plan,
        exclude: Vec::new(),
        left: Vec::new(),
    };
    let current = facts
        .branch
        .as_ref()
        .map(|branch| assess(facts, login, branch));
    if let Some(Current::Landed { members }) = &current {
        run.exclude.extend(members.iter().map(|m| m.number));
    }
    let in_commit: Vec<u64> = match &current {
        Some(Current::InTest(t)) => t
            .kept
            .iter()
            .chain(t.dropped.iter().map(|(m, _)| m))
            .map(|m| m.number)
            .collect(),
        _ => Vec::new(),
    };
    run.leaving(&in_commit);
    let line: Vec<String> = order::line(facts, q)
        .iter()
        .filter(|p| !run.left.contains(&p.number))
        .map(|p| format!("#{}", p.number))
        .collect();
    let shown = line.iter().take(10).cloned().collect::<Vec<_>>().join(", ");
    let more = line.len().saturating_sub(10);
    run.plan.notes.push(
        Message::new()
            .text("merge queue of ")
            .value(&base.name)
            .text(format!(
                " at {}: {} in line{}",
                short(&base.sha),
                line.len(),
                match (line.is_empty(), more) {
                    (true, _) => String::new(),
                    (false, 0) => format!(" ({shown})"),
                    (false, n) => format!(" ({shown} and {n} more)"),
                }
            )),
    );
    run.decide(current);
    run.plan
}

/// What the queue branch holds, judged against the facts.
#[derive(Debug)]
enum Current<'a> {
    /// Not a queue commit council made for these pull requests: made again, never landed.
    Untrusted {
        why: String,
    },
    /// The base is at the queue commit already: it landed (a run that landed it stopped
    /// before it cleaned up).
    Landed {
        members: Vec<Member>,
    },
    InTest(InTest<'a>),
}

#[derive(Debug)]
struct InTest<'a> {
    branch: &'a QueueBranch,
    /// Its pull requests that may still land, in merge order.
    kept: Vec<Member>,
    /// Those that left it (or wait), with why.
    dropped: Vec<(Member, String)>,
    base_moved: bool,
    /// Sizes planned after it (the message's hint).
    rest: Vec<u32>,
}

fn assess<'a>(facts: &'a QueueFacts, login: &str, branch: &'a QueueBranch) -> Current<'a> {
    let chain = &branch.chain;
    if let Some(problem) = &chain.problem {
        return Current::Untrusted {
            why: problem.clone(),
        };
    }
    if chain.links.is_empty() {
        return Current::Untrusted {
            why: "it holds no merge".into(),
        };
    }
    if let Some(link) = chain.links.iter().find(|l| {
        !l.made_by
            .as_deref()
            .is_some_and(|by| by.eq_ignore_ascii_case(login))
    }) {
        return Current::Untrusted {
            why: format!(
                "commit {} was not made by the release token's identity `{login}` ({})",
                short(&link.sha),
                match &link.made_by {
                    Some(by) => format!("it was made by `{by}`"),
                    None => "its signature is not verified".to_string(),
                }
            ),
        };
    }
    let mut members: Vec<(Member, Option<&QueuedPr>)> = Vec::new();
    for link in &chain.links {
        let named = link.note.as_ref().map(|n| n.pull);
        let by_head = facts
            .pulls
            .iter()
            .filter(|p| p.head_sha == link.head)
            .min_by_key(|p| (p.state != PrState::Open, p.number));
        let (number, pr) = match (by_head, named) {
            (Some(p), Some(n)) if p.number != n => {
                return Current::Untrusted {
                    why: format!(
                        "merge {} says it merged #{n}, but it merged the head of #{}",
                        short(&link.sha),
                        p.number
                    ),
                };
            }
            (Some(p), _) => (p.number, Some(p)),
            (None, Some(n)) => (n, None),
            (None, None) => {
                return Current::Untrusted {
                    why: format!(
                        "merge {} names no pull request, and its head {} is none of the base's",
                        short(&link.sha),
                        short(&link.head)
                    ),
                };
            }
        };
        if members.iter().any(|(m, _)| m.number == number) {
            return Current::Untrusted {
                why: format!("it merges #{number} twice"),
            };
        }
        members.push((
            Member {
                number,
                head: link.head.clone(),
            },
            pr,
        ));
    }
    if facts.base.sha == branch.sha {
        return Current::Landed {
            members: members.into_iter().map(|(m, _)| m).collect(),
        };
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (member, pr) in members {
        match why_dropped(facts, &member, pr) {
            Some(why) => dropped.push((member, why)),
            None => kept.push(member),
        }
    }
    Current::InTest(InTest {
        branch,
        kept,
        dropped,
        base_moved: chain.built_on != facts.base.sha,
        rest: branch.note().map(|n| n.rest.clone()).unwrap_or_default(),
    })
}

/// Why a pull request merged into the queue commit can no longer land with it, if so.
fn why_dropped(facts: &QueueFacts, member: &Member, pr: Option<&QueuedPr>) -> Option<String> {
    let Some(pr) = pr else {
        return Some(match facts.pull(member.number) {
            Some(now) => format!(
                "its head moved from {} to {}",
                short(&member.head),
                short(&now.head_sha)
            ),
            None => "it is not among the base's pull requests now".to_string(),
        });
    };
    Some(match (&pr.state, &pr.verdict) {
        (PrState::Closed, _) => "it was closed".into(),
        (PrState::Merged, _) => "it was merged outside the queue".into(),
        _ if !pr.has_queue_label() => format!("its label `{QUEUED_LABEL}` was removed"),
        _ if pr.head_moved => "its head moved after it was queued".into(),
        _ if pr.retargeted => "it was retargeted after it was queued".into(),
        (_, Some(LiveVerdict::Fail { gates })) => format!("it fails {}", gate_names(gates)),
        (_, Some(LiveVerdict::Waiting { why })) => format!("it waits: {}", why.plain()),
        (_, None) => "its gates were not decided in this run".into(),
        (_, Some(LiveVerdict::Pass)) => return None,
    })
}

fn gate_names(gates: &[GateOutcome]) -> String {
    let names: Vec<String> = gates.iter().map(|g| format!("`{}`", g.action)).collect();
    if names.is_empty() {
        "a gate".to_string()
    } else {
        names.join(", ")
    }
}

struct Run<'a> {
    facts: &'a QueueFacts,
    policy: &'a Policy,
    plan: QueuePlan,
    /// Pull requests out of the line for this run (landed, dequeued, tested now).
    exclude: Vec<u64>,
    /// Pull requests that leave the queue in this run.
    left: Vec<u64>,
}

impl Run<'_> {
    /// Pull requests that leave the queue whatever is in test: closed, head moved, a gate
    /// failing now. A note in each one's ledger, and the label removed. `in_commit` are
    /// the pull requests the queue commit (one council made) merged. One merged there
    /// at an older head whose label was added again after the move (release re-queued
    /// its new head) keeps its place: only its merge is dropped from the queue commit.
    fn leaving(&mut self, in_commit: &[u64]) {
        for pr in &self.facts.pulls {
            if self.exclude.contains(&pr.number) {
                continue;
            }
            let labelled = pr.has_queue_label();
            let why = match (&pr.state, &pr.verdict) {
                (PrState::Closed, _) if labelled => "it was closed".to_string(),
                (PrState::Merged, _) if labelled => "it was merged outside the queue".to_string(),
                // Its head moved after the label was last added. A label added again
                // since (release re-queued the new head) keeps its place: only its old
                // merge is dropped from the queue commit.
                (PrState::Open, _) if labelled && pr.head_moved => {
                    format!(
                        "its head moved after it was queued (now {}); release queues the new \
                     head once its gates pass",
                        short(&pr.head_sha)
                    )
                }
                (PrState::Open, _) if labelled && pr.retargeted => format!(
                    "it was retargeted to `{}` after it was queued (its place in line was for \
                     another base); release queues it here once its gates pass",
                    self.facts.base.name
                ),
                (PrState::Open, Some(LiveVerdict::Fail { gates })) if labelled => {
                    let first = gates
                        .first()
                        .map(|g| format!(": {}", g.timeline_message()))
                        .unwrap_or_default();
                    format!("it fails {}{first}", gate_names(gates))
                }
                (PrState::Open, _) if !labelled && in_commit.contains(&pr.number) => {
                    format!("its label `{QUEUED_LABEL}` was removed")
                }
                _ => continue,
            };
            let member = Member {
                number: pr.number,
                head: pr.head_sha.clone(),
            };
            self.left.push(pr.number);
            if labelled && pr.state != PrState::Merged {
                self.plan.effects.push(Effect::RemoveLabel {
                    issue: pr.number,
                    label: QUEUED_LABEL.to_string(),
                });
            }
            let note = Message::new().text(format!("#{} left the merge queue: {why}", pr.number));
            self.plan
                .records
                .push(QueueRecord::action(&member, "action:dequeue", &note));
        }
    }

    fn decide(&mut self, current: Option<Current>) {
        let q = &self.policy.queue;
        let base = &self.facts.base;
        let branch_exists = current.is_some();
        match current {
            None => self.next(&base.sha, Vec::new(), false, BuildReason::Start),
            Some(Current::Untrusted { why }) => {
                self.plan.warnings.push(
                    Message::new()
                        .text("the queue branch ")
                        .value(q.branch(&base.name))
                        .text(format!(
                            " is not a queue commit council made for this queue ({why}): it is \
                             never landed, and the queue makes its own"
                        )),
                );
                self.next(&base.sha, Vec::new(), true, BuildReason::Untrusted { why });
            }
            Some(Current::Landed { members }) => {
                let sha = base.sha.clone();
                for member in &members {
                    let message = Message::new()
                        .text(format!("landed #{} in ", member.number))
                        .value(&base.name)
                        .text(" as ")
                        .value(&sha)
                        .text(" (the base is at the queue commit: an earlier run landed it)");
                    self.plan
                        .records
                        .push(QueueRecord::action(member, "action:merge", &message));
                }
                self.plan.outputs = QueueOutputs::of(QueueStatus::Landed, Some(&sha));
                let rest = self
                    .facts
                    .branch
                    .as_ref()
                    .and_then(QueueBranch::note)
                    .map(|n| n.rest.clone())
                    .unwrap_or_default();
                self.next(&sha, rest, true, BuildReason::Next);
            }
            Some(Current::InTest(t)) => self.in_test(t, branch_exists),
        }
    }

    fn in_test(&mut self, t: InTest, branch_exists: bool) {
        let q = &self.policy.queue;
        let facts = self.facts;
        let base = &facts.base;
        let branch_name = q.branch(&base.name);
        self.exclude.extend(
            t.kept
                .iter()
                .chain(t.dropped.iter().map(|(m, _)| m))
                .map(|m| m.number),
        );
        if t.base_moved || !t.dropped.is_empty() {
            let reason = if t.dropped.is_empty() {
                BuildReason::BaseMoved {
                    was: t.branch.chain.built_on.clone(),
                }
            } else {
                for (member, why) in &t.dropped {
                    self.plan.notes.push(
                        Message::new()
                            .text(format!(
                                "#{} is dropped from the queue commit ",
                                member.number
                            ))
                            .value(short(&t.branch.sha))
                            .text(format!(": {why}")),
                    );
                }
                BuildReason::Dropped {
                    numbers: t.dropped.iter().map(|(m, _)| m.number).collect(),
                }
            };
            // The dropped ones that still wait keep their place in line.
            for (member, _) in &t.dropped {
                self.exclude.retain(|n| *n != member.number);
            }
            self.rebuild(&t, reason);
            return;
        }
        let checks = if t.branch.checks.sha == t.branch.sha {
            t.branch.checks.clone()
        } else {
            // Checks of another commit say nothing about this one.
            Pipeline {
                sha: t.branch.sha.clone(),
                complete: true,
                ..Pipeline::default()
            }
        };
        let age = (facts.now - t.branch.created_at).num_minutes().max(0);
        let gate = queue_verdict(&QueueCheck {
            pipeline: &checks,
            branch: &branch_name,
            required: &q.required_checks,
            required_key: q.required_checks_key,
            neutral_is_green: self.policy.release.neutral_is_green,
            age_minutes: age,
            timeout_minutes: q.timeout_minutes,
        });
        let sha = t.branch.sha.clone();
        match gate.verdict {
            Verdict::Pending => {
                self.plan.outputs = QueueOutputs::of(QueueStatus::Testing, Some(&sha));
                self.plan.action = Action::Wait { sha, gate };
            }
            Verdict::Pass => {
                let (limit, rest) = pop(&t.rest, q.batch_size);
                let next = self.build_from_line(&sha, limit, rest, true, BuildReason::Next);
                self.plan.outputs = QueueOutputs::of(QueueStatus::Testing, Some(&sha));
                self.plan.action = Action::Land(Box::new(Landing {
                    base: base.name.clone(),
                    base_sha: base.sha.clone(),
                    sha,
                    branch: branch_name,
                    members: t.kept.clone(),
                    gate,
                    next,
                }));
            }
            Verdict::Fail if t.kept.len() == 1 => {
                let member = &t.kept[0];
                self.plan.effects.push(Effect::RemoveLabel {
                    issue: member.number,
                    label: QUEUED_LABEL.to_string(),
                });
                self.plan.effects.push(Effect::CommentOnce {
                    issue: member.number,
                    marker: render::failed_marker(&sha),
                    body: render::failed_comment(
                        member,
                        &sha,
                        &base.name,
                        &t.branch.chain.built_on,
                        &facts.repository_url,
                        &gate,
                    ),
                });
                self.plan.records.push(QueueRecord::gate(member, gate));
                self.plan.outputs = QueueOutputs::of(QueueStatus::Dequeued, Some(&sha));
                let (limit, rest) = pop(&t.rest, q.batch_size);
                self.next_sized(&base.sha, limit, rest, branch_exists, BuildReason::Next);
            }
            Verdict::Fail => {
                let n = t.kept.len();
                let first = n.div_ceil(2);
                let mut rest = vec![u32::try_from(n - first).unwrap_or(1)];
                rest.extend(&t.rest);
                rest.truncate(super::message::MAX_REST);
                self.plan.notes.push(
                    Message::new()
                        .text(format!("a red batch of {n} is split: "))
                        .text(gate.timeline_message()),
                );
                self.plan.outputs = QueueOutputs::of(QueueStatus::Testing, Some(&sha));
                let candidates = t.kept[..first].to_vec();
                self.plan.action = Action::Build(self.build(
                    &base.sha,
                    candidates,
                    first,
                    rest,
                    true,
                    BuildReason::Split { red: sha, size: n },
                ));
            }
        }
    }

    /// The queue commit made again from the pull requests it keeps: on the new base, or
    /// without those dropped. While a bisection is under way (sizes planned after it)
    /// only those; otherwise the next in line fill it up to `batch_size`.
    fn rebuild(&mut self, t: &InTest, reason: BuildReason) {
        let q = &self.policy.queue;
        let base_sha = self.facts.base.sha.clone();
        if t.kept.is_empty() {
            let (limit, rest) = if t.rest.is_empty() {
                (q.batch_size as usize, Vec::new())
            } else {
                pop(&t.rest, q.batch_size)
            };
            self.next_sized(&base_sha, limit, rest, true, reason);
            return;
        }
        let mut candidates = t.kept.clone();
        let limit = if t.rest.is_empty() {
            candidates.extend(self.line_members());
            q.batch_size as usize
        } else {
            t.kept.len()
        };
        let limit = limit.max(t.kept.len());
        let build = self.build(&base_sha, candidates, limit, t.rest.clone(), true, reason);
        self.plan.action = Action::Build(build);
    }

    fn next(&mut self, base_sha: &str, rest: Vec<u32>, branch_exists: bool, reason: BuildReason) {
        let (limit, rest) = pop(&rest, self.policy.queue.batch_size);
        self.next_sized(base_sha, limit, rest, branch_exists, reason);
    }

    /// The next queue commit from the line, or nothing to do (and the queue branch
    /// removed when it is there).
    fn next_sized(
        &mut self,
        base_sha: &str,
        limit: usize,
        rest: Vec<u32>,
        branch_exists: bool,
        reason: BuildReason,
    ) {
        match self.build_from_line(base_sha, limit, rest, branch_exists, reason) {
            Some(build) => self.plan.action = Action::Build(build),
            None => {
                if branch_exists {
                    self.plan.effects.push(Effect::DeleteRef {
                        branch: self.policy.queue.branch(&self.facts.base.name),
                    });
                }
                self.plan.action = Action::Idle;
            }
        }
    }

    fn build_from_line(
        &mut self,
        base_sha: &str,
        limit: usize,
        rest: Vec<u32>,
        branch_exists: bool,
        reason: BuildReason,
    ) -> Option<Build> {
        let candidates = self.line_members();
        if candidates.is_empty() {
            return None;
        }
        Some(self.build(base_sha, candidates, limit, rest, branch_exists, reason))
    }

    /// The line's pull requests that may be built into a queue commit now, in order:
    /// passing every gate, and not excluded.
    fn line_members(&mut self) -> Vec<Member> {
        let line = order::line(self.facts, &self.policy.queue);
        let undecided = line
            .iter()
            .filter(|p| p.verdict.is_none() && !self.exclude.contains(&p.number))
            .count();
        if undecided > 0
            && !self
                .plan
                .notes
                .iter()
                .any(|n| n.plain().contains("not decided"))
        {
            self.plan.notes.push(Message::new().text(format!(
                "{undecided} pull requests in line were not decided in this run; they keep \
                 their place"
            )));
        }
        line.into_iter()
            .filter(|p| matches!(p.verdict, Some(LiveVerdict::Pass)))
            .filter(|p| !self.exclude.contains(&p.number) && !self.left.contains(&p.number))
            .map(|p| Member {
                number: p.number,
                head: p.head_sha.clone(),
            })
            .collect()
    }

    fn build(
        &self,
        base_sha: &str,
        candidates: Vec<Member>,
        limit: usize,
        rest: Vec<u32>,
        branch_exists: bool,
        reason: BuildReason,
    ) -> Build {
        let q = &self.policy.queue;
        let base = &self.facts.base.name;
        Build {
            base: base.clone(),
            base_sha: base_sha.to_string(),
            branch: q.branch(base),
            scratch: q.build_branch(base),
            branch_exists,
            candidates,
            limit: limit.max(1),
            rest,
            reason,
            repository_url: self.facts.repository_url.clone(),
        }
    }
}

/// The size of the next queue commit and the sizes after it: the first planned size, or
/// `batch_size` when none is planned.
fn pop(rest: &[u32], batch_size: u32) -> (usize, Vec<u32>) {
    match rest.split_first() {
        Some((first, after)) => (*first as usize, after.to_vec()),
        None => (batch_size as usize, Vec::new()),
    }
}
