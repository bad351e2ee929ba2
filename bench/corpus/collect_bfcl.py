"""Collect a sample of BFCL function definitions as "dialect" schemas (run by hand; reads files).

The Berkeley Function-Calling Leaderboard data ships inside the `bfcl-eval` wheel.
Its `parameters` objects look like JSON Schema but are not (`"type": "dict"`,
`"float"`, `"tuple"`, `"any"`, ...), so they are stored with kind "dialect" and
measured apart. The sample is deterministic: evenly spaced entries of a few
question files (the first function of each) and the first functions of each
multi-turn API document. Unpack the wheel without installing its dependencies:

    pip download --no-deps bfcl-eval -d /tmp/corpus/bfcl
    unzip -q /tmp/corpus/bfcl/bfcl_eval-*.whl -d /tmp/corpus/bfcl/x
    python3 bench/corpus/collect_bfcl.py /tmp/corpus/bfcl/x
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store import Collected, store_source

QUESTION_FILES = (
    "BFCL_v4_simple_python.json",
    "BFCL_v4_simple_java.json",
    "BFCL_v4_simple_javascript.json",
    "BFCL_v4_multiple.json",
    "BFCL_v4_live_simple.json",
    "BFCL_v4_live_multiple.json",
)
PER_QUESTION_FILE = 6
PER_API_DOCUMENT = 2


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("unpacked", type=Path, help="the unpacked bfcl-eval wheel")
    args = parser.parse_args()
    data = args.unpacked / "bfcl_eval" / "data"
    info = next(args.unpacked.glob("bfcl_eval-*.dist-info"))
    version = info.name.removeprefix("bfcl_eval-").removesuffix(".dist-info")
    functions: list[dict[str, Any]] = []
    for name in QUESTION_FILES:
        entries = read_lines(data / name)
        step = max(1, len(entries) // PER_QUESTION_FILE)
        functions += [entry["function"][0] for entry in entries[::step][:PER_QUESTION_FILE]]
    for document in sorted((data / "multi_turn_func_doc").glob("*.json")):
        functions += read_lines(document)[:PER_API_DOCUMENT]
    collected: list[Collected] = []
    seen: set[str] = set()
    for function in functions:
        key = json.dumps([function["name"], function["parameters"]], sort_keys=True)
        if key not in seen:  # the live files repeat the same function across entries
            seen.add(key)
            collected.append(
                Collected(
                    function["name"],
                    function["parameters"],
                    "bfcl-eval",
                    version,
                    "dialect",
                    "bfcl",
                )
            )
    store_source("bfcl", collected)


if __name__ == "__main__":
    main()
