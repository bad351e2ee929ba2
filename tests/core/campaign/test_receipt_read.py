"""`core.campaign.receipt_read`: every older receipt shape the reader states it accepts is
read as today's receipt would say the same thing, a receipt of today's shape reads back to
its own bytes, and a sound receipt of no accepted shape is `receipt.unreadable`."""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.core.campaign.stateful.test_stateful_campaign import campaign
from tests.core.campaign.test_receipt import AcceptAll
from tests.receipts import complete, fingerprint_of, sealed, typed
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.receipt_ledgers import SchemaReading
from toolfuzz_gate.core.campaign.receipt_read import problems, read_receipt
from toolfuzz_gate.core.campaign.refusal import UNSUPPORTED_KEYWORD, Refusal
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import canonical_document
from toolfuzz_gate.errors import ReceiptError, ReceiptShapeError


@pytest.fixture(scope="module")
def today() -> dict[str, Any]:
    """A receipt of today's shape, with counterexamples (a handler accepting every call)."""
    tool = ToolSpec(poster.TOOL_NAME, expected_rejections=poster.EXPECTED_REJECTIONS)
    result = fuzz(
        poster.SCHEMA,
        AcceptAll(),
        tool,
        FuzzConfig(41, 24),
        handler_label={"spec": "builtin:renderPoster"},
        replay_command="toolfuzz-gate run",
    )
    return result.receipt.document()


def older(document: dict[str, Any], *without: str) -> dict[str, Any]:
    """`document` as a gate from before `without` were recorded wrote it: hashed without them."""
    body = {k: v for k, v in document.items() if k not in (*without, "receiptHash")}
    resealed = sealed(body)
    assert problems(resealed) == []
    return resealed


def test_todays_receipt_reads_back_to_its_own_bytes(today: dict[str, Any]) -> None:
    assert today["counterexamples"], "the poster's handler should give counterexamples"
    receipt = read_receipt(today)
    assert receipt.encoded() == canonical_document(today)
    assert receipt.receipt_hash == today["receiptHash"]


def test_a_receipt_without_under_specified_notes_has_none(today: dict[str, Any]) -> None:
    receipt = read_receipt(older(today, "underSpecified"))
    assert receipt.under_specified == ()
    assert len(receipt.counterexamples) == len(today["counterexamples"])


def test_a_refusal_without_reasons_reads_its_unsupported_keywords_as_reasons() -> None:
    unsupported = [{"keyword": "if", "path": "/if"}, {"keyword": "not", "path": "/a/not"}]
    document = sealed(
        complete(
            {
                "unsupported": unsupported,
                "refused": {"code": UNSUPPORTED_KEYWORD, "problems": ["if", "not"]},
            }
        )
    )
    receipt = read_receipt(document)
    assert receipt.reasons == (
        Refusal(UNSUPPORTED_KEYWORD, "/if", "unsupported keyword", "if"),
        Refusal(UNSUPPORTED_KEYWORD, "/a/not", "unsupported keyword", "not"),
    )
    assert receipt.refusal_codes == [UNSUPPORTED_KEYWORD]
    assert receipt.refused is not None and receipt.refused.problems == ("if", "not")
    bare = read_receipt(sealed(complete({"unsupported": unsupported, "refused": {}})))
    assert bare.refused is not None and bare.refused.problems == ()
    assert bare.refused.code == UNSUPPORTED_KEYWORD


def test_a_counterexample_without_a_cause_has_the_empty_cause(today: dict[str, Any]) -> None:
    edited = copy.deepcopy(today)
    for cx in edited["counterexamples"]:
        del cx["cause"]
    receipt = read_receipt(older(edited))
    assert receipt.counterexamples and all(cx.cause == "" for cx in receipt.counterexamples)


