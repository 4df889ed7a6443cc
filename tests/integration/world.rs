//! The fake GitHub's world with the real binary: events from the world, writes by token.
//! (The world itself, route by route through the product's client, is tested in its own
//! crate: `crates/fake-github/tests/world/`.)

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::WORKFLOW_TOKEN;
use crate::support::{Council, REPO};

const SHA: &str = "1111111111111111111111111111111111111111";

fn repo(rest: &str) -> String {
    format!("/repos/{REPO}{rest}")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_guard_runs_on_a_pull_request_the_world_made() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/devops/PBI-001-login", SHA)
        .base("develop");
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", 7))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    assert_eq!(
        gh.call_lines()[0],
        format!("GET {}", repo("/contents/.github/council.yml?ref=develop")),
        "the policy is read at the world's base branch"
    );
    let writes = gh.take_writes();
    assert_eq!(
        writes.iter().map(|c| c.line()).collect::<Vec<_>>(),
        [
            format!("POST {}", repo("/issues/7/labels")),
            format!("POST {}", repo("/issues/7/comments"))
        ],
        "review approved: the label, then the ledger comment"
    );
    assert!(
        writes
            .iter()
            .all(|w| w.token.as_deref() == Some(WORKFLOW_TOKEN))
    );
    assert_eq!(gh.comment_bodies().len(), 1, "the ledger comment");
    gh.assert_all_writes_seen();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_pull_request_runs_with_a_read_only_token() {
    let gh = FakeGitHub::start().await;
    gh.pr(7)
        .head("feature/devops/PBI-001-login", SHA)
        .base("develop")
        .fork("mallory");
    gh.token(WORKFLOW_TOKEN).read_only();
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("synchronize", 7))
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    let refused: Vec<u16> = gh.take_writes().iter().map(|c| c.status).collect();
    assert_eq!(
        refused,
        [403, 403],
        "the label and the ledger write are refused, once each"
    );
    assert!(
        run.annotations().iter().any(|a| a.contains("read-only")),
        "the refusal is reported: {:?}",
        run.annotations()
    );
    assert!(gh.comment_bodies().is_empty());
}
