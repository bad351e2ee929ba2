"""Benchmark: which planted bug kinds a default run finds, and at what cost (report only).

Each kind is a small in-process Python handler with one bug real tool handlers have
(an f-string SQL query, a `str.format` template built from the value, a path join that
escapes its base directory, a date parser, a float conversion, an `Optional` field, an
empty array or string, a `re.match` check without an end anchor, JSON or shell text
built by concatenation, a `!macro` expander, an empty array inside an optional member
written `anyOf [$ref, null]`, a create tool whose "already exists" rule masks an unchecked
argument from every near-miss built on a name a valid call took). The whole engine runs
on each at the default number of runs (200) and seed 41; a kind is found when a
counterexample has the planted failure class and cause. Prints one line per kind, then
the total and the cases per second.

    python bench/bench_bug_kinds.py --runs 200 --seed 41
"""

from __future__ import annotations

import argparse
import json
import os.path
import re
import shlex
import sqlite3
import time
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size


class Rejected(Exception):
    """A clean refusal: the handler's own argument check."""


class PathEscape(Exception):
    """The planted path bug: a joined path left its base directory."""


class InvalidDay(ValueError):
    """The planted leap-day bug: a days-in-month table without leap years."""


class UnknownOffset(KeyError):
    """The planted offset bug: a time-zone table from -12:00 to +12:00."""


class NegativeAmount(AssertionError):
    """The planted negative-zero bug: a formatted amount with a minus sign."""


def _printable(text: str) -> str:
    """What the notes server did before its query: drop control characters."""
    return "".join(c for c in text if c.isprintable())


def sql_fstring(title: str) -> object:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE notes (title TEXT, body TEXT)")
    db.execute("INSERT INTO notes VALUES ('Harbour', 'b')")
    return db.execute(f"SELECT body FROM notes WHERE title = '{_printable(title)}'").fetchall()


def format_template(name: str) -> object:
    return ("Dear " + name + ", you have {count} new messages").format(count=3)


def path_join(filename: str) -> object:
    base = "/srv/notes"
    joined = os.path.normpath(os.path.join(base, filename))
    if joined != base and not joined.startswith(base + "/"):
        raise PathEscape(joined)
    return joined


DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def leap_day(day: str) -> object:
    year, month, date = (int(part) for part in day.split("-"))
    if date > DAYS[month - 1]:
        raise InvalidDay(day)
    return [year, month, date]


ZONES = {f"{sign}{hours:02d}:00": f"UTC{sign}{hours}" for sign in "+-" for hours in range(13)}


def offset_table(when: str) -> object:
    offset = when[-6:] if when[-1] not in "Zz" else "+00:00"
    zone = ZONES.get(offset[:3] + ":00")
    if zone is None:
        raise UnknownOffset(offset)
    return zone


def float_huge(amount: float) -> object:
    return round(amount * 100)


def negative_zero(balance: float) -> object:
    shown = f"{balance:.2f}"
    if shown.startswith("-"):
        raise NegativeAmount(shown)
    return shown


def integer_float(count: int) -> object:
    return "*" * min(count, 50)


def optional_null(title: str, note: str | None = "") -> object:
    return title + note.strip()  # type: ignore[union-attr]


def empty_array(title: str, tags: list[str] | None = None) -> object:
    return [title, tags[0]] if tags is not None else [title]


def empty_string(word: str) -> object:
    return word[0].upper() + word[1:]


def match_no_end(slug: str) -> object:
    if not re.match(r"[a-z0-9-]+", slug):
        raise Rejected("invalid-params")
    return slug


def json_concat(query: str) -> object:
    return json.loads('{"q": "' + _printable(query) + '"}')


def shell_split(pattern: str) -> object:
    return shlex.split(f"grep -n {pattern} notes.txt")


def xml_concat(title: str) -> object:
    return ET.fromstring("<note><title>" + _printable(title) + "</title></note>").tag


def normalised_key(name: str) -> object:
    users = {name: 1}
    return users[unicodedata.normalize("NFKC", name)]


MACROS = {"date": "2024-01-01", "user": "me"}


