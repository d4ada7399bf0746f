"""Movement planning (Movement p.22-23, Zone of Control p.9, Terrain p.60; rulings.md 7):
the planned Walk is always legal by the exact checker, unreachable destinations say
why, the Walk and Run regions agree with ``check_walk``/``check_run``, charge lanes
cover every enemy, and the reach picture shows the Walk region."""

from __future__ import annotations

import math
import random
import zlib

import numpy as np
import pytest
import yaml
from conftest import make_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from sim.geometry import base_radius
from sim.rules.movement import Mover, check_run, check_walk
from sim.rules.planning import Reach, charge_lanes, reach, run_region, shortest_walk, walk_region
from sim.table import load_table, parse_table

R30 = base_radius(30)
DEFAULT = load_table()


table = make_table


def generated(seed: int):
    """A crowded random table (20 models with Move 4-6, 12 pieces), as in the benchmark."""
    from benchmarks.measure_bench import generated_table_yaml

    doc = yaml.safe_load(generated_table_yaml(seed))
    rng = random.Random(seed)
    for m in doc["models"]:
        m["move"] = rng.choice([4, 5, 6])
    return parse_table(yaml.safe_dump(doc, sort_keys=False), f"generated-{seed}")


GENERATED = {seed: generated(seed) for seed in (1, 2)}


def assert_planned_ok(t, mid, dest, res):
    """The answer of shortest_walk: legal by the checker, or unreachable with a reason."""
    start = t.model(mid).position
    if res.legal:
        again = check_walk(t, mid, res.path)
        assert again.legal, again.reasons
        assert res.cost <= res.allowance + 1e-6
        assert math.dist(res.path[0], start) < 1e-9 and math.dist(res.path[-1], dest) < 1e-9
    else:
        assert res.reasons[0].code == "unreachable", res.reasons
        assert res.path == (tuple(start), tuple(dest))


# ------------------------------------------------------------------- shortest walk
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mid=st.sampled_from(["kokkio", "ton", "matsu", "kenta", "kazuha", "ishi", "nanako", "akira", "yatsumata"]),
       dx=st.floats(-7, 7), dy=st.floats(-7, 7))
def test_planned_walk_is_legal_on_the_default_table(mid, dx, dy):
    x, y = DEFAULT.model(mid).position
    dest = (min(23.5, max(0.5, x + dx)), min(23.5, max(0.5, y + dy)))
    res = shortest_walk(DEFAULT, mid, dest)
    assert_planned_ok(DEFAULT, mid, dest, res)
    straight = check_walk(DEFAULT, mid, [(x, y), dest])
    if straight.legal:  # never dearer than the straight line
        assert res.legal and res.cost <= straight.cost + 1e-9


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from([1, 2]), k=st.integers(0, 19), dx=st.floats(-7, 7), dy=st.floats(-7, 7))
def test_planned_walk_is_legal_on_generated_tables(seed, k, dx, dy):
    t = GENERATED[seed]
    mid = t.models[k].id
    x, y = t.model(mid).position
    dest = (min(23.5, max(0.5, x + dx)), min(23.5, max(0.5, y + dy)))
    assert_planned_ok(t, mid, dest, shortest_walk(t, mid, dest))


def test_walk_goes_round_the_house():
    # kokkio (Move 4) to the far side of the house's corner: the straight line goes
    # through the house, the planner goes round it
    dest = (9.75, 12.6)
    assert not check_walk(DEFAULT, "kokkio", [dest]).legal
    res = shortest_walk(DEFAULT, "kokkio", dest)
    assert res.legal and len(res.path) >= 3 and res.cost <= 4 + 1e-9


def test_walk_goes_round_difficult_terrain_when_cheaper():
    pond = {"id": "pond", "passage": "difficult", "visibility": "open", "size": "zero",
            "circle": {"center": [8.75, 9], "radius": 0.8}}
    t = table([{"id": "a", "position": [6, 9], "move": 7}], [pond])
    straight = check_walk(t, "a", [(11.5, 9)])
    assert not straight.legal and straight.cost > 8  # 5.5" with 2.78" of it doubled
    res = shortest_walk(t, "a", (11.5, 9))
    assert res.legal and len(res.path) >= 3 and res.cost < 6.5


def test_walk_uses_the_ideal_bonus_by_touching_a_road():
    road = {"id": "road", "passage": "ideal", "visibility": "open", "size": "zero",
            "rect": {"center": [12, 12], "width": 10, "depth": 1.6}}
    t = table([{"id": "a", "position": [7.5, 9]}, {"id": "e", "player": 2, "position": [20, 21]}], [road])
    dest = (12.0, 9.0)  # 4.5" away: too far for Move 4 unless the path crosses the road (+2")
    assert not check_walk(t, "a", [dest]).legal
    res = shortest_walk(t, "a", dest)
    assert res.legal and res.allowance == pytest.approx(6.0) and res.cost <= 6 + 1e-9
    region = walk_region(t, "a")
    assert region.contains(Point(dest)) and not region.contains(Point(7.5 + 6.3, 9))


