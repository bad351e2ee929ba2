"""Collect smolagents' default tools' parameter schemas (run by hand; imports the package).

smolagents describes a tool's inputs in its own small format and turns it into
the function schema it sends a model with `get_tool_json_schema`; that output is
what is stored. It marks optional inputs with OpenAPI's `nullable` and has
types of its own (`audio`, `image`), so a schema using either is stored as kind
"dialect". Tools are read from their classes
(never instantiated: no model, key or network). Use a throwaway venv:

    python3 -m venv /tmp/corpus/smolvenv
    /tmp/corpus/smolvenv/bin/pip install smolagents
    /tmp/corpus/smolvenv/bin/python bench/corpus/collect_smolagents.py
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store import Collected, store_source

JSON_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})


def _own_types(schema: dict[str, Any]) -> bool:
    inputs = schema.get("properties", {}).values()
    return any(not set(_names(i.get("type"))) <= JSON_TYPES for i in inputs)


def _is_dialect(schema: dict[str, Any]) -> bool:
    return _own_types(schema) or '"nullable"' in json.dumps(schema)


def _names(declared: Any) -> list[Any]:
    return declared if isinstance(declared, list) else [declared]


def main() -> None:
    from smolagents import Tool, default_tools
    from smolagents.models import get_tool_json_schema

    version = importlib.metadata.version("smolagents")
    collected: list[Collected] = []
    for export in sorted(dir(default_tools)):
        cls = getattr(default_tools, export)
        if not (isinstance(cls, type) and issubclass(cls, Tool) and cls is not Tool):
            continue
        if not isinstance(getattr(cls, "inputs", None), dict):
            continue
        try:
            schema = get_tool_json_schema(object.__new__(cls))["function"]["parameters"]
        except Exception as error:  # an abstract base or a tool needing an optional package
            print(f"skipped {export}: {type(error).__name__}")
            continue
        kind = "dialect" if _is_dialect(schema) else "standard"
        # `nullable` is OpenAPI's; smolagents' own types (`audio`, `image`) no dialect reads
        dialect = "openapi" if kind == "dialect" and not _own_types(schema) else None
        collected.append(Collected(export, schema, "smolagents", version, kind, dialect))
    store_source("smolagents", collected)


if __name__ == "__main__":
    main()
