//! The commit graph over HTTP: commits and refs, merges, protections, pull requests
//! merged when their base comes to contain them, files and comparisons derived from the
//! graph, and deep histories.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message

mod support;

use council_fake_github::git::{CommitSpec, MergeOutcome};
use council_fake_github::graph::Blob;
use council_fake_github::tokens::{Access, Scope};
use serde_json::{Value, json};
use support::*;

const NO_SHA: &str = "0000000000000000000000000000000000000000";

#[tokio::test]
async fn commits_are_served_with_parents_trees_and_who_made_them() {
    let gh = world().await;
    let root = gh.branch_head("master").unwrap();
    let a = gh.commit_on("master", &[("src/a.rs", "fn a() {}\n")], "Add a");
    let b = gh
        .push_to("master")
        .file("src/a.rs", "fn a() { b() }\n")
        .file("README.md", "hi\n")
        .by("alice")
        .message("Edit a")
        .done();

    let git_ref = ok(&gh, "/git/ref/heads/master");
    assert_eq!(git_ref["ref"], "refs/heads/master");
    assert_eq!(git_ref["object"]["sha"], b.as_str());
    assert_eq!(git_ref["object"]["type"], "commit");

    let commit = ok(&gh, &format!("/commits/{b}"));
    assert_eq!(shas(&commit["parents"]), std::slice::from_ref(&a));
    assert_eq!(commit["commit"]["message"], "Edit a");
    assert_eq!(commit["author"]["login"], "alice");
    assert_eq!(commit["committer"]["login"], "alice");
    assert_eq!(commit["commit"]["verification"]["verified"], false);
    assert_eq!(commit["commit"]["verification"]["reason"], "unsigned");
    assert_eq!(filenames(&commit["files"]), ["README.md", "src/a.rs"]);
    assert_eq!(commit["files"][0]["status"], "added");
    assert_eq!(
        commit["files"][1]["patch"],
        "@@ -1 +1 @@\n-fn a() {}\n+fn a() { b() }"
    );
    assert_eq!(
        commit["stats"],
        json!({"additions": 2, "deletions": 1, "total": 3})
    );
    assert_eq!(ok(&gh, "/commits/master")["sha"], b.as_str(), "by branch");

    let object = ok(&gh, &format!("/git/commits/{a}"));
    assert_eq!(shas(&object["parents"]), std::slice::from_ref(&root));
    assert_eq!(object["message"], "Add a");
    assert_eq!(object["verification"]["verified"], false);
    assert!(
        object["tree"]["sha"]
            .as_str()
            .is_some_and(|s| s.len() == 40)
    );

    // The branch's tree answers the contents API; the shortcut root became a commit.
    let (status, _) = get(&gh, "/contents/README.md?ref=master");
    assert_eq!(status, 200);
    assert_eq!(
        gh.tree_at("master").get("src/a.rs"),
        Some(&Blob::from("fn a() { b() }\n"))
    );
    assert!(gh.commit_state(&root).unwrap().parents.is_empty());
    assert!(gh.is_ancestor(&root, "master"));

    let (status, body) = get(&gh, &format!("/commits/{NO_SHA}"));
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "No commit found for SHA: 0000000000000000000000000000000000000000"
        )
    );
    assert_eq!(get(&gh, "/git/commits/master").0, 404, "a SHA only");
    assert_eq!(get(&gh, &format!("/git/commits/{NO_SHA}")).0, 404);

    let history: Vec<(Option<String>, String)> = gh
        .ref_history("master")
        .into_iter()
        .map(|w| (w.sha, w.login))
        .collect();
    assert_eq!(
        history,
        [(Some(a), "octocat".into()), (Some(b), "alice".into())]
    );
}

