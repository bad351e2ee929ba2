"""The worker process behind `python:MODULE:FUNCTION` handlers (edge; standard library only).

It runs under the job's interpreter (`interpreter.py`), which need not have toolfuzz-gate,
so it imports nothing of the gate and runs on Python 3.9 and later. It is started by path,
`PYTHON /path/to/python_worker_main.py CONFIG`, never as `-m toolfuzz_gate...`, and it
imports only what a start needs (asyncio and traceback come when a call needs
them): `bench/bench_python_worker.py` measures the start. CONFIG is one JSON object on
argv: `{"module", "function", "rejects": ["MOD:CLASS", ...], "effects": "MOD:FUNC" | null,
"memory_limit_bytes": int | null, "memory_rlimit": NAME, "cpu_limit_s": int | null}`. It
then speaks JSON lines, one object per line, over its original stdin and stdout:

    -> {"ready": true}  or  {"ready": false, "error": "Type: message"}    once, at start
       (`"python": "3.8"` beside the error: the interpreter is older than 3.9)
    <- {"id": N, "arguments": {...}}
    -> {"id": N, "ok": true, "output": ..., "effects": {"before": ..., "after": ...}}
    -> {"id": N, "ok": false, "error": {"code": "...", "path": "..."}, "effects": {...}}
    -> {"id": N, "crash": {"type": "...", "message": "...", "where": "file.py:12"}}

`effects` is present only when an effects function is configured. The worker exits when
its stdin closes, and kills its own process group if the gate that started it dies.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import IO, Any, NamedTuple

MESSAGE_LIMIT = 500
"""Characters kept of an exception message, and of a rejection's code or path."""


class _Loaded(NamedTuple):
    function: Callable[..., Any]
    rejects: tuple[type[BaseException], ...]
    effects: Callable[[], Any] | None


