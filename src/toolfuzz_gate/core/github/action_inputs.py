"""The action's inputs: one table of every input action.yml declares, read from `INPUT_*`
variables and checked before anything runs (pure: the caller passes the environment).

GitHub hands a Docker action each input as `INPUT_<NAME>`, the name upper-cased with its
hyphens kept (`INPUT_GITHUB-TOKEN`), an empty string when the workflow leaves it unset and
action.yml gives no default. Values are data: nothing here (or anywhere) puts them in a shell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal, TypeVar

from toolfuzz_gate.core.campaign.tool_fuzz import SEED_RANGE
from toolfuzz_gate.core.gate.lanes import MAX_JOBS
from toolfuzz_gate.core.gate.policy import FAIL_ON
from toolfuzz_gate.core.github.names import is_login
from toolfuzz_gate.errors import UsageError


@dataclass(frozen=True)
class InputSpec:
    """An input and its default, as action.yml declares them (a test holds the two equal;
    the descriptions live in action.yml, where GitHub shows them)."""

    name: str
    default: str


INPUTS: tuple[InputSpec, ...] = (
    InputSpec("policy", "toolfuzz-gate.yml"),
    InputSpec("github-token", "${{ github.token }}"),
    InputSpec("baseline", "rerun"),
    InputSpec("fail-on", ""),
    InputSpec("comment", "update"),
    InputSpec("comment-key", "default"),
    InputSpec("comment-author", ""),
    InputSpec("output-dir", "toolfuzz-gate-results"),
    InputSpec("seed", ""),
    InputSpec("runs", ""),
    InputSpec("jobs", ""),
    InputSpec("mode", "run"),
    InputSpec("results-dir", ""),
)

_Choice = TypeVar("_Choice", bound=str)
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_INPUT_CHARS = 4096
MAX_RUNS = 1000
"""The policy's own bound for `runs` (policy.schema.json); seeds share `SEED_RANGE`."""


@dataclass(frozen=True)
class ActionInputs:
    policy: str
    token: str
    baseline: Literal["rerun", "dir", "none"]
    baseline_dir: str | None
    fail_on: tuple[str, ...] | None
    comment: Literal["update", "recreate", "off"]
    comment_key: str
    comment_author: str
    output_dir: str
    seed: int | None
    runs: int | None
    jobs: int | None
    mode: Literal["run", "report"]
    results_dir: str


def environment_name(name: str) -> str:
    """The variable GitHub sets for input `name`."""
    return "INPUT_" + name.upper()


def read_inputs(environ: Mapping[str, str]) -> ActionInputs:
    """Every input, checked; raises `UsageError` naming the input and what it accepts."""
    raw = {spec.name: _raw(environ, spec) for spec in INPUTS}
    baseline, baseline_dir = _baseline(raw["baseline"])
    output_dir = workspace_path("output-dir", raw["output-dir"])
    return ActionInputs(
        policy=workspace_path("policy", raw["policy"]),
        token=raw["github-token"],
        baseline=baseline,
        baseline_dir=baseline_dir,
        fail_on=_fail_on(raw["fail-on"]),
        comment=_choice("comment", raw["comment"], ("update", "recreate", "off")),
        comment_key=_key(raw["comment-key"]),
        comment_author=_login(raw["comment-author"]),
        output_dir=output_dir,
        seed=_integer("seed", raw["seed"], *SEED_RANGE),
        runs=_integer("runs", raw["runs"], 1, MAX_RUNS),
        jobs=_integer("jobs", raw["jobs"], 1, MAX_JOBS),
        mode=_choice("mode", raw["mode"], ("run", "report")),
        results_dir=(
            workspace_path("results-dir", raw["results-dir"]) if raw["results-dir"] else output_dir
        ),
    )


def _raw(environ: Mapping[str, str], spec: InputSpec) -> str:
    """The input's value; unset or empty means its default (the token's default is an
    expression only the runner evaluates, so without the variable there is no token)."""
    value = environ.get(environment_name(spec.name), "")
    if len(value) > MAX_INPUT_CHARS:
        raise UsageError(f"input {spec.name} is longer than {MAX_INPUT_CHARS} characters")
    if spec.name == "github-token":
        return value
    return value.strip() or spec.default


def workspace_path(name: str, value: str) -> str:
    """`value` as a normalised relative path that stays inside the workspace."""
    path = PurePosixPath(value.replace("\\", "/"))
    if not value or path.is_absolute() or ".." in path.parts or "\x00" in value:
        raise UsageError(
            f"input {name} must be a path inside the workspace, relative to it: got {value[:200]!r}"
        )
    return path.as_posix()


def _baseline(value: str) -> tuple[Literal["rerun", "dir", "none"], str | None]:
    if value in ("", "rerun"):
        return "rerun", None
    if value == "none":
        return "none", None
    if value.startswith("dir:"):
        return "dir", workspace_path("baseline", value[len("dir:") :])
    raise UsageError(
        f"input baseline must be rerun, dir:PATH or none: got {value[:200]!r}",
        hint="rerun runs the base commit's own policy; dir:PATH diffs against stored receipts",
    )


def _fail_on(value: str) -> tuple[str, ...] | None:
    if not value:
        return None
    names = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    unknown = [name for name in names if name not in FAIL_ON]
    if unknown or not names:
        raise UsageError(
            f"input fail-on names {', '.join(repr(n[:60]) for n in unknown) or 'nothing'}; "
            f"it takes a comma-separated list of: {', '.join(FAIL_ON)}"
        )
    return names


def _choice(name: str, value: str, allowed: tuple[_Choice, ...]) -> _Choice:
    for option in allowed:
        if value == option:
            return option
    raise UsageError(f"input {name} must be one of {', '.join(allowed)}: got {value[:200]!r}")


def _key(value: str) -> str:
    if _KEY.match(value):
        return value
    raise UsageError(
        f"input comment-key must be 1-64 letters, digits, '.', '_' or '-': got {value[:200]!r}"
    )


def _login(value: str) -> str:
    if not value or is_login(value):
        return value
    raise UsageError(
        f"input comment-author must be a GitHub login (such as my-app[bot]): got {value[:200]!r}"
    )


def _integer(name: str, value: str, low: int, high: int) -> int | None:
    if not value:
        return None
    if not re.fullmatch(r"-?[0-9]{1,10}", value) or not low <= int(value) <= high:
        raise UsageError(
            f"input {name} must be an integer from {low} to {high}: got {value[:60]!r}"
        )
    return int(value)
