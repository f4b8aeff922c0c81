"""`alcabohne play`: Al Cabohne in the terminal, on the engine alone (no server, no network).

The table is drawn from `engine.view` of the seat to move; the choices are exactly
`engine.legal_actions`, numbered. Duo is hot-seat: a curtain hides the table between turns so
neither player sees the other's hand. Against a server (api/cli/netclient.py) the same functions draw
the views it sends, with the players' names.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable

import engine
from engine.cards import BOSS_NAMES, NAMES_EN, THRESHOLD

PHASE_HELP = {
    "leftovers": "Deal with the opponent's leftovers: plant or discard every bundle (R63).",
    "protection": "The Mafia collects: pay one card from each field that matches a boss, "
                  "or harvest that field (R66).",
    "plant": "Plant the front card of your hand, then maybe the next one; end the phase to reveal "
             "three cards (R69-R70).",
    "use": "Use the revealed beans: plant or give away bundles, give hand cards to the Mafia, "
           "then end your turn (R79-R85).",
}


def seat_label(i: int, names: list[str | None] | None = None) -> str:
    """Return how seat `i` is called: its player's name, else "Player n".

    A name is typed by a player, in any script: it is printed between first-strong and pop-directional
    isolates (U+2068 ... U+2069), so a right-to-left name cannot reorder the line around it in a terminal
    that lays out bidirectional text (the server refuses bidi controls inside names); elsewhere the two
    characters print as nothing."""
    name = names[i] if names and i < len(names) else None
    return f"\u2068{name}\u2069" if name else f"Player {i + 1}"


def bean(code: str | None) -> str:
    """Return a bean as 'BL Blue' (or '-' for nothing)."""
    return "-" if code is None else f"{code} {NAMES_EN[code]}"


def _pile(entry) -> str:
    return "empty" if entry is None else f"{bean(entry[0])} x{entry[1]}"


def render(v: dict, names: list[str | None] | None = None) -> str:
    """Return the table as text, as the viewer `v["seat"]` may see it; `names`: the seats' names."""
    seat = v["seat"]
    lines = [
        f"== Al Cabohne ({v['mode']}) - pass {v['pass']}/3 - deck {v['deck_size']} - discard "
        f"{bean(v['discard_top'])} ({v['discard_size']}) - Mafia treasury {v['treasury']}"
        + (" - LAST TURN" if v["last_turn"] else "") + " ==",
        "Mafia: " + "   ".join(
            f"{BOSS_NAMES[b]} [{_pile(e)}] (harvests at {THRESHOLD[i]} coins)"
            for i, (b, e) in enumerate(v["bosses"].items())),
    ]
    if v["display"]:
        bundles = Counter(v["display"])
        lines.append("Display: " + ", ".join(f"{bean(b)} x{n}" for b, n in bundles.items()))
    else:
        lines.append("Display: empty")
    for i, p in enumerate(v["players"]):
        who = "You" if i == seat else seat_label(i, names)
        if v["mode"] == "duo" and i == seat:
            who = f"{seat_label(i, names)} (you)"
        fields = "   ".join(
            f"{j + 1}) {_pile(f)}" + ("" if f is None else f" -> {p['harvest_values'][j]} coin(s)")
            for j, f in enumerate(p["fields"]))
        lines.append(f"{who}: coins {p['coins']}, hand {p['hand_size']}"
                     + ("" if p["third_field"] else ", third field not bought"))
        lines.append(f"   fields: {fields}")
        if p["hand"] is not None:
            hand = "  ".join(("> " if k == 0 else "") + bean(c) for k, c in enumerate(p["hand"]))
            lines.append(f"   hand (front first): {hand or 'empty'}")
    if v["phase"] in PHASE_HELP:
        turn = "" if v["mode"] == "solo" else f"{seat_label(v['active'], names)}: "
        lines.append(f"-- {turn}{v['phase']} -- {PHASE_HELP[v['phase']]}")
    return "\n".join(lines)


def describe(a: dict, v: dict) -> str:
    """Return a one-line description of an action in the context of view `v`."""
    me = v["players"][v["active"]]
    t = a["type"]
    if t == "harvest":
        f = me["fields"][a["field"]]
        return (f"Harvest field {a['field'] + 1} ({bean(f[0])} x{f[1]}) for "
                f"{me['harvest_values'][a['field']]} coin(s)")
    if t == "buy_field":
        return "Buy the third field for 4 coins"
    if t == "plant_hand":
        return f"Plant the front card {bean(me['hand'][0])} on field {a['field'] + 1}"
    if t in ("plant_display", "discard_display", "give_display"):
        n = v["display"].count(a["bean"])
        what = f"the {bean(a['bean'])} bundle (x{n})"
        if t == "plant_display":
            return f"Plant {what} on field {a['field'] + 1}"
        if t == "discard_display":
            return f"Discard {what}"
        return f"Give {what} to {BOSS_NAMES[a['boss']]}"
    if t == "give_hand":
        return (f"Give hand card {a['index'] + 1} ({bean(me['hand'][a['index']])}) to "
                f"{BOSS_NAMES[a['boss']]}")
    if t == "pay":
        f = me["fields"][a["field"]]
        boss = next(b for b, e in v["bosses"].items() if e and e[0] == f[0])
        return f"Pay one {bean(f[0])} from field {a['field'] + 1} to {BOSS_NAMES[boss]}"
    if v["phase"] == "plant":
        return "End planting and reveal three cards"
    return "End the game (final harvest)" if v["last_turn"] else "End the turn and draw two cards"


