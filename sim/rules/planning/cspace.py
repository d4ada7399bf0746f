"""Where a moving base may be: the areas a Walk or a Run must respect, in configuration space.

The planner works with positions of the base *centre* (configuration space): every
obstacle is dilated by the mover's radius. :class:`Shape` is one such area (another
base, a terrain piece, an enemy's ZoC) with its role (no path may enter it, no move may
end in it, Difficult or Ideal terrain), tested in closed form and vectorised over grid
nodes and edges. The visible part of a ZoC that Blocking terrain or models may shadow
is a polygon built from the exact umbras of the blockers
(:func:`sim.geometry.measure.umbra`), never smaller than the exact ZoC.

Also here: the exact tests of one straight segment (:func:`segment_ok`, the verdict the
grid's short-cuts rely on) and what the start position imposes (:func:`immobile`,
:func:`away_dirs`, :func:`ideal_within`).

Rulebook: Movement p.22-23 (Walk, Run), Zone of Control (Terms and Concepts p.9),
Terrain p.60 (Difficult, Ideal, Impassable); rulings.md 6 and 7. Inches and degrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from sim.geometry import CONTACT, EPS, ZOC_RANGE, Passage
from sim.geometry.measure import umbra
from sim.geometry.motion import disc_interval, half_disc_dilated_interval
from sim.geometry.primitives import (
    lerp,
    point_segment_distances,
    polygon_distances,
    segment_distances,
    segment_polygon_distances,
    unit_vector,
)
from sim.rules.movement import Mover

Point = tuple[float, float]

#: Ruling cited by the planner's own reasons.
RULING = "Walk p.22 (Movement p.22-23); rulings.md 7"
#: Extra distance (inches) kept from the edge of an area approximated by polygons (the
#: visible part of a shadowed ZoC): polygons inscribed in circles err by less.
_POLY_MARGIN = 0.005


# ------------------------------------------------------------ half-discs (numpy)
def _half_core_dist(px, py, cx, cy, Rz, f):
    """Distance from points to the half-disc ``|x - c| <= Rz, (x - c) . f >= 0``
    (``f`` None: the full disc)."""
    qx, qy = px - cx, py - cy
    rad = np.hypot(qx, qy)
    if f is None:
        return np.maximum(rad - Rz, 0.0)
    fx, fy = f
    s = qx * fx + qy * fy
    q = -qx * fy + qy * fx
    d_out = np.hypot(q - np.clip(q, -Rz, Rz), s)
    return np.where(s >= 0, np.maximum(rad - Rz, 0.0), d_out)


def _seg_meets_half(ax, ay, bx, by, cx, cy, Rz, f, r):
    """Segments whose swept base (radius ``r``) meets the half-disc (closed)."""
    if f is None:
        return point_segment_distances(cx, cy, ax, ay, bx, by) <= Rz + r
    fx, fy = f
    sa = (ax - cx) * fx + (ay - cy) * fy
    sb = (bx - cx) * fx + (by - cy) * fy
    ds = sb - sa
    with np.errstate(divide="ignore", invalid="ignore"):
        tz = np.where(ds != 0, -sa / np.where(ds != 0, ds, 1.0), 0.0)
    lo = np.where(ds > 0, np.maximum(tz, 0.0), 0.0)
    hi = np.where(ds < 0, np.minimum(tz, 1.0), 1.0)
    flat_out = (ds == 0) & (sa < 0)
    ok = (lo <= hi) & ~flat_out
    p0x, p0y = ax + lo * (bx - ax), ay + lo * (by - ay)
    p1x, p1y = ax + hi * (bx - ax), ay + hi * (by - ay)
    part1 = ok & (point_segment_distances(cx, cy, p0x, p0y, p1x, p1y) <= Rz + r)
    px, py = -fy, fx
    part2 = segment_distances(ax, ay, bx, by, cx - px * Rz, cy - py * Rz, cx + px * Rz, cy + py * Rz) <= r
    return part1 | part2


# ------------------------------------------------------------------------ shapes
@dataclass
class Shape:
    """An area of base-centre positions (configuration space), inches.

    kind: ``disc`` (centre, radius ``R``), ``poly`` (polygon ``verts`` dilated by ``R``),
    ``zoc`` (half-disc or disc of radius ``Rz`` dilated by ``R``; ``area`` the visible
    part when blockers may shadow it). role: ``block`` (no path may enter), ``end`` (no
    move may end in it), ``diff`` and ``ideal`` (terrain costs). closed: touching counts
    as inside (ZoC, contact with an enemy) rather than only overlapping. ``dist`` and
    ``seg_meets`` take 1-D numpy arrays of coordinates (inches) and answer per point or
    per segment.
    """

    kind: str
    role: str
    closed: bool
    cx: float
    cy: float
    R: float
    element: str
    verts: np.ndarray | None = None
    Rz: float = 0.0
    f: tuple[float, float] | None = None
    area: BaseGeometry | None = None
    area_dil: BaseGeometry | None = None
    br: float = 0.0  # bounding radius of the shape (dilation included) around (cx, cy)

    def dist(self, px, py):
        """Signed clearance of points (negative or, if closed, zero: inside)."""
        if self.kind == "disc":
            return np.hypot(px - self.cx, py - self.cy) - self.R
        if self.kind == "poly":
            return polygon_distances(px, py, self.verts) - self.R
        d = _half_core_dist(px, py, self.cx, self.cy, self.Rz, self.f) - self.R
        if self.area is not None:
            sel = np.flatnonzero(d <= 0)
            if len(sel):
                if self.area.is_empty:
                    d[sel] = 1.0
                else:
                    da = shapely.distance(shapely.points(px[sel], py[sel]), self.area) - self.R - _POLY_MARGIN
                    d[sel] = np.where(da > 0, da, np.minimum(da, d[sel]))
        return d

    def inside(self, d):
        """Which clearances ``d`` (from :meth:`dist`) mean inside the shape."""
        return d <= 0 if self.closed else d < 0

    def seg_meets(self, ax, ay, bx, by):
        """Which segments the swept base meets the shape on."""
        if self.kind == "disc":
            d = point_segment_distances(self.cx, self.cy, ax, ay, bx, by)
            return d <= self.R if self.closed else d < self.R
        if self.kind == "poly":
            d = segment_polygon_distances(ax, ay, bx, by, self.verts)
            return d < self.R
        hit = _seg_meets_half(ax, ay, bx, by, self.cx, self.cy, self.Rz, self.f, self.R)
        if self.area is not None and hit.any():
            sel = np.flatnonzero(hit)
            if self.area.is_empty:
                hit[sel] = False
            else:
                lines = shapely.linestrings(np.stack([np.column_stack([ax[sel], ay[sel]]),
                                                      np.column_stack([bx[sel], by[sel]])], axis=1))
                hit[sel] = shapely.distance(lines, self.area) <= self.R + _POLY_MARGIN
        return hit


def near_zoc_blockers(mover: Mover, E) -> list:
    """Blocking terrain and models that may hide part of ``E``'s ZoC from the mover
    (:meth:`Mover.zoc_shadowers`, as ``Mover.zoc_entry`` selects them; memoised)."""
    memo = mover.memo
    key = ("near", E.id)
    if key not in memo:
        memo[key] = mover.zoc_shadowers(E)
    return memo[key]


def _visible_zoc(mover: Mover, E, near) -> BaseGeometry:
    """The part of ``E``'s ZoC (reach disc in its arc) that no single blocker hides
    from all of E's base: a superset of the exact visible ZoC (shapely, inches)."""
    memo = mover.memo
    key = ("visible", E.id)
    if key not in memo:
        memo[key] = _visible_zoc_uncached(mover, E, near)
    return memo[key]


