"""Documentation refinement, verified: a better description, tried before it is believed (pure).

For an erroneous prompt set the model is shown the tool's documentation, the synonymous
requests and the arguments the agent filled differently, and asked for a better tool
description and better descriptions of those arguments. The same prompt set then runs
again with the patched documentation offered to the agent (the handler is unchanged);
the suggestion is *verified* only when the re-run's failure rate (the share of prompts
failing all three checks) is lower than the original run's and its answers score no worse
against the expected answer (the share scored below the threshold does not grow), every
re-run answer scored (an answer the oracle could not score proves nothing). The
refiner sees what happened: each prompt, each call, whether the tool accepted or refused
it and what the handler said, and how the oracle scored the answer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.correctness import read_prompt_set
from toolfuzz_gate.core.agent.loop import CallTool, Chat, FreshState, FunctionTool
from toolfuzz_gate.core.agent.patch_agreement import JudgeUnder, split_patches
from toolfuzz_gate.core.agent.prompt_sets import (
    SCORED,
    SetRun,
    prompt_set_messages,
    run_prompt_set,
)
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

MAX_DESCRIPTION = 2_000
"""Characters kept of a proposed description."""
MAX_SAID = 300
"""Characters of a handler's message or an oracle's reason shown to the refiner."""
REFINER_SYSTEM = "You improve the documentation of tools AI assistants call. Reply with JSON only."


@dataclass(frozen=True)
class Refinement:
    """A proposed tool description (None: keep it) and argument descriptions by name."""

    description: str | None
    arguments: tuple[tuple[str, str], ...]

    def to_json(self) -> JSONObject:
        arguments: JSONObject = dict(self.arguments)
        return {"description": self.description, "arguments": arguments}


def refinement_messages(tool: FunctionTool, before: SetRun) -> list[JSONObject]:
    """The conversation asking for better documentation after `before` went wrong: each
    prompt, every call the agent made for it with the tool's verdict and what the handler
    said, and the oracle's score of the answer with its reason."""
    differing = before.checks()["underspecified"]
    expected = "" if before.expectation is None else before.expectation.expected
    lines = []
    for prompt, run, judgement in zip(
        before.prompt_set.prompts(), before.runs, before.judgements, strict=True
    ):
        lines.append(f"- {prompt!r}")
        for step in run.steps:
            record = step.record
            verdict = str(record.get("outcome") or step.kind)
            said = record.get("said") or record.get("output")
            told = f": {str(said)[:MAX_SAID]}" if said else ""
            lines.append(
                f"  call {canonical_compact(step.parsed or step.arguments)} -> {verdict}{told}"
            )
        if not run.steps:
            lines.append("  no call")
        if judgement is not None:
            lines.append(f"  answer scored {judgement.score}/10: {judgement.reason[:MAX_SAID]}")
    expectation = f"The expected answer: {expected[:MAX_SAID]}\n" if expected else ""
    listed = "\n".join(lines)
    return [
        {"role": "system", "content": REFINER_SYSTEM},
        {
            "role": "user",
            "content": (
                f"An assistant with the tool {tool.name!r} (description: "
                f"{tool.description or 'none'}; parameters: "
                f"{canonical_compact(tool.parameters)}) was given requests that mean the "
                f"same thing and called the tool differently:\n{listed}\n{expectation}The "
                f"arguments filled differently: {json.dumps(differing)}. Propose a clearer "
                "tool description and clearer descriptions of those arguments, so that an "
                'assistant calls the tool the same, right way. Reply as {"description": '
                '"...", "arguments": {"NAME": "..."}}'
            ),
        },
    ]


def read_refinement(reply: Reply, parameters: JSON) -> Refinement | None:
    """The suggestion in `reply`: a non-empty description and/or descriptions of the
    schema's own top-level properties (others are ignored); None when it has neither."""
    document = reply.json_object()
    if document is None:
        return None
    said = document.get("description")
    description = said.strip()[:MAX_DESCRIPTION] if isinstance(said, str) else ""
    known = _properties(parameters)
    given = document.get("arguments")
    arguments = tuple(
        (name, value.strip()[:MAX_DESCRIPTION])
        for name, value in sorted(given.items() if isinstance(given, dict) else [])
        if name in known and isinstance(value, str) and value.strip()
    )
    if not description and not arguments:
        return None
    return Refinement(description or None, arguments)


def patched(tool: FunctionTool, refinement: Refinement) -> FunctionTool:
    """`tool` as the agent sees it with the suggestion applied (the schema's constraints
    untouched: only descriptions change)."""
    parameters = copy.deepcopy(tool.parameters)
    properties = _properties(parameters)
    for name, description in refinement.arguments:
        entry = properties.get(name)
        if isinstance(entry, dict):
            entry["description"] = description
    return FunctionTool(tool.name, refinement.description or tool.description, parameters)


