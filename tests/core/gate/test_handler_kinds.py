"""The handler-kind table is the one place a kind is described: the adapters, the policy's
JSON Schema, the `fuzz` flags and the docs' tables each say what it says."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.cli.parser import build_parser
from toolfuzz_gate.core.gate.handler_kinds import (
    BY_NAME,
    FUZZ_KINDS,
    KINDS,
    OWN_KEYS,
    POLICY_KINDS,
    owners,
)
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.lanes import lane_key, side_by_side
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.registry import ADAPTERS
from toolfuzz_gate.edges.policy_file import policy_schema

DOCS = Path(__file__).resolve().parents[3] / "docs"
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def test_every_kind_has_an_adapter_and_every_adapter_a_kind() -> None:
    assert set(ADAPTERS) == {kind.name for kind in KINDS}


def _handler_schema() -> dict[str, Any]:
    defs: Any = policy_schema()["$defs"]
    found: dict[str, Any] = defs["handler"]
    return found


def test_the_policy_schema_names_each_kind_and_its_own_keys() -> None:
    schema = _handler_schema()
    properties = schema["properties"]
    assert isinstance(properties, dict)
    for kind in KINDS:
        keys = (kind.target_key, kind.argv_key, *kind.own_keys)
        for key in (kind.name, *keys) if kind.in_policy else ():
            if key is not None:
                assert key in properties, f"{kind.name}: policy.schema.json lacks handler.{key}"
    listed = ", ".join(POLICY_KINDS[:-1]) + f" or {POLICY_KINDS[-1]}"
    assert f"Exactly one of {listed}," in str(schema["description"])
    tools: Any = policy_schema()["$defs"]
    described = tools["tool"]["properties"]["handler"]["description"]
    assert described == f"How the gate calls the tool: {listed}."
    for key in OWN_KEYS:  # each key of some kinds says whose it is
        described = str(properties[key]["description"]).lower()
        for owner in owners(key):
            assert re.search(rf"\b{owner}\b", described), f"handler.{key} does not say {owner}"


def test_a_policy_key_only_some_kinds_take_is_refused_on_the_others() -> None:
    from toolfuzz_gate.core.gate.policy_handler import Locator, parse_handler
    from toolfuzz_gate.errors import PolicyError

    # what names each kind: a string where its key holds the target, else a command
    starts = {name: "m:f" if BY_NAME[name].target_key == name else ["x"] for name in POLICY_KINDS}
    locate = Locator("policy.yml", {})
    for key in OWN_KEYS:
        for kind in POLICY_KINDS:
            given: dict[str, Any] = {kind: starts[kind], key: ["a"] if key == "server" else "a"}
            if key == "headers":
                given[key] = {"X": "V"}
            if kind in owners(key):
                assert parse_handler(given, "/h", locate).kind == kind
            else:
                with pytest.raises(PolicyError, match=f"{key} goes with a"):
                    parse_handler(given, "/h", locate)


def _fuzz_options() -> dict[str, argparse.Action]:
    parser = build_parser()
    commands = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    fuzz = commands.choices["fuzz"]
    return {option: action for action in fuzz._actions for option in action.option_strings}


def test_the_fuzz_flags_are_the_kinds_and_their_own_flags() -> None:
    options = _fuzz_options()
    for kind in FUZZ_KINDS:
        assert kind.option in options, f"fuzz has no {kind.option} for {kind.name}"
        for _, flag in kind.own_flags:
            assert flag in options, f"fuzz has no {flag} for {kind.name}"
    parser = build_parser()
    fuzz_help = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    ).choices["fuzz"]
    for kind in FUZZ_KINDS:
        assert kind.flag in str(fuzz_help.description) or not kind.in_policy


def test_the_handlers_page_has_one_row_per_kind_in_order() -> None:
    text = (DOCS / "handlers.md").read_text("utf-8")
    documented = [kind for kind in FUZZ_KINDS if kind.in_policy]
    assert f"There are {NUMBERS[len(documented)]} kinds" in text
    section = text.split("\n## The kinds\n", 1)[1].split("\n## ", 1)[0]
    firsts = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")]
    assert firsts[1:] == [f"`{kind.flag}`" for kind in documented]


def test_the_policy_page_says_whose_each_handler_key_is() -> None:
    section = (DOCS / "policy.md").read_text("utf-8").split("\n## Every key\n", 1)[1]
    rows = {
        cells[1].strip("` "): cells[3].lower()
        for line in section.splitlines()
        if line.startswith("| ") and len(cells := line.split("|")) > 3 and "`handler`" in cells[2]
    }
    for kind in POLICY_KINDS:
        assert kind in rows
    for key in OWN_KEYS:
        for owner in owners(key):
            assert re.search(rf"\b{owner}\b", rows[key]), f"policy.md: {key} does not say {owner}"


def test_the_lane_and_side_rules_are_the_rows() -> None:
    http = HandlerSettings("http", target="http://User@LocalHost:8080/x")
    assert lane_key(http) == "http:localhost:8080"
    assert lane_key(HandlerSettings("mcp", argv=("s",))) is None
    for kind in KINDS:
        settings = HandlerSettings(kind.name, target="http://h:1/")
        assert side_by_side([settings]) is kind.beside_other_side


def test_the_receipt_label_opens_with_the_kinds_own_part() -> None:
    config = HandlerConfig("mcp", "t", argv=("srv",), reset_tool="r")
    assert config.label() == {"mcp": {"command": ["srv"], "tool": "t"}, "reset": {"tool": "r"}}
    http = HandlerConfig("http", "http://h:1/", argv=("s",), headers=(("A", "V"),))
    assert http.label() == {"http": "http://h:1/", "server": ["s"], "headers": {"A": "$V"}}
    assert HandlerConfig("python", "m:f", rejects=("m:E",)).label() == {
        "spec": "python:m:f",
        "rejects": ["m:E"],
    }
