"""Compile a JSON Schema into the engine's node tree, refusing what it does not understand (pure).

Design note. The compiler reads a bounded, explicit subset: a keyword is
supported exactly when `core.schema.keywords.KEYWORDS` has an entry for it; a name JSON
Schema does not define at all (`core.schema.vocabulary`) is an annotation, recorded and
ignored, as draft 2020-12 reads unknown keywords. It makes one
pass over the whole document and collects *every* problem (unsupported keywords,
unsafe property names, contradictions, limits) before failing, because a report
that lists one refusal at a time makes users fix schemas in a loop. It never
descends into an unsupported keyword's value: what lies inside is not read, so
it cannot be judged. Contradictions (an empty domain) are errors here rather than
generation failures later, so the message can point at the keyword at fault.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from toolfuzz_gate.core.engine.consistency import (
    iter_linked_contradictions,
    iter_local_problems,
    prove_empty,
)
from toolfuzz_gate.core.engine.satisfiable import check_generation
from toolfuzz_gate.core.engine.screen import iter_lone_surrogates, iter_unsafe_names
from toolfuzz_gate.core.engine.sizes import estimate_bytes
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_compact, digest
from toolfuzz_gate.core.schema.conjoin import conjoin, effective
from toolfuzz_gate.core.schema.dialects import type_hint
from toolfuzz_gate.core.schema.keywords import INVALID, KEYWORDS
from toolfuzz_gate.core.schema.keywords.compose import Reference
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.core.schema.node import CompiledSchema, Domain, Node
from toolfuzz_gate.core.schema.options import (
    DEFAULT_OPTIONS,
    DRAFT_07,
    SchemaOptions,
    declared_draft,
)
from toolfuzz_gate.core.schema.references import (
    is_recursive,
    link,
    same_instance_cycles,
    target_pointer,
)
from toolfuzz_gate.core.schema.vocabulary import is_defined
from toolfuzz_gate.errors import SchemaError, SchemaProblem


@dataclass
class _Compilation:
    limits: Limits
    options: SchemaOptions
    draft: str
    problems: list[SchemaProblem] = field(default_factory=list)
    nodes: int = 0
    compiled: dict[str, Node] = field(default_factory=dict)
    """Every compiled schema object by its pointer: what `$ref`s link to."""
    references: list[Reference] = field(default_factory=list)
    nested_ids: list[str] = field(default_factory=list)
    ref_count: int = 0
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """(pointer, keyword) of each name JSON Schema does not define: read as an annotation."""


@dataclass
class _ObjectContext:
    """The `ParseContext` for one schema object."""

    state: _Compilation
    pointer: str
    depth: int

    @property
    def limits(self) -> Limits:
        return self.state.limits

    @property
    def draft(self) -> str:
        return self.state.draft

    @property
    def options(self) -> SchemaOptions:
        return self.state.options

    def problem(self, code: str, keyword: str, message: str, *tokens: str | int) -> None:
        where = jp.join(self.pointer, keyword, *tokens)
        self.state.problems.append(SchemaProblem(code, where, message, keyword))

    def subschema(self, document: JSON, *tokens: str | int) -> Node:
        return _compile_node(self.state, document, jp.join(self.pointer, *tokens), self.depth + 1)

    def type_hint(self, name: object) -> str:
        return type_hint(name)

    def reference(self, target: str) -> Any:
        self.state.ref_count += 1
        pointer, why = target_pointer(target)
        if pointer is None:
            self.problem("schema.unsupported-ref", "$ref", why)
            return INVALID
        reference = Reference(pointer, self.pointer)
        self.state.references.append(reference)
        return reference


def compile_schema(
    document: JSON, *, limits: Limits = DEFAULT_LIMITS, options: SchemaOptions = DEFAULT_OPTIONS
) -> CompiledSchema:
    """Compile `document`, or raise `SchemaError` listing every problem found."""
    draft, unsupported = declared_draft(document)
    if unsupported is not None:
        raise SchemaError(
            [
                SchemaProblem(
                    "schema.unsupported-draft",
                    "/$schema",
                    f"$schema names {unsupported}; the supported drafts are draft-07 and 2020-12",
                    "$schema",
                )
            ]
        )
    surrogates = list(iter_lone_surrogates(document, ""))
    if surrogates:
        raise SchemaError(surrogates)
    state = _Compilation(limits, options, draft or options.default_draft)
    size = len(canonical_compact(document).encode("ascii"))
    if size > limits.max_schema_bytes:
        raise SchemaError(
            [
                SchemaProblem(
                    "schema.limit-size",
                    "",
                    f"the schema is {size} bytes; at most {limits.max_schema_bytes} are supported",
                )
            ]
        )
    state.problems.extend(iter_unsafe_names(document, ""))
    root = _compile_node(state, document, "", 0)
    _link_references(state, document)
    if not state.problems:
        state.problems.extend(iter_linked_contradictions(state.compiled.values()))
    if not state.problems:
        built = check_generation(state.compiled.values(), limits)
        state.problems.extend(_proven(state, problem) for problem in built)
    if not state.problems:
        estimate = estimate_bytes(root, limits)
        if estimate > limits.max_value_bytes:
            state.problems.append(
                SchemaProblem(
                    "schema.limit-value-size",
                    "",
                    f"a generated value could reach about {estimate} bytes; at most "
                    f"{limits.max_value_bytes} are supported (lower maxItems or maxLength)",
                )
            )
    if state.problems:
        raise SchemaError(state.problems)
    return CompiledSchema(
        root,
        document,
        digest(document),
        state.nodes,
        state.draft,
        options,
        is_recursive(state.references),
        tuple(dict.fromkeys(state.ignored)),
    )


def _proven(state: _Compilation, problem: SchemaProblem) -> SchemaProblem:
    """A node the engine could not build for, as a contradiction when the local checks prove
    its merged reading empty (a closed object in one `allOf` branch and a required name from
    another); otherwise the `schema.unbuildable` it is."""
    node = state.compiled.get(problem.pointer)
    if problem.code != "schema.unbuildable" or node is None:
        return problem
    merged = effective(node)
    proof = prove_empty(node, merged)
    if proof is not None:
        return proof
    for code, keyword, message, tokens in iter_local_problems(merged, state.limits, True):
        if code == "schema.contradiction":
            return SchemaProblem(code, jp.join(node.pointer, keyword, *tokens), message, keyword)
    return problem


def _link_references(state: _Compilation, document: JSON) -> None:
    if not state.ref_count:
        return
    if state.nested_ids:
        state.problems.extend(
            SchemaProblem(
                "schema.unsupported-ref",
                where,
                "a nested $id changes what $ref resolves against; that is not supported",
                "$id",
            )
            for where in state.nested_ids
        )
        return
    state.problems.extend(
        link(
            state.references,
            state.compiled,
            lambda value, where: _compile_node(state, value, where, 1),
            document,
        )
    )
    if not state.problems:
        state.problems.extend(same_instance_cycles(list(state.compiled.values())))


def _compile_node(state: _Compilation, document: JSON, where: str, depth: int) -> Node:
    state.nodes += 1
    if state.nodes == state.limits.max_nodes + 1:
        state.problems.append(
            SchemaProblem(
                "schema.limit-nodes",
                where,
                f"the schema has more than {state.limits.max_nodes} subschemas",
            )
        )
    if depth > state.limits.max_depth:
        state.problems.append(
            SchemaProblem(
                "schema.limit-depth",
                where,
                f"subschemas nest deeper than {state.limits.max_depth} levels",
            )
        )
        return Node(where, never=True)
    if isinstance(document, bool):
        return Node(where, never=not document)
    if not isinstance(document, dict):
        state.problems.append(
            SchemaProblem("schema.not-a-schema", where, "a schema must be an object or a boolean")
        )
        return Node(where, never=True)

    ctx = _ObjectContext(state, where, depth)
    parsed: list[tuple[str, Any]] = []
    if state.draft == DRAFT_07 and "$ref" in document:
        # draft-07: "All other properties in a $ref object MUST be ignored" (its definitions
        # are still compiled: other references may point into them).
        document = {k: v for k, v in document.items() if k in ("$ref", "definitions")}
    if where and "$id" in document:
        state.nested_ids.append(jp.join(where, "$id"))
    for name, argument in document.items():
        keyword = KEYWORDS.get(name)
        if keyword is None and not is_defined(name):
            state.ignored.append((jp.join(where, name), name))
            continue
        if keyword is None:
            ctx.problem(
                "schema.unsupported-keyword",
                name,
                f"the keyword {name!r} is not supported",
            )
            continue
        if state.draft not in keyword.drafts:
            ctx.problem(
                "schema.unsupported-keyword",
                name,
                f"{name!r} is not a keyword of {state.draft} (the draft this schema is read as)",
            )
            continue
        value = keyword.parse(argument, ctx)
        if value is not INVALID and keyword.check is not None:
            parsed.append((name, value))
    siblings = dict(parsed)
    parsed = [
        (name, bind(value, siblings) if (bind := KEYWORDS[name].bind) else value)
        for name, value in parsed
    ]
    domain = Domain()
    for name, value in parsed:
        domain = KEYWORDS[name].narrow(domain, value, conjoin)
    node = Node(where, tuple(parsed), domain, _forbidden(parsed))
    before = len(state.problems)
    refused = (jp.join(where, "properties"), jp.join(where, "patternProperties"))
    members_read = not any(p.pointer in refused for p in state.problems)  # else unknown
    for code, name, message, tokens in iter_local_problems(node, state.limits, members_read):
        ctx.problem(code, name, message, *tokens)
    if any(p.code == "schema.contradiction" for p in state.problems[before:]):
        node = replace(node, never=True)  # proven empty; an unbuildable node is not
    state.compiled[where] = node
    return node


def _forbidden(parsed: list[tuple[str, Any]]) -> bool:
    """Whether one keyword's argument makes the object admit nothing (`{"not": {}}`)."""
    for name, argument in parsed:
        forbids = KEYWORDS[name].forbids
        if forbids is not None and forbids(argument):
            return True
    return False
