"""A pydantic model's tool schema, computed in a subprocess (edge).

`--model MODULE:CLASS` names user code; the gate never imports it into its own process.
A child interpreter (the job's Python: `handlers.interpreter`; the child is stdlib-only and
runs on Python 3.9 and later) with the scrubbed handler environment (the checkout leads
PYTHONPATH, as for `python:` handlers: `handlers.checkout`) imports the class, calls
`model_json_schema()` and answers one JSON line on its real stdout (the model's own prints
go to stderr). The child gets a deadline and an output cap, and its whole process group is
killed afterwards.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.interpreter import configured_python, resolve_python, too_old
from toolfuzz_gate.edges.handlers.wire import json_object_line
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess
from toolfuzz_gate.errors import HandlerError, ToolsError

MODEL_TIMEOUT_S = 30.0
MAX_MODEL_SCHEMA_BYTES = 1024 * 1024
_REFERENCE = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*")

_CHILD = r"""
import importlib, json, sys
channel, sys.stdout = sys.stdout, sys.stderr
def answer(message):
    channel.write(json.dumps(message, allow_nan=False) + "\n")
    channel.flush()
module_name, _, attribute = sys.argv[1].partition(":")
try:
    target = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    method = getattr(target, "model_json_schema", None)
    if not callable(method):
        answer({"error": "it has no model_json_schema() (is it a pydantic model class?)"})
    else:
        answer({"schema": method()})
except BaseException as error:
    answer({"error": (type(error).__name__ + ": " + str(error))[:500]})
"""


def load_model_schema(
    reference: str,
    *,
    timeout_s: float = MODEL_TIMEOUT_S,
    max_bytes: int = MAX_MODEL_SCHEMA_BYTES,
    checkout: Checkout | None = None,
    python: str | None = None,
    cwd: str | None = None,
) -> JSON:
    """The JSON Schema `MODULE:CLASS.model_json_schema()` returns, or `ToolsError`; the
    class is imported by the interpreter `python` names (read in `cwd`, else the
    checkout's root: `interpreter.resolve_python`)."""
    source = f"--model {reference}"
    if not _REFERENCE.fullmatch(reference):
        raise ToolsError("not MODULE:CLASS", source=source, hint="e.g. --model app.tools:Search")
    place = checkout or Checkout.at(None)
    env = place.environment()
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        interpreter = resolve_python(python, place, cwd, env.get("PATH"))
    except HandlerError as error:
        raise ToolsError(error.message, source=source, hint=error.hint) from None
    tempdir = handlers_own(tempfile.mkdtemp(prefix="toolfuzz-model-"))
    try:
        argv = [interpreter, "-c", _CHILD, reference]
        try:
            child = WorkerProcess(argv, env, tempdir)
        except OSError as error:
            shown = configured_python(python)
            raise ToolsError(f"cannot start Python {shown}: {error}", source=source) from None
        try:
            line = child.read_line(time.monotonic() + timeout_s, max_bytes)
            if isinstance(line, bytes):
                answer = json_object_line(line)
            elif line is Stop.OVERFLOW:
                raise ToolsError(f"the schema is larger than {max_bytes} bytes", source=source)
            elif line is Stop.TIMEOUT:
                raise ToolsError(f"no schema within {timeout_s:g} s", source=source)
            else:
                old = too_old(interpreter, configured_python(python), env)
                exited = child.describe_exit("the interpreter exited")
                raise ToolsError(old or exited, source=source)
        finally:
            child.kill()
    finally:
        shutil.rmtree(tempdir, ignore_errors=True)
    if answer is not None and isinstance(answer.get("error"), str):
        raise ToolsError(
            f"cannot read the model: {answer['error']}",
            source=source,
            hint="run the gate where `import MODULE` works (its directory or PYTHONPATH)",
        )
    if answer is None or not isinstance(answer.get("schema"), dict):
        raise ToolsError("the model did not give a JSON Schema object", source=source)
    schema: JSON = answer["schema"]
    return schema


def load_model_tool(
    reference: str,
    *,
    timeout_s: float = MODEL_TIMEOUT_S,
    checkout: Checkout | None = None,
    python: str | None = None,
    cwd: str | None = None,
) -> ToolDeclaration:
    """The model as one tool, named after its class, imported from `checkout` (default:
    the gate's current directory) by the interpreter `python` names."""
    schema = load_model_schema(
        reference, timeout_s=timeout_s, checkout=checkout, python=python, cwd=cwd
    )
    return ToolDeclaration(model_name(reference), schema, "", "pydantic")


def model_name(reference: str) -> str:
    """The tool a model `MODULE:CLASS` is: its class's name."""
    return reference.rpartition(":")[2].rpartition(".")[2]
