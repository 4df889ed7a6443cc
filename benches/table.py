#!/usr/bin/env python3
"""One table: wall time, peak RSS and API requests of each `council` command, run as the
GitHub runner runs the action (release build, INPUT_* variables, GITHUB_EVENT_PATH, the
API at GITHUB_API_URL), against benches/fake_github.py on 127.0.0.1; and, in the same run,
`council guard` next to a Node action that checks the same branch on the same event.

    benches/table.sh                 build the release binary, install the Node side, run
    benches/table.py --binary target/release/council [--runs N] [--node-action DIR]

Wall time is the median of N runs (default 7), peak RSS the largest (`/usr/bin/time -v`,
the child's own). Requests: what the fake answered in one run, with anything it could
not serve named under the table. A report, not a gate: the exit code is 0 whenever every
command ran and decided as expected.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_github  # noqa: E402
import verify_rss  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOKEN = "ghs_bench0123456789abcdefghijklmnopqrstuv"
RELEASE_TOKEN = "ghs_benchrelease0123456789abcdefghijklm"
HEAD = "feature/api/PBI-42-login-flow"
SHA = "a" * 40
STATE_BLOCK = (
    "Status update.\n\n```xml\n<agent-state>\n  <intent>add_auth</intent>\n  <step>testing</step>\n"
    "  <progress>70</progress>\n  <memory>{\"files_changed\": [\"auth.ts\"]}</memory>\n"
    "  <next_action>run_e2e</next_action>\n</agent-state>\n```\n"
)
POLICY = "review:\n  secret_scan: true\n"


def report_json(agent: str, free: int) -> str:
    return json.dumps({"contextReport": {
        "agentId": agent,
        # Fresh (HOT): a COLD report never qualifies.
        "reportTimestamp": (datetime.datetime.now(datetime.timezone.utc)
                            - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "contextWindow": {"totalTokens": 200000 - free, "availableTokens": free},
        "loadedProjects": [{"projectId": "r", "filesLoaded": 10, "sizeInTokens": 100}],
        "loadedTasks": [{"taskId": "PBI-7", "relevantFiles": 3}],
        "capabilities": {"canStartImmediately": ["PBI-7"], "needsContextLoad": []},
    }}, indent=2)


# ------------------------------------------------------------------------- scenes

def pr_event(action: str, number: int, head: str, base: str) -> dict:
    with open(os.path.join(ROOT, "tests/data/events/pull_request.opened.json")) as f:
        event = json.load(f)
    event["action"] = action
    event["number"] = number
    pr = event["pull_request"]
    pr["number"] = number
    pr["head"]["ref"], pr["head"]["sha"], pr["base"]["ref"] = head, SHA, base
    for side in ("head", "base"):
        pr[side]["repo"]["full_name"] = fake_github.REPO
    event["repository"]["full_name"] = fake_github.REPO
    return event


def pr_world(files: int = 3) -> fake_github.World:
    world = fake_github.World()
    world.file("develop", ".github/council.yml", POLICY)
    world.file("main", ".github/council.yml", POLICY)
    world.pull(7, HEAD, "develop", SHA)
    world.pr_files[7] = [
        {"filename": f"src/mod{i}.rs", "status": "modified", "additions": 2, "deletions": 1,
         "changes": 3, "patch": f"@@ -1,2 +1,3 @@\n fn a() {{}}\n-let x = {i};\n+let x = {i + 1};\n+let y = 2;\n"}
        for i in range(files)
    ]
    return world


def issue_world(comments: int) -> fake_github.World:
    world = fake_github.World()
    world.issue(12, "alice", "- [x] one\n- [ ] two\n")
    for i in range(comments - 1):
        world.comment(12, f"user{i % 40}", "Looked at it again; `cargo test` passes here.\n" * 8)
    world.comment(12, fake_github.BOT, STATE_BLOCK, bot=True)
    return world


def registry_world(agents: int) -> fake_github.World:
    world = fake_github.World()
    world.issue(7, "alice", "Implement PBI-7", title="PBI-7 login")
    world.issue(3, "alice", "Registry", title="Agent registry")
    for i in range(agents):
        world.comment(3, f"agent{i}", f"<!-- agent-council:context-report agent{i} -->\n"
                      f"<context-report>{report_json(f'agent{i}', 10000 * (i + 1))}</context-report>",
                      association="MEMBER")
    return world


class Case:
    """One row: a command run as the action, in a fresh world each time."""

    def __init__(self, name, world, event_name, event, inputs=None, prepare=None, expect=0,
                 outputs=None, note=""):
        self.name, self.world, self.event_name, self.event = name, world, event_name, event
        self.inputs, self.prepare, self.expect = inputs or {}, prepare, expect
        # Outputs the run must write (value, or True for "not empty").
        self.outputs, self.note = outputs or {}, note


def cases() -> list[Case]:
    issue_comment = {"action": "created", "issue": {"number": 12, "user": {"login": "alice"}},
                     "comment": {"id": 1, "user": {"login": "alice"}, "body": "hi"},
                     "repository": {"full_name": fake_github.REPO}}
    issues_opened = {"action": "opened", "issue": {"number": 7, "title": "PBI-7 login",
                                                   "user": {"login": "alice"}, "labels": []},
                     "repository": {"full_name": fake_github.REPO}}
    review_submitted = {"action": "submitted", "review": {"state": "approved",
                                                          "user": {"login": "bob"}},
                        "pull_request": pr_event("opened", 7, HEAD, "develop")["pull_request"],
                        "repository": {"full_name": fake_github.REPO}}

    def approved_first(world, run):
        # The review stage's approval must be on the ledger before release decides.
        run("pull_request", pr_event("opened", 7, HEAD, "develop"), {"command": "auto"}, 0)
        # Written a while ago (CI took minutes): the quiet read-back, not the one for
        # runs that overlap.
        for c in world.comments:
            c["body"] = re.sub(r'"timestamp":"[^"]+"', '"timestamp":"2020-01-01T00:00:00Z"',
                               c["body"], count=1)
        world.check_runs[SHA] = [{"id": 900 + i, "name": f"ci-{i}", "status": "completed",
                                  "conclusion": "success", "app": {"slug": "github-actions"}}
                                 for i in range(10)]
        world.log.clear()

    return [
        Case("guard", pr_world, "pull_request", pr_event("opened", 7, HEAD, "develop"),
             {"command": "guard"}, outputs={"guard-status": "PASS"},
             note="guard only: 1 policy read, the rest is the ledger"),
        Case("review (guard + review)", pr_world, "pull_request",
             pr_event("opened", 7, HEAD, "develop"), {"command": "auto"},
             outputs={"guard-status": "PASS", "review-status": "APPROVED"}, note="3 files"),
        Case("release (merge)", pr_world, "pull_request_review", review_submitted,
             {"command": "auto", "release-token": RELEASE_TOKEN}, prepare=approved_first,
             outputs={"release-status": "MERGED"}, note="10 green checks"),
        Case("state get", lambda: issue_world(300), "issue_comment", issue_comment,
             {"command": "auto"}, outputs={"state-step": "testing"}, note="300 comments"),
        Case("state put", lambda: issue_world(300), "workflow_dispatch",
             {"repository": {"full_name": fake_github.REPO}, "inputs": {}},
             {"command": "state-put", "issue": "12", "intent": "add_auth", "step": "testing",
              "progress": "auto", "memory": '{"files_changed": ["auth.ts"]}',
              "next-action": "run_e2e"}, outputs={"state-comment-url": True},
             note="300 comments"),
        Case("assign", lambda: registry_world(20), "issues", issues_opened,
             {"command": "auto", "registry-issue": "3"}, outputs={"recommended-agent": True},
             note="20 agents"),
    ]


# ------------------------------------------------------------------------- running

def timed(cmd, env, cwd) -> tuple[int, float, int, str, str]:
    """Exit code, wall ms, peak RSS KiB, stdout, stderr of one run under GNU time (CPU
    ms, user + system, go to `timed.cpu`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", t.name, *cmd], env=env, cwd=cwd,
                              capture_output=True, text=True)
        wall = (time.perf_counter() - started) * 1000
        report = open(t.name).read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # GNU time prints CPU time in 10 ms steps; rusage has microseconds (GNU time's own
    # few hundred microseconds included).
    timed.cpu = 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return done.returncode, wall, rss, done.stdout, done.stderr


