"""Tools run in the job's Python: which interpreter imports a `python:` handler or a model,
and the worker it runs (a stdlib-only script, started by path, that may not have the gate)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.foreign_python import LIBRARY, make_foreign_python, old_interpreter
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import RunOptions
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.interpreter import (
    DEFAULT_VARIABLE,
    WORKER_SCRIPT,
    resolve_python,
)
from toolfuzz_gate.edges.handlers.python_worker import (
    PythonSpec,
    PythonWorkerHandler,
    WorkerOptions,
)
from toolfuzz_gate.edges.models import load_model_schema
from toolfuzz_gate.errors import HandlerError, ToolsError

TOOL = f"""import sys
import {LIBRARY}


def shout(text):
    return {LIBRARY}.shout(text)


def where():
    raise RuntimeError(sys.executable)


def modules():
    loaded = [name for name in ("asyncio", "toolfuzz_gate") if name in sys.modules]
    raise RuntimeError(" ".join(loaded))
"""


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


# --- which interpreter ------------------------------------------------------------------


def test_a_bare_name_is_looked_up_on_the_handlers_path(tmp_path: Path) -> None:
    found = _executable(tmp_path / "bin" / "python3")
    checkout = Checkout.at(str(tmp_path))
    assert resolve_python("python3", checkout, None, str(tmp_path / "bin")) == str(found)
    with pytest.raises(HandlerError, match=r"'python3' is not on PATH"):
        resolve_python("python3", checkout, None, str(tmp_path / "empty"))


def test_a_path_is_read_from_the_tools_directory_else_its_root(tmp_path: Path) -> None:
    in_root = _executable(tmp_path / ".venv" / "bin" / "python")
    in_tool = _executable(tmp_path / "server" / ".venv" / "bin" / "python")
    checkout = Checkout.at(str(tmp_path))
    assert resolve_python(".venv/bin/python", checkout, None, "") == str(in_root)
    cwd = str(tmp_path / "server")
    assert resolve_python(".venv/bin/python", checkout, cwd, "") == str(in_tool)
    with pytest.raises(HandlerError, match=r"'venv/bin/python' \(.*\) does not exist"):
        resolve_python("venv/bin/python", checkout, None, "")


def test_the_base_side_runs_the_heads_interpreter(tmp_path: Path) -> None:
    head, base = tmp_path / "head", tmp_path / "base"
    interpreter = _executable(head / "tools" / ".venv" / "bin" / "python")
    (base / "tools").mkdir(parents=True)  # a worktree holds no untracked venv
    checkout = Checkout.at(str(base), str(head))
    found = resolve_python(".venv/bin/python", checkout, str(base / "tools"), "")
    assert found == str(interpreter)


def test_the_policy_beats_the_variable_which_beats_the_gates_own(tmp_path: Path) -> None:
    _executable(tmp_path / "bin" / "python3")
    named = _executable(tmp_path / "bin" / "python-job")
    checkout = Checkout.at(str(tmp_path))
    path = str(tmp_path / "bin")
    environ = {DEFAULT_VARIABLE: "python-job"}
    assert resolve_python(None, checkout, None, path, environ=environ) == str(named)
    policy = resolve_python("python3", checkout, None, path, environ=environ)
    assert policy == str(tmp_path / "bin" / "python3")
    assert resolve_python(None, checkout, None, path, environ={}) == sys.executable


def test_the_policy_key_reaches_the_handler_config() -> None:
    options = RunOptions(python_interpreter=".venv/bin/python")
    config = HandlerConfig.from_policy(HandlerSettings("python", "m:f"), "t", options)
    assert config.python == ".venv/bin/python"
    assert config.label() == {"spec": "python:m:f"}  # a machine's path is not the tool's


# --- the worker script --------------------------------------------------------------------


def test_the_worker_is_a_standard_library_script_for_python_3_9() -> None:
    tree = ast.parse(Path(WORKER_SCRIPT).read_text("utf-8"), feature_version=(3, 9))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


@pytest.fixture
def tool_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tool"
    folder.mkdir()
    (folder / "job_tool.py").write_text(TOOL.replace(f"import {LIBRARY}\n", ""), "utf-8")
    return folder


def _message(handler: PythonWorkerHandler) -> str:
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH, outcome
    return outcome.message


def test_a_ready_worker_has_imported_neither_asyncio_nor_the_gate(tool_dir: Path) -> None:
    spec = PythonSpec.parse("python:job_tool:modules", rejects=())
    with PythonWorkerHandler(spec, WorkerOptions(cwd=str(tool_dir))) as handler:
        message = _message(handler)
    assert message.startswith("RuntimeError: ") and "job_tool.py" in message
    assert "asyncio" not in message and "toolfuzz_gate" not in message


def test_the_workers_own_directory_never_shadows_a_handlers_import(tool_dir: Path) -> None:
    # The worker's folder holds the gate's `config.py`, `http.py`, `registry.py`, ...
    (tool_dir / "job_tool.py").write_text(
        "import importlib.util\n\ndef probe():\n"
        "    raise RuntimeError(str(importlib.util.find_spec('registry')))\n",
        "utf-8",
    )
    spec = PythonSpec.parse("python:job_tool:probe", rejects=())
    with PythonWorkerHandler(spec, WorkerOptions(cwd=str(tool_dir))) as handler:
        assert "RuntimeError: None" in _message(handler)


# --- interpreters that cannot start it ------------------------------------------------------


def test_a_missing_interpreter_refuses_the_tool_naming_it(tool_dir: Path) -> None:
    spec = PythonSpec.parse("python:job_tool:where", rejects=())
    options = WorkerOptions(cwd=str(tool_dir), python=".venv/bin/python")
    with pytest.raises(HandlerError, match=r"Python interpreter '.venv/bin/python'"):
        PythonWorkerHandler(spec, options)
    options = WorkerOptions(cwd=str(tool_dir), python="python3.0-nowhere")
    with pytest.raises(HandlerError, match=r"'python3.0-nowhere' is not on PATH"):
        PythonWorkerHandler(spec, options)


@pytest.mark.slow
def test_an_interpreter_too_old_refuses_the_tool_naming_it(tool_dir: Path) -> None:
    old = old_interpreter()
    if old is None:
        pytest.skip("this machine has no Python older than 3.9")
    spec = PythonSpec.parse("python:job_tool:where", rejects=())
    with pytest.raises(HandlerError) as raised:
        PythonWorkerHandler(spec, WorkerOptions(cwd=str(tool_dir), python=old))
    assert f"the Python interpreter {old} is Python " in raised.value.message
    assert "the worker needs 3.9 or later" in raised.value.message


# --- a real job Python, without the gate, with a library the gate lacks -----------------------


@pytest.fixture(scope="module")
def job_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    python = make_foreign_python(tmp_path_factory.mktemp("job"))
    gate = subprocess.run(
        [str(python), "-c", "import toolfuzz_gate"], capture_output=True, check=False
    )
    assert gate.returncode != 0  # the job's Python does not have the gate
    yield python


@pytest.fixture
def job_tool(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "job_tool.py").write_text(TOOL, "utf-8")
    (folder / "models.py").write_text(f"from {LIBRARY} import Greeting\n", "utf-8")
    return folder


@pytest.mark.slow
def test_the_jobs_python_imports_and_calls_the_tool(job_python: Path, job_tool: Path) -> None:
    shout = PythonSpec.parse("python:job_tool:shout", rejects=[f"{LIBRARY}:Refused"])
    options = WorkerOptions(cwd=str(job_tool), python=str(job_python))
    with PythonWorkerHandler(shout, options) as handler:
        assert handler.call({"text": "hi"}).kind is OutcomeKind.ACCEPTED
        refused = handler.call({"text": ""})
        assert (refused.kind, refused.error_code) == (OutcomeKind.REJECTED, "refused")
    where = PythonSpec.parse("python:job_tool:where", rejects=())
    with PythonWorkerHandler(where, options) as handler:
        assert f"RuntimeError: {job_python}" in _message(handler)
    # The gate's own interpreter does not have the library: the tool is refused.
    with pytest.raises(HandlerError, match=f"No module named '{LIBRARY}'"):
        PythonWorkerHandler(shout, WorkerOptions(cwd=str(job_tool)))


@pytest.mark.slow
def test_the_jobs_python_reads_the_models_schema(job_python: Path, job_tool: Path) -> None:
    checkout = Checkout.at(str(job_tool))
    schema = load_model_schema("models:Greeting", checkout=checkout, python=str(job_python))
    assert isinstance(schema, dict) and schema["required"] == ["text"]
    relative = os.path.relpath(job_python, job_tool)
    assert load_model_schema("models:Greeting", checkout=checkout, python=relative) == schema
    with pytest.raises(ToolsError, match=f"No module named '{LIBRARY}'"):
        load_model_schema("models:Greeting", checkout=checkout)
    with pytest.raises(ToolsError, match=r"'nowhere/python' .* does not exist"):
        load_model_schema("models:Greeting", checkout=checkout, python="nowhere/python")
