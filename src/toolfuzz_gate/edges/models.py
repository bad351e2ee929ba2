"""A pydantic model's tool schema, computed in a subprocess (edge).

`--model MODULE:CLASS` names user code; the gate never imports it into its own process.
A child interpreter with the scrubbed handler environment (the checkout leads PYTHONPATH,
as for `python:` handlers: `handlers.checkout`) imports the class, calls `model_json_schema()` and
answers one JSON line on its real stdout (the model's own prints go to stderr). The child
gets a deadline and an output cap, and its whole process group is killed afterwards.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.wire import json_object_line
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess
from toolfuzz_gate.errors import ToolsError

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
) -> JSON:
    """The JSON Schema `MODULE:CLASS.model_json_schema()` returns, or `ToolsError`."""
    source = f"--model {reference}"
    if not _REFERENCE.fullmatch(reference):
        raise ToolsError("not MODULE:CLASS", source=source, hint="e.g. --model app.tools:Search")
    tempdir = handlers_own(tempfile.mkdtemp(prefix="toolfuzz-model-"))
    try:
        argv = [sys.executable, "-c", _CHILD, reference]
        try:
            env = (checkout or Checkout.at(None)).environment()
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            child = WorkerProcess(argv, env, tempdir)
        except OSError as error:
            raise ToolsError(f"cannot start Python: {error}", source=source) from None
        try:
            line = child.read_line(time.monotonic() + timeout_s, max_bytes)
            if isinstance(line, bytes):
                answer = json_object_line(line)
            elif line is Stop.OVERFLOW:
                raise ToolsError(f"the schema is larger than {max_bytes} bytes", source=source)
            elif line is Stop.TIMEOUT:
                raise ToolsError(f"no schema within {timeout_s:g} s", source=source)
            else:
                raise ToolsError(child.describe_exit("the interpreter exited"), source=source)
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
    reference: str, *, timeout_s: float = MODEL_TIMEOUT_S, checkout: Checkout | None = None
) -> ToolDeclaration:
    """The model as one tool, named after its class, imported from `checkout` (default:
    the gate's current directory)."""
    schema = load_model_schema(reference, timeout_s=timeout_s, checkout=checkout)
    name = reference.rpartition(":")[2].rpartition(".")[2]
    return ToolDeclaration(name, schema, "", "pydantic")
