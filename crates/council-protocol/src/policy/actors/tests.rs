use super::*;
use crate::error::Error;
use crate::policy::Policy;

fn parse(text: &str) -> Policy {
    Policy::parse(text, "p.yml").unwrap_or_else(|e| panic!("{e}"))
}

/// The whole error as the user reads it: `policy FILE:LINE:COLUMN: FIELD: MESSAGE`.
fn said(text: &str) -> String {
    match Policy::parse(text, ".github/council.yml@main") {
        Err(e @ Error::Policy { .. }) => e.to_string(),
        other => panic!("expected a policy error, got {other:?}"),
    }
}

fn globs(list: &[ActorGlob]) -> Vec<&str> {
    list.iter().map(|g| g.glob.as_str()).collect()
}

fn trailer_globs(a: &Actors) -> Vec<&str> {
    a.agents.trailers.iter().map(|g| g.glob.as_str()).collect()
}

#[test]
fn without_the_section_the_defaults_are_spec_s_values() {
    for actors in [
        Policy::default_policy().actors,
        parse("version: 1\n").actors,
        parse("actors:\n").actors,
        parse("actors: {agents: {}, agent: {}}\n").actors,
    ] {
        assert_eq!(globs(&actors.agents.logins), DEFAULT_LOGINS, "logins");
        assert_eq!(globs(&actors.agents.branches), DEFAULT_BRANCHES);
        assert_eq!(trailer_globs(&actors), DEFAULT_TRAILERS);
        assert_eq!(actors.agents.labels, DEFAULT_LABELS);
        let rules = &actors.agent;
        assert_eq!(rules.human_approvals, 1);
        assert_eq!(rules.forbidden_paths, DEFAULT_FORBIDDEN_PATHS);
        assert_eq!(
            rules.diff_size,
            Some(DiffSize {
                max_files: Some(50),
                max_changed_lines: Some(1000),
                skip_label: None
            })
        );
        assert_eq!(rules.label, "agent-authored");
        assert!(!actors.agents.is_off());
    }
}

#[test]
fn each_key_defaults_on_its_own_and_a_given_list_replaces_its_default() {
    let a = parse("actors:\n  agents:\n    logins: [\"my-bot[bot]\"]\n").actors;
    assert_eq!(globs(&a.agents.logins), ["my-bot[bot]"]);
    assert_eq!(globs(&a.agents.branches), DEFAULT_BRANCHES);
    assert_eq!(trailer_globs(&a), DEFAULT_TRAILERS);
    assert_eq!(a.agents.labels, DEFAULT_LABELS);
    assert_eq!(a.agent.human_approvals, 1);

    let a = parse("actors:\n  agent:\n    human_approvals: 2\n    label: \"\"\n").actors;
    assert_eq!(a.agent.human_approvals, 2);
    assert_eq!(a.agent.label, "");
    assert_eq!(a.agent.forbidden_paths, DEFAULT_FORBIDDEN_PATHS);
    assert!(a.agent.diff_size.is_some());
    assert_eq!(globs(&a.agents.logins), DEFAULT_LOGINS);

    // A diff_size given replaces the default limits as a whole; null turns them off.
    let a = parse("actors:\n  agent:\n    diff_size: {max_files: 10}\n").actors;
    assert_eq!(
        a.agent.diff_size,
        Some(DiffSize {
            max_files: Some(10),
            max_changed_lines: None,
            skip_label: None
        })
    );
    let a = parse("actors:\n  agent:\n    diff_size: null\n    forbidden_paths: []\n").actors;
    assert_eq!(a.agent.diff_size, None);
    assert!(a.agent.forbidden_paths.is_empty());
}

#[test]
fn four_empty_lists_turn_detection_off_and_three_do_not() {
    let off = parse("actors: {agents: {logins: [], branches: [], trailers: [], labels: []}}\n");
    assert!(off.actors.agents.is_off());
    let three = parse("actors: {agents: {logins: [], branches: [], trailers: []}}\n");
    assert!(!three.actors.agents.is_off());
    assert_eq!(three.actors.agents.labels, ["agent"]);
}

