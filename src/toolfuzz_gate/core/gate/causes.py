"""Root causes: counterexamples grouped by what caused them, across the paths and tools of
one server, and the diff read group by group (pure).

One SDK behaviour (pydantic's lax mode taking `"9"` for an integer) breaks every integer
argument of every tool of a server: a hundred counterexamples, one cause. A group is the
counterexamples of one server with the same failure class, the same kind of input change
(`change_of`: the broken keyword and the near-miss's variant, `type:numeric-string for an
integer`; `valid` or `seam:PROBE` for other cases; none for a class about the whole call,
such as `replay-unstable`) and the same handler words (the
counterexample's `cause`). An accepted near-miss of a server that answers its rejections as
successes (`core.gate.reach_verdict`) whose answer reads as an error is one group per server,
of the class `rejection-as-success`.

A group's fingerprint depends only on those four things, so it diffs between base and
head as one unit: a new counterexample of a group the base has is not new (it moves to
`stillFailing`, marked `knownGroup`) unless the policy says `gate.instances: each`. The
receipts keep every instance; `groups` in the diff document lists them per group.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolfuzz_gate.core.campaign.findings import FINGERPRINT_LENGTH
from toolfuzz_gate.core.campaign.reach import error_worded
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.reach_verdict import (
    alike_as_error,
    answering,
    entries_of,
    server_of,
    unreached,
)
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, Revision, diff_sets
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

REJECTION_AS_SUCCESS = "rejection-as-success"
"""The class of a server's accepted near-misses it answered with error words."""
KINDS = ("new", "stillFailing", "fixed", "notRunOnHead")
_AT = re.compile(r" \(at [^()]*\)$")


WHOLE_CALL = frozenset(
    {"replay-unstable", "metamorphic-key-order", "not-idempotent", "read-only-mutation"}
)
"""Classes about the call as a whole (the same call twice, reordered, repeated): whatever
input found them, the tool does it to every call, so the input change does not count."""


def change_of(cx: Mapping[str, Any]) -> str:
    """The kind of input change a counterexample's case made ("" for a `WHOLE_CALL` class)."""
    if cx.get("failure") in WHOLE_CALL:
        return ""
    operator = cx.get("operator")
    if not isinstance(operator, str) or "@" not in operator:
        return str(cx.get("mutation") or "valid")
    keyword, _, variant = operator.partition("@")[0].partition(":")
    change = f"{keyword}:{variant.partition(':')[0]}"
    error = cx.get("error")
    required = error.get("required") if isinstance(error, Mapping) else None
    if keyword == "type" and isinstance(required, str) and required:
        change += f" for {required}"
    return change


def _answered_as_error(cx: Mapping[str, Any]) -> bool:
    error = cx.get("error")
    answer = error.get("answer") if isinstance(error, Mapping) else None
    return isinstance(answer, str) and error_worded(answer)


def group_key(
    cx: Mapping[str, Any], server: str, answering_servers: frozenset[str], alike: bool = False
) -> tuple[str, str, str, str]:
    """(server, failure, change, words) of a counterexample; `alike`: its tool answers
    every call alike, with error words."""
    failure = str(cx.get("failure", ""))
    if (
        failure == "hostile-accepted"
        and server in answering_servers
        and (alike or _answered_as_error(cx))
    ):
        return (server, REJECTION_AS_SUCCESS, "", "")
    return (server, failure, change_of(cx), str(cx.get("cause") or ""))


def group_fingerprint(key: tuple[str, str, str, str]) -> str:
    text = "\x1f".join(("toolfuzz-group/1", *key))
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
    return digest[:FINGERPRINT_LENGTH]


class _Sides:
    """What grouping needs of each side: each tool's server, the servers answering their
    rejections as successes, and the tools answering every call alike with error words."""

    def __init__(self, receipts: Iterable[Receipt], keys: Iterable[str]) -> None:
        listed = list(receipts)
        self.servers = {key: server_of(r) for key, r in zip(keys, listed, strict=True)}
        entries = entries_of(listed)
        self.answering = frozenset(item.server for item in answering(entries))
        self.alike = {tool for tool, _, reach in entries if alike_as_error(reach)}

    def key(self, tool: str, cx: Mapping[str, Any]) -> tuple[str, str, str, str]:
        server = self.servers.get(tool, "")
        return group_key(cx, server, self.answering, tool in self.alike)


UNNAMED = Revision()
"""A side of a diff named by no ref and no commit."""


def grouped_diff(
    base: ReceiptSet,
    head: ReceiptSet,
    *,
    each: bool = False,
    base_ref: Revision = UNNAMED,
    head_ref: Revision = UNNAMED,
) -> JSONObject:
    """`diff_sets` of two receipt sets, read by root cause (`group_diff`)."""
    document = diff_sets(base, head, base_ref=base_ref, head_ref=head_ref)
    return group_diff(document, head.receipts, each=each)


