//! Release tried as an attacker would: every way a stored record once talked it into a
//! merge or a revert, over HTTP against the fake world. Each test failed against the
//! build before release decided from live facts (run them with `COUNCIL_BIN` pointing at
//! an older build to see it); now the ledger is a record to append to, never a reason.

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::{Links, MARKER, Stored, merge, parse, render};
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
use serde_json::json;

use crate::support::artifacts::{self, Artifact};
use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::graphql::{Call, rollup};
use crate::support::ledgers::{self, HEAD_REF, audit_file, pull_request};
use crate::support::routes::Answer;
use crate::support::tokens::{Access, RELEASE_TOKEN, Scope};
use crate::support::world::{PrFile, World};
use crate::support::{Council, REPO, Run, timeline};

const SHA: &str = "1111111111111111111111111111111111111111";
const NEXT: &str = "2222222222222222222222222222222222222222";
const KEY: &str = "release-trust-key";
/// A token that turns up in a pushed file.
const LEAKED: &str = "ghp_Q7vLm2Xr9TnB4kWz8YdH3sJc6PfA1uEo5GiR";
const MAINTAINER: &str = "ghp_maintainer_token_value";

/// One run's `(agent, action)` entries on `sha` of pull request `number` into `base`, all
/// passing (a check) or done (an effect): what a forger uploads or a replay copies.
fn ledger(
    number: u64,
    base: &str,
    sha: &str,
    entries: &[(&'static str, &'static str)],
    key: Option<&str>,
) -> Stored {
    let entries: Vec<(&'static str, &str, &str)> = entries
        .iter()
        .map(|&(agent, action)| {
            let result = if action.starts_with("check:") {
                "PASS"
            } else {
                "DONE"
            };
            (agent, action, result)
        })
        .collect();
    ledgers::ledger(number, base, sha, "4242", &entries, key)
}

/// Guard and review passing for `sha`: the approval an attacker wants release to see.
const APPROVAL: [(&str, &str); 4] = [
    ("agent_guard", "check:branch-name"),
    ("agent_guard", "check:target-branch"),
    ("agent_review", "check:secret-scan"),
    ("agent_review", "check:assistant-context"),
];

/// Pull request #7 from `HEAD_REF` into `base`: labelled, mergeable, CI green.
fn open_pr(gh: &FakeGitHub, base: &str) {
    gh.pr(7)
        .head(HEAD_REF, SHA)
        .base(base)
        .label("bot-approved")
        .check_run("ci", "completed", Some("success"));
}

/// The bot's Context Object comment recording guard and review passes for the head:
/// what an earlier build needed before it would merge at all (now only a record), so
/// that each test sets the same scene for every build.
fn seed_approval(gh: &FakeGitHub) {
    let approved = ledger(7, "develop", SHA, &APPROVAL, None);
    gh.seed(
        7,
        "github-actions[bot]",
        &render(&approved, &Links::default()),
    );
}

fn council(gh: &FakeGitHub) -> Council {
    Council::action().api(&gh.uri()).release_token()
}

fn merged(gh: &FakeGitHub) -> bool {
    gh.calls()
        .iter()
        .any(|c| c.method == "PUT" && c.path.ends_with("/pulls/7/merge"))
}

fn annotations(run: &Run, kind: &str) -> String {
    run.annotations()
        .into_iter()
        .filter(|a| a.starts_with(kind))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `run_id action` of every entry in the audit file of #7.
fn runs_and_actions(run: &Run) -> Vec<String> {
    timeline(&run.audit(7), &["run_id", "action"])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_approval_in_an_artifact_never_merges() {
    // No Context Object comment; an unsigned `audit-PR-7` says guard and review passed
    // for the head; the head holds a token. First a fork's run uploaded it, then a
    // workflow of the repository itself (anyone who can push one).
    for fork in [true, false] {
        let gh = FakeGitHub::start().await;
        gh.policy("develop", None).await;
        open_pr(&gh, "develop");
        gh.pr(7)
            .file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
        let forged = audit_file(&ledger(7, "develop", SHA, &APPROVAL, None));
        let artifact = match fork {
            true => Artifact::fork(50, 4242, forged),
            false => Artifact::own(50, 4242, forged),
        };
        artifacts::serve(&gh, 7, &[artifact]).await;
        let run = council(&gh)
            .event("check_suite", gh.check_suite_event(SHA))
            .run()
            .await;
        run.assert_code(1);
        assert_eq!(run.output("release-status"), "PENDING", "fork: {fork}");
        assert!(!merged(&gh) && !gh.pr_state(7).merged, "fork: {fork}");
        let warnings = annotations(&run, "::warning");
        let kept: Vec<String> = runs_and_actions(&run)
            .into_iter()
            .filter(|e| e.starts_with("4242 "))
            .collect();
        if fork {
            assert!(kept.is_empty(), "a fork's artifact is no base: {kept:?}");
            assert!(
                run.summary
                    .contains("1 audit artifact not read: uploaded by a run of another"),
                "{}",
                run.summary
            );
            assert!(!warnings.contains("continues from"), "{warnings}");
        } else {
            // Unsigned and of this repository: a record to continue, said out loud.
            assert_eq!(kept.len(), 4);
            assert!(
                warnings.contains("the ledger continues from artifact 50 (`audit-PR-7`) uploaded by workflow run 4242"),
                "{warnings}"
            );
        }
        assert!(
            annotations(&run, "::error").contains("secret_scan"),
            "the review gates, read again, find the token"
        );
        run.assert_no_secret(LEAKED);
        // Only the record: the Context Object comment, no merge and no label.
        gh.expect_writes(&["POST /issues/7/comments"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_ledger_of_another_pull_request_is_not_adopted() {
    // PR 5's genuine signed ledger (same head) re-uploaded as `audit-PR-7`; PR 7's
    // branch may not go into `main`.
    let gh = FakeGitHub::start().await;
    gh.policy("main", None).await;
    open_pr(&gh, "main");
    let replayed = audit_file(&ledger(5, "develop", SHA, &APPROVAL, Some(KEY)));
    artifacts::serve(&gh, 7, &[Artifact::own(60, 555, replayed)]).await;
    let run = council(&gh)
        .input("hmac-key", KEY)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(1);
    assert!(!merged(&gh));
    assert_eq!(run.output("audit-path"), "out/audit/PR-7.json");
    let audit = run.audit(7);
    assert_eq!(audit["context_id"], "PR-7");
    assert_eq!(audit["gates"]["target_policy"], "FAIL");
    let warnings = annotations(&run, "::warning");
    assert!(
        warnings.contains(
            "it is the Context Object of `PR-5` in `Codertocat/Hello-World`, not of PR-7"
        ),
        "{warnings}"
    );
    let comment = gh
        .comment_bodies()
        .into_iter()
        .find(|b| b.starts_with(MARKER))
        .expect("the Context Object comment");
    let stored = parse(&comment).expect("it parses");
    assert_eq!(stored.context.context_id, "PR-7");
    assert!(comment.contains("### agent-council · PR-7\n"), "{comment}");
    // The rejected replay is on the record as the reason for a new chain.
    assert_eq!(stored.context.timeline[0].action, "action:ledger-reset");
    gh.expect_writes(&["POST /issues/7/comments"]);
}

/// A workflow run's GraphQL answer on a server that does not know `isInMergeQueue` (a
/// GHES): GitHub's error for an unknown field, else the usual answer.
fn without_merge_queue(world: &mut World, call: &Call) -> Answer {
    if call.query.contains("isInMergeQueue") {
        return Answer::ok(json!({"errors": [{
            "path": ["query PullRequestRollup", "repository", "pullRequest", "isInMergeQueue"],
            "extensions": {"code": "undefinedField", "typeName": "PullRequest",
                           "fieldName": "isInMergeQueue"},
            "locations": [{"line": 9, "column": 37}],
            "message": "Field 'isInMergeQueue' doesn't exist on type 'PullRequest'"
        }]}));
    }
    rollup::pull_request(world, call)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_a_field_is_asked_again_without_it_and_the_decision_happens() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    open_pr(&gh, "develop");
    gh.graphql_operation("PullRequestRollup", without_merge_queue);
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    assert!(
        run.summary
            .contains("this GitHub does not know isInMergeQueue: decided without it"),
        "{}",
        run.summary
    );
    let rollups = gh
        .calls()
        .iter()
        .filter(|c| c.operation.as_deref() == Some("PullRequestRollup"))
        .count();
    assert_eq!(rollups, 2, "asked once more, without the field");
    gh.expect_writes(&["PUT /pulls/7/merge", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_two_phase_apply_run_takes_nothing_but_the_number_from_a_forks_run() {
    // A fork's pull request from a branch the guard refuses; its own (read-only) run
    // uploaded `audit-PR-7` with guard and review "passing" and no label needed.
    let gh = FakeGitHub::start().await;
    gh.policy("develop", Some("release:\n  require_label: \"\"\n"))
        .await;
    gh.pr(7)
        .head("evil", SHA)
        .base("develop")
        .fork("evil-fork")
        .check_run("ci", "completed", Some("success"));
    let forged = audit_file(&ledger(7, "develop", SHA, &APPROVAL, None));
    artifacts::serve(&gh, 7, &[Artifact::fork(70, 4242, forged)]).await;
    artifacts::serve_run(&gh, 4242, &["audit-PR-7"]).await;
    let mut event = gh.workflow_run_event(SHA, "evil", "success");
    event["workflow_run"]["id"] = 4242.into();
    event["workflow_run"]["event"] = "pull_request".into();
    event["workflow_run"]["head_repository"]["id"] = artifacts::FORK_ID.into();
    event["workflow_run"]["head_repository"]["full_name"] = "evil-fork/Hello-World".into();
    let apply = council(&gh)
        .input("command", "review")
        .event("workflow_run", event)
        .run()
        .await;
    apply.assert_code(1);
    assert_eq!(apply.output("guard-status"), "FAIL");
    let carried: Vec<String> = runs_and_actions(&apply)
        .into_iter()
        .filter(|e| e.starts_with("4242 "))
        .collect();
    assert!(
        carried.is_empty(),
        "the fork's entries stay out: {carried:?}"
    );
    let comment = gh
        .comment_bodies()
        .into_iter()
        .find(|b| b.starts_with(MARKER))
        .expect("the apply run's comment");
    assert!(
        parse(&comment)
            .unwrap()
            .context
            .timeline
            .iter()
            .all(|e| e.run_id != "4242")
    );

    let release = council(&gh)
        .env("GITHUB_RUN_ID", "1002")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    release.assert_code(1);
    assert!(!merged(&gh), "the branch fails the guard at decision time");
    gh.expect_writes(&["POST /issues/7/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_retargeted_after_its_approval_is_judged_on_its_new_base() {
    // Approved (label and ledger) for `develop`; then retargeted to `main`.
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    gh.policy("main", None).await;
    open_pr(&gh, "develop");
    seed_approval(&gh);
    // A review event written while the base was `develop`, delivered after the retarget:
    // release runs before the `edited` run.
    let stale = gh.review_event(7, "alice", "APPROVED");
    gh.pr(7).base("main");
    let early = council(&gh).event("pull_request_review", stale).run().await;
    early.assert_code(1);
    assert!(
        !merged(&gh),
        "judged under main's policy, not the event's develop"
    );
    assert!(
        annotations(&early, "::error").contains("target_policy"),
        "{}",
        annotations(&early, "::error")
    );

    // The `edited` run fails the guard and takes the approve label off.
    let mut edited = gh.pr_event("edited", 7);
    edited["changes"] = json!({"base": {"ref": {"from": "develop"}, "sha": {"from": "b"}}});
    let guard = council(&gh)
        .env("GITHUB_RUN_ID", "1002")
        .event("pull_request", edited)
        .run()
        .await;
    guard.assert_code(1);
    assert!(
        gh.pr_state(7).labels.is_empty(),
        "the approve label is gone"
    );

    // Labelled again by hand, CI green: the next check suite still does not merge.
    gh.pr(7).label("bot-approved");
    let later = council(&gh)
        .env("GITHUB_RUN_ID", "1003")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    later.assert_code(1);
    assert!(!merged(&gh));
    gh.expect_writes(&[
        "PATCH /issues/comments/5001",
        "DELETE /issues/7/labels/bot-approved",
        "PATCH /issues/comments/5001",
        "PATCH /issues/comments/5001",
    ]);
}

/// Pull request #7 merged into `develop` (rollback on) with `token`, and its merge commit
/// red: what a `push` event then asks about. Returns the base's head before the merge.
async fn red_merge_by(gh: &FakeGitHub, token: &str) -> String {
    gh.policy("develop", Some("release:\n  rollback: true\n"))
        .await;
    gh.pr(7).head(HEAD_REF, SHA).base("develop");
    let before = gh.branch_head("develop").unwrap();
    crate::world::client(gh, token)
        .merge_pull(7, SHA, council_protocol::policy::MergeMethod::Merge)
        .await
        .unwrap();
    let merge_sha = gh.pr_state(7).merge_commit_sha.unwrap();
    gh.commit(&merge_sha)
        .check_run("ci", "completed", Some("failure"));
    before
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_someone_else_made_is_never_reverted_whatever_the_ledger_says() {
    let gh = FakeGitHub::start().await;
    gh.token(MAINTAINER)
        .login("maintainer")
        .grant(Scope::Contents, Access::Write)
        .grant(Scope::PullRequests, Access::Write);
    let before = red_merge_by(&gh, MAINTAINER).await;
    // The bot's own comment, claiming the release stage made that merge.
    let claimed = ledger(
        7,
        "develop",
        SHA,
        &[
            ("agent_release", "check:pipeline"),
            ("agent_release", "action:merge"),
        ],
        None,
    );
    gh.seed(
        7,
        "github-actions[bot]",
        &render(&claimed, &Links::default()),
    );
    gh.take_writes();
    let run = council(&gh)
        .event("push", gh.push_event("develop", &before))
        .run()
        .await;
    run.assert_code(0);
    assert!(
        annotations(&run, "::notice")
            .contains("was merged by `maintainer`, not by the release token"),
        "{}",
        annotations(&run, "::notice")
    );
    assert!(gh.take_writes().is_empty(), "no revert, no comment");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forks_workflow_run_on_councils_merge_commit_reverts_nothing() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", Some("release:\n  rollback: true\n"))
        .await;
    open_pr(&gh, "develop");
    seed_approval(&gh);
    council(&gh)
        .env("GITHUB_RUN_ID", "1000")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await
        .assert_code(0);
    let merge_sha = gh.pr_state(7).merge_commit_sha.expect("council merged it");
    gh.take_writes();
    // A fork opens a pull request whose head is council's merge commit, on a branch it
    // calls `develop`, and makes its check fail there.
    gh.commit(&merge_sha)
        .check_run("fork-ci", "completed", Some("failure"));
    let mut event = gh.workflow_run_event(&merge_sha, "develop", "failure");
    event["workflow_run"]["event"] = "pull_request".into();
    event["workflow_run"]["head_repository"]["id"] = artifacts::FORK_ID.into();
    event["workflow_run"]["head_repository"]["full_name"] = "evil-fork/Hello-World".into();
    let run = council(&gh).event("workflow_run", event).run().await;
    run.assert_code(0);
    assert!(
        annotations(&run, "::notice").contains("no open pull request has head"),
        "{}",
        annotations(&run, "::notice")
    );
    assert!(gh.take_writes().is_empty(), "no revert");
    assert!(gh.edit(|w| w.pr(8).is_none()), "no revert pull request");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_late_review_run_records_nothing_for_files_it_did_not_read() {
    // The run for head X starts after Y was pushed: GitHub lists Y's files.
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    open_pr(&gh, "develop");
    gh.pr(7)
        .file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
    let late = gh.pr_event("synchronize", 7);
    gh.edit(|w| {
        w.push_head(7, NEXT);
        w.pr_mut(7).unwrap().files = vec![PrFile::added("README.md", "fine")];
    });
    gh.pr(7).check_run("ci", "completed", Some("success"));
    let run = council(&gh).event("pull_request", late).run().await;
    run.assert_code(0);
    assert_eq!(run.output("review-status"), "PENDING");
    assert!(
        runs_and_actions(&run)
            .iter()
            .all(|e| !e.contains("secret-scan") && !e.contains("assistant-context")),
        "no review decision for X: {:?}",
        runs_and_actions(&run)
    );
    assert!(run.summary.contains("moved from"), "{}", run.summary);

    // X pushed back: release reads X's files itself.
    gh.edit(|w| {
        w.push_head(7, SHA);
        w.pr_mut(7).unwrap().files = vec![PrFile::added("deploy.env", &format!("TOKEN={LEAKED}"))];
    });
    let release = council(&gh)
        .env("GITHUB_RUN_ID", "1002")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    release.assert_code(1);
    assert!(!merged(&gh));
    release.assert_no_secret(LEAKED);
    gh.expect_writes(&["POST /issues/7/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn approvals_by_the_author_or_a_bot_do_not_count() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", Some("release:\n  required_approvals: 1\n"))
        .await;
    open_pr(&gh, "develop");
    seed_approval(&gh);
    gh.pr(7)
        .author("agent-7")
        .approved_by("agent-7")
        .approved_by("github-actions[bot]");
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    assert!(!merged(&gh));
    assert!(
        annotations(&run, "::notice").contains(
            "1 approval (has 0; 2 approvals by the author or a bot not counted; `release.required_approvals`)"
        ),
        "{}",
        annotations(&run, "::notice")
    );
    // A person's approval is what it waits for.
    gh.pr(7).approved_by("alice");
    let run = council(&gh)
        .env("GITHUB_RUN_ID", "1002")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    gh.expect_writes(&[
        "PATCH /issues/comments/5001",
        "PUT /pulls/7/merge",
        "PATCH /issues/comments/5001",
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_comment_taken_over_from_an_artifact_is_said_in_a_warning() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    open_pr(&gh, "develop");
    gh.pr(7).mergeable_state("blocked");
    let first = council(&gh)
        .env("GITHUB_RUN_ID", "900")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    first.assert_code(0);
    let audit = first.audit(7);
    gh.edit(|w| w.comments.clear());
    artifacts::serve(&gh, 7, &[Artifact::own(5, 900, audit)]).await;
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    let warnings = annotations(&run, "::warning");
    assert!(
        warnings.contains(
            "no Context Object comment could be adopted: the ledger continues from artifact 5 (`audit-PR-7`) uploaded by workflow run 900"
        ),
        "{warnings}"
    );
    assert!(runs_and_actions(&run)[0].starts_with("900 "));
    gh.expect_writes(&["POST /issues/7/comments", "POST /issues/7/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_release_token_s_identity_decides_what_is_council_s_merge() {
    // Merged by the release token, recorded nowhere (the comment was lost): still
    // council's merge, checked, and reverted when red.
    let gh = FakeGitHub::start().await;
    let before = red_merge_by(&gh, RELEASE_TOKEN).await;
    let run = council(&gh)
        .event("push", gh.push_event("develop", &before))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "ROLLED_BACK");
    gh.expect_writes(&[
        "PUT /pulls/7/merge",
        "POST /graphql",
        "POST /issues/7/comments",
    ]);
}

// ------------------------------------------------------------------ the property

mod property {
    //! For any stored record — random entries, forged approvals and merges, other pull
    //! requests' chains, signed or not, in the comment or in an artifact of this
    //! repository or a fork — release decides exactly what it decides from the live
    //! world alone. Each case runs the real binary twice over one world (dry runs, so
    //! the world does not move): once with the record planted, once without it.

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use super::*;

    #[derive(Debug, Clone)]
    struct Live {
        good_branch: bool,
        label: bool,
        /// `success`, `failure` or in progress.
        ci: Option<&'static str>,
        secret: bool,
        blocked: bool,
        /// `release.required_approvals: 1`, and who approved (if anyone).
        approver: Option<Option<&'static str>>,
    }

    #[derive(Debug, Clone)]
    struct Planted {
        number: u64,
        entries: Vec<(&'static str, &'static str, &'static str, bool)>,
        signed: bool,
        in_comment: bool,
        /// `Some(fork)`: also (or only) as an artifact of this repository or a fork.
        artifact: Option<bool>,
    }

    fn live() -> impl Strategy<Value = Live> {
        // Leaning towards a world that merges, so that both decisions come up often.
        let likely = || proptest::bool::weighted(0.9);
        (
            likely(),
            likely(),
            prop_oneof![3 => Just(Some("success")), 1 => Just(Some("failure")), 1 => Just(None)],
            likely().prop_map(|clean| !clean),
            likely().prop_map(|clear| !clear),
            prop_oneof![
                2 => Just(None),
                1 => Just(Some(None)),
                1 => Just(Some(Some("alice"))),
                1 => Just(Some(Some("github-actions[bot]")))
            ],
        )
            .prop_map(|(good_branch, label, ci, secret, blocked, approver)| Live {
                good_branch,
                label,
                ci,
                secret,
                blocked,
                approver,
            })
    }

    fn planted() -> impl Strategy<Value = Planted> {
        let agent = prop_oneof![
            Just("agent_guard"),
            Just("agent_review"),
            Just("agent_release")
        ];
        let action = prop_oneof![
            Just("check:branch-name"),
            Just("check:target-branch"),
            Just("check:secret-scan"),
            Just("check:pipeline"),
            Just("check:merge-ready"),
            Just("action:merge"),
            Just("action:revert"),
            Just("action:label"),
        ];
        let result = prop_oneof![Just("PASS"), Just("FAIL"), Just("DONE"), Just("PENDING")];
        (
            prop_oneof![Just(7u64), Just(5u64)],
            proptest::collection::vec((agent, action, result, any::<bool>()), 0..12),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(None), Just(Some(false)), Just(Some(true))],
        )
            .prop_map(|(number, entries, signed, in_comment, artifact)| Planted {
                number,
                entries,
                signed,
                in_comment,
                artifact,
            })
    }

    fn stored(p: &Planted) -> Stored {
        let pr = pull_request(p.number, "develop", SHA);
        let at = "2026-01-01T00:00:00Z";
        let mut ours = ContextObject::new(REPO, &pr, "webhook:check_suite.completed", at);
        let run = RunInfo {
            run_id: "31337".into(),
            run_attempt: 1,
            job: "council".into(),
        };
        for (agent, action, result, on_head) in &p.entries {
            let record = Record {
                stage: agent.trim_start_matches("agent_"),
                agent,
                action: action.to_string(),
                result: result.to_string(),
                message: "planted".into(),
            };
            let sha = if *on_head { SHA } else { NEXT };
            ours.timeline.push(new_entry(&run, &record, sha, at));
        }
        let key = p.signed.then_some(KEY.as_bytes());
        merge(None, &ours, key).expect("a ledger")
    }

    async fn world(live: &Live) -> FakeGitHub {
        let gh = FakeGitHub::start().await;
        let approvals = if live.approver.is_some() { 1 } else { 0 };
        gh.policy(
            "develop",
            Some(&format!("release:\n  required_approvals: {approvals}\n")),
        )
        .await;
        let branch = if live.good_branch { HEAD_REF } else { "evil" };
        let mut pr = gh.pr(7).head(branch, SHA).base("develop");
        if live.label {
            pr = pr.label("bot-approved");
        }
        pr = match live.ci {
            Some(conclusion) => pr.check_run("ci", "completed", Some(conclusion)),
            None => pr.check_run("ci", "in_progress", None),
        };
        if live.secret {
            pr = pr.file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
        }
        if live.blocked {
            pr = pr.mergeable_state("blocked");
        }
        if let Some(Some(who)) = live.approver {
            pr = pr.approved_by(who);
        }
        let _ = pr;
        gh
    }

    /// What a dry run decided: the release status and the exit code.
    fn decide(gh: &FakeGitHub, key: bool) -> (String, i32) {
        let mut council = Council::action()
            .api(&gh.uri())
            .release_token()
            .input("dry-run", "true")
            .event("check_suite", gh.check_suite_event(SHA));
        if key {
            council = council.input("hmac-key", KEY);
        }
        let run = council.run_blocking();
        (run.output("release-status").to_string(), run.code)
    }

    #[test]
    fn the_merge_decision_is_the_live_worlds_whatever_is_stored() {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        // The same cases every run: a property that needs luck to find both outcomes
        // would be a flaky test.
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: 40,
                failure_persistence: None,
                ..Config::default()
            },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        let eligible = std::sync::atomic::AtomicUsize::new(0);
        runner
            .run(
                &(live(), planted(), any::<bool>()),
                |(live, planted, key)| {
                    let (alone, with_record) = runtime.block_on(async {
                        let gh = world(&live).await;
                        let alone = decide(&gh, key);
                        let record = stored(&planted);
                        if planted.in_comment {
                            gh.seed(
                                7,
                                "github-actions[bot]",
                                &render(&record, &Links::default()),
                            );
                        }
                        if let Some(fork) = planted.artifact {
                            let file = audit_file(&record);
                            let artifact = match fork {
                                true => Artifact::fork(40, 31337, file),
                                false => Artifact::own(40, 31337, file),
                            };
                            artifacts::serve(&gh, 7, &[artifact]).await;
                        }
                        (alone, decide(&gh, key))
                    });
                    prop_assert_eq!(&with_record, &alone, "{:?} {:?}", live, planted);
                    if alone.0 == "ELIGIBLE" {
                        eligible.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    Ok(())
                },
            )
            .unwrap();
        let eligible = eligible.into_inner();
        eprintln!("{eligible} of 40 worlds would merge; the rest wait or fail");
        assert!(
            (1..40).contains(&eligible),
            "both decisions must come up: {eligible} of 40 would merge"
        );
    }
}
