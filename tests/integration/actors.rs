//! Agents and humans end to end (SPEC "Agents and humans"): the real binary against the
//! fake GitHub. Detection by each signal with its evidence in `check:actor` and the
//! `actor` output, the agents' gates failing and passing for the right people, release
//! waiting for the right approvals, detection switched off, `council policy simulate`
//! over a store of known verdicts, `policy check` and `init` saying what they say, and
//! the limits (more than 250 commits, hostile trailer values).

use serde_json::Value;

use crate::support::events::Events as _;
use crate::support::fake_github::FakeGitHub;
use crate::support::tokens::{RELEASE_TOKEN, WORKFLOW_TOKEN};
use crate::support::{Council, REPO, Run};

/// Any branch may target develop: the guard lets every test's branch through, so that
/// review and release decide.
const OPEN_POLICY: &str = "branches:\n  rules:\n    - {pattern: \"**\", targets: [develop]}\n";
const DETECTION_OFF: &str = "branches:\n  rules:\n    - {pattern: \"**\", targets: [develop]}\n\
    actors:\n  agents: {logins: [], branches: [], trailers: [], labels: []}\n";
const CLAUDE: &str = "Co-authored-by: Claude <noreply@anthropic.com>";

/// A world whose develop holds `policy`.
async fn world(policy: &str) -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", Some(policy)).await;
    gh
}

/// Pull request `n` by `author` from `head` into develop, one commit of `files` with
/// `message`.
fn pull(gh: &FakeGitHub, n: u64, author: &str, head: &str, files: &[(&str, &str)], message: &str) {
    let _ = gh
        .pr(n)
        .author(author)
        .head(head, &format!("{n:040x}"))
        .base("develop")
        .commit(files, message);
}

async fn review(gh: &FakeGitHub, n: u64) -> Run {
    Council::action()
        .api(&gh.uri())
        .event("pull_request", gh.pr_event("opened", n))
        .run()
        .await
}

async fn release(gh: &FakeGitHub, n: u64) -> Run {
    release_in(gh, n, "1001").await
}

/// Release in workflow run `run_id` (a run's entries are recorded once per run).
async fn release_in(gh: &FakeGitHub, n: u64, run_id: &str) -> Run {
    let sha = gh.pr(n).head_sha();
    Council::action()
        .api(&gh.uri())
        .env("GITHUB_RUN_ID", run_id)
        .release_token()
        .event("check_suite", gh.check_suite_event(&sha))
        .run()
        .await
}

