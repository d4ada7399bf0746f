"""Slow references kept beside the fast code, so tests and benchmarks can hold them
together.

* :func:`sampled_los`: LoS by sampled sight lines, checked with shapely, beside the
  exact engine (:mod:`.sight`).
* :func:`umbra_reference` and :func:`zoc_region_reference`: the drawn umbras and ZoC
  areas built one shapely polygon at a time and never cached, beside the vectorised,
  value-cached :func:`.measure.umbra` and :func:`.measure.zoc_region` (which must give
  the same regions: ``tests/test_geometry_speed_equal.py``).

:func:`sampled_los` samples ``n`` points on the origin's base and ``n`` on the target's base (in
the origin's front arc) and tests every segment between them with shapely predicates
against the same blockers. A clear sampled segment *proves* LoS, so wherever the
reference says "visible" the exact engine must agree; a reference "not visible" can be
wrong (a narrow gap between samples), which is why it is not the product.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from .attributes import EPS, ZOC_RANGE
from .measure import (
    Scene,
    polygonal,
    umbra_between_tangents,
    umbra_body,
    umbra_rim_sources,
    umbra_tangents,
    zoc_area_unshadowed,
)
from .sight import Obstacle


def _disc_samples(center, radius: float, n: int) -> np.ndarray:
    """``n`` points spread over a disc (centre, rings), inches, shape ``(n, 2)``."""
    k = np.arange(n) + 0.5
    r = radius * np.sqrt(k / n)
    theta = k * math.pi * (3 - math.sqrt(5))  # golden-angle spiral
    pts = np.column_stack([center[0] + r * np.cos(theta), center[1] + r * np.sin(theta)])
    rim = n // 4
    ang = np.linspace(0, 2 * math.pi, rim, endpoint=False)
    pts[:rim] = np.column_stack([center[0] + radius * np.cos(ang), center[1] + radius * np.sin(ang)])
    return pts


def _blocker_geoms(scene: Scene, origin, target):
    O, T = scene.body(origin), scene.body(target)
    geoms = []
    for ob in scene.blockers(scene.los_threshold(O, T), (O.id, T.id)):
        if ob.is_disc:
            geoms.append(Point(ob.center).buffer(ob.radius - EPS, quad_segs=64))
        else:
            geoms.append(Polygon(ob.vertices).buffer(-EPS, join_style="mitre"))
    return geoms


def sampled_los(scene: Scene, origin, target, n: int = 64) -> tuple[int, int]:
    """Count clear sampled sight lines from ``origin`` to ``target``.

    Returns:
        ``(clear, total)``: how many of the ``n * n`` segments (fewer when part of the
        target lies outside the front arc) cross no blocker's interior.
    """
    O, T = scene.body(origin), scene.body(target)
    src = _disc_samples(O.center, O.radius, n)
    dst = _disc_samples(T.center, T.radius, n)
    if not O.aware:
        f = O.facing_vector
        dst = dst[(dst - np.asarray(O.center)) @ f >= -EPS]
    if len(dst) == 0:
        return 0, 0
    a = np.repeat(src, len(dst), axis=0)
    b = np.tile(dst, (len(src), 1))
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    clear = np.ones(len(a), dtype=bool)
    for g in _blocker_geoms(scene, O, T):
        shapely.prepare(g)
        clear &= ~shapely.intersects(g, lines)
    return int(clear.sum()), len(a)


def umbra_reference(source, radius: float, ob: Obstacle, far: float, exact_touching: bool = True):
    """:func:`sim.geometry.measure.umbra` computed the slow way, uncached: for an
    obstacle without outer common tangents, the shadow from each of the rim points is
    the union of the obstacle and one shapely quadrilateral per edge, built one at a
    time, and the shadows are intersected in turn. Same arguments and answer.

    ``exact_touching=False`` gives the construction as it was before issue 12, for the
    benchmark's baseline: a base exactly touching the source (centres ``r + R`` apart
    or closer) took the rim points instead of its tangents (about 0.3 s each)."""
    cx, cy = float(source[0]), float(source[1])
    body = umbra_body(ob)
    tangents = umbra_tangents(cx, cy, radius, ob) if ob.convex else []
    if not exact_touching and ob.is_disc and math.dist(ob.center, (cx, cy)) <= radius + ob.radius:
        tangents = []
    if len(tangents) == 2:
        return umbra_between_tangents(cx, cy, body, tangents, far)
    ring = np.asarray(body.exterior.coords)[:-1]
    nxt = np.roll(ring, -1, axis=0)
    shadow = None
    for s0 in umbra_rim_sources(cx, cy, radius):
        quads = []
        for p, q in zip(ring, nxt):
            dp, dq = p - s0, q - s0
            np_, nq = np.linalg.norm(dp), np.linalg.norm(dq)
            if np_ < EPS or nq < EPS:
                continue
            quads.append(Polygon([p, q, q + dq / nq * far, p + dp / np_ * far]).buffer(0))
        sh = unary_union([body, *quads])
        shadow = sh if shadow is None else shadow.intersection(sh)
        if shadow.is_empty:
            break
    return polygonal(shadow)


def zoc_region_reference(scene: Scene, owner, exact_touching: bool = True):
    """:func:`sim.geometry.measure.zoc_region` computed the slow way: every blocker of
    the scene tested, each umbra from :func:`umbra_reference` (``exact_touching``
    passed on), nothing cached."""
    A = scene.body(owner)
    c = np.asarray(A.center, float)
    area = zoc_area_unshadowed(A)
    threshold = max(A.size, scene.enhancing_size(A))
    for ob in scene.blockers(threshold, (A.id,)):
        if math.dist(ob.center, c) > ob.radius + A.radius + ZOC_RANGE + EPS:
            continue
        if area.is_empty:
            break
        hidden = umbra_reference(c, A.radius, ob, far=A.radius + ZOC_RANGE + 2, exact_touching=exact_touching)
        if hidden is not None and not hidden.is_empty:
            area = area.difference(hidden)
    return area
