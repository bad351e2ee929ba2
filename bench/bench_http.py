"""Benchmark: calls per second of the `http:` adapter on a trivial loopback server (report only).

The server (a child process, so it does not share the GIL with the client) echoes the
posted JSON back with 200. Two servers: `asyncio` (a minimal keep-alive responder, so
the figure is mostly the adapter's own cost) and `stdlib` (`http.server`, like the test
fixture). Besides the adapter, the same calls through a `requests.Session` and through a
bare `http.client` connection without the per-call deadline, for comparison. Prints the
median of a few rounds per pair. Targets are met here, never asserted in unit tests.

    python bench/bench_http.py --calls 5000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers.http import HttpHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

ARGUMENTS: JSONObject = {"title": "Harvest fair", "format": "png", "width": 100, "height": 100}


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
            )
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def _serve_asyncio() -> None:
    server = await asyncio.start_server(_echo, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        self.wfile.write(head % len(body) + body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(kind: str) -> None:
    if kind == "asyncio":
        asyncio.run(_serve_asyncio())
    else:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
        print(server.server_address[1], flush=True)
        server.serve_forever()


def _adapter(url: str) -> Callable[[], object]:
    handler = HttpHandler(HandlerConfig("http", url))
    return lambda: handler.call(ARGUMENTS)


def _requests(url: str) -> Callable[[], object]:
    import requests

    session = requests.Session()

    def call() -> object:
        response = session.post(url, json=ARGUMENTS, timeout=2.0, allow_redirects=False)
        return response.json()

    return call


def _bare(url: str) -> Callable[[], object]:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2.0)
    headers = {"Content-Type": "application/json"}

    def call() -> object:
        connection.request("POST", "/", json.dumps(ARGUMENTS).encode(), headers)
        return json.loads(connection.getresponse().read())

    return call


CLIENTS = {"adapter": _adapter, "requests": _requests, "bare-http.client": _bare}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--servers", nargs="+", default=["asyncio", "stdlib"])
    parser.add_argument("--clients", nargs="+", default=list(CLIENTS))
    parser.add_argument("--serve", choices=["asyncio", "stdlib"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve)
        return
    for kind in args.servers:
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind], stdout=subprocess.PIPE
        )
        try:
            assert server.stdout is not None
            url = f"http://127.0.0.1:{int(server.stdout.readline())}/"
            calls = {name: CLIENTS[name](url) for name in args.clients}
            rates: dict[str, list[float]] = {name: [] for name in calls}
            for call in calls.values():
                for _ in range(200):
                    call()  # warm up: connection, imports, caches
            for _ in range(args.rounds):  # interleaved, so load from elsewhere hits all alike
                for name, call in calls.items():
                    started = time.perf_counter()
                    for _ in range(args.calls):
                        call()
                    rates[name].append(args.calls / (time.perf_counter() - started))
            for name, measured in rates.items():
                low, median, high = min(measured), statistics.median(measured), max(measured)
                print(
                    f"server={kind:8} client={name:17} {median:7,.0f} calls/s"
                    f"  (rounds {low:,.0f}..{high:,.0f})"
                )
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
