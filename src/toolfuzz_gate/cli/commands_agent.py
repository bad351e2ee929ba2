"""`agent` on the command line: its grammar and its request (agent mode)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolfuzz_gate.app.agent import AgentRequest


def add_agent_parser(commands: Any, once: type[argparse.Action]) -> None:
    """The `agent` subcommand; `once` is the action that refuses a repeated flag."""
    agent = commands.add_parser(
        "agent",
        help="ask the policy's model whether an agent reaches the receipts' counterexamples",
        description="For each counterexample and under-specification note in the receipts "
        "of a previous `run --policy` (--receipts DIR), asks the policy's llm for a natural "
        "user request that would lead an agent to that call, runs the agent on it against the "
        "tool's handler, and marks the finding agent-reachable when the agent's call fails "
        "the same way (for a note: a schema-valid call is rejected); then runs a few requests "
        "written from each tool's documentation alone. Writes one agent receipt per receipt "
        "into --out (default: DIR/agent). Exit 1 when a counterexample is agent-reachable or "
        "a documentation probe's call fails, 0 otherwise, 2 for a usage or policy error, 4 "
        "when the model cannot be used (llm.* codes).",
    )
    agent.add_argument("--policy", type=Path, action=once, metavar="FILE", required=True)
    agent.add_argument("--receipts", type=Path, action=once, metavar="DIR", required=True)
    agent.add_argument("--out", type=Path, action=once, metavar="DIR")
    agent.add_argument("--root", type=Path, action=once, metavar="DIR")


def build_agent_request(args: argparse.Namespace, environ: Mapping[str, str]) -> AgentRequest:
    from toolfuzz_gate.app.agent import AgentRequest  # agent mode's HTTP client: only here

    return AgentRequest(args.policy, args.receipts, args.out, args.root, environ)
