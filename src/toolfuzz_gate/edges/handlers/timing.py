"""Where one tool's wall time goes: handler calls, timeouts, process starts, effect probes
(edge; wall clock).

`execute` opens a `Profile` for the tool (`profiling`) and wraps its handler in `timed`;
the adapters add what only they see (`add`: a process start, an effects snapshot). The
profile is per thread, so tools fuzzed at once in threads (`run --jobs`) each get their
own. The figures go into the receipt's unhashed `diagnostics` block (`--diagnostics`),
never into anything hashed: they depend on the machine.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.outcome import (
    Handler,
    Outcome,
    OutcomeKind,
    PassesThrough,
    Replaying,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

BUCKETS = ("calls", "timeouts", "starts", "effects", "sandbox")
"""`calls`: every handler call the engine made, timeouts included; `timeouts`: those that
got no answer in time; `starts`: process starts (spawn, and for MCP the `initialize`
handshake; a `python:` or `command` process's first answer too, where its imports show);
`effects`: state snapshots (an effects probe, before and after each call; inside `calls`);
`sandbox`: the write oracle's look at the tree around a confined handler's root, after each
call (`workspace`; inside `calls`)."""


@dataclass
class Profile:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0))
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(BUCKETS, 0.0))
    wall_s: float = 0.0
    """The tool's whole time: its handler's start, its reset, the campaign, the close."""

    def add(self, bucket: str, seconds: float) -> None:
        self.counts[bucket] += 1
        self.seconds[bucket] += seconds

    def as_json(self) -> JSONObject:
        profile: JSONObject = {"wallSeconds": round(self.wall_s, 3)}
        for bucket in BUCKETS:
            profile[bucket] = {
                "count": self.counts[bucket],
                "seconds": round(self.seconds[bucket], 3),
            }
        return profile


_local = threading.local()


@contextlib.contextmanager
def profiling() -> Iterator[Profile]:
    """A fresh profile for this thread while the block runs."""
    outer: Profile | None = getattr(_local, "profile", None)
    profile = _local.profile = Profile()
    started = time.monotonic()
    try:
        yield profile
    finally:
        profile.wall_s = time.monotonic() - started
        _local.profile = outer


def add(bucket: str, seconds: float) -> None:
    """Count `seconds` of `bucket` in this thread's profile, if one is open."""
    profile: Profile | None = getattr(_local, "profile", None)
    if profile is not None:
        profile.add(bucket, seconds)


@contextlib.contextmanager
def measured(bucket: str) -> Iterator[None]:
    """Count the block's wall time in `bucket`."""
    started = time.monotonic()
    try:
        yield
    finally:
        add(bucket, time.monotonic() - started)


class _Timed:
    def __init__(self, inner: Handler) -> None:
        self.inner = inner

    def call(self, arguments: JSONObject) -> Outcome:
        started = time.monotonic()
        outcome = self.inner.call(arguments)
        spent = time.monotonic() - started
        add("calls", spent)
        if outcome.kind is OutcomeKind.TIMEOUT:
            add("timeouts", spent)
        return outcome


class _TimedReplaying(PassesThrough, _Timed):
    """A timed handler over one that replays (`Replaying` and the rest passed on)."""


def timed(handler: Handler) -> Handler:
    """`handler` with its calls counted; replayable exactly when `handler` is."""
    return _TimedReplaying(handler) if isinstance(handler, Replaying) else _Timed(handler)
