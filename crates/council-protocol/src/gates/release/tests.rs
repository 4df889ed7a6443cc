use super::*;
use crate::gates::Verdict;
use crate::policy::Release;

const HEAD: &str = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const OLD: &str = "0000000bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn run(name: &str, state: CheckState) -> CheckFact {
    CheckFact {
        name: name.to_string(),
        kind: CheckKind::Run,
        state,
        id: None,
        url: None,
    }
}

fn pipeline(checks: Vec<CheckFact>) -> Pipeline {
    Pipeline {
        sha: HEAD.to_string(),
        checks,
        complete: true,
        ..Pipeline::default()
    }
}

fn open() -> OpenFacts {
    OpenFacts {
        head_sha: HEAD.to_string(),
        event_head: HEAD.to_string(),
        draft: false,
        mergeable: Mergeable::Clean,
        reads: 1,
        labels: vec!["bot-approved".to_string()],
        reviews: Vec::new(),
        auto_merge: None,
        in_merge_queue: false,
        author: "agent".to_string(),
        commit_authors: Vec::new(),
        queued_before_a_move: false,
    }
}

/// Each gate's verdict and timeline message.
fn decide(policy: &Release, pipeline: Pipeline, open: Option<OpenFacts>) -> Vec<(Verdict, String)> {
    let facts = ReleaseFacts {
        policy,
        require_label: Some("bot-approved"),
        pipeline,
        open,
        queue: false,
        actor: None,
    };
    evaluate(&facts)
        .into_iter()
        .map(|g| (g.verdict, format!("{}: {}", g.gate, g.timeline_message())))
        .collect()
}

