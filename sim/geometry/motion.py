"""A round base moving along a straight segment: exact contact intervals.

Movement (p.22-23) and special-attack moves (p.39-42) move a base's centre along
straight segments. Everything here is closed form (no stepping): for a segment
``p(t) = a + t (b - a)``, ``t`` in ``[0, 1]``, and a base of radius ``R``:

* :func:`disc_interval` -- where the base overlaps a disc (another base, a round piece);
* :func:`capsule_interval` -- where it comes within ``R`` of a segment;
* :func:`footprint_intervals` -- where it overlaps a terrain footprint (polygon or circle);
  :func:`footprint_ray_intervals` -- the same for a fan of segments from one point (numpy);
* :func:`half_disc_dilated_interval` -- where it meets a half-disc (a front-arc ZoC);
* :func:`merge` / :func:`covered_length` / :func:`subtract` -- unions and differences of
  intervals; :func:`budget_fraction` -- how far a movement allowance lasts along a
  segment whose cost rate changes on some intervals (Difficult terrain).

"Overlap" is strict: a base that only touches (gap 0) does not overlap; the tolerance
``tol`` (default ``EPS``) keeps touching bases legal (rulings.md section 7: a base may not
pass *through* another base or Impassable terrain; BtB is touching).
All lengths are inches.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from .attributes import EPS
from .primitives import point_in_polygon
from .shapes import Footprint

Interval = tuple[float, float]


def _line_disc(ax: float, ay: float, dx: float, dy: float, cx: float, cy: float, R: float):
    """Raw parameters ``(t0, t1)`` where ``a + t d`` is within ``R`` of ``c`` (unclipped)."""
    A = dx * dx + dy * dy
    wx, wy = ax - cx, ay - cy
    if A <= 1e-18:
        return (-math.inf, math.inf) if wx * wx + wy * wy <= R * R else None
    B = wx * dx + wy * dy
    C = wx * wx + wy * wy - R * R
    disc = B * B - A * C
    if disc < 0:
        return None
    s = math.sqrt(disc)
    return (-B - s) / A, (-B + s) / A


def _clip(iv, lo: float = 0.0, hi: float = 1.0):
    if iv is None:
        return None
    t0, t1 = max(iv[0], lo), min(iv[1], hi)
    return (t0, t1) if t0 < t1 or (t0 == t1 and iv[0] <= iv[1]) else None


def disc_interval(a, b, center, R: float) -> Interval | None:
    """``t`` in ``[0, 1]`` where the point ``p(t)`` is within ``R`` of ``center``
    (equivalently: a base of radius ``r`` at ``p(t)`` overlaps a disc of radius
    ``R - r``). ``None`` if never."""
    ax, ay = float(a[0]), float(a[1])
    return _clip(_line_disc(ax, ay, float(b[0]) - ax, float(b[1]) - ay, float(center[0]), float(center[1]), R))


def capsule_interval(a, b, p, q, R: float) -> Interval | None:
    """``t`` in ``[0, 1]`` where ``p(t)`` is within ``R`` of the segment ``[p, q]``."""
    ax, ay = float(a[0]), float(a[1])
    dx, dy = float(b[0]) - ax, float(b[1]) - ay
    px, py, qx, qy = float(p[0]), float(p[1]), float(q[0]), float(q[1])
    parts = [_line_disc(ax, ay, dx, dy, px, py, R), _line_disc(ax, ay, dx, dy, qx, qy, R)]
    ex, ey = qx - px, qy - py
    L = math.hypot(ex, ey)
    if L > 1e-12:
        ex, ey = ex / L, ey / L
        nx, ny = -ey, ex
        # slab: |n . (x - p)| <= R and 0 <= e . (x - p) <= L
        lo, hi = -math.inf, math.inf
        for (ux, uy, smin, smax) in ((nx, ny, -R, R), (ex, ey, 0.0, L)):
            s0 = ux * (ax - px) + uy * (ay - py)
            sd = ux * dx + uy * dy
            if abs(sd) < 1e-15:
                if not (smin <= s0 <= smax):
                    lo, hi = 1.0, 0.0
                continue
            t0, t1 = (smin - s0) / sd, (smax - s0) / sd
            if t0 > t1:
                t0, t1 = t1, t0
            lo, hi = max(lo, t0), min(hi, t1)
        if lo <= hi:
            parts.append((lo, hi))
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    # the capsule is convex: the union of its parts along a line is one interval
    return _clip((min(p[0] for p in parts), max(p[1] for p in parts)))


def _inside_intervals(a, b, vertices) -> list[Interval]:
    """``t`` intervals of the segment inside a simple polygon (even-odd)."""
    ax, ay = float(a[0]), float(a[1])
    dx, dy = float(b[0]) - ax, float(b[1]) - ay
    ts = [0.0, 1.0]
    n = len(vertices)
    for i in range(n):
        px, py = vertices[i]
        qx, qy = vertices[(i + 1) % n]
        ex, ey = qx - px, qy - py
        den = dx * ey - dy * ex
        if abs(den) < 1e-18:
            continue
        t = ((px - ax) * ey - (py - ay) * ex) / den
        u = ((px - ax) * dy - (py - ay) * dx) / den
        if 0 < t < 1 and 0 <= u <= 1:
            ts.append(t)
    ts.sort()
    out = []
    for t0, t1 in zip(ts, ts[1:]):
        if t1 - t0 <= 1e-15:
            continue
        tm = (t0 + t1) / 2
        if point_in_polygon(ax + tm * dx, ay + tm * dy, vertices):
            out.append((t0, t1))
    return out


def merge(intervals: Iterable[Interval | None]) -> list[Interval]:
    """Union of intervals, sorted and merged."""
    ivs = sorted(iv for iv in intervals if iv is not None)
    out: list[list[float]] = []
    for t0, t1 in ivs:
        if out and t0 <= out[-1][1]:
            out[-1][1] = max(out[-1][1], t1)
        else:
            out.append([t0, t1])
    return [(a, b) for a, b in out]


def covered_length(intervals: Sequence[Interval], length: float) -> float:
    """Total length (inches) of the merged intervals on a segment ``length`` long."""
    return sum(t1 - t0 for t0, t1 in merge(intervals)) * length


def subtract(pieces: Iterable[Interval], gaps: Iterable[Interval]) -> list[Interval]:
    """Closed intervals ``pieces`` minus open intervals ``gaps``, sorted (``t`` units)."""
    gaps = list(gaps)
    out = []
    for p0, p1 in pieces:
        cur = [(p0, p1)]
        for g0, g1 in gaps:
            nxt = []
            for c0, c1 in cur:
                if g1 <= c0 or g0 >= c1:
                    nxt.append((c0, c1))
                    continue
                if g0 > c0:
                    nxt.append((c0, g0))
                if g1 < c1:
                    nxt.append((g1, c1))
            cur = nxt
        out.extend(cur)
    return sorted(out)


def budget_fraction(intervals: Sequence[Interval], length: float, factor: float, budget: float) -> float:
    """Largest ``t`` in ``[0, 1]`` such that going from ``p(0)`` to ``p(t)`` costs at most
    ``budget`` inches, on a segment ``length`` inches long whose cost is ``factor`` per
    inch on the merged ``intervals`` (Difficult terrain, Terrain p.60) and 1 elsewhere.
    Costs grow piecewise linearly; ``1.0`` when the whole segment is affordable or
    ``length <= 0``."""
    if length <= 0:
        return 1.0
    marks = sorted({0.0, 1.0, *[x for iv in intervals for x in iv if 0 <= x <= 1]})
    spent = 0.0
    for t0, t1 in zip(marks, marks[1:]):
        mid = (t0 + t1) / 2
        rate = length * (factor if any(i0 <= mid <= i1 for i0, i1 in intervals) else 1.0)
        piece = rate * (t1 - t0)
        if spent + piece >= budget - 1e-15:
            return t0 + max(0.0, budget - spent) / rate
        spent += piece
    return 1.0


def footprint_intervals(a, b, footprint: Footprint, R: float, tol: float = EPS) -> list[Interval]:
    """``t`` intervals where a base of radius ``R`` centred at ``p(t)`` overlaps the
    footprint by more than ``tol`` (its centre closer than ``R - tol`` to it).

    Exact: circles are circles; polygons are the union of the capsules around their
    edges and their inside.
    """
    Rt = R - tol
    if footprint.is_circle:
        iv = disc_interval(a, b, footprint.center, footprint.radius + Rt)
        return [iv] if iv is not None else []
    verts = [tuple(v) for v in footprint.vertices.tolist()]
    # quick reject: bounding circle
    (cx, cy), br = footprint.bounding_circle
    if disc_interval(a, b, (cx, cy), br + Rt) is None:
        return []
    parts: list = []
    n = len(verts)
    if Rt > 0:
        for i in range(n):
            parts.append(capsule_interval(a, b, verts[i], verts[(i + 1) % n], Rt))
    parts.extend(_inside_intervals(a, b, verts))
    return merge(parts)


def _rays_disc(a, D, c, R):
    """Line-disc parameters for rays ``a + t D[k]`` (``D`` (K, 2)): ``(t0, t1, ok)``."""
    A = D[:, 0] ** 2 + D[:, 1] ** 2
    wx, wy = a[0] - c[0], a[1] - c[1]
    B = wx * D[:, 0] + wy * D[:, 1]
    C = wx * wx + wy * wy - R * R
    disc = B * B - A * C
    ok = disc >= 0
    sq = np.sqrt(np.where(ok, disc, 0.0))
    return (-B - sq) / A, (-B + sq) / A, ok


def _rays_slab(a, D, p, n, lo_s, hi_s):
    """Where ``lo_s <= n . (a + t D - p) <= hi_s``: ``(t0, t1, ok)`` per ray."""
    s0 = n[0] * (a[0] - p[0]) + n[1] * (a[1] - p[1])
    sd = n[0] * D[:, 0] + n[1] * D[:, 1]
    flat = np.abs(sd) < 1e-15
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = (lo_s - s0) / sd
        tb = (hi_s - s0) / sd
    t0 = np.where(flat, -np.inf, np.minimum(ta, tb))
    t1 = np.where(flat, np.inf, np.maximum(ta, tb))
    ok = ~flat | ((lo_s <= s0) & (s0 <= hi_s))
    return t0, t1, ok


def footprint_ray_intervals(a, D, footprint: Footprint, R: float, tol: float = EPS) -> tuple[np.ndarray, np.ndarray]:
    """:func:`footprint_intervals` for many segments from one point at once (numpy).

    The segments are ``a + t D[k]``, ``t`` in ``[0, 1]`` (``a`` ``(x, y)``, ``D`` ``(K, 2)``:
    segment ends minus ``a``, inches); the footprint must be a circle or a convex polygon
    (see :attr:`Footprint.convex`). Returns ``(lo, hi)``, two ``(K,)`` arrays: the one
    ``t`` interval of each segment where a base of radius ``R`` overlaps the footprint
    by more than ``tol``, with ``lo > hi`` where it never does. The same closed forms:
    the dilated footprint is convex, so along a line it is one interval, the hull of the
    capsule intervals of its edges and of its inside.
    """
    Rt = R - tol
    K = len(D)
    lo = np.full(K, np.inf)
    hi = np.full(K, -np.inf)

    def add(t0, t1, ok):
        nonlocal lo, hi
        good = ok & (t0 <= t1)
        lo = np.where(good, np.minimum(lo, t0), lo)
        hi = np.where(good, np.maximum(hi, t1), hi)

    if footprint.is_circle:
        add(*_rays_disc(a, D, footprint.center, footprint.radius + Rt))
    else:
        V = np.asarray(footprint.vertices, float)
        n = len(V)
        area2 = float(np.sum(V[:, 0] * np.roll(V[:, 1], -1) - np.roll(V[:, 0], -1) * V[:, 1]))
        cb_lo, cb_hi = np.full(K, -np.inf), np.full(K, np.inf)
        cb_ok = np.ones(K, dtype=bool)
        for i in range(n):
            p, q = V[i], V[(i + 1) % n]
            ex, ey = q[0] - p[0], q[1] - p[1]
            Le = math.hypot(ex, ey)
            if Le <= 1e-12:
                continue
            e = (ex / Le, ey / Le)
            nrm = (-e[1], e[0])
            if Rt > 0:
                t0a, t1a, oka = _rays_disc(a, D, p, Rt)
                t0b, t1b, okb = _rays_disc(a, D, q, Rt)
                s0, s1, sok = _rays_slab(a, D, p, nrm, -Rt, Rt)
                u0, u1, uok = _rays_slab(a, D, p, e, 0.0, Le)
                add(t0a, t1a, oka)
                add(t0b, t1b, okb)
                add(np.maximum(s0, u0), np.minimum(s1, u1), sok & uok)
            # Cyrus-Beck: the inside is on the left of each edge of a CCW polygon
            inward = nrm if area2 > 0 else (-nrm[0], -nrm[1])
            t0, t1, ok = _rays_slab(a, D, p, inward, 0.0, np.inf)
            cb_lo, cb_hi, cb_ok = np.maximum(cb_lo, t0), np.minimum(cb_hi, t1), cb_ok & ok
        add(cb_lo, cb_hi, cb_ok)
    t0, t1 = np.maximum(lo, 0.0), np.minimum(hi, 1.0)
    miss = ~((t0 < t1) | ((t0 == t1) & (lo <= hi)))
    return np.where(miss, np.inf, t0), np.where(miss, -np.inf, t1)


def half_disc_dilated_interval(a, b, center, R: float, facing, r: float) -> Interval | None:
    """``t`` where a base of radius ``r`` at ``p(t)`` meets the half-disc
    ``{x : |x - center| <= R, (x - center) . facing >= 0}`` (a front-arc ZoC), i.e.
    the half-disc dilated by ``r``: the half-disc of radius ``R + r`` united with the
    capsule of radius ``r`` around its diameter. ``facing`` is a unit vector."""
    cx, cy = float(center[0]), float(center[1])
    fx, fy = float(facing[0]), float(facing[1])
    ax, ay = float(a[0]), float(a[1])
    dx, dy = float(b[0]) - ax, float(b[1]) - ay
    parts: list[Interval | None] = []
    iv = _line_disc(ax, ay, dx, dy, cx, cy, R + r)
    if iv is not None:
        s0 = fx * (ax - cx) + fy * (ay - cy)
        sd = fx * dx + fy * dy
        lo, hi = iv
        if abs(sd) < 1e-15:
            if s0 < 0:
                lo, hi = 1.0, 0.0
        elif sd > 0:
            lo = max(lo, -s0 / sd)
        else:
            hi = min(hi, -s0 / sd)
        if lo <= hi:
            parts.append((lo, hi))
    px, py = -fy, fx
    parts.append(capsule_interval(a, b, (cx - px * R, cy - py * R), (cx + px * R, cy + py * R), r))
    found = [p for p in parts if p is not None]
    if not found:
        return None
    return _clip((min(p[0] for p in found), max(p[1] for p in found)))


def first_entry(intervals: Sequence[Interval]) -> float | None:
    """Smallest ``t`` of the intervals, or ``None``."""
    return min((iv[0] for iv in intervals), default=None)


def first_contact(start, direction, length: float, radius: float, discs=(), footprints=(),
                  table: tuple[float, float] | None = None, tol: float = EPS):
    """Time of impact of a base sliding along a straight line (closed form).

    Args:
        start: the base centre ``(x, y)``, inches.
        direction: unit vector ``(ux, uy)``.
        length: how far it would go, inches.
        radius: the moving base's radius, inches.
        discs: ``(key, (cx, cy), r)`` other bases it may hit.
        footprints: ``(key, Footprint)`` Impassable terrain it may hit.
        table: ``(width, depth)``: the base stops when it touches the table edge.
        tol: overlap tolerance: contact means the base would go more than ``tol`` into
            the other thing; a base already touching something and moving away from
            or along it is not stopped.

    Returns:
        ``(distance, kind, key)``: how far it travels before the first contact (inches,
        ``<= length``), and what it meets: ``"base"``, ``"terrain"``, ``"edge"`` or
        ``None`` (no contact within ``length``).
    """
    ax, ay = float(start[0]), float(start[1])
    ux, uy = float(direction[0]), float(direction[1])
    if length <= 0:
        return 0.0, None, None
    b = (ax + ux * length, ay + uy * length)
    best: tuple[float, str | None, object] = (length, None, None)
    for key, c, r in discs:
        iv = disc_interval((ax, ay), b, c, radius + r - tol)
        if iv is not None and iv[1] - iv[0] > 1e-12:
            # the exact touching point (no tolerance), never before the start
            touch = disc_interval((ax, ay), b, c, radius + r)
            t = max(0.0, touch[0] if touch is not None else iv[0])
            if t * length < best[0]:
                best = (t * length, "base", key)
    for key, fp in footprints:
        ivs = [iv for iv in footprint_intervals((ax, ay), b, fp, radius, tol) if iv[1] - iv[0] > 1e-12]
        if ivs:
            touching = footprint_intervals((ax, ay), b, fp, radius, 0.0)
            t0 = ivs[0][0]
            for span in touching:
                if span[0] <= t0 <= span[1] + 1e-12:
                    t0 = span[0]
                    break
            t = max(0.0, t0)
            if t * length < best[0]:
                best = (t * length, "terrain", key)
    if table is not None:
        w, d = table
        hi = length
        for s, v, lo_b, hi_b in ((ax, ux, radius, w - radius), (ay, uy, radius, d - radius)):
            if v > 1e-15:
                hi = min(hi, (hi_b - s) / v)
            elif v < -1e-15:
                hi = min(hi, (lo_b - s) / v)
        hi = max(0.0, hi)
        if hi < best[0] - 1e-15:
            best = (hi, "edge", None)
    return best