def narrate(events: list[dict], seat: int | None, names: list[str | None] | None = None) -> list[str]:
    """Return readable lines for the automatic steps among `events` (redacted for `seat`)."""
    out = []
    for e in engine.redact_events(events, seat):
        t = e["type"]
        if t == "reveal":
            out.append(f"  Revealed {bean(e['bean'])}.")
        elif t == "capture":
            out.append(f"  Revealed {bean(e['bean'])} - captured by {BOSS_NAMES[e['boss']]}!")
        elif t == "boss_harvest":
            out.append(f"  {BOSS_NAMES[e['boss']]} harvests {e['count']} {bean(e['bean'])} "
                       f"for {e['coins']} coin(s) to the Mafia's treasury.")
        elif t == "from_discard":
            out.append(f"  {bean(e['bean'])} comes from the discard pile to the display.")
        elif t == "reshuffle":
            out.append(f"  The discard pile is reshuffled: pass {e['pass']} begins "
                       f"({e['deck_size']} cards).")
        elif t == "exhausted" and e["exhaustions"] == 3:
            out.append("  The draw pile is used up for the third time.")
        elif t == "draw":
            who = "You draw" if e["seat"] == seat else f"{seat_label(e['seat'], names)} draws"
            out.append(f"  {who} {bean(e['bean'])}." if "bean" in e else f"  {who} a card.")
        elif t == "harvest" and e.get("final"):
            out.append(f"  Final harvest: {seat_label(e['seat'], names)}, field {e['field'] + 1} "
                       f"({e['count']} {bean(e['bean'])}) -> {e['coins']} coin(s).")
    return out


def result_text(v: dict, names: list[str | None] | None = None) -> str:
    """Return the final scores and winners."""
    r = v["result"]
    scores = ", ".join(f"{seat_label(i, names)}: {s}" for i, s in enumerate(r["scores"]))
    mafia = f"Mafia: {r['mafia']}" + (" (treasury doubled, R101)" if v["mode"] == "solo" else "")
    if r["winners"] == ["mafia"]:
        won = "The Mafia wins."
    else:
        won = " and ".join(seat_label(w, names) for w in r["winners"]) + " beat(s) the Mafia!"
    return f"Game over. {scores}; {mafia}. {won}"


def choose(prompt: str, n: int, inp: Callable[[str], str], out: Callable[[str], None]) -> int | None:
    """Ask until the answer is a number 1..n; return its index, or None to quit (q or end of input)."""
    while True:
        try:
            text = inp(prompt).strip().lower()
        except EOFError:
            return None
        if text in ("q", "quit", "exit"):
            return None
        if text.isdigit() and 1 <= int(text) <= n:
            return int(text) - 1
        out(f"Please type a number from 1 to {n} (or q to quit).")


def ask_action(v: dict, inp: Callable[[str], str], out: Callable[[str], None],
               names: list[str | None] | None = None) -> dict | None:
    """Show the table and the numbered legal actions of view `v`; return the chosen one, or None to quit."""
    out("")
    out(render(v, names))
    actions = v["legal_actions"]
    for i, a in enumerate(actions):
        out(f"  {i + 1:2}) {describe(a, v)}")
    k = choose(f"Your choice (1-{len(actions)}, q to quit): ", len(actions), inp, out)
    return None if k is None else actions[k]


def play(duo: bool = False, seed: int | None = None, dealer: int | None = None,
         inp: Callable[[str], str] = input, out: Callable[[str], None] = print) -> int:
    """Play one game at the terminal; return 0 when it ends or the player quits."""
    if seed is None:
        seed = secrets.randbelow(2**31)
    options = {"dealer": dealer} if duo and dealer is not None else {}
    state = engine.new_game("duo" if duo else "solo", seed, **options)
    out(f"Al Cabohne - {'duo (hot-seat)' if duo else 'solo'} - seed {seed} "
        f"(replay with --seed {seed})")
    shown = None
    pending: list[dict] = []
    while state.phase != "over":
        seat = state.active
        if duo and seat != shown:
            out("\n" * 3 + f"=== Player {seat + 1}'s turn: pass the device, then press Enter ===")
            try:
                inp("")
            except EOFError:
                return 0
            shown = seat
        for line in narrate(pending, seat):
            out(line)
        pending = []
        action = ask_action(engine.view(state, seat), inp, out)
        if action is None:
            out(f"Bye. Replay this deal with --seed {seed}.")
            return 0
        state, events = engine.apply(state, action)
        pending += events
        if not duo or state.active == seat:
            for line in narrate(pending, seat):
                out(line)
            pending = []
    for line in narrate(pending, None):
        out(line)
    v = engine.view(state, None)
    out(render(v))
    out(result_text(v))
    return 0
