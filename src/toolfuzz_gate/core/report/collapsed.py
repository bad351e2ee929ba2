"""A collapsed section of the PR comment: a summary line, a note, then a capped table (pure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CollapsedTable:
    """How one collapsed documentation section reads: `title` (the count is appended),
    `intro` (an italic note), the table `header`, at most `cap` rows, and what the rows are
    (`noun`) and where the rest is (`elsewhere`) for the lines saying what was left out."""

    title: str
    intro: str
    header: str
    cap: int
    noun: str
    elsewhere: str

    def render(
        self, items: Sequence[Any], row: Callable[[Any], str], with_rows: bool = True
    ) -> list[str]:
        """The section's parts (nothing without items); `with_rows` False keeps only the
        count, to fit the comment."""
        if not items:
            return []
        parts = [f"<details><summary>{self.title} ({len(items)})</summary>", self.intro]
        if not with_rows:
            parts.append(
                f"_{len(items)} {self.noun} left out to fit the comment, see {self.elsewhere}._"
            )
        else:
            shown = items[: self.cap]
            parts.append("\n".join([self.header, *(row(item) for item in shown)]))
            if len(shown) < len(items):
                more = len(items) - len(shown)
                parts.append(f"_\u2026 {more} more {self.noun}, see {self.elsewhere}._")
        parts.append("</details>")
        return parts
