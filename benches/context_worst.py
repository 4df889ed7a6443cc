#!/usr/bin/env python3
"""Wall time of `council context validate` on worst-case 1 MiB ASSISTANT_CONTEXT files
(stdlib only). Writes the shapes of benches/support/context.rs into a temporary
directory, runs the given binary once per file from inside it, and prints the time, the
exit code and the size of the output of each run.

    cargo build --release
    python3 benches/context_worst.py "${CARGO_TARGET_DIR:-target}/release/council"

Kept out of `cargo test`: it measures, it does not assert (the verdicts are tested in
tests/integration/context_worst.rs, the in-process time is `cargo bench --bench context`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

LIMIT = 1 << 20
TOKEN = "ghp_R8x2Lq9ZtV4mN7cJ1sK5wB3yH6dF0gPaE2uQ"
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
MAX_NODES = 100_000  # assistant_context::MAX_NODES


def key(i: int) -> str:
    out = ""
    while True:
        out += ALPHABET[i % len(ALPHABET)]
        i //= len(ALPHABET)
        if i == 0:
            return out
        i -= 1


def fill(budget: int, head: str, line) -> str:
    parts, size, i = [head], len(head), 0
    while True:
        nxt = line(i)
        if size + len(nxt) > budget:
            return "".join(parts)
        parts.append(nxt)
        size += len(nxt)
        i += 1


def deep_flow(budget: int) -> str:
    depth = (budget - len("purpose: \n")) // 2
    return "purpose: " + "[" * depth + "]" * depth + "\n"


def deep_block(budget: int) -> str:
    parts, size, depth = [], 0, 0
    while size + depth + 3 <= budget:
        parts.append(" " * depth + "a:\n")
        size += depth + 3
        depth += 1
    return "".join(parts)


def padded(head: str, budget: int) -> str:
    room = max(budget - len(head) - len("z: \n"), 0)
    return head + "z: " + ("lorem ipsum " * (room // 12 + 1))[:room] + "\n"


def duplicates_up_to_the_budget(budget: int) -> str:
    return padded("a:\n" * (MAX_NODES // 2 - 2), budget)


def files_changed_up_to_the_budget(budget: int) -> str:
    return padded("files_changed:\n" + "- a\n" * (MAX_NODES - 5), budget)


def long_line(budget: int) -> str:
    words = ("lorem ipsum dolor sit amet " * (budget // 27 + 1))[: budget - len("purpose: \n")]
    return "purpose: " + words.rstrip() + "\n"


SHAPES = {
    "distinct_keys": lambda b: fill(b, "", lambda i: f"{key(i)}:\n"),
    "duplicate_keys": lambda b: fill(b, "", lambda i: "a:\n"),
    "flow_sequence": lambda b: fill(b - 2, "files_changed: [a", lambda i: ", a") + "]\n",
    "block_list": lambda b: fill(b, "files_changed:\n", lambda i: "- a\n"),
    "flow_mapping_of_lists": lambda b: fill(b - 2, "{", lambda i: f"x{key(i)}: [a], ") + "}\n",
    "deep_flow": deep_flow,
    "deep_block": deep_block,
    "long_line": long_line,
    "every_line_a_secret": lambda b: fill(b, "", lambda i: f"{key(i)}: {TOKEN}\n"),
    "every_line_invalid": lambda b: fill(b, "", lambda i: f"status: s{i}\n"),
    "duplicates_up_to_the_budget": duplicates_up_to_the_budget,
    "files_changed_up_to_the_budget": files_changed_up_to_the_budget,
}


def cases():
    for name, build in SHAPES.items():
        yield f"{name}.yaml", build(LIMIT)
        yield f"{name}.md", "---\n" + build(LIMIT - 8) + "---\n"
    body = "---\nid: ctx-1\nstatus: active\n---\n"
    line = "- 2026-01-01: looked at `src/a.rs`, see <https://example.com> | a | b |\n"
    body += line * ((LIMIT - len(body)) // len(line))
    yield "huge_body.md", body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("council", help="path to the council binary")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    args = parser.parse_args()
    council = os.path.abspath(args.council)
    print(f"{'case':<36} {'seconds':>9} {'exit':>5} {'stdout bytes':>13}")
    with tempfile.TemporaryDirectory() as root:
        for name, text in cases():
            if args.only and args.only not in name:
                continue
            assert len(text.encode()) <= LIMIT, name
            folder = os.path.join(root, name.replace(".", "_"))
            os.makedirs(folder)
            path = "ASSISTANT_CONTEXT." + ("yaml" if name.endswith(".yaml") else "md")
            with open(os.path.join(folder, path), "w", encoding="utf-8") as f:
                f.write(text)
            env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
            start = time.monotonic()
            try:
                run = subprocess.run(
                    [council, "context", "validate", path],
                    cwd=folder,
                    env=env,
                    capture_output=True,
                    timeout=args.timeout,
                )
                seconds = f"{time.monotonic() - start:9.3f}"
                code, size = str(run.returncode), str(len(run.stdout))
            except subprocess.TimeoutExpired:
                seconds, code, size = f">{args.timeout:.0f}".rjust(9), "-", "-"
            print(f"{name:<36} {seconds} {code:>5} {size:>13}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
