"""Stored inputs replayed on a policy's own handlers, each judged as `replay` judges a case
(application). Three steps of a gated run do it:

* **The regression corpus**, before any fuzzing (`replay_corpus`): each case on its tool's
  handler with the run's options, its input re-judged under the tool's current schema (a
  case whose input changed sides is `stale`). A case for a tool the policy no longer has is
  reported and ignored; the cases of a tool whose handler cannot be used are reported as not
  run, and the other tools' cases are replayed (the fuzzing step refuses that tool, which
  fails the gate by default).
* **The other side, asked before the diff says "new" or "fixed"** (issue 11,
  `reproduced_on`): a counterexample only one side's receipt holds is replayed, as its
  minimized input, on the other side's handler. A head counterexample the base fails the
  same way (same failure class at the same path) was not introduced by the pull request, and
  a base counterexample the head still fails was not fixed; the answers feed
  `core.gate.receipt_diff.Reproduced`. An input that cannot be replayed faithfully (elided in
  the receipt, an engine disagreement, valid on one side and not the other) or a tool whose
  handler does not start keeps the fingerprint's answer.
* **Breaking interface changes tried on head's handler** (`with_head_sample`): for a sample
  of them, the example call base's schema accepts and head's refuses is sent to head's own
  handler, and what it did (accepted, rejected with a code, crashed, timed out) goes into the
  entry's evidence as `onHead`. The schema says a call breaks; the handler shows whether it
  really does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO, cast

from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.tool_setup import Listings, ReplaySetup, replay_setup
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, Unmatched
from toolfuzz_gate.core.gate.regression import (
    STILL_FAILING,
    RegressionCase,
    Replayed,
    build_case,
    parse_case,
    render_replayed,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.case_replay import replay_cases
from toolfuzz_gate.edges.corpus import StoredCase, load_corpus
from toolfuzz_gate.edges.handlers.registry import build_handler
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import HandlerError, ToolfuzzError

SAMPLE = 5
"""Breaking entries whose example call is sent to head's handler, per run."""


class PolicyTools:
    """A policy's tools by name (whole entries expanded), each set up for replay with the
    run's `overrides` applied to its options; each MCP server is asked for its tools once,
    for the expansion and every setup alike."""

    def __init__(self, loaded: LoadedPolicy, overrides: Mapping[str, Any] | None = None) -> None:
        self.loaded = loaded
        self.overrides = dict(overrides or {})
        self._listings: Listings = {}
        self.named = {tool.name: tool for tool in policy_tools(loaded, self._listings)}

    def setup(self, tool: ToolPolicy) -> ReplaySetup:
        """The tool's handler, contract and judge (`HandlerError` when its MCP server does
        not start or lists no such tool)."""
        options = replace(tool.options, **self.overrides)
        return replay_setup(tool, options, self.loaded, self._listings)


@dataclass(frozen=True)
class CorpusRun:
    replayed: list[Replayed]
    files: list[str]
    """The case file of each of `replayed`, relative to the corpus."""
    ignored: list[StoredCase]
    unrun: list[StoredCase] = field(default_factory=list)
    """Cases of tools whose handler could not be used."""

    def summary(self) -> list[JSON]:
        """`summary.json`'s `regressions`: one entry per case file, sorted by file."""
        rows = [
            (file, item.case.tool, item.case.fingerprint, item.outcome)
            for file, item in zip(self.files, self.replayed, strict=True)
        ]
        rows += [(s.file, s.case.tool, s.case.fingerprint, "ignored") for s in self.ignored]
        rows += [(s.file, s.case.tool, s.case.fingerprint, "not-run") for s in self.unrun]
        return [
            {"file": file, "tool": tool, "fingerprint": fingerprint, "outcome": outcome}
            for file, tool, fingerprint, outcome in sorted(rows)
        ]


