"""The `alcabohne` command: `play` (terminal game), `simulate` (bot games), `verify` and `replay` (game
records), `serve` (the online server).

Each subcommand lives in its own module here and is imported only when chosen: `play`, `simulate`,
`verify` and `replay` run on the engine (and, for `play --server`, a websocket client) without Flask or
Redis; `serve` brings in the server. tests/cli/test_cli_imports.py holds them to that.
"""

from __future__ import annotations

import argparse
import os
import sys


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="alcabohne", description="Al Cabohne - two against the Bean Mafia")
    sub = ap.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play in the terminal (solo, or --duo hot-seat)")
    play.add_argument("--duo", action="store_true", help="two players at one terminal (hot-seat)")
    play.add_argument("--seed", type=int, default=None, help="reproduce a game (the seed is printed)")
    play.add_argument("--dealer", type=int, choices=(0, 1), default=None, help="duo: who deals (R50)")
    play.add_argument("--server", metavar="URL", default=None,
                      help="play on a server (e.g. http://192.168.1.20:8000): a new game, or --join CODE")
    play.add_argument("--join", metavar="CODE", default=None,
                      help="with --server: take a seat with a join code")
    play.add_argument("--name", default=None,
                      help="with --server: your name at the table (shown to the other player)")

    sim = sub.add_parser("simulate", help="bots play many games; print win rates (engine only)")
    sim.add_argument("--mode", choices=("solo", "duo"), default="duo")
    sim.add_argument("--bots", default="mc,greedy",
                     help="comma-separated bot names (duo: two; solo: each plays the same deals)")
    sim.add_argument("--games", type=int, default=100, help="games per bot (solo) or in all (duo)")
    sim.add_argument("--seed", type=int, default=1, help="first deal seed")
    sim.add_argument("--jobs", type=int, default=1, help="worker processes (one per CPU core at most)")
    sim.add_argument("--playouts", type=int, default=None, help="mc budget: playouts per decision")
    sim.add_argument("--width", type=int, default=None, help="mc budget: root actions tried")
    sim.add_argument("--horizon", type=int, default=None, help="mc budget: turns per playout (0: to the end)")

    verify = sub.add_parser("verify", help="check a finished game's record (GET /games/{id}/record)")
    verify.add_argument("record", metavar="RECORD.json")
    verify.add_argument("--commitment", default=None,
                        help="the seed_commitment the server published when the game began")
    replay = sub.add_parser("replay", help="step through a game record in the terminal")
    replay.add_argument("record", metavar="RECORD.json")
    replay.add_argument("--all", action="store_true", help="print every action without waiting for Enter")

    serve = sub.add_parser("serve", help="run the online server (gunicorn)")
    serve.add_argument("--host", default="0.0.0.0", help="listen address (default: all, for the LAN)")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes (more than 1 needs REDIS_URL)")
    serve.add_argument("--data-dir", default=os.environ.get("ALCABOHNE_DATA_DIR"),
                       help="where the embedded store keeps games (default: XDG data dir)")
    serve.add_argument("--public-url", default=os.environ.get("PUBLIC_URL"),
                       help="base URL phones use (default: http://<LAN address>:<port>)")
    serve.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                       help="use Redis instead of the embedded store (env REDIS_URL)")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    args = _parser().parse_args(argv)
    if args.command == "play" and (args.server or args.join):
        if not args.server:
            _parser().error("--join needs --server URL")
        from .netclient import play_online

        return play_online(args.server, join=args.join, duo=args.duo, name=args.name)
    if args.command == "play":
        from .terminal import play

        return play(duo=args.duo, seed=args.seed, dealer=args.dealer)
    if args.command in ("verify", "replay"):
        return _record_command(args)
    if args.command == "simulate":
        from .simulate import main as simulate

        budget = {k: v for k in ("playouts", "width", "horizon") if (v := getattr(args, k)) is not None}
        return simulate(args.mode, args.bots.split(","), args.games, args.seed, args.jobs, budget)
    from .serve import serve

    serve(args.host, args.port, args.workers, args.data_dir, args.public_url, args.redis_url)
    return 0


def _record_command(args) -> int:
    """Run `verify` or `replay`; return 0, or 1 with the reason on stderr when the record does not hold."""
    from api.game import records

    try:
        record = records.load(args.record)
        if args.command == "replay":
            from .replay import replay

            return replay(record, wait=not args.all)
        result = records.verify(record, args.commitment)
    except records.RecordError as err:
        print(f"alcabohne {args.command}: {args.record}: {err}", file=sys.stderr)
        return 1
    scores = ", ".join(map(str, result["scores"]))
    print(f"OK: {args.record}: seed matches its commitment {record['seed_commitment']}; "
          f"{len(record['actions'])} actions replay to scores {scores}, Mafia {result['mafia']}, "
          f"winners {result['winners']}")
    return 0

