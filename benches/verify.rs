//! `verify` on a 100,000-entry Context Object (target: under 1 s): the parsed-`Value` API
//! the ledger uses, and the streaming reader `council verify` uses (from bytes in memory,
//! so the file system is not measured). Peak RSS of the real binary on 100k / 1M
//! entries: benches/verify_rss.py.
//! Run: cargo bench --bench verify

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::hint::black_box;
use std::time::Duration;

use council_protocol::audit::verify::{verify, verify_reader};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/timeline.rs"]
mod timeline;

const N: usize = 100_000;
const KEY: &[u8] = b"bench-key";

fn bench(c: &mut Criterion) {
    let unsigned = timeline::document(timeline::timeline(N, None));
    let signed = timeline::document(timeline::timeline(N, Some(KEY)));
    let signed_text = serde_json::to_string(&signed).expect("serializes");

    let mut group = c.benchmark_group("verify_100k");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("unsigned", |b| {
        b.iter(|| verify(black_box(&unsigned), None))
    });
    group.bench_function("signed", |b| {
        b.iter(|| verify(black_box(&signed), Some(KEY)))
    });
    group.bench_function("parse_and_verify_signed", |b| {
        b.iter(|| {
            let doc: serde_json::Value = serde_json::from_str(black_box(&signed_text))?;
            Ok::<_, serde_json::Error>(verify(&doc, Some(KEY)).is_ok())
        })
    });
    group.bench_function("stream_signed", |b| {
        b.iter(|| verify_reader(black_box(signed_text.as_bytes()), Some(KEY)).is_ok())
    });
    group.bench_function("seal_signed", |b| {
        b.iter(|| timeline::timeline(black_box(N), Some(KEY)).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
