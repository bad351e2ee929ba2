"""Flags that may be given once, and a parser that raises instead of exiting (no I/O)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NoReturn

from toolfuzz_gate.errors import UsageError


class Parser(argparse.ArgumentParser):
    """Raises `UsageError` instead of printing and exiting, so `run` picks the exit code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"see `{self.prog} --help`")


class Once(argparse.Action):
    """A flag that may be given at most once."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        if getattr(namespace, f"_seen_{self.dest}", False):
            raise UsageError(f"{option} was given twice", hint="give each flag once")
        setattr(namespace, f"_seen_{self.dest}", True)
        setattr(namespace, self.dest, values)


class OnceSwitch(Once):
    """An on/off switch that may be given at most once."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        super().__call__(parser, namespace, True, option)
