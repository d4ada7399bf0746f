"""The drawn ZoC area (``zoc_region``) agrees with the exact point test
(``Scene.los_to_point``) at grid points within 1" of the base, away from its edge."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import body, piece, rect, scene
from shapely.geometry import Point

from sim.geometry import Footprint
from sim.geometry.measure import zoc_region


def _disagreements(s, mid, step=0.07, margin=0.03):
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


def test_default_table_zoc_region_matches_exact(default_table):
    s = default_table.scene()
    for mid in ("akira", "masunagi"):
        n, bad = _disagreements(s, mid)
        assert n > 500 and bad == []


@pytest.mark.parametrize("blocker", ["disc", "square", "L-shape"])
def test_zoc_region_behind_blockers(blocker):
    a = body("a", 10, 10, facing=0)
    if blocker == "disc":
        other = body("b", 11.4, 10.3)
        s = scene(a, other)
    elif blocker == "square":
        s = scene(a, piece("w", rect(11.1, 10.2, 0.4, 0.6)))
    else:
        s = scene(a, piece("w", Footprint.polygon([[10.8, 9.5], [11.0, 9.5], [11.0, 10.2], [11.5, 10.2], [11.5, 10.4],
                                                   [10.8, 10.4]])))
    reg = zoc_region(s, "a")
    ring_half = math.pi * ((a.radius + 1) ** 2 - a.radius**2) / 2
    assert reg.area < ring_half - 0.01  # something is hidden
    n, bad = _disagreements(s, "a", step=0.05)
    assert n > 300 and bad == []
