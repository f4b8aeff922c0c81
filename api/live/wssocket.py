"""A websocket's sending (api/live/ws.py): `Sender`, the one owner of what goes out on one socket, over
`SerialSocket`, which makes each send whole and exclusive in one system call.

Three threads push onto one socket: the store's listener thread and a committing thread (the hub's
frames), the socket's reader thread (simple-websocket's: the answers to the client's actions) and its
handler thread (a gunicorn pool thread: keepalives, frames that had to wait). `Sender` holds
everything that orders them: the versions already queued, the frames waiting, the two locks, and the
mover's order. The mover's order, stated here once: a socket gets the ack of its own action before
the state of the version that action made. While the socket's action is answered (`hold` ..
`reply`), whatever is pushed to it (the move's own state, a bot's answers) waits and goes out right
behind the answer, in the same write. tests/live/test_wssocket.py holds it on a socket pair, and
tests/live/test_ws.py::test_the_ack_and_the_state_of_the_move_come_in_one_write over a real server.

simple-websocket calls `sock.send` from two threads (our frames; its pings, pongs and close) and ignores
short writes, so every send of `SerialSocket` holds a lock and writes everything.

System calls matter on the path of a push: each one releases the GIL, and a thread that releases it
in a worker with hundreds of busy threads waits to get it back. A Python socket with a timeout polls
before every send and every receive (two calls); so the socket is made non-blocking and the timeout is
kept here, by polling only when the kernel does not take the bytes at once. And `send_nowait` lets a
pushing thread hand a frame over without blocking and without first asking the kernel whether unsent
bytes are queued: it writes what the kernel takes, and keeps any rest, which goes out before anything
else is sent (by the handler thread, which `Sender` wakes for it).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable

from simple_websocket import ConnectionClosed
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

log = logging.getLogger(__name__)

# What a send raises when the client is gone (or the reader thread closed the socket meanwhile: a frame
# after the close frame is a protocol error in wsproto).
GONE = (ConnectionClosed, OSError, LocalProtocolError)
# A client that lets this many frames pile up unsent is not reading: drop it (it will resync).
OUTBOX_LIMIT = 512
# Most frames written at once by the handler thread.
BATCH_FRAMES = 16

# What `Sender.next` tells the handler thread.
INBOUND = "inbound"  # the client sent something: read it
SEND = "send"  # frames (or the rest of one) wait: send them
CLOSE = "close"  # end the connection (revoked token, overflow) after the frames already waiting


class SerialSocket:
    """Wraps the connected socket `raw` of a websocket; other attributes are the socket's own.

    With `timeout` (seconds), a send that cannot hand its bytes to the kernel within it raises
    TimeoutError (a client that stopped reading), and `raw` is made non-blocking: only for a websocket
    whose reader thread calls recv only after select() reported data (simple-websocket with a ping
    interval; it then finds data, or the end of the stream). Without it, sends block as long as
    they must.
    """

    def __init__(self, raw: socket.socket, timeout: float | None):
        self._raw = raw
        self._lock = threading.Lock()
        self._timeout = timeout
        self._rest = b""  # bytes of a frame that send_nowait could not hand over: they go first
        # Frames are small and often come in pairs (ack + state): without this, Nagle's algorithm holds
        # the second one until the client's delayed ACK (up to 40 ms).
        with contextlib.suppress(OSError):
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if timeout is not None:
            # The reader thread may have closed it already (the client hung up right after the upgrade):
            # then every send raises OSError, which the session takes as the client gone (GONE).
            with contextlib.suppress(OSError):
                raw.setblocking(False)

    @property
    def pending(self) -> bool:
        """Whether bytes of an earlier frame still wait for `flush` (then send_nowait refuses)."""
        return bool(self._rest)

    def send(self, data: bytes) -> int:
        """Send the bytes kept by send_nowait, then `data`, whole; return len(data).

        Raises OSError when the client is gone, TimeoutError when it does not read (see the class)."""
        with self._lock:
            if self._rest:
                self._send_all(self._rest)
                self._rest = b""
            self._send_all(data)
        return len(data)

    def send_nowait(self, data: bytes) -> bool:
        """Hand `data` to the kernel without waiting; return False when `pending` was already set (then
        nothing is sent: send it with `send`). What the kernel does not take at once is kept and goes
        out first with the next `send` or `flush`. Raises OSError when the client is gone."""
        with self._lock:
            if self._rest:
                return False
            try:
                sent = self._raw.send(data, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                sent = 0
            self._rest = bytes(data[sent:])
            return True

    def flush(self) -> None:
        """Send the bytes kept by send_nowait (raises like `send`)."""
        self.send(b"")

    def _send_all(self, data: bytes) -> None:
        if self._timeout is None:
            self._raw.sendall(data)
            return
        view, deadline = memoryview(data), None
        while view:
            try:
                view = view[self._raw.send(view):]
                continue
            except (BlockingIOError, InterruptedError):
                pass
            # The kernel's buffer for this client is full: wait until it drains, within the timeout.
            now = time.monotonic()
            deadline = deadline or now + self._timeout
            if now >= deadline:
                raise TimeoutError("the client does not read")
            poller = select.poll()  # not select(): descriptors past 1024 are common with many sockets
            poller.register(self._raw, select.POLLOUT)
            poller.poll((deadline - now) * 1000)

    def __getattr__(self, name: str):
        return getattr(self._raw, name)


class Sender:
    """The one owner of one websocket's sending. Thread-safe.

    `ws` is the simple-websocket connection (its wsproto connection frames our text; None: a socket-less
    sender whose frames only wait, for tests of what is pushed), `sock` its SerialSocket.

    `version` is the highest state version queued (starting at the client's `since`): a state at or
    below it is never queued, so the client gets every version at most once, in order (`offer`).

    A frame pushed while nothing waits and nobody writes is handed to the kernel at once on the pushing
    thread (`send_nowait`: it never blocks); otherwise it waits in order, and the handler thread, woken
    by `next` returning SEND, writes it (`drain`), where a client that stopped reading makes the send
    fail after the socket's timeout. Two locks: `_state` guards the fields and is never held across a
    blocking write; `_write` is held by whoever writes, from framing the text (wsproto's compressor is
    stateful) to handing the bytes over; a pusher only ever tries it, so a slow client never blocks
    another socket's pusher. Lock order: `_write` before `_state`.
    """

    def __init__(self, ws, sock: SerialSocket | None, since: int = 0, *, limit: int = OUTBOX_LIMIT):
        self.ws = ws
        self.sock = sock
        self.version = since
        self.limit = limit
        self._state = threading.Lock()
        self._write = threading.Lock()
        self._waiting: deque[str] = deque()  # frames not yet written, in order
        self._replying = False  # between hold() and reply(): pushes wait behind the answer
        self._signals: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.closing = False
        # How the handler thread closes the socket after CLOSE (code, reason): see `close`.
        self.close_as: tuple[int, str] = (1008, "closed")
        self.last_sent = time.monotonic()

    # ------------------------------------------------------------------ pushing (any thread)

    def push(self, text: str) -> None:
        """Send one frame at once when possible, else let it wait in order; a client that stopped reading
        long ago is closed instead."""
        with self._state:
            self._push(text)

    def offer(self, version: int, render: Callable[[int], str]) -> bool:
        """Push `render(previous version)` when `version` is newer than what the client holds; return
        whether it was pushed. The listener thread, a committing thread and the handler thread (the
        hello's snapshot) may offer the same version at once: one of them pushes it."""
        with self._state:
            if version <= self.version:
                return False
            previous, self.version = self.version, version
            self._push(render(previous))
            return True

    def _push(self, text: str) -> None:
        """push, with _state held."""
        if self.closing:
            return
        if not self._waiting and not self._replying and self.ws is not None and self._write.acquire(False):
            try:
                if self._send_nowait(text):
                    return
            finally:
                self._write.release()
        if len(self._waiting) >= self.limit:
            log.warning("a socket is not reading (%d frames waiting); closing it", len(self._waiting))
            self._close(1008, "not_reading")
            return
        self._waiting.append(text)
        if not self._replying:
            self._signals.put(SEND)

    def _send_nowait(self, text: str) -> bool:
        """Hand `text` to the kernel without waiting (with _write held); False when it must wait."""
        if not self.ws.connected or self.sock.pending:
            return False
        with contextlib.suppress(*GONE):  # the handler thread notices the closure
            self.sock.send_nowait(self.ws.ws.send(TextMessage(data=text)))
            if self.sock.pending:
                self._signals.put(SEND)  # the rest the kernel did not take: the handler thread sends it
        self.last_sent = time.monotonic()
        return True

    def waiting(self) -> list[str]:
        """Return the frames waiting, oldest first (what a socket-less sender was pushed)."""
        with self._state:
            return list(self._waiting)

    # ------------------------------------------------------------------ the mover's order

    def hold(self) -> None:
        """The client's action is being answered: from now on pushes wait, to go out behind `reply`."""
        with self._state:
            self._replying = True

    def reply(self, texts: list[str]) -> bool:
        """Write `texts` (the answers to the client's messages), then every frame waiting, in one write;
        end `hold`. Return False when the client is gone."""
        with self._write:
            with self._state:
                texts = texts + list(self._waiting)
                self._waiting.clear()
                self._replying = False
            return not texts or self._write_now(texts)

    # ------------------------------------------------------------------ the handler thread

    def next(self, timeout: float) -> str | None:
        """Wait up to `timeout` seconds for INBOUND, SEND or CLOSE; None when nothing came."""
        try:
            return self._signals.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None

    def wake(self) -> None:
        """The client sent something: tell the handler thread (called by the reader thread)."""
        self._signals.put(INBOUND)

    def drain(self) -> bool:
        """Write the frames waiting (and the rest of a frame sent without waiting), a batch per write;
        nothing while an answer is pending (`reply` takes them). Return False when the client is gone."""
        while True:
            with self._write:
                with self._state:
                    if self._replying:
                        return True
                    batch = [self._waiting.popleft() for _ in range(min(BATCH_FRAMES, len(self._waiting)))]
                if not batch:
                    if self.sock is not None and self.sock.pending:
                        try:
                            self.sock.flush()
                        except GONE:
                            return False
                    return True
                if not self._write_now(batch):
                    return False

    def write(self, texts: list[str]) -> bool:
        """Write `texts` now, in one write, waiting for the write lock (keepalives, errors that end the
        socket); return False when the client is gone."""
        with self._write:
            return self._write_now(texts)

    def _write_now(self, texts: list[str]) -> bool:
        """write, with _write held."""
        try:
            if not self.ws.connected:
                return False
            self.sock.send(b"".join(self.ws.ws.send(TextMessage(data=text)) for text in texts))
        except GONE:
            return False
        self.last_sent = time.monotonic()
        return True

    def close(self, code: int = 1008, reason: str = "closed") -> None:
        """Ask the handler thread to end the connection (after the frames already waiting) with the close
        `code` and `reason` (the code of the error frame pushed before it, if any); later pushes are
        dropped."""
        with self._state:
            self._close(code, reason)

    def _close(self, code: int, reason: str) -> None:
        self.close_as = (code, reason)
        self.closing = True
        self._signals.put(CLOSE)

    def send_close(self, code: int, reason: str) -> None:
        """Send the close frame (`code`, `reason`) under the write lock."""
        with self._write, contextlib.suppress(*GONE):
            self.ws.close(reason=code, message=reason)
