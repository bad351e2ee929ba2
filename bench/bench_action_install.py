"""How long the composite action takes to install the gate, cold and with a warm wheel cache.

Runs action.yml's steps before the gate step (find a Python, setup-python if needed, the pip
wheel cache, the install) the way `tests/composite_runner.py` runs them for the tests, against the
real package index (no local mirror: PIP_CONFIG_FILE=/dev/null), in a fresh RUNNER_TEMP each
time:

- cold: an empty cache store (a job whose lock changed): pip downloads the lock's files;
- warm: the store the cold run saved, as `actions/cache` restores it on the next job: pip
  installs from the restored wheels without asking the index (their hashes checked);
- reused: a second gate step in the same job (the virtual environment is kept).

    .venv/bin/python bench/bench_action_install.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.composite_runner import Job, describe, run_composite  # noqa: E402


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _install(runner: Path, store: Path, *, keep_temp: bool = False) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the processes the steps started)."""
    temp = runner / "temp"
    if temp.exists() and not keep_temp:
        shutil.rmtree(temp)
    temp.mkdir(parents=True, exist_ok=True)
    (runner / "home").mkdir(exist_ok=True)
    python_bin = Path(getattr(sys, "_base_executable", sys.executable)).parent
    environ = {
        "PATH": os.pathsep.join([str(python_bin), "/usr/bin", "/bin"]),
        "HOME": str(runner / "home"),
        "LANG": "C.UTF-8",
        "RUNNER_TEMP": str(temp),
        "PIP_CONFIG_FILE": os.devnull,
    }
    # this machine's way out to the index (its proxy and CA bundle), as a runner has its own
    passed = ("PIP_CERT", "SSL_CERT_FILE", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY")
    environ.update({name: os.environ[name] for name in passed if name in os.environ})
    job = Job(ROOT, runner, temp, environ, "unused", store)
    start, cpu = time.perf_counter(), _children_cpu()
    done = run_composite(job, {}, only=lambda step: step.get("id") != "gate")
    took = time.perf_counter() - start
    assert done.code == 0, describe(done)
    return took, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    repeat = parser.parse_args().repeat
    print(f"python {sys.version.split()[0]} ({sys.platform}), {os.cpu_count()} CPUs")
    print("wall s (CPU s of the steps' processes); load average before each round")
    for round_ in range(1, repeat + 1):
        with tempfile.TemporaryDirectory(prefix="toolfuzz-action-install-") as scratch:
            runner, store = Path(scratch) / "runner", Path(scratch) / "cache-store"
            runner.mkdir()
            store.mkdir()
            load = os.getloadavg()[0]
            figures = {
                "cold": _install(runner, store),
                "warm": _install(runner, store),
                "reused": _install(runner, store, keep_temp=True),
            }
            shown = ", ".join(f"{k} {w:.1f} ({c:.1f})" for k, (w, c) in figures.items())
            print(f"round {round_} (load {load:.1f}): {shown}")


if __name__ == "__main__":
    main()
