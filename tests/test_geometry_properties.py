"""Property tests (hypothesis) for the measurement invariants.

* distance is symmetric and never negative;
* cover implies LoS;
* every answer is unchanged when the whole table is translated or rotated;
* a model in BtB inside the front arc is always in LoS;
* the exact engine agrees with the slow sampled reference wherever the reference is
  certain (a clear sampled line proves LoS), and every witness line it returns is
  checked independently with shapely.
"""

from __future__ import annotations

import math

from conftest import assert_witness_ok, body, piece
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sim.geometry import Body, Footprint, Piece, Scene, base_radius
from sim.geometry.reference import sampled_los

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

coord = st.floats(1.5, 22.5, allow_nan=False)
angle = st.floats(0, 360, allow_nan=False, exclude_max=True)
bases = st.sampled_from([30, 40, 50, 60])


@st.composite
def bodies(draw, n_min=2, n_max=5):
    out: list[Body] = []
    n = draw(st.integers(n_min, n_max))
    for i in range(n):
        base = draw(bases)
        x, y = draw(coord), draw(coord)
        r = base_radius(base)
        if any(math.dist((x, y), b.center) < r + b.radius + 1e-3 for b in out):
            continue
        out.append(body(f"m{i}", x, y, base=base, facing=draw(angle), aware=draw(st.booleans()) and i % 3 == 0,
                        prone=draw(st.booleans()) and i % 4 == 3))
    assume(len(out) >= 2)
    return out


@st.composite
def pieces(draw, n_max=4):
    out: list[Piece] = []
    for i in range(draw(st.integers(0, n_max))):
        if draw(st.booleans()):
            fp = Footprint.rect((draw(coord), draw(coord)), draw(st.floats(0.3, 5)), draw(st.floats(0.3, 5)),
                                draw(angle))
        else:
            fp = Footprint.circle((draw(coord), draw(coord)), draw(st.floats(0.3, 2.5)))
        vis = draw(st.sampled_from(["blocking", "blocking", "obscuring", "enhancing", "open"]))
        size = draw(st.sampled_from(["tiny", "small", "medium", "large", "huge"]))
        out.append(piece(f"t{i}", fp, vis, size, "difficult"))
    return out


def _answers(s: Scene):
    out = {}
    for a in s.bodies:
        for b in s.bodies:
            if a != b:
                los = s.los(a, b)
                out[(a, b)] = (s.in_arc(a, b), los.visible, s.cover(a, b, los).cover, s.zoc(a, b).in_zoc)
    return out


def _transform(s: Scene, rot: float, dx: float, dy: float) -> Scene:
    c, si = math.cos(math.radians(rot)), math.sin(math.radians(rot))

    def tp(p):
        return (c * p[0] - si * p[1] + dx, si * p[0] + c * p[1] + dy)

    bs = [Body(b.id, tp(b.center), b.radius, b.size, (b.facing + rot) % 360, b.aware, b.prone, b.elsewhere, b.blind,
               b.construct, b.player) for b in s.bodies.values()]
    ps = [Piece(p.id, p.footprint.transformed(rot, (dx, dy)), p.visibility, p.size, p.passage)
          for p in s.pieces.values()]
    return Scene(bs, ps)


@SETTINGS
@given(bodies())
def test_distance_symmetric_and_non_negative(bs):
    s = Scene(bs)
    for a in s.bodies:
        for b in s.bodies:
            d = s.distance(a, b)
            assert d >= 0
            assert d == s.distance(b, a)


@SETTINGS
@given(bodies(), pieces())
def test_cover_implies_los(bs, ps):
    s = Scene(bs, ps)
    for a in s.bodies:
        for b in s.bodies:
            if a != b and s.cover(a, b).cover:
                assert s.los(a, b).visible


@SETTINGS
@given(bodies(2, 4), pieces(3), st.sampled_from([0.0, 90.0, 180.0, 270.0, 37.0, 123.4]),
       st.floats(-30, 30), st.floats(-30, 30))
def test_answers_unchanged_by_translation_and_rotation(bs, ps, rot, dx, dy):
    s = Scene(bs, ps)
    t = _transform(s, rot, dx, dy)
    assert _answers(s) == _answers(t)


@SETTINGS
@given(coord, coord, bases, bases, angle, st.floats(-89.9, 89.9), pieces(3))
def test_los_to_model_in_btb(x, y, base_a, base_b, facing, rel, ps):
    ra, rb = base_radius(base_a), base_radius(base_b)
    t = math.radians(facing + rel)
    bx, by = x + (ra + rb) * math.cos(t), y + (ra + rb) * math.sin(t)
    a, b = body("a", x, y, base=base_a, facing=facing), body("b", bx, by, base=base_b)
    s = Scene([a, b], ps)
    assert s.btb("a", "b")
    assert s.los("a", "b").visible


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(bodies(2, 4), pieces(4))
def test_exact_agrees_with_sampled_reference(bs, ps):
    s = Scene(bs, ps)
    for a in s.bodies:
        for b in s.bodies:
            if a == b:
                continue
            res = s.los(a, b)
            clear, total = sampled_los(s, a, b, n=16)
            if clear > 0:
                assert res.visible, (a, b, clear, total)
            if res.visible and not s.bodies[a].blind:
                assert_witness_ok(s, a, b, res.line)
