//! Decisions bound to commits, tried as an attacker would: the author pushes a clean
//! commit and pushes the old one back while review or release reads, or retargets the
//! pull request while release merges. Each race is played by the fake at the exact
//! request where it hurts; each test failed against the build that read "the pull
//! request's files now" and merged without looking where the merge landed (run them with
//! `COUNCIL_BIN` pointing at that build to see it).

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::ledgers::HEAD_REF;
use crate::support::world::{PrFile, World};
use crate::support::{Council, Run, timeline};

/// The head that adds a token.
const X: &str = "1111111111111111111111111111111111111111";
/// A clean head the author pushes for a moment.
const Y: &str = "3333333333333333333333333333333333333333";
const LEAKED: &str = "ghp_Q7vLm2Xr9TnB4kWz8YdH3sJc6PfA1uEo5GiR";

/// #7 `feature/…` → `develop` at head X, whose diff adds a token; commit Y's diff is a
/// harmless change. Labelled and green: everything but the diff says "merge".
async fn world(policy: Option<&str>) -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", policy).await;
    gh.pr(7)
        .head(HEAD_REF, X)
        .base("develop")
        .check_run("ci", "completed", Some("success"))
        .file(PrFile::added("deploy.env", &format!("TOKEN={LEAKED}")));
    gh.edit(|w| {
        w.diffs.insert(
            Y.to_string(),
            vec![PrFile::modified("src/lib.rs", &["old"], &["new"])],
        )
    });
    gh.commit(Y).check_run("ci", "completed", Some("success"));
    gh.writes_not_checked("each test asserts the merge, the label and the revert it cares about");
    gh
}

/// A push of Y just before the diff is read, and of X again right after: whatever
/// endpoint the diff is read from (the pull request's files, or a compare).
fn push_and_push_back(gh: &FakeGitHub) {
    for fragment in ["/pulls/7/files", "/compare/"] {
        gh.before("GET", fragment, |w: &mut World| w.push_head(7, Y));
        gh.after("GET", fragment, |w: &mut World| w.push_head(7, X));
    }
}

fn merged(gh: &FakeGitHub) -> bool {
    gh.calls()
        .iter()
        .any(|c| c.method == "PUT" && c.path.ends_with("/pulls/7/merge"))
}

fn entries(run: &Run, agent: &str) -> Vec<String> {
    timeline(&run.audit(7), &["agent", "action", "result"])
        .into_iter()
        .filter_map(|e| e.strip_prefix(&format!("{agent} ")).map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn release_judges_the_head_it_merges_even_when_the_author_pushes_and_pushes_back() {
    let gh = world(None).await;
    gh.pr(7).label("bot-approved");
    push_and_push_back(&gh);
    let run = Council::action()
        .api(&gh.uri())
        .release_token()
        .event("check_suite", gh.check_suite_event(X))
        .run()
        .await;
    run.assert_code(1);
    assert!(!merged(&gh), "X adds a token: it must not be merged");
    assert!(!gh.pr_state(7).merged);
    assert!(
        entries(&run, "agent_release").contains(&"check:secret-scan FAIL".to_string()),
        "{:?}",
        entries(&run, "agent_release")
    );
    assert_eq!(run.output("release-status"), "PENDING");
    run.assert_no_secret(LEAKED);
}

#[tokio::test(flavor = "multi_thread")]
async fn review_judges_the_head_of_its_event_even_when_the_author_pushes_and_pushes_back() {
    let gh = world(None).await;
    push_and_push_back(&gh);
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("synchronize", 7))
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("review-status"), "CHANGES_REQUESTED");
    assert!(
        entries(&run, "agent_review").contains(&"check:secret-scan FAIL".to_string()),
        "{:?}",
        entries(&run, "agent_review")
    );
    assert!(
        !gh.pr_state(7).labels.iter().any(|l| l == "bot-approved"),
        "no approve label for a head that adds a token"
    );
    run.assert_no_secret(LEAKED);
}

/// #7's diff is clean: only the base moves under it.
async fn clean_world(policy: &str) -> FakeGitHub {
    let gh = world(Some(policy)).await;
    gh.pr(7).label("bot-approved");
    gh.edit(|w| {
        if let Some(pr) = w.pr_mut(7) {
            pr.files = vec![PrFile::modified("src/lib.rs", &["old"], &["new"])];
        }
    });
    gh.branch("main", &crate::support::world::fake_sha("main"));
    gh
}

/// Feature branches may target `develop` only; `rollback` as given.
fn develop_only(rollback: bool) -> String {
    format!(
        "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [develop]\n\
         release:\n  rollback: {rollback}\n"
    )
}

