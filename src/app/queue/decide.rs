//! The gates of the pull requests the plan needs ([`QueueFacts::to_decide`]: those in the
//! queue commit, then the head of the line), decided again from live facts by the
//! release stage itself, exactly as a release event would decide them (under the queue:
//! `behind` is not waited for). The label is a place in line, never a credential: a pull
//! request is built into a queue commit, and landed, only when every gate passes now.

use super::facts::Read;
use super::{Carried, Queue};
use crate::app::stages::{self, Evaluated, StageInput};
use council_protocol::error::Result;
use council_protocol::gates::guard;
use council_protocol::policy::Policy;
use council_protocol::queue::{LiveVerdict, PrState, QueueFacts};
use council_protocol::render::text::Message;
use council_protocol::stage::Stage;

pub async fn verdicts(
    q: &Queue<'_>,
    read: &mut Read,
    base: &str,
    policy: &Policy,
    carried: &[Carried],
) -> Result<()> {
    let numbers = QueueFacts::to_decide(&read.facts, &policy.queue);
    let run_url = q.env.run_url(&q.clients.repo);
    for number in numbers {
        let Some(queued) = read.facts.pulls.iter_mut().find(|p| p.number == number) else {
            continue;
        };
        if queued.state != PrState::Open {
            continue;
        }
        // Decided a moment ago in this run, by the release stage that queued it.
        if let Some(c) = carried.iter().find(|c| c.pr.number == number)
            && let Some(result) = c.results.iter().find(|r| r.stage == Stage::Release)
        {
            queued.verdict = Some(LiveVerdict::of_release(result));
            continue;
        }
        let Some(pr) = read.pulls.get(&number) else {
            continue;
        };
        if pr.base_ref != base {
            // Retargeted: its merge in this base's queue commit was decided for another
            // base, so it leaves this queue.
            let message = Message::new()
                .text(format!("#{number} now targets "))
                .value(&pr.base_ref)
                .text(", not ")
                .value(base)
                .text(", the base whose queue it was in");
            queued.verdict = Some(LiveVerdict::Fail {
                gates: vec![guard::target_gate().fail(message, None)],
            });
            continue;
        }
        let input = StageInput {
            env: q.env,
            req: q.req,
            event: q.event,
            clients: q.clients,
            pr,
            policy,
            run_url: run_url.as_deref(),
            for_queue: true,
        };
        match stages::evaluate(Stage::Release, &input).await? {
            Evaluated::Decided(result) | Evaluated::DecidedOn(result, _) => {
                queued.verdict = Some(LiveVerdict::of_release(&result));
            }
            Evaluated::Skipped(_) => {}
        }
    }
    Ok(())
}