#[tokio::test]
async fn ref_writes_follow_githubs_rules_and_record_their_token() {
    let gh = world().await;
    let a = gh.commit_on("master", &[("a", "1\n")], "a");
    let t = gh.commit_on("topic", &[("t", "1\n")], "t");
    let patch = |sha: &str, force: Value| {
        http(
            &gh,
            "PATCH",
            "/git/refs/heads/master",
            RELEASE_TOKEN,
            json!({"sha": sha, "force": force}),
        )
    };

    let (status, body) = patch(&t, Value::Null);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["object"]["sha"], t.as_str());
    let (status, body) = patch(&a, json!(false));
    assert_eq!(
        (status, message(&body)),
        (422, "Update is not a fast forward")
    );
    assert_eq!(gh.branch_head("master"), Some(t.clone()));
    assert_eq!(patch(&a, json!(true)).0, 200, "forced");
    assert_eq!(gh.branch_head("master"), Some(a.clone()));
    let (status, body) = patch(NO_SHA, Value::Null);
    assert_eq!((status, message(&body)), (422, "Object does not exist"));
    let (status, body) = patch(&t, json!("yes"));
    assert_eq!((status, message(&body)), (422, "Validation Failed"));
    let (status, body) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/master",
        RELEASE_TOKEN,
        json!({}),
    );
    assert_eq!(
        (status, message(&body)),
        (422, "Invalid request.\n\n\"sha\" wasn't supplied.")
    );
    let (status, body) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/nope",
        RELEASE_TOKEN,
        json!({"sha": t}),
    );
    assert_eq!((status, message(&body)), (422, "Reference does not exist"));
    let (status, body) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/master",
        WORKFLOW_TOKEN,
        json!({"sha": t}),
    );
    assert_eq!(
        (status, message(&body)),
        (403, "Resource not accessible by integration"),
        "contents: write is needed"
    );

    let create = |git_ref: &str, sha: &str| {
        http(
            &gh,
            "POST",
            "/git/refs",
            RELEASE_TOKEN,
            json!({"ref": git_ref, "sha": sha}),
        )
    };
    let (status, body) = create("refs/heads/council/queue/master", &a);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["ref"], "refs/heads/council/queue/master");
    let (status, body) = create("refs/heads/council/queue/master", &t);
    assert_eq!((status, message(&body)), (422, "Reference already exists"));
    let (status, body) = create("refs/heads/fresh", NO_SHA);
    assert_eq!((status, message(&body)), (422, "Object does not exist"));
    assert_eq!(create("heads/fresh", &a).0, 422, "not fully qualified");
    assert_eq!(create("refs/fresh", &a).0, 422, "one slash");
    let (status, body) = http(&gh, "POST", "/git/refs", RELEASE_TOKEN, json!({"sha": a}));
    assert_eq!(
        (status, message(&body)),
        (422, "Invalid request.\n\n\"ref\" wasn't supplied.")
    );

    let matching = ok(&gh, "/git/matching-refs/heads/council/queue/");
    assert_eq!(matching.as_array().unwrap().len(), 1);
    assert_eq!(matching[0]["object"]["sha"], a.as_str());
    let all = ok(&gh, "/git/matching-refs/heads");
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "refs/heads/council/queue/master",
            "refs/heads/master",
            "refs/heads/topic"
        ]
    );
    assert_eq!(ok(&gh, "/git/matching-refs/tags/v1"), json!([]));
    assert_eq!(get(&gh, "/git/ref/heads/nope").0, 404);
    assert_eq!(get(&gh, "/git/ref/tags/v1").0, 404);

    let delete = |git_ref: &str| http(&gh, "DELETE", git_ref, RELEASE_TOKEN, Value::Null);
    assert_eq!(delete("/git/refs/heads/council/queue/master").0, 204);
    let (status, body) = delete("/git/refs/heads/council/queue/master");
    assert_eq!((status, message(&body)), (422, "Reference does not exist"));
    assert_eq!(
        delete("/git/refs/heads/master").0,
        422,
        "the default branch"
    );
    assert_eq!(gh.branch_head("council/queue/master"), None);

    // Which token wrote each ref.
    let writes: Vec<(Option<String>, String, Option<String>, bool)> = gh
        .ref_history("master")
        .into_iter()
        .map(|w| (w.sha, w.login, w.token, w.forced))
        .collect();
    let release = Some(RELEASE_TOKEN.to_string());
    assert_eq!(
        writes,
        [
            (Some(a.clone()), "octocat".into(), None, false),
            (Some(t), RELEASE_LOGIN.into(), release.clone(), false),
            (Some(a.clone()), RELEASE_LOGIN.into(), release.clone(), true),
        ]
    );
    let queue: Vec<Option<String>> = gh
        .ref_history("council/queue/master")
        .into_iter()
        .map(|w| w.sha)
        .collect();
    assert_eq!(queue, [Some(a), None], "created, then deleted");
}

