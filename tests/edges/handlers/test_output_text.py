"""Every adapter keeps an accepted call's output as text only when asked (agent mode), and
then bounded: the campaign's outcomes never carry it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.edges.handlers.test_adapter_conformance import ADAPTERS
from toolfuzz_gate.core.campaign.outcome import OutcomeKind, output_text
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest
from toolfuzz_gate.edges.handlers.registry import build_handler

POSTER: JSONObject = {"width": 64, "height": 64, "palette": ["#aaa"], "title": "a", "format": "svg"}


@pytest.mark.parametrize(
    "adapter",  # an SDK-built MCP server takes a second or more to start
    [pytest.param(a, marks=pytest.mark.slow) if a == "mcp" else a for a in ADAPTERS],
)
def test_an_adapter_keeps_the_output_text_only_when_asked(
    adapter: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs = ADAPTERS[adapter]("correct", tmp_path, monkeypatch)
    config = next(configs)
    try:
        with build_handler(config) as plain:
            silent = plain.call({**POSTER, "title": "a"})
        with build_handler(replace(config, output_text_chars=4000)) as kept:
            whole = kept.call({**POSTER, "title": "b"})  # a poster is rendered once only
        with build_handler(replace(config, output_text_chars=10)) as short:
            cut = short.call({**POSTER, "title": "c"})
    finally:
        configs.close()
    assert silent.kind is whole.kind is cut.kind is OutcomeKind.ACCEPTED
    assert silent.output_text is None
    assert whole.output_text is not None and len(whole.output_text) <= 4000
    assert digest(json.loads(whole.output_text)) == whole.output_digest  # the output itself
    assert cut.output_text is not None and len(cut.output_text) > 10
    assert cut.output_text.endswith(" more characters)") and "…" in cut.output_text[10]


def test_output_text_is_masked_bounded_and_stripped_of_control_characters() -> None:
    token = "ghp_" + "a" * 36
    assert output_text({"b": "é", "a": token}, 100) == '{"a":"***","b":"é"}'
    assert output_text("line\none\x1b[31m\x00", 100) == "line\none[31m"
    assert output_text("abcdef", 3) == "abc… (3 more characters)"
    assert output_text("abc", 0) is None
