"""Clients that hang up at any moment of the websocket upgrade or the hello, on real gunicorn (2 workers)
and a private Redis: none of them costs a traceback or a 500, and the server keeps answering.

Issue 29, finding 8: when a client hung up right after the upgrade, the socket's reader thread could close
it before the session made it non-blocking (`OSError: [Errno 9] Bad file descriptor`, 18 tracebacks in
one run of pending-socket churn).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from concurrent.futures import ThreadPoolExecutor

import requests

from tests.security.conftest import as_from

API = "/api/v1"


def frame(text: str) -> bytes:
    """A masked client text frame."""
    data, mask = text.encode(), os.urandom(4)
    head = bytes([0x81]) + (bytes([0x80 | len(data)]) if len(data) < 126
                            else bytes([0x80 | 126]) + struct.pack("!H", len(data)))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def hang_up(url: str, game_id: str, token: str | None, moment: int, n: int) -> None:
    """Open a websocket and hang up at `moment`: 0 mid-request, 1 after the request, 2 after the 101,
    3 after half a hello, 4 right after the hello, 5 after the first frame of the answer."""
    host, port = url.split("//", 1)[1].split(":")
    conn = socket.create_connection((host, int(port)), timeout=10)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {API}/games/{game_id}/ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n"
                   f"X-Forwarded-For: 203.0.113.{n % 200 + 1}\r\n\r\n").encode()
        if moment == 0:
            conn.sendall(request[: len(request) // 2])
            return
        conn.sendall(request)
        if moment == 1:
            return
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                return
            head += chunk
        if moment == 2:
            return
        hello = frame(json.dumps({"type": "hello", "token": token, "since": 0}))
        if moment == 3:
            conn.sendall(hello[: len(hello) // 2])
            return
        conn.sendall(hello)
        if moment == 5:
            conn.recv(1)
    except OSError:
        pass  # the server may have dropped it first: that is its right
    finally:
        # An abortive close (RST) as a phone losing its network would, at the worst moment.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()


def test_hanging_up_at_any_moment_costs_no_traceback_and_no_500(serve) -> None:
    server = serve(HELLO_LIMIT=0, WS_MAX_PER_CLIENT=0, WS_MAX_PER_GAME=0, WS_MAX_WATCHERS_PER_GAME=0,
                   WS_MAX_PENDING_PER_CLIENT=0, WS_MAX_WATCHERS_PER_CLIENT=0, WS_MAX_SEATED_PER_CLIENT=0,
                   )
    grant = requests.post(f"{server.url}{API}/games", json={"mode": "solo"},
                          headers=as_from("198.51.100.240"), timeout=10).json()
    game_id, token = grant["game_id"], grant["token"]
    jobs = [(moment, n) for n in range(100) for moment in range(6)]
    with ThreadPoolExecutor(12) as pool:
        list(pool.map(lambda job: hang_up(server.url, game_id, token if job[1] % 2 else None, *job), jobs))
    # The server still answers, a socket included.
    assert requests.get(f"{server.url}{API}/games/{grant['game_id']}", timeout=10).status_code == 200
    server.stop()
    log = server.log.decode(errors="replace")
    assert "Traceback" not in log, log[-4000:]
    assert "Bad file descriptor" not in log, log[-4000:]
    assert '"status": 500' not in log and '"status":500' not in log
