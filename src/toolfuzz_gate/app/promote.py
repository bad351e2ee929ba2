"""`promote RECEIPT`: store a receipt's counterexamples in the regression corpus."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.requests import PromoteRequest
from toolfuzz_gate.core.gate.regression import build_case, select
from toolfuzz_gate.edges.corpus import write_case
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipt
from toolfuzz_gate.errors import ReceiptError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


def promote(request: PromoteRequest, out: TextIO) -> ExitCode:
    corpus = corpus_directory(request)
    receipt = load_receipt(request.receipt)
    chosen = select(receipt, request.fingerprints)
    if not chosen:
        print(f"{request.receipt}: no counterexamples to promote", file=out)
        return ExitCode.PASSED
    for example in chosen:
        try:
            case = build_case(receipt, example)
        except ReceiptError as error:
            if request.fingerprints:
                raise
            print(f"skipped: {error.message}", file=out)
            continue
        file, changed = write_case(corpus, case)
        print(f"{'wrote' if changed else 'unchanged'}: {corpus / file}", file=out)
    return ExitCode.PASSED


def corpus_directory(request: PromoteRequest) -> Path:
    """`--corpus DIR`, or the `corpus:` of `--policy FILE`."""
    if request.corpus is not None and request.policy is not None:
        raise UsageError("--corpus and --policy conflict: name the corpus one way")
    if request.corpus is not None:
        if request.root is not None:
            raise UsageError("--root goes with --policy")
        return Path(request.corpus)
    if request.policy is None:
        raise UsageError("name the corpus: --policy FILE (its `corpus:` directory) or --corpus DIR")
    loaded = load_policy(request.policy, request.root)
    if loaded.policy.corpus is None:
        raise UsageError(
            f"the policy {request.policy} names no corpus directory",
            hint="add `corpus: .toolfuzz/corpus` to the policy, or give --corpus DIR",
        )
    return Path(loaded.policy.corpus)
