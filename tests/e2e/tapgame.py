"""A scripted duo game played by taps on two phones, counting taps and scrolls per turn.

The game is fixed: the server's seed is pinned (SEED) and every move is the greedy bot's choice for the
view on screen (seeded by the version), so two versions of the client play exactly the same game and
their figures can be compared. Only the hooks both the old and the new client carry are used:
`.table[data-version][data-busy]`, `[data-act]` (one tap does an action) and `[data-pick]` (a bundle or
a hand card to select first).

A tap on something outside the viewport counts one scroll first (the player has to scroll to reach it).
A move the client makes by itself (no choice) costs no tap. Where the phone offers the table's next
two moves as one tap ("Harvest & plant"), the table takes it, and where it has picked
what the table moves next anyway, the table moves that first if the game stays the same: that is how
a table that follows the flow plays. The moves are still exactly the bot's, in the bot's game (the
`[data-act]` of such a tap joins its moves with "+"). `check` is called before each decision and
before each tap, so a test can assert where things are.
"""

from __future__ import annotations

import json
import random
import secrets
import statistics
import urllib.error
import urllib.request

import engine
from engine.bots.knowledge import determinize

SEED = 4242  # a duo game of ordinary length (about 40 turns)
# Inside the viewport and not covered (a fixed bar over it would take the tap): tappable as it is.
IN_VIEW = """(sel) => { const el = document.querySelector(sel); if (!el) return null;
  const r = el.getBoundingClientRect();
  if (!(r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth)) return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(hit) && (el === hit || el.contains(hit)); }"""
# Whether the "While you were away" summary is what lies over the middle of the target.
UNDER_AWAY = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(hit && hit.closest('[data-follow="away"]')); }"""
# How many lines of the summary can be read without scrolling: the part of it inside its slot, above
# the dock and inside the viewport, in lines of its text.
AWAY_LINES = """() => { const el = document.querySelector('[data-follow="away"]'); if (!el) return null;
  const r = el.getBoundingClientRect();
  const slot = el.parentElement.getBoundingClientRect();
  const dock = document.querySelector('.dock');
  const floor = dock ? dock.getBoundingClientRect().top : innerHeight;
  const top = Math.max(r.top, slot.top, 0);
  const bottom = Math.min(r.bottom, slot.bottom, floor, innerHeight);
  const line = parseFloat(getComputedStyle(el.querySelector('li') || el).lineHeight);
  return Math.round(10 * Math.max(0, bottom - top) / line) / 10; }"""


# The offer of a notification on the waiting phone: its text, and whether it overlaps the hand.
OFFER = """() => { const o = document.querySelector('[data-follow="notify-offer"]'); if (!o) return null;
  const a = o.getBoundingClientRect(), h = document.querySelector('.handbox').getBoundingClientRect();
  const overlap = Math.max(0, Math.min(a.bottom, h.bottom) - Math.max(a.top, h.top));
  return { text: o.textContent, overlap,
           grown: document.scrollingElement.scrollHeight - innerHeight }; }"""


def following_the_hint(real):
    """engine.bots.choose for a table that follows the flow: the tap script's moves (it asks the greedy
    bot; nothing else in these tests does) become the app's own hint (engine.bots.hint, what GET /hint
    answers)."""
    from engine.bots import hint

    def choose(name, view, seed, **budget):
        return hint.hint(view, seed)[0] if name == "greedy" else real(name, view, seed, **budget)

    return choose


def duo_table(base: str, phone, monkeypatch, table: str) -> tuple[str, list[str], list]:
    """The pinned duo game on two phones (`phone(name)` makes one) whose moves are the greedy bot's
    (`table` "greedy") or the app's hint ("hint"); return (game id, tokens, [seat 0's page, seat 1's])."""
    pin_seed(monkeypatch)
    if table == "hint":
        monkeypatch.setattr(engine.bots, "choose", following_the_hint(engine.bots.choose))
    game_id, tokens = new_duo(base)
    pages = [phone("seat0", whole=True), phone("seat1", whole=True)]  # the offer of a notification
    for seat, page in enumerate(pages):
        open_seat(page, game_id, seat, tokens[seat])
    return game_id, tokens, pages


