#!/usr/bin/env bash
# Requests and time of one release decision against the fake GitHub world, for a pull
# request with 10, 100 and 1,000 checks and 10 or 100 changed files (release build): how
# many requests find the pull request, decide (policy, the pull request and its checks,
# its diff for the review gates read again) and merge, and write the ledger; and the time
# from the event to the merge call (from the process start, and from its first request),
# median of 3 runs.
# The 1,000-check time is mostly the fake's own work (it builds every page in debug).
#   benches/release.sh   (honours CARGO_TARGET_DIR)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --locked --quiet -p agent-council --bin council
COUNCIL_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/council" \
  cargo test --locked --quiet --test integration release_request_budget_figures -- --nocapture \
  | grep -E '^(release budget| +[0-9]+ checks,)'
