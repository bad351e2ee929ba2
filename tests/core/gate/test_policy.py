"""Policy parsing against the shipped schema, and the schema's agreement with the engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import (
    FAIL_ON,
    FLAKY,
    RUN_OPTION_KEYS,
    GateRules,
    RunOptions,
    parse_policy,
)
from toolfuzz_gate.core.schema.dialects import DIALECTS
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.core.schema.options import DRAFTS
from toolfuzz_gate.edges.policy_file import policy_schema
from toolfuzz_gate.errors import PolicyError

SCHEMA: dict[str, Any] = policy_schema()


def parse(document: Any, lines: dict[str, int] | None = None) -> Any:
    return parse_policy(document, schema=SCHEMA, lines=lines or {}, file="p.yml")


FULL: dict[str, Any] = {
    "version": 1,
    "defaults": {"seeds": [1, 2], "runs": 50, "timeout_ms": 900, "dialect": "openapi"},
    "gate": {
        "fail_on": ["new-counterexample", "coverage-drop"],
        "min_coverage": {"type": "tested", "enum": "not-applicable"},
    },
    "corpus": ".toolfuzz/corpus",
    "tools": [
        {
            "name": "render_poster",
            "schema": "schemas/poster.json",
            "handler": {
                "python": "poster:render",
                "rejects": ["poster:ToolError"],
                "effects": "poster:snap",
                "env": ["HOME"],
            },
            "expected_rejections": ["policy-pixel-budget"],
            "error_codes": "^(schema|policy)-",
            "dry_run": "dryRun",
            "runs": 7,
            "format_assertion": True,
        },
        {
            "name": "cmd",
            "tools": "tools.json",
            "tool": "declared",
            "handler": {
                "command": ["python", "t.py"],
                "effects_command": ["cat", "state"],
                "cpu_limit_s": 5,
            },
        },
        {
            "name": "server_tool",
            "handler": {"mcp": ["python", "server.py"]},
            "default_draft": "draft-07",
            "dialect": None,
        },
        {
            "name": "web",
            "model": "models:Args",
            "handler": {
                "http": "http://127.0.0.1:8080/t",
                "headers": {"Authorization": "API_TOKEN"},
            },
            "seeds": [9],
        },
    ],
}


def test_a_full_policy_becomes_typed_settings() -> None:
    policy = parse(FULL)
    assert policy.gate == GateRules(
        ("new-counterexample", "coverage-drop"), (("enum", "not-applicable"), ("type", "tested"))
    )
    assert policy.corpus == ".toolfuzz/corpus"
    poster, cmd, server, web = policy.tools
    assert poster.options == RunOptions(
        (1, 2), 7, 900, DEFAULT_MAX_OUTPUT_BYTES, True, "2020-12", "openapi"
    )
    assert poster.handler == HandlerSettings(
        "python",
        "poster:render",
        rejects=("poster:ToolError",),
        effects="poster:snap",
        env=("HOME",),
    )
    assert (poster.schema, poster.expected_rejections, poster.error_codes, poster.dry_run) == (
        "schemas/poster.json",
        ("policy-pixel-budget",),
        "^(schema|policy)-",
        "dryRun",
    )
    assert poster.pointer == "/tools/0"
    assert (cmd.tools, cmd.pick) == ("tools.json", "declared")
    assert cmd.handler == HandlerSettings(
        "command", argv=("python", "t.py"), effects_command=("cat", "state"), cpu_limit_s=5
    )
    assert server.handler == HandlerSettings("mcp", argv=("python", "server.py"))
    assert server.options == RunOptions(
        (1, 2), 50, 900, DEFAULT_MAX_OUTPUT_BYTES, False, "draft-07", None
    )
    assert (server.schema, server.tools, server.model) == (None, None, None)
    assert web.handler.headers == (("Authorization", "API_TOKEN"),)
    assert (web.model, web.options.seeds) == ("models:Args", (9,))


def test_defaults_when_the_policy_says_little() -> None:
    policy = parse(
        {"version": 1, "tools": [{"name": "t", "schema": "s.json", "handler": {"python": "m:f"}}]}
    )
    assert policy.gate == GateRules(("invariant", "unreached"), ())
    assert policy.tools[0].options == RunOptions()
    assert policy.tools[0].pick is None and policy.corpus is None


def test_resource_limits_are_set_per_tool_and_zero_turns_one_off() -> None:
    limits: dict[str, Any] = {"memory_limit_mb": 0, "cpu_limit_s": 30, "process_limit": 0}
    handler = {"command": ["x"], **limits}
    policy = parse({"version": 1, "tools": [{"name": "t", "schema": "s", "handler": handler}]})
    assert policy.tools[0].handler == HandlerSettings("command", argv=("x",), **limits)
    unset = parse(
        {"version": 1, "tools": [{"name": "t", "schema": "s", "handler": {"command": ["x"]}}]}
    )
    assert unset.tools[0].handler.process_limit is None  # the adapters' default
    with pytest.raises(PolicyError, match="process_limit"):
        bad = {"command": ["x"], "process_limit": -1}
        parse({"version": 1, "tools": [{"name": "t", "schema": "s", "handler": bad}]})


def test_a_tools_file_entry_picks_one_tool_or_stands_for_all() -> None:
    entry = {"name": "t", "tools": "tools.json", "handler": {"python": "m:f"}}
    assert parse({"version": 1, "tools": [entry]}).tools[0].pick is None
    picked = {**entry, "tool": "render"}
    assert parse({"version": 1, "tools": [picked]}).tools[0].pick == "render"


def test_the_first_problem_by_line_is_named_and_the_rest_counted() -> None:
    document = {
        "version": 1,
        "zzz": 1,
        "aaa": 2,
        "tools": [{"name": "t", "handler": {"mcp": ["s"]}, "runs": 0}],
    }
    lines = {
        "": 1,
        "/version": 1,
        "/zzz": 2,
        "/aaa": 3,
        "/tools": 4,
        "/tools/0": 5,
        "/tools/0/runs": 7,
    }
    with pytest.raises(PolicyError) as caught:
        parse(document, lines)
    error = caught.value
    assert (error.file, error.line, error.key) == ("p.yml", 2, "zzz")
    assert error.message == "p.yml:2: zzz: unknown key 'zzz' (and 2 more problem(s))"


def test_the_handler_tool_belongs_to_mcp() -> None:
    entry = {"name": "t", "schema": "s.json", "handler": {"python": "m:f", "tool": "x"}}
    with pytest.raises(PolicyError) as caught:
        parse({"version": 1, "tools": [entry]}, {"/tools/0/handler/tool": 9})
    assert caught.value.key == "tools/0/handler/tool" and caught.value.line == 9
    assert "tool goes with a mcp handler, not python" in caught.value.message


def test_two_effects_probes_conflict() -> None:
    handler = {"command": ["x"], "effects_directory": "d", "effects_command": ["c"]}
    with pytest.raises(PolicyError, match="name one effects probe"):
        parse({"version": 1, "tools": [{"name": "t", "schema": "s", "handler": handler}]})


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        if "properties" in schema:
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _objects(item)


def test_the_shipped_schema_is_closed_and_agrees_with_the_engine() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    objects = list(_objects(SCHEMA))
    assert len(objects) >= 5
    assert all(item.get("additionalProperties") is False for item in objects)
    assert all("description" in value for item in objects for value in item["properties"].values())
    gate = SCHEMA["properties"]["gate"]["properties"]
    assert tuple(gate["fail_on"]["items"]["then"]["enum"]) == FAIL_ON
    assert tuple(gate["flaky"]["enum"]) == FLAKY
    assert tuple(gate["min_coverage"]["propertyNames"]["enum"]) == FAMILIES
    defaults = SCHEMA["properties"]["defaults"]["properties"]
    assert tuple(defaults["default_draft"]["enum"]) == DRAFTS
    assert defaults["dialect"]["enum"] == [*DIALECTS, None]
    tool = SCHEMA["$defs"]["tool"]["properties"]
    assert all(tool[key] == value for key, value in defaults.items())


def test_the_run_options_are_the_keys_defaults_takes() -> None:
    """A `RunOptions` field the schema lacks could never be set (the schema refuses the key);
    a `defaults` key no field holds would be accepted and dropped."""
    assert sorted(SCHEMA["properties"]["defaults"]["properties"]) == sorted(RUN_OPTION_KEYS)


def test_the_documented_example_policy_parses() -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "policy.md"
    example = page.read_text(encoding="utf-8").split("```yaml\n", 1)[1].split("```", 1)[0]
    policy = parse(yaml.safe_load(example))
    assert [tool.name for tool in policy.tools] == ["render_poster", "search"]
    assert policy.tools[0].options.runs == 50 and policy.tools[1].handler.kind == "mcp"
    assert policy.gate.min_coverage == (("enum", "tested"), ("required", "tested"))


def test_allow_refused_items_sit_in_fail_on_globally_or_per_tool() -> None:
    tools = [{"name": "t", "schema": "s.json", "handler": {"python": "m:f"}}]
    fail_on = [
        "invariant",
        {"allow-refused": ["schema.limit-enum"]},
        {"allow-refused": ["handler.unusable", "tool.removed"], "tools": ["a", "b"]},
    ]
    gate = parse({"version": 1, "gate": {"fail_on": fail_on}, "tools": tools}).gate
    assert gate.fail_on == ("invariant",)
    assert gate.allows("anything", "schema.limit-enum")
    assert gate.allows("a", "handler.unusable") and gate.allows("b", "tool.removed")
    assert not gate.allows("t", "handler.unusable")
    wrong: dict[str, Any]
    for wrong in ({"allow-refused": []}, {"allow-refused": ["x"]}, {"allow": ["a.b"]}):
        with pytest.raises(PolicyError) as caught:
            parse({"version": 1, "gate": {"fail_on": [wrong]}, "tools": tools})
        assert caught.value.key.startswith("gate/fail_on/0")


def test_gate_flaky_fails_by_default_and_can_note_instead() -> None:
    entry = {"name": "t", "schema": "s.json", "handler": {"python": "m:f"}}
    assert parse({"version": 1, "tools": [entry]}).gate.flaky == "fail"
    noting = parse({"version": 1, "gate": {"flaky": "note"}, "tools": [entry]})
    assert noting.gate.flaky == "note"
    with pytest.raises(PolicyError, match="gate/flaky"):
        parse({"version": 1, "gate": {"flaky": "ignore"}, "tools": [entry]})


def test_fixed_arguments_exclusions_and_resets_become_settings() -> None:
    entry = {
        "name": "t",
        "tools": "tools.json",
        "exclude_tools": ["b", "a"],
        "fixed_arguments": {"/z": [1], "/a/b": "x"},
        "handler": {"mcp": ["s"], "reset_tool": "wipe"},
    }
    [tool] = parse({"version": 1, "tools": [entry]}).tools
    assert tool.exclude == ("b", "a")
    assert tool.fixed == (("/a/b", "x"), ("/z", [1]))
    assert tool.handler == HandlerSettings("mcp", argv=("s",), reset_tool="wipe")
    command = {"name": "c", "schema": "s", "handler": {"command": ["x"], "reset_command": ["r"]}}
    assert parse({"version": 1, "tools": [command]}).tools[0].handler.reset_command == ("r",)


def test_reset_tool_belongs_to_mcp_and_one_reset_is_named() -> None:
    python = {"name": "t", "schema": "s", "handler": {"python": "m:f", "reset_tool": "w"}}
    with pytest.raises(PolicyError, match="reset_tool goes with a mcp handler, not python"):
        parse({"version": 1, "tools": [python]})
    both = {"mcp": ["s"], "reset_tool": "w", "reset_command": ["r"]}
    with pytest.raises(PolicyError, match="name one reset"):
        parse({"version": 1, "tools": [{"name": "t", "handler": both}]})


def test_exclude_tools_needs_a_tools_file_of_every_tool() -> None:
    for extra in ({}, {"tools": "tools.json", "tool": "a"}):
        entry = {"name": "t", "schema": "s", "handler": {"python": "m:f"}, "exclude_tools": ["a"]}
        if extra:
            del entry["schema"]
        whole = "`exclude_tools` goes with an entry that takes every tool"
        with pytest.raises(PolicyError, match=whole):
            parse({"version": 1, "tools": [{**entry, **extra}]})


def test_ignore_output_is_a_list_of_pointers_per_tool_over_the_defaults() -> None:
    tool = {"name": "t", "schema": "s", "handler": {"command": ["x"]}}
    policy = parse(
        {
            "version": 1,
            "defaults": {"ignore_output": ["/createdAt"]},
            "tools": [tool, {**tool, "name": "u", "ignore_output": ["/id", "/meta/a~1b"]}],
        }
    )
    assert policy.tools[0].options.ignore_output == ("/createdAt",)
    assert policy.tools[1].options.ignore_output == ("/id", "/meta/a~1b")


@pytest.mark.parametrize("given", ["id", "", "/a~2"])
def test_an_ignore_output_entry_that_is_not_a_pointer_is_named_with_its_line(given: str) -> None:
    tool = {"name": "t", "schema": "s", "handler": {"command": ["x"]}, "ignore_output": [given]}
    with pytest.raises(PolicyError) as caught:
        parse({"version": 1, "tools": [tool]}, {"/tools/0/ignore_output/0": 6})
    error = caught.value
    assert (error.line, error.key) == (6, "tools/0/ignore_output/0")
    assert error.message == (
        f"p.yml:6: tools/0/ignore_output/0: {given!r} is not a JSON Pointer to an output member"
    )


def test_rejection_code_is_set_under_defaults_and_per_tool() -> None:
    tool = {"name": "t", "handler": {"mcp": ["s"]}}
    policy = parse(
        {
            "version": 1,
            "defaults": {"rejection_code": r"^(?P<code>[A-Z_]+):"},
            "tools": [tool, {**tool, "name": "u", "rejection_code": r"(?P<code>not found)"}],
        }
    )
    assert [t.options.rejection_code for t in policy.tools] == [
        r"^(?P<code>[A-Z_]+):",
        r"(?P<code>not found)",
    ]
    assert parse({"version": 1, "tools": [tool]}).tools[0].options.rejection_code is None


@pytest.mark.parametrize(
    ("where", "given", "problem"),
    [
        ("tools/0", r"(\w+)", "has no group named 'code'"),
        ("tools/0", r"(?P<code>\w+", "not a regular expression"),
        ("defaults", r"(?P<kode>\w+)", "has no group named 'code'"),
    ],
)
def test_a_rejection_code_that_cannot_name_a_code_is_named_with_its_line(
    where: str, given: str, problem: str
) -> None:
    tool: dict[str, Any] = {"name": "t", "handler": {"mcp": ["s"]}}
    document: dict[str, Any] = {"version": 1, "tools": [tool]}
    if where == "defaults":
        document["defaults"] = {"rejection_code": given}
    else:
        tool["rejection_code"] = given
    with pytest.raises(PolicyError) as caught:
        parse(document, {f"/{where}/rejection_code": 4})
    error = caught.value
    assert (error.line, error.key) == (4, f"{where}/rejection_code")
    assert problem in error.message


def test_an_error_codes_that_does_not_compile_is_still_named() -> None:
    tool = {"name": "t", "handler": {"mcp": ["s"]}, "error_codes": "(a"}
    with pytest.raises(PolicyError) as caught:
        parse({"version": 1, "tools": [tool]})
    assert caught.value.key == "tools/0/error_codes"
    assert "not a regular expression" in caught.value.message


def test_budgets_and_saturation_are_set_per_run_in_defaults_and_per_tool() -> None:
    policy = parse(
        {
            "version": 1,
            "budget_s": 600,
            "defaults": {"budget_s": 45.5, "saturation": False},
            "tools": [
                {"name": "a", "schema": "a.json", "handler": {"python": "m:a"}},
                {
                    "name": "b",
                    "schema": "b.json",
                    "handler": {"python": "m:b"},
                    "budget_s": 5,
                    "saturation": True,
                },
            ],
        }
    )
    assert policy.budget_s == 600
    a, b = (tool.options for tool in policy.tools)
    assert (a.budget_s, a.saturation) == (45.5, False)
    assert (b.budget_s, b.saturation) == (5, True)
    assert parse(minimal()).budget_s is None
    assert RunOptions().budget_s is None and RunOptions().saturation is True


def minimal() -> dict[str, Any]:
    return {
        "version": 1,
        "tools": [{"name": "t", "schema": "s.json", "handler": {"python": "m:f"}}],
    }


@pytest.mark.parametrize("where", ["top", "defaults", "tool"])
@pytest.mark.parametrize("given", [0, -1, "60", 86401])
def test_a_budget_that_is_not_a_positive_number_of_seconds_is_refused(
    where: str, given: Any
) -> None:
    document = minimal()
    target = {"top": document, "defaults": document.setdefault("defaults", {})}
    target.get(where, document["tools"][0])["budget_s"] = given
    with pytest.raises(PolicyError, match="budget_s"):
        parse(document)


def test_allow_breaking_items_name_the_tools_breaking_change_accepts() -> None:
    tool = {"name": "t", "schema": "s", "handler": {"python": "m:f"}}
    gate = {"fail_on": ["breaking-change", {"allow-breaking": ["b", "a"]}]}
    rules = parse({"version": 1, "tools": [tool], "gate": gate}).gate
    assert rules.fail_on == ("breaking-change",) and rules.allow_breaking == ("a", "b")
    bad = {"fail_on": [{"allow-breaking": ["a"], "tools": ["x"]}]}
    with pytest.raises(PolicyError, match="unknown key"):
        parse({"version": 1, "tools": [tool], "gate": bad})


def test_only_a_whole_entry_may_go_without_a_name() -> None:
    whole = parse({"version": 1, "tools": [{"handler": {"mcp": ["s"]}}]}).tools[0]
    assert (whole.name, whole.named) == ("tools-0", False)
    with pytest.raises(PolicyError, match="missing key 'name'"):
        parse({"version": 1, "tools": [{"handler": {"mcp": ["s"], "tool": "x"}}]})
