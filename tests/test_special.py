"""Special-attack and special-defence moves (p.39-42, rulings.md section 8): the
rulebook's moves, every collision case, terrain, edge, Immovable, and property tests."""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.geometry import CONTACT, base_radius
from sim.rules.special import MOVES, SpecialMoveError, special_move, throw_directions
from sim.table import parse_table

R30, R40, R50 = base_radius(30), base_radius(40), base_radius(50)


def table(models, terrain=()):
    doc = {"format": "bushido-table/1", "name": "t", "terrain": list(terrain), "models": []}
    for m in models:
        e = {"player": 1, "base": 30, "facing": 0}
        e.update(m)
        doc["models"].append(e)
    return parse_table(yaml.safe_dump(doc), "t.yaml")


def pair(extra=(), terrain=(), a=None, d=None):
    """Attacker at (5, 12) facing +x, defender in BtB at its right."""
    return table([{"id": "a", "position": [5, 12], **(a or {})},
                  {"id": "d", "player": 2, "position": [5 + 2 * R30, 12], "facing": 180, **(d or {})}, *extra], terrain)


def gap(t, res, x, y):
    px = res.positions().get(x, t.model(x).position)
    py = res.positions().get(y, t.model(y).position)
    return math.dist(px, py) - t.model(x).radius - t.model(y).radius


# ---------------------------------------------------------------- the basic moves
def test_push_attack_moves_defender_directly_out_of_zoc():
    t = pair()
    r = special_move(t, "a", "d", "push-attack")
    assert gap(t, r, "a", "d") == pytest.approx(1 + CONTACT)
    assert r.moves["d"].end[1] == pytest.approx(12) and "a" not in r.moves and not r.prone


def test_push_defence_moves_attacker():
    t = pair()
    r = special_move(t, "a", "d", "push-defence")
    assert gap(t, r, "a", "d") == pytest.approx(1 + CONTACT) and r.moves["a"].end[0] < 5


def test_forceback_attack():
    t = pair()
    r = special_move(t, "a", "d", "forceback-attack")
    assert r.moves["d"].distance == pytest.approx(1.0) and r.moves["a"].distance == pytest.approx(1.0)
    assert gap(t, r, "a", "d") == pytest.approx(0.0, abs=1e-9)


def test_drag_attack_and_defence():
    t = pair()
    r = special_move(t, "a", "d", "drag-attack")
    assert r.moves["a"].end[0] == pytest.approx(4) and r.moves["d"].end[0] == pytest.approx(4 + 2 * R30)
    r = special_move(t, "a", "d", "drag-defence")
    assert r.moves["d"].distance == pytest.approx(1) and gap(t, r, "a", "d") == pytest.approx(0, abs=1e-9)


def test_slam_moves_defender_three_inches_and_knocks_it_prone():
    t = pair()
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(3.0) and r.prone == ["d"]
    assert r.moves["d"].end == pytest.approx((5 + 2 * R30 + 3, 12))


def test_throw_two_inches_in_a_chosen_direction_in_los():
    t = pair()
    r = special_move(t, "a", "d", "throw-attack", direction=60)
    assert r.moves["d"].distance == pytest.approx(2.0) and r.prone == ["d"]
    ex, ey = r.moves["d"].end
    assert math.degrees(math.atan2(ey - 12, ex - (5 + 2 * R30))) == pytest.approx(60)


def test_throw_only_to_a_point_in_the_throwers_los():
    t = pair()  # the attacker faces +x: points behind it are out of its front arc
    allowed = throw_directions(t, "a", "d")
    assert allowed and all(b - a < 360 for a, b in allowed)
    with pytest.raises(SpecialMoveError, match="LoS"):
        special_move(t, "a", "d", "throw-attack", direction=180)
    # interval ends are where LoS to the 2" point changes
    scene = t.scene()
    cx, cy = t.model("d").position
    for a, b in allowed:
        for deg, inside in ((a + 0.01, True), (a - 0.01, False), (b - 0.01, True), (b + 0.01, False)):
            p = (cx + 2 * math.cos(math.radians(deg)), cy + 2 * math.sin(math.radians(deg)))
            assert scene.los_to_point("a", p, exclude=("d",)).visible is inside


