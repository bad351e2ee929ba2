#!/usr/bin/env python3
"""Tiny raw JSON-RPC client for MCP servers over stdio (no SDK, stdlib only).

  replay.py SERVER_ARGV... --list                      initialize, tools/list (prints the tools)
  replay.py SERVER_ARGV... --tool NAME --args JSON     initialize, tools/call NAME with JSON
  replay.py SERVER_ARGV... --tool NAME --args-file F   same, arguments read from file F
  replay.py SERVER_ARGV... --tool NAME --args JSON --repeat 2   call twice (replay stability)
  replay.py SERVER_ARGV... --calls FILE                a JSON list of [name, args] pairs, in order

  replay.py --server NAME [--sandbox DIR] --tool NAME --args JSON
                                                       a kit server (servers.py) by name, in a
                                                       fresh sandbox, deleted after unless --keep
                                                       (or DIR: an existing sandbox, used as it is)
Options: --timeout S (per request, default 10), --names (with --list: names only),
--raw (print every JSON-RPC message received),
--full (print a long result whole instead of its first 3000 characters and its size), --env K=V (repeatable; added to the env),
--cwd DIR. Exit: 0 answered, 3 the server died or was silent, 4 JSON-RPC error answer,
5 isError result. The server's stderr tail is printed to stderr at the end.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time


def parse(argv: list[str]):
    opts = {
        "tool": None,
        "args": None,
        "list": False,
        "names": False,
        "raw": False,
        "timeout": 10.0,
        "env": {},
        "cwd": None,
        "repeat": 1,
        "calls": None,
        "server": None,
        "sandbox": None,
        "keep": False,
        "fresh": None,
        "full": False,
    }
    server: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--tool":
            opts["tool"] = argv[i + 1]
            i += 2
        elif a == "--args":
            opts["args"] = json.loads(argv[i + 1])
            i += 2
        elif a == "--args-file":
            with open(argv[i + 1], encoding="utf-8") as f:
                opts["args"] = json.load(f)
            i += 2
        elif a == "--calls":
            with open(argv[i + 1], encoding="utf-8") as f:
                opts["calls"] = json.load(f)
            i += 2
        elif a == "--list":
            opts["list"] = True
            i += 1
        elif a == "--names":
            opts["list"] = opts["names"] = True
            i += 1
        elif a == "--full":
            opts["full"] = True
            i += 1
        elif a == "--raw":
            opts["raw"] = True
            i += 1
        elif a == "--timeout":
            opts["timeout"] = float(argv[i + 1])
            i += 2
        elif a == "--repeat":
            opts["repeat"] = int(argv[i + 1])
            i += 2
        elif a == "--env":
            k, _, v = argv[i + 1].partition("=")
            opts["env"][k] = v
            i += 2
        elif a == "--server":
            opts["server"] = argv[i + 1]
            i += 2
        elif a == "--keep":
            opts["keep"] = True
            i += 1
        elif a == "--sandbox":
            opts["sandbox"] = argv[i + 1]
            i += 2
        elif a == "--cwd":
            opts["cwd"] = argv[i + 1]
            i += 2
        elif a == "--":
            server.extend(argv[i + 1 :])
            break
        else:
            server.append(a)
            i += 1
    if opts["server"]:  # a kit server by name, in a fresh (or the given) sandbox
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import tempfile

        import servers

        d = opts["sandbox"] or tempfile.mkdtemp(prefix=f"rs-replay-{opts['server']}-")
        if not opts["sandbox"]:
            opts["fresh"] = d
            if opts["keep"]:
                print(f"[sandbox kept: {d}]", file=sys.stderr)
        for line in (
            servers.prep(opts["server"], d)
            if not opts["sandbox"]
            else servers.prep_env(opts["server"], d)
        ):
            k, _, v = line[len("export ") :].partition("=")
            opts["env"].setdefault(k, v)
        server = servers.argv(opts["server"], d)
        opts["cwd"] = opts["cwd"] or d
    if not server:
        sys.exit(__doc__)
    return server, opts


class Client:
    def __init__(self, argv, env, cwd, timeout, raw):
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.timeout, self.raw, self.next_id, self.buf = timeout, raw, 1, b""
        self.err = b""

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def _drain_err(self):
        while True:
            r, _, _ = select.select([self.p.stderr], [], [], 0)
            if not r:
                return
            chunk = os.read(self.p.stderr.fileno(), 65536)
            if not chunk:
                return
            self.err = (self.err + chunk)[-8192:]

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    print(f"[non-JSON stdout line] {line[:200]!r}", file=sys.stderr)
                    continue
                if self.raw:
                    print("<<", json.dumps(msg)[:4000], file=sys.stderr)
                if msg.get("id") == rid and ("result" in msg or "error" in msg):
                    return msg
                if "method" in msg and "id" in msg:  # server->client request: answer empty
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
            left = deadline - time.monotonic()
            if left <= 0:
                return {"_timeout": True}
            r, _, _ = select.select([self.p.stdout, self.p.stderr], [], [], left)
            if self.p.stderr in r:
                self._drain_err()
            if self.p.stdout in r:
                chunk = os.read(self.p.stdout.fileno(), 1 << 20)
                if not chunk:
                    self._drain_err()
                    return {"_died": self.p.wait(timeout=5)}
                self.buf += chunk

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self._drain_err()


def main():
    server, o = parse(sys.argv[1:])
    env = dict(os.environ)
    env.update(o["env"])
    c = Client(server, env, o["cwd"], o["timeout"], o["raw"])
    rc = 0
    init = c.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "replay.py", "version": "1"},
        },
    )
    if "result" not in init:
        print(json.dumps({"initialize": init}), file=sys.stdout)
        c.close()
        print(c.err.decode(errors="replace")[-2000:], file=sys.stderr)
        sys.exit(3)
    c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if o["list"]:
        tools, cursor = [], None
        while True:
            r = c.request("tools/list", {"cursor": cursor} if cursor else {})
            tools += r.get("result", {}).get("tools", [])
            cursor = r.get("result", {}).get("nextCursor")
            if not cursor:
                break
        if o["names"]:
            print("\n".join(t["name"] for t in tools))
        else:
            print(json.dumps({"tools": tools}, indent=1, ensure_ascii=False))
    calls = o["calls"] or ([[o["tool"], o["args"] or {}]] * o["repeat"] if o["tool"] else [])
    for name, args in calls:
        t0 = time.monotonic()
        r = c.request("tools/call", {"name": name, "arguments": args})
        ms = int((time.monotonic() - t0) * 1000)
        out = {"tool": name, "ms": ms}
        if "_timeout" in r:
            out["outcome"] = "timeout"
            rc = 3
        elif "_died" in r:
            out["outcome"] = f"server exited ({r['_died']})"
            rc = 3
        elif "error" in r:
            out["outcome"] = "jsonrpc-error"
            out["error"] = r["error"]
            rc = max(rc, 4)
        else:
            res = r["result"]
            out["outcome"] = "isError" if res.get("isError") else "ok"
            if res.get("isError"):
                rc = max(rc, 5)
            out["result"] = res
        s = json.dumps(out, ensure_ascii=False)
        if len(s) > 6000 and not o["full"]:  # keep the terminal usable; --full prints all
            out["result"] = {
                "truncated": True,
                "bytes": len(json.dumps(out.get("result"))),
                "head": json.dumps(out.get("result"), ensure_ascii=False)[:3000],
            }
            s = json.dumps(out, ensure_ascii=False)
        print(s)
        if rc == 3:
            break
    c.close()
    if o["fresh"] and not o["keep"]:
        import shutil

        shutil.rmtree(o["fresh"], ignore_errors=True)
    tail = c.err.decode(errors="replace").strip()
    if tail:
        print("--- server stderr (tail) ---\n" + tail[-1500:], file=sys.stderr)
    sys.exit(rc)


if __name__ == "__main__":
    main()
