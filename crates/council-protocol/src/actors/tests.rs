use super::*;
use crate::policy::Policy;

mod agreement;

fn policy(text: &str) -> Policy {
    Policy::parse(text, "p.yml").unwrap_or_else(|e| panic!("{e}"))
}

fn commit(sha: &str, message: &str) -> CommitMessage {
    CommitMessage {
        sha: sha.to_string(),
        message: message.to_string(),
    }
}

const SHA1: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
const SHA2: &str = "f00dfeed00000000000000000000000000000000";

struct Case<'a> {
    author: Option<&'a str>,
    head: &'a str,
    labels: Option<Vec<String>>,
    commits: Option<(Vec<CommitMessage>, u64)>,
}

impl Case<'_> {
    fn classify(&self, policy: &Policy) -> Actor {
        classify(
            &policy.actors.agents,
            &ActorFacts {
                author: self.author,
                head: self.head,
                labels: self.labels.as_deref(),
                commits: self.commits.as_ref().map(|(listed, total)| Commits {
                    listed,
                    total: *total,
                }),
            },
        )
    }
}

fn human_case() -> Case<'static> {
    Case {
        author: Some("alice"),
        head: "feature/api/PBI-1-login",
        labels: Some(vec!["bug".into()]),
        commits: Some((
            vec![commit(SHA1, "Fix it\n\nSigned-off-by: Alice <a@x>\n")],
            1,
        )),
    }
}

