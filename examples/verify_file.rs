//! End-to-end timing of verification from a file on disk.
//!
//!   cargo run --release --example verify_file -- gen 100000 /tmp/PR-123.json [KEY]
//!   cargo run --release --example verify_file -- verify /tmp/PR-123.json [KEY]

#![allow(clippy::unwrap_used)] // a test or measurement: a panic is its failure, with the message

use std::process::ExitCode;
use std::time::Instant;

use council_protocol::audit::verify::verify;

#[path = "../benches/support/timeline.rs"]
mod timeline;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let key = |i: usize| args.get(i).map(String::as_bytes);
    match args.first().map(String::as_str) {
        Some("gen") => {
            let (Some(n), Some(path)) = (args.get(1).and_then(|n| n.parse().ok()), args.get(2))
            else {
                return usage();
            };
            let doc = timeline::document(timeline::timeline(n, key(3)));
            let text = serde_json::to_string_pretty(&doc).expect("serializes");
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
            println!("wrote {n} entries, {} bytes, to {path}", text.len());
            ExitCode::SUCCESS
        }
        Some("verify") => {
            let Some(path) = args.get(1) else {
                return usage();
            };
            let (start, cpu0) = (Instant::now(), cpu_ns());
            let text = match std::fs::read(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{path}: {e}");
                    return ExitCode::from(2);
                }
            };
            let (read, cpu_read) = (start.elapsed(), cpu_ns());
            let doc: serde_json::Value = match serde_json::from_slice(&text) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{path}: not JSON: {e}");
                    return ExitCode::from(2);
                }
            };
            let (parsed, cpu_parsed) = (start.elapsed(), cpu_ns());
            let result = verify(&doc, key(2));
            let (done, cpu_done) = (start.elapsed(), cpu_ns());
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            let cpu = |a: u64, b: u64| b.saturating_sub(a) as f64 / 1e6;
            println!(
                "wall: read {:.1} ms, parse {:.1} ms, verify {:.1} ms, total {:.1} ms",
                ms(read),
                ms(parsed - read),
                ms(done - parsed),
                ms(done)
            );
            println!(
                "cpu:  read {:.1} ms, parse {:.1} ms, verify {:.1} ms, total {:.1} ms",
                cpu(cpu0, cpu_read),
                cpu(cpu_read, cpu_parsed),
                cpu(cpu_parsed, cpu_done),
                cpu(cpu0, cpu_done)
            );
            match result {
                Ok(r) => {
                    println!("ok: {r:?}");
                    ExitCode::SUCCESS
                }
                Err(t) => {
                    println!("tampered: {t}");
                    ExitCode::from(1)
                }
            }
        }
        _ => usage(),
    }
}

/// CPU time this thread has run, in ns (Linux), so that figures taken on a busy machine
/// are not inflated by time spent waiting for a core; 0 elsewhere.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn usage() -> ExitCode {
    eprintln!("usage: verify_file gen N PATH [KEY] | verify PATH [KEY]");
    ExitCode::from(2)
}
