//! Stage 3, the Executor: merge an open pull request when, read at decision time, its
//! branch still passes the guard under its base branch's policy, its head still passes
//! every review gate, and both release gates pass; or after the merge check the merge
//! commit's pipeline and, when it is red and the policy says `rollback: true`, ask for
//! a revert (pure: the effects are data). Nothing stored in the ledger is an input: a
//! recorded approval, merge or verdict cannot make this stage merge or revert.
//!
//! Under the merge queue (`queue.enabled`) release never merges: where it would, it adds
//! the queue's label instead (`action:enqueue`), and [`crate::queue`] lands the pull
//! request once a queue commit holding it is green.

pub mod merged;

use super::Stage;
use super::effect::{Effect, EffectReport, EffectResult, Merge, Revert};
use super::result::{StageResult, Status};
use crate::actors::same_label;
use crate::audit::ReleaseStatus;
use crate::event::PullRequest;
use crate::gates::guard::{self, GuardInput};
use crate::gates::release::{self, OpenFacts, ReleaseFacts, short};
use crate::gates::{GateOutcome, Verdict};
use crate::policy::Policy;
use crate::render::text::{Message, escape_text};
use crate::review::{ContextCheck, DiffFacts, ReviewFacts};

pub struct ReleaseStage<'a> {
    /// The pull request as read at decision time: branches, head, author, labels, body.
    pub pr: &'a PullRequest,
    /// The policy of its base branch as that branch is now.
    pub policy: &'a Policy,
    pub facts: ReleaseFacts<'a>,
    /// The head's diff, read for the review gates; `None` while something else already
    /// keeps the pull request from merging (the files are read only when they decide).
    pub review: Option<ReviewReading<'a>>,
    /// The pull request's GraphQL node id (a revert names the pull request by it).
    pub pull_id: &'a str,
}

/// What the review gates look at, read for the head being decided.
#[derive(Debug, Clone, Copy)]
pub struct ReviewReading<'a> {
    pub diff: &'a DiffFacts,
    pub context_files: &'a [ContextCheck],
}

pub fn evaluate(input: &ReleaseStage) -> StageResult {
    let facts = &input.facts;
    let mut notes = vec![Message::new().text(format!("policy: {}", input.policy.source))];
    let mut effects = Vec::new();
    let Some(open) = &facts.open else {
        // After the merge only the merge commit's pipeline counts.
        let gates = release::evaluate(facts);
        let red = gates.iter().any(|g| g.verdict == Verdict::Fail);
        if red && facts.policy.rollback {
            effects.push(Effect::Revert(revert(input, &red_pipeline_reason(&gates))));
        } else if red {
            notes.push(Message::new().text(format!(
                "rollback: off (`release.rollback: false`); merge commit {} stays on the \
                 base, and nothing is reverted",
                short(&facts.pipeline.sha)
            )));
        }
        return StageResult {
            stage: Stage::Release,
            status: Status::Release(ReleaseStatus::Merged),
            gates,
            effects,
            notes,
            actor: facts.actor.map(|a| a.actor.class),
        };
    };
    if let Some(classified) = facts.actor {
        notes.extend(classified.actor.warnings.iter().cloned());
    }
    let mut gates = guard_gates(input);
    if let Some(reading) = &input.review {
        gates.extend(crate::stage::review::gates(&ReviewFacts {
            pr: input.pr,
            policy: &input.policy.review,
            diff: reading.diff,
            context_files: reading.context_files,
            actor: facts.actor,
        }));
    }
    gates.extend(release::evaluate(facts));
    let passed = gates.iter().all(|g| g.verdict == Verdict::Pass);
    let status = if passed && input.review.is_some() && facts.queue {
        enqueue(input, open, &mut effects, &mut notes);
        ReleaseStatus::Pending
    } else if passed && input.review.is_some() {
        // The status is what it would be without a release token; finish says what
        // became of the merge.
        effects.push(Effect::Merge(Merge {
            number: input.pr.number,
            sha: open.head_sha.clone(),
            base: input.pr.base_ref.clone(),
            base_sha: input.pr.base_sha.clone(),
            method: facts.policy.merge_method,
            revert_if_misplaced: facts
                .policy
                .rollback
                .then(|| revert(input, &misplaced_reason(&input.pr.base_ref))),
        }));
        ReleaseStatus::Eligible
    } else {
        if input.review.is_none() {
            notes.push(Message::new().text(format!(
                "review gates: not read again for head {}, since something else keeps it \
                 from merging first",
                short(&open.head_sha)
            )));
        }
        ReleaseStatus::Pending
    };
    StageResult {
        stage: Stage::Release,
        status: Status::Release(status),
        gates,
        effects,
        notes,
        actor: facts.actor.map(|a| a.actor.class),
    }
}

