"""Dialects: rewrite the common non-standard schema spellings into JSON Schema (pure).

One table, `DIALECTS`. A dialect is applied only when the user names it (never guessed):
`normalize(document, name)` returns a rewritten copy and one rewrite record per change,
`{"pointer", "from", "to", "dialect"}`, where `from` / `to` are the values at `pointer`
before and after (a member is absent when the value is: a removed keyword has no `to`).

* `openapi`: `nullable: true` adds `"null"` to `type` (and `null` to `enum`); OpenAPI's
  singular `example` becomes `examples`.
* `bfcl` (the Berkeley Function Calling Leaderboard's files): `dict`, `float`, `tuple`,
  `any` and the Java/Python type names its data uses; `optional: true` on a property
  (BFCL: "not required") removes it from the parent's `required` (`false` adds it), and an
  object-level `optional: [names]` lists properties that are not required.
* `gemini`: upper-case type names (`STRING`, `OBJECT`), and `nullable` / `example` as in
  OpenAPI, whose subset Gemini's `Schema` is.

Without a dialect the compiler refuses these type names (`type_hint` gives its message the
dialect that would accept them) and reads these keywords, which JSON Schema does not define,
as annotations that constrain nothing (`lint` warns, naming the dialect: `keyword_hint`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.values import TYPE_NAMES
from toolfuzz_gate.core.schema.subschemas import iter_schema_objects

ANY = ""
"""A type table's value for a name meaning "any JSON value": the `type` keyword goes."""

Rules = list[JSONObject]


@dataclass(frozen=True)
class Dialect:
    """One dialect: the type names it reads, the keywords it reads, and its rewrite steps."""

    name: str
    types: Mapping[str, str]
    keywords: tuple[str, ...]
    steps: tuple[Callable[[Dialect, dict[str, Any], str, Rules], None], ...]


def _record(rewrites: Rules, dialect: Dialect, where: str, before: Any, after: Any) -> None:
    entry: JSONObject = {"pointer": where, "dialect": dialect.name}
    if before is not _ABSENT:
        entry["from"] = copy.deepcopy(before)
    if after is not _ABSENT:
        entry["to"] = copy.deepcopy(after)
    rewrites.append(entry)


_ABSENT: Any = object()


def _rewrite_types(dialect: Dialect, node: dict[str, Any], where: str, rewrites: Rules) -> None:
    declared = node.get("type")
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return
    if not any(n in dialect.types for n in names):
        return
    mapped = [dialect.types.get(n, n) for n in names]
    if ANY in mapped:
        del node["type"]
        _record(rewrites, dialect, jp.join(where, "type"), declared, _ABSENT)
        return
    after: Any = mapped[0] if isinstance(declared, str) else list(dict.fromkeys(mapped))
    node["type"] = after
    _record(rewrites, dialect, jp.join(where, "type"), declared, after)


def _rewrite_nullable(dialect: Dialect, node: dict[str, Any], where: str, rewrites: Rules) -> None:
    flag = node.get("nullable")
    if not isinstance(flag, bool):
        return  # absent, or not a boolean: left for the compiler to refuse
    del node["nullable"]
    _record(rewrites, dialect, jp.join(where, "nullable"), flag, _ABSENT)
    if not flag:
        return
    declared = node.get("type")
    if isinstance(declared, str) and declared != "null":
        node["type"] = [declared, "null"]
        _record(rewrites, dialect, jp.join(where, "type"), declared, node["type"])
    elif isinstance(declared, list) and "null" not in declared:
        node["type"] = [*declared, "null"]
        _record(rewrites, dialect, jp.join(where, "type"), declared, node["type"])
    members = node.get("enum")
    if isinstance(members, list) and None not in members:
        node["enum"] = [*members, None]
        _record(rewrites, dialect, jp.join(where, "enum"), members, node["enum"])


def _rewrite_example(dialect: Dialect, node: dict[str, Any], where: str, rewrites: Rules) -> None:
    if "example" not in node:
        return
    value = node.pop("example")
    _record(rewrites, dialect, jp.join(where, "example"), value, _ABSENT)
    before = node.get("examples", _ABSENT)
    if before is _ABSENT or isinstance(before, list):
        node["examples"] = [*(before if isinstance(before, list) else []), value]
        _record(rewrites, dialect, jp.join(where, "examples"), before, node["examples"])


