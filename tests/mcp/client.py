"""Drives `council mcp` with the official MCP Python SDK (PyPI `mcp`, 2.x) over stdio.

Usage: client.py COUNCIL_BINARY OWNER/REPO   (GITHUB_API_URL and GH_TOKEN in the
environment point at the fake GitHub). Calls every tool with valid and invalid input
and prints one JSON object, the last line of stdout, for the Rust test to check.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def server(binary, repo, *extra):
    env = {k: os.environ[k] for k in ("PATH", "GITHUB_API_URL", "GH_TOKEN", "COUNCIL_RETRY_BASE_MS") if k in os.environ}
    return StdioServerParameters(
        command=binary,
        args=["mcp", "--repo", repo, "--registry-issue", "50", *extra],
        env=env,
    )


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    text = result.content[0].text if result.content else ""
    if result.is_error:
        return {"is_error": True, "text": text}
    return json.loads(text)


async def main(binary, repo):
    out = {}
    async with stdio_client(server(binary, repo)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            tools = (await session.list_tools()).tools
            out["tools"] = [t.name for t in tools]
            out["read_only_tools"] = [t.name for t in tools if t.annotations.read_only_hint]
            assert all(t.input_schema.get("type") == "object" for t in tools)
            prompts = (await session.list_prompts()).prompts
            out["prompts"] = [p.name for p in prompts]
            prompt = await session.get_prompt("report_context", {"agentId": "agent-a"})
            assert "report_context" in prompt.messages[0].content.text

            report = {
                "agentId": "agent-a",
                "contextWindow": {"totalTokens": 45000, "availableTokens": 155000},
                "loadedProjects": [{"projectId": "dashboard", "filesLoaded": 500, "sizeInTokens": 30000}],
                "loadedTasks": [{"taskId": "T011", "relevantFiles": 23}],
                "capabilities": {"canStartImmediately": ["T011"], "needsContextLoad": ["T018"]},
            }
            out["report_context"] = await call(session, "report_context", report)
            bad = dict(report, contextWindow={"totalTokens": 45000})
            out["report_context_bad"] = await call(session, "report_context", bad)

            out["assign"] = await call(session, "assign", {"issue": 51})
            out["assign_apply"] = await call(session, "assign", {"issue": 51, "apply": True})

            out["check_pass"] = await call(session, "check_branch", {"branch": "feature/ui/login", "target": "develop"})
            out["check_fail"] = await call(session, "check_branch", {"branch": "fix-typo", "target": "develop"})

            out["put"] = await call(session, "put_agent_state", {
                "issue": 7, "intent": "add_login", "step": "coding", "progress": "auto",
                "memory": {"files": ["src/login.rs"]}, "agent": "agent-a",
                "plan": [{"status": "done", "text": "design"}, {"status": "in_progress", "text": "build"}],
            })
            out["put_secret"] = await call(session, "put_agent_state", {
                "issue": 7, "memory": {"token": "ghp_Tq7Lx2Vb9Nc4Wz8Hd1Rk6Mp3Js5Gf0Ya7Eu2"},
            })
            out["get"] = await call(session, "get_agent_state", {"issue": 7})

            out["verify"] = await call(session, "verify_ledger", {"pr": 51})
            out["pr_status"] = await call(session, "pr_status", {"pr": 51})
            out["queue_status"] = await call(session, "queue_status", {"base": "master"})

    async with stdio_client(server(binary, repo, "--read-only")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            assert all(t.annotations.read_only_hint for t in tools), [t.name for t in tools]
            out["read_only_listing"] = [t.name for t in tools]

    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