def refinement_entry(
    refinement: Refinement | None, before: SetRun, after: SetRun | None
) -> JSONObject:
    """The receipt's record of one refinement: the suggestion, the re-run, the verdict."""
    rate_before = round(before.failure_rate(), 4)
    rate_after = None if after is None else round(after.failure_rate(), 4)
    return {
        "suggestion": None if refinement is None else refinement.to_json(),
        "rerun": None if after is None else after.to_json(),
        "failureRateBefore": rate_before,
        "failureRateAfter": rate_after,
        "verified": after is not None
        and all(how == SCORED for how in after.judged)  # an unscored answer proves nothing
        and after.failure_rate() < before.failure_rate()
        and after.low_share() <= before.low_share(),
    }


def _properties(parameters: JSON) -> dict[str, JSON]:
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    return properties if isinstance(properties, dict) else {}


def campaign_patches(receipt: Receipt | None, arguments: list[JSON]) -> list[JSONObject]:
    """The schema campaign's verified patches (its counterexamples' and notes' suggestions
    whose re-run proved them) that change one of `arguments` (`/properties/NAME` or below):
    the schema fix that goes with a description fix for the same argument."""
    places = [jp.join("/properties", name) for name in arguments if isinstance(name, str)]
    found: list[JSONObject] = []
    if receipt is None:
        return found
    for entry in (*receipt.counterexamples, *receipt.under_specified):
        suggestion = entry.suggestion
        if not isinstance(suggestion, dict) or suggestion.get("verified") is not True:
            continue
        patch = suggestion.get("patch")
        operations = patch if isinstance(patch, list) else []
        paths = [op["path"] for op in operations if isinstance(op, dict) and "path" in op]
        if any(_under(path, place) for path in paths for place in places):
            found.append(
                {
                    "fingerprint": entry.fingerprint,
                    "patch": patch,
                    "sentence": suggestion.get("sentence"),
                }
            )
    return found


def _under(path: JSON, place: str) -> bool:
    return isinstance(path, str) and (path == place or path.startswith(place + "/"))


@dataclass(frozen=True)
class CorrectnessRun:
    """What the correctness checks of one tool need besides the model and the tool."""

    settings: AgentSettings = field(default_factory=AgentSettings)
    context: str = ""
    """The policy's user context for this tool (`agent.context`)."""
    receipt: Receipt | None = None
    """The schema receipt whose verified patches may go with a description fix."""
    fresh_state: FreshState | None = None
    judge_under: JudgeUnder | None = None
    """Validity under a patched schema: a campaign patch the fix's calls break is dropped."""


def check_correctness(
    tool: FunctionTool, chat: Chat, call_tool: CallTool, setup: CorrectnessRun | None = None
) -> list[JSONObject]:
    """The tool's prompt sets, each run and judged; each erroneous one refined and re-run,
    with the schema campaign's verified patches to the arguments it names (from the
    receipt) that do not contradict the fix. A set the model wrote unusably is recorded
    as such (`template` null)."""
    setup = setup or CorrectnessRun()
    settings = setup.settings
    run = partial(
        run_prompt_set,
        call_tool=call_tool,
        chat=chat,
        fresh_state=setup.fresh_state,
        max_steps=settings.steps,
        context=setup.context,
    )
    entries: list[JSONObject] = []
    for number in range(1, settings.prompt_sets + 1):
        asked = prompt_set_messages(tool, number, settings, setup.context)
        prompt_set = read_prompt_set(chat(asked, ()), settings.slots, settings.infills)
        if prompt_set is None:
            entries.append({"number": number, "template": None})
            continue
        before = run(prompt_set, tool)
        entry: JSONObject = {"number": number, **before.to_json(), "refinement": None}
        if entry["erroneous"]:
            entry["refinement"] = _refine(tool, chat, before, run, setup)
        entries.append(entry)
    return entries


def _refine(
    tool: FunctionTool,
    chat: Chat,
    before: SetRun,
    run: Callable[..., SetRun],
    setup: CorrectnessRun,
) -> JSONObject:
    """The suggestion for an erroneous set, its re-run (against the same expected answer),
    and the campaign's patches that agree with it."""
    suggestion = read_refinement(chat(refinement_messages(tool, before), ()), tool.parameters)
    after = None
    if suggestion is not None:
        after = run(before.prompt_set, patched(tool, suggestion), expectation=before.expectation)
    named = before.checks()["underspecified"]
    patches = campaign_patches(setup.receipt, named if isinstance(named, list) else [])
    described = [name for name, _ in suggestion.arguments] if suggestion is not None else []
    calls = [
        step.parsed
        for each in (after or before).runs
        for step in each.steps
        if step.parsed is not None and step.record.get("outcome") == "accepted"
    ]
    kept, dropped = split_patches(patches, tool.parameters, described, calls, setup.judge_under)
    return {
        **refinement_entry(suggestion, before, after),
        "schemaPatches": list[JSON](kept),
        "droppedSchemaPatches": list[JSON](dropped),
    }
