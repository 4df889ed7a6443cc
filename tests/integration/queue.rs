//! The merge queue end to end: the real binary driven by the events a workflow would
//! deliver, against the fake GitHub with a commit graph and a CI model. Each test checks
//! what SPEC "Merge queue" promises: what the base points to after each step and who
//! moved it, the queue branch and its commit's parents, the label, the comment, the exit
//! code, the outputs, the ledger entries, the CI runs (one per queue commit), and that no
//! queued pull request's own branch is ever written.

use council_fake_github::ci::{Ci, Condition};
use serde_json::Value;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::{RELEASE_LOGIN, RELEASE_TOKEN, WORKFLOW_TOKEN};
use crate::support::{Council, Run, timeline};

const BASE: &str = "master";
const QUEUE: &str = "council/queue/master";
const BUILD: &str = "council/queue-build/master";
const LABEL: &str = "council:queued";

/// A policy that lets `feature/**` into the base, asks for no label, and turns the
/// queue on with `extra` queue keys.
fn policy(extra: &str) -> String {
    format!(
        "branches:\n  rules:\n    - pattern: \"feature/**\"\n      targets: [{BASE}]\n\
         release:\n  require_label: \"\"\nqueue:\n  enabled: true\n{extra}"
    )
}

/// The base with a README and the policy, CI on the queue's branches and on pull
/// requests (one check `ci` of 10 minutes, red when a file holds BROKEN or both
/// `a.rs` and `b.rs` hold PAIR), the base protected with the release token on the bypass
/// list.
fn scene(gh: &FakeGitHub, queue_keys: &str) {
    gh.writes_not_checked("the queue's tests check refs, labels, comments and ledgers");
    gh.ci(ci());
    gh.commit_on(
        BASE,
        &[
            ("README.md", "hello\n"),
            (".github/council.yml", &policy(queue_keys)),
        ],
        "init",
    );
    gh.protect(BASE).bypass(RELEASE_LOGIN);
}

fn ci() -> Ci {
    let pair = |path: &str| Condition::FileContains {
        path: path.into(),
        text: "PAIR".into(),
    };
    Ci::on(&["council/queue/**"])
        .pull_requests()
        .checks(&[("ci", 10)])
        .red_when(vec![
            Condition::Contains("BROKEN".into()),
            Condition::All(vec![pair("a.rs"), pair("b.rs")]),
        ])
}

/// Pull request `n` with one commit writing `files`, its own CI finished green (or red).
fn pull(gh: &FakeGitHub, n: u64, files: &[(&str, &str)]) -> String {
    gh.pr(n).base(BASE).commit(files, &format!("change {n}"));
    gh.ci_tick();
    gh.pr(n).head_sha()
}

fn council(gh: &FakeGitHub) -> Council {
    Council::action().api(&gh.uri()).release_token()
}

/// The release event on a pull request's head (its own CI finished): release decides,
/// queues it, and the queue starts.
async fn release_on(gh: &FakeGitHub, n: u64) -> Run {
    let head = gh.pr(n).head_sha();
    council(gh)
        .event("check_suite", gh.check_suite_event(&head))
        .run()
        .await
}

/// The CI of the queue commit finished: the event a workflow gets for it.
async fn queue_checked(gh: &FakeGitHub) -> Run {
    let sha = gh.branch_head(QUEUE).expect("a queue commit in test");
    council(gh)
        .event("check_suite", gh.check_suite_event(&sha))
        .run()
        .await
}

async fn schedule(gh: &FakeGitHub) -> Run {
    council(gh)
        .event("schedule", serde_json::json!({"schedule": "*/15 * * * *"}))
        .run()
        .await
}

/// `action result` of every entry of pull request `n`'s ledger this run wrote.
fn entries(run: &Run, n: u64) -> Vec<String> {
    timeline(&run.audit(n), &["action", "result"])
}

fn labels(gh: &FakeGitHub, n: u64) -> Vec<String> {
    gh.pr_state(n).labels
}

/// Who wrote each version of `branch`: `login sha-or-deleted`.
fn writers(gh: &FakeGitHub, branch: &str) -> Vec<String> {
    gh.ref_history(branch)
        .iter()
        .map(|w| {
            let token = match w.token.as_deref() {
                Some(RELEASE_TOKEN) => "release-token",
                Some(WORKFLOW_TOKEN) => "workflow-token",
                Some(_) => "other-token",
                None => "push",
            };
            format!(
                "{} {} {}",
                w.login,
                token,
                w.sha.as_deref().map_or("deleted", |s| &s[..7])
            )
        })
        .collect()
}