def offers_of_the_waiting_phone(a, b, offers: list, keep: int = 3):
    """A `decision` for play() on two phones a, b: note the other phone's notification offer (OFFER)."""

    def waiting_phone(page, view):
        other = b if page is a else a
        if len(offers) < keep and (seen := other.evaluate(OFFER)) is not None:
            offers.append(seen)

    return waiting_phone


def pin_seed(monkeypatch, seed: int = SEED):
    """Every game created from now on is dealt from `seed` (join codes and tokens stay random)."""
    real = secrets.randbelow

    def fixed(n):
        return seed if n == 2**53 else real(n)

    monkeypatch.setattr(secrets, "randbelow", fixed)


def http(base: str, method: str, path: str, body=None, token: str | None = None) -> dict:
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + "/api/v1" + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def new_duo(base: str) -> tuple[str, list[str]]:
    """Create a duo game (seat 0 deals, so seat 1 starts) and take the second seat; (id, tokens)."""
    a = http(base, "POST", "/games", {"mode": "duo", "dealer": 0})
    b = http(base, "POST", "/games/join", {"code": a["join_code"]})
    return a["game_id"], [a["token"], b["token"]]


def open_seat(page, game_id: str, seat: int, token: str, mode: str = "duo") -> None:
    """This phone holds `seat` (as after joining) and shows the game."""
    record = {game_id: {"mode": mode, "tokens": {str(seat): token}, "created": 0}}
    # The storage is the origin's: a small page of it (not the app, which would start) is enough to
    # write it, and the app then starts once, from the stored seat. That page names no icon, so the
    # browser asks for /favicon.ico, which the server does not have (a 404 is a console error).
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    page.goto("/healthz")
    page.evaluate("(r) => localStorage.setItem('alc.games', JSON.stringify(r))", record)
    page.goto(f"/#/g/{game_id}")
    page.wait_for_selector(".table")


def act_key(a: dict) -> str:
    """The client's `data-act` for an action (pwa/js/targets.js actKey)."""
    t = a["type"]
    if t in ("harvest", "pay", "plant_hand"):
        return f"{t}:{a['field']}"
    if t == "plant_display":
        return f"{t}:{a['bean']}:{a['field']}"
    if t == "discard_display":
        return f"{t}:{a['bean']}"
    if t == "give_display":
        return f"{t}:{a['bean']}:{a['boss']}"
    if t == "give_hand":
        return f"{t}:{a['index']}:{a['boss']}"
    return t


def pick_of(a: dict) -> str | None:
    """The `data-pick` to select before the action's target appears (two-tap moves), else None."""
    if a["type"] == "give_hand":
        return f"hand:{a['index']}"
    if a["type"] in ("plant_display", "discard_display", "give_display"):
        return f"bundle:{a['bean']}"
    return None


# The phases of a turn with decisions, in their order: a decision in an earlier phase than the last one
# begins a new turn (in solo the seat never changes, and the client may end a turn by itself).
PHASE_ORDER = {"leftovers": 0, "protection": 1, "plant": 2, "use": 3}


