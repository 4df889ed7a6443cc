//! The guard on the worst policies the limits accept (SPEC: any accepted policy is decided
//! in under 100 ms), and the time to parse them.
//!
//! - `globs`: 1,000 exempt globs and 1,000 rules (one anchored rule, aliased) of 50
//!   targets each, every glob a run of `*?` that keeps all positions alive until its last
//!   character fails: about the most glob work 1 MiB of expanded text allows.
//! - `regexes`: 1,000 `regex` rules that together fill the regex budget, each of a shape
//!   that defeats the lazy DFA on the a/b head they are searched with.
//! - `one_regex`: a single regex of nearly the whole budget.
//! - `values`: 65 rules (aliased) of 1,000 one-letter targets, just under the 65,536
//!   values the limits allow: the most parsing work.
//!
//! Names are 255 characters. Decisions are measured cold, as in the action (one decision
//! per process): every iteration gets a fresh clone of the policy, and cloning a regex
//! gives it an empty cache.
//!
//! Run: `cargo bench --bench policy`

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use council_protocol::gates::guard::{GuardInput, evaluate};
use council_protocol::policy::Policy;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

const NAME_LEN: usize = 255;

fn flow_list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

/// `*?` repeated, then `last`: every `?` keeps the state alive on any name without `/`.
fn slow_glob(pairs: usize, last: char) -> String {
    format!("'{}{last}'", "*?".repeat(pairs))
}

fn globs_policy() -> String {
    let exempt = flow_list((0..1000).map(|_| slow_glob(20, 'z')));
    let targets = flow_list((0..50).map(|_| slow_glob(8, 'z')));
    let mut text = format!(
        "branches:\n  exempt: {exempt}\n  rules:\n    - &r {{pattern: {}, targets: {targets}}}\n",
        slow_glob(20, 'q')
    );
    for _ in 1..1000 {
        text.push_str("    - *r\n");
    }
    text
}

fn values_policy() -> String {
    let targets = flow_list((0..1000).map(|_| "a".to_string()));
    let mut text =
        format!("branches:\n  rules:\n    - &r {{pattern: \"x/*\", targets: {targets}}}\n");
    for _ in 1..65 {
        text.push_str("    - *r\n");
    }
    text
}

fn regex_rule(i: usize, k: usize) -> String {
    // `.{0,k}` before a `c` the head lacks: the DFA needs a state per position.
    format!("    - {{regex: \"r{i}|(?:a|b|ab|ba)*.{{0,{k}}}c\", targets: [main]}}\n")
}

fn regexes_policy(rules: usize, k: usize) -> String {
    let mut text = String::from("branches:\n  rules:\n");
    for i in 0..rules {
        text.push_str(&regex_rule(i, k));
    }
    text
}

/// The largest repetition that the regex budget still accepts for `rules` rules.
fn fill_budget(rules: usize) -> (String, usize) {
    let (mut fits, mut over) = (0usize, 100_000usize);
    while over - fits > 1 {
        let mid = fits + (over - fits) / 2;
        if Policy::parse(&regexes_policy(rules, mid), "bench").is_ok() {
            fits = mid;
        } else {
            over = mid;
        }
    }
    (regexes_policy(rules, fits), fits)
}

fn ab_name(seed: u64) -> String {
    let mut x = seed;
    (0..NAME_LEN)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if (x >> 33).is_multiple_of(2) {
                'a'
            } else {
                'b'
            }
        })
        .collect()
}

/// A policy's text and a head/base pair, built when a benchmark that uses it runs (the
/// regex ones take a while to fit to the budget).
struct Case {
    name: &'static str,
    text: fn() -> String,
    head: fn() -> String,
    base: fn() -> String,
}

fn regexes() -> String {
    let (text, k) = fill_budget(1000);
    eprintln!("regexes: `.{{0,{k}}}` fills the budget");
    text
}

fn one_regex() -> String {
    let (text, k) = fill_budget(1);
    eprintln!("one_regex: `.{{0,{k}}}` fills the budget");
    text
}

const CASES: [Case; 6] = [
    // No rule matches: hints and the list of allowed shapes are computed too.
    Case {
        name: "globs/no_rule_matches",
        text: globs_policy,
        head: || "a".repeat(NAME_LEN),
        base: || "b".repeat(NAME_LEN),
    },
    // Every rule matches and no target allows the base: every target is tried.
    Case {
        name: "globs/no_target_allows",
        text: globs_policy,
        head: || format!("{}q", "a".repeat(NAME_LEN - 1)),
        base: || "b".repeat(NAME_LEN),
    },
    Case {
        name: "values/no_target_allows",
        text: values_policy,
        head: || "x/y".to_string(),
        base: || "b".repeat(NAME_LEN),
    },
    Case {
        name: "regexes/no_rule_matches",
        text: regexes,
        head: || ab_name(1),
        base: || "main".to_string(),
    },
    Case {
        name: "regexes/first_rule_matches",
        text: regexes,
        head: || "r0".to_string(),
        base: || "main".to_string(),
    },
    Case {
        name: "one_regex/no_rule_matches",
        text: one_regex,
        head: || ab_name(2),
        base: || "main".to_string(),
    },
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("policy_worst");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    for (name, text_of) in [
        ("globs", globs_policy as fn() -> String),
        ("regexes", regexes),
        ("one_regex", one_regex),
        ("values", values_policy),
    ] {
        let text = OnceLock::new();
        group.bench_function(format!("parse/{name}"), |b| {
            let text = text.get_or_init(|| {
                let t = text_of();
                eprintln!("{name}: {} bytes of policy", t.len());
                t
            });
            b.iter(|| Policy::parse(black_box(text), "bench").is_ok())
        });
    }
    for case in &CASES {
        let setup = OnceLock::new();
        group.bench_function(format!("decide/{}", case.name), |b| {
            let (policy, head, base) = setup.get_or_init(|| {
                let policy = Policy::parse(&(case.text)(), "bench").expect("the limits accept it");
                (policy, (case.head)(), (case.base)())
            });
            // The clone is made, and dropped, outside the measurement.
            b.iter_batched_ref(
                || policy.clone(),
                |p| {
                    let outcomes = evaluate(GuardInput {
                        pr_number: 1,
                        head,
                        base,
                        previous_base: None,
                        policy: &p.branches,
                        policy_source: &p.source,
                    });
                    council_protocol::gates::guard::passed(&outcomes)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