def test_walk_from_enemy_zoc_moves_directly_away_first():
    m = Mover(DEFAULT, "akira")
    assert m.start_zocs == ("masunagi",)
    dest = (9.0, 10.5)
    res = shortest_walk(DEFAULT, "akira", dest)
    assert res.legal, res.reasons
    (sx, sy), (bx, by) = res.path[0], res.path[1]
    ex, ey = DEFAULT.model("masunagi").position
    ux, uy = sx - ex, sy - ey
    # the first leg lies on the line from masunagi through akira, away from it
    assert abs((bx - sx) * uy - (by - sy) * ux) / math.hypot(ux, uy) < 0.01
    assert (bx - sx) * ux + (by - sy) * uy > 0


def test_cloudwalk_ignores_difficult_terrain():
    # kazuha (Cloudwalk, Move 5) straight across the pond: 4.66" of plain movement,
    # where a model without Cloudwalk would pay double in the pond
    dest = (12.8, 5.2)
    res = shortest_walk(DEFAULT, "kazuha", dest)
    assert res.legal and len(res.path) == 2 and res.cost == pytest.approx(math.dist((8.8, 7.6), dest))
    assert walk_region(DEFAULT, "kazuha").contains(Point(dest))


@pytest.mark.parametrize("mid,dest,words", [
    ("kokkio", (6.5, 14.5), "Impassable"),             # inside the house
    ("kokkio", (13.2, 11.2), "zone of control"),       # in front of masunagi
    ("matsu", (3.0, 11.5), "beyond Move"),             # 5.7" away, Move 4
    ("kokkio", (20.0, 3.0), "beyond Move"),
])
def test_unreachable_destinations_say_why(mid, dest, words):
    res = shortest_walk(DEFAULT, mid, dest)
    assert not res.legal and res.reasons[0].code == "unreachable"
    assert words in res.reasons[0].message
    assert res.path == (DEFAULT.model(mid).position, dest)


def test_a_route_longer_than_move_is_unreachable():
    # behind the house corner: 3.96" as the crow flies, about 4.2" round the corner, Move 4
    res = shortest_walk(DEFAULT, "kokkio", (9.65, 12.9))
    assert not res.legal and res.reasons[0].code == "unreachable" and "too long" in res.reasons[0].message


def test_a_model_in_btb_with_an_enemy_cannot_walk():
    t = table([{"id": "a", "position": [10, 10]}, {"id": "e", "player": 2, "position": [10 + 2 * R30 + 0.005, 10]}])
    res = shortest_walk(t, "a", (8, 10))
    assert not res.legal and res.reasons[0].code == "unreachable" and "BtB" in res.reasons[0].message
    assert walk_region(t, "a").equals(Point(10, 10))
    agile = table([{"id": "a", "position": [10, 10], "traits": ["agile"]},
                   {"id": "e", "player": 2, "position": [10 + 2 * R30 + 0.005, 10], "facing": 180}])
    assert shortest_walk(agile, "a", (7, 10)).legal  # directly away from e


# ------------------------------------------------------------------- walk region
def test_walk_region_holds_the_free_neighbourhood_of_the_start():
    for mid in ("matsu", "kokkio", "kenta"):
        start = Point(DEFAULT.model(mid).position)
        region = walk_region(DEFAULT, mid)
        assert region.contains(start.buffer(0.3)), mid


def test_walk_region_excludes_zoc_impassable_and_agrees_with_the_checker():
    rng = np.random.default_rng(5)
    for mid in ("kokkio", "ton", "yatsumata", "ishi"):
        m = Mover(DEFAULT, mid)
        region = walk_region(DEFAULT, mid)
        inner, outer = region.buffer(-0.15), region.buffer(0.15)
        x0, y0 = m.start
        checked = 0
        for _ in range(300):
            p = (x0 + rng.uniform(-m.move - 1, m.move + 1), y0 + rng.uniform(-m.move - 1, m.move + 1))
            if not m.on_table(p):
                continue
            in_zoc = any(m.in_zoc_at(e.id, p) for e in m.zoc_enemies)
            blocked = bool(m.end_overlaps(p))
            if region.contains(Point(p)):
                assert not in_zoc and not blocked, (mid, p)
            if in_zoc or blocked:
                assert not inner.contains(Point(p)), (mid, p)
            if checked < 12 and (inner.contains(Point(p)) or not outer.contains(Point(p))):
                checked += 1
                res = shortest_walk(DEFAULT, mid, p)
                assert res.legal == inner.contains(Point(p)), (mid, p, res.reasons)
        # an enemy's ZoC right in front of it is outside the region
    masunagi = DEFAULT.model("masunagi")
    assert not walk_region(DEFAULT, "kokkio").intersects(Point(masunagi.position).buffer(1.5))


