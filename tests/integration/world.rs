//! The fake GitHub's world with the real binary: events from the world, writes by token.
//! (The world itself, route by route through the product's client, is tested in its own
//! crate: `crates/fake-github/tests/world/`.) Also the client other modules use to act on
//! the world as a token's holder would.

use std::time::Duration;

use council_github::retry::RetryPolicy;
use council_github::{GitHub, GitHubConfig, RepoName};

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::WORKFLOW_TOKEN;
use crate::support::{Council, REPO};

const SHA: &str = "1111111111111111111111111111111111111111";

fn repo(rest: &str) -> String {
    format!("/repos/{REPO}{rest}")
}

/// The product's client for one token, retrying fast.
pub fn client(gh: &FakeGitHub, token: &str) -> GitHub {
    let config = GitHubConfig {
        api_url: gh.uri(),
        graphql_url: format!("{}/graphql", gh.uri()),
        token: Some(token.to_string()),
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_secs(5),
            ..RetryPolicy::default()
        },
        read_only: false,
    };
    GitHub::new(&config, RepoName::parse(REPO).expect("repo name")).expect("client")
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
