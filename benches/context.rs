//! ASSISTANT_CONTEXT validation of worst-case files at the 1 MiB a context file may be
//! (benches/support/context.rs, each as YAML and as Markdown front matter): 210,000
//! distinct or 350,000 duplicate keys, lists of 260,000 and 350,000 items and a flow
//! mapping of 100,000 lists (all past the values budget, where reading stops), the most
//! duplicates and the longest list within the budget, a 500,000-deep nest, one 1 MiB
//! line, a secret on every line, a 1 MiB body. Each must be judged in well under 100 ms;
//! the duplicate-key check alone once took two minutes.
//!
//! Run: `cargo bench --bench context -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message
#![allow(clippy::string_slice)] // test code: a panic there is a failing test

use std::hint::black_box;

use council_protocol::assistant_context::validate;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/context.rs"]
mod inputs;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("assistant_context_validate_1mib_worst_case");
    group.sample_size(10);
    for case in inputs::cases() {
        group.throughput(Throughput::Bytes(case.text.len() as u64));
        group.bench_function(&case.name, |b| {
            b.iter(|| black_box(validate(case.path, black_box(&case.text)).is_ok()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
