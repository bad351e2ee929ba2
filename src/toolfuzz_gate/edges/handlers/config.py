"""What starts a handler: the adapters' config, the policy's handler settings plus what a
run adds (edge).

`HandlerConfig.from_policy` is the one place a policy's handler becomes a config.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_TIMEOUT_MS
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.edges.handlers.checkout import Checkout, WorkTree

if TYPE_CHECKING:  # annotations only: a run without a policy or MCP loads neither
    from toolfuzz_gate.core.gate.policy import RunOptions
    from toolfuzz_gate.edges.handlers.mcp_servers import McpServers


@dataclass(frozen=True)
class HandlerConfig(HandlerSettings):
    """Everything needed to start a handler: its settings (`HandlerSettings`: the kind
    picks the adapter, the other fields are read by the adapters they concern), the
    per-call timeout and output cap, and the checkout its code is read from."""

    timeout_ms: int = DEFAULT_TIMEOUT_MS
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    ignore_output: tuple[str, ...] = ()
    """JSON Pointers of output members the output's digest leaves out (ids, times)."""
    output_text_chars: int = 0
    """Characters of an accepted call's output kept as `Outcome.output_text`; 0 (the
    campaign's setting): none. Agent mode sets it, since the model reads the output."""
    root: str | None = None
    """The checkout the handler's code is read from (`checkout.Checkout`); None: the
    gate's current directory. Not part of the label: receipts say what was configured."""
    mirrors: str | None = None
    """On the base side, the head's checkout: its absolute paths are read from `root`."""
    python: str | None = None
    """python handlers and models: the interpreter the policy names (`python_interpreter`;
    `interpreter.resolve_python`); None: the default. Not part of the label: a machine's
    path is no property of the tool."""
    servers: McpServers | None = field(default=None, compare=False, repr=False)
    """mcp: the run's shared servers, when this tool may share its server with other tools
    of it (`mcp_servers`); None: a server of its own."""
    listed: McpServers | None = field(default=None, compare=False, repr=False)
    """mcp: the servers a listing left running (`mcp.list_tools` with `servers`); this
    tool's handler takes its server over instead of starting one, when it may."""
    work_tree: WorkTree | None = None
    """The workspace the handler runs in, once `registry.build_handler` has made it (from
    `sandbox` and `fixtures`); None: none."""

    @classmethod
    def from_policy(
        cls,
        settings: HandlerSettings,
        tool: str,
        options: RunOptions,
        *,
        root: str | None = None,
        mirrors: str | None = None,
    ) -> HandlerConfig:
        """The config of policy tool `tool`: its handler's settings, the run's timeout and
        output cap, its code read from `root`. An MCP handler calls the tool it names, else
        the policy tool's own name."""
        given = {item.name: getattr(settings, item.name) for item in fields(HandlerSettings)}
        if handler_kind(settings).lists_its_tools and not settings.target:
            given["target"] = tool
        return cls(
            **given,
            timeout_ms=options.timeout_ms,
            max_output_bytes=options.max_output_bytes,
            ignore_output=options.ignore_output,
            python=options.python_interpreter,
            root=root,
            mirrors=mirrors,
        )

    @property
    def checkout(self) -> Checkout:
        return Checkout.at(self.root, self.mirrors, self.work_tree)

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.target}"

    def label(self) -> JSONObject:
        """The receipt's `handler` member: enough to start the same handler again."""
        label = handler_kind(self).label(self)  # the kind's own part (`core.gate.handler_kinds`)
        if self.rejects:
            label["rejects"] = list(self.rejects)
        if self.effects is not None:
            label["effects"] = self.effects
        if self.effects_directory is not None:
            label["effectsProbe"] = {"directory": self.effects_directory}
        elif self.effects_command:
            label["effectsProbe"] = {"command": list(self.effects_command)}
        if self.sandbox:
            label["sandbox"] = True
        if self.reset_command:
            label["reset"] = {"command": list(self.reset_command)}
        elif self.reset_tool is not None:
            label["reset"] = {"tool": self.reset_tool}
        return label
