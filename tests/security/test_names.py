"""Names (api.game.names.clean_name) on real gunicorn and a private Redis: kept NFC, never holding control,
invisible or direction-changing characters, at most 24 characters as a person sees them, and never a
name of the game (the computer, the Mafia, its bosses, "you", a seat's number), in English or German.

Issue 29, finding 7: names accepted right-to-left marks (a name reorders the sentences it appears in),
invisible characters (a name that looks empty) and impersonation ("Computer", the bosses' names).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from tests.security.conftest import as_from

API = "/api/v1"
ROOT = Path(__file__).resolve().parents[2]

HOSTILE = {
    "an arabic letter mark": "Ann\u061c: 0 coins,",
    "a right-to-left mark": "\u200fAnn",
    "a zero-width space only": "\u200b",
    "zero-width spaces around a letter": "\u200b\u200bA\u200b",
    "a word joiner": "A\u2060nn",
    "Hangul fillers (look empty)": "\u3164\u3164",
    "the Braille blank": "\u2800",
    "a soft hyphen": "An\u00adn",
    "tag characters alone": "\U000e0041\U000e0042",
    "a byte-order mark": "\ufeffAnn",
    "combining marks alone": "\u0301\u0301",
    "a stack of combining marks": "Z" + "\u0301\u0302\u0303\u0304\u0305",
    "25 characters as seen": "e\u0301" * 25,
}
RESERVED = ["Computer", "computer 2", "C0MPUTER", "Der Computer", "Bot", "Die Mafia", "The Mafia",
            "Bohnenmafia", "Al Cabohne", "don corlebohne", "Joe Bohnano", "Cabohne", "You", "Du",
            "Player 1", "Spieler 2", "ＣＯＭＰＵＴＥＲ", "Cömputer"]


@pytest.fixture(scope="module")
def server(redis_server):
    from tests.live.servers import Gunicorn

    with Gunicorn(redis_server.url, workers=2, threads=4,
                  extra_env={"ALCABOHNE_PROXY_COUNT": "1"}) as running:
        yield running


def create(server, name: str) -> requests.Response:
    return requests.post(f"{server.url}{API}/games", json={"mode": "duo", "name": name},
                         headers=as_from("198.51.100.220"), timeout=10)


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_names_are_refused(server, name: str) -> None:
    resp = create(server, name)
    assert resp.status_code == 400, resp.text
    body = resp.json()
    assert body["code"] == "invalid_request" and "name" in json.dumps(body["errors"])
    assert "characters as a person sees them" in json.dumps(body["errors"])


@pytest.mark.parametrize("name", RESERVED)
def test_names_of_the_game_are_refused_in_both_languages(server, name: str) -> None:
    host = requests.post(f"{server.url}{API}/games", json={"mode": "duo"}, headers=as_from("198.51.100.221"),
                         timeout=10).json()
    for resp in (create(server, name), requests.post(f"{server.url}{API}/games/join", timeout=10,
                                                     json={"code": host["join_code"], "name": name})):
        assert resp.status_code == 400, resp.text
        errors = json.dumps(resp.json()["errors"], ensure_ascii=False)
        assert "belongs to the game" in errors and "gehört zum Spiel" in errors
    seats = requests.get(f"{server.url}{API}/games/{host['game_id']}", timeout=10).json()["seats"]
    assert seats[1]["taken"] is False  # the refused join changed nothing


@pytest.mark.parametrize(("given", "kept"), [
    ("Zoe\u0308", "Zo\u00eb"),                         # NFC: one character, as typed on another phone
    ("e\u0301" * 24, "\u00e9" * 24),                    # 24 as seen (48 code points as sent)
    ("Ann\u00a0\u00a0Lee", "Ann Lee"),                  # any space is one plain space
    ("\U0001f469\u200d\U0001f469\u200d\U0001f467", "\U0001f469\u200d\U0001f469\u200d\U0001f467"),  # ZWJ emoji
    ("\U0001f1e9\U0001f1ea Al", "\U0001f1e9\U0001f1ea Al"),  # a flag; Al is a person's name
    ("\u0623\u062d\u0645\u062f", "\u0623\u062d\u0645\u062f"),  # a right-to-left name is a name
    ("Ann\U000e0041\U000e0042", "Ann"),               # invisible tags beyond the BMP are dropped
    ("Joe", "Joe"), ("Donna", "Donna"), ("Duo", "Duo"),
])
def test_names_people_have_are_kept(server, given: str, kept: str) -> None:
    resp = create(server, given)
    assert resp.status_code == 201, resp.text
    assert resp.json()["seats"][0]["name"] == kept


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_phone_isolates_every_name_and_drops_what_the_server_refuses() -> None:
    """pwa/js/names.js, run in Node: every name, a right-to-left one as any other, is shown between
    isolates, so the sentence around it keeps its order; the characters the server refuses are dropped
    before sending."""
    script = """
      globalThis.localStorage = {getItem: () => null, setItem: () => {}};
      const names = await import(process.argv[1]);
      const rtl = names.seatName(0, [{seat: 0, taken: true, name: 'أحمد'}]);
      const ltr = names.seatName(0, [{seat: 0, taken: true, name: 'Ann'}]);
      console.log(JSON.stringify([rtl, ltr, names.cleanName('\\u200b\\u202eZoe\\u0308\\u2060 ')]));
    """
    url = (ROOT / "pwa" / "js" / "names.js").as_uri()
    out = subprocess.run(["node", "--input-type=module", "-e", script, url], capture_output=True, text=True,
                         timeout=30, check=False)
    assert out.returncode == 0, out.stderr
    rtl, ltr, cleaned = json.loads(out.stdout)
    assert rtl == "\u2068\u0623\u062d\u0645\u062f\u2069" and ltr == "\u2068Ann\u2069"
    assert cleaned == "Zo\u00eb"