/// The newest entry of `action` in the run's audit file: `RESULT: message`.
fn entry(run: &Run, n: u64, action: &str) -> Option<String> {
    run.audit(n)["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["action"] == action)
        .map(|e| {
            format!(
                "{}: {}",
                e["result"].as_str().unwrap(),
                e["message"].as_str().unwrap()
            )
        })
}

fn actor(run: &Run, n: u64) -> String {
    entry(run, n, "check:actor").expect("a check:actor entry")
}

// ----------------------------------------------------------------- detection

#[tokio::test(flavor = "multi_thread")]
async fn each_signal_makes_an_agent_s_pull_request_and_is_named_as_evidence() {
    let gh = world(OPEN_POLICY).await;
    let file = [("src/lib.rs", "pub fn f() {}\n")];
    // The login, as REST writes an app's.
    pull(
        &gh,
        1,
        "devin-ai-integration[bot]",
        "feature/x",
        &file,
        "Add f",
    );
    // The branch.
    pull(&gh, 2, "alice", "claude/issue-7-20260101", &file, "Add f");
    // A trailer in the last paragraph (the key in any letter case).
    pull(
        &gh,
        3,
        "alice",
        "feature/y",
        &file,
        "Add f\n\nSome prose.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
    );
    // A label (letter case ignored, as GitHub compares them).
    pull(&gh, 4, "alice", "feature/z", &file, "Add f");
    let _ = gh.pr(4).label("Agent");
    // None of them: a person's, the trailer's words in the title only.
    pull(
        &gh,
        5,
        "alice",
        "feature/w",
        &file,
        "Co-authored-by: Claude <x>",
    );

    let expected = [
        (
            1,
            r#"PASS: agent (login): author "devin-ai-integration[bot]" matches actors.agents.logins "devin-ai-integration[bot]"."#,
        ),
        (
            2,
            r#"PASS: agent (branch): head branch "claude/issue-7-20260101" matches actors.agents.branches "claude/**"."#,
        ),
        (
            4,
            r#"PASS: agent (label): label "Agent" is in actors.agents.labels."#,
        ),
        (
            5,
            r#"PASS: human: no login, branch, trailer or label of actors.agents matches (author "alice", head branch "feature/w", trailers of 1 commit, no labels)."#,
        ),
    ];
    for (n, message) in expected {
        let run = review(&gh, n).await;
        run.assert_code(0);
        assert_eq!(actor(&run, n), message, "#{n}");
        let class = if n == 5 { "human" } else { "agent" };
        assert_eq!(run.output("actor"), class, "#{n}");
        assert_eq!(run.output("review-status"), "APPROVED", "#{n}");
    }
    let run = review(&gh, 3).await;
    run.assert_code(0);
    let message = actor(&run, 3);
    assert!(
        message.starts_with("PASS: agent (trailer): commit ")
            && message.ends_with(
                r#" has trailer "Co-Authored-By: Claude <noreply@anthropic.com>", which matches actors.agents.trailers "Co-authored-by: Claude *"."#
            ),
        "{message}"
    );
    assert_eq!(run.output("actor"), "agent");
    // The comment's gate table names the class and the kinds of evidence; the finding
    // below it says why.
    let comment = gh
        .comment_bodies()
        .into_iter()
        .find(|b| b.contains("agent-council · PR-3"))
        .unwrap();
    assert!(
        comment.contains("| `actor` | agent (trailer) |"),
        "{comment}"
    );
    assert!(
        comment.contains("- ✅ `actor`: agent (trailer): commit"),
        "{comment}"
    );
    // Agents got the label once, the person none; the approve label as before.
    for n in 1..=4 {
        let labels = gh.pr_state(n).labels;
        assert!(
            labels.iter().any(|l| l == "agent-authored"),
            "#{n}: {labels:?}"
        );
    }
    assert!(!gh.pr_state(5).labels.iter().any(|l| l == "agent-authored"));
    // Review again: the label is there, nothing is added.
    let before = gh.calls().len();
    review(&gh, 1).await.assert_code(0);
    assert!(
        !gh.calls()[before..]
            .iter()
            .any(|c| c.method == "POST" && c.path.ends_with("/labels")),
        "the labels are there already"
    );
    gh.writes_not_checked("the labels and entries are checked instead");
}

/// GitHub writes the coding agent's account `Copilot` in REST and `copilot-swe-agent`
/// in GraphQL: review reads the author from REST, release from GraphQL, and both call
/// the pull request an agent's under a glob for either spelling.
#[tokio::test(flavor = "multi_thread")]
async fn both_spellings_of_copilot_s_login_are_an_agent_at_review_and_release() {
    for (policy_logins, author) in [
        ("[\"copilot-swe-agent[bot]\"]", "Copilot"),
        ("[\"Copilot\"]", "Copilot"),
        ("[\"copilot-swe-agent[bot]\"]", "copilot-swe-agent[bot]"),
    ] {
        let policy = format!(
            "{OPEN_POLICY}actors:\n  agents:\n    logins: {policy_logins}\n    branches: []\n    \
             trailers: []\n    labels: []\n  agent: {{human_approvals: 0}}\n"
        );
        let gh = world(&policy).await;
        pull(&gh, 7, author, "feature/x", &[("a.txt", "a\n")], "Add a");
        let reviewed = review(&gh, 7).await;
        reviewed.assert_code(0);
        assert_eq!(
            reviewed.output("actor"),
            "agent",
            "{author} under {policy_logins}"
        );
        let at_review = actor(&reviewed, 7);
        let _ = gh.pr(7).check_run("ci", "completed", Some("success"));
        let released = release(&gh, 7).await;
        released.assert_code(0);
        assert_eq!(
            released.output("actor"),
            "agent",
            "{author} under {policy_logins}"
        );
        assert_eq!(released.output("release-status"), "MERGED");
        let at_release = actor(&released, 7);
        // REST's spelling at review, GraphQL's (in REST form) at release.
        assert!(
            at_review.contains(&format!("author \"{author}\"")),
            "{at_review}"
        );
        assert!(
            at_release.contains("author \"copilot-swe-agent[bot]\""),
            "{at_release}"
        );
        gh.writes_not_checked("the class at both stages is what is checked");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn four_empty_lists_turn_detection_off() {
    let gh = world(DETECTION_OFF).await;
    pull(
        &gh,
        8,
        "copilot-swe-agent[bot]",
        "copilot/fix-8",
        &[(".github/workflows/ci.yml", "on: push\n")],
        &format!("Fix\n\n{CLAUDE}\n"),
    );
    let _ = gh.pr(8).label("agent");
    let run = review(&gh, 8).await;
    run.assert_code(0);
    assert_eq!(run.output("actor"), "human");
    assert_eq!(
        actor(&run, 8),
        "PASS: human: agent detection is off (actors.agents lists no login, branch, trailer or label)."
    );
    assert!(entry(&run, 8, "check:agent-paths").is_none());
    assert!(!gh.pr_state(8).labels.iter().any(|l| l == "agent-authored"));
    gh.writes_not_checked("the entries and labels are checked instead");
}

// --------------------------------------------------------------- agents' gates

#[tokio::test(flavor = "multi_thread")]
async fn forbidden_paths_and_the_agents_diff_limit_hold_agents_only() {
    let gh = world(OPEN_POLICY).await;
    let workflow = [
        (".github/workflows/release.yml", "on: push\n"),
        ("src/lib.rs", "pub fn f() {}\n"),
    ];
    pull(&gh, 11, "alice", "codex/ci", &workflow, "Touch CI");
    pull(&gh, 12, "alice", "feature/ci", &workflow, "Touch CI");
    let agent = review(&gh, 11).await;
    agent.assert_code(1);
    assert_eq!(agent.output("review-status"), "CHANGES_REQUESTED");
    assert_eq!(
        entry(&agent, 11, "check:agent-paths").unwrap(),
        "FAIL: An agent's pull request may not change this path: \".github/workflows/release.yml\" \
         (glob \".github/workflows/**\") (actors.agent.forbidden_paths). Fix: take these changes out \
         of this pull request (a person opens one for them), or a maintainer changes \
         actors.agent.forbidden_paths in the base branch's policy."
    );
    assert!(
        agent
            .annotations()
            .iter()
            .any(|a| a.starts_with("::error") && a.contains("agent_paths")),
        "{:?}",
        agent.annotations()
    );
    let person = review(&gh, 12).await;
    person.assert_code(0);
    assert_eq!(person.output("actor"), "human");
    assert!(entry(&person, 12, "check:agent-paths").is_none());
    assert!(entry(&person, 12, "check:agent-diff-size").is_none());

    // 51 files: over the agents' 50, and no limit for a person (review.diff_size off).
    let many: Vec<(String, String)> = (0..51)
        .map(|i| {
            (
                format!("src/gen/f{i:02}.rs"),
                format!("pub const X: u8 = {i};\n"),
            )
        })
        .collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    pull(&gh, 13, "alice", "cursor/big", &many, "Generate");
    pull(&gh, 14, "alice", "feature/big", &many, "Generate");
    let agent = review(&gh, 13).await;
    agent.assert_code(1);
    let size = entry(&agent, 13, "check:agent-diff-size").unwrap();
    assert!(
        size.starts_with("FAIL: ") && size.contains("max_files: 50"),
        "{size}"
    );
    assert_eq!(
        entry(&agent, 13, "check:agent-paths").unwrap(),
        "PASS: No changed path matches actors.agent.forbidden_paths (4 globs, 51 files checked)."
    );
    let person = review(&gh, 14).await;
    person.assert_code(0);
    assert!(entry(&person, 14, "check:agent-diff-size").is_none());
    gh.writes_not_checked("the verdicts are what is checked");
}

// ------------------------------------------------------------- human approval

#[tokio::test(flavor = "multi_thread")]
async fn release_waits_for_a_person_s_approval_of_the_head_and_then_merges() {
    let gh = world(OPEN_POLICY).await;
    // alice's pull request, an agent's by its Claude trailer, which bob co-authored.
    pull(&gh, 21, "alice", "feature/ai", &[("a.txt", "1\n")], "Start");
    let old = gh.pr(21).head_sha();
    let _ = gh
        .pr(21)
        .review("carol", "APPROVED", &old)
        .commit(
            &[("a.txt", "2\n")],
            &format!("Finish\n\n{CLAUDE}\nCo-authored-by: bob <bob@users.noreply.github.com>\n"),
        )
        .label("bot-approved")
        .check_run("ci", "completed", Some("success"))
        .approved_by("alice")
        .approved_by("bob")
        .approved_by("github-actions[bot]");
    let waiting = release(&gh, 21).await;
    waiting.assert_code(0);
    assert_eq!(waiting.output("release-status"), "PENDING");
    assert_eq!(waiting.output("actor"), "agent");
    let head = gh.pr(21).head_sha();
    let short = &head[..7];
    let gate = entry(&waiting, 21, "check:human-approval").unwrap();
    assert_eq!(
        gate,
        format!(
            "PENDING: Waiting for 1 more human approval of head \"{short}\" \
             (actors.agent.human_approvals: 1; has 0); not counted: \"carol\" (approved an \
             earlier head), \"alice\" (the pull request's author), \"bob\" (an author or \
             co-author of its commits), \"github-actions[bot]\" (a bot). Fix: a person who can \
             write to the repository, did not open this pull request and did not author or \
             co-author its commits reviews and approves head \"{short}\" (an approval of an \
             earlier head does not count)."
        )
    );
    assert_eq!(waiting.audit(21)["gates"]["human_approval"], Value::Null);
    assert!(!gh.pr_state(21).merged);

    // A person who wrote none of it approves the head: it merges.
    let _ = gh.pr(21).approved_by("dave");
    let merged = release_in(&gh, 21, "1002").await;
    merged.assert_code(0);
    assert_eq!(merged.output("release-status"), "MERGED");
    assert_eq!(
        entry(&merged, 21, "check:human-approval").unwrap(),
        format!("PASS: 1 of 1 human approval on head \"{short}\": \"dave\".")
    );
    assert!(gh.pr_state(21).merged);
    gh.writes_not_checked("the release decisions are what is checked");
}

/// Release reads the commits in the rollup query it already makes: a pull request of up
/// to 100 commits costs no request more; beyond, one per 100, and at most 250 are read.
#[tokio::test(flavor = "multi_thread")]
async fn release_reads_the_commits_in_its_one_query_and_pages_only_past_100() {
    for (commits, pages) in [(100usize, 0usize), (101, 1), (260, 2)] {
        let gh = world(OPEN_POLICY).await;
        let _ = gh
            .pr(31)
            .author("alice")
            .head("feature/many", &format!("{:040x}", 31))
            .base("develop");
        for i in 0..commits {
            let _ = gh
                .pr(31)
                .commit(&[("n.txt", &format!("{i}\n"))], &format!("Step {i}"));
        }
        let _ = gh
            .pr(31)
            .label("bot-approved")
            .check_run("ci", "completed", Some("success"));
        let start = gh.calls().len();
        let run = release(&gh, 31).await;
        run.assert_code(0);
        assert_eq!(run.output("release-status"), "MERGED", "{commits} commits");
        let calls: Vec<String> = gh.calls()[start..]
            .iter()
            .map(|c| match &c.operation {
                Some(op) => format!("{} {} ({op})", c.method, c.path),
                None => format!("{} {}", c.method, c.path),
            })
            .collect();
        let merge = calls.iter().position(|c| c.ends_with("/merge")).unwrap();
        let paged = calls[..merge]
            .iter()
            .filter(|c| c.contains("(PullRequestCommits)"))
            .count();
        assert_eq!(paged, pages, "{commits} commits: {calls:#?}");
        // The lookup of the commit's pull requests, then the evaluation: policy, rollup,
        // commit pages, diff, merge.
        assert_eq!(merge, 4 + pages, "{commits} commits: {calls:#?}");
        let warned = run
            .annotations()
            .iter()
            .any(|a| a.contains("read the trailers of 250 of the pull request's 260 commits"));
        assert_eq!(warned, commits > 250, "{:?}", run.annotations());
        gh.writes_not_checked("the requests are what is checked");
    }
}

// -------------------------------------------------------------- limits, bad input

#[tokio::test(flavor = "multi_thread")]
async fn past_250_commits_review_warns_and_detection_covers_those_read() {
    let gh = world(OPEN_POLICY).await;
    let _ = gh
        .pr(41)
        .author("alice")
        .head("feature/long", &format!("{:040x}", 41))
        .base("develop");
    // The trailer only in the 255th commit: GitHub lists the first 250.
    for i in 0..260 {
        let message = match i {
            254 => format!("Step {i}\n\n{CLAUDE}\n"),
            _ => format!("Step {i}"),
        };
        let _ = gh.pr(41).commit(&[("n.txt", &format!("{i}\n"))], &message);
    }
    let start = gh.calls().len();
    let run = review(&gh, 41).await;
    run.assert_code(0);
    assert_eq!(run.output("actor"), "human");
    assert!(
        run.annotations().iter().any(|a| a.starts_with("::warning")
            && a.contains(
                "actors: read the trailers of 250 of the pull request's 260 commits (GitHub lists at \
                 most 250); a trailer in the other 10 was not seen"
            )),
        "{:?}",
        run.annotations()
    );
    assert!(
        actor(&run, 41).contains("trailers of 250 of 260 commits"),
        "{}",
        actor(&run, 41)
    );
    // The compare endpoint's pages: the files and 100 commits, then 100 and 60 more.
    let compares: Vec<String> = gh.calls()[start..]
        .iter()
        .filter(|c| c.path.contains("/compare/"))
        .map(|c| c.path.rsplit('?').next().unwrap().to_string())
        .collect();
    assert_eq!(
        compares,
        ["per_page=100", "per_page=100&page=2", "per_page=100&page=3"]
    );
    gh.writes_not_checked("the warning is what is checked");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trailer_value_with_hidden_characters_is_shown_escaped() {
    let gh = world(OPEN_POLICY).await;
    pull(
        &gh,
        42,
        "alice",
        "feature/bidi",
        &[("a.txt", "a\n")],
        "Add a\n\nAssisted-by: tool\u{202E}gnp.exe\u{7}\n",
    );
    let run = review(&gh, 42).await;
    run.assert_code(0);
    let message = actor(&run, 42);
    assert!(
        message.contains("has trailer \"Assisted-by: tool<U+202E>gnp.exe<U+0007>\""),
        "{message}"
    );
    assert!(!message.contains('\u{202E}') && !message.contains('\u{7}'));
    let comment = gh
        .comment_bodies()
        .into_iter()
        .find(|b| b.contains("agent-council · PR-42"))
        .unwrap();
    let human_part = comment
        .split("<!-- agent-council:ledger:data")
        .next()
        .unwrap();
    assert!(!human_part.contains('\u{202E}'), "{human_part}");
    assert!(human_part.contains("&lt;U+202E&gt;") || human_part.contains("<U+202E>"));
    gh.writes_not_checked("the message is what is checked");
}

// ----------------------------------------------------------- where people look

#[tokio::test(flavor = "multi_thread")]
async fn policy_check_and_init_show_the_actors_section() {
    let run = Council::cli()
        .args(&[
            "policy",
            "check",
            "--branch",
            "copilot/fix-1",
            "--branch",
            "feature/ui/PBI-1-x",
        ])
        .run()
        .await;
    // copilot/fix-1 fails the default policy's names: exit 1, as for any name.
    run.assert_code(1);
    assert!(
        run.stdout.contains("  actors: an agent's pull request when any of 3 logins, 5 branches, 4 trailers, 1 label matches"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "copilot/fix-1: an agent's pull request whatever its author: agent (branch): head \
             branch \"copilot/fix-1\" matches actors.agents.branches \"copilot/**\"."
        ),
        "{}",
        run.stdout
    );
    let json = Council::cli()
        .args(&["policy", "check", "--branch", "devin/1-x", "--json"])
        .run()
        .await;
    let answer: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(answer["branches"][0]["actor"]["class"], "agent");
    assert_eq!(answer["actors"]["agent"]["label"], "agent-authored");

    let dir = tempfile::tempdir().unwrap();
    let init = Council::cli()
        .args(&["init", "--dir", dir.path().to_str().unwrap()])
        .run()
        .await;
    init.assert_code(0);
    let written = std::fs::read_to_string(dir.path().join(".github/council.yml")).unwrap();
    assert!(written.contains("\nactors:\n  # A pull request is an agent's when ANY"));
    let policy = council_protocol::policy::Policy::parse(&written, "council.yml").unwrap();
    assert_eq!(policy.actors.agent.human_approvals, 1);
    assert_eq!(policy.actors.agents.branches.len(), 5);
}

// ------------------------------------------------------------- policy simulate

/// A Context Object of pull request `n` from `head` into `base` by `author`, with one
/// guard run's verdicts and, when given, a review's `check:actor` message.
fn recorded(
    n: u64,
    head: &str,
    base: &str,
    author: &str,
    guard: (&str, &str),
    actor: Option<&str>,
) -> Value {
    use council_protocol::audit::ContextObject;
    use council_protocol::audit::stored::merge;
    use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
    let mut pr = crate::support::ledgers::pull_request(n, base, &format!("{n:040x}"));
    pr.head_ref = head.into();
    pr.author = author.into();
    let at = "2026-02-01T00:00:00Z";
    let mut ctx = ContextObject::new(REPO, &pr, "webhook:pull_request.opened", at);
    let mut push = |run: &str, stage, agent, action: &str, result: &str, message: &str| {
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
        ctx.timeline
            .push(new_entry(&run, &record, &pr.head_sha, at));
    };
    push(
        "1",
        "guard",
        "agent_guard",
        "check:branch-name",
        guard.0,
        "recorded",
    );
    push(
        "1",
        "guard",
        "agent_guard",
        "check:target-branch",
        guard.1,
        "recorded",
    );
    if let Some(message) = actor {
        push(
            "2",
            "review",
            "agent_review",
            "check:actor",
            "PASS",
            message,
        );
    }
    let stored = merge(None, &ctx, None).unwrap();
    crate::support::ledgers::audit_file(&stored)
}

#[tokio::test(flavor = "multi_thread")]
async fn policy_simulate_lists_what_a_new_policy_would_change_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("audit.db").display());
    let human = "human: no login, branch, trailer or label of actors.agents matches.";
    let pulls = [
        // Recorded under the default policy.
        recorded(
            1,
            "feature/api/PBI-1-login",
            "develop",
            "alice",
            ("PASS", "PASS"),
            Some(human),
        ),
        recorded(
            2,
            "fix-typo",
            "develop",
            "bob",
            ("FAIL", "FAIL"),
            Some(human),
        ),
        recorded(
            3,
            "ai/refactor",
            "develop",
            "alice",
            ("FAIL", "FAIL"),
            Some(human),
        ),
        recorded(
            4,
            "copilot/fix-4",
            "develop",
            "Copilot",
            ("FAIL", "FAIL"),
            Some("agent (login, branch): author \"Copilot\" matches …"),
        ),
        recorded(
            5,
            "feature/api/PBI-5-x",
            "develop",
            "carol",
            ("PASS", "PASS"),
            Some("agent (trailer): commit 1234567 has trailer …"),
        ),
        recorded(6, "hotfix/INC-6-db", "main", "dave", ("PASS", "PASS"), None),
    ];
    let mut files = Vec::new();
    for (i, pull) in pulls.iter().enumerate() {
        let path = dir.path().join(format!("PR-{}.json", i + 1));
        std::fs::write(&path, serde_json::to_string(pull).unwrap()).unwrap();
        files.push(path.display().to_string());
    }
    let mut args = vec!["audit", "import", "--database-url", &db];
    args.extend(files.iter().map(String::as_str));
    Council::cli().args(&args).run().await.assert_code(0);

    // The recording policy changes nothing.
    let same = Council::cli()
        .args(&["policy", "simulate", "--database-url", &db])
        .run()
        .await;
    same.assert_code(0);
    assert!(
        same.stdout.contains("0 of 6 pull requests would change"),
        "{}",
        same.stdout
    );

    // A candidate: any `ai/` or `copilot/` branch into develop, hotfixes no longer into
    // main, and `ai/**` an agent's branch; Copilot's login no longer an agent's.
    let candidate = dir.path().join("candidate.yml");
    std::fs::write(
        &candidate,
        "branches:\n  rules:\n    - {pattern: \"feature/*/PBI-*-*\", targets: [develop]}\n    \
         - {pattern: \"ai/**\", targets: [develop]}\n    - {pattern: \"hotfix/INC-*-*\", targets: \
         [develop]}\nactors:\n  agents:\n    logins: []\n    branches: [\"ai/**\"]\n",
    )
    .unwrap();
    let candidate = candidate.display().to_string();
    let run = Council::cli()
        .args(&[
            "policy",
            "simulate",
            &candidate,
            "--database-url",
            &db,
            "--json",
        ])
        .run()
        .await;
    run.assert_code(1);
    let answer: Value = serde_json::from_str(&run.stdout).unwrap();
    let changes = answer["changes"].as_array().unwrap();
    let by_pr = |n: u64| changes.iter().find(|c| c["pr"] == n);
    // #3: both guard gates FAIL → PASS, in the gate JSON shape; human → agent.
    let three = by_pr(3).unwrap();
    assert_eq!(three["gates"][0]["recorded"], "FAIL");
    assert_eq!(three["gates"][0]["now"]["gate"], "naming_convention");
    assert_eq!(three["gates"][0]["now"]["action"], "check:branch-name");
    assert_eq!(three["gates"][0]["now"]["result"], "PASS");
    assert!(three["gates"][0]["now"]["fix"].is_null());
    assert_eq!(three["gates"][1]["now"]["gate"], "target_policy");
    assert_eq!(three["class"]["recorded"], "human");
    assert_eq!(three["class"]["now"], "agent");
    assert_eq!(
        three["class"]["message"],
        "agent (branch): head branch \"ai/refactor\" matches actors.agents.branches \"ai/**\"."
    );
    // #4: still failing names, but no longer an agent's (Copilot's login, copilot/
    // branches are out of the lists).
    let four = by_pr(4).unwrap();
    assert_eq!(four["gates"].as_array().unwrap().len(), 0);
    assert_eq!(four["class"]["recorded"], "agent");
    assert_eq!(four["class"]["now"], "human");
    // #6: a hotfix into main now fails its target, with the fix.
    let six = by_pr(6).unwrap();
    assert_eq!(six["gates"][0]["recorded"], "PASS");
    assert_eq!(six["gates"][0]["now"]["gate"], "target_policy");
    assert_eq!(six["gates"][0]["now"]["result"], "FAIL");
    assert!(six["gates"][0]["now"]["fix"]["advice"].is_string());
    assert!(six["class"].is_null());
    // #1, #2 unchanged; #5's class came from a trailer: not replayed.
    assert!(by_pr(1).is_none() && by_pr(2).is_none() && by_pr(5).is_none());
    assert_eq!(
        answer["counts"],
        serde_json::json!({
            "pull_requests": 6, "changed": 3, "pass_to_fail": 1, "fail_to_pass": 2,
            "human_to_agent": 1, "agent_to_human": 1, "class_not_replayable": 1,
            "class_not_recorded": 1,
        })
    );
    // The same as text, and narrowed by --repo and --since.
    let text = Council::cli()
        .args(&["policy", "simulate", &candidate, "--database-url", &db])
        .run()
        .await;
    text.assert_code(1);
    assert!(text.stdout.contains(&format!("{REPO}#6 hotfix/INC-6-db -> main by dave (unverified header)\n  target_policy PASS -> FAIL: ")), "{}", text.stdout);
    assert!(text.stdout.contains("3 of 6 pull requests would change: guard 1 PASS -> FAIL, 2 FAIL -> PASS; class 1 human -> agent, 1 agent -> human"), "{}", text.stdout);
    let none = Council::cli()
        .args(&[
            "policy",
            "simulate",
            &candidate,
            "--database-url",
            &db,
            "--repo",
            "other/repo",
        ])
        .run()
        .await;
    none.assert_code(0);
    let later = Council::cli()
        .args(&[
            "policy",
            "simulate",
            &candidate,
            "--database-url",
            &db,
            "--since",
            "2026-03-01",
        ])
        .run()
        .await;
    later.assert_code(0);
    // A bad policy is exit 2, naming the file.
    std::fs::write(
        dir.path().join("bad.yml"),
        "actors:\n  agents:\n    logins: [\"\"]\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.yml").display().to_string();
    let run = Council::cli()
        .args(&["policy", "simulate", &bad, "--database-url", &db])
        .run()
        .await;
    run.assert_code(2);
    assert!(
        run.stderr.contains("actors.agents.logins"),
        "{}",
        run.stderr
    );
}

// -------------------------------------------------------------------- MCP

#[tokio::test(flavor = "multi_thread")]
async fn mcp_check_branch_says_what_an_agent_must_expect_before_it_pushes() {
    use crate::mcp::Session;
    let gh = FakeGitHub::start().await;
    gh.policy("develop", Some(OPEN_POLICY)).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &[], dir.path());
    let (error, text) = s.call(
        "check_branch",
        serde_json::json!({"branch": "feature/x", "target": "develop", "author": "devin-ai-integration[bot]"}),
    );
    assert!(!error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["passed"], true);
    assert_eq!(answer["author"], "devin-ai-integration[bot]");
    // The gates keep the gate JSON shape, exactly.
    for gate in answer["gates"].as_array().unwrap() {
        let keys: Vec<&str> = gate
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["gate", "action", "result", "message", "fix"],
            "{gate}"
        );
    }
    assert_eq!(answer["actor"]["class"], "agent");
    assert_eq!(answer["actor"]["evidence"][0]["kind"], "login");
    let expect: Vec<&str> = answer["actor"]["expect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        expect,
        [
            "review: changing \".github/workflows/**\", \".github/council.yml\", \"CODEOWNERS\", \
             \".github/CODEOWNERS\" fails check:agent-paths (actors.agent.forbidden_paths)",
            "review: at most 50 files and 1,000 changed lines (actors.agent.diff_size, instead of \
             review.diff_size)",
            "release: waits for 1 approval on the head from a person who can write, did not open \
             the pull request and did not author or co-author its commits \
             (actors.agent.human_approvals)",
            "review: adds the label \"agent-authored\" (actors.agent.label)",
        ]
    );
    // Without an author: the branch alone, and what could still make it an agent's.
    let (_, text) = s.call(
        "check_branch",
        serde_json::json!({"branch": "feature/x", "target": "develop"}),
    );
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["actor"]["class"], "human");
    assert!(answer["author"].is_null());
    assert!(
        answer["actor"]["expect"][0]
            .as_str()
            .unwrap()
            .contains("a commit trailer or a label")
    );
    // A bad author is an error naming the field, found before any request.
    let before = gh.calls().len();
    let (error, text) = s.call(
        "check_branch",
        serde_json::json!({"branch": "feature/x", "target": "develop", "author": "a\u{7}b"}),
    );
    assert!(error && text.contains("`author`"), "{text}");
    assert_eq!(gh.calls().len(), before);
    let _ = (WORKFLOW_TOKEN, RELEASE_TOKEN);
}

