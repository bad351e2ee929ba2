"""Issue 26, finding 4: the model's key never reaches a handler, a file or a foreign host.
Each test is an attack and its control (the same policy without it runs as before)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.llm_server import LoopbackModel, Turn
from toolfuzz_gate.app.model_key import keep_key_from_handlers
from toolfuzz_gate.cli import run
from toolfuzz_gate.core.gate.policy_trust import govern
from toolfuzz_gate.edges.llm.chat_client import ChatClient
from toolfuzz_gate.edges.policy_file import load_policy, policy_rules
from toolfuzz_gate.errors import PolicyError
from toolfuzz_gate.exitcodes import ExitCode

KEY = "sk-toolfuzzModelKey0123456789"
HANDLER = """\
import json, os, sys
open({marker!r}, "a").write(os.environ.get("MY_SETTING", "") + "\\n")
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({{"id": request["id"], "ok": True, "output": {{}}}}), flush=True)
"""


def _repository(tmp_path: Path, llm: str) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "schema.json").write_text('{"type": "object", "additionalProperties": false}')
    (root / "t.py").write_text(HANDLER.format(marker=str(tmp_path / "started.log")))
    (root / "policy.yml").write_text(
        "version: 1\ndefaults: {runs: 2}\ntools:\n  - name: echo\n    schema: schema.json\n"
        "    handler: {command: [python3, t.py], env: [MY_SETTING]}\n" + llm
    )
    return root


@pytest.mark.parametrize("attack", [False, True])
def test_the_key_under_another_name_is_refused_before_any_handler_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attack: bool
) -> None:
    """The schema campaign runs first: the check holds there, by value, not by name."""
    llm = (
        "llm: {base_url: 'https://api.example/v1', model: m, cassette: c.json, "
        "api_key_env: OPENAI_API_KEY}\n"
    )
    root = _repository(tmp_path, llm)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_SETTING", KEY if attack else "plain-setting")
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(root / "policy.yml"), "--root", str(root)]
    code = run([*argv, "--out", str(tmp_path / "out")], out, err)
    if attack:
        assert code == ExitCode.USAGE, out.getvalue() + err.getvalue()
        assert "would give its handler the model's API key" in err.getvalue()
        assert "env MY_SETTING" in err.getvalue()
        assert not (tmp_path / "started.log").exists()
        assert KEY not in out.getvalue() + err.getvalue()
    else:
        assert code == ExitCode.FAILED, out.getvalue() + err.getvalue()  # it ran: it accepts all
        assert "plain-setting" in (tmp_path / "started.log").read_text()


@pytest.mark.parametrize("attack", [False, True])
def test_a_head_policy_without_api_key_env_is_checked_with_the_base_s_name(
    tmp_path: Path, attack: bool
) -> None:
    root = _repository(tmp_path, "")  # the head dropped its llm section
    loaded = load_policy(root / "policy.yml", root)
    environ = {"OPENAI_API_KEY": KEY, "MY_SETTING": KEY if attack else "plain-setting"}
    if attack:
        with pytest.raises(PolicyError, match="model's API key"):
            keep_key_from_handlers(loaded, environ, ["OPENAI_API_KEY"])
    else:
        keep_key_from_handlers(loaded, environ, ["OPENAI_API_KEY"])


BASE = (
    "version: 1\ntools:\n  - {name: t, schema: s.json, handler: {command: [t]}}\n"
    "llm: {base_url: 'https://api.example/v1', model: m, "
    "api_key_env: K, mode: record, cassette: c.json}\n"
)


@pytest.mark.parametrize("url", ["https://api.example/v1", "https://attacker.example/v1"])
def test_a_changed_endpoint_is_refused_in_record_mode(url: str) -> None:
    base = policy_rules(BASE.encode(), "base")
    head = policy_rules(BASE.replace("https://api.example/v1", url).encode(), "head")
    if url == "https://api.example/v1":
        assert govern(head, base).policy.llm == base.llm
        return
    with pytest.raises(PolicyError, match=r"llm\.base_url changed"):
        govern(head, base)


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("http://127.0.0.1:8/v1", True),
        ("https://api.example/v1", True),
        ("http://evil.example/v1", False),
    ],
)
def test_a_key_goes_only_over_https_or_to_loopback(url: str, safe: bool) -> None:
    text = BASE.replace("https://api.example/v1", url).encode()
    if safe:
        assert policy_rules(text, "p").llm is not None
    else:
        with pytest.raises(PolicyError, match="neither https nor on this machine"):
            policy_rules(text, "p")
    # replay never sends the key: any endpoint may stay in a replayed policy
    assert policy_rules(text.replace(b"mode: record", b"mode: replay"), "p").llm is not None


@pytest.mark.parametrize("echo", [False, True])
def test_an_endpoint_echoing_the_key_has_it_scrubbed_from_the_answer(echo: bool) -> None:
    said = f"the key is {KEY}, escaped: {json.dumps(KEY)}" if echo else "no key here"
    with LoopbackModel(lambda body: Turn(text=said)) as model:
        client = ChatClient(model.url, KEY)
        answer = client({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        client.close()
    text = json.dumps(answer)
    assert KEY not in text
    assert ("the model's key, removed" in text) is echo


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ("api_key_header: x-forward-me, ", "api_key_header"),
        ("headers: {x-route: elsewhere}, ", "headers"),
        ("query: {target: elsewhere}, ", "query"),
        ("api: anthropic-messages, seed: null, ", "api"),
    ],
)
def test_how_the_key_travels_is_the_base_s_outside_replay(change: str, name: str) -> None:
    """A head that moves the key into another header, or adds a header or a query
    parameter a proxy could route by, is refused while the base sends the key; in replay
    nothing is sent, so its own stands, the change listed (header values not shown)."""
    base = policy_rules(BASE.encode(), "base")
    head_text = BASE.replace("model: m, ", "model: m, " + change)
    head = policy_rules(head_text.encode(), "head")
    with pytest.raises(PolicyError, match=rf"llm\.{name} changed"):
        govern(head, base)
    replayed = policy_rules(BASE.replace("record", "replay").encode(), "base")
    head = policy_rules(head_text.replace("record", "replay").encode(), "head")
    governed = govern(head, replayed)
    assert governed.policy.llm == head.llm
    (said,) = [line for line in governed.weakenings if line.startswith(f"llm.{name}")]
    assert "elsewhere" not in said or name == "query"
