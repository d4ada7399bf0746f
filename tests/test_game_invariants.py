"""Property test over whole seeded bot games (issue 10): after EVERY action no two
bases overlap, no base is off the table or inside Impassable terrain (objectives
included), counters are never negative, Ki stays within its limit and damage within
the wounds (:func:`sim.rules.invariants.game_problems`); and a save -> load -> replay
gives back the same game.

Each seed picks the scenario (none, then every bundled one in turn) and the bots
(random and greedy, both ways round); games are played at their full length.

CI runs ``CI_GAMES`` games (about a minute on one core). To hunt for more:

    BUSHIDO_GAMES=600 .venv/bin/python -m pytest -q -n 2 tests/test_game_invariants.py
    BUSHIDO_GAMES=600 BUSHIDO_SEED=5000 ...        # another 600 seeds
    BUSHIDO_GAMES_REPORT=out/inv.txt ...           # one line per game: seed, scenario, actions
"""

from __future__ import annotations

import json
import os

import pytest

from sim.rules.bots import GreedyBot, RandomBot
from sim.rules.game import Action, Game
from sim.rules.invariants import game_problems
from sim.rules.scenario import list_scenarios
from sim.table import load_table

TABLE = load_table()
SLOTS = (None, *list_scenarios())
PAIRS = ((RandomBot, RandomBot), (GreedyBot, RandomBot), (GreedyBot, GreedyBot), (RandomBot, GreedyBot))
#: Games in a CI run: every scenario slot with every pair of bots, four times over.
CI_GAMES = 4 * len(SLOTS) * len(PAIRS)
GAMES = int(os.environ.get("BUSHIDO_GAMES") or CI_GAMES)
FIRST = int(os.environ.get("BUSHIDO_SEED") or 0)
#: Every how many games the save -> load -> replay check runs too.
REPLAY_EVERY = 3


def _game(seed: int):
    scenario = SLOTS[seed % len(SLOTS)]
    b1, b2 = PAIRS[(seed // len(SLOTS)) % len(PAIRS)]
    return Game(TABLE, seed=seed, scenario=scenario), (b1(seed), b2(seed + 7919)), scenario


def _report(seed: int, scenario, actions: int) -> None:
    path = os.environ.get("BUSHIDO_GAMES_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{seed} {scenario or '-'} {actions}\n")


@pytest.mark.parametrize("seed", range(FIRST, FIRST + GAMES))
def test_bot_game_keeps_every_invariant_after_every_action_and_replays_identically(seed, tmp_path):
    g, bots, scenario = _game(seed)
    assert game_problems(g) == [], "the set-up already breaks an invariant"
    actions = 0
    while not g.is_over():
        a = bots[g.to_move() - 1].choose(g)
        g.push(a)
        actions += 1
        problems = game_problems(g)
        assert not problems, f"seed {seed} ({scenario or 'no scenario'}), action {actions} {a!r}: {problems}"
        assert actions < 3000, "the game does not end"
    assert g.state.result
    _report(seed, scenario, actions)
    if seed % REPLAY_EVERY:
        return
    path = tmp_path / "game.json"
    g.save(path)
    loaded = Game.load(path)
    assert loaded.snapshot() == g.snapshot()
    assert [e.to_json() for e in loaded.events] == [e.to_json() for e in g.events]
    assert loaded.replay().snapshot() == g.snapshot()
    # the saved actions, declared again from the start with the same seed, make the same game
    doc = json.loads(path.read_text(encoding="utf-8"))
    again = Game(loaded.table, seed=doc["seed"], length=tuple(doc["length"]), scenario=loaded.scenario)
    for entry in doc["actions"]:
        again.push(Action.from_json(entry))
    assert [e.to_json() for e in again.events] == [e.to_json() for e in g.events]
    assert again.snapshot() == g.snapshot()
