"""Which names JSON Schema defines as keywords, and the defined keyword a name is closest to
(pure data and one pure function).

A keyword the specification defines changes validation (or reference resolution) in some
draft, so a defined keyword the engine does not implement is refused: ignoring it would fuzz
a different schema from the one the handler's validator reads. Any other name (`optional`,
`example`, `types`, `strict`) is, as draft 2020-12 says of unknown keywords, an annotation:
it constrains nothing, the compiler records it and ignores it, and `lint` warns about it
with the defined keyword it is closest to. A misspelt validation keyword (`types`,
`minLenght`) is therefore an annotation by the specification too: the constraint it was meant
to state is not in the schema, which is what `lint`'s did-you-mean is for.
"""

from __future__ import annotations

DEFINED_KEYWORDS = frozenset(
    {
        # draft-04 (`id` is its spelling of `$id`)
        "$schema",
        "id",
        "title",
        "description",
        "default",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "additionalItems",
        "items",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "additionalProperties",
        "definitions",
        "properties",
        "patternProperties",
        "dependencies",
        "enum",
        "type",
        "format",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        # draft-06
        "$id",
        "$ref",
        "examples",
        "const",
        "contains",
        "propertyNames",
        # draft-07
        "$comment",
        "if",
        "then",
        "else",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        # 2019-09
        "$anchor",
        "$defs",
        "$recursiveAnchor",
        "$recursiveRef",
        "$vocabulary",
        "contentSchema",
        "dependentRequired",
        "dependentSchemas",
        "deprecated",
        "maxContains",
        "minContains",
        "unevaluatedItems",
        "unevaluatedProperties",
        # 2020-12
        "$dynamicAnchor",
        "$dynamicRef",
        "prefixItems",
    }
)
"""Every keyword the metaschemas of draft-04, draft-06, draft-07, 2019-09 and 2020-12
define (their `properties`, vocabularies included, as the `jsonschema-specifications`
package ships them; `tests/core/schema/test_vocabulary.py` holds this set equal to them).
Draft-03's own names (`disallow`, `divisibleBy`, `extends`) are not here: the engine reads
no draft that old, so they are annotations like any other unknown name (and `lint` warns)."""

NEAR_CUTOFF = 0.8
"""How alike (difflib's ratio, case-folded) a name must be to a defined keyword to be named
as what was meant: `types`/`type` is 0.89, `minLenght`/`minLength` 0.89, `example`/`examples`
0.93, `maxlength`/`maxLength` 1.0; `optional`, `strict` and `example_value` match nothing."""

_FOLDED = {name.casefold(): name for name in sorted(DEFINED_KEYWORDS)}


def is_defined(name: str) -> bool:
    """Whether JSON Schema defines `name` as a keyword in some draft the engine may see."""
    return name in DEFINED_KEYWORDS


def nearest_keyword(name: str) -> str | None:
    """The defined keyword `name` most likely misspells (None: none is close enough)."""
    import difflib  # here: a schema with no unknown keyword never asks

    folded = name.casefold()
    matches = difflib.get_close_matches(folded, list(_FOLDED), n=1, cutoff=NEAR_CUTOFF)
    if not matches or _FOLDED[matches[0]] == name:
        return None
    return _FOLDED[matches[0]]
