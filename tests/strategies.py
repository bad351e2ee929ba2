"""Hypothesis strategies for schemas inside the engine's JSON Schema subset (test helper).

`subset_schemas()` draws object-rooted draft 2020-12 schemas that use only the supported
keywords, are always satisfiable (every bound pair is ordered, every `required` name is a
defined property whose schema is not `false`, an `enum` never carries other constraints) and
stay far inside the compiler's limits: depth at most 4, at most 8 properties per object,
string lengths at most 20, arrays at most 5 items. Property names sometimes need JSON Pointer
escaping (`a/b`, `t~1`) or are non-ASCII; the prototype-pollution names are never used.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES

JSON = Any
Schema = dict[str, Any]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
SCALAR_TYPES = ("null", "boolean", "integer", "number", "string")
CONTAINER_TYPES = ("array", "object")

MAX_DEPTH = 4
MAX_PROPERTIES = 8
MAX_STRING_LENGTH = 20
MAX_ITEMS = 5

# Names that exercise JSON Pointer escaping, non-ASCII and look-alikes of keywords.
TRICKY_NAMES = (
    "a/b",
    "t~1",
    "~0",
    "a~/b",
    "/",
    "é",
    "名前",
    "naïve key",
    "emoji🙂",
    "$ref",
    "type",
    "properties",
    "toString",
    "x.y",
)
_NAME_ALPHABET = st.sampled_from("abcdefghijklmnopqrstuvwxyz_-0123456789/~ éßж名")

property_names: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(TRICKY_NAMES),
    st.text(_NAME_ALPHABET, min_size=1, max_size=8),
).filter(lambda name: name not in UNSAFE_NAMES)

_integers = st.integers(min_value=-1000, max_value=1000)
_floats = st.floats(
    min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False
)
_short_text = st.text(max_size=8)
_scalars: st.SearchStrategy[JSON] = st.one_of(
    st.none(), st.booleans(), _integers, _floats, _short_text
)
json_values: st.SearchStrategy[JSON] = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(property_names, children, max_size=3),
    ),
    max_leaves=6,
)


def json_key(value: JSON) -> Any:
    """A hashable key under which two values are equal exactly when JSON Schema says so.

    Booleans are not numbers, `1 == 1.0`, arrays compare in order and objects by members.
    """
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, list):
        return ("array", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", tuple(sorted((k, json_key(v)) for k, v in value.items())))
    return (type(value).__name__, value)


_ENUM_MEMBERS: dict[str, st.SearchStrategy[JSON]] = {
    "string": _short_text,
    "integer": _integers,
    "number": st.one_of(_integers, _floats),
    "mixed": json_values,
}


@st.composite
def _enum_node(draw: st.DrawFn) -> Schema:
    kind = draw(st.sampled_from(sorted(_ENUM_MEMBERS)))
    members = draw(st.lists(_ENUM_MEMBERS[kind], min_size=1, max_size=6, unique_by=json_key))
    node: Schema = {"enum": members}
    if kind != "mixed" and draw(st.booleans()):
        node["type"] = kind
    return node


@st.composite
def _ordered_pair(
    draw: st.DrawFn, values: st.SearchStrategy[Any], low: str, high: str
) -> dict[str, Any]:
    """Zero, one or both of two bound keywords, with low <= high when both are present."""
    first, second = sorted([draw(values), draw(values)])
    chosen = draw(st.sampled_from(("none", "low", "high", "both")))
    bounds: dict[str, Any] = {}
    if chosen in ("low", "both"):
        bounds[low] = first
    if chosen in ("high", "both"):
        bounds[high] = second
    return bounds


def _numeric_bounds(integer: bool) -> st.SearchStrategy[dict[str, Any]]:
    # Integer bounds whenever integers are allowed, so [min, max] always holds an integer.
    values = _integers if integer else st.one_of(_integers, _floats)
    return _ordered_pair(values, "minimum", "maximum")


_length_bounds = _ordered_pair(
    st.integers(min_value=0, max_value=MAX_STRING_LENGTH), "minLength", "maxLength"
)
_size_bounds = _ordered_pair(st.integers(min_value=0, max_value=MAX_ITEMS), "minItems", "maxItems")


@st.composite
def _object_keywords(draw: st.DrawFn, depth: int, max_properties: int) -> Schema:
    names = draw(st.lists(property_names, max_size=max_properties, unique=True))
    required = [name for name in names if draw(st.booleans())]
    properties: Schema = {}
    for name in names:
        # `false` forbids the property, which is satisfiable only while it is optional.
        if name not in required and draw(st.integers(0, 9)) == 0:
            properties[name] = False
        else:
            properties[name] = draw(_node(depth + 1, max_properties))
    keywords: Schema = {"properties": properties}
    if required:
        keywords["required"] = required
    if draw(st.booleans()):
        keywords["additionalProperties"] = draw(st.booleans())
    return keywords


@st.composite
def _array_keywords(draw: st.DrawFn, depth: int, max_properties: int) -> Schema:
    keywords: Schema = dict(draw(_size_bounds))
    if draw(st.integers(0, 4)) > 0:
        keywords["items"] = draw(_node(depth + 1, max_properties))
    return keywords


@st.composite
def _annotations(draw: st.DrawFn) -> Schema:
    """Annotations never constrain, so `default` and `examples` need not be valid values."""
    found: Schema = {}
    if draw(st.integers(0, 3)) == 0:
        found["title"] = draw(_short_text)
    if draw(st.integers(0, 3)) == 0:
        found["description"] = draw(st.text(max_size=30))
    if draw(st.integers(0, 5)) == 0:
        found["default"] = draw(json_values)
    if draw(st.integers(0, 7)) == 0:
        found["examples"] = draw(st.lists(json_values, max_size=2))
    if draw(st.integers(0, 9)) == 0:
        found["$comment"] = draw(_short_text)
    return found


@st.composite
def _typed_node(draw: st.DrawFn, depth: int, max_properties: int) -> Schema:
    allowed = SCALAR_TYPES + (CONTAINER_TYPES if depth < MAX_DEPTH else ())
    types = draw(st.lists(st.sampled_from(allowed), min_size=1, max_size=3, unique=True))
    node: Schema = {}
    if len(types) == 1 and draw(st.integers(0, 3)) > 0:
        node["type"] = types[0]
    else:
        node["type"] = types
    node.update(_constraints_for(draw, set(types), depth, max_properties))
    return node


def _constraints_for(draw: st.DrawFn, types: set[str], depth: int, max_properties: int) -> Schema:
    keywords: Schema = {}
    if types & {"integer", "number"}:
        keywords.update(draw(_numeric_bounds(integer="integer" in types)))
    if "string" in types:
        keywords.update(draw(_length_bounds))
    if "array" in types:
        keywords.update(draw(_array_keywords(depth, max_properties)))
    if "object" in types:
        keywords.update(draw(_object_keywords(depth, max_properties)))
    return keywords


@st.composite
def _untyped_node(draw: st.DrawFn, depth: int, max_properties: int) -> Schema:
    """No `type`: any type is allowed, so any mix of type-specific constraints is satisfiable."""
    families = ["number", "string"] + (["array", "object"] if depth < MAX_DEPTH else [])
    chosen = draw(st.lists(st.sampled_from(families), max_size=2, unique=True))
    return _constraints_for(draw, set(chosen), depth, max_properties)


@st.composite
def _node(draw: st.DrawFn, depth: int, max_properties: int) -> JSON:
    """A subschema at `depth` (the root is depth 1), with optional annotations."""
    node = draw(
        st.one_of(
            _typed_node(depth, max_properties),
            _enum_node(),
            _untyped_node(depth, max_properties),
            st.just(True),
        )
    )
    if isinstance(node, bool):
        return node
    return {**node, **draw(_annotations())}


@st.composite
def subset_schemas(draw: st.DrawFn, max_properties: int = MAX_PROPERTIES) -> Schema:
    """An object-rooted, satisfiable schema using only the engine's supported subset."""
    if not 0 <= max_properties <= MAX_PROPERTIES:
        raise ValueError(f"max_properties must be within 0..{MAX_PROPERTIES}")
    root: Schema = {}
    if draw(st.booleans()):
        root["$schema"] = DRAFT_2020_12
    if draw(st.integers(0, 4)) == 0:
        root["$id"] = "https://example.com/tools/" + draw(st.sampled_from(("a", "b"))) + ".json"
    root["type"] = "object"
    root.update(draw(_object_keywords(1, max_properties)))
    root.update(draw(_annotations()))
    return root


def schema_depth(schema: JSON) -> int:
    """Subschema nesting depth as this module counts it (the root is 1)."""
    if not isinstance(schema, dict):
        return 1
    children = list(schema.get("properties", {}).values())
    if "items" in schema:
        children.append(schema["items"])
    return 1 + max((schema_depth(child) for child in children), default=0)