def runner_env(work: str, api: str, event_name: str, inputs: dict) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work,
        "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": os.path.join(work, "event.json"), "GITHUB_WORKSPACE": work,
        "GITHUB_OUTPUT": os.path.join(work, "output"),
        "GITHUB_STEP_SUMMARY": os.path.join(work, "summary"),
        "GITHUB_REPOSITORY": fake_github.REPO, "GITHUB_RUN_ID": "4242",
        "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "council",
        "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": api,
        "GITHUB_GRAPHQL_URL": f"{api}/graphql", "COUNCIL_RETRY_BASE_MS": "1",
        "INPUT_COMMAND": "auto", "INPUT_GITHUB-TOKEN": TOKEN, "INPUT_RELEASE-TOKEN": "",
        "INPUT_POLICY": ".github/council.yml", "INPUT_CLOSE-ON-FAIL": "false",
        "INPUT_DRY-RUN": "false", "INPUT_HMAC-KEY": "", "INPUT_UPLOAD-ARTIFACT": "false",
        "INPUT_RETENTION-DAYS": "",
    }
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def outputs(path: str) -> dict:
    """`name=value` and `name<<DELIM ... DELIM` lines of a GITHUB_OUTPUT file."""
    found, lines = {}, open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            found[name] = "\n".join(lines[i + 1:j])
            i = j
        elif "=" in line:
            name, value = line.split("=", 1)
            found[name] = value
        i += 1
    return found