/// Where release would merge under the queue: the queue's label, once (adding it again
/// would not move the pull request's place in line, and records nothing new). A label
/// put there for an older head or another base (the head moved, or the pull request was
/// retargeted, after it was last added) is no place in line for this head and base: it
/// is removed and added again, so the pull request re-enters the line now, as a pull
/// request whose head moved does (SPEC "Merge queue").
fn enqueue(
    input: &ReleaseStage,
    open: &OpenFacts,
    effects: &mut Vec<Effect>,
    notes: &mut Vec<Message>,
) {
    let label = crate::policy::queue::QUEUED_LABEL;
    let labelled = open.labels.iter().any(|l| same_label(l, label));
    if labelled && !open.queued_before_a_move {
        notes.push(
            Message::new()
                .text(format!(
                    "merge queue: #{} is in line already (label ",
                    input.pr.number
                ))
                .value(label)
                .text("); the queue lands it once a queue commit holding it is green"),
        );
        return;
    }
    if labelled {
        notes.push(
            Message::new()
                .text(format!("merge queue: #{}'s label ", input.pr.number))
                .value(label)
                .text(" was added before its head moved or it was retargeted; it re-enters the line for head ")
                .value(short(&open.head_sha))
                .text(" into ")
                .value(&input.pr.base_ref)
                .text(" (the label removed and added again)"),
        );
        effects.push(Effect::RemoveLabel {
            issue: input.pr.number,
            label: label.to_string(),
        });
    }
    effects.push(Effect::Enqueue {
        number: input.pr.number,
        label: label.to_string(),
    });
}

/// Whether release, under the queue, found every gate passing on a pull request that
/// carries the queue's label already: only then does it matter whether the label was
/// put there for an older head (the app then reads the issue timeline to tell, and
/// decides again with [`OpenFacts::queued_before_a_move`]).
pub fn in_line_already(input: &ReleaseStage, result: &StageResult) -> bool {
    let label = crate::policy::queue::QUEUED_LABEL;
    let Some(open) = &input.facts.open else {
        return false;
    };
    input.facts.queue
        && input.review.is_some()
        && !open.queued_before_a_move
        && open.labels.iter().any(|l| same_label(l, label))
        && !result.gates.is_empty()
        && result.gates.iter().all(|g| g.verdict == Verdict::Pass)
}

/// Whether the effects of a release decision put the pull request in the merge queue
/// (the `queue-status` output is then `QUEUED`).
pub fn queued(result: &StageResult) -> bool {
    result
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Enqueue { .. }))
}

/// Whether everything but the review gates lets the pull request merge: only then is its
/// diff worth reading (a request per 100 files, one per changed ASSISTANT_CONTEXT file).
pub fn waits_only_for_review(input: &ReleaseStage) -> bool {
    input.facts.open.is_some()
        && guard::passed(&guard_gates(input))
        && release::evaluate(&input.facts)
            .iter()
            .all(|g| g.verdict == Verdict::Pass)
}

/// The branch gates on the pull request's branches as they are now, under its base
/// branch's policy as it is now: a retarget after approval is judged like a new one.
fn guard_gates(input: &ReleaseStage) -> Vec<GateOutcome> {
    guard::evaluate(GuardInput {
        pr_number: input.pr.number,
        head: &input.pr.head_ref,
        base: &input.pr.base_ref,
        previous_base: None,
        policy: &input.policy.branches,
        policy_source: &input.policy.source,
    })
}

/// Why a red merge commit is reverted: its failed gates, in Markdown.
fn red_pipeline_reason(gates: &[GateOutcome]) -> String {
    let why: Vec<String> = gates
        .iter()
        .filter(|g| g.verdict == Verdict::Fail)
        .map(|g| g.message.markdown())
        .collect();
    format!(
        "the pipeline of its merge commit is red.\n\n{}",
        why.join("\n\n")
    )
}

