"""The action notation in the rules layer (:mod:`sim.rules.notation`, issue #11): one
notation for the hot-seat, the ``replay`` listing and the logs of decisions, its kinds
read from the game's registry, and a round trip ``parse_action(action_text(a)) == a``
for the legal actions of seeded games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim.cli.hotseat as hotseat
from sim.cli.main import main
from sim.rules import notation
from sim.rules.bots import GreedyBot, RandomBot
from sim.rules.game import ACTION_KINDS, Action, Game
from sim.rules.notation import NotationError, action_text, known_kinds, parse_action
from sim.table import load_table

ROOT = Path(__file__).resolve().parents[1]
TABLE = load_table()


def _decisions(seed: int, bots, scenario=None, turns: int = 2, limit: int = 80):
    """``(game, legal actions)`` at each decision of a seeded game (the game is pushed on)."""
    g = Game(TABLE, seed=seed, length=("fixed", turns), scenario=scenario)
    n = 0
    while not g.is_over() and n < limit:
        yield g, g.legal_actions()
        g.push(bots[g.to_move() - 1].choose(g))
        n += 1


def test_round_trip_of_every_legal_action_of_seeded_games():
    kinds = set()
    games = [(1, (GreedyBot(1), GreedyBot(2)), None), (2, (RandomBot(3), GreedyBot(4)), "shrines"),
             (5, (RandomBot(5), RandomBot(6)), None)]
    for seed, bots, scenario in games:
        for g, legal in _decisions(seed, bots, scenario):
            for a in legal:
                text = action_text(a, exact=True)
                assert parse_action(g, text) == a, text
                short = action_text(a)  # points to 0.01": reads back to the same text
                assert action_text(parse_action(g, short)) == short
                kinds.add(a.kind)
    assert {"walk", "run", "charge", "melee", "shoot", "wait", "allocate", "pass"} <= kinds


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1e6, 1e6, allow_nan=False), y=st.floats(-1e6, 1e6, allow_nan=False),
       facing=st.one_of(st.none(), st.floats(-720, 720, allow_nan=False)),
       kind=st.sampled_from(["walk", "run"]))
def test_exact_text_reads_back_the_very_same_floats(x, y, facing, kind):
    g = Game(TABLE, seed=0, length=("fixed", 1))
    a = Action(kind, "matsu", point=(x, y), facing=facing)
    assert parse_action(g, action_text(a, exact=True)) == a


def test_kinds_of_the_notation_are_the_game_registry():
    assert set(known_kinds()) == set(ACTION_KINDS) == set(notation.KNOWN_KINDS)
    g = Game(TABLE, seed=0, length=("fixed", 1))
    with pytest.raises(NotationError, match=r"unknown action 'fly' \(actions: walk, run, charge"):
        parse_action(g, "fly matsu")  # no action of the rulebook or the cards
    assert parse_action(g, "heal matsu kenta").kind == "heal"  # a card action (Heal (X), p.52) the engine plays
    assert parse_action(g, "stand matsu") == Action("stand_up", "matsu")


def test_the_hot_seat_reexports_the_rules_notation():
    assert hotseat.parse_action is notation.parse_action and hotseat.action_text is notation.action_text
    assert hotseat.InputError is NotationError and hotseat.KNOWN_KINDS == notation.KNOWN_KINDS


def test_notation_imports_nothing_of_the_views():
    code = ("import sys, sim.rules.notation; "
            "bad = [m for m in sys.modules if m.startswith(('sim.cli', 'sim.view', 'panda3d', 'direct'))]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_replay_lists_the_saved_actions_in_the_notation(tmp_path, capsys):
    g = Game(TABLE, seed=5, length=("fixed", 1))
    g.push(Action("walk", "matsu", point=(4.5, 9.0)))
    g.push(Action("wait", "masunagi") if g.to_move() == 2 else Action("wait", "akira"))
    g.save(tmp_path / "g.json")
    assert main(["replay", str(tmp_path / "g.json"), "--actions"]) == 0
    out = capsys.readouterr().out
    assert "Actions (2):\n     1. walk matsu 4.50 9.00\n     2. wait " in out
    h = Game(TABLE, seed=5, length=("fixed", 1))
    for line in out.split("Actions (2):\n")[1].splitlines()[:2]:
        h.push(parse_action(h, line.split(". ", 1)[1]))
    assert h.snapshot() == g.snapshot()  # the listing, typed again, replays the game
