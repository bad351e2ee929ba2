"""Issue 26: a handler cannot reach the gate's process or outlive its step. The action
runs end to end as the runner starts it (`tests.trust_repo`: the paging tool's
off-by-one, the loopback GitHub); the pull request's handler probes, at import, what it
can reach and leaves its findings in a drop box anyone may write. As root the gate runs
it as an unprivileged user (`edges.handlers.confine`); started by an ordinary user who may
sudo without a password (a hosted runner's `runner`), the gate becomes root through sudo
and does the same (`edges.privileges`); the control runs the same gate as an ordinary user
without sudo (a self-hosted runner, a laptop): it says handlers run as its own user, and
the same handler can then write the output directory."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from tests.action_env import clean_venv, may_sudo
from tests.trust_repo import append, gate_pull_request, pull_request
from toolfuzz_gate.edges.handlers.confine import FALLBACK_ID, handler_ids

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or os.geteuid() != 0,
        reason="switching users needs root on Linux",
    ),
]

MODEL_KEY = "sk-modelKeyNobodyNamed0123456789abcdef"
"""In the gate's environment under a name the policy does not give (`llm` is absent):
the re-execution cannot know to withhold it."""
GATE_USER = FALLBACK_ID + 9
"""The control's gate: an ordinary user without sudo (no passwd entry: sudo refuses it)."""
SUDO_USER = FALLBACK_ID + 11
"""A hosted runner's user: may sudo without a password where this machine says so."""


NO_SUDO = (
    f"uid {SUDO_USER} cannot sudo without a password here, as a hosted runner's user can "
    f"(to run it: sudo installed, `useradd --uid {SUDO_USER} toolfuzz-runner` and "
    "`toolfuzz-runner ALL=(ALL) NOPASSWD: ALL` in /etc/sudoers.d/)"
)

