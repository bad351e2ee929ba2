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

LlamaIndex has no `args_schema` classes: its tools come from `BaseToolSpec` subclasses in
the `llama-index-tools-*` distributions, each method named in `spec_functions` becoming a
`FunctionTool` whose pydantic model is built from the method's signature. For
`llamaindex`, each spec class found under `llama_index.tools` is made without running its
constructor (which wants API keys and clients; `to_tool_list` only reads its methods) and
every tool of `to_tool_list()` contributes `metadata.get_parameters_dict()`: what
LlamaIndex hands a model. Install the tool packages wanted beside llama-index-core:

    python3 -m venv /tmp/census/livenv
    /tmp/census/livenv/bin/pip install llama-index-core llama-index-tools-arxiv \
        llama-index-tools-wikipedia llama-index-tools-duckduckgo llama-index-tools-yahoo-finance \
        llama-index-tools-brave-search llama-index-tools-tavily-research \
        llama-index-tools-database llama-index-tools-requests llama-index-tools-code-interpreter \
        llama-index-tools-notion llama-index-tools-slack llama-index-tools-exa \
        llama-index-tools-weather llama-index-tools-wolfram-alpha llama-index-tools-bing-search \
        llama-index-tools-artifact-editor llama-index-tools-chdb
    /tmp/census/livenv/bin/python bench/corpus/collect_pydantic_tools.py llamaindex
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import pkgutil
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
LLAMAINDEX = "llamaindex"


def collect_llamaindex() -> list[Collected]:
    """Every tool of every `BaseToolSpec` subclass in the installed `llama_index.tools.*`."""
    from llama_index.core.tools.tool_spec.base import BaseToolSpec

    namespace = importlib.import_module("llama_index.tools")
    collected: list[Collected] = []
    for info in sorted(pkgutil.iter_modules(namespace.__path__), key=lambda i: i.name):
        distribution = "llama-index-tools-" + info.name.replace("_", "-")
        try:
            module = importlib.import_module(f"llama_index.tools.{info.name}")
            version = importlib.metadata.version(distribution)
        except Exception as error:  # an optional dependency is missing: skip the package
            print(f"skipped {distribution}: {type(error).__name__}: {error}")
            continue
        for export in sorted(getattr(module, "__all__", dir(module))):
            cls = getattr(module, export, None)
            if not (isinstance(cls, type) and issubclass(cls, BaseToolSpec)):
                continue
            if cls is BaseToolSpec or not isinstance(getattr(cls, "spec_functions", None), list):
                continue
            try:
                tools = cls.__new__(cls).to_tool_list()
            except Exception as error:
                print(f"skipped {export}: {type(error).__name__}: {error}")
                continue
            for tool in tools:
                schema = tool.metadata.get_parameters_dict()
                collected.append(Collected(tool.metadata.name, schema, distribution, version))
    return collected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("framework", choices=sorted([*FRAMEWORKS, LLAMAINDEX]))
    args = parser.parse_args()
    if args.framework == LLAMAINDEX:
        warnings.simplefilter("ignore")
        store_source(LLAMAINDEX, collect_llamaindex())
        return
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
