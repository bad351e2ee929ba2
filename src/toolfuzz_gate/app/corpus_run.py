"""A policy run's first step: replay the policy's regression corpus before any fuzzing.

Cases are replayed per tool against the tool's policy handler, with the run's options,
and their inputs re-judged under the tool's current schema (a case whose input changed
sides is `stale`). A case for a tool the policy no longer has is reported and ignored. The
cases of a tool whose handler cannot be used are reported as not run, and the other tools'
cases are replayed (the fuzzing step refuses that tool, which fails the gate by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.tool_setup import Listings, replay_setup
from toolfuzz_gate.core.gate.regression import Replayed, render_replayed
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.edges.case_replay import replay_cases
from toolfuzz_gate.edges.corpus import StoredCase, load_corpus
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import HandlerError


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
    stored = load_corpus(Path(loaded.policy.corpus))
    listings: Listings = {}
    tools = {tool.name: tool for tool in policy_tools(loaded, listings)}
    ignored = [item for item in stored if item.case.tool not in tools]
    replayed: list[Replayed] = []
    files: list[str] = []
    unrun: list[StoredCase] = []
    notes: list[str] = []
    for name, tool in tools.items():
        mine = [item for item in stored if item.case.tool == name]
        if not mine:
            continue
        options = replace(tool.options, **overrides)
        try:
            setup = replay_setup(tool, options, loaded, listings)
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
