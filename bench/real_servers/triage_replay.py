#!/usr/bin/env python3
"""Reproduce one sample per distinct (server, tool, failure class, cause) over raw JSON-RPC.

  triage_replay.py LABEL      reads results/LABEL/*/findings.jsonl, writes results/LABEL/replays.jsonl

A sample the fresh sandbox does not reproduce is replayed again in a copy of the sandbox the
run left behind (results/LABEL/NAME/sandbox.txt: the state the fuzzing built).
Each sample is replayed with replay.py in a fresh sandbox of its server (servers.py prep), in a
network namespace with no interfaces, as a person would by hand:
  valid-rejected, hostile-accepted, crash, timeout, output-unbounded, resource-exhaustion:
      one call (timeout 15 s), the outcome and the first 300 characters of the answer
  replay-unstable: the same call twice in one server, whether the two results are equal
  metamorphic-key-order: the call, then the same arguments with the keys in reverse order
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

KIT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, KIT)
from triage_rules import classify  # noqa: E402


def reverse_keys(v):
    if isinstance(v, dict):
        return {k: reverse_keys(v[k]) for k in reversed(list(v))}
    if isinstance(v, list):
        return [reverse_keys(x) for x in v]
    return v


def expand(v):
    """Receipts elide strings over 256 characters ({"$elided": {head, length, sha256}}): rebuild a
    string of the same length that starts with the same head (the tail is 'a's), marked in the
    replay record as approximate."""
    if isinstance(v, dict):
        e = v.get("$elided")
        if isinstance(e, dict) and len(v) == 1:
            return e["head"] + "a" * max(0, e["length"] - len(e["head"]))
        return {k: expand(x) for k, x in v.items()}
    if isinstance(v, list):
        return [expand(x) for x in v]
    return v


def run(
    server: str, calls: list, timeout: float = 15.0, sandbox: str | None = None
) -> tuple[int, list[dict], str]:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(calls, f)
        path = f.name
    net = (
        ["unshare", "--net"]
        if subprocess.run(["unshare", "--net", "true"]).returncode == 0
        else ["unshare", "-rn"]
    )
    try:
        p = subprocess.run(
            [
                *net,
                sys.executable,
                f"{KIT}/replay.py",
                "--server",
                server,
                "--calls",
                path,
                "--timeout",
                str(timeout),
                "--full",
                *(["--sandbox", sandbox] if sandbox else []),
            ],
            capture_output=True,
            text=True,
            timeout=timeout * len(calls) + 60,
        )
    finally:
        os.unlink(path)
    outs = []
    for line in p.stdout.splitlines():
        try:
            outs.append(json.loads(line))
        except ValueError:
            outs.append({"outcome": "unparsed", "text": line[:300]})
    return p.returncode, outs, p.stderr[-600:]


def gist(o: dict) -> str:
    if "result" in o:
        r = o["result"]
        text = " ".join(c.get("text", f"<{c.get('type')}>") for c in r.get("content", []))
        return f"{o['outcome']} ({len(json.dumps(r))} B): {text[:300]}"
    if "error" in o:
        return f"{o['outcome']}: {json.dumps(o['error'])[:300]}"
    return o.get("outcome", "?") + " " + o.get("text", "")


def reproduced(fc: str, outs: list[dict]) -> bool:
    """Did the replay show the failure the gate reported?"""
    if not outs:
        return False
    o = outs[0]
    kind = o.get("outcome", "")
    if fc == "valid-rejected":
        return kind in ("isError", "jsonrpc-error")
    if fc == "hostile-accepted":
        return kind == "ok"
    if fc == "crash":
        return kind.startswith("server exited") or (
            kind == "jsonrpc-error" and o.get("error", {}).get("code") == -32603
        )
    if fc == "timeout":
        return kind == "timeout" or o.get("ms", 0) > 2000
    if fc in ("replay-unstable", "metamorphic-key-order"):
        return len(outs) == 2 and outs[0].get("result") != outs[1].get("result")
    if fc == "output-unbounded":
        return len(json.dumps(o.get("result"))) > 65536
    return False


def main() -> None:
    label = sys.argv[1]
    res = f"{KIT}/results/{label}"
    seen, samples = {}, []
    for server in sorted(os.listdir(res)):
        fj = f"{res}/{server}/findings.jsonl"
        if not os.path.exists(fj):
            continue
        for line in open(fj):
            c = json.loads(line)
            key = (c["server"], c["tool"], c["failure"], c["cause"], classify(c)[1])
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 1:
                samples.append(c)
    out = open(f"{res}/replays.jsonl", "w")
    for c in samples:
        tool, fc = c["tool"], c["failure"]
        args = expand(c["input"])
        approx = args != c["input"]
        if fc == "replay-unstable":
            calls = [[tool, args], [tool, args]]
        elif fc == "metamorphic-key-order":
            calls = [[tool, args], [tool, reverse_keys(args)]]
        else:
            calls = [[tool, args]]
        rc, outs, err = run(c["server"], calls)
        rec = {
            "server": c["server"],
            "tool": tool,
            "failure": fc,
            "cause": c["cause"],
            "fingerprint": c["fingerprint"],
            "group": classify(c)[1],
            "orig_input": c["input"],
            "count": seen[(c["server"], tool, fc, c["cause"], classify(c)[1])],
            "input": args,
            "gate_said": (c.get("error") or {}).get("message")
            or (c.get("error") or {}).get("code"),
            "replay_rc": rc,
            "elided_input_rebuilt": approx,
            "replay": [gist(o) for o in outs],
            "stderr_tail": err[-300:],
        }
        if len(outs) == 2 and "result" in outs[0] and "result" in outs[1]:
            rec["equal"] = outs[0]["result"] == outs[1]["result"]
        rec["reproduced_fresh"] = reproduced(fc, outs)
        sbfile = f"{res}/{c['server']}/sandbox.txt"
        if (
            not rec["reproduced_fresh"]
            and os.path.exists(sbfile)
            and os.path.isdir(open(sbfile).read().strip())
        ):
            # the run's own state: replay in a copy of the sandbox the fuzzing left behind
            tmp = tempfile.mkdtemp(prefix="rs-state-")
            cp = os.path.join(tmp, "sb")
            shutil.copytree(open(sbfile).read().strip(), cp, symlinks=True)
            _, outs2, _ = run(c["server"], calls, sandbox=cp)
            shutil.rmtree(tmp, ignore_errors=True)
            rec["replay_state"] = [gist(o) for o in outs2]
            rec["reproduced_state"] = reproduced(fc, outs2)
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        out.flush()
        print(
            f"{c['server']:<16} {tool:<28} {fc:<22} rc={rc} {rec['replay'][0][:90] if rec['replay'] else err[-90:]!r}"
        )


if __name__ == "__main__":
    main()
