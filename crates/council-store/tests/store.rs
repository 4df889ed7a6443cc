//! The store's rules, on each engine: what an import adds, what it refuses and records,
//! and the common questions over a known store.

#![allow(clippy::string_slice)] // test code: a panic there is a failing test

mod objects;
mod support;

use council_store::query::Filter;
use council_store::{Offer, Store, Verification};
use objects::{extend, guard, object, step, tail};
use support::TestDb;

const NOW: &str = "2026-03-20T12:00:00Z";
const REPO: &str = "octo/app";

/// A fresh store on each engine (the database lives as long as its `TestDb`).
async fn stores() -> Vec<(TestDb, Store)> {
    let mut out = Vec::new();
    for db in support::each_engine().await {
        let store = db.open().await;
        out.push((db, store));
    }
    out
}

/// Pull request `pr` of `repo` by `author`: one guard run, passed.
fn guarded(repo: &str, pr: u64, author: &str) -> council_protocol::audit::stored::Stored {
    object(
        repo,
        pr,
        author,
        &guard(1, "2026-03-02T10:00:00Z", true),
        None,
    )
}

fn offer<'a>(stored: &'a council_protocol::audit::stored::Stored, source: &'a str) -> Offer<'a> {
    Offer::new(stored, source, NOW)
}

#[tokio::test]
async fn an_object_is_stored_once_and_a_longer_copy_adds_only_its_new_entries() {
    for (_db, mut store) in stores().await {
        let first = guarded(REPO, 7, "agent-1");
        let imported = store.import(&offer(&first, "comment 1")).await.unwrap();
        assert_eq!((imported.added, imported.known), (2, 0));
        assert_eq!(imported.verification, Verification::Verified);
        let again = store.import(&offer(&first, "comment 1")).await.unwrap();
        assert_eq!((again.added, again.known, again.refused), (0, 2, None));
        let later = extend(
            Some(first),
            REPO,
            7,
            "agent-1",
            &[step(
                "agent_review",
                "check:secret-scan",
                "PASS",
                2,
                "2026-03-02T11:00:00Z",
            )],
            None,
        );
        let more = store.import(&offer(&later, "comment 1")).await.unwrap();
        assert_eq!((more.added, more.known, more.entries), (1, 2, 3));
        assert_eq!(more.verification, Verification::Verified);
    }
}

#[tokio::test]
async fn a_tail_is_partial_until_the_file_with_the_older_entries_arrives() {
    for (_db, mut store) in stores().await {
        let mut steps = guard(1, "2026-03-02T10:00:00Z", false);
        steps.extend(guard(2, "2026-03-02T11:00:00Z", true));
        steps.extend(guard(3, "2026-03-02T12:00:00Z", true));
        let full = object(REPO, 8, "agent-2", &steps, None);
        let comment = tail(&full, 2);
        let partial = store.import(&offer(&comment, "comment")).await.unwrap();
        assert_eq!(partial.verification, Verification::Partial);
        assert!(
            partial
                .detail
                .as_deref()
                .unwrap_or_default()
                .contains("oldest 4 entries"),
            "{partial:?}"
        );
        let whole = store.import(&offer(&full, "artifact")).await.unwrap();
        assert_eq!((whole.added, whole.known), (4, 2));
        assert_eq!(whole.verification, Verification::Verified);
        let verdicts = store.verify_stored(&Filter::default(), None).await.unwrap();
        assert!(verdicts.iter().all(|v| v.verified), "{verdicts:?}");
    }
}

