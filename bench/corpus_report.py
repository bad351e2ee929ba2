"""Report: how much of the real-world tool schema corpus the engine compiles and fuzzes cleanly.

For every schema listed in `tests/data/corpus/MANIFEST.json`: compile it; for each
that compiles, fuzz it in process (default 50 runs, seed 41) against a handler
that accepts every call and returns a constant, and count `oracle-disagreement`
findings (the engine's generator or its hot oracle disagreeing with the
`jsonschema` library: an engine bug). The permissive handler makes every
confirmed hostile case a finding, so the shrinker and the reference re-check
run on each. Prints the share compiled (overall and of the "standard"
schemas), the refusal reasons by problem code and keyword, the schemas with
disagreements, and the elapsed time. Run by hand or by CI as a report; it
asserts nothing (tests/test_corpus.py holds the properties that must hold).

Then it runs the corpus again the way a user would: each source's schemas as one tools
file (per dialect), through `toolfuzz-gate fuzz --tools` with a handler that accepts every
call (`corpus_accept.py`, in a worker process). One tool's problem must not stop the
others, so every tool gets a receipt, and each tool's figures (fuzzed or refused, the
refusal codes, oracle disagreements) must agree with the one-by-one run; the report says
whether they do and lists any tool where they do not.

    PYTHONPATH=src python bench/corpus_report.py [--runs 50] [--seed 41] [--json]
        [--format-assertion] [--source NAME ...] [--one-by-one-only] [--pending]

`--pending` measures the schemas of `tests/data/corpus/pending.json` too: real schemas kept
out of the manifest while an engine bug they show is fixed.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolfuzz_gate.cli import run as run_cli
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_read import read_receipt
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.schema.dialects import normalize
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import SchemaError

BENCH = Path(__file__).resolve().parent
CORPUS = BENCH.parent / "tests" / "data" / "corpus"
ANSWER: JSONObject = {"ok": True}


class AcceptEverything:
    """A handler that accepts every call with the same output."""

    def __init__(self) -> None:
        self.answer_digest, self.answer_bytes = digest_and_size(ANSWER)

    def call(self, arguments: JSONObject) -> Outcome:
        return Outcome(
            OutcomeKind.ACCEPTED, output_digest=self.answer_digest, output_bytes=self.answer_bytes
        )


@dataclass
class Row:
    """What happened to one corpus schema."""

    file: str
    source: str
    package: str
    kind: str
    dialect: str | None
    compiled: bool = False
    fuzzed: bool = False
    problems: list[tuple[str, str]] = field(default_factory=list)
    """(code, keyword) of each refusal problem, in the compiler's order."""
    disagreements: int = 0
    mutants: Counter[str] = field(default_factory=Counter)
    """Hostile mutants generated / confirmed / discarded over all families."""
    crash: str | None = None
    """An exception other than `SchemaError`: an engine bug."""
    seconds: float = 0.0

    def reasons(self) -> list[str]:
        """The distinct refusal reasons, as "code keyword"."""
        return sorted({f"{code} {keyword}".strip() for code, keyword in self.problems})


def measure(
    entry: dict[str, Any], runs: int, seed: int, options: SchemaOptions, read_dialects: bool
) -> Row:
    row = Row(entry["file"], entry["source"], entry["package"], entry["kind"], entry["dialect"])
    document = json.loads((CORPUS / entry["file"]).read_text())
    started = time.perf_counter()
    dialect = entry["dialect"] if read_dialects else None
    try:
        document = normalize(document, dialect)[0] if dialect else document
        compile_schema(document, options=options)
        row.compiled = True
        result = fuzz(
            document,
            AcceptEverything(),
            ToolSpec(entry["tool"]),
            FuzzConfig(seed, runs, options=options),
            handler_label={"spec": "corpus:accept-everything"},
            replay_command="corpus-report",
        )
        row.fuzzed = True
        for counts in result.receipt.mutation_counts.values():
            assert isinstance(counts, dict)
            row.mutants.update({name: int(n) for name, n in counts.items()})  # type: ignore[arg-type]
        row.disagreements = sum(
            1 for c in result.counterexamples if c.finding.failure is Failure.ORACLE_DISAGREEMENT
        )
    except SchemaError as error:
        # A schema that compiles can still be refused by fuzz (a root that is not an object).
        row.problems = [(p.code, p.keyword) for p in error.problems]
    except Exception as error:  # an engine bug: recorded, so one does not hide the others
        row.crash = f"{type(error).__name__}: {error}"[:300]
    row.seconds = time.perf_counter() - started
    return row


def figures(row: Row) -> JSONObject:
    """What the two ways of running a tool must agree on."""
    return {
        "fuzzed": row.fuzzed,
        "refused": sorted({code for code, _ in row.problems}),
        "disagreements": row.disagreements,
    }


