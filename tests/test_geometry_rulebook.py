"""Rulebook examples and rulings (shared/rulings.md sections 2-6) for the geometry.

Positions are in inches, facings in degrees. Each scene rebuilds a rulebook diagram
from its text (Terms and Concepts p.4-9: LoS example with models A-E; Cover example
with models A-G, a wall and a rock).
"""

from __future__ import annotations

import math

import pytest
from conftest import body, piece, rect, scene

from sim.geometry import CONTACT, EPS, Footprint, base_radius, within

R30 = base_radius(30)


# ----------------------------------------------------------------- distance / within
def test_distance_is_edge_to_edge():
    s = scene(body("a", 2, 2), body("b", 2, 10, base=40))
    assert s.distance("a", "b") == pytest.approx(8 - R30 - base_radius(40))


def test_exactly_six_inches_is_within_six():
    # Measuring Distances: a target exactly 6" away is within 6".
    s = scene(body("a", 0, 0), body("b", 6 + 2 * R30, 0), body("c", 6.001 + 2 * R30, 10))
    assert within(s.distance("a", "b"), 6)
    c_dist = math.hypot(6.001 + 2 * R30, 10) - 2 * R30
    assert not within(c_dist, 6)
    assert within(6.0 + EPS / 2, 6) and not within(6.0 + 10 * EPS, 6)


def test_btb_uses_contact_tolerance():
    s = scene(body("a", 0, 0), body("b", 2 * R30 + CONTACT * 0.9, 0), body("c", 0, 2 * R30 + CONTACT * 1.5))
    assert s.btb("a", "b")
    assert not s.btb("a", "c")


# ------------------------------------------------------------------------- front arc
def test_front_arc_is_half_plane_and_any_part_of_base_counts():
    a = body("a", 10, 10, facing=0)
    s = scene(a, body("front", 14, 10), body("side", 10, 14), body("behind_edge", 10 - R30 * 0.9, 5),
              body("behind", 6, 10))
    assert s.in_arc("a", "front")
    assert s.in_arc("a", "side")  # on the arc line
    assert s.in_arc("a", "behind_edge")  # centre behind, part of the base in front
    assert not s.in_arc("a", "behind")


def test_aware_front_arc_is_360_degrees():
    s = scene(body("a", 10, 10, facing=0, aware=True), body("b", 6, 10))
    assert s.in_arc("a", "b")
    assert s.los("a", "b").visible
    s2 = scene(body("a", 10, 10, facing=0), body("b", 6, 10))
    assert not s2.los("a", "b").visible


# ---------------------------------------------------------------- LoS: rulebook p.5
def _los_example(target_base: int):
    """LoS example: A cannot see B because D and E block; a Medium C in B's place can
    see A and be seen by A (D and E are Small, smaller than C)."""
    return scene(
        body("A", 2, 12, facing=0),
        body("T", 12, 12, base=target_base, facing=180),
        body("D", 6, 12.3, facing=180),
        body("E", 8, 11.7, facing=180),
    )


def test_los_example_small_target_blocked_by_d_and_e():
    s = _los_example(30)
    res = s.los("A", "T")
    assert not res.visible
    assert set(res.blocked_by) == {"D", "E"}
    # D alone, or E alone, does not block: both are needed.
    assert scene(body("A", 2, 12), body("T", 12, 12, facing=180), body("D", 6, 12.3)).los("A", "T").visible
    assert scene(body("A", 2, 12), body("T", 12, 12, facing=180), body("E", 8, 11.7)).los("A", "T").visible


def test_los_example_medium_target_sees_and_is_seen():
    s = _los_example(40)
    assert s.los("A", "T").visible
    assert s.los("T", "A").visible


def test_blocker_of_equal_size_blocks_smaller_does_not():
    wall = rect(6, 12, 0.4, 6)
    for size, blocks in [("tiny", False), ("small", True), ("medium", True)]:
        s = scene(body("a", 2, 12), body("b", 10, 12, facing=180), piece("w", wall, "blocking", size))
        assert s.los("a", "b").visible is (not blocks), size


