"""A tool's arguments: the root schema read as an object, as the protocol requires (pure).

A root that also admits other values (`{"properties": ...}` without `type`, a `$ref` or an
`anyOf` at the root, `type: ["object", "null"]`) is generated as its objects only: a call
whose arguments are not an object is no call. A root that admits no object at all is
refused (`schema.root-not-object`), judged on the merged root (a `$ref` to a string schema
is as much a string as `type: string`), or whose object part the generator cannot build
(`core.engine.satisfiable.root_problem`).
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.conjoin import conjoin, effective
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.errors import SchemaProblem

OBJECT = frozenset({"object"})
_OBJECT_TYPE = Node("", (("type", OBJECT),), Domain(types=OBJECT))

ROOT_NOT_OBJECT = SchemaProblem("schema.root-not-object", "", "a tool's arguments are an object")


def arguments_node(root: Node) -> Node:
    """`root` and `type: object` together where `root` admits objects and more; else `root`
    (a root of no object at all is refused before anything is generated from it)."""
    types = effective(root).domain.types
    if types <= OBJECT or "object" not in types:
        return root
    return conjoin(root, _OBJECT_TYPE)


def admits_object(root: Node) -> bool:
    """False when `root` provably admits no object (`core.engine.satisfiable.root_problem`
    also tries to build one)."""
    return _admits_object(root, frozenset())


def _admits_object(node: Node, seen: frozenset[str]) -> bool:
    """False only when provably no object satisfies `node`: its merged types or enum leave
    none out, or every branch of one of its `anyOf`/`oneOf` does."""
    merged = effective(node)
    d = merged.domain
    if merged.never or "object" not in d.types:
        return False
    if d.enum is not None and not any(isinstance(member, dict) for member in d.enum):
        return False
    if merged.pointer in seen:  # a `$ref` back to a choice already being judged
        return True
    inside = seen | {merged.pointer}
    return all(
        any(_admits_object(branch, inside) for branch in choice.branches) for choice in d.choices
    )
