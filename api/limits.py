"""Rate limits, kept in the store so that every worker and host sharing it shares them.

Each limit is a count per fixed window (`GameStore.hit`): at most `count` events per `window` seconds
for one key. A refusal is ApiError `rate_limited` (429 over HTTP with Retry-After, an error frame with
`retry_after` on the websocket). What is limited (api.config, README "Limits"):

- `create`: games created per client address;
- `move`: actions per seat of a game (HTTP and websocket alike);
- `hello`: websocket hellos per client address;
- `transfer`: seat-transfer codes issued per client address (each is stored, and each claim adds a
  version to its game: without a limit one seat could grow a game's log without end);
- `guess`: failed join/transfer code guesses per client address, and `guess_total` from all addresses
  together (a code space of 31^6 is safe only while nobody may try millions of codes).

A client address is the peer address (or X-Forwarded-For's, behind PROXY_COUNT proxies): IPv4 per
address, IPv6 per /64, since one host or home usually holds a whole /64 and may pick any address in it.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

from api.errors import ApiError
from api.store.base import GameStore

# Everything refused from a client that has no address (a unix socket) shares one bucket.
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Limit:
    """At most `count` events per `window` seconds."""

    count: int
    window: int


KINDS = ("create", "move", "hello", "transfer", "guess", "guess_total")
# Settings (api.config) of each kind: (count key, window key).
SETTINGS = {
    "create": ("CREATE_LIMIT", "CREATE_WINDOW"),
    "move": ("MOVE_LIMIT", "MOVE_WINDOW"),
    "hello": ("HELLO_LIMIT", "HELLO_WINDOW"),
    "transfer": ("TRANSFER_LIMIT", "TRANSFER_WINDOW"),
    "guess": ("JOIN_LIMIT", "JOIN_WINDOW"),
    "guess_total": ("JOIN_TOTAL_LIMIT", "JOIN_WINDOW"),
}

WHAT = {
    "create": "games created from this address",
    "move": "actions of this seat",
    "hello": "websocket connections from this address",
    "transfer": "seat transfers from this address",
    "guess": "failed join or transfer codes from this address",
    "guess_total": "failed join or transfer codes on this server",
}


def client_key(address: str | None) -> str:
    """Return the bucket of a client address: an IPv4 address itself, IPv6 its /64 network (an
    IPv4-mapped IPv6 address counts as its IPv4 address)."""
    if not address:
        return UNKNOWN
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return UNKNOWN
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return str(ip)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


class Limiter:
    """The limits of one server, counted in its store. `limits` maps a kind (KINDS) to its Limit; a
    kind left out, or with a count of 0, is not limited."""

    def __init__(self, store: GameStore, limits: dict[str, Limit]):
        self.store = store
        self.limits = {kind: limit for kind, limit in limits.items() if limit.count > 0}

    @classmethod
    def from_config(cls, store: GameStore, config) -> Limiter:
        """Build from the settings of api.config (a mapping)."""
        return cls(store, {kind: Limit(int(config[c]), int(config[w])) for kind, (c, w) in SETTINGS.items()})

    def charge(self, kind: str, who: str) -> None:
        """Count one event of `kind` for `who` (a client_key, or a seat); raise rate_limited past the
        limit, with the seconds until the window ends."""
        limit = self.limits.get(kind)
        if limit is None:
            return
        left = self.store.hit(f"{kind}:{who}", limit.count, limit.window)
        if left is not None:
            wait = max(1, math.ceil(left))
            raise ApiError("rate_limited",
                           f"At most {limit.count} {WHAT[kind]} in {limit.window} s; retry in {wait} s.",
                           headers={"Retry-After": str(wait)}, retry_after=wait)

    def refund(self, kind: str, who: str) -> None:
        """Take back one event of `kind` for `who` counted by `charge` (it turned out not to count)."""
        limit = self.limits.get(kind)
        if limit is not None:
            self.store.hit(f"{kind}:{who}", limit.count, limit.window, cost=-1)

    def guess(self, client: str) -> None:
        """Count a code attempt from `client` (per address, then in total); raise rate_limited.

        Counted before the code is looked at, so that a burst of attempts at once cannot all pass;
        `guessed_right` takes it back: only failed guesses stay counted.
        """
        self.charge("guess", client)
        try:
            self.charge("guess_total", "*")
        except ApiError:
            self.refund("guess", client)
            raise

    def guessed_right(self, client: str) -> None:
        """The attempt counted by `guess` opened a seat (or found the caller's own): not a failed guess."""
        self.refund("guess", client)
        self.refund("guess_total", "*")
