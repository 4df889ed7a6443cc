//! Every enforcement point gives the same answers on the same facts (issue 27): the
//! preflight (MCP `check_branch`, `policy check`: branch, base and author only), the
//! guard stage, the review stage, release (which decides the guard and review gates
//! again), and `policy simulate` over what the ledger recorded. A point that knows fewer
//! facts never says "passes" or "a human's" on a fact it had where a point that knows
//! more says otherwise.

use proptest::prelude::*;

use super::super::*;
use crate::gates::release::{
    CheckFact, CheckKind, CheckState, Mergeable, OpenFacts, Pipeline, ReleaseFacts, ReviewFact,
};
use crate::gates::{GateOutcome, Verdict};
use crate::policy::Policy;
use crate::review::{DiffFacts, FileChange, ReviewFacts};
use crate::stage::guard::GuardStage;
use crate::stage::release::{ReleaseStage, ReviewReading};
use crate::stage::{StageResult, guard as guard_stage, release as release_stage, review};

const HEAD_SHA: &str = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// Policies that differ in each way that matters here.
fn policies() -> Vec<Policy> {
    let parse = |text: &str| Policy::parse(text, "p.yml").expect("a test policy");
    vec![
        Policy::default_policy(),
        parse("actors: {agents: {logins: [], branches: [], trailers: [], labels: []}}\n"),
        parse(
            "branches:\n  case_sensitive: false\n  exempt: [\"dependabot/**\"]\n  rules:\n    \
             - {pattern: \"*/**\", targets: [main, develop]}\nactors:\n  agents:\n    \
             logins: [\"*bot*\"]\n    branches: [\"ai/**\"]\n  agent:\n    diff_size: null\n    \
             human_approvals: 2\n",
        ),
        parse(
            "review:\n  diff_size: {max_files: 2}\nactors:\n  agents:\n    trailers: \
             [\"*-by: * <noreply@anthropic.com>\"]\n    labels: [Agent, robot]\n  agent:\n    \
             forbidden_paths: [\"src/**\", \"*.yml\"]\n    diff_size: {max_changed_lines: 3}\n    \
             label: \"\"\n",
        ),
    ]
}

fn author() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(
        prop_oneof![
            Just("alice"),
            Just("Copilot"),
            Just("copilot-swe-agent[bot]"),
            Just("devin-ai-integration[bot]"),
            Just("my-agent[bot]"),
            Just("dependabot[bot]"),
            Just("robot-bot"),
            Just("x-agent"),
        ]
        .prop_map(str::to_string),
    )
}

fn head() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("copilot/fix-1".to_string()),
        Just("Copilot/fix-1".to_string()),
        Just("claude/issue-3-20250101".to_string()),
        Just("codex/x".to_string()),
        Just("cursor/a/b".to_string()),
        Just("devin/1-x".to_string()),
        Just("ai/x".to_string()),
        Just("feature/api/PBI-1-login".to_string()),
        Just("hotfix/INC-7-x".to_string()),
        Just("dependabot/npm/x".to_string()),
        Just("copilot".to_string()),
        "[a-z/A-Z-]{1,12}",
    ]
}

fn base() -> impl Strategy<Value = String> {
    prop_oneof![Just("develop"), Just("main"), Just("release")].prop_map(str::to_string)
}

fn labels() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            Just("agent"),
            Just("AGENT"),
            Just("bug"),
            Just("agent-authored"),
            Just("Robot"),
        ]
        .prop_map(str::to_string),
        0..3,
    )
}

fn trailer_line() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("Co-authored-by: Claude <noreply@anthropic.com>"),
        Just("Co-Authored-By: Copilot <x@users.noreply.github.com>"),
        Just("Assisted-by: Cursor:gpt-5"),
        Just("Generated-by: tool x/y"),
        Just("Signed-off-by: Alice <a@x>"),
        Just("Reviewed-by: Bob <b@x>"),
    ]
}

fn commits() -> impl Strategy<Value = Option<(Vec<CommitMessage>, u64)>> {
    proptest::option::of(
        (
            proptest::collection::vec(
                (
                    any::<bool>(),
                    proptest::collection::vec(trailer_line(), 0..3),
                ),
                0..4,
            ),
            0u64..3,
        )
            .prop_map(|(messages, beyond)| {
                let listed: Vec<CommitMessage> = messages
                    .into_iter()
                    .enumerate()
                    .map(|(i, (prose, trailers))| CommitMessage {
                        sha: format!("{i:040}"),
                        message: format!(
                            "Commit {i}\n\n{}{}\n",
                            if prose { "Some prose.\n\n" } else { "" },
                            trailers.join("\n")
                        ),
                    })
                    .collect();
                let total = listed.len() as u64 + beyond;
                (listed, total)
            }),
    )
}

