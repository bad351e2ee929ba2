"""The typed requests, one per command: what the command line (or the action) asks for.

Pure data, frozen. A request holds the values as given; the checks that need files,
handlers or the policy happen in the use case that runs it, in the order they always ran.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_TIMEOUT_MS
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions

if TYPE_CHECKING:  # named in annotations only: `--version` and `--help` import no engine
    from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
    from toolfuzz_gate.core.gate.sharding import Shard


@dataclass(frozen=True)
class RunOverrides:
    """The run options the user gave explicitly (None: not given); they beat the policy's."""

    seed: int | None = None
    runs: int | None = None
    format_assertion: bool = False
    default_draft: str | None = None
    tools: tuple[str, ...] = ()
    """`--tool NAME`: fuzz only these tools of the policy (empty: every tool)."""
    exclude_tools: tuple[str, ...] = ()
    """`--exclude-tool NAME`: leave these tools of the policy out."""


@dataclass(frozen=True)
class PolicyRunRequest:
    """`run --policy FILE`: every tool of the policy, its receipts and summary in `out`."""

    policy: Path
    out: Path
    root: Path | None = None
    overrides: RunOverrides = RunOverrides()
    oracle: str = "auto"
    diagnostics: bool = False
    argv: tuple[str, ...] = ()
    """The words the run was started with; the receipts' replayCommand is built from them."""
    jobs: int | None = None
    """`--jobs N`: tools fuzzed at the same time (None: `app.jobs.default_jobs`)."""
    cases: Path | None = None
    """`--cases FILE` (`fuzz` and the built-in run: one tool): its cases as JSON lines."""
    environ: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """The environment the command line was given (the model's key, `GITHUB_ACTIONS`,
    `GITHUB_EVENT_PATH`): `app/` reads no other."""


@dataclass(frozen=True)
class BaselineRequest:
    """`run --policy FILE --baseline REF | --baseline-dir DIR`: a policy run diffed
    against a base: the base's own policy run at `ref` (`auto`: the pull request's base),
    or the receipts stored in `directory`. Exactly one of the two is given."""

    run: PolicyRunRequest
    ref: str | None = None
    directory: Path | None = None


@dataclass(frozen=True)
class ShardRequest:
    """`run --policy FILE --shard I/N`: part of a policy run, for `merge`."""

    run: PolicyRunRequest
    shard: Shard
    costs: Path | None = None
    """`--shard-costs DIR`: a previous run's receipts, to share the units out by cost."""


@dataclass(frozen=True)
class MergeRequest:
    """`merge DIR... --out DIR --policy FILE`: the shards' outputs as one run's results."""

    dirs: tuple[Path, ...]
    out: Path
    policy: Path
    root: Path | None = None
    baseline_dir: Path | None = None
    environ: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class BuiltinRunRequest:
    """`run` without a policy: the built-in renderPoster contract."""

    config: FuzzConfig
    out: Path
    cases: Path | None = None
    diagnostics: bool = False
    argv: tuple[str, ...] = ()


@dataclass(frozen=True)
class FuzzRequest:
    """`fuzz`: one tool, or every tool of a tools file, a model or an MCP server."""

    config: FuzzConfig
    handler: Mapping[str, Any]
    """The handler's flags as given (flag -> value, `app.front_doors.HANDLER_FLAGS`); the
    front door checks them as a policy's handler is checked."""
    command: tuple[str, ...] = ()
    """The command after `--` (`--command`, `--mcp`)."""
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    schema: Path | None = None
    tools: Path | None = None
    model: str | None = None
    tool: str | None = None
    expected_rejections: tuple[str, ...] = ()
    error_codes: str | None = None
    rejection_code: str | None = None
    """`--rejection-code REGEX`: codes a rejection the handler did not (its `code` group)."""
    dry_run: str | None = None
    exclude_tools: tuple[str, ...] = ()
    """`--exclude-tool NAME`: tools of a tools file or an MCP server's listing left out."""
    fixed_arguments: tuple[str, ...] = ()
    """`--fixed-argument POINTER=JSON`, as given."""
    deterministic: bool = False
    """`--deterministic`: check replay and key order whatever the server declares."""
    strict: bool = False
    """`--strict`: the schema is complete (valid-rejected is a counterexample)."""
    allow_unreached: bool = False
    """`--allow-unreached`: a tool no valid call got past does not fail (`unreached`)."""
    receipt: Path | None = None
    out: Path | None = None
    cases: Path | None = None
    diagnostics: bool = False
    argv: tuple[str, ...] = ()


@dataclass(frozen=True)
class LintRequest:
    """`lint FILE... --model MODULE:CLASS...`: compile declared tools, run nothing."""

    files: tuple[Path, ...]
    models: tuple[str, ...] = ()
    dialect: str | None = None
    format: str = "text"
    options: SchemaOptions = DEFAULT_OPTIONS


@dataclass(frozen=True)
class DiffRequest:
    """`diff BASE_DIR HEAD_DIR`: two receipt directories compared."""

    base: Path
    head: Path
    format: str = "json"


@dataclass(frozen=True)
class PromoteRequest:
    """`promote RECEIPT`: counterexamples into the corpus of `policy` or `corpus`."""

    receipt: Path
    fingerprints: tuple[str, ...] = ()
    policy: Path | None = None
    root: Path | None = None
    corpus: Path | None = None


CommandReader = Callable[[Sequence[str]], object]
"""Reads a command's words (after `toolfuzz-gate`) into its request; the command line's
grammar, handed to `replay` so it can read a receipt's replayCommand back."""


@dataclass(frozen=True)
class ReplayRequest:
    """`replay RECEIPT`: its counterexamples re-run on the policy's handler, or on the one
    the receipt's replayCommand names (read back with `read_command`)."""

    receipt: Path
    read_command: CommandReader
    fingerprints: tuple[str, ...] = ()
    policy: Path | None = None
    root: Path | None = None


@dataclass(frozen=True)
class ActionRequest:
    """`action`: the GitHub Action, configured by the runner's variables in `environ`."""

    environ: Mapping[str, str]
