"""The cyclic garbage collector's pauses in a server process (create_app calls `tune`).

Every collection holds the GIL from start to end, so it stalls every thread of the worker: the pushes
of all its sockets wait behind it. With Python's default threshold (a young collection per 700 more
container objects allocated than freed) a busy worker collects every few seconds, and its worst
pauses show in the push's p99 (tests/perf/push_bench.py; docs/architecture.md, "Measured notes").
Turning it off would let reference cycles pile up without bound, so instead:

- the young generation's threshold is raised (GC_THRESHOLD, default 50,000): a worker's games and
  frames are mostly freed by reference counting, so collections become rare, each bounded by
  the threshold;
- once per process, `gc.freeze()` moves what exists after the app is built (modules, classes, the
  app) out of the collector's sight, so the rare full collections do not walk it again.
"""

from __future__ import annotations

import gc

_frozen = False


def tune(threshold: int) -> None:
    """Set the young generation's collection threshold to `threshold` (0: leave Python's default) and,
    the first time in this process, freeze the objects that exist now. Returns None; never raises."""
    global _frozen
    if threshold <= 0:
        return
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(threshold, older, oldest)
    if not _frozen:
        _frozen = True
        gc.freeze()
