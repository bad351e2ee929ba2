"""Where findings point: schema lines from pointers, and the replay command."""

from __future__ import annotations

import shlex

from tests.core.report import scenario
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.context import (
    Location,
    SchemaSource,
    counterexample_location,
    replay_command,
    schema_pointer_of_path,
    unsupported_location,
)

TEXT = """{
  "tools": [
    {
      "name": "t",
      "inputSchema": {
        "properties": {
          "tags": {
            "items": {"type": "string"}
          },
          "meta": {
            "properties": {
              "owner": {"type": "string"}
            },
            "patternProperties": {"^x": {}}
          }
        }
      }
    }
  ]
}
"""
SOURCE = SchemaSource("tools.json", line_index(TEXT), "/tools/0/inputSchema")


def _cx(path: str) -> Location:
    return counterexample_location(
        scenario.context(sources={"t": SOURCE}), {"tool": "t", "path": path}
    )


def _unsupported(keyword: str, path: str) -> Location:
    item = {"tool": "t", "keyword": keyword, "path": path}
    return unsupported_location(scenario.context(sources={"t": SOURCE}), item)


def test_instance_paths_map_to_property_and_items_pointers() -> None:
    assert schema_pointer_of_path("/meta/owner") == "/properties/meta/properties/owner"
    assert schema_pointer_of_path("/tags/3") == "/properties/tags/items"
    assert schema_pointer_of_path("") == ""
    assert schema_pointer_of_path("no leading slash") == ""


def test_a_counterexample_points_at_its_property_else_the_nearest_ancestor() -> None:
    assert _cx("/meta/owner") == Location("tools.json", 12)
    assert _cx("/tags/0") == Location("tools.json", 8)
    assert _cx("/meta/unknown") == Location("tools.json", 10)
    assert _cx("") == Location("tools.json", 5)
    assert _cx("not a pointer") == Location("tools.json", 5)


def test_an_unsupported_keyword_points_at_its_own_line() -> None:
    assert _unsupported("patternProperties", "/properties/meta") == Location("tools.json", 14)
    assert _unsupported("patternProperties", "/properties/meta/patternProperties") == Location(
        "tools.json", 14
    )
    assert _unsupported("dependentSchemas", "/properties/meta") == Location("tools.json", 10)


def test_a_tool_without_a_known_source_points_at_line_one() -> None:
    where = counterexample_location(scenario.context(sources={}), {"tool": "x", "path": "/a"})
    assert where == Location("x.schema.json", 1)


def test_the_replay_command_is_shell_quoted() -> None:
    command = replay_command("my receipts/t.json", "ab'; rm -rf ~")
    assert shlex.split(command) == [
        "toolfuzz-gate",
        "replay",
        "my receipts/t.json",
        "--fingerprint",
        "ab'; rm -rf ~",
    ]