#[tokio::test]
async fn a_conflicting_object_is_recorded_as_a_failure_and_never_merged() {
    for (_db, mut store) in stores().await {
        let original = object(
            REPO,
            9,
            "agent-1",
            &guard(1, "2026-03-02T10:00:00Z", false),
            None,
        );
        store.import(&offer(&original, "comment")).await.unwrap();
        // Someone rewrote the verdict and re-sealed the whole chain without a key.
        let rewritten = guarded(REPO, 9, "agent-1");
        let refused = store
            .import(&offer(&rewritten, "artifact 5"))
            .await
            .unwrap();
        assert_eq!(refused.added, 0);
        assert!(
            refused
                .refused
                .as_deref()
                .unwrap()
                .contains("entry 0 differs"),
            "{refused:?}"
        );
        assert_eq!(refused.verification, Verification::Failed);
        assert_eq!(
            refused.entries, 2,
            "the stored entries are kept as they were"
        );
        let failures = store.failures(&Filter::default()).await.unwrap();
        assert_eq!(failures.len(), 1);
        assert_eq!((failures[0].pr, failures[0].position), (Some(9), Some(0)));
        assert_eq!(failures[0].source, "artifact 5");
        // The same refusal again records nothing new.
        store
            .import(&offer(&rewritten, "artifact 5"))
            .await
            .unwrap();
        assert_eq!(store.failures(&Filter::default()).await.unwrap().len(), 1);
        // The stored chain is still the original one.
        let agents = store.agents(&Filter::default()).await.unwrap();
        assert_eq!((agents[0].guard_runs, agents[0].guard_passed), (1, 0));
    }
}

#[tokio::test]
async fn an_object_that_does_not_verify_is_refused_with_its_evidence() {
    for (_db, mut store) in stores().await {
        let mut forged = object(
            REPO,
            10,
            "agent-3",
            &guard(1, "2026-03-02T10:00:00Z", false),
            None,
        );
        forged.context.timeline[0].result = "PASS".to_string();
        let refused = store.import(&offer(&forged, "comment 3")).await.unwrap();
        assert!(
            refused
                .refused
                .as_deref()
                .unwrap()
                .contains("fails verification"),
            "{refused:?}"
        );
        assert_eq!(refused.added, 0);
        let failures = store.failures(&Filter::default()).await.unwrap();
        assert_eq!(failures[0].context_id, "PR-10");
        // A signed chain offered without its signatures when a key is given.
        let unsigned = guarded(REPO, 11, "agent-3");
        let mut keyed = offer(&unsigned, "comment 4");
        keyed.key = Some(b"k");
        let refused = store.import(&keyed).await.unwrap();
        assert!(refused.refused.is_some(), "{refused:?}");
    }
}

#[tokio::test]
async fn an_object_naming_another_subject_is_refused() {
    for (_db, mut store) in stores().await {
        let mut odd = guarded(REPO, 12, "agent-1");
        odd.context.context_id = "PR-13".to_string();
        let refused = store.import(&offer(&odd, "file")).await.unwrap();
        assert!(
            refused
                .refused
                .as_deref()
                .unwrap()
                .contains("does not name subject.id 12")
        );
    }
}

/// The acceptance run's attack: `timeline_omitted.count` = 2^63 − 1 (the head to match,
/// unsigned) put every entry at a position past the store's integers, and the import
/// failed on the database ("UNIQUE constraint failed"), every time it was offered. It is
/// refused as tampering and recorded; the store goes on with the next object. So is a
/// `subject.id` past them (it was stored as nothing: "NOT NULL constraint failed").
#[tokio::test]
async fn counts_past_the_stores_integers_are_refused_as_tampering() {
    use council_protocol::audit::head::Head;
    for (db, mut store) in stores().await {
        let full = guarded(REPO, 30, "agent-1");
        for count in [i64::MAX as u64, u64::MAX, 1_000_000_001] {
            let mut forged = tail(&full, 1);
            forged.omitted.count = count as usize;
            forged.head = Some(Head::new(
                forged.total_entries(),
                &forged.context.timeline[0].hash.clone(),
                None,
            ));
            let refused = store
                .import(&offer(&forged, "comment 9"))
                .await
                .expect(db.engine);
            assert!(
                refused
                    .refused
                    .as_deref()
                    .is_some_and(|why| why.contains("timeline_omitted")),
                "{}: {refused:?}",
                db.engine
            );
            assert_eq!(refused.verification, Verification::Failed);
        }
        let mut far = guarded(REPO, 31, "agent-1");
        far.context.subject.id = i64::MAX as u64 + 1;
        far.context.context_id = format!("PR-{}", far.context.subject.id);
        let refused = store.import(&offer(&far, "file")).await.expect(db.engine);
        assert!(
            refused
                .refused
                .as_deref()
                .is_some_and(|why| why.contains("no pull request number")),
            "{}: {refused:?}",
            db.engine
        );
        // The store goes on: the genuine object is stored whole.
        let stored = store
            .import(&offer(&full, "comment 10"))
            .await
            .expect(db.engine);
        assert_eq!((stored.added, stored.refused), (2, None), "{}", db.engine);
        assert_eq!(store.failures(&Filter::default()).await.unwrap().len(), 4);
    }
}