class Meter:
    """Taps and scrolls per turn, with the turn told apart by the seat to move and the phase."""

    def __init__(self):
        self.turns: list[dict] = []

    def turn(self, seat: int, version: int, phase: str | None = None) -> dict:
        last = self.turns[-1] if self.turns else None
        if (last is None or last["seat"] != seat or last.get("closed")
                or PHASE_ORDER.get(phase, 0) < PHASE_ORDER.get(last.get("phase"), 0)):
            self.turns.append({"seat": seat, "from": version, "taps": 0, "scrolls": 0, "moves": 0, "away": 0})
        self.turns[-1]["phase"] = phase
        return self.turns[-1]

    def summary(self) -> dict:
        taps = [t["taps"] for t in self.turns]
        scrolls = [t["scrolls"] for t in self.turns]
        lines = [t["away_lines"] for t in self.turns if t.get("away_lines") is not None]
        away = [t["taps"] - t.get("away", 0) for t in self.turns]
        # What the layout itself asks: moves and picks (no away card, no harvest-for-nothing question).
        plain = [t["taps"] - t.get("away", 0) - t.get("confirm", 0) for t in self.turns]
        return {"turns": len(self.turns), "moves": sum(t["moves"] for t in self.turns),
                "taps_median_without_away_card": statistics.median(away) if away else 0,
                "taps_median_moves_and_picks": statistics.median(plain) if plain else 0,
                "taps_total": sum(taps), "scrolls_total": sum(scrolls),
                "taps_median": statistics.median(taps) if taps else 0,
                "taps_by_kind": {k: sum(t.get(k, 0) for t in self.turns)
                                 for k in ("act", "pick", "confirm", "away")},
                "scrolls_median": statistics.median(scrolls) if scrolls else 0,
                "harvest_and_plant": sum(t.get("combo", 0) for t in self.turns),
                "picked_first": sum(t.get("first", 0) for t in self.turns),
                # Turns that began with the "While you were away" summary, and the fewest of its lines
                # readable at such a turn's first decision.
                "away_shown": len(lines),
                "away_lines_min": min(lines, default=None),
                "taps_mean": round(statistics.mean(taps), 2) if taps else 0,
                "scrolls_mean": round(statistics.mean(scrolls), 2) if scrolls else 0}


def close_away_card(page, turn: dict) -> None:
    page.click('[data-follow="away-close"]')
    page.wait_for_selector('[data-follow="away"]', state="detached")
    turn["taps"] += 1
    turn["away"] = turn.get("away", 0) + 1


def tap(page, selector: str, turn: dict, check=None) -> None:
    page.wait_for_selector(selector)
    if check:
        check(page, selector)
    if not page.evaluate(IN_VIEW, selector):
        if page.evaluate(UNDER_AWAY, selector):
            close_away_card(page, turn)  # the summary lies over the target: one tap to put it away
        if not page.evaluate(IN_VIEW, selector):
            turn["scrolls"] += 1
            page.locator(selector).scroll_into_view_if_needed()
    page.click(selector)
    turn.setdefault("log", []).append(selector)
    turn["taps"] += 1
    kind = "confirm" if "confirm" in selector else "pick" if "data-pick" in selector else "act"
    turn[kind] = turn.get(kind, 0) + 1


def sampled(per_kind: int = 2, every: int = 20):
    """An `on_phone` choice for play(): the first `per_kind` decisions of each (phase, action kind) and then
    every `every`-th decision are tapped on the phone; the others go over HTTP, and the phone follows
    the game as it would follow the other player. Every phase and every kind of move is still tapped
    and looked at, in a fraction of a whole tapped game's time."""
    seen: dict[tuple[str, str], int] = {}
    count = {"n": 0}

    def tap_here(view: dict, action: dict) -> bool:
        count["n"] += 1
        kind = (view["phase"], action["type"])
        seen[kind] = seen.get(kind, 0) + 1
        return seen[kind] <= per_kind or count["n"] % every == 0

    return tap_here


def post_move(base: str, game_id: str, token: str, action: dict, version: int) -> dict | None:
    """Make a move over HTTP and return the answer (the mover's new view); a stale version (the client
    moved by itself meanwhile) is no error here: None, and the caller reads the game again."""
    try:
        return http(base, "POST", f"/games/{game_id}/actions", {"action": action, "version": version},
                    token=token)
    except urllib.error.HTTPError as err:
        if err.code != 409:
            raise
    return None


# One round trip to the page per tapped decision: wait until it shows version `v` or later with nothing in
# flight (no animation, no pending move, its copy of the log caught up), then say what it offers.
CAUGHT_UP = """(v) => { const t = document.querySelector('.table');
  if (!t || t.dataset.busy !== '0' || document.querySelector('.pending')
      || document.querySelector('[data-follow-log="sync"]') || Number(t.dataset.version) < v) return false;
  return { version: Number(t.dataset.version),
           away: Boolean(document.querySelector('[data-follow="away"]')),
           choice: Boolean(document.querySelector('[data-act], [data-pick]')) }; }"""