# ------------------------------------------------------------- cover: rulebook p.31
@pytest.fixture
def cover_example():
    """Cover example: A sees B clearly; a Large G blocks A->C; D is seen through
    obscuring terrain (cover); a Tiny wall in front of E does not block but gives cover;
    a Large rock blocks A->F."""
    return scene(
        body("A", 2, 12, facing=0),
        body("B", 10, 12, facing=180),
        body("C", 10, 20, facing=180),
        body("G", 6, 16, base=50, facing=180),
        body("D", 10, 4, facing=180),
        piece("forest", rect(8.5, 5.5, 2, 2), "obscuring", "huge", "difficult"),
        body("E", 18, 12, facing=180),
        piece("wall", rect(16.9, 12, 0.3, 4), "blocking", "tiny", "difficult"),
        body("F", 17, 4, facing=180),
        piece("rock", Footprint.circle((9.5, 8), 1.0), "blocking", "large"),
    )


def test_cover_example_clear(cover_example):
    s = cover_example
    assert s.los("A", "B").visible and not s.cover("A", "B").cover


def test_cover_example_larger_model_blocks(cover_example):
    res = cover_example.los("A", "C")
    assert not res.visible and res.blocked_by == ("G",)


def test_cover_example_obscuring_gives_cover(cover_example):
    s = cover_example
    assert s.los("A", "D").visible
    c = s.cover("A", "D")
    assert c.cover and c.piece == "forest"


def test_cover_example_tiny_wall_gives_cover_without_blocking(cover_example):
    s = cover_example
    assert s.los("A", "E").visible
    c = s.cover("A", "E")
    assert c.cover and c.piece == "wall"


def test_cover_example_large_rock_blocks_small_to_small(cover_example):
    res = cover_example.los("A", "F")
    assert not res.visible and "rock" in res.blocked_by


def test_cover_witness_line_crosses_the_cover_piece(cover_example):
    from shapely.geometry import LineString

    c = cover_example.cover("A", "D")
    assert LineString([c.line.a, c.line.b]).crosses(cover_example.pieces["forest"].footprint.shape)


def test_terrain_behind_target_gives_no_cover():
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180),
              piece("forest", rect(11.3, 12, 1, 4), "obscuring", "huge", "difficult"))
    assert s.pieces["forest"].footprint.distance_to_disc((10, 12), R30) < 1
    assert s.los("a", "t").visible
    assert not s.cover("a", "t").cover


def test_terrain_more_than_one_inch_from_target_gives_no_cover():
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180),
              piece("forest", rect(6, 12, 1, 4), "obscuring", "huge", "difficult"))
    assert s.los("a", "t").visible and not s.cover("a", "t").cover


def test_blocking_house_beside_target_gives_cover_when_los_passes_it():
    # Visibility "Blocking": some lines are blocked by the house, a clear line exists,
    # the target is within 1" of the house: cover.
    house = piece("house", rect(8.5, 14, 3, 3), "blocking", "huge")
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180), house)
    assert s.los("a", "t").visible
    c = s.cover("a", "t")
    assert c.cover and c.piece == "house"


def test_cover_requires_los():
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180), piece("house", rect(6, 12, 1, 8)))
    assert not s.los("a", "t").visible and not s.cover("a", "t").cover


def test_cover_piece_line_must_avoid_other_blockers():
    # The only lines through the fog pass through a statue as well: no cover from fog.
    fog = piece("fog", rect(9, 14.2, 1.2, 1.2), "obscuring", "huge", "normal")
    statue = piece("statue", rect(6, 13.6, 1, 1.6), "blocking", "medium")
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180), fog, statue)
    assert s.los("a", "t").visible
    assert not s.cover("a", "t").cover


def test_construct_counts_as_blocking_terrain_for_cover():
    # A Construct Small model next to the target, Small models: blocks some lines, gives cover.
    s = scene(body("a", 2, 12), body("t", 10, 12, facing=180), body("golem", 9, 13, construct=True))
    assert s.los("a", "t").visible
    c = s.cover("a", "t")
    assert c.cover and c.piece == "golem"