#[tokio::test]
async fn the_common_questions_over_a_known_store() {
    for (_db, mut store) in stores().await {
        objects::known_store(&mut store).await;
        let f = Filter::default();
        let agents = store.agents(&f).await.unwrap();
        let agents_all = agents.clone();
        let one = agents.iter().find(|a| a.agent == "agent-1").unwrap();
        assert_eq!((one.prs, one.guard_runs, one.guard_passed), (2, 3, 2));
        assert_eq!(one.top_failing_rule.as_deref(), Some("check:branch-name"));
        assert_eq!((one.review_findings, one.merged), (1, 2));
        let two = agents.iter().find(|a| a.agent == "agent-2").unwrap();
        assert_eq!(
            (two.guard_runs, two.guard_passed, two.pass_rate),
            (2, 0, Some(0.0))
        );
        assert_eq!(
            (two.top_failing_rule.as_deref(), two.top_failing_count),
            (Some("check:target-branch"), 2)
        );

        let findings = store.findings(&f).await.unwrap();
        let target = findings
            .iter()
            .find(|g| g.rule == "check:target-branch")
            .unwrap();
        assert_eq!(
            (
                target.stage.as_str(),
                target.failed,
                target.passed,
                target.prs_failed
            ),
            ("guard", 2, 3, 1)
        );
        let scan = findings
            .iter()
            .find(|g| g.rule == "check:secret-scan")
            .unwrap();
        assert_eq!((scan.stage.as_str(), scan.failed), ("review", 1));

        let (summary, prs) = store.merge_time(&f).await.unwrap();
        assert_eq!(summary.count, 2);
        let seconds: Vec<(u64, i64)> = prs.iter().map(|p| (p.pr, p.seconds)).collect();
        assert_eq!(seconds, [(1, 7_200), (2, 1_800)]);
        assert_eq!(summary.buckets[0].count, 1);
        assert_eq!(summary.buckets[1].count, 1);

        let rollbacks = store.rollbacks(&f).await.unwrap();
        assert_eq!(rollbacks.len(), 1);
        assert_eq!(rollbacks[0].pr, 2);

        let weeks = store.pass_rate_over_time(&f).await.unwrap();
        let shape: Vec<(&str, &str, u64, u64)> = weeks
            .iter()
            .map(|p| (p.agent.as_str(), p.week.as_str(), p.runs, p.passed))
            .collect();
        assert_eq!(
            shape,
            [
                ("agent-1", "2026-03-02", 2, 1),
                ("agent-1", "2026-03-09", 1, 1),
                ("agent-2", "2026-03-09", 2, 0),
            ]
        );
        let totals = store.totals(&f).await.unwrap();
        assert_eq!(
            (
                totals.contexts,
                totals.entries,
                totals.verified,
                totals.merged,
                totals.rolled_back
            ),
            (3, 16, 3, 2, 1)
        );

        // --since keeps the later entries and the pull requests that have one.
        let since = Filter {
            since_unix: Some(1_772_928_000), // 2026-03-08T00:00:00Z
            ..Filter::default()
        };
        let agents = store.agents(&since).await.unwrap();
        let one = agents.iter().find(|a| a.agent == "agent-1").unwrap();
        assert_eq!((one.prs, one.guard_runs), (1, 1));
        let other = Filter {
            repository: Some("other/repo".into()),
            ..Filter::default()
        };
        assert!(store.agents(&other).await.unwrap().is_empty());
        // Filtered, the questions over entries count per pull request before they look
        // its conditions up: the same answers as unfiltered when every one matches.
        let this = Filter {
            repository: Some(REPO.into()),
            ..Filter::default()
        };
        assert_eq!(store.agents(&this).await.unwrap(), agents_all);
        assert_eq!(store.findings(&this).await.unwrap(), findings);
        assert_eq!(store.pass_rate_over_time(&this).await.unwrap(), weeks);
        assert!(store.findings(&other).await.unwrap().is_empty());
        assert!(store.pass_rate_over_time(&other).await.unwrap().is_empty());
        let later = store.findings(&since).await.unwrap();
        let target = later
            .iter()
            .find(|g| g.rule == "check:target-branch")
            .unwrap();
        assert_eq!((target.failed, target.passed, target.prs_failed), (2, 1, 1));

        let data = store.report_data(&f, NOW).await.unwrap();
        assert_eq!(data.prs.len(), 3);
        assert_eq!(data.omitted_prs, 0);
        assert_eq!(
            data.prs[0].timeline.last().unwrap().action,
            "check:target-branch"
        );
        let verdicts = store.verify_stored(&f, None).await.unwrap();
        assert_eq!(verdicts.len(), 3);
        assert!(
            verdicts.iter().all(|v| v.verified && v.missing == 0),
            "{verdicts:?}"
        );
    }
}

