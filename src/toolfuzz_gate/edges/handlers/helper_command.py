"""A helper command a handler's config names (a reset, an effects snapshot), run once (edge).

No shell and no stdin; its output is captured, its time bounded. Any way it fails (it cannot
start, runs past the timeout, exits non-zero) is the handler's failure, a `HandlerError`
naming the helper and, on a non-zero exit, the tail of what it wrote on stderr.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence

from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.confine import confined
from toolfuzz_gate.errors import HandlerError


def run_helper(
    what: str,
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    timeout_s: float,
) -> bytes:
    """Run `argv` (`what`: "reset command", "effects command"); its stdout."""
    command, environment = confined(argv, env)  # the pull request's code, as a handler is
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            # its own session: what it leaves running is a stray the gate ends (`reaper`)
            start_new_session=True,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise HandlerError(f"{what} {argv[0]!r} failed: {error}") from None
    if done.returncode != 0:
        tail = bounded_message(done.stderr.decode("utf-8", "replace")[-300:])
        raise HandlerError(f"{what} {argv[0]!r} exited with {done.returncode}: {tail}")
    return done.stdout
