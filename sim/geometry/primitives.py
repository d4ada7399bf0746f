"""Plane primitives shared by sight, measure, motion, movement, planning and the special moves.

Points, segments, polygons, directions and angles in the table plane: distances in
inches, angles in degrees counter-clockwise from +x (the facing convention) unless a
name says radians. Each primitive that hot code needs both ways comes in two forms:

* scalar (plain ``float`` arithmetic with :mod:`math`), for the per-line fast paths of
  the sight-line search and for single moves;
* numpy (broadcasting arrays), for the vectorised grids and fans of the planner and
  for batches of sight lines.

The two forms do the same operations in the same order; their answers agree to the
last bit or so (``math.hypot`` and ``numpy.hypot`` may round differently). No rulebook
page: this is the geometry under Terms and Concepts (p.4-9) and Movement (p.22-23).

    >>> point_segment_distance(1.0, 1.0, 0.0, 0.0, 2.0, 0.0)
    1.0
    >>> float(point_segment_distances(np.array([3.0]), 0.0, 0.0, 0.0, 2.0, 0.0)[0])
    1.0
    >>> heading(0.0, -2.0), unit_vector(90.0)[0] < 1e-15
    (270.0, True)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "chord", "heading", "lerp", "normalize", "point_in_polygon", "point_segment_distance", "point_segment_distances",
    "points_in_polygon", "polygon_distances", "polygon_is_convex", "segment_distances",
    "segment_polygon_distances", "unit_vector", "wrap_angle",
]


# ------------------------------------------------------------------ directions, angles
def unit_vector(deg: float) -> tuple[float, float]:
    """The unit vector ``(cos, sin)`` pointing ``deg`` degrees CCW from +x (a facing)."""
    t = math.radians(deg)
    return (math.cos(t), math.sin(t))


def heading(dx: float, dy: float) -> float:
    """The direction of the vector ``(dx, dy)`` in degrees CCW from +x, in ``[0, 360)``
    (a facing; ``0.0`` for the zero vector)."""
    return math.degrees(math.atan2(dy, dx)) % 360.0


def normalize(dx: float, dy: float) -> tuple[float, float, float]:
    """``(ux, uy, length)``: the unit vector along ``(dx, dy)`` and its length (inches);
    ``(0.0, 0.0, 0.0)`` when the length is ``1e-12`` or less."""
    L = math.hypot(dx, dy)
    return (dx / L, dy / L, L) if L > 1e-12 else (0.0, 0.0, 0.0)


def lerp(a, b, t: float) -> tuple[float, float]:
    """The point ``a + t (b - a)`` of the segment from ``a`` to ``b`` (``(x, y)`` pairs)."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def wrap_angle(theta):
    """An angle in radians brought into ``[-pi, pi)`` (float or numpy array)."""
    return (theta + math.pi) % (2 * math.pi) - math.pi


# ------------------------------------------------------------------------ line and disc
def chord(px: float, py: float, ux: float, uy: float, cx: float, cy: float, r: float):
    """Parameters ``(t0, t1)``, ``t0 <= t1``, where the line ``p + t u`` (``u`` a unit
    vector) is within ``r`` of ``c`` (the chord of the disc; inches along the line), or
    ``None`` if it misses the disc (scalar form)."""
    wx, wy = px - cx, py - cy
    b = ux * wx + uy * wy
    disc = b * b - (wx * wx + wy * wy - r * r)
    if disc < 0:
        return None
    root = math.sqrt(disc)
    return -b - root, -b + root


# ------------------------------------------------------------------- point and segment
def point_segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float,
                           tiny: float = 0.0) -> float:
    """Distance (inches) from the point ``p`` to the segment ``[a, b]`` (scalar form).

    A segment whose squared length is ``tiny`` or less counts as the point ``a``.
    """
    dx, dy = bx - ax, by - ay
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 <= tiny else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / L2))
    return math.hypot(ax + t * dx - px, ay + t * dy - py)


