"""`core.engine.compile`: every limit and every refusal comes with its code and JSON Pointer, and
one
pass reports them all."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.engine.mutate import iter_operators
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.errors import SchemaError

Problems = list[tuple[str, str]]


def refusal(schema: Any, limits: Limits | None = None) -> Problems:
    """The (code, pointer) of every problem, in the order reported."""
    with pytest.raises(SchemaError) as caught:
        if limits is None:
            compile_schema(schema)
        else:
            compile_schema(schema, limits=limits)
    error = caught.value
    assert error.code == error.problems[0].code
    for problem in error.problems:
        assert problem.render() in error.message
    return [(p.code, p.pointer) for p in error.problems]


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def nested_objects(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = obj(a=schema)
    return schema


# --- limits ---------------------------------------------------------------------------


def _padded(size: int) -> dict[str, Any]:
    schema = {"type": "object", "description": ""}
    pad = size - len(canonical_compact(schema))
    schema["description"] = "d" * pad
    assert len(canonical_compact(schema)) == size
    return schema


def test_schema_size_limit_is_64_kib() -> None:
    compile_schema(_padded(64 * 1024))
    assert refusal(_padded(64 * 1024 + 1)) == [("schema.limit-size", "")]


def test_depth_limit_is_32() -> None:
    compile_schema(nested_objects(32))
    assert refusal(nested_objects(33)) == [("schema.limit-depth", "/properties/a" * 33)]


def test_node_limit_is_1024() -> None:
    # root + 31 objects of 32 leaves each = 1024 subschemas; one more object passes the limit.
    def schema(groups: int) -> dict[str, Any]:
        inner = {f"q{j}": {"type": "null"} for j in range(32)}
        return obj(**{f"p{i}": obj(**inner) for i in range(groups)})

    compile_schema(schema(31))
    # Counted depth-first in document order: the 1025th subschema is /properties/p31.
    assert refusal(schema(32)) == [("schema.limit-nodes", "/properties/p31")]


def test_property_limit_is_128() -> None:
    compile_schema(obj(**{f"p{i}": {} for i in range(128)}))
    nested = obj(inner=obj(**{f"p{i}": {} for i in range(129)}))
    assert refusal(nested) == [("schema.limit-properties", "/properties/inner/properties")]


def test_a_required_name_of_properties_past_the_limit_is_not_called_undefined() -> None:
    # The refused `properties` is not read: its names are unknown, not absent.
    closed = obj(**{f"p{i}": {} for i in range(129)})
    closed.update(required=["p0"], additionalProperties=False)
    assert refusal(closed) == [("schema.limit-properties", "/properties")]


def test_enum_limit_is_1024() -> None:
    compile_schema(obj(e={"enum": list(range(1024))}))
    assert refusal(obj(e={"enum": list(range(1025))})) == [
        ("schema.limit-enum", "/properties/e/enum")
    ]


def test_min_items_limit_is_32() -> None:
    compile_schema(obj(a={"type": "array", "minItems": 32}))
    assert refusal(obj(a={"type": "array", "minItems": 33})) == [
        ("schema.limit-items", "/properties/a/minItems")
    ]


def test_min_length_limit_is_4096_bytes() -> None:
    compile_schema(obj(s={"type": "string", "minLength": 4096}))
    assert refusal(obj(s={"type": "string", "minLength": 4097})) == [
        ("schema.limit-string", "/properties/s/minLength")
    ]


def test_a_value_too_large_to_generate_is_refused() -> None:
    # 30 x 30 strings of up to 4000 characters: megabytes per generated value.
    huge = obj(
        a={
            "type": "array",
            "maxItems": 30,
            "items": {
                "type": "array",
                "maxItems": 30,
                "items": {"type": "string", "minLength": 4000, "maxLength": 4000},
            },
        }
    )
    assert refusal(huge) == [("schema.limit-value-size", "")]


def test_limits_are_parameters() -> None:
    assert refusal(nested_objects(3), Limits(max_depth=2)) == [
        ("schema.limit-depth", "/properties/a/properties/a/properties/a")
    ]
    assert refusal(obj(e={"enum": [1, 2, 3]}), Limits(max_enum=2)) == [
        ("schema.limit-enum", "/properties/e/enum")
    ]


# --- unsafe names -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["__proto__", "prototype", "constructor"])
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (lambda n: obj(a=obj(**{n: {}})), "/properties/a/properties/{n}"),
        (lambda n: obj(a={"default": {"x": {n: 1}}}), "/properties/a/default/x/{n}"),
        (lambda n: obj(a={"enum": ["ok", {n: {}}]}), "/properties/a/enum/1/{n}"),
        (lambda n: {"type": "object", "examples": [[{n: 1}]]}, "/examples/0/0/{n}"),
        (lambda n: {"type": "object", "properties": {n: {}}, "required": [n]}, "/properties/{n}"),
        (lambda n: {"type": "object", "required": [n]}, "/required/0"),
    ],
    ids=["property", "default", "enum", "examples", "property+required", "required"],
)
def test_prototype_names_are_refused_anywhere(name: str, where: Any, expected: str) -> None:
    problems = refusal(where(name))
    assert ("schema.unsafe-key", expected.format(n=name)) in problems
    assert {code for code, _ in problems} == {"schema.unsafe-key"}


@pytest.mark.parametrize("name", ["__proto__", "prototype", "constructor"])
def test_prototype_names_inside_a_value_under_a_required_key_are_refused(name: str) -> None:
    """Inside a `default` value a member called `required` is data, not the keyword."""
    schema = obj(a={"default": {"required": [{name: {"polluted": True}}]}})
    assert refusal(schema) == [("schema.unsafe-key", f"/properties/a/default/required/0/{name}")]


# --- contradictions and bad arguments ---------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            obj(n={"type": "number", "minimum": 5, "maximum": 1}),
            ("schema.contradiction", "/properties/n/minimum"),
        ),
        (
            obj(n={"type": "integer", "minimum": 1.2, "maximum": 1.8}),
            ("schema.contradiction", "/properties/n/minimum"),
        ),
        (
            obj(s={"type": "string", "minLength": 5, "maxLength": 2}),
            ("schema.contradiction", "/properties/s/minLength"),
        ),
        (
            obj(a={"type": "array", "minItems": 3, "maxItems": 2}),
            ("schema.contradiction", "/properties/a/minItems"),
        ),
        (
            {
                "type": "object",
                "properties": {"a": {}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
            ("schema.contradiction", "/required/1"),
        ),
        (
            {"type": "object", "properties": {"a": False}, "required": ["a"]},
            ("schema.contradiction", "/required/0"),
        ),
        (obj(e={"enum": []}), ("schema.contradiction", "/properties/e/enum")),
        (obj(e={"type": "strin"}), ("schema.unknown-type", "/properties/e/type")),
        (obj(e={"type": ["string", "float"]}), ("schema.unknown-type", "/properties/e/type/1")),
        (
            obj(e={"type": "string", "minLength": 2.5}),
            ("schema.invalid-keyword-value", "/properties/e/minLength"),
        ),
        (
            obj(e={"type": "array", "maxItems": -1}),
            ("schema.invalid-keyword-value", "/properties/e/maxItems"),
        ),
        (
            obj(e={"type": "string", "enum": ["a", 1, "b"]}),
            ("schema.contradiction", "/properties/e/enum/1"),
        ),
        (
            obj(e={"minimum": 3, "enum": [1, 5, "x"]}),
            ("schema.contradiction", "/properties/e/enum/0"),
        ),
        (
            obj(e={"type": "number", "minimum": "1"}),
            ("schema.invalid-keyword-value", "/properties/e/minimum"),
        ),
        (obj(e=[]), ("schema.not-a-schema", "/properties/e")),
    ],
    ids=[
        "minimum>maximum",
        "no-integer-in-bounds",
        "minLength>maxLength",
        "minItems>maxItems",
        "closed-object-requires-undefined",
        "required-false",
        "empty-enum",
        "unknown-type",
        "unknown-type-in-list",
        "fractional-minLength",
        "negative-maxItems",
        "enum-member-violates-type",
        "enum-member-violates-minimum",
        "non-numeric-minimum",
        "not-a-schema",
    ],
)
def test_each_refusal_has_its_code_and_pointer(schema: Any, expected: tuple[str, str]) -> None:
    assert refusal(schema) == [expected]


def test_whole_number_floats_are_counts() -> None:
    compiled = compile_schema(obj(s={"type": "string", "minLength": 2.0}))
    assert compiled.root.domain.properties[0][1].domain.min_length == 2


# --- one pass ---------------------------------------------------------------------------


def test_every_unsupported_keyword_is_reported_in_one_pass() -> None:
    schema = {
        "type": "object",
        "unevaluatedProperties": False,
        "$defs": {"thing": {"type": "string", "$anchor": "thing"}},
        "properties": {
            "a": {"type": "string", "contentSchema": {}, "$dynamicRef": "#x"},
            "b": {"contentSchema": {"never": "read"}},
            "c": {"type": "array", "items": {"type": "number", "$recursiveRef": "#"}},
            "d": {"allOf": [{"unevaluatedItems": {}}, {"$recursiveAnchor": True}]},
        },
        "$ref": "#/$defs/thing",
    }
    assert sorted(refusal(schema)) == sorted(
        [
            ("schema.unsupported-keyword", "/unevaluatedProperties"),
            ("schema.unsupported-keyword", "/$defs/thing/$anchor"),
            ("schema.unsupported-keyword", "/properties/a/contentSchema"),
            ("schema.unsupported-keyword", "/properties/a/$dynamicRef"),
            # never inside an unsupported keyword's value: /contentSchema/never is not read
            ("schema.unsupported-keyword", "/properties/b/contentSchema"),
            ("schema.unsupported-keyword", "/properties/c/items/$recursiveRef"),
            ("schema.unsupported-keyword", "/properties/d/allOf/0/unevaluatedItems"),
            ("schema.unsupported-keyword", "/properties/d/allOf/1/$recursiveAnchor"),
        ]
    )


def test_problems_of_different_kinds_are_reported_together() -> None:
    schema = {
        "type": "object",
        "properties": {
            "__proto__": {},
            "n": {"type": "integer", "minimum": 9, "maximum": 3},
            "s": {"type": "string", "pattern": "(a+)+"},
            "e": {"enum": []},
            "t": {"type": "text"},
        },
    }
    assert sorted(refusal(schema)) == sorted(
        [
            ("schema.unsafe-key", "/properties/__proto__"),
            ("schema.contradiction", "/properties/n/minimum"),
            ("schema.unsupported-pattern", "/properties/s/pattern"),
            ("schema.contradiction", "/properties/e/enum"),
            ("schema.unknown-type", "/properties/t/type"),
        ]
    )


def test_pointers_escape_awkward_property_names() -> None:
    schema = obj(**{"a/b": obj(**{"t~1": {"type": "string", "minLength": 3, "maxLength": 1}})})
    assert refusal(schema) == [
        ("schema.contradiction", "/properties/a~1b/properties/t~01/minLength")
    ]


def test_a_supported_schema_compiles_with_its_digest_and_size() -> None:
    from toolfuzz_gate.contract import poster

    first = compile_schema(poster.SCHEMA)
    reordered = dict(reversed(list(poster.SCHEMA.items())))
    assert compile_schema(reordered).digest == first.digest
    assert first.node_count == 1 + 6 + 1  # root, six properties, the palette's items


UNKNOWN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"types": "string", "example": "Oslo", "optional": True},
        "count": {"type": "integer", "minimum": 1, "example_value": 3},
    },
    "required": ["count"],
    "strict": True,
}


def test_names_json_schema_does_not_define_are_ignored_and_listed() -> None:
    schema = compile_schema(UNKNOWN)
    assert schema.ignored == (
        ("/properties/city/types", "types"),
        ("/properties/city/example", "example"),
        ("/properties/city/optional", "optional"),
        ("/properties/count/example_value", "example_value"),
        ("/strict", "strict"),
    )


def test_an_ignored_name_changes_nothing_the_engine_builds() -> None:
    plain: dict[str, Any] = {
        "type": "object",
        "properties": {"city": {}, "count": {"type": "integer", "minimum": 1}},
        "required": ["count"],
    }
    with_names, without = compile_schema(UNKNOWN), compile_schema(plain)
    assert [generate(with_names, 41, i, DEFAULT_LIMITS) for i in range(40)] == [
        generate(without, 41, i, DEFAULT_LIMITS) for i in range(40)
    ]
    assert [o.label for o in iter_operators(with_names, DEFAULT_LIMITS)] == [
        o.label for o in iter_operators(without, DEFAULT_LIMITS)
    ]


def test_defined_keywords_the_engine_lacks_are_still_refused_beside_ignored_names() -> None:
    schema = {
        "type": "object",
        "nto": {},
        "unevaluatedItems": {},
        "unevaluatedProperties": {},
        "id": "x",
    }
    assert refusal(schema) == [
        ("schema.unsupported-keyword", "/unevaluatedItems"),
        ("schema.unsupported-keyword", "/unevaluatedProperties"),
        ("schema.unsupported-keyword", "/id"),
    ]


def test_unique_items_beside_items_ref_compiles() -> None:
    """Issue 15: pydantic's `set[Model]` (`uniqueItems` beside `items: {"$ref": ...}`) ended
    `lint` and `fuzz` with `AttributeError`: the unique-items check, run before references
    are linked, followed the `$ref`."""
    compiled = compile_schema(
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "uniqueItems": True, "items": {"$ref": "#/$defs/M"}}
            },
            "$defs": {"M": {"type": "object", "properties": {"a": {"type": "integer"}}}},
        }
    )
    assert compiled.node_count == 5


@pytest.mark.parametrize("keyword", ["enum", "const"])
def test_members_are_judged_before_linking_without_following_refs(keyword: str) -> None:
    """An object `enum`/`const` beside `properties` holding a `$ref` was checked against the
    node's other keywords before references were linked: a bare `AssertionError`."""
    member: Any = {"a": 1}
    compile_schema(
        {
            "type": "object",
            "properties": {
                "p": {
                    "type": "object",
                    "properties": {"a": {"$ref": "#/$defs/N"}},
                    keyword: [member] if keyword == "enum" else member,
                }
            },
            "$defs": {"N": {"type": "integer"}},
        }
    )


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"type": "object", "required": ["\ud800"]}, "/required/0"),
        (
            {"type": "object", "properties": {"a": {"enum": ["b", "\udc00"]}}},
            "/properties/a/enum/1",
        ),
        ({"type": "object", "properties": {"a": {"const": "x\ud800"}}}, "/properties/a/const"),
        ({"type": "object", "description": "\ud800"}, "/description"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/\ud800"}}}, "/properties/a/$ref"),
        ({"type": "object", "properties": {"\ud800": {"type": "string"}}}, "/properties/\\ud800"),
    ],
)
def test_a_lone_surrogate_anywhere_is_refused(schema: Any, pointer: str) -> None:
    """Issue 15: a lone surrogate in a string (a `required` name, an `enum` member, a
    `description`) reached the reference validator and the receipt, and ended in exit 3.
    UTF-8 cannot carry one, so no handler could receive it and no receipt could hold it:
    it is refused like one in a name, with its pointer."""
    assert refusal(schema) == [("schema.lone-surrogate", pointer)]


def test_unique_items_over_a_ref_judges_the_target_once_linked() -> None:
    """Found by `test_schema_fuzzing`: `uniqueItems` over `items: {"$ref": ...}` is judged
    through the reference once it is linked; before, a `minItems` the target's values could
    not fill generated arrays too short (an oracle disagreement)."""
    schema = {
        "type": "object",
        "properties": {
            "s": {
                "type": "array",
                "uniqueItems": True,
                "minItems": 3,
                "items": {"$ref": "#/$defs/C"},
            }
        },
        "$defs": {"C": {"enum": ["r", "g"]}},
    }
    assert refusal(schema) == [("schema.contradiction", "/properties/s/uniqueItems")]
