"""Collect agent frameworks' tool argument schemas from their pydantic models (run by hand).

Each tool class a framework exports whose class declares a pydantic
`args_schema` contributes `args_schema.model_json_schema()`: the schema the
framework hands a model for the tool. Nothing is instantiated, so no API key or
network is needed; a model shared by several tools is kept once. Run it with the
interpreter of a throwaway venv holding the framework:

    python3 -m venv /tmp/corpus/lcvenv
    /tmp/corpus/lcvenv/bin/pip install langchain-community langchain-core
    /tmp/corpus/lcvenv/bin/python bench/corpus/collect_pydantic_tools.py langchain
    python3 -m venv /tmp/corpus/crewvenv
    /tmp/corpus/crewvenv/bin/pip install crewai-tools
    /tmp/corpus/crewvenv/bin/python bench/corpus/collect_pydantic_tools.py crewai
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store import Collected, store_source

# framework -> (distribution, module exporting the tools, module and name of the base class)
FRAMEWORKS = {
    "langchain": (
        "langchain-community",
        "langchain_community.tools",
        ("langchain_core.tools", "BaseTool"),
    ),
    "crewai": ("crewai-tools", "crewai_tools", ("crewai.tools", "BaseTool")),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("framework", choices=sorted(FRAMEWORKS))
    args = parser.parse_args()
    distribution, module_name, (base_module, base_name) = FRAMEWORKS[args.framework]
    warnings.simplefilter("ignore")
    tools = importlib.import_module(module_name)
    base = getattr(importlib.import_module(base_module), base_name)
    version = importlib.metadata.version(distribution)
    collected: list[Collected] = []
    seen: set[str] = set()
    for export in sorted(getattr(tools, "__all__", dir(tools))):
        try:
            cls = getattr(tools, export)
        except Exception as error:  # an optional dependency is missing: skip the tool
            print(f"skipped {export}: {type(error).__name__}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, base)):
            continue
        field = cls.model_fields.get("args_schema")
        model = field.default if field is not None else None
        if model is None or not hasattr(model, "model_json_schema"):
            continue
        key = f"{model.__module__}.{model.__qualname__}"
        if key in seen:
            continue
        seen.add(key)
        try:
            schema = model.model_json_schema()
        except Exception as error:
            print(f"skipped {export}: {type(error).__name__}: {error}")
            continue
        collected.append(Collected(export, schema, distribution, version))
    store_source(args.framework, collected)


if __name__ == "__main__":
    main()