#[tokio::test]
async fn merges_make_verified_commits_by_the_token_and_move_the_base() {
    let gh = world().await;
    let base = gh.commit_on("master", &[("a.rs", "a\n")], "a");
    let feature = gh.commit_on("feature", &[("b.rs", "b\n")], "b");
    let moved = gh.commit_on("master", &[("c.rs", "c\n")], "c");
    let merge = |base: &str, head: &str, token: &str| {
        http(
            &gh,
            "POST",
            "/merges",
            token,
            json!({"base": base, "head": head}),
        )
    };

    let (status, merged) = merge("master", "feature", RELEASE_TOKEN);
    assert_eq!(status, 201, "{merged}");
    let sha = merged["sha"].as_str().unwrap().to_string();
    assert_eq!(shas(&merged["parents"]), [moved.clone(), feature.clone()]);
    assert_eq!(merged["commit"]["message"], "Merge feature into master");
    assert_eq!(merged["author"]["login"], RELEASE_LOGIN);
    assert_eq!(merged["committer"]["login"], "web-flow");
    assert_eq!(merged["commit"]["committer"]["name"], "GitHub");
    assert_eq!(merged["commit"]["verification"]["verified"], true);
    assert_eq!(merged["commit"]["verification"]["reason"], "valid");
    assert_eq!(
        filenames(&merged["files"]),
        ["b.rs"],
        "against the first parent"
    );
    assert_eq!(gh.branch_head("master"), Some(sha.clone()));
    let tree: Vec<String> = gh.tree_at("master").into_keys().collect();
    assert_eq!(tree, ["a.rs", "b.rs", "c.rs"]);
    assert!(gh.is_ancestor(&base, &sha));
    assert_eq!(
        gh.ref_history("master").last().unwrap().token.as_deref(),
        Some(RELEASE_TOKEN)
    );

    // Nothing left to merge: 204, the base stays.
    let (status, body) = merge("master", "feature", RELEASE_TOKEN);
    assert_eq!((status, body), (204, Value::Null));
    assert_eq!(merge("master", &feature, RELEASE_TOKEN).0, 204, "by SHA");
    assert_eq!(gh.branch_head("master"), Some(sha.clone()));

    // The same path changed differently on both sides.
    gh.commit_on("clash", &[("a.rs", "theirs\n")], "theirs");
    gh.commit_on("master", &[("a.rs", "ours\n")], "ours");
    let before = gh.branch_head("master");
    let (status, body) = merge("master", "clash", RELEASE_TOKEN);
    assert_eq!((status, message(&body)), (409, "Merge conflict"));
    assert_eq!(gh.branch_head("master"), before, "nothing moved");

    let (status, body) = merge("nope", "feature", RELEASE_TOKEN);
    assert_eq!((status, message(&body)), (404, "Base does not exist"));
    let (status, body) = merge("master", "nope", RELEASE_TOKEN);
    assert_eq!((status, message(&body)), (404, "Head does not exist"));
    assert_eq!(merge("master", NO_SHA, RELEASE_TOKEN).0, 404);
    assert_eq!(merge("master", "feature", WORKFLOW_TOKEN).0, 403);
    let (status, body) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "master"}),
    );
    assert_eq!(
        (status, message(&body)),
        (422, "Invalid request.\n\n\"head\" wasn't supplied.")
    );
    let (status, _) = gh.edit(|w| {
        let a = council_fake_github::routes::request(
            w,
            "POST",
            "/repos/Codertocat/Hello-World/merges",
            Some(RELEASE_TOKEN),
            &json!("not an object"),
        );
        (a.status, ())
    });
    assert_eq!(status, 422);

    gh.commit_on("docs", &[("d.md", "d\n")], "d");
    let (status, merged) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "master", "head": "docs", "commit_message": "Queue: docs"}),
    );
    assert_eq!(status, 201);
    assert_eq!(merged["commit"]["message"], "Queue: docs");
}