def bang_macro(title: str) -> object:
    return re.sub(r"!(\w*)", lambda m: MACROS[m.group(1)], title)


def nested_empty(query: str, page: int = 1, filters: dict[str, Any] | None = None) -> object:
    tags = (filters or {}).get("tags")
    return [query, tags[0]] if tags is not None else [query]


FILTERS = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "author": {"type": "string", "maxLength": 50},
        "since": {"type": "string", "format": "date"},
        "sort": {"enum": ["relevance", "date", "title"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    },
    "additionalProperties": False,
}

PRIORITIES = {1: "low", 2: "normal", 3: "high"}


class Notebook:
    """A create tool with state: a taken name is refused (`already-exists`, a business rule
    the schema cannot say) before the priority is read, through a table that trusts the
    schema's bounds. Valid calls take every name near-misses are built on, so only a
    near-miss on a fresh name reaches the table."""

    def __init__(self) -> None:
        self.notes: dict[str, str] = {}

    def __call__(self, name: str, priority: int) -> object:
        if name in self.notes:
            raise Rejected("already-exists")
        self.notes[name] = PRIORITIES[priority]
        return {"created": name}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


TEXT = {"type": "string", "minLength": 1, "maxLength": 40}


@dataclass(frozen=True)
class Kind:
    name: str
    schema: dict[str, Any]
    function: Callable[..., object]
    failure: str
    causes: tuple[str, ...]
    guard: dict[str, Any] | None = None
    """What the handler validates before it runs (None: the whole schema)."""
    business: tuple[str, ...] = ()
    """The codes of its business rules, declared as the tool's `expected_rejections`."""
    stateful: bool = False
    """`function` makes the handler (one per run, with its own state)."""


KINDS = (
    Kind(
        "sql-fstring",
        _object({"title": TEXT}, ["title"]),
        sql_fstring,
        "crash",
        ("OperationalError", "Warning", "ProgrammingError"),
    ),
    Kind(
        "format-template",
        _object({"name": TEXT}, ["name"]),
        format_template,
        "crash",
        ("KeyError", "ValueError", "IndexError", "AttributeError"),
    ),
    Kind(
        "path-traversal",
        _object({"filename": TEXT}, ["filename"]),
        path_join,
        "crash",
        ("PathEscape",),
    ),
    Kind(
        "date-leap-day",
        _object({"day": {"type": "string", "format": "date"}}, ["day"]),
        leap_day,
        "crash",
        ("InvalidDay",),
    ),
    Kind(
        "date-time-offset",
        _object({"when": {"type": "string", "format": "date-time"}}, ["when"]),
        offset_table,
        "crash",
        ("UnknownOffset",),
    ),
    Kind(
        "float-huge",
        _object({"amount": {"type": "number"}}, ["amount"]),
        float_huge,
        "crash",
        ("OverflowError",),
    ),
    Kind(
        "negative-zero",
        _object({"balance": {"type": "number", "minimum": 0}}, ["balance"]),
        negative_zero,
        "crash",
        ("NegativeAmount",),
    ),
    Kind(
        "integer-as-float",
        _object({"count": {"type": "integer"}}, ["count"]),
        integer_float,
        "crash",
        ("TypeError",),
    ),
    Kind(
        "optional-null",
        _object(
            {
                "title": TEXT,
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            ["title"],
        ),
        optional_null,
        "crash",
        ("AttributeError",),
    ),
    Kind(
        "empty-array",
        _object({"title": TEXT, "tags": {"type": "array", "items": {"type": "string"}}}, ["title"]),
        empty_array,
        "crash",
        ("IndexError",),
    ),
    Kind(
        "empty-string",
        _object({"word": {"type": "string"}}, ["word"]),
        empty_string,
        "crash",
        ("IndexError",),
    ),
    Kind(
        "re-match-no-end",
        _object({"slug": {"type": "string", "pattern": "^[a-z0-9-]+$", "maxLength": 40}}, ["slug"]),
        match_no_end,
        "hostile-accepted",
        ("",),
        _object({"slug": {"type": "string", "maxLength": 40}}, ["slug"]),
    ),
    Kind(
        "json-concat",
        _object({"query": TEXT}, ["query"]),
        json_concat,
        "crash",
        ("JSONDecodeError",),
    ),
    Kind(
        "shell-split",
        _object({"pattern": TEXT}, ["pattern"]),
        shell_split,
        "crash",
        ("ValueError",),
    ),
    Kind(
        "markup-concat", _object({"title": TEXT}, ["title"]), xml_concat, "crash", ("ParseError",)
    ),
    Kind(
        "unicode-normalisation",
        _object({"name": TEXT}, ["name"]),
        normalised_key,
        "crash",
        ("KeyError",),
    ),
    Kind("bang-macro", _object({"title": TEXT}, ["title"]), bang_macro, "crash", ("KeyError",)),
    Kind(
        "nested-empty-array",
        {
            **_object(
                {
                    "query": TEXT,
                    "page": {"type": "integer", "minimum": 1},
                    "filters": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
                },
                ["query"],
            ),
            "$defs": {"Filters": FILTERS},
        },
        nested_empty,
        "crash",
        ("IndexError",),
    ),
    Kind(
        "state-masked-argument",
        _object(
            {"name": TEXT, "priority": {"type": "integer", "minimum": 1, "maximum": 3}},
            ["name", "priority"],
        ),
        Notebook,
        "crash",
        ("KeyError",),
        _object({"name": TEXT, "priority": {"type": "integer"}}, ["name", "priority"]),
        ("already-exists",),
        True,
    ),
)


class InProcess:
    """A `Handler` over a plain function: `Rejected` is a refusal, any other exception a crash.

    Arguments the guard schema refuses are rejected before the function runs, as an SDK
    that validates its input schema does, so each kind fails only by its planted bug.
    """

    def __init__(self, function: Callable[..., object], guard: dict[str, Any]) -> None:
        self.function = function
        self.guard = jsonschema.Draft202012Validator(guard)

    def call(self, arguments: JSONObject) -> Outcome:
        try:
            if not self.guard.is_valid(arguments):
                raise Rejected("invalid-params")
            output = self.function(**arguments)
        except Rejected as error:
            return Outcome(OutcomeKind.REJECTED, error_code=str(error))
        except Exception as error:
            return Outcome(
                OutcomeKind.CRASH,
                message=f"{type(error).__name__}: {error}"[:200],
                cause=type(error).__name__,
            )
        output_digest, output_bytes = digest_and_size(json.loads(json.dumps(output)))
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=output_bytes)


