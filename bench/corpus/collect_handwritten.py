"""Split the hand-written OpenAI and Anthropic style tools files into corpus schemas (by hand).

`handwritten/openai_tools.json` follows the documented Chat Completions shape
(`{"type": "function", "function": {"name", "parameters", "strict"}}`),
`handwritten/anthropic_tools.json` the Messages API shape (`{"name",
"input_schema"}`). Both were written for this corpus after the public shapes.

    python3 bench/corpus/collect_handwritten.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from store import Collected, store_source  # noqa: E402

PACKAGE, VERSION = "hand-written", "1"


def main() -> None:
    openai = json.loads((HERE / "handwritten" / "openai_tools.json").read_text())["tools"]
    anthropic = json.loads((HERE / "handwritten" / "anthropic_tools.json").read_text())["tools"]
    collected = [
        Collected(
            f"openai.{tool['function']['name']}", tool["function"]["parameters"], PACKAGE, VERSION
        )
        for tool in openai
    ]
    collected += [
        Collected(f"anthropic.{tool['name']}", tool["input_schema"], PACKAGE, VERSION)
        for tool in anthropic
    ]
    store_source("handwritten", collected)


if __name__ == "__main__":
    main()
