"""argv -> request: the command line hands the application layer what the user gave, and
only that (an option left at its default does not override the policy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import (
    BaselineRequest,
    BuiltinRunRequest,
    FuzzRequest,
    PolicyRunRequest,
    RunOverrides,
    ShardRequest,
)
from toolfuzz_gate.cli.commands_run import build_run_request, read_command
from toolfuzz_gate.cli.parser import build_parser
from toolfuzz_gate.errors import UsageError


def _request(*argv: str) -> object:
    return build_run_request(build_parser().parse_args(list(argv)), argv, {})


def test_only_the_options_given_override_the_policy() -> None:
    plain = _request("run", "--policy", "p.yml")
    assert isinstance(plain, PolicyRunRequest)
    assert plain.overrides == RunOverrides()
    given = _request("run", "--policy", "p.yml", "--runs", "24", "--default-draft", "2020-12")
    assert isinstance(given, PolicyRunRequest)
    # the values are the defaults, but the user said them: they beat the policy's
    assert given.overrides == RunOverrides(runs=24, default_draft="2020-12")
    assert given.argv == ("run", "--policy", "p.yml", "--runs", "24", "--default-draft", "2020-12")


def test_each_kind_of_run_is_its_own_request() -> None:
    assert isinstance(_request("run"), BuiltinRunRequest)
    base = _request("run", "--policy", "p.yml", "--baseline-dir", "old")
    assert isinstance(base, BaselineRequest) and base.directory == Path("old")
    assert base.ref is None and base.run.policy == Path("p.yml")
    shard = _request("run", "--policy", "p.yml", "--shard", "2/3")
    assert isinstance(shard, ShardRequest) and (shard.shard.index, shard.shard.count) == (2, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("run", "--root", "."), "--root goes with --policy"),
        (("run", "--policy", "p.yml", "--cases", "c.jsonl"), "--cases goes with one tool"),
        (("run", "--policy", "p", "--baseline", "main", "--baseline-dir", "d"), "conflict"),
        (("run", "--policy", "p", "--shard", "1/2", "--baseline", "main"), "cannot diff"),
        (("run", "--jobs", "2"), "--jobs goes with --policy"),
        (("run", "--policy", "p", "--jobs", "0"), r"--jobs 0 is outside 1\.\.64"),
        (("run", "--policy", "p", "--jobs", "65"), r"--jobs 65 is outside 1\.\.64"),
    ],
)
def test_flags_that_do_not_go_together_are_refused_before_anything_runs(
    argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        _request(*argv)


def test_jobs_reach_the_run_but_never_its_replay_command() -> None:
    """How many tools ran at once changes no receipt, so the receipts' replayCommand
    leaves it out as it leaves out where the outputs went."""
    argv = ("run", "--policy", "p.yml", "--jobs", "2", "--baseline", "main", "--jobs=3")
    request = build_run_request(build_parser().parse_args(list(argv[:7])), argv[:7], {})
    assert isinstance(request, BaselineRequest) and request.run.jobs == 2
    assert _request("run", "--policy", "p.yml").jobs is None  # type: ignore[attr-defined]
    assert build_replay_command(argv) == "toolfuzz-gate run --policy p.yml"


def test_a_replay_command_is_read_back_by_the_grammar_alone() -> None:
    """Replay asks which handler the words name; which flags go together is not its
    question, so `run --root DIR` still names the built-in handler."""
    assert isinstance(read_command(["run", "--root", "."]), BuiltinRunRequest)
    fuzz = read_command(["fuzz", "--schema", "s.json", "--command", "--", "./h", "-v"])
    assert isinstance(fuzz, FuzzRequest) and fuzz.command == ("./h", "-v")
    assert fuzz.handler == {"--command": True}
    assert read_command(["diff", "a", "b"]) is None
