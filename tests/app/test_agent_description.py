"""The documentation the agent is given: the tools file's or MCP server's, else the schema's."""

from __future__ import annotations

import json
from pathlib import Path

from toolfuzz_gate.app.agent import _description
from toolfuzz_gate.app.tool_setup import Listings
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.policy_file import load_policy

SCHEMA: JSON = {"type": "object", "description": "The schema's words."}


def test_a_tools_file_description_comes_first(tmp_path: Path) -> None:
    declared = [
        {
            "type": "function",
            "function": {"name": "other", "description": "Not this one.", "parameters": SCHEMA},
        },
        {
            "type": "function",
            "function": {"name": "geocode", "description": "Find a city.", "parameters": SCHEMA},
        },
    ]
    (tmp_path / "tools.json").write_text(json.dumps(declared), encoding="utf-8")
    (tmp_path / "policy.yml").write_text(
        "version: 1\ntools:\n  - name: geocode\n    tools: tools.json\n    tool: geocode\n"
        "    handler: {command: [python, t.py]}\n",
        encoding="utf-8",
    )
    (tool,) = load_policy(tmp_path / "policy.yml", root=tmp_path).policy.tools
    assert _description(tool, "", SCHEMA, {}) == "Find a city."


def test_an_mcp_listing_description_then_the_schema(tmp_path: Path) -> None:
    (tmp_path / "policy.yml").write_text(
        "version: 1\ntools:\n  - name: geocode\n    handler: {mcp: [python, server.py]}\n",
        encoding="utf-8",
    )
    (tool,) = load_policy(tmp_path / "policy.yml", root=tmp_path).policy.tools
    listings: Listings = {
        HandlerConfig("mcp"): [
            {"name": "search", "description": "Search."},
            {"name": "geocode", "description": "Listed words."},
        ]
    }
    assert _description(tool, "geocode", SCHEMA, listings) == "Listed words."
    assert _description(tool, "geocode", SCHEMA, {}) == "The schema's words."
    assert _description(tool, "geocode", True, {}) == ""