#[test]
fn a_person_s_pull_request_is_a_human_s_and_says_what_was_looked_at() {
    let actor = human_case().classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Human);
    assert!(actor.evidence.is_empty() && actor.warnings.is_empty());
    assert_eq!(actor.commits, Some(CommitsRead { read: 1, total: 1 }));
    insta::assert_snapshot!(actor.message().plain(), @r#"human: no login, branch, trailer or label of actors.agents matches (author "alice", head branch "feature/api/PBI-1-login", trailers of 1 commit, 1 label)."#);
    let preflight = Case {
        author: None,
        head: "feature/x",
        labels: None,
        commits: None,
    }
    .classify(&Policy::default_policy());
    insta::assert_snapshot!(preflight.message().plain(), @r#"human: no login, branch, trailer or label of actors.agents matches (author not known, head branch "feature/x", commits not read, labels not read)."#);
    assert_eq!(preflight.commits, None);
}

#[test]
fn each_kind_of_evidence_is_named() {
    let case = Case {
        author: Some("copilot-swe-agent[bot]"),
        head: "copilot/fix-42",
        labels: Some(vec!["Agent".into(), "bug".into()]),
        commits: Some((
            vec![
                commit(SHA1, "Initial plan\n"),
                commit(
                    SHA2,
                    "Add the login\n\nCo-authored-by: Claude <noreply@anthropic.com>\n",
                ),
            ],
            2,
        )),
    };
    let actor = case.classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Agent);
    assert_eq!(
        actor.kinds(),
        [
            EvidenceKind::Login,
            EvidenceKind::Branch,
            EvidenceKind::Trailer,
            EvidenceKind::Label
        ]
    );
    insta::assert_snapshot!(actor.message().plain(), @r#"agent (login, branch, trailer, label): author "copilot-swe-agent[bot]" matches actors.agents.logins "copilot-swe-agent[bot]"; head branch "copilot/fix-42" matches actors.agents.branches "copilot/**"; commit f00dfee has trailer "Co-authored-by: Claude <noreply@anthropic.com>", which matches actors.agents.trailers "Co-authored-by: Claude *"; label "Agent" is in actors.agents.labels."#);
    insta::assert_snapshot!(actor.message().markdown(), @"agent (login, branch, trailer, label): author <code>copilot-swe-agent&#91;bot&#93;</code> matches actors.agents.logins <code>copilot-swe-agent&#91;bot&#93;</code>; head branch <code>copilot/fix-42</code> matches actors.agents.branches <code>copilot/&#42;&#42;</code>; commit f00dfee has trailer <code>Co-authored-by&#58; Claude &lt;noreply&#64;anthropic.com&gt;</code>, which matches actors.agents.trailers <code>Co-authored-by&#58; Claude &#42;</code>; label <code>Agent</code> is in actors.agents.labels.");
}

#[test]
fn rest_s_name_for_copilot_s_agent_is_named_with_the_other() {
    let actor = Case {
        author: Some("Copilot"),
        head: "main-fix",
        labels: Some(Vec::new()),
        commits: None,
    }
    .classify(&Policy::default_policy());
    insta::assert_snapshot!(actor.message().plain(), @r#"agent (login): author "Copilot" (GitHub also writes it "copilot-swe-agent[bot]") matches actors.agents.logins "copilot-swe-agent[bot]"."#);
}

#[test]
fn any_listed_commit_counts_and_a_later_one_without_the_trailer_does_not_undo_it() {
    let commits = vec![
        commit(
            SHA1,
            "Start\n\nAssisted-by: Claude:claude-opus-4 coccinelle\n",
        ),
        commit(SHA2, "Tidy up by hand\n"),
    ];
    let actor = Case {
        author: Some("alice"),
        head: "feature/x",
        labels: Some(Vec::new()),
        commits: Some((commits, 2)),
    }
    .classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Agent);
    assert_eq!(actor.kinds(), [EvidenceKind::Trailer]);
}

#[test]
fn trailers_are_read_by_git_s_rule_not_anywhere_in_the_message() {
    let body_mention = "Explain\n\nWe discussed Co-authored-by: Claude <x> in the issue.\n";
    let quoted_in_title = "Co-authored-by: Claude <x>\n";
    for message in [body_mention, quoted_in_title] {
        let actor = Case {
            author: Some("alice"),
            head: "feature/x",
            labels: None,
            commits: Some((vec![commit(SHA1, message)], 1)),
        }
        .classify(&Policy::default_policy());
        assert_eq!(actor.class, Class::Human, "{message:?}");
    }
}

#[test]
fn more_commits_than_github_lists_is_a_warning_saying_how_many_were_read() {
    let listed: Vec<CommitMessage> = (0..250)
        .map(|i| commit(&format!("{i:040}"), "Work\n"))
        .collect();
    let actor = Case {
        author: Some("alice"),
        head: "feature/x",
        labels: Some(Vec::new()),
        commits: Some((listed, 312)),
    }
    .classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Human);
    assert_eq!(
        actor.commits,
        Some(CommitsRead {
            read: 250,
            total: 312
        })
    );
    assert_eq!(actor.warnings.len(), 1);
    insta::assert_snapshot!(actor.warnings[0].plain(), @"actors: read the trailers of 250 of the pull request's 312 commits (GitHub lists at most 250); a trailer in the other 62 was not seen");
    insta::assert_snapshot!(actor.message().plain(), @r#"human: no login, branch, trailer or label of actors.agents matches (author "alice", head branch "feature/x", trailers of 250 of 312 commits, no labels)."#);
}

#[test]
fn control_and_bidi_characters_in_a_trailer_are_shown_escaped() {
    let sneaky = "Work\n\nCo-authored-by: Claude \u{202E}<moc.cipohtna@ylperon>\u{7}\n";
    let actor = Case {
        author: Some("alice"),
        head: "feature/x",
        labels: None,
        commits: Some((vec![commit(SHA1, sneaky)], 1)),
    }
    .classify(&Policy::default_policy());
    let plain = actor.message().plain();
    assert!(
        !plain.contains('\u{202E}') && !plain.contains('\u{7}'),
        "{plain}"
    );
    insta::assert_snapshot!(plain, @r#"agent (trailer): commit a1b2c3d has trailer "Co-authored-by: Claude <U+202E><moc.cipohtna@ylperon><U+0007>", which matches actors.agents.trailers "Co-authored-by: Claude *"."#);
    assert!(actor.message().markdown().contains("&lt;U+202E&gt;"));
}

#[test]
fn evidence_names_a_few_trailers_and_counts_the_rest() {
    let commits: Vec<CommitMessage> = (0..6)
        .map(|i| commit(&format!("{i:040}"), "Work\n\nGenerated-by: tool\n"))
        .collect();
    let actor = Case {
        author: None,
        head: "x",
        labels: None,
        commits: Some((commits, 6)),
    }
    .classify(&Policy::default_policy());
    assert_eq!(actor.evidence.len(), MAX_TRAILER_EVIDENCE);
    assert!(
        actor
            .message()
            .plain()
            .ends_with("; 3 more matching trailers."),
        "{}",
        actor.message().plain()
    );
}

#[test]
fn hostile_trailers_are_bounded_and_warned_about() {
    let many = format!("Work\n\n{}", "Generated-by: x/y\n".repeat(150));
    let long = format!("Work\n\nCo-authored-by: Claude {}\n", "z".repeat(1 << 20));
    let actor = Case {
        author: None,
        head: "x",
        labels: None,
        commits: Some((vec![commit(SHA1, &many), commit(SHA2, &long)], 2)),
    }
    .classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Human);
    let warnings: Vec<String> = actor.warnings.iter().map(Message::plain).collect();
    assert_eq!(
        warnings,
        [
            "actors: 50 trailers beyond the first 100 of a commit were not read",
            "actors: 1 trailer with a value longer than 1000 characters was not matched",
        ]
    );
}

#[test]
fn detection_off_makes_everyone_a_human_and_says_so() {
    let off = policy("actors: {agents: {logins: [], branches: [], trailers: [], labels: []}}\n");
    let actor = Case {
        author: Some("copilot-swe-agent[bot]"),
        head: "copilot/x",
        labels: Some(vec!["agent".into()]),
        commits: Some((vec![commit(SHA1, "W\n\nCo-authored-by: Claude <x>\n")], 300)),
    }
    .classify(&off);
    assert_eq!(actor.class, Class::Human);
    assert!(
        actor.warnings.is_empty(),
        "no trailer is read, so none is missed"
    );
    insta::assert_snapshot!(actor.message().plain(), @"human: agent detection is off (actors.agents lists no login, branch, trailer or label).");
}

#[test]
fn an_unmatched_bot_is_a_human_for_these_rules() {
    let actor = Case {
        author: Some("dependabot[bot]"),
        head: "dependabot/npm_and_yarn/lodash-4.17.21",
        labels: Some(vec!["dependencies".into()]),
        commits: None,
    }
    .classify(&Policy::default_policy());
    assert_eq!(actor.class, Class::Human);
}

#[test]
fn graphql_logins_become_rest_logins() {
    assert_eq!(
        rest_login("copilot-swe-agent".into(), "Bot"),
        "copilot-swe-agent[bot]"
    );
    assert_eq!(rest_login("renovate[bot]".into(), "Bot"), "renovate[bot]");
    assert_eq!(rest_login("octocat".into(), "User"), "octocat");
    let p = Policy::default_policy();
    assert!(
        p.actors
            .agents
            .login(&rest_login("devin-ai-integration".into(), "Bot"))
            .is_some()
    );
    assert!(
        p.actors.agents.login("devin-ai-integration").is_none(),
        "GraphQL's bare form"
    );
}

#[test]
fn labels_compare_without_letter_case() {
    assert!(same_label("Agent", "aGENT"));
    assert!(same_label("ÄGENT", "ägent"));
    assert!(!same_label("agent", "agents"));
}

#[test]
fn recorded_classes_read_back_from_the_check_actor_message() {
    let agent = Case {
        author: Some("copilot-swe-agent[bot]"),
        head: "copilot/x",
        labels: None,
        commits: None,
    }
    .classify(&Policy::default_policy());
    let recorded = RecordedActor::parse(&agent.message().plain()).unwrap();
    assert_eq!(recorded.class, Class::Agent);
    assert_eq!(recorded.kinds, [EvidenceKind::Login, EvidenceKind::Branch]);
    assert!(recorded.replayable());
    let human = human_case().classify(&Policy::default_policy());
    let recorded = RecordedActor::parse(&human.message().plain()).unwrap();
    assert_eq!(
        (recorded.class, recorded.replayable()),
        (Class::Human, true)
    );
    let by_trailer = RecordedActor::parse("agent (trailer): commit x …").unwrap();
    assert!(!by_trailer.replayable());
    for junk in [
        "",
        "agent",
        "agent (): x",
        "agent (sorcery): x",
        "Human: x",
        "agent (login) x",
    ] {
        assert_eq!(RecordedActor::parse(junk), None, "{junk}");
    }
}

#[test]
fn a_user_value_cannot_forge_the_recorded_class() {
    // The class and kinds come before any value, so a branch named like a message
    // changes nothing that is read back.
    let actor = Case {
        author: Some("alice"),
        head: "x): agent (login",
        labels: None,
        commits: None,
    }
    .classify(&Policy::default_policy());
    let recorded = RecordedActor::parse(&actor.message().plain()).unwrap();
    assert_eq!(recorded.class, Class::Human);
}

#[test]
fn a_preflight_names_the_rules_an_agent_will_meet() {
    let pre = preflight(
        &Policy::default_policy(),
        "copilot/fix-1",
        "develop",
        Some("copilot-swe-agent[bot]"),
    );
    assert!(!pre.passed(), "the default policy's names are strict");
    assert!(pre.actor.is_agent());
    let notes: Vec<String> = pre.notes.iter().map(Message::plain).collect();
    insta::assert_snapshot!(notes.join("\n"), @r#"
    review: changing ".github/workflows/**", ".github/council.yml", "CODEOWNERS", ".github/CODEOWNERS" fails check:agent-paths (actors.agent.forbidden_paths)
    review: at most 50 files and 1,000 changed lines (actors.agent.diff_size, instead of review.diff_size)
    release: waits for 1 approval on the head from a person who can write, did not open the pull request and did not author or co-author its commits (actors.agent.human_approvals)
    review: adds the label "agent-authored" (actors.agent.label)
    "#);
    let human = preflight(
        &Policy::default_policy(),
        "feature/a/PBI-1-x",
        "develop",
        None,
    );
    assert!(human.passed() && !human.actor.is_agent());
    insta::assert_snapshot!(human.notes[0].plain(), @"actors: decided from the branch and author only; a commit trailer or a label of actors.agents makes the pull request an agent's once it exists");
}

fn recorded<'a>(
    head: &'a str,
    base: &'a str,
    author: &'a str,
    verdicts: (Option<Verdict>, Option<Verdict>),
    actor: Option<&'a RecordedActor>,
) -> RecordedPull<'a> {
    RecordedPull {
        number: 7,
        head,
        base,
        author,
        naming_convention: verdicts.0,
        target_policy: verdicts.1,
        actor,
    }
}