#[tokio::test]
async fn the_derived_state_comes_from_the_stored_entries_not_the_object() {
    for (_db, mut store) in stores().await {
        let mut stored = object(
            REPO,
            20,
            "agent-1",
            &guard(1, "2026-03-02T10:00:00Z", false),
            None,
        );
        // An object whose own `state` claims a pass: not hashed, so it still verifies.
        stored.context.state.guard_status = council_protocol::audit::GuardStatus::Pass;
        store.import(&offer(&stored, "file")).await.unwrap();
        let data = store.report_data(&Filter::default(), NOW).await.unwrap();
        assert_eq!(data.prs[0].guard_status, "FAIL");
    }
}

/// A context report whose token counts do not fit the store's integers (2^63 and more)
/// was stored as nothing in a column that refuses that, and failed the whole sync. It is
/// not stored; the other reports are.
#[tokio::test]
async fn a_context_report_past_the_stores_integers_is_left_out() {
    use council_protocol::context_report::parse_report;
    use council_store::ReportRow;
    let report = |agent: &str, total: u64| {
        parse_report(
            &serde_json::json!({"contextReport": {
                "agentId": agent,
                "reportTimestamp": "2026-03-01T10:00:00Z",
                "contextWindow": {"totalTokens": total, "availableTokens": 2},
                "loadedProjects": [],
                "loadedTasks": [],
                "capabilities": {"canStartImmediately": []},
            }})
            .to_string(),
        )
        .expect("a valid report")
    };
    let (huge, fine) = (report("agent-a", u64::MAX), report("agent-b", 100));
    for (db, mut store) in stores().await {
        let rows: Vec<ReportRow<'_>> = [&huge, &fine]
            .into_iter()
            .enumerate()
            .map(|(i, report)| ReportRow {
                report,
                repository: REPO,
                registry_issue: 1,
                comment_id: 10 + i as u64,
                comment_url: "https://github.com/octo/app/issues/1#issuecomment-10",
                author: "agent-a",
            })
            .collect();
        let added = store.import_reports(&rows, NOW).await.expect(db.engine);
        assert_eq!(added, 1, "{}", db.engine);
    }
}

