"""Suite-wide setup: the Hypothesis profile named by HYPOTHESIS_PROFILE (see tests/profiles.py),
and, as root, a temporary directory of the session's own."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tests import profiles

profiles.load(os.environ.get("HYPOTHESIS_PROFILE"))

_OWN_BASETEMP = "_toolfuzz_own_basetemp"


def pytest_configure(config: pytest.Config) -> None:
    """As root the action runs handlers as another user, who must reach the workspace
    (`tests.action_env.searchable_by_others`). Every pytest session started as root resets
    the shared `/tmp/pytest-of-root` to 0700, so a session run as root keeps its
    temporary directories in one of its own (xdist workers: under the controller's)."""
    if os.geteuid() != 0 or config.option.basetemp is not None:
        return
    if hasattr(config, "workerinput"):
        return
    own = tempfile.mkdtemp(prefix="toolfuzz-pytest-")
    config.option.basetemp = own
    setattr(config, _OWN_BASETEMP, own)


def pytest_unconfigure(config: pytest.Config) -> None:
    own = getattr(config, _OWN_BASETEMP, None)
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)
