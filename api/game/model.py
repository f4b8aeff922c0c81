"""The values the game room passes around, and the two ports through which others hear of its work.

A game as this process holds it (`Loaded`), one change of a game (`Commit`), what an action did
(`Outcome`), the events of a version (`Events`); who brings this process's sockets to a commit
(`FanOut`: the websocket hub) and who watches the service work (`Observer`: metrics and logs). No
Flask, no store, no transport here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import engine

if TYPE_CHECKING:
    from api.game.service import GameService

MODES = ("duo", "solo")
# The format of the stored document and log; a release that changes either bumps it (and says how to
# read the older one). Plain field names: short keys would save about 70 bytes of some 1,500 per game.
DOC_FORMAT = 1
GAME_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
# The seat-hash placeholder of a bot's seat: never equal to a token hash (64 hex digits).
BOT_SEAT = "bot"

# The unredacted events of one version: None (version 1 has none), the list, or a function that
# returns the list (derived by replaying the game, only when some socket needs them).
Events = list | Callable[[], list] | None


@dataclass(frozen=True)
class Lifetimes:
    """Seconds a game is kept after its last change, by kind (see api.config)."""

    game: int
    finished: int
    lobby: int
    transfer: int


@dataclass
class Loaded:
    """A game as read from the store."""

    version: int
    doc: dict
    raw: str
    parsed: object = None  # the engine state of doc["position"], when the caller has it already
    events: list | None = None  # the version's unredacted events, when this process made or followed it

    @property
    def seats(self) -> list[str | None]:
        return self.doc["seats"]

    def state(self):
        """Return the engine state of the document, decoded once (states are never mutated)."""
        if self.parsed is None:
            self.parsed = engine.from_position(self.doc["position"])
        return self.parsed


@dataclass(frozen=True)
class Commit:
    """One change of a game, as a value: the game at the version it makes, that version's events
    (unredacted: whoever shows them redacts them per seat) and the seat that moved (None: a change at
    the table). Once it is stored, the fan-out advances this process's sockets to it."""

    game_id: str
    game: Loaded
    events: list[dict]
    mover: int | None


@dataclass(frozen=True)
class Outcome:
    """What `act` did: the version the caller's action made (just now, or when it was first sent:
    `replayed`), for `seat`. `GameService.answer` renders the HTTP answer from it."""

    game_id: str
    seat: int
    version: int
    replayed: bool
    commit: Commit | None = None  # the caller's own commit, when applied now


class FanOut(Protocol):
    """Who brings this process's websockets to each commit (api.live.hub.Hub; other processes' hubs hear
    the store's announcement instead)."""

    def bind(self, reader: GameService) -> None:
        """Take the reader of games (its `latest` and `follow` only; called once, by the service)."""

    def advance(self, commit: Commit) -> None:
        """Bring this process's sockets of the game to `commit`, just stored. Never raises."""


class Observer:
    """What the service and the hub report as they work, for metrics and logs (api.ops.metrics): they
    call these; nothing replaces their methods. This base class ignores everything."""

    def action(self, game_id: str, outcome: str, seconds: float) -> None:
        """An action request was answered: `outcome` is "ok", "replayed" or an ApiError code (or
        "store_unavailable", "error"), after `seconds`."""

    def push(self, seconds: float) -> None:
        """The hub brought the sockets of one game of this process to a new version in `seconds`."""

    def socket_opened(self, conn_id: str) -> None:
        """A websocket joined the hub of this process."""

    def socket_closed(self, conn_id: str) -> None:
        """A websocket that joined left the hub."""


def join_url(base_url: str, code: str) -> str:
    """Return the link a phone opens to join with `code` (the code rides in the fragment, out of logs)."""
    return f"{base_url.rstrip('/')}/#join={code}"
