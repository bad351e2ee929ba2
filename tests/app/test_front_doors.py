"""`app.front_doors`: what a command line's campaign settings say reaches the policy it
becomes (a setting `config_options` leaves out would be silently lost)."""

from __future__ import annotations

from dataclasses import fields

from toolfuzz_gate.app.front_doors import config_options
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
from toolfuzz_gate.core.gate.policy import RunOptions
from toolfuzz_gate.core.schema.options import SchemaOptions


def test_every_campaign_setting_a_run_option_also_has_reaches_the_policy() -> None:
    config = FuzzConfig(
        7,
        33,
        options=SchemaOptions("draft-07", True),
        dialect="openapi",
        saturation=False,
        budget_s=12.5,
    )
    options = config_options(config)
    shared = {item.name for item in fields(FuzzConfig)} & {item.name for item in fields(RunOptions)}
    assert shared  # runs, dialect, saturation, budget_s, ...
    for name in sorted(shared):
        assert getattr(options, name) == getattr(config, name), name
    assert options.seeds == (7,)
    assert (options.default_draft, options.format_assertion) == ("draft-07", True)
