"""The Game: turn structure (p.20-21), activations and counters (p.24), save, load and
replay, bots, and invariants over many seeded bot games."""

from __future__ import annotations

import json
import random

import pytest

from sim.rules.bots import GreedyBot, RandomBot, play
from sim.rules.dice import PhysicalDice
from sim.rules.game import Action, Game, GameError
from sim.rules.game.actions import ACTION_KINDS
from sim.rules.scenario import list_scenarios
from sim.table import load_table
from tests.conftest import set_active

TABLE = load_table()


def test_starting_phase():
    g = Game(TABLE, seed=1, length=("fixed", 3))
    st = g.state
    assert st.turn == 1 and st.phase == "main"
    for m in st.models.values():
        assert m.counters == 2
        assert m.ki == min(m.ki_stat, m.ki_limit)
    assert st.pass_tokens == {1: 0, 2: 0}  # six models a side
    assert st.active == st.first


def test_pass_tokens_for_the_side_with_fewer_models():
    from sim.table import Table

    fewer = Table(TABLE.name, TABLE.width, TABLE.depth, TABLE.terrain,
                  tuple(m for m in TABLE.models if not (m.player == 2 and m.id in ("asp", "kaihime"))))
    g = Game(fewer, seed=1)
    assert g.state.pass_tokens == {1: 0, 2: 2}
    assert Action("pass") in g.legal_actions() or g.state.active == 1


def test_tactical_test_uses_the_dice_given():
    # player 1 rolls 6, player 2 rolls 2: player 1 wins the Tactical test and goes first
    g = Game(TABLE, dice=PhysicalDice([6, 2]), length=("fixed", 3))
    assert g.state.first == 1 and g.state.active == 1


def test_activations_alternate_and_counters_are_spent():
    g = Game(TABLE, seed=2, length=("fixed", 3))
    first = g.state.active
    m = next(x for x in g.state.alive(first))
    g.push(Action("wait", m.id))
    assert g.state.models[m.id].counters == 1
    assert g.state.active == 3 - first


def test_complex_action_needs_two_counters():
    g = Game(TABLE, seed=2, length=("fixed", 3))
    p = g.state.active
    m = next(x for x in g.state.alive(p))
    g.push(Action("wait", m.id))
    g.push(Action("wait", next(x for x in g.state.alive(3 - p)).id))
    ok, why = g.is_legal(Action("focus", m.id))
    assert not ok and "complex" in why


def test_illegal_declared_action_reverts_and_costs_one_counter():
    g = Game(TABLE, seed=2, length=("fixed", 3))
    p = g.state.active
    m = next(x for x in g.state.alive(p))
    before = g.state.models[m.id].position
    g.push(Action("walk", m.id, point=(m.position[0] + 20, m.position[1])))  # far too long
    assert g.state.models[m.id].position == before
    assert g.state.models[m.id].counters == 1
    assert any("illegal action" in line for line in g.log())


@pytest.mark.parametrize("action", [
    Action("walk", "kenta"), Action("run", "kenta"),
    Action("shoot", "kokkio", target="masunagi", walk="before"),
    Action("shoot", "kokkio", target="masunagi", walk="after"),
], ids=["walk", "run", "shoot-walk-before", "shoot-walk-after"])
def test_move_without_destination_is_refused_not_a_crash(action):
    """A Walk, Run or a Shoot's declared Walk with no point (nor path) is refused with a
    reason (it raised TypeError before); pushed, it is an illegal action: one counter."""
    g = Game(TABLE, seed=1)
    set_active(g, 1)
    ok, why = g.is_legal(action)
    assert not ok and "no destination" in why
    before = g.state.models[action.model].position
    g.push(action)
    assert g.state.models[action.model].position == before
    assert g.state.models[action.model].counters == 1


def test_charge_without_target_is_refused():
    g = Game(TABLE, seed=1)
    set_active(g, 1)
    ok, why = g.is_legal(Action("charge", "kenta"))
    assert not ok and "no target" in why


def test_a_player_with_no_model_to_activate_is_skipped():
    g = Game(TABLE, seed=5, length=("fixed", 3))
    p = g.state.active
    # player p waits with every model twice; the other player keeps going
    while g.state.phase == "main" and g.state.turn == 1:
        act = g.state.active
        m = next(x for x in g.state.alive(act) if not x.exhausted)
        g.push(Action("wait", m.id))
        if not g.state.can_activate(p) and g.state.phase == "main" and g.state.turn == 1:
            assert g.state.active == 3 - p
    assert g.state.turn == 2


def test_push_and_pop_restore_the_state():
    g = Game(TABLE, seed=4, length=("fixed", 3))
    before = g.snapshot()
    rng = random.Random(1)
    a = g.random_action(rng)
    g.push(a)
    assert g.snapshot() != before
    assert g.pop() == a
    assert g.snapshot() == before
    with pytest.raises(GameError):
        g.pop()


