"""Which contract checks apply to a tool, and who declared it (pure).

Defects (a crash, a timeout, an accepted hostile call, a commit on rejection, a dry run
that commits, a code outside a declared vocabulary) hold for every tool. Contract checks
hold only where the tool promises them, because a tool that creates things or a schema
that cannot say "the file must exist" breaks them by design:

* `replay`: the same call twice gives the same output; `key_order`: reordering the
  argument object's keys changes nothing. Both need a deterministic tool: one the MCP
  server annotates `readOnlyHint: true` or `idempotentHint: true`, or the policy's
  `deterministic: true`.
* `valid_accepted`: every schema-valid call succeeds. It needs a complete schema, the
  policy's `strict: true`. Without it a clean rejection of a schema-valid call is an
  under-specification note, not a counterexample.
* `read_only`: an accepted call commits nothing (as far as the effects source sees). It
  needs the server's `readOnlyHint: true`.
* `idempotent`: the same accepted call made again commits nothing more (as far as the
  effects source sees). It needs the server's `idempotentHint: true`: a deterministic
  output alone does not promise it (a tool that stores each render and answers the same).

The policy's `checks` switches override them all, one check at a time. The order of
precedence: a switch, then the policy's `deterministic`/`strict`, then the server's
annotations, then the default (off).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSONObject

CONTRACT_CHECKS = ("replay", "key_order", "valid_accepted", "read_only", "idempotent")
"""The checks a tool must declare; their invariants are named in `INVARIANT_OF`."""
INVARIANT_OF = {
    "replay": "replay-stable",
    "key_order": "key-order-invariant",
    "valid_accepted": "valid-accepted",
    "read_only": "read-only-commits-nothing",
    "idempotent": "idempotent",
}
DETERMINISTIC_HINTS = ("readOnlyHint", "idempotentHint")
"""MCP tool annotations that promise a deterministic tool."""

SERVER = "server"
POLICY = "policy"
DEFAULT = "default"


@dataclass(frozen=True)
class Decision:
    """Whether one contract check applies, who said so (`server`, `policy`, `default`)
    and in what words."""

    applies: bool
    declared_by: str
    reason: str

    def as_json(self) -> JSONObject:
        return {"applies": self.applies, "declaredBy": self.declared_by, "reason": self.reason}


_UNDECLARED = {
    "replay": Decision(False, DEFAULT, "the tool does not declare it deterministic"),
    "key_order": Decision(False, DEFAULT, "the tool does not declare it deterministic"),
    "valid_accepted": Decision(False, DEFAULT, "the schema is not declared complete (strict)"),
    "read_only": Decision(False, DEFAULT, "the tool does not declare it reads only"),
    "idempotent": Decision(False, DEFAULT, "the tool does not declare it idempotent"),
}


@dataclass(frozen=True)
class Checks:
    """The decision for each contract check (absent: off, by default)."""

    decisions: tuple[tuple[str, Decision], ...] = field(default=())

    @cached_property
    def _by_name(self) -> dict[str, Decision]:
        return dict(self.decisions)

    def decision(self, name: str) -> Decision:
        return self._by_name.get(name, _UNDECLARED[name])

    def applies(self, name: str) -> bool:
        return self.decision(name).applies

    def as_json(self) -> JSONObject:
        return {name: self.decision(name).as_json() for name in CONTRACT_CHECKS}

    def skipped_invariants(self) -> frozenset[str]:
        """The invariants of the checks that do not apply (left out of the ledger)."""
        return frozenset(INVARIANT_OF[n] for n in CONTRACT_CHECKS if not self.applies(n))


NO_CHECKS = Checks()
"""No contract check declared: each off, by default."""
ALL_CHECKS = Checks(
    tuple((name, Decision(True, POLICY, "every contract check")) for name in CONTRACT_CHECKS)
)
"""Every contract check on: for callers that hold a tool to everything (tests, the
built-in examples)."""


def resolve_checks(
    *,
    annotations: Mapping[str, Any] | None = None,
    deterministic: bool | None = None,
    strict: bool | None = None,
    switches: Mapping[str, bool] | None = None,
) -> Checks:
    """The decisions for a tool, from what its server and its policy declare."""
    decisions: dict[str, Decision] = {}
    hints = _deterministic_hints(annotations or {})
    for name in ("replay", "key_order"):
        if deterministic is not None:
            word = "true" if deterministic else "false"
            decisions[name] = Decision(deterministic, POLICY, f"deterministic: {word}")
        elif hints:
            decisions[name] = Decision(True, SERVER, f"annotations.{hints[0]}: true")
    if annotations and annotations.get("readOnlyHint") is True:
        decisions["read_only"] = Decision(True, SERVER, "annotations.readOnlyHint: true")
    if annotations and annotations.get("idempotentHint") is True:
        decisions["idempotent"] = Decision(True, SERVER, "annotations.idempotentHint: true")
    if strict is not None:
        word = "true" if strict else "false"
        decisions["valid_accepted"] = Decision(strict, POLICY, f"strict: {word}")
    for name, on in (switches or {}).items():
        decisions[name] = Decision(on, POLICY, f"checks.{name}: {'true' if on else 'false'}")
    return Checks(tuple((name, decisions[name]) for name in CONTRACT_CHECKS if name in decisions))


def declared_hints(annotations: Mapping[str, Any] | None) -> tuple[tuple[str, bool], ...]:
    """The boolean `...Hint` annotations a server declared, sorted by name: what the
    receipt's `annotations` records (`checks` records what was decided from them)."""
    return tuple(
        sorted(
            (hint, value)
            for hint, value in (annotations or {}).items()
            if isinstance(hint, str) and hint.endswith("Hint") and isinstance(value, bool)
        )
    )


def _deterministic_hints(annotations: Mapping[str, Any]) -> list[str]:
    return [hint for hint in DETERMINISTIC_HINTS if annotations.get(hint) is True]


def held_before_declared() -> Checks:
    """The checks a campaign held every tool to before checks were declared (a receipt
    without `checks`): all but `read_only` and `idempotent`."""
    return resolve_checks(deterministic=True, strict=True)
