"""Walk, Run, Charge and the melee move (Movement p.22-23, Zone of Control p.9,
actions p.24-25, Terrain p.60, rulings.md section 7): one test per rule, plus
property tests of legal paths."""

from __future__ import annotations

import math

import pytest
import yaml
from conftest import make_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point

from sim.geometry import base_radius
from sim.rules.movement import MoveError, check_melee_move, check_run, check_walk, plan_charge
from sim.table import load_table, parse_table

R30 = base_radius(30)


table = make_table


def codes(result):
    return [r.code for r in result.reasons]


# ---------------------------------------------------------------------------- walk
def test_walk_any_path_up_to_move():
    t = table([{"id": "a", "position": [5, 5]}])
    r = check_walk(t, "a", [(5, 5), (7, 5), (7, 7)])
    assert r.legal and r.cost == pytest.approx(4.0) and r.allowance == 4
    assert codes(check_walk(t, "a", [(7, 5), (7, 7.1)])) == ["too-long"]


def test_walk_cannot_pass_through_a_base_but_may_touch_it():
    t = table([{"id": "a", "position": [5, 5]}, {"id": "f", "position": [7, 5]}])
    r = check_walk(t, "a", [(8.5, 5)])
    assert "passes-through-base" in codes(r) and r.reasons[0].element == "f"
    touch = check_walk(t, "a", [(7 - 2 * R30, 5)])
    assert touch.legal


def test_walk_cannot_pass_through_impassable_terrain_but_may_graze_it():
    house = {"id": "house", "preset": "house", "rect": {"center": [8, 8], "width": 2, "depth": 2}}
    t = table([{"id": "a", "position": [5, 8]}], [house])
    assert "passes-through-impassable" in codes(check_walk(t, "a", [(9, 8)]))
    # a path along the house wall, the base just touching it
    beside = table([{"id": "a", "position": [5, 7 - R30]}], [house])
    graze = check_walk(beside, "a", [(8.5, 7 - R30)])
    assert graze.legal, graze.reasons


def test_walk_may_not_enter_enemy_zoc():
    t = table([{"id": "a", "position": [5, 5]}, {"id": "e", "player": 2, "position": [9, 5], "facing": 180}])
    r = check_walk(t, "a", [(7.2, 5)])  # 9 - 7.2 - 2 x 0.59 = 0.62" from e's base
    assert codes(r) == ["enters-zoc"] and r.reasons[0].element == "e"
    # stopping just outside the ZoC is fine: edge gap 1" + a hair
    ok = check_walk(t, "a", [(9 - 2 * R30 - 1.001, 5)])
    assert ok.legal, ok.reasons


def test_walk_behind_enemy_front_arc_is_not_zoc():
    t = table([{"id": "a", "position": [5, 5]}, {"id": "e", "player": 2, "position": [9, 5], "facing": 0}])
    r = check_walk(t, "a", [(9 - 2 * R30 - 0.5, 5)])
    assert r.legal, r.reasons


def test_walk_into_zoc_hidden_by_a_wall_is_legal():
    # a Huge wall between: the enemy has no LoS to the far side, so no ZoC there
    wall = {"id": "wall", "passage": "impassable", "visibility": "blocking", "size": "huge",
            "rect": {"center": [9 - R30 - 0.3, 5], "width": 0.2, "depth": 6}}
    t = table([{"id": "a", "position": [5, 5]}, {"id": "e", "player": 2, "position": [9, 5], "facing": 180}], [wall])
    r = check_walk(t, "a", [(9 - R30 - 0.4 - R30, 5)])
    assert r.legal, r.reasons


def test_walk_into_btb_with_enemy_is_illegal_even_behind_its_arc():
    t = table([{"id": "a", "position": [5, 5]}, {"id": "e", "player": 2, "position": [9, 5], "facing": 0}])
    r = check_walk(t, "a", [(9 - 2 * R30, 5)])
    assert "into-btb" in codes(r)


def test_walk_out_of_btb_is_illegal_unless_agile():
    base = [{"id": "e", "player": 2, "position": [9, 5], "facing": 0}]
    t = table([{"id": "a", "position": [9 - 2 * R30, 5], "facing": 0}, *base])
    assert "out-of-btb" in codes(check_walk(t, "a", [(9 - 2 * R30, 2)]))
    agile = table([{"id": "a", "position": [9 - 2 * R30, 5], "facing": 0, "traits": ["agile"]}, *base])
    assert "out-of-btb" not in codes(check_walk(agile, "a", [(9 - 2 * R30, 2)]))