def test_walk_region_resolution_is_validated():
    with pytest.raises(ValueError):
        walk_region(DEFAULT, "matsu", resolution=0)


# ------------------------------------------------------------------- run region
@pytest.mark.parametrize("mid", ["kokkio", "ton", "kenta", "kazuha", "nanako", "asp", "yatsumata"])
def test_run_region_agrees_with_check_run(mid):
    m = DEFAULT.model(mid)
    region = run_region(DEFAULT, mid)
    inner, outer = region.buffer(-0.05), region.buffer(0.05)
    rng = np.random.default_rng(zlib.crc32(mid.encode()))
    inside = outside = 0
    fx, fy = math.cos(math.radians(m.facing)), math.sin(math.radians(m.facing))
    aware = m.has_trait("aware")
    reach_run = 1.5 * m.move
    for _ in range(400):
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0.05, reach_run + 2.5)
        p = (m.position[0] + d * math.cos(ang), m.position[1] + d * math.sin(ang))
        if not (0 < p[0] < 24 and 0 < p[1] < 24):
            continue
        if inner.contains(Point(p)):
            inside += 1
            res = check_run(DEFAULT, mid, p)
            assert res.legal, (mid, p, res.reasons)
        elif not outer.contains(Point(p)) and d <= reach_run and (aware or math.cos(ang) * fx + math.sin(ang) * fy > 0):
            outside += 1
            assert not check_run(DEFAULT, mid, p).legal, (mid, p)
    assert inside > 5 and outside > 5


def test_run_region_from_enemy_zoc_is_the_line_directly_away_or_nothing():
    # akira starts in masunagi's ZoC; directly away is behind it (outside its front arc)
    assert run_region(DEFAULT, "akira").area == 0
    t = table([{"id": "a", "position": [10, 10], "facing": 180},
               {"id": "e", "player": 2, "position": [10 + 2 * R30 + 0.5, 10], "facing": 180}])
    line = run_region(t, "a")
    assert line.geom_type == "LineString"
    (x0, y0), (x1, y1) = line.coords
    assert abs(y1 - 10) < 1e-9 and x1 == pytest.approx(10 - 6, abs=1e-3)
    assert check_run(t, "a", (x1 + 0.01, y1)).legal


# ------------------------------------------------------------------- charges, reach
def test_charge_lanes_one_per_enemy_sorted():
    for t, mid in ((DEFAULT, "kokkio"), (DEFAULT, "akira"), (GENERATED[1], "m0")):
        me = t.model(mid)
        enemies = sorted(m.id for m in t.models if m.player != me.player)
        lanes = charge_lanes(t, mid)
        assert [r.target for r in lanes] == enemies
        assert all(r.kind == "charge" and r.stop is not None for r in lanes)
    assert [r.target for r in charge_lanes(DEFAULT, "akira") if r.reached] == ["masunagi"]


def test_reach_bundles_the_three():
    rc = reach(DEFAULT, "kenta")
    assert isinstance(rc, Reach) and rc.move == 4 and rc.start == (21.5, 10.0)
    assert rc.walk_region.area > 10 and rc.run_region.area > 10 and len(rc.charge_lanes) == 6
    assert set(rc.timings_ms) == {"walk_region", "run_region", "charge_lanes", "total"}


def test_render_reach_png_shows_the_walk_region_near_the_model(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.image as mpimg

    from sim.view.reach_png import TABLE_COLOUR, WALK_ALPHA, WALK_COLOUR, render_reach_png

    out = render_reach_png(DEFAULT, "kokkio", tmp_path / "sub" / "reach.png")
    assert out.exists() and out.stat().st_size > 10_000
    img = mpimg.imread(str(out))[:, :, :3]

    def rgb(h):
        return np.array([int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)])

    walk_on_table = WALK_ALPHA * rgb(WALK_COLOUR) + (1 - WALK_ALPHA) * rgb(TABLE_COLOUR)
    # the mover's base has a yellow ring: find it (left of the legend), then look for
    # Walk-region pixels around it
    ring = np.all(np.abs(img - rgb("#ffd21a")) < 0.08, axis=2)
    ring[:, int(img.shape[1] * 0.78):] = False
    ys, xs = np.nonzero(ring)
    assert len(xs) > 10
    cy, cx = int(ys.mean()), int(xs.mean())
    window = img[max(0, cy - 80): cy + 80, max(0, cx - 80): cx + 80]
    near = np.all(np.abs(window - walk_on_table) < 0.05, axis=2)
    assert near.sum() > 200
