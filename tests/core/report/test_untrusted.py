"""The escaping rules for untrusted report text, one behaviour at a time."""

from __future__ import annotations

import json
import shlex

from hypothesis import given

from tests.core.report.hostile import SETTINGS, hostile_json, hostile_text
from toolfuzz_gate.core.report import untrusted as u


def test_a_fence_is_longer_than_the_longest_backtick_run_inside() -> None:
    assert u.fence("a ```` b", "json") == "`````json\na ```` b\n`````"
    assert u.fence("plain", "sh") == "```sh\nplain\n```"


def test_markdown_text_escapes_html_and_markdown_specials() -> None:
    assert u.markdown_text("<!-- x --> a|b *c* [d](e) `f` \\") == (
        "&lt;!-- x --&gt; a\\|b \\*c\\* \\[d\\](e) \\`f\\` \\\\"
    )


def test_mentions_and_issue_references_get_fullwidth_signs() -> None:
    text = u.markdown_text("@octocat fixed org/repo#12 and #7")
    assert text == "\uff20octocat fixed org/repo\uff0312 and \uff037"


FORMAT_CHARACTERS = (
    "\u200b\u200c\u200d\u200e\u200f\u061c\ufeff\u2060\u2061\u2064\u00ad\u180e"
    "\U000e0000\U000e0001\U000e0041\U000e007f"
)


def test_format_characters_are_dropped_and_urls_and_mentions_are_inert() -> None:
    """Issue 12: invisible characters a language-model reviewer reads, and links posted
    under the repository's bot."""
    hidden = "ignore" + FORMAT_CHARACTERS + " previous"
    assert u.clean(hidden) == "ignore previous"
    assert u.markdown_text(hidden) == "ignore previous"
    assert u.fence(hidden, "text") == "```text\nignore previous\n```"
    assert "\\u200b" in u.json_block_text({"k": "a\u200bb"})  # visible, same value
    text = u.markdown_text("see https://evil.example/x, HTTP://a.b and www.evil.example @me")
    assert text == (
        "see https\\[:\\]//evil.example/x, HTTP\\[:\\]//a.b and www\\[.\\]evil.example \uff20me"
    )
    assert not set(text) & set(FORMAT_CHARACTERS)


def test_controls_and_bidi_overrides_are_removed_and_newlines_become_spaces() -> None:
    assert u.clean("a\u202eb\u2066c\x00d\x9be\nf\rg\th") == "abcde f g\th"
    assert u.clean("a\nb\r\nc", keep_newlines=True) == "a\nb\r\nc"
    assert u.clean("lone \ud800 surrogate") == "lone  surrogate"


def test_a_field_is_capped_with_an_ellipsis() -> None:
    assert u.field("x" * 500) == "x" * 199 + "\u2026"
    assert len(u.markdown_text("&" * 500)) == 199 * 5 + 1


def test_the_comment_key_keeps_a_safe_alphabet() -> None:
    assert u.comment_key("pr-7 --> <b>") == "pr-7------b-"
    assert u.comment_key("") == "default"
    assert len(u.comment_key("k" * 100)) == 64


def test_workflow_values_escape_the_runner_specials() -> None:
    assert u.workflow_data("50%\r\nnext::x") == "50%25%0D%0Anext::x"
    assert u.workflow_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_utf16_units_count_astral_characters_twice() -> None:
    assert u.utf16_units("a\U0001f600") == 3


def _unescape(value: str) -> str:
    for escaped, raw in (("%3A", ":"), ("%2C", ","), ("%0A", "\n"), ("%0D", "\r"), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


@SETTINGS
@given(hostile_text)
def test_workflow_escapes_round_trip_and_stay_on_one_line(text: str) -> None:
    for escaped in (u.workflow_data(text), u.workflow_property(text)):
        assert "\n" not in escaped and "\r" not in escaped
        assert _unescape(escaped) == u.clean(text, keep_newlines=True)
    assert ":" not in u.workflow_property(text) and "," not in u.workflow_property(text)


@SETTINGS
@given(hostile_json)
def test_json_block_text_parses_back_to_the_value_without_risky_characters(value: object) -> None:
    text = u.json_block_text(value)  # type: ignore[arg-type]
    assert json.loads(text) == value
    assert not set(text) & {"<", ">", "&", "\u202e", "\r", "\x00"}


@SETTINGS
@given(hostile_text)
def test_a_shell_word_is_one_word_on_one_line(text: str) -> None:
    word = u.shell_word(text)
    assert "\n" not in word and "\r" not in word
    assert shlex.split(word) == [u.cap(u.clean(text))]