#[tokio::test]
async fn protections_refuse_ref_writes_by_anyone_not_on_the_bypass_list() {
    let gh = world().await;
    gh.token("ghs_other")
        .login("other[bot]")
        .grant(Scope::Contents, Access::Write);
    let a = gh.commit_on("master", &[("a", "1\n")], "a");
    let b = gh.commit_on("next", &[("b", "1\n")], "b");
    gh.protect("master").bypass(RELEASE_LOGIN);
    let update = |branch: &str, sha: &str, token: &str, force: bool| {
        http(
            &gh,
            "PATCH",
            &format!("/git/refs/heads/{branch}"),
            token,
            json!({"sha": sha, "force": force}),
        )
    };

    let (status, body) = update("master", &b, "ghs_other", false);
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "Repository rule violations found\n\nCannot update this protected ref."
        )
    );
    let (status, body) = http(
        &gh,
        "POST",
        "/merges",
        "ghs_other",
        json!({"base": "master", "head": "next"}),
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        gh.branch_head("master"),
        Some(a.clone()),
        "refused: not moved"
    );
    assert_eq!(
        update("master", &b, RELEASE_TOKEN, false).0,
        200,
        "on the bypass list"
    );

    // Classic protection words it as GH006 does.
    gh.commit_on("develop", &[("d", "1\n")], "d");
    gh.protect("develop").classic();
    let (status, body) = update("develop", &b, RELEASE_TOKEN, true);
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "Protected branch update failed for refs/heads/develop.\n\nCannot update this protected \
             ref.\n\nCannot force-push to this branch"
        )
    );

    // Linear history: no merge commit lands, a plain fast-forward does.
    let linear = gh.commit_on("linear", &[("l", "1\n")], "l");
    gh.protect("lin*").allow_updates().linear_history();
    let (status, body) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "linear", "head": "develop"}),
    );
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "Repository rule violations found\n\nThis branch must not contain merge commits."
        )
    );
    assert_eq!(gh.branch_head("linear"), Some(linear.clone()));
    let step = gh.edit(|w| {
        w.commit_with(
            Some(&linear),
            &CommitSpec {
                changes: vec![("l".into(), Some(Blob::from("2\n")))],
                ..CommitSpec::default()
            },
            "octocat",
        )
    });
    assert_eq!(update("linear", &step, "ghs_other", false).0, 200);
    let (status, body) = update("linear", &a, "ghs_other", true);
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "Repository rule violations found\n\nCannot force-push to this branch"
        )
    );

    // Deletion.
    gh.commit_on("release/1", &[("r", "1\n")], "r");
    gh.protect("release/**").named("releases");
    let (status, body) = http(
        &gh,
        "DELETE",
        "/git/refs/heads/release/1",
        "ghs_other",
        Value::Null,
    );
    assert_eq!(
        (status, message(&body)),
        (
            422,
            "Repository rule violations found\n\nCannot delete this protected ref."
        )
    );
    assert!(gh.branch_head("release/1").is_some());
}