# The client makes a move without a choice by itself: wait until it has, or until a choice appears.
MOVED_OR_CHOICE = """(v) => { const t = document.querySelector('.table');
  return (t && Number(t.dataset.version) > v)
    || Boolean(document.querySelector('[data-act], [data-pick]')); }"""
# Past version `v`: the page showed it and made its move without a choice (or saw a later version).
PAST = """(v) => { const t = document.querySelector('.table');
  return Boolean(t) && Number(t.dataset.version) > v; }"""
# The move the client makes by itself at this view (pwa/js/views/flow.js, the client's own code), or null.
FLOW_MOVE = "async (v) => (await import('/js/views/flow.js')).flowMove(v, v.legal_actions)"


def flow_move(view: dict) -> dict | None:
    """What pwa/js/views/flow.js flowMove answers for the seat's view: the move the phone makes by itself.

    A copy, so that a decision made over HTTP costs no round trip to the page; play() compares it with
    the client's own answer (FLOW_MOVE) at every tapped decision, so it cannot drift unnoticed."""
    legal = view["legal_actions"]
    if len(legal) == 1 and legal[0]["type"] != "buy_field":
        return legal[0]
    end = next((a for a in legal if a["type"] == "end_phase"), None)
    if end is None or not all(a["type"] in ("end_phase", "harvest", "buy_field") for a in legal):
        return None
    me = view["players"][view["active"]] or {}
    if view["phase"] == "plant":
        return end if view.get("planted", 0) >= 2 or me.get("hand_size") == 0 else None
    if view["phase"] == "use":
        return end if not view["display"] else None
    return None


def offers_harvest_then_plant(view: dict, plant: dict) -> bool:
    """Whether the phone offers "harvest + plant" for `plant` (pwa/js/targets.js harvestThenPlant): the
    bean (the front card while planting, a display bundle while dealing with the display) has nowhere
    to go now (and the harvest is legal: then_plant asks only about a harvest the table makes).
    A copy, checked against the page wherever play() relies on it."""
    me = view["players"][view["active"]]
    if plant["type"] == "plant_hand" and (view["phase"] != "plant" or view["planted"] >= 2):
        return False
    if plant["type"] == "plant_display" and view["phase"] not in ("leftovers", "use"):
        return False
    if plant.get("bean") is None and not me["hand"]:
        return False
    return not any(a["type"] == plant["type"] and a.get("bean") == plant.get("bean")
                   for a in view["legal_actions"])


def then_plant(view: dict, action: dict, version: int) -> dict | None:
    """The table's next move after the harvest `action` when it plants onto the harvested field (the
    phone's "harvest + plant" makes both with one tap), else None: the move engine.bots.choose makes at
    the seat's view after the harvest, found by applying the harvest to a state consistent with `view`
    (engine.bots.knowledge.determinize: the seat's view after a harvest does not depend on what it
    cannot see). None too where the phone would plant by itself (flow_move)."""
    if action["type"] != "harvest":
        return None
    after = engine.view(engine.apply(determinize(view, random.Random(version)), action)[0], view["active"])
    if after["active"] != view["active"] or flow_move(after) is not None:
        return None
    nxt = engine.bots.choose("greedy", after, version + 1)
    if nxt["type"] in ("plant_hand", "plant_display") and nxt["field"] == action["field"]:
        return nxt if offers_harvest_then_plant(view, nxt) else None
    return None


# The bundle or hand card the phone has picked for the player (flow.js preselect), or null.
PICKED = "() => { const e = document.querySelector('.table .pick.on'); return e && e.dataset.pick; }"


