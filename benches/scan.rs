//! Block scanning over a 50 MB synthetic issue history: ~12,000 comments of 1–8 KB
//! of Markdown (code fences, HTML, quotes, `<` everywhere), a handful of blocks.
//! The only valid trusted block is in the oldest comment, so selection must scan
//! every comment: the worst case for `state get`.
//!
//! Run: `cargo bench --bench scan -- --warm-up-time 1 --measurement-time 5`

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::hint::black_box;

use council_protocol::agent_state::find::may_hold_block;
use council_protocol::agent_state::{IssueComment, TrustConfig, select_latest};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const TARGET_BYTES: usize = 50 * 1024 * 1024;

const PARAGRAPHS: [&str; 8] = [
    "I looked at the failing job again. The `<Button>` component renders twice when the \
     `onClick` handler is <em>async</em>; see https://github.com/o/r/actions/runs/123 for logs.\n\n",
    "```rust\nfn main() {\n    let v: Vec<u8> = vec![1, 2, 3];\n    if v.len() < 4 && v[0] > 0 { println!(\"{v:?}\"); }\n}\n```\n\n",
    "> Quoting @alice: this breaks on Windows <br> because of CRLF.\n> Agreed.\n\n",
    "- [x] reproduce\n- [ ] fix the parser for <T> generics\n- [ ] add a test\n\n",
    "<details><summary>Stack trace</summary>\n\n```\nat <anonymous> (index.js:1:2)\nat Array.map (<anonymous>)\n```\n</details>\n\n",
    "Benchmarks before/after: 12.3 ms → 8.1 ms (-34%). The <agent> field is optional; \
     the state tag is documented in CONTEXT_PROTOCOL.md.\n\n",
    "| file | lines |\n|---|---|\n| src/a.rs | 120 |\n| src/b.rs | 87 |\n\n",
    "<!-- hidden note: rerun with RUST_LOG=debug -->\nThanks! LGTM <3\n\n",
];

const BLOCK: &str = "```xml\n<agent-state>\n  <intent>add_auth</intent>\n  <step>testing</step>\n  \
                     <progress>70</progress>\n  <memory>{\"files_changed\": [\"auth.ts\"]}</memory>\n\
                     </agent-state>\n```\n";

struct Owned {
    author: &'static str,
    association: &'static str,
    body: String,
    html_url: String,
    created_at: String,
}

fn history() -> Vec<Owned> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize
    };
    let mut comments = Vec::new();
    let mut total = 0;
    while total < TARGET_BYTES {
        let index = comments.len();
        let size = 1024 + next() % 7168;
        let mut body = String::with_capacity(size + 256);
        while body.len() < size {
            body.push_str(PARAGRAPHS[next() % PARAGRAPHS.len()]);
        }
        let (author, association) = match index % 7 {
            0 => ("mallory", "NONE"),
            1 | 2 => ("alice", "NONE"),
            _ => ("bob", "MEMBER"),
        };
        if index == 0 {
            body.push_str(BLOCK);
        } else if index % 1500 == 0 {
            // Forged blocks from untrusted authors and quoted blocks from trusted ones.
            body.push_str(&format!("> {}", BLOCK.replace('\n', "\n> ")));
        }
        total += body.len();
        comments.push(Owned {
            author: if index == 0 { "alice" } else { author },
            association,
            body,
            html_url: format!("https://github.com/o/r/issues/1#issuecomment-{index}"),
            created_at: format!(
                "2025-01-01T{:02}:{:02}:{:02}Z",
                index / 3600 % 24,
                index / 60 % 60,
                index % 60
            ),
        });
    }
    comments.push(Owned {
        author: "mallory",
        association: "NONE",
        body: BLOCK.to_owned(),
        html_url: "https://github.com/o/r/issues/1#issuecomment-forged".to_owned(),
        created_at: "2025-01-01T23:59:59Z".to_owned(),
    });
    comments
}

fn scan(c: &mut Criterion) {
    let owned = history();
    let bytes: usize = owned.iter().map(|o| o.body.len()).sum();
    let comments: Vec<IssueComment<'_>> = owned
        .iter()
        .enumerate()
        .map(|(id, o)| IssueComment {
            id: id as u64,
            author: o.author,
            association: o.association,
            body: &o.body,
            html_url: &o.html_url,
            created_at: &o.created_at,
        })
        .collect();
    let trust = TrustConfig {
        issue_author: "alice".into(),
        token_login: Some("github-actions[bot]".into()),
        trusted_logins: Vec::new(),
    };
    let selection = select_latest(&comments, &trust);
    assert_eq!(selection.source.map(|s| s.comment_id), Some(0));
    eprintln!(
        "history: {} comments, {:.1} MB, ignored untrusted blocks: {}",
        comments.len(),
        bytes as f64 / 1e6,
        selection.ignored_untrusted
    );

    let mut group = c.benchmark_group("scan_50mb_history");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("select_latest_worst_case", |b| {
        b.iter(|| select_latest(black_box(&comments), black_box(&trust)))
    });
    group.bench_function("prefilter_only", |b| {
        b.iter(|| {
            comments
                .iter()
                .filter(|c| may_hold_block(black_box(c.body)))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);