PROBE = """
import json as _json, os as _os
def _probe(drop, output, key, daemon_socket, env_file, earlier, runner_temp):
    found = {"uid": _os.getuid(), "gid": _os.getgid(), "groups": _os.getgroups()}
    found["side"] = "base" if "toolfuzz-base-" in __file__ else "head"
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    found.update({k: fields[k].strip() for k in ("CapEff", "CapPrm", "NoNewPrivs")})
    gate = _os.getppid()
    with open(f"/proc/{gate}/cmdline", "rb") as cmdline:
        found["gate"] = cmdline.read().replace(b"\\0", b" ").decode()
    for name in ("environ", "mem"):
        try:
            with open(f"/proc/{gate}/{name}", "rb") as handle:
                found[name] = "read %d bytes" % len(handle.read(4096))
        except OSError as error:
            found[name] = error.strerror
    found["key_in"] = []
    for pid in filter(str.isdigit, _os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if key.encode() in handle.read():
                    found["key_in"].append(pid)
        except OSError:
            pass
    try:
        with open(_os.path.join(output, "planted.json"), "w") as handle:
            handle.write("{}")
        found["output"] = "written"
    except OSError as error:
        found["output"] = error.strerror
    import socket as _socket
    try:
        with _socket.socket(_socket.AF_UNIX) as client:
            client.connect(daemon_socket)
        found["socket"] = "connected"
    except OSError as error:
        found["socket"] = error.strerror
    try:
        with open(env_file, "a") as handle:
            handle.write("BASH_ENV=/tmp/evil.sh\\n")
        found["env_file"] = "written"
    except OSError as error:
        found["env_file"] = error.strerror
    try:  # what an earlier step put in the environment, kept by the runner beside it
        with open(earlier) as handle:
            found["earlier"] = "read: " + handle.read()
    except OSError as error:
        found["earlier"] = error.strerror
    try:  # other steps' scripts, by name
        found["temp"] = sorted(_os.listdir(runner_temp))
    except OSError as error:
        found["temp"] = error.strerror
    try:  # its checkout: the workspace (head), the base's worktree (base)
        with open(_os.path.join(_os.path.dirname(__file__), "planted.py"), "w") as handle:
            handle.write("LIMIT = 11\\n")
        found["checkout"] = "written"
    except OSError as error:
        found["checkout"] = error.strerror
    found["home"] = _os.environ.get("HOME")
    try:
        with open(_os.path.join(_os.environ["TMPDIR"], "scratch"), "w") as handle:
            handle.write("ok")
        found["tmpdir"] = "written"
    except (OSError, KeyError) as error:
        found["tmpdir"] = str(error)
    with open(_os.path.join(drop, "%d.json" % _os.getpid()), "w") as handle:
        _json.dump(found, handle)
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = Path(sys.executable).parent.parent
    if (here / "bin" / "toolfuzz-gate").exists():
        return here
    return clean_venv(tmp_path_factory.mktemp("venv"))


@pytest.fixture(scope="module")
def ordinary_venv(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environment an ordinary user can run the gate from: the test's interpreter may
    sit where only root can reach (pyenv under /root), so a system Python of the same
    version borrows the test's installed packages."""
    system = Path("/usr/bin/python3")
    probe = subprocess.run(
        [str(system), "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0 or probe.stdout.strip() != str(sys.version_info[:2]):
        pytest.skip("no system Python of the test's version for an ordinary user")
    ordinary = tmp_path_factory.mktemp("ordinary") / "venv"
    subprocess.run([str(system), "-m", "venv", "--without-pip", str(ordinary)], check=True)
    borrowed = sysconfig.get_paths()["purelib"]
    site = Path(
        subprocess.run(
            [
                str(ordinary / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "borrowed.pth").write_text(f"import site; site.addsitedir({borrowed!r})\n")
    script = ordinary / "bin" / "toolfuzz-gate"
    script.write_text(
        f"#!{ordinary / 'bin' / 'python'}\nimport sys\nfrom toolfuzz_gate.cli import main\n"
        "sys.exit(main())\n"
    )
    script.chmod(0o755)
    return ordinary


def _drop_box(tmp_path: Path) -> Path:
    drop = tmp_path / "drop"
    drop.mkdir()
    drop.chmod(0o777)
    return drop


@pytest.mark.parametrize("standing", ["root", "sudo", "same-user"])
def test_a_handler_cannot_reach_the_gate_s_process_or_its_output(
    request: pytest.FixtureRequest, tmp_path: Path, standing: str
) -> None:
    if standing == "sudo" and not may_sudo(SUDO_USER):
        pytest.skip(NO_SUDO)
    gate_user = {"root": None, "sudo": SUDO_USER, "same-user": GATE_USER}[standing]
    gate_is_root = standing != "same-user"  # from the start, or through sudo
    venv = request.getfixturevalue("venv" if gate_user is None else "ordinary_venv")
    workspace, drop = tmp_path / "workspace", _drop_box(tmp_path)
    output = workspace / "toolfuzz-gate-results"

    daemon = socket.socket(socket.AF_UNIX)  # stands for /var/run/docker.sock: root's, 0660
    daemon.bind(str(tmp_path / "docker.sock"))
    daemon.listen()
    (tmp_path / "docker.sock").chmod(0o660)
    runner_temp = tmp_path / "runner-temp"  # the runner's RUNNER_TEMP, as it lays it out:
    commands = runner_temp / "_runner_file_commands"  # every step's file commands, 0644,
    env_file = commands / "set_env_now"  # the gate step's and an earlier step's
    earlier = commands / "set_env_earlier"
    script = runner_temp / "0f3e-earlier-step.sh"  # an earlier `run:` step, 0644
    commands.mkdir(parents=True)
    env_file.write_text("")
    earlier.write_text("CLOUD_TOKEN=fromAnEarlierStep\n")
    script.write_text("deploy --token fromAnEarlierStep\n")
    for path in (runner_temp, commands, env_file, earlier, script):
        path.chmod(0o755 if path.is_dir() else 0o644)
        if gate_user is not None:  # on a runner they are the gate's user's
            os.chown(path, gate_user, gate_user)
    modes = {path: path.stat().st_mode for path in (runner_temp, commands)}
    arguments = [
        str(drop), str(output), MODEL_KEY, str(tmp_path / "docker.sock"), str(env_file),
        str(earlier), str(runner_temp),
    ]  # fmt: skip

    def probe(root: Path) -> None:
        append(root / "pager.py", f"{PROBE}\n_probe(*{arguments!r})\n")

    event = pull_request(workspace, base=probe)  # the base's handler and the head's
    done, comment = gate_pull_request(
        venv,
        workspace,
        event,
        runtime={
            "ANTHROPIC_API_KEY": MODEL_KEY,
            "GITHUB_ENV": str(env_file),
            "RUNNER_TEMP": str(runner_temp),
        },
        as_user=gate_user,
    )
    daemon.close()
    assert done.code == 1, done.stdout + done.stderr
    assert "new-counterexample: not on base: 1 in list_items" in done.stdout, done.stderr
    reports = [json.loads(path.read_text()) for path in drop.glob("*.json")]
    assert reports, "the handler ran"
    for found in reports:
        assert "toolfuzz_gate" in found["gate"] or "toolfuzz-gate" in found["gate"], found
        assert found["key_in"] == [], found  # the model's key: in no process it can read
        assert found["environ"] == found["mem"] == "Permission denied", found
    assert MODEL_KEY not in done.stdout + done.stderr + comment
    assert {f["side"] for f in reports} == {"base", "head"}
    if gate_is_root:  # each side its own user: the head's cannot signal the base's
        for found in reports:
            uid, gid = handler_ids(found["side"])
            assert (found["uid"], found["gid"]) == (uid, gid), found
            assert found["groups"] in ([], [gid]), found
        assert handler_ids("head") != handler_ids("base")
        assert {(f["CapEff"], f["CapPrm"], f["NoNewPrivs"]) for f in reports} == {
            ("0000000000000000", "0000000000000000", "1")
        }
        assert {f["output"] for f in reports} == {"Permission denied"}
        assert {f["socket"] for f in reports} == {"Permission denied"}
        assert {f["checkout"] for f in reports} == {"Permission denied"}
        assert not (workspace / "planted.py").exists()
        assert {f["env_file"] for f in reports} == {"Permission denied"}
        assert env_file.read_text() == ""
        # the runner keeps earlier steps' file commands and scripts: closed for the run
        assert {f["earlier"] for f in reports} == {"Permission denied"}, reports
        assert {f["temp"] for f in reports} == {"Permission denied"}, reports
        # and open again after it, as the runner made them: the handler's user could have
        # read them but for the gate (the folders are searchable by others: see `widen`)
        assert {path: path.stat().st_mode for path in modes} == modes
        uid, gid = handler_ids("head")
        as_handler = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
        assert subprocess.run([*as_handler, "cat", str(earlier)], capture_output=True).stdout
        assert {f["tmpdir"] for f in reports} == {"written"}  # its own home: HOME, TMPDIR
        assert not (output / "planted.json").exists()
        assert all(f["home"] and not Path(f["home"]).exists() for f in reports), "removed"
        assert "handlers run as the gate's own user" not in done.stdout
        became = "::notice::toolfuzz-gate: the gate became root through sudo"
        assert (became in done.stdout) == (standing == "sudo"), done.stdout
        if standing == "sudo":  # what the root gate wrote is the runner user's again
            owners = {path.stat().st_uid for path in [output, *output.rglob("*")]}
            assert owners == {SUDO_USER}, owners
    else:  # the control: an ordinary user's gate cannot switch users, and says so
        assert {f["uid"] for f in reports} == {GATE_USER}
        assert (
            f"::warning::toolfuzz-gate: handlers run as the gate's own user (uid {GATE_USER}): "
            "the gate is not root and cannot sudo without a password"
        ) in done.stdout
        assert {f["output"] for f in reports} == {"written"}
        assert {f["checkout"] for f in reports} >= {"written"}  # the workspace is its user's
        assert {f["earlier"] for f in reports} == {"read: CLOUD_TOKEN=fromAnEarlierStep\n"}
        assert {tuple(f["temp"]) for f in reports} >= {(script.name, commands.name)}
        assert {f["env_file"] for f in reports} == {"written"}  # then put back, and named:
        assert "a handler wrote to GITHUB_ENV: added 'BASH_ENV=/tmp/evil.sh" in done.stdout
    assert env_file.read_text() == ""


DAEMON = """
import os as _os, time as _time
def _daemon(drop):
    if _os.fork():
        return
    _os.setsid()
    if _os.fork():
        _os._exit(0)
    null = _os.open(_os.devnull, _os.O_RDWR)
    for stream in (0, 1, 2):
        _os.dup2(null, stream)
    with open(_os.path.join(drop, "daemon-%d" % _os.getpid()), "w") as handle:
        while True:
            handle.write("beat\\n")
            handle.flush()
            _time.sleep(0.05)
"""


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@pytest.mark.parametrize(("attack", "standing"), [(False, "root"), (True, "root"), (True, "sudo")])
def test_a_daemon_a_handler_double_forks_does_not_outlive_the_step(
    request: pytest.FixtureRequest, tmp_path: Path, attack: bool, standing: str
) -> None:
    """Whether the gate was root from the start or became root through the runner user's
    sudo (then the handler's user is neither the gate's nor the runner's)."""
    if standing == "sudo" and not may_sudo(SUDO_USER):
        pytest.skip(NO_SUDO)
    venv = request.getfixturevalue("venv" if standing == "root" else "ordinary_venv")
    workspace, drop = tmp_path / "workspace", _drop_box(tmp_path)

    def daemonize(root: Path) -> None:
        append(root / "pager.py", f"{DAEMON}\n_daemon({str(drop)!r})\n")

    event = pull_request(workspace, daemonize if attack else None)
    as_user = SUDO_USER if standing == "sudo" else None
    done, _ = gate_pull_request(venv, workspace, event, as_user=as_user)
    assert done.code == 1, done.stdout + done.stderr
    assert "new-counterexample: not on base: 1 in list_items" in done.stdout, done.stdout
    daemons = {int(path.name.split("-")[1]): path for path in drop.glob("daemon-*")}
    assert bool(daemons) == attack
    assert all(path.read_text().startswith("beat\n") for path in daemons.values()), "it ran"
    assert [pid for pid in daemons if _running(pid)] == []
    beats = {pid: path.stat().st_size for pid, path in daemons.items()}
    time.sleep(0.3)
    assert {pid: path.stat().st_size for pid, path in daemons.items()} == beats
