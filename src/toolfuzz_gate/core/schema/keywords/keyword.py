"""The shape of one keyword entry and the seams it uses (pure).

A keyword carries its whole meaning in one place: how its argument is read
(`parse`), how it narrows what the generator produces (`narrow`), how the
engine checks an instance against it (`check`), and which hostile near-misses
it yields (`recipes`). "Supported" means exactly "has an entry in the table".
An applicator also says where its written argument holds schemas (`subschemas`),
which compiled schemas it applies to the instance itself (`in_place`), and how
generation treats them (`merged`, `branches`, `composes`, `forbids`): the passes
that walk documents, link `$ref`s, merge nodes, find reference cycles and try
generation read these instead of naming keywords.

The operations a keyword needs that themselves read the keyword table (checking
a child schema, merging two nodes, the near-misses of an inner keyword) are
handed in by the caller, as jsonschema hands each keyword its validator: `check`
gets `Recurse`, `narrow` gets `Merge`, and `recipes` gets a `RecipeContext`. No
keyword imports the modules behind them, so the table has no way back to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from random import Random
from typing import Any, Protocol

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.options import DRAFTS, SchemaOptions

NUMBERS = frozenset({"integer", "number"})
STRINGS = frozenset({"string"})
ARRAYS = frozenset({"array"})
OBJECTS = frozenset({"object"})

INVALID: Any = object()
"""What `parse` returns for an argument it reported as a problem: the keyword is skipped."""

INAPPLICABLE: Any = object()
"""What a recipe's `make` returns when the value at hand admits no such near-miss."""

SCHEMA = "schema"
"""`subschemas`: the argument is one schema (`not`, `items` in 2020-12)."""
SCHEMA_LIST = "list"
"""`subschemas`: the argument is a list of schemas (`allOf`, `prefixItems`)."""
SCHEMA_MAP = "map"
"""`subschemas`: the argument maps names to schemas (`properties`, `$defs`)."""
SCHEMA_OR_LIST = "schema-or-list"
"""`subschemas`: one schema or a list of them (`items`, whose list form is draft-07's)."""


class ParseContext(Protocol):
    """What a keyword's `parse` may use while the compiler reads one schema object."""

    @property
    def pointer(self) -> str: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def draft(self) -> str:
        """The draft this document is read under (`core.schema.options.DRAFTS`)."""

    @property
    def options(self) -> SchemaOptions: ...

    def problem(self, code: str, keyword: str, message: str, *tokens: str | int) -> None:
        """Report a problem at this object's pointer / keyword / tokens."""

    def subschema(self, document: JSON, *tokens: str | int) -> Node:
        """Compile a child schema found at this object's pointer / tokens."""

    def reference(self, target: str) -> Any:
        """A link to the schema `target` (a `$ref` value) names, or INVALID after
        reporting why it cannot be followed."""

    def type_hint(self, name: object) -> str:
        """ "" or a sentence naming the dialects that read the type name `name` (the
        dialects walk documents by this table, so the table does not import them)."""


class RecipeContext(Protocol):
    """What a keyword's `recipes` may use: the run's limits and the operations on
    compiled nodes that read the keyword table (`core.schema.recipe_context` has the
    one the mutator hands in)."""

    @property
    def limits(self) -> Limits: ...

    def is_valid(self, node: Node, instance: JSON) -> bool:
        """Whether `instance` satisfies `node` (the engine's own reading)."""

    def conjoin(self, first: Node, second: Node) -> Node:
        """One node admitting what both admit, at `first`'s pointer."""

    def without(self, node: Node, *names: str) -> Node:
        """`node` merged, with the named keywords dropped."""

    def governing(self, domain: Domain, name: str, child: Node | None) -> Node | None:
        """The merge of every schema governing the member `name` of an object of `domain`
        (`child` is its `properties` schema); None when none does."""

    def admits_nothing(self, node: Node) -> bool:
        """Whether no value satisfies `node`."""

    def keyword_recipes(self, node: Node, name: str, argument: Any) -> Iterable[Recipe]:
        """The near-misses of `node`'s own keyword `name` (for a keyword reaching into a
        subschema, as `propertyNames` does)."""


class Maker(Protocol):
    """What a hostile recipe may use: fresh valid values, seeded randomness."""

    @property
    def rng(self) -> Random: ...

    def valid(self, node: Node) -> JSON: ...


Recurse = Callable[[Node, JSON], bool]
"""Whether an instance satisfies a child schema: what `check` gets to descend."""
Merge = Callable[[Node, Node], Node]
"""One node admitting what both admit: what `narrow` gets to merge child schemas."""
Make = Callable[[JSON, Maker], JSON]


@dataclass(frozen=True)
class Recipe:
    """One hostile near-miss: replace the valid value at a node by `make(value)`.

    `needs` is the JSON type the current value must have for `make` to apply
    (`object` for `required`, say); the mutator ensures one exists.
    """

    family: str
    keyword: str
    variant: str
    make: Make
    needs: str | None = None


def _unchanged(domain: Domain, argument: Any, merge: Merge) -> Domain:
    return domain