def test_a_receipt_without_checks_is_held_to_the_checks_of_its_time(
    today: dict[str, Any],
) -> None:
    receipt = read_receipt(older(today, "checks"))
    assert receipt.checks is None
    assert receipt.checks_held == resolve_checks(deterministic=True, strict=True)
    recorded = read_receipt(today)
    assert recorded.checks is not None and recorded.checks_held == recorded.checks


def test_a_receipt_without_interface_contract_or_cases_has_none(today: dict[str, Any]) -> None:
    receipt = read_receipt(older(today, "interface", "contract", "cases"))
    assert (receipt.interface, receipt.contract, receipt.cases) == (None, None, None)


def test_a_member_this_version_does_not_know_is_kept_as_it_is(today: dict[str, Any]) -> None:
    newer = older({**today, "fromTheFuture": {"x": [1, 2]}})
    receipt = read_receipt(newer)
    assert receipt.extra == {"fromTheFuture": {"x": [1, 2]}}
    assert receipt.encoded() == canonical_document(newer)


def test_the_committed_receipt_of_0_4_0_is_read() -> None:
    """A real older receipt (the worked example's as 0.4.0 wrote it, kept as a fixture): no
    `reach`, `saturation`, `replaySample`, `boundaries` or `interface`."""
    path = Path(__file__).parents[2] / "fixtures/receipts/geocode-0.4.0.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["engine"]["version"] == "0.4.0" and problems(document) == []
    receipt = read_receipt(document)
    assert receipt.campaign is not None
    assert (receipt.reach, receipt.campaign.saturation, receipt.campaign.boundaries) == (
        None,
        None,
        None,
    )
    assert receipt.interface is None and receipt.counterexamples
    assert receipt.campaign.schema_reading == SchemaReading("2020-12", False, False, None)
    assert receipt.campaign.schema_reading.as_json() == document["schemaReading"]
    assert [cx.fingerprint for cx in receipt.counterexamples] == [
        cx["fingerprint"] for cx in document["counterexamples"]
    ]


def test_members_only_some_receipts_record_are_none_when_absent(today: dict[str, Any]) -> None:
    """A run without a budget, a breaker, a dialect, handler notes or `--diagnostics` (or
    one from before they were kept) records none of them."""
    receipt = read_receipt(today)
    assert (receipt.budget, receipt.breaker, receipt.dialect) == (None, None, None)
    assert (receipt.handler_notes, receipt.diagnostics) == (None, None)
    assert receipt.interface is not None and receipt.reach is not None


RECORDED: dict[str, Any] = {
    "budget": {
        "seconds": 2,
        "runSeconds": 30.5,
        "exhausted": True,
        "scope": "tool",
        "stoppedAt": {"stream": "hostile", "case": 7},
        "notRun": {"valid": 0, "hostile": 193, "seam": 4},
        "shrinkCalls": 100,
        "note": "the tool's budget of 2 s ran out before case 7 of the hostile stream",
    },
    "breaker": {
        "failure": "timeout",
        "after": 3,
        "stream": "valid",
        "case": 5,
        "note": "stopped the valid stream after 3 timeouts of confirmed hangs",
        "notRun": {"valid": 35, "hostile": 0, "seam": 2},
        "hostileAfter": {"ran": 40, "timeoutFactor": 0.25, "timedOut": 1},
    },
    "dialect": {
        "name": "openai",
        "rewrites": [{"pointer": "/x", "from": 1, "to": 2, "dialect": "openai"}],
    },
    "handlerNotes": {
        "stdoutNoiseLines": 2,
        "stdoutNoiseSample": "starting...",
        "writtenOutsideRootAtStart": ["/tmp/x"],
    },
    "diagnostics": {"durationSeconds": 1.25, "host": {"python": "3.12"}},
    "schemaReading": {
        "draft": "2020-12",
        "formatAssertion": True,
        "recursive": True,
        "recursionDepth": 3,
        "ignoredKeywords": [{"keyword": "x-note", "pointer": "/properties/a"}],
    },
    "reach": {
        "valid": {
            "calls": 9,
            "reached": 0,
            "rejected": 0,
            "errorAnswers": 0,
            "crashed": 0,
            "timedOut": 0,
            "answeredAlike": 9,
        },
        "hostile": {
            "calls": 4,
            "rejected": 0,
            "accepted": 4,
            "errorAnswers": 4,
            "rejectedForSchema": 0,
            "answeredAsValid": 4,
        },
        "commonest": {"outcome": "answered-alike", "cause": "", "said": "Error: no", "count": 9},
        "errorAnswer": "Error: no",
    },
    "saturation": {"window": 25, "valid": {"planned": 200, "ran": 80, "saturated": True}},
}
"""Each member read as a record, in a shape a gate writes (every optional part present)."""


