//! Stage 2, the Critic: the review gates over the diff, the verdict, and the approve
//! label it wants added or removed (pure).

use super::Stage;
use super::effect::Effect;
use super::result::{StageResult, Status};
use crate::actors::same_label;
use crate::audit::ReviewStatus;
use crate::gates::{Check, GATES, GateOutcome, Verdict};
use crate::render::text::Message;
use crate::review::ReviewFacts;

pub fn evaluate(facts: &ReviewFacts) -> StageResult {
    let gates = gates(facts);
    let approved = gates.iter().all(|g| g.verdict == Verdict::Pass);
    let pr = facts.pr;
    let label = facts.policy.approve_label.as_str();
    let has_label = pr.labels.iter().any(|l| l == label);
    let mut effects: Vec<Effect> = agent_label(facts).into_iter().collect();
    if !label.is_empty() {
        if approved && !has_label {
            effects.push(Effect::AddLabel {
                issue: pr.number,
                label: label.to_string(),
            });
        } else if !approved && has_label {
            effects.push(Effect::RemoveLabel {
                issue: pr.number,
                label: label.to_string(),
            });
        }
    }
    let diff = facts.diff;
    let mut notes = vec![Message::new().text(format!(
        "review: {} of {} changed files listed{}",
        diff.files.len(),
        diff.total_files,
        if diff.capped {
            format!(" ({})", crate::review::diff::cap_note())
        } else {
            String::new()
        }
    ))];
    if gates.is_empty() {
        notes.push(Message::new().text("review: every review gate is off in the policy"));
    }
    if let Some(classified) = facts.actor {
        notes.extend(classified.actor.warnings.iter().cloned());
    }
    StageResult {
        stage: Stage::Review,
        status: Status::Review(if approved {
            ReviewStatus::Approved
        } else {
            ReviewStatus::ChangesRequested
        }),
        gates,
        effects,
        notes,
        actor: facts.actor.map(|a| a.actor.class),
    }
}

/// `actors.agent.label` on an agent's pull request that lacks it (letter case ignored,
/// as GitHub compares labels). Added once and never removed: it records who wrote the
/// pull request, not a verdict.
fn agent_label(facts: &ReviewFacts) -> Option<Effect> {
    let rules = facts.actor.filter(|a| a.is_agent())?.rules;
    let label = rules.label.as_str();
    if label.is_empty() || facts.pr.labels.iter().any(|l| same_label(l, label)) {
        return None;
    }
    Some(Effect::AddLabel {
        issue: facts.pr.number,
        label: label.to_string(),
    })
}

/// What the pull request's head is now, against the head the event named: review's
/// verdict is about the event's head (its diff was read by that SHA) whatever happened
/// since, but the approve label follows the newest head only, so a run whose head moved
/// on leaves the decision to the run of the new head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadNow {
    /// Still the event's head: decide.
    Same,
    /// Moved on: decide nothing; why, for the summary.
    MovedOn(Message),
    /// It could not be read again (404 on the single pull request): decide, and say so.
    Unread(Message),
}

/// [`HeadNow`] for `pr` (the event's) and the head GitHub reports now (`None`: not read).
pub fn head_now(pr: &crate::event::PullRequest, now: Option<&str>) -> HeadNow {
    let short = |sha: &str| crate::gates::release::short(sha).to_string();
    match now {
        Some(now) if now != pr.head_sha => HeadNow::MovedOn(Message::new().text(format!(
            "the head of #{} moved from {} to {} since the event; the run for the new head \
             decides",
            pr.number,
            short(&pr.head_sha),
            short(now),
        ))),
        Some(_) => HeadNow::Same,
        None => HeadNow::Unread(Message::new().text(format!(
            "review: the head of #{} could not be read again (404); the verdict is about {}",
            pr.number,
            short(&pr.head_sha)
        ))),
    }
}

