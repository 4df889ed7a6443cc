//! `council policy simulate` over an audit store, as the command runs it: one statement
//! reads every recorded pull request (branches, author, guard verdicts, the newest
//! `check:actor` message), the policy is compiled once, and each pull request is
//! replayed.
//!
//! - `simulate_store/sqlite_10000`: a SQLite store of 10,000 pull requests, each with a
//!   guard run, a review run (`check:actor` among its entries) and a release entry
//!   (9 entries: 90,000 in all), read and replayed under a policy other than the one
//!   that recorded them (some verdicts and classes change, and their messages are
//!   built).
//! - `simulate_store/sqlite_10000_read`: the read alone.
//!
//! The store is made once, before the timing, in a temporary folder (about a minute:
//! 10,000 imports). Run: `cargo bench --bench simulate`. The same store through the
//! binary: `SIMULATE_BENCH_KEEP=DIR cargo bench --bench simulate` keeps it as
//! `DIR/audit.db`, then `time council policy simulate candidate.yml --database-url
//! sqlite://DIR/audit.db`.

#![allow(clippy::unwrap_used)] // a measurement: a panic is its failure, with the message

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use council_protocol::actors::{ActorFacts, RecordedActor, RecordedPull, classify, replay};
use council_protocol::audit::ContextObject;
use council_protocol::audit::stored::merge;
use council_protocol::audit::timeline::{Record, RunInfo, new_entry};
use council_protocol::event::PullRequest;
use council_protocol::gates::Verdict;
use council_protocol::gates::guard::evaluate_branch;
use council_protocol::gates::json::v1::GateVerdict;
use council_protocol::policy::Policy;
use council_store::query::Filter;
use council_store::{DatabaseUrl, Offer, Store};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const PULLS: u64 = 10_000;
const REPO: &str = "octo-org/hello-council";
const NOW: &str = "2026-01-01T00:00:00Z";

/// The candidate policy: stricter names, `copilot/*` let in, every app an agent.
const CANDIDATE: &str = "branches:\n  exempt: [\"dependabot/**\"]\n  rules:\n    - {pattern: \
    \"feature/**\", targets: [develop]}\n    - {pattern: \"hotfix/*\", targets: [main, develop]}\n    \
    - {pattern: \"copilot/*\", targets: [develop]}\nactors:\n  agents:\n    logins: [\"*[bot]\"]\n    \
    branches: [\"claude/**\"]\n";

fn mix(i: u64) -> u64 {
    i.wrapping_mul(2654435761) >> 7
}

/// Pull request `n` as the default policy recorded it.
fn recorded(policy: &Policy, n: u64) -> council_protocol::audit::stored::Stored {
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
    let m = mix(n);
    let head = heads[(m % heads.len() as u64) as usize].replace("{}", &n.to_string());
    let base = ["develop", "main"][(m / 7 % 2) as usize];
    let author = authors[(m / 13 % authors.len() as u64) as usize];
    let sha = format!("{:040x}", m);
    let pr = PullRequest {
        number: n,
        title: format!("Pull request #{n}"),
        body: String::new(),
        author: author.into(),
        head_ref: head.clone(),
        head_sha: sha.clone(),
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
    };
    let mut ctx = ContextObject::new(REPO, &pr, "webhook:pull_request.opened", NOW);
    let push = |ctx: &mut ContextObject, run: &str, stage, agent, action: &str, result, message| {
        let run = RunInfo {
            run_id: run.into(),
            run_attempt: 1,
            job: "council".into(),
        };
        let record = Record {
            stage,
            agent,
            action: action.into(),
            result,
            message,
        };
        ctx.timeline.push(new_entry(&run, &record, &sha, NOW));
    };
    let gates = evaluate_branch(policy, &head, base);
    for gate in &gates {
        push(
            &mut ctx,
            "1",
            "guard",
            "agent_guard",
            gate.action,
            gate.verdict.as_str().into(),
            gate.timeline_message(),
        );
    }
    let actor = classify(
        &policy.actors.agents,
        &ActorFacts {
            author: Some(author),
            head: &head,
            labels: Some(&[]),
            commits: None,
        },
    );
    push(
        &mut ctx,
        "2",
        "review",
        "agent_review",
        "check:actor",
        "PASS".into(),
        actor.message().plain(),
    );
    for action in [
        "check:secret-scan",
        "check:assistant-context",
        "check:doc-coverage",
        "check:diff-size",
        "check:task-list",
    ] {
        push(
            &mut ctx,
            "2",
            "review",
            "agent_review",
            action,
            "PASS".into(),
            "looks fine".into(),
        );
    }
    push(
        &mut ctx,
        "3",
        "release",
        "agent_release",
        "check:pipeline",
        "PASS".into(),
        "2 checks are green".into(),
    );
    merge(None, &ctx, None).unwrap()
}

