"""`shard.json` (`toolfuzz-shard/1`): what one shard of a policy run ran, and the checks
that shards belong together before `merge` combines them (pure).

A manifest names the policy (its file and the sha256 of its bytes), the run's replay
command (the arguments, minus where outputs go and `--shard`, so shards started with
different flags do not merge), the shard `I/N`, the whole plan (every unit of the run, in
order), and the receipts this shard wrote with their `receiptHash`; `stateful` (only when
the shard ran one) lists the stateful campaigns it ran, each with `unit`, the plan index of
its server's first tool's unit: a campaign runs in the shard that runs that unit, so it
runs exactly once, and `merge` puts it where the unsharded run does (after the tools, in
the order of those units). The gate rules are not
copied here: `merge` reads them from the policy file itself, whose digest must match.
A manifest is read as untrusted: shapes and sizes are checked and receipt names are plain
file names, so a manifest cannot point `merge` outside its directory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.gate.sharding import MAX_COST_S, MAX_SHARDS, Shard, select
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.errors import ShardError

FORMAT = "toolfuzz-shard/1"
FILE_NAME = "shard.json"
MAX_UNITS = 10_000
MAX_TEXT = 10_000
RESERVED_NAMES = frozenset({FILE_NAME, "summary.json", "diff.json"})
_RECEIPT_NAME = re.compile(r"[A-Za-z0-9._-]{1,160}\.json")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_HINT = "merge the output directories of one `run --policy --shard I/N` per I, unedited"


@dataclass(frozen=True)
class Unit:
    """One (tool, seed) of the plan and the receipt file it writes."""

    tool: str
    seed: int
    receipt: str


@dataclass(frozen=True)
class ShardManifest:
    policy_file: str
    policy_digest: str
    replay: str
    shard: Shard
    plan: tuple[Unit, ...]
    receipts: tuple[tuple[Unit, str], ...]
    """The units this shard ran, each with its receipt's `receiptHash`."""
    costs: tuple[int, ...] | None = None
    """Each plan unit's cost in ms when the shards were balanced by cost (`--shard-costs`)."""
    stateful: tuple[Campaign, ...] = ()
    """The stateful campaigns this shard ran."""


@dataclass(frozen=True)
class Campaign:
    """A server's stateful campaign a shard ran: its receipt (`unit`: key, seed and file),
    the plan index of its server's first tool's unit (`first`), and its `receiptHash`."""

    unit: Unit
    first: int
    receipt_hash: str


@dataclass(frozen=True)
class Located:
    """Where `merge` finds a unit's receipt: the shard (its position among those given)."""

    unit: Unit
    receipt_hash: str
    source: int
    stateful: bool = False
    """A stateful campaign's receipt, not a plan unit's."""


def build_manifest(
    *,
    policy_file: str,
    policy_digest: str,
    replay: str,
    shard: Shard,
    plan: Sequence[Unit],
    receipts: Sequence[tuple[Unit, str]],
    costs: Sequence[int] | None = None,
    stateful: Sequence[Campaign] = (),
) -> JSONObject:
    manifest: JSONObject = {
        "format": FORMAT,
        "policy": {"file": policy_file, "digest": policy_digest},
        "replay": replay,
        "shard": {"index": shard.index, "count": shard.count},
        "plan": [_unit_json(unit) for unit in plan],
        "receipts": [{**_unit_json(unit), "receiptHash": hashed} for unit, hashed in receipts],
    }
    if costs is not None:
        manifest["costs"] = list(costs)
    if stateful:
        manifest["stateful"] = [
            {**_unit_json(c.unit), "unit": c.first, "receiptHash": c.receipt_hash} for c in stateful
        ]
    return manifest


def _unit_json(unit: Unit) -> JSONObject:
    return {"tool": unit.tool, "seed": unit.seed, "receipt": unit.receipt}


