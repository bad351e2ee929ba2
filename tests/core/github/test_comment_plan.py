"""The comment planner: whose comment it is, which one is kept, what is deleted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolfuzz_gate.core.github.comment_plan import Comment, Plan, duplicates, is_ours, plan_comment

MARKER = "<!-- toolfuzz-gate:default -->"
BOT = "github-actions[bot]"


def comment(id: int, body: str, author: str = BOT, created_at: str = "") -> Comment:
    stamp = created_at or f"2026-01-01T00:00:{id % 60:02d}Z"
    return Comment(id, author, body, stamp, f"https://github.invalid/c/{id}")


def test_ours_needs_the_marker_as_the_exact_first_line_and_our_login() -> None:
    assert is_ours(comment(1, f"{MARKER}\nbody"), MARKER, BOT)
    assert is_ours(comment(1, f"{MARKER}\r\nbody"), MARKER, BOT)
    assert is_ours(comment(1, MARKER), MARKER, BOT)
    assert is_ours(comment(1, f"{MARKER}\nbody", author="GitHub-Actions[bot]"), MARKER, BOT)
    assert not is_ours(comment(1, f"{MARKER}\nbody", author="mallory"), MARKER, BOT)
    assert not is_ours(comment(1, f"quoting:\n{MARKER}\nbody"), MARKER, BOT)
    assert not is_ours(comment(1, f" {MARKER}\nbody"), MARKER, BOT)
    assert not is_ours(comment(1, f"{MARKER} extra\nbody"), MARKER, BOT)
    assert not is_ours(comment(1, "plain"), MARKER, BOT)
    assert not is_ours(comment(1, f"{MARKER}\n", author=""), MARKER, "")


def test_comment_keys_are_separate() -> None:
    other = "<!-- toolfuzz-gate:b -->"
    mine = "<!-- toolfuzz-gate:a -->"
    assert not is_ours(comment(1, f"{other}\nx"), mine, BOT)
    # A key that is a prefix of another key does not match it either.
    assert not is_ours(comment(1, "<!-- toolfuzz-gate:ab -->\nx"), mine, BOT)
    listed = [comment(1, f"{other}\nold")]
    assert plan_comment(listed, mine, BOT, f"{mine}\nnew", "update") == Plan("create", None, ())


def test_update_targets_the_oldest_of_ours_and_deletes_the_rest() -> None:
    listed = [
        comment(5, f"{MARKER}\nnewer", created_at="2026-01-02T00:00:00Z"),
        comment(9, f"{MARKER}\nsame time, larger id", created_at="2026-01-01T00:00:00Z"),
        comment(3, f"{MARKER}\nmallory's", author="mallory", created_at="2025-01-01T00:00:00Z"),
        comment(7, f"{MARKER}\noldest", created_at="2026-01-01T00:00:00Z"),
    ]
    plan = plan_comment(listed, MARKER, BOT, f"{MARKER}\nfresh", "update")
    assert plan == Plan("update", listed[3], (9, 5))


def test_an_equal_body_is_a_noop_even_across_crlf() -> None:
    listed = [comment(1, f"{MARKER}\r\nline one\r\nline two")]
    plan = plan_comment(listed, MARKER, BOT, f"{MARKER}\nline one\nline two", "update")
    assert plan == Plan("noop", listed[0], ())
    changed = plan_comment(listed, MARKER, BOT, f"{MARKER}\nline one\nline 2", "update")
    assert changed.action == "update"


def test_recreate_deletes_every_one_of_ours_and_only_ours() -> None:
    listed = [
        comment(1, f"{MARKER}\na"),
        comment(2, f"{MARKER}\nb", author="mallory"),
        comment(3, f"{MARKER}\nc"),
    ]
    assert plan_comment(listed, MARKER, BOT, f"{MARKER}\nd", "recreate") == Plan(
        "recreate", None, (1, 3)
    )
    assert plan_comment(listed[1:2], MARKER, BOT, f"{MARKER}\nd", "recreate") == Plan(
        "create", None, ()
    )


def test_duplicates_keeps_the_oldest() -> None:
    listed = [comment(4, f"{MARKER}\nx"), comment(2, f"{MARKER}\ny"), comment(3, "other")]
    assert duplicates(listed, MARKER, BOT) == (listed[1], (4,))
    assert duplicates([comment(3, "other")], MARKER, BOT) == (None, ())


_AUTHORS = st.sampled_from([BOT, "GITHUB-ACTIONS[bot]", "mallory", "octocat"])
_FIRST_LINES = st.sampled_from([MARKER, "<!-- toolfuzz-gate:other -->", "hello", ""])
_COMMENTS = st.lists(
    st.builds(
        lambda i, a, first, rest, t: comment(i, f"{first}\n{rest}", a, f"2026-01-0{t}T00:00:00Z"),
        st.integers(1, 10_000),
        _AUTHORS,
        _FIRST_LINES,
        st.text(max_size=5),
        st.integers(1, 9),
    ),
    max_size=8,
    unique_by=lambda c: c.id,
)


@given(_COMMENTS, st.sampled_from(["update", "recreate"]), st.text(max_size=5))
def test_a_plan_never_touches_a_comment_that_is_not_ours(
    listed: list[Comment], mode: str, rest: str
) -> None:
    assert mode in ("update", "recreate")
    plan = plan_comment(listed, MARKER, BOT, f"{MARKER}\n{rest}", mode)  # type: ignore[arg-type]
    ours = {c.id for c in listed if is_ours(c, MARKER, BOT)}
    touched = set(plan.delete) | ({plan.target.id} if plan.target else set())
    assert touched <= ours
    assert len(plan.delete) == len(set(plan.delete))
    if mode == "update":
        # Exactly one of ours survives an update plan (or none existed and one is created).
        assert len(touched) == len(ours)
        assert (plan.target is None) == (not ours) == (plan.action == "create")
    else:
        assert set(plan.delete) == ours and plan.target is None


@given(_COMMENTS)
def test_duplicates_and_update_agree_on_the_survivor(listed: list[Comment]) -> None:
    winner, losers = duplicates(listed, MARKER, BOT)
    plan = plan_comment(listed, MARKER, BOT, f"{MARKER}\nbody", "update")
    assert plan.target == winner
    assert plan.delete == losers
    assert winner is None or winner.id not in losers
