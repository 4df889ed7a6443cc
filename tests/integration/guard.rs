//! Guard end to end: real webhook payloads, a fake GitHub, the real binary.
//! Run as the runner runs the action: the binary, in a process of its own (`.process()`),
//! for the contract only a process shows (exit status, streams, outputs, annotations).

use serde_json::json;

use crate::support::fake_github::FakeGitHub;
use crate::support::{Council, fixture, pr_event, timeline};

const GUARD_ACTIONS: [&str; 5] = [
    "opened",
    "reopened",
    "synchronize",
    "edited",
    "ready_for_review",
];

#[tokio::test(flavor = "multi_thread")]
async fn every_guard_action_of_both_pr_events_runs_the_guard_on_one_policy_read() {
    for event_name in ["pull_request", "pull_request_target"] {
        for action in GUARD_ACTIONS {
            let gh = FakeGitHub::start().await;
            gh.policy("master", None).await;
            let run = Council::action()
                .api(&gh.uri())
                .event(event_name, fixture(&format!("pull_request.{action}")))
                .process()
                .run()
                .await;
            run.assert_code(1);
            assert_eq!(run.output("guard-status"), "FAIL", "{event_name}.{action}");
            assert_eq!(run.output("review-status"), "PENDING");
            assert_eq!(run.output("release-status"), "PENDING");
            assert_eq!(run.output("audit-path"), "out/audit/PR-2.json");
            assert_eq!(run.output("artifact-id"), "");
            assert_eq!(
                gh.non_ledger_requests().await,
                vec!["GET /repos/Codertocat/Hello-World/contents/.github/council.yml"],
                "{event_name}.{action}: the guard itself reads only the policy"
            );
            let ctx = run.audit(2);
            assert_eq!(ctx["trigger"], format!("webhook:{event_name}.{action}"));
            // The one write: the Context Object comment.
            gh.expect_writes(&["POST /issues/2/comments"]);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_passing_pr_exits_0_after_the_policy_read_and_the_ledger() {
    let gh = FakeGitHub::start().await;
    gh.policy("develop", None).await;
    let event = pr_event("opened", "feature/devops/PBI-001-login", "develop");
    let head = event["pull_request"]["head"]["sha"].as_str().unwrap();
    gh.pr(2)
        .head("feature/devops/PBI-001-login", head)
        .base("develop");
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", event.clone())
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert_eq!(run.output("guard-status"), "PASS");
    assert_eq!(
        gh.requests().await,
        vec![
            "GET /repos/Codertocat/Hello-World/contents/.github/council.yml",
            "GET /repos/Codertocat/Hello-World/compare/f95f852bd8fca8fcc58a9a2d6c842781e32a215e...ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            "GET /repos/Codertocat/Hello-World/pulls/2",
            "POST /repos/Codertocat/Hello-World/issues/2/labels",
            "POST /graphql",
            "GET /repos/Codertocat/Hello-World/issues/2/comments",
            "GET /repos/Codertocat/Hello-World/actions/artifacts",
            "POST /repos/Codertocat/Hello-World/issues/2/comments",
            "GET /repos/Codertocat/Hello-World/issues/comments/5001",
        ],
        "policy read, review's diff by SHA, the head once more, the label, then the ledger: \
         identity, find, no comment so the previous artifacts, create, read back"
    );
    assert!(
        run.annotations().iter().all(|a| a.starts_with("::notice")),
        "{:?}",
        run.annotations()
    );
    run.assert_no_secret("ghs_test_token_value");
    gh.expect_writes(&["POST /issues/2/labels", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn summary_annotations_and_context_object_of_a_failing_pr() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    insta::assert_snapshot!(run.summary, @"
    ### agent-council · guard · FAIL

    Pull request #2: <code>changes</code> → <code>master</code> (head <code>ec26c3e</code>)

    | Gate | Result | Why |
    | --- | --- | --- |
    | `naming_convention` | ❌ FAIL | Branch <code>changes</code> matches no naming rule of the default policy (no .github/council.yml on master). Allowed: feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt; → develop; chore/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt; → develop; hotfix/INC-&lt;n&gt;-&lt;slug&gt; or hotfix/BUG-&lt;n&gt;-&lt;slug&gt; → main, develop. |
    | `target_policy` | ❌ FAIL | Branch <code>changes</code> matches no rule, so it may not target <code>master</code>. |

    **How to fix `naming_convention`:** rename the branch and open a new pull request into <code>develop</code> (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository&#39;s branches with: council init). Run this, replacing &lt;area&gt; with the area of the work (e.g. devops), &lt;n&gt; with the work item&#39;s number and &lt;slug&gt; with a short lower-case description (e.g. fix-login):

    <pre><code>git branch -m changes &#39;feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;&#39; &amp;&amp; git push -u origin &#39;feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;&#39; &amp;&amp; git push origin --delete changes</code></pre>

    | Effect | Result |
    | --- | --- |
    | `action:comment` | ✅ done: Context Object comment: <https://github.com/Codertocat/Hello-World/pull/2#issuecomment-5001> |

    <sub>policy: default policy (no .github/council.yml on master) · GitHub API requests: 6 · audit file: <code>out/audit/PR-2.json</code> · artifact not uploaded: artifact upload skipped: ACTIONS&#95;RUNTIME&#95;TOKEN and ACTIONS&#95;RESULTS&#95;URL not set (not running as a GitHub Actions container action; &#96;run:&#96; steps do not receive these variables); the audit file stays on disk</sub>
    ");
    insta::assert_snapshot!(run.annotations().join("\n"), @r#"
    ::notice title=council artifact::artifact upload skipped: ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL not set (not running as a GitHub Actions container action; `run:` steps do not receive these variables); the audit file stays on disk
    ::error title=council guard%3A naming_convention (check%3Abranch-name)::Branch "changes" matches no naming rule of the default policy (no .github/council.yml on master). Allowed: feature/<area>/PBI-<n>-<slug> → develop; chore/<area>/PBI-<n>-<slug> → develop; hotfix/INC-<n>-<slug> or hotfix/BUG-<n>-<slug> → main, develop. Fix: rename the branch and open a new pull request into "develop" (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository's branches with: council init). Run this, replacing <area> with the area of the work (e.g. devops), <n> with the work item's number and <slug> with a short lower-case description (e.g. fix-login): `git branch -m changes 'feature/<area>/PBI-<n>-<slug>' && git push -u origin 'feature/<area>/PBI-<n>-<slug>' && git push origin --delete changes`
    ::error title=council guard%3A target_policy (check%3Atarget-branch)::Branch "changes" matches no rule, so it may not target "master". Fix: rename the branch and open a new pull request into "develop" (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository's branches with: council init). Run this, replacing <area> with the area of the work (e.g. devops), <n> with the work item's number and <slug> with a short lower-case description (e.g. fix-login): `git branch -m changes 'feature/<area>/PBI-<n>-<slug>' && git push -u origin 'feature/<area>/PBI-<n>-<slug>' && git push origin --delete changes`
    "#);
    let ctx = run.audit(2);
    assert_eq!(run.output("context"), serde_json::to_string(&ctx).unwrap());
    insta::assert_json_snapshot!(ctx, {
        ".timestamp" => "[time]",
        ".timeline[].timestamp" => "[time]",
        ".timeline[].message" => "[message]",
        ".timeline[].prev_hash" => "[hash]",
        ".timeline[].hash" => "[hash]",
        ".chain_head.hash" => "[hash]",
    }, @r#"
    {
      "schema_version": 1,
      "context_id": "PR-2",
      "repository": "Codertocat/Hello-World",
      "timestamp": "[time]",
      "trigger": "webhook:pull_request.opened",
      "subject": {
        "type": "pull_request",
        "id": 2,
        "source_branch": "changes",
        "target_branch": "master",
        "author": "Codertocat",
        "head_sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
      },
      "state": {
        "guard_status": "FAIL",
        "review_status": "PENDING",
        "release_status": "PENDING"
      },
      "gates": {
        "naming_convention": "FAIL",
        "target_policy": "FAIL",
        "doc_coverage": null,
        "pipeline_green": null
      },
      "timeline": [
        {
          "id": "1001/1/council/guard/check:branch-name",
          "agent": "agent_guard",
          "action": "check:branch-name",
          "result": "FAIL",
          "message": "[message]",
          "timestamp": "[time]",
          "run_id": "1001",
          "run_attempt": 1,
          "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
          "prev_hash": "[hash]",
          "hash": "[hash]"
        },
        {
          "id": "1001/1/council/guard/check:target-branch",
          "agent": "agent_guard",
          "action": "check:target-branch",
          "result": "FAIL",
          "message": "[message]",
          "timestamp": "[time]",
          "run_id": "1001",
          "run_attempt": 1,
          "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
          "prev_hash": "[hash]",
          "hash": "[hash]"
        }
      ],
      "chain_head": {
        "entries": 2,
        "hash": "[hash]"
      }
    }
    "#);
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_policy_comes_from_the_base_branch_never_the_workspace() {
    let gh = FakeGitHub::start().await;
    let strict = "branches:\n  rules:\n    - pattern: \"release/*\"\n      targets: [main]\n";
    gh.policy("main", Some(strict)).await;
    let permissive = "branches:\n  rules:\n    - pattern: \"**\"\n      targets: [\"**\"]\n";
    let run = Council::action()
        .api(&gh.uri())
        .workspace_file(".github/council.yml", permissive)
        .event("pull_request", pr_event("opened", "anything-goes", "main"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert!(run.summary.contains("release/&#42;"), "{}", run.summary);
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_policy_on_the_base_branch_is_exit_2_with_its_location() {
    let gh = FakeGitHub::start().await;
    gh.policy(
        "master",
        Some("branches:\n  rules:\n    - pattern: \"x/*\"\n      targts: [main]\n"),
    )
    .await;
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(2);
    let annotations = run.annotations().join("\n");
    assert!(
        annotations.contains(
            "policy .github/council.yml@master:4:7: branches.rules[0].targts: unknown field \
             `targts`"
        ),
        "{annotations}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn close_on_fail_explains_once_then_closes() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.accept_close(2, 200).await;
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(
        gh.writes().await,
        vec![
            "POST /repos/Codertocat/Hello-World/issues/2/comments",
            "PATCH /repos/Codertocat/Hello-World/pulls/2",
            "POST /repos/Codertocat/Hello-World/issues/2/comments",
        ],
        "explanation, close, then the Context Object comment"
    );
    let bodies = gh.comment_bodies();
    let body = bodies[0].as_str();
    insta::assert_snapshot!(body, @"
    <!-- agent-council:close-on-fail pr=2 head=ec26c3e57ca3a959ca5aad62de7213c562f8c821 base=master -->
    ### This pull request was closed by the branch policy

    <code>changes</code> → <code>master</code> does not meet the default policy (no .github/council.yml on master).

    | Gate | Result | Why |
    | --- | --- | --- |
    | `naming_convention` | ❌ FAIL | Branch <code>changes</code> matches no naming rule of the default policy (no .github/council.yml on master). Allowed: feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt; → develop; chore/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt; → develop; hotfix/INC-&lt;n&gt;-&lt;slug&gt; or hotfix/BUG-&lt;n&gt;-&lt;slug&gt; → main, develop. |
    | `target_policy` | ❌ FAIL | Branch <code>changes</code> matches no rule, so it may not target <code>master</code>. |

    **How to fix:** rename the branch and open a new pull request into <code>develop</code> (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository&#39;s branches with: council init). Run this, replacing &lt;area&gt; with the area of the work (e.g. devops), &lt;n&gt; with the work item&#39;s number and &lt;slug&gt; with a short lower-case description (e.g. fix-login):

    <pre><code>git branch -m changes &#39;feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;&#39; &amp;&amp; git push -u origin &#39;feature/&lt;area&gt;/PBI-&lt;n&gt;-&lt;slug&gt;&#39; &amp;&amp; git push origin --delete changes</code></pre>

    <sub>agent-council · [run](https://github.com/Codertocat/Hello-World/actions/runs/1001/attempts/1)</sub>
    ");
    assert_eq!(gh.bodies("PATCH").await, vec![json!({"state": "closed"})]);
    let actions = timeline(&run.audit(2), &["action", "result"]);
    assert_eq!(
        actions,
        [
            "check:branch-name FAIL",
            "check:target-branch FAIL",
            "action:comment DONE",
            "action:close-pr DONE"
        ]
    );
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_event_twice_posts_no_second_comment() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.accept_close(2, 200).await;
    let first = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    first.assert_code(1);
    assert_eq!(
        gh.comment_bodies().len(),
        2,
        "the explanation and the Context Object"
    );
    let ledger_before = gh.comment_bodies()[1].clone();
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(
        gh.comment_bodies().len(),
        2,
        "no new comment on the second run"
    );
    assert!(run.summary.contains("already posted"), "{}", run.summary);
    assert_eq!(
        gh.comment_bodies()[1],
        ledger_before,
        "same run id and attempt: nothing new to record"
    );
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_marker_from_another_author_does_not_suppress_the_explanation() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let marker = "<!-- agent-council:close-on-fail pr=2 head=ec26c3e57ca3a959ca5aad62de7213c562f8c821 base=master -->";
    gh.seed(2, "mallory", marker);
    gh.accept_close(2, 200).await;
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert!(
        gh.requests()
            .await
            .contains(&"POST /repos/Codertocat/Hello-World/issues/2/comments".to_string())
    );
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_pr_with_a_read_only_token_still_fails_the_check_with_the_full_summary() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    gh.set_write_status(403);
    gh.accept_close(2, 403).await;
    let mut event = fixture("pull_request.opened");
    event["pull_request"]["head"]["repo"]["full_name"] = "forker/Hello-World".into();
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .event("pull_request", event)
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(run.output("guard-status"), "FAIL");
    assert!(run.summary.contains("read-only"), "{}", run.summary);
    assert!(run.summary.contains("naming_convention"));
    let of = |level: &str| -> Vec<String> {
        run.annotations()
            .into_iter()
            .filter(|a| a.starts_with(level))
            .map(|a| a.split("::").nth(1).unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        of("::warning"),
        [
            "warning title=council guard%3A action%3Acomment",
            "warning title=council ledger%3A action%3Acomment"
        ],
        "a refused write is a warning (SPEC)"
    );
    assert_eq!(
        of("::notice"),
        [
            "notice title=council artifact",
            "notice title=council guard%3A action%3Aclose-pr"
        ],
        "the close that needed the explanation, and the artifact service (not in this test)"
    );
    let ctx = run.audit(2);
    assert_eq!(
        ctx["timeline"].as_array().unwrap().len(),
        4,
        "the ledger still lands in the audit file"
    );
    gh.expect_writes(&["POST /issues/2/comments", "POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn dry_run_makes_no_write_call_and_still_writes_the_audit_file() {
    let gh = FakeGitHub::start().await;
    gh.policy("master", None).await;
    let run = Council::action()
        .api(&gh.uri())
        .input("close-on-fail", "true")
        .input("dry-run", "true")
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(
        gh.writes().await,
        Vec::<String>::new(),
        "no write call in a dry run"
    );
    let timeline = run.audit(2)["timeline"].as_array().unwrap().clone();
    assert_eq!(timeline[2]["action"], "action:comment");
    assert_eq!(timeline[2]["result"], "SKIPPED");
}

#[tokio::test(flavor = "multi_thread")]
async fn api_outages_are_retried_then_exit_3_with_advice() {
    let gh = FakeGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(wiremock::ResponseTemplate::new(503).set_body_string("upstream down"))
        .mount(&gh.server)
        .await;
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(3);
    assert_eq!(gh.non_ledger_requests().await.len(), 5, "bounded retries");
    let annotations = run.annotations().join("\n");
    assert!(
        annotations.contains("gave up after 5 attempts"),
        "{annotations}"
    );
    assert!(annotations.contains("re-run the job"), "{annotations}");
    run.assert_no_secret("ghs_test_token_value");
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_limits_are_waited_out_honouring_retry_after() {
    let gh = FakeGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(
            wiremock::ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(json!({"message": "API rate limit exceeded"})),
        )
        .up_to_n_times(1)
        .mount(&gh.server)
        .await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .respond_with(
            wiremock::ResponseTemplate::new(403)
                .set_body_json(json!({"message": "You have exceeded a secondary rate limit"}))
                .insert_header("retry-after", "1"),
        )
        .up_to_n_times(1)
        .mount(&gh.server)
        .await;
    gh.policy("master", None).await;
    let started = std::time::Instant::now();
    let run = Council::action()
        .api(&gh.uri())
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(1);
    assert_eq!(gh.non_ledger_requests().await.len(), 3);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(2),
        "Retry-After was honoured"
    );
    gh.expect_writes(&["POST /issues/2/comments"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_reads_a_local_policy_and_needs_no_token() {
    let run = Council::cli()
        .args(&["guard", "--dry-run"])
        .workspace_file(
            ".github/council.yml",
            "branches:\n  rules:\n    - pattern: \"*\"\n      targets: [master]\n",
        )
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(0);
    assert!(run.stdout.starts_with("guard PASS on #2"), "{}", run.stdout);
    assert!(run.workspace.path().join("out/audit/PR-2.json").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_explicit_cli_policy_is_exit_2() {
    let run = Council::cli()
        .args(&["guard", "--policy", "nope.yml"])
        .event("pull_request", fixture("pull_request.opened"))
        .process()
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("nope.yml"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn events_no_stage_handles_end_with_a_notice_and_exit_0() {
    for (name, file) in [
        ("pull_request", "pull_request.closed"),
        ("pull_request", "pull_request.assigned"),
        ("issue_comment", "issue_comment.deleted"),
        ("workflow_dispatch", "workflow_dispatch"),
    ] {
        let run = Council::action()
            .event(name, fixture(file))
            .process()
            .run()
            .await;
        run.assert_code(0);
        assert!(
            run.annotations()[0].starts_with("::notice"),
            "{file}: {:?}",
            run.annotations()
        );
        assert_eq!(run.output("guard-status"), "PENDING");
    }
}

/// The README's first command works as written (paths resolved from the repository).
#[test]
fn the_readme_first_command_passes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("cargo run --locked -- guard"))
        .expect("the README names the command");
    let args: Vec<String> = line
        .split_whitespace()
        .skip_while(|w| *w != "--")
        .skip(1)
        .map(|w| {
            let p = root.join(w);
            if p.exists() {
                p.display().to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut readme_run = std::process::Command::new(env!("CARGO_BIN_EXE_council"));
    readme_run.args(&args).current_dir(dir.path()).env_clear();
    let out = crate::support::output_within(readme_run, crate::support::RUN_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The number is the example event's (examples/ and tests/data/events/ use different
    // ones, so the README's two runs do not overwrite each other's audit file).
    let event = args[args.iter().position(|a| a == "--event").unwrap() + 1].clone();
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(event).unwrap()).unwrap();
    let number = payload["number"].as_u64().unwrap();
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/events/pull_request.opened.json")).unwrap(),
    )
    .unwrap();
    assert_ne!(Some(number), fixture["number"].as_u64());
    assert!(
        stdout.starts_with(&format!("guard PASS on #{number}")),
        "{stdout}"
    );
    assert!(
        dir.path()
            .join(format!("out/audit/PR-{number}.json"))
            .exists()
    );
}