def test_each_record_reads_back_to_its_own_bytes() -> None:
    document = sealed(complete(RECORDED))
    receipt = read_receipt(document)
    assert receipt.encoded() == canonical_document(document)
    assert receipt.budget is not None and receipt.budget.cut is not None
    assert (receipt.budget.cut_seconds, receipt.budget.cut.stopped_at.case) == (2, 7)
    assert receipt.breaker is not None and receipt.breaker.hostile_after is not None
    assert receipt.handler_notes is not None and receipt.handler_notes.stdout_noise_lines == 2
    assert receipt.diagnostics is not None and receipt.diagnostics.settle_seconds is None
    assert receipt.reach is not None and receipt.reach.valid.answered_alike == 9
    assert receipt.campaign is not None and receipt.campaign.saturation is not None
    assert receipt.campaign.saturation.streams["valid"].ran == 80


def test_a_breaker_from_before_the_cut_was_counted_has_none() -> None:
    """0.5.0's breaker: where it tripped and its note, without `notRun` or `hostileAfter`."""
    breaker = {
        k: v
        for k, v in RECORDED["breaker"].items()
        if k in ("failure", "after", "stream", "case", "note")
    }
    document = sealed(complete({"breaker": breaker}))
    receipt = read_receipt(document)
    assert receipt.breaker is not None and receipt.breaker.stream == "valid"
    assert (receipt.breaker.not_run, receipt.breaker.hostile_after) == (None, None)
    assert receipt.encoded() == canonical_document(document)


def test_a_record_holding_a_member_this_version_does_not_read_is_unreadable() -> None:
    reach = {**RECORDED["reach"], "fromTheFuture": 1}
    with pytest.raises(ReceiptShapeError) as raised:
        read_receipt(sealed(complete({"reach": reach})))
    assert "`reach` holds members this version does not read" in raised.value.message


def _shapes(today: dict[str, Any]) -> dict[str, dict[str, Any]]:
    no_fingerprint = copy.deepcopy(today)
    no_fingerprint["counterexamples"][0]["fingerprint"] = "not-a-fingerprint"
    return {
        "counterexamples/0": no_fingerprint,
        "coverage": {**today, "coverage": {"type": 3}},
        "reach": {**today, "reach": [1]},
        "seed": {**today, "seed": True},
        "unsupported": {**today, "unsupported": ["if"]},
        "refused/reasons": {**today, "refused": {"code": "x", "reasons": "x"}},
        "counterexamples/0/flaky": complete(
            {"counterexamples": [{"fingerprint": fingerprint_of("a"), "flaky": "yes"}]}
        ),
        "reach/valid/calls": {**today, "reach": {**today["reach"], "valid": {"calls": "9"}}},
        "saturation/valid": {**today, "saturation": {"window": 25, "valid": 3}},
        "interface/inputSchemaDigest": {
            **today,
            "interface": {**today["interface"], "inputSchemaDigest": None},
        },
        "budget/stoppedAt": {**today, "budget": {"exhausted": True, "scope": "tool"}},
        "breaker/after": {**today, "breaker": {**RECORDED["breaker"], "after": "3"}},
        "handlerNotes/stdoutNoiseLines": {**today, "handlerNotes": {"stdoutNoiseLines": 1.5}},
        "diagnostics/durationSeconds": {**today, "diagnostics": {"durationSeconds": True}},
        "dialect/rewrites": {**today, "dialect": {"name": "openai"}},
        "cases/valid": {**today, "cases": {**today["cases"], "valid": 1.5}},
        "probes/0/valid": {**today, "probes": [{**today["probes"][0], "valid": None}]},
        "checks/replay/applies": {
            **today,
            "checks": {**today["checks"], "replay": {**today["checks"]["replay"], "applies": 1}},
        },
    }


