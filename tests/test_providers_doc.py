"""Every provider's `llm` section in docs/agent-mode.md ("Providers") is a policy the
shipped schema and the loader accept in `record` mode, and the wire it describes is the
one that provider documents (issue 30)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from toolfuzz_gate.edges.policy_file import load_policy

ROOT = Path(__file__).parent.parent
DOC = (ROOT / "docs" / "agent-mode.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "src" / "toolfuzz_gate" / "policy.schema.json").read_text("utf-8"))
TOOLS = "version: 1\ntools:\n  - {name: t, schema: s.json, handler: {command: [t]}}\n"


def _sections() -> dict[str, str]:
    """Each provider's heading and its first YAML block."""
    part = DOC.split("\n## Providers\n", 1)[1].split("\n## ", 1)[0]
    found = {}
    for chunk in part.split("\n### ")[1:]:
        heading, body = chunk.split("\n", 1)
        match = re.search(r"```yaml\n(.*?)```", body, re.S)
        assert match, f"no yaml block under {heading}"
        found[heading] = match.group(1)
    return found


SECTIONS = _sections()
EXPECTED = {
    "OpenAI": ("https://api.openai.com/v1/chat/completions", "Authorization", ()),
    "Azure OpenAI, v1 API": (
        "https://YOUR-RESOURCE.openai.azure.com/openai/v1/chat/completions",
        "Authorization",
        (),
    ),
    "Azure OpenAI, deployment URL": (
        "https://YOUR-RESOURCE.openai.azure.com/openai/deployments/YOUR-DEPLOYMENT"
        "/chat/completions",
        "api-key",
        (("api-version", "2024-10-21"),),
    ),
    "Anthropic, Messages API": ("https://api.anthropic.com/v1/messages", "x-api-key", ()),
    "Ollama": ("http://127.0.0.1:11434/v1/chat/completions", "Authorization", ()),
    "vLLM": ("http://127.0.0.1:8000/v1/chat/completions", "Authorization", ()),
    "LiteLLM proxy": ("http://127.0.0.1:4000/v1/chat/completions", "Authorization", ()),
    "fakellm (recorded here)": ("http://127.0.0.1:9999/v1/messages", "x-api-key", ()),
}


def test_the_doc_has_a_section_for_each_provider() -> None:
    assert list(SECTIONS) == list(EXPECTED)


@pytest.mark.parametrize("provider", list(EXPECTED))
def test_each_provider_s_section_loads_in_record_mode_with_its_wire(
    provider: str, tmp_path: Path
) -> None:
    text = TOOLS + SECTIONS[provider]
    jsonschema.validate(yaml.safe_load(text), SCHEMA)
    assert "mode: record" in text
    (tmp_path / "s.json").write_text('{"type": "object"}', encoding="utf-8")
    (tmp_path / "policy.yml").write_text(text, encoding="utf-8")
    settings = load_policy(tmp_path / "policy.yml", root=tmp_path).policy.llm
    assert settings is not None and settings.mode == "record"
    wire = settings.wire()
    assert (wire.url, wire.key_header, wire.query) == EXPECTED[provider]


def test_the_llm_table_names_every_key_of_the_schema_in_its_order() -> None:
    part = DOC.split("\n## The llm section\n", 1)[1].split("\n## ", 1)[0]
    keys = re.findall(r"^\| `([a-z_]+)` \|", part, re.M)
    assert keys == list(SCHEMA["properties"]["llm"]["properties"])