#[tokio::test]
async fn pull_requests_are_merged_when_their_base_comes_to_contain_their_head() {
    let gh = world().await;
    gh.commit_on("master", &[("README.md", "hello\n")], "init");
    gh.pr(7)
        .commit(&[("src/x.rs", "x\n")], "x")
        .commit(&[("docs/x.md", "x\n")], "x docs");
    gh.pr(8).commit(&[("src/y.rs", "y\n")], "y");
    gh.pr(9).commit(&[("src/z.rs", "z\n")], "z");
    let first_of_7 = shas(&ok(&gh, "/pulls/7/commits"))[0].clone();
    assert_eq!(ok(&gh, "/pulls/7")["commits"], 2);
    assert_eq!(
        get(&gh, &format!("/commits/{first_of_7}/pulls")).1[0]["number"],
        7,
        "an open pull request is found by any of its commits"
    );

    // The queue's way: a branch at the base, the heads merged onto it, a fast-forward.
    let master = gh.branch_head("master").unwrap();
    let (status, _) = http(
        &gh,
        "POST",
        "/git/refs",
        RELEASE_TOKEN,
        json!({"ref": "refs/heads/council/queue/master", "sha": master}),
    );
    assert_eq!(status, 201);
    for head in ["feature/pr-7", "feature/pr-8"] {
        let (status, body) = http(
            &gh,
            "POST",
            "/merges",
            RELEASE_TOKEN,
            json!({"base": "council/queue/master", "head": head}),
        );
        assert_eq!(status, 201, "{body}");
    }
    let tested = gh.branch_head("council/queue/master").unwrap();
    assert!(
        !gh.pr_state(7).merged,
        "a queue branch is no pull request's base"
    );
    let (status, _) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/master",
        RELEASE_TOKEN,
        json!({"sha": tested, "force": false}),
    );
    assert_eq!(status, 200);

    for n in [7, 8] {
        let pr = gh.pr_state(n);
        assert!(pr.merged && !pr.open, "#{n}");
        assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
        assert_eq!(pr.merge_commit_sha.as_deref(), Some(tested.as_str()));
        assert!(pr.merged_at.is_some() && pr.merged_at == pr.closed_at);
        let json = ok(&gh, &format!("/pulls/{n}"));
        assert_eq!(json["merged"], true);
        assert_eq!(json["merged_by"]["login"], RELEASE_LOGIN);
    }
    assert!(gh.pr_state(9).open, "its head is not in master");
    let numbers = |sha: &str| -> Vec<u64> {
        get(&gh, &format!("/commits/{sha}/pulls"))
            .1
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["number"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        numbers(&first_of_7),
        [7],
        "the merged pull request of its commit"
    );
    assert_eq!(numbers(&tested), [7, 8], "the merge commit of both");
    assert_eq!(
        shas(&ok(&gh, "/pulls/7/commits")).len(),
        2,
        "the commits it landed"
    );
    assert_eq!(ok(&gh, "/pulls/7/commits")[0]["sha"], first_of_7.as_str());
    assert_eq!(
        filenames(&ok(&gh, "/pulls/7/files")),
        ["docs/x.md", "src/x.rs"],
        "a merged pull request keeps its files"
    );

    // A scene's push that brings a head in merges it too, by the pusher.
    let head_9 = gh.pr(9).head_sha();
    assert_eq!(
        gh.merge("master", &head_9, "alice"),
        Ok(MergeOutcome::Merged(gh.branch_head("master").unwrap()))
    );
    assert_eq!(gh.pr_state(9).merged_by.as_deref(), Some("alice"));
}

