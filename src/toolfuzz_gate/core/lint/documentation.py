"""Documentation findings: what a tool schema gets wrong as a description (pure).

A schema can compile and still mislead the agent reading it: a `default` that its own
type forbids, `required` naming a property that is never described, a schema that says
nothing at all, a name that is no JSON Schema keyword (an annotation: `types` for `type`
constrains nothing). These are warnings, one table of checks (`CHECKS`), each with a stable
code. `default` and `examples` are judged by the `jsonschema` library (the oracle of
record) in the context of the whole document, so `$ref` resolves; they are skipped when
the document has regular expressions the compiler did not vet (`pattern`,
`patternProperties`: the reference validator's `re` has no time bound).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing.exceptions

from toolfuzz_gate.core.campaign.oracle import reference_validator
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_compact
from toolfuzz_gate.core.jsonutil.values import TYPE_NAMES, has_type
from toolfuzz_gate.core.schema.dialects import keyword_hint
from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.keywords.generic import ANNOTATIONS
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.core.schema.subschemas import iter_schema_objects
from toolfuzz_gate.core.schema.vocabulary import is_defined, nearest_keyword

REGEX_KEYWORDS = ("pattern", "patternProperties")
_UNJUDGEABLE = (
    jsonschema.exceptions.UnknownType,
    referencing.exceptions.Unresolvable,
    re.error,
    RecursionError,
)


@dataclass(frozen=True)
class LintFinding:
    """One documentation problem at a JSON Pointer of the schema."""

    code: str
    pointer: str
    message: str


class _Judge:
    """Is a value valid against one schema object of the document (None: cannot say)?"""

    def __init__(self, document: JSON, options: SchemaOptions, enabled: bool) -> None:
        self._root: Any = None
        if enabled and isinstance(document, dict):
            self._root = reference_validator(document, options)

    def errors(self, node: dict[str, Any], value: JSON) -> list[str] | None:
        if self._root is None:
            return None
        try:
            found = self._root.evolve(schema=node).iter_errors(value)
            return [error.message[:120] for error in found]
        except _UNJUDGEABLE:
            return None


Check = Callable[[_Judge, str, dict[str, Any]], Iterator[LintFinding]]


def _shown(value: JSON) -> str:
    text = canonical_compact(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_default(judge: _Judge, where: str, node: dict[str, Any]) -> Iterator[LintFinding]:
    if "default" not in node:
        return
    errors = judge.errors(node, node["default"])
    if errors:
        yield LintFinding(
            "lint.default-invalid",
            jp.join(where, "default"),
            f"the default {_shown(node['default'])} is not valid here: {errors[0]}",
        )


def check_examples(judge: _Judge, where: str, node: dict[str, Any]) -> Iterator[LintFinding]:
    examples = node.get("examples")
    if not isinstance(examples, list):
        return
    for index, example in enumerate(examples):
        errors = judge.errors(node, example)
        if errors:
            yield LintFinding(
                "lint.example-invalid",
                jp.join(where, "examples", index),
                f"the example {_shown(example)} is not valid here: {errors[0]}",
            )


def check_required(judge: _Judge, where: str, node: dict[str, Any]) -> Iterator[LintFinding]:
    required = node.get("required")
    if not isinstance(required, list):
        return
    properties = node.get("properties")
    described = set(properties) if isinstance(properties, dict) else set()
    for index, name in enumerate(required):
        if isinstance(name, str) and name not in described:
            yield LintFinding(
                "lint.required-undefined",
                jp.join(where, "required", index),
                f"{name!r} is required but not among the properties: the agent is told "
                "nothing about it",
            )


def check_enum(judge: _Judge, where: str, node: dict[str, Any]) -> Iterator[LintFinding]:
    declared = node.get("type")
    names = [declared] if isinstance(declared, str) else declared
    members = node.get("enum")
    if not isinstance(members, list) or not isinstance(names, list):
        return
    if not names or not all(isinstance(n, str) and n in TYPE_NAMES for n in names):
        return
    allowed = frozenset(names)
    for index, member in enumerate(members):
        if not has_type(member, allowed):
            yield LintFinding(
                "lint.enum-type",
                jp.join(where, "enum", index),
                f"the member {_shown(member)} is not of the declared type "
                f"{_shown(declared)}, so it can never be valid",
            )


def check_unknown_keyword(judge: _Judge, where: str, node: dict[str, Any]) -> Iterator[LintFinding]:
    """A name JSON Schema does not define is an annotation: whatever it was meant to say
    constrains nothing, and a misspelt keyword (`types`) loses its constraint silently."""
    for name in node:
        if name in KEYWORDS or is_defined(name):
            continue
        near = nearest_keyword(name)
        meant = f"; did you mean {near!r}?" if near is not None else ""
        yield LintFinding(
            "lint.unknown-keyword",
            jp.join(where, name),
            f"{name!r} is not a JSON Schema keyword: it is read as an annotation and "
            f"constrains nothing{meant}{keyword_hint(name)}",
        )


CHECKS: dict[str, Check] = {
    "lint.default-invalid": check_default,
    "lint.example-invalid": check_examples,
    "lint.required-undefined": check_required,
    "lint.enum-type": check_enum,
    "lint.unknown-keyword": check_unknown_keyword,
}
"""Every per-schema-object check, by code. `lint.empty-schema` looks at the root only."""

CODES = ("lint.empty-schema", *CHECKS)


def _annotation(name: str) -> bool:
    """An annotation keyword, or a name JSON Schema does not define (read as one)."""
    return name in ANNOTATIONS or not (name in KEYWORDS or is_defined(name))


def _has_regex(document: JSON) -> bool:
    return any(
        any(name in node for name in REGEX_KEYWORDS) for _, node in iter_schema_objects(document)
    )


def lint(
    document: JSON, *, compiled: bool, options: SchemaOptions = DEFAULT_OPTIONS
) -> list[LintFinding]:
    """Every documentation finding in one tool's schema, in document order.

    `compiled`: the compiler accepted the document (so any regular expression in it was
    vetted, and values may be judged even when it has some).
    """
    findings: list[LintFinding] = []
    if isinstance(document, dict) and all(_annotation(name) for name in document):
        findings.append(
            LintFinding(
                "lint.empty-schema",
                "",
                "the schema constrains nothing (only annotations): the agent learns nothing "
                "about the arguments",
            )
        )
    judge = _Judge(document, options, compiled or not _has_regex(document))
    for where, node in iter_schema_objects(document):
        for check in CHECKS.values():
            findings.extend(check(judge, where, node))
    return findings