def test_difficult_terrain_costs_double():
    pond = {"id": "pond", "preset": "pond", "rect": {"center": [10, 5], "width": 2, "depth": 6}}
    t = table([{"id": "a", "position": [5, 5], "move": 6}], [pond])
    # the base overlaps the pond from x = 9 - R30 to 11 + R30
    inside = 2 + 2 * R30
    r = check_walk(t, "a", [(12 + R30, 5)])
    assert r.cost == pytest.approx((7 + R30) + inside, abs=1e-5)  # overlap is strict by EPS
    assert codes(r) == ["too-long"]
    light = table([{"id": "a", "position": [5, 5], "move": 6, "traits": ["lightfooted"]}], [pond])
    assert check_walk(light, "a", [(10, 5)]).cost == pytest.approx(5.0)
    unstable = table([{"id": "a", "position": [5, 5], "move": 6, "traits": ["unstable"]}], [pond])
    assert check_walk(unstable, "a", [(10, 5)]).cost == pytest.approx(5 + 3 * (10 - 9 + R30))


def test_difficult_terrain_halves_distance_covered_in_a_charge():
    pond = {"id": "pond", "preset": "pond", "rect": {"center": [12, 5], "width": 16, "depth": 6}}
    t = table([{"id": "a", "position": [2, 5], "move": 4},
               {"id": "e", "player": 2, "position": [22, 5], "facing": 180}], [pond])
    r = plan_charge(t, "a", "e")
    # 8" of charge: 4 - R30 - ... the base enters the pond after (4 - R30) inches, then moves at half speed
    free = 4 - R30 - 2
    assert r.length == pytest.approx(free + (8 - free) / 2, abs=1e-6)
    assert r.cost == pytest.approx(8.0, abs=1e-6) and not r.reached


def test_ideal_terrain_gives_two_inches_once():
    road = {"id": "road", "preset": "paved-road", "rect": {"center": [8, 5], "width": 1, "depth": 6}}
    t = table([{"id": "a", "position": [5, 5]}], [road])
    r = check_walk(t, "a", [(10.5, 5)])
    assert r.legal and r.allowance == 6
    plain = table([{"id": "a", "position": [5, 5]}])
    assert codes(check_walk(plain, "a", [(10.5, 5)])) == ["too-long"]


def test_walk_stays_on_the_table():
    t = table([{"id": "a", "position": [2, 5]}])
    assert "off-table" in codes(check_walk(t, "a", [(0.3, 5)]))
    assert check_walk(t, "a", [(R30, 5)]).legal


def test_facing_change_is_part_of_walk():
    t = table([{"id": "a", "position": [5, 5], "facing": 0}])
    r = check_walk(t, "a", [(5, 5)], facing=135)
    assert r.legal and r.facing == 135 and r.cost == 0


# ----------------------------------------------------------- starting in enemy ZoC
ENEMY = {"id": "e", "player": 2, "position": [9, 5], "facing": 180}


def test_start_in_zoc_directly_away_is_legal():
    t = table([{"id": "a", "position": [9 - 2 * R30 - 0.5, 5], "facing": 0}, ENEMY])
    r = check_walk(t, "a", [(9 - 2 * R30 - 0.5 - 3.9, 5)])
    assert r.legal, r.reasons


def test_start_in_zoc_sideways_is_illegal():
    t = table([{"id": "a", "position": [9 - 2 * R30 - 0.5, 5], "facing": 0}, ENEMY])
    assert "zoc-start-not-away" in codes(check_walk(t, "a", [(9 - 2 * R30 - 0.5, 2)]))


def test_start_in_zoc_turning_before_leaving_is_illegal_after_is_legal():
    t = table([{"id": "a", "position": [9 - 2 * R30 - 0.5, 5], "facing": 0}, ENEMY])
    start_x = 9 - 2 * R30 - 0.5
    assert "zoc-start-turns" in codes(check_walk(t, "a", [(start_x - 0.2, 5), (start_x - 0.2, 3)]))
    r = check_walk(t, "a", [(start_x - 1.0, 5), (start_x - 1.0, 3)])
    assert r.legal, r.reasons


# ------------------------------------------------------------ ignorable ZoC / traits
@pytest.mark.parametrize("enemy_extra", [{"prone": True}, {"traits": ["insignificant"]}])
def test_zoc_of_prone_and_insignificant_models_may_be_ignored(enemy_extra):
    t = table([{"id": "a", "position": [5, 5]}, {**ENEMY, **enemy_extra}])
    assert check_walk(t, "a", [(7.2, 5)]).legal


def test_zoc_of_enemy_in_btb_with_a_friend_may_be_ignored():
    t = table([{"id": "a", "position": [5, 5]}, ENEMY, {"id": "f", "position": [9, 5 + 2 * R30]}])
    assert check_walk(t, "a", [(7.2, 5)]).legal


