"""A Python the gate is not installed in, holding a library the gate does not depend on.

The job's toolchain, as a user's workflow has it: a virtual environment made by another
interpreter (Python 3.9 where this machine has one, else the one running the tests), with
a small local package installed from its source directory by pip, offline
(`--no-index`). Tools that import the library must run under this interpreter; the
gate's own cannot import it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

LIBRARY = "toolfuzz_foreign_lib"
"""A module name no package on any index uses; the gate depends on nothing of that name."""

_SOURCE = '''"""A user's library: the tools under test import it."""


class Refused(ValueError):
    code = "refused"


def shout(text):
    if not text:
        raise Refused("empty")
    return text.upper()


class Greeting:
    """Stands in for a pydantic model: it has model_json_schema()."""

    @classmethod
    def model_json_schema(cls):
        return {
            "type": "object",
            "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 8}},
            "required": ["text"],
            "additionalProperties": False,
        }
'''
_SETUP = (
    "from setuptools import setup\n\n"
    f"setup(name={LIBRARY!r}, version='1.0', py_modules=[{LIBRARY!r}])\n"
)


def _found(names: tuple[str, ...]) -> str | None:
    """The first of `names` among pyenv's installed versions or on PATH (not pyenv's shims,
    which exist for versions that are not active)."""
    for name in names:
        version = name.removeprefix("python")
        for pyenv in sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}")):
            return str(pyenv)
        found = shutil.which(name)
        if found and "/shims/" not in found:
            return found
    return None


def base_interpreter() -> str:
    """Python 3.9 when this machine has it (the oldest the worker supports), else ours."""
    found = _found(("python3.9",))
    return found if found is not None else str(getattr(sys, "_base_executable", sys.executable))


def old_interpreter() -> str | None:
    """A Python too old for the worker (3.8, 3.7, 3.6, 2.7), if this machine has one."""
    return _found(("python3.8", "python3.7", "python3.6", "python2.7"))


def runnable_by(uid: int, minimum: tuple[int, int] = (3, 9)) -> str | None:
    """A Python of at least `minimum` that user `uid` can run (root's pyenv is out of an
    ordinary user's reach): the tests' own interpreter, else the system's; None if neither."""
    own = str(getattr(sys, "_base_executable", sys.executable))
    as_user = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    check = f"import sys; sys.exit(sys.version_info < {minimum})"
    for candidate in (own, "/usr/bin/python3", "/usr/local/bin/python3"):
        # executable as the shell sees it (PATH lookup), and new enough
        probes = ([*as_user, "test", "-x", candidate], [*as_user, candidate, "-c", check])
        if all(
            subprocess.run(probe, capture_output=True, check=False, timeout=60).returncode == 0
            for probe in probes
        ):
            return candidate
    return None


def make_foreign_python(where: Path, interpreter: str | None = None) -> Path:
    """A virtual environment under `where` with the library and without toolfuzz-gate,
    made by `interpreter` (default: `base_interpreter()`); its interpreter's path."""
    source = where / "foreign-lib-src"
    source.mkdir(parents=True)
    (source / f"{LIBRARY}.py").write_text(_SOURCE, encoding="utf-8")
    (source / "setup.py").write_text(_SETUP, encoding="utf-8")
    venv = where / "job-venv"
    made_by = interpreter or base_interpreter()
    subprocess.run([made_by, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-build-isolation",
            "--disable-pip-version-check",
            str(source),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    return python
