"""Strict JSON as handlers send it over pipes and sockets (edge helpers, no I/O)."""

from __future__ import annotations

import json
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_json(data: bytes | str) -> JSON:
    """Parse JSON, refusing NaN and Infinity (which `json` accepts by default)."""
    value: JSON = json.loads(data, parse_constant=_refuse_constant)
    return value


def json_object_line(line: bytes) -> dict[str, Any] | None:
    """One line holding a JSON object, or None for anything else."""
    try:
        value = strict_json(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
