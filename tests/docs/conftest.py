"""The private redis-server fixture comes from tests/api/conftest.py (one server per session)."""

from tests.api.conftest import redis_server  # noqa: F401
