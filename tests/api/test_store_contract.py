"""The GameStore contract (api/store/base.py), run unchanged against every backend.

Lifetimes run out on a fake clock in memory and SQLite (the stores take a clock), at once; Redis keeps
time itself, so its one lifetime test waits (on a condition) for a 1 s lifetime to run out.
tests/api/test_store_lifetimes.py tests each lifetime to its boundary on the fake clock.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from api.store.base import IDEMPOTENCY_WINDOW, CommitResult, GameStore, StoreUnavailable
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore

HOUR = 3600

pytestmark = pytest.mark.usefixtures("no_leaked_threads")


def new_id() -> str:
    return "g" + uuid.uuid4().hex[:12]


@pytest.fixture
def game(store: GameStore) -> str:
    """A fresh game at version 1 with document "v1"."""
    game_id = new_id()
    assert store.create(game_id, "v1", HOUR)
    return game_id


# -- create / load ---------------------------------------------------------------------------------


def test_create_then_load_returns_version_1(store: GameStore) -> None:
    game_id = new_id()
    assert store.create(game_id, '{"a": "é"}', HOUR) is True
    assert store.load(game_id) == (1, '{"a": "é"}')


def test_create_twice_is_refused_and_changes_nothing(store: GameStore, game: str) -> None:
    assert store.create(game, "other", HOUR) is False
    assert store.load(game) == (1, "v1")


def test_load_of_unknown_game_is_none(store: GameStore) -> None:
    assert store.load(new_id()) is None


# -- commit ----------------------------------------------------------------------------------------


def test_commit_bumps_version_by_exactly_one(store: GameStore, game: str) -> None:
    assert store.commit(game, 1, "v2", ttl=HOUR) == CommitResult("ok", 2)
    assert store.commit(game, 2, "v3", ttl=HOUR) == CommitResult("ok", 3)
    assert store.load(game) == (3, "v3")


def test_stale_version_is_a_conflict_and_changes_nothing(store: GameStore, game: str) -> None:
    store.commit(game, 1, "v2", ttl=HOUR, log="e2")
    result = store.commit(game, 1, "stale", ttl=HOUR, idem_key="k-stale", fingerprint="f", log="bad")
    assert result == CommitResult("conflict", 2)
    assert store.load(game) == (2, "v2")
    assert store.log_since(game, 0) == [(2, "e2")]
    # The refused commit did not record its idempotency key: a fresh attempt with it can succeed.
    assert store.commit(game, 2, "v3", ttl=HOUR, idem_key="k-stale", fingerprint="f").status == "ok"


def test_future_version_is_a_conflict_too(store: GameStore, game: str) -> None:
    assert store.commit(game, 5, "x", ttl=HOUR) == CommitResult("conflict", 1)


def test_same_idempotency_key_and_fingerprint_returns_its_version(store: GameStore, game: str) -> None:
    first = store.commit(game, 1, "v2", ttl=HOUR, idem_key="k1", fingerprint="fp", log="e2")
    assert first == CommitResult("ok", 2)
    again = store.commit(game, 1, "v2", ttl=HOUR, idem_key="k1", fingerprint="fp", log="e2")
    assert again == CommitResult("duplicate", 2)
    # Still a duplicate after the game moved on; it reports the version the first commit made.
    store.commit(game, 2, "v3", ttl=HOUR, idem_key="k2", fingerprint="fp2 with spaces", log="e3")
    later = store.commit(game, 1, "v2", ttl=HOUR, idem_key="k1", fingerprint="fp")
    assert later == CommitResult("duplicate", 2)
    again = store.commit(game, 2, "v3", ttl=HOUR, idem_key="k2", fingerprint="fp2 with spaces")
    assert again == CommitResult("duplicate", 3)
    assert store.load(game) == (3, "v3")
    assert store.log_since(game, 0) == [(2, "e2"), (3, "e3")]


def test_same_idempotency_key_with_other_fingerprint_is_a_mismatch(store: GameStore, game: str) -> None:
    store.commit(game, 1, "v2", ttl=HOUR, idem_key="k1", fingerprint="fp")
    result = store.commit(game, 2, "v3", ttl=HOUR, idem_key="k1", fingerprint="other")
    assert result.status == "mismatch"
    assert result.version == 2
    assert store.load(game) == (2, "v2")


def test_idempotency_keys_are_per_game(store: GameStore, game: str) -> None:
    other = new_id()
    store.create(other, "v1", HOUR)
    store.commit(game, 1, "v2", ttl=HOUR, idem_key="k", fingerprint="fp")
    assert store.commit(other, 1, "w2", ttl=HOUR, idem_key="k", fingerprint="zz").status == "ok"


def test_each_seat_keeps_its_newest_idempotency_records(store: GameStore, game: str) -> None:
    """A seat's records beyond IDEMPOTENCY_WINDOW are forgotten, oldest first; another seat's stay. A
    forgotten key is new again: its request, made at an old version, is a conflict, never applied."""
    version = 1
    for i in range(IDEMPOTENCY_WINDOW + 2):  # seat 1 keys the first commit, seat 0 all the others
        seat = 1 if i == 0 else 0
        assert store.commit(game, version, f"v{version + 1}", ttl=HOUR, idem_key=f"k{i}", fingerprint=f"f{i}",
                            seat=seat, log=f"e{version + 1}") == CommitResult("ok", version + 1)
        version += 1
    # k1 (seat 0's oldest) is forgotten; seat 0 keeps k2..k5; seat 1's k0 stays.
    assert store.commit(game, 2, "again", ttl=HOUR, idem_key="k1", fingerprint="f1") == CommitResult(
        "conflict", version)
    for i in range(2, IDEMPOTENCY_WINDOW + 2):
        assert store.commit(game, 0, "x", ttl=HOUR, idem_key=f"k{i}", fingerprint=f"f{i}") == CommitResult(
            "duplicate", i + 2)
    assert store.commit(game, 0, "x", ttl=HOUR, idem_key="k0", fingerprint="f0", seat=1) == CommitResult(
        "duplicate", 2)
    # The seats share one space of keys: another seat's request under a kept key is a mismatch.
    assert store.commit(game, version, "x", ttl=HOUR, idem_key="k0", fingerprint="other", seat=0).status == (
        "mismatch")
    assert store.load(game) == (version, f"v{version}")
    assert [v for v, _ in store.log_since(game, 0)] == list(range(2, version + 1))


def test_commit_to_missing_game_is_missing(store: GameStore) -> None:
    game_id = new_id()
    assert store.commit(game_id, 1, "x", ttl=HOUR, idem_key="k") == CommitResult("missing", 0)
    assert store.load(game_id) is None
    assert store.log_since(game_id, 0) == []


def test_documents_and_logs_keep_any_text(store: GameStore, game: str) -> None:
    """Documents keep any text; log entries any text on one line; keys and fingerprints any text."""
    doc = '{"s": "ä€😀\\n", "colon": "1:2", "tab": "\t"}'
    store.commit(game, 1, doc, ttl=HOUR, idem_key="ключ: 1", fingerprint="ƒ ƒ", log="3:x: y\t€")
    assert store.load(game) == (2, doc)
    assert store.log_since(game, 1) == [(2, "3:x: y\t€")]
    assert store.commit(game, 1, doc, ttl=HOUR, idem_key="ключ: 1", fingerprint="ƒ ƒ") == CommitResult(
        "duplicate", 2)


# -- log -------------------------------------------------------------------------------------------


def test_log_since_returns_newer_entries_oldest_first(store: GameStore, game: str) -> None:
    for v in range(1, 6):
        assert store.commit(game, v, f"v{v + 1}", ttl=HOUR, log=f"e{v + 1}").status == "ok"
    assert store.log_since(game, 0) == [(2, "e2"), (3, "e3"), (4, "e4"), (5, "e5"), (6, "e6")]
    assert store.log_since(game, 4) == [(5, "e5"), (6, "e6")]
    assert store.log_since(game, 6) == []
    assert store.log_since(game, 99) == []


def test_a_compact_commit_keeps_the_log_as_it_is(store: GameStore, game: str) -> None:
    """`compact` (the game is over) may change how the log is kept, never what it holds."""
    assert store.commit(game, 1, "v2", ttl=HOUR, log="e2").status == "ok"
    assert store.commit(game, 2, "v3", ttl=HOUR, log="e3", compact=True) == CommitResult("ok", 3)
    assert store.log_since(game, 0) == [(2, "e2"), (3, "e3")]
    assert store.load_latest(game) == (3, "v3", "e3")
    assert store.commit(game, 3, "v4", ttl=HOUR, log="e4") == CommitResult("ok", 4)  # a rematch link, say
    assert store.log_since(game, 2) == [(3, "e3"), (4, "e4")]


def test_log_keeps_every_entry_of_a_long_game(store: GameStore, game: str) -> None:
    total = 1200  # far more versions than a game has
    for v in range(1, total + 1):
        store.commit(game, v, "d", ttl=HOUR, log=str(v + 1) if v % 7 else "")
    entries = store.log_since(game, 0)
    assert [v for v, _ in entries] == list(range(2, total + 2))
    assert entries[-1] == (total + 1, "" if total % 7 == 0 else str(total + 1))
    assert store.load_latest(game) == (total + 1, "d", entries[-1][1])


# -- active games ----------------------------------------------------------------------------------


def test_active_games_count_the_games_with_a_move_since(store: GameStore) -> None:
    now = time.time() - 86400  # a day back: moves of other tests on a shared backend are all later
    a, b, c = new_id(), new_id(), new_id()
    store.note_active({a: now - 100, b: now - 10})
    store.note_active({a: now - 5, c: now - 400})  # a moved again; c long ago
    store.note_active({b: now - 200})  # an older note never moves a game back
    # Counting forgets what is older, so the widest window is asked first: only a and b moved between.
    assert store.count_active(now - 50) - store.count_active(now - 1) == 2
    store.note_active({})
    assert store.count_active(time.time() + 3600) == 0  # nothing moves in the future


# -- codes and rate limits -------------------------------------------------------------------------


def test_codes_put_get_delete(store: GameStore) -> None:
    code = "C" + uuid.uuid4().hex[:6]
    assert store.get_code(code) is None
    assert store.put_code(code, "game-a", HOUR) is True
    assert store.put_code(code, "game-b", HOUR) is False
    assert store.get_code(code) == "game-a"
    store.delete_code(code)
    assert store.get_code(code) is None
    store.delete_code(code)  # forgetting twice is fine
    assert store.put_code(code, "game-b", HOUR) is True
    assert store.get_code(code) == "game-b"


def test_hit_counts_within_a_window(store: GameStore) -> None:
    key = "ip:" + uuid.uuid4().hex
    assert [store.hit(key, 3, 60) for _ in range(3)] == [None, None, None]
    refused = store.hit(key, 3, 60)  # the fourth: refused, with the rest of the window, and not counted
    assert refused is not None and 0 < refused <= 60
    assert store.hit("other:" + key, 3, 60) is None
    assert store.hit(key, 3, 60, cost=-1) is None  # taken back: one more fits
    assert store.hit(key, 3, 60) is None
    assert store.hit(key, 3, 60) is not None
    assert store.hit("new:" + key, 3, 60, cost=-1) is None  # taking back from nothing counts nothing
    assert [store.hit("new:" + key, 3, 60) for _ in range(4)][-1] is not None


# -- lifetimes -------------------------------------------------------------------------------------


class FakeClock:
    """A clock a test moves on (seconds, never backwards)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Timed:
    """A store and a way to let `seconds` pass on its clock, until `until()` holds."""

    store: GameStore
    pass_time: Callable[[float, Callable[[], bool]], None]


