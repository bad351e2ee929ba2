"""The diff document as SARIF 2.1.0, for code scanning (pure).

One rule per failure class of `core.campaign.findings.Failure` plus `unsupported-keyword`,
`refused`, `unreached` and `rejection-as-success`; one result per head-side root cause (a group
of counterexamples, `core.report.sarif_groups`; per counterexample in a diff document that is
not grouped), per tool no valid call got past and per server answering rejections as
successes, per head-side
unsupported keyword (added or still) and per head-side refusal reason other than an
unsupported keyword (a limit, a contradiction, a reference, an unreachable handler), and
per under-specification note (level `note`, a failure class that is not a defect), located
at the schema file and line, with `baselineState` from the diff and a `partialFingerprints`
entry derived from what the finding is about, never from input bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate import ENGINE_NAME, __version__
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.gate.causes import REJECTION_AS_SUCCESS
from toolfuzz_gate.core.report.context import (
    ReportContext,
    counterexample_location,
    evidence,
    iter_counterexamples,
    iter_notes,
    iter_refusals,
    iter_unsupported,
    refusal_location,
    text_of,
    unsupported_location,
)
from toolfuzz_gate.core.report.groups import is_grouped
from toolfuzz_gate.core.report.interface_locations import BREAKING_RULE, BREAKING_TEXT, iter_located
from toolfuzz_gate.core.report.sarif_groups import REACH_RULES, group_results, reach_results
from toolfuzz_gate.core.report.sarif_location import location
from toolfuzz_gate.core.report.untrusted import field

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
UNSUPPORTED_RULE = "unsupported-keyword"
REFUSED_RULE = "refused"
FINGERPRINT_KEY = "toolfuzzFingerprint/v1"

_DESCRIPTIONS = {
    Failure.HOSTILE_ACCEPTED: "The handler accepted a call its schema forbids.",
    Failure.VALID_REJECTED: "The handler rejected a schema-valid call.",
    Failure.CRASH: "The handler crashed.",
    Failure.TIMEOUT: "The handler did not answer in time.",
    Failure.MUTATION_ON_REJECTION: "A rejected call changed committed state.",
    Failure.DRY_RUN_MUTATION: "A dry run changed committed state.",
    Failure.REPLAY_UNSTABLE: "The same input twice gave different outputs.",
    Failure.METAMORPHIC_KEY_ORDER: "Reordering the input's object keys changed the output.",
    Failure.OUTPUT_UNBOUNDED: "The output exceeded its size limit.",
    Failure.ERROR_VOCABULARY: "A rejection code is outside the declared vocabulary.",
    Failure.ORACLE_DISAGREEMENT: "The independent validator rejected a value generated as valid.",
    Failure.RESOURCE_EXHAUSTION: "The handler ran into a memory, CPU or process limit.",
    Failure.READ_ONLY_MUTATION: "A tool declared read-only changed committed state.",
    Failure.UNDER_SPECIFIED: "The schema admits a call the tool refuses (a note on the schema).",
    Failure.OUTPUT_SCHEMA_VIOLATION: "A tool's structured output broke its declared outputSchema.",
    Failure.NOT_IDEMPOTENT: "A tool declared idempotent committed again when called again.",
    Failure.SLOW: "The handler answered, but only long past its time budget.",
    Failure.HUNG: "The handler never answered, not even given far more than its budget.",
    Failure.INTERNAL_ERROR: "The handler answered an internal error of its own and lived.",
    Failure.SEQUENCE_CRASH: "A call crashed in a sequence of calls on one server.",
    Failure.SEQUENCE_TIMEOUT: "A call hung in a sequence of calls on one server.",
    Failure.RESOURCE_UNAVAILABLE: "A read rejected what a create had just returned.",
    Failure.USE_AFTER_DELETE: "Something just deleted was read, deleted again or still listed.",
    Failure.UPDATE_NOT_VISIBLE: "The read after an update did not return what it wrote.",
    Failure.WRITE_OUTSIDE_ROOT: "A sandboxed handler wrote outside its allowed root.",
}


def render_sarif(diff: Mapping[str, Any], context: ReportContext) -> str:
    """The SARIF log as indented JSON text with a trailing newline."""
    results: list[dict[str, Any]] = []
    extra_rules: set[str] = set()
    for kind, state in (("new", "new"), ("stillFailing", "unchanged")):
        if is_grouped(diff):
            results.extend(group_results(diff, context, kind, state))
            continue
        for cx in iter_counterexamples(diff, kind):
            rule = field(cx.get("failure", ""), 100)
            if rule not in _DESCRIPTIONS:
                extra_rules.add(rule)
            results.append(_cx_result(context, cx, rule, state))
    results.extend(reach_results(diff, context))
    extra_rules |= {r["ruleId"] for r in results} - set(_DESCRIPTIONS) - set(REACH_RULES)
    extra_rules -= {UNSUPPORTED_RULE, REFUSED_RULE}
    for kind, state in (("added", "new"), ("still", "unchanged")):
        for item in iter_unsupported(diff, kind):
            results.append(_unsupported_result(context, item, state))
    for note in iter_notes(diff):
        results.append(_note_result(context, note))
    for item in iter_refusals(diff):
        if item.get("code") != "schema.unsupported-keyword":  # a result of its own above
            results.append(_refusal_result(context, item))
    for where, message, digest in iter_located(diff, context):
        results.append(
            {
                "ruleId": BREAKING_RULE,
                "level": "warning",
                "baselineState": "new",
                "message": {"text": message},
                "locations": location(where),
                "partialFingerprints": {FINGERPRINT_KEY: digest},
            }
        )
    rules = _rules(sorted(extra_rules))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    for result in results:
        result["ruleIndex"] = index[result["ruleId"]]
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": ENGINE_NAME,
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": sorted(results, key=_order),
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _rules(extra: list[str]) -> list[dict[str, Any]]:
    rules = [_rule(f.value, text) for f, text in _DESCRIPTIONS.items()]
    rules.append(_rule(UNSUPPORTED_RULE, "The schema uses a keyword the gate cannot test."))
    rules.append(_rule(REFUSED_RULE, "The gate could not fuzz the tool (schema or handler)."))
    rules.extend(_rule(rule, text) for rule, text in REACH_RULES.items())
    rules.append(_rule(BREAKING_RULE, BREAKING_TEXT))
    rules.extend(_rule(rule, "A failure class this version does not describe.") for rule in extra)
    return rules


def _rule(rule_id: str, text: str) -> dict[str, Any]:
    return {
        "id": rule_id,
        "shortDescription": {"text": text},
        "defaultConfiguration": {"level": _LEVELS.get(rule_id, "error")},
    }


_LEVELS = {
    UNSUPPORTED_RULE: "warning",
    Failure.UNDER_SPECIFIED.value: "note",
    REJECTION_AS_SUCCESS: "warning",
    BREAKING_RULE: "warning",
}


def _cx_result(
    context: ReportContext, cx: Mapping[str, Any], rule: str, state: str
) -> dict[str, Any]:
    error = cx.get("error")
    reason = error.get("reason") if isinstance(error, Mapping) else None
    tool, path = field(cx.get("tool", "")), field(text_of(cx.get("path")) or "(root)")
    text = f"{tool}: {field(reason if isinstance(reason, str) else rule)} (at {path})"
    said = evidence(cx).strip()
    if said:
        text += f"; the handler said: {field(said)}"
    return {
        "ruleId": rule,
        "level": "error",
        "baselineState": state,
        "message": {"text": text},
        "locations": location(counterexample_location(context, cx)),
        "partialFingerprints": {FINGERPRINT_KEY: field(cx.get("fingerprint", ""), 100)},
    }


def _note_result(context: ReportContext, note: Mapping[str, Any]) -> dict[str, Any]:
    """An under-specification note: level `note`, never diffed (so no baseline state),
    with the verified schema change when there is one."""
    tool, path = field(note.get("tool", "")), field(text_of(note.get("path")) or "(root)")
    cause = field(text_of(note.get("cause")) or "a rejection", 100)
    text = f"{tool}: the schema admits a call the tool refuses ({cause}, at {path})"
    suggestion = note.get("suggestion")
    if isinstance(suggestion, Mapping) and suggestion.get("verified") is True:
        text += f"; {field(text_of(suggestion.get('sentence')))}"
    return {
        "ruleId": Failure.UNDER_SPECIFIED.value,
        "level": "note",
        "message": {"text": text},
        "locations": location(counterexample_location(context, note)),
        "partialFingerprints": {FINGERPRINT_KEY: field(note.get("fingerprint", ""), 100)},
    }


def _unsupported_result(
    context: ReportContext, item: Mapping[str, Any], state: str
) -> dict[str, Any]:
    tool, keyword = text_of(item.get("tool")), text_of(item.get("keyword"))
    path = text_of(item.get("path"))
    identity = "\x1f".join(("toolfuzz-unsupported/1", tool, keyword, path))
    digest = hashlib.sha256(identity.encode("utf-8", errors="surrogatepass")).hexdigest()[:24]
    text = f"{field(tool)}: unsupported keyword {field(keyword)} at {field(path or '(root)')}"
    return {
        "ruleId": UNSUPPORTED_RULE,
        "level": "warning",
        "baselineState": state,
        "message": {"text": text},
        "locations": location(unsupported_location(context, item)),
        "partialFingerprints": {FINGERPRINT_KEY: digest},
    }


def _refusal_result(context: ReportContext, item: Mapping[str, Any]) -> dict[str, Any]:
    tool, code = text_of(item.get("tool")), text_of(item.get("code"))
    pointer, message = text_of(item.get("pointer")), text_of(item.get("message"))
    identity = "\x1f".join(("toolfuzz-refused/1", tool, code, pointer))
    digest = hashlib.sha256(identity.encode("utf-8", errors="surrogatepass")).hexdigest()[:24]
    at = f" at {field(pointer or '(root)')}" if code.startswith("schema.") else ""
    text = f"{field(tool)}: not fuzzed, {field(code, 100)}{at}: {field(message)}"
    return {
        "ruleId": REFUSED_RULE,
        "level": "note" if item.get("state") == "skipped" else "error",
        "baselineState": "new" if item.get("state") == "new" else "unchanged",
        "message": {"text": text},
        "locations": location(refusal_location(context, item)),
        "partialFingerprints": {FINGERPRINT_KEY: digest},
    }


def _order(result: dict[str, Any]) -> tuple[str, int, str, str]:
    where = result["locations"][0]["physicalLocation"]
    return (
        where["artifactLocation"]["uri"],
        where["region"]["startLine"],
        result["ruleId"],
        min(result["partialFingerprints"].values()),
    )
