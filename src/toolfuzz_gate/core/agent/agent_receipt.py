"""The agent receipt: what agent mode found for one tool, and how to reproduce it (pure).

Deterministic: it records the model, its sampling parameters, the cassette's digest and
the budget spent, never a time, a duration, the mode or the key, so a `record` run and
its `replay` write the same bytes. `agentReceiptHash` seals the rest of the document.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.agent.reachability import REACHABLE
from toolfuzz_gate.core.gate.llm_settings import CHAT_COMPLETIONS, LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest

FORMAT = "toolfuzz-agent/1"
RUN_COUNTS = (
    "findings reachable counterexamples probes failing sets erroneous checks unjudged".split()
)
"""What an agent run counts over its tools' results (`count_results`)."""


def model_record(settings: LlmSettings) -> JSONObject:
    """The model and its parameters as the receipt names them (the policy's schema
    admits no credentials in the URL; headers and query parameters are not recorded).
    The API is named when it is not chat-completions, so older receipts keep their bytes."""
    parameters: JSONObject = dict(settings.parameters())
    record: JSONObject = {
        "model": settings.model,
        "baseUrl": settings.base_url,
        "parameters": parameters,
    }
    if settings.api != CHAT_COMPLETIONS:
        record["api"] = settings.api
    return record


def build_agent_receipt(
    tool: str,
    source: JSONObject,
    model: JSONObject,
    cassette: str | None,
    budget: JSONObject,
    findings: Sequence[JSONObject],
    skipped: Sequence[JSONObject],
    probes: Sequence[JSONObject] = (),
    correctness: Sequence[JSONObject] = (),
    health: JSONObject | None = None,
) -> JSONObject:
    """The receipt; `source` names the schema receipt the counterexamples came from."""
    body: JSONObject = {
        "format": FORMAT,
        "tool": tool,
        "source": source,
        "llm": model,
        "cassetteDigest": cassette,
        "budget": budget,
        "findings": list(findings),
        "skipped": list(skipped),
        "documentationProbes": list(probes),
        "correctness": list(correctness),
        "summary": _summary(findings, probes, correctness),
    }
    if health is not None:
        body["health"] = health
    body["agentReceiptHash"] = digest(body)
    return body


def _summary(
    findings: Sequence[JSONObject], probes: Sequence[JSONObject], sets: Sequence[JSONObject]
) -> JSONObject:
    refined = [entry["refinement"] for entry in sets if isinstance(entry.get("refinement"), dict)]
    counts: dict[str, JSON] = {
        "findings": len(findings),
        "probes": len(probes),
        "probesFailing": sum(1 for probe in probes if probe["failing"]),
        "promptSets": sum(1 for entry in sets if entry.get("template") is not None),
        "erroneous": sum(1 for entry in sets if entry.get("erroneous") is True),
        "refinementsVerified": sum(
            1 for entry in refined if isinstance(entry, dict) and entry.get("verified") is True
        ),
        "recovered": sum(
            len(listed) for entry in sets if isinstance(listed := entry.get("recovered"), list)
        ),
    }
    for entry in findings:
        for key in (str(entry["kind"]), str(entry["outcome"])):
            previous = counts.get(key, 0)
            counts[key] = (previous if isinstance(previous, int) else 0) + 1
    return counts


def count_results(
    counts: dict[str, int],
    findings: Sequence[JSONObject],
    probes: Sequence[JSONObject],
    correctness: Sequence[JSONObject],
    unjudged: int,
    probes_missing: int,
) -> None:
    """Add one tool's results to the run's `counts` (keys `RUN_COUNTS`): findings and the
    reachable ones, the counterexamples among them, documentation probes and the failing
    ones, prompt sets and the erroneous ones, the checks made (a missing reply of probes
    is one) and those the model kept from being judged (`unjudged`)."""
    for entry in findings:
        reached = entry["outcome"] == REACHABLE
        counts["findings"] += 1
        counts["reachable"] += reached
        counts["counterexamples"] += reached and entry["kind"] == "counterexample"
    counts["probes"] += len(probes)
    counts["failing"] += sum(bool(probe["failing"]) for probe in probes)
    counts["sets"] += sum(checked.get("template") is not None for checked in correctness)
    counts["erroneous"] += sum(checked.get("erroneous") is True for checked in correctness)
    counts["checks"] += len(findings) + len(probes) + len(correctness) + probes_missing
    counts["unjudged"] += unjudged


LISTS = ("findings", "skipped", "documentationProbes", "correctness")
"""The members that are lists of entry objects in every agent receipt."""


def agent_receipt_problems(document: JSON) -> list[str]:
    """Why `document` is not a sound agent receipt (empty: it is): the members a reader
    relies on, of the right types, and a hash that seals the rest (an edited receipt fails
    it; a forged one passes, as for schema receipts: a hash is no signature)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return [f"its format is not {FORMAT!r}"]
    found = []
    if not isinstance(document.get("tool"), str):
        found.append("`tool` is not a string")
    for name in LISTS:
        listed = document.get(name)
        if not isinstance(listed, list) or not all(isinstance(e, dict) for e in listed):
            found.append(f"`{name}` is not a list of objects")
    body = {name: value for name, value in document.items() if name != "agentReceiptHash"}
    if not found and document.get("agentReceiptHash") != digest(body):
        found.append("`agentReceiptHash` does not match its content (edited?)")
    return found
