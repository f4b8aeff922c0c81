"""A gunicorn server on the private redis-server (from tests/api/conftest.py, one per session) for the
JavaScript client's tests."""

import pytest

from tests.api.conftest import redis_server  # noqa: F401
from tests.live.servers import Gunicorn


@pytest.fixture(scope="module")
def server(redis_server):  # noqa: F811
    with Gunicorn(redis_server.url, workers=2, threads=16) as g:
        yield g