def test_save_load_replay_identical(tmp_path):
    g = play(Game(TABLE, seed=6, length=("fixed", 2)), (GreedyBot(1), RandomBot(2)))
    path = tmp_path / "game.json"
    g.save(path)
    h = Game.load(path)
    assert h.snapshot() == g.snapshot()
    assert g.replay().snapshot() == g.snapshot()
    assert [f.name for f in tmp_path.iterdir()] == ["game.json"]


def test_save_is_atomic(tmp_path, monkeypatch):
    g = Game(TABLE, seed=6, length=("fixed", 2))
    path = tmp_path / "game.json"
    g.save(path)
    good = path.read_text()
    import os

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    g.push(g.random_action(random.Random(3)))
    with pytest.raises(OSError):
        g.save(path)
    assert path.read_text() == good
    assert [f.name for f in tmp_path.iterdir()] == ["game.json"]


def test_bad_save_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(GameError, match="bad.json"):
        Game.load(bad)
    bad.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(GameError, match="not a bushido-game/1 save"):
        Game.load(bad)


def test_same_seed_same_game():
    a = play(Game(TABLE, seed=11, length=("fixed", 2)), (RandomBot(5), RandomBot(6)))
    b = play(Game(TABLE, seed=11, length=("fixed", 2)), (RandomBot(5), RandomBot(6)))
    assert a.log() == b.log()


def test_variable_length_ends_by_turn_seven():
    g = play(Game(TABLE, seed=0, length=("variable", 7)), (RandomBot(0), RandomBot(1)))
    assert g.is_over() and g.state.turn <= 7


def _check_invariants(g: Game) -> None:
    for m in g.state.models.values():
        assert m.counters >= 0
        assert 0 <= m.ki <= m.ki_limit
        assert 0 <= m.damage <= m.wounds


SCENARIOS = list_scenarios()


@pytest.mark.parametrize("seed", range(240))
def test_random_bot_games_end_cleanly_and_keep_invariants(seed):
    """120 games without a scenario (2 turns, fixed or variable) and 120 with one of the
    bundled scenarios, its own turn limit cut to 2 or 3 turns: every game ends within its
    limit, no exception, the invariants hold after every action, at most 3 VP."""
    if seed < 120:
        g = Game(TABLE, seed=seed, length=("fixed", 2) if seed % 3 else ("variable", 2))
        limit = 2 if seed % 3 else 7
    else:
        limit = 2 + seed % 2
        g = Game(TABLE, seed=seed, length=("fixed", limit), scenario=SCENARIOS[seed % len(SCENARIOS)])
    bots = (RandomBot(seed), RandomBot(seed + 1000))
    n = 0
    while not g.is_over():
        a = bots[g.to_move() - 1].choose(g)
        if ACTION_KINDS[a.kind].timing == "activation":  # an Exhausted model still fights when charged and
            assert g.state.models[a.model].counters > 0  # answers a feat trigger: no model ACTIVATES with zero counters
        g.push(a)
        _check_invariants(g)
        n += 1
        assert n < 500
    assert g.state.turn <= limit
    if g.scenario is not None:
        sc = g.scenario_state()
        assert sc.over and sum(sc.vp.values()) <= 3
    if seed % 20 == 0:
        assert g.replay().snapshot() == g.snapshot()


def test_end_phase_poison_bleed_fire_markers():
    # p.43-45: remove the highest marker, take that many wounds; repeat while 3+ remain
    g = Game(TABLE, seed=1, length=("fixed", 3))
    from tests.conftest import set_model

    set_model(g, "kokkio", markers={"poison": [1, 2, 3, 1]})
    set_model(g, "ishi", markers={"fire": [2]})
    while g.state.phase == "main" and g.state.turn == 1:
        act = g.state.active
        m = next(x for x in g.state.alive(act) if not x.exhausted)
        g.push(Action("wait", m.id))
    k, i = g.state.models["kokkio"], g.state.models["ishi"]
    assert sorted(k.markers["poison"]) == [1, 1] and k.damage == 3 + 2
    assert i.markers["fire"] == [] and i.damage == 2
    assert g.replay().snapshot() == g.snapshot()


def test_conditions_limit_actions_and_wait_removes_them():
    from tests.conftest import set_model

    g = Game(TABLE, seed=2, length=("fixed", 3))
    p = g.state.active
    a, b = [m for m in g.state.alive(p)][:2]
    set_model(g, a.id, conditions={**a.conditions, "prone": 1})
    set_model(g, b.id, conditions={**b.conditions, "stunned": 2})
    ok, why = g.is_legal(Action("wait", a.id))
    assert not ok and "Prone" in why  # Stand Up is a Prone model's only action (p.44)
    assert g.is_legal(Action("stand_up", a.id))[0]
    assert all(x.kind == "stand_up" for x in g.legal_actions()
               if x.model == a.id and x.kind != "tactical_choice")  # (the player's choice, p.29, names a model)
    g.push(Action("wait", b.id))  # Wait: remove all Stunned markers (p.25)
    assert "stunned" not in g.state.models[b.id].conditions
    assert g.replay().snapshot() == g.snapshot()


