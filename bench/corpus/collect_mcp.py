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

`--census` collects a second, wider set (source `mcp-census`): servers of other kinds
(databases, browsers, documents, search, issue trackers and other SaaS wrappers) that
nobody here wrote, each PyPI one in a venv of its own named after its distribution
(their pins conflict), the npm ones installed together without install scripts:

    for d in workspace-mcp chroma-mcp ...; do python3 -m venv /tmp/census/venvs/$d; \
        /tmp/census/venvs/$d/bin/pip install $d; done      # every name in CENSUS_PYPI
    /tmp/census/venvs/chroma-mcp/bin/pip install "pydantic<2.12"  # its mcp pin needs it
    (cd /tmp/census/npm && npm install --ignore-scripts --legacy-peer-deps \
        @playwright/mcp chrome-devtools-mcp ...)           # every name in CENSUS_NPM
    python3 bench/corpus/collect_mcp.py --census --venvs /tmp/census/venvs \
        --npm /tmp/census/npm

A server that needs a token or account to list its tools is left out (it is skipped
when it exits or lists none); the only settings given are non-secret ones (a local
path, a URL on this machine that nothing answers, since the server has no network).
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

# The census set (source "mcp-census"): (PyPI distribution, console script, extra arguments),
# each installed in a venv of its own, <venvs>/<distribution>.
CENSUS_PYPI: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("workspace-mcp", "workspace-mcp", ()),  # Google Workspace: Gmail, Drive, Docs, Sheets, ...
    ("awslabs-cloudwatch-mcp-server", "awslabs.cloudwatch-mcp-server", ()),
    ("awslabs-aws-pricing-mcp-server", "awslabs.aws-pricing-mcp-server", ()),
    ("awslabs-aws-iac-mcp-server", "awslabs.aws-iac-mcp-server", ()),
    ("chroma-mcp", "chroma-mcp", ("--client-type", "ephemeral")),  # needs pydantic<2.12
    ("opensearch-mcp-server-py", "opensearch-mcp-server-py", ()),
    ("mcp-server-motherduck", "mcp-server-motherduck", ("--db-path", ":memory:", "--read-write")),
    ("lean-lsp-mcp", "lean-lsp-mcp", ()),
    ("jcodemunch-mcp", "jcodemunch-mcp", ()),
)
# (npm package, script path inside the package, extra arguments).
CENSUS_NPM: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("@playwright/mcp", "cli.js", ()),
    ("chrome-devtools-mcp", "build/src/bin/chrome-devtools-mcp.js", ()),
    ("@upstash/context7-mcp", "dist/index.js", ()),
    ("@notionhq/notion-mcp-server", "bin/cli.mjs", ()),
    ("mongodb-mcp-server", "dist/esm/index.js", ()),
    ("firecrawl-mcp", "dist/index.js", ()),
    ("@antv/mcp-server-chart", "build/index.js", ()),
    ("@modelcontextprotocol/server-github", "dist/index.js", ()),
    ("@wonderwhy-er/desktop-commander", "dist/index.js", ()),
    ("mcp-server-kubernetes", "dist/index.js", ()),
    ("@aashari/mcp-server-atlassian-jira", "dist/index.js", ()),
    ("exa-mcp-server", "dist/stdio.cjs", ()),
    ("@sylphx/pdf-reader-mcp", "dist/index.js", ()),
    ("@henkey/postgres-mcp-server", "build/index.js", ()),
    ("tavily-mcp", "build/index.js", ()),
    ("@eslint/mcp", "src/mcp-cli.js", ()),
    ("@circleci/mcp-server-circleci", "dist/index.js", ()),
)
# Non-secret settings some census servers need before they list tools.
CENSUS_ENV: dict[str, dict[str, str]] = {}
# Tried for the census and left out because they exit without a token, account or
# credentials file (as of the versions tried): @zereight/mcp-gitlab,
# @cocal/google-calendar-mcp, @brave/brave-search-mcp-server, @benborla29/mcp-server-mysql,
# airtable-mcp-server, @roychri/mcp-server-asana, @tacticlaunch/mcp-linear,
# @a-bonus/google-docs-mcp, @azure-devops/mcp, @sentry/mcp-server, todoist-mcp, ha-mcp;
# mcp-atlassian starts but lists no tools without an account. Needing Python >= 3.12:
# dbt-mcp, basic-memory, pdf-tools-mcp, postgres-mcp.


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
    parser.add_argument("--venv", type=Path, help="the venv of PYPI_SERVERS")
    parser.add_argument("--legacy-venv", type=Path, help="the venv of LEGACY_SERVERS")
    parser.add_argument("--npm", type=Path, required=True)
    parser.add_argument(
        "--census", action="store_true", help="collect the census set into source mcp-census"
    )
    parser.add_argument("--venvs", type=Path, help="with --census: one venv per distribution")
    parser.add_argument("--timeout", type=float, default=90.0)
    args = parser.parse_args()
    python: list[tuple[Path, tuple[str, str, tuple[str, ...]]]]
    if args.census:
        if args.venvs is None:
            parser.error("--census needs --venvs")
        source, npm_servers, settings = "mcp-census", CENSUS_NPM, CENSUS_ENV
        python = [(args.venvs / s[0], s) for s in CENSUS_PYPI]
    else:
        if args.venv is None or args.legacy_venv is None:
            parser.error("--venv and --legacy-venv are needed (or --census)")
        source, npm_servers, settings = "mcp", NPM_SERVERS, EXTRA_ENV
        python = [(args.venv, s) for s in PYPI_SERVERS]
        python += [(args.legacy_venv, s) for s in LEGACY_SERVERS]
    isolate = ["unshare", "--net"] if shutil.which("unshare") else []
    node = shutil.which("node") or "node"
    jobs: list[tuple[str, str, list[str]]] = []
    for venv, (distribution, script, extra) in python:
        version = python_version(venv, distribution)  # not installed: stop, store nothing
        jobs.append((distribution, version, [str(venv / "bin" / script), *extra]))
    for package, script, extra in npm_servers:
        root = args.npm / "node_modules" / package
        version = json.loads((root / "package.json").read_text())["version"]
        jobs.append((package, version, [node, str(root / script), *extra]))
    collected: list[Collected] = []
    for package, version, command in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp}
            for name, value in settings.get(package, {}).items():
                env[name] = value.replace("{tmp}", tmp)
            argv = [part.replace("{tmp}", tmp) for part in command]
            try:
                tools = list_tools([*isolate, *argv], env, tmp, args.timeout)
            except (OSError, RuntimeError, TimeoutError) as error:
                print(f"skipped {package}: {error}")
                continue
        if not tools:
            print(f"skipped {package}: it lists no tools without an account")
            continue
        print(f"{package} {version}: {len(tools)} tools")
        for tool in tools:
            collected.append(Collected(tool["name"], tool["inputSchema"], package, version))
    store_source(source, collected)


if __name__ == "__main__":
    main()