def _optional_flag(value: Any) -> bool | None:
    """BFCL's files spell the flag `true`, `"true"` and `"True"`; anything else is not read."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _rewrite_optional(dialect: Dialect, node: dict[str, Any], where: str, rewrites: Rules) -> None:
    """BFCL's `optional` lives on the property (or lists names on the object); JSON Schema
    says the same with the object's `required`."""
    required = node.get("required", _ABSENT)
    if required is not _ABSENT and not (
        isinstance(required, list) and all(isinstance(n, str) for n in required)
    ):
        return  # a malformed `required` is the compiler's to report
    names: list[str] = list(required) if isinstance(required, list) else []
    listed = node.get("optional")
    if isinstance(listed, list) and all(isinstance(n, str) for n in listed):
        del node["optional"]
        _record(rewrites, dialect, jp.join(where, "optional"), listed, _ABSENT)
        names = [n for n in names if n not in listed]
    properties = node.get("properties")
    if isinstance(properties, dict):
        for key, child in properties.items():
            if not isinstance(child, dict) or "optional" not in child:
                continue
            flag = _optional_flag(child["optional"])
            if flag is None:
                continue
            at = jp.join(where, "properties", key, "optional")
            _record(rewrites, dialect, at, child.pop("optional"), _ABSENT)
            if flag:
                names = [n for n in names if n != key]
            elif key not in names:
                names.append(key)
    if names != (required if isinstance(required, list) else []):
        node["required"] = names
        _record(rewrites, dialect, jp.join(where, "required"), required, names)


# From the type names found in BFCL's own data files (bfcl-eval 2026.3.23, BFCL_v4_*.json)
# and its `GORILLA_TO_OPENAPI` table; `any` means any value (BFCL's converter sends a string).
_BFCL_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": ANY,
    "Any": ANY,
    "bool": "boolean",
    "Boolean": "boolean",
    "list": "array",
    "int": "integer",
    "str": "string",
    "String": "string",
    "char": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "Bigint": "integer",
    "double": "number",
    "Array": "array",
    "ArrayList": "array",
    "Queue": "array",
    "Stack": "array",
    "HashMap": "object",
    "Hashtable": "object",
}
_GEMINI_TYPES = {name.upper(): name for name in TYPE_NAMES}

DIALECTS: dict[str, Dialect] = {
    dialect.name: dialect
    for dialect in (
        Dialect("openapi", {}, ("nullable", "example"), (_rewrite_nullable, _rewrite_example)),
        Dialect("bfcl", _BFCL_TYPES, ("optional",), (_rewrite_types, _rewrite_optional)),
        Dialect(
            "gemini",
            _GEMINI_TYPES,
            ("nullable", "example"),
            (_rewrite_types, _rewrite_nullable, _rewrite_example),
        ),
    )
}


def normalize(document: JSON, dialect: str | None) -> tuple[JSON, list[JSONObject]]:
    """`document` rewritten by `dialect` (None: unchanged), and the rewrites made.

    The input is never modified. Raises KeyError for a name not in `DIALECTS`.
    """
    if dialect is None:
        return document, []
    entry = DIALECTS[dialect]
    result = copy.deepcopy(document)
    rewrites: Rules = []
    for where, node in iter_schema_objects(result):
        for step in entry.steps:
            step(entry, node, where, rewrites)
    return result, rewrites


def _flags(names: list[str]) -> str:
    return " or ".join(f"`--dialect {name}`" for name in names)


def type_hint(name: object) -> str:
    """ "" or a sentence naming the dialects that read the type name `name`."""
    if not isinstance(name, str):
        return ""
    readers = [d.name for d in DIALECTS.values() if name in d.types]
    if not readers:
        return ""
    meaning = DIALECTS[readers[0]].types[name] or "any value"
    return f"; {_flags(readers)} reads {name!r} as {meaning}"


def keyword_hint(keyword: str) -> str:
    """ "" or a sentence naming the dialects that read the non-standard `keyword`."""
    readers = [d.name for d in DIALECTS.values() if keyword in d.keywords]
    return f"; {_flags(readers)} reads it" if readers else ""