def replay_corpus(loaded: LoadedPolicy, overrides: Mapping[str, Any], out: TextIO) -> CorpusRun:
    """Replay every case of the policy's corpus (none without `corpus:`), printing each."""
    if loaded.policy.corpus is None:
        return CorpusRun([], [], [])
    stored = load_corpus(Path(loaded.policy.corpus), dict(loaded.base_corpus))
    tools = PolicyTools(loaded, overrides)
    ignored = [item for item in stored if item.case.tool not in tools.named]
    replayed: list[Replayed] = []
    files: list[str] = []
    unrun: list[StoredCase] = []
    notes: list[str] = []
    for name, tool in tools.named.items():
        mine = [item for item in stored if item.case.tool == name]
        if not mine:
            continue
        try:
            setup = tools.setup(tool)
            cases = [item.case for item in mine]
            results = replay_cases(setup.handler, setup.spec, cases, setup.judge)
        except HandlerError as error:
            unrun += mine
            notes.append(f"  not run: {len(mine)} case(s) of tool {name!r}: {error.message}")
            continue
        replayed += results
        files += [item.file for item in mine]
    if stored:
        print(f"corpus: {len(stored)} case(s) in {loaded.policy.corpus}", file=out)
    for file, item in zip(files, replayed, strict=True):
        print(f"  {render_replayed(item, file)}", file=out)
    for note in notes:
        print(note, file=out)
    for orphan in ignored:
        tool_name = orphan.case.tool
        print(f"  ignored: {orphan.file} is for tool {tool_name!r}, not in the policy", file=out)
    return CorpusRun(replayed, files, ignored, unrun)


def reproduced_on(
    loaded: LoadedPolicy,
    overrides: Mapping[str, Any],
    receipts: ReceiptSet,
    wanted: Unmatched,
) -> frozenset[tuple[str, str]]:
    """(key, fingerprint) of each `wanted` counterexample of `receipts` that the tool of
    the same name in `loaded` fails the same way."""
    tools = PolicyTools(loaded, overrides)
    failing: set[tuple[str, str]] = set()
    for key, examples in sorted(wanted.items()):
        receipt = receipts.receipts[key]
        tool = tools.named.get(receipt.tool)
        cases = [case for case in (_case(receipt, cx) for cx in examples) if case is not None]
        if tool is None or not cases:
            continue
        try:
            setup = tools.setup(tool)
            results = replay_cases(setup.handler, setup.spec, cases, setup.judge)
        except ToolfuzzError:
            continue  # the handler does not start here: the fingerprints decide
        failing |= {(key, r.case.fingerprint) for r in results if r.outcome == STILL_FAILING}
    return frozenset(failing)


def _case(receipt: Receipt, example: RecordedCounterexample) -> RegressionCase | None:
    try:
        return parse_case(build_case(receipt, example))
    except (ToolfuzzError, ValueError):
        return None


def with_head_sample(
    document: JSONObject, loaded: LoadedPolicy, overrides: Mapping[str, Any]
) -> JSONObject:
    """`document` with `evidence.onHead` on the first `SAMPLE` breaking input changes that
    carry an example call (a tool head's policy has and its handler starts)."""
    entries = document.get("interface")
    if not isinstance(entries, list):
        return document
    picked = [
        index
        for index, entry in enumerate(entries)
        if isinstance(entry, dict)
        and entry.get("breaking") is True
        and isinstance(entry.get("evidence"), dict)
        and cast(dict[str, Any], entry["evidence"]).get("call") is not None
        and entry.get("change") != "tool-removed"
    ][:SAMPLE]
    if not picked:
        return document
    tools = PolicyTools(loaded, overrides)
    shown = list(entries)
    for index in picked:
        entry = cast(dict[str, Any], entries[index])
        tool = tools.named.get(str(entry["tool"]))
        if tool is None:
            continue
        call = entry["evidence"]["call"]
        try:
            setup = tools.setup(tool)
            with build_handler(setup.handler) as running:
                outcome = running.call(cast(JSONObject, setup.spec.with_fixed(call)))
        except ToolfuzzError:
            continue  # the handler does not start here: the schema's word stands
        on_head: JSON = {"outcome": outcome.kind.value, "code": outcome.error_code}
        shown[index] = {**entry, "evidence": {**entry["evidence"], "onHead": on_head}}
    return {**document, "interface": shown}
