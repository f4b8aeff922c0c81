"""The JavaScript client's promises (pwa/js/client.js, docs/clients.md) against a real server.

tests/clients/checks.mjs runs each check in Node with the client alone and prints one JSON line per
check: problems as ApiError, no answer as NetworkError, an action resent with the same Idempotency-Key
(HTTP) or id (websocket) applied once, a version gap filled from the event log, duplicated and old
states dropped across a reconnect, a silent socket replaced, a socket ended for good (bad token) not
reconnected, a watcher's table view, and the remaining operations (hint, record, rematch, transfer, QR).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.node import node_command

CHECKS = Path(__file__).with_name("checks.mjs")
ROOT = Path(__file__).resolve().parents[2]
NAMES = {
    "problems become ApiError with code, status, detail and the problem",
    "no answer is a NetworkError, retryable",
    "act resends the same Idempotency-Key when the answer is lost: applied once",
    "a gap: the state is handed on with the events in between, read over HTTP",
    "states at or below the version held are dropped, also after a reconnect",
    "an action resent on the socket with the same id is acked once, not applied twice",
    "silence for longer than `silence` replaces the socket, which says hello with the version held",
    "a socket ended for good (bad token) calls onError once and stops reconnecting",
    "a watcher (no token) follows the table view and may not act",
    "hint, record, rematch and transfer",
}


def test_the_client_keeps_its_promises(server):
    run = subprocess.run([*node_command(), str(CHECKS), server.url], cwd=ROOT, capture_output=True, text=True,
                         check=False, timeout=600)
    results = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    failed = [r for r in results if not r["ok"]]
    assert not failed, json.dumps(failed, indent=1) + run.stderr
    assert {r["check"] for r in results} == NAMES, run.stdout + run.stderr
    assert run.returncode == 0, run.stderr
