"""Output bounds relative to the input, and `ignore_output`, through `cli.run` with `python:`
handlers (`fixtures/handlers/sized.py`): an echo of a large input is not unbounded output
under a raised ceiling while a flood from a small input is, and a tool that stamps every answer
with a fresh id is replay-unstable until the policy ignores the id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

FIXTURE = Path(__file__).parents[1] / "fixtures" / "handlers" / "sized.py"
BIG = {
    "type": "object",
    "properties": {
        "chunks": {
            "type": "array",
            "items": {"type": "string", "minLength": 4096, "maxLength": 4096, "pattern": "^a+$"},
            "minItems": 32,
            "maxItems": 32,
        }
    },
    "required": ["chunks"],
    "additionalProperties": False,
}
SMALL = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}


def run(tmp_path: Path, tools: str) -> tuple[int, dict[str, Any], str]:
    shutil.copy(FIXTURE, tmp_path / "sized.py")
    (tmp_path / "big.json").write_text(json.dumps(BIG), encoding="utf-8")
    (tmp_path / "small.json").write_text(json.dumps(SMALL), encoding="utf-8")
    policy = tmp_path / "policy.yml"
    policy.write_text(f"version: 1\ndefaults: {{runs: 8}}\ntools:\n{tools}", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(out))
    receipts = {p.stem: json.loads(p.read_text("utf-8")) for p in out.glob("*.json")}
    return code, receipts, err


def failures(receipt: Any) -> set[str]:
    return {c["failure"] for c in receipt["counterexamples"]}


@pytest.mark.slow
def test_an_echo_of_a_large_input_is_bounded_a_flood_from_a_small_one_is_not(
    tmp_path: Path,
) -> None:
    tools = "".join(
        f'  - name: {name}\n    schema: {schema}.json\n    handler: {{python: "sized:{name}"}}\n'
        "    max_output_bytes: 1048576\n"
        for name, schema in (("echo", "big"), ("flood", "small"))
    )
    code, receipts, err = run(tmp_path, tools)
    assert code == 1, err
    echo, flood = receipts["echo"], receipts["flood"]
    assert echo["cases"]["valid"] > 0 and echo["invariants"]["output-bounded"] is True
    assert "output-unbounded" not in failures(echo)
    assert "ignoreOutput" not in echo["contract"]
    assert "output-unbounded" in failures(flood)
    [found] = [c for c in flood["counterexamples"] if c["failure"] == "output-unbounded"][:1]
    assert found["error"]["limit"] < 1048576  # the input's allowance, under the ceiling


def test_a_fresh_id_is_replay_unstable_until_the_policy_ignores_it(tmp_path: Path) -> None:
    entry = '  - name: {0}\n    schema: small.json\n    handler: {{python: "sized:fresh_id"}}\n'
    entry += "    deterministic: true\n"
    tools = entry.format("stamped") + entry.format("ignored") + "    ignore_output: [/id]\n"
    code, receipts, err = run(tmp_path, tools)
    assert code == 1, err
    stamped, ignored = receipts["stamped"], receipts["ignored"]
    # Both accept calls their schema refuses (hostile-accepted): only the comparisons differ.
    assert failures(stamped) - failures(ignored) == {"replay-unstable"}
    assert failures(ignored) & {"replay-unstable", "metamorphic-key-order"} == set()
    assert ignored["invariants"]["replay-stable"] is True
    assert ignored["invariants"]["key-order-invariant"] is True
    assert ignored["contract"]["ignoreOutput"] == ["/id"]
    assert "ignoreOutput" not in stamped["contract"]
