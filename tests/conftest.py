"""Suite-wide setup: the Hypothesis profile named by HYPOTHESIS_PROFILE (see tests/profiles.py)."""

from __future__ import annotations

import os

from tests import profiles

profiles.load(os.environ.get("HYPOTHESIS_PROFILE"))
