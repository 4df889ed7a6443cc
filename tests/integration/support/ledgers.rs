//! Context Objects as earlier runs (or forgers) left them: one run's entries on a head,
//! sealed (signed with a key when given), for a comment or an artifact.

use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::{Links, Stored, merge, render};
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
use council_protocol::event::PullRequest;
use serde_json::Value;

use super::REPO;

/// A branch the default policy lets into `develop` only.
pub const HEAD_REF: &str = "feature/devops/PBI-007-release";

/// Pull request `number` from `HEAD_REF` at `sha` into `base`, as a stored object names it.
pub fn pull_request(number: u64, base: &str, sha: &str) -> PullRequest {
    PullRequest {
        number,
        title: format!("Pull request #{number}"),
        body: String::new(),
        author: "octocat".into(),
        head_ref: HEAD_REF.into(),
        head_sha: sha.into(),
        head_repo: Some(REPO.into()),
        base_ref: base.into(),
        base_sha: "b".repeat(40),
        base_repo: REPO.into(),
        state: "open".into(),
        draft: false,
        labels: Vec::new(),
        html_url: String::new(),
        changed_files: None,
        additions: None,
        deletions: None,
    }
}

/// The Context Object of pull request `number` (into `base`) with one earlier run
/// (`run_id`) of `(agent, action, result)` entries on `sha`.
pub fn ledger(
    number: u64,
    base: &str,
    sha: &str,
    run_id: &str,
    entries: &[(&'static str, &str, &str)],
    key: Option<&str>,
) -> Stored {
    let pr = pull_request(number, base, sha);
    let at = "2026-01-01T00:00:00Z";
    let mut ours = ContextObject::new(REPO, &pr, "webhook:pull_request.synchronize", at);
    let run = RunInfo {
        run_id: run_id.into(),
        run_attempt: 1,
        job: "council".into(),
    };
    for &(agent, action, result) in entries {
        let record = Record {
            stage: agent.trim_start_matches("agent_"),
            agent,
            action: action.to_string(),
            result: result.to_string(),
            message: "looks fine".into(),
        };
        ours.timeline.push(new_entry(&run, &record, sha, at));
    }
    merge(None, &ours, key.map(str::as_bytes)).expect("a ledger")
}

/// The comment body a stored object is kept in.
pub fn comment(stored: &Stored) -> String {
    render(stored, &Links::default())
}

/// The audit file of a stored object, as an artifact holds it.
pub fn audit_file(stored: &Stored) -> Value {
    serde_json::to_value(stored.file_context()).expect("an audit file")
}

/// The Context Object of pull request `number` from `HEAD_REF` into `base` after one run
/// (`run_id`) of the real guard under the default policy: its entries' messages name the
/// branches it judged, as a council run's do.
pub fn guarded(number: u64, base: &str, sha: &str, run_id: &str, key: Option<&str>) -> Stored {
    use council_protocol::gates::guard::{GuardInput, evaluate};
    use council_protocol::policy::Policy;
    let pr = pull_request(number, base, sha);
    let at = "2026-01-01T00:00:00Z";
    let mut ours = ContextObject::new(REPO, &pr, "webhook:pull_request.synchronize", at);
    let run = RunInfo {
        run_id: run_id.into(),
        run_attempt: 1,
        job: "council".into(),
    };
    let policy = Policy::default_policy();
    for gate in evaluate(GuardInput {
        pr_number: number,
        head: HEAD_REF,
        base,
        previous_base: None,
        policy: &policy.branches,
        policy_source: &policy.source,
    }) {
        let record = Record {
            stage: "guard",
            agent: "agent_guard",
            action: gate.action.to_string(),
            result: gate.verdict.as_str().to_string(),
            message: gate.timeline_message(),
        };
        ours.timeline.push(new_entry(&run, &record, sha, at));
    }
    merge(None, &ours, key.map(str::as_bytes)).expect("a ledger")
}
