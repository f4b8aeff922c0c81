"""`alcabohne simulate` (api/cli/simulate.py): fair seating, Wilson intervals, summaries, the command."""

import pytest

from api.cli import main as cli_main
from api.cli.simulate import make_jobs, run, summarize_duo, summarize_solo, wilson


def test_wilson_interval_known_values():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4)
    assert hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == 1.0
    assert lo == pytest.approx(0.7225, abs=1e-4)


def test_duo_games_come_in_pairs_on_one_deal_with_seats_swapped():
    jobs = make_jobs("duo", ["mc", "greedy"], 6, 100, {})
    assert [j.seats for j in jobs] == [["mc", "greedy"], ["greedy", "mc"]] * 3
    assert [j.deal_seed for j in jobs] == [100, 100, 101, 101, 102, 102]
    assert len({j.bot_seed for j in jobs}) == 6


def test_solo_bots_play_the_same_deals():
    jobs = make_jobs("solo", ["greedy", "random"], 3, 7, {})
    assert [(j.seats, j.deal_seed) for j in jobs] == [
        (["greedy"], 7), (["greedy"], 8), (["greedy"], 9), (["random"], 7), (["random"], 8), (["random"], 9)]


@pytest.mark.parametrize("bots, mode", [(["greedy"], "duo"), (["nobody", "greedy"], "duo"),
                                        (["greedy"], "trio")])
def test_bad_runs_are_refused(bots, mode):
    with pytest.raises(ValueError):
        make_jobs(mode, bots, 2, 1, {})


def test_duo_summary_counts_every_game_once():
    games = run("duo", ["greedy", "random"], 6, 3)
    s = summarize_duo(games)
    assert s["games"] == 6
    st = s["stats"]
    decided = sum(1 for _, r in games if r["winners"] != ["mafia"])
    assert s["mafia_wins"] == 6 - decided
    seat_wins = sum(len(r["winners"]) for _, r in games if r["winners"] != ["mafia"])
    assert sum(st[b]["wins"] + st[b]["shared"] for b in ("greedy", "random")) == seat_wins
    assert st["greedy"]["score"] + st["random"]["score"] == sum(sum(r["scores"]) for _, r in games)


def test_solo_summary_finds_the_longest_win_streak():
    win, loss = {"scores": [9], "mafia": 4, "winners": [0]}, {"scores": [1], "mafia": 4, "winners": ["mafia"]}
    seq = [win, win, loss, win, win, win, loss, win]
    stats = summarize_solo([(["greedy"], r) for r in seq])
    assert stats["greedy"]["best"] == 3
    assert stats["greedy"]["wins"] == 6
    assert stats["greedy"]["games"] == 8


def test_parallel_runs_give_the_same_games_as_serial_ones():
    serial = run("duo", ["greedy", "random"], 4, 11, jobs=1)
    assert run("duo", ["greedy", "random"], 4, 11, jobs=2) == serial


def test_the_simulate_command_prints_rates_and_progress(capsys):
    args = ["simulate", "--mode", "solo", "--bots", "greedy,random", "--games", "2", "--seed", "3"]
    assert cli_main(args) == 0
    out, err = capsys.readouterr()
    assert "solo: greedy / random" in out
    assert "best streak" in out
    assert "[4/4]" in err
    assert cli_main(["simulate", "--mode", "duo", "--bots", "random,mc", "--games", "2", "--playouts", "3",
                     "--width", "2", "--horizon", "1"]) == 0
    out, _ = capsys.readouterr()
    assert "decided between the bots" in out
    assert cli_main(["simulate", "--mode", "duo", "--bots", "greedy", "--games", "2"]) == 2