@pytest.fixture
def timed(backend, tmp_path) -> Iterator[Timed]:
    """Memory and SQLite on a fake clock: time passes at once. Redis counts time itself: the test waits
    until its condition holds (polled, at most the seconds asked for and 5 more)."""
    if backend.name in ("memory", "sqlite"):
        clock = FakeClock()
        store = MemoryStore(clock=clock) if backend.name == "memory" else SqliteStore(
            tmp_path / "timed.db", clock=clock)

        def pass_time(seconds: float, until: Callable[[], bool]) -> None:
            clock.advance(seconds)
            assert until(), f"not so after {seconds} s on the fake clock"

        try:
            yield Timed(store, pass_time)
        finally:
            store.close()
        return

    def wait(seconds: float, until: Callable[[], bool]) -> None:
        deadline = time.monotonic() + seconds + 5
        while not until():
            assert time.monotonic() < deadline, f"not so {seconds + 5} s later"
            time.sleep(0.02)

    yield Timed(backend.open(), wait)


def test_lifetimes_run_out(timed: Timed) -> None:
    """Games, their logs, codes, rate-limit windows and rematch links go when their lifetime is over; a
    commit gives its game a new lifetime; an expired id or code is free again and starts afresh."""
    store = timed.store
    key = "ip:" + uuid.uuid4().hex
    assert [store.hit(key, 1, 1) for _ in range(2)][-1] is not None
    gone, kept, code = new_id(), new_id(), "E" + uuid.uuid4().hex[:6]
    assert store.create(gone, "v1", 1)
    assert store.commit(gone, 1, "v2", ttl=1, log="e2").status == "ok"
    assert store.link_rematch(gone, "next") == "next"
    assert store.create(kept, "v1", 1)
    assert store.commit(kept, 1, "v2", ttl=HOUR).status == "ok"  # a fresh lifetime
    assert store.put_code(code, gone, 1)  # the last to go: when it has, the others have too
    timed.pass_time(1.05, lambda: store.get_code(code) is None)
    assert store.load(gone) is None
    assert store.log_since(gone, 0) == []
    assert store.commit(gone, 2, "v3", ttl=1) == CommitResult("missing", 0)
    assert store.link_rematch(gone, "again") is None
    assert store.load(kept) == (2, "v2")
    assert store.hit(key, 1, 1) is None  # a new window
    # Expired ids and codes are free again; the new game starts from scratch: empty log, no link.
    assert store.create(gone, "new", HOUR)
    assert store.load(gone) == (1, "new")
    assert store.log_since(gone, 0) == []
    assert store.link_rematch(gone, "fresh") == "fresh"
    assert store.put_code(code, "elsewhere", HOUR)


