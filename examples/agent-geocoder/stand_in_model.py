"""A scripted stand-in for a language model, on 127.0.0.1: it speaks the chat-completions
protocol and follows fixed rules. It is NOT a model; the committed cassette was recorded
against it, so that the example replays without a network and shows what agent mode
reports. Record your own cassette against a real model (README.md) to learn what one does.

    python stand_in_model.py [--port 8765]

Its rules, by the system message of each request:
- writing a user request for given arguments: a place named by them in words;
- writing requests from the documentation alone: three fixed ones;
- writing prompt sets: "Where is [A]?" with three ways of saying Paris, then a two-slot
  set about Springfield whose rows all name the country;
- emulating the tool for the expected answer: each request's city in the country it
  knows the city for (Paris: France), and the expected answer the most frequent of those;
- as the agent: the city and the country the request names; with no country named, it
  leaves the country out, unless the country's description says to always give it,
  when it fills in the country it knows the city for; after a tool result, it answers
  with that result;
- as the oracle: an answer whose tool output has the expected answer's country scores
  10, any other 2, with a reason naming both;
- as the documentation writer: a fixed description of the country argument.
"""

from __future__ import annotations

import argparse
import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CITIES = ("Paris", "Springfield", "Berlin", "Atlantis")
COUNTRIES = ("France", "United States", "Germany", "Freedonia")
KNOWN = {"Paris": "France", "Springfield": "United States", "Berlin": "Germany"}
CODES = {"France": "FR", "United States": "US", "Germany": "DE"}
SETS = [
    {"template": "Where is [A]?", "infills": ["Paris", "Paris, France", "the city of Paris"]},
    {
        "template": "What are the coordinates of [A] in [B]?",
        "infills": [
            {"A": "Springfield", "B": "the United States"},
            {"A": "the city of Springfield", "B": "United States"},
        ],
    },
]
FIX = {
    "description": "Find the coordinates of a city. Many city names exist in several "
    "countries: give the country too.",
    "arguments": {
        "country": "The country the city is in, in English (France, United States). Always "
        "give it: without it the first city of that name anywhere is returned."
    },
}


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted reply to one request: text, or one tool call."""
    messages = body["messages"]
    system, last = str(messages[0]["content"]), messages[-1]
    asked = str(last.get("content") or "")
    if system.startswith("You write realistic requests"):
        if "different natural requests" in asked:
            return _text(
                "Where is Paris, France?\nGive me the coordinates of Berlin, Germany.\n"
                "Where is Springfield, United States?"
            )
        arguments = json.loads(asked[asked.rindex("arguments: ") + len("arguments: ") :])
        if arguments.get("country"):
            return _text("Find the coordinates of Springfield in Freedonia.")
        return _text("Where is the city of Atlantis?")
    if system.startswith("You write test requests"):
        number = int(re.search(r"prompt set (\d+)", asked).group(1))  # type: ignore[union-attr]
        return _text(json.dumps(SETS[(number - 1) % len(SETS)]))
    if system.startswith("You emulate tools"):
        requests = re.findall(r"^\d+\. (.*)$", asked, re.M)
        emulated = [_emulated(request) for request in requests]
        expected = max(emulated, key=emulated.count)
        return _text(json.dumps({"emulated": emulated, "expected": expected}))
    if system.startswith("You judge answers"):
        expected = asked[asked.index("2. The expected answer: ") :]
        country = next((name for name in CODES if name in expected), "")
        returned = asked[asked.index("1. What the tool returned") : asked.index("2. The expected")]
        code = CODES.get(country, "?")
        if f'"country":"{code}"' in returned.replace(" ", ""):
            verdict = {"score": 10, "reason": f"the city found is in {country}, as expected"}
        else:
            verdict = {"score": 2, "reason": f"the city found is not the one in {country}"}
        return _text(json.dumps(verdict))
    if system.startswith("You improve the documentation"):
        return _text(json.dumps(FIX))
    if last["role"] == "tool":
        return _text(f"Here is what the geocoder found: {asked}")
    return _call(_arguments(asked, body["tools"][0]["function"]))


def _emulated(request: str) -> str:
    city = next((name for name in CITIES if name in request), request)
    return f"{city} is in {KNOWN.get(city, 'an unknown country')}."


def _arguments(prompt: str, function: dict[str, Any]) -> dict[str, Any]:
    city = next((name for name in CITIES if name in prompt), prompt)
    country = next((name for name in COUNTRIES if name in prompt), None)
    told = function["parameters"]["properties"]["country"].get("description", "")
    if country is None and "Always give it" in told:
        country = KNOWN.get(city)
    return {"city": city} if country is None else {"city": city, "country": country}


def _text(content: str) -> dict[str, Any]:
    return _completion({"role": "assistant", "content": content})


def _call(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "id": "call_0",
        "type": "function",
        "function": {"name": "geocode", "arguments": json.dumps(arguments)},
    }
    return _completion({"role": "assistant", "content": None, "tool_calls": [call]})


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stand-in",
        "object": "chat.completion",
        "model": "stand-in",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10},
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        data = json.dumps(answer(body)).encode("utf-8")
        self.send_response(200 if self.path == "/v1/chat/completions" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(port: int) -> ThreadingHTTPServer:
    """The stand-in, bound to 127.0.0.1 (port 0: any free port), not yet serving."""
    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    server = serve(parser.parse_args().port)
    print(f"stand-in model on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()
