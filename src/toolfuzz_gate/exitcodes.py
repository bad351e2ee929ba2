"""The process exit codes: an external contract scripts and CI rely on (pure)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a `toolfuzz-gate` process tells its caller."""

    PASSED = 0
    """The gate passed: no finding the policy counts."""
    FAILED = 1
    """The gate failed: invariant failures (counterexamples) per the policy; for `diff`, a
    counterexample, unsupported keyword or refusal new in HEAD, or a base counterexample
    HEAD did not run; for `replay`, a counterexample that still fails (or fails
    differently)."""
    USAGE = 2
    """Usage, policy, schema or unusable-handler error; the message names the file and pointer."""
    INTERNAL = 3
    """An internal error of toolfuzz-gate itself: a bug to report."""
    MODEL = 4
    """Agent mode (`agent`, or a gate run whose `fail_on` asks for an agent check): the model
    could not be used as the policy's `llm` section asks (its endpoint failed, the run's
    request or token budget was spent, or a `replay` cassette lacks a request); the message
    gives the `llm.*` code."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C (SIGINT), the shell's convention 128 + 2: one line, no traceback,
    handler processes and base worktrees removed on the way out."""
    TERMINATED = 143
    """Stopped by SIGTERM (a cancelled Actions job, `docker stop`), 128 + 15, cleaned up as
    for Ctrl-C."""
