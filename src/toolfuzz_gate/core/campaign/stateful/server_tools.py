"""A server's tools made ready for a stateful campaign: shapes, links, argument makers (pure).

Each tool's schema is compiled once; its arguments for a sequence's call are the engine's
valid value for (seed, index), with the tool's fixed arguments set and its fixture arguments
naming its fixtures in turn by index (as in its own campaign), so the same seed gives the
same sequences. A tool whose schema the engine refuses, or whose arguments are not an
object, takes no part (its own campaign says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle
from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool, infer_links
from toolfuzz_gate.core.campaign.stateful.tool_kinds import classify
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.schema.dialects import normalize
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.errors import SchemaError


@dataclass(frozen=True)
class ToolEntry:
    """One tool as its server lists it and the policy sets it up."""

    spec: ToolSpec
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] | None = None
    dialect: str | None = None
    options: SchemaOptions = DEFAULT_OPTIONS


class PreparedTools:
    """The campaign's tools, their links, and making and judging their arguments."""

    def __init__(
        self,
        entries: Sequence[ToolEntry],
        kinds: Mapping[str, str],
        declared: Sequence[Link],
        seed: int,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.seed = seed
        self.limits = limits
        self._compiled: dict[str, CompiledSchema] = {}
        self._oracles: dict[str, JsonschemaOracle] = {}
        self._specs: dict[str, ToolSpec] = {}
        tools: dict[str, ServerTool] = {}
        for entry in entries:
            name = entry.spec.name
            document, _ = normalize(dict(entry.input_schema), entry.dialect)
            try:
                compiled = compile_schema(document, limits=limits, options=entry.options)
            except SchemaError:
                continue
            if not isinstance(document, dict):
                continue
            self._compiled[name] = compiled
            self._oracles[name] = JsonschemaOracle(document, entry.options)
            self._specs[name] = entry.spec
            shape = classify(name, entry.annotations, kinds.get(name))
            tools[name] = ServerTool(shape, document, entry.output_schema)
        self.tools = tools
        known = [link for link in declared if link.producer in tools and link.consumer in tools]
        self.links = infer_links(list(tools.values()), known)

    def make(self, tool: str, index: int) -> JSONObject:
        value = generate(self._compiled[tool], self.seed, index, self.limits)
        spec = self._specs[tool]
        value = spec.with_fixed(spec.with_fixtures(value, index))
        return value if isinstance(value, dict) else {}

    def admits(self, tool: str, arguments: JSONObject) -> bool:
        oracle = self._oracles.get(tool)
        spec = self._specs.get(tool)
        return (
            oracle is not None
            and spec is not None
            and spec.keeps_fixed(arguments)
            and oracle.is_valid(arguments)
        )
