use super::*;

fn err(text: &str) -> (String, String) {
    match Policy::parse(text, ".github/council.yml@main") {
        Err(Error::Policy { location, message }) => (location, message),
        other => panic!("expected a policy error, got {other:?}"),
    }
}

/// The whole error as the user reads it: `policy FILE:LINE:COLUMN: FIELD: MESSAGE`.
fn said(text: &str) -> String {
    let (location, message) = err(text);
    Error::Policy { location, message }.to_string()
}

/// A rules section of `n` rules; `rule(i)` is one rule's YAML in flow style.
fn rules(n: usize, rule: impl Fn(usize) -> String) -> String {
    let mut out = String::from("branches:\n  rules:\n");
    for i in 0..n {
        out.push_str(&format!("    - {}\n", rule(i)));
    }
    out
}

fn flow_list(n: usize, item: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(item).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn unknown_keys_are_errors_with_file_line_column_and_field() {
    insta::assert_snapshot!(said("branches:\n  rulez: []\n"), @"policy .github/council.yml@main:2:3: branches.rulez: unknown field `rulez`, expected one of case_sensitive, exempt, rules");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - pattern: \"x/*\"\n      targets: [main]\n      colour: red\n"), @"policy .github/council.yml@main:5:7: branches.rules[0].colour: unknown field `colour`, expected one of name, pattern, regex, targets, message");
    insta::assert_snapshot!(said("reveiw:\n  task_list: true\n"), @"policy .github/council.yml@main:1:1: reveiw: unknown field `reveiw`, expected one of version, branches, review, release, agent_state, queue, actors");
    insta::assert_snapshot!(said("review:\n  docs:\n    code: []\n    docs: []\n    skip: x\n"), @"policy .github/council.yml@main:5:5: review.docs.skip: unknown field `skip`, expected one of code, docs, map, skip_label");
    insta::assert_snapshot!(said("release:\n  required_check: [ci]\n"), @"policy .github/council.yml@main:2:3: release.required_check: unknown field `required_check`, expected one of merge_method, required_approvals, required_checks, require_label, neutral_is_green, rollback");
    insta::assert_snapshot!(said("agent_state:\n  trusted: [x]\n"), @"policy .github/council.yml@main:2:3: agent_state.trusted: unknown field `trusted`, expected one of trusted_authors, max_tool_calls");
}

#[test]
fn wrong_types_name_the_field() {
    insta::assert_snapshot!(said("review:\n  secret_scan: maybe\n"), @"policy .github/council.yml@main:2:16: review.secret_scan: expected true or false, found `maybe`");
    insta::assert_snapshot!(said("review:\n  diff_size:\n    max_files: ten # files\n"), @"policy .github/council.yml@main:3:16: review.diff_size.max_files: expected a whole number (0 or more), found `ten`");
    insta::assert_snapshot!(said("release:\n  required_approvals: -1\n"), @"policy .github/council.yml@main:2:23: release.required_approvals: expected a whole number from 0 to 4294967295, found `-1`");
    insta::assert_snapshot!(said("release:\n  merge_method: fast\n"), @"policy .github/council.yml@main:2:17: release.merge_method: unknown variant `fast`, expected one of merge, squash, rebase");
    insta::assert_snapshot!(said("branches:\n  exempt: [\"a/**\", {b: c}]\n"), @"policy .github/council.yml@main:2:20: branches.exempt[1]: expected string scalar");
    insta::assert_snapshot!(said("review:\n  docs:\n    code: [a]\n    docs: [b]\n    map:\n      - {code: [x], docs: y}\n"), @"policy .github/council.yml@main:6:27: review.docs.map[0].docs: expected a list (`[a, b]`, or one `- a` line each)");
    insta::assert_snapshot!(said("version: 2\n"), @"policy .github/council.yml@main:1:10: version: version 2 is not supported; this council reads version 1");
    assert!(
        err("branches: [\n")
            .0
            .starts_with(".github/council.yml@main:")
    );
    assert!(err("- a\n- b\n").0.starts_with(".github/council.yml@main:"));
}