def visible_zoc_dilated(mover: Mover, E, near) -> BaseGeometry:
    """Base-centre positions at which the mover's base meets the visible part of the
    enemy ``E``'s ZoC (:func:`_visible_zoc`, from the blockers ``near``) dilated by the
    mover's radius (+ ``_POLY_MARGIN``): shapely, inches; memoised per Mover."""
    memo = mover.memo
    key = ("dilated", E.id)
    if key not in memo:
        area = _visible_zoc(mover, E, near)
        memo[key] = area.buffer(mover.r + _POLY_MARGIN, quad_segs=16) if not area.is_empty else Polygon()
    return memo[key]


def _visible_zoc_uncached(mover: Mover, E, near) -> BaseGeometry:
    Rz = E.radius + ZOC_RANGE
    area = SPoint(E.center).buffer(Rz / math.cos(math.pi / 128), quad_segs=32)
    if not E.aware:
        fx, fy = unit_vector(E.facing)
        px, py = -fy, fx
        c = np.asarray(E.center, float)
        R = Rz + 1.0
        area = area.intersection(Polygon([c + (px * R, py * R), c + (px * R + fx * R, py * R + fy * R),
                                          c + (-px * R + fx * R, -py * R + fy * R), c - (px * R, py * R)]))
    for ob in near:
        hidden = umbra(E.center, E.radius, ob, far=Rz + 2.0)
        if hidden is not None and not hidden.is_empty:
            area = area.difference(hidden)
    return area


