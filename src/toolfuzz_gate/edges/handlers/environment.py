"""The environment a handler process runs with: an allowlist, never the gate's secrets (edge).

Handlers are untrusted code fed hostile inputs, so they get what a program needs to
start (PATH, HOME, locale, PYTHONPATH, TMPDIR) plus the variables the policy names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolfuzz_gate.errors import HandlerError

_ALLOWED = frozenset({"PATH", "HOME", "LANG", "PYTHONPATH", "TMPDIR"})
_ALLOWED_PREFIXES = ("LC_",)
# Refused even when a policy names them: the gate's token and the Actions runtime's
# variables (inputs hold tokens too) could write to the repository under review.
_REFUSED = frozenset({"GITHUB_TOKEN"})
_REFUSED_PREFIXES = ("INPUT_", "ACTIONS_")
RUNNER_FILE_COMMANDS = frozenset(
    {"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"}
)
"""The runner's file commands: what a step writes there reaches later steps."""


def is_refused(name: str) -> bool:
    """Is `name` a variable no handler may ever receive?"""
    upper = name.upper()
    return upper in _REFUSED or upper.startswith(_REFUSED_PREFIXES)


def scrubbed_environment(
    source: Mapping[str, str], passthrough: Sequence[str] = ()
) -> dict[str, str]:
    """The subset of `source` a handler may see: the allowlist plus `passthrough` names.

    Raises `HandlerError` when `passthrough` names a refused variable, rather than
    dropping it silently: the policy author should learn the handler will not get it.
    """
    refused = sorted(
        {name for name in passthrough if is_refused(name) or name in RUNNER_FILE_COMMANDS}
    )
    if refused:
        raise HandlerError(
            f"environment passthrough names {', '.join(refused)}, which handlers never receive",
            hint="remove it from the policy; GITHUB_TOKEN, INPUT_*, ACTIONS_* and the "
            "runner's file commands (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, "
            "GITHUB_STEP_SUMMARY, GITHUB_STATE) never leave the gate",
        )
    wanted = frozenset(passthrough)
    return {
        name: value
        for name, value in source.items()
        if name in _ALLOWED or name.startswith(_ALLOWED_PREFIXES) or name in wanted
    }
