"""`toolfuzz-gate diff BASE_DIR HEAD_DIR` reports what a change does to the tool interface
(issue 28), from receipts `fuzz --tools` wrote for a base and a head tools file: each change
on its side of the breaking line, and each breaking one with the first base call head's
schema refuses (shrunk) and how many of base's valid calls head refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli_helpers import invoke

ECHO = Path(__file__).parents[1] / "fixtures" / "handlers" / "echo.py"
S = {"type": "string"}


def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"name": name, "description": description, "inputSchema": schema}


BASE = [
    tool(
        "find",
        "Find notes.",
        {
            "q": {**S, "maxLength": 24, "description": "Words to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "mode": {"enum": ["fast", "full"]},
        },
        ["q"],
    ),
    tool(
        "tag",
        "Tag a note.",
        {"label": {**S, "maxLength": 8}, "color": {"enum": ["red"]}},
        ["label"],
    ),
    tool("old", "The old way.", {"text": S}, ["text"]),
]
HEAD = [
    tool(
        "find",
        "Find notes by words, <b>short</b> ones.",
        {
            "q": {**S, "maxLength": 12, "description": "Words to look for, few."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "mode": {"enum": ["fast"]},
            "lang": S,
        },
        ["q"],
    ),
    tool(
        "tag",
        "Tag a note.",
        {"label": {**S, "maxLength": 16}, "color": {"enum": ["red", "blue"]}, "scope": S},
        ["label", "scope"],
    ),
    tool("new", "The new way.", {"text": S}, ["text"]),
]


def _receipts(tmp_path: Path, side: str, tools: list[Any]) -> Path:
    path = tmp_path / f"{side}.json"
    path.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    out = tmp_path / side
    argv = ("fuzz", "--tools", str(path), "--handler", "python:echo:echo", "--runs", "40")
    code, text, err = invoke(*argv, "--out", str(out))
    assert code in (0, 1), text + err  # echo accepts near-misses: counterexamples, not errors
    return out


@pytest.fixture
def diffed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    shutil.copy(ECHO, tmp_path / "echo.py")
    monkeypatch.chdir(tmp_path)
    base, head = _receipts(tmp_path, "base", BASE), _receipts(tmp_path, "head", HEAD)
    _, text, err = invoke("diff", str(base), str(head), "--format", "json")
    assert "Traceback" not in err, err
    document: dict[str, Any] = json.loads(text)
    return document


@pytest.mark.slow
def test_each_change_on_its_side_of_the_breaking_line(diffed: dict[str, Any]) -> None:
    found = {(e["tool"], e["pointer"], e["change"]): e["breaking"] for e in diffed["interface"]}
    assert found == {
        ("find", "/description", "description-changed"): False,
        ("find", "/inputSchema/properties/q/description", "description-changed"): False,
        ("find", "/inputSchema/properties/q/maxLength", "bound-narrowed"): True,
        ("find", "/inputSchema/properties/limit/maximum", "bound-widened"): False,
        ("find", "/inputSchema/properties/mode/enum", "enum-narrowed"): True,
        ("find", "/inputSchema/properties/lang", "property-added"): False,
        ("tag", "/inputSchema/properties/label/maxLength", "bound-widened"): False,
        ("tag", "/inputSchema/properties/color/enum", "enum-widened"): False,
        ("tag", "/inputSchema/properties/scope", "property-added"): False,
        ("tag", "/inputSchema/required", "required-added"): True,
        ("old", "", "tool-removed"): True,
        ("new", "", "tool-added"): False,
    }
    breaking = [e["breaking"] for e in diffed["interface"]]
    assert breaking == sorted(breaking, reverse=True)  # breaking ones first


@pytest.mark.slow
def test_a_breaking_entry_carries_the_first_base_call_head_refuses(diffed: dict[str, Any]) -> None:
    entries = {(e["tool"], e["change"]): e for e in diffed["interface"]}
    base_find = jsonschema.Draft202012Validator(BASE[0]["inputSchema"])
    head_find = jsonschema.Draft202012Validator(HEAD[0]["inputSchema"])
    narrowed = entries[("find", "bound-narrowed")]["evidence"]
    assert narrowed["call"] == {"q": "a" * 13}  # shrunk: one character past the new bound
    assert narrowed["error"] == {"keyword": "maxLength", "path": "/q"}
    assert 0 < narrowed["refused"] < narrowed["of"] <= 40
    enum = entries[("find", "enum-narrowed")]["evidence"]
    assert enum["call"]["mode"] == "full" and enum["refused"] > 0
    for call in (narrowed["call"], enum["call"]):
        assert base_find.is_valid(call) and not head_find.is_valid(call)
    required = entries[("tag", "required-added")]["evidence"]
    assert required["refused"] == required["of"] > 0  # every base call lacks `scope`
    assert required["error"] == {"keyword": "required", "path": ""}
    removed = entries[("old", "tool-removed")]["evidence"]
    assert removed["refused"] == removed["of"] > 0 and removed["call"] == {"text": ""}
    for key in (("find", "bound-widened"), ("tag", "enum-widened"), ("new", "tool-added")):
        assert entries[key]["evidence"] is None  # a widening carries nothing
    [description] = [e for e in diffed["interface"] if e["pointer"] == "/description"]
    assert (description["base"], description["head"]) == ("Find notes.", HEAD[0]["description"])


@pytest.mark.slow
def test_the_same_receipts_give_no_interface_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(ECHO, tmp_path / "echo.py")
    monkeypatch.chdir(tmp_path)
    base = _receipts(tmp_path, "base", BASE)
    code, text, err = invoke("diff", str(base), str(base), "--format", "json")
    assert code == 0, err  # nothing new, and interface changes fail nothing here
    assert json.loads(text)["interface"] == []
