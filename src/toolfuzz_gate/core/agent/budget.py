"""The run's budget of chat requests and tokens (pure).

Every request, replayed or live, is charged, so a run behaves the same whether its
answers come from the endpoint or from the cassette. No request is sent once either
limit is reached; a reply that takes the tokens past the limit is the last one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolfuzz_gate.errors import LlmError


@dataclass
class Budget:
    """What a run may still spend, and what it has spent."""

    max_requests: int
    max_tokens: int
    requests: int = 0
    tokens: int = 0

    def admit(self, prompt: str) -> None:
        """Count one request about to be made, or `LlmError` when the budget is spent."""
        if self.requests >= self.max_requests:
            spent = f"all {self.max_requests} requests of llm.max_requests"
        elif self.tokens >= self.max_tokens:
            spent = f"{self.tokens} tokens of llm.max_tokens {self.max_tokens}"
        else:
            self.requests += 1
            return
        raise LlmError(
            f"the run's budget is spent ({spent}) before the request for {prompt!r}",
            code="llm.budget-exceeded",
            hint="raise llm.max_requests or llm.max_tokens in the policy, or fuzz fewer tools",
        )

    def charge(self, tokens: int) -> None:
        """Add a reply's tokens to what the run has spent."""
        self.tokens += max(tokens, 0)

    def spent(self) -> dict[str, int]:
        """The budget and its use, for the receipt."""
        return {
            "maxRequests": self.max_requests,
            "maxTokens": self.max_tokens,
            "requests": self.requests,
            "tokens": self.tokens,
        }

    def spent_since(self, before: Mapping[str, int]) -> dict[str, int]:
        """The budget and what was spent since `spent()` returned `before`, for one
        tool's agent receipt."""
        now = self.spent()
        return {
            **now,
            "requests": now["requests"] - before["requests"],
            "tokens": now["tokens"] - before["tokens"],
        }
