#!/usr/bin/env python3
"""One line per finding from a gate out dir: findings.py SERVER OUTDIR [SANDBOX]

Prints a TSV (server, tool, failure, path, flaky, cause, said, input) and writes OUTDIR/../
findings.jsonl with the whole counterexample input, the message and a ready replay.py command.
Tools the gate refused (not fuzzed) appear with failure `REFUSED` and the refusal code.
"""

from __future__ import annotations

import json
import os
import shlex
import sys

KIT = os.path.dirname(os.path.abspath(__file__))


def short(s: str, n: int) -> str:
    # control characters (NUL, ESC, ...) escaped: they would make the TSV a "binary" file
    s = "".join(
        ch if ch.isprintable() or ch == " " else f"\\u{ord(ch):04x}"
        for ch in " ".join(str(s).split())
    )
    return s if len(s) <= n else s[: n - 1] + "…"


def main() -> None:
    server, out = sys.argv[1], sys.argv[2]
    summary_path = os.path.join(out, "summary.json")
    if not os.path.exists(summary_path):
        print(f"{server}\t-\tNO-SUMMARY\t-\t-\tthe gate wrote no summary.json\t-\t-")
        return
    summary = json.load(open(summary_path))
    rows, full = [], []
    sys.path.insert(0, KIT)
    for t in summary["tools"]:
        receipt = json.load(open(os.path.join(out, t["receipt"])))
        tool = receipt.get("tool", t["tool"])
        if t.get("refused"):
            codes = ",".join(sorted({r.get("code", "?") for r in t.get("refusal", [])})) or "?"
            msg = "; ".join(r.get("message", "") for r in t.get("refusal", []))
            rows.append([server, tool, "REFUSED", "-", "-", codes, short(msg, 160), "-"])
            continue
        for c in receipt.get("counterexamples", []):
            err = c.get("error") or {}
            said = err.get("message") or err.get("code") or c.get("message") or ""
            inp = json.dumps(c.get("input"), ensure_ascii=False, sort_keys=True)
            rows.append(
                [
                    server,
                    tool,
                    c["failure"],
                    "/" + c["path"].lstrip("/") if c["path"] else "/",
                    "flaky" if c.get("flaky") else "-",
                    short(c.get("cause", ""), 70),
                    short(said, 140),
                    short(inp, 160),
                ]
            )
            full.append(
                {
                    "server": server,
                    "tool": tool,
                    "failure": c["failure"],
                    "path": c["path"],
                    "fingerprint": c["fingerprint"],
                    "cause": c.get("cause"),
                    "inputKind": c.get("inputKind"),
                    "mutation": c.get("mutation"),
                    "keyword": c.get("keyword"),
                    "error": err,
                    "input": c.get("input"),
                    "reproduced": c.get("reproduced"),
                    "replay": f"{KIT}/replay.py --server {server} --tool {shlex.quote(tool)} "
                    f"--args {shlex.quote(inp)}",
                }
            )
    with open(os.path.join(os.path.dirname(out.rstrip("/")), "findings.jsonl"), "w") as f:
        for r in full:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        print("\t".join(r))


if __name__ == "__main__":
    main()