#[test]
fn invalid_regexes_and_rules_are_located_and_named() {
    insta::assert_snapshot!(said("branches:\n  rules:\n    - regex: \"(\"\n      targets: [main]\n"), @"policy .github/council.yml@main:3:14: branches.rules[0].regex: invalid regex `(`: unclosed group");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - pattern: a\n      targets: [main]\n    - pattern: a\n      regex: b\n      targets: [main]\n"), @"policy .github/council.yml@main:5:7: branches.rules[1]: a rule has both `pattern` and `regex`; keep one");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - name: x\n      targets: [main]\n"), @"policy .github/council.yml@main:3:7: branches.rules[0]: a rule needs `pattern` (a glob) or `regex`");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - pattern: a\n"), @"policy .github/council.yml@main:3:7: branches.rules[0].targets: rule `a` lists no `targets`");
    insta::assert_snapshot!(said("branches:\n  rules: []\n"), @"policy .github/council.yml@main:2:10: branches.rules: empty, so every pull request would fail; remove the key to use the default rules");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - pattern: \"\"\n      targets: [main]\n"), @"policy .github/council.yml@main:3:16: branches.rules[0].pattern: an empty pattern matches no branch");
    insta::assert_snapshot!(said("branches:\n  exempt: [a, \"\"]\n"), @"policy .github/council.yml@main:2:15: branches.exempt[1]: an empty glob matches no branch");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - pattern: a\n      targets: [main, \"\"]\n"), @"policy .github/council.yml@main:4:23: branches.rules[0].targets[1]: an empty glob matches no branch");
}

#[test]
fn a_regex_matches_the_whole_name_even_with_a_top_level_alternation() {
    let p = Policy::parse(
        "branches:\n  rules:\n    - regex: \"main|develop\"\n      targets: [x]\n",
        "p.yml",
    )
    .unwrap();
    let matches = |head: &str| p.branches.matching_rules(head).count() == 1;
    assert!(matches("main") && matches("develop"));
    for head in ["xmain", "mainx", "xdevelop", "developx", "main|develop"] {
        assert!(!matches(head), "{head}");
    }
}

#[test]
fn a_regex_cannot_escape_its_anchors() {
    // Wrapped as text, `a)|(b` would read `^(?:a)|(b)$`: every name starting with `a`.
    insta::assert_snapshot!(said("branches:\n  rules:\n    - regex: \"a)|(b\"\n      targets: [main]\n"), @"policy .github/council.yml@main:3:14: branches.rules[0].regex: invalid regex `a)|(b`: unopened group");
    insta::assert_snapshot!(said("branches:\n  rules:\n    - regex: \"(?x)main # a comment\"\n      targets: [main]\n"), @"policy .github/council.yml@main:3:14: branches.rules[0].regex: regex `(?x)main # a comment` cannot be anchored to the whole name: its trailing `#` comment (verbose mode) would swallow the anchor; end the comment with a line break");
}