def read_manifest(document: JSON, source: str) -> ShardManifest:
    """The manifest `document` holds, or `ShardError` naming `source` and the member."""
    read = _Reader(source)
    members = {"format", "policy", "replay", "shard", "plan", "receipts"}
    if isinstance(document, dict):
        members |= {"costs", "stateful"} & set(document)
    top = read.object(document, "", members)
    if top["format"] != FORMAT:
        raise read.error("/format", f"is not {FORMAT!r}")
    policy = read.object(top["policy"], "/policy", {"file", "digest"})
    digest = read.text(policy["digest"], "/policy/digest")
    if not _DIGEST.fullmatch(digest):
        raise read.error("/policy/digest", "is not a sha256 hex digest")
    where = read.object(top["shard"], "/shard", {"index", "count"})
    count = read.integer(where["count"], "/shard/count", 1, MAX_SHARDS)
    index = read.integer(where["index"], "/shard/index", 1, count)
    plan = tuple(
        read.unit(item, f"/plan/{k}") for k, item in enumerate(read.items(top["plan"], "/plan"))
    )
    receipts = tuple(
        (read.unit(item, f"/receipts/{k}", {"receiptHash"}), _hash(read, item, k))
        for k, item in enumerate(read.items(top["receipts"], "/receipts"))
    )
    costs = None
    if "costs" in top:
        items = read.items(top["costs"], "/costs")
        if len(items) != len(plan):
            raise read.error("/costs", "does not give one cost per unit of the plan")
        costs = tuple(
            read.integer(item, f"/costs/{k}", 0, MAX_COST_S * 1000) for k, item in enumerate(items)
        )
    stateful = tuple(
        Campaign(
            read.unit(item, f"/stateful/{k}", {"unit", "receiptHash"}),
            read.integer(item["unit"], f"/stateful/{k}/unit", 0, max(0, len(plan) - 1)),
            _hash(read, item, k, "/stateful"),
        )
        for k, item in enumerate(read.items(top.get("stateful", []), "/stateful"))
    )
    return ShardManifest(
        read.text(policy["file"], "/policy/file"),
        digest,
        read.text(top["replay"], "/replay"),
        Shard(index, count),
        plan,
        receipts,
        costs,
        stateful,
    )