def _zoc_shape(mover: Mover, e, conservative: bool = False) -> Shape:
    E = mover.scene.bodies[e.id]
    r = mover.r
    if E.blind:
        R = E.radius + r + CONTACT
        return Shape("disc", "block", True, E.center[0], E.center[1], R, e.id, br=R)
    Rz = E.radius + ZOC_RANGE
    f = None if E.aware else unit_vector(E.facing)
    sh = Shape("zoc", "block", True, E.center[0], E.center[1], r, e.id, Rz=Rz, f=f, br=Rz + r)
    if not conservative:
        near = near_zoc_blockers(mover, E)
        if near:
            sh.area = _visible_zoc(mover, E, near)
            sh.area_dil = visible_zoc_dilated(mover, E, near)
    return sh


def _terrain_shape(t, r: float, role: str) -> Shape:
    fp = t.footprint
    R = r - EPS
    if fp.is_circle:
        c = fp.center
        return Shape("disc", role, False, float(c[0]), float(c[1]), float(fp.radius) + R, t.id, br=float(fp.radius) + R)
    (cx, cy), brad = fp.bounding_circle
    return Shape("poly", role, False, float(cx), float(cy), R, t.id, verts=np.asarray(fp.vertices, float),
                  br=float(brad) + R)


def walk_shapes(mover: Mover, conservative: bool = False) -> list[Shape]:
    """Every area that matters to a Walk of ``mover`` (see :class:`Shape`): other bases
    (enemies not already in contact as closed ``block`` discs of contact), Impassable,
    Difficult and Ideal terrain, and the ZoC of every enemy whose ZoC the mover must
    respect. ``conservative``: ZoCs without their shadows (never smaller)."""
    shapes: list[Shape] = []
    r = mover.r
    ghost = mover.ignores_terrain_and_models
    base_role = "end" if ghost else "block"
    enemy_ids = {e.id for e in mover.enemies}
    started = set(mover.start_contacts)
    for m in mover.table.models:
        if m.id == mover.id:
            continue
        x, y = float(m.position[0]), float(m.position[1])
        if m.id in enemy_ids and m.id not in started:
            R = r + m.radius + CONTACT  # Walk p.22: no contact with an enemy (cloudwalk too)
            shapes.append(Shape("disc", "block", True, x, y, R, m.id, br=R))
        else:
            R = r + m.radius - EPS
            shapes.append(Shape("disc", base_role, False, x, y, R, m.id, br=R))
    for t in mover.table.terrain:
        if t.passage is Passage.IMPASSABLE:
            shapes.append(_terrain_shape(t, r, base_role))
        elif ghost:
            continue
        elif t.passage is Passage.DIFFICULT and mover.difficult_factor != 1.0:
            shapes.append(_terrain_shape(t, r, "diff"))
        elif t.passage is Passage.IDEAL:
            shapes.append(_terrain_shape(t, r, "ideal"))
    if not mover.ignores_zoc:
        for e in mover.zoc_enemies:
            shapes.append(_zoc_shape(mover, e, conservative))
    return shapes


