"""Shared fixtures for handler adapter tests: handlers over the modules in tests/fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.edges.handlers.python_worker import (
    PythonSpec,
    PythonWorkerHandler,
    WorkerOptions,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "handlers"

MakeHandler = Callable[..., PythonWorkerHandler]


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def make_handler() -> Iterator[MakeHandler]:
    """Builds handlers over the fixture modules and closes them all after the test."""
    made: list[PythonWorkerHandler] = []

    def make(
        spec: str,
        *,
        rejects: tuple[str, ...] = ("builtins:ValueError",),
        effects: str | None = None,
        **options: Any,
    ) -> PythonWorkerHandler:
        options.setdefault("extra_pythonpath", (str(FIXTURES),))
        handler = PythonWorkerHandler(
            PythonSpec.parse(spec, rejects=rejects, effects=effects), WorkerOptions(**options)
        )
        made.append(handler)
        return handler

    yield make
    for handler in made:
        handler.close()
