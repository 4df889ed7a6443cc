#!/usr/bin/env bash
# Figures for `council mcp` (issue 19): start to `initialize` answered, `check_branch`
# with a local policy, a `report_context` round trip against the fake GitHub, and the
# release binary's size. Targets: start < 20 ms, check_branch < 5 ms, +1.5 MB at most.
#
#   benches/mcp.sh [BEFORE_BINARY]    BEFORE_BINARY: a release build without MCP, for the size
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the timing test starts the server from a temporary working directory.
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
cargo build --release --locked --bin council
bin="$target/release/council"
python3 benches/mcp_client.py "$bin" council.example.yml "${RUNS:-20}"
# The report_context round trip needs the fake GitHub of the integration tests (built in
# the test profile; the server measured is the release binary, through COUNCIL_BIN).
COUNCIL_BIN="$bin" cargo test --locked --test integration mcp_report_round_trip_timing -- --ignored --nocapture 2>/dev/null \
  | grep '^report_context'
size=$(stat -c %s "$bin")
echo "release binary: $size bytes"
if [ -n "${1:-}" ]; then
  before=$(stat -c %s "$1")
  echo "before: $before bytes; growth: $(( (size - before) / 1024 )) KiB"
fi