def run_case(binary: str, case: Case, runs: int) -> dict:
    walls, cpus, rss, requests, unserved, codes = [], [], [], None, [], set()
    for i in range(runs):
        world = case.world()
        server = fake_github.serve(world)
        work = tempfile.mkdtemp(prefix="council-bench-")
        try:
            def run(event_name, event, inputs, expect):
                with open(os.path.join(work, "event.json"), "w") as f:
                    json.dump(event, f)
                env = runner_env(work, world.api, event_name, inputs)
                open(env["GITHUB_OUTPUT"], "w").close()
                code, wall, kib, out, err = timed([binary], env, work)
                if code != expect:
                    sys.exit(f"{case.name}: exit {code}, expected {expect}\n{out}\n{err}")
                return code, wall, kib, outputs(env["GITHUB_OUTPUT"])
            if case.prepare:
                case.prepare(world, run)
            code, wall, kib, got = run(case.event_name, case.event, case.inputs, case.expect)
            for name, want in case.outputs.items():
                if (want is True and not got.get(name)) or (want is not True and got.get(name) != want):
                    sys.exit(f"{case.name}: output {name} = {got.get(name)!r}, expected {want!r}")
            cpus.append(timed.cpu)
        finally:
            server.shutdown()
            server.server_close()
            shutil.rmtree(work, ignore_errors=True)
        codes.add(code)
        walls.append(wall)
        rss.append(kib)
        if requests is None:
            requests, unserved = world.requests(), world.unserved()
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus),
            "rss": max(rss), "requests": requests,
            "unserved": unserved, "exit": sorted(codes)}