@pytest.mark.parametrize(
    "member",
    [
        "counterexamples/0",
        "coverage",
        "reach",
        "seed",
        "unsupported",
        "refused/reasons",
        "counterexamples/0/flaky",
        "reach/valid/calls",
        "saturation/valid",
        "interface/inputSchemaDigest",
        "budget/stoppedAt",
        "breaker/after",
        "handlerNotes/stdoutNoiseLines",
        "diagnostics/durationSeconds",
        "dialect/rewrites",
        "cases/valid",
        "probes/0/valid",
        "checks/replay/applies",
    ],
)
def test_a_sound_receipt_of_no_accepted_shape_is_unreadable(
    today: dict[str, Any], member: str
) -> None:
    document = older(_shapes(today)[member])
    with pytest.raises(ReceiptShapeError) as raised:
        read_receipt(document)
    assert raised.value.code == "receipt.unreadable"
    assert f"`{member}`" in raised.value.message
    assert isinstance(raised.value, ReceiptError)  # whoever handles a bad receipt handles it


def test_typed_completes_what_a_test_leaves_out() -> None:
    receipt = typed({"tool": "alpha", "counterexamples": [{"fingerprint": fingerprint_of("a")}]})
    assert receipt.tool == "alpha" and receipt.counterexamples[0].failure == "crash"


def test_a_stateful_receipt_reads_back_to_its_own_bytes() -> None:
    document, _ = campaign("update-not-visible")
    receipt = read_receipt(document)
    assert receipt.stateful is not None and receipt.stateful.calls > 0
    assert receipt.counterexamples and receipt.counterexamples[0].sequence
    assert receipt.encoded() == canonical_document(document)


def test_a_declared_contract_reads_back_to_its_own_bytes() -> None:
    contract = {
        "expectedRejections": ["not found"],
        "errorCodes": "^E",
        "dryRun": None,
        "ignoreOutput": ["/at"],
        "rejectionCode": "(?P<code>E[0-9]+)",
        "rejectionAnswer": "^Error",
    }
    document = sealed(complete({"contract": contract}))
    receipt = read_receipt(document)
    assert receipt.contract is not None and receipt.contract.ignore_output == ("/at",)
    assert receipt.encoded() == canonical_document(document)


RECEIPT_BY_STRING = re.compile(r"\b(receipt|receipts)\w*(\[[^\]\"]*\])?(\[\"|\.get\(\")")
AGENT_RECEIPT_READERS = {
    "core/gate/agent_diff.py",
    "core/gate/agent_verdict.py",
    "core/gate/verdict.py",
    "core/report/agent_fixes.py",
}
"""They read agent receipts (`toolfuzz-agent/1`, `core.agent.agent_receipt`), a format of
their own that is not typed here."""


TYPED_MEMBERS = frozenset(
    {
        "checks",
        "cases",
        "probes",
        "interface",
        "breaker",
        "budget",
        "dialect",
        "handler_notes",
        "diagnostics",
        "schema_reading",
        "reach",
        "saturation",
    }
)
"""The receipt's members read back as records (`core.campaign.receipt_ledgers`,
`receipt_members`): read by their fields, never by a string."""
RECEIPT_MODULES = frozenset(
    {
        "core/campaign/receipt.py",
        "core/campaign/receipt_members.py",
        "core/campaign/receipt_ledgers.py",
        "core/campaign/receipt_read.py",
        "core/campaign/receipt_read_ledgers.py",
        "core/campaign/receipt_shape.py",
    }
)


