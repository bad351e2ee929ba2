#!/usr/bin/env python3
"""The servers of the kit: how each starts, and the sandbox it is confined to.

  servers.py names                  every server name, one a line
  servers.py prep NAME DIR          make a fresh sandbox DIR for NAME (files the server needs);
                                    prints `export K=V` lines for the gate's environment
  servers.py argv NAME DIR          the server's argv with DIR as its sandbox (for replay.py)
  servers.py policy NAME            write policies/NAME.yml (the default configuration: one
                                    entry per tool, nothing declared) and
                                    policies/recommended/NAME.yml (the same plus what RECOMMENDED
                                    declares), listing the tools over raw JSON-RPC

Every server runs with its working directory, HOME and data files inside DIR (the gate is run
with --root DIR, so the relative paths in a policy's argv resolve there). Nothing here reaches
the network; run_all.sh adds a network namespace with no interfaces on top.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

KIT = os.path.dirname(os.path.abspath(__file__))
NODE = f"{KIT}/node/node_modules/.bin"

# argv: relative arguments name files/dirs that prep creates inside the sandbox (the gate makes
# them absolute against --root). env: variables the server reads ({dir} = the sandbox).
SERVERS: dict[str, dict] = {
    "everything": {
        "package": "npm @modelcontextprotocol/server-everything",
        "argv": [f"{NODE}/mcp-server-everything", "stdio"],
    },
    "memory": {
        "package": "npm @modelcontextprotocol/server-memory",
        "argv": [f"{NODE}/mcp-server-memory"],
        "env": {"MEMORY_FILE_PATH": "{dir}/memory.jsonl"},
    },
    "filesystem": {
        "package": "npm @modelcontextprotocol/server-filesystem",
        "argv": [f"{NODE}/mcp-server-filesystem", "fs"],
    },
    "sequential-thinking": {
        "package": "npm @modelcontextprotocol/server-sequential-thinking",
        "argv": [f"{NODE}/mcp-server-sequential-thinking"],
    },
    "time": {
        "package": "pypi mcp-server-time",
        "argv": [f"{KIT}/venv-time/bin/mcp-server-time", "--local-timezone", "UTC"],
    },
    "git": {
        "package": "pypi mcp-server-git",
        "argv": [f"{KIT}/venv-git/bin/mcp-server-git", "--repository", "repo"],
    },
    "sqlite": {
        "package": "pypi mcp-server-sqlite (mcp<2 pinned: it breaks on mcp 2.x)",
        "argv": [f"{KIT}/venv-sqlite/bin/mcp-server-sqlite", "--db-path", "db.sqlite"],
    },
    "calculator": {
        "package": "pypi mcp-server-calculator",
        "argv": [f"{KIT}/venv-calculator/bin/mcp-server-calculator"],
    },
    "calc-mcp": {"package": "npm @coo-quack/calc-mcp", "argv": [f"{NODE}/calc-mcp"]},
    "knowledge-graph": {
        "package": "npm @itseasy21/mcp-knowledge-graph",
        "argv": [f"{NODE}/mcp-knowledge-graph", "--memory-path", "kg.jsonl"],
    },
    "todo": {
        "package": "pypi mcp-todo (mcp<2 pinned; data in $HOME/.local/share/todo)",
        "argv": [f"{KIT}/venv-todo/bin/mcp-todo"],
    },
}

# Tools left out of the policies: those that make network requests from their inputs.
# NAME -> {tool: reason}.
EXCLUDED: dict[str, dict[str, str]] = {
    "everything": {
        "gzip-file-as-resource": "fetches the `data` URL (default https://raw.githubusercontent.com/...: "
        "omitting `data` fetches from the internet); openWorldHint: true"
    },
}


# What the policy I would recommend declares beyond the default, per server: `defaults` (lines
# under `defaults:`), `handler` (extra handler members, every tool), `tool` (extra lines for
# every tool entry) and `tools` ({tool: extra lines}). Each item says why in a comment.
RECOMMENDED: dict[str, dict] = {
    "everything": {
        "tools": {
            "trigger-long-running-operation": [
                "# runs `duration` seconds (10 by default) in `steps` steps, as long as asked:",
                "# pin a short run (the schema sets no maximum for either)",
                'fixed_arguments: {"/duration": 0.2, "/steps": 2}',
            ],
        },
    },
    "memory": {
        "handler": {"reset_command": ["sh", "-c", 'rm -f "$MEMORY_FILE_PATH"']},
    },
    "git": {
        "tool": [
            "# every tool takes the repository: pin the one the server allows, fuzz the rest",
            'fixed_arguments: {"/repo_path": "repo"}',
        ],
    },
    "sequential-thinking": {
        "tool": [
            "# annotated readOnlyHint/idempotentHint, but it appends to a thought history",
            "deterministic: false",
        ],
    },
    "knowledge-graph": {
        "handler": {"reset_command": ["sh", "-c", ": > kg.jsonl"]},
    },
    "todo": {
        "handler": {
            "reset_command": ["sh", "-c", 'rm -rf "$HOME/.local/share/todo"'],
            "env": ["HOME"],
        },
    },
}


def prep(name: str, d: str) -> list[str]:
    os.makedirs(d, exist_ok=True)
    home = os.path.join(d, "home")
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, ".gitconfig"), "w") as f:
        f.write(
            "[user]\n\tname = Fuzz\n\temail = fuzz@example.invalid\n"
            "[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"
        )
    os.makedirs(os.path.join(d, "tmp"), exist_ok=True)
    if name == "filesystem":
        fs = os.path.join(d, "fs")
        os.makedirs(os.path.join(fs, "sub"), exist_ok=True)
        with open(os.path.join(fs, "hello.txt"), "w") as f:
            f.write("hello\nworld\n")
        with open(os.path.join(fs, "sub", "a.json"), "w") as f:
            f.write('{"a": 1}\n')
    elif name == "git":
        repo = os.path.join(d, "repo")
        os.makedirs(repo, exist_ok=True)
        g = {**os.environ, "HOME": home}
        subprocess.run(["git", "init", "-q", repo], check=True, env=g)
        with open(os.path.join(repo, "README.md"), "w") as f:
            f.write("# fuzz repo\n")
        subprocess.run(["git", "-C", repo, "add", "README.md"], check=True, env=g)
        subprocess.run(["git", "-C", repo, "commit", "-qm", "initial"], check=True, env=g)
        with open(os.path.join(repo, "README.md"), "a") as f:
            f.write("unstaged line\n")
    elif name == "sqlite":
        open(os.path.join(d, "db.sqlite"), "a").close()
    elif name == "knowledge-graph":
        open(os.path.join(d, "kg.jsonl"), "a").close()
    return prep_env(name, d)


def prep_env(name: str, d: str) -> list[str]:
    """The environment a server gets for sandbox d (without touching d)."""
    env = {"HOME": os.path.join(d, "home"), "TMPDIR": os.path.join(d, "tmp")}
    for k, v in SERVERS[name].get("env", {}).items():
        env[k] = v.format(dir=d)
    return [f"export {k}={v}" for k, v in env.items()]


def argv(name: str, d: str) -> list[str]:
    out = []
    for a in SERVERS[name]["argv"]:
        p = os.path.join(d, a)
        out.append(p if not os.path.isabs(a) and os.path.exists(p) else a)
    return out


def list_tools(name: str) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix=f"rs-list-{name}-") as d:
        env = dict(os.environ)
        for line in prep(name, d):
            k, _, v = line[len("export ") :].partition("=")
            env[k] = v
        p = subprocess.run(
            [sys.executable, f"{KIT}/replay.py", *argv(name, d), "--list"],
            capture_output=True,
            text=True,
            env=env,
            cwd=d,
            timeout=60,
        )
        return json.loads(p.stdout)["tools"]


def policy(name: str) -> str:
    tools = list_tools(name)
    os.makedirs(f"{KIT}/tools", exist_ok=True)
    with open(f"{KIT}/tools/{name}.tools.json", "w") as f:
        json.dump({"tools": tools}, f, indent=1, ensure_ascii=False)
    s = SERVERS[name]
    n_ex = sum(1 for t in tools if t["name"] in EXCLUDED.get(name, {}))
    lines = [
        f"# {name}: {s['package']}; {len(tools)} tools listed, {len(tools) - n_ex} fuzzed, "
        "one entry each (an mcp entry without",
        "# `tools:` takes its schema from tools/list for the tool it names).",
        "# Run with --root SANDBOX (run_all.sh does): relative argv paths resolve there.",
        "version: 1",
        "defaults:",
        "  seeds: [41]",
        "  runs: 20",
        "tools:",
    ]
    written = []
    for recommended in (False, True):
        body = _entries(name, tools, recommended)
        note = ["# The recommended policy: the default plus what servers.py RECOMMENDED declares."]
        head = (note if recommended else []) + lines
        path = f"{KIT}/policies/{'recommended/' if recommended else ''}{name}.yml"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(head + body) + "\n")
        written.append(path)
    return f"{' and '.join(written)}: {len(tools)} tools"


def _entries(name: str, tools: list[dict], recommended: bool) -> list[str]:
    s = SERVERS[name]
    extra = RECOMMENDED.get(name, {}) if recommended else {}
    env = list(s.get("env", {}))
    handler_extra = dict(extra.get("handler", {}))
    env = sorted(set(env) | set(handler_extra.pop("env", [])))
    lines = []
    for t in tools:
        if t["name"] in EXCLUDED.get(name, {}):
            lines.append(f"  # excluded: {t['name']}: {EXCLUDED[name][t['name']]}")
            continue
        h = f"{{mcp: {json.dumps(s['argv'])}"
        if env:
            h += f", env: {json.dumps(env)}"
        for key, value in handler_extra.items():
            h += f", {key}: {json.dumps(value)}"
        h += "}"
        lines += [f"  - name: {json.dumps(t['name'])}", f"    handler: {h}"]
        for line in extra.get("tool", []) + extra.get("tools", {}).get(t["name"], []):
            lines.append(f"    {line}")
    return lines


def main() -> None:
    cmd, *rest = sys.argv[1:] or ["help"]
    if cmd == "names":
        print("\n".join(SERVERS))
    elif cmd == "prep":
        print("\n".join(prep(*rest)))
    elif cmd == "argv":
        print(" ".join(argv(*rest)))
    elif cmd == "policy":
        for n in rest or SERVERS:
            print(policy(n))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
