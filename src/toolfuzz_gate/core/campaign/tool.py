"""What a user declares about one tool beyond its schema (pure data)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from toolfuzz_gate.core.campaign.checks import NO_CHECKS, Checks

MAX_CODE_LENGTH = 128


@dataclass(frozen=True)
class ToolSpec:
    """The tool's promises that the invariants hold it to.

    `expected_rejections`: codes a schema-valid call may legitimately get (business
    rules the schema cannot express). `error_codes`: a regular expression every
    rejection code must match (the closed vocabulary). `dry_run`: a boolean
    argument that, when true, must not commit anything. `checks`: which contract
    checks apply (`core.campaign.checks`; by default none).
    """

    name: str
    expected_rejections: tuple[str, ...] = ()
    error_codes: str | None = None
    dry_run: str | None = None
    max_output_bytes: int = 65536
    checks: Checks = NO_CHECKS

    @cached_property
    def _vocabulary(self) -> re.Pattern[str] | None:
        return re.compile(self.error_codes) if self.error_codes else None

    def code_in_vocabulary(self, code: str | None) -> bool:
        pattern = self._vocabulary
        if pattern is None:
            return True
        if code is None or len(code) > MAX_CODE_LENGTH:
            return False
        return pattern.search(code) is not None
