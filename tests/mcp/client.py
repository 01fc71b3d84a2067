"""Drives `shellgate mcp` with the official MCP Python SDK (pip install mcp).

Usage: client.py SHELLGATE_BINARY WORKDIR
Exits non-zero with a message on the first failed expectation.
"""
import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

BIN, WORK = sys.argv[1], sys.argv[2]


def params():
    env = dict(os.environ, XDG_CONFIG_HOME="/nonexistent-shellgate-test")
    return StdioServerParameters(command=BIN, args=["mcp", "--cwd", WORK], env=env)


def is_error(result):
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def body(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def expect(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)


async def session(answer):
    async def on_elicit(context, request):
        return types.ElicitResult(action="accept", content={"approve": answer})

    async with stdio_client(params()) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            expect({"bash", "check", "jobs", "job_output", "job_kill"} <= tools, f"tools listed: {tools}")

            ok = await s.call_tool("bash", {"command": "echo hello-from-mcp"})
            expect(not is_error(ok) and "hello-from-mcp" in body(ok), f"allowed command runs: {body(ok)}")

            denied = await s.call_tool("bash", {"command": "sudo ls"})
            expect(is_error(denied) and "deny" in body(denied), f"denied command is a tool error: {body(denied)}")

            verdict = await s.call_tool("check", {"command": "git push origin main"})
            expect('"decision":"ask"' in body(verdict), f"check returns the verdict: {body(verdict)}")

            marker = os.path.join(WORK, f"approved-{answer}")
            asked = await s.call_tool("bash", {"command": f"touch {marker}"})
            if answer:
                expect(not is_error(asked) and os.path.exists(marker), f"approved ask runs: {body(asked)}")
            else:
                expect(is_error(asked) and not os.path.exists(marker), f"declined ask does not run: {body(asked)}")


async def main():
    await session(True)
    await session(False)
    print("mcp client: all expectations held")


asyncio.run(main())
