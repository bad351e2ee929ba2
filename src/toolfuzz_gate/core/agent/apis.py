"""How each wire protocol's bodies are written and read: one entry per `llm.api` (pure).

`core.gate.llm_settings.APIS` says where an API's requests go and which header carries
the key; this table says what they hold. Every request writer and the agent loop speak
the chat-completions conversation (`core.agent.chat`); an entry translates it to its
API's request body and reads its API's answer back into a `Reply`. The cassette keeps
the body as sent and the answer as received, so a recording is the wire exchange itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.agent.chat import Reply, build_request, parse_reply
from toolfuzz_gate.core.agent.messages_api import build_messages_request, parse_messages_reply
from toolfuzz_gate.core.gate.llm_settings import ANTHROPIC_MESSAGES, CHAT_COMPLETIONS, LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

BuildRequest = Callable[[LlmSettings, Sequence[JSONObject], Sequence[JSONObject]], JSONObject]
"""(settings, chat-completions messages, tools offered) -> the API's request body."""


@dataclass(frozen=True)
class BodyFormat:
    build: BuildRequest
    parse: Callable[[JSON], Reply]


BODY_FORMATS: dict[str, BodyFormat] = {
    CHAT_COMPLETIONS: BodyFormat(build_request, parse_reply),
    ANTHROPIC_MESSAGES: BodyFormat(build_messages_request, parse_messages_reply),
}
