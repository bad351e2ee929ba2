"""A policy tool's handler and fixtures, parsed and checked, and where a policy key sits
(pure): the parts of `policy` a tool's entry delegates to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.gate.handler_kinds import (
    BY_NAME,
    OWN_KEYS,
    POLICY_KINDS,
    HandlerKind,
    handler_kind,
    owners,
)
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.quoting import shown
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.errors import PolicyError


class Locator:
    """Builds `PolicyError`s that name the file, the line and the key of a pointer."""

    def __init__(self, file: str, lines: Mapping[str, int]) -> None:
        self.file = file
        self.lines = lines

    def line(self, pointer: str) -> int:
        """The line of `pointer`, else of its nearest ancestor the map knows."""
        while pointer not in self.lines and pointer:
            pointer = pointer.rpartition("/")[0]
        return self.lines.get(pointer, 1)

    def error(self, pointer: str, message: str, hint: str = "") -> PolicyError:
        key = "/".join(jp.split(pointer)) or "(document)"
        return PolicyError(message, file=self.file, line=self.line(pointer), key=key, hint=hint)


def parse_fixtures(
    entry: Mapping[str, Any], where: str, handler: HandlerSettings, locate: Locator
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`fixtures` as sorted (pointer, paths) pairs, once each path is known to lay in one
    workspace: under a name no other fixture has, in a handler the gate starts."""
    given = entry.get("fixtures", {})
    at = jp.join(where, "fixtures")
    if given and not handler_kind(handler).gate_starts(handler):
        raise locate.error(
            at,
            "fixtures go with a handler the gate starts: an http handler needs `server`",
        )
    names: dict[str, str] = {}
    for pointer, paths in given.items():
        if not pointer.startswith("/") or pointer in dict(entry.get("fixed_arguments", {})):
            raise locate.error(
                jp.join(at, pointer),
                f"{shown(pointer)} is not a JSON Pointer to an argument of its own",
                hint="write it from the arguments' root, e.g. /path; not a fixed argument",
            )
        for path in paths:
            name = path.rstrip("/").rpartition("/")[2]
            if name in ("", ".", "..") or names.setdefault(name, path) != path:
                raise locate.error(
                    jp.join(at, pointer),
                    f"fixture {shown(path)} would be laid as {shown(name)}, "
                    "which another fixture is laid as, or is no name",
                    hint="each fixture is laid under its own file or directory name",
                )
    return tuple(sorted((pointer, tuple(paths)) for pointer, paths in given.items()))


def parse_handler(given: dict[str, Any], where: str, locate: Locator) -> HandlerSettings:
    kinds = [key for key in POLICY_KINDS if key in given]
    if not kinds:
        raise locate.error(
            where, f"the handler names no kind: give one of {', '.join(POLICY_KINDS)}"
        )
    if len(kinds) > 1:
        raise locate.error(
            jp.join(where, kinds[1]),
            f"a handler of two kinds: {kinds[0]} and {kinds[1]}",
            hint="one tool, one handler",
        )
    kind = BY_NAME[kinds[0]]
    for key in OWN_KEYS:
        takers = owners(key)
        if key in given and kind.name not in takers:
            raise locate.error(
                jp.join(where, key),
                f"{key} goes with a {' or '.join(takers)} handler, not {kind.name}",
            )
    if "reset_command" in given and "reset_tool" in given:
        raise locate.error(
            jp.join(where, "reset_tool"),
            "name one reset: reset_command or reset_tool, not both",
        )
    if given.get("sandbox") and "cwd" in given:
        raise locate.error(
            jp.join(where, "cwd"),
            "a sandboxed handler runs in its allowed root: give sandbox or cwd, not both",
            hint="{sandbox} in the argv names the allowed root",
        )
    if given.get("sandbox") and not kind.gate_starts(_settings(kind, given)):
        raise locate.error(
            jp.join(where, "sandbox"),
            "sandbox confines a handler the gate starts: an http handler needs `server`",
        )
    if "effects_directory" in given and "effects_command" in given:
        raise locate.error(
            jp.join(where, "effects_command"),
            "name one effects probe: effects_directory or effects_command, not both",
        )
    return _settings(kind, given)


def _settings(kind: HandlerKind, given: dict[str, Any]) -> HandlerSettings:
    return HandlerSettings(
        kind.name,
        target="" if kind.target_key is None else given.get(kind.target_key, ""),
        argv=() if kind.argv_key is None else tuple(given.get(kind.argv_key, ())),
        rejects=tuple(given.get("rejects", ())),
        effects=given.get("effects"),
        headers=tuple(sorted(given.get("headers", {}).items())),
        env=tuple(given.get("env", ())),
        cwd=given.get("cwd"),
        memory_limit_mb=given.get("memory_limit_mb"),
        cpu_limit_s=given.get("cpu_limit_s"),
        process_limit=given.get("process_limit"),
        effects_directory=given.get("effects_directory"),
        effects_command=tuple(given.get("effects_command", ())),
        reset_command=tuple(given.get("reset_command", ())),
        reset_tool=given.get("reset_tool"),
        sandbox=given.get("sandbox", False),
    )
