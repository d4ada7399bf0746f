"""No move ends where no base may stand (issue 10): a Charge, the Melee action's move
and every special move end on the table, off every other base and out of Impassable
terrain, also for Cloudwalk and Intangible models that pass over them
(docs/rulings-project.md 19 and 28). The invariant checker itself
(:mod:`sim.rules.invariants`) is tested here too."""

from __future__ import annotations

import dataclasses
import math

import pytest
from conftest import make_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli.main import main
from sim.geometry import Footprint, base_radius
from sim.rules.bots import GreedyBot
from sim.rules.game import Action, Game
from sim.rules.invariants import game_problems, position_problems, state_problems
from sim.rules.movement import check_melee_move, plan_charge
from sim.rules.special import MOVES, SpecialMoveError, special_move
from sim.table import DEFAULT_TABLE, load_table

TABLE = load_table()
R30 = base_radius(30)


def codes(result):
    return [r.code for r in result.reasons]


def _wait_until_active(g: Game, player: int) -> None:
    while g.state.active != player:
        m = next(x for x in g.state.alive(g.state.active) if not x.exhausted)
        g.push(Action("wait", m.id))


def _moved(table, positions: dict):
    """``table`` with some models moved (a scratch copy for the invariant checker)."""
    models = tuple(dataclasses.replace(m, position=tuple(positions.get(m.id, m.position))) for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


# ------------------------------------------------------------- the Charges
def test_cloudwalk_charge_ending_on_another_base_is_illegal():
    # default table: Kazuha (Cloudwalk) charges Masunagi over Akira and would end on Akira
    r = plan_charge(TABLE, "kazuha", "masunagi")
    assert not r.legal and r.reached
    assert [(x.code, x.element) for x in r.reasons] == [("ends-on-base", "akira")]
    assert position_problems(_moved(TABLE, {"kazuha": r.end}))  # where it would have stood


@pytest.mark.parametrize("target, piece", [("ishi", "house"), ("asp", "house"), ("kaihime", "wall")])
def test_cloudwalk_charge_ending_inside_impassable_terrain_is_illegal(target, piece):
    r = plan_charge(TABLE, "kazuha", target)
    assert not r.legal
    assert ("ends-in-impassable", piece) in [(x.code, x.element) for x in r.reasons]


@pytest.mark.parametrize("trait", ["cloudwalk", "intangible"])
def test_cloudwalk_and_intangible_charge_over_a_base_to_a_clear_contact_is_legal(trait):
    t = make_table([{"id": "a", "position": [5, 5], "traits": [trait]}, {"id": "f", "position": [7, 5]},
                    {"id": "e", "player": 2, "position": [10, 5], "facing": 180}])
    r = plan_charge(t, "a", "e")
    assert r.legal and r.reached, r.reasons
    assert r.end[0] == pytest.approx(10 - 2 * R30, abs=1e-6)
    assert position_problems(_moved(t, {"a": r.end})) == []


@pytest.mark.parametrize("trait", ["cloudwalk", "intangible"])
def test_cloudwalk_and_intangible_charge_falling_short_on_a_base_or_in_impassable_is_illegal(trait):
    # Move 4: the charge runs out of its 8" on top of f (or inside the rock)
    f = {"id": "f", "position": [13, 5]}
    e = {"id": "e", "player": 2, "position": [20, 5], "facing": 180}
    on_base = plan_charge(make_table([{"id": "a", "position": [5, 5], "traits": [trait]}, f, e]), "a", "e")
    assert not on_base.reached and ("ends-on-base", "f") in [(x.code, x.element) for x in on_base.reasons]
    rock = {"id": "rock", "passage": "impassable", "visibility": "blocking", "size": "huge",
            "rect": {"center": [13, 5], "width": 2, "depth": 2}}
    in_rock = plan_charge(make_table([{"id": "a", "position": [5, 5], "traits": [trait]}, e], [rock]), "a", "e")
    assert not in_rock.legal and "ends-in-impassable" in codes(in_rock)
    # the same charge without the trait stops at the first contact: short, but legal
    plain = plan_charge(make_table([{"id": "a", "position": [5, 5]}, e], [rock]), "a", "e")
    assert plain.legal and plain.stop.code == "stopped-by-impassable"


def test_charge_cli_reports_cloudwalk_charge_onto_a_base_illegal(capsys):
    code = main(["charge", str(DEFAULT_TABLE), "kazuha", "masunagi"])
    out = capsys.readouterr().out
    assert code == 1
    assert "ILLEGAL" in out and "would end on akira's base" in out


def test_game_and_bots_refuse_a_cloudwalk_charge_that_would_end_on_a_base_or_in_impassable():
    g = Game(TABLE, seed=0)
    _wait_until_active(g, 1)
    for target, why in (("masunagi", "akira's base"), ("kaihime", "Impassable wall"), ("ishi", "Impassable house")):
        ok, reason = g.is_legal(Action("charge", "kazuha", target=target))
        assert not ok and why in reason
    assert not [a for a in g.legal_actions() if a.kind == "charge" and a.model == "kazuha"]
    assert GreedyBot(0).choose(g).model != "kazuha" or GreedyBot(0).choose(g).kind != "charge"


def test_seeded_greedy_game_0_kazuha_never_charges_onto_a_base():
    # before the fix, this game's Kazuha charged Masunagi and ended on Akira's base
    g = Game(TABLE, seed=0)
    bots = (GreedyBot(0), GreedyBot(1000))
    n = 0
    while not g.is_over():
        a = bots[g.to_move() - 1].choose(g)
        g.push(a)
        n += 1
        assert game_problems(g) == [], (n, a)
        assert n < 1000


# ----------------------------------------------------------------- the melee move
@pytest.mark.parametrize("trait", ["cloudwalk", "intangible"])
def test_cloudwalk_melee_move_ending_on_a_base_is_illegal(trait):
    # the contact point with e, (10 - 2r, 5), lies under f's base
    t = make_table([{"id": "a", "position": [6, 5], "traits": [trait]},
                    {"id": "f", "position": [10 - 2 * R30, 6]},
                    {"id": "e", "player": 2, "position": [10, 5], "facing": 180}])
    r = check_melee_move(t, "a", "e", [(10 - 2 * R30, 5)])
    assert not r.legal and ("ends-on-base", "f") in [(x.code, x.element) for x in r.reasons]


def test_game_refuses_a_cloudwalk_melee_move_that_would_end_on_a_base():
    g = Game(TABLE, seed=0)
    _wait_until_active(g, 1)
    ok, reason = g.is_legal(Action("melee", "kazuha", target="masunagi"))
    assert not ok and "akira's base" in reason


def test_melee_move_ending_in_impassable_terrain_is_illegal():
    rock = {"id": "rock", "passage": "impassable", "visibility": "blocking", "size": "huge",
            "rect": {"center": [8.5, 4], "width": 1, "depth": 1}}
    t = make_table([{"id": "a", "position": [6, 5], "traits": ["cloudwalk"]},
                    {"id": "e", "player": 2, "position": [10, 5], "facing": 180}], [rock])
    r = check_melee_move(t, "a", "e", [(10 - 2 * R30, 5)])
    assert not r.legal and "ends-in-impassable" in codes(r)


# -------------------------------------------------------------- the disengage walk
def test_disengage_walk_may_pass_through_but_not_end_on_the_base_of_the_enemy_it_leaves():
    # Akira in contact below Masunagi; the Walk after a Disengage ignores Masunagi while
    # it moves (p.24) but, before the fix, could also end on its base
    a, m = TABLE.model("akira"), TABLE.model("masunagi")
    d = a.radius + m.radius
    below = (m.position[0], m.position[1] - d)
    t = dataclasses.replace(TABLE, models=tuple(dataclasses.replace(x, position=below, facing=90.0)
                                                if x.id == "akira" else x for x in TABLE.models), _scene=[])
    g = Game(t, seed=0)
    _wait_until_active(g, 1)
    for on_it in (m.position, (m.position[0], m.position[1] + d - 0.3)):
        ok, why = g.is_legal(Action("disengage", "akira", target="masunagi", point=on_it))
        assert not ok and "would end on masunagi's base" in why
    through = (m.position[0], m.position[1] + d + 0.05)
    assert g.is_legal(Action("disengage", "akira", target="masunagi", point=through)) == (True, "")


# ------------------------------------------------------------------ special moves
SPECIAL_ROLES = ("a", "d")


def _special_after(t, res):
    return _moved(t, res.positions())


@pytest.mark.parametrize("move", ["push-attack", "slam", "forceback-attack", "sidestep-defence"])
def test_special_move_of_a_cloudwalk_defender_stops_at_a_base(move):
    # d (Cloudwalk) is driven away from a, straight at f: it must stop at f's base, not pass over it
    t = make_table([{"id": "a", "position": [5, 5], "base": 40},
                    {"id": "d", "player": 2, "position": [5 + R30 + base_radius(40), 5],
                     "traits": ["cloudwalk", "intangible"]},
                    {"id": "f", "position": [5 + 2 * R30 + base_radius(40) + base_radius(50) + 0.3, 5], "base": 50}])
    res = special_move(t, "a", "d", move, direction=0.0 if move.startswith(("throw", "sidestep")) else None)
    assert position_problems(_special_after(t, res), tolerance=1e-6) == []
    assert res.moves["d"].end[0] <= t.model("f").position[0] - R30 - base_radius(50) + 1e-6


@pytest.mark.parametrize("move", ["push-attack", "slam", "throw-attack", "drag-defence"])
def test_special_move_of_a_cloudwalk_model_stops_at_impassable_terrain_and_the_table_edge(move):
    rock = {"id": "rock", "passage": "impassable", "visibility": "blocking", "size": "small",
            "rect": {"center": [9, 5], "width": 1, "depth": 4}}
    for terrain, ax in (([rock], 5.0), ([], 24 - 2 * R30 - base_radius(40) - 0.5)):
        t = make_table([{"id": "a", "position": [ax, 5], "base": 40, "traits": ["cloudwalk"]},
                        {"id": "d", "player": 2, "position": [ax + R30 + base_radius(40), 5], "traits": ["cloudwalk"]}],
                       terrain)
        res = special_move(t, "a", "d", move, direction=0.0 if move.startswith("throw") else None)
        assert position_problems(_special_after(t, res), tolerance=1e-6) == [], (terrain, res.to_json())


@st.composite
def crowded_tables(draw):
    """Attacker and defender in contact, some with Cloudwalk or Intangible, other bases,
    an Impassable rock or ring, all near a table edge or corner sometimes."""
    corner = draw(st.booleans())
    ax = draw(st.floats(1.5, 4.0)) if corner else 12.0
    ay = draw(st.floats(1.5, 4.0)) if corner else 12.0
    flying = st.sampled_from([[], [], ["cloudwalk"], ["intangible"], ["cloudwalk", "agile"]])
    models = [{"id": "a", "position": [ax, ay], "base": draw(st.sampled_from([30, 40, 50])), "traits": draw(flying)}]
    ra = base_radius(models[0]["base"])
    db = draw(st.sampled_from([30, 40, 50, 60]))
    rd = base_radius(db)
    ang = draw(st.floats(0, 2 * math.pi))
    pd = [ax + (ra + rd) * math.cos(ang), ay + (ra + rd) * math.sin(ang)]
    if not (rd <= pd[0] <= 24 - rd and rd <= pd[1] <= 24 - rd):
        pd = [ax + ra + rd, ay]
    models.append({"id": "d", "player": 2, "base": db, "position": pd, "traits": draw(flying)})
    for i in range(draw(st.integers(0, 7))):
        b = draw(st.sampled_from([30, 30, 40, 50]))
        r = base_radius(b)
        p = [ax + draw(st.floats(-5, 5)), ay + draw(st.floats(-5, 5))]
        if r <= p[0] <= 24 - r and r <= p[1] <= 24 - r and all(
                math.dist(p, m["position"]) >= r + base_radius(m["base"]) for m in models):
            models.append({"id": f"m{i}", "base": b, "position": p, "player": 1 + i % 2, "traits": draw(flying)})
    terrain = []
    if draw(st.booleans()):
        cx, cy = ax + draw(st.floats(-4, 4)), ay + draw(st.floats(-4, 4))
        if draw(st.booleans()):
            w, d, rot = draw(st.floats(0.3, 3)), draw(st.floats(0.3, 3)), draw(st.floats(0, 90))
            entry = {"rect": {"center": [cx, cy], "width": w, "depth": d, "rotation": rot}}
            shape = Footprint.rect((cx, cy), w, d, rot)
        else:
            rad = draw(st.floats(0.3, 2))
            entry, shape = {"circle": {"center": [cx, cy], "radius": rad}}, Footprint.circle((cx, cy), rad)
        if all(shape.overlap_depth_disc(m["position"], base_radius(m["base"])) <= 0 for m in models):
            terrain.append({"id": "rock", "passage": "impassable", "visibility": "blocking", "size": "large", **entry})
    return make_table(models, terrain)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(crowded_tables(), st.sampled_from(MOVES), st.floats(0, 360))
def test_no_special_move_ends_overlapping_off_table_or_in_impassable_even_for_cloudwalk(t, move, direction):
    assert position_problems(t, tolerance=1e-6) == []
    try:
        res = special_move(t, "a", "d", move, direction=direction if move.startswith(("throw", "sidestep")) else None)
    except SpecialMoveError:
        return
    assert position_problems(_special_after(t, res), tolerance=1e-6) == [], res.to_json()


# ------------------------------------------------------------- the checker itself
def test_position_problems_finds_overlaps_off_table_and_impassable():
    assert position_problems(TABLE) == []
    bad = _moved(TABLE, {"kazuha": (6.5, 10.0), "ishi": (6.5, 14.5), "asp": (0.2, 21.0)})
    assert sorted(position_problems(bad)) == [
        'asp\'s base at (0.2000, 21.0000) is 0.3906" off the 24" x 24" table',
        'ishi\'s base stands 2.5906" inside Impassable house',
        'kokkio\'s base overlaps kazuha\'s base by 1.2717"']


def test_position_problems_accepts_touching_and_overlap_within_tolerance():
    t = make_table([{"id": "a", "position": [R30, 5]}, {"id": "b", "position": [3 * R30, 5]}])
    assert position_problems(t) == []
    near = _moved(t, {"b": (3 * R30 - 0.005, 5)})
    assert position_problems(near) == []
    assert position_problems(near, tolerance=1e-6) == ["a's base overlaps b's base by 0.0050\""]


def test_state_problems_finds_counters_ki_and_damage_out_of_range():
    g = Game(TABLE, seed=0)
    assert state_problems(g.state) == [] and game_problems(g) == []
    m = g.state.models["akira"]
    m.counters, m.ki, m.damage = -1, m.ki_limit + 1, m.wounds + 1
    g.state.models["ishi"].ki = -1
    assert sorted(state_problems(g.state)) == sorted([
        "akira has -1 activation counters", f"akira has {m.ki} Ki (limit {m.ki_limit})",
        f"akira has {m.damage} damage of {m.wounds} wounds",
        f"ishi has -1 Ki (limit {g.state.models['ishi'].ki_limit})"])
