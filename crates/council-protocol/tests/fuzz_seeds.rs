//! Every committed fuzz seed and every crash the fuzzers found, replayed through the
//! fuzz targets' own functions (fuzz/src/lib.rs) on each `cargo test`: a crash fixed
//! once stays fixed without cargo-fuzz or a nightly feature. Seeds live in the
//! workspace's tests/data/fuzz/<target>/ (fuzz/run.sh reads them too); a found crash is
//! committed there as `crash-<what>`. Like the fuzz harness, they are found from this
//! crate's folder in the workspace: neither is published with the crate.

#![allow(clippy::unwrap_used)] // a test: a panic is its failure, with the message
#![allow(clippy::disallowed_methods)] // a test reads its fixtures

#[allow(dead_code)]
#[path = "../../../fuzz/src/lib.rs"]
mod harness;

use std::panic::{AssertUnwindSafe, catch_unwind};

#[test]
fn every_seed_and_every_crash_found_runs_clean_through_its_fuzz_target() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fuzz");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (target, run) in harness::TARGETS {
        let dir = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no seed for fuzz target {target}");
        for file in files {
            let data = std::fs::read(&file).unwrap();
            replayed += 1;
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&data))) {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!(
                    "{target}/{}: {why}",
                    file.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(replayed >= harness::TARGETS.len());
}