/// No pull request's own branch was written after the scene made it: only their
/// authors' pushes.
fn heads_untouched(gh: &FakeGitHub, numbers: &[u64]) {
    for n in numbers {
        let head = gh.pr_state(*n).head_ref;
        for w in gh.ref_history(&head) {
            assert!(
                w.token.is_none(),
                "#{n}'s branch {head} was written through the API: {w:?}"
            );
        }
    }
}

/// The parents of a commit.
fn parents(gh: &FakeGitHub, sha: &str) -> Vec<String> {
    gh.commit_state(sha).expect("a commit").parents
}

#[tokio::test(flavor = "multi_thread")]
async fn one_landing_end_to_end() {
    let gh = FakeGitHub::start().await;
    scene(&gh, "");
    let head = pull(&gh, 1, &[("src/one.rs", "one\n")]);
    let base_before = gh.branch_head(BASE).unwrap();
    let runs_before = gh.ci_runs();

    // Release queues it, and its test starts in the same run.
    let run = release_on(&gh, 1).await;
    run.assert_code(0);
    let tested = gh.branch_head(QUEUE).expect("the queue commit");
    assert_eq!(run.output("queue-status"), "TESTING");
    assert_eq!(run.output("queue-sha"), tested);
    assert_eq!(labels(&gh, 1), [LABEL]);
    assert_eq!(parents(&gh, &tested), [base_before.clone(), head.clone()]);
    assert_eq!(
        gh.ci_runs(),
        runs_before + 1,
        "one CI run: the queue commit"
    );
    assert_eq!(gh.branch_head(BASE).unwrap(), base_before, "not landed yet");
    assert!(gh.branch_head(BUILD).is_none(), "the build branch is gone");
    let ledger = entries(&run, 1);
    assert!(
        ledger.contains(&"action:enqueue DONE".to_string()),
        "{ledger:?}"
    );
    assert!(
        ledger.contains(&"action:queue-test DONE".to_string()),
        "{ledger:?}"
    );
    let test_entry = run.audit(1)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "action:queue-test")
        .unwrap()
        .clone();
    assert!(
        test_entry["message"]
            .as_str()
            .unwrap()
            .contains(&tested[..7]),
        "{test_entry}"
    );

    // The check of the queue commit before CI finished: pending, nothing moves.
    let waiting = queue_checked(&gh).await;
    waiting.assert_code(0);
    assert_eq!(waiting.output("queue-status"), "TESTING");
    assert_eq!(gh.branch_head(BASE).unwrap(), base_before);

    // CI green: the base becomes exactly the queue commit, by the release token.
    gh.ci_tick();
    let landed = queue_checked(&gh).await;
    eprintln!("{}\n{}\n{}", landed.stdout, landed.stderr, landed.summary);
    landed.assert_code(0);
    assert_eq!(landed.output("queue-status"), "LANDED");
    assert_eq!(landed.output("queue-sha"), tested);
    assert_eq!(landed.output("release-status"), "MERGED");
    assert_eq!(gh.branch_head(BASE).unwrap(), tested);
    let pr = gh.pr_state(1);
    assert!(pr.merged && !pr.open);
    assert_eq!(pr.merged_by.as_deref(), Some(RELEASE_LOGIN));
    assert!(
        gh.branch_head(QUEUE).is_none(),
        "the queue branch is deleted"
    );
    let ledger = entries(&landed, 1);
    assert!(ledger.ends_with(&["check:queue PASS".into(), "action:merge DONE".into()]));
    let merge = landed.audit(1)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["action"] == "action:merge")
        .unwrap()
        .clone();
    assert!(
        merge["message"].as_str().unwrap().contains(&tested),
        "{merge}"
    );
    let base_writes = writers(&gh, BASE);
    assert_eq!(
        base_writes.last().unwrap(),
        &format!("{RELEASE_LOGIN} release-token {}", &tested[..7])
    );
    for w in writers(&gh, QUEUE) {
        assert!(
            w.starts_with(&format!("{RELEASE_LOGIN} release-token")),
            "{w}"
        );
    }
    heads_untouched(&gh, &[1]);
}
