"""What the store announces to every process after each commit carries nothing secret (docs/architecture.md,
"A move's path"): listened to during whole games (two players, a rematch, a bot), the raw messages hold
no seed, no salt, no token or token hash, and no card: a move's announcement is its log entry, which
every seat may see, and a change at the table announces only its version.

On Redis the test is any client of the server: it subscribes to the games' channels itself and reads
the bytes as they travel. The embedded stores announce in the process: the test subscribes like a hub.
"""

from __future__ import annotations

import random
import time

import redis

import engine
from api.game import auth
from api.game.model import Lifetimes
from api.game.service import GameService
from api.store.base import GameStore
from api.store.redis import PATTERN, RedisStore

BASE = "http://table.test/"
LIFETIMES = Lifetimes(game=3600, finished=600, lobby=600, transfer=600)
# What a document holds that must not travel: its fields' names (the whole document or its position).
DOCUMENT_WORDS = [b'"secret"', b'"seats"', b'"position"', b'"hand"', b'"deck"', b'"discard"', b'"names"']


class Heard:
    """The raw announcements of every game, as a listener outside the committing process gets them."""

    def __init__(self, store: GameStore):
        self.messages: list[bytes] = []
        self._pubsub = None
        if isinstance(store, RedisStore):
            self._client = redis.Redis.from_url(store.url)
            self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            self._pubsub.psubscribe(PATTERN)
            self._pubsub.get_message(timeout=1)  # the subscription's confirmation
        else:
            self._cancel = store.subscribe(self._embedded, announcements=True)

    def _embedded(self, game_id: str, version: int, announcement) -> None:
        self.messages.append(f"{version}\n{announcement}".encode() if announcement else str(version).encode())

    def wait_for(self, count: int, timeout: float = 10.0) -> list[bytes]:
        """Return the messages once `count` have come (or the timeout passed)."""
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            if self._pubsub is None:
                time.sleep(0.01)
                continue
            message = self._pubsub.get_message(timeout=0.5)
            if message is not None and not message["channel"].endswith(b":presence"):
                self.messages.append(message["data"])
        return self.messages

    def close(self) -> None:
        if self._pubsub is None:
            self._cancel()
        else:
            self._pubsub.close()
            self._client.close()


def play_out(service: GameService, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """Play random legal moves for the seats in `tokens` until the game is over; return its version."""
    while True:
        game, _ = service.latest(game_id)
        state = game.state()
        if state.phase == "over":
            return game.version
        action = rng.choice(engine.legal_actions(state))
        service.act(game_id, tokens[state.active], action, game.version, f"k{game.version}")


def test_announcements_carry_no_secret(store: GameStore) -> None:
    heard = Heard(store)
    service = GameService(store, LIFETIMES)
    rng = random.Random(27)
    try:
        games: dict[str, list[str]] = {}  # game id -> the tokens of its seats
        host = service.create("duo", None, BASE, name="Ana")
        guest = service.join(host["join_code"], "client", BASE, name="Ben")
        first = host["game_id"]
        tokens = {host["seat"]: host["token"], guest["seat"]: guest["token"]}
        games[first] = list(tokens.values())
        play_out(service, first, tokens, rng)
        # A rematch (changes at the table in both games), played out too.
        again = {seat: service.rematch(first, token, BASE) for seat, token in tokens.items()}
        second = again[0]["game_id"]
        games[second] = [grant["token"] for grant in again.values()]
        play_out(service, second, {seat: grant["token"] for seat, grant in again.items()}, rng)
        # Against a bot: its moves are commits like any other.
        solo = service.create("duo", None, BASE, bot="greedy")
        games[solo["game_id"]] = [solo["token"]]
        play_out(service, solo["game_id"], {0: solo["token"]}, rng)

        commits = {game_id: service.latest(game_id)[0].version - 1 for game_id in games}
        messages = heard.wait_for(sum(commits.values()))
        assert len(messages) == sum(commits.values()) > 300  # every commit announced once, whole games
        secrets: list[bytes] = []
        for game_id, seat_tokens in games.items():
            doc = service.latest(game_id)[0].doc
            seed, salt = doc["secret"]
            secrets += [str(seed).encode(), salt.encode()]
            secrets += [held.encode() for held in doc["seats"] if held and len(held) == 64]
            secrets += [token.encode() for token in seat_tokens]
            secrets += [auth.token_hash(token).encode() for token in seat_tokens]
        beans = [f'"{bean}"'.encode() for bean in engine.BEANS]  # as a card is written in JSON
        raw = b"\n--\n".join(messages)
        for secret in secrets + DOCUMENT_WORDS + beans:
            assert secret not in raw, secret
        # A move's announcement is its log entry, nothing more: "<version>\n<log entry>".
        entries = {entry for game_id in games for _, entry in store.log_since(game_id, 1)}
        for message in messages:
            version, _, announcement = message.decode().partition("\n")
            assert version.isdigit() and (announcement == "" or announcement in entries), message
    finally:
        heard.close()
