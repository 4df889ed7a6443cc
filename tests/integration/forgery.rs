//! A ledger nobody can forge: each way of rewriting the stored record that worked
//! against an earlier version, now detected or harmless, over HTTP.

use council_protocol::audit::chain::seal;
use council_protocol::audit::stored::{Links, MARKER, Stored, parse, render};
use serde_json::{Map, Value, json};

use crate::support::artifacts::{self, Artifact};
use crate::support::fake_github::FakeGitHub;
use crate::support::faults::Fault;
use crate::support::{Council, Run, fixture, timeline};

const KEY: &str = "ledger-key";

fn guard(gh: &FakeGitHub, run_id: &str) -> Council {
    Council::action()
        .api(&gh.uri())
        .env("GITHUB_RUN_ID", run_id)
        .event("pull_request", fixture("pull_request.opened"))
}

/// The stored object of the one ledger comment.
fn stored(gh: &FakeGitHub) -> Stored {
    let bodies = gh.comment_bodies();
    let body = bodies
        .iter()
        .find(|b| b.starts_with(MARKER))
        .expect("a ledger comment");
    parse(body).expect("it parses")
}

/// Rewrites the ledger comment's stored object.
fn rewrite(gh: &FakeGitHub, change: impl FnOnce(&mut Value)) {
    let mut value = serde_json::to_value(stored(gh)).unwrap();
    change(&mut value);
    let forged: Stored = serde_json::from_value(value).unwrap();
    let body = render(&forged, &Links::default());
    gh.edit(|w| {
        let comment = w
            .comments
            .iter_mut()
            .find(|c| c["body"].as_str().is_some_and(|b| b.starts_with(MARKER)))
            .unwrap();
        comment["body"] = body.into();
    });
}

/// What a forger without the key can do: edit entries, then hash the chain again.
fn reseal_without_key(stored: &mut Value) {
    let timeline = stored["context"]["timeline"].as_array_mut().unwrap();
    let mut maps: Vec<Map<String, Value>> = timeline
        .iter()
        .map(|e| e.as_object().unwrap().clone())
        .collect();
    seal(&mut maps, 0, None).unwrap();
    *timeline = maps.into_iter().map(Value::Object).collect();
}

fn actions(run: &Run) -> Vec<String> {
    timeline(&run.audit(2), &["run_id", "action"])
}

fn warnings(run: &Run) -> Vec<&str> {
    run.annotations()
        .into_iter()
        .filter(|a| a.starts_with("::warning"))
        .collect()
}

