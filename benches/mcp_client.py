"""Times `council mcp` with a raw stdio JSON-RPC client (stdlib only): process start to
`initialize` answered, and `check_branch` with a local policy. Used by benches/mcp.sh."""

import json
import statistics
import subprocess
import sys
import time

binary, policy, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])


def start():
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "mcp", "--repo", "o/r", "--policy", policy],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n")
    p.stdin.flush()
    json.loads(p.stdout.readline())
    elapsed = time.perf_counter() - t0
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    return p, elapsed


starts = []
for _ in range(runs):
    p, elapsed = start()
    starts.append(elapsed * 1000)
    p.stdin.close()
    p.wait()

p, _ = start()
calls = []
for i in range(runs * 10):
    t0 = time.perf_counter()
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {
        "name": "check_branch", "arguments": {"branch": "feature/ui/PBI-7-login", "target": "develop"}}}) + "\n")
    p.stdin.flush()
    answer = json.loads(p.stdout.readline())
    assert "result" in answer and not answer["result"].get("isError"), answer
    calls.append((time.perf_counter() - t0) * 1000)
p.stdin.close()
p.wait()
print(f"start to initialize answered: median {statistics.median(starts):.2f} ms, max {max(starts):.2f} ms ({runs} runs)")
print(f"check_branch, local policy (round trip over stdio): median {statistics.median(calls):.3f} ms, p90 {sorted(calls)[int(len(calls) * 0.9)]:.3f} ms ({len(calls)} calls)")
