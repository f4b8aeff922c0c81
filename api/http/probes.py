"""Probes for orchestrators and load balancers, outside /api (no CORS, no OpenAPI, no store rules).

    GET /healthz   200 while the process serves requests; never touches the store (liveness: a store
                   outage must not get every app process restarted)
    GET /readyz    200 when the store answers PING, else 503 (readiness: take this instance out of the
                   pool until its store is back)

`GET /api/v1/health` (api.http.routes) stays the documented public check, equal to /readyz.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

bp = Blueprint("probes", __name__)


def _no_store(resp):
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/healthz")
def healthz():
    """Answer 200 while the process is alive."""
    return _no_store(jsonify(status="ok"))


@bp.get("/readyz")
def readyz():
    """Answer 200 when the store answers, 503 otherwise."""
    if current_app.extensions["alcabohne.service"].store.ping():
        return _no_store(jsonify(status="ok"))
    resp = jsonify(status="unavailable", detail="the game store does not answer")
    resp.status_code = 503
    resp.headers["Retry-After"] = "5"
    return _no_store(resp)
