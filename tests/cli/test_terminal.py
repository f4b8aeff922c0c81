"""The terminal game (`alcabohne play`): full games through the prompt, bad input, reproducibility."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from api.cli.terminal import play

PROMPT = re.compile(r"Your choice \(1-(\d+), q to quit\): ")


class Player:
    """Answers the prompt like a person: a random legal number, sometimes nonsense first."""

    def __init__(self, seed: int, nonsense: float = 0.0):
        self.rng = random.Random(seed)
        self.nonsense = nonsense
        self.lines: list[str] = []
        self.prompts: list[str] = []
        self.transcript: list[tuple[str, str]] = []
        self.rejected = 0

    def out(self, text: str) -> None:
        self.lines.append(text)
        self.transcript.append(("out", text))

    def inp(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.transcript.append(("in", prompt))
        m = PROMPT.fullmatch(prompt)
        if not m:  # the hot-seat curtain: "press Enter"
            return ""
        n = int(m.group(1))
        if self.rng.random() < self.nonsense:
            self.rejected += 1
            return self.rng.choice(["", "0", str(n + 1), "abc", "-1", "1.5"])
        return str(self.rng.randint(1, n))


@pytest.mark.parametrize("duo", [False, True])
def test_play_a_full_game_to_the_result(duo):
    """A whole game at the prompt ends with scores and a winner (R100-R103)."""
    p = Player(seed=3)
    assert play(duo=duo, seed=11, inp=p.inp, out=p.out) == 0
    text = "\n".join(p.lines)
    assert "Game over." in text
    assert "Mafia:" in text.splitlines()[-1]


def test_bad_input_gets_a_clear_message_and_the_same_prompt():
    p = Player(seed=5, nonsense=0.3)
    play(seed=2, inp=p.inp, out=p.out)
    assert p.rejected > 0
    complaints = [line for line in p.lines if line.startswith("Please type a number from 1 to")]
    assert len(complaints) == p.rejected
    # after each complaint the very same prompt is asked again, with nothing else printed between
    t = p.transcript
    for i, (kind, text) in enumerate(t):
        if kind == "out" and text.startswith("Please type"):
            assert t[i - 1][0] == "in" and t[i + 1] == t[i - 1]


def test_same_seed_and_answers_give_the_same_game():
    a, b = Player(seed=9), Player(seed=9)
    play(duo=True, seed=77, inp=a.inp, out=a.out)
    play(duo=True, seed=77, inp=b.inp, out=b.out)
    assert a.lines == b.lines


def test_hot_seat_never_shows_the_other_hand():
    """R17: in duo hot-seat, only the active player's hand is printed."""
    p = Player(seed=4)
    play(duo=True, seed=5, inp=p.inp, out=p.out)
    hands = [line for line in p.lines if "hand (front first)" in line]
    assert hands
    curtain = [i for i, line in enumerate(p.lines) if "pass the device" in line]
    assert len(curtain) > 2


def test_table_shows_what_the_player_needs():
    p = Player(seed=1)
    play(seed=3, inp=p.inp, out=p.out)
    text = "\n".join(p.lines)
    for needle in ("pass 1/3", "deck ", "discard", "treasury", "Al Cabohne", "Don Corlebohne",
                   "Joe Bohnano", "fields:", "hand (front first): > ", "coin(s)"):
        assert needle in text


def test_quit_and_end_of_input_stop_cleanly():
    out: list[str] = []
    assert play(seed=1, inp=lambda _p: "q", out=out.append) == 0
    assert "Replay this deal with --seed 1" in out[-1]

    def eof(_p):
        raise EOFError

    assert play(seed=1, inp=eof, out=out.append) == 0


def test_console_script_runs_a_game_from_stdin():
    answers = "\n".join(["1"] * 4000) + "\n"
    r = subprocess.run([sys.executable, "-m", "api.cli", "play", "--seed", "5"], input=answers,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert "seed 5" in r.stdout
    assert "Game over." in r.stdout
