"""`core.schema.dialects`: each dialect's rewrites, their records, and the errors that name a
dialect."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.lint.documentation import lint
from toolfuzz_gate.core.schema.dialects import DIALECTS, normalize
from toolfuzz_gate.errors import SchemaError

# Shaped like the entries of BFCL's own data files (bfcl-eval, BFCL_v4_simple_python.json).
BFCL: dict[str, Any] = {
    "type": "dict",
    "properties": {
        "base": {"type": "integer", "description": "The base."},
        "height": {"type": "float", "description": "The height.", "optional": True},
        "unit": {"type": "string", "optional": "true", "default": "cm"},
        "point": {"type": "tuple", "items": {"type": "float"}},
        "extra": {"type": "any"},
        "options": {"type": "dict", "properties": {"deep": {"type": "bool"}}},
    },
    "required": ["base", "height", "point"],
}
GEMINI: dict[str, Any] = {
    "type": "OBJECT",
    "properties": {
        "city": {"type": "STRING", "nullable": True, "enum": ["Oslo", "Rome"]},
        "days": {"type": "INTEGER", "example": 3},
    },
    "required": ["city"],
}
OPENAPI: dict[str, Any] = {
    "type": "object",
    "properties": {
        "note": {"type": "string", "nullable": True},
        "count": {"type": ["integer"], "nullable": True},
        "any": {"nullable": True},
        "flag": {"type": "boolean", "nullable": False, "example": True, "examples": [False]},
    },
}
CASES = [("bfcl", BFCL), ("gemini", GEMINI), ("openapi", OPENAPI)]

_MISSING: Any = object()


def _replay(document: Any, rewrites: list[dict[str, Any]]) -> Any:
    """Apply the records one by one, checking each `from` against the value it replaces."""
    result = copy.deepcopy(document)
    for record in rewrites:
        *parents, last = jp.split(record["pointer"])
        holder = result
        for token in parents:
            holder = holder[int(token)] if isinstance(holder, list) else holder[token]
        assert holder.get(last, _MISSING) == record.get("from", _MISSING), record
        if "to" in record:
            holder[last] = record["to"]
        else:
            del holder[last]
    return result


@pytest.mark.parametrize(("dialect", "document"), CASES)
def test_rewrites_replay_to_the_result_and_the_input_is_untouched(
    dialect: str, document: Any
) -> None:
    before = copy.deepcopy(document)
    result, rewrites = normalize(document, dialect)
    assert document == before
    assert rewrites and {r["dialect"] for r in rewrites} == {dialect}
    assert _replay(document, rewrites) == result
    compile_schema(result)  # the rewritten document is in the supported subset
    jsonschema.Draft202012Validator.check_schema(doc(result))


@pytest.mark.parametrize(("dialect", "document"), CASES)
def test_without_the_dialect_the_compiler_or_lint_names_it(dialect: str, document: Any) -> None:
    """A dialect's type names are refused; its keywords, which JSON Schema does not define,
    are annotations the compiler ignores and `lint` warns about: both name the dialect."""
    try:
        compile_schema(document)
    except SchemaError as error:
        messages = [p.message for p in error.problems]
    else:
        messages = []
    messages += [f.message for f in lint(document, compiled=not messages)]
    assert any(f"--dialect {dialect}" in m for m in messages), messages


def test_without_the_dialect_its_keywords_are_ignored_and_listed() -> None:
    document: Any = {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}
    schema = compile_schema(document)
    assert schema.ignored == (("/properties/a/nullable", "nullable"),)
    assert "null" not in schema.root.domain.properties[0][1].domain.types


def test_bfcl_types_and_optional() -> None:
    result, rewrites = normalize(BFCL, "bfcl")
    assert isinstance(result, dict)
    properties = doc(result)["properties"]
    assert result["type"] == "object"
    assert properties["height"] == {"type": "number", "description": "The height."}
    assert properties["unit"] == {"type": "string", "default": "cm"}
    assert properties["point"] == {"type": "array", "items": {"type": "number"}}
    assert properties["extra"] == {}
    assert properties["options"]["properties"]["deep"] == {"type": "boolean"}
    assert result["required"] == ["base", "point"]
    assert {"pointer": "/properties/height/type", "from": "float", "to": "number",
            "dialect": "bfcl"} in rewrites  # fmt: skip
    validator = jsonschema.Draft202012Validator(result)
    assert validator.is_valid({"base": 2, "point": [1.5, 2]})
    assert not validator.is_valid({"base": 2})


def test_bfcl_object_level_optional_list_and_optional_false() -> None:
    schema: dict[str, Any] = {
        "type": "dict",
        "properties": {"a": {"type": "str"}, "b": {"type": "int", "optional": False}},
        "required": ["a"],
        "optional": ["a"],
    }
    result, _ = normalize(schema, "bfcl")
    assert result == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["b"],
    }


def test_bfcl_leaves_what_it_cannot_read_for_the_compiler() -> None:
    schema: dict[str, Any] = {
        "type": "dict",
        "properties": {"a": {"type": "string", "optional": "yes"}},
    }
    result, _ = normalize(schema, "bfcl")
    assert isinstance(result, dict)
    assert doc(result)["properties"]["a"]["optional"] == "yes"
    # not JSON Schema: read as an annotation, listed, and warned about by lint
    assert compile_schema(result).ignored == (("/properties/a/optional", "optional"),)


def test_gemini_lowers_types_and_reads_nullable() -> None:
    result, _ = normalize(GEMINI, "gemini")
    assert isinstance(result, dict)
    assert result["type"] == "object"
    assert doc(result)["properties"]["city"] == {
        "type": ["string", "null"],
        "enum": ["Oslo", "Rome", None],
    }
    assert doc(result)["properties"]["days"] == {"type": "integer", "examples": [3]}


def test_openapi_nullable_and_example() -> None:
    result, _ = normalize(OPENAPI, "openapi")
    assert isinstance(result, dict)
    properties = doc(result)["properties"]
    assert properties["note"] == {"type": ["string", "null"]}
    assert properties["count"] == {"type": ["integer", "null"]}
    assert properties["any"] == {}
    assert properties["flag"] == {"type": "boolean", "examples": [False, True]}


def test_openapi_does_not_read_other_dialects_types() -> None:
    result, rewrites = normalize({"type": "dict"}, "openapi")
    assert result == {"type": "dict"} and rewrites == []


def test_values_are_never_rewritten() -> None:
    schema: dict[str, Any] = {
        "type": "dict",
        "default": {"type": "float"},
        "enum": [{"type": "dict"}],
    }
    result, _ = normalize(schema, "bfcl")
    assert result == {"type": "object", "default": {"type": "float"}, "enum": [{"type": "dict"}]}


def test_no_dialect_is_the_identity() -> None:
    assert normalize(BFCL, None) == (BFCL, [])
    assert set(DIALECTS) == {"openapi", "bfcl", "gemini"}


def test_standard_types_get_no_dialect_hint() -> None:
    with pytest.raises(SchemaError) as caught:
        compile_schema({"type": "object", "properties": {"a": {"type": "strin"}}})
    assert "--dialect" not in caught.value.problems[0].message


BFCL_NAMES = st.sampled_from(["dict", "float", "tuple", "any", "integer", "string", "bool", "list"])
FLAGS = st.sampled_from([True, False, "true", "True", "false"])


@st.composite
def bfcl_objects(draw: st.DrawFn, depth: int = 2) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from("abcd"), unique=True, max_size=4))
    properties: dict[str, Any] = {}
    for name in names:
        child: dict[str, Any] = {"type": draw(BFCL_NAMES)}
        if depth and draw(st.booleans()):
            child = draw(bfcl_objects(depth - 1))
        if draw(st.booleans()):
            child["optional"] = draw(FLAGS)
        properties[name] = child
    schema: dict[str, Any] = {"type": "dict", "properties": properties}
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names or ["a"]), unique=True))
    return schema


def _objects(schema: Any) -> list[dict[str, Any]]:
    found = [schema]
    for child in schema.get("properties", {}).values():
        if "properties" in child:
            found.extend(_objects(child))
    return found


@settings(max_examples=examples(80))
@given(bfcl_objects())
def test_bfcl_rewrites_replay_and_leave_only_standard_json_schema(schema: dict[str, Any]) -> None:
    result, rewrites = normalize(schema, "bfcl")
    assert _replay(schema, rewrites) == result
    jsonschema.Draft202012Validator.check_schema(doc(result))
    compile_schema(result)
    for before, after in zip(_objects(schema), _objects(result), strict=True):
        flags = {
            name: str(child["optional"]).lower() == "true"
            for name, child in before["properties"].items()
            if "optional" in child
        }
        expected = [n for n in before.get("required", []) if not flags.get(n, False)]
        expected += [n for n, optional in flags.items() if not optional and n not in expected]
        assert after.get("required", []) == expected
        assert all("optional" not in child for child in after["properties"].values())


CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
BFCL_FILES = sorted((CORPUS / "bfcl").rglob("*.json"))


def test_the_corpus_has_bfcl_schemas() -> None:
    assert len(BFCL_FILES) >= 50


@pytest.mark.parametrize("path", BFCL_FILES, ids=lambda p: p.name)
def test_real_bfcl_schemas_need_the_dialect_and_read_with_it(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(SchemaError) as caught:
        compile_schema(document)
    assert any("--dialect bfcl" in p.message for p in caught.value.problems)
    result, rewrites = normalize(document, "bfcl")
    assert rewrites and _replay(document, rewrites) == result
    jsonschema.Draft202012Validator.check_schema(doc(result))
    try:
        compile_schema(result)
    except SchemaError as error:  # only the engine's own size limits may still refuse
        assert {p.code for p in error.problems} <= {"schema.limit-enum"}, error.problems
