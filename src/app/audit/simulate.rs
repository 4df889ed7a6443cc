//! `council policy simulate [PATH]`: a policy replayed against every pull request in the
//! audit store (SPEC "Audit store"): the guard gates from each one's recorded branches,
//! its class from its recorded author and branch, compared with what its ledger
//! recorded. A team changing its policy sees which past pull requests the change would
//! have stopped, or let through, before it merges the change.
//!
//! The store is read in one statement ([`council_store::Store::recorded_pulls`]), the
//! policy compiled once, and each pull request decided by
//! [`council_protocol::actors::replay`], which builds a message only for what changes.

use std::time::Instant;

use council_protocol::actors::{Class, RecordedActor, RecordedPull, Replay, replay};
use council_protocol::error::{Outcome, Result};
use council_protocol::gates::Verdict;
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::render::text::visible;
use council_store::recorded::RecordedPullRow;
use serde_json::{Value, json};

use super::{filter, open_default, store_error};
use crate::app::policy_source::read_local;
use crate::env::RunEnv;
use crate::request::{AuditFilter, AuditRequest, PolicyFile};

pub async fn run(
    env: &RunEnv,
    req: &AuditRequest,
    policy_file: &PolicyFile,
    given: &AuditFilter,
) -> Result<Outcome> {
    let filter = filter(given)?;
    let policy = read_local(&env.cwd, &policy_file.path, policy_file.explicit)?;
    let mut store = open_default(env, req).await?;
    let started = Instant::now();
    let rows = store.recorded_pulls(&filter).await.map_err(store_error)?;
    let read = started.elapsed();
    let mut counts = Counts::default();
    let mut changed: Vec<(&RecordedPullRow, Replay)> = Vec::new();
    for row in &rows {
        let recorded = row.actor.as_deref().and_then(RecordedActor::parse);
        match &recorded {
            None => counts.class_not_recorded += 1,
            Some(r) if !r.replayable() => counts.class_not_replayable += 1,
            Some(_) => {}
        }
        let pull = RecordedPull {
            number: row.number,
            head: &row.head,
            base: &row.base,
            author: &row.author,
            naming_convention: verdict(row.naming_convention.as_deref()),
            target_policy: verdict(row.target_policy.as_deref()),
            actor: recorded.as_ref(),
        };
        let replayed = replay(&policy, &pull);
        if replayed.changes() {
            counts.add(&replayed);
            changed.push((row, replayed));
        }
    }
    counts.pull_requests = rows.len();
    let decided = started.elapsed();
    if req.json {
        let listed: Vec<Value> = changed.iter().map(|(row, r)| change_json(row, r)).collect();
        let document = json!({
            "policy": policy.source,
            "database": store.shown(),
            "changes": listed,
            "counts": counts.json(),
        });
        env.runner.println(&document.to_string());
    } else {
        env.runner
            .print(&text(&policy.source, &store.shown(), &changed, &counts));
    }
    env.runner.eprintln(&format!(
        "policy simulate: {} pull requests read in {} ms, replayed in {} ms",
        rows.len(),
        read.as_millis(),
        decided.saturating_sub(read).as_millis()
    ));
    Ok(if changed.is_empty() {
        Outcome::Passed
    } else {
        Outcome::GateFailed
    })
}

/// A stored `PASS`/`FAIL`; anything else is not compared.
fn verdict(stored: Option<&str>) -> Option<Verdict> {
    match stored? {
        "PASS" => Some(Verdict::Pass),
        "FAIL" => Some(Verdict::Fail),
        _ => None,
    }
}

#[derive(Debug, Default)]
struct Counts {
    pull_requests: usize,
    /// Pull requests with any change.
    changed: usize,
    pass_to_fail: usize,
    fail_to_pass: usize,
    human_to_agent: usize,
    agent_to_human: usize,
    /// A recorded class that rests on a trailer or a label: not in the store.
    class_not_replayable: usize,
    /// No `check:actor` entry (recorded before `actors`, or the guard stopped it).
    class_not_recorded: usize,
}

