"""The policy's `llm` section: validated like the rest of the policy, with pointers."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.errors import PolicyError

TOOLS = """tools:
  - name: echo
    schema: schema.json
    handler: {command: [python, t.py]}
"""


def _policy(tmp_path: Path, llm: str) -> Path:
    (tmp_path / "schema.json").write_text('{"type": "object"}', encoding="utf-8")
    path = tmp_path / "policy.yml"
    path.write_text(f"version: 1\n{TOOLS}llm:\n{llm}", encoding="utf-8")
    return path


def test_a_full_section_is_read_with_the_cassette_under_the_root(tmp_path: Path) -> None:
    llm = """  base_url: http://127.0.0.1:11434/v1/
  model: llama3.1
  api_key_env: OPENAI_API_KEY
  temperature: 0.5
  seed: 7
  max_requests: 10
  max_tokens: 5000
  cassette: cassettes/agent.json
  mode: record
"""
    settings = load_policy(_policy(tmp_path, llm), root=tmp_path).policy.llm
    assert settings == LlmSettings(
        "http://127.0.0.1:11434/v1",
        "llama3.1",
        "OPENAI_API_KEY",
        0.5,
        7,
        10,
        5000,
        str((tmp_path / "cassettes" / "agent.json").resolve()),
        "record",
    )


def test_without_the_section_there_are_no_settings(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    (tmp_path / "schema.json").write_text("{}", encoding="utf-8")
    path.write_text(f"version: 1\n{TOOLS}", encoding="utf-8")
    assert load_policy(path, root=tmp_path).policy.llm is None


@pytest.mark.parametrize(
    ("llm", "key", "line", "words"),
    [
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: c.json\n  temprature: 1\n",
            "llm/temprature",
            10,
            "unknown key 'temprature'",
        ),
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: c.json\n  mode: replay-ish\n",
            "llm/mode",
            10,
            "is not one of: replay, record, live",
        ),
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: c.json\n  max_requests: 0\n",
            "llm/max_requests",
            10,
            "less than the minimum",
        ),
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: c.json\n  request_deadline_s: 0\n",
            "llm/request_deadline_s",
            10,
            "less than or equal to the minimum",
        ),
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: c.json\n  run_deadline_s: 100000\n",
            "llm/run_deadline_s",
            10,
            "greater than the maximum",
        ),
        (
            "  base_url: ftp://h/v1\n  model: m\n  cassette: c.json\n",
            "llm/base_url",
            7,
            "does not match",
        ),
        (
            "  base_url: http://user:sk-secret@h/v1\n  model: m\n  cassette: c.json\n",
            "llm/base_url",
            7,
            "does not match",
        ),
        ("  model: m\n  cassette: c.json\n", "llm/base_url", 6, "missing key 'base_url'"),
        ("  base_url: http://h/v1\n  model: m\n", "llm", 6, "mode replay needs a cassette"),
        (
            "  base_url: http://h/v1\n  model: m\n  cassette: ../outside.json\n",
            "llm/cassette",
            9,
            "escapes the repository root",
        ),
    ],
)
def test_a_bad_section_is_a_policy_error_at_the_key(
    tmp_path: Path, llm: str, key: str, line: int, words: str
) -> None:
    with pytest.raises(PolicyError) as raised:
        load_policy(_policy(tmp_path, llm), root=tmp_path)
    assert (raised.value.key, raised.value.line) == (key, line)
    assert words in raised.value.detail


def test_live_mode_needs_no_cassette(tmp_path: Path) -> None:
    llm = "  base_url: https://api.openai.com/v1\n  model: gpt-4o-mini\n  mode: live\n"
    settings = load_policy(_policy(tmp_path, llm), root=tmp_path).policy.llm
    assert settings is not None and settings.cassette is None and settings.mode == "live"


AZURE = """  base_url: https://geo.openai.azure.com/openai/deployments/geo-4o
  model: gpt-4o
  api_key_env: AZURE_OPENAI_API_KEY
  api_key_header: api-key
  query: {api-version: "2024-10-21"}
  headers: {x-ms-client-request-id: toolfuzz}
  temperature: null
  max_completion_tokens: 800
  cassette: c.json
