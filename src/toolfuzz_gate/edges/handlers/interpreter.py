"""Which Python imports a tool's code: the job's interpreter, not necessarily the gate's (edge).

A `python:` handler and a pydantic `model:` are imported by a child interpreter that runs
a stdlib-only script shipped beside this module (`python_worker_main.py`, the model
child), so the interpreter may be any CPython >= 3.9 that has the tool's dependencies,
with or without toolfuzz-gate. Which one:

- the policy's `python_interpreter` (a tool's, else `defaults`'): a bare name is looked
  up on the handler's PATH, a path is read relative to the tool's `cwd` (else its root);
  on the base side, relative to the head's checkout, where the job made its virtual
  environment (the base's worktree holds only tracked files): the same interpreter runs
  the base's code;
- else `TOOLFUZZ_GATE_PYTHON` from the gate's environment (the GitHub Action sets
  `python3`: the job's Python, not the action's own virtual environment);
- else the gate's own interpreter (`sys.executable`), for a gate installed beside the
  tools in the project's environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.errors import HandlerError

DEFAULT_VARIABLE = "TOOLFUZZ_GATE_PYTHON"
"""The gate's environment variable naming the interpreter when the policy names none."""
MIN_PYTHON = (3, 9)
"""The oldest Python the worker script and the model child run on."""
WORKER_SCRIPT = str(Path(__file__).with_name("python_worker_main.py"))
"""The worker, started by path: it imports nothing of toolfuzz-gate."""
_PROBE_TIMEOUT_S = 10.0
_VERSION_PROBE = "import sys; sys.stdout.write('%d.%d' % sys.version_info[:2])"
"""Valid Python 2 and 3 alike, so it can say how old an interpreter is."""


def configured_python(configured: str | None, environ: Mapping[str, str] | None = None) -> str:
    """What names the interpreter: the policy's, else `TOOLFUZZ_GATE_PYTHON`, else the
    gate's own."""
    source = os.environ if environ is None else environ
    return configured or source.get(DEFAULT_VARIABLE) or sys.executable


def resolve_python(
    configured: str | None,
    checkout: Checkout,
    cwd: str | None,
    search_path: str | None,
    *,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The interpreter's absolute path, or `HandlerError` naming it when there is none.

    `search_path` is the PATH a bare name is looked up on (the handler's)."""
    name = configured_python(configured, environ)
    if os.sep not in name:
        found = shutil.which(name, path=search_path or "")
        if found is None:
            raise HandlerError(
                f"the Python interpreter {name!r} is not on PATH",
                hint="install Python in the job (actions/setup-python) or set "
                "python_interpreter to its path, e.g. .venv/bin/python",
            )
        return os.path.abspath(found)
    place = _head_place(checkout, cwd)
    path = os.path.normpath(os.path.join(place, os.path.expanduser(name)))
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise HandlerError(
            f"the Python interpreter {name!r} ({path}) does not exist or is not executable",
            hint="create the environment before the gate runs (python -m venv .venv, "
            "uv sync) or fix python_interpreter",
        )
    return path


def too_old(interpreter: str, shown: str, env: Mapping[str, str]) -> str | None:
    """Why `interpreter` (named `shown`, as configured) cannot run the worker, when its
    version says so (asked only after a worker failed to start); None when it is new
    enough or will not say."""
    try:
        done = subprocess.run(
            [interpreter, "-c", _VERSION_PROBE],
            env=dict(env),
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return too_old_version(shown, done.stdout.decode("ascii", "replace").strip())


def too_old_version(shown: str, version: str) -> str | None:
    """Why an interpreter of `version` ("3.8") cannot run the worker; None: it can, or the
    version is unreadable."""
    major, _, minor = version.partition(".")
    if not (major.isdigit() and minor.isdigit()) or (int(major), int(minor)) >= MIN_PYTHON:
        return None
    wanted = ".".join(map(str, MIN_PYTHON))
    return f"the Python interpreter {shown} is Python {version}; the worker needs {wanted} or later"


def _head_place(checkout: Checkout, cwd: str | None) -> str:
    """The directory a relative interpreter path is read from: the tool's `cwd` (else its
    root), moved to the head's checkout on the base side."""
    place = os.path.abspath(cwd or checkout.root)
    if checkout.mirrors is None:
        return place
    relative = os.path.relpath(place, checkout.root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return place
    return os.path.normpath(os.path.join(checkout.mirrors, relative))