def _hash(read: _Reader, item: Any, k: int, where: str = "/receipts") -> str:
    hashed = read.text(item["receiptHash"], f"{where}/{k}/receiptHash")
    if not _DIGEST.fullmatch(hashed):
        raise read.error(f"{where}/{k}/receiptHash", "is not a sha256 hex digest")
    return hashed


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, pointer: str, message: str) -> ShardError:
        return ShardError(
            f"shard manifest {self.source}: {pointer or '(root)'} {message}", hint=_HINT
        )

    def object(self, value: Any, pointer: str, members: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(pointer, "is not an object")
        if set(value) != members:
            odd = sorted(set(value) ^ members)
            raise self.error(pointer, f"members differ from {sorted(members)}: {odd[:5]}")
        return value

    def text(self, value: Any, pointer: str) -> str:
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise self.error(pointer, f"is not a string of at most {MAX_TEXT} characters")
        return value

    def integer(self, value: Any, pointer: str, low: int, high: int) -> int:
        if type(value) is not int or not low <= value <= high:
            raise self.error(pointer, f"is not an integer from {low} to {high}")
        return value

    def items(self, value: Any, pointer: str) -> list[Any]:
        if not isinstance(value, list) or len(value) > MAX_UNITS:
            raise self.error(pointer, f"is not a list of at most {MAX_UNITS} items")
        return value

    def unit(
        self, value: Any, pointer: str, extra: frozenset[str] | set[str] = frozenset()
    ) -> Unit:
        item = self.object(value, pointer, {"tool", "seed", "receipt", *extra})
        seed = item["seed"]
        if type(seed) is not int or abs(seed) > 2**63:
            raise self.error(f"{pointer}/seed", "is not an integer seed")
        name = self.text(item["receipt"], f"{pointer}/receipt")
        if not _RECEIPT_NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise self.error(f"{pointer}/receipt", f"{name[:80]!r} is not a receipt file name")
        return Unit(self.text(item["tool"], f"{pointer}/tool"), seed, name)


def check_together(shards: Sequence[tuple[str, ShardManifest]]) -> list[Located]:
    """Every unit of the plan with the shard that ran it, in plan order; `ShardError` unless
    the shards are of one run (policy, arguments, N, plan), each `I` is given exactly
    once, and each ran exactly its own units."""
    if not shards:
        raise ShardError("no shard directories given", hint=_HINT)
    first_source, first = shards[0]
    for source, manifest in shards[1:]:
        for label, mine, theirs in (
            ("the policy", manifest.policy_digest, first.policy_digest),
            ("N", manifest.shard.count, first.shard.count),
            ("the arguments", manifest.replay, first.replay),
            ("the plan", manifest.plan, first.plan),
            ("the costs the shards were balanced by", manifest.costs, first.costs),
        ):
            if mine != theirs:
                raise ShardError(
                    f"{source} and {first_source} are shards of different runs: "
                    f"{label} differ{_shown(label, mine, theirs)}",
                    hint=_HINT,
                )
    by_index: dict[int, str] = {}
    for source, manifest in shards:
        index = manifest.shard.index
        if index in by_index:
            raise ShardError(
                f"shard {manifest.shard} is given twice: {by_index[index]} and {source}",
                hint="give each shard's directory once",
            )
        by_index[index] = source
    count = first.shard.count
    missing = [str(index) for index in range(1, count + 1) if index not in by_index]
    if missing:
        raise ShardError(
            f"shard(s) {', '.join(missing)} of {count} missing; given: "
            + ", ".join(f"{m.shard} ({s})" for s, m in shards),
            hint="download every shard's artifact before merging",
        )
    return _locate(shards)


def _locate(shards: Sequence[tuple[str, ShardManifest]]) -> list[Located]:
    found: dict[Unit, Located] = {}
    for position, (source, manifest) in enumerate(shards):
        for unit, hashed in manifest.receipts:
            if unit in found:
                other = shards[found[unit].source][0]
                raise ShardError(
                    f"{unit.receipt} (tool {unit.tool!r}, seed {unit.seed}) ran in two shards: "
                    f"{other} and {source}",
                    hint=_HINT,
                )
            found[unit] = Located(unit, hashed, position)
    for source, manifest in shards:
        ran = [unit for unit, _ in manifest.receipts]
        if ran != select(manifest.plan, manifest.shard, manifest.costs):
            raise ShardError(
                f"{source}: shard {manifest.shard} did not run exactly its units of the plan",
                hint=_HINT,
            )
    plan = shards[0][1].plan
    absent = [unit.receipt for unit in plan if unit not in found]
    if absent or len(found) != len(plan):
        raise ShardError(
            f"no shard ran {', '.join(absent[:10]) or 'a unit of the plan'}", hint=_HINT
        )
    return [found[unit] for unit in plan] + _campaigns(shards, {u.receipt for u in plan})


def _campaigns(shards: Sequence[tuple[str, ShardManifest]], planned: set[str]) -> list[Located]:
    """The stateful campaigns' receipts, each run by the shard of its server's first tool,
    in the order of those tools' units (the unsharded run's order)."""
    found: dict[str, tuple[int, Located]] = {}
    for position, (source, manifest) in enumerate(shards):
        own = set(select(range(len(manifest.plan)), manifest.shard, manifest.costs))
        for campaign in manifest.stateful:
            name = campaign.unit.receipt
            if name in planned or name in found:
                raise ShardError(f"{source}: {name} was written twice", hint=_HINT)
            if campaign.first not in own:
                raise ShardError(
                    f"{source}: shard {manifest.shard} ran {campaign.unit.tool!r}, the stateful "
                    "campaign of a server whose first tool another shard ran",
                    hint=_HINT,
                )
            located = Located(campaign.unit, campaign.receipt_hash, position, stateful=True)
            found[name] = (campaign.first, located)
    return [located for _, located in sorted(found.values(), key=lambda item: item[0])]


def _shown(label: str, mine: Any, theirs: Any) -> str:
    if label in {"the policy", "N"}:
        return f" ({theirs} vs {mine})"
    return ""
