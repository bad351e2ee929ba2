"""Effect probes against real effects: files written and SQLite rows inserted."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.documents import doc
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.edges.effects import CommandProbe, DirectoryProbe
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler
from toolfuzz_gate.errors import HandlerError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "effects"
TOOL = ToolSpec(
    poster.TOOL_NAME,
    expected_rejections=poster.EXPECTED_REJECTIONS,
    error_codes=poster.ERROR_CODES,
    dry_run=poster.DRY_RUN,
)
COUNT_ROWS = (
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1])\n"
    "db.execute('CREATE TABLE IF NOT EXISTS renders (title TEXT)')\n"
    "print(db.execute('SELECT count(*) FROM renders').fetchone()[0])\n"
)


def run_fuzz(config: HandlerConfig) -> dict[str, Any]:
    with build_handler(config) as handler:
        result = fuzz(
            poster.SCHEMA,
            handler,
            TOOL,
            # A command probe starts a process per snapshot: keep the shrinking short.
            FuzzConfig(seed=41, runs=12, shrink_budget=40),
            handler_label=config.label(),
            replay_command="test",
        )
    return result.receipt


def failures(receipt: dict[str, Any]) -> set[str]:
    return {c["failure"] for c in receipt["counterexamples"]}


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("TOOLFUZZ_STATE", str(state))
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    return state


@pytest.fixture
def state_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = tmp_path / "state.sqlite"
    monkeypatch.setenv("TOOLFUZZ_STATE", str(db))
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    return db


def directory_config(function: str, state: Path) -> HandlerConfig:
    return HandlerConfig(
        "python",
        f"state_writers:{function}",
        rejects=("toolfuzz_gate.contract.poster:ToolError",),
        env=("TOOLFUZZ_STATE",),
        effects_directory=str(state),
    )


def command_config(function: str, db: Path) -> HandlerConfig:
    return HandlerConfig(
        "python",
        f"state_writers:{function}",
        rejects=("toolfuzz_gate.contract.poster:ToolError",),
        env=("TOOLFUZZ_STATE",),
        effects_command=(sys.executable, "-c", COUNT_ROWS, str(db)),
    )


@pytest.mark.slow
def test_directory_probe_sees_a_file_written_before_validation(state_dir: Path) -> None:
    receipt = run_fuzz(directory_config("write_file_first", state_dir))
    assert "mutation-on-rejection" in failures(receipt)
    assert "dry-run-mutation" in failures(receipt)
    assert any(state_dir.iterdir())


def test_directory_probe_is_quiet_when_files_are_written_after_validation(
    state_dir: Path,
) -> None:
    receipt = run_fuzz(directory_config("write_file_after", state_dir))
    assert failures(receipt) == set()
    assert any(state_dir.iterdir())  # it did commit, on accepted non-dry runs


@pytest.mark.slow
def test_command_probe_sees_a_row_inserted_before_validation(state_db: Path) -> None:
    receipt = run_fuzz(command_config("insert_row_first", state_db))
    assert "mutation-on-rejection" in failures(receipt)
    rows = sqlite3.connect(state_db).execute("SELECT count(*) FROM renders").fetchone()[0]
    assert rows > 0


@pytest.mark.slow
def test_command_probe_is_quiet_when_rows_are_inserted_after_validation(state_db: Path) -> None:
    receipt = run_fuzz(command_config("insert_row_after", state_db))
    assert failures(receipt) == set()
    rows = sqlite3.connect(state_db).execute("SELECT count(*) FROM renders").fetchone()[0]
    assert rows > 0


def test_directory_snapshot_changes_with_content_not_with_time(tmp_path: Path) -> None:
    probe = DirectoryProbe(tmp_path)
    empty = probe.snapshot()
    (tmp_path / "a.txt").write_text("one", encoding="utf-8")
    one = probe.snapshot()
    assert one != empty and probe.snapshot() == one
    (tmp_path / "a.txt").write_text("two", encoding="utf-8")
    assert probe.snapshot() != one


def test_broken_probes_are_handler_errors(tmp_path: Path) -> None:
    with pytest.raises(HandlerError, match="does not exist"):
        DirectoryProbe(tmp_path / "missing")
    with pytest.raises(HandlerError, match="exited with 3"):
        CommandProbe([sys.executable, "-c", "raise SystemExit(3)"], None, ()).snapshot()
    text = CommandProbe([sys.executable, "-c", "print('not json')"], None, ()).snapshot()
    assert text == "not json"


def test_a_tool_declared_idempotent_that_commits_on_every_call_is_not_idempotent(
    state_dir: Path,
) -> None:
    # write_file_after writes a new file per accepted call: not idempotent, by design here.
    declared = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
        checks=resolve_checks(annotations={"idempotentHint": True}),
    )
    config = directory_config("write_file_after", state_dir)
    with build_handler(config) as handler:
        receipt = fuzz(
            poster.SCHEMA,
            handler,
            declared,
            FuzzConfig(seed=41, runs=6, shrink_budget=20),
            handler_label=config.label(),
            replay_command="test",
        ).receipt
    reasons = {
        c["error"]["reason"]
        for c in doc(receipt)["counterexamples"]
        if c["failure"] == "not-idempotent"
    }
    assert reasons == {"the same call a second time changed the committed state again"}
    assert "not-idempotent" not in failures(
        run_fuzz(directory_config("write_file_after", state_dir))
    )
