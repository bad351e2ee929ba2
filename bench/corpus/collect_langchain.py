"""Collect LangChain community tools' argument schemas (run by hand; imports the packages).

Each `BaseTool` subclass exported by `langchain_community.tools` whose class
declares a pydantic `args_schema` contributes `args_schema.model_json_schema()`:
the schema LangChain hands a model for the tool. Nothing is instantiated, so no
API key or network is needed. Run it with the interpreter of a throwaway venv:

    python3 -m venv /tmp/corpus/lcvenv
    /tmp/corpus/lcvenv/bin/pip install langchain-community langchain-core
    /tmp/corpus/lcvenv/bin/python bench/corpus/collect_langchain.py
"""

from __future__ import annotations

import importlib.metadata
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store import Collected, store_source


def main() -> None:
    warnings.simplefilter("ignore")
    import langchain_community.tools as tools
    from langchain_core.tools import BaseTool

    version = importlib.metadata.version("langchain-community")
    collected: list[Collected] = []
    seen: set[str] = set()
    for export in sorted(tools.__all__):
        try:
            cls = getattr(tools, export)
        except Exception as error:  # an optional dependency is missing: skip the tool
            print(f"skipped {export}: {type(error).__name__}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, BaseTool)):
            continue
        field = cls.model_fields.get("args_schema")
        model = field.default if field is not None else None
        if model is None or not hasattr(model, "model_json_schema"):
            continue
        key = f"{model.__module__}.{model.__qualname__}"
        if key in seen:  # several tools share one argument model: keep it once
            continue
        seen.add(key)
        try:
            schema = model.model_json_schema()
        except Exception as error:
            print(f"skipped {export}: {type(error).__name__}: {error}")
            continue
        collected.append(Collected(export, schema, "langchain-community", version))
    store_source("langchain", collected)


if __name__ == "__main__":
    main()
