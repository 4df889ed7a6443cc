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
        // The one write, the Context Object comment, is as escaped as the summary.
        let writes = gh.take_writes();
        assert_eq!(writes.len(), 1, "{writes:?}");
        let comment = writes[0].body["body"].as_str().unwrap_or_default();
        for raw in ["<img", "<script", "\u{202E}"] {
            assert!(
                !comment.contains(raw),
                "{raw} raw in the comment:\n{comment}"
            );
        }
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

/// The case: 261 KB of YAML whose aliases expand to ~240,000 globs (it took over a
/// minute and 2.2 GB). Now the expansion stops at the limit on values, in milliseconds.
fn alias_flood() -> String {
    let mut text = String::from("branches:\n  rules:\n");
    for a in 0..25 {
        let targets: Vec<String> = (0..950).map(|i| format!("\"{a:02}-{i:05}\"")).collect();
        text.push_str(&format!(
            "    - &r{a}\n      pattern: \"x{a}/*\"\n      targets: [{}]\n",
            targets.join(",")
        ));
    }
    for a in 0..25 {
        text.push_str(&format!("    - *r{a}\n").repeat(9));
    }
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn policies_beyond_the_limits_are_exit_2_naming_field_and_limit() {
    let many =
        |n: usize, item: &dyn Fn(usize) -> String| (0..n).map(item).collect::<Vec<_>>().join(", ");
    let cases = [
        (
            alias_flood(),
            "more than 65536 values with aliases expanded",
        ),
        (
            format!(
                "branches:\n  rules: [{}]\n",
                many(1001, &|i| format!(
                    "{{pattern: \"r{i}/*\", targets: [main]}}"
                ))
            ),
            "branches.rules: more than 1000 entries",
        ),
        (
            format!(
                "branches:\n  exempt: [{}]\n",
                many(1001, &|i| format!("b{i}/**"))
            ),
            "branches.exempt: more than 1000 entries",
        ),
        (
            "branches:\n  rules:\n    - regex: \"\\\\w{1000}\"\n      targets: [main]\n"
                .to_string(),
            "branches.rules[0].regex: regex `\\w{1000}` takes the rules' regexes over 2 MiB",
        ),
        (
            "branches:\n  rules:\n    - regex: \"a)|(b\"\n      targets: [main]\n".to_string(),
            "branches.rules[0].regex: invalid regex `a)|(b`",
        ),
        (
            format!(
                "branches:\n  exempt: {}{}\n",
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
            "branches.exempt: recursion limit exceeded",
        ),
    ];
    assert!(cases[0].0.len() > 250_000);
    for (policy, said) in cases {
        let run = Council::cli()
            .args(&["guard", "--dry-run"])
            .workspace_file(".github/council.yml", &policy)
            .event("pull_request", fixture("pull_request.opened"))
            .run()
            .await;
        assert_clean(&run);
        run.assert_code(2);
        assert!(
            run.stderr.contains("policy .github/council.yml:") && run.stderr.contains(said),
            "{said}: {}",
            run.stderr
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
    // In Actions a bad input is an annotation and a summary section, like every error,
    // and the outputs are still written.
    assert!(
        run.annotations()
            .iter()
            .any(|a| a.starts_with("::error") && a.contains("input `dry-run`")),
        "{}",
        run.stdout
    );
    assert!(run.summary.contains("dry-run"), "{}", run.summary);
    assert_eq!(run.output("guard-status"), "PENDING");
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
