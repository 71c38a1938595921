"""Drives `mend mcp` with the official MCP Python SDK, as an agent would, and prints what it got
as one JSON object for the Rust test to compare whole.

Usage: python mcp_client.py MEND CALLS_FILE [ERA], where CALLS_FILE holds a JSON object of calls,
each `KEY: [TOOL, ARGUMENTS]`, made in order; the results come back under the same keys. ERA is
`legacy` (the initialize handshake, the default) or `modern` (MCP 2026-07-28: `server/discover`,
then every request carrying its version in `_meta`, no handshake).
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def field(result, name, older_name):
    """A result's field by the SDK's name for it: 2.x spells them in snake case, 1.x as the wire
    does."""
    return getattr(result, name) if hasattr(result, name) else getattr(result, older_name)


async def main(mend: str, calls_file: str, era: str = "legacy") -> dict:
    with open(calls_file, encoding="utf-8") as handle:
        calls = json.load(handle)
    server = StdioServerParameters(command=mend, args=["mcp"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            if era == "modern":
                opened = await session.discover()
            else:
                opened = await session.initialize()
            listed = await session.list_tools()
            results = {}
            for key, (tool, arguments) in calls.items():
                result = await session.call_tool(tool, arguments)
                results[key] = {
                    "is_error": field(result, "is_error", "isError"),
                    "structured": field(result, "structured_content", "structuredContent"),
                    "text": [block.text for block in result.content],
                }
    return {
        # 1.x keeps them only in the handshake's answer.
        "protocol_version": getattr(session, "protocol_version", None) or opened.protocolVersion,
        "server": (getattr(session, "server_info", None) or opened.serverInfo).name,
        "tools": sorted(tool.name for tool in listed.tools),
        "results": results,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))
