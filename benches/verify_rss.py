#!/usr/bin/env python3
"""Wall time and peak RSS of `council verify` on large audit files, next to their size.

    benches/verify_rss.py [--binary $CARGO_TARGET_DIR/release/council] [--keep DIR] N [N ...]

For each N, writes a Context Object of N entries shaped like benches/support/timeline.rs
(five entries per run, ~80-character messages), once unsigned and once signed with an
HMAC key, then runs `/usr/bin/time -v council verify FILE [--hmac-key K]` and prints the
file size, wall time and peak RSS. Build first: `nice cargo build --release`.

Wall time depends on what else the machine runs; CPU time (user + system) is the steadier figure.
Pass `--binary` to compare another build (e.g. one of an earlier commit).

The entries are sealed here by SPEC.md's rules alone (canonical form = the entry without
`hash`/`signature`, keys sorted, no whitespace; all strings and keys are ASCII, so
Python's sorted `json.dumps` is RFC 8785), which is itself a check that a third party
can produce files `council verify` accepts.
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
import tempfile

AGENTS = [
    ("agent_guard", "check:branch-name"),
    ("agent_guard", "check:target-branch"),
    ("agent_review", "check:secret-scan"),
    ("agent_release", "action:merge"),
]
KEY = b"bench-key"
ZERO = "sha256:" + "0" * 64


def entries(n, key):
    prev = ZERO
    for i in range(n):
        run = 9_876_543_210 + i // 5
        agent, action = AGENTS[i % len(AGENTS)]
        entry = {
            "id": f"{run}/1/council/{agent}/{action}/{i}",
            "agent": agent,
            "action": action,
            "result": "FAIL" if i % 7 == 0 else "PASS",
            "message": f'Head feature/api/PBI-{i % 100_000:05}-add-login-flow matches rule "feature"; base develop ok',
            "timestamp": f"2026-05-{1 + i // 86_400 % 28:02}T{i // 3600 % 24:02}:{i // 60 % 60:02}:{i % 60:02}Z",
            "run_id": str(run),
            "run_attempt": 1 + i % 3,
            "sha": f"{(i // 50) * 0x9E3779B97F4A7C15F39CC0605CEDC834 % (1 << 160):040x}",
            "prev_hash": prev,
        }
        canonical = json.dumps(entry, sort_keys=True, separators=(",", ":")).encode()
        entry["hash"] = prev = "sha256:" + hashlib.sha256(canonical).hexdigest()
        if key is not None:
            entry["signature"] = "hmac-sha256:" + hmac.new(key, canonical, hashlib.sha256).hexdigest()
        yield entry


GATE_KEYS = {"check:branch-name": "naming_convention", "check:target-branch": "target_policy",
             "check:pipeline": "pipeline_green"}
STAGE_OF = {"agent_guard": ("guard_status", "PASS", "FAIL"),
            "agent_review": ("review_status", "APPROVED", "CHANGES_REQUESTED")}


class Derived:
    """SPEC.md's derivation of `state` and `gates`, recomputed alongside the writing, so
    that the file is what the product would write (council verify checks them)."""

    def __init__(self):
        self.gates = {"naming_convention": None, "target_policy": None,
                      "doc_coverage": None, "pipeline_green": None}
        self.newest = {}   # agent -> (sha, run_id, run_attempt) of its newest check
        self.results = {}  # (agent, sha, run_id, run_attempt) -> results of its checks

    def add(self, e):
        action = e["action"]
        if not action.startswith("check:"):
            return
        key = GATE_KEYS.get(action, action[len("check:"):].replace("-", "_"))
        self.gates[key] = e["result"] if e["result"] in ("PASS", "FAIL") else None
        group = (e["sha"], e["run_id"], e["run_attempt"])
        self.newest[e["agent"]] = group
        self.results.setdefault((e["agent"],) + group, []).append(e["result"])

    def state(self):
        state = {"guard_status": "PENDING", "review_status": "PENDING", "release_status": "PENDING"}
        for agent, (field, passed, failed) in STAGE_OF.items():
            if agent in self.newest:
                results = self.results[(agent,) + self.newest[agent]]
                if "FAIL" in results:
                    state[field] = failed
                elif all(r == "PASS" for r in results):
                    state[field] = passed
        return state


def write(path, n, key):
    head = {
        "schema_version": 1,
        "context_id": "PR-123",
        "repository": "owner/name",
        "timestamp": "2026-05-01T12:00:00Z",
        "trigger": "webhook:pull_request.synchronize",
        "subject": {"type": "pull_request", "id": 123, "source_branch": "feature/x",
                    "target_branch": "develop", "author": "octocat", "head_sha": "0" * 40},
    }
    derived = Derived()
    last = ZERO
    with open(path, "w") as out:
        # Pretty-printed like the product's files (serde_json's to_string_pretty); state
        # and gates are known only once every entry is written, so they come after.
        text = json.dumps(head, indent=2)
        out.write(text[:-2] + ',\n  "timeline": [')
        for i, entry in enumerate(entries(n, key)):
            derived.add(entry)
            last = entry["hash"]
            body = json.dumps(entry, indent=2).replace("\n", "\n    ")
            out.write(("," if i else "") + "\n    " + body)
        chain_head = {"entries": n, "hash": last}
        if key is not None:
            text = f"agent-council:head:v1\n{n}\n{last}".encode()
            chain_head["signature"] = "hmac-sha256:" + hmac.new(key, text, hashlib.sha256).hexdigest()
        tail = {"state": derived.state(), "gates": derived.gates, "chain_head": chain_head}
        out.write("\n  ],\n" + json.dumps(tail, indent=2)[2:])


def measure(binary, path, key):
    args = [binary, "verify", path] + (["--hmac-key", key.decode()] if key else [])
    run = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"council verify failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", run.stderr).group(1)
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", run.stderr).group(1))
    user += float(re.search(r"System time \(seconds\): ([\d.]+)", run.stderr).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
    return wall, user, rss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("counts", type=int, nargs="+")
    parser.add_argument("--binary", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "council"))
    parser.add_argument("--keep", help="write the files here and keep them")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="verify-bench-")
    os.makedirs(work, exist_ok=True)
    print(f"{'entries':>9} {'signed':>6} {'file MB':>8} {'wall':>9} {'CPU s':>7} {'peak RSS MB':>11} {'RSS/file':>8}")
    for n in args.counts:
        for key in (None, KEY):
            path = os.path.join(work, f"verify-{n}-{'signed' if key else 'unsigned'}.json")
            if not os.path.exists(path):
                write(path, n, key)
            size = os.path.getsize(path)
            wall, user, rss = measure(args.binary, path, key)
            print(f"{n:>9} {'yes' if key else 'no':>6} {size / 1e6:>8.1f} {wall:>9} {user:>7.2f} "
                  f"{rss * 1024 / 1e6:>11.1f} {rss * 1024 / size:>8.2f}")
            if not args.keep:
                os.remove(path)
    if not args.keep:
        os.rmdir(work)


if __name__ == "__main__":
    main()
