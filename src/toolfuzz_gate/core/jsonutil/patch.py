"""A small JSON Patch (RFC 6902) applier for the operations suggestions use (pure)."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.values import copy_json


def apply_patch(document: JSON, operations: list[JSONObject]) -> JSON:
    """`document` with `add`, `replace` and `remove` operations applied, on a copy."""
    result = copy_json(document)
    for operation in operations:
        op, path = operation["op"], operation["path"]
        assert isinstance(path, str)
        tokens = jp.split(path)
        if not tokens:
            raise ValueError("a patch cannot replace the whole schema")
        parent: Any = result
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op == "remove":
                del parent[index]
            elif op == "add":
                parent.insert(index, copy_json(operation["value"]))
            else:
                parent[index] = copy_json(operation["value"])
        elif op == "remove":
            del parent[last]
        elif op in ("add", "replace"):
            parent[last] = copy_json(operation["value"])
        else:
            raise ValueError(f"unsupported patch operation {op!r}")
    return result
