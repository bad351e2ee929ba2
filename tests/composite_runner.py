"""Runs a composite action (action.yml) the way the GitHub Actions runner does (test helper).

Each step in order: its `if:`, its `env:` and `with:` evaluated against the `inputs`,
`github`, `runner`, `env` and `steps` contexts; a `run:` step written to a script and run with
`bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`) in the workspace, with
fresh `GITHUB_OUTPUT`, `GITHUB_ENV`, `GITHUB_PATH` and `GITHUB_STEP_SUMMARY` files read back
afterwards as the runner reads them (outputs to `steps.<id>.outputs`, variables and path
entries to the later steps), `GITHUB_ACTION_PATH` set; the first step that fails ends the
action with its exit code; the action's outputs evaluated from its steps.

The runner downloads and runs a `uses:` step's action; here the two the toolfuzz-gate action
uses are emulated, minimally and said so (`Emulated`): `actions/setup-python` with
`update-environment: false` answers the interpreter running the tests as the one it "set
up" (a real CPython >= 3.11, as the runner's tool cache would hold); `actions/cache` restores
the path from a store directory keyed on `key` and saves it there after the last step when it
missed, as the post step does. Any other action, or an expression this evaluator does not
know, fails the run rather than being guessed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.foreign_python import runnable_by

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*\Z")
_DELIMITED = re.compile(r"^([^=\n]+)<<(.+)$")
_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


@dataclass(frozen=True)
class Job:
    """What the job gives the action: its workspace, environment and runner directories."""

    action_path: Path
    workspace: Path
    temp: Path
    environ: Mapping[str, str]
    token: str
    cache_store: Path
    """Where the `actions/cache` emulation keeps its entries (the service's storage)."""
    as_user: int | None = None
    """The uid (and gid) the steps run as, owning the workspace, RUNNER_TEMP and HOME, as a
    hosted runner's steps run as its `runner` user (needs root and `setpriv`); None: as
    the test runs."""
    reveal: Path | None = None
    """Where each `run` step's file-command paths are written (JSON) before it starts: an
    attack that knows the names the runner keeps secret (None: nowhere)."""


@dataclass
class StepRun:
    name: str
    kind: str  # "run", "skipped" or "emulated: NOTE"
    code: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class CompositeRun:
    code: int
    steps: list[StepRun]
    outputs: dict[str, str]
    summary: str

    @property
    def stdout(self) -> str:
        return "".join(step.stdout for step in self.steps)

    @property
    def stderr(self) -> str:
        return "".join(step.stderr for step in self.steps)

    def step(self, name: str) -> StepRun:
        (found,) = [step for step in self.steps if step.name == name]
        return found


def evaluate(expression: str, context: Mapping[str, Any]) -> str:
    """One expression of the subset action.yml uses: `a || b`, `a == b`, `a != b`, quoted
    literals, `true`/`false` and context paths (a missing member is the empty string)."""
    if "||" in expression:
        for part in expression.split("||"):
            chosen = evaluate(part.strip(), context)
            if chosen:
                return chosen
        return ""
    compared = re.fullmatch(r"(.+?)\s*(==|!=)\s*(.+)", expression)
    if compared:
        same = evaluate(compared[1], context) == evaluate(compared[3], context)
        return "true" if same == (compared[2] == "==") else ""
    if re.fullmatch(r"'[^']*'", expression):
        return expression[1:-1]
    if expression in ("true", "false"):
        return "true" if expression == "true" else ""
    assert _NAME.match(expression), f"an expression this runner does not evaluate: {expression}"
    value: Any = context
    for part in expression.split("."):
        value = value.get(part, "") if isinstance(value, Mapping) else ""
    if isinstance(value, bool):
        return "true" if value else ""
    assert isinstance(value, str | int), f"{expression} is not a string: {value!r}"
    return str(value)


def substitute(text: str, context: Mapping[str, Any]) -> str:
    return _EXPRESSION.sub(lambda match: evaluate(match[1], context), text)


def read_pairs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV as the runner reads them: `name=value` lines and
    `name<<DELIMITER` blocks."""
    found: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        block = _DELIMITED.match(line)
        if block and ("=" not in line or line.index("<<") < line.index("=")):
            end = lines.index(block[2], index)
            found[block[1]] = "\n".join(lines[index:end])
            index = end + 1
            continue
        name, separator, value = line.partition("=")
        assert separator, f"not a name=value line: {line!r}"
        found[name] = value
    return found


Emulator = Callable[[dict[str, str], Job, list[Callable[[], None]]], tuple[dict[str, str], str]]


def _setup_python(
    given: dict[str, str], job: Job, post: list[Callable[[], None]]
) -> tuple[dict[str, str], str]:
    assert given.get("update-environment") == "false", "only update-environment: false"
    python = str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())
    if job.as_user is not None:  # one the runner's user can run, as the tool cache's is
        found = runnable_by(job.as_user, (3, 11))
        assert found is not None, "no Python >= 3.11 the runner's user can run"
        python = found
    asked = [python, "-c", "import sys; print('.'.join(map(str, sys.version_info[:3])))"]
    version = subprocess.run(asked, capture_output=True, text=True, check=True).stdout.strip()
    assert tuple(int(part) for part in version.split(".")[:2]) >= (3, 11)
    note = f"emulated: no download; {python} ({version}) stands in for the tool cache's Python"
    return {"python-path": python, "python-version": version}, note


def _cache(
    given: dict[str, str], job: Job, post: list[Callable[[], None]]
) -> tuple[dict[str, str], str]:
    path, key = Path(given["path"]), given["key"]
    assert re.fullmatch(r"[A-Za-z0-9._-]+", key), key
    stored = job.cache_store / key
    if stored.is_dir():
        created = [path, *(p for p in path.parents if p.is_relative_to(job.temp))]
        missing = [directory for directory in created if not directory.exists()]
        shutil.copytree(stored, path, dirs_exist_ok=True)
        hand_over(job, *missing)  # the runner's user restores it, and owns what it made
        return {"cache-hit": "true"}, f"emulated: restored {key}"

    def save() -> None:
        if path.is_dir() and not stored.exists():
            shutil.copytree(path, stored)

    post.append(save)
    return {"cache-hit": "false"}, f"emulated: {key} missed; saved after the job"


EMULATED: dict[str, Emulator] = {
    "actions/setup-python": _setup_python,
    "actions/cache": _cache,
}


def hand_over(job: Job, *tops: Path) -> None:
    """`tops` (and everything in them) owned by `job.as_user`, and every directory above
    them searchable, as a runner's user owns its workspace and temporary directories."""
    if job.as_user is None:
        return
    for top in tops:
        for path in [top, *top.rglob("*")]:
            os.chown(path, job.as_user, job.as_user, follow_symlinks=False)
        for directory in top.parents:
            if directory.stat().st_uid == os.geteuid():
                directory.chmod(directory.stat().st_mode | stat.S_IXOTH | stat.S_IROTH)


def run_composite(
    job: Job, inputs: Mapping[str, str], *, only: Callable[[dict[str, Any]], bool] | None = None
) -> CompositeRun:
    """Run `job.action_path`/action.yml with `inputs` (the workflow's `with:`); `only`
    chooses the steps to run (the others are skipped as a false `if:` skips them)."""
    action = yaml.safe_load((job.action_path / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    hand_over(job, job.workspace, job.temp, Path(job.environ["HOME"]))
    github = {"action_path": str(job.action_path), "token": job.token}
    github["workspace"] = str(job.workspace)
    context: dict[str, Any] = {
        "github": github,
        "runner": {"os": "Linux", "arch": "X64", "temp": str(job.temp)},
        "env": dict(job.environ),
        "steps": {},
    }
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs action.yml does not declare: {sorted(unknown)}"
    context["inputs"] = {
        name: inputs[name] if name in inputs else substitute(str(spec.get("default", "")), context)
        for name, spec in declared.items()
    }
    added_env: dict[str, str] = {}
    added_path: list[str] = []
    post: list[Callable[[], None]] = []
    commands = job.temp / "_runner_file_commands"  # as the runner lays them out and keeps them
    commands.mkdir(exist_ok=True)
    summary = commands / f"step_summary_{os.urandom(4).hex()}"
    summary.write_text("")
    runs: list[StepRun] = []
    code = 0
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("id") or f"step {index}"
        condition = str(step.get("if", "success()"))
        wanted = only is None or only(step)
        if code != 0 or not wanted or not _holds(condition, context):
            runs.append(StepRun(name, "skipped"))
            continue
        step_id = step.get("id", f"__{index}")
        if "uses" in step:
            given = {key: substitute(_text(value), context) for key, value in step["with"].items()}
            emulate = EMULATED.get(step["uses"].split("@")[0])
            assert emulate is not None, f"no emulation of {step['uses']}"
            outputs, note = emulate(given, job, post)
            runs.append(StepRun(name, note, outputs=outputs))
        else:
            environ = {**job.environ, **added_env}
            if added_path:
                environ["PATH"] = os.pathsep.join([*reversed(added_path), environ["PATH"]])
            declared = step.get("env", {}).items()
            environ.update({key: substitute(_text(value), context) for key, value in declared})
            done = _run_script(step, environ, job, summary)
            added_env.update(done.pop("env"))
            added_path.extend(done.pop("path"))
            runs.append(StepRun(name, "run", done["code"], done["stdout"], done["stderr"]))
            runs[-1].outputs = done["outputs"]
            code = done["code"]
        context["steps"][step_id] = {"outputs": runs[-1].outputs}
        context["env"] = {**job.environ, **added_env}
    for save in post:
        save()
    outputs = {
        name: substitute(str(spec.get("value", "")), context)
        for name, spec in action.get("outputs", {}).items()
    }
    return CompositeRun(code, runs, outputs, summary.read_text())


def _text(value: object) -> str:
    """A `with:` or `env:` value as the runner passes it (YAML booleans as true/false)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _holds(condition: str, context: Mapping[str, Any]) -> bool:
    condition = condition.strip()
    match = _EXPRESSION.fullmatch(condition)
    expression = match[1] if match else condition
    if expression == "success()":
        return True
    assert "(" not in expression, f"a status function this runner does not know: {expression}"
    return bool(evaluate(expression, context))


def _run_script(
    step: dict[str, Any], environ: dict[str, str], job: Job, summary: Path
) -> dict[str, Any]:
    assert step.get("shell") == "bash", "composite run steps name their shell; ours is bash"
    step_id = os.urandom(4).hex()
    prefixes = {"OUT": "set_output", "ENV": "set_env", "PATH": "add_path"}
    files = {name: summary.parent / f"{prefix}_{step_id}" for name, prefix in prefixes.items()}
    script = job.temp / f"{step_id}.sh"
    script.write_text(step["run"], encoding="utf-8")
    for path in files.values():
        path.write_text("")
    if job.reveal is not None:
        names = {"env": files["ENV"], "path": files["PATH"], "step": summary}
        job.reveal.write_text(json.dumps({key: str(value) for key, value in names.items()}))
    environ.update(
        GITHUB_ACTION_PATH=str(job.action_path),
        GITHUB_OUTPUT=str(files["OUT"]),
        GITHUB_ENV=str(files["ENV"]),
        GITHUB_PATH=str(files["PATH"]),
        GITHUB_STEP_SUMMARY=str(summary),
    )
    as_user: list[str] = []
    if job.as_user is not None:
        hand_over(job, script, summary, *files.values())
        uid = str(job.as_user)
        as_user = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    done = subprocess.run(
        [*as_user, *_BASH, str(script)],
        cwd=job.workspace,
        env=environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    result = {
        "code": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "outputs": read_pairs(files["OUT"].read_text()),
        "env": read_pairs(files["ENV"].read_text()),
        "path": [line for line in files["PATH"].read_text().splitlines() if line],
    }
    script.unlink()
    return result  # the runner keeps every step's file commands until the job ends


def describe(run: CompositeRun) -> str:
    """Each step's kind, code and the tail of its streams (for assertion messages)."""
    return json.dumps(
        [[s.name, s.kind, s.code, s.stdout[-1500:], s.stderr[-1500:]] for s in run.steps],
        indent=1,
    )
