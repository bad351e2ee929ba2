"""Collect MCP servers' tool input schemas over stdio (run by hand; starts processes).

Each server is started without network (`unshare --net`, when available: listing
tools needs none), without credentials (an empty environment but PATH and a
throwaway HOME) and in a throwaway working directory; the script speaks just
enough JSON-RPC to `initialize` and page through `tools/list`. A server that
does not answer within the timeout is skipped and reported.

Install the servers first into throwaway environments, never the project's venv:

    python3 -m venv /tmp/corpus/mcpvenv
    /tmp/corpus/mcpvenv/bin/pip install mcp-server-time mcp-server-fetch mcp-server-git \
        duckduckgo-mcp-server markitdown-mcp excel-mcp-server office-word-mcp-server \
        awslabs-aws-documentation-mcp-server mcp-clickhouse
    python3 -m venv /tmp/corpus/mcp1venv
    /tmp/corpus/mcp1venv/bin/pip install "mcp<2" mcp-server-sqlite mcp-server-duckdb \
        arxiv-mcp-server office-powerpoint-mcp-server cli-mcp-server blender-mcp
    (cd /tmp/corpus/npm && npm install @modelcontextprotocol/server-filesystem \
        @modelcontextprotocol/server-memory @modelcontextprotocol/server-everything \
        @modelcontextprotocol/server-sequential-thinking)
    python3 bench/corpus/collect_mcp.py --venv /tmp/corpus/mcpvenv \
        --legacy-venv /tmp/corpus/mcp1venv --npm /tmp/corpus/npm
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store import Collected, store_source

# (PyPI distribution, console script, extra arguments; "{tmp}" is a throwaway folder).
PYPI_SERVERS = (
    ("mcp-server-time", "mcp-server-time", ()),
    ("mcp-server-fetch", "mcp-server-fetch", ()),
    ("mcp-server-git", "mcp-server-git", ()),
    ("duckduckgo-mcp-server", "duckduckgo-mcp-server", ()),
    ("markitdown-mcp", "markitdown-mcp", ()),
    ("excel-mcp-server", "excel-mcp-server", ("stdio",)),
    ("office-word-mcp-server", "word_mcp_server", ()),
    ("awslabs-aws-documentation-mcp-server", "awslabs.aws-documentation-mcp-server", ()),
    ("mcp-clickhouse", "mcp-clickhouse", ()),
)
# Servers written against the 1.x MCP SDK, installed beside `mcp<2` in their own venv.
LEGACY_SERVERS = (
    ("mcp-server-sqlite", "mcp-server-sqlite", ("--db-path", "{tmp}/db.sqlite")),
    ("mcp-server-duckdb", "mcp-server-duckdb", ("--db-path", "{tmp}/db.duckdb")),
    ("arxiv-mcp-server", "arxiv-mcp-server", ("--storage-path", "{tmp}")),
    ("office-powerpoint-mcp-server", "ppt_mcp_server", ()),
    ("cli-mcp-server", "cli-mcp-server", ()),
    ("blender-mcp", "blender-mcp", ()),
)
# (npm package, script path inside the package, extra arguments).
NPM_SERVERS = (
    ("@modelcontextprotocol/server-filesystem", "dist/index.js", ("{tmp}",)),
    ("@modelcontextprotocol/server-memory", "dist/index.js", ()),
    ("@modelcontextprotocol/server-everything", "dist/index.js", ("stdio",)),
    ("@modelcontextprotocol/server-sequential-thinking", "dist/index.js", ()),
)
EXTRA_ENV = {"cli-mcp-server": {"ALLOWED_DIR": "{tmp}"}}


class Server:
    """One server process and a line-delimited JSON-RPC conversation with it."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: str) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        self.buffer = b""
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any], deadline: float) -> Any:
        self.next_id += 1
        ident = self.next_id
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            message = self._read(deadline)
            if message.get("id") == ident and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def _read(self, deadline: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise RuntimeError("the server closed its output")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return {}
        return message if isinstance(message, dict) else {}

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def list_tools(command: list[str], env: dict[str, str], cwd: str, timeout: float) -> list[Any]:
    server = Server(command, env, cwd)
    try:
        deadline = time.monotonic() + timeout
        server.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "toolfuzz-corpus", "version": "0"},
            },
            deadline,
        )
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(50):
            params = {"cursor": cursor} if cursor else {}
            result = server.request("tools/list", params, deadline)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return tools
    finally:
        server.close()


def python_version(venv: Path, distribution: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, required=True)
    parser.add_argument("--legacy-venv", type=Path, required=True)
    parser.add_argument("--npm", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=90.0)
    args = parser.parse_args()
    isolate = ["unshare", "--net"] if shutil.which("unshare") else []
    node = shutil.which("node") or "node"
    jobs: list[tuple[str, str, list[str]]] = []
    python = [(args.venv, s) for s in PYPI_SERVERS] + [
        (args.legacy_venv, s) for s in LEGACY_SERVERS
    ]
    for venv, (distribution, script, extra) in python:
        version = python_version(venv, distribution)
        jobs.append((distribution, version, [str(venv / "bin" / script), *extra]))
    for package, script, extra in NPM_SERVERS:
        root = args.npm / "node_modules" / package
        version = json.loads((root / "package.json").read_text())["version"]
        jobs.append((package, version, [node, str(root / script), *extra]))
    collected: list[Collected] = []
    for package, version, command in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp}
            for name, value in EXTRA_ENV.get(package, {}).items():
                env[name] = value.replace("{tmp}", tmp)
            argv = [part.replace("{tmp}", tmp) for part in command]
            try:
                tools = list_tools([*isolate, *argv], env, tmp, args.timeout)
            except (OSError, RuntimeError, TimeoutError) as error:
                print(f"skipped {package}: {error}")
                continue
        print(f"{package} {version}: {len(tools)} tools")
        for tool in tools:
            collected.append(Collected(tool["name"], tool["inputSchema"], package, version))
    store_source("mcp", collected)


if __name__ == "__main__":
    main()