@pytest.mark.parametrize("trait", ["evasive", "cloudwalk", "intangible"])
def test_traits_that_ignore_zoc(trait):
    t = table([{"id": "a", "position": [5, 5], "traits": [trait]}, ENEMY])
    assert "enters-zoc" not in codes(check_walk(t, "a", [(7.2, 5)]))


@pytest.mark.parametrize("trait", ["cloudwalk", "intangible"])
def test_cloudwalk_and_intangible_pass_over_terrain_and_models_but_cannot_end_in_them(trait):
    house = {"id": "house", "preset": "house", "rect": {"center": [7, 5], "width": 1, "depth": 4}}
    t = table([{"id": "a", "position": [5, 5], "traits": [trait]}], [house])
    assert check_walk(t, "a", [(9, 5)]).legal
    assert "ends-in-impassable" in codes(check_walk(t, "a", [(7, 5)]))


# ------------------------------------------------------------------------------- run
def test_run_to_a_point_in_los_up_to_one_and_a_half_move():
    t = table([{"id": "a", "position": [5, 5], "facing": 0}])
    r = check_run(t, "a", (11, 5))
    assert r.legal and r.allowance == 6 and r.facing == pytest.approx(0)
    assert codes(check_run(t, "a", (11.2, 5))) == ["too-long"]


def test_run_only_to_a_point_in_los():
    wall = {"id": "wall", "passage": "difficult", "visibility": "blocking", "size": "huge",
            "rect": {"center": [8, 5], "width": 0.3, "depth": 8}}
    t = table([{"id": "a", "position": [5, 5], "facing": 0}], [wall])
    assert "run-not-in-los" in codes(check_run(t, "a", (10, 5)))
    behind = table([{"id": "a", "position": [5, 5], "facing": 0}])
    assert "run-not-in-los" in codes(check_run(behind, "a", (2, 5)))  # behind the front arc


def test_run_may_not_enter_zoc_or_contact():
    t = table([{"id": "a", "position": [5, 5]}, ENEMY])
    assert "enters-zoc" in codes(check_run(t, "a", (7.2, 5)))


# ---------------------------------------------------------------------------- charge
def test_charge_in_a_straight_line_into_btb():
    t = table([{"id": "a", "position": [5, 5]}, {**ENEMY, "position": [11, 5]}])
    r = plan_charge(t, "a", "e")
    assert r.legal and r.reached and r.stop.code == "contact"
    assert r.length == pytest.approx(6 - 2 * R30, abs=1e-6)
    assert math.dist(r.end, (11, 5)) == pytest.approx(2 * R30, abs=1e-6)


def test_charge_stops_before_a_second_enemys_zoc():
    other = {"id": "o", "player": 2, "position": [8, 6.4], "facing": 270}
    t = table([{"id": "a", "position": [3, 5]}, {**ENEMY, "position": [12, 5]}, other])
    r = plan_charge(t, "a", "e")
    assert not r.reached and r.stop.code == "stops-before-zoc" and r.stop.element == "o"
    assert r.legal  # a charge that falls short ends where it stops


def test_charge_ignores_other_zocs_once_in_targets_zoc():
    other = {"id": "o", "player": 2, "position": [7.6, 6.6], "facing": 270}
    t = table([{"id": "a", "position": [9 - 2 * R30 - 0.8, 5]}, ENEMY, other])
    r = plan_charge(t, "a", "e")
    assert r.reached, (r.stop, r.path)


def test_charge_bends_directly_towards_target_in_its_zoc():
    # charge along a line that misses the target's centre: once the base touches the
    # target's ZoC, it turns and goes straight at the target.
    t = table([{"id": "a", "position": [3, 5]}, {**ENEMY, "position": [11, 6]}])
    r = plan_charge(t, "a", "e", direction=0.0)
    assert r.reached and len(r.path) == 3
    (x1, y1), (x2, y2) = r.path[1], r.path[2]
    # the last leg points at the target's centre
    cross = (x2 - x1) * (6 - y1) - (y2 - y1) * (11 - x1)
    assert abs(cross) < 1e-6
    # the first leg ended on the edge of the target's ZoC (1" from its base, in arc)
    assert math.dist((x1, y1), (11, 6)) - 2 * R30 == pytest.approx(1.0, abs=1e-5)


def test_charge_falls_short_beyond_twice_move():
    t = table([{"id": "a", "position": [3, 5], "move": 3}, {**ENEMY, "position": [15, 5]}])
    r = plan_charge(t, "a", "e")
    assert r.legal and not r.reached and r.length == pytest.approx(6.0)


