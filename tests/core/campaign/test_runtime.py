"""Runtime failures: the member at fault, the boundary, and the verified schema patch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.documents import doc
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.jsonutil.patch import apply_patch

TOOL = ToolSpec(
    poster.TOOL_NAME,
    expected_rejections=poster.EXPECTED_REJECTIONS,
    error_codes=poster.ERROR_CODES,
    dry_run=poster.DRY_RUN,
)


class Poster:
    """The correct renderPoster, plus one planted runtime failure."""

    def __init__(self, breaks: Callable[[dict[str, Any]], bool]) -> None:
        self.service = poster.PosterService()
        self.breaks = breaks

    def call(self, arguments: JSONObject) -> Outcome:
        try:
            if self.breaks(arguments):
                return Outcome(OutcomeKind.CRASH, message="boom")
            output = self.service.render_poster(**arguments)
        except poster.ToolError as error:
            return Outcome(OutcomeKind.REJECTED, error_code=error.code)
        output_digest, size = digest_and_size(output)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def runtime_suggestion(breaks: Callable[[dict[str, Any]], bool], runs: int = 24) -> dict[str, Any]:
    result = fuzz(
        poster.SCHEMA,
        Poster(breaks),
        TOOL,
        FuzzConfig(41, runs),
        handler_label={"spec": "test"},
        replay_command="test",
    )
    valid = [c for c in doc(result.receipt)["counterexamples"] if c["inputKind"] == "valid"]
    assert len(valid) == 1, valid
    return valid[0]  # type: ignore[no-any-return]


def title_longer_than(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda a: isinstance(a.get("title"), str) and len(a["title"]) > n


def test_crash_past_64_characters_gets_a_verified_maxlength_64() -> None:
    example = runtime_suggestion(title_longer_than(64))
    assert example["failure"] == "crash"
    assert example["path"] == "/title"
    assert len(example["input"]["title"]) == 65
    suggestion = example["suggestion"]
    assert suggestion["patch"] == [
        {"op": "replace", "path": "/properties/title/maxLength", "value": 64}
    ]
    assert suggestion["verified"] is True
    assert "maxLength 64" in suggestion["sentence"]


def test_crash_on_large_widths_gets_a_verified_maximum() -> None:
    example = runtime_suggestion(lambda a: isinstance(a.get("width"), int) and a["width"] > 333)
    assert example["path"] == "/width"
    assert example["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/width/maximum", "value": 333}
    ]
    assert example["suggestion"]["verified"] is True


def test_crash_on_short_titles_gets_a_minlength() -> None:
    example = runtime_suggestion(lambda a: isinstance(a.get("title"), str) and len(a["title"]) < 3)
    assert example["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/title/minLength", "value": 3}
    ]
    assert example["suggestion"]["verified"] is True


def test_character_classes_get_a_description_that_is_not_claimed_verified() -> None:
    def astral(a: dict[str, Any]) -> bool:
        title = a.get("title")
        return isinstance(title, str) and any(ord(c) > 0xFFFF for c in title)

    example = runtime_suggestion(astral)
    assert example["path"] == "/title"
    suggestion = example["suggestion"]
    [operation] = suggestion["patch"]
    assert operation["path"] == "/properties/title/description"
    assert "Basic Multilingual Plane" in operation["value"]
    assert suggestion["verified"] is False


def test_a_failing_enum_member_is_proposed_for_removal() -> None:
    example = runtime_suggestion(lambda a: a.get("format") == "svg")
    assert example["path"] == "/format"
    assert example["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/format/enum", "value": ["png"]}
    ]
    assert example["suggestion"]["verified"] is True


def test_an_optional_property_that_always_fails_is_proposed_for_removal() -> None:
    example = runtime_suggestion(lambda a: "dryRun" in a)
    assert example["path"] == "/dryRun"
    assert example["suggestion"]["patch"] == [{"op": "remove", "path": "/properties/dryRun"}]
    assert example["suggestion"]["verified"] is True


def test_too_many_palette_entries_get_a_maxitems() -> None:
    def long_palette(a: dict[str, Any]) -> bool:
        return isinstance(a.get("palette"), list) and len(a["palette"]) > 2

    example = runtime_suggestion(long_palette, runs=40)
    assert example["path"] == "/palette"
    assert example["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/palette/maxItems", "value": 2}
    ]
    assert example["suggestion"]["verified"] is True


def test_verification_says_so_when_the_patch_does_not_help() -> None:
    # Two independent runtime failures: fixing the first alone leaves crashes behind.
    def both(a: dict[str, Any]) -> bool:
        return title_longer_than(64)(a) or (isinstance(a.get("width"), int) and a["width"] > 300)

    result = fuzz(
        poster.SCHEMA,
        Poster(both),
        TOOL,
        FuzzConfig(41, 24),
        handler_label={"spec": "test"},
        replay_command="test",
    )
    valid = [c for c in doc(result.receipt)["counterexamples"] if c["inputKind"] == "valid"]
    assert valid
    for example in valid:
        assert example["suggestion"]["verified"] is False
        assert "still end in crash" in example["suggestion"]["verification"]


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        ([{"op": "replace", "path": "/a/b", "value": 2}], {"a": {"b": 2}, "c": [1]}),
        ([{"op": "add", "path": "/a/d", "value": 3}], {"a": {"b": 1, "d": 3}, "c": [1]}),
        ([{"op": "remove", "path": "/a/b"}], {"a": {}, "c": [1]}),
        ([{"op": "add", "path": "/c/-", "value": 2}], {"a": {"b": 1}, "c": [1, 2]}),
        ([{"op": "add", "path": "/c/0", "value": 0}], {"a": {"b": 1}, "c": [0, 1]}),
    ],
)
def test_apply_patch(operations: list[JSONObject], expected: JSONObject) -> None:
    document: JSONObject = {"a": {"b": 1}, "c": [1]}
    assert apply_patch(document, operations) == expected
    assert document == {"a": {"b": 1}, "c": [1]}  # the original is untouched


def test_a_single_failing_value_is_documented_not_bounded() -> None:
    example = runtime_suggestion(lambda a: a.get("width") == 65, runs=40)
    assert example["path"] == "/width"
    assert example["input"]["width"] == 65
    suggestion = example["suggestion"]
    [operation] = suggestion["patch"]
    assert operation["path"] == "/properties/width/description"
    assert "65" in operation["value"]
    assert suggestion["verified"] is False
