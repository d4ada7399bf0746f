"""The public position API of the Game (issue #11), in the spirit of python-chess's
``Board(fen)``: ``Game.position()`` reads the state as a compact JSON description,
``Game(table, position=...)`` and ``Game.set_position`` set any state up through one
``position`` event (so take-backs, replays and verified saves keep working)."""

from __future__ import annotations

import doctest
import importlib
import json
import math
import pkgutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim.rules.game as game_module
from sim.rules.bots import GreedyBot, RandomBot, play
from sim.rules.game import PHASES, Game, GameError, full_position
from sim.table import load_table
from tests.conftest import set_model

TABLE = load_table()


def _rebuilt(g: Game, pos: dict) -> Game:
    return Game(g.table, seed=1, length=g.length, scenario=g.scenario, position=pos)


@pytest.mark.parametrize("seed, scenario, bot", [(3, "shrines", GreedyBot), (4, "marked_for_death", RandomBot),
                                                 (5, None, RandomBot)])
def test_position_round_trips_at_every_step_of_seeded_bot_games(seed, scenario, bot):
    g = Game(TABLE, seed=seed, length=("fixed", 2), scenario=scenario)
    bots = (bot(seed), bot(seed + 1))
    n, kinds = 0, set()
    while not g.is_over():
        if n % 3 == 0 or g.state.exchange is not None:
            pos = g.position()
            assert json.loads(json.dumps(pos)) == pos  # plain JSON values
            h = _rebuilt(g, pos)
            assert h.position() == pos and h.snapshot() == g.snapshot()
            kinds |= {k for k in pos}
        g.push(bots[g.to_move() - 1].choose(g))
        n += 1
    h = _rebuilt(g, g.position())
    assert h.snapshot() == g.snapshot() and h.is_over()
    assert {"turn", "phase", "active", "models", "exchange"} <= kinds


def test_compact_position_leaves_out_defaults_and_keeps_position_and_facing():
    g = Game(TABLE, seed=7, length=("fixed", 2))
    pos = g.position()
    assert set(pos) == {"turn", "phase", "active", "first", "models"}
    assert pos["models"]["asp"] == {"position": [9.5, 21.0], "facing": 290.0, "counters": 2}  # Ki 0: left out
    h = Game(TABLE, seed=7, position={"models": {"akira": {"damage": 2}}})  # the rest as deployed
    akira = h.position()["models"]["akira"]
    assert akira == {"position": [12.0, 12.0], "facing": 90.0, "damage": 2}
    assert (h.state.turn, h.state.phase, h.state.active) == (1, "main", 1)


def test_a_game_from_a_position_plays_on_and_its_save_loads_verified(tmp_path):
    pos = Game(TABLE, seed=2, length=("fixed", 2)).position()
    pos["models"]["akira"].update(damage=4, conditions={"stunned": 2}, markers={"bleed": [2]})
    pos["models"]["asp"]["alive"] = False
    g = Game(TABLE, seed=9, length=("fixed", 2), position=pos)
    assert g.log() == [f"Position set: turn 1, main phase, player {pos['active']} active"]
    assert not g.state.models["asp"].alive and g.state.models["akira"].conditions == {"stunned": 2}
    play(g, (RandomBot(1), RandomBot(2)))
    g.save(tmp_path / "g.json")
    loaded = Game.load(tmp_path / "g.json")
    assert loaded.verified and loaded.snapshot() == g.snapshot()
    assert g.replay().snapshot() == g.snapshot()


def test_set_position_is_one_event_kept_by_replay_and_saves_and_taken_back_by_pop(tmp_path):
    g = Game(TABLE, seed=4, length=("fixed", 2))
    bots = (GreedyBot(1), GreedyBot(2))
    for _ in range(2):
        g.push(bots[g.to_move() - 1].choose(g))
    before = g.snapshot()
    n = len(g.events)
    set_model(g, "masunagi", damage=3, ki=0)
    assert len(g.events) == n + 1 and g.events[-1].kind == "position"
    assert g.state.models["masunagi"].damage == 3
    for _ in range(3):
        g.push(bots[g.to_move() - 1].choose(g))
    g.save(tmp_path / "g.json")
    loaded = Game.load(tmp_path / "g.json")
    assert loaded.verified and loaded.snapshot() == g.snapshot()
    assert g.replay().snapshot() == g.snapshot()
    for _ in range(3):
        g.pop()
    assert g.events[-1].kind == "position"  # the actions after it are gone, the set-up stays
    g.pop()  # the action before it: the set-up goes with it
    assert all(e.kind != "position" for e in g.events)
    assert g.state.models["masunagi"].damage == 0 and len(g.actions) == 1
    g.push(bots[g.to_move() - 1].choose(g))
    assert g.snapshot() == before