/// Every review gate the policy turns on, over one reading of the head's diff (the
/// release stage asks again at decision time).
pub fn gates(facts: &ReviewFacts) -> Vec<GateOutcome> {
    GATES
        .iter()
        .filter_map(|gate| match gate.check {
            Check::Review(check) => check(facts),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{DiffSize, DocsGate, Review};
    use crate::review::{DiffFacts, FileChange};

    fn file(path: &str, status: &str, patch: Option<&str>) -> FileChange {
        FileChange {
            path: path.into(),
            status: status.into(),
            previous_path: None,
            additions: patch.map_or(0, |p| p.matches("\n+").count() as u64 + 1),
            deletions: 0,
            patch: patch.map(str::to_string),
        }
    }

    fn review(policy: &Review, files: Vec<FileChange>, labels: &[&str]) -> StageResult {
        review_with_body(policy, files, labels, "")
    }

    fn review_with_body(
        policy: &Review,
        files: Vec<FileChange>,
        labels: &[&str],
        body: &str,
    ) -> StageResult {
        let mut pr = crate::event::sample_pull_request();
        pr.body = body.to_string();
        pr.labels = labels.iter().map(|l| l.to_string()).collect();
        pr.changed_files = None;
        pr.additions = None;
        pr.deletions = None;
        let diff = DiffFacts::new(files, false, &pr);
        evaluate(&ReviewFacts {
            pr: &pr,
            policy,
            diff: &diff,
            context_files: &[],
            actor: None,
        })
    }

    fn docs_policy() -> Review {
        Review {
            docs: Some(DocsGate {
                code: vec!["src/**".into()],
                docs: vec!["docs/**".into(), "*.md".into()],
                map: Vec::new(),
                skip_label: Some("no-docs".into()),
            }),
            ..Review::default()
        }
    }

    fn verdicts(r: &StageResult) -> Vec<(&str, &str)> {
        r.gates
            .iter()
            .map(|g| (g.gate, g.verdict.as_str()))
            .collect()
    }

    #[test]
    fn an_approval_adds_the_label_and_changes_remove_it() {
        let policy = docs_policy();
        let ok = review(
            &policy,
            vec![
                file("src/a.rs", "modified", Some("@@ -1 +1 @@\n+x")),
                file("README.md", "modified", None),
            ],
            &[],
        );
        assert_eq!(ok.status, Status::Review(ReviewStatus::Approved));
        assert_eq!(
            ok.effects,
            [Effect::AddLabel {
                issue: 2,
                label: "bot-approved".into()
            }]
        );
        let bad = review(
            &policy,
            vec![file("src/a.rs", "modified", None)],
            &["bot-approved"],
        );
        assert_eq!(bad.status, Status::Review(ReviewStatus::ChangesRequested));
        assert_eq!(
            bad.effects,
            [Effect::RemoveLabel {
                issue: 2,
                label: "bot-approved".into()
            }]
        );
        insta::assert_snapshot!(bad.gates[0].timeline_message(), @r#"review.docs: 1 file changed under "src/**" (e.g. "src/a.rs"), but none under "docs/**", "*.md". Fix: update the docs that describe this change in the same pull request, or add the label "no-docs" when no docs apply."#);
        let again = review(
            &policy,
            vec![file("docs/x.md", "added", None)],
            &["bot-approved"],
        );
        assert!(again.effects.is_empty(), "the label is already there");
    }

    #[test]
    fn skip_labels_record_the_reason() {
        let policy = docs_policy();
        let r = review(
            &policy,
            vec![file("src/a.rs", "modified", None)],
            &["no-docs"],
        );
        assert_eq!(verdicts(&r)[0], ("doc_coverage", "PASS"));
        assert!(r.gates[0].message.plain().contains("Skipped"));
    }

    #[test]
    fn secrets_in_added_lines_only_never_the_value() {
        let token = "ghp_8fK2mQ7xR4vN9cT1wL6pZ3bH5sJ0dY2gU7aE";
        let removed = file(
            "cfg.env",
            "modified",
            Some(&format!(
                "@@ -1,1 +1,1 @@\n-TOKEN={token}\n+TOKEN=${{TOKEN}}"
            )),
        );
        let r = review(&Review::default(), vec![removed], &[]);
        assert_eq!(
            verdicts(&r),
            [("secret_scan", "PASS"), ("assistant_context", "PASS")]
        );
        let added = file(
            "cfg.env",
            "modified",
            Some(&format!("@@ -4,0 +5,2 @@\n+ok\n+TOKEN={token}")),
        );
        let r = review(&Review::default(), vec![added], &[]);
        let message = r.gates[0].timeline_message();
        assert!(
            !message.contains(token) && !message.contains("ghp_8fK2"),
            "{message}"
        );
        insta::assert_snapshot!(r.gates[0].message.plain(), @r#"Found 1 secret in added lines: "cfg.env" line 6 (GitHub token)."#);
    }

    #[test]
    fn invalid_assistant_context_files_request_changes_naming_line_and_field() {
        let mut pr = crate::event::sample_pull_request();
        pr.labels.clear();
        let diff = DiffFacts::new(
            vec![file("ASSISTANT_CONTEXT.md", "modified", None)],
            false,
            &pr,
        );
        let checks = [crate::review::ContextCheck {
            path: "ASSISTANT_CONTEXT.md".into(),
            problems: vec![
                "ASSISTANT_CONTEXT.md:3:9: status: must be one of active, paused, completed".into(),
            ],
        }];
        let r = evaluate(&ReviewFacts {
            pr: &pr,
            policy: &Review {
                secret_scan: false,
                ..Review::default()
            },
            diff: &diff,
            context_files: &checks,
            actor: None,
        });
        assert_eq!(verdicts(&r), [("assistant_context", "FAIL")]);
        insta::assert_snapshot!(r.gates[0].message.plain(), @r#"1 problem in changed ASSISTANT_CONTEXT files: "ASSISTANT_CONTEXT.md:3:9: status: must be one of active, paused, completed"."#);
    }

    #[test]
    fn diff_size_limits_and_task_lists() {
        let policy = Review {
            diff_size: Some(DiffSize {
                max_files: Some(1),
                max_changed_lines: Some(100),
                skip_label: None,
            }),
            secret_scan: false,
            assistant_context: false,
            task_list: true,
            ..Review::default()
        };
        let files = || vec![file("a", "added", None), file("b", "removed", None)];
        let r = review_with_body(&policy, files(), &[], "- [x] done\n- [ ] write tests\n");
        assert_eq!(verdicts(&r), [("diff_size", "FAIL"), ("task_list", "FAIL")]);
        insta::assert_snapshot!(r.gates[1].message.plain(), @r#"The description has 1 open task-list item: line 2 "write tests"."#);
        let r = review_with_body(&policy, files(), &[], "> - [ ] quoted\n");
        assert_eq!(verdicts(&r)[1], ("task_list", "PASS"));
        insta::assert_snapshot!(r.gates[0].message.plain(), @"This pull request changes 2 files (max_files: 1).");
    }

    mod agents {
        use super::*;
        use crate::actors::{Actor, ActorFacts, Classified, classify};
        use crate::policy::Policy;

        fn actor(policy: &Policy, author: &str, head: &str) -> Actor {
            classify(
                &policy.actors.agents,
                &ActorFacts {
                    author: Some(author),
                    head,
                    labels: Some(&[]),
                    commits: None,
                },
            )
        }

        fn reviewed(
            policy: &Policy,
            actor: &Actor,
            files: Vec<FileChange>,
            labels: &[&str],
            capped: bool,
        ) -> StageResult {
            let mut pr = crate::event::sample_pull_request();
            pr.labels = labels.iter().map(|l| l.to_string()).collect();
            pr.changed_files = capped.then_some(4000);
            pr.additions = None;
            pr.deletions = None;
            let diff = DiffFacts::new(files, capped, &pr);
            evaluate(&ReviewFacts {
                pr: &pr,
                policy: &policy.review,
                diff: &diff,
                context_files: &[],
                actor: Some(Classified {
                    actor,
                    rules: &policy.actors.agent,
                }),
            })
        }

        fn renamed(from: &str, to: &str) -> FileChange {
            FileChange {
                previous_path: Some(from.into()),
                ..file(to, "renamed", None)
            }
        }

        #[test]
        fn an_agent_s_pull_request_gets_its_gates_and_its_label() {
            let policy = Policy::default_policy();
            let agent = actor(&policy, "copilot-swe-agent[bot]", "copilot/fix-1");
            let r = reviewed(
                &policy,
                &agent,
                vec![file("src/a.rs", "modified", None)],
                &[],
                false,
            );
            assert_eq!(
                verdicts(&r),
                [
                    ("actor", "PASS"),
                    ("agent_diff_size", "PASS"),
                    ("agent_paths", "PASS"),
                    ("secret_scan", "PASS"),
                    ("assistant_context", "PASS"),
                ]
            );
            assert_eq!(
                r.effects,
                [
                    Effect::AddLabel {
                        issue: 2,
                        label: "agent-authored".into()
                    },
                    Effect::AddLabel {
                        issue: 2,
                        label: "bot-approved".into()
                    },
                ]
            );
            insta::assert_snapshot!(r.gates[1].message.plain(), @"1 files and 0 changed lines are within the limits (actors.agent.diff_size).");
            insta::assert_snapshot!(r.gates[2].message.plain(), @"No changed path matches actors.agent.forbidden_paths (4 globs, 1 file checked).");
            // Already labelled, in any letter case: not added again.
            let again = reviewed(&policy, &agent, Vec::new(), &["Agent-Authored"], false);
            assert!(
                !again.effects.iter().any(
                    |e| matches!(e, Effect::AddLabel { label, .. } if label == "agent-authored")
                )
            );
        }

        #[test]
        fn a_human_s_pull_request_records_the_class_and_nothing_more() {
            let policy = Policy::parse("review:\n  diff_size: {max_files: 1}\n", "p.yml").unwrap();
            let human = actor(&policy, "alice", "feature/api/PBI-1-x");
            let r = reviewed(
                &policy,
                &human,
                vec![file(".github/workflows/ci.yml", "modified", None)],
                &[],
                false,
            );
            assert_eq!(
                verdicts(&r),
                [
                    ("actor", "PASS"),
                    ("diff_size", "PASS"),
                    ("secret_scan", "PASS"),
                    ("assistant_context", "PASS"),
                ]
            );
            assert!(r.gates[0].message.plain().starts_with("human: "));
            assert_eq!(r.effects.len(), 1, "the approve label only");
        }

        #[test]
        fn forbidden_paths_fail_naming_each_file_and_glob_renames_under_both_paths() {
            let policy = Policy::default_policy();
            let agent = actor(&policy, "devin-ai-integration[bot]", "devin/1-x");
            let r = reviewed(
                &policy,
                &agent,
                vec![
                    file(".github/workflows/release.yml", "added", None),
                    renamed("CODEOWNERS", "docs/OWNERS.md"),
                    renamed("notes.md", ".github/CODEOWNERS"),
                    file("src/lib.rs", "modified", None),
                ],
                &[],
                false,
            );
            let paths = r.gates.iter().find(|g| g.gate == "agent_paths").unwrap();
            assert_eq!(paths.verdict, crate::gates::Verdict::Fail);
            insta::assert_snapshot!(paths.timeline_message(), @r#"An agent's pull request may not change these 3 paths: ".github/workflows/release.yml" (glob ".github/workflows/**"), "CODEOWNERS" (glob "CODEOWNERS"), ".github/CODEOWNERS" (glob "CODEOWNERS") (actors.agent.forbidden_paths). Fix: take these changes out of this pull request (a person opens one for them), or a maintainer changes actors.agent.forbidden_paths in the base branch's policy."#);
            assert_eq!(r.status, Status::Review(ReviewStatus::ChangesRequested));
        }

        #[test]
        fn a_capped_diff_cannot_show_an_agent_stayed_clear_of_forbidden_paths() {
            let policy = Policy::default_policy();
            let agent = actor(&policy, "my-agent[bot]", "x");
            let r = reviewed(
                &policy,
                &agent,
                vec![file("src/a.rs", "modified", None)],
                &[],
                true,
            );
            let paths = r.gates.iter().find(|g| g.gate == "agent_paths").unwrap();
            insta::assert_snapshot!(paths.timeline_message(), @"GitHub lists only the first 3,000 files of this pull request: the 3,999 files beyond cannot be checked against actors.agent.forbidden_paths. Fix: split it into smaller pull requests.");
        }

        #[test]
        fn the_agents_diff_size_replaces_the_review_s_and_null_gives_it_back() {
            let many: Vec<FileChange> = (0..60)
                .map(|i| file(&format!("src/f{i}.rs"), "added", None))
                .collect();
            let policy =
                Policy::parse("review:\n  diff_size: {max_files: 100}\n", "p.yml").unwrap();
            let agent = actor(&policy, "my-agent[bot]", "x");
            let r = reviewed(&policy, &agent, many.clone(), &[], false);
            let sizes: Vec<_> = verdicts(&r)
                .into_iter()
                .filter(|(g, _)| g.contains("diff_size"))
                .collect();
            assert_eq!(sizes, [("agent_diff_size", "FAIL")]);
            let size = r
                .gates
                .iter()
                .find(|g| g.gate == "agent_diff_size")
                .unwrap();
            insta::assert_snapshot!(size.timeline_message(), @"This pull request changes 60 files (actors.agent.diff_size.max_files: 50). Fix: split it into smaller pull requests.");

            let off = Policy::parse(
                "review:\n  diff_size: {max_files: 100}\nactors:\n  agent:\n    diff_size: null\n",
                "p.yml",
            )
            .unwrap();
            let agent = actor(&off, "my-agent[bot]", "x");
            let r = reviewed(&off, &agent, many, &[], false);
            let sizes: Vec<_> = verdicts(&r)
                .into_iter()
                .filter(|(g, _)| g.contains("diff_size"))
                .collect();
            assert_eq!(sizes, [("diff_size", "PASS")]);
        }

        #[test]
        fn rules_and_label_can_be_turned_off() {
            let policy = Policy::parse(
                "actors:\n  agent:\n    forbidden_paths: []\n    diff_size: null\n    label: \"\"\n",
                "p.yml",
            )
            .unwrap();
            let agent = actor(&policy, "my-agent[bot]", "x");
            let r = reviewed(
                &policy,
                &agent,
                vec![file("CODEOWNERS", "modified", None)],
                &[],
                false,
            );
            assert_eq!(
                verdicts(&r),
                [
                    ("actor", "PASS"),
                    ("secret_scan", "PASS"),
                    ("assistant_context", "PASS")
                ]
            );
            assert_eq!(
                r.effects,
                [Effect::AddLabel {
                    issue: 2,
                    label: "bot-approved".into()
                }]
            );
        }
    }

    #[test]
    fn a_head_that_moved_on_leaves_the_decision_to_its_own_run() {
        let mut pr = crate::event::sample_pull_request();
        pr.head_sha = "1111111aaaa".into();
        assert_eq!(head_now(&pr, Some("1111111aaaa")), HeadNow::Same);
        let HeadNow::MovedOn(why) = head_now(&pr, Some("2222222bbbb")) else {
            panic!("moved");
        };
        assert_eq!(
            why.plain(),
            format!(
                "the head of #{} moved from 1111111 to 2222222 since the event; the run for the new head decides",
                pr.number
            )
        );
        assert!(matches!(head_now(&pr, None), HeadNow::Unread(_)));
    }
}
