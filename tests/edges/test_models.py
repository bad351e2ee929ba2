"""`edges.models`: a pydantic model's schema comes from a real subprocess, bounded in time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.documents import doc
from toolfuzz_gate.edges.models import load_model_schema, load_model_tool
from toolfuzz_gate.errors import ToolsError

MODELS = Path(__file__).resolve().parent.parent / "fixtures" / "models"


@pytest.fixture(autouse=True)
def in_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MODELS)


def test_the_schema_has_defs_refs_and_optional_fields() -> None:
    tool = load_model_tool("search_models:SearchRequest")
    assert (tool.name, tool.form, tool.pointer) == ("SearchRequest", "pydantic", "")
    schema = doc(tool.schema)
    assert isinstance(schema, dict)
    assert set(schema["$defs"]) == {"Location"}
    assert schema["properties"]["near"] == {"$ref": "#/$defs/Location"}
    assert {"type": "null"} in schema["properties"]["location"]["anyOf"]
    assert schema["required"] == ["query", "near"]


def test_user_code_is_not_imported_into_the_gate() -> None:
    load_model_schema("search_models:Flat")
    assert "search_models" not in sys.modules


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        ("search_models:NotAModel", "model_json_schema"),
        ("search_models:Missing", "AttributeError"),
        ("broken_models:Anything", "cannot be imported"),
        ("no_such_module_here:Model", "ModuleNotFoundError"),
        ("not a reference", "MODULE:CLASS"),
        ("search_models", "MODULE:CLASS"),
    ],
)
def test_unusable_models_are_tools_errors(reference: str, words: str) -> None:
    with pytest.raises(ToolsError) as caught:
        load_model_schema(reference)
    assert words in caught.value.message
    assert caught.value.source == f"--model {reference}"


@pytest.mark.slow
def test_a_model_that_hangs_is_cut_off() -> None:
    with pytest.raises(ToolsError) as caught:
        load_model_schema("search_models:Slow", timeout_s=3)
    assert "within 3 s" in caught.value.message


def test_output_is_capped() -> None:
    with pytest.raises(ToolsError) as caught:
        load_model_schema("search_models:SearchRequest", max_bytes=100)
    assert "larger than 100 bytes" in caught.value.message
