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
by ``EPS`` (so lines through its vertices, or along its sides, are clear); the cover
obstacle ``P`` is crossed if the segment meets ``P`` shrunk by ``EPS``, and its features
are taken from ``P`` shrunk by ``2 * EPS`` so that critical lines through them cross it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Hashable, Sequence

import numpy as np
from shapely.geometry import MultiPolygon, Polygon

from .attributes import EPS
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

    # predicates ------------------------------------------------------------------
    def crosses(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Which segments ``[A[i], B[i]]`` cross the interior (shrunk by ``EPS``).

        Args:
            A, B: ``(n, 2)`` segment endpoints, inches.
        Returns:
            ``(n,)`` bool array.
        """
        if self.is_disc:
            return _seg_point_dist(A, B, self.center) < self.radius - EPS
        P, Q = self.block_edges
        if len(P) == 0:
            return np.zeros(len(A), dtype=bool)
        return _seg_meets_polygon(A, B, P, Q)


def _seg_point_dist(A: np.ndarray, B: np.ndarray, c: np.ndarray) -> np.ndarray:
    AB = B - A
    L2 = np.einsum("ij,ij->i", AB, AB)
    t = np.einsum("ij,ij->i", c - A, AB) / np.where(L2 > _TINY, L2, 1.0)
    t = np.clip(np.where(L2 > _TINY, t, 0.0), 0.0, 1.0)
    closest = A + t[:, None] * AB
    return np.hypot(closest[:, 0] - c[0], closest[:, 1] - c[1])


def _cross2(ax, ay, bx, by):
    return ax * by - ay * bx


def _seg_meets_polygon(A, B, P, Q) -> np.ndarray:
    """Segments (n) meet the closed polygon given by edges P->Q (m), even-odd rule."""
    ax, ay = A[:, 0:1], A[:, 1:2]
    bx, by = B[:, 0:1], B[:, 1:2]
    px, py = P[None, :, 0], P[None, :, 1]
    qx, qy = Q[None, :, 0], Q[None, :, 1]
    d1 = _cross2(bx - ax, by - ay, px - ax, py - ay)
    d2 = _cross2(bx - ax, by - ay, qx - ax, qy - ay)
    d3 = _cross2(qx - px, qy - py, ax - px, ay - py)
    d4 = _cross2(qx - px, qy - py, bx - px, by - py)
    proper = ((d1 > 0) != (d2 > 0)) & (d1 != 0) & (d2 != 0) & ((d3 > 0) != (d4 > 0)) & (d3 != 0) & (d4 != 0)
    hit = proper.any(axis=1)
    # no proper crossing: the segment is wholly inside or wholly outside; test its midpoint
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

    discs: np.ndarray
    halfplanes: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))

    @classmethod
    def make(cls, discs, halfplanes=()) -> "Region":
        d = np.asarray(discs, float).reshape(-1, 3)
        h = np.asarray(halfplanes, float).reshape(-1, 3)
        if len(d) == 0:
            raise ValueError("a Region needs at least one disc")
        return cls(d, h)

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
        pts = []
        D, H = self.discs, self.halfplanes
        for i in range(len(D)):
            for j in range(i + 1, len(D)):
                pts.extend(_circle_circle(D[i, :2], D[i, 2], D[j, :2], D[j, 2]))
            for h in H:
                pts.extend(_circle_line(D[i, :2], D[i, 2], h[:2], h[2]))
        for i in range(len(H)):
            for j in range(i + 1, len(H)):
                pts.extend(_line_line(H[i], H[j]))
        if not pts:
            return np.zeros((0, 2))
        pts = np.asarray(pts, float)
        return pts[self.contains(pts)]

    @cached_property
    def point(self) -> np.ndarray | None:
        """A point inside the region, or ``None`` if the region is empty."""
        cands = np.concatenate([self.discs[:, :2], self.corners])
        inside = cands[self.contains(cands)]
        if len(inside) == 0:
            return None
        p = inside.mean(axis=0)
        return p if self.contains(p[None])[0] else inside[0]

    @property
    def is_empty(self) -> bool:
        return self.point is None

    @cached_property
    def bounding_disc(self) -> tuple[np.ndarray, float]:
        """The smallest of the region's discs: ``(center, radius)``."""
        i = int(np.argmin(self.discs[:, 2]))
        return self.discs[i, :2], float(self.discs[i, 2])

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
def common_tangents(C1: np.ndarray, R1: np.ndarray, C2: np.ndarray, R2: np.ndarray):
    """All common tangent lines of circle pairs ``(C1[i], R1[i])``, ``(C2[i], R2[i])``.

    Radii may be 0 (points): two points give one line, a point and a circle two, two
    circles up to four. Pairs with coincident centres give none.

    Returns:
        ``(p0, u)``: a point on each line and its unit direction, each ``(n, 2)``.
    """
    v = C1 - C2
    L2 = np.einsum("ij,ij->i", v, v)
    good = L2 > _TINY
    v, L2, C1, R1, R2 = v[good], L2[good], C1[good], R1[good], R2[good]
    vperp = np.stack([-v[:, 1], v[:, 0]], axis=1)
    has_point = (R1 <= 0) | (R2 <= 0)
    both_points = (R1 <= 0) & (R2 <= 0)
    P0, U = [], []
    for s in (1.0, -1.0):
        k = R1 - s * R2
        h2 = L2 - k * k
        ok = h2 >= -1e-12
        if s < 0:
            ok &= ~has_point  # same lines as s = +1
        h = np.sqrt(np.maximum(h2[ok], 0.0))
        kk, vv, vp, LL, cc, rr = k[ok], v[ok], vperp[ok], L2[ok], C1[ok], R1[ok]
        bp = both_points[ok]
        for sig in (1.0, -1.0):
            keep = ~bp if sig < 0 else np.ones(len(kk), dtype=bool)
            n = (kk[keep, None] * vv[keep] + sig * h[keep, None] * vp[keep]) / LL[keep, None]
            d = np.einsum("ij,ij->i", n, cc[keep]) - rr[keep]
            P0.append(n * d[:, None])
            U.append(np.stack([-n[:, 1], n[:, 0]], axis=1))
    if not P0:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return np.concatenate(P0), np.concatenate(U)


def _pair_tangents(F: np.ndarray, G: np.ndarray | None = None):
    """Common tangents of every pair of feature circles (rows ``(x, y, r)``).

    With one array: all pairs ``i < j`` of ``F``. With two: every ``F`` row with every
    ``G`` row.
    """
    if G is None:
        i, j = np.triu_indices(len(F), k=1)
        A, B = F[i], F[j]
    else:
        A = np.repeat(F, len(G), axis=0)
        B = np.tile(G, (len(F), 1))
    if len(A) == 0:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return common_tangents(A[:, :2], A[:, 2], B[:, :2], B[:, 2])


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
    seg = c1 - c0
    L2 = float(seg @ seg)
    reach = max(r0, r1)
    out = []
    for ob in obstacles:
        w = ob.center - c0
        t = 0.0 if L2 < _TINY else min(1.0, max(0.0, float(w @ seg) / L2))
        dist = math.hypot(*(w - t * seg))
        if dist < ob.radius + reach + EPS:
            out.append(ob)
    return out


def _evaluate(p0, u, src_c, src_r, region: Region, blockers, must_cross):
    """Check candidate lines ``p0 + t u``.

    Returns ``(A, B, blocked_by)``: the witness segment (or ``None``) and the keys of
    obstacles that blocked at least one valid candidate.
    """
    o_lo, o_hi, o_ok = _disc_interval(p0, u, src_c[0], src_c[1], src_r + EPS)
    k_lo, k_hi, k_ok = region.interval(p0, u)
    valid = o_ok & k_ok
    if not valid.any():
        return None, None, ()
    p0, u = p0[valid], u[valid]
    o_lo, o_hi, k_lo, k_hi = o_lo[valid], o_hi[valid], k_lo[valid], k_hi[valid]
    overlap = np.maximum(o_lo, k_lo) <= np.minimum(o_hi, k_hi)
    o_first = o_hi < k_lo
    t_in = np.maximum(o_lo, k_lo)
    ta = np.where(overlap, t_in, np.where(o_first, o_hi, o_lo))
    tb = np.where(overlap, t_in, np.where(o_first, k_lo, k_hi))
    A = p0 + ta[:, None] * u
    B = p0 + tb[:, None] * u
    alive = np.arange(len(A))
    blocked_by = []
    for ob in blockers:
        a, b = A[alive], B[alive]
        near = _seg_point_dist(a, b, ob.center) < ob.radius
        if not near.any():
            continue
        m = np.zeros(len(alive), dtype=bool)
        m[near] = ob.crosses(a[near], b[near])
        if m.any():
            blocked_by.append(ob.key)
            alive = alive[~m]
            if len(alive) == 0:
                return None, None, tuple(blocked_by)
    if must_cross is not None:
        e_lo = np.minimum(o_lo[alive], k_lo[alive])
        e_hi = np.maximum(o_hi[alive], k_hi[alive])
        pa, ua = p0[alive], u[alive]
        hit = must_cross.crosses(pa + e_lo[:, None] * ua, pa + e_hi[:, None] * ua)
        alive = alive[hit]
        if len(alive) == 0:
            return None, None, tuple(blocked_by)
    i = alive[0]
    return A[i], B[i], tuple(blocked_by)


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
    return math.dist(ob.center, c) < ob.radius + r + EPS


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
    if must_cross is not None and not _relevant([must_cross], src_c, src_r, kc, kr):
        return SightSearch(None)

    # Stage 1: the line from the source centre to a central point of the region.
    q = region.point
    d = q - src_c
    nd = math.hypot(*d)
    total = 0
    if nd > _TINY:
        p0, u = src_c[None], (d / nd)[None]
    else:
        p0, u = src_c[None], np.array([[1.0, 0.0]])
    a, b, _ = _evaluate(p0, u, src_c, src_r, region, blockers, must_cross)
    total += 1
    if a is not None:
        return SightSearch(SightLine(_pt(a), _pt(b)), (), total)
    if not blockers and must_cross is None:  # pragma: no cover - stage 1 always succeeds
        return SightSearch(SightLine(tuple(src_c), tuple(q)), (), total)

    # Stage 2: every critical line.
    feats = [np.array([[src_c[0], src_c[1], src_r]]), region.discs]
    corners = region.corners
    if len(corners):
        feats.append(np.column_stack([corners, np.zeros(len(corners))]))
    extra_pts: list = []
    for ob in blockers:
        if ob.is_disc:
            feats.append(np.array([[ob.center[0], ob.center[1], ob.radius]]))
        else:
            feats.append(np.column_stack([ob.vertices, np.zeros(len(ob.vertices))]))
        if _overlaps(ob, src_c, src_r) or _overlaps(ob, kc, kr):
            extra_pts.extend(_boundary_points(ob, src_c, src_r, region, 0.0))
    if must_cross is not None:
        mc = must_cross
        if mc.is_disc:
            feats.append(np.array([[mc.center[0], mc.center[1], max(mc.radius - 2 * EPS, 0.0)]]))
        else:
            P, _ = mc.cross_edges
            if len(P):
                feats.append(np.column_stack([P, np.zeros(len(P))]))
        if _overlaps(mc, src_c, src_r) or _overlaps(mc, kc, kr):
            extra_pts.extend(_boundary_points(mc, src_c, src_r, region, 2 * EPS))
    if extra_pts:
        ep = np.asarray(extra_pts, float).reshape(-1, 2)
        feats.append(np.column_stack([ep, np.zeros(len(ep))]))
    F = np.concatenate(feats)
    p0, u = _pair_tangents(F)
    lp0, lu = region.boundary_lines()
    if len(lp0):
        p0, u = np.concatenate([p0, lp0]), np.concatenate([u, lu])
    total += len(p0)
    a, b, why = _evaluate(p0, u, src_c, src_r, region, blockers, must_cross)
    if a is not None:
        return SightSearch(SightLine(_pt(a), _pt(b)), (), total)
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
        o, f = np.asarray(arc[0], float), np.asarray(arc[1], float)
        hp.append([f[0], f[1], float(f @ o)])
    return Region.make(discs, hp)
