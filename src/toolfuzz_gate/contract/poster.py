"""renderPoster: the built-in contract and its synthetic, side-effect-free handler (pure).

The handler behaves like a careful real tool: it validates its own arguments
(never trusting the caller to have done so), applies two business rules that
the schema cannot express, counts committed operations (none on a dry run,
none on a rejection), and returns normalized output that depends only on the
input (no ids, no clocks), so replay and key-order invariants hold.
"""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

TOOL_NAME = "renderPoster"
PIXEL_BUDGET = 120_000
FORMATS = ("png", "svg")

SCHEMA: JSONObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "renderPoster",
    "description": "Render a poster from a title and a small palette.",
    "type": "object",
    "additionalProperties": False,
    "required": ["title", "format", "width", "height", "palette"],
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 80},
        "format": {"type": "string", "enum": list(FORMATS)},
        "width": {"type": "integer", "minimum": 64, "maximum": 400},
        "height": {"type": "integer", "minimum": 64, "maximum": 400},
        "palette": {
            "type": "array",
            "minItems": 1,
            "maxItems": 5,
            "items": {"type": "string", "minLength": 4, "maxLength": 9},
        },
        "dryRun": {"type": "boolean", "description": "Validate and plan, commit nothing."},
    },
}

EXPECTED_REJECTIONS = ("policy-pixel-budget", "policy-duplicate-semantic-intent")
ERROR_CODES = "^(schema|policy)-"
DRY_RUN = "dryRun"


class ToolError(ValueError):
    """A clean rejection with a code from the tool's vocabulary."""

    def __init__(self, code: str, path: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.path = path


def _integer(arguments: dict[str, Any], name: str) -> int:
    value = arguments[name]
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON Schema counts 1.0 as an integer, and so does this tool
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError("schema-type", f"/{name}", f"{name} must be an integer")
    if not 64 <= value <= 400:
        raise ToolError("schema-range", f"/{name}", f"{name} must be within 64..400")
    return value


def _validate(arguments: dict[str, Any]) -> None:
    allowed = SCHEMA["properties"]
    assert isinstance(allowed, dict)
    for key in arguments:
        if key not in allowed:
            raise ToolError("schema-unknown-key", f"/{key}", "unknown argument")
    for key in ("title", "format", "width", "height", "palette"):
        if key not in arguments:
            raise ToolError("schema-required", f"/{key}", f"{key} is required")
    title = arguments["title"]
    if not isinstance(title, str):
        raise ToolError("schema-type", "/title", "title must be a string")
    if not 1 <= len(title) <= 80:
        raise ToolError("schema-length", "/title", "title must have 1..80 characters")
    if not isinstance(arguments["format"], str) or arguments["format"] not in FORMATS:
        raise ToolError("schema-enum", "/format", "format must be png or svg")
    arguments["width"] = _integer(arguments, "width")
    arguments["height"] = _integer(arguments, "height")
    palette = arguments["palette"]
    if not isinstance(palette, list):
        raise ToolError("schema-type", "/palette", "palette must be an array")
    if not 1 <= len(palette) <= 5:
        raise ToolError("schema-size", "/palette", "palette must have 1..5 entries")
    for index, entry in enumerate(palette):
        if not isinstance(entry, str):
            raise ToolError("schema-type", f"/palette/{index}", "entries must be strings")
        if not 4 <= len(entry) <= 9:
            raise ToolError("schema-length", f"/palette/{index}", "entries have 4..9 characters")
    if "dryRun" in arguments and not isinstance(arguments["dryRun"], bool):
        raise ToolError("schema-type", "/dryRun", "dryRun must be a boolean")


def _apply_policy(arguments: dict[str, Any]) -> list[str]:
    normalized = [entry.strip().lower() for entry in arguments["palette"]]
    if len(set(normalized)) != len(normalized):
        raise ToolError(
            "policy-duplicate-semantic-intent", "/palette", "two palette entries mean the same"
        )
    if arguments["width"] * arguments["height"] > PIXEL_BUDGET:
        raise ToolError("policy-pixel-budget", "", f"more than {PIXEL_BUDGET} pixels")
    return normalized


class PosterService:
    """The synthetic renderPoster tool, with a counter of committed renders."""

    def __init__(self) -> None:
        self.committed = 0

    def snapshot(self) -> JSON:
        return {"committed": self.committed}

    def render_poster(self, **arguments: Any) -> JSONObject:
        _validate(arguments)
        palette = _apply_policy(arguments)
        dry_run = bool(arguments.get("dryRun", False))
        if not dry_run:
            self.committed += 1
        return {
            "title": arguments["title"],
            "format": arguments["format"],
            "size": {"width": arguments["width"], "height": arguments["height"]},
            "pixels": arguments["width"] * arguments["height"],
            "palette": palette,
            "committed": not dry_run,
        }
