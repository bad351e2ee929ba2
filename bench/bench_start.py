"""Benchmark: how fast the gate starts (report only).

Three figures, each timed beside a reference in the same run, the two taking turns (A B A B
...) so that a machine whose speed drifts moves both alike; the ratio is taken pair by pair
and its median printed, for CPU time (user and system, the process and its children: the
steadier figure on a shared machine) and for wall time:

- `toolfuzz-gate --version`, a whole process, against the seed's reference program (the
  repository's first commit, `git archive`d into a temporary folder and run from there with
  the same interpreter) doing the same, and against `python -c pass`;
- the built-in run (`toolfuzz-gate run --runs N`, default 1,000 runs, receipts in a temporary
  folder), a whole process, against the seed's reference program's built-in run at the same
  seed and runs;
- a `python:` handler start: a worker spawned, its module imported, the handshake read and
  the worker closed, in this process, against `python -c pass` spawned and reaped.

Then which of the modules that only some commands need (`jsonschema`, `requests`, the agent
and LLM modules) `--version` and the built-in run import. Nothing is asserted.

Every process may write and read its bytecode cache (`PYTHONDONTWRITEBYTECODE` is dropped and
each figure's warm-up writes it), as an installed package has one: otherwise each run would
time compiling the sources.

    python bench/bench_start.py [--rounds 11] [--runs 1000] [--reference COMMIT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from io import BytesIO
from pathlib import Path

from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler

ROOT = Path(__file__).resolve().parents[1]
ECHO = "def echo(**arguments):\n    return arguments\n"
OPTIONAL = ("jsonschema", "requests", "toolfuzz_gate.app.agent", "toolfuzz_gate.edges.llm")


def seed_commit() -> str:
    """The repository's first commit: the seed's reference program."""
    return subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[0]


def unpack_reference(commit: str, folder: Path) -> Path:
    """`src/` of `commit` unpacked into `folder`; the folder to put on PYTHONPATH."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, "src"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def gate_command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "toolfuzz_gate", *argv]


Timing = tuple[float, float]
"""(wall seconds, CPU seconds: user and system, of this process and its reaped children)."""


def _cpu() -> float:
    own, children = os.times(), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.user + own.system + children.ru_utime + children.ru_stime


def measured(work: Callable[[], object]) -> Timing:
    started, cpu = time.perf_counter(), _cpu()
    work()
    return time.perf_counter() - started, _cpu() - cpu


def timed(
    argv: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> Timing:
    return measured(
        lambda: subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    )


def paired(
    name: str, first: Callable[[], Timing], second: Callable[[], Timing], rounds: int, against: str
) -> None:
    """`first` and `second` in turn, one warm-up each; per figure (CPU, wall) the medians and
    the median of the pair-by-pair ratios. CPU time is the steadier on a shared machine: a
    process waiting for a core is not charged for it."""
    first(), second()
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(first())
        theirs.append(second())
    for index, figure in ((1, "cpu"), (0, "wall")):
        mine, other = [t[index] for t in ours], [t[index] for t in theirs]
        ratios = [a / b for a, b in zip(mine, other, strict=True) if b > 0]
        print(
            f"{name} ({figure}): median {statistics.median(mine) * 1000:.0f} ms "
            f"(min {min(mine) * 1000:.0f}), {against} {statistics.median(other) * 1000:.0f} ms "
            f"(min {min(other) * 1000:.0f}), ratio {statistics.median(ratios):.2f} "
            f"(range {min(ratios):.2f}..{max(ratios):.2f}, {rounds} pairs)"
        )


def imported(argv: Sequence[str], out: Path) -> list[str]:
    """Which of OPTIONAL the gate's process has imported once `argv` is done."""
    probe = (
        "import atexit, json, sys\n"
        "from toolfuzz_gate.cli import main\n"
        f"names = {OPTIONAL!r}\n"
        "atexit.register(lambda: print(json.dumps([n for n in names if n in sys.modules]),"
        " file=sys.stderr))\n"
        f"sys.argv = ['toolfuzz-gate', *{list(argv)!r}]\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=out, capture_output=True, text=True, check=False
    )
    return list(json.loads(done.stderr.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--reference", help="the reference program's commit (default: the first)")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for every process started from here
    commit = args.reference or seed_commit()
    print(f"python {sys.version.split()[0]}; reference program: {commit[:12]} (the seed)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        reference_env = {**os.environ, "PYTHONPATH": str(unpack_reference(commit, folder / "ref"))}
        (folder / "ours").mkdir()
        (folder / "theirs").mkdir()
        bare = [sys.executable, "-c", "pass"]

        def ours_version() -> Timing:
            return timed(gate_command("--version"))

        def theirs_version() -> Timing:
            return timed(gate_command("--version"), env=reference_env, cwd=folder / "theirs")

        paired("--version", ours_version, theirs_version, args.rounds, "reference")
        paired("--version", ours_version, lambda: timed(bare), args.rounds, "python -c pass")
        run = ("run", "--runs", str(args.runs), "--out", "receipts")
        paired(
            f"built-in run at {args.runs} runs",
            lambda: timed(gate_command(*run), cwd=folder / "ours"),
            lambda: timed(gate_command(*run), env=reference_env, cwd=folder / "theirs"),
            args.rounds,
            "reference",
        )
        workers = folder / "worker"
        workers.mkdir()
        (workers / "bench_echo.py").write_text(ECHO, encoding="utf-8")
        config = HandlerConfig("python", "bench_echo:echo", cwd=str(workers))

        def worker_start() -> Timing:
            def start_and_close() -> None:
                with build_handler(config):
                    pass

            return measured(start_and_close)

        paired(
            "python handler start", worker_start, lambda: timed(bare), args.rounds, "python -c pass"
        )
        for argv in (("--version",), run):
            names = imported(argv, folder / "ours")
            print(
                f"imported by `toolfuzz-gate {' '.join(argv)}`: {', '.join(names) or 'none of'}"
                f"{'' if names else ' ' + ', '.join(OPTIONAL)}"
            )


if __name__ == "__main__":
    main()
