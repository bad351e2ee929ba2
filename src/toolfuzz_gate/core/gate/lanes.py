"""Which tools of a policy run may be fuzzed at the same time (`run --jobs N`; pure).

A receipt depends only on its tool's schema, seed and handler, never on when the tool ran,
as long as nothing another tool does can reach the handler while it runs. The gate gives
every handler process its own temporary working directory, so it can see only three ways
for tools to share state, and keeps those apart:

* a tool that declares shared state, a reset (`reset_command`, `reset_tool`) or an outside
  effects probe (`effects_directory`, `effects_command`), is *exclusive*: it runs alone,
  after every tool planned before it and before every tool planned after it;
* tools whose handlers run in the same configured working directory (`cwd`), call the
  same HTTP server (one host and port), or share one MCP server process (`shared`: the
  run decides which may), share a *lane*: they run one after another, in the order of
  the plan;
* every other tool is a lane of its own.

Lanes between two exclusive tools run at the same time (up to the run's jobs). Base and
head may run side by side only when neither has an exclusive or an HTTP tool (both sides'
servers would listen at the same address, and a declared state may live outside the
checkouts).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings

MAX_JOBS = 64
"""The most tools a run fuzzes at once (`run --jobs`, the Action's `jobs`)."""
Lane = tuple[int, ...]
"""Indices into the plan, in plan order, run one after another."""
Stage = tuple[Lane, ...]
"""Lanes that may run at the same time."""


def exclusive(settings: HandlerSettings) -> bool:
    """Does the handler declare state other tools may change (so it must run alone)?"""
    return bool(
        settings.reset_command
        or settings.reset_tool is not None
        or settings.effects_directory is not None
        or settings.effects_command
    )


def lane_key(settings: HandlerSettings) -> str | None:
    """What the handler shares with others' handlers (None: nothing the gate can see)."""
    shared = handler_kind(settings).lane(settings)  # an http handler's server, say
    if shared is not None:
        return shared
    if settings.cwd is not None:
        return f"cwd:{settings.cwd}"
    return None


def stages(handlers: Sequence[HandlerSettings], shared: Sequence[str | None] = ()) -> list[Stage]:
    """The plan (one handler per unit, in order) as stages run one after another: each
    exclusive unit a stage of its own, the units between them grouped into lanes. Units
    with the same `shared` key (one per unit, None: none) use one server process."""
    planned: list[Stage] = []
    lanes: dict[str, list[int]] = {}
    for index, settings in enumerate(handlers):
        if exclusive(settings):
            if lanes:
                planned.append(tuple(tuple(lane) for lane in lanes.values()))
                lanes = {}
            planned.append(((index,),))
            continue
        key = lane_key(settings)
        server = shared[index] if index < len(shared) else None
        if key is None and server is not None:  # (a server's key names its cwd)
            key = f"server:{server}"
        lanes.setdefault(f"unit:{index}" if key is None else key, []).append(index)
    if lanes:
        planned.append(tuple(tuple(lane) for lane in lanes.values()))
    return planned


def side_by_side(handlers: Sequence[HandlerSettings]) -> bool:
    """May this side run while the other side runs?"""
    return not any(
        exclusive(settings) or not handler_kind(settings).beside_other_side for settings in handlers
    )
