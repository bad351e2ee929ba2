"""Which stateful campaigns may run at the same time (`app.stateful_run.run_servers` under
`--jobs`): by the tools' lane rule, one server's campaign always one unit of one lane."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.stateful_run import ServerUnit, run_servers
from toolfuzz_gate.core.gate.lanes import Stage
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings
from toolfuzz_gate.edges.handlers.config import HandlerConfig


class Recording(Jobs):
    """Records the stages it is given and runs nothing."""

    def __init__(self) -> None:
        super().__init__(2)
        self.stages: list[Stage] = []

    def run(self, stages: Sequence[Stage], work: Callable[[int], Any]) -> list[Any]:
        self.stages = list(stages)
        return []


def unit(name: str, **settings: Any) -> ServerUnit:
    handler = HandlerConfig("mcp", "", argv=("python3", f"{name}.py"), **settings)
    return ServerUnit(name, handler, (), 41)


def stages_of(units: list[ServerUnit], tmp_path: Path) -> list[Stage]:
    jobs = Recording()
    run_servers(units, StatefulSettings(), "replay", tmp_path, jobs, None, None)
    return jobs.stages


def test_independent_servers_run_side_by_side(tmp_path: Path) -> None:
    assert stages_of([unit("a"), unit("b")], tmp_path) == [((0,), (1,))]


def test_servers_in_one_working_directory_share_a_lane(tmp_path: Path) -> None:
    units = [unit("a", cwd="data"), unit("b"), unit("c", cwd="data")]
    assert stages_of(units, tmp_path) == [((0, 2), (1,))]


def test_a_server_with_a_reset_or_an_effects_probe_runs_alone(tmp_path: Path) -> None:
    units = [
        unit("a"),
        unit("b", reset_command=("rm", "-f", "db")),
        unit("c"),
        unit("d", effects_directory="state"),
    ]
    assert stages_of(units, tmp_path) == [((0,),), ((1,),), ((2,),), ((3,),)]
