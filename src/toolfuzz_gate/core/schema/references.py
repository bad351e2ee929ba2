"""Local `$ref`s: reading their targets, linking them, and finding their cycles (pure).

Only references into the same document are followed: `#`, `#/$defs/Name`,
`#/definitions/Name` or any other JSON Pointer fragment. Remote references and
anchors are refused with a reason rather than fetched or guessed. Two kinds of
cycle matter. A cycle that never descends into the instance (`{"$ref": "#"}` at
the root, or two definitions that refer to each other through `allOf`) would make
every check loop, so it is an error. A cycle that does descend (a tree whose
children are trees) is an ordinary recursive model: it compiles, the generator
bounds how deep it goes, and the receipt says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.keywords.compose import Reference
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.errors import SchemaProblem

MISSING = object()
_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")


def _percent_decoded(fragment: str) -> str:
    """A URI fragment's %XX escapes decoded as UTF-8 (RFC 3986), without urllib."""
    raw = _PERCENT.sub(lambda m: bytes([int(m.group(1), 16)]), fragment.encode("utf-8"))
    return raw.decode("utf-8", errors="replace")


def target_pointer(ref: str) -> tuple[str | None, str]:
    """(the JSON Pointer a `$ref` names, "") or (None, why it cannot be followed)."""
    if not ref.startswith("#"):
        return None, (
            f"the remote reference {ref[:80]!r} is not fetched; bundle the schema it names "
            "into $defs and refer to it as #/$defs/..."
        )
    fragment = _percent_decoded(ref[1:])
    if fragment == "" or fragment.startswith("/"):
        return fragment, ""
    return None, f"the anchor reference {ref[:80]!r} is not supported; use a JSON Pointer"


def resolve(document: JSON, pointer: str) -> object:
    """The value at `pointer` in `document`, or MISSING."""
    here: object = document
    for token in jp.split(pointer):
        if isinstance(here, dict) and token in here:
            here = here[token]
        elif isinstance(here, list) and token.isdigit() and int(token) < len(here):
            here = here[int(token)]
        else:
            return MISSING
    return here


def link(
    references: list[Reference],
    compiled: dict[str, Node],
    compile_at: Callable[[JSON, str], Node],
    document: JSON,
) -> list[SchemaProblem]:
    """Point every reference at its compiled target, compiling targets not yet compiled
    (a reference into a schema that is not a subschema, say). Returns the problems."""
    problems: list[SchemaProblem] = []
    done = 0
    while done < len(references):  # compiling a target may add references
        reference = references[done]
        done += 1
        node = compiled.get(reference.target)
        if node is None:
            value = resolve(document, reference.target)
            if value is MISSING:
                problems.append(
                    SchemaProblem(
                        "schema.unresolvable-ref",
                        jp.join(reference.location, "$ref"),
                        f"nothing in the document is at #{reference.target}",
                        "$ref",
                    )
                )
                continue
            node = compile_at(value, reference.target)  # type: ignore[arg-type]
        reference.node = node
    return problems


def same_instance_parts(node: Node) -> Iterator[Node]:
    """The schemas applied to the same instance as `node` (each keyword's `in_place`)."""
    for name, argument in node.keywords:
        in_place = KEYWORDS[name].in_place
        if in_place is not None:
            yield from in_place(argument)


def same_instance_cycles(nodes: Iterable[Node]) -> list[SchemaProblem]:
    """`$ref`/`allOf`/`anyOf`/`oneOf`/`not`/`if` chains (every keyword's `in_place`) that
    come back to where they started."""
    problems: list[SchemaProblem] = []
    state: dict[int, int] = {}  # id -> 1 while on the current path, 2 when done
    for start in nodes:
        if state.get(id(start)):
            continue
        state[id(start)] = 1
        stack: list[tuple[Node, Iterator[Node]]] = [(start, same_instance_parts(start))]
        while stack:
            node, parts = stack[-1]
            child = next(parts, None)
            if child is None:
                state[id(node)] = 2
                stack.pop()
                continue
            mark = state.get(id(child))
            if mark == 1:
                problems.append(
                    SchemaProblem(
                        "schema.ref-cycle",
                        node.pointer,
                        f"this schema applies {child.pointer or '#'} to the same value, which "
                        "leads back here without descending into the value: it can never be "
                        "decided",
                        "$ref",
                    )
                )
            elif mark is None:
                state[id(child)] = 1
                stack.append((child, same_instance_parts(child)))
    return problems


def is_recursive(references: Iterable[Reference]) -> bool:
    """Whether some reference leads, directly or through others, back into a schema
    that contains it: the document describes values of unbounded depth."""
    refs = list(references)
    targets = sorted({r.target for r in refs}, key=len, reverse=True)

    def owner(location: str) -> str:
        for target in targets:
            if location == target or location.startswith(target + "/") or target == "":
                return target
        return ""

    edges: dict[str, set[str]] = {}
    for reference in refs:
        edges.setdefault(owner(reference.location), set()).add(reference.target)
    seen: set[str] = set()
    on_path: set[str] = set()

    def visit(vertex: str) -> bool:
        if vertex in on_path:
            return True
        if vertex in seen:
            return False
        seen.add(vertex)
        on_path.add(vertex)
        found = any(visit(nxt) for nxt in sorted(edges.get(vertex, ())))
        on_path.discard(vertex)
        return found

    return any(visit(vertex) for vertex in sorted(edges))
