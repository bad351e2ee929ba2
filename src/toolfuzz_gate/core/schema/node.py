"""The compiled schema tree: what the generator, mutator and validator walk (pure data).

A `Node` keeps its keywords' parsed arguments (for checking and mutation) and a
`Domain`, the generation-side reading of those same keywords, which each keyword
narrows in turn (see `core.schema.keywords`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import ALL_TYPES
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.core.schema.regex import Pattern


@dataclass(frozen=True)
class Choice:
    """An `anyOf` or `oneOf`: a valid value satisfies one branch (`oneOf`: exactly one); or
    the two sides of an `if` or of a dependent schema (`core.schema.keywords.conditional`)."""

    keyword: str
    branches: tuple[Node, ...]
    condition: Node | None = None
    """A value satisfying it can only be valid through `branches[0]` (the `if` schema; a
    dependent schema's trigger, required)."""


@dataclass(frozen=True)
class Domain:
    """The set of values a node admits, in the form generation needs."""

    types: frozenset[str] = ALL_TYPES
    enum: tuple[JSON, ...] | None = None
    lo: int | float | None = None
    hi: int | float | None = None
    min_length: int = 0
    max_length: int | None = None
    min_items: int = 0
    max_items: int | None = None
    items: Node | None = None
    properties: tuple[tuple[str, Node], ...] = ()
    required: tuple[str, ...] = ()
    additional: bool = True
    choices: tuple[Choice, ...] = ()
    formats: tuple[str, ...] = ()
    """Known `format` names a string must conform to (sorted; generation-side, both modes)."""
    additional_values: tuple[Node, ...] = ()
    """Schemas every member not in `properties` must satisfy (`additionalProperties`)."""
    min_properties: int = 0
    max_properties: int | None = None
    dependent_required: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(name, names that must be present when it is), from `dependentRequired`."""
    multiples: tuple[int | float, ...] = ()
    """Every `multipleOf` a number must satisfy at once."""
    unique_items: bool = False
    prefix_items: tuple[Node, ...] = ()
    """Positional item schemas; `items` then governs only the items after them."""
    contains: Node | None = None
    min_contains: int = 0
    """How many items must match `contains` (1 unless `minContains` says otherwise)."""
    max_contains: int | None = None
    patterns: tuple[Pattern, ...] = ()
    pattern_properties: tuple[tuple[Pattern, Node], ...] = ()
    property_names: tuple[Node, ...] = ()
    negations: tuple[Node, ...] = ()
    """Schemas a value must not satisfy (`not`); generation rejects what matches one."""

    def property_node(self, name: str) -> Node | None:
        for key, node in self.properties:
            if key == name:
                return node
        return None


@dataclass(frozen=True, eq=False)
class Node:
    """One (sub)schema. `never` is the `false` schema: nothing validates.

    Nodes compare by identity: a recursive schema's nodes form a graph, and merged
    nodes are memoized by identity (`core.schema.conjoin`)."""

    pointer: str
    keywords: tuple[tuple[str, Any], ...] = ()
    domain: Domain = field(default_factory=Domain)
    never: bool = False

    def argument(self, keyword: str, default: Any = None) -> Any:
        for name, value in self.keywords:
            if name == keyword:
                return value
        return default

    def children(self) -> tuple[Node, ...]:
        found = [node for _, node in self.domain.properties]
        found.extend(self.domain.prefix_items)
        if self.domain.items is not None:
            found.append(self.domain.items)
        found.extend(self.domain.additional_values)
        if self.domain.contains is not None:
            found.append(self.domain.contains)
        found.extend(node for _, node in self.domain.pattern_properties)
        found.extend(self.domain.property_names)
        return tuple(found)


@dataclass(frozen=True)
class CompiledSchema:
    """A schema the engine fully understands, with its digest, size and reading."""

    root: Node
    document: JSON
    digest: str
    node_count: int
    draft: str = "2020-12"
    options: SchemaOptions = DEFAULT_OPTIONS
    recursive: bool = False
    """Whether `$ref`s make values of unbounded depth possible (generation bounds it)."""
    ignored: tuple[tuple[str, str], ...] = ()
    """(pointer, keyword) of every name JSON Schema does not define, in document order:
    read as annotations, so they constrain nothing (`core.schema.vocabulary`)."""