async fn make_store(dir: &Path) -> Store {
    let url =
        DatabaseUrl::parse(&format!("sqlite://{}", dir.join("audit.db").display()), dir).unwrap();
    let mut store = Store::open(&url, NOW).await.unwrap();
    let policy = Policy::default_policy();
    let started = Instant::now();
    for n in 1..=PULLS {
        let stored = recorded(&policy, n);
        store
            .import(&Offer::new(&stored, "bench", NOW))
            .await
            .unwrap();
    }
    store.optimize().await.unwrap();
    eprintln!(
        "simulate_store: {PULLS} pull requests imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    store
}

/// Reads and replays every pull request: how many would change.
async fn simulate(store: &mut Store, policy: &Policy) -> usize {
    let rows = store.recorded_pulls(&Filter::default()).await.unwrap();
    let verdict = |v: Option<&str>| match v {
        Some("PASS") => Some(Verdict::Pass),
        Some("FAIL") => Some(Verdict::Fail),
        _ => None,
    };
    let mut changed = 0;
    for row in &rows {
        let actor = row.actor.as_deref().and_then(RecordedActor::parse);
        let r = replay(
            black_box(policy),
            &RecordedPull {
                number: row.number,
                head: &row.head,
                base: &row.base,
                author: &row.author,
                naming_convention: verdict(row.naming_convention.as_deref()),
                target_policy: verdict(row.target_policy.as_deref()),
                actor: actor.as_ref(),
            },
        );
        if r.changes() {
            // What the command prints for it: the gates' and the class's messages.
            for gate in &r.gates {
                black_box(GateVerdict::from(&gate.now));
            }
            if let Some(class) = &r.class {
                black_box(class.now.message().plain());
            }
            changed += 1;
        }
    }
    assert_eq!(rows.len() as u64, PULLS);
    changed
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let kept = std::env::var_os("SIMULATE_BENCH_KEEP").map(std::path::PathBuf::from);
    let temp = tempfile::tempdir().unwrap();
    let dir = kept.as_deref().unwrap_or(temp.path());
    std::fs::create_dir_all(dir).unwrap();
    let _ = std::fs::remove_file(dir.join("audit.db"));
    let mut store = runtime.block_on(make_store(dir));
    let candidate = Policy::parse(CANDIDATE, "candidate.yml").unwrap();
    if kept.is_some() {
        std::fs::write(dir.join("candidate.yml"), CANDIDATE).unwrap();
    }
    let changed = runtime.block_on(simulate(&mut store, &candidate));
    eprintln!("simulate_store: {changed} of {PULLS} pull requests change under candidate.yml");
    let mut group = c.benchmark_group("simulate_store");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(15))
        .throughput(Throughput::Elements(PULLS));
    group.bench_function("sqlite_10000", |b| {
        b.iter(|| runtime.block_on(simulate(&mut store, &candidate)))
    });
    group.bench_function("sqlite_10000_read", |b| {
        b.iter(|| {
            runtime
                .block_on(store.recorded_pulls(&Filter::default()))
                .unwrap()
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
