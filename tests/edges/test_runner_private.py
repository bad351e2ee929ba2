"""The runner's places a handler may not look into (`edges.runner_files.runner_private`)
and how the gate closes them for a run (`edges.handlers.confine._withhold`); the attack
itself is `tests/cli/test_action_confine.py`."""

from __future__ import annotations

import stat
from pathlib import Path

from toolfuzz_gate.edges.handlers.confine import _withhold
from toolfuzz_gate.edges.runner_files import runner_private


def test_the_file_command_folder_loses_everything_and_runner_temp_its_listing() -> None:
    environ = {
        "RUNNER_TEMP": "/w/_temp",
        "GITHUB_ENV": "/w/_temp/_runner_file_commands/set_env_1",
        "GITHUB_PATH": "/w/_temp/_runner_file_commands/add_path_1",
        "GITHUB_OUTPUT": "relative/set_output_1",  # not the runner's: ignored
    }
    assert runner_private(environ) == (
        (Path("/w/_temp"), stat.S_IROTH),
        (Path("/w/_temp/_runner_file_commands"), stat.S_IRWXO),
    )


def test_file_commands_directly_in_runner_temp_take_only_its_listing() -> None:
    environ = {"RUNNER_TEMP": "/w/_temp", "GITHUB_ENV": "/w/_temp/set_env_1"}
    assert runner_private(environ) == ((Path("/w/_temp"), stat.S_IROTH),)


def test_a_place_keeps_search_where_something_handlers_reach_lies_below(tmp_path: Path) -> None:
    closed, holding, link = tmp_path / "closed", tmp_path / "holding", tmp_path / "link"
    for folder in (closed, holding):
        folder.mkdir()
        folder.chmod(0o755)
    (holding / "gate").mkdir()
    link.symlink_to(closed)
    places = [(closed, stat.S_IRWXO), (holding, stat.S_IRWXO), (link, stat.S_IRWXO)]

    changed = _withhold(places, [holding / "gate" / "worker.py"])

    assert changed == [(closed, 0o755), (holding, 0o755)]  # the link is never followed
    assert stat.S_IMODE(closed.stat().st_mode) == 0o750
    assert stat.S_IMODE(holding.stat().st_mode) == 0o751  # searchable, not listable


def test_a_place_handlers_must_read_keeps_its_mode(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    assert _withhold([(tmp_path, stat.S_IRWXO)], [tmp_path]) == []
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755
