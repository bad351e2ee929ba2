"""Defaults the command line shows and the use cases apply (application).

Apart from `app.requests` so that the grammar (`cli.parser`) can name them without loading
the requests and what they import: `--version` and `--help` stay light.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_OUT = Path("toolfuzz-receipts")
"""Where receipts go when no `--out` is given."""