/// Why a merge that landed on another base is reverted.
fn misplaced_reason(decided: &str) -> String {
    format!(
        "it was merged into another base than `{}`, the one release decided it may merge \
         into (the pull request was retargeted while the merge was under way).",
        escape_text(decided)
    )
}

/// The revert of a merged pull request; its body says why.
fn revert(input: &ReleaseStage, why: &str) -> Revert {
    let pr = input.pr;
    Revert {
        number: pr.number,
        pull_id: input.pull_id.to_string(),
        title: format!("Revert \"{}\"", pr.title),
        body: format!(
            "Reverts #{}: {why}\n\n<sub>Opened by agent-council's release stage \
             (`release.rollback: true` in {}); the Context Object of #{} records it.</sub>\n",
            pr.number,
            escape_text(&input.policy.source),
            pr.number
        ),
    }
}

/// A release's status is what became of this run's own merge or revert (`done`: each
/// effect the stage asked for with what became of it), never what the stored ledger says
/// happened earlier: a revert done is `ROLLED_BACK`, a merge done `MERGED`, and an
/// eligible pull request whose merge GitHub refused (the head moved, the state changed)
/// or that failed is `PENDING`; otherwise the status decided stands (`ELIGIBLE` without a
/// release token or in a dry run).
pub fn settle(decided: ReleaseStatus, done: &[(&Effect, &EffectReport)]) -> ReleaseStatus {
    let happened = |wanted: fn(&Effect) -> bool| {
        done.iter()
            .any(|(e, r)| wanted(e) && matches!(r.result, EffectResult::Done(_)))
    };
    let tried = |wanted: fn(&Effect) -> bool| {
        done.iter()
            .any(|(e, r)| wanted(e) && !matches!(r.result, EffectResult::Skipped(_)))
    };
    let merge = |e: &Effect| matches!(e, Effect::Merge(_));
    let revert = |e: &Effect| matches!(e, Effect::Revert(_));
    if happened(revert) {
        ReleaseStatus::RolledBack
    } else if happened(merge) {
        ReleaseStatus::Merged
    } else if decided == ReleaseStatus::Eligible && tried(merge) {
        ReleaseStatus::Pending
    } else {
        decided
    }
}

/// A merge that GitHub made into another base than the one release decided for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misplaced {
    /// `target_policy` failed: replaces the passing verdict the decision recorded.
    pub gate: GateOutcome,
    /// The revert to open (`release.rollback: true`).
    pub revert: Option<Effect>,
}