# ---------------------------------------------------------------- exact segments
def _zoc_meets(mover: Mover, eid: str, a: Point, b: Point) -> bool:
    """Exact: does the base moving from ``a`` to ``b`` enter ``eid``'s ZoC?
    (the same test as ``Mover.zoc_entry`` without searching for the first point)."""
    E = mover.scene.bodies[eid]
    r = mover.r
    if E.blind:
        iv = disc_interval(a, b, E.center, E.radius + r + CONTACT)
    elif E.aware:
        iv = disc_interval(a, b, E.center, E.radius + ZOC_RANGE + r)
    else:
        iv = half_disc_dilated_interval(a, b, E.center, E.radius + ZOC_RANGE, unit_vector(E.facing), r)
    if iv is None:
        return False
    if E.blind:
        return True
    near = near_zoc_blockers(mover, E)
    if not near:
        return True
    t0, t1 = iv
    p0, p1 = lerp(a, b, t0), lerp(a, b, t1)
    return mover.swept_meets_zoc(E, p0, p1, near)


def segment_ok(mover: Mover, a: Point, b: Point, zoc_ids: Sequence[str]) -> bool:
    """Exact: may the base move straight from ``a`` to ``b`` during a Walk (no base,
    Impassable terrain, table edge, contact with an enemy or ZoC of ``zoc_ids``)?"""
    if not mover.on_table(b):
        return False
    if mover.collisions(a, b):
        return False
    started = set(mover.start_contacts)
    for e in mover.enemies:
        if e.id not in started and disc_interval(a, b, e.position, mover.r + e.radius + CONTACT) is not None:
            return False
    for eid in zoc_ids:
        if _zoc_meets(mover, eid, a, b):
            return False
    return True


# ------------------------------------------------------------- the start position
def immobile(mover: Mover) -> str | None:
    """Why the model cannot Walk or Run at all, or None."""
    if mover.start_contacts and not mover.leaves_contact_freely:
        return (f"{mover.id} is in base contact with enemy {mover.start_contacts[0]}: it may not Walk or Run out "
                f"of BtB (Walk p.22; Disengage p.24, or Agile)")
    return None


def away_dirs(mover: Mover) -> list[tuple[float, float]]:
    """Directions a model starting in enemy ZoC may take first (rulings.md 7): directly
    away from the one enemy; with several, any direction not closer to any of them."""
    s = mover.start
    if len(mover.start_zocs) == 1:
        E = mover.scene.bodies[mover.start_zocs[0]]
        dx, dy = s[0] - E.center[0], s[1] - E.center[1]
        L = math.hypot(dx, dy)
        return [(dx / L, dy / L)] if L > 1e-12 else []
    out = []
    for deg in np.arange(0.0, 360.0, 2.0):
        u = unit_vector(float(deg))
        if all((s[0] - mover.scene.bodies[i].center[0]) * u[0] + (s[1] - mover.scene.bodies[i].center[1]) * u[1] >= 0
               for i in mover.start_zocs):
            out.append(u)
    return out


def ideal_within(mover: Mover, dist: float) -> bool:
    """Can a move of ``dist`` inches from the start bring the base onto Ideal terrain?"""
    if mover.ignores_terrain_and_models:
        return False
    return any(t.passage is Passage.IDEAL and t.footprint.distance_to_point(mover.start) - mover.r < dist
               for t in mover.table.terrain)
