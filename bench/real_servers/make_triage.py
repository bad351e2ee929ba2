#!/usr/bin/env python3
"""Build the triage tables from a run: make_triage.py LABEL > results/LABEL/triage-tables.md

Every finding of results/LABEL/*/findings.jsonl gets the verdict triage_rules.classify gives
it; each row of the detail table is one (server, tool, failure class, sub-kind) with its count,
one sample input, what the raw JSON-RPC replay (results/LABEL/replays.jsonl, from
triage_replay.py) answered, the verdict and the reason.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from collections import Counter, OrderedDict

KIT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, KIT)
from triage_rules import classify  # noqa: E402

SEQS = json.load(open(f"{KIT}/sequences.json")) if os.path.exists(f"{KIT}/sequences.json") else []
ORDER = [
    "hostile-accepted",
    "crash",
    "valid-rejected",
    "replay-unstable",
    "output-unbounded",
    "timeout",
    "metamorphic-key-order",
    "mutation-on-rejection",
    "resource-exhaustion",
]


def cell(s: str, n: int) -> str:
    s = (
        "".join(
            ch if ch.isprintable() or ch == " " else f"\\u{ord(ch):04x}"
            for ch in " ".join(str(s).split())
        )
        .replace("|", "\\|")
        .replace("`", "'")
    )
    return s if len(s) <= n else s[: n - 1] + "…"


def main() -> None:
    label = sys.argv[1]
    res = f"{KIT}/results/{label}"
    findings = []
    for f in sorted(glob.glob(f"{res}/*/findings.jsonl")):
        findings += [json.loads(line) for line in open(f)]
    replays = {}
    if os.path.exists(f"{res}/replays.jsonl"):
        for line in open(f"{res}/replays.jsonl"):
            r = json.loads(line)
            replays[(r["fingerprint"], json.dumps(r["orig_input"], sort_keys=True))] = r

    per_class: dict[str, Counter] = {}
    per_server: dict[str, Counter] = {}
    groups: OrderedDict[tuple, dict] = OrderedDict()
    triples: dict[tuple, Counter] = {}
    for c in findings:
        v, g, reason = classify(c)
        per_class.setdefault(c["failure"], Counter())[v] += 1
        per_server.setdefault(c["server"], Counter())[v] += 1
        triples.setdefault((c["server"], c["tool"], c["failure"]), Counter())[v] += 1
        key = (c["server"], c["tool"], c["failure"], g)
        grp = groups.setdefault(
            key, {"n": 0, "verdict": v, "reason": reason, "sample": c, "replay": None}
        )
        grp["n"] += 1
        # fingerprints can be shared by counterexamples with different inputs: match both
        rp = replays.get((c["fingerprint"], json.dumps(c["input"], sort_keys=True)))
        if rp and grp["replay"] is None:
            grp["replay"], grp["sample"] = rp, c

    out = []
    p = out.append
    classes = sorted(per_class, key=lambda k: ORDER.index(k) if k in ORDER else 99)
    p("| failure class | real | debatable | false | findings |")
    p("|---|---|---|---|---|")
    tot = Counter()
    for k in classes:
        c = per_class[k]
        tot.update(c)
        p(f"| {k} | {c['real']} | {c['debatable']} | {c['false']} | {sum(c.values())} |")
    p(
        f"| **all** | **{tot['real']}** | **{tot['debatable']}** | **{tot['false']}** | **{sum(tot.values())}** |"
    )
    if tot["UNCLASSIFIED"]:
        p(f"\n**{tot['UNCLASSIFIED']} findings UNCLASSIFIED**: add rules to triage_rules.py.")
    p("")
    p("Distinct (server, tool, failure class) triples, by the verdicts of their findings:")
    p("")
    p("| failure class | triples | all real | all debatable | all false | mixed |")
    p("|---|---|---|---|---|---|")
    for k in classes:
        ts = [v for (s, t, f), v in triples.items() if f == k]

        def only(x, ts=ts):
            return sum(1 for v in ts if set(v) == {x})

        p(
            f"| {k} | {len(ts)} | {only('real')} | {only('debatable')} | {only('false')} | "
            f"{sum(1 for v in ts if len(v) > 1)} |"
        )
    p(f"| **all** | **{len(triples)}** | | | | |")
    p("")
    p("Per server (findings):")
    p("")
    p("| server | real | debatable | false | findings |")
    p("|---|---|---|---|---|")
    for s in sorted(per_server):
        c = per_server[s]
        p(f"| {s} | {c['real']} | {c['debatable']} | {c['false']} | {sum(c.values())} |")
    p("")
    p("## Every distinct finding, reproduced")
    p("")
    p(
        "One row per (server, tool, failure class, sub-kind); `n` counts the gate's counterexamples in "
        "it. *Replay* is what `replay.py --server NAME` (a fresh sandbox, raw JSON-RPC) answered for "
        "the sample input (`fresh:` when that shows the failure); a row marked † did not show it in a "
        "fresh sandbox and was replayed in a copy of the sandbox the run left behind (the state the "
        "fuzzing built); the results of `--repeat`-style replays are shown as the two answers."
    )
    p("")
    p("| server | tool | failure | n | sample input | replay | verdict | reason |")
    p("|---|---|---|---|---|---|---|---|")
    for (s, t, f, _g), grp in sorted(
        groups.items(),
        key=lambda kv: (
            ["real", "debatable", "false", "UNCLASSIFIED"].index(kv[1]["verdict"]),
            ORDER.index(kv[0][2]) if kv[0][2] in ORDER else 99,
            kv[0][0],
            kv[0][1],
        ),
    ):
        c, rp = grp["sample"], grp["replay"]
        inp = json.dumps(c["input"], ensure_ascii=False, sort_keys=True)
        if rp:
            if rp.get("reproduced_fresh"):
                rtxt = "fresh: " + " / ".join(rp["replay"])
            elif "replay_state" in rp:
                rtxt = (
                    "† run's state: "
                    + ("reproduced: " if rp.get("reproduced_state") else "NOT reproduced: ")
                    + " / ".join(rp["replay_state"])
                    + " ‖ fresh: "
                    + " / ".join(rp["replay"])
                )
            else:
                rtxt = "NOT reproduced, fresh: " + " / ".join(rp["replay"])
            if not rp.get("reproduced_fresh") and not rp.get("reproduced_state"):
                hits = [
                    q["id"] for q in SEQS if q["server"] == s and t in q["for"] and f in q["for"]
                ]
                if hits:
                    rtxt = f"reproduced by hand: sequence {', '.join(hits)} (below) ‖ " + rtxt
            if rp.get("elided_input_rebuilt"):
                rtxt = "(elided input rebuilt to its length) " + rtxt
        else:
            rtxt = "(not replayed)"
        p(
            f"| {s} | {t} | {f} | {grp['n']} | `{cell(inp, 70)}` | {cell(rtxt, 110)} | "
            f"**{grp['verdict']}** | {cell(grp['reason'], 260)} |"
        )
    print("\n".join(out))


if __name__ == "__main__":
    main()
