"""The operations room: how the server runs, is watched and is protected, apart from the game's rules.

- `metrics`: Prometheus metrics at /metrics, fed by the game service's observer; `active_games`: the
  active-games gauge, counted in the store;
- `logs`: one JSON object per log line, with the request id, secrets masked;
- `limits`: rate limits per client address and per game, counted in the store (the game service is
  given a `Limiter`); `proxies`: which peers may name the client's address (X-Forwarded-For);
- `sizing`: gunicorn threads and the socket cap per worker; `gctune`: the garbage collector's settings
  in a server process.

Limits and proxies are here rather than in the game room because they guard the server's resources
(per address, per time window), not a rule of the game; the game room only calls the limiter it is given.
"""
