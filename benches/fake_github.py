"""A small fake GitHub for benches/table.py (stdlib only, 127.0.0.1 only).

One repository `o/r`: branches, files at refs, pull requests with their files, issues,
comments, labels, check runs and statuses, reviews, and the GraphQL queries the product
sends (identity, the issue page, the release rollup). Enough for one run of each
`council` command; shapes follow GitHub's REST v3 and GraphQL field names. Every request
is counted and logged (`World.log`); anything not served is a 404, logged too, so a
table row shows when the product asked for something this fake does not know.

The tests' fake (tests/integration/support/) is the complete one; this one exists so
that the benchmark runs the release binary as the runner would, with no Rust test build.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

REPO = "o/r"
BOT = "github-actions"


def user(login: str, typ: str = "User") -> dict:
    return {"login": login, "id": abs(hash(login)) % 10**8, "type": typ}


class World:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[tuple[str, str, int]] = []
        self.files: dict[str, dict[str, str]] = {}
        self.pulls: dict[int, dict] = {}
        self.pr_files: dict[int, list[dict]] = {}
        self.issues: dict[int, dict] = {}
        self.comments: list[dict] = []
        self.check_runs: dict[str, list[dict]] = {}
        self.statuses: dict[str, list[dict]] = {}
        self.reviews: dict[int, list[dict]] = {}
        self.next_id = 1000
        self.api = ""

    # ------------------------------------------------------------------ the scene

    def file(self, ref: str, path: str, text: str) -> None:
        self.files.setdefault(ref, {})[path] = text

    def pull(self, number: int, head: str, base: str, sha: str, **extra) -> dict:
        pr = {
            "number": number, "title": f"PR {number}", "body": "", "state": "open",
            "draft": False, "merged": False, "mergeable": True, "mergeable_state": "clean",
            "user": user("octocat"), "labels": [],
            "head": {"ref": head, "sha": sha, "repo": {"full_name": REPO}},
            "base": {"ref": base, "sha": "b" * 40, "repo": {"full_name": REPO}},
            "html_url": f"https://github.com/{REPO}/pull/{number}",
            "changed_files": 0, "additions": 0, "deletions": 0,
        }
        pr.update(extra)
        self.pulls[number] = pr
        self.issues[number] = {"author": "octocat", "body": pr["body"], "labels": pr["labels"],
                               "title": pr["title"]}
        return pr

    def issue(self, number: int, author: str, body: str, title: str = "") -> None:
        self.issues[number] = {"author": author, "body": body, "labels": [],
                               "title": title or f"Issue {number}"}

    def comment(self, issue: int, author: str, body: str, association: str = "NONE",
                bot: bool = False) -> dict:
        self.next_id += 1
        login = f"{author}[bot]" if bot else author
        c = {
            "id": self.next_id, "node_id": f"IC_{self.next_id}", "issue": issue, "body": body,
            "user": user(login, "Bot" if bot else "User"), "author_association": association,
            "html_url": f"https://github.com/{REPO}/issues/{issue}#issuecomment-{self.next_id}",
            "created_at": f"2026-05-01T10:{self.next_id % 60:02d}:00Z",
            "updated_at": f"2026-05-01T10:{self.next_id % 60:02d}:00Z",
        }
        self.comments.append(c)
        return c

    def requests(self) -> int:
        return len(self.log)

    def unserved(self) -> list[str]:
        return [f"{m} {p}" for m, p, s in self.log if s == 404 and "/contents/" not in p]

    # ------------------------------------------------------------------ answers

    def labels_of(self, number: int) -> list:
        return self.issues.setdefault(number, {"author": "octocat", "body": "", "labels": [],
                                               "title": ""})["labels"]

    def rest(self, method: str, path: str, query: dict, body) -> tuple[int, object]:
        prefix = f"/repos/{REPO}"
        if path == "/user":
            return 404, {"message": "Resource not accessible by integration"}
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        p = path[len(prefix):]
        if m := re.fullmatch(r"/contents/(.+)", p):
            ref = query.get("ref", ["main"])[0]
            text = self.files.get(ref, {}).get(unquote(m.group(1)))
            if text is None:
                return 404, {"message": "Not Found"}
            return 200, {"type": "file", "encoding": "base64", "path": m.group(1),
                         "content": base64.b64encode(text.encode()).decode(), "size": len(text)}
        if m := re.fullmatch(r"/issues/(\d+)/comments", p):
            n = int(m.group(1))
            if method == "GET":
                return 200, [c for c in self.comments if c["issue"] == n]
            c = self.comment(n, BOT, body["body"], bot=True)
            return 201, c
        if m := re.fullmatch(r"/issues/comments/(\d+)", p):
            cid = int(m.group(1))
            found = [c for c in self.comments if c["id"] == cid]
            if not found:
                return 404, {"message": "Not Found"}
            if method == "PATCH":
                found[0]["body"] = body["body"]
            if method == "DELETE":
                self.comments.remove(found[0])
                return 204, None
            return 200, found[0]
        if m := re.fullmatch(r"/issues/(\d+)/labels", p):
            labels = self.labels_of(int(m.group(1)))
            for name in (body or {}).get("labels", []):
                if name not in [label["name"] for label in labels]:
                    labels.append({"name": name})
            return 200, labels
        if m := re.fullmatch(r"/issues/(\d+)/labels/(.+)", p):
            labels = self.labels_of(int(m.group(1)))
            name = unquote(m.group(2))
            if name not in [label["name"] for label in labels]:
                return 404, {"message": "Label does not exist"}
            labels[:] = [label for label in labels if label["name"] != name]
            return 200, labels
        if m := re.fullmatch(r"/issues/(\d+)", p):
            n = int(m.group(1))
            if n in self.pulls:
                pr = self.pulls[n]
                return 200, {**pr, "pull_request": {"url": pr["html_url"]},
                             "labels": self.labels_of(n)}
            issue = self.issues.get(n)
            if issue is None:
                return 404, {"message": "Not Found"}
            return 200, {"number": n, "title": issue["title"], "body": issue["body"],
                         "user": user(issue["author"]), "labels": issue["labels"],
                         "state": "open", "html_url": f"https://github.com/{REPO}/issues/{n}"}
        if m := re.fullmatch(r"/pulls/(\d+)/files", p):
            return 200, self.pr_files.get(int(m.group(1)), [])
        if m := re.fullmatch(r"/compare/([^/]+)\.\.\.([^/]+)", p):
            # The review's diff between two SHAs: the files of the pull request whose head
            # is the compare's head.
            head = unquote(m.group(2))
            files = next((self.pr_files.get(n, []) for n, pr in self.pulls.items()
                          if pr["head"]["sha"] == head), [])
            return 200, {"status": "ahead", "ahead_by": 1, "behind_by": 0,
                         "total_commits": 1, "commits": [], "files": files}
        if m := re.fullmatch(r"/pulls/(\d+)/merge", p):
            pr = self.pulls.get(int(m.group(1)))
            if pr is None:
                return 404, {"message": "Not Found"}
            pr.update(merged=True, state="closed")
            return 200, {"sha": "c" * 40, "merged": True, "message": "Pull Request merged"}
        if m := re.fullmatch(r"/pulls/(\d+)", p):
            pr = self.pulls.get(int(m.group(1)))
            if pr is None:
                return 404, {"message": "Not Found"}
            if method == "PATCH":
                pr.update(body or {})
            return 200, {**pr, "labels": self.labels_of(pr["number"])}
        if m := re.fullmatch(r"/commits/([0-9a-f]+)/pulls", p):
            return 200, [pr for pr in self.pulls.values() if pr["head"]["sha"] == m.group(1)]
        if m := re.fullmatch(r"/commits/([0-9a-f]+)/check-runs", p):
            runs = self.check_runs.get(m.group(1), [])
            return 200, {"total_count": len(runs), "check_runs": runs}
        if m := re.fullmatch(r"/commits/([0-9a-f]+)/status(es)?", p):
            return 200, {"state": "success", "statuses": self.statuses.get(m.group(1), [])}
        if p.startswith("/actions/artifacts"):
            return 200, {"total_count": 0, "artifacts": []}
        if m := re.fullmatch(r"/actions/runs/(\d+)/jobs", p):
            return 200, {"total_count": 0, "jobs": []}
        return 404, {"message": "Not Found"}

    def graphql(self, payload: dict) -> dict:
        query = payload.get("query", "")
        v = payload.get("variables") or {}
        viewer = {"login": BOT, "__typename": "Bot"}
        if "issueOrPullRequest" in query:
            n = int(v.get("number", 0))
            issue = self.issues.get(n)
            if issue is None:
                return {"data": {"viewer": viewer, "repository": {"policy": None,
                                                                 "issueOrPullRequest": None}}}
            nodes = [self.node(c) for c in self.comments if c["issue"] == n]
            before = v.get("before")
            end = int(before.split(":")[1]) if before else len(nodes)
            start = max(0, end - int(v.get("last", 100)))
            policy = self.files.get("main", {}).get(".github/council.yml")
            return {"data": {"viewer": viewer, "repository": {
                "policy": {"text": policy, "isTruncated": False} if policy else None,
                "issueOrPullRequest": {
                    "author": {"login": issue["author"], "__typename": "User"},
                    "body": issue["body"],
                    "comments": {"pageInfo": {"hasPreviousPage": start > 0,
                                              "startCursor": f"c:{start}" if start < end else None},
                                 "nodes": nodes[start:end]}}}}}
        if "PullRequestRollup" in query:
            pr = self.pulls.get(int(v.get("number", 0)))
            if pr is None:
                return {"data": {"viewer": viewer, "repository": {"pullRequest": None}}}
            sha = pr["head"]["sha"]
            contexts = [
                {"__typename": "CheckRun", "databaseId": r["id"], "name": r["name"],
                 "status": r["status"].upper(), "conclusion": (r["conclusion"] or "").upper() or None,
                 "detailsUrl": "", "checkSuite": {"app": {"slug": "github-actions"}}}
                for r in self.check_runs.get(sha, [])
            ] + [
                {"__typename": "StatusContext", "context": s["context"],
                 "state": s["state"].upper(), "targetUrl": ""}
                for s in self.statuses.get(sha, [])
            ]
            rollup = {"state": "SUCCESS", "contexts": {
                "totalCount": len(contexts), "pageInfo": {"hasNextPage": False, "endCursor": None},
                "nodes": contexts}}
            return {"data": {"viewer": viewer, "repository": {"pullRequest": {
                "id": f"PR_{pr['number']}", "number": pr["number"], "title": pr["title"],
                "url": pr["html_url"], "state": "MERGED" if pr["merged"] else "OPEN",
                "isDraft": pr["draft"], "merged": pr["merged"],
                "headRefName": pr["head"]["ref"], "headRefOid": sha,
                "baseRefName": pr["base"]["ref"], "mergeable": "MERGEABLE",
                "mergeStateStatus": "CLEAN", "isInMergeQueue": False, "autoMergeRequest": None,
                "labels": {"nodes": [{"name": label["name"]}
                                     for label in self.labels_of(pr["number"])]},
                "latestOpinionatedReviews": {"nodes": [
                    {"author": {"login": r["user"], "__typename": "User"}, "state": r["state"],
                     "commit": {"oid": sha}} for r in self.reviews.get(pr["number"], [])]},
                "commits": {"nodes": [{"commit": {"oid": sha, "statusCheckRollup": rollup}}]},
                "mergeCommit": None,
            }}}}
        if "viewer" in query:
            return {"data": {"viewer": viewer}}
        return {"errors": [{"message": "not served by benches/fake_github.py"}]}

    def node(self, c: dict) -> dict:
        login = c["user"]["login"]
        bot = login.endswith("[bot]")
        return {"fullDatabaseId": str(c["id"]), "url": c["html_url"], "createdAt": c["created_at"],
                "body": c["body"], "authorAssociation": c["author_association"],
                "author": {"login": login.removesuffix("[bot]"),
                           "__typename": "Bot" if bot else "User"}}


def serve(world: World) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            with world.lock:
                if url.path.endswith("/graphql"):
                    status, reply = 200, world.graphql(body or {})
                else:
                    status, reply = world.rest(self.command, url.path, parse_qs(url.query), body)
                world.log.append((self.command, self.path, status))
            data = b"" if reply is None else json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    world.api = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
