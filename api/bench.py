"""A bare baseline endpoint for tests/perf/api_bench.py: one Redis GET and one SET, nothing else.

Registered only when the BENCH setting (ALCABOHNE_BENCH=1) is on, so that the benchmark can compare a
real move with the cheapest request that still touches Redis, on the same server.
"""

from __future__ import annotations

import secrets

from flask import Blueprint, jsonify


def make_blueprint(redis_url: str) -> Blueprint:
    """Return the blueprint with GET /api/v1/bench/baseline (needs a redis:// store URL)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    bp = Blueprint("bench", __name__)

    @bp.get("/api/v1/bench/baseline")
    def baseline():
        """Read and write one small key."""
        key = "cg:v1:bench:" + secrets.token_hex(2)
        value = client.get(key)
        client.set(key, b"x" * 64, ex=300)
        return jsonify(found=value is not None)

    return bp