/// Right after a merge: `landed` is the base GitHub says the pull request was merged
/// into. GitHub's merge endpoint pins the head, never the base, so a retarget between
/// the decision and the merge lands the head where no gate looked: that is a failure
/// of `target_policy`, said loudly, and with `rollback` the merge is reverted. `None`
/// when it landed where it was decided to.
pub fn misplaced(merge: &Merge, landed: &str) -> Option<Misplaced> {
    if landed == merge.base {
        return None;
    }
    let message = Message::new()
        .text(format!("#{} was merged into ", merge.number))
        .value(landed)
        .text(", but release decided to merge it into ")
        .value(&merge.base)
        .text(format!(
            " (base {} ← head {}): it was retargeted after the decision, which GitHub's \
             merge endpoint cannot refuse.",
            short(&merge.base_sha),
            short(&merge.sha)
        ));
    let advice = Message::new()
        .text(match merge.revert_if_misplaced {
            Some(_) => "A revert pull request undoes the merge on ",
            None => "Revert the merge on ",
        })
        .value(landed)
        .text(
            " (with `release.rollback: true` council opens that revert itself). To close \
             the window, require council's guard check on every base in branch protection, \
             so that a retargeted pull request cannot merge until the guard has judged it \
             again, or land through the merge queue (`queue.enabled`), which moves the \
             decided base by a fast-forward.",
        );
    Some(Misplaced {
        gate: crate::gates::guard::target_gate().fail(
            message,
            Some(crate::gates::Fix {
                advice,
                commands: Vec::new(),
            }),
        ),
        revert: merge.revert_if_misplaced.clone().map(Effect::Revert),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::release::{CheckFact, CheckKind, CheckState, Mergeable, OpenFacts, Pipeline};
    use crate::policy::{MergeMethod, Release};
    use crate::review::FileChange;

    const HEAD: &str = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const MERGE: &str = "2222222aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    fn pipeline(sha: &str, state: CheckState) -> Pipeline {
        Pipeline {
            sha: sha.to_string(),
            merge_commit: sha == MERGE,
            checks: vec![CheckFact {
                name: "ci".into(),
                kind: CheckKind::Run,
                state,
                id: Some(1),
                url: None,
            }],
            complete: true,
            ..Pipeline::default()
        }
    }

    fn open() -> OpenFacts {
        OpenFacts {
            head_sha: HEAD.into(),
            event_head: HEAD.into(),
            draft: false,
            mergeable: Mergeable::Clean,
            reads: 1,
            labels: vec!["bot-approved".into()],
            reviews: Vec::new(),
            auto_merge: None,
            in_merge_queue: false,
            author: "agent".into(),
            commit_authors: Vec::new(),
            queued_before_a_move: false,
        }
    }

    /// The sample pull request on a branch the default policy lets into `base`.
    fn pr(base: &str) -> PullRequest {
        let mut pr = crate::event::sample_pull_request();
        pr.title = "Add <login> @team".into();
        pr.head_ref = "feature/devops/PBI-001-login".into();
        pr.base_ref = base.into();
        pr.head_sha = HEAD.into();
        pr
    }

    fn diff(pr: &PullRequest, added: &str) -> DiffFacts {
        let file = FileChange {
            path: "src/a.rs".into(),
            status: "modified".into(),
            previous_path: None,
            additions: 1,
            deletions: 0,
            patch: Some(format!("@@ -1,0 +1,1 @@\n+{added}")),
        };
        DiffFacts::new(vec![file], false, pr)
    }

    struct Case<'a> {
        pr: PullRequest,
        release: &'a Release,
        pipeline: Pipeline,
        open: Option<OpenFacts>,
        diff: Option<DiffFacts>,
        queue: bool,
    }

    impl Case<'_> {
        fn stage(&self) -> (StageResult, bool) {
            self.with_input(|input| (evaluate(input), waits_only_for_review(input)))
        }

        /// Whether release finds it in line already ([`in_line_already`]).
        fn in_line(&self) -> bool {
            self.with_input(|input| in_line_already(input, &evaluate(input)))
        }

        fn with_input<T>(&self, f: impl FnOnce(&ReleaseStage) -> T) -> T {
            let mut policy = Policy::default_policy();
            policy.release = self.release.clone();
            let input = ReleaseStage {
                pr: &self.pr,
                policy: &policy,
                facts: ReleaseFacts {
                    policy: self.release,
                    require_label: Some("bot-approved"),
                    pipeline: self.pipeline.clone(),
                    open: self.open.clone(),
                    queue: self.queue,
                    actor: None,
                },
                review: self.diff.as_ref().map(|diff| ReviewReading {
                    diff,
                    context_files: &[],
                }),
                pull_id: "PR_node",
            };
            f(&input)
        }
    }

    fn ready<'a>(release: &'a Release, base: &str, added: &str) -> Case<'a> {
        let pr = pr(base);
        let diff = Some(diff(&pr, added));
        Case {
            pr,
            release,
            pipeline: pipeline(HEAD, CheckState::Success),
            open: Some(open()),
            diff,
            queue: false,
        }
    }

    fn verdicts(result: &StageResult) -> Vec<(&str, &str)> {
        result
            .gates
            .iter()
            .map(|g| (g.gate, g.verdict.as_str()))
            .collect()
    }

    #[test]
    fn green_and_ready_asks_to_merge_the_head_just_read_with_the_policy_method() {
        let policy = Release {
            merge_method: MergeMethod::Squash,
            ..Release::default()
        };
        let (result, _) = ready(&policy, "develop", "let x = 1;").stage();
        assert_eq!(result.status, Status::Release(ReleaseStatus::Eligible));
        assert_eq!(
            result.effects,
            [Effect::Merge(Merge {
                number: 2,
                sha: HEAD.into(),
                base: "develop".into(),
                base_sha: crate::event::sample_pull_request().base_sha,
                method: MergeMethod::Squash,
                revert_if_misplaced: None,
            })]
        );
        assert_eq!(
            verdicts(&result),
            [
                ("naming_convention", "PASS"),
                ("target_policy", "PASS"),
                ("secret_scan", "PASS"),
                ("assistant_context", "PASS"),
                ("pipeline_green", "PASS"),
                ("merge_ready", "PASS"),
            ]
        );
        assert!(!result.failed());
    }

    #[test]
    fn the_files_are_read_only_when_they_alone_decide() {
        let policy = Release::default();
        let mut case = ready(&policy, "develop", "x");
        case.diff = None;
        let (unread, worth_reading) = case.stage();
        assert!(worth_reading);
        assert!(unread.effects.is_empty() && !unread.failed());
        assert_eq!(unread.status, Status::Release(ReleaseStatus::Pending));
        assert!(
            unread.notes[1]
                .plain()
                .starts_with("review gates: not read again")
        );

        case.pipeline = pipeline(HEAD, CheckState::Pending("queued".into()));
        assert!(!case.stage().1, "a pending pipeline decides first");
        let mut retargeted = ready(&policy, "main", "x");
        retargeted.diff = None;
        assert!(!retargeted.stage().1, "a failing guard decides first");
    }

    #[test]
    fn a_retargeted_branch_fails_the_guard_again_and_is_not_merged() {
        let policy = Release::default();
        let (result, _) = ready(&policy, "main", "x").stage();
        assert!(result.failed() && result.effects.is_empty());
        assert_eq!(
            &verdicts(&result)[..2],
            [("naming_convention", "PASS"), ("target_policy", "FAIL")]
        );
        assert_eq!(result.status, Status::Release(ReleaseStatus::Pending));
    }

    #[test]
    fn a_secret_on_the_head_fails_review_again_and_is_not_merged() {
        let policy = Release::default();
        let token = format!("ghp_{}", "Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c");
        let (result, _) = ready(&policy, "develop", &format!("TOKEN={token}")).stage();
        assert!(result.failed() && result.effects.is_empty());
        assert_eq!(verdicts(&result)[2], ("secret_scan", "FAIL"));
    }

    #[test]
    fn waiting_or_red_asks_for_nothing() {
        let policy = Release::default();
        let mut waiting = ready(&policy, "develop", "x");
        waiting.open.as_mut().unwrap().labels.clear();
        let (waiting, _) = waiting.stage();
        assert_eq!(waiting.status, Status::Release(ReleaseStatus::Pending));
        assert!(waiting.effects.is_empty() && !waiting.failed());
        let mut red = ready(&policy, "develop", "x");
        red.pipeline = pipeline(HEAD, CheckState::Red("failure".into()));
        let (red, _) = red.stage();
        assert!(red.effects.is_empty() && red.failed());
    }

    #[test]
    fn a_merge_that_lands_on_another_base_fails_the_target_gate_and_reverts_with_rollback() {
        let merge_of = |release: &Release| {
            let (result, _) = ready(release, "develop", "x").stage();
            let [Effect::Merge(merge)] = result.effects.as_slice() else {
                panic!("{:?}", result.effects);
            };
            merge.clone()
        };
        let off = merge_of(&Release::default());
        assert_eq!(misplaced(&off, "develop"), None, "landed where decided");
        let landed = misplaced(&off, "main").expect("another base is a failure");
        assert_eq!(
            (landed.gate.gate, landed.gate.action, landed.gate.verdict),
            ("target_policy", "check:target-branch", Verdict::Fail)
        );
        assert_eq!(landed.revert, None);
        insta::assert_snapshot!(landed.gate.timeline_message(), @r#"#2 was merged into "main", but release decided to merge it into "develop" (base f95f852 ← head 1111111): it was retargeted after the decision, which GitHub's merge endpoint cannot refuse. Fix: Revert the merge on "main" (with `release.rollback: true` council opens that revert itself). To close the window, require council's guard check on every base in branch protection, so that a retargeted pull request cannot merge until the guard has judged it again, or land through the merge queue (`queue.enabled`), which moves the decided base by a fast-forward."#);

        let on = merge_of(&Release {
            rollback: true,
            ..Release::default()
        });
        let landed = misplaced(&on, "main").expect("another base is a failure");
        let Some(Effect::Revert(revert)) = &landed.revert else {
            panic!("{:?}", landed.revert);
        };
        assert_eq!((revert.number, revert.pull_id.as_str()), (2, "PR_node"));
        assert!(revert.body.starts_with(
            "Reverts #2: it was merged into another base than `develop`, the one release decided"
        ));
    }

    #[test]
    fn the_status_is_what_became_of_this_runs_own_merge_or_revert() {
        let merge = Effect::Merge(Merge {
            number: 7,
            sha: HEAD.into(),
            base: "develop".into(),
            base_sha: MERGE.into(),
            method: MergeMethod::Merge,
            revert_if_misplaced: None,
        });
        let revert = Effect::Revert(Revert {
            number: 7,
            pull_id: "PR_node".into(),
            title: "t".into(),
            body: "b".into(),
        });
        let report = |action, result| EffectReport::new(action, result);
        let done = report("action:merge", EffectResult::Done(Message::new()));
        let refused = report("action:merge", EffectResult::Pending(Message::new()));
        let skipped = report("action:merge", EffectResult::Skipped(Message::new()));
        let reverted = report("action:revert", EffectResult::Done(Message::new()));
        let eligible = ReleaseStatus::Eligible;
        assert_eq!(settle(eligible, &[(&merge, &done)]), ReleaseStatus::Merged);
        assert_eq!(
            settle(eligible, &[(&merge, &refused)]),
            ReleaseStatus::Pending
        );
        assert_eq!(
            settle(eligible, &[(&merge, &skipped)]),
            ReleaseStatus::Eligible
        );
        assert_eq!(
            settle(eligible, &[(&merge, &done), (&revert, &reverted)]),
            ReleaseStatus::RolledBack
        );
        assert_eq!(settle(ReleaseStatus::Pending, &[]), ReleaseStatus::Pending);
        // A report's action text decides nothing: only the effect it belongs to.
        let label = Effect::AddLabel {
            issue: 7,
            label: "x".into(),
        };
        assert_eq!(settle(eligible, &[(&label, &done)]), eligible);
    }

    #[test]
    fn a_red_merge_commit_is_reverted_only_with_rollback() {
        let merged = |release: &Release, state: CheckState| {
            Case {
                pr: pr("develop"),
                release,
                pipeline: pipeline(MERGE, state),
                open: None,
                diff: None,
                queue: false,
            }
            .stage()
            .0
        };
        let off = merged(&Release::default(), CheckState::Red("failure".into()));
        assert!(off.failed() && off.effects.is_empty());
        assert_eq!(off.status, Status::Release(ReleaseStatus::Merged));
        assert!(off.notes[1].plain().starts_with("rollback: off"));

        let policy = Release {
            rollback: true,
            ..Release::default()
        };
        let on = merged(&policy, CheckState::Red("failure".into()));
        let [
            Effect::Revert(Revert {
                number,
                pull_id,
                title,
                body,
            }),
        ] = on.effects.as_slice()
        else {
            panic!("{:?}", on.effects);
        };
        assert_eq!((*number, pull_id.as_str()), (2, "PR_node"));
        assert_eq!(title, "Revert \"Add <login> @team\"");
        insta::assert_snapshot!(body, @r#"
        Reverts #2: the pipeline of its merge commit is red.

        1 red check on the merge commit <code>2222222</code>: <code>ci</code> (failure).

        <sub>Opened by agent-council's release stage (`release.rollback: true` in default policy); the Context Object of #2 records it.</sub>
        "#);
        let green = merged(&policy, CheckState::Success);
        assert!(green.effects.is_empty() && !green.failed());
        assert_eq!(
            green.gates.len(),
            1,
            "after the merge only the pipeline counts"
        );
    }

    #[test]
    fn under_the_queue_release_labels_instead_of_merging_and_does_not_wait_for_behind() {
        let policy = Release::default();
        let mut case = ready(&policy, "develop", "x");
        case.queue = true;
        case.open.as_mut().unwrap().mergeable = Mergeable::Behind;
        let (result, _) = case.stage();
        assert_eq!(
            result.effects,
            [Effect::Enqueue {
                number: 2,
                label: "council:queued".into(),
            }]
        );
        assert!(queued(&result) && !result.failed());
        assert_eq!(result.status, Status::Release(ReleaseStatus::Pending));
        assert_eq!(verdicts(&result)[5], ("merge_ready", "PASS"));

        // In line already: nothing to add, and it says so.
        case.open
            .as_mut()
            .unwrap()
            .labels
            .push("Council:Queued".into());
        let (again, _) = case.stage();
        assert!(again.effects.is_empty() && !queued(&again));
        insta::assert_snapshot!(again.notes[1].plain(), @r#"merge queue: #2 is in line already (label "council:queued"); the queue lands it once a queue commit holding it is green"#);
        assert!(case.in_line());

        // The label was added before the head moved: it re-enters the line for this
        // head, the label removed and added again (a new `labeled` event, its place now).
        case.open.as_mut().unwrap().queued_before_a_move = true;
        let (requeued, _) = case.stage();
        assert_eq!(
            requeued.effects,
            [
                Effect::RemoveLabel {
                    issue: 2,
                    label: "council:queued".into(),
                },
                Effect::Enqueue {
                    number: 2,
                    label: "council:queued".into(),
                },
            ]
        );
        assert!(queued(&requeued) && !case.in_line());
        insta::assert_snapshot!(requeued.notes[1].plain(), @r#"merge queue: #2's label "council:queued" was added before its head moved or it was retargeted; it re-enters the line for head "1111111" into "develop" (the label removed and added again)"#);

        // Still waits for a conflict, a draft or an unknown state; never merges.
        for waits in [Mergeable::Dirty, Mergeable::Draft, Mergeable::Unknown] {
            let mut case = ready(&policy, "develop", "x");
            case.queue = true;
            case.open.as_mut().unwrap().mergeable = waits;
            let (result, _) = case.stage();
            assert!(result.effects.is_empty(), "{waits:?}");
            assert_eq!(result.status, Status::Release(ReleaseStatus::Pending));
        }
        // A red check fails as without the queue.
        let mut red = ready(&policy, "develop", "x");
        red.queue = true;
        red.pipeline = pipeline(HEAD, CheckState::Red("failure".into()));
        let (red, _) = red.stage();
        assert!(red.failed() && red.effects.is_empty());
    }

    mod agents {
        use super::*;
        use crate::actors::{Actor, ActorFacts, Classified, CommitMessage, Commits, classify};
        use crate::audit::derive::gates as derived_gates;
        use crate::gates::release::ReviewFact;

        const OLD: &str = "0000000bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

        fn approval(login: &str, commit: &str) -> ReviewFact {
            ReviewFact {
                login: login.into(),
                state: "APPROVED".into(),
                bot: login.ends_with("[bot]"),
                commit: Some(commit.into()),
            }
        }

        fn agent(policy: &Policy, commits: Option<(&[CommitMessage], u64)>) -> Actor {
            classify(
                &policy.actors.agents,
                &ActorFacts {
                    author: Some("copilot-swe-agent[bot]"),
                    head: "feature/devops/PBI-001-login",
                    labels: Some(&[]),
                    commits: commits.map(|(listed, total)| Commits { listed, total }),
                },
            )
        }

        /// Release on a green, labelled pull request by `actor`, with `reviews` and the
        /// commits' `authors`.
        fn decide(actor: &Actor, reviews: Vec<ReviewFact>, authors: &[&str]) -> StageResult {
            let policy = Policy::default_policy();
            let release = Release::default();
            let pr = pr("develop");
            let diff = diff(&pr, "x");
            let mut open = open();
            open.author = "copilot-swe-agent[bot]".into();
            open.reviews = reviews;
            open.commit_authors = authors.iter().map(|a| a.to_string()).collect();
            evaluate(&ReleaseStage {
                pr: &pr,
                policy: &policy,
                facts: ReleaseFacts {
                    policy: &release,
                    require_label: Some("bot-approved"),
                    pipeline: pipeline(HEAD, CheckState::Success),
                    open: Some(open),
                    actor: Some(Classified {
                        actor,
                        rules: &policy.actors.agent,
                    }),
                    queue: false,
                },
                review: Some(ReviewReading {
                    diff: &diff,
                    context_files: &[],
                }),
                pull_id: "PR_node",
            })
        }

        fn human_approval(result: &StageResult) -> Option<&GateOutcome> {
            result.gates.iter().find(|g| g.gate == "human_approval")
        }

        #[test]
        fn an_agent_s_pull_request_waits_for_a_person_s_approval_of_its_head() {
            let policy = Policy::default_policy();
            let actor = agent(&policy, None);
            let waiting = decide(&actor, Vec::new(), &[]);
            assert_eq!(waiting.status, Status::Release(ReleaseStatus::Pending));
            assert!(!waiting.failed() && waiting.effects.is_empty());
            let gate = human_approval(&waiting).unwrap();
            assert_eq!(gate.verdict, Verdict::Pending);
            insta::assert_snapshot!(gate.timeline_message(), @r#"Waiting for 1 more human approval of head "1111111" (actors.agent.human_approvals: 1; has 0). Fix: a person who can write to the repository, did not open this pull request and did not author or co-author its commits reviews and approves head "1111111" (an approval of an earlier head does not count)."#);

            let approved = decide(&actor, vec![approval("maintainer", HEAD)], &[]);
            assert_eq!(approved.status, Status::Release(ReleaseStatus::Eligible));
            insta::assert_snapshot!(human_approval(&approved).unwrap().message.plain(), @r#"1 of 1 human approval on head "1111111": "maintainer"."#);
            assert!(matches!(
                approved.effects.as_slice(),
                [Effect::Merge { .. }]
            ));
        }

        #[test]
        fn approvals_that_do_not_count_are_named_with_the_reason() {
            let policy = Policy::default_policy();
            let listed = [CommitMessage {
                sha: HEAD.into(),
                message: "Work\n".into(),
            }];
            let actor = agent(&policy, Some((&listed, 300)));
            let result = decide(
                &actor,
                vec![
                    approval("Copilot-SWE-Agent[bot]", HEAD),
                    approval("github-actions[bot]", HEAD),
                    approval("bob", OLD),
                    approval("requester", HEAD),
                ],
                &["Requester"],
            );
            let gate = human_approval(&result).unwrap();
            assert_eq!(gate.verdict, Verdict::Pending);
            insta::assert_snapshot!(gate.message.plain(), @r#"Waiting for 1 more human approval of head "1111111" (actors.agent.human_approvals: 1; has 0); not counted: "Copilot-SWE-Agent[bot]" (a bot), "github-actions[bot]" (a bot), "bob" (approved an earlier head), "requester" (an author or co-author of its commits) (the authors of 1 of its 300 commits were known)."#);
        }

        #[test]
        fn a_waiting_gate_stays_null_in_the_context_object() {
            use crate::audit::derive::Fact;
            struct E(&'static str, &'static str);
            impl Fact for E {
                fn agent(&self) -> &str {
                    "agent_release"
                }
                fn action(&self) -> &str {
                    self.0
                }
                fn result(&self) -> &str {
                    self.1
                }
                fn sha(&self) -> &str {
                    "s"
                }
                fn run(&self) -> (&str, u64) {
                    ("1", 1)
                }
            }
            let policy = Policy::default_policy();
            let waiting = decide(&agent(&policy, None), Vec::new(), &[]);
            let entry = human_approval(&waiting).unwrap();
            let gates = derived_gates(&[E(entry.action, entry.verdict.as_str())]);
            assert_eq!(gates.get("human_approval"), Some(None));
            let gates = derived_gates(&[E("check:human-approval", "PASS")]);
            assert_eq!(
                gates.get("human_approval"),
                Some(Some(&crate::audit::gates::GateValue::Pass))
            );
        }

        #[test]
        fn a_human_s_pull_request_has_no_human_approval_gate() {
            let policy = Policy::default_policy();
            let human = classify(
                &policy.actors.agents,
                &ActorFacts {
                    author: Some("alice"),
                    head: "feature/devops/PBI-001-login",
                    labels: Some(&[]),
                    commits: None,
                },
            );
            let result = decide(&human, Vec::new(), &[]);
            assert!(human_approval(&result).is_none());
            assert_eq!(result.status, Status::Release(ReleaseStatus::Eligible));
        }
    }
}
