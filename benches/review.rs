//! The review decision on a pull request at GitHub's file cap: 3,000 files and 100,000
//! added lines (a few planted secrets, docs and code, a task list), with every review
//! gate on. Also the secret scan alone, as throughput over the patch bytes.
//!
//! Run: `cargo bench --bench review -- --warm-up-time 1 --measurement-time 5`

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::hint::black_box;

use council_protocol::event::PullRequest;
use council_protocol::policy::{DiffSize, DocsGate, DocsPair, Review};
use council_protocol::review::{DiffFacts, FileChange, ReviewFacts};
use council_protocol::stage::review::evaluate;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FILES: usize = 3_000;
const ADDED_LINES: usize = 100_000;

const LINES: [&str; 6] = [
    "    let total: u64 = items.iter().map(|i| i.price * i.quantity).sum();",
    "    // password handling lives in auth::verify, see docs/auth.md",
    "    if retries > MAX_RETRIES { return Err(Error::GaveUp { attempts: retries }); }",
    "const API_URL: &str = \"https://api.example.com/v1\";",
    "    assert_eq!(parse(\"secret = ${{ env.SECRET }}\"), Ok(Value::Placeholder));",
    "}",
];

fn diff() -> (Vec<FileChange>, usize) {
    let per_file = ADDED_LINES / FILES + 1;
    let mut files = Vec::with_capacity(FILES);
    let mut bytes = 0;
    let mut added = 0;
    for i in 0..FILES {
        let mut patch = format!("@@ -1,0 +1,{per_file} @@");
        for j in 0..per_file {
            if added == ADDED_LINES {
                break;
            }
            patch.push_str("\n+");
            if i % 997 == 0 && j == 3 {
                patch.push_str("AWS_KEY = \"AKIAZ3MBQ7XK2LPW4NVD\"");
            } else {
                patch.push_str(LINES[(i + j) % LINES.len()]);
            }
            added += 1;
        }
        bytes += patch.len();
        let path = match i % 10 {
            0 => format!("docs/module_{i}.md"),
            1 => format!("src/api/handler_{i}.rs"),
            _ => format!("src/module_{}/file_{i}.rs", i % 50),
        };
        files.push(FileChange {
            path,
            status: "added".into(),
            previous_path: None,
            additions: per_file as u64,
            deletions: 0,
            patch: Some(patch),
        });
    }
    (files, bytes)
}

fn policy() -> Review {
    Review {
        docs: Some(DocsGate {
            code: vec!["src/**".into()],
            docs: vec!["docs/**".into(), "*.md".into()],
            map: vec![DocsPair {
                code: vec!["src/api/**".into()],
                docs: vec!["docs/api/**".into()],
            }],
            skip_label: Some("no-docs".into()),
        }),
        diff_size: Some(DiffSize {
            max_files: Some(5_000),
            max_changed_lines: Some(200_000),
            skip_label: None,
        }),
        task_list: true,
        ..Review::default()
    }
}

fn pr() -> PullRequest {
    let text = include_str!("../tests/data/events/pull_request.opened.json");
    let mut pr = council_protocol::event::Event::parse("pull_request", text, "bench")
        .and_then(|e| e.pull_request())
        .expect("the bundled payload parses");
    pr.body = "- [x] code\n- [ ] docs\n".repeat(20);
    pr.changed_files = Some(FILES as u64);
    pr
}

fn bench(c: &mut Criterion) {
    let (files, bytes) = diff();
    let pr = pr();
    let policy = policy();
    let facts = DiffFacts::new(files, false, &pr);
    let review = |policy: &Review| {
        evaluate(&ReviewFacts {
            pr: &pr,
            policy,
            diff: &facts,
            context_files: &[],
            actor: None,
        })
    };
    let result = review(&policy);
    assert_eq!(result.gates.len(), 5, "every gate ran");
    let mut group = c.benchmark_group("review");
    group.sample_size(20);
    group.bench_function("decision_3000_files_100k_added_lines", |b| {
        b.iter(|| black_box(review(&policy)))
    });
    let scan_only = Review {
        secret_scan: true,
        ..Review::default()
    };
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("secret_scan_only", |b| {
        b.iter(|| black_box(review(&scan_only)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
