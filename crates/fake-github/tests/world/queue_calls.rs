//! The merge queue's calls (council-github's `git.rs`) over HTTP against the fake:
//! refs with GitHub's answers told apart, `POST /merges`, a commit with who made it, the
//! checks on a commit, a base's ruleset rules, the open pull requests into a base, an
//! issue's timeline, and GitHub's clock.

use council_github::ApiError;
use council_github::git::{Merged, RefWrite};

use super::client;
use council_fake_github::fake_github::FakeGitHub;
use council_fake_github::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};

const QUEUE: &str = "council/queue/master";

#[tokio::test(flavor = "multi_thread")]
async fn refs_are_created_moved_only_forward_and_deleted_with_githubs_answers() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the client's answers to ref writes");
    let base = gh.commit_on("master", &[("a.txt", "a\n")], "a");
    let next = gh.commit_on("master", &[("b.txt", "b\n")], "b");
    let release = client(&gh, RELEASE_TOKEN);

    assert_eq!(release.branch_head(QUEUE).await.unwrap(), None);
    assert_eq!(
        release.create_branch(QUEUE, &base).await.unwrap(),
        RefWrite::Done
    );
    assert_eq!(
        release.branch_head(QUEUE).await.unwrap().as_deref(),
        Some(base.as_str())
    );
    assert_eq!(
        release.create_branch(QUEUE, &next).await.unwrap(),
        RefWrite::Exists
    );
    // Forward: fine; backward without force: GitHub's 422, left to the caller.
    assert_eq!(
        release.move_branch(QUEUE, &next, false).await.unwrap(),
        RefWrite::Done
    );
    let back = release.move_branch(QUEUE, &base, false).await.unwrap_err();
    assert!(
        matches!(&back, ApiError::Rejected { status: 422, message, .. }
            if message == "Update is not a fast forward"),
        "{back}"
    );
    assert_eq!(
        release.move_branch(QUEUE, &base, true).await.unwrap(),
        RefWrite::Done
    );
    assert_eq!(
        release
            .move_branch("council/queue/none", &base, true)
            .await
            .unwrap(),
        RefWrite::Missing
    );
    let listed = release.branches_starting("council/").await.unwrap();
    assert_eq!(listed, [(QUEUE.to_string(), base.clone())]);
    assert_eq!(release.delete_branch(QUEUE).await.unwrap(), RefWrite::Done);
    assert_eq!(
        release.delete_branch(QUEUE).await.unwrap(),
        RefWrite::Missing
    );
    // The workflow token (contents: read) may not write refs.
    let refused = client(&gh, WORKFLOW_TOKEN)
        .create_branch(QUEUE, &base)
        .await
        .unwrap_err();
    assert!(refused.is_forbidden(), "{refused}");
    // Every answer is dated by GitHub's clock (the fake's world clock).
    let said = release.server_time().unwrap();
    let clock = council_fake_github::routes::lock(&gh.world).now();
    assert_eq!(said.format("%Y-%m-%dT%H:%M:%SZ").to_string(), clock);
}

