"""api.live.wssocket on a real socket pair. SerialSocket: sends are whole and in order, a send that cannot
be handed over at once keeps its rest for later (send_nowait), and a client that stops reading makes a
blocking send fail after the timeout instead of hanging. Sender: a push to an idle socket goes out at
once, frames that wait keep their order, every version at most once, and the mover's order (the ack
of an action before the state of its move, in one write)."""

from __future__ import annotations

import socket
import threading

import pytest
from wsproto.connection import Connection as WsConnection
from wsproto.connection import ConnectionType
from wsproto.events import TextMessage

from api.live.wssocket import CLOSE, SEND, Sender, SerialSocket


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


# ---------------------------------------------------------------------- Sender: one socket's sending


class _Ws:
    """The part of a simple-websocket connection a Sender uses: its wsproto connection (after the
    handshake) and whether it is open."""

    def __init__(self) -> None:
        self.ws = WsConnection(ConnectionType.SERVER)
        self.connected = True


def _sender(raw: socket.socket, since: int = 0) -> Sender:
    return Sender(_Ws(), SerialSocket(raw, timeout=5.0), since)


def _texts(peer: socket.socket, client: WsConnection) -> list[str]:
    """Return the text frames of one read on the client's side (one write of the server's arrives whole)."""
    peer.settimeout(5)
    client.receive_data(peer.recv(65536))
    return [event.data for event in client.events() if isinstance(event, TextMessage)]


def test_a_push_to_an_idle_socket_goes_out_at_once(pair) -> None:
    raw, peer = pair
    sender = _sender(raw)
    sender.push("a")
    assert _texts(peer, WsConnection(ConnectionType.CLIENT)) == ["a"]
    assert sender.next(0) is None  # nothing left for the handler thread


def test_the_mover_gets_the_ack_before_the_state_of_its_move_in_one_write(pair) -> None:
    """The mover's order: what is pushed while the socket's action is answered (from another thread, as
    the hub does during `act`) waits, and goes out right behind the answer, in the same write."""
    raw, peer = pair
    sender = _sender(raw, since=4)
    sender.hold()
    pusher = threading.Thread(target=lambda: sender.offer(5, lambda previous: f"state {previous}->5"))
    pusher.start()
    pusher.join(5)
    assert sender.waiting() == ["state 4->5"]
    assert sender.drain()  # the handler thread leaves it to the answer
    assert sender.waiting() == ["state 4->5"]
    assert sender.reply(["ack 5"])
    assert _texts(peer, WsConnection(ConnectionType.CLIENT)) == ["ack 5", "state 4->5"]
    sender.push("later")  # answered: pushes go out at once again
    assert sender.waiting() == []


def test_frames_that_wait_keep_their_order_and_the_handler_writes_them(pair) -> None:
    raw, peer = pair
    sender = _sender(raw)
    with sender._write:  # someone else is writing: pushes wait (a pusher never blocks on the socket)
        sender.push("1")
        sender.push("2")
    assert sender.waiting() == ["1", "2"]
    assert sender.next(1) == SEND
    sender.push("3")  # behind the waiting ones, not ahead of them
    assert sender.drain()
    client = WsConnection(ConnectionType.CLIENT)
    got: list[str] = []
    while len(got) < 3:
        got += _texts(peer, client)
    assert got == ["1", "2", "3"]


def test_a_version_is_offered_at_most_once_and_never_older() -> None:
    sender = Sender(None, None, since=3)
    assert not sender.offer(3, str)
    assert sender.offer(5, lambda previous: f"{previous}->5")
    assert not sender.offer(4, str) and not sender.offer(5, str)
    assert sender.waiting() == ["3->5"] and sender.version == 5


def test_a_client_that_lets_frames_pile_up_is_closed() -> None:
    sender = Sender(None, None, limit=3)
    for i in range(5):
        sender.push(str(i))
    assert sender.waiting() == ["0", "1", "2"]
    assert sender.closing and sender.close_as == (1008, "not_reading")
    signals = []
    while (signal := sender.next(0)) is not None:
        signals.append(signal)
    assert signals[-1] == CLOSE
