"""Slow reference LoS by sampled sight lines, checked with shapely.

Kept beside the exact engine (:mod:`.sight`) so tests and the benchmark can hold the two
together. It samples ``n`` points on the origin's base and ``n`` on the target's base (in
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

from .attributes import EPS
from .measure import Scene


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
