"""`lint` as a request: the parsed flags turned into an `app.requests.LintRequest`."""

from __future__ import annotations

import argparse

from toolfuzz_gate.app.requests import LintRequest
from toolfuzz_gate.cli.commands_run import schema_options


def build_lint_request(args: argparse.Namespace) -> LintRequest:
    return LintRequest(
        files=tuple(args.files),
        models=tuple(args.model),
        dialect=args.dialect,
        format=args.format,
        options=schema_options(args),
    )