fn files() -> impl Strategy<Value = Vec<FileChange>> {
    proptest::collection::vec(
        (
            prop_oneof![
                Just("src/a.rs"),
                Just(".github/workflows/ci.yml"),
                Just("CODEOWNERS"),
                Just("docs/x.md"),
                Just("deploy.yml"),
            ],
            proptest::option::of(prop_oneof![Just("old/CODEOWNERS"), Just("old/a.rs")]),
            0u64..4,
        ),
        0..4,
    )
    .prop_map(|files| {
        files
            .into_iter()
            .map(|(path, previous, lines)| FileChange {
                path: path.to_string(),
                status: if previous.is_some() {
                    "renamed"
                } else {
                    "modified"
                }
                .to_string(),
                previous_path: previous.map(str::to_string),
                additions: lines,
                deletions: 0,
                patch: None,
            })
            .collect()
    })
}

/// One pull request and everything each point could know about it.
#[derive(Debug, Clone)]
struct World {
    policy: usize,
    author: Option<String>,
    head: String,
    base: String,
    labels: Vec<String>,
    commits: Option<(Vec<CommitMessage>, u64)>,
    files: Vec<FileChange>,
}

fn world() -> impl Strategy<Value = World> {
    (
        0..policies().len(),
        author(),
        head(),
        base(),
        labels(),
        commits(),
        files(),
    )
        .prop_map(
            |(policy, author, head, base, labels, commits, files)| World {
                policy,
                author,
                head,
                base,
                labels,
                commits,
                files,
            },
        )
}

impl World {
    fn pull_request(&self) -> crate::event::PullRequest {
        let mut pr = crate::event::sample_pull_request();
        pr.head_ref = self.head.clone();
        pr.base_ref = self.base.clone();
        pr.head_sha = HEAD_SHA.into();
        pr.author = self.author.clone().unwrap_or_default();
        pr.labels = self.labels.clone();
        pr.changed_files = None;
        pr.additions = None;
        pr.deletions = None;
        pr.body = String::new();
        pr
    }

    /// The class from every fact: what review and release compute.
    fn full_class(&self, policy: &Policy) -> Actor {
        classify(
            &policy.actors.agents,
            &ActorFacts {
                author: self.author.as_deref(),
                head: &self.head,
                labels: Some(&self.labels),
                commits: self.commits.as_ref().map(|(listed, total)| Commits {
                    listed,
                    total: *total,
                }),
            },
        )
    }
}

/// Each gate's verdict and message (a fix's commands may name the pull request, which a
/// preflight has no number for yet).
fn verdicts(gates: &[GateOutcome]) -> Vec<(&'static str, Verdict, String)> {
    gates
        .iter()
        .map(|g| (g.gate, g.verdict, g.message.plain()))
        .collect()
}

/// Each gate's verdict, message and fix, as the timeline records them.
fn decided(gates: &[GateOutcome]) -> Vec<(&'static str, Verdict, String)> {
    gates
        .iter()
        .map(|g| (g.gate, g.verdict, g.timeline_message()))
        .collect()
}

fn named(result: &StageResult, names: &[&str]) -> Vec<(&'static str, Verdict, String)> {
    decided(&result.gates)
        .into_iter()
        .filter(|(gate, _, _)| names.contains(gate))
        .collect()
}

