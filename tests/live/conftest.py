"""Fixtures for the live-play tests (websocket, hub, presence) against real servers.

The private redis-server and the per-backend store fixtures come from tests/api/conftest.py (imported,
so both folders share one server per session).
"""

from tests.api.conftest import backend, no_leaked_threads, redis_server, store  # noqa: F401
