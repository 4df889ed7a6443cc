#!/usr/bin/env python3
"""Peak RSS and API requests of `council state get` on long issues (stdlib only).

Serves GitHub's GraphQL issue page on 127.0.0.1 for an issue of N comments of 1-2 KB
of Markdown each, then runs the given `council` binary under `/usr/bin/time -v` for
every N in --sizes, once with the only trusted block in the newest comment and once in
the oldest (every page must be read), and prints requests and peak RSS per run.

    cargo build --release
    python3 benches/state_get_rss.py "${CARGO_TARGET_DIR:-target}/release/council"

Kept out of `cargo test`: it measures, it does not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PARAGRAPHS = [
    "I looked at the failing job again. The `<Button>` component renders twice when the "
    "`onClick` handler is <em>async</em>; see https://github.com/o/r/actions/runs/1.\n\n",
    "```rust\nfn main() {\n    let v: Vec<u8> = vec![1, 2, 3];\n    if v.len() < 4 { println!(\"{v:?}\"); }\n}\n```\n\n",
    "> Quoting @alice: this breaks on Windows <br> because of CRLF.\n> Agreed.\n\n",
    "- [x] reproduce\n- [ ] fix the parser for <T> generics\n- [ ] add a test\n\n",
    "<details><summary>Stack trace</summary>\n\n```\nat <anonymous> (index.js:1:2)\n```\n</details>\n\n",
    "| file | lines |\n|---|---|\n| src/a.rs | 120 |\n| src/b.rs | 87 |\n\n",
]
BLOCK = (
    "Status update.\n\n```xml\n<agent-state>\n  <intent>add_auth</intent>\n  <step>testing</step>\n"
    "  <progress>70</progress>\n  <memory>{\"files_changed\": [\"auth.ts\"]}</memory>\n"
    "  <next_action>run_e2e</next_action>\n</agent-state>\n```\n"
)


def chatter(i: int) -> str:
    body, k = "", i
    while len(body) < 1024 + (i % 1024):
        body += PARAGRAPHS[k % len(PARAGRAPHS)]
        k += 1
    return body


class World:
    def __init__(self, n: int, block_at: int):
        self.comments = []
        for i in range(n):
            trusted = i == block_at
            self.comments.append({
                "fullDatabaseId": str(1000 + i),
                "url": f"https://github.com/o/r/issues/1#issuecomment-{1000 + i}",
                # One second apart (sizes up to 86,400 comments).
                "createdAt": f"2026-01-01T{i // 3600:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
                "body": BLOCK if trusted else chatter(i),
                "authorAssociation": "NONE",
                "author": {"login": "github-actions" if trusted else f"user{i % 50}",
                           "__typename": "Bot" if trusted else "User"},
            })
        self.requests = 0
        self.lock = threading.Lock()

    def page(self, variables: dict) -> dict:
        before = variables.get("before")
        end = int(before.split(":")[1]) if before else len(self.comments)
        start = max(0, end - int(variables.get("last", 100)))
        return {"data": {
            "viewer": {"login": "github-actions", "__typename": "Bot"},
            "repository": {"policy": None, "issueOrPullRequest": {
                "author": {"login": "alice", "__typename": "User"},
                "body": "- [x] one\n- [ ] two\n",
                "comments": {
                    "pageInfo": {"hasPreviousPage": start > 0,
                                 "startCursor": f"cursor:{start}" if start < end else None},
                    "nodes": self.comments[start:end],
                },
            }},
        }}


def serve(world: World) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with world.lock:
                world.requests += 1
            if "issueOrPullRequest" in payload.get("query", ""):
                reply = world.page(payload.get("variables", {}))
            else:
                reply = {"errors": [{"message": "not served"}]}
            body = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            with world.lock:
                world.requests += 1
            body = b'{"message": "Not Found"}'
            self.send_response(404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(binary: str, n: int, where: str) -> tuple[int, int, str]:
    world = World(n, n - 1 if where == "newest" else 0)
    server = serve(world)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {"PATH": os.environ.get("PATH", ""), "GITHUB_API_URL": url,
           "GITHUB_GRAPHQL_URL": f"{url}/graphql", "COUNCIL_RETRY_BASE_MS": "1"}
    cmd = ["/usr/bin/time", "-v", binary, "state", "get", "--issue", "1", "--repo", "o/r",
           "--github-token", "bench-token", "--json"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    server.shutdown()
    if done.returncode != 0:
        sys.exit(f"council failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    step = json.loads(done.stdout)["state"]["step"]
    return world.requests, rss, step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--sizes", default="10,1000,10000")
    args = parser.parse_args()
    print(f"{'comments':>9} {'block in':>9} {'requests':>9} {'peak RSS':>10}")
    for n in [int(s) for s in args.sizes.split(",")]:
        for where in ("newest", "oldest"):
            requests, rss, step = measure(args.binary, n, where)
            assert step == "testing", step
            print(f"{n:>9} {where:>9} {requests:>9} {rss / 1024:>8.1f} MB")


if __name__ == "__main__":
    main()