impl Counts {
    fn add(&mut self, replayed: &Replay) {
        self.changed += 1;
        for gate in &replayed.gates {
            match gate.recorded {
                Verdict::Pass => self.pass_to_fail += 1,
                _ => self.fail_to_pass += 1,
            }
        }
        match replayed.class.as_ref().map(|c| c.recorded) {
            Some(Class::Human) => self.human_to_agent += 1,
            Some(Class::Agent) => self.agent_to_human += 1,
            None => {}
        }
    }

    fn json(&self) -> Value {
        json!({
            "pull_requests": self.pull_requests,
            "changed": self.changed,
            "pass_to_fail": self.pass_to_fail,
            "fail_to_pass": self.fail_to_pass,
            "human_to_agent": self.human_to_agent,
            "agent_to_human": self.agent_to_human,
            "class_not_replayable": self.class_not_replayable,
            "class_not_recorded": self.class_not_recorded,
        })
    }
}

fn change_json(row: &RecordedPullRow, replayed: &Replay) -> Value {
    let gates: Vec<Value> = replayed
        .gates
        .iter()
        .map(|g| {
            json!({
                "recorded": g.recorded.as_str(),
                "now": GateVerdict::from(&g.now),
            })
        })
        .collect();
    let class = replayed.class.as_ref().map(|c| {
        json!({
            "recorded": c.recorded.as_str(),
            "now": c.now.class.as_str(),
            "message": c.now.message().plain(),
        })
    });
    json!({
        "repository": row.repository,
        "pr": row.number,
        "head": row.head,
        "base": row.base,
        "author": row.author,
        "attribution": row.attribution,
        "gates": gates,
        "class": class,
    })
}

fn text(policy: &str, store: &str, changed: &[(&RecordedPullRow, Replay)], c: &Counts) -> String {
    let mut out = format!(
        "{} replayed over {} pull request{} of {}\n",
        visible(policy),
        c.pull_requests,
        plural(c.pull_requests),
        store
    );
    for (row, replayed) in changed {
        out.push_str(&format!(
            "\n{}#{} {} -> {} by {}{}\n",
            visible(&row.repository),
            row.number,
            visible(&row.head),
            visible(&row.base),
            visible(&row.author),
            if row.attribution == council_store::BY_GITHUB {
                ""
            } else {
                " (unverified header)"
            }
        ));
        for gate in &replayed.gates {
            out.push_str(&format!(
                "  {} {} -> {}: {}\n",
                gate.now.gate,
                gate.recorded.as_str(),
                gate.now.verdict.as_str(),
                gate.now.message.plain()
            ));
            if let Some(fix) = &gate.now.fix {
                out.push_str(&format!("    fix: {}\n", fix.advice.plain()));
                for command in &fix.commands {
                    out.push_str(&format!("      {command}\n"));
                }
            }
        }
        if let Some(class) = &replayed.class {
            out.push_str(&format!(
                "  class {} -> {}: {}\n",
                class.recorded.as_str(),
                class.now.class.as_str(),
                class.now.message().plain()
            ));
        }
    }
    out.push_str(&format!(
        "\n{} of {} pull request{} would change: guard {} PASS -> FAIL, {} FAIL -> PASS; \
         class {} human -> agent, {} agent -> human",
        c.changed,
        c.pull_requests,
        plural(c.pull_requests),
        c.pass_to_fail,
        c.fail_to_pass,
        c.human_to_agent,
        c.agent_to_human,
    ));
    if c.class_not_replayable > 0 || c.class_not_recorded > 0 {
        out.push_str(&format!(
            " ({} class{} from a trailer or label, which the store does not hold, and {} \
             without a recorded class were not compared)",
            c.class_not_replayable,
            if c.class_not_replayable == 1 {
                ""
            } else {
                "es"
            },
            c.class_not_recorded
        ));
    }
    out.push('\n');
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
