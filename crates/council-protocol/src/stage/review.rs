//! Stage 2, the Critic: the review gates over the diff, the verdict, and the approve
//! label it wants added or removed (pure).

use super::Stage;
use super::effect::Effect;
use super::result::{StageResult, Status};
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
    let mut effects = Vec::new();
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
}