#[test]
fn lists_stop_at_the_limit() {
    let exempt = |n| {
        format!(
            "branches:\n  exempt: {}\n",
            flow_list(n, |i| format!("b{i}/**"))
        )
    };
    assert_eq!(
        Policy::parse(&exempt(MAX_LIST), "p")
            .unwrap()
            .branches
            .exempt
            .len(),
        MAX_LIST
    );
    insta::assert_snapshot!(said(&exempt(MAX_LIST + 1)), @"policy .github/council.yml@main:2:11: branches.exempt: more than 1000 entries, the limit for a list");
    let targets = |n| {
        rules(1, |_| {
            format!(
                "{{pattern: a, targets: {}}}",
                flow_list(n, |i| format!("t{i}"))
            )
        })
    };
    assert!(Policy::parse(&targets(MAX_LIST), "p").is_ok());
    insta::assert_snapshot!(said(&targets(MAX_LIST + 1)), @"policy .github/council.yml@main:3:29: branches.rules[0].targets: more than 1000 entries, the limit for a list");
    let code = format!(
        "review:\n  docs:\n    code: {}\n    docs: [d]\n",
        flow_list(MAX_LIST + 1, |i| format!("c{i}"))
    );
    insta::assert_snapshot!(said(&code), @"policy .github/council.yml@main:3:11: review.docs.code: more than 1000 entries, the limit for a list");
    let map_docs = format!(
        "review:\n  docs:\n    code: [c]\n    docs: [d]\n    map:\n      - code: [c]\n        docs: {}\n",
        flow_list(MAX_LIST + 1, |i| format!("d{i}"))
    );
    insta::assert_snapshot!(said(&map_docs), @"policy .github/council.yml@main:7:15: review.docs.map[0].docs: more than 1000 entries, the limit for a list");
    let checks = format!(
        "release:\n  required_checks: {}\n",
        flow_list(MAX_LIST + 1, |i| format!("ci{i}"))
    );
    insta::assert_snapshot!(said(&checks), @"policy .github/council.yml@main:2:20: release.required_checks: more than 1000 entries, the limit for a list");
    let authors = format!(
        "agent_state:\n  trusted_authors: {}\n",
        flow_list(MAX_LIST + 1, |i| format!("bot{i}"))
    );
    insta::assert_snapshot!(said(&authors), @"policy .github/council.yml@main:2:20: agent_state.trusted_authors: more than 1000 entries, the limit for a list");
}

#[test]
fn rules_stop_at_the_limit() {
    let policy = |n| rules(n, |i| format!("{{pattern: \"r{i}/*\", targets: [main]}}"));
    assert_eq!(
        Policy::parse(&policy(MAX_RULES), "p")
            .unwrap()
            .branches
            .rules
            .len(),
        MAX_RULES
    );
    insta::assert_snapshot!(said(&policy(MAX_RULES + 1)), @"policy .github/council.yml@main:3:5: branches.rules: more than 1000 entries, the limit for a list");
}

#[test]
fn regexes_share_one_size_budget() {
    // `\w` is Unicode: tens of KiB compiled. One regex over the budget is named ...
    let huge = rules(2, |i| {
        if i == 0 {
            "{pattern: a, targets: [main]}".to_string()
        } else {
            "{regex: \"\\\\w{1000}\", targets: [main]}".to_string()
        }
    });
    insta::assert_snapshot!(said(&huge), @"policy .github/council.yml@main:4:15: branches.rules[1].regex: regex `\\w{1000}` takes the rules' regexes over 2 MiB compiled, the limit for all of them together; simplify it (a Unicode class such as `\\w` compiles large; `[a-z0-9_]` does not)");
    // ... and so is the rule whose regex takes many modest ones over it together.
    let many = rules(400, |i| {
        format!("{{regex: \"r{i}/\\\\w+-\\\\w+\", targets: [main]}}")
    });
    insta::assert_snapshot!(said(&many), @"policy .github/council.yml@main:23:15: branches.rules[20].regex: regex `r20/\\w+-\\w+` takes the rules' regexes over 2 MiB compiled, the limit for all of them together; simplify it (a Unicode class such as `\\w` compiles large; `[a-z0-9_]` does not)");
    // A modest policy of Unicode classes fits.
    assert!(
        Policy::parse(
            &rules(10, |i| format!(
                "{{regex: \"r{i}/\\\\w+-\\\\w+\", targets: [main]}}"
            )),
            "p"
        )
        .is_ok()
    );
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
    insta::assert_snapshot!(said(&"x".repeat(2 << 20)), @"policy .github/council.yml@main: 2097152 bytes, more than the 1 MiB a policy may hold");
    assert!(Policy::parse("\u{0}\u{1}\u{2}", "p").is_err());
}