/// The acceptance run's attack: a ledger whose header (unsigned) was edited to name
/// another author, the signed entries untouched, was stored as verified and blamed her.
/// A live read of GitHub is what the store attributes a pull request to; a header that
/// says otherwise is recorded as a verification failure. Without one (a file) the header
/// is stored as unverified, and the questions say so; a later live read replaces it.
#[tokio::test]
async fn a_pull_request_is_attributed_to_what_a_live_read_vouches_for() {
    use council_store::{Attribution, BY_GITHUB, BY_HEADER};
    let github = Attribution {
        author: "agent-1".to_string(),
        source_branch: "feature/api/PBI-40-login".to_string(),
        target_branch: "develop".to_string(),
        head_sha: Some("b".repeat(40)),
    };
    for (db, mut store) in stores().await {
        let genuine = guarded(REPO, 40, "agent-1");
        let mut forged = genuine.clone();
        forged.context.subject.author = "innocent-alice".to_string();
        forged.context.subject.source_branch = "feature/api/PBI-41-other".to_string();
        // A file: nothing vouches; stored, but unverified, and said so.
        let imported = store
            .import(&offer(&forged, "PR-40.json"))
            .await
            .expect(db.engine);
        assert_eq!(
            (imported.added, imported.attribution.as_str()),
            (2, BY_HEADER),
            "{}",
            db.engine
        );
        let agents = store.agents(&Filter::default()).await.unwrap();
        assert_eq!(
            (agents[0].agent.as_str(), agents[0].unverified_prs),
            ("innocent-alice", 1),
            "{}",
            db.engine
        );
        assert_eq!(
            store
                .totals(&Filter::default())
                .await
                .unwrap()
                .unverified_attribution,
            1
        );

        // The same object from a sync, GitHub saying who opened it and from where.
        let mut synced = offer(&forged, "https://github.com/octo/app/pull/40#comment");
        synced.attribution = Some(&github);
        let imported = store.import(&synced).await.expect(db.engine);
        let dispute = imported.disputed.as_deref().expect("disputed");
        assert!(
            dispute.contains("author `innocent-alice` where GitHub says `agent-1`")
                && dispute.contains("`feature/api/PBI-41-other` where GitHub says"),
            "{}: {dispute}",
            db.engine
        );
        assert_eq!(imported.attribution, BY_GITHUB);
        assert_eq!(imported.verification, Verification::Failed);
        let agents = store.agents(&Filter::default()).await.unwrap();
        assert_eq!(agents.len(), 1, "{}: {agents:?}", db.engine);
        assert_eq!(
            (agents[0].agent.as_str(), agents[0].unverified_prs),
            ("agent-1", 0),
            "{}",
            db.engine
        );
        let failures = store.failures(&Filter::default()).await.unwrap();
        assert_eq!(failures.len(), 1, "{}", db.engine);
        // Offered again: nothing new recorded.
        store.import(&synced).await.expect(db.engine);
        assert_eq!(store.failures(&Filter::default()).await.unwrap().len(), 1);
        // A later file does not take back what GitHub vouched for.
        let longer = extend(
            Some(forged.clone()),
            REPO,
            40,
            "mallory",
            &guard(2, "2026-03-03T10:00:00Z", true),
            None,
        );
        let imported = store
            .import(&offer(&longer, "PR-40.2.json"))
            .await
            .expect(db.engine);
        assert_eq!(
            (imported.added, imported.attribution.as_str()),
            (2, BY_GITHUB)
        );
        let (prs, _) = store
            .pull_requests(&Filter::default(), 10, 1)
            .await
            .unwrap();
        assert_eq!(
            (prs[0].author.as_str(), prs[0].source_branch.as_str()),
            ("agent-1", "feature/api/PBI-40-login"),
            "{}",
            db.engine
        );
        assert_eq!(prs[0].attribution, BY_GITHUB);

        // Retargeted since its last run: only a note, GitHub's target stored.
        let other = guarded(REPO, 42, "agent-1");
        let live = Attribution {
            author: "agent-1".to_string(),
            source_branch: other.context.subject.source_branch.clone(),
            target_branch: "main".to_string(),
            head_sha: None,
        };
        let mut retargeted = offer(&other, "comment 42");
        retargeted.attribution = Some(&live);
        let imported = store.import(&retargeted).await.expect(db.engine);
        assert_eq!(imported.disputed, None);
        assert_eq!(imported.verification, Verification::Verified);
        assert!(imported.notes[0].contains("`develop` where GitHub says `main`"));

        // A header contradicting its own signed entries (they decided on another head
        // commit) is refused whole, file or sync alike.
        let mut edited = guarded(REPO, 43, "agent-1");
        edited.context.subject.head_sha = "f".repeat(40);
        let refused = store
            .import(&offer(&edited, "PR-43.json"))
            .await
            .expect(db.engine);
        assert!(
            refused
                .refused
                .as_deref()
                .is_some_and(|why| why.contains("head_sha") && why.contains("edited")),
            "{}: {refused:?}",
            db.engine
        );
        assert_eq!(refused.added, 0);
    }
}

