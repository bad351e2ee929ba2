"""The kinds of handler: one row each, every fact about a kind the gate goes by (pure).

A row says how a policy names the kind (its key under a tool's `handler`, and which other
handler keys belong to it alone), how `fuzz` names it and its own keys on the command line,
its part of a receipt's `handler` label, which tools it makes share a lane, whether it may
run while the other side of a `--baseline` run runs, and whether the gate starts what it
calls. The
adapter that starts a kind is attached by name in the edge (`edges.handlers.registry`:
the core imports no edge); a test holds that table, the policy's JSON Schema, the `fuzz`
flags and the docs' tables to this one (`tests/core/gate/test_handler_kinds.py`).

Adding a kind is one row here, one adapter module with its entry in
`edges.handlers.registry.ADAPTERS`, its keys in `policy.schema.json` and its rows in the
docs; its `fuzz` flag and `--help` line are made from the row (`cli.grammar_fuzz`). The test
above and `tests/test_docs_claims.py` name whichever is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


def _nothing_shared(settings: HandlerSettings) -> str | None:
    return None


def _started_by_gate(settings: HandlerSettings) -> bool:
    return True


@dataclass(frozen=True)
class HandlerKind:
    """One kind of handler (`HandlerSettings.kind` is its `name`)."""

    name: str
    """Its key under a policy tool's `handler` (what that key holds: `target_key` or
    `argv_key` is the name)."""
    flag: str
    """How `fuzz` names it, as its help and the docs' table show it."""
    label: Callable[[HandlerSettings], JSONObject]
    """Its own part of the receipt's `handler` member (the common keys follow it)."""
    help: str | None = None
    """Its flag's `--help` line (the first row of a shared flag's says it)."""
    target_key: str | None = None
    """The policy key that holds its target (`HandlerSettings.target`): the function, the
    URL or the MCP tool; None: it has none."""
    argv_key: str | None = None
    """The policy key that holds the command it starts (`HandlerSettings.argv`)."""
    own_keys: tuple[str, ...] = ()
    """Handler keys besides the kind's own that only kinds listing them take."""
    own_flags: tuple[tuple[str, str], ...] = ()
    """(`own_keys` member, the `fuzz` flag giving it)."""
    lists_its_tools: bool = False
    """Its server lists its tools with their schemas: a policy tool may leave out its
    schema, an entry without `name` takes every tool, and its target defaults to the
    policy tool's name."""
    lane: Callable[[HandlerSettings], str | None] = _nothing_shared
    """What its tools share besides a working directory (`core.gate.lanes.lane_key`):
    tools with the same key run one after another; None: nothing."""
    beside_other_side: bool = True
    """Whether its tools may run while the other side of a `--baseline` run runs
    (`core.gate.lanes.side_by_side`)."""
    gate_starts: Callable[[HandlerSettings], bool] = _started_by_gate
    """Whether the gate starts what it calls. Else it calls a server already running: one
    it cannot confine or lay fixtures for, and which the base side of a `--baseline REF`
    run calls too (so that side tests the head's code; the run warns)."""
    in_policy: bool = True
    """Whether a policy may name it (the built-in contract's handler, which `run` without
    a policy calls, may not; nor do the docs list it)."""

    @property
    def option(self) -> str:
        """The `fuzz` option naming it (`--handler`)."""
        return self.flag.partition(" ")[0]

    @property
    def takes_command(self) -> bool:
        """Whether its flag is a switch, the command after `--` starting the handler."""
        return self.flag.partition(" ")[2].startswith("-- ")

    @property
    def short_flag(self) -> str:
        """`flag` as a message names it (`--handler python:...`, `--mcp`)."""
        return self.flag.replace("MODULE:FUNCTION", "...").split(" -- ")[0].removesuffix(" URL")


def _spec_label(settings: HandlerSettings) -> JSONObject:
    return {"spec": f"{settings.kind}:{settings.target}"}


def _command_label(settings: HandlerSettings) -> JSONObject:
    return {"command": list(settings.argv)}


def _mcp_label(settings: HandlerSettings) -> JSONObject:
    return {"mcp": {"command": list(settings.argv), "tool": settings.target}}


def _http_label(settings: HandlerSettings) -> JSONObject:
    label: JSONObject = {"http": settings.target}
    if settings.argv:
        label["server"] = list(settings.argv)
    if settings.headers:
        label["headers"] = {name: f"${variable}" for name, variable in settings.headers}
    return label


def _authority(settings: HandlerSettings) -> str:
    """The host and port of the URL (`http://user@Host:8080/x` -> `http:host:8080`): two
    tools calling one server share its state."""
    rest = settings.target.partition("://")[2] or settings.target
    for end in "/?#":
        rest = rest.split(end, 1)[0]
    return "http:" + rest.rpartition("@")[2].lower()


def _http_started(settings: HandlerSettings) -> bool:
    return bool(settings.argv)  # its `server:`


KINDS: tuple[HandlerKind, ...] = (
    HandlerKind(
        "python",
        "--handler python:MODULE:FUNCTION",
        _spec_label,
        "python:MODULE:FUNCTION",
        target_key="python",
        own_keys=("rejects", "effects"),
        own_flags=(("rejects", "--rejects"), ("effects", "--effects")),
    ),
    HandlerKind(
        "command", "--command -- ARGV", _command_label, "a JSON-lines process", argv_key="command"
    ),
    HandlerKind(
        "mcp",
        "--mcp -- ARGV",
        _mcp_label,
        "an MCP server over stdio",
        target_key="tool",
        argv_key="mcp",
        own_keys=("tool", "effects", "reset_tool"),
        own_flags=(("effects", "--effects"), ("reset_tool", "--reset-tool")),
        lists_its_tools=True,
    ),
    HandlerKind(
        "http",
        "--http URL",
        _http_label,
        target_key="http",
        argv_key="server",
        own_keys=("server", "headers"),
        own_flags=(("headers", "--header"),),
        lane=_authority,
        beside_other_side=False,  # both sides' servers would listen at the same address
        gate_starts=_http_started,
    ),
    HandlerKind("builtin", "--handler builtin:NAME", _spec_label, in_policy=False),
)
BY_NAME = {kind.name: kind for kind in KINDS}
POLICY_KINDS = tuple(kind.name for kind in KINDS if kind.in_policy)
"""The kinds a policy tool's `handler` may name, in the order messages list them."""
FUZZ_KINDS = tuple(kind for kind in KINDS if kind.flag)
"""The kinds `fuzz` may name, in the order its messages list them."""


def handler_kind(settings: HandlerSettings) -> HandlerKind:
    """The row of `settings.kind` (a kind the registry lacks is a programming error)."""
    return BY_NAME[settings.kind]


def owners(key: str) -> tuple[str, ...]:
    """The kinds that take the handler key `key` of their own (empty: every kind takes it)."""
    return tuple(kind.name for kind in KINDS if key in kind.own_keys and kind.in_policy)


OWN_KEYS = tuple(dict.fromkeys(key for kind in KINDS for key in kind.own_keys))
"""Every handler key that only some kinds take."""