def test_sidestep_leaves_the_zoc():
    t = pair()
    r = special_move(t, "a", "d", "sidestep-attack", direction=120)
    assert gap(t, r, "a", "d") >= 1.0
    with pytest.raises(SpecialMoveError):
        special_move(t, "a", "d", "sidestep-attack", direction=0)  # into the defender


# ------------------------------------------------------------------- collisions
def test_push_stops_at_contact_with_another_model():
    t = pair([{"id": "x", "position": [5 + 4 * R30 + 0.3, 12]}])
    r = special_move(t, "a", "d", "push-attack")
    assert gap(t, r, "d", "x") == pytest.approx(0, abs=1e-9)
    assert r.collisions[0].outcome == "stops at contact" and not r.prone


def test_slam_into_equal_size_both_prone():
    t = pair([{"id": "x", "position": [5 + 4 * R30 + 1.0, 12]}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(1.0)
    assert set(r.prone) == {"d", "x"} and "x" not in r.moves


def test_slam_into_larger_model_stops_mover_prone():
    t = pair([{"id": "x", "base": 50, "position": [5 + 2 * R30 + R30 + R50 + 1.0, 12]}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(1.0) and r.prone == ["d"]


def test_slam_into_smaller_model_pushes_it():
    t = table([{"id": "a", "position": [5, 12], "base": 40},
               {"id": "d", "player": 2, "base": 40, "position": [5 + 2 * R40, 12], "facing": 180},
               {"id": "x", "base": 30, "size": "tiny", "position": [5 + 2 * R40 + R40 + R30 + 1.0, 12]}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(3.0)
    assert r.moves["x"].distance == pytest.approx(2.0)  # pushed as far as the mover still needed
    assert set(r.prone) == {"d", "x"}
    assert gap(t, r, "d", "x") == pytest.approx(0, abs=1e-9)


def test_slam_chain_of_two_smaller_models():
    t = table([{"id": "a", "position": [3, 12], "base": 50},
               {"id": "d", "player": 2, "base": 50, "position": [3 + 2 * R50, 12], "facing": 180},
               {"id": "x", "base": 40, "position": [3 + 3 * R50 + R40 + 0.5, 12]},
               {"id": "y", "base": 30, "position": [3 + 3 * R50 + 2 * R40 + 0.5 + R30 + 0.5, 12]}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(3.0)
    assert r.moves["x"].distance == pytest.approx(2.5) and r.moves["y"].distance == pytest.approx(2.0)
    assert set(r.prone) == {"d", "x", "y"}


def test_slam_against_impassable_terrain_stops_prone():
    wall = {"id": "wall", "preset": "wall", "rect": {"center": [5 + 3 * R30 + 1.25, 12], "width": 0.5, "depth": 4}}
    t = pair(terrain=[wall])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(1.0) and r.prone == ["d"]
    assert r.collisions[0].kind == "terrain" and r.collisions[0].other == "wall"


def test_slam_stops_at_the_table_edge():
    t = table([{"id": "a", "position": [20, 12]},
               {"id": "d", "player": 2, "position": [20 + 2 * R30, 12], "facing": 180}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].end[0] == pytest.approx(24 - R30) and r.collisions[0].kind == "edge"


def test_immovable_defender_is_not_moved_nor_prone():
    # rulebook p.18: Kenko's Slam Attack against Immovable Manu
    t = pair(d={"traits": ["immovable"]})
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == 0 and r.prone == []


def test_immovable_model_in_the_way_stops_the_slam():
    t = pair([{"id": "x", "size": "tiny", "traits": ["immovable"], "position": [5 + 4 * R30 + 1.0, 12]}])
    r = special_move(t, "a", "d", "slam")
    assert r.moves["d"].distance == pytest.approx(1.0) and "x" not in r.moves


def test_moved_off_huge_enhancing_terrain_is_prone_and_damage_not_halved():
    mesa = {"id": "mesa", "passage": "normal", "visibility": "enhancing", "size": "huge",
            "rect": {"center": [6.2, 12], "width": 1.6, "depth": 4}}
    t = pair(terrain=[mesa])
    r = special_move(t, "a", "d", "push-attack")
    assert r.prone == ["d"] and r.damage_not_halved == ["d"]


# -------------------------------------------------------------------- properties
@st.composite
def crowds(draw):
    models = [{"id": "a", "position": [12, 12], "base": draw(st.sampled_from([30, 40, 50]))}]
    ra = base_radius(models[0]["base"])
    db = draw(st.sampled_from([30, 40, 50, 60]))
    ang = draw(st.floats(0, 2 * math.pi))
    rd = base_radius(db)
    models.append({"id": "d", "player": 2, "base": db,
                   "position": [12 + (ra + rd) * math.cos(ang), 12 + (ra + rd) * math.sin(ang)],
                   "traits": ["immovable"] if draw(st.booleans()) and draw(st.booleans()) else []})
    for i in range(draw(st.integers(0, 8))):
        b = draw(st.sampled_from([30, 30, 40, 50]))
        p = [draw(st.floats(1.5, 22.5)), draw(st.floats(1.5, 22.5))]
        r = base_radius(b)
        if all(math.dist(p, m["position"]) > r + base_radius(m["base"]) + 0.01 for m in models):
            models.append({"id": f"m{i}", "base": b, "position": p, "player": 1 + i % 2,
                           "traits": ["immovable"] if i == 3 else []})
    terrain = []
    if draw(st.booleans()):
        cx, cy = draw(st.floats(3, 21)), draw(st.floats(3, 21))
        fp = {"id": "rock", "passage": "impassable", "visibility": "blocking", "size": "large",
              "rect": {"center": [cx, cy], "width": draw(st.floats(0.5, 3)), "depth": draw(st.floats(0.5, 3)),
                       "rotation": draw(st.floats(0, 90))}}
        from sim.geometry import Footprint
        shape = Footprint.rect((cx, cy), fp["rect"]["width"], fp["rect"]["depth"], fp["rect"]["rotation"])
        if all(shape.overlap_depth_disc(m["position"], base_radius(m["base"])) <= 0 for m in models):
            terrain.append(fp)
    return table(models, terrain)


LIMIT = {"slam": 3.0, "throw-attack": 2.0, "throw-defence": 2.0, "forceback-attack": 1.0, "forceback-defence": 1.0,
         "drag-attack": 1.0}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(crowds(), st.sampled_from(MOVES), st.floats(0, 360))
def test_after_any_special_move_nothing_overlaps(t, move, direction):
    try:
        r = special_move(t, "a", "d", move, direction=direction if move.startswith(("throw", "sidestep")) else None)
    except SpecialMoveError:
        return
    pos = {m.id: r.positions().get(m.id, m.position) for m in t.models}
    ms = list(t.models)
    for i, x in enumerate(ms):
        px = pos[x.id]
        assert x.radius - 1e-6 <= px[0] <= t.width - x.radius + 1e-6
        assert x.radius - 1e-6 <= px[1] <= t.depth - x.radius + 1e-6
        for y in ms[i + 1:]:
            assert math.dist(px, pos[y.id]) >= x.radius + y.radius - 1e-6, (x.id, y.id)
        for p in t.terrain:
            assert p.footprint.overlap_depth_disc(px, x.radius) <= 1e-6
        if x.has_trait("immovable"):
            assert px == x.position
    if move in LIMIT:
        for mv in r.moves.values():
            assert mv.distance <= LIMIT[move] + 1e-9