def picked_first(view: dict, action: dict, version: int, picked: str | None) -> dict | None:
    """The table's next move after `action` when it moves what the phone has picked already (`picked`,
    its data-pick) and may come first instead: made first, it spares the pick of `action`'s bundle or
    card, and the game is the same. That is so when the table would make `action` right after it, and
    both orders leave the same table (found on a state consistent with `view`, as then_plant does; the
    moves concerned, plantings, gifts and discards, change nothing the seat cannot see)."""
    pick = pick_of(action)
    if pick is None or picked is None or picked == pick:
        return None
    seat, state = view["active"], determinize(view, random.Random(version))
    after_a = engine.apply(state, action)[0]
    view_a = engine.view(after_a, seat)
    if view_a["active"] != seat or flow_move(view_a) is not None:
        return None
    first = engine.bots.choose("greedy", view_a, version + 1)
    if pick_of(first) != picked or first not in view["legal_actions"]:
        return None
    after_b = engine.apply(state, first)[0]
    view_b = engine.view(after_b, seat)
    if flow_move(view_b) is not None or engine.bots.choose("greedy", view_b, version + 1) != action:
        return None
    both = [engine.apply(after_b, action)[0], engine.apply(after_a, first)[0]]
    return first if engine.view(both[0], seat) == engine.view(both[1], seat) else None


