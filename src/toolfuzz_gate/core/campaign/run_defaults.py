"""The values a run takes when neither a flag nor a policy names one (pure data): stated here
once, read by the policy's meaning (`core.gate.policy.RunOptions`), the command line's grammar
and the handler configuration. The output ceiling's default sits with the other bounds, in
`core.schema.limits`."""

from __future__ import annotations

DEFAULT_SEED = 41
"""The seed of `fuzz`, of the built-in `run` and of a policy without `seeds`."""

DEFAULT_RUNS = 200
"""Valid cases per seed for `fuzz` and a policy's tools."""

BUILTIN_RUNS = 24
"""Valid cases per seed for `run` without a policy (the built-in contract, a quick check)."""

DEFAULT_TIMEOUT_MS = 2000
"""Milliseconds one handler call may take before it is a timeout."""

DEFAULT_MEMORY_LIMIT_MB = 2048
"""Per handler process, when the policy or the command line names none (0: no limit)."""

DEFAULT_CPU_LIMIT_S = 300
"""Per call (Linux; per process life elsewhere), when none is named (0: no limit)."""

DEFAULT_PROCESS_LIMIT = 256
"""Processes below one handler process at once, when none is named (0: no limit)."""
