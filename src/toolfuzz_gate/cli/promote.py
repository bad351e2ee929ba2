"""`promote RECEIPT`: store a receipt's counterexamples in the regression corpus."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.core.gate.regression import build_case, select
from toolfuzz_gate.edges.corpus import write_case
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipt
from toolfuzz_gate.errors import ReceiptError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


def command_promote(args: argparse.Namespace, out: TextIO) -> ExitCode:
    corpus = build_corpus_directory(args)
    receipt = load_receipt(args.receipt)
    chosen = select(receipt, args.fingerprint)
    if not chosen:
        print(f"{args.receipt}: no counterexamples to promote", file=out)
        return ExitCode.PASSED
    for example in chosen:
        try:
            case = build_case(receipt, example)
        except ReceiptError as error:
            if args.fingerprint:
                raise
            print(f"skipped: {error.message}", file=out)
            continue
        file, changed = write_case(corpus, case)
        print(f"{'wrote' if changed else 'unchanged'}: {corpus / file}", file=out)
    return ExitCode.PASSED


def build_corpus_directory(args: argparse.Namespace) -> Path:
    """`--corpus DIR`, or the `corpus:` of `--policy FILE`."""
    if args.corpus is not None and args.policy is not None:
        raise UsageError("--corpus and --policy conflict: name the corpus one way")
    if args.corpus is not None:
        if args.root is not None:
            raise UsageError("--root goes with --policy")
        return Path(args.corpus)
    if args.policy is None:
        raise UsageError("name the corpus: --policy FILE (its `corpus:` directory) or --corpus DIR")
    loaded = load_policy(args.policy, args.root)
    if loaded.policy.corpus is None:
        raise UsageError(
            f"the policy {args.policy} names no corpus directory",
            hint="add `corpus: .toolfuzz/corpus` to the policy, or give --corpus DIR",
        )
    return Path(loaded.policy.corpus)