def _no_recipes(node: Node, argument: Any, ctx: RecipeContext) -> Iterable[Recipe]:
    return ()


Bind = Callable[[Any, Mapping[str, Any]], Any]


@dataclass(frozen=True)
class Keyword:
    """One supported keyword. `check` is None for annotations.

    `narrow` must intersect: applied to a domain another schema already narrowed, it
    leaves only values both admit (this is how `allOf` and `$ref` merge nodes).
    `check` must not read the node's domain, which may be a merge of several schema
    objects; a keyword whose meaning depends on its siblings (`additionalProperties`
    on `properties`) captures them in `bind`, called once every keyword of the
    object is parsed, with the parsed siblings by name. `drafts` lists the drafts in
    which the keyword exists; elsewhere it is refused like an unknown keyword.
    `unchosen`, for a keyword whose `narrow` adds a `Choice`, gives its argument without
    the part the choice stands for (INVALID when nothing is left): the generator conjoins
    one branch of each choice with what remains (`core.schema.conjoin.without_choices`).

    The applicator facts. `subschemas` says how the written argument holds schemas
    (`SCHEMA`, `SCHEMA_LIST`, `SCHEMA_MAP`, `SCHEMA_OR_LIST`), for the passes that read
    a document without compiling it (`core.schema.subschemas`). `in_place` gives the
    compiled schemas the keyword applies to the node's own instance (not to its members
    or items): the edges of a `$ref` cycle that never descends (`core.schema.references`),
    and what may hide a `$ref` not yet linked (`core.engine.compile`). `merged`: those
    schemas are merged into the node for generation and mutation, as `allOf` and `$ref`
    are (`core.schema.conjoin.effective`). `branches`: its `Choice` is alternatives a valid
    value satisfies one of (`anyOf`, `oneOf`), which the mutator and the boundary ledger
    walk into one by one; the sides of `if` are not. `composes`: generation merges other
    schemas into what it builds or rejects values for it (`not`, `propertyNames`), so the
    compiler tries building values for every node with it (`core.engine.satisfiable`), as
    it does for merged keywords and choices. `forbids`: whether this argument alone makes
    the schema object admit nothing (`{"not": {}}`), read by the compiler as `false`.
    """

    name: str
    parse: Callable[[Any, ParseContext], Any]
    narrow: Callable[[Domain, Any, Merge], Domain] = _unchanged
    check: Callable[[Node, Any, JSON, Recurse], bool] | None = None
    family: str | None = None
    recipes: Callable[[Node, Any, RecipeContext], Iterable[Recipe]] = _no_recipes
    bind: Bind | None = None
    drafts: frozenset[str] = frozenset(DRAFTS)
    instance_types: frozenset[str] | None = None
    unchosen: Callable[[Any], Any] | None = None
    subschemas: str | None = None
    in_place: Callable[[Any], Iterable[Node]] | None = None
    merged: bool = False
    branches: bool = False
    composes: bool = False
    forbids: Callable[[Any], bool] | None = None


def none_left(argument: Any) -> Any:
    """`unchosen` for a keyword that is nothing but its choice (`anyOf`, `if`)."""
    return INVALID


def parse_any(argument: Any, ctx: ParseContext) -> Any:
    return argument


def parse_count(argument: Any, ctx: ParseContext, keyword: str) -> Any:
    """A non-negative integer argument (`minLength: 2`, not `2.5` or `-1`)."""
    if isinstance(argument, bool) or not isinstance(argument, int | float):
        ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be an integer")
        return INVALID
    if isinstance(argument, float) and not argument.is_integer():
        ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be a whole number")
        return INVALID
    if argument < 0:
        ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be >= 0")
        return INVALID
    return int(argument)


@dataclass(frozen=True)
class CountBound:
    """The shared reading of `minLength`/`maxLength`/`minItems`/`maxItems`: a bound on
    `len()` of instances of one type, narrowing one `Domain` field."""

    keyword: str
    applies_to: type
    field: str
    lower: bool

    def parse(self, argument: Any, ctx: ParseContext) -> Any:
        return parse_count(argument, ctx, self.keyword)

    def parse_within(self, argument: Any, ctx: ParseContext, cap: int, code: str) -> Any:
        """A lower bound the generator must reach, so it may not exceed `cap` (`code`)."""
        count = self.parse(argument, ctx)
        if count is not INVALID and count > cap:
            ctx.problem(code, self.keyword, f"{self.keyword} {count} exceeds the {cap} supported")
            return INVALID
        return count

    def narrow(self, domain: Domain, argument: int, merge: Merge) -> Domain:
        current = getattr(domain, self.field)
        if current is None:
            bound = argument
        else:
            bound = max(current, argument) if self.lower else min(current, argument)
        changes: dict[str, Any] = {self.field: bound}
        return replace(domain, **changes)

    def check(self, node: Node, argument: int, instance: JSON, recurse: object) -> bool:
        if not isinstance(instance, self.applies_to):
            return True
        size = len(instance)  # type: ignore[arg-type]
        return size >= argument if self.lower else size <= argument