/// One policy, three enforcement points: MCP `check_branch` before the push (branch and
/// author), review's check, and release's decision agree on the class of a set of
/// branch, author and trailer combinations; where the preflight cannot know (a trailer),
/// it says human and what could still change that, never the reverse. The guard's
/// verdict before the push is the guard's verdict on the pull request.
#[tokio::test(flavor = "multi_thread")]
async fn the_preflight_the_pull_request_check_and_the_merge_decision_agree() {
    use crate::mcp::Session;
    let policy = "branches:\n  rules:\n    - {pattern: \"**/**\", targets: [develop]}\n";
    let gh = world(policy).await;
    let cases = [
        ("copilot/fix-1", "alice", ""),
        ("feature/one", "Copilot", ""),
        ("feature/two", "alice", CLAUDE),
        ("feature/three", "dependabot[bot]", ""),
        ("claude/x-1", "my-agent[bot]", "Assisted-by: Codex:gpt-5"),
        (
            "feature/four",
            "alice",
            "Signed-off-by: alice <a@example.com>",
        ),
        ("nofolder", "alice", ""),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&gh.uri(), &[], dir.path());
    for (i, (head, author, trailer)) in cases.iter().enumerate() {
        let n = 50 + i as u64;
        let message = match trailer.is_empty() {
            true => "Change".to_string(),
            false => format!("Change\n\n{trailer}\n"),
        };
        pull(
            &gh,
            n,
            author,
            head,
            &[("a.txt", &format!("{n}\n"))],
            &message,
        );
        let (error, text) = s.call(
            "check_branch",
            serde_json::json!({"branch": head, "target": "develop", "author": author}),
        );
        assert!(!error, "{text}");
        let before: Value = serde_json::from_str(&text).unwrap();
        let reviewed = review(&gh, n).await;
        let guard = reviewed.output("guard-status").to_string();
        assert_eq!(
            before["passed"] == true,
            guard == "PASS",
            "{head}: preflight {before} vs guard {guard}"
        );
        if guard != "PASS" {
            continue;
        }
        let at_review = reviewed.output("actor").to_string();
        let _ = gh.pr(n).check_run("ci", "completed", Some("success"));
        let released = release_in(&gh, n, &format!("{}", 2000 + n)).await;
        let at_release = released.output("actor").to_string();
        assert_eq!(at_review, at_release, "{head} by {author}");
        let preflight = before["actor"]["class"].as_str().unwrap();
        if preflight == "agent" {
            assert_eq!(at_review, "agent", "{head} by {author}");
        } else {
            // Only what the preflight could not see makes the difference.
            assert!(
                at_review == "human" || !trailer.is_empty(),
                "{head} by {author}: {at_review}"
            );
        }
    }
    gh.writes_not_checked("the classes at each point are what is checked");
}