fn verify(run: &Run, key: Option<&str>) -> i32 {
    let file = run.workspace.path().join("out/audit/PR-2.json");
    let mut args = vec!["verify".to_string(), file.display().to_string()];
    if let Some(k) = key {
        args.extend(["--hmac-key".to_string(), k.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Council::cli().args(&args).run_blocking().code
}

#[tokio::test(flavor = "multi_thread")]
async fn forged_state_and_gates_are_recomputed_from_the_timeline() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    guard(&gh, "1").run().await.assert_code(1);
    rewrite(&gh, |s| {
        s["context"]["state"] = json!({"guard_status": "PASS", "review_status": "APPROVED", "release_status": "MERGED"});
        s["context"]["gates"]["naming_convention"] = "PASS".into();
        s["context"]["gates"]["doc_coverage"] = "PASS".into();
    });
    let run = guard(&gh, "2").run().await;
    run.assert_code(1);
    let audit = run.audit(2);
    assert_eq!(
        audit["state"],
        json!({"guard_status": "FAIL", "review_status": "PENDING", "release_status": "PENDING"})
    );
    assert_eq!(audit["gates"]["naming_convention"], "FAIL");
    assert_eq!(audit["gates"]["doc_coverage"], Value::Null);
    assert_eq!(run.output("review-status"), "PENDING");
    let healed = stored(&gh);
    assert_eq!(
        healed.context.state,
        serde_json::from_value(audit["state"].clone()).unwrap()
    );
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_a_key_entries_edited_and_resealed_are_not_adopted_and_the_chain_restarts_on_record() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    guard(&gh, "1")
        .input("hmac-key", KEY)
        .run()
        .await
        .assert_code(1);
    let genuine_head = stored(&gh).context.timeline[1].hash.clone();
    rewrite(&gh, |s| {
        s["context"]["timeline"][0]["result"] = "PASS".into();
        s["context"]["timeline"][1]["result"] = "PASS".into();
        reseal_without_key(s);
    });
    let forged_head = stored(&gh).context.timeline[1].hash.clone();
    assert_ne!(forged_head, genuine_head);
    let run = guard(&gh, "2").input("hmac-key", KEY).run().await;
    run.assert_code(1);
    let warned = warnings(&run).join("\n");
    assert!(warned.contains("is not adopted"), "{warned}");
    assert!(
        warned.contains("entry 0"),
        "names the first bad entry: {warned}"
    );
    assert_eq!(
        actions(&run),
        [
            "2 action:ledger-reset",
            "2 check:branch-name",
            "2 check:target-branch"
        ]
    );
    let reset = &run.audit(2)["timeline"][0];
    assert!(
        reset["message"].as_str().unwrap().contains(&forged_head),
        "the reset records the rejected head: {reset}"
    );
    assert_eq!(reset["agent"], "agent_guard");
    assert_eq!(
        verify(&run, Some(KEY)),
        0,
        "the new chain is signed and whole"
    );
    assert_eq!(
        stored(&gh).context.timeline.len(),
        3,
        "the comment now holds the new chain"
    );
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_comment_gives_way_to_the_newest_artifact_that_verifies() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let first = guard(&gh, "1").input("hmac-key", KEY).run().await;
    first.assert_code(1);
    let genuine = first.audit(2);
    rewrite(&gh, |s| {
        s["context"]["timeline"][0]["message"] = "nothing to see".into();
        reseal_without_key(s);
    });
    let mut tampered = genuine.clone();
    tampered["timeline"][1]["result"] = "PASS".into();
    artifacts::serve(
        &gh,
        2,
        &[
            Artifact::own(10, 1, genuine),
            // Newer, but edited: skipped for the older one that verifies.
            Artifact::own(11, 1, tampered),
        ],
    )
    .await;
    let run = guard(&gh, "2").input("hmac-key", KEY).run().await;
    run.assert_code(1);
    assert_eq!(
        actions(&run),
        [
            "1 check:branch-name",
            "1 check:target-branch",
            "2 check:branch-name",
            "2 check:target-branch"
        ],
        "continued from the genuine artifact, no reset"
    );
    let warned = warnings(&run).join("\n");
    assert!(warned.contains("artifact 11"), "{warned}");
    assert_eq!(verify(&run, Some(KEY)), 0);
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_or_emptied_comment_does_not_restart_the_chain_silently() {
    for emptied in [false, true] {
        let gh = FakeGitHub::start().await;
        gh.policy("master", None).await;
        let first = guard(&gh, "1").run().await;
        first.assert_code(1);
        let audit = first.audit(2);
        gh.edit(|w| {
            if emptied {
                w.comments[0]["body"] = format!("{MARKER}\n(cleared)").into();
            } else {
                w.comments.clear();
            }
        });
        // With the earlier artifact: the chain goes on.
        artifacts::serve(&gh, 2, &[Artifact::own(5, 1, audit)]).await;
        let run = guard(&gh, "2").run().await;
        run.assert_code(1);
        assert_eq!(actions(&run).len(), 4, "emptied: {emptied}");
        assert_eq!(actions(&run)[0], "1 check:branch-name");
        assert_eq!(stored(&gh).context.timeline.len(), 4);
        // A deleted comment is posted again; an emptied one is edited.
        let second = match emptied {
            false => "POST /issues/2/comments",
            true => "PATCH /issues/comments/5001",
        };
        gh.expect_writes(&["POST /issues/2/comments", second]);
    }
    // Emptied, and no artifact to go on from: a recorded reset.
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    guard(&gh, "1").run().await.assert_code(1);
    gh.edit(|w| w.comments[0]["body"] = format!("{MARKER}\n(cleared)").into());
    let run = guard(&gh, "2").run().await;
    run.assert_code(1);
    assert_eq!(actions(&run)[0], "2 action:ledger-reset");
    assert!(warnings(&run).join("\n").contains("no machine block"));
    gh.expect_writes(&["POST /issues/2/comments", "PATCH /issues/comments/5001"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_identity_adopts_and_edits_no_comment() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    guard(&gh, "1").run().await.assert_code(1);
    // A bot's comment that looks like ours; earlier versions took any bot's for ours.
    let planted = gh.comment_bodies()[0].clone();
    gh.seed(2, "evil-app[bot]", &planted);
    let before = gh.comment_bodies();
    // GraphQL is down and `/user` is 403 for an installation token.
    gh.fail_next("POST", "/graphql", 5, Fault::bad_gateway());
    let run = guard(&gh, "2").run().await;
    run.assert_code(1);
    assert_eq!(
        gh.comment_bodies(),
        before,
        "no comment was edited or added"
    );
    let warned = warnings(&run).join("\n");
    assert!(
        warned.contains("login could not be established"),
        "{warned}"
    );
    assert_eq!(
        actions(&run),
        ["2 check:branch-name", "2 check:target-branch"],
        "the audit file still holds this run's decision"
    );
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn dropping_the_newest_entries_is_caught_by_the_recorded_head() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    guard(&gh, "1")
        .input("hmac-key", KEY)
        .run()
        .await
        .assert_code(1);
    guard(&gh, "2")
        .input("hmac-key", KEY)
        .run()
        .await
        .assert_code(1);
    // The chain of the first two entries still verifies on its own.
    rewrite(&gh, |s| {
        s["context"]["timeline"].as_array_mut().unwrap().truncate(2);
    });
    let run = guard(&gh, "3").input("hmac-key", KEY).run().await;
    run.assert_code(1);
    let warned = warnings(&run).join("\n");
    assert!(
        warned.contains("does not match its entries (2,"),
        "{warned}"
    );
    assert_eq!(actions(&run)[0], "3 action:ledger-reset");
    gh.expect_writes(&[
        "POST /issues/2/comments",
        "PATCH /issues/comments/5001",
        "PATCH /issues/comments/5001",
    ]);
}