def verify_case(binary: str, runs: int, entries: int) -> dict:
    work = tempfile.mkdtemp(prefix="council-bench-verify-")
    try:
        path = os.path.join(work, "PR-123.json")
        verify_rss.write(path, entries, None)
        result = measure([binary, "verify", path], os.environ.copy(), work, runs, 0)
        result["size"] = os.path.getsize(path)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def guard_pair(binary: str, node_action: str | None, runs: int) -> tuple[dict, dict | None]:
    """`council guard` and the Node action on the same event, no network for either:
    the CLI reads the default policy locally (no API call), the Node action decides from
    the event alone."""
    work = tempfile.mkdtemp(prefix="council-bench-guard-")
    try:
        event = pr_event("opened", 7, HEAD, "develop")
        path = os.path.join(work, "event.json")
        with open(path, "w") as f:
            json.dump(event, f)
        council_cmd = [binary, "guard", "--dry-run", "--event", path, "--event-name",
                       "pull_request"]
        council = measure(council_cmd, os.environ.copy(), work, runs, 0)
        node = None
        if node_action:
            env = {"PATH": os.environ.get("PATH", ""), "HOME": work, "GITHUB_ACTIONS": "true",
                   "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path,
                   "GITHUB_WORKSPACE": work, "GITHUB_OUTPUT": os.path.join(work, "node-out"),
                   "GITHUB_REPOSITORY": fake_github.REPO,
                   "INPUT_REGEX": r"^(feature|chore)/[a-z0-9-]+/PBI-\d+-[a-z0-9-]+$|^hotfix/(INC|BUG)-\d+-[a-z0-9-]+$",
                   "INPUT_ALLOWED_PREFIXES": "feature,chore,hotfix",
                   "INPUT_IGNORE": "main,develop", "INPUT_MIN_LENGTH": "5",
                   "INPUT_MAX_LENGTH": "100",
                   "INPUT_TARGETS": "feature=develop,chore=develop,hotfix=main|develop"}
            open(env["GITHUB_OUTPUT"], "w").close()  # the runner creates it
            node = measure(["node", os.path.join(node_action, "dist/index.js")], env, work, runs, 0)
        return council, node
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(cmd, env, cwd, runs, expect) -> dict:
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        code, wall, kib, out, err = timed(cmd, env, cwd)
        if code != expect:
            sys.exit(f"{cmd[0]}: exit {code}, expected {expect}\n{out}\n{err}")
        walls.append(wall)
        cpus.append(timed.cpu)
        rss.append(kib)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "rss": max(rss),
            "requests": 0, "unserved": [], "exit": [expect]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "council"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--verify-entries", type=int, default=10000)
    ap.add_argument("--node-action", help="folder holding dist/index.js of the Node action")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    node_action = os.path.abspath(args.node_action) if args.node_action else None

    rows = []
    for case in cases():
        rows.append((case.name, case.note, run_case(binary, case, args.runs)))
    v = verify_case(binary, args.runs, args.verify_entries)
    rows.append(("verify", f"{args.verify_entries:,} entries, {v['size'] / 1e6:.1f} MB", v))
    council, node = guard_pair(binary, node_action, args.runs)
    rows.append(("guard, CLI (no API)", "same event as the Node action", council))
    if node:
        rows.append(("Node action, same check", "node dist/index.js", node))

    print(f"council {subprocess.run([binary, '--version'], capture_output=True, text=True).stdout.strip()}"
          f", {args.runs} runs per row (wall: median, RSS: max)")
    print(f"{'command':<26} {'wall ms':>8} {'CPU ms':>7} {'peak RSS MB':>11} {'API requests':>12} "
          f"{'exit':>4}  notes")
    print("-" * 100)
    for name, note, r in rows:
        print(f"{name:<26} {r['wall']:>8.1f} {r['cpu']:>7.0f} {r['rss'] / 1024:>11.1f} "
              f"{r['requests']:>12} {'/'.join(map(str, r['exit'])):>4}  {note}")
    print("-" * 100)
    print("Wall time of a run that writes the ledger comment includes its deliberate read-back "
          "pause (racing runs are looked for); CPU ms is the work.")
    if node:
        print(f"Node action / council guard (CLI, same event): wall x{node['wall'] / council['wall']:.1f}, "
              f"CPU x{node['cpu'] / max(council['cpu'], 1):.1f}, "
              f"peak RSS x{node['rss'] / council['rss']:.1f}")
    else:
        print("Node action: skipped (no --node-action; benches/table.sh installs it)")
    for name, _, r in rows:
        for line in r["unserved"]:
            print(f"note: {name}: the fake did not serve {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