def run_tools_files(
    entries: list[dict[str, Any]],
    rows: list[Row],
    runs: int,
    seed: int,
    options: SchemaOptions,
    read_dialects: bool,
) -> dict[str, Any]:
    """Each source's schemas as one tools file, fuzzed with `fuzz --tools`; per tool, the
    figures the one-by-one `rows` have, compared."""
    groups: dict[tuple[str, str | None], list[tuple[dict[str, Any], Row]]] = {}
    for entry, row in zip(entries, rows, strict=True):
        dialect = entry["dialect"] if read_dialects else None
        groups.setdefault((entry["source"], dialect), []).append((entry, row))
    files: list[JSONObject] = []
    disagree: list[JSONObject] = []
    fuzzed = tools = 0
    for (source, dialect), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        with tempfile.TemporaryDirectory(prefix="toolfuzz-corpus-") as directory:
            tools_file, out = Path(directory) / "tools.json", Path(directory) / "out"
            declared = [
                {
                    "name": f"t{index:04d}",  # corpus tool names repeat across packages
                    "description": entry["file"],
                    "inputSchema": json.loads((CORPUS / entry["file"]).read_text()),
                }
                for index, (entry, _) in enumerate(members)
            ]
            tools_file.write_text(json.dumps({"tools": declared}))
            argv = ["fuzz", "--tools", str(tools_file), "--handler", "python:corpus_accept:accept"]
            argv += ["--cwd", str(BENCH), "--runs", str(runs), "--seed", str(seed)]
            argv += ["--out", str(out)] + (["--dialect", dialect] if dialect else [])
            argv += ["--format-assertion"] if options.format_assertion else []
            stdout, stderr = io.StringIO(), io.StringIO()
            code = run_cli(argv, stdout, stderr)
            files.append(
                {"source": source, "dialect": dialect, "tools": len(members), "exit": code}
            )
            for index, (entry, row) in enumerate(members):
                receipt_path = out / f"t{index:04d}.json"
                tools += 1
                if not receipt_path.exists():
                    disagree.append({"file": entry["file"], "toolsFile": "no receipt"})
                    continue
                receipt = read_receipt(json.loads(receipt_path.read_text()))
                seen = {
                    "fuzzed": receipt.refused is None,
                    "refused": receipt.refusal_codes,
                    "disagreements": sum(
                        1
                        for c in receipt.counterexamples
                        if c.failure == Failure.ORACLE_DISAGREEMENT.value
                    ),
                }
                fuzzed += bool(seen["fuzzed"])
                if seen != figures(row):
                    disagree.append(
                        {"file": entry["file"], "oneByOne": figures(row), "toolsFile": seen}
                    )
    return {"files": files, "tools": tools, "fuzzed": fuzzed, "disagree": disagree}


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def summarize(
    rows: list[Row],
    runs: int,
    seed: int,
    options: SchemaOptions,
    elapsed: float,
    read_dialects: bool,
) -> dict[str, Any]:
    standard = [r for r in rows if r.kind == "standard"]
    readable = [r for r in rows if r.kind == "dialect" and r.dialect is not None]
    refused = [r for r in rows if not r.fuzzed and r.crash is None]
    by_reason: Counter[str] = Counter()
    schemas_by_reason: Counter[str] = Counter()
    for row in refused:
        by_reason.update(f"{code} {keyword}".strip() for code, keyword in row.problems)
        schemas_by_reason.update(row.reasons())
    by_source: dict[str, dict[str, int]] = {}
    by_package: dict[str, dict[str, int]] = {}
    for row in rows:
        for table, key in ((by_source, row.source), (by_package, row.package)):
            counts = table.setdefault(key, {"total": 0, "fuzzed": 0})
            counts["total"] += 1
            counts["fuzzed"] += row.fuzzed
    slowest = max(rows, key=lambda r: r.seconds) if rows else None
    return {
        "runs": runs,
        "seed": seed,
        "formatAssertion": options.format_assertion,
        "total": len(rows),
        "standard": len(standard),
        "dialect": len(rows) - len(standard),
        "compiled": sum(r.compiled for r in rows),
        "fuzzed": sum(r.fuzzed for r in rows),
        "standardCompiled": sum(r.compiled for r in standard),
        "standardFuzzed": sum(r.fuzzed for r in standard),
        "dialectsRead": read_dialects,
        "dialectNamed": len(readable),
        "dialectFuzzed": sum(r.fuzzed for r in readable),
        "bySource": by_source,
        "byPackage": by_package,
        "refusalReasons": [
            {"reason": reason, "schemas": schemas_by_reason[reason], "occurrences": count}
            for reason, count in sorted(
                by_reason.items(), key=lambda kv: (-schemas_by_reason[kv[0]], -kv[1], kv[0])
            )
        ],
        "standardRefusalReasons": dict(
            Counter(
                reason for r in refused if r.kind == "standard" for reason in r.reasons()
            ).most_common()
        ),
        # What exactly stands between each refused standard schema and a fuzz run: the
        # schemas that one keyword (or one set of them) would unlock.
        "standardBlockers": dict(
            Counter(" + ".join(r.reasons()) for r in refused if r.kind == "standard").most_common()
        ),
        "mutants": dict(sum((r.mutants for r in rows), Counter[str]())),
        "refused": {r.file: r.reasons() for r in refused},
        "disagreements": {r.file: r.disagreements for r in rows if r.disagreements},
        "crashes": {r.file: r.crash for r in rows if r.crash},
        "slowest": {"file": slowest.file, "seconds": round(slowest.seconds, 2)}
        if slowest
        else None,
        "elapsedSeconds": round(elapsed, 1),
    }