# ---------------------------------------------------------------- grazing and gaps
def test_grazing_line_is_clear():
    # Two walls leave only the line y = 12 free: it touches both walls, crosses neither.
    top = piece("top", Footprint.polygon([[4, 12], [8, 12], [8, 18], [4, 18]]))
    bottom = piece("bottom", Footprint.polygon([[4, 6], [8, 6], [8, 12], [4, 12]]))
    s = scene(body("a", 2, 12), body("b", 10, 12, facing=180), top, bottom)
    res = s.los("a", "b")
    assert res.visible
    assert res.line.a[1] == pytest.approx(12, abs=1e-5) and res.line.b[1] == pytest.approx(12, abs=1e-5)


def test_overlapping_walls_block():
    top = piece("top", Footprint.polygon([[4, 11.999], [8, 11.999], [8, 18], [4, 18]]))
    bottom = piece("bottom", Footprint.polygon([[4, 6], [8, 6], [8, 12], [4, 12]]))
    s = scene(body("a", 2, 12), body("b", 10, 12, facing=180), top, bottom)
    assert not s.los("a", "b").visible


def test_diagonal_gap_is_found_exactly():
    # Two staggered walls with gaps that line up only diagonally: no straight
    # horizontal line is clear, a slanted one is.
    walls = [
        piece("w1", Footprint.polygon([[3, 5], [3.2, 5], [3.2, 12.1], [3, 12.1]])),
        piece("w2", Footprint.polygon([[3, 12.3], [3.2, 12.3], [3.2, 19], [3, 19]])),
        piece("w3", Footprint.polygon([[7, 5], [7.2, 5], [7.2, 11.7], [7, 11.7]])),
        piece("w4", Footprint.polygon([[7, 11.9], [7.2, 11.9], [7.2, 19], [7, 19]])),
    ]
    s = scene(body("a", 0, 12), body("b", 10, 12, facing=180), *walls)
    res = s.los("a", "b")
    assert res.visible
    (_, ay), (_, by) = res.line.a, res.line.b
    assert by < ay  # the witness slants down through both gaps


def test_los_to_model_in_btb():
    s = scene(body("a", 10, 10, facing=0), body("b", 10 + 2 * R30, 10, facing=180),
              piece("house", rect(10 + R30, 13, 6, 4)))
    assert s.btb("a", "b") and s.los("a", "b").visible


# ------------------------------------------------------------------ prone / enhancing
def test_prone_model_does_not_block():
    wall_of_models = [body(f"m{i}", 6, 9 + i * 2 * R30, base=30, prone=True) for i in range(6)]
    wall_of_models += [body(f"n{i}", 6 + 2 * R30, 9 + R30 + i * 2 * R30, prone=True) for i in range(5)]
    s = scene(body("a", 2, 12), body("b", 10, 12, facing=180), *wall_of_models)
    assert s.los("a", "b").visible
    # standing models in two staggered ranks leave no gap
    standing = [body(f"m{i}", 6, 9 + i * 2 * R30) for i in range(6)]
    standing += [body(f"n{i}", 6 + 2 * R30, 9 + R30 + i * 2 * R30) for i in range(5)]
    assert not scene(body("a", 2, 12), body("b", 10, 12, facing=180), *standing).los("a", "b").visible


def test_enhancing_terrain_ignores_smaller_elements():
    hill = piece("hill", Footprint.circle((2, 12), 1.5), "enhancing", "large", "normal")
    statue = piece("statue", rect(6, 12, 1, 4), "blocking", "medium")
    house = piece("house", rect(6, 12, 1, 4), "blocking", "huge")
    on_hill = scene(body("a", 2, 12), body("b", 10, 12, facing=180), hill, statue)
    assert on_hill.los("a", "b").visible and on_hill.los("b", "a").visible
    assert not scene(body("a", 2, 12), body("b", 10, 12, facing=180), statue).los("a", "b").visible
    assert not scene(body("a", 2, 12), body("b", 10, 12, facing=180), hill, house).los("a", "b").visible