@pytest.mark.parametrize("edit, match", [
    (lambda p: p.update(weather="rain"), r"position: 'weather': unknown key"),
    (lambda p: p["models"].update(ghost={}), r"position: models\['ghost'\]: no such model"),
    (lambda p: p["models"]["akira"].update(damage=7), r"models\['akira'\]\.damage: expected a whole number 0\.\.6"),
    (lambda p: p["models"]["akira"].update(position=[math.nan, 1]), r"models\['akira'\]\.position: expected \[x, y\]"),
    (lambda p: p["models"]["akira"].update(speed=3), r"models\['akira'\]\.'speed': unknown key"),
    (lambda p: p.update(phase="lunch"), r"position: phase: expected one of start, main, end, over"),
    (lambda p: p.update(active=3), r"position: active: expected 1, 2 or null"),
    (lambda p: p.update(scenario={"format": "x"}), r"position: scenario: the game plays no scenario"),
    (lambda p: p.update(exchange={"attacker": "akira", "defender": "nobody"}), r"exchange\.defender: no such model"),
    (lambda p: p.update(pass_tokens={"1": -1, "2": 0}), r"position: pass_tokens: expected"),
])
def test_bad_positions_are_refused_in_one_line_and_change_nothing(edit, match):
    g = Game(TABLE, seed=1, length=("fixed", 2))
    pos = g.position()
    edit(pos)
    before, n = g.snapshot(), len(g.events)
    with pytest.raises(GameError, match=match) as err:
        g.set_position(pos)
    assert "\n" not in str(err.value)
    assert g.snapshot() == before and len(g.events) == n
    with pytest.raises(GameError, match=match):
        Game(TABLE, position=pos)


def test_a_scenario_game_from_a_position_without_scenario_state_starts_the_scenario():
    g = Game(TABLE, seed=1, scenario="shrines", position={"turn": 1})
    sc = g.scenario_state()
    assert sc is not None and g.position()["scenario"] == sc.to_json()
    assert {"objective:west", "objective:centre", "objective:east"} <= {t.id for t in g.table_now().terrain}


def test_gain_condition_and_wound_are_effects_recorded_as_positions():
    g = Game(TABLE, seed=1, length=("fixed", 2))
    g.gain_condition("akira", "berserk")  # Berserk brings an Impetuous marker (p.43)
    assert {"berserk", "impetuous"} <= set(g.state.models["akira"].conditions)
    g.gain_condition("masunagi", "controlled")  # fights for the other side (p.43)
    assert g.state.models["masunagi"].player == 1 and g.state.models["masunagi"].owner == 2
    g.wound("ishi", 100)
    assert not g.state.models["ishi"].alive and g.state.models["ishi"].damage == g.state.models["ishi"].wounds
    assert [e.kind for e in g.events[-3:]] == ["position"] * 3
    assert g.replay().snapshot() == g.snapshot()
    with pytest.raises(GameError, match="no model 'nobody'"):
        g.wound("nobody", 1)


_IDS = [m.id for m in TABLE.models]
_CARDS = Game(TABLE, seed=1).state.models  # the models as deployed: Ki limits, wounds
_CONDITIONS = st.dictionaries(st.sampled_from(["stunned", "prone", "frightened", "impetuous", "controlled", "ran"]),
                              st.integers(1, 3), max_size=3)
_ENTRY = st.fixed_dictionaries({}, optional={
    "position": st.tuples(st.floats(0.5, 23.5), st.floats(0.5, 23.5)).map(list),
    "facing": st.floats(0, 359.9), "damage": st.integers(0, 4), "counters": st.integers(0, 2),
    "ki": st.integers(0, 6), "conditions": _CONDITIONS,
    "markers": st.dictionaries(st.sampled_from(["bleed", "poison", "fire"]), st.lists(st.integers(1, 3), max_size=3),
                               max_size=2),
    "alive": st.booleans(), "wounds": st.integers(5, 12)})
_POSITION = st.fixed_dictionaries({"models": st.dictionaries(st.sampled_from(_IDS), _ENTRY, max_size=6)}, optional={
    "turn": st.integers(1, 7), "phase": st.sampled_from(PHASES), "active": st.sampled_from([1, 2, None]),
    "first": st.sampled_from([1, 2]), "last_turn": st.booleans(), "result": st.text(max_size=12),
    "pass_tokens": st.fixed_dictionaries({"1": st.integers(0, 3), "2": st.integers(0, 3)})})


@settings(max_examples=40, deadline=None)
@given(_POSITION)
def test_any_position_reads_back_identically(pos):
    for mid, entry in pos["models"].items():  # within the card's Ki limit and wound boxes
        card = _CARDS[mid]
        entry["ki"] = min(entry.get("ki", 0), card.ki_limit)
        entry["damage"] = min(entry.get("damage", 0), entry.get("wounds", card.wounds))
    g = Game(TABLE, seed=1, position=pos)
    canon = g.position()
    assert json.loads(json.dumps(canon)) == canon
    h = Game(TABLE, seed=1, position=canon)
    assert h.position() == canon and h.snapshot() == g.snapshot()
    full = full_position(g.state)
    for key in ("turn", "phase", "active", "first", "last_turn", "result", "pass_tokens"):
        if key in pos:
            assert full[key] == pos[key]
    for mid, entry in pos["models"].items():
        for key, v in entry.items():
            assert full["models"][mid][key] == v
    controlled = {m for m, e in canon["models"].items() if "controlled" in e.get("conditions", {})}
    assert {m.id for m in g.state.models.values() if m.player != m.owner} == controlled


def test_game_package_doctests_pass():
    res = doctest.testmod(game_module)
    assert res.attempted >= 5 and res.failed == 0
    attempted = 0
    for info in pkgutil.iter_modules(game_module.__path__):
        res = doctest.testmod(importlib.import_module(f"sim.rules.game.{info.name}"))
        assert res.failed == 0, info.name
        attempted += res.attempted
    assert attempted >= 10  # the position example of Game
