"""An `http.client` connection whose every wait ends at one per-call deadline (edge).

`http.client` times each socket operation separately, so a server trickling one byte
per second would never time out. Here connecting uses the time left, and the socket
given to requests and responses re-arms its timeout to the time left before every send
and every read: a call ends at its deadline, however the server paces its bytes.
"""

from __future__ import annotations

import http.client
import io
import select
import socket
import ssl
import time
from typing import Any


class DeadlineConnection(http.client.HTTPConnection):
    """Set `deadline` (a `time.monotonic()` value) before each request."""

    deadline = 0.0

    def connect(self) -> None:
        self.timeout = remaining(self.deadline)
        super().connect()
        # http.client only calls sendall, makefile and close on it.
        self.sock = _DeadlineSocket(self.sock, self)

    def dropped(self) -> bool:
        """Has the server closed this idle connection (or sent bytes nobody asked for)?"""
        sock = self.sock
        if not isinstance(sock, _DeadlineSocket):
            return False
        poller = select.poll()
        poller.register(sock.raw, select.POLLIN)
        return bool(poller.poll(0))


class DeadlineTlsConnection(DeadlineConnection, http.client.HTTPSConnection):
    pass


def new_connection(
    host: str, port: int, deadline: float, context: ssl.SSLContext | None = None
) -> DeadlineConnection:
    """A connection that is not yet open: over TLS when `context` is given."""
    connection: DeadlineConnection
    if context is not None:
        connection = DeadlineTlsConnection(host, port, context=context)
    else:
        connection = DeadlineConnection(host, port)
    connection.deadline = deadline
    return connection


def remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the call's deadline passed")
    return left


class _DeadlineSocket:
    def __init__(self, raw: socket.socket, owner: DeadlineConnection) -> None:
        self.raw = raw
        self.owner = owner

    def arm(self) -> None:
        self.raw.settimeout(remaining(self.owner.deadline))

    def sendall(self, data: bytes) -> None:
        self.arm()
        self.raw.sendall(data)

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self.raw.makefile("rb", buffering=0), self))

    def close(self) -> None:
        self.raw.close()  # deferred by the socket itself while a response still reads from it


class _DeadlineReader(io.RawIOBase):
    def __init__(self, stream: socket.SocketIO, sock: _DeadlineSocket) -> None:
        self.stream = stream
        self.sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self.sock.arm()
        return self.stream.readinto(buffer)

    def close(self) -> None:
        self.stream.close()
        super().close()