#[test]
fn unknown_keys_and_bad_values_name_file_line_column_and_field() {
    insta::assert_snapshot!(said("actors:\n  agnets: {}\n"), @"policy .github/council.yml@main:2:3: actors.agnets: unknown field `agnets`, expected one of agents, agent");
    insta::assert_snapshot!(said("actors:\n  agents:\n    login: [x]\n"), @"policy .github/council.yml@main:3:5: actors.agents.login: unknown field `login`, expected one of logins, branches, trailers, labels");
    insta::assert_snapshot!(said("actors:\n  agent:\n    human_approval: 2\n"), @"policy .github/council.yml@main:3:5: actors.agent.human_approval: unknown field `human_approval`, expected one of human_approvals, forbidden_paths, diff_size, label");
    insta::assert_snapshot!(said("actors:\n  agent:\n    diff_size: {max_file: 2}\n"), @"policy .github/council.yml@main:3:17: actors.agent.diff_size.max_file: unknown field `max_file`, expected one of max_files, max_changed_lines, skip_label");
    insta::assert_snapshot!(said("actors:\n  agent:\n    human_approvals: one\n"), @"policy .github/council.yml@main:3:22: actors.agent.human_approvals: expected a whole number from 0 to 4294967295, found `one`");
    insta::assert_snapshot!(said("actors:\n  agents:\n    logins:\n"), @"policy .github/council.yml@main:3:11: actors.agents.logins: expected a list (`[a, b]`, or one `- a` line each)");
    insta::assert_snapshot!(said("actors:\n  agents:\n    branches: [\"copilot/**\", \"\"]\n"), @"policy .github/council.yml@main:3:30: actors.agents.branches[1]: an empty glob matches nothing");
    insta::assert_snapshot!(said("actors:\n  agents:\n    logins: [~]\n"), @"policy .github/council.yml@main:3:14: actors.agents.logins[0]: expected a glob, found nothing");
    insta::assert_snapshot!(said("actors:\n  agent:\n    label:\n"), @r#"policy .github/council.yml@main:3:10: actors.agent.label: expected a label name ("" for none), found nothing"#);
}

#[test]
fn trailer_globs_are_key_colon_value() {
    insta::assert_snapshot!(said("actors:\n  agents:\n    trailers: [\"Claude\"]\n"), @"policy .github/council.yml@main:3:16: actors.agents.trailers[0]: `Claude` has no `:`; a trailer glob is `Key: value` (e.g. `Co-authored-by: Claude *`)");
    insta::assert_snapshot!(said("actors:\n  agents:\n    trailers: [\"Co authored by: Claude *\"]\n"), @"policy .github/council.yml@main:3:16: actors.agents.trailers[0]: key `Co authored by` can never match a trailer: a trailer's key is letters, digits and `-` (with `*` as a wildcard here)");
    insta::assert_snapshot!(said("actors:\n  agents:\n    trailers: [\": x\"]\n"), @"policy .github/council.yml@main:3:16: actors.agents.trailers[0]: key `` can never match a trailer: a trailer's key is letters, digits and `-` (with `*` as a wildcard here)");
    let a = parse(
        "actors:\n  agents:\n    trailers: [\"*-by :  Claude *  \", \"Signed-off-by: bot\"]\n",
    )
    .actors;
    assert_eq!(
        trailer_globs(&a),
        ["*-by :  Claude *  ", "Signed-off-by: bot"]
    );
}

#[test]
fn globs_and_lists_stay_within_the_limits() {
    let long = "x".repeat(MAX_GLOB_CHARS + 1);
    insta::assert_snapshot!(said(&format!("actors:\n  agents:\n    logins: [\"{long}\"]\n")), @"policy .github/council.yml@main:3:14: actors.agents.logins[0]: a glob of 257 characters; at most 256 are allowed");
    assert!(
        Policy::parse(
            &format!(
                "actors:\n  agents:\n    logins: [\"{}\"]\n",
                "é".repeat(MAX_GLOB_CHARS)
            ),
            "p"
        )
        .is_ok()
    );
    insta::assert_snapshot!(said(&format!("actors:\n  agent:\n    label: \"{}\"\n", "l".repeat(51))), @"policy .github/council.yml@main:3:12: actors.agent.label: a label name of 51 characters; GitHub allows at most 50");
    insta::assert_snapshot!(said("actors:\n  agents:\n    labels: [\" \"]\n"), @"policy .github/council.yml@main:3:14: actors.agents.labels[0]: an empty label name matches no label");
    let list = |n: usize| {
        format!(
            "[{}]",
            (0..n)
                .map(|i| format!("\"b{i}/**\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    assert_eq!(
        parse(&format!(
            "actors:\n  agents:\n    branches: {}\n",
            list(MAX_LIST)
        ))
        .actors
        .agents
        .branches
        .len(),
        MAX_LIST
    );
    insta::assert_snapshot!(said(&format!("actors:\n  agents:\n    branches: {}\n", list(MAX_LIST + 1))), @"policy .github/council.yml@main:3:15: actors.agents.branches: more than 1000 entries, the limit for a list");
    insta::assert_snapshot!(said(&format!("actors:\n  agent:\n    forbidden_paths: {}\n", list(MAX_LIST + 1))), @"policy .github/council.yml@main:3:22: actors.agent.forbidden_paths: more than 1000 entries, the limit for a list");
}

#[test]
fn brackets_and_question_marks_are_text_and_stars_are_the_policy_s() {
    let a = Actors::default();
    let login = |l: &str| a.agents.login(l).map(|(g, _)| g.glob.as_str());
    assert_eq!(
        login("copilot-swe-agent[bot]"),
        Some("copilot-swe-agent[bot]")
    );
    assert_eq!(login("my-agent[bot]"), Some("*-agent[bot]"));
    assert_eq!(login("my-agentb"), None, "[bot] is text, not a class");
    assert_eq!(login("my-agent"), None);
    assert_eq!(login("dependabot[bot]"), None);
    assert_eq!(login(""), None);
    let p = parse("actors:\n  agents:\n    logins: [\"bot?\"]\n    branches: [\"ai/*\"]\n");
    let d = &p.actors.agents;
    assert!(d.login("bot?").is_some() && d.login("bots").is_none());
    assert!(d.branch("ai/x").is_some());
    assert!(d.branch("ai/x/y").is_none(), "`*` stays in one segment");
    assert!(Actors::default().agents.branch("copilot/a/b").is_some());
}

#[test]
fn letter_case_logins_and_labels_without_branches_as_the_policy_says() {
    let a = Actors::default();
    assert!(a.agents.login("Copilot-SWE-Agent[BOT]").is_some());
    assert_eq!(a.agents.label("AGENT"), Some("agent"));
    assert_eq!(a.agents.label("agents"), None);
    assert!(
        a.agents.branch("Copilot/x").is_none(),
        "branches are case-sensitive by default"
    );
    let folded = parse("branches:\n  case_sensitive: false\n");
    assert!(folded.actors.agents.branch("Copilot/x").is_some());
}

#[test]
fn github_s_two_names_for_copilot_s_agent_both_match() {
    let a = Actors::default();
    let (glob, alias) = a.agents.login("Copilot").unwrap();
    assert_eq!(glob.glob, "copilot-swe-agent[bot]");
    assert_eq!(alias, Some("copilot-swe-agent[bot]"));
    let only_rest_name = parse("actors:\n  agents:\n    logins: [Copilot]\n");
    let (glob, alias) = only_rest_name
        .actors
        .agents
        .login("copilot-swe-agent[bot]")
        .unwrap();
    assert_eq!((glob.glob.as_str(), alias), ("Copilot", Some("Copilot")));
    assert!(
        a.agents.login("copilot").is_some(),
        "logins ignore letter case"
    );
    assert!(a.agents.login("Copilot2").is_none());
}

#[test]
fn trailer_keys_ignore_letter_case_and_values_are_as_written() {
    let a = Actors::default();
    let t = |k: &str, v: &str| a.agents.trailer(k, v).map(|g| g.glob.as_str());
    assert_eq!(
        t("Co-Authored-By", "Claude <noreply@anthropic.com>"),
        Some("Co-authored-by: Claude *")
    );
    assert_eq!(
        t("co-authored-by", "Claude Opus 4.5 <noreply@anthropic.com>"),
        Some("Co-authored-by: Claude *")
    );
    assert_eq!(
        t("Co-authored-by", "claude <x>"),
        None,
        "values keep their case"
    );
    assert_eq!(t("Co-authored-by", "Claudette <x>"), None);
    assert_eq!(t("Co-authored-by", "Alice <a@example.com>"), None);
    assert_eq!(t("Assisted-by", "Cursor:gpt-5"), Some("Assisted-by: *"));
    assert_eq!(
        t("Assisted-by", "https://x/y"),
        None,
        "`*` stays in one segment"
    );
    assert_eq!(t("Signed-off-by", "Claude <x>"), None);
    let wild = parse("actors:\n  agents:\n    trailers: [\"*-by: bot **\"]\n");
    let w = |k: &str, v: &str| wild.actors.agents.trailer(k, v).is_some();
    assert!(w("Assisted-BY", "bot x/y") && w("Made-by", "bot ") && !w("Made-with", "bot x"));
}

#[test]
fn a_long_trailer_value_is_not_matched_and_costs_a_count() {
    let a = Actors::default();
    let long = format!("Claude {}", "x".repeat(MAX_TRAILER_VALUE_CHARS));
    assert!(a.agents.trailer("Co-authored-by", &long).is_none());
    let fits = format!("Claude {}", "é".repeat(MAX_TRAILER_VALUE_CHARS - 7));
    assert!(a.agents.trailer("Co-authored-by", &fits).is_some());
    assert!(
        a.agents
            .trailer(&"k".repeat(MAX_GLOB_CHARS + 1), "Claude x")
            .is_none()
    );
}

#[test]
fn forbidden_paths_compile_once_and_name_their_glob() {
    let a = Actors::default();
    let globs = a.agent.forbidden().unwrap();
    assert_eq!(globs.first_match(".github/workflows/ci.yml"), Some(0));
    assert_eq!(globs.first_match("docs/CODEOWNERS"), Some(2));
    assert_eq!(globs.first_match("src/main.rs"), None);
    assert!(std::ptr::eq(globs, a.agent.forbidden().unwrap()));
}