"""


def test_an_azure_deployment_section_gives_the_wire_its_query_and_key_header(
    tmp_path: Path,
) -> None:
    settings = load_policy(_policy(tmp_path, AZURE), root=tmp_path).policy.llm
    assert settings is not None
    wire = settings.wire()
    assert wire.url == "https://geo.openai.azure.com/openai/deployments/geo-4o/chat/completions"
    assert (wire.key_header, wire.query) == ("api-key", (("api-version", "2024-10-21"),))
    assert wire.headers == (("x-ms-client-request-id", "toolfuzz"),)
    assert settings.parameters() == {"seed": 0, "max_completion_tokens": 800}


def test_the_messages_api_sends_its_version_header_unless_the_policy_names_one(
    tmp_path: Path,
) -> None:
    llm = "  base_url: https://api.anthropic.com/v1\n  model: claude\n  api: anthropic-messages\n"
    llm += "  cassette: c.json\n"
    settings = load_policy(_policy(tmp_path, llm), root=tmp_path).policy.llm
    assert settings is not None and settings.seed is None
    wire = settings.wire()
    assert (wire.url, wire.key_header) == ("https://api.anthropic.com/v1/messages", "x-api-key")
    assert wire.headers == (("anthropic-version", "2023-06-01"),)
    newer = llm + "  headers: {anthropic-version: '2024-01-01', anthropic-beta: b1}\n"
    settings = load_policy(_policy(tmp_path, newer), root=tmp_path).policy.llm
    assert settings is not None
    assert settings.wire().headers == (
        ("anthropic-version", "2024-01-01"),
        ("anthropic-beta", "b1"),
    )


GOOD = "  base_url: https://h/v1\n  model: m\n  cassette: c.json\n  api_key_env: K\n"


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ("  headers: {Authorization: Bearer x}\n", "llm/headers/Authorization", "carries the key"),
        ("  headers: {HOST: elsewhere.example}\n", "llm/headers/HOST", "set by the gate"),
        (
            "  api_key_header: api-key\n  headers: {Api-Key: x}\n",
            "llm/headers/Api-Key",
            "carries the key",
        ),
        ('  headers: {x-a: "one\\r\\nHost: evil"}\n', "llm/headers/x-a", "does not match"),
        ("  headers: {'bad name': x}\n", "llm/headers/bad name", "does not match"),
        ("  headers: {x-a: " + "a" * 1025 + "}\n", "llm/headers/x-a", "1,025 characters, longer"),
        ('  query: {a: "b\\n"}\n', "llm/query/a", "not printable ASCII"),
        ("  api_key_header: Cookie\n", "llm/api_key_header", "may not travel"),
        ("  api: anthropic-messages\n  seed: 3\n", "llm/seed", "takes no seed"),
        ("  api: anthropic-messages\n  temperature: 1.5\n", "llm/temperature", "above"),
        ("  api: responses\n", "llm/api", "is not one of"),
        ("  max_completion_tokens: 0\n", "llm/max_completion_tokens", "less than the minimum"),
    ],
)
def test_a_header_query_or_api_the_gate_cannot_send_safely_is_refused_at_its_key(
    tmp_path: Path, extra: str, key: str, words: str
) -> None:
    load_policy(_policy(tmp_path, GOOD), root=tmp_path)  # the control loads
    with pytest.raises(PolicyError) as raised:
        load_policy(_policy(tmp_path, GOOD + extra), root=tmp_path)
    assert raised.value.key == key
    assert words in raised.value.detail


def test_too_many_headers_are_refused(tmp_path: Path) -> None:
    headers = ", ".join(f"x-h{i}: v" for i in range(17))
    with pytest.raises(PolicyError) as raised:
        load_policy(_policy(tmp_path, GOOD + f"  headers: {{{headers}}}\n"), root=tmp_path)
    assert raised.value.key == "llm/headers"


def test_a_key_header_without_a_key_and_a_query_in_the_base_url_are_refused(
    tmp_path: Path,
) -> None:
    lone = "  base_url: https://h/v1\n  model: m\n  cassette: c.json\n  api_key_header: api-key\n"
    with pytest.raises(PolicyError, match="does not have"):
        load_policy(_policy(tmp_path, lone), root=tmp_path)
    query = GOOD.replace("https://h/v1", "https://h/openai/deployments/d?api-version=1")
    with pytest.raises(PolicyError) as raised:
        load_policy(_policy(tmp_path, query), root=tmp_path)
    assert "llm.query" in raised.value.render()


def test_the_deadlines_have_defaults_and_are_read(tmp_path: Path) -> None:
    llm = "  base_url: https://api.openai.com/v1\n  model: gpt-4o-mini\n  mode: live\n"
    settings = load_policy(_policy(tmp_path, llm), root=tmp_path).policy.llm
    assert settings is not None
    assert (settings.request_deadline_s, settings.run_deadline_s) == (300.0, 3600.0)
    llm += "  request_deadline_s: 2.5\n  run_deadline_s: 60\n"
    settings = load_policy(_policy(tmp_path, llm), root=tmp_path).policy.llm
    assert settings is not None
    assert (settings.request_deadline_s, settings.run_deadline_s) == (2.5, 60.0)
    assert settings.parameters() == {"temperature": 0.0, "seed": 0}  # no receipt member
