"""The GameStore contract suite (tests/api/test_store_contract.py), unchanged, on a Redis Cluster of
three masters: every script and multi-key read stays on one slot, the nudges ride sharded pub/sub.
The tests that start or stop a single redis-server of their own, or open SQLite, are left out."""

from __future__ import annotations

from tests.api import test_store_contract as contract

pytestmark = contract.pytestmark
game = contract.game  # fixture
timed = contract.timed  # fixture

for _name in dir(contract):
    if _name.startswith("test_") and not _name.startswith(("test_redis_", "test_sqlite_")):
        globals()[_name] = getattr(contract, _name)
