"""Exact sight lines from a base to a convex region among obstacles.

This is the engine under LoS, cover and ZoC (rulings.md sections 4-6; Terms and
Concepts p.4-9 "Line of Sight", "Cover", "Zone of Control").

Problem
-------
Given a *source* disc ``O`` (a base), a convex *region* ``K`` (an intersection of discs
and half-planes, e.g. the target's base cut by the source's front arc), and obstacles
(discs and simple polygons), is there a segment ``[a, b]`` with ``a`` in ``O`` and ``b``
in ``K`` that crosses the interior of no obstacle? Optionally the segment must also
cross the interior of one given obstacle ``P`` (the cover test).

Method (exact, no sampled rays)
-------------------------------
Every segment lies on a line; on a line ``L`` the shortest candidate is the *gap*
between ``L & O`` and ``L & K``. The set of lines whose gap is clear is closed (touching
an obstacle's boundary is allowed: a laser grazing an edge is clear), and each of its
connected components has a *critical line* on its boundary that touches two *features*
(the circle of ``O``, circles and corners of ``K``, obstacle vertices and circles, and the
points where obstacle boundaries cross ``O``'s or ``K``'s boundary), or that is a flat side of ``K``.
So it is enough to test the common tangents of every pair of features: at most four
lines per pair, computed in closed form and checked all at once with numpy.

Tolerance: an obstacle blocks a segment only if the segment meets the obstacle shrunk
by ``EPS`` (so lines through its vertices, or along its sides, are clear). "Meets" is
closed: touching the shrunk obstacle at one of its vertices or along a side counts,
because its interior is ``EPS`` deep inside the real piece; so a line through two
vertices of a diamond with interior between them is blocked however the floats fall
(issue #10, docs/rulings-project.md "Exactness and tolerance"); the cover
obstacle ``P`` is crossed if the segment meets ``P`` shrunk by ``EPS``, and its features
are taken from ``P`` shrunk by ``2 * EPS`` so that critical lines through them cross it.

One concept, kept in one module (about 1,000 lines): obstacles and regions exist here
only as the search sees them, with scalar fast paths (``floats``) and numpy batch forms
of the same tests side by side; the search (answers) calls them in tight loops and is
the hot path of ``benchmarks/measure_bench.py``. The plane primitives it shares with
the rest of the geometry are in :mod:`.primitives`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Hashable, Sequence

import numpy as np
from shapely.geometry import MultiPolygon, Polygon

from .attributes import EPS
from .primitives import chord, point_segment_distance, point_segment_distances, polygon_is_convex
from .shapes import Footprint

_TINY = 1e-12


# --------------------------------------------------------------------------- obstacles
@dataclass(frozen=True, eq=False)
class Obstacle:
    """A disc or a simple polygon that a sight line may not cross (inches).

    Build with :meth:`disc` (a model's base, a round terrain piece) or
    :meth:`from_footprint`. ``key`` identifies it in answers (a model or terrain id).
    """

    key: Hashable
    is_disc: bool
    center: np.ndarray
    radius: float
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    @classmethod
    def disc(cls, key: Hashable, center, radius: float) -> "Obstacle":
        """A disc of ``radius`` inches at ``center`` ``(x, y)``."""
        return cls(key, True, np.asarray(center, dtype=float), float(radius))

    @classmethod
    def from_footprint(cls, key: Hashable, footprint: Footprint) -> "Obstacle":
        """The obstacle covering a terrain footprint (circles stay exact)."""
        if footprint.is_circle:
            return cls.disc(key, footprint.center, footprint.radius)
        c, r = footprint.bounding_circle
        return cls(key, False, np.asarray(c, float), float(r), np.asarray(footprint.vertices, float))

    # polygon helpers ------------------------------------------------------------
    def _eroded_edges(self, amount: float) -> tuple[np.ndarray, np.ndarray]:
        poly = Polygon(self.vertices).buffer(-amount, join_style="mitre", mitre_limit=1e6)
        parts = list(poly.geoms) if isinstance(poly, MultiPolygon) else ([] if poly.is_empty else [poly])
        P, Q = [], []
        for part in parts:
            for ring in [part.exterior, *part.interiors]:
                xy = np.asarray(ring.coords, float)
                P.append(xy[:-1])
                Q.append(xy[1:])
        if not P:
            return np.zeros((0, 2)), np.zeros((0, 2))
        return np.concatenate(P), np.concatenate(Q)

    @cached_property
    def block_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Edges ``(P, Q)`` (each ``(m, 2)``) of the polygon shrunk by ``EPS``."""
        return self._eroded_edges(EPS)

    @cached_property
    def cross_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Edges of the polygon shrunk by ``2 * EPS`` (features for the cover test)."""
        return self._eroded_edges(2 * EPS)

    @cached_property
    def signature(self) -> tuple:
        """A hashable value that is equal for obstacles of the same shape (the ``key``
        left out): ``(True, cx, cy, r)`` for a disc, ``(False, n, bytes of the (n, 2)
        float vertices)`` for a polygon. Keys the geometry caches of :mod:`.measure`."""
        if self.is_disc:
            return (True, float(self.center[0]), float(self.center[1]), float(self.radius))
        v = np.ascontiguousarray(self.vertices, dtype=float)
        return (False, len(v), v.tobytes())

    @cached_property
    def convex(self) -> bool:
        """True for discs and convex polygons."""
        return self.is_disc or polygon_is_convex(self.vertices)

    def disc_gap(self, x: float, y: float, r: float) -> float:
        """Distance from the disc ``((x, y), r)`` to this obstacle shrunk by ``EPS``
        (negative or zero when they meet)."""
        cx, cy, rr, edges = self.floats
        if self.is_disc:
            return math.hypot(x - cx, y - cy) - (rr - EPS) - r
        inside = False
        best = math.inf
        for px, py, qx, qy in edges:
            best = min(best, point_segment_distance(x, y, px, py, qx, qy, _TINY))
            if (py > y) != (qy > y) and x < px + (y - py) * (qx - px) / (qy - py):
                inside = not inside
        return -r if inside else best - r

    @cached_property
    def floats(self) -> tuple:
        """Plain-float copies for the scalar fast path: ``(cx, cy, r, edges)``, inches;
        ``edges`` the :attr:`block_edges` as ``(px, py, qx, qy)`` tuples (empty for a disc)."""
        edges: tuple = ()
        if not self.is_disc:
            P, Q = self.block_edges
            edges = tuple(zip(P[:, 0].tolist(), P[:, 1].tolist(), Q[:, 0].tolist(), Q[:, 1].tolist()))
        return float(self.center[0]), float(self.center[1]), float(self.radius), edges

    def crosses_one(self, ax: float, ay: float, bx: float, by: float) -> bool:
        """Scalar :meth:`crosses` for one segment ``(ax, ay)-(bx, by)``."""
        cx, cy, r, edges = self.floats
        d = point_segment_distance(cx, cy, ax, ay, bx, by, _TINY)
        if self.is_disc:
            return d < r - EPS
        if d >= r:  # bounding circle
            return False
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        for px, py, qx, qy in edges:
            if _seg_touches_edge1(ax, ay, dx, dy, L2, px, py, qx, qy):
                return True
        mx, my = (ax + bx) * 0.5, (ay + by) * 0.5
        inside = False
        for px, py, qx, qy in edges:
            if (py > my) != (qy > my) and mx < px + (my - py) * (qx - px) / (qy - py):
                inside = not inside
        return inside

    # predicates ------------------------------------------------------------------
    def crosses(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Which segments ``[A[i], B[i]]`` cross the interior (shrunk by ``EPS``).

        Args:
            A, B: ``(n, 2)`` segment endpoints, inches.
        Returns:
            ``(n,)`` bool array.
        """
        if self.is_disc:
            c = self.center
            return point_segment_distances(c[0], c[1], A[:, 0], A[:, 1], B[:, 0], B[:, 1], _TINY) < self.radius - EPS
        P, Q = self.block_edges
        if len(P) == 0:
            return np.zeros(len(A), dtype=bool)
        return _seg_meets_polygon(A, B, P, Q)


def _cross2(ax, ay, bx, by):
    return ax * by - ay * bx


def _seg_touches_edge1(ax, ay, dx, dy, L2, px, py, qx, qy) -> bool:
    """Whether the segment ``a + t d`` (``0 <= t <= 1``, ``L2 = |d|^2``) meets the closed
    edge ``[p, q]``: crossing it, through one of its ends, or running along it.

    The closed test is what makes LoS exact in degenerate positions (issue #10): a line
    through two vertices of a shrunk obstacle (a diamond on a grid line) touches it at
    both and runs through its interior in between; a strict "proper crossing" test saw
    no crossing and the midpoint outside, and called it clear."""
    d1 = dx * (py - ay) - dy * (px - ax)
    d2 = dx * (qy - ay) - dy * (qx - ax)
    if (d1 > 0 and d2 > 0) or (d1 < 0 and d2 < 0):
        return False
    if d1 == 0 and d2 == 0:  # collinear with the segment's line: do the spans overlap?
        if L2 <= _TINY:
            return False
        tp = (px - ax) * dx + (py - ay) * dy
        tq = (qx - ax) * dx + (qy - ay) * dy
        return max(min(tp, tq), 0.0) <= min(max(tp, tq), L2)
    ex, ey = qx - px, qy - py
    d3 = ex * (ay - py) - ey * (ax - px)
    d4 = ex * (ay + dy - py) - ey * (ax + dx - px)
    return not ((d3 > 0 and d4 > 0) or (d3 < 0 and d4 < 0))


def _edge_touch(Ax, Ay, Dx, Dy, px, py, qx, qy) -> np.ndarray:
    """Array form of :func:`_seg_touches_edge1`: segments ``A + t D`` (columns ``(n, 1)``)
    against edges ``p -> q`` (rows ``(1, m)``); ``(n, m)`` bool, closed test."""
    d1 = Dx * (py - Ay) - Dy * (px - Ax)
    d2 = Dx * (qy - Ay) - Dy * (qx - Ax)
    ex, ey = qx - px, qy - py
    d3 = ex * (Ay - py) - ey * (Ax - px)
    d4 = ex * (Ay + Dy - py) - ey * (Ax + Dx - px)
    touch = (d1 * d2 <= 0) & (d3 * d4 <= 0)
    col = (d1 == 0) & (d2 == 0)
    if col.any():
        L2 = Dx * Dx + Dy * Dy
        tp = (px - Ax) * Dx + (py - Ay) * Dy
        tq = (qx - Ax) * Dx + (qy - Ay) * Dy
        overlap = (np.maximum(np.minimum(tp, tq), 0.0) <= np.minimum(np.maximum(tp, tq), L2)) & (L2 > _TINY)
        touch = np.where(col, overlap, touch)
    return touch


def _seg_meets_polygon(A, B, P, Q) -> np.ndarray:
    """Segments (n) meet the closed polygon given by edges P->Q (m), even-odd rule.

    A segment meets it if it touches an edge (closed test: through a vertex, along a
    side) or lies wholly inside (its midpoint inside)."""
    ax, ay = A[:, 0:1], A[:, 1:2]
    bx, by = B[:, 0:1], B[:, 1:2]
    px, py = P[None, :, 0], P[None, :, 1]
    qx, qy = Q[None, :, 0], Q[None, :, 1]
    hit = _edge_touch(ax, ay, bx - ax, by - ay, px, py, qx, qy).any(axis=1)
    # no contact with the boundary: the segment is wholly inside or wholly outside
    mx = (ax + bx) * 0.5
    my = (ay + by) * 0.5
    straddle = (py > my) != (qy > my)
    with np.errstate(divide="ignore", invalid="ignore"):
        xint = px + (my - py) * (qx - px) / (qy - py)
    inside = (straddle & (mx < xint)).sum(axis=1) % 2 == 1
    return hit | inside


# ------------------------------------------------------------------------------ region
@dataclass(frozen=True, eq=False)
class Region:
    """A convex region: the intersection of discs and closed half-planes (inches).

    Args:
        discs: ``(k, 3)`` rows ``(cx, cy, r)``; ``r = 0`` is a point.
        halfplanes: ``(h, 3)`` rows ``(nx, ny, d)`` with unit ``n``: points ``p`` with
            ``n . p >= d``.

    At least one disc is required (the region is bounded).
    """

    disc_rows: tuple
    halfplane_rows: tuple = ()

    @classmethod
    def make(cls, discs, halfplanes=()) -> "Region":
        """Build from sequences of ``(cx, cy, r)`` and ``(nx, ny, d)`` rows.

        Raises:
            ValueError: no disc, or a row of the wrong length.
        """
        d = tuple((float(a), float(b), float(c)) for a, b, c in discs)
        h = tuple((float(a), float(b), float(c)) for a, b, c in halfplanes)
        if not d:
            raise ValueError("a Region needs at least one disc")
        return cls(d, h)

    @cached_property
    def discs(self) -> np.ndarray:
        """``(k, 3)`` array of the discs."""
        return np.array(self.disc_rows, float).reshape(-1, 3)

    @cached_property
    def halfplanes(self) -> np.ndarray:
        """``(h, 3)`` array of the half-planes."""
        return np.array(self.halfplane_rows, float).reshape(-1, 3)

    def contains(self, pts: np.ndarray, tol: float = EPS) -> np.ndarray:
        """Which points ``(n, 2)`` lie in the region (within ``tol``)."""
        pts = np.asarray(pts, float).reshape(-1, 2)
        ok = np.ones(len(pts), dtype=bool)
        for cx, cy, r in self.discs:
            ok &= np.hypot(pts[:, 0] - cx, pts[:, 1] - cy) <= r + tol
        for nx, ny, d in self.halfplanes:
            ok &= pts[:, 0] * nx + pts[:, 1] * ny >= d - tol
        return ok

    @cached_property
    def corners(self) -> np.ndarray:
        """Points ``(c, 2)`` where two boundaries of the region meet, inside it."""
        pts = self._corner_list
        return np.asarray(pts, float).reshape(-1, 2)

    @cached_property
    def _corner_list(self) -> list:
        pts = []
        D, H = self.disc_rows, self.halfplane_rows
        for i in range(len(D)):
            for j in range(i + 1, len(D)):
                pts.extend(_circle_circle(D[i][:2], D[i][2], D[j][:2], D[j][2]))
            for h in H:
                pts.extend(_circle_line(D[i][:2], D[i][2], h[:2], h[2]))
        for i in range(len(H)):
            for j in range(i + 1, len(H)):
                pts.extend(_line_line(H[i], H[j]))
        return [p for p in pts if self._contains1(p[0], p[1])]

    @cached_property
    def floats(self) -> tuple:
        """Plain-float copies for the scalar fast path: ``(disc_rows, halfplane_rows)``."""
        return self.disc_rows, self.halfplane_rows

    def _contains1(self, x: float, y: float) -> bool:
        discs, hps = self.floats
        for cx, cy, r in discs:
            if math.hypot(x - cx, y - cy) > r + EPS:
                return False
        for nx, ny, d in hps:
            if x * nx + y * ny < d - EPS:
                return False
        return True

    @cached_property
    def point(self) -> tuple[float, float] | None:
        """A point inside the region, or ``None`` if the region is empty."""
        discs, hps = self.floats
        if len(discs) == 1 and len(hps) <= 1:  # a base, perhaps cut by a front arc
            cx, cy, r = discs[0]
            if not hps:
                return (cx, cy)
            nx, ny, d = hps[0]
            s = cx * nx + cy * ny - d  # signed depth of the centre in the half-plane
            if s >= 0:
                return (cx, cy)
            if s + r < -EPS:
                return None
            k = (r - s) / 2 if s + r > 0 else -s  # halfway between the arc line and the rim
            return (cx + nx * k, cy + ny * k)
        inside = [(cx, cy) for cx, cy, _ in discs if self._contains1(cx, cy)] + list(self._corner_list)
        if not inside:
            return None
        mx = sum(p[0] for p in inside) / len(inside)
        my = sum(p[1] for p in inside) / len(inside)
        return (mx, my) if self._contains1(mx, my) else (float(inside[0][0]), float(inside[0][1]))

    @property
    def is_empty(self) -> bool:
        """True when no point lies in the region."""
        return self.point is None

    @cached_property
    def bounding_disc(self) -> tuple[tuple[float, float], float]:
        """The smallest of the region's discs: ``(center, radius)``."""
        cx, cy, r = min(self.disc_rows, key=lambda row: row[2])
        return (cx, cy), r

    def interval(self, p0: np.ndarray, u: np.ndarray):
        """Parameter interval ``[lo, hi]`` of lines ``p0 + t u`` inside the region.

        Returns ``(lo, hi, ok)``, each ``(n,)``.
        """
        n = len(p0)
        lo = np.full(n, -np.inf)
        hi = np.full(n, np.inf)
        ok = np.ones(n, dtype=bool)
        for cx, cy, r in self.discs:
            a, b, k = _disc_interval(p0, u, cx, cy, r + EPS)
            lo = np.maximum(lo, a)
            hi = np.minimum(hi, b)
            ok &= k
        for nx, ny, d in self.halfplanes:
            nu = u[:, 0] * nx + u[:, 1] * ny
            rhs = (d - EPS) - (p0[:, 0] * nx + p0[:, 1] * ny)
            pos, neg = nu > _TINY, nu < -_TINY
            with np.errstate(divide="ignore", invalid="ignore"):
                t = rhs / nu
            lo = np.where(pos, np.maximum(lo, t), lo)
            hi = np.where(neg, np.minimum(hi, t), hi)
            ok &= pos | neg | (rhs <= 0)
        return lo, hi, ok & (lo <= hi)

    def interval_cols(self, px, py, ux, uy):
        """Column form of :meth:`interval`: ``(lo, hi, ok)`` for lines ``p + t u``."""
        lo = np.full(len(px), -np.inf)
        hi = np.full(len(px), np.inf)
        discs, hps = self.floats
        with np.errstate(all="ignore"):
            for cx, cy, r in discs:
                wx, wy = px - cx, py - cy
                b = ux * wx + uy * wy
                sq = np.sqrt(b * b - (wx * wx + wy * wy - (r + EPS) ** 2))
                lo = np.maximum(lo, -b - sq)  # NaN propagates: no intersection
                hi = np.minimum(hi, -b + sq)
            for nx, ny, d in hps:
                nu = ux * nx + uy * ny
                t = ((d - EPS) - (px * nx + py * ny)) / nu
                lo = np.where(nu > _TINY, np.maximum(lo, t), lo)
                hi = np.where(nu < -_TINY, np.minimum(hi, t), hi)
                flat = np.abs(nu) <= _TINY
                if np.count_nonzero(flat):
                    out = flat & (px * nx + py * ny < d - EPS)
                    lo = np.where(out, np.nan, lo)
            return lo, hi, lo <= hi

    def boundary_lines(self) -> tuple[np.ndarray, np.ndarray]:
        """The half-planes' boundary lines as ``(p0, u)``, each ``(h, 2)``."""
        H = self.halfplanes
        p0 = H[:, :2] * H[:, 2:3]
        u = np.stack([-H[:, 1], H[:, 0]], axis=1)
        return p0, u


def _disc_interval(p0, u, cx, cy, r):
    wx, wy = p0[:, 0] - cx, p0[:, 1] - cy
    b = u[:, 0] * wx + u[:, 1] * wy
    c = wx * wx + wy * wy - r * r
    disc = b * b - c
    s = np.sqrt(np.maximum(disc, 0.0))
    return -b - s, -b + s, disc >= 0


# ----------------------------------------------------------------- small intersections
def _circle_circle(c1, r1, c2, r2) -> list:
    d = math.dist(c1, c2)
    if d < _TINY or d > r1 + r2 + EPS or d < abs(r1 - r2) - EPS:
        return []
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(max(r1 * r1 - a * a, 0.0))
    ex, ey = (c2[0] - c1[0]) / d, (c2[1] - c1[1]) / d
    mx, my = c1[0] + a * ex, c1[1] + a * ey
    return [(mx - h * ey, my + h * ex), (mx + h * ey, my - h * ex)]


def _circle_line(c, r, n, d) -> list:
    """Intersections of circle (c, r) with the line n . p = d (unit n)."""
    s = d - (n[0] * c[0] + n[1] * c[1])
    if abs(s) > r + EPS:
        return []
    h = math.sqrt(max(r * r - s * s, 0.0))
    fx, fy = c[0] + s * n[0], c[1] + s * n[1]
    return [(fx - h * n[1], fy + h * n[0]), (fx + h * n[1], fy - h * n[0])]


def _line_line(h1, h2) -> list:
    det = h1[0] * h2[1] - h1[1] * h2[0]
    if abs(det) < _TINY:
        return []
    x = (h1[2] * h2[1] - h2[2] * h1[1]) / det
    y = (h1[0] * h2[2] - h2[0] * h1[2]) / det
    return [(x, y)]


def _segments_circle(P, Q, c, r) -> np.ndarray:
    """Points where segments P->Q (m, 2) cross the circle (c, r)."""
    D = Q - P
    W = P - c
    a = np.einsum("ij,ij->i", D, D)
    b = np.einsum("ij,ij->i", D, W)
    cc = np.einsum("ij,ij->i", W, W) - r * r
    disc = b * b - a * cc
    ok = (disc >= 0) & (a > _TINY)
    s = np.sqrt(np.maximum(disc, 0))
    out = []
    for sign in (-1.0, 1.0):
        t = (-b + sign * s) / np.where(a > _TINY, a, 1.0)
        m = ok & (t >= 0) & (t <= 1)
        out.append(P[m] + t[m, None] * D[m])
    return np.concatenate(out)


def _segments_line(P, Q, n, d) -> np.ndarray:
    sp = P @ n - d
    sq = Q @ n - d
    m = (sp > 0) != (sq > 0)
    t = sp[m] / (sp[m] - sq[m])
    return P[m] + t[:, None] * (Q[m] - P[m])


# ------------------------------------------------------------------- common tangents
_S = np.array([[1.0], [1.0], [-1.0], [-1.0]])
_SIG = np.array([[1.0], [-1.0], [1.0], [-1.0]])


def _tangent_columns(ax, ay, ar, bx, by, br, both_sides: bool = True):
    """Common tangents of circles ``(ax, ay, ar)`` and ``(bx, by, br)`` (1-D arrays).

    Returns line columns ``(px, py, ux, uy)``: a point on each line and its unit
    direction. Impossible tangents come out as NaN (dropped later by comparisons).
    With ``both_sides=False`` only the two lines with ``s = +1`` are made (enough when
    one circle is a point).
    """
    vx, vy = ax - bx, ay - by
    L2 = vx * vx + vy * vy
    S, SIG = (_S, _SIG) if both_sides else (_S[:2], _SIG[:2])
    k = ar - S * br
    h2 = L2 - k * k
    h = np.sqrt(np.where(h2 > -1e-12, np.maximum(h2, 0.0), np.nan))
    nx = (k * vx - SIG * h * vy) / L2
    ny = (k * vy + SIG * h * vx) / L2
    d = nx * ax + ny * ay - ar
    return (nx * d).ravel(), (ny * d).ravel(), (-ny).ravel(), nx.ravel()


def common_tangents(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray):
    """All common tangent lines of circle pairs ``(C1[i], R1[i])``, ``(C2[i], R2[i])``.

    Radii may be 0 (points). Pairs with coincident centres, and tangents that do not
    exist (one circle inside the other), give no line.

    Returns:
        ``(p0, u)``: a point on each line and its unit direction, each ``(n, 2)``.
    """
    C1, C2 = np.asarray(C1, float), np.asarray(C2, float)
    with np.errstate(all="ignore"):
        px, py, ux, uy = _tangent_columns(C1[:, 0], C1[:, 1], np.asarray(R1, float),
                                          C2[:, 0], C2[:, 1], np.asarray(R2, float))
    ok = np.isfinite(px) & np.isfinite(py) & np.isfinite(ux)
    return np.column_stack([px[ok], py[ok]]), np.column_stack([ux[ok], uy[ok]])


def _candidate_lines(pts: np.ndarray, circ: np.ndarray, extra_lines=()):
    """Critical lines of the features: through every pair of points, tangent to every
    pair of circles and to every circle-point pair, plus ``extra_lines``.

    Args:
        pts: ``(p, 2)`` point features.
        circ: ``(c, 3)`` circle features ``(x, y, r)``, ``r > 0``.
        extra_lines: ``(px, py, ux, uy)`` column tuples to append.

    Returns:
        Line columns ``(px, py, ux, uy)``.
    """
    cols = [list(t) for t in extra_lines]
    if len(pts) >= 2:
        i, j = np.triu_indices(len(pts), k=1)
        x0, y0 = pts[i, 0], pts[i, 1]
        dx, dy = pts[j, 0] - x0, pts[j, 1] - y0
        L = np.hypot(dx, dy)
        cols.append([x0, y0, dx / L, dy / L])
    if len(circ) >= 2:
        i, j = np.triu_indices(len(circ), k=1)
        A, B = circ[i], circ[j]
        cols.append(_tangent_columns(A[:, 0], A[:, 1], A[:, 2], B[:, 0], B[:, 1], B[:, 2]))
    if len(circ) and len(pts):
        cx = np.repeat(circ, len(pts), axis=0)
        qx = np.tile(pts, (len(circ), 1))
        zeros = np.zeros(len(qx))
        cols.append(_tangent_columns(cx[:, 0], cx[:, 1], cx[:, 2], qx[:, 0], qx[:, 1], zeros, both_sides=False))
    if not cols:
        e = np.zeros(0)
        return e, e, e, e
    return tuple(np.concatenate([c[k] for c in cols]) for k in range(4))


# -------------------------------------------------------------------------- answers
@dataclass(frozen=True)
class SightLine:
    """A witness segment from ``a`` (in the source base) to ``b`` (in the region)."""

    a: tuple[float, float]
    b: tuple[float, float]


@dataclass(frozen=True)
class SightSearch:
    """Outcome of :func:`find_sight_line`.

    Attributes:
        line: a clear witness segment, or ``None`` when none exists.
        blockers: when ``line`` is None, the keys of the obstacles that blocked the
            critical lines (why there is no LoS); empty otherwise.
        candidates: how many critical lines were examined.
    """

    line: SightLine | None
    blockers: tuple = ()
    candidates: int = 0

    def __bool__(self) -> bool:
        return self.line is not None


def _relevant(obstacles: Sequence[Obstacle], c0, r0, c1, r1) -> list[Obstacle]:
    """Obstacles whose bounding circle meets the stadium around the centre segment
    (which contains the convex hull of both discs)."""
    if not obstacles:
        return []
    ax, ay, bx, by = float(c0[0]), float(c0[1]), float(c1[0]), float(c1[1])
    reach = max(r0, r1) + EPS
    out = []
    for ob in obstacles:
        cx, cy, r, _ = ob.floats
        if point_segment_distance(cx, cy, ax, ay, bx, by, _TINY) < r + reach:
            out.append(ob)
    return out


def _outer_tangents(c0, r0: float, c1, r1: float):
    """The two outer common tangent segments of two discs, from the tangent point on
    the first to the tangent point on the second: ``[((x, y), (x, y)), ...]``."""
    x0, y0, x1, y1 = float(c0[0]), float(c0[1]), float(c1[0]), float(c1[1])
    dx, dy = x1 - x0, y1 - y0
    L = math.hypot(dx, dy)
    if L <= abs(r1 - r0) + _TINY:
        return []
    ex, ey = dx / L, dy / L
    cos_a = (r0 - r1) / L  # normal n = cos_a * e + sin_a * e_perp
    sin_a = math.sqrt(max(0.0, 1.0 - cos_a * cos_a))
    out = []
    for sg in (1.0, -1.0):
        nx = cos_a * ex - sg * sin_a * ey
        ny = cos_a * ey + sg * sin_a * ex
        out.append(((x0 + r0 * nx, y0 + r0 * ny), (x1 + r1 * nx, y1 + r1 * ny)))
    return out


def _separating(blockers, src_c, src_r: float, kc, kr: float):
    """A convex blocker that cuts every segment between the two discs, or ``None``.

    If a convex obstacle (shrunk by EPS) meets both outer common tangent segments of
    the discs and touches neither disc, the chord between those two meeting points lies
    inside it and splits the discs' convex hull with one disc on each side: every
    segment from one disc to the other crosses the obstacle. A sufficient, exact
    certificate that there is no sight line; it saves the full search for the common
    case of a house or a large base in the way.
    """
    tangents = _outer_tangents(src_c, src_r, kc, kr)
    if len(tangents) != 2:
        return None
    (a1, b1), (a2, b2) = tangents
    sx, sy, kx, ky = float(src_c[0]), float(src_c[1]), float(kc[0]), float(kc[1])
    for ob in blockers:
        if not ob.convex:
            continue
        if not ob.crosses_one(a1[0], a1[1], b1[0], b1[1]) or not ob.crosses_one(a2[0], a2[1], b2[0], b2[1]):
            continue
        if ob.disc_gap(sx, sy, src_r) > EPS and ob.disc_gap(kx, ky, kr) > EPS:
            return ob
    return None


def _meets_hull(ob: Obstacle, src_c, src_r: float, kc, kr: float) -> bool:
    """Whether the obstacle (shrunk by EPS) meets the convex hull of the two discs.

    Conservative: may answer True for an obstacle that only comes near the hull."""
    sx, sy, kx, ky = float(src_c[0]), float(src_c[1]), float(kc[0]), float(kc[1])
    if ob.disc_gap(sx, sy, src_r) <= EPS or ob.disc_gap(kx, ky, kr) <= EPS:
        return True
    tangents = _outer_tangents(src_c, src_r, kc, kr)
    if len(tangents) != 2:
        return True
    (a1, b1), (a2, b2) = tangents
    quad = [a1, b1, b2, a2]
    cx, cy, r, edges = ob.floats
    # obstacle centre (or, for polygons, a vertex) inside the quad, or an edge crossing it
    probe = [(cx, cy)] if ob.is_disc else [(e[0], e[1]) for e in edges]
    for x, y in probe:
        sgn = [(q2[0] - q1[0]) * (y - q1[1]) - (q2[1] - q1[1]) * (x - q1[0])
               for q1, q2 in zip(quad, quad[1:] + quad[:1])]
        if all(v >= 0 for v in sgn) or all(v <= 0 for v in sgn):
            return True
    for q1, q2 in zip(quad, quad[1:] + quad[:1]):
        if ob.crosses_one(q1[0], q1[1], q2[0], q2[1]):
            return True
        if ob.is_disc and point_segment_distance(cx, cy, q1[0], q1[1], q2[0], q2[1], _TINY) < r - EPS:
            return True
    return False


def _likely_lines(src_c, src_r: float, region: Region, kc, kr: float,
                  must_cross) -> list[tuple[float, float, float, float]]:
    """A few lines likely to be clear, as ``(px, py, ux, uy)`` tuples: from the centre
    and the two side points of the source base to the centre and side points of the
    region, the four common tangents of the two discs, and lines from the source to the
    cover piece's corners."""
    sx, sy = float(src_c[0]), float(src_c[1])
    q = region.point
    assert q is not None, "the caller returns on an empty region"
    qx, qy = float(q[0]), float(q[1])
    dx, dy = qx - sx, qy - sy
    L = math.hypot(dx, dy) or 1.0
    ex, ey = -dy / L, dx / L
    src = [(sx + src_r * ex, sy + src_r * ey), (sx - src_r * ex, sy - src_r * ey), (sx, sy)]
    dst = [(qx + kr * ex, qy + kr * ey), (qx - kr * ex, qy - kr * ey), (qx, qy)]
    if must_cross is not None:
        mc = must_cross
        if mc.is_disc:
            cx, cy, r, _ = mc.floats
            dst += [(cx, cy), (cx + r * ex, cy + r * ey), (cx - r * ex, cy - r * ey)]
        else:
            dst += [tuple(v) for v in mc.cross_edges[0].tolist()]
    lines = []
    for ax, ay in src:
        for bx, by in dst:
            vx, vy = bx - ax, by - ay
            n = math.hypot(vx, vy)
            if n > _TINY:
                lines.append((ax, ay, vx / n, vy / n))
    lines.extend(_tangents_py(sx, sy, src_r, float(kc[0]), float(kc[1]), kr))
    return lines


def _tangents_py(x0: float, y0: float, r0: float, x1: float, y1: float,
                 r1: float) -> list[tuple[float, float, float, float]]:
    """The (up to four) common tangents of two circles as ``(px, py, ux, uy)``."""
    vx, vy = x0 - x1, y0 - y1
    L2 = vx * vx + vy * vy
    out: list[tuple[float, float, float, float]] = []
    if L2 <= _TINY:
        return out
    for s in (1.0, -1.0):
        k = r0 - s * r1
        h2 = L2 - k * k
        if h2 < -1e-12:
            continue
        h = math.sqrt(max(h2, 0.0))
        for sig in (1.0, -1.0):
            nx = (k * vx - sig * h * vy) / L2
            ny = (k * vy + sig * h * vx) / L2
            d = nx * x0 + ny * y0 - r0
            out.append((nx * d, ny * d, -ny, nx))
    return out


def _check_line(px: float, py: float, ux: float, uy: float, src_c, src_r: float, region: Region,
                blockers, must_cross):
    """Scalar test of one line ``p + t u``: the witness ``((ax, ay), (bx, by))`` of its
    gap segment if clear (and crossing ``must_cross``), else ``None``."""
    ch = chord(px, py, ux, uy, float(src_c[0]), float(src_c[1]), src_r + EPS)
    if ch is None:
        return None
    o_lo, o_hi = ch
    lo, hi = -math.inf, math.inf
    discs, hps = region.floats
    for cx, cy, r in discs:
        ch = chord(px, py, ux, uy, cx, cy, r + EPS)
        if ch is None:
            return None
        lo, hi = max(lo, ch[0]), min(hi, ch[1])
    for nx, ny, d in hps:
        nu = nx * ux + ny * uy
        rhs = (d - EPS) - (nx * px + ny * py)
        if nu > _TINY:
            lo = max(lo, rhs / nu)
        elif nu < -_TINY:
            hi = min(hi, rhs / nu)
        elif rhs > 0:
            return None
    if lo > hi:
        return None
    if max(o_lo, lo) <= min(o_hi, hi):
        ta = tb = max(o_lo, lo)
    elif o_hi < lo:
        ta, tb = o_hi, lo
    else:
        ta, tb = o_lo, hi
    ax, ay, bx, by = px + ta * ux, py + ta * uy, px + tb * ux, py + tb * uy
    for ob in blockers:
        if ob.crosses_one(ax, ay, bx, by):
            return None
    if must_cross is not None:
        e_lo, e_hi = min(o_lo, lo), max(o_hi, hi)
        if not must_cross.crosses_one(px + e_lo * ux, py + e_lo * uy, px + e_hi * ux, py + e_hi * uy):
            return None
    return (ax, ay), (bx, by)


def _stage1(src_c, src_r: float, region: Region, blockers, must_cross):
    """The line from the source centre through ``region.point``: witness or ``None``."""
    sx, sy = float(src_c[0]), float(src_c[1])
    q = region.point
    assert q is not None, "the caller returns on an empty region"
    ux, uy = float(q[0]) - sx, float(q[1]) - sy
    L = math.hypot(ux, uy)
    ux, uy = (ux / L, uy / L) if L > _TINY else (1.0, 0.0)
    return _check_line(sx, sy, ux, uy, src_c, src_r, region, blockers, must_cross)


def _crosses_cols(ob: Obstacle, ax, ay, bx, by):
    """Column form of :meth:`Obstacle.crosses` (1-D arrays of endpoints)."""
    cx, cy, r, _ = ob.floats
    d = point_segment_distances(cx, cy, ax, ay, bx, by)
    if ob.is_disc:
        return d < r - EPS
    out = np.zeros(len(ax), dtype=bool)
    near = np.flatnonzero(d < r)
    if len(near) == 0:
        return out
    P, Q = ob.block_edges
    if len(P) == 0:
        return out
    A = np.column_stack([ax[near], ay[near]])
    B = np.column_stack([bx[near], by[near]])
    out[near] = _seg_meets_polygon(A, B, P, Q)
    return out


def _batch_hits(blockers, ax, ay, bx, by) -> np.ndarray:
    """Which of ``n`` segments cross which of ``k`` obstacles: ``(n, k)`` bool.

    All discs are tested in one broadcast, and all polygon edges in one ``(n, E)``
    crossing test with the inside parity summed per polygon.
    """
    n = len(ax)
    out = np.zeros((n, len(blockers)), dtype=bool)
    discs = [i for i, ob in enumerate(blockers) if ob.is_disc]
    polys = [i for i, ob in enumerate(blockers) if not ob.is_disc and len(ob.block_edges[0])]
    dx, dy = bx - ax, by - ay
    if discs:
        C = np.array([blockers[i].floats[:3] for i in discs])
        cx, cy, r = C[None, :, 0], C[None, :, 1], C[None, :, 2]
        d = point_segment_distances(cx, cy, ax[:, None], ay[:, None], bx[:, None], by[:, None])
        out[:, discs] = d < r - EPS
    if polys:
        edges = [blockers[i].block_edges for i in polys]
        P = np.concatenate([e[0] for e in edges])
        Q = np.concatenate([e[1] for e in edges])
        starts = np.cumsum([0] + [len(e[0]) for e in edges[:-1]])
        px, py, qx, qy = P[None, :, 0], P[None, :, 1], Q[None, :, 0], Q[None, :, 1]
        Ax, Ay, Dx, Dy = ax[:, None], ay[:, None], dx[:, None], dy[:, None]
        ex, ey = qx - px, qy - py
        proper = _edge_touch(Ax, Ay, Dx, Dy, px, py, qx, qy)
        my = Ay + Dy * 0.5
        left = ((py > my) != (qy > my)) & (Ax + Dx * 0.5 < px + (my - py) * ex / ey)
        crossed = np.add.reduceat(proper, starts, axis=1) > 0
        inside = np.add.reduceat(left, starts, axis=1) % 2 == 1
        out[:, polys] = crossed | inside
    return out


def _evaluate(cols, src_c, src_r, region: Region, blockers, must_cross):
    """Check candidate lines given as columns ``(px, py, ux, uy)``.

    Returns ``(A, B, blocked_by)``: the witness segment endpoints (or ``None``) and
    the keys of obstacles that blocked at least one valid candidate.
    """
    px, py, ux, uy = cols
    sx, sy = float(src_c[0]), float(src_c[1])
    wx, wy = px - sx, py - sy
    b = ux * wx + uy * wy
    sq = np.sqrt(b * b - (wx * wx + wy * wy - (src_r + EPS) ** 2))
    o_lo, o_hi = -b - sq, -b + sq
    lo, hi, ok = region.interval_cols(px, py, ux, uy)
    valid = ok & (o_lo <= o_hi)
    idx = np.flatnonzero(valid)
    if len(idx) == 0:
        return None, None, ()
    px, py, ux, uy = px[idx], py[idx], ux[idx], uy[idx]
    o_lo, o_hi, lo, hi = o_lo[idx], o_hi[idx], lo[idx], hi[idx]
    t_in = np.maximum(o_lo, lo)
    overlap = t_in <= np.minimum(o_hi, hi)
    o_first = o_hi < lo
    ta = np.where(overlap, t_in, np.where(o_first, o_hi, o_lo))
    tb = np.where(overlap, t_in, np.where(o_first, lo, hi))
    ax, ay, bx, by = px + ta * ux, py + ta * uy, px + tb * ux, py + tb * uy
    blocked_by: tuple = ()
    if len(blockers) <= 1:
        alive = np.arange(len(ax))
        for ob in blockers:
            m = _crosses_cols(ob, ax, ay, bx, by)
            if np.count_nonzero(m):
                blocked_by = (ob.key,)
                alive = np.flatnonzero(~m)
    else:
        hits = _batch_hits(blockers, ax, ay, bx, by)  # (n, k) bool
        free = ~hits.any(axis=1)
        alive = np.flatnonzero(free)
        if len(alive) == 0:
            used = np.asarray(hits.any(axis=0))
            blocked_by = tuple(ob.key for ob, u in zip(blockers, used) if u)
    if len(alive) == 0:
        return None, None, blocked_by
    if must_cross is not None:
        e_lo = np.minimum(o_lo[alive], lo[alive])
        e_hi = np.maximum(o_hi[alive], hi[alive])
        qx, qy, vx, vy = px[alive], py[alive], ux[alive], uy[alive]
        hit = _crosses_cols(must_cross, qx + e_lo * vx, qy + e_lo * vy, qx + e_hi * vx, qy + e_hi * vy)
        alive = alive[hit]
        if len(alive) == 0:
            return None, None, tuple(blocked_by)
    i = alive[0]
    return (float(ax[i]), float(ay[i])), (float(bx[i]), float(by[i])), tuple(blocked_by)


def _boundary_points(ob: Obstacle, src_c, src_r, region: Region, shrink: float) -> list:
    """Points where the obstacle's boundary (shrunk by ``shrink``) crosses the source
    circle or the region's boundaries."""
    pts: list = []
    circles = [(src_c, src_r)] + [(d[:2], d[2]) for d in region.discs if d[2] > 0]
    if ob.is_disc:
        r = ob.radius - shrink
        for c, rr in circles:
            pts.extend(_circle_circle(ob.center, r, c, rr))
        for h in region.halfplanes:
            pts.extend(_circle_line(ob.center, r, h[:2], h[2]))
        return pts
    P, Q = ob.cross_edges if shrink > 1.5 * EPS else (ob.vertices, np.roll(ob.vertices, -1, axis=0))
    for c, rr in circles:
        pts.extend(_segments_circle(P, Q, np.asarray(c), rr).tolist())
    for h in region.halfplanes:
        pts.extend(_segments_line(P, Q, h[:2], h[2]).tolist())
    return pts


def _overlaps(ob: Obstacle, c, r) -> bool:
    if math.dist(ob.center, c) >= ob.radius + r + EPS:
        return False
    return ob.disc_gap(float(c[0]), float(c[1]), r) <= 2 * EPS


def find_sight_line(
    src_center,
    src_radius: float,
    region: Region,
    obstacles: Sequence[Obstacle] = (),
    must_cross: Obstacle | None = None,
) -> SightSearch:
    """Find a segment from the source disc to ``region`` clear of ``obstacles``.

    Args:
        src_center: ``(x, y)`` centre of the source base, inches.
        src_radius: its radius, inches (0 for a point).
        region: where the segment must end (e.g. target base within the front arc).
        obstacles: what the segment may not cross (touching is allowed).
        must_cross: if given, the segment must also cross this obstacle's interior
            (Cover, rulings.md section 5); it should not be in ``obstacles``.

    Returns:
        A :class:`SightSearch`: the witness line, or ``None`` with the blocking keys.
        The answer is exact up to ``EPS`` (see the module docstring).
    """
    src_c = np.asarray(src_center, float)
    src_r = float(src_radius)
    if region.is_empty:
        return SightSearch(None)
    kc, kr = region.bounding_disc
    blockers = _relevant(obstacles, src_c, src_r, kc, kr)
    if must_cross is not None and not _meets_hull(must_cross, src_c, src_r, kc, kr):
        return SightSearch(None)

    # Stage 1: the line from the source centre to a central point of the region.
    total = 1
    hit = _stage1(src_c, src_r, region, blockers, must_cross)
    if hit is not None:
        return SightSearch(SightLine(*hit), (), total)

    with np.errstate(all="ignore"):
        return _search(src_c, src_r, region, blockers, must_cross, kc, kr, total)


def _search(src_c, src_r, region, blockers, must_cross, kc, kr, total) -> SightSearch:
    """Stages 1.5 and 2 of :func:`find_sight_line` (numpy warnings silenced by the
    caller: NaN marks lines that do not exist)."""
    # A single convex blocker across the whole corridor: no line at all.
    sep = _separating(blockers, src_c, src_r, kc, kr)
    if sep is not None:
        return SightSearch(None, (sep.key,), total)

    # Stage 1.5: a few likely lines (edges of both bases, common tangents, and for
    # cover the corners of the piece), tested one by one in plain Python.
    for line in _likely_lines(src_c, src_r, region, kc, kr, must_cross):
        total += 1
        hit = _check_line(*line, src_c, src_r, region, blockers, must_cross)
        if hit is not None:
            return SightSearch(SightLine(*hit), (), total)

    # Stage 2: every critical line.
    circ = [(float(src_c[0]), float(src_c[1]), src_r)] if src_r > 0 else []
    pts: list = [] if src_r > 0 else [(float(src_c[0]), float(src_c[1]))]
    for cx, cy, r in region.floats[0]:
        (circ.append((cx, cy, r)) if r > 0 else pts.append((cx, cy)))
    pts.extend(region.corners.tolist())
    for ob in blockers:
        if ob.is_disc:
            circ.append(ob.floats[:3])
        else:
            pts.extend(ob.vertices.tolist())
        if _overlaps(ob, src_c, src_r) or _overlaps(ob, kc, kr):
            pts.extend(_boundary_points(ob, src_c, src_r, region, 0.0))
    if must_cross is not None:
        mc = must_cross
        if mc.is_disc:
            cx, cy, r, _ = mc.floats
            circ.append((cx, cy, max(r - 2 * EPS, 0.0)))
        else:
            pts.extend(mc.cross_edges[0].tolist())
        if _overlaps(mc, src_c, src_r) or _overlaps(mc, kc, kr):
            pts.extend(_boundary_points(mc, src_c, src_r, region, 2 * EPS))
    P = np.asarray(pts, float).reshape(-1, 2)
    C = np.asarray(circ, float).reshape(-1, 3)
    lp0, lu = region.boundary_lines()
    extra = [(lp0[:, 0], lp0[:, 1], lu[:, 0], lu[:, 1])] if len(lp0) else []
    cols = _candidate_lines(P, C, extra)
    total += len(cols[0])
    a, b, why = _evaluate(cols, src_c, src_r, region, blockers, must_cross)
    if a is not None:
        return SightSearch(SightLine(a, b), (), total)
    return SightSearch(None, why, total)


def _pt(p) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


def point_region(p) -> Region:
    """The region made of the single point ``p``."""
    return Region.make([[float(p[0]), float(p[1]), 0.0]])


def disc_region(center, radius: float, arc: tuple[Any, Any] | None = None, extra_discs=()) -> Region:
    """A disc, optionally cut by a front arc and further discs.

    Args:
        center, radius: the disc, inches.
        arc: ``(origin, facing_unit)``: keep points ``p`` with
            ``(p - origin) . facing >= 0`` (rulings.md section 3); ``None`` = no cut.
        extra_discs: more ``(cx, cy, r)`` discs to intersect with.
    """
    discs = [[float(center[0]), float(center[1]), float(radius)], *extra_discs]
    hp = []
    if arc is not None:
        (ox, oy), (fx, fy) = arc
        hp.append((float(fx), float(fy), float(fx) * float(ox) + float(fy) * float(oy)))
    return Region.make(discs, hp)
