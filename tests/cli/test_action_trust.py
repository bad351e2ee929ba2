"""Issue 26: a pull request cannot grade itself or outlive its step. Each test is an attack
and its control: the same pull request (the paging tool's off-by-one, `tests.trust_repo`)
without the attack fails the gate with "1 new"; with it, 0.5.0 passed it or let the
attack through. The action runs end to end: a simulated runner, a real repository, real
handler processes, the loopback GitHub."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.action_env import clean_venv
from tests.trust_repo import append, gate_pull_request, pull_request, writable_by_others
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.corpus import write_case

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = Path(sys.executable).parent.parent
    if (here / "bin" / "toolfuzz-gate").exists():
        return here
    return clean_venv(tmp_path_factory.mktemp("venv"))


def _weaken(workspace: Path) -> None:
    policy = workspace / "toolfuzz-gate.yml"
    policy.write_text(
        policy.read_text().replace("fail_on: [new-counterexample]", "fail_on: [coverage-drop]")
    )


@pytest.mark.parametrize("attack", [False, True])
def test_a_pull_request_that_weakens_its_policy_is_judged_by_the_base_s(
    venv: Path, tmp_path: Path, attack: bool
) -> None:
    workspace = tmp_path / "workspace"
    event = pull_request(workspace, _weaken if attack else None)
    done, comment = gate_pull_request(venv, workspace, event)
    assert done.code == 1, done.stdout + done.stderr
    assert "new-counterexample: not on base: 1 in list_items" in done.stdout, done.stdout
    if attack:
        assert "**Policy changed by this pull request.**" in comment
        assert "- gate.fail\\_on: new-counterexample removed" in comment
        assert comment.index("Policy changed") < comment.index("new-counterexample:")
    else:
        assert "Policy changed" not in comment


def test_a_base_without_a_policy_lets_the_head_s_rules_decide_and_says_so(
    venv: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"

    def no_policy(root: Path) -> None:
        (root / "toolfuzz-gate.yml").unlink()

    def add_policy(root: Path) -> None:
        from tests.trust_repo import POLICY

        (root / "toolfuzz-gate.yml").write_text(POLICY)

    event = pull_request(workspace, add_policy, base=no_policy)
    done, comment = gate_pull_request(venv, workspace, event)
    assert done.code == 1, done.stdout + done.stderr
    assert "- the base has no policy: this pull request's own rules decided" in comment


def _lend(workspace: Path) -> None:
    """An untracked `.venv` the handler imports its bound from (the base borrows it)."""
    site = workspace / ".venv" / "site"
    site.mkdir(parents=True)
    (site / "pagerdep.py").write_text("LIMIT = 10\n")
    pager = workspace / "pager.py"
    text = pager.read_text().replace(
        "LIMIT = 10\n",
        "import sys\nfrom pathlib import Path\n"
        "sys.path.insert(0, str(Path(__file__).resolve().parent / '.venv' / 'site'))\n"
        "from pagerdep import LIMIT\n",
    )
    pager.write_text(text)


@pytest.mark.parametrize("attack", [False, True])
def test_a_handler_that_rewrites_the_lent_dependencies_fails_the_run(
    venv: Path, tmp_path: Path, attack: bool
) -> None:
    workspace = tmp_path / "workspace"

    def rewrite(root: Path) -> None:  # the head's handler gives the base the same bug
        append(
            root / "pager.py",
            "(Path(__file__).resolve().parent / '.venv' / 'site' / 'pagerdep.py')"
            ".write_text('LIMIT = 11\\n')\n",
        )

    event = pull_request(workspace, rewrite if attack else None, base=_lend)
    _lend_untracked(workspace)
    writable_by_others(workspace / ".venv")  # as for a handler running as the gate's user
    done, comment = gate_pull_request(venv, workspace, event, {"jobs": "1"})
    assert done.code == 1, done.stdout + done.stderr
    assert "the base ran with this pull request's installed dependencies (.venv)" in comment
    if attack:
        assert (
            "a handler changed the installed dependencies the base borrows: "
            ".venv/site/pagerdep.py" in done.stdout
        ), done.stdout
        assert ".venv/site/pagerdep.py" in comment
    else:
        assert "new-counterexample: not on base: 1 in list_items" in done.stdout, done.stdout
        assert "installed dependencies the base borrows" not in done.stdout


def _lend_untracked(workspace: Path) -> None:
    """`.venv` is ignored, so the commits left it out: make it as an install would."""
    site = workspace / ".venv" / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "pagerdep.py").write_text("LIMIT = 10\n")


@pytest.mark.parametrize("attack", [False, True])
def test_a_handler_cannot_write_the_runner_s_file_commands(
    venv: Path, tmp_path: Path, attack: bool
) -> None:
    workspace = tmp_path / "workspace"
    commands = tmp_path / "file_commands"
    commands.mkdir()
    files = {name: commands / name for name in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE")}
    summary = tmp_path / f"runner-{workspace.name}" / "summary.md"
    summary.parent.mkdir()
    for path in [*files.values(), summary]:
        path.write_text("")
        writable_by_others(path)  # as for a handler running as the gate's user

    def plant(root: Path) -> None:
        lines = [
            (files["GITHUB_ENV"], "BASH_ENV=/tmp/evil.sh"),
            (files["GITHUB_PATH"], "/tmp/evil-bin"),
            (summary, "toolfuzz-gate: passed"),
        ]
        append(
            root / "pager.py",
            "for _path, _line in " + repr([(str(path), line) for path, line in lines]) + ":\n"
            "    try:\n"
            "        open(_path, 'a').write(_line + '\\n')\n"
            "    except PermissionError:\n"  # confined: the folder is closed to it
            "        pass\n"
            "import os\n"
            "assert not any(n in os.environ for n in "
            "('GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY'))\n",
        )

    event = pull_request(workspace, plant if attack else None)
    runtime = {name: str(path) for name, path in files.items()}
    done, comment = gate_pull_request(venv, workspace, event, runtime=runtime)
    assert done.code == 1, done.stdout + done.stderr
    assert all(path.read_text() == "" for path in files.values())
    assert "toolfuzz-gate: passed" not in done.summary.splitlines()
    if attack and os.geteuid() == 0:  # confined: the file commands' folder is closed to it
        assert "a handler wrote to GITHUB_ENV" not in done.stdout
        assert "a handler wrote to GITHUB_PATH" not in done.stdout
        # the summary lies in RUNNER_TEMP here, which only loses its listing, and this one
        # is writable by others: the handler wrote it, and it is put back and named
        assert "a handler wrote to GITHUB\\_STEP\\_SUMMARY" in comment
    elif attack:  # the handler is the gate's user: what it wrote is put back, and named
        assert "a handler wrote to GITHUB_ENV: added 'BASH_ENV=/tmp/evil.sh" in done.stdout
        assert "a handler wrote to GITHUB_PATH: added '/tmp/evil-bin" in done.stdout
        assert "a handler wrote to GITHUB\\_STEP\\_SUMMARY" in comment
    else:
        assert "a handler wrote" not in done.stdout
        assert "new-counterexample: not on base: 1 in list_items" in done.stdout, done.stdout


@pytest.mark.parametrize("attack", [False, True])
def test_a_symlink_inside_the_output_directory_is_refused(
    venv: Path, tmp_path: Path, attack: bool
) -> None:
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    outside.mkdir()

    def link(root: Path) -> None:
        (root / "toolfuzz-gate-results").mkdir()
        (root / "toolfuzz-gate-results" / "base").symlink_to(outside)
        (root / ".gitignore").write_text("")

    event = pull_request(workspace, link if attack else None)
    done, _ = gate_pull_request(venv, workspace, event)
    assert list(outside.iterdir()) == []
    if attack:
        assert done.code == 2, done.stdout + done.stderr
        assert "toolfuzz-gate-results/base is a symlink" in done.stderr
    else:
        assert done.code == 1, done.stdout + done.stderr
        assert (workspace / "toolfuzz-gate-results" / "base" / "list_items.json").is_file()


GEOCODER = Path(__file__).parents[2] / "examples" / "agent-geocoder"


def _geocoder(root: Path) -> None:
    """The agent example as the repository's gate: its prompt set is erroneous, so
    `fail_on: [agent-correctness]` fails on the committed cassette."""
    for name in ("geocoder.py", "geocoder.schema.json", "cassette.json"):
        shutil.copy(GEOCODER / name, root / name)
    policy = (GEOCODER / "toolfuzz.yml").read_text()
    (root / "toolfuzz-gate.yml").write_text(
        policy.replace("tools:\n", "gate: {fail_on: [agent-correctness]}\ntools:\n", 1)
    )


def _forge(root: Path) -> None:
    """Every oracle answer in the cassette scores 10: the erroneous set looks correct."""
    cassette = json.loads((root / "cassette.json").read_text())
    forged = 0
    for entry in cassette["entries"].values():
        message = entry["response"]["choices"][0]["message"]
        content = message.get("content") or ""
        if content.startswith("{") and '"score"' in content:
            said = json.loads(content)
            if said.get("score") != 10:
                said["score"], said["reason"] = 10, "the city found is the one expected"
                message["content"] = json.dumps(said)
                forged += 1
    assert forged, "the cassette holds no oracle answer to forge: the oracle's format moved"
    (root / "cassette.json").write_text(json.dumps(cassette, indent=1))


@pytest.mark.parametrize("attack", [False, True])
def test_a_forged_cassette_does_not_pass_the_agent_checks(
    venv: Path, tmp_path: Path, attack: bool
) -> None:
    workspace = tmp_path / "workspace"
    event = pull_request(workspace, _forge if attack else None, base=_geocoder, bug=False)
    done, comment = gate_pull_request(venv, workspace, event)
    assert done.code == 1, done.stdout + done.stderr
    assert "agent-correctness: erroneous prompt sets: 1 in geocode" in done.stdout, done.stdout
    if attack:
        assert "the cassette cassette.json differs from the base's" in comment
    else:
        assert "cassette" not in comment.split("## toolfuzz-gate")[1].split("**base**")[0]


def test_a_cassette_the_base_lacks_makes_the_agent_checks_advisory(
    venv: Path, tmp_path: Path
) -> None:
    """The base's cassette cannot answer (here: it has none), so the head's forged one is
    all there is: the agent checks it passes are advisory, and the gate fails."""
    workspace = tmp_path / "workspace"

    def without_cassette(root: Path) -> None:
        _geocoder(root)
        (root / "cassette.json").unlink()

    def forged(root: Path) -> None:
        shutil.copy(GEOCODER / "cassette.json", root / "cassette.json")
        _forge(root)

    event = pull_request(workspace, forged, base=without_cassette, bug=False)
    done, comment = gate_pull_request(venv, workspace, event)
    assert done.code == 1, done.stdout + done.stderr
    assert "agent-correctness: erroneous" not in done.stdout  # the forgery "passes" it
    assert (
        "agent checks judged on this pull request's cassette cassette.json, which is not on "
        "the base: advisory, never passing" in done.stdout
    ), done.stdout
    assert "the cassette cassette.json is not on the base" in comment


LIMIT_CASE: JSONObject = {
    "format": "toolfuzz-case/1",
    "tool": "list_items",
    "fingerprint": "5e1f00000000000000000011",
    "failure": "hostile-accepted",
    "inputKind": "hostile",
    "path": "/limit",
    "keyword": "maximum",
    "mutation": "bounds",
    "operator": "maximum:above-maximum@/limit",
    "input": {"limit": 11},
    "expected": {"outcome": "rejected", "inputValid": False, "invariant": "hostile-rejected"},
    "provenance": {"stream": "hostile", "case": 3, "seed": 41, "runs": 6},
}
"""The off-by-one the pull request plants, caught once before and kept in the corpus."""


def _with_corpus(root: Path) -> None:
    policy = root / "toolfuzz-gate.yml"
    policy.write_text(policy.read_text().replace("version: 1\n", "version: 1\ncorpus: cases\n"))
    write_case(root / "cases", LIMIT_CASE)


@pytest.mark.parametrize("attack", ["none", "delete", "rewrite", "drop-key"])
def test_a_pull_request_cannot_drop_or_rewrite_the_base_s_regression_cases(
    venv: Path, tmp_path: Path, attack: str
) -> None:
    """The base's corpus holds the off-by-one; the pull request brings it back and deletes
    the case, rewrites it into a harmless call, or drops `corpus:`: the case is replayed as
    the base has it and fails the gate all the same (the control: the case left alone)."""
    case_file = f"cases/list_items/{LIMIT_CASE['fingerprint']}.json"

    def tamper(root: Path) -> None:
        if attack == "delete":
            (root / case_file).unlink()
        elif attack == "rewrite":
            write_case(root / "cases", {**LIMIT_CASE, "input": {"limit": 3}})
        elif attack == "drop-key":
            policy = root / "toolfuzz-gate.yml"
            policy.write_text(policy.read_text().replace("corpus: cases\n", ""))

    workspace = tmp_path / "workspace"
    event = pull_request(workspace, tamper, base=_with_corpus)
    done, comment = gate_pull_request(venv, workspace, event)
    assert done.code == 1, done.stdout + done.stderr
    assert "regression: 1 corpus case(s) fail again" in done.stdout, done.stdout
    said = {"delete": "deleted", "rewrite": "rewritten"}.get(attack)
    if said is not None:  # in the comment's "policy changed" block
        assert f"{LIMIT_CASE['fingerprint']}.json {said}: the base's is replayed" in comment
    else:
        assert "the base's is replayed" not in comment


def test_a_breaking_interface_change_is_tried_on_the_head_s_handler(
    venv: Path, tmp_path: Path
) -> None:
    """The Action tries a breaking change's example call on the head's handler, as
    `run --baseline` does (it did not): the head narrows the limit to 5, the base's call
    of 10 meets the head's handler."""

    def narrow(root: Path) -> None:
        schema = root / "limit.json"
        schema.write_text(schema.read_text().replace('"maximum": 10', '"maximum": 5'))

    workspace = tmp_path / "workspace"
    event = pull_request(workspace, narrow, bug=False)
    done, _ = gate_pull_request(venv, workspace, event)
    assert "Traceback" not in done.stdout + done.stderr
    diff = json.loads((workspace / "toolfuzz-gate-results" / "diff.json").read_text())
    [entry] = [e for e in diff["interface"] if e["change"] == "bound-narrowed"]
    assert entry["breaking"] is True, entry
    assert entry["evidence"]["onHead"]["outcome"] == "accepted", entry  # LIMIT is still 10