def point_segment_distances(px, py, ax, ay, bx, by, tiny: float = 0.0) -> np.ndarray:
    """Distances (inches) from points ``p`` to segments ``[a, b]`` (numpy form).

    All six arguments broadcast against each other (floats, ``(n,)`` columns, ``(n, 1)``
    against ``(1, m)`` ...); the answer has the broadcast shape. A segment whose
    squared length is ``tiny`` or less counts as the point ``a``. The values of
    :func:`point_segment_distance`, to rounding.
    """
    dx, dy = bx - ax, by - ay
    L2 = dx * dx + dy * dy
    ok = L2 > tiny
    t = ((px - ax) * dx + (py - ay) * dy) / np.where(ok, L2, 1.0)
    if tiny > 0.0:
        t = np.where(ok, t, 0.0)
    t = np.fmin(np.fmax(t, 0.0), 1.0)
    return np.hypot(ax + t * dx - px, ay + t * dy - py)


def segment_distances(ax, ay, bx, by, cx, cy, dx, dy) -> np.ndarray:
    """Distances (inches) between segments ``[a, b]`` and ``[c, d]`` (numpy,
    broadcasting): 0 where they properly cross, else the least endpoint-to-segment
    distance."""
    d = np.minimum(np.minimum(point_segment_distances(ax, ay, cx, cy, dx, dy),
                              point_segment_distances(bx, by, cx, cy, dx, dy)),
                   np.minimum(point_segment_distances(cx, cy, ax, ay, bx, by),
                              point_segment_distances(dx, dy, ax, ay, bx, by)))
    ex, ey = bx - ax, by - ay
    fx, fy = dx - cx, dy - cy
    o1 = ex * (cy - ay) - ey * (cx - ax)
    o2 = ex * (dy - ay) - ey * (dx - ax)
    o3 = fx * (ay - cy) - fy * (ax - cx)
    o4 = fx * (by - cy) - fy * (bx - cx)
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0)
    return np.where(crossing, 0.0, d)


# ------------------------------------------------------------------------------ polygons
def point_in_polygon(x: float, y: float, vertices) -> bool:
    """Even-odd test: is ``(x, y)`` inside the polygon ``vertices`` (a sequence of
    ``(x, y)``, first vertex not repeated)? Points on the boundary may go either way."""
    inside = False
    n = len(vertices)
    for i in range(n):
        px, py = vertices[i]
        qx, qy = vertices[(i + 1) % n]
        if (py > y) != (qy > y) and x < px + (y - py) * (qx - px) / (qy - py):
            inside = not inside
    return inside


def points_in_polygon(px, py, V: np.ndarray) -> np.ndarray:
    """Even-odd test for points ``(px, py)`` (1-D arrays) against the polygon ``V``
    (``(m, 2)``): ``(n,)`` bool. Points on the boundary may go either way."""
    inside = np.zeros(np.shape(px), dtype=bool)
    n = len(V)
    for k in range(n):
        x0, y0 = V[k]
        x1, y1 = V[(k + 1) % n]
        if y0 == y1:
            continue
        cond = (y0 > py) != (y1 > py)
        xint = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
        inside ^= cond & (px < xint)
    return inside


def polygon_distances(px, py, V: np.ndarray) -> np.ndarray:
    """Signed distances (inches) from points ``(px, py)`` (1-D arrays) to the polygon
    ``V`` (``(m, 2)``): negative inside."""
    W = np.roll(V, -1, axis=0)
    d = point_segment_distances(px[:, None], py[:, None], V[None, :, 0], V[None, :, 1],
                                W[None, :, 0], W[None, :, 1]).min(axis=1)
    return np.where(points_in_polygon(px, py, V), -d, d)


def segment_polygon_distances(ax, ay, bx, by, V: np.ndarray) -> np.ndarray:
    """Distances (inches) from segments ``[a, b]`` (1-D arrays) to the filled polygon
    ``V`` (``(m, 2)``): 0 for a segment that starts inside or crosses an edge."""
    W = np.roll(V, -1, axis=0)
    d = segment_distances(ax[:, None], ay[:, None], bx[:, None], by[:, None],
                          V[None, :, 0], V[None, :, 1], W[None, :, 0], W[None, :, 1]).min(axis=1)
    return np.where(points_in_polygon(ax, ay, V), 0.0, d)


def polygon_is_convex(V: np.ndarray) -> bool:
    """True if the polygon ``V`` (``(m, 2)``, either orientation) is convex (turns of
    ``1e-12`` the wrong way, collinear vertices, are allowed)."""
    e = np.roll(V, -1, axis=0) - V
    cross = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    return bool(np.all(cross >= -1e-12) or np.all(cross <= 1e-12))
