"""The shape checks of the receipt reader (pure): `At` reads one member of one tool's
receipt as the kind of value it must be, or raises `ReceiptShapeError`
(`receipt.unreadable`) naming the member. Used by `core.campaign.receipt_read` and
`core.campaign.receipt_read_ledgers` only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.errors import ReceiptShapeError


class At:
    """Reads members of one tool's receipt, naming the member when one is of a wrong shape.
    `where` is the JSON Pointer (without its leading `/`) of the object a member is in."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    def bad(self, member: str, what: str) -> ReceiptShapeError:
        return ReceiptShapeError(
            f"the receipt of tool {self.tool!r}: `{member}` {what}",
            hint="regenerate the receipt with toolfuzz-gate; receipts are not edited by hand",
        )

    def mapping(self, value: Any, member: str) -> JSONObject:
        if not isinstance(value, dict):
            raise self.bad(member, "is not an object")
        return value

    def optional(self, holder: Mapping[str, Any], member: str, where: str = "") -> Any:
        """The object at `member`, or None when it is absent or null."""
        value = holder.get(member)
        return None if value is None else self.mapping(value, f"{where}/{member}".strip("/"))

    def text(self, holder: Any, name: str, where: str) -> str:
        value = holder.get(name) if isinstance(holder, dict) else None
        if not isinstance(value, str):
            raise self.bad(f"{where}/{name}".strip("/"), "is not a string")
        return value

    def text_or_none(self, holder: Mapping[str, Any], name: str, where: str) -> str | None:
        value = holder.get(name)
        if value is not None and not isinstance(value, str):
            raise self.bad(f"{where}/{name}".strip("/"), "is not a string or null")
        return value

    def texts(self, value: Any, member: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.bad(member, "is not a list of strings")
        return tuple(value)

    def integer(self, value: Any, member: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.bad(member, "is not an integer")
        return value

    def count(self, holder: Mapping[str, Any], name: str, where: str) -> int:
        return self.integer(holder.get(name), f"{where}/{name}".strip("/"))

    def count_or_none(self, holder: Mapping[str, Any], name: str, where: str) -> int | None:
        value = holder.get(name)
        return None if value is None else self.count(holder, name, where)

    def number_or_none(self, holder: Mapping[str, Any], name: str, where: str) -> float | None:
        value = holder.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise self.bad(f"{where}/{name}".strip("/"), "is not a number or null")
        return value

    def boolean(self, holder: Mapping[str, Any], name: str, where: str) -> bool:
        value = holder.get(name)
        if not isinstance(value, bool):
            raise self.bad(f"{where}/{name}".strip("/"), "is not true or false")
        return value

    def items(self, holder: Mapping[str, Any], member: str, where: str) -> list[JSONObject]:
        listed = holder.get(member, [])
        if not isinstance(listed, list) or not all(isinstance(item, dict) for item in listed):
            raise self.bad(f"{where}/{member}".strip("/"), "is not a list of objects")
        return listed

    def values(self, holder: Mapping[str, Any], member: str, kind: type) -> dict[str, Any]:
        states = holder[member]
        if not isinstance(states, dict) or not all(isinstance(v, kind) for v in states.values()):
            raise self.bad(member, f"is not an object of {kind.__name__} values")
        return dict(states)

    def counts(self, value: Any, member: str) -> dict[str, int]:
        """An object of integers (cases by stream)."""
        found = self.mapping(value, member)
        return {name: self.count(found, name, member) for name in found}