/// The author retargets #7 to `main` after release decided and before GitHub merges.
fn retarget_during_merge(gh: &FakeGitHub) {
    gh.before("PUT", "/pulls/7/merge", |w: &mut World| {
        let main = w.branches.get("main").cloned().unwrap_or_default();
        if let Some(pr) = w.pr_mut(7) {
            pr.base_ref = "main".to_string();
            pr.base_sha = main;
        }
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_that_lands_on_another_base_than_decided_fails_loudly() {
    let gh = clean_world(&develop_only(false)).await;
    retarget_during_merge(&gh);
    let main_before = gh.branch_head("main");
    let run = Council::action()
        .api(&gh.uri())
        .release_token()
        .event("check_suite", gh.check_suite_event(X))
        .run()
        .await;
    run.assert_code(1);
    assert!(merged(&gh), "GitHub's merge endpoint cannot pin the base");
    assert_ne!(gh.branch_head("main"), main_before, "main got the merge");
    let errors: Vec<&str> = run
        .annotations()
        .into_iter()
        .filter(|a| a.starts_with("::error"))
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains(r#"into "main""#) && e.contains(r#"into "develop""#)),
        "an error naming both bases: {errors:?}"
    );
    let release = entries(&run, "agent_release");
    assert!(
        release.contains(&"check:target-branch FAIL".to_string()),
        "{release:?}"
    );
    assert!(!release.contains(&"check:target-branch PASS".to_string()));
    assert!(release.contains(&"action:merge DONE".to_string()));
    assert_eq!(run.audit(7)["gates"]["target_policy"], "FAIL");
    assert_eq!(run.output("release-status"), "MERGED");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_rollback_a_merge_on_another_base_is_reverted() {
    let gh = clean_world(&develop_only(true)).await;
    retarget_during_merge(&gh);
    let run = Council::action()
        .api(&gh.uri())
        .release_token()
        .event("check_suite", gh.check_suite_event(X))
        .run()
        .await;
    run.assert_code(1);
    let release = entries(&run, "agent_release");
    assert!(
        release.contains(&"check:target-branch FAIL".to_string()),
        "{release:?}"
    );
    assert!(
        release.contains(&"action:revert DONE".to_string()),
        "{release:?}"
    );
    let revert = gh.pr_state(8);
    assert_eq!(
        revert.base_ref, "main",
        "the revert undoes the merge on main"
    );
    assert!(revert.body.contains("another base than `develop`"));
    assert_eq!(run.output("release-status"), "ROLLED_BACK");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merge_that_lands_where_decided_reads_one_more_request_and_nothing_else() {
    let gh = clean_world(&develop_only(true)).await;
    let run = Council::action()
        .api(&gh.uri())
        .release_token()
        .event("check_suite", gh.check_suite_event(X))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("release-status"), "MERGED");
    let after_merge: Vec<String> = gh
        .call_lines()
        .into_iter()
        .skip_while(|c| !c.ends_with("/pulls/7/merge"))
        .skip(1)
        .take(1)
        .collect();
    assert_eq!(after_merge, ["GET /repos/Codertocat/Hello-World/pulls/7"]);
    assert!(entries(&run, "agent_release").contains(&"check:target-branch PASS".to_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forks_run_cannot_fan_the_two_phase_apply_out_over_pull_requests_it_names() {
    // A fork's evaluate run uploaded 120 artifacts named `audit-PR-<n>`: names it chose.
    // The apply run finds the pull requests of the run's head SHA with one lookup and
    // reads none of the named ones.
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    gh.pr(7)
        .head("feature/devops/PBI-001-login", X)
        .base("develop")
        .fork("evil-fork")
        .file(PrFile::modified("src/lib.rs", &["old"], &["new"]));
    for n in 100..110 {
        gh.pr(n).head(
            &format!("feature/devops/PBI-{n}-x"),
            &crate::support::world::fake_sha(&n.to_string()),
        );
    }
    let names: Vec<String> = (1..=120).map(|n| format!("audit-PR-{n}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::support::artifacts::serve_run(&gh, 4242, &names).await;
    let mut event = gh.workflow_run_event(X, "feature/devops/PBI-001-login", "success");
    event["workflow_run"]["id"] = 4242.into();
    event["workflow_run"]["event"] = "pull_request".into();
    event["workflow_run"]["head_repository"]["id"] = crate::support::artifacts::FORK_ID.into();
    event["workflow_run"]["head_repository"]["full_name"] = "evil-fork/Hello-World".into();
    let run = Council::action()
        .api(&gh.uri())
        .input("command", "review")
        .event("workflow_run", event)
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("review-status"), "APPROVED");
    let lines = gh.call_lines();
    let single_reads: Vec<&String> = lines
        .iter()
        .filter(|c| c.contains("/pulls/") && !c.contains("/pulls/7") && !c.contains("/commits/"))
        .collect();
    assert!(single_reads.is_empty(), "{single_reads:?}");
    assert!(
        !lines
            .iter()
            .any(|c| c.contains("/actions/runs/4242/artifacts")),
        "the run's artifact names are not read: {lines:?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|c| c.contains(&format!("/commits/{X}/pulls")))
            .count(),
        1
    );
    gh.writes_not_checked("the test counts the reads the apply run makes");
}
