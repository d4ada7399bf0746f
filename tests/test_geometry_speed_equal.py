"""The fast drawn geometry equals its slow reference (issue 12, "Speed").

:func:`sim.geometry.measure.zoc_region` and :func:`~sim.geometry.measure.umbra` are
vectorised and cached by value (the owner's base and the shapes of the blockers near it);
:func:`sim.geometry.reference.zoc_region_reference` and
:func:`~sim.geometry.reference.umbra_reference` build the same regions one shapely polygon
at a time and cache nothing. Property tests in the degenerate positions of
``test_geometry_degenerate`` (grid coordinates, 45-degree turns, bases exactly touching,
models lined up through a piece's centre or vertex) hold them to the same regions (area
of the symmetric difference under 1e-9 square inches) and the same emptiness; the caches
are never cleared between examples, so a stale answer would show. Bases exactly touching
now get the exact tangent umbra (they used to take the 48-point approximation), checked
against the exact point test ``Scene.los_to_point``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import body, piece, rect, scene
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point
from test_geometry_degenerate import BASES, SCALE, grid_piece_footprint, lined_up_scene

from sim.geometry import Footprint, Obstacle, Scene, Size, base_radius
from sim.geometry.measure import clear_geometry_caches, geometry_cache_info, umbra, umbra_tangents, zoc_region
from sim.geometry.reference import umbra_reference, zoc_region_reference

TOL = 1e-9
SETTINGS = settings(max_examples=60 * SCALE, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def assert_same_region(fast, ref, what="") -> None:
    """Same region: symmetric difference of area < TOL, same emptiness."""
    assert fast.is_empty == ref.is_empty, what
    if not ref.is_empty:
        assert fast.symmetric_difference(ref).area < TOL, (what, fast.symmetric_difference(ref).area)


def assert_zoc_equal(s: Scene) -> None:
    for mid in s.bodies:
        assert_same_region(zoc_region(s, mid), zoc_region_reference(s, mid), mid)


# ------------------------------------------------------------------------ properties
@SETTINGS
@given(lined_up_scene())
def test_zoc_region_equals_reference_on_grid_scenes_lined_up_through_pieces(s):
    assert_zoc_equal(s)


@st.composite
def touching_scene(draw):
    """A base at a grid point with a second base exactly touching it, in a direction
    that is a multiple of 15 degrees (45 degrees and the line of centres along the grid
    included), sometimes a third touching the second; facings in multiples of 45
    degrees; up to two grid pieces near them (diamonds, 45-degree rects, L-shapes,
    circles)."""
    step = draw(st.sampled_from([0.5, 1.0]))
    ra, rb = base_radius(draw(BASES)), base_radius(draw(BASES))
    cx, cy = step * draw(st.integers(int(9 / step), int(15 / step))), step * draw(st.integers(int(9 / step),
                                                                                              int(15 / step)))
    face = lambda: 45.0 * draw(st.integers(0, 7))  # noqa: E731
    t = math.radians(15 * draw(st.integers(0, 23)))
    bodies = [body("a", cx, cy, base=round(ra * 2 * 25.4), facing=face(), aware=draw(st.booleans())),
              body("b", cx + (ra + rb) * math.cos(t), cy + (ra + rb) * math.sin(t), base=round(rb * 2 * 25.4),
                   facing=face())]
    if draw(st.booleans()):
        t2 = t + math.radians(45 * draw(st.integers(-2, 2)))
        rc = base_radius(draw(BASES))
        c = body("c", bodies[1].center[0] + (rb + rc) * math.cos(t2), bodies[1].center[1] + (rb + rc) * math.sin(t2),
                 base=round(rc * 2 * 25.4), facing=face())
        if math.dist(c.center, bodies[0].center) >= ra + rc - 1e-9:
            bodies.append(c)
    fps = [draw(grid_piece_footprint(step)) for _ in range(draw(st.integers(0, 2)))]
    pieces = [piece(f"t{i}", fp, draw(st.sampled_from(["blocking", "obscuring"])),
                    draw(st.sampled_from(["medium", "huge"]))) for i, fp in enumerate(fps)]
    return Scene(bodies, pieces)


@SETTINGS
@given(touching_scene())
def test_zoc_region_equals_reference_with_bases_exactly_touching(s):
    assert_zoc_equal(s)


@settings(max_examples=25 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([0.5, 1.0]), st.integers(1, 3), st.integers(1, 2), st.integers(0, 3), st.integers(-4, 4),
       st.integers(-4, 4), st.sampled_from([30, 40, 50]))
def test_umbra_of_an_l_shaped_piece_equals_reference(step, ka, kb, rot, dx, dy, base):
    """A non-convex piece (no outer common tangents: the rim-point construction, built
    vectorised against one polygon at a time) at grid offsets from the base."""
    a, b = ka * step, min(kb * step, 2 * ka * step - step)
    pts = [[0, 0], [2 * a, 0], [2 * a, b], [b, b], [b, 2 * a], [0, 2 * a]]
    fp = Footprint.polygon([[12 + x, 12 + y] for x, y in pts]).transformed(90 * rot, (0, 0), (12, 12))
    ob = Obstacle.from_footprint("ell", fp)
    src, r = (12 + dx * step, 12 + dy * step), base_radius(base)
    assert not ob.convex
    assert_same_region(umbra(src, r, ob, far=r + 3), umbra_reference(src, r, ob, far=r + 3))


@pytest.mark.parametrize("overlap", [0.01, 0.2])
def test_umbra_of_an_overlapping_base_equals_reference(overlap):
    """Two bases overlapping (no tangents: the rim-point construction)."""
    r = base_radius(30)
    ob = Obstacle.disc("b", (12 + 2 * r - overlap, 12), r)
    assert umbra_tangents(12, 12, r, ob) == []
    assert_same_region(umbra((12, 12), r, ob, far=r + 3), umbra_reference((12, 12), r, ob, far=r + 3))


def test_zoc_of_a_base_inside_a_blocking_circle_is_empty_and_does_not_raise():
    """Found by the property test: a base standing inside a (passable) Blocking circle,
    a smaller Blocking circle overlapping it. Every line from the base starts inside the
    piece, so nothing is in its ZoC; GEOS used to fail on the rim-point shadow (a
    collection with lines) taken from the empty area."""
    s = scene(body("m0", 7, 6), body("m1", 9, 6), piece("t0", Footprint.circle((8, 6), 2.0), passage="normal"),
              piece("t1", Footprint.polygon([[6, 5.5], [6.5, 6], [6, 6.5], [5.5, 6]])),
              piece("t2", Footprint.circle((8, 6), 0.5), passage="normal"))
    for mid in ("m0", "m1"):
        assert zoc_region(s, mid).is_empty
        assert zoc_region_reference(s, mid).is_empty
        assert not s.los_to_point(mid, (s.bodies[mid].center[0] + s.bodies[mid].radius + 0.5, 6)).visible


# ------------------------------------------------------- touching bases, exact verdict
def _disagreements(s, mid, step=0.06, margin=0.03):
    """Grid points within 1" of the base, away from the region's edge, where the drawn
    ZoC and the exact point test disagree (as in test_zoc_region)."""
    A = s.bodies[mid]
    reg = zoc_region(s, mid)
    bad, n = [], 0
    for x in np.arange(A.center[0] - A.radius - 1, A.center[0] + A.radius + 1, step):
        for y in np.arange(A.center[1] - A.radius - 1, A.center[1] + A.radius + 1, step):
            d = math.dist((x, y), A.center) - A.radius
            if d <= margin or d > 1 - margin or reg.boundary.distance(Point(x, y)) < margin:
                continue
            n += 1
            if reg.contains(Point(x, y)) != s.los_to_point(mid, (x, y)).visible:
                bad.append((x, y))
    return n, bad


@pytest.mark.parametrize("base_a, base_b, angle, gap", [(30, 30, 0, 0.0), (30, 40, 45, -1e-9), (40, 40, 30, 0.0),
                                                         (30, 50, 90, -1e-9), (30, 40, 15, -1e-9)])
def test_zoc_behind_a_base_exactly_touching_matches_the_exact_point_test(base_a, base_b, angle, gap):
    """A base in contact with the owner (as large or larger; centres ``ra + rb + gap``
    apart, the rounding a move to contact may leave) hides the part of its ZoC behind
    it: the drawn area (outer common tangents) agrees with ``los_to_point`` everywhere
    but at its edge."""
    ra, rb = base_radius(base_a), base_radius(base_b)
    t = math.radians(angle)
    D = ra + rb + gap
    a = body("a", 12, 12, base=base_a, facing=angle)
    b = body("b", 12 + D * math.cos(t), 12 + D * math.sin(t), base=base_b)
    s = scene(a, b)
    assert s.btb("a", "b")
    assert len(umbra_tangents(12, 12, ra, Obstacle.disc("b", b.center, rb))) == 2  # the exact path
    reg = zoc_region(s, "a")
    ring_half = math.pi * ((ra + 1) ** 2 - ra**2) / 2
    assert reg.area < ring_half - 0.05  # something is hidden
    n, bad = _disagreements(s, "a")
    assert n > 500 and bad == []


@pytest.mark.parametrize("base_a, angle, gap", [(50, 0, 0.0), (50, 45, -1e-9), (40, 30, 0.0), (60, 90, -1e-9)])
def test_zoc_edge_behind_a_touching_base_is_exact_to_a_ten_thousandth(base_a, angle, gap):
    """Points 1e-4" either side of the outer common tangents of the owner and a smaller
    (30 mm, Huge) base touching it, within its ZoC ring: the drawn area agrees with
    ``los_to_point`` on every one (the 48 rim points used before erred there)."""
    ra, rb = base_radius(base_a), base_radius(30)
    t = math.radians(angle)
    a = body("a", 12, 12, base=base_a, facing=angle)
    b = body("b", 12 + (ra + rb + gap) * math.cos(t), 12 + (ra + rb + gap) * math.sin(t), base=30, size=Size.HUGE)
    s = scene(a, b)
    reg = zoc_region(s, "a")
    pts = []
    for (nx, ny), _d, (tx, ty) in umbra_tangents(12, 12, ra, Obstacle.disc("b", b.center, rb)):
        ux, uy = (-ny, nx) if (tx - 12) * -ny + (ty - 12) * nx >= 0 else (ny, -nx)  # away from the owner
        for k in np.linspace(0.02, 1.0, 25):
            for side in (1e-4, -1e-4):
                p = (tx + ux * k + side * nx, ty + uy * k + side * ny)
                if 0.01 < math.dist(p, a.center) - ra < 0.99 and math.dist(p, b.center) > rb + 0.01:
                    pts.append(p)
    assert len(pts) >= 4
    assert [p for p in pts if reg.contains(Point(p)) != s.los_to_point("a", p).visible] == []


# ------------------------------------------------------------------------------ caches
def test_zoc_region_cache_follows_what_moved():
    """Cached by value: a model far away moving keeps the answer (the same object);
    the blocker moving, or the owner turning, gives the new region."""
    clear_geometry_caches()
    a = body("a", 10, 10, facing=0)
    b = body("b", 11.4, 10.3)
    far_ = body("far", 20, 20)
    wall = piece("w", rect(10.2, 11.3, 1.2, 0.3))
    first = zoc_region(scene(a, b, far_, wall), "a")
    moved_far = zoc_region(scene(a, b, body("far", 21, 19), wall), "a")
    assert moved_far is first
    assert geometry_cache_info()["zoc_region"][0] >= 1
    s2 = scene(a, body("b", 11.4, 9.7), far_, wall)
    moved_b = zoc_region(s2, "a")
    assert moved_b.symmetric_difference(first).area > 0.01
    assert_same_region(moved_b, zoc_region_reference(s2, "a"))
    s3 = scene(body("a", 10, 10, facing=45), b, far_, wall)
    turned = zoc_region(s3, "a")
    assert turned.symmetric_difference(first).area > 0.01
    assert_same_region(turned, zoc_region_reference(s3, "a"))


def test_umbra_cache_is_by_shape_not_by_key():
    clear_geometry_caches()
    u1 = umbra((10, 10), 0.6, Obstacle.disc("x", (12, 10), 0.6), far=3.0)
    u2 = umbra((10, 10), 0.6, Obstacle.disc("y", (12, 10), 0.6), far=3.0)
    u3 = umbra((10, 10), 0.6, Obstacle.disc("x", (12, 10.5), 0.6), far=3.0)
    assert u2 is u1
    assert u3.symmetric_difference(u1).area > 0.01