#[tokio::test]
async fn a_pull_requests_files_and_comparisons_come_from_the_graph() {
    let gh = world().await;
    let lines = "1\n2\n3\n4\n5\n";
    let fork_point = gh.commit_on("master", &[("a.rs", lines)], "a");
    gh.pr(7)
        .commit(&[("a.rs", "1\ntwo\n3\n4\n5\n"), ("b.rs", "b\n")], "change");
    let head = gh.pr(7).head_sha();
    gh.commit_on("master", &[("c.rs", "c\n")], "master moves on");

    let files = ok(&gh, "/pulls/7/files");
    assert_eq!(
        filenames(&files),
        ["a.rs", "b.rs"],
        "from the merge base, not master"
    );
    assert_eq!(
        files[0]["patch"],
        "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5"
    );
    assert_eq!(
        (files[0]["additions"].clone(), files[0]["deletions"].clone()),
        (json!(1), json!(1))
    );

    let compare = ok(&gh, &format!("/compare/master...{head}"));
    assert_eq!(compare["status"], "diverged");
    assert_eq!(
        (compare["ahead_by"].clone(), compare["behind_by"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(compare["merge_base_commit"]["sha"], fork_point.as_str());
    assert_eq!(shas(&compare["commits"]), std::slice::from_ref(&head));
    assert_eq!(filenames(&compare["files"]), ["a.rs", "b.rs"]);
    let back = ok(&gh, &format!("/compare/{head}...master"));
    assert_eq!(filenames(&back["files"]), ["c.rs"]);
    assert_eq!(ok(&gh, "/compare/master...master")["status"], "identical");
    assert_eq!(
        ok(&gh, &format!("/compare/{fork_point}...master"))["status"],
        "ahead"
    );
    assert_eq!(
        ok(&gh, &format!("/compare/master...{fork_point}"))["status"],
        "behind"
    );

    let pull = ok(&gh, "/pulls/7");
    assert_eq!(
        (
            pull["changed_files"].clone(),
            pull["additions"].clone(),
            pull["deletions"].clone()
        ),
        (json!(2), json!(2), json!(1))
    );
    let (_, rollup) = http(
        &gh,
        "POST",
        "/graphql",
        WORKFLOW_TOKEN,
        json!({"operationName": "PullRequestRollup", "query": "query PullRequestRollup { x }",
               "variables": {"number": 7}}),
    );
    let pr = &rollup["data"]["repository"]["pullRequest"];
    assert_eq!(
        (
            pr["changedFiles"].clone(),
            pr["additions"].clone(),
            pr["deletions"].clone()
        ),
        (json!(2), json!(2), json!(1))
    );

    // GitHub's compare lists at most 300 files.
    let many: Vec<(String, String)> = (0..301)
        .map(|i| (format!("gen/{i:03}.rs"), format!("{i}\n")))
        .collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    gh.pr(8).commit(&many, "generated");
    let head_8 = gh.pr(8).head_sha();
    let compare = ok(&gh, &format!("/compare/master...{head_8}"));
    assert_eq!(compare["files"].as_array().unwrap().len(), 300);
    assert_eq!(ok(&gh, "/pulls/8")["changed_files"], 301);

    // A pull request of the shortcuts keeps its own files.
    gh.pr(9).files(&["src/old.rs"]);
    assert_eq!(filenames(&ok(&gh, "/pulls/9/files")), ["src/old.rs"]);
    assert_eq!(ok(&gh, "/pulls/9")["commits"], 1);
}

#[tokio::test]
async fn a_shortcut_pull_request_merges_with_its_files_applied() {
    let gh = world().await;
    gh.file("master", "README.md", "hello\n");
    gh.pr(5)
        .head("feature/old", "1111111111111111111111111111111111111111")
        .files(&["src/x.rs"]);
    let (status, body) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "master", "head": "feature/old"}),
    );
    assert_eq!(status, 201, "{body}");
    let tree = gh.tree_at("master");
    assert_eq!(tree.get("src/x.rs"), Some(&Blob::from("new line\n")));
    assert_eq!(tree.get("README.md"), Some(&Blob::from("hello\n")));
    assert!(gh.pr_state(5).merged, "master now contains its head");
    assert_eq!(filenames(&ok(&gh, "/pulls/5/files")), ["src/x.rs"]);
}

#[tokio::test]
async fn ten_thousand_commits_merge_and_fast_forward_quickly() {
    // Every ancestry question is O(depth): a quadratic walk over 10,000 commits would
    // not finish in a test's time. No timer: the test is the size.
    let gh = world().await;
    gh.edit(|w| {
        for i in 0..10_000 {
            let spec = CommitSpec {
                changes: vec![("counter".into(), Some(Blob::Text(format!("{i}\n"))))],
                message: format!("step {i}"),
                ..CommitSpec::default()
            };
            w.commit_on("master", &spec);
        }
    });
    let root = gh.ref_history("master")[0].sha.clone().unwrap();
    for i in 0..100 {
        gh.commit_on(
            &format!("topic/{i}"),
            &[(&format!("t/{i}") as &str, "t\n")],
            "t",
        );
        let (status, body) = http(
            &gh,
            "POST",
            "/merges",
            RELEASE_TOKEN,
            json!({"base": "master", "head": format!("topic/{i}")}),
        );
        assert_eq!(status, 201, "{body}");
        // The oldest commit is already in: a full walk, answered 204.
        let (status, _) = http(
            &gh,
            "POST",
            "/merges",
            RELEASE_TOKEN,
            json!({"base": "master", "head": root}),
        );
        assert_eq!(status, 204);
    }
    let head = gh.branch_head("master").unwrap();
    let (status, body) = http(
        &gh,
        "PATCH",
        "/git/refs/heads/topic/0",
        RELEASE_TOKEN,
        json!({"sha": head}),
    );
    assert_eq!(status, 200, "{body}");
    for _ in 0..1_000 {
        assert!(gh.is_ancestor(&root, &head));
    }
    assert_eq!(
        ok(&gh, &format!("/compare/{root}...master"))["ahead_by"],
        10_199
    );
}

