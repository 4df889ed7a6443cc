//! Context Objects for the store's tests: sealed with the product's own rules, shaped as
//! council writes them (guard, review and release entries over several runs).

#![allow(dead_code)]

use council_protocol::audit::context::{
    ContextObject, GuardStatus, ReleaseStatus, ReviewStatus, StageState, Subject,
};
use council_protocol::audit::stored::{Omitted, Stored, merge};
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};

/// One decision: stage agent, action, result, run id, time.
#[derive(Debug, Clone)]
pub struct Step {
    pub agent: &'static str,
    pub action: &'static str,
    pub result: &'static str,
    pub run: u64,
    pub at: String,
}

pub fn step(
    agent: &'static str,
    action: &'static str,
    result: &'static str,
    run: u64,
    at: &str,
) -> Step {
    Step {
        agent,
        action,
        result,
        run,
        at: at.to_string(),
    }
}

/// A guard run: both checks, passing or failing the branch name.
pub fn guard(run: u64, at: &str, name_ok: bool) -> Vec<Step> {
    vec![
        step(
            "agent_guard",
            "check:branch-name",
            if name_ok { "PASS" } else { "FAIL" },
            run,
            at,
        ),
        step("agent_guard", "check:target-branch", "PASS", run, at),
    ]
}

pub fn blank(repo: &str, pr: u64, author: &str) -> ContextObject {
    ContextObject {
        schema_version: 1,
        context_id: format!("PR-{pr}"),
        repository: repo.to_string(),
        timestamp: "2026-03-02T10:00:00Z".to_string(),
        trigger: "webhook:pull_request.opened".to_string(),
        subject: Subject {
            kind: "pull_request".to_string(),
            id: pr,
            source_branch: format!("feature/api/PBI-{pr}-login"),
            target_branch: "develop".to_string(),
            author: author.to_string(),
            head_sha: "a".repeat(40),
        },
        state: StageState {
            guard_status: GuardStatus::Pending,
            review_status: ReviewStatus::Pending,
            release_status: ReleaseStatus::Pending,
        },
        gates: Default::default(),
        timeline: Vec::new(),
        extra: Default::default(),
    }
}

/// A sealed object holding `steps`, in order.
pub fn object(repo: &str, pr: u64, author: &str, steps: &[Step], key: Option<&[u8]>) -> Stored {
    extend(None, repo, pr, author, steps, key)
}

/// `earlier` with `steps` sealed on (a later run's object), or a new chain.
pub fn extend(
    earlier: Option<Stored>,
    repo: &str,
    pr: u64,
    author: &str,
    steps: &[Step],
    key: Option<&[u8]>,
) -> Stored {
    let mut ours = blank(repo, pr, author);
    for s in steps {
        let run = RunInfo {
            run_id: s.run.to_string(),
            run_attempt: 1,
            job: "council".to_string(),
        };
        let stage = s.agent.trim_start_matches("agent_");
        let stage: &'static str = match stage {
            "guard" => "guard",
            "review" => "review",
            _ => "release",
        };
        let record = Record {
            stage,
            agent: s.agent,
            action: s.action.to_string(),
            result: s.result.to_string(),
            message: format!("{} {} in run {}", s.action, s.result, s.run),
        };
        ours.timeline
            .push(new_entry(&run, &record, &"a".repeat(40), &s.at));
        ours.timestamp = s.at.clone();
    }
    merge(earlier, &ours, key).expect("sealed")
}

/// What a comment holds when only the newest `keep` entries fit: the older ones omitted,
/// anchored by the hash of the newest omitted one.
pub fn tail(full: &Stored, keep: usize) -> Stored {
    let timeline = &full.context.timeline;
    let cut = timeline.len() - keep;
    let mut out = full.clone();
    out.context.timeline = timeline[cut..].to_vec();
    out.omitted = Omitted {
        count: cut,
        head_hash: timeline[cut - 1].hash.clone(),
        summaries: Vec::new(),
    };
    out
}

/// Two agents, three pull requests, known numbers.
pub async fn known_store(store: &mut council_store::Store) {
    // agent-1: PR 1 fails the name once then passes, merged after 2 h; PR 2 passes, merged
    // after 30 min, then rolled back.
    let mut pr1 = guard(11, "2026-03-02T10:00:00Z", false);
    pr1.extend(guard(12, "2026-03-02T10:30:00Z", true));
    pr1.push(step(
        "agent_review",
        "check:secret-scan",
        "FAIL",
        12,
        "2026-03-02T10:31:00Z",
    ));
    pr1.push(step(
        "agent_review",
        "check:doc-coverage",
        "PASS",
        12,
        "2026-03-02T10:31:00Z",
    ));
    pr1.push(step(
        "agent_release",
        "check:pipeline",
        "PASS",
        13,
        "2026-03-02T12:00:00Z",
    ));
    pr1.push(step(
        "agent_release",
        "action:merge",
        "DONE",
        13,
        "2026-03-02T12:00:00Z",
    ));
    let mut pr2 = guard(21, "2026-03-09T09:00:00Z", true);
    pr2.push(step(
        "agent_release",
        "action:merge",
        "DONE",
        22,
        "2026-03-09T09:30:00Z",
    ));
    pr2.push(step(
        "agent_release",
        "action:revert",
        "DONE",
        23,
        "2026-03-09T10:00:00Z",
    ));
    // agent-2: PR 3 fails the target twice.
    let pr3 = vec![
        step(
            "agent_guard",
            "check:branch-name",
            "PASS",
            31,
            "2026-03-09T09:00:00Z",
        ),
        step(
            "agent_guard",
            "check:target-branch",
            "FAIL",
            31,
            "2026-03-09T09:00:00Z",
        ),
        step(
            "agent_guard",
            "check:branch-name",
            "PASS",
            32,
            "2026-03-10T09:00:00Z",
        ),
        step(
            "agent_guard",
            "check:target-branch",
            "FAIL",
            32,
            "2026-03-10T09:00:00Z",
        ),
    ];
    for (pr, author, steps) in [
        (1, "agent-1", pr1),
        (2, "agent-1", pr2),
        (3, "agent-2", pr3),
    ] {
        let stored = object("octo/app", pr, author, &steps, None);
        let offer = council_store::Offer::new(&stored, "file", "2026-03-20T12:00:00Z");
        let imported = store.import(&offer).await.expect("import");
        assert_eq!(imported.verification, council_store::Verification::Verified);
    }
}
