"""The moving window of api.ops.limits on the in-process stores (memory, SQLite), with a fake clock: at most
`count` events in any `window` seconds, and right codes earn their attempt back (issue 29, finding 5)."""

from __future__ import annotations

from api.errors import ApiError
from api.ops.limits import Limit, Limiter, LocalWindows
from api.store.memory import MemoryStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_moving_window_admits_count_in_any_window() -> None:
    clock = Clock()
    limiter = Limiter(MemoryStore(), {"create": Limit(5, 10)}, windows=LocalWindows(clock), clock=clock)
    limiter.charge("create", "a")
    clock.now += 9.5
    for _ in range(4):
        limiter.charge("create", "a")
    clock.now += 0.6  # the first event has left its window: one place, no more
    limiter.charge("create", "a")
    try:
        limiter.charge("create", "a")
    except ApiError as err:
        # Until the oldest event still counted (at 9.5 s) leaves: 9.4 s, rounded up.
        assert err.code == "rate_limited" and err.extra["retry_after"] == 10
    else:
        raise AssertionError("a sixth event within 10 s was admitted")
    limiter.charge("create", "b")  # another key has its own window


def test_right_codes_earn_their_attempt_back() -> None:
    clock = Clock()
    limiter = Limiter(MemoryStore(), {"guess": Limit(2, 60)}, windows=LocalWindows(clock), clock=clock)
    for _ in range(10):
        limiter.guess("a")
        limiter.guessed_right("a")
    limiter.guess("a")
    limiter.guess("a")  # two failures
    try:
        limiter.guess("a")
    except ApiError as err:
        assert err.code == "rate_limited"
    else:
        raise AssertionError("a third failed code was admitted")
    clock.now += 61
    limiter.guess("a")


def test_a_check_the_game_refuses_costs_the_client_nothing() -> None:
    """A code checked against a game whose budget others used up is never looked at: it is no failure of
    the client's, which may then still join with a right code while the server is pressed."""
    clock = Clock()
    limits = {"guess": Limit(2, 60), "guess_game": Limit(1, 60), "guess_total": Limit(1, 60)}
    limiter = Limiter(MemoryStore(), limits, windows=LocalWindows(clock), clock=clock)
    limiter.guess("guesser", "g1")  # the game's one failure, and the server's
    for _ in range(3):
        try:
            limiter.guess("player", "g1")
        except ApiError as err:
            assert err.code == "rate_limited"
        else:
            raise AssertionError("a check past the game's budget was admitted")
    limiter.guess("player")  # a join: the player failed nothing, so the pressed server lets it in
    limiter.guessed_right("player")
