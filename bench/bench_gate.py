"""Benchmark: the whole gate, base and head, on a repository of ten tools (report only).

Copies `tests/fixtures/gate_speed/` into a temporary git repository (a base commit with
`base/` laid over it, then the head commit), and runs what a pull request's check runs:
`toolfuzz-gate run --policy policy.yml --baseline BASE --diagnostics` at the policy's
defaults (seed 41, 200 runs), in a subprocess, as a user would. The tools: eight of one MCP
server built with the official Python SDK, a `python:` handler and a `command` handler.

Prints the wall time and, summed over both sides' receipts (`--diagnostics` keeps the base's
in OUT/base), the cases, the handler calls per case, and the time in handler calls, process
starts, shrinking and confirming (`settleSeconds`), effect probes and timeouts, then each
tool's line. Needs the test extra (`pip install -e '.[test]'`) for the SDK.

    python bench/bench_gate.py [--repeat 3] [--runs N] [--jobs N] [--verbose] [--found FILE]

`--found FILE` writes each side's counterexamples (tool, failure class, path, fingerprint),
one per line, so two builds can be compared for finding the same ones; `--hashes FILE`
each receipt's `receiptHash`, so two runs can be compared for byte-identical receipts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "gate_speed"


def git(root: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *argv],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def fixture_repository(root: Path) -> str:
    """The fixture as a git repository at `root` (head checked out); the base commit's sha."""
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("base", "__pycache__"))
    policy = root / "policy.yml"
    policy.write_text(policy.read_text("utf-8").replace("PYTHON", json.dumps(sys.executable)))
    head = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}
    for layered in (FIXTURE / "base").rglob("*"):
        if layered.is_file():
            shutil.copy(layered, root / layered.relative_to(FIXTURE / "base"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    for path, content in head.items():
        path.write_bytes(content)
    git(root, "commit", "-q", "-am", "head")
    return base


def receipts(directory: Path) -> list[dict[str, Any]]:
    found = []
    for path in sorted(directory.glob("*.json")):
        document = json.loads(path.read_text("utf-8"))
        if isinstance(document, dict) and "receiptHash" in document:
            found.append(document)
    return found


def figures(documents: list[dict[str, Any]]) -> dict[str, float]:
    """The sums over `documents` of what the bench prints."""
    total: dict[str, float] = {"tools": 0, "cases": 0, "wall": 0.0, "settle": 0.0}
    for document in documents:
        total["tools"] += 1
        total["cases"] += sum(document.get("cases", {}).values())
        block = document.get("diagnostics", {})
        total["settle"] += block.get("settleSeconds", 0.0)
        profile = dict(block.get("profile", {}))
        total["wall"] += profile.pop("wallSeconds", 0.0)
        for bucket, spent in profile.items():
            total[f"{bucket}.count"] = total.get(f"{bucket}.count", 0) + spent["count"]
            total[f"{bucket}.seconds"] = total.get(f"{bucket}.seconds", 0.0) + spent["seconds"]
    return total


def found_lines(sides: dict[str, list[dict[str, Any]]]) -> list[str]:
    """One sorted line per counterexample of each side: side, tool, class, path, fingerprint."""
    lines = []
    for side, documents in sides.items():
        for document in documents:
            for example in document["counterexamples"]:
                fields = (side, document["tool"], example["failure"], example["path"])
                lines.append(" ".join((*fields, example["fingerprint"])) + "\n")
    return sorted(lines)


def run_gate(root: Path, base: str, out: Path, extra: list[str]) -> tuple[float, int, str]:
    argv = [sys.executable, "-m", "toolfuzz_gate", "run", "--policy", "policy.yml"]
    argv += ["--baseline", base, "--out", str(out), "--diagnostics", *extra]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True)
    return time.perf_counter() - started, done.returncode, done.stdout + done.stderr


def show(label: str, total: dict[str, float]) -> None:
    cases = total["cases"] or 1
    calls = total.get("calls.count", 0)
    print(
        f"  {label}: {total['tools']:.0f} tools, {total['cases']:,.0f} cases, "
        f"{calls / cases:.2f} calls/case, in tools {total['wall']:.1f} s: "
        f"handler calls {total.get('calls.seconds', 0):.1f} s ({calls:,.0f}), "
        f"process starts {total.get('starts.seconds', 0):.1f} s "
        f"({total.get('starts.count', 0):.0f}), "
        f"shrinking+confirming {total['settle']:.1f} s, "
        f"effect probes {total.get('effects.seconds', 0):.1f} s "
        f"({total.get('effects.count', 0):.0f}), "
        f"timeouts {total.get('timeouts.seconds', 0):.1f} s ({total.get('timeouts.count', 0):.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--runs", type=int, help="override the policy's runs (default: 200)")
    parser.add_argument("--jobs", type=int, help="pass --jobs N to the gate")
    parser.add_argument("--verbose", action="store_true", help="each tool's figures too")
    parser.add_argument("--found", type=Path, help="write the counterexamples found to FILE")
    parser.add_argument("--hashes", type=Path, help="write each receipt's hash to FILE")
    args = parser.parse_args()
    extra = [] if args.runs is None else ["--runs", str(args.runs)]
    extra += [] if args.jobs is None else ["--jobs", str(args.jobs)]
    walls = []
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as scratch:
        root = Path(scratch) / "repo"
        base = fixture_repository(root)
        for attempt in range(args.repeat):
            out = Path(scratch) / f"out-{attempt}"
            wall, code, printed = run_gate(root, base, out, extra)
            walls.append(wall)
            if code not in (0, 1):
                sys.exit(f"the gate exited {code}:\n{printed}")
            summary = json.loads((out / "summary.json").read_text("utf-8"))
            sides = {"head": receipts(out), "base": receipts(out / "base")}
            found = sum(len(document["counterexamples"]) for document in sides["head"])
            print(
                f"run {attempt + 1}: wall {wall:.1f} s, exit {code} "
                f"(verdict {summary.get('verdict')}), "
                f"{found} counterexamples on head"
            )
            if args.found is not None:
                args.found.write_text("".join(found_lines(sides)), "utf-8")
            if args.hashes is not None:
                hashes = [
                    f"{side} {document['tool']} {document['receiptHash']}\n"
                    for side, documents in sides.items()
                    for document in documents
                ]
                args.hashes.write_text("".join(sorted(hashes)), "utf-8")
            for side, documents in sides.items():
                show(side, figures(documents))
                if args.verbose:
                    for document in documents:
                        show(f"  {document['tool']}", figures([document]))
    if args.repeat > 1:
        print(f"wall: median {statistics.median(walls):.1f} s of {args.repeat}")


if __name__ == "__main__":
    main()