/// One anchored rule with a long target list, repeated by alias: small text, a huge policy.
fn alias_policy(targets: usize, target: impl Fn(usize) -> String, copies: usize) -> String {
    let list = flow_list(targets, target);
    let mut out = format!("branches:\n  rules:\n    - &r {{pattern: \"x/*\", targets: {list}}}\n");
    for _ in 0..copies {
        out.push_str("    - *r\n");
    }
    out
}

#[test]
fn alias_expansion_is_bounded_by_text_and_by_values() {
    // Many bytes: 1,000 targets of 100 bytes, 20 times, is 2 MB of text.
    let text = alias_policy(1000, |i| format!("{i:0100}"), 20);
    assert!(text.len() < 200_000);
    insta::assert_snapshot!(said(&text), @"policy .github/council.yml@main:13:7: branches.rules[10].targets: more than 1 MiB of text with aliases expanded, the limit for a policy");
    // Many values: 1,000 one-byte targets, 999 times, is under 1 MiB but a million values.
    // The limit on values is what lets such a file fail in milliseconds.
    let values = alias_policy(1000, |_| "a".to_string(), 999);
    insta::assert_snapshot!(said(&values), @"policy .github/council.yml@main:68:7: branches.rules[65].targets: more than 65536 values with aliases expanded, the limit for a policy");
    // Reusing one list honestly is fine, however many aliases.
    let reuse = "branches:\n  rules:\n    - {pattern: \"a/*\", targets: &t [main, develop]}\n"
        .to_string()
        + &(0..500)
            .map(|i| format!("    - {{pattern: \"b{i}/*\", targets: *t}}\n"))
            .collect::<String>();
    assert_eq!(
        Policy::parse(&reuse, "p").unwrap().branches.rules.len(),
        501
    );
}

#[test]
fn deep_nesting_is_refused() {
    // Nothing in the schema nests freely, so the first level too deep is a type error, or
    // the parser's own nesting limit when it reads ahead; the budget's depth stays behind.
    let deep = format!(
        "branches:\n  exempt: {}{}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    insta::assert_snapshot!(said(&deep), @"policy .github/council.yml@main:2:12: branches.exempt[0]: expected string scalar");
    let deeper = format!(
        "branches:\n  exempt: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    insta::assert_snapshot!(said(&deeper), @"policy .github/council.yml@main:2:266: branches.exempt: recursion limit exceeded");
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
    let p = Policy::parse("branches:\n  exempt: [\"bots/**\"]\n", "p.yml").unwrap();
    assert_eq!(p.branches.rules.len(), 3);
    assert!(p.branches.exemption("bots/x").is_some());
    assert_eq!(p.branches.matching_rules("hotfix/BUG-1-x").count(), 1);
}

#[test]
fn rules_match_heads_and_ignore_case_for_hints() {
    let p = Policy::parse(
        "branches:\n  rules:\n    - pattern: \"feature/*\"\n      targets: [develop]\n    - regex: \"Hotfix/\\\\d+\"\n      targets: [\"release/*\", main]\n",
        "p.yml",
    )
    .unwrap();
    let b = &p.branches;
    let labels = |head: &str| b.matching_rules(head).map(Rule::label).collect::<Vec<_>>();
    assert_eq!(labels("feature/x"), ["feature/*"]);
    assert_eq!(labels("Hotfix/12"), ["Hotfix/\\d+"]);
    assert!(labels("hotfix/12").is_empty() && labels("Feature/x").is_empty());
    let hint = |names: &[&str]| b.rule_ignoring_case(names).map(Rule::label);
    assert_eq!(hint(&["hotfix/12"]).as_deref(), Some("Hotfix/\\d+"));
    assert_eq!(hint(&["FEATURE/X"]).as_deref(), Some("feature/*"));
    assert_eq!(hint(&["bugfix/1"]), None);
    let rule = b.matching_rules("Hotfix/1").next().unwrap();
    assert!(rule.allows_target("release/2026.1") && rule.allows_target("main"));
    assert!(!rule.allows_target("release/a/b") && !rule.allows_target("Main"));
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
    assert!(p.branches.rules[1].allows_target("MAIN"));
    assert_eq!(p.branches.matching_rules("HOTFIX/V2").count(), 1);
    assert!(p.branches.exemption("Dependabot/npm/x").is_some());
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

/// The documented example policy, `council.example.yml` at the repository root.
#[allow(clippy::disallowed_methods)] // a test reads its fixture
fn example_policy() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../council.example.yml"
    ))
    .unwrap()
}

