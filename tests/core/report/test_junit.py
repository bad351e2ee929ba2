"""JUnit XML: one suite per tool, one case per invariant, deterministic and well-formed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given

from tests.core.report import scenario
from tests.core.report.hostile import SETTINGS, diffs
from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.report.junit import SUPPORTED_CASE, render_junit


def test_one_suite_per_tool_and_one_case_per_invariant() -> None:
    root = ET.fromstring(render_junit(scenario.diff()))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["renderPoster", "searchDocs"]
    names = [inv.name for inv in INVARIANTS] + [SUPPORTED_CASE]
    for suite in suites:
        assert [c.get("name") for c in suite.findall("testcase")] == names
        assert {c.get("classname") for c in suite.findall("testcase")} == {suite.get("name")}
    failing = {
        (s.get("name"), c.get("name")): c.find("failure")
        for s in suites
        for c in s.findall("testcase")
        if c.find("failure") is not None
    }
    assert sorted(failing) == [
        ("renderPoster", "hostile-rejected"),
        ("renderPoster", "no-crash"),
        ("searchDocs", SUPPORTED_CASE),
    ]
    hostile = failing[("renderPoster", "hostile-rejected")]
    assert hostile is not None
    assert hostile.get("message") == "accepted a call that breaks maximum at /width"
    assert '"width": 401' in (hostile.text or "")
    assert (root.get("tests"), root.get("failures")) == (str(2 * len(names)), "3")


def test_no_timestamps_hostnames_or_durations() -> None:
    text = render_junit(scenario.diff())
    for attribute in ("timestamp", "hostname", "time="):
        assert attribute not in text


def test_a_removed_tool_is_skipped() -> None:
    diff = scenario.diff()
    diff["tools"][1]["status"] = "removed"
    suite = ET.fromstring(render_junit(diff)).findall("testsuite")[1]
    assert suite.get("skipped") == "1" and suite.find("testcase/skipped") is not None


@pytest.mark.slow
@SETTINGS
@given(diffs)
def test_hostile_documents_give_well_formed_deterministic_xml(diff: dict[str, Any]) -> None:
    text = render_junit(diff)
    assert text == render_junit(diff)
    root = ET.fromstring(text.encode("utf-8"))
    assert len(root.findall("testsuite")) == len(diff["tools"])
    for entry, suite in zip(diff["tools"], root.findall("testsuite"), strict=True):
        failures = suite.findall("testcase/failure")
        if entry["status"] != "removed":
            group = entry["counterexamples"]
            refused = [
                r for r in entry["refused"]["head"] if r["code"] != "schema.unsupported-keyword"
            ]
            assert len(failures) == len(group["new"]) + len(group["stillFailing"]) + bool(
                entry["unsupported"]["added"] or entry["unsupported"]["still"]
            ) + bool(refused)


def test_a_contract_check_the_tool_does_not_declare_is_skipped_not_passed() -> None:
    diff = scenario.diff()
    diff["tools"][1]["notChecked"] = ["replay-stable", "valid-accepted"]
    suite = ET.fromstring(render_junit(diff)).findall("testsuite")[1]
    skipped = [c.get("name") for c in suite.findall("testcase") if c.find("skipped") is not None]
    in_registry_order = [inv.name for inv in INVARIANTS if inv.name in skipped]
    assert skipped == in_registry_order and set(skipped) == {"replay-stable", "valid-accepted"}
    assert suite.get("skipped") == "2"
    assert ET.fromstring(render_junit(scenario.diff())).get("skipped") == "0"
