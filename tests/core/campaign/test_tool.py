"""Fixed arguments on `ToolSpec`: set after generation, and recognised when kept."""

from __future__ import annotations

from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSON

SPEC = ToolSpec("t", fixed=(("/options/repo", "/r"), ("/path", "/p")))


def test_fixed_arguments_are_set_creating_the_objects_on_the_way() -> None:
    assert SPEC.with_fixed({"a": 1}) == {"a": 1, "options": {"repo": "/r"}, "path": "/p"}
    assert SPEC.with_fixed({"options": 3, "path": None}) == {
        "options": {"repo": "/r"},
        "path": "/p",
    }
    assert SPEC.with_fixed({"options": {"depth": 2}}) == {
        "options": {"depth": 2, "repo": "/r"},
        "path": "/p",
    }


def test_the_input_generation_made_is_left_alone() -> None:
    value: JSON = {"options": {"depth": 2}}
    SPEC.with_fixed(value)
    assert value == {"options": {"depth": 2}}


def test_a_value_keeps_the_fixed_arguments_only_when_each_is_there_as_fixed() -> None:
    kept = SPEC.with_fixed({})
    assert SPEC.keeps_fixed(kept)
    assert isinstance(kept, dict)
    assert not SPEC.keeps_fixed({**kept, "path": "/q"})
    assert not SPEC.keeps_fixed({"path": "/p"})
    assert not SPEC.keeps_fixed({"options": ["/r"], "path": "/p"})
    assert not ToolSpec("t", fixed=(("/n", 1),)).keeps_fixed({"n": True})
    assert ToolSpec("t").keeps_fixed([]) and ToolSpec("t").with_fixed([]) == []