const GUARD: [&str; 2] = ["naming_convention", "target_policy"];
const REVIEW_ACTOR_GATES: [&str; 4] = ["actor", "diff_size", "agent_diff_size", "agent_paths"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_enforcement_point_agrees(world in world()) {
        let policy = &policies()[world.policy];
        let pr = world.pull_request();
        let full = world.full_class(policy);
        let classified = Classified { actor: &full, rules: &policy.actors.agent };
        let diff = DiffFacts::new(world.files.clone(), false, &pr);

        // The preflight: branch, base and author only.
        let pre = preflight(policy, &world.head, &world.base, world.author.as_deref());

        // The guard stage on the pull request.
        let guard = guard_stage::evaluate(&GuardStage {
            pr: &pr,
            previous_base: None,
            policy,
            close_on_fail: false,
            run_url: None,
        });
        prop_assert_eq!(verdicts(&pre.gates), verdicts(&guard.gates));
        if pre.passed() {
            prop_assert!(guard.gates.iter().all(|g| g.verdict == Verdict::Pass));
        }

        // The class only grows with facts, and what the preflight saw, every point sees.
        if pre.actor.is_agent() {
            prop_assert!(full.is_agent());
        }
        let from_branch_and_author: Vec<&Evidence> = full
            .evidence
            .iter()
            .filter(|e| e.kind().of_branch_and_author())
            .collect();
        prop_assert_eq!(pre.actor.evidence.iter().collect::<Vec<_>>(), from_branch_and_author);

        // The review stage and release, on the same head, diff and class.
        let reviewed = review::evaluate(&ReviewFacts {
            pr: &pr,
            policy: &policy.review,
            diff: &diff,
            context_files: &[],
            actor: Some(classified),
        });
        let released = release_stage::evaluate(&ReleaseStage {
            pr: &pr,
            policy,
            facts: ReleaseFacts {
                policy: &policy.release,
                require_label: None,
                pipeline: Pipeline {
                    sha: HEAD_SHA.into(),
                    checks: vec![CheckFact {
                        name: "ci".into(),
                        kind: CheckKind::Run,
                        state: CheckState::Success,
                        id: None,
                        url: None,
                    }],
                    complete: true,
                    ..Pipeline::default()
                },
                open: Some(OpenFacts {
                    head_sha: HEAD_SHA.into(),
                    event_head: HEAD_SHA.into(),
                    draft: false,
                    mergeable: Mergeable::Clean,
                    reads: 1,
                    labels: world.labels.clone(),
                    reviews: vec![ReviewFact {
                        login: "maintainer".into(),
                        state: "APPROVED".into(),
                        bot: false,
                        commit: Some(HEAD_SHA.into()),
                    }],
                    auto_merge: None,
                    in_merge_queue: false,
                    author: pr.author.clone(),
                    commit_authors: Vec::new(),
                    queued_before_a_move: false,
                }),
                actor: Some(classified),
                queue: false,
            },
            review: Some(ReviewReading { diff: &diff, context_files: &[] }),
            pull_id: "PR_node",
        });
        prop_assert_eq!(named(&released, &GUARD), decided(&guard.gates));
        prop_assert_eq!(named(&released, &REVIEW_ACTOR_GATES), named(&reviewed, &REVIEW_ACTOR_GATES));
        let agent_gates_ran = reviewed
            .gates
            .iter()
            .any(|g| g.gate == "agent_paths" || g.gate == "agent_diff_size");
        if agent_gates_ran {
            prop_assert!(full.is_agent());
        }
        let diff_sizes = reviewed
            .gates
            .iter()
            .filter(|g| g.gate == "diff_size" || g.gate == "agent_diff_size")
            .count();
        prop_assert!(diff_sizes <= 1, "agent_diff_size replaces diff_size");
        prop_assert_eq!(
            released.gates.iter().any(|g| g.gate == "human_approval"),
            full.is_agent() && policy.actors.agent.human_approvals > 0
        );

        // check:actor records the class so that the ledger reads it back.
        let actor_gate = reviewed.gates.iter().find(|g| g.gate == "actor");
        prop_assert!(actor_gate.is_some_and(|g| g.verdict == Verdict::Pass));
        let recorded = actor_gate
            .and_then(|g| RecordedActor::parse(&g.timeline_message()))
            .expect("check:actor reads back");
        prop_assert_eq!(recorded.class, full.class);
        prop_assert_eq!(&recorded.kinds, &full.kinds());

        // policy simulate over what the ledger recorded under the same policy: nothing
        // changes; recorded the other way round, exactly the flipped gates do.
        let recorded_verdict = |gate: &str| guard.gates.iter().find(|g| g.gate == gate).map(|g| g.verdict);
        let same = replay(policy, &RecordedPull {
            number: pr.number,
            head: &world.head,
            base: &world.base,
            author: world.author.as_deref().unwrap_or_default(),
            naming_convention: recorded_verdict("naming_convention"),
            target_policy: recorded_verdict("target_policy"),
            actor: Some(&recorded),
        });
        prop_assert!(!same.changes(), "{:?}", same);
        let flip = |v: Option<Verdict>| v.map(|v| if v == Verdict::Pass { Verdict::Fail } else { Verdict::Pass });
        let flipped = replay(policy, &RecordedPull {
            number: pr.number,
            head: &world.head,
            base: &world.base,
            author: world.author.as_deref().unwrap_or_default(),
            naming_convention: flip(recorded_verdict("naming_convention")),
            target_policy: flip(recorded_verdict("target_policy")),
            actor: None,
        });
        let now: Vec<GateOutcome> = flipped.gates.iter().map(|c| c.now.clone()).collect();
        prop_assert_eq!(decided(&now), decided(&guard.gates));
    }

    #[test]
    fn the_guard_s_verdicts_without_messages_are_the_gates_own(head in head(), base in base(), p in 0..4usize) {
        let policy = &policies()[p];
        let facts = crate::gates::guard::GuardFacts::of(crate::gates::guard::GuardInput {
            pr_number: 1,
            head: &head,
            base: &base,
            previous_base: None,
            policy: &policy.branches,
            policy_source: &policy.source,
        });
        let gates = crate::gates::guard::evaluate(facts.input);
        prop_assert_eq!(gates[0].verdict == Verdict::Pass, facts.names_pass());
        prop_assert_eq!(gates[1].verdict == Verdict::Pass, facts.target_passes());
    }
}