use crate::gates::Verdict;

/// A verdict as every answer prints it (the gate JSON shape, version 1).
fn verdict(outcome: &crate::gates::GateOutcome) -> serde_json::Value {
    serde_json::to_value(crate::gates::json::v1::GateVerdict::from(outcome)).unwrap()
}

#[test]
fn a_replay_lists_the_verdicts_that_flip_in_the_gate_json_shape() {
    let loose =
        policy("branches:\n  rules:\n    - {pattern: \"feature/**\", targets: [develop, main]}\n");
    let pass = Some(Verdict::Pass);
    let fail = Some(Verdict::Fail);
    // Passed under the default policy; the new rules reject the branch.
    let r = replay(
        &loose,
        &recorded("hotfix/INC-1-x", "main", "alice", (pass, pass), None),
    );
    assert_eq!(r.gates.len(), 2);
    assert!(
        r.gates
            .iter()
            .all(|c| c.recorded == Verdict::Pass && c.now.verdict == Verdict::Fail)
    );
    insta::assert_snapshot!(serde_json::to_string_pretty(&verdict(&r.gates[1].now)).unwrap(), @r#"
    {
      "gate": "target_policy",
      "action": "check:target-branch",
      "result": "FAIL",
      "message": "Branch \"hotfix/INC-1-x\" matches no rule, so it may not target \"main\".",
      "fix": {
        "advice": "rename the branch and open a new pull request into \"main\" (renaming the head branch of an open pull request closes it). Run this, replacing <path> with a name (it may hold /):",
        "commands": [
          "git branch -m hotfix/INC-1-x 'feature/<path>' && git push -u origin 'feature/<path>' && git push origin --delete hotfix/INC-1-x"
        ]
      }
    }
    "#);
    // Failed before; passes now. A verdict not recorded is not compared.
    let r = replay(
        &loose,
        &recorded("feature/anything", "main", "alice", (fail, None), None),
    );
    assert_eq!(r.gates.len(), 1);
    assert_eq!(verdict(&r.gates[0].now)["result"], "PASS");
    assert_eq!(verdict(&r.gates[0].now)["fix"], serde_json::Value::Null);
    let same = replay(
        &loose,
        &recorded("feature/x", "main", "alice", (pass, pass), None),
    );
    assert!(!same.changes());
}

#[test]
fn a_replay_compares_the_class_only_where_the_store_holds_what_decided_it() {
    let default = Policy::default_policy();
    let narrower = policy("actors:\n  agents:\n    branches: [\"ai/**\"]\n");
    let by_branch = RecordedActor {
        class: Class::Agent,
        kinds: vec![EvidenceKind::Branch],
    };
    let r = replay(
        &narrower,
        &recorded(
            "copilot/x",
            "develop",
            "alice",
            (None, None),
            Some(&by_branch),
        ),
    );
    let change = r.class.expect("agent by branch → human");
    assert_eq!(
        (change.recorded, change.now.class),
        (Class::Agent, Class::Human)
    );
    let human = RecordedActor {
        class: Class::Human,
        kinds: Vec::new(),
    };
    let r = replay(
        &default,
        &recorded("claude/x", "develop", "alice", (None, None), Some(&human)),
    );
    let change = r.class.expect("human → agent by branch");
    insta::assert_snapshot!(change.now.message().plain(), @r#"agent (branch): head branch "claude/x" matches actors.agents.branches "claude/**"."#);
    // A class that came from trailers or labels is not in the store: not compared.
    let by_trailer = RecordedActor {
        class: Class::Agent,
        kinds: vec![EvidenceKind::Trailer],
    };
    let r = replay(
        &default,
        &recorded(
            "feature/x",
            "develop",
            "alice",
            (None, None),
            Some(&by_trailer),
        ),
    );
    assert!(r.class.is_none());
    // Nor is a class never recorded.
    let r = replay(
        &default,
        &recorded("claude/x", "develop", "alice", (None, None), None),
    );
    assert!(!r.changes());
}

#[test]
fn a_policy_of_many_trailer_globs_against_many_trailers_stops_at_a_budget() {
    // 1,000 globs for one key, each of the shape that keeps every position alive, and
    // 250 commits of 100 trailers with that key: without a budget, 25 million checks.
    let globs: Vec<String> = (0..1000)
        .map(|i| format!("\"Assisted-by: {}{i}\"", "*a".repeat(20)))
        .collect();
    let hostile = policy(&format!(
        "actors:\n  agents:\n    trailers: [{}]\n",
        globs.join(", ")
    ));
    let message = format!(
        "Work\n\n{}",
        format!("Assisted-by: {}\n", "a".repeat(100)).repeat(100)
    );
    let commits: Vec<CommitMessage> = (0..250)
        .map(|i| commit(&format!("{i:040}"), &message))
        .collect();
    let actor = Case {
        author: None,
        head: "x",
        labels: None,
        commits: Some((commits, 250)),
    }
    .classify(&hostile);
    assert_eq!(actor.class, Class::Human);
    let warnings: Vec<String> = actor.warnings.iter().map(Message::plain).collect();
    assert_eq!(
        warnings,
        [
            "actors: 24900 trailers not matched: matching stops after 100000 glob checks per pull request"
        ]
    );
}
