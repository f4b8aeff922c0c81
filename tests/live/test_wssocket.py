"""api.live.wssocket.SerialSocket on a real socket pair: sends are whole and in order, a send that cannot be
handed over at once keeps its rest for later (send_nowait), and a client that stops reading makes a
blocking send fail after the timeout instead of hanging."""

from __future__ import annotations

import socket
import threading

import pytest

from api.live.wssocket import SerialSocket


def _drain(peer: socket.socket, size: int) -> bytes:
    peer.settimeout(10)
    out = bytearray()
    while len(out) < size:
        chunk = peer.recv(65536)
        assert chunk, "closed early"
        out += chunk
    return bytes(out)


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def test_sends_arrive_whole_and_in_order(pair) -> None:
    raw, peer = pair
    sock = SerialSocket(raw, timeout=5.0)
    frames = [bytes([i]) * (1000 + 37 * i) for i in range(50)]
    reader = threading.Thread(target=lambda: got.append(_drain(peer, sum(map(len, frames)))))
    got: list[bytes] = []
    reader.start()
    for frame in frames:
        assert sock.send(frame) == len(frame)
    reader.join(10)
    assert got == [b"".join(frames)]


def test_a_rest_that_did_not_fit_goes_out_before_anything_else(pair) -> None:
    raw, peer = pair
    sock = SerialSocket(raw, timeout=5.0)
    big = b"a" * (8 * 1024 * 1024)  # more than any socket buffer: the kernel takes a part
    assert sock.send_nowait(big) is True
    assert sock.pending
    assert sock.send_nowait(b"later") is False  # refused, not reordered: it goes with send()
    reader = threading.Thread(target=lambda: got.append(_drain(peer, len(big) + 5)))
    got: list[bytes] = []
    reader.start()
    sock.send(b"later")
    reader.join(10)
    assert not sock.pending
    assert got == [big + b"later"]


def test_flush_sends_the_rest(pair) -> None:
    raw, peer = pair
    sock = SerialSocket(raw, timeout=5.0)
    big = b"b" * (8 * 1024 * 1024)
    sock.send_nowait(big)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(_drain(peer, len(big))))
    reader.start()
    sock.flush()
    reader.join(10)
    assert got == [big] and not sock.pending


def test_a_client_that_does_not_read_times_out_a_blocking_send(pair) -> None:
    raw, _peer = pair
    sock = SerialSocket(raw, timeout=0.3)
    with pytest.raises(TimeoutError):
        sock.send(b"c" * (8 * 1024 * 1024))


def test_a_send_to_a_closed_peer_raises(pair) -> None:
    raw, peer = pair
    sock = SerialSocket(raw, timeout=1.0)
    peer.close()
    with pytest.raises(OSError):
        for _ in range(100):
            sock.send(b"d" * 65536)
