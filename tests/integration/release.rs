//! Release end to end: the real binary against the fake GitHub world. Every test states
//! the exact API calls (with the token each used) and the timeline entries the decision
//! left, and ends by taking every write it caused.

use council_protocol::audit::stored::{MARKER, parse};
use serde_json::Value;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::ledgers::{self, HEAD_REF};
use crate::support::tokens::{Access, RELEASE_TOKEN, Scope, WORKFLOW_TOKEN};
use crate::support::world::PrFile;
use crate::support::{Council, REPO, Run};

const SHA: &str = "1111111111111111111111111111111111111111";
const NEXT: &str = "2222222222222222222222222222222222222222";
const ROLLUP: &str = "POST /graphql (PullRequestRollup)";
/// Reading the head's diff for the review gates, once nothing else holds the merge: by
/// SHA, from the base `develop` as the fake's builders make it.
fn files() -> String {
    format!(
        "workflow GET /compare/{}...{SHA}?per_page=1",
        crate::support::world::fake_sha("develop")
    )
}
/// Right after the merge: where GitHub says it landed.
const LANDED: &str = "workflow GET /pulls/7";
/// A token that turns up in a pushed file.
const LEAKED: &str = "ghp_Q7vLm2Xr9TnB4kWz8YdH3sJc6PfA1uEo5GiR";
/// A policy on the default branch that lets feature branches in, with rollback on.
const INTO_MASTER: &str = "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [master]\nrelease:\n  rollback: true\n";

/// The Context Object comment of an earlier run in which the review stage approved
/// `sha` of pull request #7: a record only (release reads the diff itself).
fn review_ledger(sha: &str, verdict: &str) -> String {
    let review = [
        ("agent_review", "check:secret-scan", verdict),
        ("agent_review", "check:assistant-context", verdict),
    ];
    ledgers::comment(&ledgers::ledger(7, "develop", sha, "900", &review, None))
}

/// Pull request #7 (`feature/x` → `develop`, head `SHA`) as release wants it: labelled,
/// mergeable, CI green, and approved by the review stage for this head.
async fn ready(gh: &FakeGitHub) {
    gh.policy("develop", None).await;
    gh.pr(7)
        .head(HEAD_REF, SHA)
        .base("develop")
        .label("bot-approved")
        .check_run("ci", "completed", Some("success"))
        .status("lint", "success");
    gh.seed(7, "github-actions[bot]", &review_ledger(SHA, "PASS"));
}

fn council(gh: &FakeGitHub) -> Council {
    Council::action().api(&gh.uri())
}

/// Every request, `token METHOD /path?query`, the repository prefix cut.
fn calls(gh: &FakeGitHub) -> Vec<String> {
    calls_from(gh, 0)
}

/// The requests from the `start`th on.
fn calls_from(gh: &FakeGitHub, start: usize) -> Vec<String> {
    let prefix = format!("/repos/{REPO}");
    gh.calls()
        .iter()
        .skip(start)
        .map(|c| {
            let token = match c.token.as_deref() {
                Some(WORKFLOW_TOKEN) => "workflow",
                Some(RELEASE_TOKEN) => "release",
                Some(_) => "other",
                None => "anonymous",
            };
            let line = match &c.operation {
                Some(op) => format!("{} {} ({op})", c.method, c.path),
                None => format!("{} {}", c.method, c.path),
            };
            format!("{token} {}", line.replace(&prefix, ""))
        })
        .collect()
}

/// The calls the ledger makes after the decision: read our comment, edit it, read back.
const LEDGER_WRITE: [&str; 3] = [
    "workflow GET /issues/7/comments?per_page=100",
    "workflow PATCH /issues/comments/5001",
    "workflow GET /issues/comments/5001",
];

fn expected(decision: &[&str], tail: &[&str]) -> Vec<String> {
    decision.iter().chain(tail).map(|s| s.to_string()).collect()
}

/// The guard's and the review's gates, which the release stage evaluates again.
const RECHECKED: [&str; 10] = [
    "check:branch-name",
    "check:target-branch",
    "check:actor",
    "check:agent-diff-size",
    "check:agent-paths",
    "check:doc-coverage",
    "check:diff-size",
    "check:secret-scan",
    "check:assistant-context",
    "check:task-list",
];

