"""The socket under a websocket (api/live/ws.py): sends made whole and exclusive, one system call each.

simple-websocket calls `sock.send` from two threads (our frames; its pings, pongs and close) and ignores
short writes, so every send here holds a lock and writes everything.

System calls matter on the path of a push: each one releases the GIL, and a thread that releases it
in a worker with hundreds of busy threads waits to get it back (measured: about half of the listener
thread's time per push, more at the tail). A Python socket with a timeout polls before every send and
every receive (two calls); so the socket is made non-blocking and the timeout is kept here, by
polling only when the kernel does not take the bytes at once. And `send_nowait` lets the store's
listener thread push a frame without blocking and without first asking the kernel whether unsent
bytes are queued: it writes what the kernel takes, and keeps any rest, which goes out before
anything else is sent (the caller asks the handler thread to `flush` it).
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time


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