#[tokio::test]
async fn hostile_refs_and_bodies_get_githubs_errors_never_a_panic() {
    let gh = world().await;
    let a = gh.commit_on("master", &[("a", "1\n")], "a");
    // A branch name with slashes and multi-byte text, percent-encoded or not.
    let (status, _) = http(
        &gh,
        "POST",
        "/git/refs",
        RELEASE_TOKEN,
        json!({"ref": "refs/heads/ü/😀", "sha": a}),
    );
    assert_eq!(status, 201);
    assert_eq!(
        ok(&gh, "/git/ref/heads/%C3%BC/%F0%9F%98%80")["object"]["sha"],
        a.as_str()
    );
    assert_eq!(ok(&gh, "/git/ref/heads/ü/😀")["ref"], "refs/heads/ü/😀");
    for (method, path, body) in [
        ("PATCH", "/git/refs/heads/", json!({"sha": a})),
        ("PATCH", "/git/refs/heads", json!({"sha": a})),
        ("PATCH", "/git/refs/heads/master", json!({"sha": 7})),
        ("PATCH", "/git/refs/heads/master", json!({"sha": "ZZZ"})),
        ("POST", "/git/refs", json!({"ref": 1, "sha": a})),
        (
            "POST",
            "/git/refs",
            json!({"ref": "refs/heads/x", "sha": "a".repeat(4_000)}),
        ),
        (
            "POST",
            "/merges",
            json!({"base": ["master"], "head": "master"}),
        ),
        ("DELETE", "/git/refs/heads/%00", Value::Null),
        ("DELETE", "/git/refs/tags/v1", Value::Null),
    ] {
        let (status, body) = http(&gh, method, path, RELEASE_TOKEN, body);
        assert_eq!(status, 422, "{method} {path}: {body}");
    }
    for path in [
        "/commits/%FF%FE",
        "/commits/ü",
        "/git/commits/%00",
        "/git/ref/heads/",
        "/compare/nope...master",
        "/pulls/999/commits",
    ] {
        let (status, body) = get(&gh, path);
        assert!(matches!(status, 404 | 422), "{path}: {status} {body}");
    }
    let not_json = gh.edit(|w| {
        let path = format!("/repos/{}/git/refs", w.repo);
        let answer = council_fake_github::routes::request(
            w,
            "POST",
            &path,
            Some(RELEASE_TOKEN),
            &Value::Null,
        );
        answer.status
    });
    assert_eq!(not_json, 400, "no body is no JSON");
    assert_eq!(gh.branch_head("master"), Some(a));

    // Two pull requests each the other's base: made into commits without a loop.
    let (x, y) = ("1".repeat(40), "2".repeat(40));
    gh.pr(20).head("cycle/x", &x);
    gh.pr(21).head("cycle/y", &y);
    gh.edit(|w| {
        w.pr_mut(20).unwrap().base_sha.clone_from(&y);
        w.pr_mut(21).unwrap().base_sha.clone_from(&x);
    });
    assert!(gh.commit_state(&x).is_some());
    let (status, body) = http(
        &gh,
        "POST",
        "/merges",
        RELEASE_TOKEN,
        json!({"base": "master", "head": "cycle/y"}),
    );
    assert!(matches!(status, 201 | 409), "{status} {body}");
}
