"""One executed case and what was observed when running it (pure data)."""

from __future__ import annotations

from dataclasses import dataclass

from toolfuzz_gate.core.campaign.findings import InputKind
from toolfuzz_gate.core.campaign.outcome import Outcome
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


@dataclass(frozen=True)
class Case:
    """An input with where it came from.

    `family` is `valid`, a mutation family, or `seam`; `label` names the operator
    or probe; `valid` is the oracle's verdict (always true for valid cases, false
    for confirmed mutants, either for probes). `stream` and `index` regenerate it.
    """

    kind: InputKind
    family: str
    path: str
    input: JSON
    index: int
    stream: str
    valid: bool
    keyword: str = ""
    label: str = ""
    site: tuple[str, str] | None = None
    """Where the oracle sees a hostile case fail when that is not (keyword, path): the
    enclosing `anyOf`/`oneOf` of a near-miss made inside one of its branches."""
    requires: str = ""
    """What the broken keyword required, in words (`core.engine.requirement`)."""

    @property
    def expected(self) -> tuple[str, str]:
        """The (keyword, path) a hostile case fails at, and nowhere else."""
        return self.site or (self.keyword, self.path)

    @property
    def mutation(self) -> str:
        return f"seam:{self.label}" if self.kind is InputKind.SEAM else self.family

    def record(self, outcome: JSONObject) -> JSONObject:
        """The audit line written to `--cases`."""
        return {
            "family": self.family,
            "path": self.path,
            "label": self.label,
            "input": self.input,
            "outcome": outcome,
        }


@dataclass(frozen=True)
class Observation:
    """A case's outcome, plus the replay and key-reordered calls for accepted valid input."""

    case: Case
    outcome: Outcome | None
    """None when the case was never run (the oracle disagreed with the generator)."""
    replay: Outcome | None = None
    reordered: Outcome | None = None
