"""Hypothesis profiles: `ci`, the full run, and `dev`, a quick development loop.

`tests/conftest.py` loads the one named by HYPOTHESIS_PROFILE (`dev` when unset); `.ci/run`
exports `ci`. A property that needs its own example count writes `max_examples=examples(n)`,
where `n` is what CI runs; the development profile runs a quarter of it.
"""

from __future__ import annotations

from hypothesis import settings

CI_EXAMPLES = 100
"""Hypothesis's own default, which properties without a count of their own ran before profiles."""

DEV_EXAMPLES = 25

settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None)
# No deadline in either: timing belongs in benchmarks, and on a shared machine (or beside
# pytest-xdist workers) a wall-clock limit fails tests that are correct.


def load(name: str | None) -> None:
    """Load the named profile, `dev` when none is named."""
    settings.load_profile(name or "dev")


def examples(full: int) -> int:
    """`full` under the ci profile; the loaded profile's share of it otherwise (at least one)."""
    return max(1, full * settings().max_examples // CI_EXAMPLES)
