"""Drives `mend mcp` with the official MCP Python SDK, as an agent would, and prints what it got
as one JSON object for the Rust test to compare whole.

Usage: python mcp_client.py MEND REPO PATCH_FILE PYTHON (the interpreter the tests run with)
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(mend: str, repo: str, patch_file: str, python: str) -> dict:
    with open(patch_file, encoding="utf-8") as handle:
        patch = handle.read()
    server = StdioServerParameters(command=mend, args=["mcp"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            listed = await session.list_tools()
            calls = {
                "task": {"repo": repo},
                "verify": {"repo": repo, "python": python, "sandbox": "none"},
                "verify_patched": {"repo": repo, "patch": patch, "python": python, "sandbox": "none"},
                "verify_missing": {"repo": repo + "/no-such-folder"},
            }
            results = {}
            for key, arguments in calls.items():
                result = await session.call_tool(key.split("_")[0], arguments)
                results[key] = {
                    "is_error": result.is_error,
                    "structured": result.structured_content,
                    "text": [block.text for block in result.content],
                }
    return {
        "protocol_version": initialized.protocol_version,
        "server": initialized.server_info.name,
        "tools": sorted(tool.name for tool in listed.tools),
        "results": results,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:5]))))
