"""The campaign's schema patches that go with a description fix, and those that contradict
it (pure).

Beside a prompt set's proposed description the receipt lists the campaign's own verified
schema patches to the arguments the set names. A patch can say the opposite of the fix:
the description says "always give the country" and the patch removes `/properties/country`;
the re-run's agent, following the fix, calls with `value: 3` and the patch sets `maximum:
-1`. Such a patch is dropped from `schemaPatches`, with the reason, into
`droppedSchemaPatches`: what the receipt proposes never contradicts itself.

Two mechanical rules, no model involved: a patch that removes an argument whose
description the fix rewrites contradicts it; and a patch under which a call the tool
accepted in the fix's re-run (else in the first run) would be schema-invalid contradicts
what the fix made the agent do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.core.jsonutil.patch import apply_patch

JudgeUnder = Callable[[JSON], Callable[[JSON], bool] | None]
"""A schema -> the judge of validity under it (None: the engine refuses that schema)."""


def split_patches(
    patches: Sequence[JSONObject],
    parameters: JSON,
    described: Sequence[str],
    accepted_calls: Sequence[JSONObject],
    judge_under: JudgeUnder | None,
) -> tuple[list[JSONObject], list[JSONObject]]:
    """(kept, dropped): `patches` that agree with the fix, and those that contradict it,
    each dropped one with a `reason`. `described`: the arguments whose description the fix
    rewrites; `accepted_calls`: the calls the tool accepted with the fix in place."""
    kept: list[JSONObject] = []
    dropped: list[JSONObject] = []
    for entry in patches:
        reason = _contradiction(entry, parameters, described, accepted_calls, judge_under)
        if reason is None:
            kept.append(entry)
        else:
            dropped.append({**entry, "reason": reason})
    return kept, dropped


def _contradiction(
    entry: JSONObject,
    parameters: JSON,
    described: Sequence[str],
    accepted_calls: Sequence[JSONObject],
    judge_under: JudgeUnder | None,
) -> str | None:
    patch = entry.get("patch")
    operations = [op for op in patch if isinstance(op, dict)] if isinstance(patch, list) else []
    for op in operations:
        for name in described:
            if op.get("op") == "remove" and op.get("path") == jp.join("/properties", name):
                return f"it removes {name}, which the proposed description tells the agent to give"
    if judge_under is None or not accepted_calls:
        return None
    try:
        changed = apply_patch(parameters, operations)
    except (KeyError, IndexError, ValueError, TypeError):
        return None  # a patch for another form of the schema: nothing to compare
    judge = judge_under(changed)
    if judge is None:
        return None
    for call in accepted_calls:
        if not judge(call):
            return (
                f"under it the call {canonical_compact(call)[:200]}, which the agent made with "
                "the proposed description and the tool accepted, would be invalid"
            )
    return None