def run(kind: Kind, seed: int, runs: int) -> tuple[bool, int, float, list[str]]:
    tool = ToolSpec(kind.name, expected_rejections=kind.business)
    function = kind.function() if kind.stateful else kind.function
    started = time.perf_counter()
    result = fuzz(
        kind.schema,
        InProcess(function, kind.guard or kind.schema),
        tool,
        FuzzConfig(seed, runs),
        handler_label={"spec": "bench"},
        replay_command="bench",
    )
    elapsed = time.perf_counter() - started
    seen = [
        f"{c.finding.failure.value}:{c.finding.cause or '-'}@{c.finding.path or '/'}"
        for c in result.counterexamples
    ]
    found = any(
        c.finding.failure.value == kind.failure and c.finding.cause in kind.causes
        for c in result.counterexamples
    )
    return found, sum(result.counts.values()), elapsed, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--verbose", action="store_true", help="list every counterexample")
    args = parser.parse_args()
    total_cases, total_time, found_count = 0, 0.0, 0
    for kind in KINDS:
        found, cases, elapsed, seen = run(kind, args.seed, args.runs)
        total_cases += cases
        total_time += elapsed
        found_count += found
        detail = f" [{', '.join(seen)}]" if args.verbose and seen else ""
        print(
            f"{kind.name:24} {'found' if found else 'MISSED':6} "
            f"{cases} cases in {elapsed:.2f}s{detail}"
        )
    print(
        f"found {found_count}/{len(KINDS)} kinds at {args.runs} runs, seed {args.seed}: "
        f"{total_cases:,} cases in {total_time:.2f}s = {total_cases / total_time:,.0f} cases/s"
    )


if __name__ == "__main__":
    main()
