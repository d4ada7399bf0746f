"""Seeded games give the same events, byte for byte (issue #11: the restructured engine
behaves as before).

Each fixture in ``tests/data/golden`` is the save (``Game.save``) of a seeded bot game.
They were first written by the code of commit 77d8ae6, before the engine was split into
modules, and written again on purpose for the rules of version 2 (issue 13: every trait,
Ki feat and card rule in play changes seeded games; ``sim.rules.game.saves.RULES_VERSION``). The
test takes the fixture's inputs (table, scenario, seed, length), plays the same recipe
again (bots, take-backs) with the code of today and compares the save text with the
file: one changed event, roll or float shows as a failure naming the first differing
line.

Regenerate only on purpose (a rules change that changes games): ``python -m
tests.test_game_golden --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from sim.rules.bots import GreedyBot, RandomBot
from sim.rules.game import Game
from sim.rules.scenario import scenario_from_dict
from sim.table import load_table, parse_table

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden"

#: The generic Ki feats given to a few models of the default table (recipe ``feats``).
FEATS = {"akira": "[Spirit Bolt, Mind Clash, Inner Calm]", "masunagi": "[Shockwave, Warding Presence]",
         "kazuha": "[Puppet Strings, Spirit Bolt]", "ishi": "[Mind Clash, Inner Calm]"}

#: name -> (seed, scenario, length, bots (player 1, player 2), take back every Nth action, table feats?)
RECIPES = {
    "greedy_shrines_seed11": (11, "shrines", ("fixed", 3), ("greedy", "greedy"), 0, False),
    "greedy_random_feats_seed12": (12, None, ("fixed", 3), ("greedy", "random"), 0, True),
    "random_six_stones_undo_seed13": (13, "six_stones", ("fixed", 3), ("random", "random"), 7, False),
    "greedy_random_marked_for_death_seed14": (14, "marked_for_death", ("variable", 3), ("random", "greedy"), 0,
                                              False),
}


def _bot(name: str, seed: int):
    return {"greedy": GreedyBot, "random": RandomBot}[name](seed)


def _table_with_feats():
    text = (ROOT / "data" / "tables" / "default.yaml").read_text()
    for mid, feats in FEATS.items():
        start = text.index(f"{{id: {mid},")
        end = text.index("}", start)
        text = text[:end] + f", feats: {feats}" + text[end:]
    return parse_table(text, "default-with-feats.yaml")


def play_recipe(name: str, table, scenario) -> Game:
    """The game of recipe ``name`` on ``table`` with ``scenario`` (a Scenario or None)."""
    seed, _, length, bots, undo, _ = RECIPES[name]
    g = Game(table, seed=seed, length=length, scenario=scenario)
    players = (_bot(bots[0], seed), _bot(bots[1], seed + 1))
    n = 0
    while not g.is_over():
        n += 1
        assert n < 2000, "the game did not end"
        g.push(players[g.to_move() - 1].choose(g))
        if undo and n % undo == 0:
            g.pop()
    return g


def save_text(g: Game) -> str:
    """The text :meth:`Game.save` writes."""
    return json.dumps(g.to_json(), indent=1, allow_nan=False)


def _inputs(doc: dict):
    table = parse_table(yaml.safe_dump(doc["table"]), "golden:table")
    scen = doc.get("scenario")
    scenario = scenario_from_dict(scen, "golden:scenario", table.width, table.depth) if scen is not None else None
    return table, scenario


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_seeded_game_save_is_byte_identical_to_the_fixture(name):
    want = (GOLDEN / f"{name}.json").read_text()
    table, scenario = _inputs(json.loads(want))
    got = save_text(play_recipe(name, table, scenario))
    if got != want:
        a, b = want.splitlines(), got.splitlines()
        i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        pytest.fail(f"{name}: the save differs from line {i + 1}: fixture {a[i] if i < len(a) else '(end)'!r}, "
                    f"today {b[i] if i < len(b) else '(end)'!r}")


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_golden_fixture_loads_verified(name):
    g = Game.load(GOLDEN / f"{name}.json")
    assert g.verified and g.is_over()


def _write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (seed, scenario, length, *_rest) in RECIPES.items():
        table = _table_with_feats() if RECIPES[name][5] else load_table()
        first = Game(table, seed=seed, length=length, scenario=scenario).to_json()  # the inputs as a save has them
        table2, scenario2 = _inputs(first)
        text = save_text(play_recipe(name, table2, scenario2))
        (GOLDEN / f"{name}.json").write_text(text)
        doc = json.loads(text)
        print(f"{name}: {len(doc['actions'])} actions, {len(doc['events'])} events, {len(text)} bytes")


if __name__ == "__main__":
    if "--write" in sys.argv:
        _write()
    else:
        print(__doc__)