def _game_with_player_first(player: int) -> Game:
    for seed in range(50):
        g = Game(TABLE, seed=seed, length=("fixed", 3))
        if g.state.active == player:
            return g
    raise AssertionError("no seed gives that player the first activation")


def test_run_action_goes_one_and_a_half_move_for_one_counter():
    """Run (p.24): Kenta (Move 4) runs 6" straight for one activation counter and is
    marked as having Ran (-1 die in melee this turn); 6.5" is refused."""
    g = Game(TABLE, seed=1)
    set_active(g, 1)
    ok, why = g.is_legal(Action("run", "kenta", point=(21.5, 3.5)))
    assert not ok and "only 6.000\" are allowed" in why
    g.push(Action("run", "kenta", point=(21.5, 4.0)))
    kenta = g.state.models["kenta"]
    assert kenta.position == (21.5, 4.0) and kenta.counters == 1 and "ran" in kenta.conditions


def test_ranged_attack_with_a_declared_walk_before():
    g = _game_with_player_first(1)
    a = Action("shoot", "kokkio", target="masunagi", walk="before", point=(7.5, 10.5))
    ok, why = g.is_legal(a)
    assert ok, why
    events = g.push(a)
    kinds = [e.kind for e in events]
    assert kinds.index("move") < kinds.index("shot")  # walked, then shot
    assert g.state.models["kokkio"].position == (7.5, 10.5)
    bad = Action("shoot", "kokkio", target="masunagi", walk="sideways", point=(7.5, 10.5))
    assert not g.is_legal(bad)[0]


def test_fear_test_when_charging_a_fearful_enemy():
    # kenta charges Yatsumata (Fear): kenta takes a Fear test on contact (p.29)
    g = _game_with_player_first(1)
    a = Action("charge", "kenta", target="yatsumata")
    assert g.is_legal(a)[0]
    g.push(a)
    log = "\n".join(g.log())
    assert "kenta takes a Fear test" in log
    passed = ("kenta takes a Fear test (TN 6) and passes" in log
              or "and passes" in log.split("kenta takes a Fear test")[1][:40])
    assert (g.state.exchange is not None) == passed  # a failed test ends the activation: no exchange


def test_disengage_exchange_then_walk_away():
    # akira and masunagi are 0.21" apart: bring them into contact first, then disengage
    import yaml

    from sim.table import parse_table

    doc = TABLE.to_dict()
    for m in doc["models"]:
        if m["id"] == "masunagi":
            m["position"] = [12.0 + 2 * 0.5906, 12.0]
    t = parse_table(yaml.safe_dump(doc), "contact.yaml")
    for seed in range(40):
        g = Game(t, seed=seed, length=("fixed", 3))
        if g.state.active == 1:
            break
    a = Action("disengage", "akira", target="masunagi", point=(12.0, 10.4))
    ok, why = g.is_legal(a)
    assert ok, why
    g.push(a)
    assert g.state.exchange is not None and g.state.exchange["disengage"] == "akira"
    # the disengaging model must put at least as many dice in defence as in attack
    pools = g.exchange_pools()
    offered = [x for x in g.legal_actions() if x.model == "akira"]
    assert offered and all((x.defence or 0) >= (x.attack or 0) for x in offered)
    g.push(offered[0])
    g.push(next(x for x in g.legal_actions() if x.model == "masunagi"))
    log = "\n".join(g.log())
    assert "disengages" in log or "fails to disengage" in log
    if "akira disengages from masunagi" in log:
        assert g.state.models["akira"].position == pytest.approx((12.0, 10.4))
    assert pools["akira"] >= 1
    assert g.replay().snapshot() == g.snapshot()


def test_pop_rewinds_seeded_dice_and_a_save_keeps_the_dice_position(tmp_path):
    g = Game(TABLE, seed=11, length=("fixed", 3))
    p = g.state.active
    m = next(x for x in g.state.alive(p))
    foe = min(g.state.alive(3 - p),
              key=lambda e: (e.position[0] - m.position[0]) ** 2 + (e.position[1] - m.position[1]) ** 2)
    g.push(Action("wait", m.id))
    before = g.dice.state()
    g.save(tmp_path / "g.json")
    first = g.dice.roll(5)
    g.dice.restore(before)
    g.push(Action("focus", foe.id) if g.state.models[foe.id].counters >= 2 else Action("wait", foe.id))
    g.pop()
    assert g.dice.roll(5) == first  # the take-back rewound the dice
    h = Game.load(tmp_path / "g.json")
    assert h.dice.roll(5) == first  # the save rolls on from where it was
    doc = json.loads((tmp_path / "g.json").read_text())
    doc["dice_state"] = [3, ["x"], None]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(GameError, match="dice_state"):
        Game.load(tmp_path / "bad.json")


def test_a_fixed_game_length_is_logged_as_fixed_not_as_a_roll_of_none():
    from sim.table import load_table as _load

    g = Game(_load(), seed=1, length=("fixed", 1))
    lines = [x for x in g.log() if "game length" in x.lower()]
    assert lines == ["Fixed game length: this is the last turn"]
    assert not any("None" in x for x in g.log())