/// The merge queue's figures: time from the last entry into the queue to the landing,
/// the queue commits each pull request was tested in, and each failure; a pull request
/// merged directly (no `action:enqueue`) is not the queue's.
#[tokio::test]
async fn the_queue_question_counts_queue_time_and_failures() {
    const R: &str = "agent_release";
    for (db, mut store) in stores().await {
        // #1: queued, tested, landed 40 minutes later.
        let one = object(
            REPO,
            1,
            "agent-1",
            &[
                step(R, "action:enqueue", "DONE", 1, "2026-03-02T10:00:00Z"),
                step(R, "action:queue-test", "DONE", 1, "2026-03-02T10:00:00Z"),
                step(R, "check:queue", "PASS", 2, "2026-03-02T10:40:00Z"),
                step(R, "action:merge", "DONE", 2, "2026-03-02T10:40:00Z"),
            ],
            None,
        );
        // #2: queued, red, queued again after a fix, landed 10 minutes after that.
        let two = object(
            REPO,
            2,
            "agent-2",
            &[
                step(R, "action:enqueue", "DONE", 3, "2026-03-02T11:00:00Z"),
                step(R, "action:queue-test", "DONE", 3, "2026-03-02T11:00:00Z"),
                step(R, "check:queue", "FAIL", 4, "2026-03-02T11:10:00Z"),
                step(R, "action:enqueue", "DONE", 5, "2026-03-02T12:00:00Z"),
                step(R, "action:queue-test", "DONE", 5, "2026-03-02T12:00:00Z"),
                step(R, "check:queue", "PASS", 6, "2026-03-02T12:10:00Z"),
                step(R, "action:merge", "DONE", 6, "2026-03-02T12:10:00Z"),
            ],
            None,
        );
        // #3: merged directly, never queued.
        let three = object(
            REPO,
            3,
            "agent-1",
            &[step(R, "action:merge", "DONE", 7, "2026-03-02T13:00:00Z")],
            None,
        );
        // #4: in line, its test timed out.
        let four = object(
            REPO,
            4,
            "agent-2",
            &[
                step(R, "action:enqueue", "DONE", 8, "2026-03-02T14:00:00Z"),
                step(R, "action:queue-test", "DONE", 8, "2026-03-02T14:00:00Z"),
                step(R, "check:queue", "FAIL", 9, "2026-03-02T15:00:00Z"),
            ],
            None,
        );
        for (o, n) in [(&one, 1), (&two, 2), (&three, 3), (&four, 4)] {
            let source = format!("comment {n}");
            store.import(&offer(o, &source)).await.expect(db.engine);
        }
        let (summary, prs, failures) = store.queue(&Filter::default()).await.unwrap();
        let rows: Vec<(u64, Option<i64>, u64, u64, &str)> = prs
            .iter()
            .map(|p| (p.pr, p.seconds, p.tests, p.failures, p.outcome.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                (1, Some(2_400), 1, 0, "landed"),
                (2, Some(600), 2, 1, "landed"),
                (4, None, 1, 1, "failed"),
            ],
            "{}",
            db.engine
        );
        assert_eq!(
            (summary.prs, summary.landed, summary.tests, summary.failures),
            (3, 2, 4, 2)
        );
        assert_eq!(summary.queue_time.median_seconds, Some(1_500));
        assert_eq!(summary.queue_time.max_seconds, Some(2_400));
        let failed: Vec<u64> = failures.iter().map(|f| f.pr).collect();
        assert_eq!(failed, [2, 4]);
        let report = store
            .report_data(&Filter::default(), NOW)
            .await
            .expect(db.engine);
        assert_eq!(report.queue.summary.failures, 2);
    }
}