#[tokio::test(flavor = "multi_thread")]
async fn merges_answer_a_commit_nothing_or_a_conflict_and_say_who_made_them() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("it checks the client's answers to merges");
    let base = gh.commit_on("master", &[("a.txt", "a\n")], "a");
    gh.pr(1).commit(&[("one.txt", "one\n")], "one");
    gh.pr(2).commit(&[("a.txt", "changed by two\n")], "two");
    gh.commit_on(
        "master",
        &[("a.txt", "changed on the base\n")],
        "base moves",
    );
    let release = client(&gh, RELEASE_TOKEN);
    release.create_branch(QUEUE, &base).await.unwrap();

    let h1 = gh.pr(1).head_sha();
    let Merged::Commit(merge) = release
        .merge_into(QUEUE, &h1, "Merge #1 into master (merge queue)\n\nbody\n")
        .await
        .unwrap()
    else {
        panic!("a merge commit");
    };
    assert_eq!(
        release.merge_into(QUEUE, &h1, "again").await.unwrap(),
        Merged::NothingToMerge
    );
    let info = release.commit_info(&merge).await.unwrap();
    assert_eq!(info.parents, [base.clone(), h1.clone()]);
    assert!(
        info.message
            .starts_with("Merge #1 into master (merge queue)")
    );
    assert_eq!(info.author_login.as_deref(), Some(RELEASE_LOGIN));
    assert_eq!(info.committer_login.as_deref(), Some("web-flow"));
    assert!(info.verified);
    assert_eq!(info.made_by(), Some(RELEASE_LOGIN));
    assert!(!info.committed_at.is_empty());
    // A pushed commit is not verified: nobody GitHub vouches for made it.
    let pushed = release.commit_info(&h1).await.unwrap();
    assert_eq!(pushed.made_by(), None);

    // #2 changed a.txt, which the base changed too: a conflict on the moved base.
    release
        .move_branch(QUEUE, &gh.branch_head("master").unwrap(), true)
        .await
        .unwrap();
    assert_eq!(
        release
            .merge_into(QUEUE, &gh.pr(2).head_sha(), "m")
            .await
            .unwrap(),
        Merged::Conflict
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn checks_rules_pull_requests_and_timelines_are_read() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("reads only");
    gh.commit_on("master", &[("a.txt", "a\n")], "a");
    gh.protect("master")
        .named("main rules")
        .linear_history()
        .bypass(RELEASE_LOGIN);
    gh.pr(3).base("master").commit(&[("x.txt", "x\n")], "x");
    gh.pr(3).label("council:queued");
    gh.pr(3).commit(&[("x.txt", "x again\n")], "pushed after");
    gh.pr(4).base("develop");
    let head = gh.pr(3).head_sha();
    gh.commit(&head)
        .check_run("ci", "completed", Some("success"))
        .status("lint", "pending");
    let api = client(&gh, WORKFLOW_TOKEN);

    let checks = api.commit_checks(&head).await.unwrap();
    assert!(checks.complete);
    assert_eq!(checks.runs.len(), 1);
    assert_eq!(checks.runs[0].name, "ci");
    assert_eq!(checks.runs[0].conclusion.as_deref(), Some("success"));
    assert_eq!(checks.statuses[0].context, "lint");
    assert_eq!(checks.statuses[0].state, "pending");

    let rules = api.branch_rules("master").await.unwrap();
    let linear = rules
        .iter()
        .find(|r| r.kind == "required_linear_history")
        .unwrap();
    let id = linear.ruleset_id.unwrap();
    assert_eq!(api.ruleset_name(id).await.as_deref(), Some("main rules"));
    assert!(api.branch_rules("develop").await.unwrap().is_empty());

    for base in [Some("master"), None] {
        let open: Vec<u64> = api
            .open_pulls_labelled("council:queued", base)
            .await
            .unwrap()
            .iter()
            .filter_map(|p| p["number"].as_u64())
            .collect();
        assert_eq!(open, [3], "{base:?}");
    }

    gh.seed(3, "someone", "a comment, listed where it was made");
    let timeline = api.timeline(3).await.unwrap();
    assert!(timeline.complete);
    let events: Vec<&str> = timeline.items.iter().map(|i| i.event.as_str()).collect();
    assert_eq!(events, ["committed", "labeled", "committed", "commented"]);
    assert_eq!(timeline.items[1].label.as_deref(), Some("council:queued"));
    assert!(timeline.items.iter().all(|i| i.at.is_some()));
}

/// Anyone who may comment adds to a pull request's timeline, which GitHub lists oldest
/// first: the client reads its newest ten pages (the first says how many there are), so
/// 1,050 comments after the queue label cost eleven requests and hide nothing newer.
#[tokio::test(flavor = "multi_thread")]
async fn a_long_timeline_is_read_from_its_newest_pages() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("reads only");
    gh.pr(3).base("master").commit(&[("x.txt", "x\n")], "x");
    gh.pr(3).label("council:queued");
    for n in 0..1_050 {
        gh.seed(3, "someone", &format!("comment {n}"));
    }
    gh.pr(3).commit(&[("x.txt", "pushed\n")], "pushed after");
    gh.pr(4).base("master").label("council:queued");
    let api = client(&gh, WORKFLOW_TOKEN);
    let before = gh.requests().await.len();

    let timeline = api.timeline(3).await.unwrap();
    assert!(!timeline.complete);
    // 1,053 items on 11 pages: the first is read, then pages 2 to 11.
    assert_eq!(timeline.items.len(), 953);
    assert!(timeline.items.iter().all(|i| i.event != "labeled"));
    assert_eq!(timeline.items.last().unwrap().event, "committed");
    let reads = gh.requests().await.len() - before;
    assert_eq!(reads, 11);

    // A short one is read whole, in one request.
    let before = gh.requests().await.len();
    let short = api.timeline(4).await.unwrap();
    assert!(short.complete);
    assert_eq!(gh.requests().await.len() - before, 1);
}

/// More than 1,000 open pull requests (a busy repository, or forks opened by anyone):
/// the labelled ones past the list's first ten pages are found through the issue list
/// by the label, each read on its own; one that targets another base is left out.
#[tokio::test(flavor = "multi_thread")]
async fn labelled_pull_requests_are_found_past_a_thousand_open_ones() {
    let gh = FakeGitHub::start().await;
    gh.writes_not_checked("reads only");
    for n in 1..=1_005 {
        gh.pr(n).base("master");
    }
    gh.pr(2).label("council:queued");
    gh.pr(1_004).label("Council:Queued");
    gh.pr(1_003).base("develop").label("council:queued");
    gh.pr(1_005).label("bug");
    let api = client(&gh, WORKFLOW_TOKEN);
    let numbers = |list: Vec<serde_json::Value>| -> Vec<u64> {
        list.iter().filter_map(|p| p["number"].as_u64()).collect()
    };

    let before = gh.requests().await.len();
    let into = api
        .open_pulls_labelled("council:queued", Some("master"))
        .await
        .unwrap();
    assert_eq!(numbers(into), [2, 1_004]);
    // Ten pages of the list, one of the issues, and the two labelled pull requests
    // past the list read on their own (the issue list does not say their base).
    assert_eq!(gh.requests().await.len() - before, 13);

    let any = api
        .open_pulls_labelled("council:queued", None)
        .await
        .unwrap();
    assert_eq!(numbers(any), [2, 1_003, 1_004]);
}