def _by_string(node: ast.AST) -> ast.expr | None:
    """What `node` indexes by a string literal (`x["a"]`, `x.get("a")`), if it does."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value
    return None


def _member_read(node: ast.expr) -> str | None:
    """The typed member an expression reads (`r.reach`, `r.reach or {}`, `r.reach if r
    else None`), if it reads one."""
    if isinstance(node, ast.Attribute) and node.attr in TYPED_MEMBERS:
        return node.attr
    if isinstance(node, ast.BoolOp):
        return next((m for v in node.values if (m := _member_read(v))), None)
    if isinstance(node, ast.IfExp):
        return _member_read(node.body) or _member_read(node.orelse)
    return None


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one scope (a module or function), without those of functions in it."""
    found: list[ast.AST] = []
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            pending += ast.iter_child_nodes(node)
    return found


def members_indexed_by_string(source: str) -> list[str]:
    """`member:line` of each typed member indexed by a string, directly or through a name
    it was assigned to in the same function (`budget = receipt.budget; budget.get(...)`)."""
    found = []
    scopes = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module)
    ]
    for scope in scopes:
        aliases = {
            target.id: member
            for node in _own_nodes(scope)
            if isinstance(node, ast.Assign) and (member := _member_read(node.value))
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in _own_nodes(scope):
            indexed = _by_string(node)
            if indexed is None:
                continue
            member = _member_read(indexed)
            if member is None and isinstance(indexed, ast.Name):
                member = aliases.get(indexed.id)
            if member is not None:
                found.append(f"{member}:{getattr(node, 'lineno', 0)}")
    return sorted(set(found))


def test_no_module_but_the_receipts_own_indexes_a_receipt_by_string() -> None:
    package = Path(__file__).parents[3] / "src" / "toolfuzz_gate"
    found = sorted(
        name
        for path in package.rglob("*.py")
        if (name := path.relative_to(package).as_posix())
        not in RECEIPT_MODULES | AGENT_RECEIPT_READERS
        and RECEIPT_BY_STRING.search(path.read_text(encoding="utf-8"))
    )
    assert found == []
    assert RECEIPT_BY_STRING.search('tool = receipt["tool"]')
    assert RECEIPT_BY_STRING.search('found.receipts[key].get("seed")')


def test_no_module_but_the_receipts_own_indexes_a_typed_member_by_string() -> None:
    """The members read back as records are read by field everywhere else (the agent
    receipt readers too: they read this receipt's members as well)."""
    package = Path(__file__).parents[3] / "src" / "toolfuzz_gate"
    found = {
        name: hits
        for path in sorted(package.rglob("*.py"))
        if (name := path.relative_to(package).as_posix()) not in RECEIPT_MODULES
        and (hits := members_indexed_by_string(path.read_text(encoding="utf-8")))
    }
    assert found == {}


@pytest.mark.parametrize(
    ("source", "hits"),
    [
        ('x = r.breaker.get("note")', ["breaker:1"]),
        ('x = (r.handler_notes or {}).get("stdoutNoiseLines")', ["handler_notes:1"]),
        ('def f(r):\n    b = r.budget\n    return b.get("scope")', ["budget:3"]),
        ('def f(r):\n    i = r.interface if r else None\n    return i["digest"]', ["interface:3"]),
        ('x = r.campaign.reach["valid"]', ["reach:1"]),
        ("x = r.reach.valid.calls", []),
        ("x = session.budget.spent()", []),
        ('def f(r):\n    b = r.budget\n\ndef g(b):\n    return b.get("x")', []),
    ],
)
def test_the_typed_member_check_sees_what_it_must(source: str, hits: list[str]) -> None:
    assert members_indexed_by_string(source) == hits
