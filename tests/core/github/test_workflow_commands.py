"""GITHUB_OUTPUT entries and workflow commands: no value can set another output or command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfuzz_gate.core.github.workflow_commands import (
    OUTPUT_NAMES,
    ZERO_WIDTH_SPACE,
    mask_command,
    notice_command,
    one_command,
    render_outputs,
    step_outputs,
    warning_command,
)

DELIMITER = "toolfuzz_0123456789abcdef"


def _parse(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it (the delimited form)."""
    found: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines) and lines[index]:
        name, _, delimiter = lines[index].partition("<<")
        end = lines.index(delimiter, index + 1)
        found[name] = "\n".join(lines[index + 1 : end])
        index = end + 1
    return found


def test_outputs_round_trip() -> None:
    outputs = {"verdict": "failed", "comment-url": "", "multi": "a\nb=c\n"}
    assert _parse(render_outputs(outputs, DELIMITER)) == outputs


@given(st.dictionaries(st.sampled_from(["a", "b-c", "d_e"]), st.text()))
def test_any_values_round_trip_with_a_fresh_delimiter(outputs: dict[str, str]) -> None:
    values = {k: v.replace("\r", "") for k, v in outputs.items()}
    if any(DELIMITER in v for v in values.values()):
        return
    assert _parse(render_outputs(values, DELIMITER)) == values


def test_a_value_holding_the_delimiter_is_refused() -> None:
    with pytest.raises(ValueError, match="contains the delimiter"):
        render_outputs({"x": f"a\n{DELIMITER}\nevil<<x"}, DELIMITER)


@pytest.mark.parametrize("name", ["", "a b", "a\nb", "1st"])
def test_bad_output_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="not an output name"):
        render_outputs({name: "v"}, DELIMITER)


def test_short_delimiters_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 16"):
        render_outputs({"a": "b"}, "EOF")


@given(st.text())
def test_commands_stay_on_one_line(message: str) -> None:
    for command in (warning_command(message), notice_command(message), mask_command(message)):
        assert "\n" not in command and "\r" not in command
        assert command.startswith(("::warning::", "::notice::", "::add-mask::"))


def test_command_forms() -> None:
    assert mask_command("tok") == "::add-mask::tok"
    assert warning_command("50% done\nnext") == "::warning::50%25 done next"


def test_the_step_outputs_are_every_declared_name_from_the_diff_totals() -> None:
    diff = {"totals": {"new": 3, "fixed": "7", "unsupportedAdded": 2}}
    paths = {"sarif-path": "out/results.sarif", "junit-path": "out/junit.xml"}
    outputs = step_outputs(diff, True, "out", paths, "")
    assert tuple(outputs) == OUTPUT_NAMES
    assert outputs["verdict"] == "failed" and outputs["new-counterexamples"] == "3"
    assert outputs["fixed-counterexamples"] == "0"  # a count that is no number counts none
    assert outputs["unsupported-keywords"] == "2" and outputs["sarif-path"] == "out/results.sarif"
    passed = step_outputs({"totals": "not counts"}, False, "o", paths, "https://x/1")
    assert passed["verdict"] == "passed" and passed["new-counterexamples"] == "0"
    assert passed["comment-url"] == "https://x/1" and passed["receipts-path"] == "o"


def test_a_command_stays_one_line_with_no_legacy_command_inside() -> None:
    assert one_command("::warning::a\r\nb##[c]") == f"::warning::ab#{ZERO_WIDTH_SPACE}#[c]"