def test_enhancing_still_lets_smaller_terrain_give_cover():
    hill = piece("hill", Footprint.circle((2, 12), 1.5), "enhancing", "large", "normal")
    statue = piece("statue", rect(9.2, 13.2, 1, 1.5), "blocking", "medium")
    s = scene(body("a", 2, 12), body("b", 10, 12, facing=180), hill, statue)
    assert s.los("a", "b").visible
    assert s.cover("a", "b").piece == "statue"


def test_blind_sees_only_models_in_btb():
    s = scene(body("a", 10, 10, blind=True), body("b", 10 + 2 * R30, 10), body("c", 14, 10))
    assert s.los("a", "b").visible and not s.los("a", "c").visible


# --------------------------------------------------------------------------- ZoC
def test_zoc_within_one_inch_in_arc():
    s = scene(body("a", 10, 10, facing=0), body("near", 10 + 2 * R30 + 0.99, 10),
              body("far", 10, 10 + 2 * R30 + 1.01))
    assert s.zoc("a", "near").in_zoc
    assert not s.zoc("a", "far").in_zoc


def test_zoc_exactly_one_inch_counts():
    s = scene(body("a", 10, 10, facing=0), body("b", 10 + 2 * R30 + 1.0, 10))
    assert s.zoc("a", "b").in_zoc


def test_zoc_stops_at_the_front_arc():
    s = scene(body("a", 10, 10, facing=0), body("behind", 10 - 2 * R30 - 0.5, 10))
    assert not s.zoc("a", "behind").in_zoc
    # a base straddling the arc line is in ZoC by the part inside the arc
    s2 = scene(body("a", 10, 10, facing=0), body("side", 10 - 0.3, 10 + 2 * R30 + 0.5))
    assert s2.zoc("a", "side").in_zoc
    aware = scene(body("a", 10, 10, facing=0, aware=True), body("behind", 10 - 2 * R30 - 0.5, 10))
    assert aware.zoc("a", "behind").in_zoc


def test_zoc_stops_at_blocking_terrain():
    wall = rect(10 + R30 + 0.25, 10, 0.2, 6)
    for size, blocked in [("small", True), ("huge", True), ("tiny", False)]:
        s = scene(body("a", 10, 10), body("b", 10 + 2 * R30 + 0.5, 10), piece("w", wall, "blocking", size))
        assert s.zoc("a", "b").in_zoc is (not blocked), size


def test_zoc_part_of_base_around_the_wall_end():
    # A short wall hides the near half of b's base; the far part within 1" is still seen.
    wall = rect(10 + R30 + 0.25, 9.6, 0.2, 1.2)
    s = scene(body("a", 10, 10), body("b", 10 + 2 * R30 + 0.5, 10.4), piece("w", wall, "blocking", "huge"))
    assert s.zoc("a", "b").in_zoc


def test_zoc_target_own_base_does_not_block_but_other_models_do():
    s = scene(body("a", 10, 10), body("b", 10 + 2 * R30 + 0.9, 10),
              body("c", 10 + R30 + 0.3, 10 + 2 * R30 * 0.2, base=30))
    # c (in BtB-ish between) does not fully hide b's near part within 1"?
    res = s.zoc("a", "b")
    assert isinstance(res.in_zoc, bool)
    blocked = scene(body("a", 10, 10), body("b", 10 + 2 * R30 + 0.9, 10),
                    *(body(f"c{i}", 10 + R30 + R30 + 0.005, 10 + (i - 1) * 2 * R30 * 1.0) for i in range(3)))
    # three models in a column between a and b hide every point of b within 1"
    assert not blocked.zoc("a", "b").in_zoc


def test_zoc_point_los_ignores_smaller_terrain():
    # A Large model's ZoC is not stopped by a Medium statue (LoS to a point uses size(owner)).
    statue = piece("statue", rect(10 + base_radius(50) + 0.25, 10, 0.2, 6), "blocking", "medium")
    s = scene(body("big", 10, 10, base=50), body("b", 10 + base_radius(50) + R30 + 0.5, 10), statue)
    assert s.zoc("big", "b").in_zoc
