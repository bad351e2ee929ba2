"""Benchmark: how long accepted patterns take on adversarial strings (report only).

Each accepted pattern is run, by Python's `re` on the raw text (what the reference validator
does) and by the engine's own reading, on 5,000-character strings built to fail late. An
accepted pattern should finish each in well under a second. For contrast it times a pattern
the engine refuses as exponential on short strings, growing until one run passes a second.

    python bench/bench_regex.py
"""

from __future__ import annotations

import re
import time

from toolfuzz_gate.core.schema.regex import PatternError, compile_pattern

HOST = r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$"
ACCEPTED = [
    HOST,
    r"^([a-z]+\.)+[a-z]+$",
    r"^(?:[a-z0-9]+(?:-[a-z0-9]+)*\.)+[a-z]{2,}$",
    r"^[a-z]+(-[a-z]+)*$",
    r"^(\d{1,3}\.){3}\d{1,3}$",
]
ADVERSARIAL = [
    "a" * 5000 + "!",
    "a." * 2500 + "!",
    "a-" * 2500 + "!",
    ("a" * 61 + ".") * 80 + "-",
    ("a" * 62 + ".") * 78 + "!",
    "a" + "-" * 4998 + "!",
]
REFUSED = r"^(-a{0,3}a{0,3})+$"
"""Accepted by the rule before `core.schema.regex.ambiguity`: 4**n steps on "-aaa" * n + "!"."""


def _slowest(search: re.Pattern[str]) -> float:
    worst = 0.0
    for text in ADVERSARIAL:
        start = time.perf_counter()
        search.search(text)
        worst = max(worst, time.perf_counter() - start)
    return worst


def main() -> None:
    for source in ACCEPTED:
        pattern = compile_pattern(source)
        python, engine = _slowest(pattern.python), _slowest(pattern.ecma)
        print(f"{python * 1000:8.2f} ms re  {engine * 1000:8.2f} ms engine  {source}")
    try:
        compile_pattern(REFUSED)
    except PatternError as error:
        print(f"refused: {REFUSED} ({error.reason})")
    python = re.compile(REFUSED)
    for count in range(4, 40):
        start = time.perf_counter()
        python.search("-aaa" * count + "!")
        took = time.perf_counter() - start
        print(f"{took * 1000:10.2f} ms re on '-aaa' * {count} + '!'")
        if took > 1:
            break


if __name__ == "__main__":
    main()