/// `policy simulate`'s read: one row per pull request with its branches, author, guard
/// verdicts and the message of its newest `check:actor` entry, whichever stage wrote it.
#[tokio::test]
async fn recorded_pulls_hold_what_a_replay_needs() {
    use council_protocol::audit::stored::merge;
    use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
    for (_db, mut store) in stores().await {
        let mut ours = objects::blank(REPO, 3, "copilot-swe-agent[bot]");
        ours.subject.source_branch = "copilot/fix-3".into();
        for (run, stage, agent, action, result, message) in [
            (
                "1",
                "guard",
                "agent_guard",
                "check:branch-name",
                "FAIL",
                "no rule",
            ),
            (
                "1",
                "guard",
                "agent_guard",
                "check:target-branch",
                "PASS",
                "ok",
            ),
            (
                "2",
                "review",
                "agent_review",
                "check:actor",
                "PASS",
                "human: nothing",
            ),
            (
                "3",
                "release",
                "agent_release",
                "check:actor",
                "PASS",
                "agent (label): label \"agent\" is in actors.agents.labels.",
            ),
            (
                "3",
                "release",
                "agent_release",
                "check:pipeline",
                "PASS",
                "green",
            ),
        ] {
            let run = RunInfo {
                run_id: run.into(),
                run_attempt: 1,
                job: "council".into(),
            };
            let record = Record {
                stage,
                agent,
                action: action.into(),
                result: result.into(),
                message: message.into(),
            };
            ours.timeline.push(new_entry(
                &run,
                &record,
                &"a".repeat(40),
                "2026-03-02T10:00:00Z",
            ));
        }
        let three = merge(None, &ours, None).unwrap();
        store.import(&offer(&three, "file 3")).await.unwrap();
        let four = guarded(REPO, 4, "alice");
        store.import(&offer(&four, "file 4")).await.unwrap();
        let other = guarded("octo/other", 1, "bob");
        store.import(&offer(&other, "file other")).await.unwrap();

        let rows = store.recorded_pulls(&Filter::default()).await.unwrap();
        let shown: Vec<(String, u64)> = rows
            .iter()
            .map(|r| (r.repository.clone(), r.number))
            .collect();
        assert_eq!(
            shown,
            [
                ("octo/app".to_string(), 3),
                ("octo/app".to_string(), 4),
                ("octo/other".to_string(), 1)
            ]
        );
        let three = &rows[0];
        assert_eq!(
            (
                three.head.as_str(),
                three.base.as_str(),
                three.author.as_str()
            ),
            ("copilot/fix-3", "develop", "copilot-swe-agent[bot]")
        );
        assert_eq!(three.naming_convention.as_deref(), Some("FAIL"));
        assert_eq!(three.target_policy.as_deref(), Some("PASS"));
        assert_eq!(
            three.actor.as_deref(),
            Some("agent (label): label \"agent\" is in actors.agents.labels.")
        );
        assert_eq!(three.attribution, "header");
        assert_eq!(rows[1].actor, None);
        assert_eq!(rows[1].naming_convention.as_deref(), Some("PASS"));
        let filter = Filter {
            repository: Some("octo/other".into()),
            since_unix: None,
        };
        assert_eq!(store.recorded_pulls(&filter).await.unwrap().len(), 1);
        let later = Filter {
            repository: None,
            since_unix: Some(2_000_000_000),
        };
        assert!(store.recorded_pulls(&later).await.unwrap().is_empty());
    }
}