def play(base: str, game_id: str, tokens: list[str], pages: list, *, check=None, decision=None,
         close_away: bool = False, limit: int = 2000, on_phone=None, turns: int | None = None,
         until=None) -> Meter:
    """Play the game to its end through the pages (one per seat; the same page twice for hot-seat).

    close_away: close the "While you were away" summary before each tapped decision (to look at the
    bare table); otherwise it is tapped only if it lies over the target.
    on_phone: None taps every decision; else `on_phone(view, action)` says whether to tap this one (see
    sampled()) or make it over HTTP (no `decision` or `check` call, no taps counted). A decision made
    over HTTP does not wait for the phone: the phone follows behind and is caught up (every version it
    was sent shown, nothing in flight) before each tapped decision. A move without a choice
    (flow.js flowMove) is never posted by the test: the phone makes it by itself once it shows that
    version (were both to post it, one would get a 409, which the phone logs as a console error), so
    the phone is caught up there too.
    turns: stop at the first decision of turn `turns + 1` (the meter then holds `turns` whole turns).
    until: stop before the next decision once `until()` is true (the game goes on: see finish_unwatched)."""
    meter = Meter()
    answer = None  # the last HTTP answer: the mover's view, so that a turn played over HTTP reads nothing
    for _ in range(limit):
        g = answer or http(base, "GET", f"/games/{game_id}", token=tokens[0])
        answer = None
        view = g["view"]
        if view["phase"] == "over":
            for p in pages:
                p.wait_for_selector('.table[data-phase="over"]')
            return meter
        if until is not None and until():
            return meter
        seat = view["active"]
        page = pages[seat]
        mine = g if g["view"].get("seat", 0) == seat else http(base, "GET", f"/games/{game_id}",
                                                                token=tokens[seat])
        if mine["view"]["active"] != seat or not mine["view"]["legal_actions"]:
            continue  # a client moved by itself between the two reads: read the game again
        version = mine["version"]
        action = None
        if on_phone is not None:
            if flow_move(mine["view"]) is not None:
                # The phone's own move: wait until it has shown this version and made it (generous: on a
                # loaded machine a page may take seconds to render a burst of versions).
                page.wait_for_function(PAST, arg=version, timeout=30000)
                continue
            action = engine.bots.choose("greedy", mine["view"], version)
            if not on_phone(mine["view"], action):
                answer = post_move(base, game_id, tokens[seat], action, version)
                continue
        shown = page.wait_for_function(CAUGHT_UP, arg=version, timeout=30000).json_value()
        if shown["version"] > version:  # the client made a move by itself meanwhile: read the game again
            continue
        if on_phone is not None:  # the copy of flowMove says what the client says (no move by itself here)
            assert page.evaluate(FLOW_MOVE, mine["view"]) is None, ("flow.js changed: see flow_move", version)
        turn = meter.turn(seat, version, view["phase"])
        if turns is not None and len(meter.turns) > turns:
            meter.turns.pop()
            return meter
        # The new client tells the player what happened while they waited once its copy of the game's
        # log has caught up. It costs a tap only if it lies over the target (see tap()); how much of it
        # can be read at the turn's first decision is noted (away_lines).
        if "away_lines" not in turn and shown["away"]:
            turn["away_lines"] = page.evaluate(AWAY_LINES)
        if close_away and shown["away"]:
            close_away_card(page, turn)
        if not shown["choice"]:
            page.wait_for_function(MOVED_OR_CHOICE, arg=version, timeout=30000)
            continue
        action = action or engine.bots.choose("greedy", mine["view"], version)
        if decision:
            decision(page, mine["view"])
        # A harvest followed by a planting onto that field is one tap ("harvest + plant") where the
        # phone offers it (offers_harvest_then_plant); the bundle to plant is picked first if need be.
        picked = page.evaluate(PICKED) if pick_of(action) else None
        first = picked_first(mine["view"], action, version, picked)
        if first is not None:  # what the phone picked goes first: the same game, one pick fewer
            action = first
            turn["first"] = turn.get("first", 0) + 1
        then = then_plant(mine["view"], action, version)
        combo = f"{act_key(action)}+{act_key(then)}" if then else None
        pick = pick_of(then or action)
        key = act_key(action)
        if combo:
            if pick and not page.locator(f'[data-act="{combo}"]').count():
                tap(page, f'[data-pick="{pick}"]', turn, check)
            tap(page, f'[data-act="{combo}"]', turn, check)
            turn["moves"] += 2
            turn["combo"] = turn.get("combo", 0) + 1
            page.wait_for_function(PAST, arg=version + 1)
            continue
        if pick and not page.locator(f'[data-act="{key}"]').count():
            tap(page, f'[data-pick="{pick}"]', turn, check)
        tap(page, f'[data-act="{key}"]', turn, check)
        turn["moves"] += 1
        # A harvest that pays nothing asks first (the new client): answering is one more tap.
        page.wait_for_function("(v) => { const t = document.querySelector('.table');"
                               " return (t && Number(t.dataset.version) > v)"
                               " || Boolean(document.querySelector('[data-confirm=yes]')); }", arg=version)
        if page.locator("[data-confirm=yes]").count():
            tap(page, "[data-confirm=yes]", turn, check)
            page.wait_for_function("(v) => { const t = document.querySelector('.table');"
                                   " return t && Number(t.dataset.version) > v; }", arg=version)
        if action["type"] == "end_phase" and view["phase"] == "use":
            turn["closed"] = True
    raise AssertionError("the game did not end")


def finish_unwatched(base: str, game_id: str, tokens: list[str], pages: list, limit: int = 2000) -> None:
    """Play the rest of the game over HTTP (the greedy bot's moves, the moves without a choice included)
    while no page shows it, then open it again on every page at its end.

    A page that shows the game makes its moves without a choice by itself, so a game it follows goes at
    the pace of its rendering, one version after another; a blank page makes none."""
    for p in pages:
        p.goto("about:blank")
    answer = None  # the mover's view, answered to the move
    for _ in range(limit):
        g = answer or http(base, "GET", f"/games/{game_id}", token=tokens[0])
        if g["view"]["phase"] == "over":
            break
        seat = g["view"]["active"]
        mine = g if g["view"].get("seat", 0) == seat else http(base, "GET", f"/games/{game_id}",
                                                                token=tokens[seat])
        view = mine["view"]
        action = flow_move(view) or engine.bots.choose("greedy", view, mine["version"])
        answer = http(base, "POST", f"/games/{game_id}/actions",
                      {"action": action, "version": mine["version"]}, token=tokens[seat])
    else:
        raise AssertionError("the game did not end")
    for p in pages:
        p.goto(f"/#/g/{game_id}")
        p.wait_for_selector('.table[data-phase="over"]')
