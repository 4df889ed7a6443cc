//! Hostile and malformed input: a clear message and exit 2 (or a FAIL verdict), never a panic.

use serde_json::Value;

use crate::support::fake_github::FakeGitHub;
use crate::support::{Council, fixture, pr_event};

fn assert_clean(run: &crate::support::Run) {
    assert!(!run.stderr.contains("panicked"), "panic: {}", run.stderr);
    assert!(!run.stdout.contains("panicked"), "panic: {}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_event_files_are_exit_2() {
    let full = serde_json::to_string(&fixture("pull_request.opened")).unwrap();
    for text in [
        "",
        "{",
        &full[..full.len() / 2],
        "null",
        "[]",
        "\"text\"",
        "{\"action\": []}",
        "\u{0}\u{1}",
    ] {
        let run = Council::action()
            .raw_event("pull_request", text)
            .run()
            .await;
        assert_clean(&run);
        run.assert_code(2);
        assert!(
            run.annotations()[0].starts_with("::error title=council%3A bad event"),
            "{:?}",
            run.annotations()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_fields_are_named() {
    for (pointer, field) in [
        ("/pull_request/head", "pull_request.head.ref"),
        ("/pull_request/base/ref", "pull_request.base.ref"),
        ("/pull_request/number", "pull_request.number"),
        ("/pull_request/user", "pull_request.user.login"),
        ("/pull_request", "pull_request"),
    ] {
        let mut event = fixture("pull_request.opened");
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let parent = if parent.is_empty() {
            &mut event
        } else {
            event.pointer_mut(parent).unwrap()
        };
        parent.as_object_mut().unwrap().remove(key);
        let run = Council::action().event("pull_request", event).run().await;
        assert_clean(&run);
        run.assert_code(2);
        assert!(
            run.stdout.contains(&format!("`{field}`")),
            "{field}: {}",
            run.stdout
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_event_name_is_bad_input() {
    // The runner says pull_request, but the payload is an issue comment.
    let run = Council::action()
        .event("pull_request", fixture("issue_comment.created"))
        .run()
        .await;
    run.assert_code(2);
    // guard asked for explicitly on a push event
    let run = Council::cli()
        .args(&["guard"])
        .event("push", fixture("push"))
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("pull_request"), "{}", run.stderr);
    // An event name nobody knows, under auto: a notice.
    let run = Council::action()
        .event("made_up_event", fixture("push"))
        .run()
        .await;
    run.assert_code(0);
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_branch_names_fail_with_escaped_output() {
    let names = [
        "has space",
        "a..b",
        &"x".repeat(300),
        "feаture/devops/PBI-1-x",
        "feature/devops/PBI-1-\u{202E}nigol",
        "<img src=x onerror=alert(1)>",
        "**bold** [link](http://evil) @everyone",
        "x|y`z`</sub><script>",
    ];
    for name in names {
        let gh = FakeGitHub::start().await;
        gh.policy("develop", None).await;
        let run = Council::action()
            .api(&gh.uri())
            .event("pull_request", pr_event("opened", name, "develop"))
            .run()
            .await;
        assert_clean(&run);
        run.assert_code(1);
        assert!(!run.summary.contains("<img"), "{}", run.summary);
        assert!(!run.summary.contains("<script"), "{}", run.summary);
        assert!(!run.summary.contains("\u{202E}"), "bidi override shown raw");
        assert!(
            !run.summary.contains("@everyone"),
            "mention not neutralised"
        );
        let ctx: Value = run.audit(2);
        assert_eq!(
            ctx["subject"]["source_branch"], name,
            "the audit keeps the raw name"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_policies_are_exit_2() {
    for policy in [
        "branches:\n  rules:\n    - regex: \"[\"\n      targets: [main]\n",
        "branches:\n  unknown: 1\n",
        "a: &a [x, *a]\n",
        "branches: !!binary aGVsbG8=\n",
        "\t- tab",
    ] {
        let gh = FakeGitHub::start().await;
        gh.policy("master", Some(policy)).await;
        let run = Council::action()
            .api(&gh.uri())
            .event("pull_request", fixture("pull_request.opened"))
            .run()
            .await;
        assert_clean(&run);
        run.assert_code(2);
        assert!(
            run.stdout.contains(".github/council.yml@master"),
            "{policy}: {}",
            run.stdout
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_inputs_are_exit_2_naming_the_input() {
    let run = Council::action()
        .input("dry-run", "maybe")
        .event("pull_request", fixture("pull_request.opened"))
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stderr.contains("input `dry-run`"), "{}", run.stderr);
    let run = Council::action()
        .input("command", "merge-everything")
        .event("pull_request", fixture("pull_request.opened"))
        .run()
        .await;
    run.assert_code(2);
    let run = Council::action()
        .input("github-token", "")
        .event("pull_request", fixture("pull_request.opened"))
        .run()
        .await;
    run.assert_code(2);
    assert!(run.stdout.contains("github-token"), "{}", run.stdout);
}