fn messages(outcomes: &[(Verdict, String)]) -> String {
    outcomes
        .iter()
        .map(|(v, m)| format!("{} {m}", v.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn github_spellings_become_check_states() {
    assert_eq!(
        CheckState::of_check_run("COMPLETED", Some("SUCCESS")),
        CheckState::Success
    );
    assert_eq!(
        CheckState::of_check_run("in_progress", None),
        CheckState::Pending("in progress".into())
    );
    assert_eq!(
        CheckState::of_check_run("completed", Some("skipped")),
        CheckState::Neutral("skipped".into())
    );
    assert_eq!(
        CheckState::of_check_run("COMPLETED", Some("TIMED_OUT")),
        CheckState::Red("timed out".into())
    );
    assert_eq!(
        CheckState::of_check_run("COMPLETED", None),
        CheckState::Pending("completed without a conclusion".into())
    );
    assert_eq!(
        CheckState::of_status("EXPECTED"),
        CheckState::Pending("expected".into())
    );
    assert_eq!(
        CheckState::of_status("error"),
        CheckState::Red("error".into())
    );
    assert_eq!(CheckState::of_status("SUCCESS"), CheckState::Success);
}

#[test]
fn mergeable_states_that_never_merge() {
    for (mergeable, state, expected) in [
        ("MERGEABLE", "CLEAN", Mergeable::Clean),
        ("MERGEABLE", "UNSTABLE", Mergeable::Unstable),
        ("MERGEABLE", "HAS_HOOKS", Mergeable::HasHooks),
        ("CONFLICTING", "BLOCKED", Mergeable::Dirty),
        ("MERGEABLE", "DIRTY", Mergeable::Dirty),
        ("UNKNOWN", "CLEAN", Mergeable::Unknown),
        ("MERGEABLE", "UNKNOWN", Mergeable::Unknown),
        ("MERGEABLE", "BEHIND", Mergeable::Behind),
        ("MERGEABLE", "DRAFT", Mergeable::Draft),
        ("MERGEABLE", "BLOCKED", Mergeable::Blocked),
        ("MERGEABLE", "SOMETHING_NEW", Mergeable::Unknown),
        ("mergeable", "clean", Mergeable::Clean),
    ] {
        assert_eq!(
            Mergeable::of(mergeable, state),
            expected,
            "{mergeable} {state}"
        );
    }
    let allowed: Vec<&str> = [
        Mergeable::Clean,
        Mergeable::HasHooks,
        Mergeable::Unstable,
        Mergeable::Blocked,
        Mergeable::Behind,
        Mergeable::Dirty,
        Mergeable::Draft,
        Mergeable::Unknown,
    ]
    .into_iter()
    .filter(|m| m.allows_merge())
    .map(Mergeable::as_str)
    .collect();
    assert_eq!(allowed, ["clean", "has_hooks", "unstable"]);
}

#[test]
fn all_green_and_ready_passes_both_gates() {
    let policy = Release::default();
    let out = decide(
        &policy,
        pipeline(vec![
            run("ci", CheckState::Success),
            run("docs", CheckState::Neutral("skipped".into())),
        ]),
        Some(open()),
    );
    insta::assert_snapshot!(messages(&out), @r#"
    PASS pipeline_green: 2 checks are green on the head "1111111". Counted green (`neutral_is_green`): "docs" (skipped).
    PASS merge_ready: Ready to merge head "1111111": mergeable (clean), label "bot-approved".
    "#);
}

#[test]
fn a_red_check_fails_even_while_others_run_and_names_the_link() {
    let policy = Release::default();
    let mut red = run("lint", CheckState::Red("failure".into()));
    red.url = Some("https://ci.example/1".into());
    let out = decide(
        &policy,
        pipeline(vec![red, run("e2e", CheckState::Pending("queued".into()))]),
        Some(open()),
    );
    insta::assert_snapshot!(messages(&out[..1]), @r#"FAIL pipeline_green: 1 red check on the head "1111111": "lint" (failure, https://ci.example/1). Fix: fix the code or re-run the red checks; the next check event decides again"#);
    // Without `neutral_is_green`, a skipped check is red, and the advice says why.
    let strict = Release {
        neutral_is_green: false,
        ..Release::default()
    };
    let out = decide(
        &strict,
        pipeline(vec![run("docs", CheckState::Neutral("skipped".into()))]),
        None,
    );
    assert_eq!(out.len(), 1, "after the merge only the pipeline is checked");
    assert_eq!(out[0].0, Verdict::Fail);
    assert!(
        out[0].1.contains("`release.neutral_is_green` is false"),
        "{}",
        out[0].1
    );
}

#[test]
fn running_and_missing_required_checks_wait() {
    let policy = Release {
        required_checks: vec!["deploy".into(), "ci".into()],
        ..Release::default()
    };
    let out = decide(
        &policy,
        pipeline(vec![run("ci", CheckState::Pending("in progress".into()))]),
        Some(open()),
    );
    insta::assert_snapshot!(messages(&out[..1]), @r#"PENDING pipeline_green: Waiting for 2 checks on the head "1111111": "ci" (in progress); required "deploy" (not reported yet)."#);
    // Nothing reported at all is not green.
    let out = decide(&Release::default(), pipeline(Vec::new()), None);
    insta::assert_snapshot!(messages(&out), @r#"PENDING pipeline_green: Waiting: no check has reported on the head "1111111" yet (council does not merge what nothing has checked; name the checks you expect in `release.required_checks`)."#);
}

#[test]
fn the_own_job_is_left_out_and_said_so_or_counts_when_unknown() {
    let mut p = pipeline(vec![run("ci", CheckState::Success)]);
    p.own = vec![run("council", CheckState::Pending("in progress".into()))];
    let out = decide(&Release::default(), p.clone(), None);
    insta::assert_snapshot!(messages(&out), @r#"PASS pipeline_green: 1 check is green on the head "1111111". Left out: this job's own check "council"."#);
    // A required check that is this job itself is not missing.
    let policy = Release {
        required_checks: vec!["council".into()],
        ..Release::default()
    };
    assert_eq!(decide(&policy, p, None)[0].0, Verdict::Pass);

    let mut p = pipeline(vec![
        run("ci", CheckState::Success),
        run("release", CheckState::Pending("in progress".into())),
    ]);
    p.own_unknown = Some("the run's jobs could not be read".into());
    let out = decide(&Release::default(), p, None);
    assert_eq!(out[0].0, Verdict::Pending);
    assert!(
        out[0].1.ends_with(
            "could not be told apart (the run's jobs could not be read), so it counts as pending."
        ),
        "{}",
        out[0].1
    );
}

#[test]
fn a_merge_commit_pipeline_says_so() {
    let mut p = pipeline(vec![run("ci", CheckState::Red("failure".into()))]);
    p.merge_commit = true;
    let out = decide(&Release::default(), p, None);
    assert!(
        out[0]
            .1
            .starts_with("pipeline_green: 1 red check on the merge commit \"1111111\""),
        "{}",
        out[0].1
    );
}

#[test]
fn every_reason_to_wait_is_listed() {
    let policy = Release {
        required_approvals: 2,
        ..Release::default()
    };
    let mut facts = open();
    facts.event_head = OLD.to_string();
    facts.draft = true;
    facts.mergeable = Mergeable::Draft;
    facts.labels.clear();
    facts.reviews = vec![
        ReviewFact {
            login: "alice".into(),
            state: "APPROVED".into(),
            bot: false,
            commit: None,
        },
        ReviewFact {
            login: "bob".into(),
            state: "CHANGES_REQUESTED".into(),
            bot: false,
            commit: None,
        },
        ReviewFact {
            login: "agent".into(),
            state: "APPROVED".into(),
            bot: false,
            commit: None,
        },
        ReviewFact {
            login: "github-actions[bot]".into(),
            state: "APPROVED".into(),
            bot: true,
            commit: None,
        },
    ];
    facts.auto_merge = Some(AutoMerge {
        enabled_by: "alice".into(),
        method: "SQUASH".into(),
    });
    facts.in_merge_queue = true;
    let out = decide(
        &policy,
        pipeline(vec![run("ci", CheckState::Success)]),
        Some(facts),
    );
    insta::assert_snapshot!(messages(&out[1..]), @r#"PENDING merge_ready: Waiting: the head moved from "0000000" to "1111111" since the event (the new head's own checks decide); GitHub's auto-merge is on (enabled by "alice", squash): GitHub merges it when the branch's rules pass, and council does not race it; it is in the merge queue: the queue merges it, and council does not race it; it is a draft; the label "bot-approved" (`release.require_label`); "bob" requested changes (their latest review); 2 approvals (has 1; 2 approvals by the author or a bot not counted; `release.required_approvals`)."#);
}

#[test]
fn mergeability_holds_a_merge_and_an_unstable_state_does_not() {
    let policy = Release::default();
    for (mergeable, expected) in [
        (Mergeable::Dirty, "conflicts with its base"),
        (Mergeable::Behind, "behind the base"),
        (Mergeable::Blocked, "branch protection blocks"),
        (
            Mergeable::Unknown,
            "after 3 reads (mergeable state unknown)",
        ),
    ] {
        let mut facts = open();
        facts.mergeable = mergeable;
        facts.reads = 3;
        let out = decide(
            &policy,
            pipeline(vec![run("ci", CheckState::Success)]),
            Some(facts),
        );
        assert_eq!(out[1].0, Verdict::Pending);
        assert!(out[1].1.contains(expected), "{mergeable:?}: {}", out[1].1);
    }
    let mut facts = open();
    facts.mergeable = Mergeable::Unstable;
    let out = decide(
        &policy,
        pipeline(vec![run("ci", CheckState::Success)]),
        Some(facts),
    );
    insta::assert_snapshot!(out[1].1, @r#"merge_ready: Ready to merge head "1111111": mergeable (unstable), label "bot-approved"."#);
    // No label needed: none asked for.
    let facts = ReleaseFacts {
        policy: &policy,
        require_label: None,
        pipeline: pipeline(vec![run("ci", CheckState::Success)]),
        open: Some(OpenFacts {
            labels: Vec::new(),
            ..open()
        }),
        queue: false,
        actor: None,
    };
    assert!(evaluate(&facts).iter().all(|g| g.verdict == Verdict::Pass));
}

#[test]
fn under_the_merge_queue_behind_is_ready_and_the_rest_still_waits() {
    let policy = Release::default();
    let with = |mergeable: Mergeable, queue: bool| {
        let facts = ReleaseFacts {
            policy: &policy,
            require_label: Some("bot-approved"),
            pipeline: pipeline(vec![run("ci", CheckState::Success)]),
            open: Some(OpenFacts {
                mergeable,
                ..open()
            }),
            queue,
            actor: None,
        };
        let gates = evaluate(&facts);
        (gates[1].verdict, gates[1].timeline_message())
    };
    let (verdict, said) = with(Mergeable::Behind, true);
    assert_eq!(verdict, Verdict::Pass);
    insta::assert_snapshot!(said, @r#"Ready to queue head "1111111": mergeable (behind), tested on the current base by the queue, label "bot-approved"."#);
    assert_eq!(with(Mergeable::Behind, false).0, Verdict::Pending);
    for waits in [
        Mergeable::Dirty,
        Mergeable::Draft,
        Mergeable::Unknown,
        Mergeable::Blocked,
    ] {
        assert_eq!(with(waits, true).0, Verdict::Pending, "{waits:?}");
    }
    insta::assert_snapshot!(with(Mergeable::Clean, true).1, @r#"Ready to queue head "1111111": mergeable (clean), label "bot-approved"."#);
}
