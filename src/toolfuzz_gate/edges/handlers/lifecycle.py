"""The context-manager half every handler shares: `with handler:` closes it (edge)."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """Mixin for classes with a `close()`: entering returns self, leaving closes."""

    def close(self) -> None:
        """Release what the handler holds; every handler overrides it."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
