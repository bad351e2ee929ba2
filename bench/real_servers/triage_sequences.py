#!/usr/bin/env python3
"""Run the hand-written stateful reproductions of sequences.json, each in a fresh sandbox of its
server, offline: triage_sequences.py > results/LABEL/sequences.md"""

import json
import os
import subprocess
import sys
import tempfile

KIT = os.path.dirname(os.path.abspath(__file__))
for seq in json.load(open(f"{KIT}/sequences.json")):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(seq["calls"], f)
    p = subprocess.run(
        [
            "unshare",
            "--net",
            sys.executable,
            f"{KIT}/replay.py",
            "--server",
            seq["server"],
            "--calls",
            f.name,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    os.unlink(f.name)
    print(f"### {seq['id']} ({seq['server']}): {seq['for']}\n")
    for (tool, args), line in zip(seq["calls"], p.stdout.splitlines(), strict=False):
        o = json.loads(line)
        if "result" in o:
            text = " ".join(c.get("text", "") for c in o["result"].get("content", []))
            ans = f"{o['outcome']}: {' '.join(text.split())[:200]}"
        else:
            ans = f"{o['outcome']}: {json.dumps(o.get('error'))[:200]}"
        a = json.dumps(args, ensure_ascii=False)
        a = a if len(a) < 120 else a[:100] + f"... ({len(a)} chars)"
        print(f"- `{tool} {a}` → {ans}")
    print()