#[test]
fn the_documented_example_release_section_is_the_default() {
    let text = example_policy();
    let example = Policy::parse(&text, "council.example.yml").unwrap();
    assert_eq!(example.release, crate::policy::Release::default());
    assert_eq!(example.review.approve_label, "bot-approved");
}

#[test]
fn the_documented_example_actors_section_is_the_default() {
    let example = Policy::parse(&example_policy(), "council.example.yml")
        .unwrap()
        .actors;
    let default = Policy::default_policy().actors;
    let globs = |g: &[actors::ActorGlob]| g.iter().map(|g| g.glob.clone()).collect::<Vec<_>>();
    let trailers = |a: &Actors| {
        a.agents
            .trailers
            .iter()
            .map(|g| g.glob.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(globs(&example.agents.logins), globs(&default.agents.logins));
    assert_eq!(
        globs(&example.agents.branches),
        globs(&default.agents.branches)
    );
    assert_eq!(trailers(&example), trailers(&default));
    assert_eq!(example.agents.labels, default.agents.labels);
    assert_eq!(example.agent.human_approvals, default.agent.human_approvals);
    assert_eq!(example.agent.forbidden_paths, default.agent.forbidden_paths);
    assert_eq!(example.agent.diff_size, default.agent.diff_size);
    assert_eq!(example.agent.label, default.agent.label);
}

#[test]
fn the_documented_example_parses_and_matches_the_default_policy() {
    let text = example_policy();
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

#[test]
fn the_queue_section_defaults_as_spec_says() {
    let p = Policy::parse("", "p.yml").unwrap();
    assert_eq!(p.queue, Queue::defaults(&Release::default()));
    assert!(!p.queue.enabled);
    assert_eq!(p.queue.branch_prefix, "council/queue/");
    assert_eq!(p.queue.priority_labels, ["queue:urgent"]);
    assert!(p.queue.required_checks.is_empty());
    assert_eq!((p.queue.timeout_minutes, p.queue.batch_size), (60, 1));
    // required_checks: release's unless the queue names its own (even none).
    let p = Policy::parse(
        "release:\n  required_checks: [ci, lint]\nqueue:\n  enabled: true\n",
        "p.yml",
    )
    .unwrap();
    assert!(p.queue.enabled);
    assert_eq!(p.queue.required_checks, ["ci", "lint"]);
    assert_eq!(p.queue.required_checks_key, "release.required_checks");
    let p = Policy::parse(
        "release:\n  required_checks: [ci]\nqueue:\n  required_checks: []\n",
        "p.yml",
    )
    .unwrap();
    assert!(p.queue.required_checks.is_empty());
    assert_eq!(p.queue.required_checks_key, "queue.required_checks");
    let p = Policy::parse(
        "queue:\n  enabled: true\n  branch_prefix: \"mq/\"\n  priority_labels: []\n  required_checks: [\"ci / test\"]\n  timeout_minutes: 1440\n  batch_size: 16\n",
        "p.yml",
    )
    .unwrap();
    assert_eq!(p.queue.branch("main"), "mq/main");
    assert!(p.queue.priority_labels.is_empty());
    assert_eq!((p.queue.timeout_minutes, p.queue.batch_size), (1440, 16));
}

#[test]
fn queue_errors_name_file_line_column_and_field() {
    insta::assert_snapshot!(said("queue:\n  enable: true\n"), @"policy .github/council.yml@main:2:3: queue.enable: unknown field `enable`, expected one of enabled, branch_prefix, priority_labels, required_checks, timeout_minutes, batch_size");
    insta::assert_snapshot!(said("queue:\n  batch_size: 0\n"), @"policy .github/council.yml@main:2:15: queue.batch_size: 0 is out of range: from 1 to 16");
    insta::assert_snapshot!(said("queue:\n  batch_size: 17\n"), @"policy .github/council.yml@main:2:15: queue.batch_size: 17 is out of range: from 1 to 16");
    insta::assert_snapshot!(said("queue:\n  batch_size: -1\n"), @"policy .github/council.yml@main:2:15: queue.batch_size: expected a whole number (0 or more), found `-1`");
    insta::assert_snapshot!(said("queue:\n  timeout_minutes: 0\n"), @"policy .github/council.yml@main:2:20: queue.timeout_minutes: 0 is out of range: from 1 to 1440");
    insta::assert_snapshot!(said("queue:\n  timeout_minutes: 99999999999999999999\n"), @"policy .github/council.yml@main:2:20: queue.timeout_minutes: expected a whole number (0 or more), found `99999999999999999999`");
    insta::assert_snapshot!(said("queue:\n  enabled: yes please\n"), @"policy .github/council.yml@main:2:12: queue.enabled: expected true or false, found `yes please`");
    insta::assert_snapshot!(said("queue:\n  branch_prefix: \"council/../main/\"\n"), @"policy .github/council.yml@main:2:18: queue.branch_prefix: `council/../main/` is not a branch prefix: `..` may not appear in a branch name");
    insta::assert_snapshot!(said("queue:\n  branch_prefix: \"council/queue\"\n"), @"policy .github/council.yml@main:2:18: queue.branch_prefix: `council/queue` is not a branch prefix: it must end with `/` (the queue branch is the prefix followed by the base's name)");
    insta::assert_snapshot!(said("queue:\n  branch_prefix: \"a\\u202Eb/\"\n"), @"policy .github/council.yml@main:2:18: queue.branch_prefix: `a<U+202E>b/` is not a branch prefix: it holds U+202E, and a branch name may hold no space, control or invisible character");
    insta::assert_snapshot!(said("queue:\n  priority_labels: [urgent, \"\"]\n"), @"policy .github/council.yml@main:2:29: queue.priority_labels[1]: an empty label name matches no label");
    insta::assert_snapshot!(said("queue:\n  priority_labels: urgent\n"), @"policy .github/council.yml@main:2:20: queue.priority_labels: expected a list (`[a, b]`, or one `- a` line each)");
    let labels = format!(
        "queue:\n  priority_labels: {}\n",
        flow_list(MAX_LIST + 1, |i| format!("l{i}"))
    );
    insta::assert_snapshot!(said(&labels), @"policy .github/council.yml@main:2:20: queue.priority_labels: more than 1000 entries, the limit for a list");
    let checks = format!(
        "queue:\n  required_checks: {}\n",
        flow_list(MAX_LIST + 1, |i| format!("ci{i}"))
    );
    insta::assert_snapshot!(said(&checks), @"policy .github/council.yml@main:2:20: queue.required_checks: more than 1000 entries, the limit for a list");
}

#[test]
fn the_documented_example_queue_section_is_the_default() {
    let text = example_policy();
    assert!(
        text.contains("\nqueue:\n"),
        "council.example.yml documents `queue`"
    );
    let example = Policy::parse(&text, "council.example.yml").unwrap();
    assert_eq!(example.queue, Queue::defaults(&example.release));
}
