"""`diff`, `merge`, `promote` and `replay` as requests: the parsed flags turned into
`app.requests`."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from toolfuzz_gate.app.requests import DiffRequest, MergeRequest, PromoteRequest, ReplayRequest
from toolfuzz_gate.cli.commands_run import read_command


def build_diff_request(args: argparse.Namespace) -> DiffRequest:
    return DiffRequest(args.base, args.head, args.format)


def build_merge_request(args: argparse.Namespace, environ: Mapping[str, str]) -> MergeRequest:
    return MergeRequest(
        environ=environ,
        dirs=tuple(args.dirs),
        out=args.out,
        policy=args.policy,
        root=args.root,
        baseline_dir=args.baseline_dir,
    )


def build_promote_request(args: argparse.Namespace) -> PromoteRequest:
    return PromoteRequest(
        receipt=args.receipt,
        fingerprints=tuple(args.fingerprint),
        policy=args.policy,
        root=args.root,
        corpus=args.corpus,
    )


def build_replay_request(args: argparse.Namespace) -> ReplayRequest:
    """The receipt's own replayCommand is read back with this command line's grammar."""
    return ReplayRequest(
        receipt=args.receipt,
        read_command=read_command,
        fingerprints=tuple(args.fingerprint),
        policy=args.policy,
        root=args.root,
    )