/// `action result: message` of this run's release gates and effects in the audit file
/// (the guard and review gates it evaluated again: [`rechecked`]).
fn release_entries(run: &Run) -> Vec<String> {
    run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["agent"] == "agent_release" && e["run_id"] == "1001")
        .filter(|e| !RECHECKED.iter().any(|a| e["action"] == *a))
        .map(|e| {
            format!(
                "{} {}: {}",
                e["action"].as_str().unwrap(),
                e["result"].as_str().unwrap(),
                e["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// `action result` of the guard and review gates this run's release stage evaluated.
fn rechecked(run: &Run) -> Vec<String> {
    run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["agent"] == "agent_release" && e["run_id"] == "1001")
        .filter(|e| RECHECKED.iter().any(|a| e["action"] == *a))
        .map(|e| {
            format!(
                "{} {}",
                e["action"].as_str().unwrap(),
                e["result"].as_str().unwrap()
            )
        })
        .collect()
}

/// `(token, METHOD path)` of the writes not taken yet.
fn writes(gh: &FakeGitHub) -> Vec<(String, String)> {
    gh.take_writes()
        .into_iter()
        .map(|c| {
            let token = if c.token.as_deref() == Some(RELEASE_TOKEN) {
                "release"
            } else {
                "workflow"
            };
            let what = c.operation.clone().unwrap_or_else(|| c.line());
            (
                token.to_string(),
                what.replace(&format!("/repos/{REPO}"), ""),
            )
        })
        .collect()
}

fn pair(token: &str, what: &str) -> (String, String) {
    (token.to_string(), what.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_green_approved_pull_request_is_merged_with_the_release_token() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    assert_eq!(
        calls(&gh),
        expected(
            &[
                &format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
                &files(),
                "release PUT /pulls/7/merge",
                LANDED,
            ],
            &LEDGER_WRITE
        )
    );
    let merge = gh
        .calls()
        .into_iter()
        .find(|c| c.path.ends_with("/merge"))
        .unwrap();
    assert_eq!(
        merge.body,
        serde_json::json!({"sha": SHA, "merge_method": "merge"})
    );
    let entries = release_entries(&run);
    insta::assert_snapshot!(entries[..2].join("\n"), @r#"
    check:pipeline PASS: 2 checks are green on the head "1111111".
    check:merge-ready PASS: Ready to merge head "1111111": mergeable (clean), label "bot-approved".
    "#);
    assert_eq!(
        rechecked(&run),
        [
            "check:branch-name PASS",
            "check:target-branch PASS",
            "check:actor PASS",
            "check:secret-scan PASS",
            "check:assistant-context PASS",
        ],
        "the guard and the review gates, evaluated again on the head being merged"
    );
    let pr = gh.pr_state(7);
    assert_eq!(
        entries[2],
        format!(
            "action:merge DONE: merged #7 (merge) into \"develop\" as {}, decided on base {} ← head 1111111",
            pr.merge_commit_sha.as_deref().unwrap(),
            &crate::support::world::fake_sha("develop")[..7],
        )
    );
    assert!(pr.merged);
    assert_eq!(pr.merged_by.as_deref(), Some("council-release[bot]"));
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
    let audit = run.audit(7);
    assert_eq!(audit["state"]["release_status"], "MERGED");
    assert_eq!(audit["gates"]["pipeline_green"], "PASS");
    run.assert_no_secret(RELEASE_TOKEN);
}

/// Helper: the entries of this run whose action is `action:merge` (result and message).
fn merge_entry(run: &Run) -> Option<(String, String)> {
    run.audit(7)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "action:merge" && e["run_id"] == "1001")
        .map(|e| {
            (
                e["result"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
}

#[tokio::test(flavor = "multi_thread")]
async fn one_failing_check_fails_pipeline_green_and_nothing_is_merged() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.pr(7).check_run("e2e", "completed", Some("failure"));
    let run = council(&gh)
        .release_token()
        .event("status", gh.status_event(SHA, "lint", "success"))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(
        calls(&gh),
        expected(
            &[
                &format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
            ],
            &LEDGER_WRITE
        )
    );
    let entries = release_entries(&run);
    assert!(
        entries[0].starts_with(r#"check:pipeline FAIL: 1 red check on the head "1111111": "e2e" (failure, https://github.com/Codertocat/Hello-World/runs/"#),
        "{entries:?}"
    );
    assert_eq!(run.audit(7)["gates"]["pipeline_green"], "FAIL");
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::error title=council release%3A pipeline_green")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(merge_entry(&run), None);
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pending_required_check_waits_with_exit_0() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.policy("develop", Some("release:\n  required_checks: [deploy]\n"))
        .await;
    gh.pr(7).status("deploy", "pending");
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(
        calls(&gh),
        expected(
            &[
                &format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
            ],
            &LEDGER_WRITE
        )
    );
    insta::assert_snapshot!(release_entries(&run)[0], @r#"check:pipeline PENDING: Waiting for 1 check on the head "1111111": "deploy" (pending)."#);
    assert_eq!(run.audit(7)["gates"]["pipeline_green"], Value::Null);
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::notice title=council release%3A pipeline_green")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_required_check_that_never_reported_is_pending_not_green() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.policy(
        "develop",
        Some("release:\n  required_checks: [ci, security/scan]\n"),
    )
    .await;
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    insta::assert_snapshot!(release_entries(&run)[0], @r#"check:pipeline PENDING: Waiting for 1 check on the head "1111111": required "security/scan" (not reported yet)."#);
    assert_eq!(merge_entry(&run), None);
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_mergeable_state_is_read_three_times_then_pending() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.pr(7).mergeable_state("unknown");
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(
        calls(&gh),
        expected(
            &[
                &format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
                &format!("workflow {ROLLUP}"),
                &format!("workflow {ROLLUP}"),
            ],
            &LEDGER_WRITE
        ),
        "a bounded wait: two more reads, then the run ends"
    );
    insta::assert_snapshot!(release_entries(&run)[1], @"check:merge-ready PENDING: Waiting: GitHub had not worked out whether it can merge after 3 reads (mergeable state unknown); the next event asks again.");
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn mergeability_computed_during_the_wait_merges() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.pr(7).mergeable_state("unknown");
    // GitHub finishes computing after the first read.
    gh.after("POST", "PullRequestRollup", |w| {
        let pr = w.pr_mut(7).unwrap();
        pr.mergeable = Some(true);
        pr.mergeable_state = "clean".into();
    });
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    let rollups = calls(&gh)
        .iter()
        .filter(|c| c.ends_with("(PullRequestRollup)"))
        .count();
    assert_eq!(rollups, 2);
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_head_pushed_during_the_merge_is_a_409_and_the_pull_request_waits() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.push_before_merge(7, NEXT);
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    let merge = gh
        .calls()
        .into_iter()
        .find(|c| c.path.ends_with("/merge"))
        .unwrap();
    assert_eq!(
        (merge.status, merge.token.as_deref()),
        (409, Some(RELEASE_TOKEN))
    );
    let (result, message) = merge_entry(&run).unwrap();
    assert_eq!(result, "PENDING");
    insta::assert_snapshot!(message, @"not merged: the head of #7 is no longer 1111111 (GitHub: Head branch was modified. Review and try the merge again.); the new head's checks decide next");
    assert_eq!(run.audit(7)["state"]["release_status"], "PENDING");
    assert!(!gh.pr_state(7).merged);
    assert!(
        run.annotations().iter().all(|a| !a.starts_with("::error")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_method_the_repository_forbids_fails_naming_the_policy_key() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.allow_merge_methods(&["squash"]);
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(3);
    let (result, message) = merge_entry(&run).unwrap();
    assert_eq!(result, "FAILED");
    insta::assert_snapshot!(message, @"GitHub refused to merge #7: Merge commits are not allowed on this repository. Set `release.merge_method` (now `merge`) to a method the repository allows.");
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_release_token_a_ready_pull_request_is_eligible_and_not_merged() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "ELIGIBLE");
    assert!(calls(&gh).iter().all(|c| !c.contains("/merge")));
    let (result, message) = merge_entry(&run).unwrap();
    assert_eq!(result, "SKIPPED");
    assert!(
        message
            .starts_with("no `release-token`: would merge pull request #7 into `develop` (merge)"),
        "{message}"
    );
    assert_eq!(run.audit(7)["state"]["release_status"], "ELIGIBLE");
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_release_token_that_may_not_merge_fails_the_run_with_what_to_grant() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.token(RELEASE_TOKEN).grant(Scope::Contents, Access::Read);
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(3);
    assert_eq!(run.output("release-status"), "PENDING");
    let (result, message) = merge_entry(&run).unwrap();
    assert_eq!(result, "FAILED");
    assert!(message.contains("403"), "{message}");
    assert!(
        message.contains("The release token may not merge or revert here: it needs `contents: write` and `pull-requests: write`"),
        "{message}"
    );
    assert!(
        run.annotations().iter().any(|a| a
            .starts_with("::error title=council release%3A action%3Amerge")
            && a.contains("contents: write")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
    run.assert_no_secret(RELEASE_TOKEN);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_push_after_the_approval_is_judged_on_its_own_diff() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    // A push after the review adds a token: the label stays, CI is green on the new head,
    // and the ledger still says the review approved the old one.
    gh.pr(7)
        .push(NEXT)
        .check_run("ci", "completed", Some("success"))
        .file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(NEXT))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(
        rechecked(&run),
        [
            "check:branch-name PASS",
            "check:target-branch PASS",
            "check:actor PASS",
            "check:secret-scan FAIL",
            "check:assistant-context PASS",
        ]
    );
    insta::assert_snapshot!(release_entries(&run).join("\n"), @r#"
    check:pipeline PASS: 1 check is green on the head "2222222".
    check:merge-ready PASS: Ready to merge head "2222222": mergeable (clean), label "bot-approved".
    "#);
    insta::assert_snapshot!(run.summary, @"
    ### agent-council · release · PENDING

    Pull request #7: <code>feature/devops/PBI-007-release</code> → <code>develop</code> (head <code>2222222</code>)

    | Gate | Result | Why |
    | --- | --- | --- |
    | `naming_convention` | ✅ PASS | Branch <code>feature/devops/PBI-007-release</code> matches rule feature (feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;). |
    | `target_policy` | ✅ PASS | Base <code>develop</code> is allowed for this branch by rule feature (feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;) (targets: develop). |
    | `actor` | ✅ PASS | human: no login, branch, trailer or label of actors.agents matches (author <code>octocat</code>, head branch <code>feature/devops/PBI-007-release</code>, trailers of 1 commit, 1 label). |
    | `secret_scan` | ❌ FAIL | Found 1 secret in added lines: <code>deploy.env</code> line 1 (GitHub token). |
    | `assistant_context` | ✅ PASS | No ASSISTANT&#95;CONTEXT file changed. |
    | `pipeline_green` | ✅ PASS | 1 check is green on the head <code>2222222</code>. |
    | `merge_ready` | ✅ PASS | Ready to merge head <code>2222222</code>: mergeable (clean), label <code>bot-approved</code>. |

    **How to fix `secret_scan`:** remove the secret and rewrite the commits that added it (it stays in the branch&#39;s history otherwise), then rotate it: anyone who saw the diff may have it.

    | Effect | Result |
    | --- | --- |
    | `action:comment` | ✅ done: Context Object comment: <https://github.com/Codertocat/Hello-World/pull/7#issuecomment-5001> |

    <sub>policy: default policy (no .github/council.yml on develop) · GitHub API requests: 7 · audit file: <code>out/audit/PR-7.json</code> · artifact not uploaded: artifact upload skipped: ACTIONS&#95;RUNTIME&#95;TOKEN and ACTIONS&#95;RESULTS&#95;URL not set (not running as a GitHub Actions container action; &#96;run:&#96; steps do not receive these variables); the audit file stays on disk</sub>
    ");
    assert!(!gh.pr_state(7).merged);
    run.assert_no_secret(LEAKED);
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_label_on_a_head_whose_review_fails_now_does_not_merge() {
    // No Context Object yet, a label set by hand, CI green: the review gates, read again
    // for this head, find a token in the diff.
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    gh.pr(7)
        .head(HEAD_REF, SHA)
        .base("develop")
        .label("bot-approved")
        .check_run("ci", "completed", Some("success"))
        .file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
    let run = council(&gh)
        .release_token()
        .event("pull_request", gh.labeled_event(7, "bot-approved"))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "PENDING");
    assert_eq!(
        calls(&gh),
        [
            "workflow GET /contents/.github/council.yml?ref=develop",
            &format!("workflow {ROLLUP}"),
            &files(),
            // The ledger: no comment yet, so the previous artifacts, then a new comment.
            "workflow GET /issues/7/comments?per_page=100",
            "workflow GET /actions/artifacts?name=audit-PR-7&per_page=100",
            "workflow POST /issues/7/comments",
            "workflow GET /issues/comments/5001",
        ]
    );
    assert!(rechecked(&run).contains(&"check:secret-scan FAIL".to_string()));
    assert_eq!(merge_entry(&run), None);
    assert!(!gh.pr_state(7).merged);
    run.assert_no_secret(LEAKED);
    assert_eq!(writes(&gh), [pair("workflow", "POST /issues/7/comments")]);
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn its_own_running_job_does_not_block_the_merge() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    // A review event's workflow runs on the head: this very job is a running check there.
    gh.pr(7).own_job(1001, "council");
    let run = council(&gh)
        .release_token()
        .event(
            "pull_request_review",
            gh.review_event(7, "alice", "APPROVED"),
        )
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    assert_eq!(
        calls(&gh),
        expected(
            &[
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
                "workflow GET /actions/runs/1001/jobs?per_page=100",
                &files(),
                "release PUT /pulls/7/merge",
                LANDED,
            ],
            &LEDGER_WRITE
        )
    );
    insta::assert_snapshot!(release_entries(&run)[0], @r#"check:pipeline PASS: 2 checks are green on the head "1111111". Left out: this job's own check "council"."#);
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn another_running_job_of_the_same_workflow_is_waited_for() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.pr(7).own_job(1001, "council").own_job(1001, "e2e");
    let run = council(&gh)
        .release_token()
        .event(
            "pull_request_review",
            gh.review_event(7, "alice", "APPROVED"),
        )
        .run()
        .await;
    run.assert_code(0);
    insta::assert_snapshot!(release_entries(&run)[0], @r#"check:pipeline PENDING: Waiting for 1 check on the head "1111111": "e2e" (in progress). Left out: this job's own check "council"."#);
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_merge_and_merge_queues_are_left_to_github() {
    for (label, enable) in [("auto-merge", true), ("merge queue", false)] {
        let gh = FakeGitHub::start().await;
        ready(&gh).await;
        if enable {
            gh.pr(7).auto_merge("alice", "squash");
        } else {
            gh.pr(7).in_merge_queue();
        }
        let run = council(&gh)
            .release_token()
            .event("check_suite", gh.check_suite_event(SHA))
            .run()
            .await;
        run.assert_code(0);
        assert_eq!(run.output("release-status"), "PENDING", "{label}");
        let ready_entry = &release_entries(&run)[1];
        assert!(
            ready_entry.contains("council does not race it"),
            "{label}: {ready_entry}"
        );
        assert_eq!(
            writes(&gh),
            [pair("workflow", "PATCH /issues/comments/5001")],
            "{label}"
        );
        gh.assert_all_writes_seen();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_decides_and_writes_the_audit_file_but_calls_no_write() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    let run = council(&gh)
        .release_token()
        .input("dry-run", "true")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "ELIGIBLE");
    assert_eq!(
        calls(&gh),
        [
            &format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
            "workflow GET /contents/.github/council.yml?ref=develop",
            &format!("workflow {ROLLUP}"),
            &files(),
            // The ledger, read to write the audit file (a dry run writes no comment).
            "workflow GET /issues/7/comments?per_page=100",
        ]
    );
    let (result, message) = merge_entry(&run).unwrap();
    assert_eq!(
        (result.as_str(), message.as_str()),
        (
            "SKIPPED",
            "dry run: would merge pull request #7 into `develop` (merge)"
        )
    );
    assert!(gh.take_writes().is_empty());
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn every_open_pull_request_at_the_commit_is_decided_on_its_own() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    // A second pull request from the same head into another base; nobody reviewed it.
    gh.policy("main", None).await;
    gh.edit(|w| {
        let mut other = w.pr(7).unwrap().clone();
        other.number = 8;
        other.base_ref = "main".into();
        w.pulls.insert(8, other);
    });
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    // #8's branch may not target `main`: its release fails the guard again.
    run.assert_code(1);
    let lookups = calls(&gh)
        .iter()
        .filter(|c| c.contains("/pulls?per_page=100"))
        .count();
    assert_eq!(lookups, 1, "one call finds both");
    assert!(gh.pr_state(7).merged || gh.pr_state(8).merged);
    assert_eq!(run.audit(8)["state"]["release_status"], "PENDING");
    assert_eq!(run.audit(8)["gates"]["target_policy"], "FAIL");
    assert_eq!(run.audit(7)["gates"]["target_policy"], "PASS");
    assert!(run.workspace.path().join("out/audit/PR-7.json").exists());
    let merges: Vec<(String, String)> = writes(&gh)
        .into_iter()
        .filter(|(_, w)| w.contains("merge"))
        .collect();
    assert_eq!(merges, [pair("release", "PUT /pulls/7/merge")]);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_pull_request_at_the_commit_is_a_notice() {
    let gh = FakeGitHub::start().await;
    let run = council(&gh)
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "PENDING");
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.contains("no open pull request has head 1111111")),
        "{:?}",
        run.annotations()
    );
    assert_eq!(calls(&gh).len(), 1);
}

/// The rollback: a merge made by the release stage, then its merge commit goes red on
/// the base branch.
async fn merged_by_council(gh: &FakeGitHub, policy: &str) -> String {
    ready(gh).await;
    gh.policy("develop", Some(policy)).await;
    let before = gh.branch_head("develop").unwrap();
    council(gh)
        .release_token()
        .env("GITHUB_RUN_ID", "1000")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await
        .assert_code(0);
    assert!(gh.pr_state(7).merged);
    gh.take_writes();
    before
}

#[tokio::test(flavor = "multi_thread")]
async fn a_red_merge_commit_is_reverted_with_the_release_token_and_recorded() {
    let gh = FakeGitHub::start().await;
    let before = merged_by_council(&gh, "release:\n  rollback: true\n").await;
    let merge_sha = gh.pr_state(7).merge_commit_sha.unwrap();
    gh.commit(&merge_sha)
        .check_run("ci", "completed", Some("failure"));
    let start = gh.calls().len();
    let run = council(&gh)
        .release_token()
        .event("push", gh.push_event("develop", &before))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "ROLLED_BACK");
    assert_eq!(
        calls_from(&gh, start),
        expected(
            &[
                &format!("workflow GET /commits/{merge_sha}/pulls?per_page=100"),
                // `develop` is not the default branch: GitHub lists no merged pull request
                // for the commit, so the ones closed into `develop` last are asked.
                "workflow GET /pulls?state=closed&base=develop&sort=updated&direction=desc&per_page=30",
                "workflow GET /contents/.github/council.yml?ref=develop",
                &format!("workflow {ROLLUP}"),
                // GitHub says the release token merged it: council's to check.
                "release POST /graphql (viewer)",
                "release POST /graphql (RevertPullRequest)",
            ],
            &[
                LEDGER_WRITE[0],
                LEDGER_WRITE[1],
                LEDGER_WRITE[2],
                // The merge run wrote the ledger moments ago: the write is checked twice
                // more for a run racing it (the ledger's own rule).
                LEDGER_WRITE[2],
                LEDGER_WRITE[2],
            ]
        )
    );
    let entries = release_entries(&run);
    assert!(
        entries[0].starts_with(&format!(
            "check:pipeline FAIL: 1 red check on the merge commit \"{}\"",
            &merge_sha[..7]
        )),
        "{entries:?}"
    );
    assert_eq!(
        entries[1],
        "action:revert DONE: opened #8 reverting #7: https://github.com/Codertocat/Hello-World/pull/8"
    );
    let audit = run.audit(7);
    assert_eq!(audit["state"]["release_status"], "ROLLED_BACK");
    let revert = gh.pr_state(8);
    assert_eq!(revert.base_ref, "develop");
    assert_eq!(revert.author, "council-release[bot]");
    assert!(
        revert
            .body
            .starts_with("Reverts #7: the pipeline of its merge commit is red.")
    );
    assert_eq!(
        writes(&gh),
        [
            pair("release", "RevertPullRequest"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();

    // The same red pipeline reported again (a workflow_run) reverts nothing twice.
    let again = council(&gh)
        .release_token()
        .env("GITHUB_RUN_ID", "1002")
        .event(
            "workflow_run",
            gh.workflow_run_event(&merge_sha, "develop", "failure"),
        )
        .run()
        .await;
    again.assert_code(0);
    assert!(
        again
            .annotations()
            .iter()
            .any(|a| a.contains("already reverted")),
        "{:?}",
        again.annotations()
    );
    assert!(gh.take_writes().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn without_rollback_a_red_merge_commit_is_recorded_and_left() {
    let gh = FakeGitHub::start().await;
    let before = merged_by_council(&gh, "release:\n  rollback: false\n").await;
    let merge_sha = gh.pr_state(7).merge_commit_sha.unwrap();
    gh.commit(&merge_sha)
        .check_run("ci", "completed", Some("failure"));
    let run = council(&gh)
        .release_token()
        .event("push", gh.push_event("develop", &before))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "MERGED");
    assert!(run.summary.contains("rollback: off"), "{}", run.summary);
    assert_eq!(
        writes(&gh),
        [pair("workflow", "PATCH /issues/comments/5001")]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_releases_one_pull_request_by_number() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    let run = Council::cli()
        .args(&[
            "release",
            "--pr",
            "7",
            "--repo",
            REPO,
            "--github-token",
            WORKFLOW_TOKEN,
            "--release-token",
            RELEASE_TOKEN,
        ])
        .api(&gh.uri())
        .run()
        .await;
    run.assert_code(0);
    assert!(
        run.stdout.contains("release MERGED on #7"),
        "{}",
        run.stdout
    );
    let first: Vec<String> = calls(&gh).into_iter().take(2).collect();
    assert_eq!(
        first,
        ["workflow GET /pulls/7", &format!("workflow {ROLLUP}")]
    );
    let body = gh
        .comment_bodies()
        .into_iter()
        .find(|b| b.starts_with(MARKER))
        .unwrap();
    assert_eq!(parse(&body).unwrap().context.trigger, "cli:release");
    gh.expect_writes(&["PUT /pulls/7/merge", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_rollup_read_is_exit_3_after_bounded_retries() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    gh.fail_next("POST", "PullRequestRollup", 10, Fault::bad_gateway());
    let run = council(&gh)
        .release_token()
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await;
    run.assert_code(3);
    assert_eq!(run.output("release-status"), "PENDING");
    assert!(gh.take_writes().is_empty());
}

/// The request budget (SPEC: ≤ 5 for ≤ 100 checks; the release-trust issue: and ≤ 100
/// files, the diff being read again at decision time; issue 27: and ≤ 100 commits, whose
/// messages and authors decide the class) measured for 10, 100 and 1,000 checks, 10 and
/// 100 changed files and 1, 100 and 250 commits, and the time from the event to the
/// merge call: from the process's start, and from its first request (the event read,
/// the process up). The commits come in the rollup query the decision already makes, so
/// up to 100 of them cost nothing more (policy, rollup, diff, merge: 4); past 100, one
/// `PullRequestCommits` request per 100, at most 250 read (6 for 250). Prints its
/// figures (`benches/release.sh` runs it against the release build); asserts only the
/// budget.
#[tokio::test(flavor = "multi_thread")]
async fn release_request_budget_figures() {
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    type Mark = Arc<Mutex<Option<Instant>>>;
    fn mark(gh: &FakeGitHub, method: &str, fragment: &str) -> Mark {
        let at: Mark = Arc::default();
        let set = at.clone();
        gh.before(method, fragment, move |_| {
            *set.lock().unwrap() = Some(Instant::now());
        });
        at
    }
    fn median(mut spans: Vec<Duration>) -> Duration {
        spans.sort();
        spans[spans.len() / 2]
    }

    let mut lines = Vec::new();
    for (checks, files, commits) in [
        (10usize, 10usize, 1usize),
        (10, 100, 1),
        (100, 10, 1),
        (100, 100, 1),
        (100, 100, 100),
        (100, 100, 250),
        (1_000, 100, 1),
    ] {
        let (mut from_start, mut from_event) = (Vec::new(), Vec::new());
        let mut counts = (0, 0, 0);
        for _ in 0..3 {
            let gh = FakeGitHub::start().await;
            ready(&gh).await;
            let head = if commits == 1 {
                gh.pr(7).many_files(files);
                SHA.to_string()
            } else {
                // `commits` commits on the head, over `files` files; the checks move to
                // the new head (the ledger's review record is only a record).
                for i in 0..commits {
                    let path = format!("src/generated/file_{:04}.rs", i % files);
                    let _ = gh
                        .pr(7)
                        .commit(&[(&path, &format!("{i}\n"))], &format!("Step {i}"));
                }
                let head = gh.pr(7).head_sha();
                let _ = gh
                    .pr(7)
                    .check_run("ci", "completed", Some("success"))
                    .status("lint", "success");
                head
            };
            let mut commit = gh.commit(&head);
            // `ready` reported two; make it `checks` in all.
            for i in 2..checks {
                commit = commit.check_run(&format!("job {i:04}"), "completed", Some("success"));
            }
            let first = mark(&gh, "GET", "/pulls?per_page=100");
            let merged = mark(&gh, "PUT", "/pulls/7/merge");
            let started = Instant::now();
            let run = council(&gh)
                .release_token()
                .event("check_suite", gh.check_suite_event(&head))
                .run()
                .await;
            run.assert_code(0);
            assert_eq!(
                run.output("release-status"),
                "MERGED",
                "{checks} checks, {files} files, {commits} commits"
            );
            let merged = merged.lock().unwrap().expect("a merge call");
            let first = first.lock().unwrap().expect("a first request");
            from_start.push(merged.duration_since(started));
            from_event.push(merged.duration_since(first));
            let all = calls(&gh);
            let merge = all
                .iter()
                .position(|c| c.contains("PUT /pulls/7/merge"))
                .unwrap();
            // The first call finds the commit's pull requests (the event's, once per event);
            // from the policy read up to and including the merge is the evaluation; then
            // the ledger write.
            counts = (1, merge, all.len() - merge - 1);
            gh.expect_writes(&["PUT /pulls/7/merge", "PATCH /issues/comments/5001"]);
        }
        let (lookup, evaluation, ledger) = counts;
        if checks <= 100 && files <= 100 && commits <= 100 {
            assert!(
                evaluation <= 5,
                "{checks} checks, {files} files, {commits} commits: {evaluation} requests to \
                 decide and merge"
            );
        }
        lines.push(format!(
            "{checks:>5} checks, {files:>3} files, {commits:>3} commits: {lookup} lookup + \
             {evaluation} evaluation \
             (policy … merge) + {ledger} ledger write = {} requests; to the merge call \
             (median of 3): {:?} from the process start, {:?} from its first request",
            lookup + evaluation + ledger,
            median(from_start),
            median(from_event),
        ));
    }
    println!(
        "release budget ({}):\n{}",
        crate::support::binary().display(),
        lines.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_red_merge_into_the_default_branch_is_found_by_its_commit_on_workflow_run() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", Some(INTO_MASTER)).await;
    gh.pr(7)
        .head(HEAD_REF, SHA)
        .label("bot-approved")
        .check_run("ci", "completed", Some("success"));
    gh.seed(7, "github-actions[bot]", &review_ledger(SHA, "PASS"));
    council(&gh)
        .release_token()
        .env("GITHUB_RUN_ID", "1000")
        .event("check_suite", gh.check_suite_event(SHA))
        .run()
        .await
        .assert_code(0);
    let merge_sha = gh.pr_state(7).merge_commit_sha.unwrap();
    gh.take_writes();
    // CI on the merge commit went red; this workflow_run's own job runs on it too (the
    // default branch's head), and is left out.
    gh.commit(&merge_sha)
        .check_run("ci", "completed", Some("failure"));
    gh.job(1001, "council", &merge_sha);
    let start = gh.calls().len();
    let run = council(&gh)
        .release_token()
        .event(
            "workflow_run",
            gh.workflow_run_event(&merge_sha, "master", "failure"),
        )
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("release-status"), "ROLLED_BACK");
    let decision: Vec<String> = calls_from(&gh, start).into_iter().take(6).collect();
    assert_eq!(
        decision,
        [
            format!("workflow GET /commits/{merge_sha}/pulls?per_page=100"),
            "workflow GET /contents/.github/council.yml?ref=master".to_string(),
            format!("workflow {ROLLUP}"),
            "release POST /graphql (viewer)".to_string(),
            "workflow GET /actions/runs/1001/jobs?per_page=100".to_string(),
            "release POST /graphql (RevertPullRequest)".to_string(),
        ]
    );
    assert!(
        release_entries(&run)[0].contains("Left out: this job's own check \"council\"."),
        "{:?}",
        release_entries(&run)
    );
    assert_eq!(
        writes(&gh),
        [
            pair("release", "RevertPullRequest"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_the_commit_lookup_misses_is_taken_from_the_check_suite() {
    let gh = FakeGitHub::start().await;
    ready(&gh).await;
    // `develop` → `main` with `develop` the default branch: GitHub lists, for the head
    // commit, the merged pull request that brought it, not this open one.
    gh.fail_next(
        "GET",
        &format!("/commits/{SHA}/pulls"),
        1,
        Fault::json(200, serde_json::json!([])),
    );
    let mut event = gh.check_suite_event(SHA);
    event["check_suite"]["pull_requests"] = serde_json::json!([
        {"number": 7, "head": {"ref": HEAD_REF, "sha": SHA}, "base": {"ref": "develop", "sha": "b"}},
        {"number": 99, "head": {"ref": "other", "sha": NEXT}, "base": {"ref": "develop", "sha": "b"}},
    ]);
    let run = council(&gh)
        .release_token()
        .event("check_suite", event)
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    let first: Vec<String> = calls(&gh).into_iter().take(3).collect();
    assert_eq!(
        first,
        [
            format!("workflow GET /commits/{SHA}/pulls?per_page=100"),
            "workflow GET /pulls/7".to_string(),
            "workflow GET /contents/.github/council.yml?ref=develop".to_string(),
        ],
        "only the listed pull request at this head is asked for"
    );
    assert_eq!(
        writes(&gh),
        [
            pair("release", "PUT /pulls/7/merge"),
            pair("workflow", "PATCH /issues/comments/5001"),
        ]
    );
    gh.assert_all_writes_seen();
}