def render(summary: dict[str, Any]) -> str:
    s = summary
    lines = [
        f"corpus: {s['total']} schemas ({s['standard']} standard, {s['dialect']} dialect); "
        f"fuzzed at {s['runs']} runs, seed {s['seed']}"
        + (", format asserted" if s["formatAssertion"] else ""),
        f"compiled: {share(s['compiled'], s['total'])} overall, "
        f"{share(s['standardCompiled'], s['standard'])} of standard",
        f"fuzzed (compiled and an object root): {share(s['fuzzed'], s['total'])} overall, "
        f"{share(s['standardFuzzed'], s['standard'])} of standard",
        (
            "dialect schemas read with their --dialect: "
            f"{share(s['dialectFuzzed'], s['dialectNamed'])} fuzzed "
            f"({s['dialect'] - s['dialectNamed']} use types no dialect reads)"
            if s["dialectsRead"]
            else "dialect schemas read as plain JSON Schema (--without-dialects)"
        ),
        "by source (fuzzed/total): "
        + ", ".join(f"{k} {v['fuzzed']}/{v['total']}" for k, v in sorted(s["bySource"].items())),
        "refusal reasons (schemas refused for it, occurrences), most frequent first:",
    ]
    lines += [
        f"  {r['schemas']:4d} {r['occurrences']:5d}  {r['reason']}" for r in s["refusalReasons"]
    ]
    lines.append("refusal reasons of standard schemas (schemas):")
    lines += [f"  {n:4d}  {reason}" for reason, n in s["standardRefusalReasons"].items()]
    lines.append("what blocks each refused standard schema, exactly (schemas):")
    lines += [f"  {n:4d}  {blockers}" for blockers, n in s["standardBlockers"].items()]
    m = s["mutants"]
    lines.append(
        f"hostile mutants: {m.get('generated', 0)} generated, {m.get('confirmed', 0)} confirmed, "
        f"{m.get('discarded', 0)} discarded (not failing exactly at their keyword and path), "
        f"{m.get('inapplicable', 0)} inapplicable"
    )
    lines.append(f"schemas with oracle disagreements: {len(s['disagreements'])}")
    lines += [f"  {file}: {n}" for file, n in sorted(s["disagreements"].items())]
    lines.append(f"engine crashes (not SchemaError): {len(s['crashes'])}")
    lines += [f"  {file}: {why}" for file, why in sorted(s["crashes"].items())]
    if s["slowest"]:
        lines.append(f"slowest: {s['slowest']['file']} ({s['slowest']['seconds']}s)")
    lines.append(f"elapsed: {s['elapsedSeconds']}s")
    together = s.get("toolsFiles")
    if together is not None:
        stopped = [f for f in together["files"] if f["exit"] not in (0, 1)]
        lines.append(
            f"as one tools file per source ({len(together['files'])} files, fuzz --tools): "
            f"{share(together['fuzzed'], together['tools'])} fuzzed, "
            f"{len(stopped)} file(s) stopped; "
            + (
                "every tool's figures agree with the one-by-one run"
                if not together["disagree"]
                else f"{len(together['disagree'])} tool(s) disagree with the one-by-one run:"
            )
        )
        lines += [f"  stopped: {f['source']} (exit {f['exit']})" for f in stopped]
        lines += [f"  {json.dumps(item, sort_keys=True)}" for item in together["disagree"]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument(
        "--format-assertion", action="store_true", help="read `format` as a constraint"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--source", action="append", default=[], help="only this source (repeatable)"
    )
    parser.add_argument(
        "--one-by-one-only",
        action="store_true",
        help="skip running each source's schemas as one tools file",
    )
    parser.add_argument(
        "--without-dialects",
        action="store_true",
        help="read dialect schemas as plain JSON Schema instead of with their --dialect",
    )
    parser.add_argument(
        "--pending",
        action="store_true",
        help="measure the schemas of pending.json too (kept out of the manifest for a bug)",
    )
    args = parser.parse_args()
    read_dialects = not args.without_dialects
    options = SchemaOptions(format_assertion=args.format_assertion)
    rows = json.loads((CORPUS / "MANIFEST.json").read_text())["schemas"]
    pending = CORPUS / "pending.json"
    if args.pending and pending.exists():
        rows += json.loads(pending.read_text())["schemas"]
    entries = [e for e in rows if not args.source or e["source"] in args.source]
    started = time.perf_counter()
    rows = [measure(entry, args.runs, args.seed, options, read_dialects) for entry in entries]
    elapsed = time.perf_counter() - started
    summary = summarize(rows, args.runs, args.seed, options, elapsed, read_dialects)
    if not args.one_by_one_only:
        summary["toolsFiles"] = run_tools_files(
            entries, rows, args.runs, args.seed, options, read_dialects
        )
    sys.stdout.write((json.dumps(summary, indent=1) if args.json else render(summary)) + "\n")


if __name__ == "__main__":
    main()