def _claim_protocol_channel() -> tuple[IO[bytes], IO[bytes]]:
    """Move the protocol off fds 0 and 1 before any user code runs.

    A handler that prints, writes to fd 1 from C, or reads stdin would otherwise corrupt
    or steal protocol lines. Afterwards fd 1 and `sys.stdout` are stderr, fd 0 is
    /dev/null. `os.dup` makes non-inheritable fds, so handler subprocesses do not get them.
    """
    requests = open(os.dup(0), "rb")
    responses = open(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, responses


def _limit_resources(config: dict[str, Any]) -> None:
    """Apply rlimits to this process (inherited by anything the handler starts).

    Memory is the limit the gate names (`rlimits.MEMORY_RLIMIT`: RLIMIT_DATA on Linux, which
    leaves address ranges reserved but unused alone). The CPU limit is only the soft one: on
    Linux the gate moves it before every call, so it is a budget per call.
    """
    import resource

    # A crashing native extension must not drop core files into the user's checkout.
    with contextlib.suppress(OSError, ValueError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    memory_limit_bytes = config.get("memory_limit_bytes")
    if memory_limit_bytes is not None:
        which = getattr(resource, config.get("memory_rlimit") or "RLIMIT_AS")
        _, hard = resource.getrlimit(which)
        soft = memory_limit_bytes
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
    cpu_limit_s = config.get("cpu_limit_s")
    if cpu_limit_s:
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY:
            cpu_limit_s = min(cpu_limit_s, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit_s, hard))


def _watch_parent() -> None:
    """Die with the gate: a SIGKILLed gate cannot clean up, and a hung call never reads EOF."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                # Only kill the group we lead (the gate starts us in a new session);
                # run by hand from a shell, the group is the shell's.
                if os.getpgrp() == os.getpid():
                    os.killpg(os.getpgrp(), signal.SIGKILL)
                os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="toolfuzz-parent-watch", daemon=True).start()


def _resolve(reference: str) -> Any:
    module_name, _, name = reference.partition(":")
    return getattr(importlib.import_module(module_name), name)


def _load(config: dict[str, Any]) -> _Loaded:
    spec = f"{config['module']}:{config['function']}"
    function = _resolve(spec)
    if not callable(function):
        raise TypeError(f"{spec} is not callable")
    rejects: list[type[BaseException]] = []
    for reference in config.get("rejects", []):
        cls = _resolve(reference)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise TypeError(f"reject class {reference} is not an exception class")
        rejects.append(cls)
    effects = None
    if config.get("effects"):
        effects = _resolve(config["effects"])
        if not callable(effects):
            raise TypeError(f"effects function {config['effects']} is not callable")
    return _Loaded(function, tuple(rejects), effects)


def _text(value: object) -> str:
    try:
        text = str(value)
    except BaseException:  # a hostile __str__ must not take the worker down
        text = "<unprintable>"
    return text[:MESSAGE_LIMIT]


def _type_name(exc: BaseException) -> str:
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _crash(call_id: Any, exc: BaseException, context: str = "") -> dict[str, Any]:
    message = _text(exc)
    crash: dict[str, Any] = {
        "type": _type_name(exc),
        "message": f"{context}: {message}" if context else message,
    }
    # The innermost frame of the handler's code, not ours (a bad keyword argument has none);
    # the basename keeps messages the same on every machine.
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    if frames:
        crash["where"] = f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}"
    return {"id": call_id, "crash": crash}


def _rejection(exc: BaseException) -> dict[str, Any]:
    code = getattr(exc, "code", None)
    path = getattr(exc, "path", None)
    error: dict[str, Any] = {
        "code": code[:MESSAGE_LIMIT] if isinstance(code, str) else type(exc).__name__
    }
    if isinstance(path, str):
        error["path"] = path[:MESSAGE_LIMIT]
    return error


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _invoke(function: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    result = function(**arguments)
    if isinstance(result, Awaitable):
        import asyncio  # only for async handlers: most workers never pay for it

        result = asyncio.run(_await(result))
    return result


def _as_json(value: Any) -> Any:
    """`value` itself, after proving it encodes as strict JSON (no NaN, no sets, no cycles)."""
    json.dumps(value, allow_nan=False)
    return value


def _answer(loaded: _Loaded, call_id: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        before = _as_json(loaded.effects()) if loaded.effects else None
    except BaseException as exc:
        return _crash(call_id, exc, "effects snapshot before the call failed")
    response: dict[str, Any] = {"id": call_id}
    try:
        output = _invoke(loaded.function, arguments)
    except BaseException as exc:
        if not isinstance(exc, loaded.rejects):
            return _crash(call_id, exc)
        response.update(ok=False, error=_rejection(exc))
    else:
        try:
            response.update(ok=True, output=_as_json(output))
        except (TypeError, ValueError, RecursionError) as exc:
            return _crash(call_id, exc, "the return value is not JSON")
    if loaded.effects is not None:
        # Rejections carry effects too: a refused call must not change committed state.
        try:
            after = _as_json(loaded.effects())
        except BaseException as exc:
            return _crash(call_id, exc, "effects snapshot after the call failed")
        response["effects"] = {"before": before, "after": after}
    return response


def _respond(loaded: _Loaded, line: bytes) -> dict[str, Any]:
    try:
        request = json.loads(line)
        call_id, arguments = request["id"], request["arguments"]
        if not isinstance(arguments, dict):
            raise TypeError("arguments must be a JSON object")
    except (ValueError, TypeError, KeyError) as exc:
        return _crash(None, exc, "malformed request")
    return _answer(loaded, call_id, arguments)


def _send(channel: IO[bytes], message: dict[str, Any]) -> None:
    try:
        line = json.dumps(message, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        # Checked values can still fail here (a dict subclass that changes as it is read).
        line = json.dumps(_crash(message.get("id"), exc, "the response is not JSON"))
    channel.write(line.encode("ascii") + b"\n")
    channel.flush()


def _forget_own_directory() -> None:
    """Started by path, the worker's own directory leads `sys.path`; it holds the gate's
    modules (`http.py`, `config.py`, ...), which must never shadow the handler's imports."""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]


def main(argv: Sequence[str]) -> int:
    _forget_own_directory()
    if len(argv) != 2:
        print("usage: PYTHON python_worker_main.py CONFIG_JSON", file=sys.stderr)
        return 2
    config = json.loads(argv[1])
    requests, responses = _claim_protocol_channel()
    # The gate's policy floor: 3.7 and 3.8 parse this file, and are refused all the same.
    if sys.version_info < (3, 9):  # noqa: UP036 (this file runs under other Pythons)
        found = ".".join(map(str, sys.version_info[:2]))
        message = f"the worker needs Python 3.9 or later, not {found}"
        _send(responses, {"ready": False, "error": f"RuntimeError: {message}", "python": found})
        return 1
    sys.argv = [config["module"]]  # the handler should not see the gate's plumbing
    _watch_parent()
    try:
        _limit_resources(config)
        loaded = _load(config)
    except BaseException as exc:
        import traceback

        traceback.print_exc()
        _send(responses, {"ready": False, "error": f"{_type_name(exc)}: {_text(exc)}"})
        return 1
    _send(responses, {"ready": True})
    for line in requests:
        _send(responses, _respond(loaded, line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
