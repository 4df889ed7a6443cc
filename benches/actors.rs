//! Agents and humans.
//!
//! - `simulate/10000`: `council policy simulate`'s decision over 10,000 recorded pull
//!   requests (the store's read is the caller's): the guard from each one's branches
//!   and the class from its author and branch, under a policy other than the one that
//!   recorded them, so that some verdicts and classes change and their messages are
//!   built. The policy is compiled once, as the command does.
//! - `simulate/10000_unchanged`: the same under the recording policy (nothing changes,
//!   nothing is rendered): the common case.
//! - `classify/250_commits`: a pull request's class from 250 commits (GitHub's most),
//!   each a 4 KiB message ending in five trailers, none an agent's: every trailer read.
//! - `classify/hostile`: 250 commits of 64 KiB each, one whole paragraph of `K: v`
//!   lines (a block of 100 trailers read, the rest counted), and a 1 MiB trailer value.
//!
//! Run: `cargo bench --bench actors`

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::hint::black_box;
use std::time::Duration;

use council_protocol::actors::{
    ActorFacts, Class, CommitMessage, Commits, RecordedActor, RecordedPull, classify, replay,
};
use council_protocol::gates::Verdict;
use council_protocol::gates::guard::evaluate_branch;
use council_protocol::policy::Policy;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const PULLS: usize = 10_000;

/// A pseudo-random number for the i-th pull request.
fn mix(i: usize) -> usize {
    i.wrapping_mul(2654435761) >> 7
}

/// Branches, bases and authors of the kinds a store holds.
fn recorded_world(
    policy: &Policy,
) -> Vec<(String, String, String, Verdict, Verdict, RecordedActor)> {
    let heads = [
        "feature/api/PBI-{}-login",
        "chore/ci/PBI-{}-cache",
        "hotfix/INC-{}-outage",
        "copilot/fix-{}",
        "claude/issue-{}-20260101",
        "dependabot/npm_and_yarn/lodash-4.17.{}",
        "bugfix/{}",
        "feature/PBI-{}",
    ];
    let authors = [
        "alice",
        "bob",
        "copilot-swe-agent[bot]",
        "Copilot",
        "dependabot[bot]",
        "carol",
    ];
    (0..PULLS)
        .map(|i| {
            let m = mix(i);
            let head = heads[m % heads.len()].replace("{}", &i.to_string());
            let base = ["develop", "main"][m / 7 % 2].to_string();
            let author = authors[m / 13 % authors.len()].to_string();
            let gates = evaluate_branch(policy, &head, &base);
            let actor = classify(
                &policy.actors.agents,
                &ActorFacts {
                    author: Some(&author),
                    head: &head,
                    labels: None,
                    commits: None,
                },
            );
            let recorded = RecordedActor::parse(&actor.message().plain()).unwrap();
            (
                head,
                base,
                author,
                gates[0].verdict,
                gates[1].verdict,
                recorded,
            )
        })
        .collect()
}

fn simulate(c: &mut Criterion) {
    let recording = Policy::default_policy();
    let world = recorded_world(&recording);
    let candidate = Policy::parse(
        "branches:\n  exempt: [\"dependabot/**\"]\n  rules:\n    - {pattern: \"feature/**\", \
         targets: [develop]}\n    - {pattern: \"hotfix/*\", targets: [main, develop]}\n    - \
         {pattern: \"copilot/*\", targets: [develop]}\nactors:\n  agents:\n    logins: \
         [\"*[bot]\"]\n    branches: [\"claude/**\"]\n",
        "candidate.yml",
    )
    .unwrap();
    let mut group = c.benchmark_group("simulate");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(PULLS as u64));
    for (name, policy) in [("10000", &candidate), ("10000_unchanged", &recording)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut changed = 0;
                for (head, base, author, naming, target, actor) in &world {
                    let r = replay(
                        black_box(policy),
                        &RecordedPull {
                            number: 1,
                            head,
                            base,
                            author,
                            naming_convention: Some(*naming),
                            target_policy: Some(*target),
                            actor: Some(actor),
                        },
                    );
                    changed += usize::from(r.changes());
                }
                changed
            })
        });
    }
    group.finish();
    let changed = world
        .iter()
        .filter(|(head, base, author, naming, target, actor)| {
            replay(
                &candidate,
                &RecordedPull {
                    number: 1,
                    head,
                    base,
                    author,
                    naming_convention: Some(*naming),
                    target_policy: Some(*target),
                    actor: Some(actor),
                },
            )
            .changes()
        })
        .count();
    let agents = world.iter().filter(|w| w.5.class == Class::Agent).count();
    eprintln!("simulate: {changed} of {PULLS} pull requests change ({agents} recorded agents')");
}

fn commit(i: usize, message: String) -> CommitMessage {
    CommitMessage {
        sha: format!("{i:040x}"),
        message,
    }
}

fn classify_bench(c: &mut Criterion) {
    let policy = Policy::default_policy();
    let honest: Vec<CommitMessage> = (0..250)
        .map(|i| {
            let body = "Explain the change and why it was needed. ".repeat(95);
            commit(
                i,
                format!(
                    "Change {i}\n\n{body}\n\nSigned-off-by: Alice <a@example.com>\nReviewed-by: Bob \
                     <b@example.com>\nCo-authored-by: Carol <c@example.com>\nFixes: #{i}\nLink: \
                     https://example.com/{i}\n"
                ),
            )
        })
        .collect();
    let mut hostile: Vec<CommitMessage> = (0..249)
        .map(|i| commit(i, format!("T\n\n{}", "K: v\n".repeat(64 * 1024 / 5))))
        .collect();
    hostile.push(commit(
        249,
        format!("T\n\nCo-authored-by: Claude {}\n", "x".repeat(1 << 20)),
    ));
    let mut group = c.benchmark_group("classify");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    for (name, commits) in [("250_commits", &honest), ("hostile", &hostile)] {
        let bytes: usize = commits.iter().map(|c| c.message.len()).sum();
        eprintln!("classify/{name}: {} bytes of messages", bytes);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                classify(
                    &policy.actors.agents,
                    &ActorFacts {
                        author: Some("alice"),
                        head: "feature/x",
                        labels: Some(&[]),
                        commits: Some(Commits {
                            listed: black_box(commits),
                            total: 250,
                        }),
                    },
                )
                .class
            })
        });
    }
    group.finish();
}

criterion_group!(benches, simulate, classify_bench);
criterion_main!(benches);
