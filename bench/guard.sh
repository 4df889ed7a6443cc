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
args = [binary, "guard", "--dry-run", "--event", "event.json", "--event-name", "pull_request"]
walls, rss = [], []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(args, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    walls.append((time.perf_counter() - start) * 1000)
    # Peak RSS from GNU time: the child's own, not a copy of this Python process.
    out = os.path.join(work, "rss")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out, *args], cwd=work,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    rss.append(int(open(out).read().split()[-1]))
walls.sort(); rss.sort()
print(f"runs: {runs}")
print(f"wall ms: median {statistics.median(walls):.2f}  min {walls[0]:.2f}  max {walls[-1]:.2f}")
print(f"peak RSS KiB: median {statistics.median(rss):.0f}  max {rss[-1]}")
PY