def test_charge_stopped_by_impassable_terrain():
    house = {"id": "house", "preset": "house", "rect": {"center": [8, 5], "width": 1, "depth": 4}}
    t = table([{"id": "a", "position": [3, 5]}, {**ENEMY, "position": [12, 5]}], [house])
    r = plan_charge(t, "a", "e")
    assert not r.reached and r.stop.code == "stopped-by-impassable" and r.stop.element == "house"


def test_charge_needs_an_enemy():
    t = table([{"id": "a", "position": [3, 5]}, {"id": "f", "position": [9, 5]}])
    with pytest.raises(MoveError):
        plan_charge(t, "a", "f")


# ------------------------------------------------------------------------ melee move
def test_melee_move_into_btb_with_the_chosen_enemy():
    t = table([{"id": "a", "position": [5, 5]}, ENEMY])
    r = check_melee_move(t, "a", "e", [(9 - 2 * R30, 5)])
    assert r.legal and r.reached


def test_melee_move_may_enter_only_the_targets_zoc():
    other = {"id": "o", "player": 2, "position": [7, 7.0], "facing": 270}
    t = table([{"id": "a", "position": [3, 5], "move": 6}, {**ENEMY, "position": [10, 5]}, other])
    r = check_melee_move(t, "a", "e", [(10 - 2 * R30, 5)])
    assert "enters-zoc" in codes(r) and any(x.element == "o" for x in r.reasons)


def test_only_one_enemy_in_btb_per_activation():
    e2 = {"id": "e2", "player": 2, "position": [9, 5 + 2 * R30 + 0.001], "facing": 180}
    t = table([{"id": "a", "position": [5, 5.6]}, ENEMY, e2])
    # a spot touching both e and e2
    x = 9 - math.sqrt((2 * R30) ** 2 - (R30 + 0.0005) ** 2)
    r = check_melee_move(t, "a", "e", [(x, 5 + R30 + 0.0005)])
    assert "second-enemy" in codes(r)


def test_move_needs_a_move_value():
    doc = {"format": "bushido-table/1", "name": "x",
           "models": [{"id": "a", "player": 1, "base": 30, "position": [5, 5]}]}
    t = parse_table(yaml.safe_dump(doc), "x.yaml")
    with pytest.raises(MoveError, match="no Move"):
        check_walk(t, "a", [(6, 5)])


# ------------------------------------------------------------------------ properties
DEFAULT = load_table()


def _independent_ok(t, model_id, path) -> bool:
    """Check a path with shapely, independently of the engine: the swept base never
    overlaps another base or Impassable terrain and stays on the table."""
    m = t.model(model_id)
    r = m.radius
    swept = LineString(path).buffer(r - 1e-4, quad_segs=32) if len(path) > 1 and LineString(path).length > 0 \
        else Point(path[0]).buffer(r - 1e-4)
    for o in t.models:
        if o.id != model_id and swept.intersects(Point(o.position).buffer(o.radius - 1e-4, quad_segs=32)):
            return False
    for p in t.terrain:
        if p.passage.value == "impassable" and swept.intersects(p.footprint.shape.buffer(-1e-4)):
            return False
    minx, miny, maxx, maxy = swept.bounds
    return minx >= -1e-3 and miny >= -1e-3 and maxx <= t.width + 1e-3 and maxy <= t.depth + 1e-3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([m.id for m in DEFAULT.models]),
       st.lists(st.tuples(st.floats(-4, 4), st.floats(-4, 4)), min_size=1, max_size=3))
def test_legal_walks_never_overlap_and_cost_at_least_length(model_id, offsets):
    x0, y0 = DEFAULT.model(model_id).position
    path = [(x0, y0)] + [(x0 + dx, y0 + dy) for dx, dy in offsets]
    r = check_walk(DEFAULT, model_id, path)
    assert r.cost >= r.length - 1e-9
    assert r.length >= math.dist(path[0], path[-1]) - 1e-9
    if r.legal:
        m = DEFAULT.model(model_id)
        flies = m.has_trait("cloudwalk") or m.has_trait("intangible")  # pass over, may not end on
        assert _independent_ok(DEFAULT, model_id, path[-1:] if flies else path)
        assert r.cost <= r.allowance + 1e-6


def test_start_in_zoc_may_not_walk_back_into_it():
    # found by the planner's tests: leaving the ZoC directly away, then turning back in
    t = table([{"id": "a", "position": [9 - 2 * R30 - 0.5, 5], "facing": 0}, ENEMY])
    sx = 9 - 2 * R30 - 0.5
    r = check_walk(t, "a", [(sx - 1.0, 5), (sx - 0.2, 5.3)])
    assert "enters-zoc" in codes(r), r.reasons
