"""`core.diff_markdown`: the plain rendering says what the diff says, and untrusted text
(tool names, paths, keywords, reasons) cannot inject Markdown, HTML, mentions or lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_diff import receipt
from toolfuzz_gate.core.diff import Revision, diff_receipts
from toolfuzz_gate.core.diff_markdown import (
    MAX_ITEMS,
    MAX_TEXT,
    escape_markdown,
    render_diff_markdown,
)

HOSTILE = "x](https://evil.example) <img src=x onerror=alert(1)> @octocat `code` *b* |\n# h"


def test_an_empty_diff_says_so() -> None:
    side = {"a": receipt("a")}
    text = render_diff_markdown(diff_receipts(side, side))
    assert text.startswith("## toolfuzz-gate diff\n")
    assert "| 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |" in text
    assert "No new or fixed counterexamples and no unsupported keyword changes." in text


def test_one_line_per_new_and_fixed_counterexample_and_unsupported_change() -> None:
    base = receipt("poster", fingerprints=("old",), unsupported=(("if", "/a"),))
    head = receipt("poster", fingerprints=("new",), unsupported=(("not", ""),))
    text = render_diff_markdown(
        diff_receipts({"poster": base}, {"poster": head}, base_ref=Revision("main", "ab" * 20))
    )
    lines = text.splitlines()
    assert "base main (abababababab) → head" in lines
    assert "| 1 | 1 | 0 | 1 | 1 | 0 | 0 | 0 |" in lines
    items = [line for line in lines if line.startswith("- ")]
    assert items == [
        "- **new** poster: hostile-accepted at /width (bounds): "
        "accepted a call breaking maximum at /width",
        "- **fixed** poster: hostile-accepted at /width (bounds): "
        "accepted a call breaking maximum at /width",
        "- **unsupported keyword added** poster: not at (root)",
        "- **unsupported keyword removed** poster: if at /a",
    ]


def test_untrusted_text_is_inert() -> None:
    head = receipt(HOSTILE, fingerprints=("f",), unsupported=((HOSTILE, HOSTILE),))
    head["counterexamples"][0]["error"]["reason"] = HOSTILE  # type: ignore[index]
    text = render_diff_markdown(diff_receipts({}, {HOSTILE: head}))
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(items) == 2, "a newline in a name must not start a line of its own"
    for forbidden in ("](", "<img", "@octocat", "`code`", "*b*", "\n# h"):
        assert forbidden not in text
    assert (
        "\\]\\(https://evil.example\\) &lt;img src=x onerror=alert\\(1\\)&gt; &#64;octocat" in text
    )


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_escaped_text_is_one_bounded_line_without_live_markup(text: str) -> None:
    escaped = escape_markdown(text)
    assert "\n" not in escaped and "\r" not in escaped
    assert "<" not in escaped and ">" not in escaped and "@" not in escaped
    # Past the mention entity, every Markdown punctuation character is backslashed.
    plain = escaped.replace("&#64;", "")
    for index, character in enumerate(plain):
        if character in "`*_[]()#|~!{}":
            assert plain[index - 1] == "\\"
    assert len(escaped) <= 10 * MAX_TEXT + 1


def test_the_item_list_is_bounded() -> None:
    head = receipt("a", fingerprints=tuple(f"f{i:03}" for i in range(MAX_ITEMS + 5)))
    text = render_diff_markdown(diff_receipts({}, {"a": head}))
    assert len([line for line in text.splitlines() if line.startswith("- **new**")]) == MAX_ITEMS
    assert "- … and 5 more" in text
