"""The run's budget: never a request beyond `max_requests`, none once tokens are spent."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.agent.budget import Budget
from toolfuzz_gate.errors import LlmError


def test_requests_stop_at_the_limit() -> None:
    budget = Budget(max_requests=2, max_tokens=1000)
    budget.admit("one")
    budget.admit("two")
    with pytest.raises(LlmError) as raised:
        budget.admit("three")
    assert raised.value.code == "llm.budget-exceeded"
    assert "all 2 requests" in raised.value.message and "'three'" in raised.value.message
    assert budget.spent() == {"maxRequests": 2, "maxTokens": 1000, "requests": 2, "tokens": 0}


def test_no_request_is_admitted_once_the_tokens_are_spent() -> None:
    budget = Budget(max_requests=10, max_tokens=100)
    budget.admit("a")
    budget.charge(60)
    budget.admit("b")
    budget.charge(40)
    with pytest.raises(LlmError) as raised:
        budget.admit("c")
    assert "100 tokens of llm.max_tokens 100" in raised.value.message
    assert budget.requests == 2


def test_what_one_tool_spent_is_counted_from_where_the_run_stood_before_it() -> None:
    budget = Budget(max_requests=10, max_tokens=100)
    budget.admit("first tool")
    budget.charge(30)
    before = budget.spent()
    budget.admit("second tool")
    budget.admit("second tool again")
    budget.charge(25)
    assert budget.spent_since(before) == {
        "maxRequests": 10,
        "maxTokens": 100,
        "requests": 2,
        "tokens": 25,
    }