def group_diff(
    document: JSONObject, head: Mapping[str, Receipt], *, each: bool = False
) -> JSONObject:
    """`document` (a `toolfuzz-diff/1` of `head`'s receipts, by receipt key) with every
    counterexample's `group` and `change`, each tool's `server` and head `reach`, the
    `groups` per kind, the tools no valid call got past (`unreached`) and the servers
    answering rejections as successes (`answering`). What the base has is read from the
    document: each base counterexample is in `stillFailing`, `fixed` or `notRunOnHead`."""
    sides = _Sides(head.values(), head.keys())
    on_base = {
        group_fingerprint(sides.key(str(entry.get("tool")), cx))
        for entry in _listed(document.get("tools"))
        for kind in KINDS[1:]
        for cx in _listed(_mapping(entry.get("counterexamples")).get(kind))
    }
    tools: list[dict[str, Any]] = []
    for entry in _listed(document.get("tools")):
        name = str(entry.get("tool"))
        lists = entry["counterexamples"]
        assert isinstance(lists, dict)
        marked = {
            kind: [_marked(cx, sides.key(name, cx)) for cx in _listed(lists[kind])]
            for kind in KINDS
        }
        if not each:
            known = [cx for cx in marked["new"] if cx["group"] in on_base]
            marked["new"] = [cx for cx in marked["new"] if cx["group"] not in on_base]
            still = marked["stillFailing"] + [{**cx, "knownGroup": True} for cx in known]
            marked["stillFailing"] = sorted(still, key=lambda cx: str(cx["fingerprint"]))
        receipt = head.get(name)
        tools.append(
            {
                **entry,
                "counterexamples": {**lists, **marked},
                "server": sides.servers.get(name, ""),
                "reach": receipt.reach.as_json()
                if receipt is not None and receipt.reach is not None
                else None,
            }
        )
    head_entries = entries_of(head.values())
    totals: dict[str, Any] = dict(_mapping(document.get("totals")))
    grouped = {kind: _groups(tools, kind) for kind in KINDS}
    for kind in ("new", "stillFailing"):
        totals[kind] = sum(group["count"] for group in grouped[kind])
    totals["newGroups"] = len(grouped["new"])
    totals["stillFailingGroups"] = len(grouped["stillFailing"])
    totals["fixedGroups"] = len(grouped["fixed"])
    result: dict[str, Any] = {
        **document,
        "tools": tools,
        "totals": totals,
        "groups": grouped,
        "unreached": [item.as_json() for item in unreached(head_entries)],
        "answering": [item.as_json() for item in answering(head_entries)],
    }
    return result


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _listed(value: Any) -> list[Any]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _marked(cx: Mapping[str, Any], key: tuple[str, str, str, str]) -> dict[str, Any]:
    return {**cx, "group": group_fingerprint(key), "change": key[2], "class": key[1]}


def _groups(tools: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The groups of one kind's counterexamples: commonest first, then by fingerprint."""
    found: dict[str, dict[str, Any]] = {}
    for entry in tools:
        for cx in _listed(entry["counterexamples"][kind]):
            group = found.setdefault(
                str(cx["group"]),
                {
                    "fingerprint": cx["group"],
                    "server": entry["server"],
                    "failure": cx["class"],
                    "change": cx["change"],
                    "cause": str(cx.get("cause") or ""),
                    "reason": _general(cx),
                    "instances": [],
                },
            )
            group["instances"].append(
                {"tool": entry["tool"], "path": cx.get("path"), "fingerprint": cx["fingerprint"]}
            )
    groups = list(found.values())
    for group in groups:
        group["count"] = len(group["instances"])
        group["tools"] = sorted({str(i["tool"]) for i in group["instances"]})
        paths = {str(i["path"] or "/") for i in group["instances"]}
        if len(paths) == 1 and group["failure"] != REJECTION_AS_SUCCESS:
            group["reason"] += f" (at {paths.pop()})"
    groups.sort(key=lambda g: (-g["count"], str(g["fingerprint"])))
    return groups


def _general(cx: Mapping[str, Any]) -> str:
    """An instance's reason without its path: what the group's instances share."""
    error = cx.get("error")
    reason = error.get("reason") if isinstance(error, Mapping) else None
    text = reason if isinstance(reason, str) else str(cx.get("failure", ""))
    answer = error.get("answer") if isinstance(error, Mapping) else None
    if cx.get("class") == REJECTION_AS_SUCCESS:
        said = f": {answer}" if isinstance(answer, str) and answer else ""
        return f"answers calls the schema forbids as successes{said}"
    return _AT.sub("", text)


def root_cause_counts(document: Mapping[str, Any]) -> dict[str, Any]:
    """`summary.json`'s `rootCauses`: counterexamples and groups on head, new ones, the
    tools no valid call got past and the servers answering rejections as successes."""
    groups = _mapping(document.get("groups"))
    head = [*_listed(groups.get("new")), *_listed(groups.get("stillFailing"))]
    return {
        "groups": len(head),
        "counterexamples": sum(int(group.get("count", 0)) for group in head),
        "newGroups": len(_listed(groups.get("new"))),
        "unreached": [str(item.get("tool")) for item in _listed(document.get("unreached"))],
        "answering": [str(item.get("server")) for item in _listed(document.get("answering"))],
    }