# -- fan-out ---------------------------------------------------------------------------------------


class Inbox:
    """Collects (game_id, version) nudges and lets a test wait for one."""

    def __init__(self) -> None:
        self.items: list[tuple[str, int]] = []
        self._cond = threading.Condition()

    def __call__(self, game_id: str, version: int) -> None:
        with self._cond:
            self.items.append((game_id, version))
            self._cond.notify_all()

    def wait_for(self, item: tuple[str, int], timeout: float = 5.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: item in self.items, timeout)


def watched(backend, store: GameStore, game_id: str, heard: list) -> None:
    """Watch `game_id` (as the hub does for a game it holds a socket of). Redis Cluster delivers the
    nudges of watched games only (sharded pub/sub), from when the subscription is in place: wait for
    the nudge that says so (the game's current version, 1) and forget it. No wait elsewhere."""
    store.watch(game_id)
    if backend.name == "cluster":
        deadline = time.monotonic() + 5
        while not any(item[:2] == (game_id, 1) for item in list(heard)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [item[:2] for item in heard] == [(game_id, 1)]
        heard.clear()


def test_subscribers_hear_every_commit(backend, store: GameStore) -> None:
    writer = backend.open() if backend.cross_instance_fanout else store
    inbox = Inbox()
    cancel = store.subscribe(inbox)
    game_id = new_id()
    writer.create(game_id, "v1", HOUR)
    watched(backend, store, game_id, inbox.items)
    writer.commit(game_id, 1, "v2", ttl=HOUR)
    writer.commit(game_id, 2, "v3", ttl=HOUR)
    assert inbox.wait_for((game_id, 3))
    assert (game_id, 2) in inbox.items
    assert all(isinstance(v, int) for _, v in inbox.items)

    # Refused commits publish nothing; a cancelled subscriber hears nothing more.
    writer.commit(game_id, 1, "stale", ttl=HOUR)
    cancel()
    cancel()  # cancelling twice is harmless
    later = Inbox()
    store.subscribe(later)
    writer.commit(game_id, 3, "v4", ttl=HOUR)
    assert later.wait_for((game_id, 4))
    assert inbox.items == [(game_id, 2), (game_id, 3)]


def test_announcement_subscribers_get_the_commit_s_announcement(backend, store: GameStore) -> None:
    """A subscriber with `announcements` gets exactly the `announce` text its commit was given ("" for
    none), and nothing of the document: the store announces a commit, it does not copy it."""
    writer = backend.open() if backend.cross_instance_fanout else store
    heard: list = []
    done = threading.Event()

    def inbox(game_id: str, version: int, announcement) -> None:
        heard.append((game_id, version, announcement))
        if version == 5:
            done.set()

    store.subscribe(inbox, announcements=True)
    game_id = new_id()
    writer.create(game_id, "{}", HOUR)
    watched(backend, store, game_id, heard)
    writer.commit(game_id, 1, '{"n":2,"s":"ä"}', ttl=HOUR, log='{"e":[2]}', announce="1:ä 2")
    writer.commit(game_id, 2, '{"n":3}', ttl=HOUR)
    writer.commit(game_id, 3, 'line\nbreak', ttl=HOUR, log="x y", announce="two\nlines")
    writer.commit(game_id, 4, '{"n":5}', ttl=HOUR, log="a", announce="0:7")
    assert done.wait(5)
    mine = [(v, text) for g, v, text in heard if g == game_id]
    assert mine == [(2, "1:ä 2"), (3, ""), (4, "two\nlines"), (5, "0:7")]


def test_a_failing_subscriber_does_not_silence_others(backend, store: GameStore, game: str) -> None:
    def broken(game_id: str, version: int) -> None:
        raise ValueError("subscriber bug")

    inbox = Inbox()
    store.subscribe(broken)
    store.subscribe(inbox)
    watched(backend, store, game, inbox.items)
    store.commit(game, 1, "v2", ttl=HOUR)
    store.commit(game, 2, "v3", ttl=HOUR)
    assert inbox.wait_for((game, 3))


# -- concurrency -----------------------------------------------------------------------------------


def test_racing_commits_on_one_version_have_exactly_one_winner(backend, game: str) -> None:
    stores = [backend.open() for _ in range(4)]  # several instances where the backend allows it
    barrier = threading.Barrier(16)
    results: list[CommitResult] = []
    lock = threading.Lock()

    def racer(i: int) -> None:
        barrier.wait()
        result = stores[i % 4].commit(game, 1, f"doc{i}", ttl=HOUR, log=f"by{i}")
        with lock:
            results.append(result)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(r.status for r in results) == ["conflict"] * 15 + ["ok"]
    assert all(r.version == 2 for r in results)
    version, doc = stores[0].load(game)
    assert version == 2
    assert store_log_author(stores[0], game) == doc.replace("doc", "by")


def store_log_author(store: GameStore, game_id: str) -> str:
    [(version, entry)] = store.log_since(game_id, 0)
    assert version == 2
    return entry


def test_racing_retries_with_one_idempotency_key_apply_once(backend, game: str) -> None:
    stores = [backend.open() for _ in range(4)]
    barrier = threading.Barrier(12)
    results: list[CommitResult] = []
    lock = threading.Lock()

    def retry(i: int) -> None:
        barrier.wait()
        result = stores[i % 4].commit(
            game, 1, "v2", ttl=HOUR, idem_key="same", fingerprint="fp"
        )
        with lock:
            results.append(result)

    threads = [threading.Thread(target=retry, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(r.status for r in results) == ["duplicate"] * 11 + ["ok"]
    assert all(r.version == 2 for r in results)
    assert stores[0].log_since(game, 0) == [(2, "")]


def test_ping(store: GameStore) -> None:
    assert store.ping() is True


# -- SQLite only -----------------------------------------------------------------------------------


def test_sqlite_keeps_games_across_reopen(tmp_path) -> None:
    from api.store.sqlite import SqliteStore

    path = tmp_path / "nested" / "dir" / "games.db"
    first = SqliteStore(path)
    game_id = new_id()
    first.create(game_id, "v1", HOUR)
    first.commit(game_id, 1, "v2", ttl=HOUR, idem_key="k", fingerprint="f", log="e2")
    first.put_code("CODE", game_id, HOUR)
    first.close()
    second = SqliteStore(path)
    try:
        assert second.load(game_id) == (2, "v2")
        assert second.log_since(game_id, 0) == [(2, "e2")]
        assert second.get_code("CODE") == game_id
        assert second.commit(game_id, 1, "v2", ttl=HOUR, idem_key="k", fingerprint="f") == CommitResult(
            "duplicate", 2)
    finally:
        second.close()


def test_sqlite_closed_store_is_unavailable(tmp_path) -> None:
    from api.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "games.db")
    store.close()
    with pytest.raises(StoreUnavailable):
        store.load("x")
    assert store.ping() is False


def test_sqlite_reclaims_connections_of_finished_threads(tmp_path) -> None:
    from api.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "games.db")
    try:
        for _ in range(20):  # one short-lived thread per request, as werkzeug's threaded server does
            worker = threading.Thread(target=store.load, args=("x",))
            worker.start()
            worker.join()
        store.load("x")
        assert len(store._conns) <= 2  # this thread's, and at most the last worker's
    finally:
        store.close()


# -- Redis only ------------------------------------------------------------------------------------


@pytest.mark.redis
def test_redis_more_threads_than_connections_wait_instead_of_failing(redis_server) -> None:
    """A burst of more concurrent callers than the pool holds (websocket threads of a busy worker)
    waits for a connection: no StoreUnavailable ("Too many connections"), and no more connections."""
    import redis

    from api.store.redis import RedisStore

    store = RedisStore(redis_server.url, pool_size=2)
    game_id, failures, most = new_id(), [], [0]
    store.create(game_id, "v1", HOUR)

    def work() -> None:
        try:
            for _ in range(100):
                store.load(game_id)
                store.hit("burst", 1601, 60)
        except Exception as err:  # noqa: BLE001 - collected for the assertion
            failures.append(err)

    try:
        with redis.Redis.from_url(redis_server.url) as admin:
            threads = [threading.Thread(target=work) for _ in range(16)]
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                most[0] = max(most[0], int(admin.info("clients")["connected_clients"]))
                time.sleep(0.005)
            for t in threads:
                t.join()
            assert failures == []
            assert store.hit("burst", 1601, 60) is None  # the 1601st: every one of 1600 was counted
            assert store.hit("burst", 1601, 60) is not None
            assert most[0] <= 2 + 1  # the pool, plus the admin connection asking
    finally:
        store.close()


@pytest.mark.redis
def test_redis_keys_are_hash_tagged_and_expire(redis_server) -> None:
    import redis

    from api.store.redis import RedisStore

    store = RedisStore(redis_server.url)
    try:
        game_id = new_id()
        store.create(game_id, "v1", HOUR)
        store.commit(game_id, 1, "v2", ttl=HOUR, idem_key="k", fingerprint="f", log="e2")
        store.put_code("ABC", game_id, 60)
        store.hit("ip", 10, 60)
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as raw:
            tag = f"cg:v1:g:{{{game_id}}}"
            assert sorted(raw.keys(tag + "*")) == [tag + ":log", tag + ":state"]
            assert 0 < raw.ttl(tag + ":state") <= HOUR
            assert 0 < raw.ttl(tag + ":log") <= HOUR
            assert raw.hget(tag + ":state", "i") == '[["k",2,"f",0]]'  # the idempotency records
            assert raw.get("cg:v1:code:ABC") == game_id
            assert raw.get("cg:v1:rl:ip") == "1"
            assert 0 < raw.ttl("cg:v1:rl:ip") <= 60
    finally:
        store.close()


@pytest.mark.redis
def test_redis_restart_between_commits_loses_nothing_acknowledged(redis_server) -> None:
    from api.store.redis import RedisStore

    store = RedisStore(redis_server.url)
    try:
        game_id = new_id()
        store.create(game_id, "v1", HOUR)
        assert store.commit(game_id, 1, "v2", ttl=HOUR, idem_key="k2", fingerprint="f",
                            log="e2").status == "ok"  # fmt: skip
        # SIGKILL: no shutdown flush, so only what `appendfsync always` wrote before the reply survives.
        redis_server.restart(hard=True)
        # The same store object works again: its pooled connections are dead, redis-py reconnects.
        assert store.load(game_id) == (2, "v2")
        assert store.log_since(game_id, 0) == [(2, "e2")]
        assert store.commit(game_id, 1, "v2", ttl=HOUR, idem_key="k2", fingerprint="f") == CommitResult(
            "duplicate", 2
        )
        assert store.commit(game_id, 2, "v3", ttl=HOUR, log="e3").status == "ok"
        redis_server.restart()  # graceful this time
        assert store.load(game_id) == (3, "v3")
        assert store.log_since(game_id, 0) == [(2, "e2"), (3, "e3")]
    finally:
        store.close()


@pytest.mark.redis
def test_redis_commit_survives_a_flushed_script_cache_and_killed_connections(redis_server) -> None:
    """The commit's own fast path (RedisStore._run) hands over to redis-py's script object when the
    server does not know the script (NOSCRIPT), and finds a new connection when the one it kept was
    killed; each commit still applies exactly once."""
    import redis

    from api.store.redis import RedisStore

    store = RedisStore(redis_server.url)
    try:
        game_id = new_id()
        store.create(game_id, "v1", HOUR)
        assert store.commit(game_id, 1, "v2", ttl=HOUR, log="e2").status == "ok"
        with redis.Redis.from_url(redis_server.url) as raw:
            raw.script_flush()
            assert raw.script_exists(store._commit.sha) == [False]
            assert store.commit(game_id, 2, "v3", ttl=HOUR, idem_key="k", fingerprint="f",
                                log="e3") == CommitResult("ok", 3)  # fmt: skip
            assert raw.script_exists(store._commit.sha) == [True]
            # Every connection of the store's pool is killed, the one the commits keep aside included:
            # the next commit finds its socket dead.
            assert len(store._hot) == 1
            killed = raw.client_kill_filter(_type="normal", skipme=True)
            assert killed >= 1
            assert store.commit(game_id, 2, "v3", ttl=HOUR, idem_key="k", fingerprint="f") == CommitResult(
                "duplicate", 3)
            assert store.commit(game_id, 3, "v4", ttl=HOUR, log="e4") == CommitResult("ok", 4)
        assert store.load(game_id) == (4, "v4")
        assert store.log_since(game_id, 0) == [(2, "e2"), (3, "e3"), (4, "e4")]
    finally:
        store.close()


@pytest.mark.redis
def test_redis_down_raises_store_unavailable_then_recovers(redis_server) -> None:
    from api.store.redis import RedisStore

    store = RedisStore(redis_server.url, timeout=1)
    try:
        game_id = new_id()
        store.create(game_id, "v1", HOUR)
        redis_server.stop()
        try:
            for call in (
                lambda: store.load(game_id),
                lambda: store.commit(game_id, 1, "v2", ttl=HOUR),
                lambda: store.create(new_id(), "x", HOUR),
                lambda: store.hit("k", 10, 10),
                lambda: store.subscribe(lambda g, v: None),
            ):
                with pytest.raises(StoreUnavailable):
                    call()
            assert store.ping() is False
        finally:
            redis_server.start()
        assert store.ping() is True
        assert store.commit(game_id, 1, "v2", ttl=HOUR) == CommitResult("ok", 2)
    finally:
        store.close()


@pytest.mark.redis
def test_redis_subscription_survives_a_restart_and_reports_the_gap(redis_server) -> None:
    from api.store.redis import RedisStore

    listener, writer = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        inbox, reset = Inbox(), threading.Event()
        listener.subscribe(inbox, on_reset=reset.set)
        game_id = new_id()
        writer.create(game_id, "v1", HOUR)
        writer.commit(game_id, 1, "v2", ttl=HOUR)
        assert inbox.wait_for((game_id, 2))
        assert not reset.is_set()

        redis_server.stop()
        time.sleep(0.5)  # the listener notices and backs off
        redis_server.start()
        # redis-py reconnects and re-subscribes on the listener's next read; the store then tells the
        # subscribers that nudges may have been lost meanwhile.
        assert reset.wait(10), "on_reset was not called after the pub/sub connection came back"
        assert writer.commit(game_id, 2, "v3", ttl=HOUR).status == "ok"
        assert inbox.wait_for((game_id, 3)), "no nudge after the restart"
    finally:
        listener.close()
        writer.close()


# -- rematch links (API-NIGHT) ----------------------------------------------------------------------


def test_link_rematch_keeps_the_first_link(store: GameStore, game: str) -> None:
    assert store.link_rematch(game, "next1") == "next1"
    # Later calls, with any other id, get the first one; nothing about the game changes.
    assert store.link_rematch(game, "next2") == "next1"
    assert store.link_rematch(game, "next1") == "next1"
    assert store.load(game) == (1, "v1")
    # Links are per game.
    other = new_id()
    assert store.create(other, "v1", HOUR)
    assert store.link_rematch(other, "next3") == "next3"


def test_link_rematch_of_a_missing_game_is_none_and_stores_nothing(store: GameStore) -> None:
    game_id = new_id()
    assert store.link_rematch(game_id, "next") is None
    assert store.create(game_id, "v1", HOUR)
    assert store.link_rematch(game_id, "later") == "later"


def test_racing_rematch_links_agree_on_one(backend, game: str) -> None:
    stores = [backend.open() for _ in range(4)]  # several instances (connections) where possible
    barrier = threading.Barrier(16)
    results: list[str | None] = []
    lock = threading.Lock()

    def racer(i: int) -> None:
        barrier.wait()
        linked = stores[i % 4].link_rematch(game, f"next{i}")
        with lock:
            results.append(linked)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 16 and len(set(results)) == 1 and results[0].startswith("next")
    assert stores[0].link_rematch(game, "late") == results[0]
