#!/usr/bin/env python3
"""causes.py LABEL: findings before and after grouping by root cause, and reach, per server.

Reads results/LABEL/NAME/out/*.json (the receipts of a run_all.sh run) and groups them with the
gate's own `core.gate.causes.group_diff` (a diff against nothing: every finding is new), so a
run made before a change to grouping can be re-read with the checkout on PYTHONPATH.
Prints per server: counterexamples, root-cause groups, tools unreached, servers answering
rejections as successes, and valid calls reached / run and hostile calls rejected for the
schema's reason / run, summed over its tools; `--groups` lists each group.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolfuzz_gate.core.gate.causes import group_diff
from toolfuzz_gate.core.gate.receipt_diff import diff_receipts, receipt_keys

KIT = Path(__file__).resolve().parent


def main(label: str, show_groups: bool) -> None:
    total = [0, 0]
    print(
        "server\tcounterexamples\tgroups\tunreached\tanswering\tvalid reached\thostile for schema"
    )
    for out in sorted((KIT / "results" / label).glob("*/out")):
        receipts = [
            json.loads(path.read_text())
            for path in sorted(out.glob("*.json"))
            if path.name not in ("summary.json", "diff.json")
        ]
        receipts = [r for r in receipts if r.get("format") == "toolfuzz-receipt/1"]
        head = dict(zip(receipt_keys(receipts), receipts, strict=True))
        document = group_diff(diff_receipts({}, head), head)
        groups = document["groups"]["new"]
        count = sum(g["count"] for g in groups)
        reached = valid = schema = hostile = 0
        for receipt in receipts:
            reach = receipt.get("reach") or {}
            valid += reach.get("valid", {}).get("calls", 0)
            reached += reach.get("valid", {}).get("reached", 0)
            hostile += reach.get("hostile", {}).get("calls", 0)
            schema += reach.get("hostile", {}).get("rejectedForSchema", 0)
        unreached = ",".join(u["tool"] for u in document["unreached"]) or "-"
        answering = ",".join(a["server"] for a in document["answering"]) or "-"
        name = out.parent.name
        print(
            f"{name}\t{count}\t{len(groups)}\t{unreached}\t{answering}"
            f"\t{reached}/{valid}\t{schema}/{hostile}"
        )
        total[0] += count
        total[1] += len(groups)
        if show_groups:
            for group in groups:
                tools = ",".join(group["tools"])
                print(
                    f"  {group['count']:3d} {group['failure']} [{group['change']}] {tools}: "
                    f"{group['reason'][:140]}"
                )
    print(f"ALL\t{total[0]}\t{total[1]}")


if __name__ == "__main__":
    main(sys.argv[1], "--groups" in sys.argv[2:])
