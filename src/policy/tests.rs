use super::*;

fn err(text: &str) -> (String, String) {
    match Policy::parse(text, ".github/council.yml@main") {
        Err(Error::Policy { location, message }) => (location, message),
        other => panic!("expected a policy error, got {other:?}"),
    }
}

#[test]
fn unknown_keys_are_errors_with_file_line_and_column() {
    insta::assert_debug_snapshot!(err("branches:\n  rulez: []\n"), @r#"
    (
        ".github/council.yml@main:2:3",
        "unknown field `rulez`, expected one of case_sensitive, exempt, rules",
    )
    "#);
    insta::assert_debug_snapshot!(err("branches:\n  rules:\n    - pattern: \"x/*\"\n      targets: [main]\n      colour: red\n"), @r#"
    (
        ".github/council.yml@main:5:7",
        "unknown field `colour`, expected one of name, pattern, regex, targets, message",
    )
    "#);
    assert_eq!(
        err("reveiw:\n  task_list: true\n").0,
        ".github/council.yml@main:1:1"
    );
    assert_eq!(
        err("review:\n  docs:\n    code: []\n    docs: []\n    skip: x\n").0,
        ".github/council.yml@main:5:5"
    );
    assert_eq!(
        err("release:\n  required_check: [ci]\n").0,
        ".github/council.yml@main:2:3"
    );
    assert_eq!(
        err("agent_state:\n  trusted: [x]\n").0,
        ".github/council.yml@main:2:3"
    );
}

#[test]
fn invalid_regexes_and_rules_are_located() {
    insta::assert_debug_snapshot!(err("branches:\n  rules:\n    - regex: \"(\"\n      targets: [main]\n"), @r#"
    (
        ".github/council.yml@main:3:14",
        "invalid regex `(`: unclosed group",
    )
    "#);
    assert!(
        err("branches:\n  rules:\n    - pattern: a\n      regex: b\n      targets: [main]\n")
            .1
            .contains("both")
    );
    assert!(
        err("branches:\n  rules:\n    - name: x\n      targets: [main]\n")
            .1
            .contains("needs `pattern`")
    );
    assert!(
        err("branches:\n  rules:\n    - pattern: a\n")
            .1
            .contains("lists no `targets`")
    );
    assert!(
        err("branches:\n  rules: []\n")
            .1
            .contains("every pull request would fail")
    );
    assert!(
        err("branches:\n  rules:\n    - pattern: \"\"\n      targets: [main]\n")
            .1
            .contains("empty")
    );
}

#[test]
fn wrong_types_and_versions_are_errors() {
    assert_eq!(err("review:\n  secret_scan: maybe\n").1, "invalid boolean");
    assert!(
        err("release:\n  merge_method: fast\n")
            .1
            .contains("unknown variant `fast`")
    );
    assert!(err("version: 2\n").1.contains("version 2 is not supported"));
    assert!(
        err("branches: [\n")
            .0
            .starts_with(".github/council.yml@main:")
    );
    assert!(err("- a\n- b\n").0.starts_with(".github/council.yml@main:"));
}

#[test]
fn hostile_yaml_is_refused_not_expanded() {
    let bomb = "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n\
                b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n\
                c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n\
                d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n\
                e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n\
                f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n\
                g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
    assert!(Policy::parse(bomb, "p").is_err());
    assert!(Policy::parse(&"x".repeat(2 << 20), "p").is_err());
    assert!(Policy::parse("\u{0}\u{1}\u{2}", "p").is_err());
}

#[test]
fn empty_files_and_missing_sections_mean_defaults() {
    let p = Policy::parse("", "p.yml").unwrap();
    assert_eq!(p.branches.rules.len(), 3);
    let p = Policy::parse("# only a comment\n", "p.yml").unwrap();
    assert_eq!(p.branches.rules.len(), 3);
    let p = Policy::parse("version: 1\nreview:\n  task_list: true\n", "p.yml").unwrap();
    assert_eq!(p.branches.rules.len(), 3);
    assert!(p.review.task_list && p.review.secret_scan);
    assert_eq!(p.review.approve_label, "bot-approved");
    assert_eq!(p.release, Release::default());
}

#[test]
fn a_full_policy_parses() {
    let p = Policy::parse(
        r#"
version: 1
branches:
  case_sensitive: false
  exempt: ["dependabot/**", "renovate/**"]
  rules:
    - name: release
      pattern: "release/*"
      targets: ["main"]
      message: "Only release branches merge to main."
    - regex: "^hotfix/v\\d+$"
      targets: ["main", "release/*"]
review:
  docs:
    code: ["src/**"]
    docs: ["docs/**", "*.md"]
    map:
      - {code: ["src/api/**"], docs: ["docs/api/**"]}
    skip_label: "no-docs"
  diff_size: {max_files: 100, max_changed_lines: 2000, skip_label: "large-diff-ok"}
  secret_scan: true
  assistant_context: false
  task_list: true
  approve_label: "ok-to-merge"
release:
  merge_method: squash
  required_approvals: 1
  required_checks: ["ci / test"]
  require_label: ""
  neutral_is_green: false
  rollback: true
agent_state:
  trusted_authors: ["my-agent[bot]"]
  max_tool_calls: 40
"#,
        "p.yml",
    )
    .unwrap();
    assert_eq!(p.branches.rules.len(), 2);
    assert_eq!(p.branches.exempt.len(), 2);
    assert!(!p.branches.case_sensitive);
    assert_eq!(p.branches.rules[0].label(), "release (release/*)");
    assert!(p.branches.rules[1].allows_target("release/2026.1"));
    assert_eq!(p.release.merge_method, MergeMethod::Squash);
    assert_eq!(p.release.require_label.as_deref(), Some(""));
    assert_eq!(p.review.docs.as_ref().unwrap().map.len(), 1);
    assert_eq!(p.agent_state.trusted_authors, vec!["my-agent[bot]"]);
    assert_eq!(p.agent_state.max_tool_calls, 40);
    assert_eq!(
        Policy::parse("agent_state: {}\n", "p.yml")
            .unwrap()
            .agent_state
            .max_tool_calls,
        15
    );
    assert!(Policy::parse("agent_state:\n  max_tool_calls: -1\n", "p.yml").is_err());
}

#[test]
fn the_documented_example_parses_and_matches_the_default_policy() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/council.example.yml"))
        .unwrap();
    let example = Policy::parse(&text, "council.example.yml").unwrap();
    let default = Policy::default_policy();
    for (head, base) in [
        ("feature/devops/PBI-001-login", "develop"),
        ("feature/devops/PBI-001-login", "main"),
        ("chore/ci/PBI-2-x", "develop"),
        ("hotfix/INC-1-x", "main"),
        ("hotfix/BUG-1-x", "develop"),
        ("hotfix/BUG-1-x", "release"),
        ("feature/PBI-1-x", "develop"),
        ("Feature/devops/PBI-1-x", "develop"),
        ("changes", "master"),
    ] {
        let verdict = |p: &Policy| {
            let rules: Vec<_> = p.branches.matching_rules(head).collect();
            (
                !rules.is_empty(),
                rules.iter().any(|r| r.allows_target(base)),
            )
        };
        assert_eq!(verdict(&example), verdict(&default), "{head} -> {base}");
    }
}
