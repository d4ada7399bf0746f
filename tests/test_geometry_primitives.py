"""The shared plane primitives (``sim.geometry.primitives``) and the interval helpers of
``sim.geometry.motion``: each scalar form agrees with its numpy form (to rounding), and both with
shapely or with the per-segment closed forms they vectorise."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from sim.geometry import Footprint
from sim.geometry.motion import budget_fraction, footprint_intervals, footprint_ray_intervals, subtract
from sim.geometry.primitives import (
    chord,
    heading,
    lerp,
    normalize,
    point_in_polygon,
    point_segment_distance,
    point_segment_distances,
    points_in_polygon,
    polygon_distances,
    polygon_is_convex,
    segment_distances,
    segment_polygon_distances,
    unit_vector,
    wrap_angle,
)

# hundredths of an inch: shapely itself misbehaves on denormal-length segments
coord = st.integers(-3000, 3000).map(lambda v: v / 100)
EXAMPLES = 60


@settings(max_examples=EXAMPLES, deadline=None)
@given(coord, coord, coord, coord, coord, coord)
def test_point_segment_distance_scalar_numpy_and_shapely_agree(px, py, ax, ay, bx, by):
    d1 = point_segment_distance(px, py, ax, ay, bx, by)
    dn = point_segment_distances(np.array([px]), np.array([py]), ax, ay, bx, by)[0]
    assert math.isclose(d1, dn, rel_tol=1e-14, abs_tol=1e-14)  # math.hypot and np.hypot may round apart
    seg = Point(ax, ay) if (ax, ay) == (bx, by) else LineString([(ax, ay), (bx, by)])
    assert math.isclose(d1, shapely.distance(Point(px, py), seg), abs_tol=1e-9)


def test_point_segment_distance_zero_length_and_tiny_segments_count_as_their_start():
    assert point_segment_distance(3.0, 4.0, 0.0, 0.0, 0.0, 0.0) == 5.0
    assert point_segment_distances(3.0, 4.0, 0.0, 0.0, 0.0, 0.0) == 5.0
    # a segment 1e-7" long is a point when tiny=1e-12 (the sight-line search's guard)
    assert point_segment_distance(0.0, 1.0, 0.0, 0.0, 1e-7, 0.0, 1e-12) == 1.0
    assert point_segment_distances(0.0, 1.0, 0.0, 0.0, np.array([1e-7]), 0.0, 1e-12)[0] == 1.0


@settings(max_examples=EXAMPLES, deadline=None)
@given(coord, coord, coord, coord, coord, coord, coord, coord)
def test_segment_distances_match_shapely(ax, ay, bx, by, cx, cy, dx, dy):
    got = float(segment_distances(ax, ay, bx, by, cx, cy, dx, dy))
    g1 = LineString([(ax, ay), (bx, by)]) if (ax, ay) != (bx, by) else Point(ax, ay)
    g2 = LineString([(cx, cy), (dx, dy)]) if (cx, cy) != (dx, dy) else Point(cx, cy)
    want = shapely.distance(g1, g2)
    # collinear touching segments: the strict crossing test gives an endpoint distance (0)
    assert math.isclose(got, want, abs_tol=1e-7)


SQUARE_L = np.array([[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4]], float)  # an L, not convex


def test_polygon_point_tests_and_signed_distances():
    px = np.array([0.5, 2.0, 2.0, 5.0])
    py = np.array([0.5, 0.5, 2.0, 5.0])
    inside = points_in_polygon(px, py, SQUARE_L)
    assert inside.tolist() == [True, True, False, False]
    assert [point_in_polygon(x, y, SQUARE_L.tolist()) for x, y in zip(px, py)] == inside.tolist()
    d = polygon_distances(px, py, SQUARE_L)
    poly = Polygon(SQUARE_L)
    for x, y, v in zip(px, py, d):
        want = poly.exterior.distance(Point(x, y))
        assert math.isclose(abs(v), want, abs_tol=1e-12) and (v < 0) == poly.contains(Point(x, y))


def test_segment_polygon_distances_zero_inside_or_crossing():
    ax, ay = np.array([0.5, 2.0, 5.0]), np.array([0.5, 2.0, 5.0])
    bx, by = np.array([0.6, 2.0, 6.0]), np.array([0.6, -1.0, 6.0])
    d = segment_polygon_distances(ax, ay, bx, by, SQUARE_L)
    assert d[0] == 0.0 and d[1] == 0.0
    assert math.isclose(d[2], Polygon(SQUARE_L).distance(LineString([(5, 5), (6, 6)])), abs_tol=1e-12)  # to (1, 4)


def test_polygon_is_convex_either_orientation():
    sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert polygon_is_convex(sq) and polygon_is_convex(sq[::-1])
    assert not polygon_is_convex(SQUARE_L)
    assert Footprint.polygon(sq).convex and not Footprint.polygon(SQUARE_L).convex
    assert Footprint.circle((1, 1), 1).convex


def test_directions_and_angles():
    assert heading(1.0, 0.0) == 0.0 and heading(0.0, -2.0) == 270.0 and heading(-1.0, 0.0) == 180.0
    ux, uy = unit_vector(30.0)
    assert math.isclose(ux, math.sqrt(3) / 2) and math.isclose(uy, 0.5)
    assert math.isclose(heading(ux, uy), 30.0)
    assert normalize(3.0, 4.0) == (0.6, 0.8, 5.0)
    assert normalize(1e-13, 0.0) == (0.0, 0.0, 0.0)
    assert math.isclose(wrap_angle(3 * math.pi / 2), -math.pi / 2)
    assert wrap_angle(math.pi) == -math.pi  # [-pi, pi)
    assert np.allclose(wrap_angle(np.array([0.0, 2 * math.pi + 0.1])), [0.0, 0.1])


def test_chord_and_lerp():
    assert chord(0.0, 0.0, 1.0, 0.0, 5.0, 0.0, 1.0) == (4.0, 6.0)
    assert chord(0.0, 2.0, 1.0, 0.0, 5.0, 0.0, 1.0) is None
    t0, t1 = chord(0.0, 1.0, 1.0, 0.0, 5.0, 0.0, 1.0)  # tangent: one point
    assert t0 == t1 == 5.0
    assert lerp((1.0, 2.0), (3.0, 6.0), 0.25) == (1.5, 3.0)


def test_subtract_open_gaps_from_closed_pieces():
    assert subtract([(0.0, 1.0)], [(0.2, 0.3), (0.5, 2.0)]) == [(0.0, 0.2), (0.3, 0.5)]
    assert subtract([(0.0, 1.0)], []) == [(0.0, 1.0)]
    assert subtract([(0.0, 0.4), (0.6, 1.0)], [(0.3, 0.7)]) == [(0.0, 0.3), (0.7, 1.0)]


def test_budget_fraction_difficult_costs_double():
    # 10" segment, Difficult (x2) on its middle fifth: 2" + 4" + 6" = 12" in all
    ivs = [(0.4, 0.6)]
    assert budget_fraction(ivs, 10.0, 2.0, 12.0) == 1.0
    assert math.isclose(budget_fraction(ivs, 10.0, 2.0, 4.0), 0.4)
    assert math.isclose(budget_fraction(ivs, 10.0, 2.0, 6.0), 0.5)  # 4" + 1" of Difficult
    assert math.isclose(budget_fraction(ivs, 10.0, 2.0, 9.0), 0.7)
    assert budget_fraction(ivs, 0.0, 2.0, 1.0) == 1.0


FOOTPRINTS = [
    Footprint.circle((12.0, 12.0), 1.5),
    Footprint.rect((10.0, 14.0), 3.0, 1.0, rotation=25.0),
    Footprint.polygon([(14, 9), (17, 10), (16, 13), (13, 12)]),
]


def test_footprint_ray_intervals_equal_the_per_segment_closed_form():
    a = (11.0, 11.0)
    thetas = np.radians(np.arange(0.0, 360.0, 7.5))
    D = np.column_stack([np.cos(thetas), np.sin(thetas)]) * 8.0
    for fp in FOOTPRINTS:
        for R in (0.5906, 0.0):
            lo, hi = footprint_ray_intervals(a, D, fp, R)
            for k, d in enumerate(D):
                ivs = footprint_intervals(a, (a[0] + d[0], a[1] + d[1]), fp, R)
                if not ivs:
                    assert lo[k] > hi[k], (fp.kind, R, k)
                else:
                    assert len(ivs) == 1  # a convex footprint meets a line in one interval
                    assert math.isclose(lo[k], ivs[0][0], abs_tol=1e-9)
                    assert math.isclose(hi[k], ivs[0][1], abs_tol=1e-9)
