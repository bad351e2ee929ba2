"""One run's conversation with the model: budget, cassette and mode in one place (pure).

`ask` builds the request in the policy's `llm.api`, charges it to the budget, and gets
its answer from the cassette (`replay`) or from the injected transport (`record`,
`live`; `record` keeps the exchange). The transport is the only way out, and in
`replay` there is none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolfuzz_gate.core.agent.apis import BODY_FORMATS
from toolfuzz_gate.core.agent.budget import Budget
from toolfuzz_gate.core.agent.cassette import Cassette
from toolfuzz_gate.core.agent.chat import Reply, prompt_of
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

Transport = Callable[[JSONObject], JSON]
"""A request body -> the endpoint's answer (`edges.llm.chat_client.ChatClient`)."""


class ModelSession:
    """The model as the agent loop and the prompt writer see it."""

    def __init__(
        self, settings: LlmSettings, cassette: Cassette, transport: Transport | None
    ) -> None:
        if settings.mode != "replay" and transport is None:
            raise ValueError(f"mode {settings.mode} needs a transport")
        self.settings = settings
        self.cassette = cassette
        self.budget = Budget(settings.max_requests, settings.max_tokens)
        self.unmetered = 0
        """Replies without a token count: each is charged an estimate instead of nothing."""
        self._transport = transport
        self.retries = 0
        """Attempts made again (or, replayed, that the recording made again)."""
        self._asking = ""
        self._attempts = 1

    def retried(self) -> None:
        """Count one more attempt of the request being made (the transport tries again
        after a 429, a 5xx or a network error): charged to the budget as a request is, so a
        run never makes more than `max_requests` attempts, and kept with the exchange so a
        replay charges the same. `LlmError` (`llm.budget-exceeded`) when none is left."""
        self.budget.admit(self._asking)
        self._attempts += 1
        self.retries += 1

    def ask(self, messages: Sequence[JSONObject], tools: Sequence[JSONObject] = ()) -> Reply:
        """The model's reply to `messages`, offered `tools`."""
        body_format = BODY_FORMATS[self.settings.api]
        request = body_format.build(self.settings, messages, tools)
        self._asking, self._attempts = prompt_of(request), 1
        self.budget.admit(self._asking)
        if self.settings.mode == "replay" or self._transport is None:
            answer = self.cassette.answer(request)
            for _ in range(self.cassette.attempts(request) - 1):
                self.budget.admit(self._asking)  # the recording's retries, charged the same
                self.retries += 1
        else:
            answer = self._transport(request)
            if self.settings.mode == "record":
                self.cassette.record(request, answer, self._attempts)
        reply = body_format.parse(answer)
        if reply.metered:
            self.budget.charge(reply.tokens)
        else:
            self.unmetered += 1
            self.budget.charge(estimated_tokens(request, reply))
        return reply


def estimated_tokens(request: JSONObject, reply: Reply) -> int:
    """A reply's cost when the endpoint did not say: about four characters a token, over
    the request's text and the reply's, so an unmetered endpoint still meets the budget."""
    text = canonical_compact(request.get("messages")) + reply.content
    text += "".join(call.arguments for call in reply.tool_calls)
    return max(1, len(text) // 4)
