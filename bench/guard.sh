#!/usr/bin/env bash
# Wall time and peak RSS of `council guard --dry-run` on a PR event (release build),
# median of N runs (default 21). Local CLI mode: the default policy, no API call.
#   bench/guard.sh [N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${1:-21}
cargo build --release --locked --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/pull_request.opened.json "$work/event.json"
python3 - "$PWD/target/release/council" "$work" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
binary, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
walls, rss = [], []
for _ in range(runs):
    start = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "guard", "--dry-run", "--event", "event.json", "--event-name", "pull_request"],
        cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    walls.append((time.perf_counter() - start) * 1000)
    rss.append(usage.ru_maxrss)
    assert os.waitstatus_to_exitcode(status) == 0, status
walls.sort(); rss.sort()
print(f"runs: {runs}")
print(f"wall ms: median {statistics.median(walls):.2f}  min {walls[0]:.2f}  max {walls[-1]:.2f}")
print(f"peak RSS KiB: median {statistics.median(rss):.0f}  max {rss[-1]}")
PY
