"""What a user declares about one tool beyond its schema (pure data)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import cast

from toolfuzz_gate.core.campaign.checks import NO_CHECKS, Checks
from toolfuzz_gate.core.campaign.interface import NOTHING_DECLARED, DeclaredInterface
from toolfuzz_gate.core.campaign.output_schema import OutputSchema
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.values import json_equal
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES

MAX_CODE_LENGTH = 128


@dataclass(frozen=True)
class Fixture:
    """A file or directory laid in the handler's working directory before the tool runs:
    `name`, the path an argument gets (relative to that directory), and the sha256 of what
    was laid (`edges.handlers.workspace.fixture_digest`)."""

    name: str
    sha256: str


@dataclass(frozen=True)
class ToolSpec:
    """The tool's promises that the invariants hold it to.

    `expected_rejections`: codes a schema-valid call may legitimately get (business
    rules the schema cannot express). `error_codes`: a regular expression every
    rejection code must match (the closed vocabulary). `dry_run`: a boolean
    argument that, when true, must not commit anything. `fixed`: (JSON Pointer, value)
    pairs every call carries unchanged, for arguments bound to the environment (the
    repository a git tool may touch): valid cases get them after generation, and a
    near-miss, probe or shrinking step that would change one is not made. `checks`: which
    contract checks apply (`core.campaign.checks`; by default none). `output_schema`: the
    MCP server's declared `outputSchema`, when it declares one. `rejection_code`: a regular
    expression whose `code` group names the code of a rejection the handler did not code
    (`core.campaign.rejection_code`). `annotations`: the boolean hints the MCP server
    declared (`checks.declared_hints`), recorded as they were said.
    """

    name: str
    expected_rejections: tuple[str, ...] = ()
    error_codes: str | None = None
    dry_run: str | None = None
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    ignore_output: tuple[str, ...] = ()
    fixed: tuple[tuple[str, JSON], ...] = ()
    checks: Checks = NO_CHECKS
    output_schema: OutputSchema | None = None
    rejection_code: str | None = None
    rejection_answer: str | None = None
    """A regular expression over an accepted call's answer: where it matches, the call was
    a rejection (`core.campaign.rejection_code.read_answer`)."""
    annotations: tuple[tuple[str, bool], ...] = ()
    interface: DeclaredInterface = NOTHING_DECLARED
    """Its description, declared output schema and task support, for the receipt's
    `interface` (`core.campaign.interface`)."""
    fixtures: tuple[tuple[str, tuple[Fixture, ...]], ...] = ()
    """(JSON Pointer, fixtures): each valid case's argument at the pointer names one of the
    fixtures, in turn by case index; like a fixed argument, no near-miss, probe or
    shrinking step changes it to anything else."""
    confined: bool = False
    """The handler runs confined to a root whose surroundings are watched (`sandbox`): the
    `writes-inside-root` invariant applies."""

    @cached_property
    def _vocabulary(self) -> re.Pattern[str] | None:
        return re.compile(self.error_codes) if self.error_codes else None

    @cached_property
    def rejection_pattern(self) -> re.Pattern[str] | None:
        return re.compile(self.rejection_code) if self.rejection_code else None

    @cached_property
    def answer_pattern(self) -> re.Pattern[str] | None:
        return re.compile(self.rejection_answer) if self.rejection_answer else None

    def skipped_invariants(self) -> frozenset[str]:
        """The invariants nothing is claimed about: the contract checks that do not apply,
        and the output schema's when none is applied."""
        skipped = self.checks.skipped_invariants()
        if not self.confined:
            skipped |= {"writes-inside-root"}
        if self.output_schema is None or not self.output_schema.applied:
            skipped |= {"output-schema-valid"}
        return skipped

    def code_in_vocabulary(self, code: str | None) -> bool:
        pattern = self._vocabulary
        if pattern is None:
            return True
        if code is None or len(code) > MAX_CODE_LENGTH:
            return False
        return pattern.search(code) is not None

    def with_fixed(self, value: JSON) -> JSON:
        """`value` with every fixed argument set."""
        for pointer, fixed in self.fixed:
            value = cast(JSON, jp.with_member(value, pointer, fixed))
        return value

    def with_fixtures(self, value: JSON, index: int) -> JSON:
        """`value` with each fixture argument naming its fixture for case `index`."""
        for pointer, laid in self.fixtures:
            value = cast(JSON, jp.with_member(value, pointer, laid[index % len(laid)].name))
        return value

    def keeps_fixed(self, value: JSON) -> bool:
        """Whether `value` carries every fixed argument as fixed, and names a fixture at
        every fixture argument."""
        for pointer, fixed in self.fixed:
            found = jp.member_at(value, pointer)
            if found is jp.MISSING or not json_equal(cast(JSON, found), fixed):
                return False
        for pointer, laid in self.fixtures:
            found = jp.member_at(value, pointer)
            if not any(found == fixture.name for fixture in laid):
                return False
        return True

    def fixtures_json(self) -> JSONObject:
        """The fixtures as the receipt records them: pointer -> [{name, sha256}]."""
        return {
            pointer: [{"name": item.name, "sha256": item.sha256} for item in laid]
            for pointer, laid in self.fixtures
        }

    def annotations_json(self) -> JSONObject:
        """The receipt's `annotations`: hint -> the boolean the server declared."""
        return dict(self.annotations)

    def fixed_json(self) -> JSONObject:
        """The fixed arguments as the receipt records them: pointer -> value."""
        return dict(self.fixed)
