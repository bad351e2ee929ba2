"""`diff`: compare two receipt directories and print the diff as JSON or Markdown."""

from __future__ import annotations

import argparse
from typing import TextIO

from toolfuzz_gate.core.canonical import canonical_document
from toolfuzz_gate.core.diff import diff_sets, gate_failed
from toolfuzz_gate.core.diff_markdown import render_diff_markdown
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.exitcodes import ExitCode


def command_diff(args: argparse.Namespace, out: TextIO) -> ExitCode:
    document = diff_sets(load_receipts(args.base), load_receipts(args.head))
    if args.format == "json":
        out.write(canonical_document(document).decode("utf-8"))
    else:
        out.write(render_diff_markdown(document))
    return ExitCode.FAILED if gate_failed(document) else ExitCode.PASSED
