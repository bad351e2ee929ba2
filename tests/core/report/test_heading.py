"""The totals line under the comment's heading (`core.report.heading.totals_line`)."""

from __future__ import annotations

from toolfuzz_gate.core.report.heading import totals_line


def test_one_root_cause_is_singular_and_more_are_plural() -> None:
    one = {"totals": {"new": 1, "newGroups": 1}, "groups": {}}
    two = {"totals": {"new": 3, "newGroups": 2, "fixed": 1}, "groups": {}}
    assert totals_line(one) == "1 new (1 root cause)"
    assert totals_line(two) == "3 new (2 root causes) \u00b7 1 fixed"
