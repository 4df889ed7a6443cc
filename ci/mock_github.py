#!/usr/bin/env python3
"""A tiny stand-in for the GitHub REST API, for the smoke tests (stdlib only).

It binds 127.0.0.1 only and logs every request as one JSON line: method, path (with the
query), whether an Authorization header came and its scheme (never the token), the Accept
and User-Agent headers and the body size. It answers

  GET /repos/{owner}/{repo}/contents/{policy path}?ref=...
      404 (no policy on the base branch: the default policy applies), or, with
      --policy FILE, that file: raw text when the Accept header asks for `raw`, else the
      contents API's JSON object with the text in base64;
  GET /repos/{owner}/{repo}/pulls/{number}/files
      [] (the review stage, which runs once the guard passed, sees an empty diff);
  GET /repos/{owner}/{repo}/compare/{base}...{head}
      a comparison with no commit and no file (the review reads its diff between the two
      SHAs this way: empty, as above);
  anything else
      404 with GitHub's JSON error body.

Usage:
  mock_github.py --log requests.jsonl [--port 0] [--port-file F] [--policy FILE]
                 [--policy-path .github/council.yml]

With --port 0 (the default) the OS picks a free port; --port-file receives it once the
socket is listening, so a script can wait for the file. SIGTERM or SIGINT stops it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

NOT_FOUND = {
    "message": "Not Found",
    "documentation_url": "https://docs.github.com/rest",
    "status": "404",
}


class Mock:
    def __init__(self, log_path: str, policy_text: str | None, policy_path: str):
        self.log = open(log_path, "a", encoding="utf-8")
        self.lock = threading.Lock()
        self.policy_text = policy_text
        self.policy_path = policy_path.strip("/")

    def record(self, entry: dict) -> None:
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.log.flush()


def make_handler(mock: Mock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "mock-github/1"

        def log_message(self, format, *args):  # noqa: A002 - keep stderr quiet
            pass

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            auth = self.headers.get("Authorization")
            mock.record(
                {
                    "method": self.command,
                    "path": self.path,
                    "auth": auth is not None,
                    "auth_scheme": auth.split(" ", 1)[0] if auth else None,
                    "accept": self.headers.get("Accept"),
                    "user_agent": self.headers.get("User-Agent"),
                    "body_bytes": len(body),
                }
            )
            status, content_type, payload = self.route()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def route(self) -> tuple[int, str, bytes]:
            url = urlsplit(self.path)
            parts = url.path.split("/")
            # "", "repos", owner, repo, "contents", path...
            is_policy = (
                self.command == "GET"
                and len(parts) > 5
                and parts[1] == "repos"
                and parts[4] == "contents"
                and unquote("/".join(parts[5:])) == mock.policy_path
            )
            is_files = (
                self.command == "GET"
                and len(parts) == 7
                and parts[1] == "repos"
                and parts[4] == "pulls"
                and parts[5].isdigit()
                and parts[6] == "files"
            )
            is_compare = (
                self.command == "GET"
                and len(parts) == 6
                and parts[1] == "repos"
                and parts[4] == "compare"
                and "..." in parts[5]
            )
            if is_files:
                return 200, "application/json; charset=utf-8", b"[]"
            if is_compare:
                empty = {"status": "identical", "ahead_by": 0, "behind_by": 0,
                         "total_commits": 0, "commits": [], "files": []}
                return 200, "application/json; charset=utf-8", json.dumps(empty).encode()
            if is_policy and mock.policy_text is not None:
                text = mock.policy_text.encode("utf-8")
                if "raw" in (self.headers.get("Accept") or ""):
                    return 200, "text/plain; charset=utf-8", text
                obj = {
                    "type": "file",
                    "encoding": "base64",
                    "name": mock.policy_path.rsplit("/", 1)[-1],
                    "path": mock.policy_path,
                    "size": len(text),
                    "sha": hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest(),
                    "content": base64.encodebytes(text).decode("ascii"),
                }
                return 200, "application/json; charset=utf-8", json.dumps(obj).encode()
            return 404, "application/json; charset=utf-8", json.dumps(NOT_FOUND).encode()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any

    return Handler


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="0 = any free port")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--log", required=True, help="append one JSON line per request")
    ap.add_argument("--policy", help="serve this file as the policy at the base ref")
    ap.add_argument("--policy-path", default=".github/council.yml")
    args = ap.parse_args()

    policy_text = None
    if args.policy:
        with open(args.policy, encoding="utf-8") as f:
            policy_text = f.read()
    mock = Mock(args.log, policy_text, args.policy_path)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(mock))
    server.daemon_threads = True

    def stop(_signum, _frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="ascii") as f:
            f.write(f"{port}\n")
        os.replace(tmp, args.port_file)  # appears whole, never half-written
    print(f"mock-github listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        mock.log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
