"""Movement planning: the cheapest legal Walk, where a Walk or a Run can end, charge lanes.

Rulebook: Movement and Placement p.22-23 (Move, Walk, Run, Charge), Zone of Control
(Terms and Concepts p.9), Terrain p.60 (Difficult, Ideal, Impassable). Project rulings:
``shared/rulings.md`` section 7. All lengths are inches, all angles degrees
(counter-clockwise from +x, like a model's facing).

Two kinds of answer live here:

* **Verdicts** -- :func:`shortest_walk` plans on a grid, then straightens the path and
  hands it to the exact checker :func:`sim.rules.movement.check_walk`; it only says
  ``legal=True`` when the checker does. :func:`charge_lanes` is
  :func:`sim.rules.movement.plan_charge` for every enemy.
* **Drawing aids** -- :func:`walk_region` and :func:`run_region` are shapely areas at
  grid (Walk) or angular (Run) resolution: where the base centre can end a legal move.
  Their edges may be off by about one grid step (Walk) or one ray gap (Run); the
  verdict for a particular path always comes from the checker.

How the Walk planner works (configuration space):

1. A square grid of base-centre positions, ``resolution`` inches apart, aligned on the
   model's position, covering the disc of radius ``Move + 2 + 2 * resolution``.
2. A node is *free* if the base there is on the table, overlaps no other base and no
   Impassable terrain, is not in the ZoC of an enemy the mover must respect, and is not
   in contact with an enemy (Walk p.22). The ZoC test is closed form (a half-disc of
   radius ``enemy radius + 1"`` dilated by the mover's radius, a full disc for Aware,
   BtB only for Blind); when Blocking terrain or models near the enemy can hide part
   of its ZoC, the visible ZoC is the disc minus the exact umbras of each blocker
   (:func:`sim.geometry.measure.umbra`), which is never smaller than the exact ZoC.
3. Edges join each node to its 16 neighbours (offsets (1,0), (1,1), (2,1) and their
   symmetries); an edge between free nodes is dropped when the straight move between
   them passes through a forbidden area (tested in closed form, vectorised). Its cost
   is its length times the Difficult factor (x2, x4 Unstable, x1 Lightfooted) where
   the base overlaps Difficult terrain. Straight edges from the start to every node it
   sees without obstacles or terrain make open ground exact (no grid zig-zag).
4. Two layers for Ideal terrain: layer 1 is "the path has crossed Ideal terrain" and
   allows ``Move + 2``. ``scipy.sparse.csgraph.dijkstra`` gives every node's cost.
5. A model starting in an enemy's ZoC must first move directly away from it until out
   of every ZoC (rulings.md 7): the graph is then seeded from points on that straight
   leg instead of from the start. After that leg the planner does not let the base
   back into any enemy ZoC, the one it started in included ("may not enter an enemy
   ZoC"); ``check_walk`` itself does not look at that ZoC again.
6. The region is the contour, at zero, of ``min(spare movement, clearance from the
   nearest forbidden area)`` over the grid (``contourpy``, which comes with matplotlib;
   without it, grid cells), so its edges fall between nodes.

How the Run region works: rays from the start ``resolution_deg`` apart over the front
arc (all round for Aware); along each, the legal end distances from the closed forms of
``sim.geometry.motion`` (see :func:`run_region`); where neighbouring rays disagree (an
edge, a shadow, a narrow gap) rays are added half-way, up to five times.

Walk and Run regions and charge lanes for one model are bundled by :func:`reach`;
``benchmarks/movement_bench.py`` times the three (about 20-110 ms CPU together per
model on the default and on a crowded table).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Point as SPoint, Polygon
from shapely.geometry.base import BaseGeometry

from sim.geometry import CONTACT, EPS, ZOC_RANGE, Passage
from sim.geometry.measure import umbra
from sim.geometry.motion import (
    budget_fraction,
    disc_interval,
    footprint_intervals,
    footprint_ray_intervals,
    half_disc_dilated_interval,
    merge,
    subtract,
)
from sim.geometry.primitives import (
    point_segment_distances,
    polygon_distances,
    segment_distances,
    segment_polygon_distances,
    unit_vector,
    wrap_angle,
)
from sim.rules.movement import (
    IDEAL_BONUS,
    MoveError,  # noqa: F401  (raised by the functions here, via Mover)
    MoveResult,
    Mover,
    Reason,
    check_walk,
    plan_charge,
)

Point = tuple[float, float]

__all__ = ["Reach", "charge_lanes", "reach", "run_region", "shortest_walk", "walk_region"]

#: Ruling cited by the planner's own reasons.
RULING = "Walk p.22 (Movement p.22-23); rulings.md 7"
#: Extra distance (inches) kept from the edge of an area approximated by polygons (the
#: visible part of a shadowed ZoC): polygons inscribed in circles err by less.
_POLY_MARGIN = 0.005
#: A Run end is kept this far (inches) short of a closed limit (ZoC, contact with an enemy).
_RUN_BACKOFF = 1e-4

# half of the 16-neighbourhood; each edge is added in both directions
_OFFSETS = ((1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1), (1, -2))
#: all 16 neighbour offsets: entry ``k + 8`` is the opposite of entry ``k``
_OFFSETS16 = _OFFSETS + tuple((-di, -dj) for di, dj in _OFFSETS)
_LEN16 = np.array([math.hypot(di, dj) for di, dj in _OFFSETS16])


# =========================================================================== vector geometry
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


# =========================================================================== shapes
@dataclass
class _Shape:
    """An area of base-centre positions (configuration space), inches.

    kind: ``disc`` (centre, radius ``R``), ``poly`` (polygon ``verts`` dilated by ``R``),
    ``zoc`` (half-disc or disc of radius ``Rz`` dilated by ``R``; ``area`` the visible
    part when blockers may shadow it). role: ``block`` (no path may enter), ``end`` (no
    move may end in it), ``diff`` and ``ideal`` (terrain costs). closed: touching counts
    as inside (ZoC, contact with an enemy) rather than only overlapping.
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


def _near_zoc_blockers(mover: Mover, E) -> list:
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


def _visible_zoc_dilated(mover: Mover, E, near) -> BaseGeometry:
    """:func:`_visible_zoc` dilated by the mover's radius (+ ``_POLY_MARGIN``)."""
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


def _zoc_shape(mover: Mover, e, conservative: bool = False) -> _Shape:
    E = mover.scene.bodies[e.id]
    r = mover.r
    if E.blind:
        R = E.radius + r + CONTACT
        return _Shape("disc", "block", True, E.center[0], E.center[1], R, e.id, br=R)
    Rz = E.radius + ZOC_RANGE
    f = None if E.aware else unit_vector(E.facing)
    sh = _Shape("zoc", "block", True, E.center[0], E.center[1], r, e.id, Rz=Rz, f=f, br=Rz + r)
    if not conservative:
        near = _near_zoc_blockers(mover, E)
        if near:
            sh.area = _visible_zoc(mover, E, near)
            sh.area_dil = _visible_zoc_dilated(mover, E, near)
    return sh


def _terrain_shape(t, r: float, role: str) -> _Shape:
    fp = t.footprint
    R = r - EPS
    if fp.is_circle:
        c = fp.center
        return _Shape("disc", role, False, float(c[0]), float(c[1]), float(fp.radius) + R, t.id, br=float(fp.radius) + R)
    (cx, cy), brad = fp.bounding_circle
    return _Shape("poly", role, False, float(cx), float(cy), R, t.id, verts=np.asarray(fp.vertices, float),
                  br=float(brad) + R)


def _shapes(mover: Mover, conservative: bool = False) -> list[_Shape]:
    """Every area that matters to a Walk of ``mover`` (see :class:`_Shape`)."""
    shapes: list[_Shape] = []
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
            shapes.append(_Shape("disc", "block", True, x, y, R, m.id, br=R))
        else:
            R = r + m.radius - EPS
            shapes.append(_Shape("disc", base_role, False, x, y, R, m.id, br=R))
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


# =========================================================================== exact segments
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
    near = _near_zoc_blockers(mover, E)
    if not near:
        return True
    t0, t1 = iv
    p0 = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
    p1 = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
    return mover.swept_meets_zoc(E, p0, p1, near)


def _segment_ok(mover: Mover, a: Point, b: Point, zoc_ids: Sequence[str]) -> bool:
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


# =========================================================================== the graph
@dataclass
class _Plan:
    """The solved grid for one Walk (see the module docstring)."""

    mover: Mover
    h: float
    K: int
    X: np.ndarray  # (N,) node x, inches
    Y: np.ndarray
    I: np.ndarray  # (N,) grid column offset from the start
    J: np.ndarray
    idx: np.ndarray  # (2K+1, 2K+1) node index or -1
    passable: np.ndarray
    endable: np.ndarray
    clear: np.ndarray  # signed clearance to the nearest forbidden end area
    layered: bool
    dist: np.ndarray  # (graph nodes,) costs from the source
    pred: np.ndarray | None
    source: int
    seeds: list[tuple[Point, float, bool]]  # (point, cost of the away leg, crossed Ideal)
    seed_of: dict[int, int]  # graph node -> seed index (edges from the source)
    away: LineString | None  # the directly-away leg (model starting in ZoC)
    shapes: list[_Shape]
    graph: object = None  # the CSR graph (scipy.sparse)
    note: str = ""

    @property
    def N(self) -> int:
        return len(self.X)

    def slack(self) -> np.ndarray:
        """Inches to spare at each node (negative or -inf: not reachable)."""
        M = self.mover.move
        d0 = self.dist[: self.N]
        s = M - d0
        if self.layered:
            s = np.maximum(s, M + IDEAL_BONUS - self.dist[self.N: 2 * self.N])
        return s

    def point(self, g: int) -> Point:
        n = g % self.N if g < (2 if self.layered else 1) * self.N else -1
        return (float(self.X[n]), float(self.Y[n]))


def _away_dirs(mover: Mover) -> list[tuple[float, float]]:
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


def _zoc_exit(mover: Mover, u, length: float) -> float:
    """Distance along ``u`` from the start at which the base is out of every ZoC it
    starts in (closed form of the shadow-free ZoC, then the exact test)."""
    a = mover.start
    b = (a[0] + u[0] * length, a[1] + u[1] * length)
    out = 0.0
    for eid in mover.start_zocs:
        iv = mover.zoc_bound(eid, a, b)
        if iv is not None:
            out = max(out, iv[1] * length + 10 * EPS)
    p = (a[0] + u[0] * out, a[1] + u[1] * out)
    if any(mover.in_zoc_at(eid, p) for eid in mover.start_zocs):
        return math.inf
    return out


def _immobile(mover: Mover) -> str | None:
    """Why the model cannot Walk or Run at all, or None."""
    if mover.start_contacts and not mover.leaves_contact_freely:
        return (f"{mover.id} is in base contact with enemy {mover.start_contacts[0]}: it may not Walk or Run out "
                f"of BtB (Walk p.22; Disengage p.24, or Agile)")
    return None


def _solve(mover: Mover, resolution: float, want_pred: bool, conservative: bool = False) -> _Plan:
    """Build the Walk graph of ``mover`` on a grid ``resolution`` inches apart and run
    Dijkstra from its start (module docstring, steps 1-5). ``conservative``: treat every
    ZoC as if nothing shadowed it (a fallback when a plan fails the exact check).

    Raises:
        ValueError: ``resolution`` not a positive number.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    if not (resolution > 0 and math.isfinite(resolution)):
        raise ValueError(f"resolution must be a positive number of inches, not {resolution!r}")
    h = float(resolution)
    M = mover.move
    sx, sy = mover.start
    r = mover.r
    shapes = _shapes(mover, conservative)
    # the +2" of Ideal terrain only if some Ideal piece is within Move of the start
    ideal_shapes = [s for s in shapes if s.role == "ideal" and math.hypot(s.cx - sx, s.cy - sy) - s.br <= M]
    layered = bool(ideal_shapes)
    reach_max = M + (IDEAL_BONUS if layered else 0.0)
    Rg = reach_max + 2 * h
    K = int(math.ceil(Rg / h))
    ar = np.arange(-K, K + 1)
    II, JJ = np.meshgrid(ar, ar, indexing="ij")
    XX, YY = sx + II * h, sy + JJ * h
    W, D = mover.table.width, mover.table.depth
    mask = ((II * II + JJ * JJ) * (h * h) <= Rg * Rg) & (XX >= r - EPS) & (XX <= W - r + EPS) \
        & (YY >= r - EPS) & (YY <= D - r + EPS)
    idx = np.full(II.shape, -1, dtype=np.int64)
    N = int(mask.sum())
    idx[mask] = np.arange(N)
    X, Y, I, J = XX[mask], YY[mask], II[mask], JJ[mask]
    start_node = int(idx[K, K])

    # ---------------------------------------------------------------- nodes
    Lmax = h * math.sqrt(5.0)
    n1 = 2 * K + 1
    clear = np.minimum(np.minimum(X - r, W - r - X), np.minimum(Y - r, D - r - Y))
    passable = np.ones(N, dtype=bool)
    endable = np.ones(N, dtype=bool)
    diff_n = np.zeros(N, dtype=bool)
    ideal_n = np.zeros(N, dtype=bool)
    subsets: list[tuple[_Shape, np.ndarray, np.ndarray]] = []  # (shape, nodes near it, their clearance)
    for s in shapes:
        reach_s = s.br + Lmax
        if math.hypot(s.cx - sx, s.cy - sy) - reach_s > Rg:
            continue
        i0 = max(0, int(math.floor((s.cx - reach_s - sx) / h)) + K)
        i1 = min(n1, int(math.ceil((s.cx + reach_s - sx) / h)) + K + 1)
        j0 = max(0, int(math.floor((s.cy - reach_s - sy) / h)) + K)
        j1 = min(n1, int(math.ceil((s.cy + reach_s - sy) / h)) + K + 1)
        if i0 >= i1 or j0 >= j1:
            continue
        sel = idx[i0:i1, j0:j1].ravel()
        sel = sel[sel >= 0]
        sel = sel[np.hypot(X[sel] - s.cx, Y[sel] - s.cy) <= reach_s]
        if not len(sel):
            continue
        d = s.dist(X[sel], Y[sel])
        ins = s.inside(d)
        if s.role == "block":
            passable[sel[ins]] = False
            clear[sel] = np.minimum(clear[sel], d)
        elif s.role == "end":
            endable[sel[ins]] = False
            clear[sel] = np.minimum(clear[sel], d)
        elif s.role == "diff":
            diff_n[sel[ins]] = True
        else:
            ideal_n[sel[ins]] = True
        subsets.append((s, sel, d))
    if start_node >= 0:
        passable[start_node] = True  # the model stands there legally
    endable &= passable

    # ---------------------------------------------------------------- grid edges
    # nb[n, k]: the neighbour of node n at offset k (-1: none); k + 8 mod 16 is the opposite
    pad = np.full((n1 + 4, n1 + 4), -1, dtype=np.int64)
    pad[2:-2, 2:-2] = idx
    nb = np.empty((N, 16), dtype=np.int64)
    for k, (di, dj) in enumerate(_OFFSETS16):
        nb[:, k] = pad[I + K + 2 + di, J + K + 2 + dj]
    has = nb >= 0
    nbc = np.where(has, nb, 0)
    valid = has & passable[:, None] & passable[nbc]
    cross = (ideal_n[:, None] | ideal_n[nbc]) if layered else None
    # an edge between free nodes may still clip a forbidden area (or Ideal terrain)
    # only if one of its ends is within half its length of it
    for s, sel, d in subsets:
        if s.role not in ("block", "ideal") or (s.role == "ideal" and not layered):
            continue
        near = sel[d < Lmax / 2 + 1e-9]
        if not len(near):
            continue
        un, kk = np.nonzero(valid[near] if s.role == "block" else (valid[near] & ~cross[near]))
        if not len(un):
            continue
        u = near[un]
        v = nb[u, kk]
        hit = s.seg_meets(X[u], Y[u], X[v], Y[v])
        u, v, kk = u[hit], v[hit], kk[hit]
        if s.role == "block":
            valid[u, kk] = False
            valid[v, (kk + 8) % 16] = False
        else:
            cross[u, kk] = True
            cross[v, (kk + 8) % 16] = True
    f = mover.difficult_factor
    if diff_n.any():
        dn = diff_n.astype(float)
        w = (_LEN16 * h)[None, :] * (1.0 + (f - 1.0) * (dn[:, None] + dn[nbc]) / 2.0)
    else:
        w = np.broadcast_to((_LEN16 * h)[None, :], (N, 16))

    # ---------------------------------------------------------------- graph (CSR, row by row)
    nl = 2 if layered else 1
    S = nl * N  # virtual source
    counts_row = valid.sum(axis=1)
    wv = w[valid]
    if layered:
        blocks_idx = [(nb + N * cross)[valid], nb[valid] + N]
        blocks_w = [wv, wv]
        blocks_n = [counts_row, counts_row]
    else:
        blocks_idx = [nb[valid]]
        blocks_w = [wv]
        blocks_n = [counts_row]
    src_cols: list[np.ndarray] = []
    src_w: list[np.ndarray] = []

    seeds: list[tuple[Point, float, bool]] = []
    seed_of: dict[int, int] = {}
    away = None
    note = ""
    start_zoc = bool(mover.start_zocs) and not mover.ignores_zoc
    if not start_zoc:
        if start_node >= 0:
            src_cols.append(np.array([start_node + (N if layered and ideal_n[start_node] else 0)]))
            src_w.append(np.array([0.0]))
            # straight moves from the start to every node it reaches without obstacles or terrain
            sn, sl, sc = _straight_edges(mover, X, Y, passable, [q[0] for q in subsets], reach_max)
            src_cols.append(sn + N * sc if layered else sn)
            src_w.append(sl)
    else:
        far_pts = []
        ray_ctx = _ray_context(mover, los=False, max_len=reach_max)
        for u in _away_dirs(mover):
            lim = _ray_walk_limit(mover, u, reach_max, ray_ctx)
            if lim <= 0:
                continue
            far_pts.append((sx + u[0] * lim, sy + u[1] * lim))
            t_exit = _zoc_exit(mover, u, lim + 1.0)
            if t_exit > lim:
                continue
            cost_at = _ray_cost(mover, u, lim)
            n_seed = max(1, int(math.floor((lim - t_exit) / h)) + 1)
            for k in range(n_seed + 1):
                tt = min(lim, t_exit + k * h)
                p = (sx + u[0] * tt, sy + u[1] * tt)
                c, crossed = cost_at(tt)
                if c > reach_max + EPS:
                    break
                if c > M + EPS and not crossed:
                    continue  # too dear unless Ideal terrain comes later on the leg
                seeds.append((p, c, crossed))
        if seeds:
            sc, sn = _seed_edges(seeds, plan_grid=(sx, sy, h, K, idx), X=X, Y=Y, passable=passable,
                                 shapes=[q[0] for q in subsets if q[0].role == "block"])
            if len(sc):
                P = np.array([q[0] for q in seeds])
                C = np.array([q[1] for q in seeds])
                CR = np.array([q[2] for q in seeds], dtype=bool)
                cc = C[sc] + np.hypot(X[sn] - P[sc, 0], Y[sn] - P[sc, 1]) * np.where(diff_n[sn], f, 1.0)
                g = sn + (N * (CR[sc] | ideal_n[sn]) if layered else 0)
                order = np.lexsort((cc, g))
                g, cc, sc = g[order], cc[order], sc[order]
                first = np.concatenate([[True], g[1:] != g[:-1]])
                src_cols.append(g[first])
                src_w.append(cc[first])
                seed_of = dict(zip(g[first].tolist(), sc[first].tolist()))
        if far_pts:
            if len(far_pts) == 1:
                away = LineString([mover.start, far_pts[0]])
            else:
                away = shapely.union_all([LineString([mover.start, q]) for q in far_pts])
        note = f"starts in the ZoC of {', '.join(mover.start_zocs)}: moves directly away first"
    indices, data, counts = list(blocks_idx), list(blocks_w), list(blocks_n)
    if src_cols:
        indices.append(np.concatenate(src_cols))
        data.append(np.concatenate(src_w))
        counts.append(np.array([len(indices[-1])]))
    else:
        counts.append(np.array([0]))
    indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))])
    n_graph = S + 1
    G = csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=(n_graph, n_graph))
    res = dijkstra(G, directed=True, indices=S, limit=reach_max + 1e-9, return_predecessors=want_pred)
    dist, pred = (res if want_pred else (res, None))
    return _Plan(mover, h, K, X, Y, I, J, idx, passable, endable, clear, layered, dist, pred, S, seeds, seed_of,
                 away, shapes, G, note)


def _ray_cost(mover: Mover, u, length: float):
    """``d -> (cost, crossed Ideal)`` of the straight move from the start ``d`` inches
    along ``u`` (``d <= length``), as ``Mover.segment_cost`` counts it."""
    a = mover.start
    b = (a[0] + u[0] * length, a[1] + u[1] * length)
    if mover.ignores_terrain_and_models or length <= 0:
        return lambda d: (d, False)
    diff, t_ideal = [], math.inf
    for t in mover.table.terrain:
        if t.passage is Passage.DIFFICULT and mover.difficult_factor != 1.0:
            diff.extend(footprint_intervals(a, b, t.footprint, mover.r))
        elif t.passage is Passage.IDEAL:
            ivs = footprint_intervals(a, b, t.footprint, mover.r)
            if ivs:
                t_ideal = min(t_ideal, ivs[0][0])
    ivs = merge(diff)
    extra = mover.difficult_factor - 1.0

    def cost(d: float):
        t = d / length
        covered = sum(max(0.0, min(t1, t) - t0) for t0, t1 in ivs)
        return d + extra * covered * length, t >= t_ideal

    return cost


def _seed_edges(seeds, plan_grid, X, Y, passable, shapes):
    """Edges from the seed points (off the grid) to the free grid nodes around them
    whose straight segment meets no forbidden area: ``(seed indices, nodes)``."""
    sx, sy, h, K, idx = plan_grid
    n1 = 2 * K + 1
    P = np.array([q[0] for q in seeds])
    ci = np.rint((P[:, 0] - sx) / h).astype(np.int64) + K
    cj = np.rint((P[:, 1] - sy) / h).astype(np.int64) + K
    pad = np.full((n1 + 2, n1 + 2), -1, dtype=np.int64)
    pad[1:-1, 1:-1] = idx
    win = np.stack([pad[np.clip(ci + di, -1, n1) + 1, np.clip(cj + dj, -1, n1) + 1]
                    for di in (-1, 0, 1) for dj in (-1, 0, 1)], axis=1)
    sc = np.repeat(np.arange(len(seeds)), 9)
    sn = win.ravel()
    keep = sn >= 0
    sc, sn = sc[keep], sn[keep]
    keep = passable[sn]
    sc, sn = sc[keep], sn[keep]
    ax, ay = P[sc, 0], P[sc, 1]
    ok = np.ones(len(sc), dtype=bool)
    for s in shapes:
        near = np.hypot(X[sn] - s.cx, Y[sn] - s.cy) <= s.br + 3 * h
        sel = np.flatnonzero(near & ok)
        if len(sel):
            ok[sel] &= ~s.seg_meets(ax[sel], ay[sel], X[sn[sel]], Y[sn[sel]])
    return sc[ok], sn[ok]


def _straight_edges(mover: Mover, X, Y, passable, shapes, reach_max):
    """Nodes the start reaches in a straight line through no forbidden area and no
    Difficult terrain: ``(nodes, lengths, crosses Ideal terrain)``. Each shape is tested
    only against the nodes in its angular span seen from the start (nodes sorted by
    angle)."""
    sx, sy = mover.start
    dx, dy = X - sx, Y - sy
    dd = np.hypot(dx, dy)
    cand = np.flatnonzero(passable & (dd <= reach_max) & (dd > 0))
    th = np.arctan2(dy[cand], dx[cand])
    order = np.argsort(th)
    cand, th = cand[order], th[order]
    ok = np.ones(len(cand), dtype=bool)
    ideal = np.zeros(len(cand), dtype=bool)
    two_pi = 2 * math.pi
    for s in shapes:
        if s.role == "end":
            continue
        c = math.hypot(s.cx - sx, s.cy - sy)
        if c > s.br + 1e-9:
            half = math.asin(min(1.0, s.br / c)) + 1e-9
            phi = math.atan2(s.cy - sy, s.cx - sx)
            lo, hi = phi - half, phi + half
            parts = []
            for off in (-two_pi, 0.0, two_pi):
                a0, a1 = np.searchsorted(th, [lo + off, hi + off])
                if a1 > a0:
                    parts.append(np.arange(a0, a1))
            if not parts:
                continue
            sub = np.concatenate(parts)
            sub = sub[ok[sub] & (dd[cand[sub]] >= c - s.br - 1e-9)]
        else:
            sub = np.flatnonzero(ok)
        if not len(sub):
            continue
        n = cand[sub]
        area, s.area = s.area, None  # the shadow-free ZoC: conservative and closed form
        try:
            hit = s.seg_meets(np.full(len(n), sx), np.full(len(n), sy), X[n], Y[n])
        finally:
            s.area = area
        if s.role == "ideal":
            ideal[sub[hit]] = True
        else:
            ok[sub[hit]] = False
    n = cand[ok]
    return n, dd[n], ideal[ok]


def _ray_walk_limit(mover: Mover, u, max_len: float, ctx: dict | None = None) -> float:
    """How far (inches) the base may Walk straight along ``u`` from the start (used for
    the directly-away leg): stops at bases, Impassable terrain, the table edge,
    contact with an enemy, another enemy's ZoC, and the Move allowance."""
    ivs = _ray_intervals(mover, u, max_len, mover.move, los=False, zoc_skip=set(mover.start_zocs), ctx=ctx)
    return ivs[-1][1] if ivs else 0.0


# =========================================================================== rays (Run)
def _ray_intervals(mover: Mover, u, max_len: float, allowance: float, los: bool,
                   zoc_skip: set[str] = frozenset(), ctx: dict | None = None,
                   sel: dict | None = None) -> list[tuple[float, float]]:
    """Distances (inches, as ``[(d0, d1), ...]``) along the ray from the start in unit
    direction ``u`` at which a straight move may legally end: stops at bases and
    Impassable terrain (touching is allowed), at the table edge, before contact with an
    enemy and before entering an enemy ZoC; cost within ``allowance`` (+2 once past
    Ideal terrain); with ``los``, the end must be in the model's LoS. Exact closed forms
    (``sim.geometry.motion``) except where noted in :func:`run_region`. ``sel``: the
    items of ``ctx`` whose angular span holds the ray (computed here if None)."""
    ctx = ctx if ctx is not None else _ray_context(mover, los, max_len)
    a = mover.start
    Lr = max_len
    b = (a[0] + u[0] * Lr, a[1] + u[1] * Lr)
    if sel is None:
        theta = math.atan2(u[1], u[0])
        sel = {cat: [it for it in ctx[cat] if _in_span(theta, it[1])] for cat in _CATS}

    pre = sel.get("pre")

    def fp_ivs(piece):
        if pre is not None and piece.id in pre:
            return pre[piece.id]
        return footprint_intervals(a, b, piece.footprint, mover.r)

    hard = 1.0  # legal up to and including
    strict = math.inf  # legal strictly before
    te = mover.edge_stop(a, b)
    if te is not None:
        hard = min(hard, te)
    gaps: list[tuple[float, float]] = []  # open intervals of t where the move may not end
    for kind, span, obj in sel["items"]:
        if kind == "base":
            m, R = obj
            iv = disc_interval(a, b, m.position, R)
            if iv is not None and iv[1] - iv[0] > 1e-12:
                if ctx["ghost"]:
                    gaps.append(iv)
                else:
                    hard = min(hard, iv[0])
        elif kind == "contact":
            m, R = obj
            iv = disc_interval(a, b, m.position, R)
            if iv is not None:
                strict = min(strict, iv[0])
        elif kind == "impassable":
            t_obj, bc, bR = obj
            biv = disc_interval(a, b, bc, bR)
            if biv is None or (not ctx["ghost"] and biv[0] >= hard):
                continue
            ivs = [iv for iv in fp_ivs(t_obj) if iv[1] - iv[0] > 1e-12]
            if ivs:
                if ctx["ghost"]:
                    gaps.extend(ivs)
                else:
                    hard = min(hard, ivs[0][0])
        elif kind == "zoc" and obj[0].id not in zoc_skip:
            E, area_dil = obj
            iv = mover.zoc_bound(E.id, a, b)
            if iv is None or iv[0] >= min(hard, strict):
                continue
            if area_dil is None:
                strict = min(strict, iv[0])
            else:
                t_hi = min(iv[1], hard, strict)
                seg = LineString([(a[0] + (b[0] - a[0]) * iv[0], a[1] + (b[1] - a[1]) * iv[0]),
                                  (a[0] + (b[0] - a[0]) * t_hi, a[1] + (b[1] - a[1]) * t_hi)])
                inter = seg.intersection(area_dil)
                if not inter.is_empty:
                    coords = shapely.get_coordinates(inter)
                    proj = ((coords[:, 0] - a[0]) * u[0] + (coords[:, 1] - a[1]) * u[1]) / Lr
                    strict = min(strict, float(proj.min()))
    limit = min(hard, strict - _RUN_BACKOFF / Lr)
    if limit < 0:
        return []
    # movement allowance (Difficult x2/x4, +2" once the path has crossed Ideal terrain)
    def reachable(obj) -> bool:  # the bounding circle is met before the limit
        biv = disc_interval(a, b, obj[1], obj[2])
        return biv is not None and biv[0] < limit

    if ctx["ghost"] or mover.difficult_factor == 1.0 or not sel["diff"]:
        diff_ivs = []
    else:
        diff_ivs = merge(iv for _, _, obj in sel["diff"] if reachable(obj)
                         for iv in fp_ivs(obj[0]))
    tb1 = _ray_budget(diff_ivs, Lr, mover.difficult_factor, allowance)
    pieces = [(0.0, min(limit, tb1))]
    if sel["ideal"] and not ctx["ghost"]:
        ti = math.inf
        for _, _, obj in sel["ideal"]:
            if not reachable(obj):
                continue
            ivs = fp_ivs(obj[0])
            if ivs:
                ti = min(ti, ivs[0][0])
        if ti <= tb1:
            pieces = [(0.0, min(limit, _ray_budget(diff_ivs, Lr, mover.difficult_factor, allowance + IDEAL_BONUS)))]
        elif ti < limit:
            tb2 = _ray_budget(diff_ivs, Lr, mover.difficult_factor, allowance + IDEAL_BONUS)
            if tb2 > ti:
                pieces.append((ti + 1e-9, min(limit, tb2)))
    # LoS to the end point (approximate shadows, then an exact check of the far end)
    if los:
        for kind, span, (ob, umbra) in sel["blockers"]:
            tmax = max(p[1] for p in pieces)
            if not ob.crosses_one(a[0], a[1], a[0] + (b[0] - a[0]) * tmax, a[1] + (b[1] - a[1]) * tmax):
                continue
            inter = LineString([a, b]).intersection(umbra)
            for g in getattr(inter, "geoms", [inter]):
                if g.is_empty:
                    continue
                c = shapely.get_coordinates(g)
                proj = ((c[:, 0] - a[0]) * u[0] + (c[:, 1] - a[1]) * u[1]) / Lr
                gaps.append((float(proj.min()) - 1e-3 / Lr, float(proj.max()) + 1e-3 / Lr))
    out = subtract(pieces, gaps)
    out = [(t0 * Lr, t1 * Lr) for t0, t1 in out if t1 >= t0]
    if los and sel["blockers"] and out:
        # exact check of the far end; walk back in small steps if it is hidden
        scene, mid = mover.scene, mover.id
        while out:
            d0, d1 = out[-1]
            p = (a[0] + u[0] * d1, a[1] + u[1] * d1)
            if d1 <= 0 or scene.los_to_point(mid, p).visible:
                break
            if d1 - 0.05 <= d0:
                out.pop()
            else:
                out[-1] = (d0, d1 - 0.05)
    return out


_CATS = ("items", "ideal", "diff", "blockers")


def _precompute_rays(mover: Mover, ctx: dict, dirs, max_len: float) -> list[dict]:
    """Per ray, ``{piece id: [interval]}`` of every convex terrain piece in ``ctx`` (the
    vectorised form of ``footprint_intervals``)."""
    a = mover.start
    D = np.asarray(dirs, float) * max_len
    out = [dict() for _ in range(len(D))]
    for cat in ("items", "diff", "ideal"):
        for kind, _, obj in ctx[cat]:
            if kind not in ("impassable", "diff", "ideal") or not obj[0].footprint.convex:
                continue
            lo, hi = footprint_ray_intervals(a, D, obj[0].footprint, mover.r)
            tid = obj[0].id
            for k in np.flatnonzero(lo <= hi).tolist():
                out[k][tid] = [(float(lo[k]), float(hi[k]))]
            for k in np.flatnonzero(lo > hi).tolist():
                out[k][tid] = []
    return out


def _in_span(theta: float, span) -> bool:
    if span is None:
        return True
    phi, half = span
    return abs(wrap_angle(theta - phi)) <= half


def _select_many(ctx: dict, thetas: np.ndarray) -> list[dict]:
    """For each ray angle (radians), the items of ``ctx`` whose span holds it."""
    out = [{cat: [] for cat in _CATS} for _ in range(len(thetas))]
    for cat in _CATS:
        for it in ctx[cat]:
            span = it[1]
            if span is None:
                hit = range(len(thetas))
            else:
                phi, half = span
                rel = np.abs(wrap_angle(thetas - phi))
                hit = np.flatnonzero(rel <= half).tolist()
            for k in hit:
                out[k][cat].append(it)
    return out


def _ray_budget(diff_ivs, L: float, factor: float, budget: float) -> float:
    """Largest ``t`` in [0, 1] with cost(start -> p(t)) <= budget on a ray of length
    ``L`` whose base overlaps Difficult terrain on ``diff_ivs`` (merged ``t``
    intervals), as a Charge counts it (:func:`sim.geometry.motion.budget_fraction`)."""
    if L <= 0:
        return 1.0
    if not diff_ivs or factor == 1.0:
        return min(1.0, budget / L)
    return budget_fraction(diff_ivs, L, factor, budget)


def _rays_differ(A, B, tol: float = 0.1) -> bool:
    """Do two neighbouring rays' legal intervals (inches) differ by more than ``tol``?"""
    if len(A) != len(B):
        return True
    return any(abs(a0 - b0) > tol or abs(a1 - b1) > tol for (a0, a1), (b0, b1) in zip(A, B))


def _span(a: Point, c, rad: float):
    """Angular span ``(phi, half-width)`` radians of a disc seen from ``a``; None: all."""
    dx, dy = c[0] - a[0], c[1] - a[1]
    d = math.hypot(dx, dy)
    if d <= rad + 1e-9:
        return None
    return (math.atan2(dy, dx), math.asin(rad / d) + 1e-9)


def _ray_context(mover: Mover, los: bool, max_len: float = math.inf) -> dict:
    """What a ray from the start may meet, each with its angular span from the start."""
    a = mover.start
    r = mover.r
    ghost = mover.ignores_terrain_and_models
    items = []
    enemy_ids = {e.id for e in mover.enemies}
    started = set(mover.start_contacts)

    def far(c, rad) -> bool:
        return math.dist(a, c) - rad > max_len

    for m in mover.table.models:
        if m.id == mover.id:
            continue
        if m.id in enemy_ids and m.id not in started:
            R = r + m.radius + CONTACT
            if not far(m.position, R):
                items.append(("contact", _span(a, m.position, R), (m, R)))
        else:
            R = r + m.radius - EPS
            if not far(m.position, R):
                items.append(("base", _span(a, m.position, R), (m, R)))
    ideal, diff = [], []
    for t in mover.table.terrain:
        (cx, cy), brad = t.footprint.bounding_circle
        R = float(brad) + r
        if far((cx, cy), R):
            continue
        obj = (t, (float(cx), float(cy)), R)
        if t.passage is Passage.IMPASSABLE:
            items.append(("impassable", _span(a, (cx, cy), R), obj))
        elif t.passage is Passage.IDEAL:
            ideal.append(("ideal", _span(a, (cx, cy), R), obj))
        elif t.passage is Passage.DIFFICULT:
            diff.append(("diff", _span(a, (cx, cy), R), obj))
    if not mover.ignores_zoc:
        for e in mover.zoc_enemies:
            E = mover.scene.bodies[e.id]
            Rz = E.radius + ZOC_RANGE + r
            if far(E.center, Rz):
                continue
            area_dil = None
            if not E.blind:
                near = _near_zoc_blockers(mover, E)
                if near:
                    area_dil = _visible_zoc_dilated(mover, E, near)
            items.append(("zoc", _span(a, E.center, Rz), (E, area_dil)))
    blockers = []
    if los:
        body = mover.body
        threshold = max(body.size, mover.scene.enhancing_size(body))
        impassable = {t.id for t in mover.table.terrain if t.passage is Passage.IMPASSABLE}
        model_ids = {m.id for m in mover.table.models}
        for ob in mover.scene.blockers(threshold, (mover.id,)):
            if not ghost and (ob.key in impassable or ob.key in model_ids):
                continue  # the base stops against it before its centre line reaches it
            if far(ob.center, ob.radius):
                continue
            hidden = umbra(a, r, ob, far=(max_len if math.isfinite(max_len) else 40.0) + 1.0)
            if hidden is None or hidden.is_empty:
                continue
            blockers.append(("blocker", _span(a, ob.center, ob.radius), (ob, hidden)))
    return {"items": items, "ideal": ideal, "diff": diff, "ghost": ghost, "blockers": blockers}


# =========================================================================== public API
def _region_from_plan(plan: _Plan) -> BaseGeometry:
    """The reachable area of a solved grid as shapely geometry (contour of the slack
    and clearance fields at 0, so edges fall between grid nodes)."""
    h, K = plan.h, plan.K
    slack = plan.slack()
    slack = np.where(np.isfinite(slack), slack, -h)
    fld = np.minimum(slack, plan.clear)
    fld = np.where(plan.endable, fld, np.minimum(fld, -h * 0.5))
    fld = np.maximum(fld, -h)
    n1 = 2 * K + 1
    Z = np.full((n1, n1), -h)
    Z[plan.I + K, plan.J + K] = fld
    sx, sy = plan.mover.start
    xs = sx + np.arange(-K, K + 1) * h
    ys = sy + np.arange(-K, K + 1) * h
    geom = _filled_contour(xs, ys, Z)
    if plan.away is not None:
        if geom.is_empty:
            return plan.away
        rest = plan.away.difference(geom)
        lines = [q for q in getattr(rest, "geoms", [rest]) if isinstance(q, LineString) and q.length > 0]
        if lines:
            polys = list(getattr(geom, "geoms", [geom]))
            geom = shapely.GeometryCollection(polys + lines)
    return geom


def _filled_contour(xs, ys, Z) -> BaseGeometry:
    """Area where ``Z > 0`` (``Z[i, j]`` at ``(xs[i], ys[j])``)."""
    try:
        import contourpy
    except ImportError:  # pragma: no cover - contourpy comes with matplotlib
        contourpy = None
    if contourpy is not None and Z.max() > 0:
        XX, YY = np.meshgrid(xs, ys, indexing="ij")
        cg = contourpy.contour_generator(XX, YY, Z, fill_type="OuterOffset")
        pts_list, offs_list = cg.filled(0.0, float(Z.max()) + 1.0)
        polys = []
        for pts, offs in zip(pts_list, offs_list):
            rings = [pts[offs[k]: offs[k + 1]] for k in range(len(offs) - 1)]
            rings = [rg for rg in rings if len(rg) >= 4]
            if rings:
                polys.append(Polygon(rings[0], rings[1:]))
        parts = []
        for p in polys:
            g = p if p.is_valid else shapely.make_valid(p)
            parts.extend(q for q in getattr(g, "geoms", [g]) if isinstance(q, Polygon) and q.area > 0)
        return shapely.union_all(parts) if parts else Polygon()
    # fallback: horizontal strips of grid cells
    h = xs[1] - xs[0] if len(xs) > 1 else 1.0
    boxes = []
    for j, y in enumerate(ys):
        row = Z[:, j] > 0
        if not row.any():
            continue
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(int), [0]])))
        for i0, i1 in zip(edges[::2], edges[1::2]):
            boxes.append(shapely.box(xs[i0] - h / 2, y - h / 2, xs[i1 - 1] + h / 2, y + h / 2))
    return shapely.union_all(boxes) if boxes else Polygon()


def walk_region(table, model_id: str, resolution: float = 0.1) -> BaseGeometry:
    """Where the model's base centre can end a legal Walk (Walk p.22, Movement p.22-23).

    A drawing aid at grid resolution: the cost of reaching every point of a grid
    ``resolution`` inches apart (Difficult terrain counted, +2" once a path crosses Ideal
    terrain), contoured where the spare movement and the clearance from forbidden areas
    reach zero. Its edges may be off by about ``resolution``; paths through narrow gaps
    (narrower than a grid step) may be missed. A model starting in enemy ZoC gets the
    straight leg directly away from the enemy (a line) plus what it reaches from there.
    For the verdict on a particular path use :func:`sim.rules.movement.check_walk`.

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the moving model.
        resolution: grid step, inches (default 0.1).

    Returns:
        shapely geometry in table inches: a (Multi)Polygon, possibly with a LineString
        (the directly-away leg); the start point alone if the model cannot Walk
        (in BtB with an enemy without Agile).

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: ``resolution`` not a positive number.
    """
    mover = Mover(table, model_id)
    if _immobile(mover):
        return SPoint(mover.start)
    plan = _solve(mover, resolution, want_pred=False)
    geom = _region_from_plan(plan)
    return geom if not geom.is_empty else SPoint(mover.start)  # staying put is always a legal Walk


def _unreachable(table, model_id: str, mover: Mover, dest: Point, message: str, element: str | None = None,
                 facing: float | None = None) -> MoveResult:
    straight = check_walk(table, model_id, [mover.start, dest], facing)
    why = Reason("unreachable", message, RULING, dest, element)
    return MoveResult("walk", model_id, (mover.start, dest), False, straight.cost, straight.length,
                      straight.allowance, straight.facing, (why, *straight.reasons), straight.contacts)


def _dest_problem(mover: Mover, dest: Point) -> tuple[str, str | None] | None:
    """Why no Walk can end at ``dest``, judged exactly at the point (or None)."""
    if not mover.on_table(dest):
        return (f"the destination ({dest[0]:.2f}, {dest[1]:.2f}) puts the base off the table", None)
    for reason in mover.end_overlaps(dest):
        what = "inside Impassable terrain" if reason.code == "ends-in-impassable" else "on another model's base"
        return (f"the destination is {what} ({reason.element})", reason.element)
    started = set(mover.start_contacts)
    for e in mover.enemies:
        if e.id not in started and math.dist(dest, e.position) - mover.r - e.radius <= CONTACT + EPS:
            return (f"the destination is in base contact with enemy {e.id} (a Walk may not move into BtB)", e.id)
    if not mover.ignores_zoc:
        for e in mover.zoc_enemies:
            if e.id not in mover.start_zocs and mover.in_zoc_at(e.id, dest):
                return (f"the destination is in enemy {e.id}'s zone of control (a Walk may not enter it)", e.id)
    return None


def shortest_walk(table, model_id: str, dest: Sequence[float], facing: float | None = None,
                  resolution: float = 0.1) -> MoveResult:
    """The cheapest legal Walk from the model's position to ``dest`` (Walk p.22,
    Movement p.22-23; rulings.md 7).

    Plans on a grid (see the module docstring), then straightens the path (replaces runs
    of grid points by straight segments while each stays exactly legal and no dearer),
    ends it exactly at ``dest`` and verifies it with
    :func:`sim.rules.movement.check_walk`; the answer is that verdict. Cost is measured
    in inches of movement (Difficult terrain counted), so the path may go round
    Difficult terrain rather than through it. The path is near-optimal (grid
    resolution), always legal when ``legal`` is True.

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the moving model.
        dest: ``(x, y)`` base-centre destination, inches.
        facing: facing at the end, degrees (default: unchanged).
        resolution: planning grid step, inches.

    Returns:
        The :class:`~sim.rules.movement.MoveResult` of ``check_walk`` for the planned
        path (``path`` from the start to ``dest``). If no legal Walk reaches ``dest``:
        ``legal=False``, ``path=(start, dest)`` and a first reason with code
        ``unreachable`` saying why (destination in an enemy ZoC, inside terrain, too
        far for Move, in BtB, no legal route), followed by the checker's reasons for the
        straight line.

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: ``dest`` or ``resolution`` not finite numbers.
    """
    dest = (float(dest[0]), float(dest[1]))
    if not all(math.isfinite(v) for v in dest):
        raise ValueError(f"dest must be two finite numbers (inches), not {dest!r}")
    mover = Mover(table, model_id)
    start = mover.start
    if math.dist(start, dest) <= 1e-9:
        return check_walk(table, model_id, [start, start], facing)
    stuck = _immobile(mover)
    if stuck:
        return _unreachable(table, model_id, mover, dest, stuck, mover.start_contacts[0], facing)
    # the straight line is the answer when it is legal and crosses no Difficult terrain
    straight = check_walk(table, model_id, [start, dest], facing)
    if straight.legal and abs(straight.cost - straight.length) <= 1e-9:
        return straight
    problem = _dest_problem(mover, dest)
    if problem is not None and not straight.legal:
        return _unreachable(table, model_id, mover, dest, problem[0], problem[1], facing)
    ideal_possible = _ideal_within(mover, mover.move)
    top = mover.move + (IDEAL_BONUS if ideal_possible else 0.0)
    if math.dist(start, dest) > top + EPS and not straight.legal:
        return _unreachable(table, model_id, mover, dest,
                            f"the destination is {math.dist(start, dest):.2f}\" away, beyond Move {mover.move:g}\""
                            + (" (+2\" Ideal)" if ideal_possible else ""), None, facing)
    best: MoveResult | None = straight if straight.legal else None
    last_fail: MoveResult | None = None
    plan = None
    for conservative in (False, True):
        plan = _solve(mover, resolution, want_pred=True, conservative=conservative)
        path = _plan_path(plan, dest)
        if path is None:
            break  # the conservative graph only has fewer ways
        for candidate in (_string_pull(mover, path, plan), path):
            res = check_walk(table, model_id, candidate, facing)
            if res.legal:
                if best is None or res.cost < best.cost - 1e-9:
                    best = res
                break
            last_fail = res
        if best is not None:
            return best
    if best is not None:
        return best
    if last_fail is not None:
        msg = (f"the planned route is not legal ({last_fail.reasons[0].message}); "
               f"no legal route within Move {mover.move:g}\" was found")
    else:
        over = _cheapest_beyond(plan, dest)
        if over is not None:
            msg = (f"every legal route is too long: the cheapest costs about {over:.2f}\" "
                   f"(Move {mover.move:g}\"" + (" +2\" Ideal" if plan.layered else "") + ")")
        else:
            msg = "no legal route reaches the destination (bases, Impassable terrain or enemy ZoCs close it off)"
    if mover.start_zocs and not mover.ignores_zoc:
        msg += f"; {plan.note}"
    return _unreachable(table, model_id, mover, dest, msg, None, facing)


def _ideal_within(mover: Mover, dist: float) -> bool:
    """Can a move of ``dist`` inches from the start bring the base onto Ideal terrain?"""
    if mover.ignores_terrain_and_models:
        return False
    return any(t.passage is Passage.IDEAL and t.footprint.distance_to_point(mover.start) - mover.r < dist
               for t in mover.table.terrain)


def _cheapest_beyond(plan: _Plan, dest: Point) -> float | None:
    """Cost (inches, about) of the cheapest legal route to ``dest`` on the grid, ignoring
    the Move limit; None if the grid holds none."""
    from scipy.sparse.csgraph import dijkstra

    dist = dijkstra(plan.graph, directed=True, indices=plan.source)
    mover = plan.mover
    h, K, N = plan.h, plan.K, plan.N
    ci = int(round((dest[0] - mover.start[0]) / h)) + K
    cj = int(round((dest[1] - mover.start[1]) / h)) + K
    n1 = 2 * K + 1
    best = math.inf
    for i in range(max(0, ci - 1), min(n1, ci + 2)):
        for j in range(max(0, cj - 1), min(n1, cj + 2)):
            n = int(plan.idx[i, j])
            if n < 0 or not plan.endable[n]:
                continue
            for layer in range(2 if plan.layered else 1):
                d = dist[n + layer * N] - (IDEAL_BONUS if layer else 0.0)
                best = min(best, d + math.hypot(plan.X[n] - dest[0], plan.Y[n] - dest[1]))
    return best if math.isfinite(best) else None


def _plan_path(plan: _Plan, dest: Point) -> list[Point] | None:
    """Grid path from the start to ``dest`` (exact last segment), or None."""
    mover = plan.mover
    N = plan.N
    nl = 2 if plan.layered else 1
    h, K = plan.h, plan.K
    zoc_ids = [] if mover.ignores_zoc else [e.id for e in mover.zoc_enemies]
    ci = int(round((dest[0] - mover.start[0]) / h)) + K
    cj = int(round((dest[1] - mover.start[1]) / h)) + K
    n1 = 2 * K + 1
    cands = []
    for i in range(max(0, ci - 2), min(n1, ci + 3)):
        for j in range(max(0, cj - 2), min(n1, cj + 3)):
            n = int(plan.idx[i, j])
            if n < 0 or not plan.passable[n]:
                continue
            for layer in range(nl):
                d = plan.dist[n + layer * N]
                if np.isfinite(d):
                    cands.append((d, n, layer))
    cands.sort()
    best = None
    for d, n, layer in cands:
        p = (float(plan.X[n]), float(plan.Y[n]))
        c, crossed = mover.segment_cost(p, dest)
        total = d + c
        allow = mover.move + (IDEAL_BONUS if (layer == 1 or crossed) else 0.0)
        if total > allow + EPS or (best is not None and total >= best[0]):
            continue
        if not _segment_ok(mover, p, dest, zoc_ids):
            continue
        best = (total, n, layer)
    if best is None:
        return None
    _, n, layer = best
    g = n + layer * N
    nodes = []
    seed = None
    guard = 0
    while g != plan.source and g >= 0 and guard < 10 * N:
        nodes.append(g)
        prev = int(plan.pred[g])
        if prev == plan.source:
            seed = plan.seed_of.get(g)
        g = prev
        guard += 1
    if g != plan.source:
        return None
    nodes.reverse()
    pts = [mover.start]
    if seed is not None:
        pts.append(plan.seeds[seed][0])
    for g in nodes:
        q = plan.point(g)
        if math.dist(q, pts[-1]) > 1e-12:
            pts.append(q)
    if math.dist(pts[-1], dest) > 1e-12:
        pts.append(dest)
    return pts


def _string_pull(mover: Mover, path: list[Point], plan: _Plan) -> list[Point]:
    """Replace runs of points by straight segments while each stays exactly legal and
    the movement cost does not grow (Ideal crossings kept when the path needs them)."""
    zoc_ids = [] if mover.ignores_zoc else [e.id for e in mover.zoc_enemies]
    fixed = 2 if plan.seeds else 1  # keep the directly-away leg as it is
    pts = list(path)
    for _ in range(2):
        segs = [mover.segment_cost(a, b) for a, b in zip(pts, pts[1:])]
        cum = np.concatenate([[0.0], np.cumsum([c for c, _ in segs])])
        ideal_before = np.concatenate([[False], np.logical_or.accumulate([i for _, i in segs])]) if segs else np.array([False])
        total = float(cum[-1])
        needs_ideal = total > mover.move + EPS
        out = pts[:fixed]
        i = fixed - 1
        n = len(pts)
        while i < n - 1:
            j_best = i + 1
            j = i + 2
            while j < n:
                c, crossed = mover.segment_cost(pts[i], pts[j])
                sub = cum[j] - cum[i]
                sub_ideal = any(segs[k][1] for k in range(i, j))
                if c > sub + 1e-9:
                    break
                if needs_ideal and sub_ideal and not crossed and not (ideal_before[i] or
                                                                      any(s[1] for s in segs[j:])):
                    break
                if not _segment_ok(mover, pts[i], pts[j], zoc_ids):
                    break
                j_best = j
                j += 1
            out.append(pts[j_best])
            i = j_best
        if len(out) == len(pts):
            break
        pts = out
    return pts


def run_region(table, model_id: str, resolution_deg: float = 0.5) -> BaseGeometry:
    """Where the model's base centre can end a legal Run (Run p.22, Movement p.22-23).

    A fan of rays from the model's position, ``resolution_deg`` degrees apart, over its
    front arc (all round for Aware): along each ray the legal end distances, computed
    with the exact closed forms of ``sim.geometry.motion`` (stops against bases and
    Impassable terrain, at the table edge, before contact with an enemy and before
    entering an enemy ZoC; cost within 1.5 x Move, +2" once past Ideal terrain; the end
    point in the model's LoS). Two parts use polygons: the visible part of a ZoC that
    Blocking terrain or models may shadow (exact umbras, conservative by 0.005"), and
    the shadows cast on the end point by passable Blocking terrain (exact umbras; the far
    end of each such ray is checked with ``Scene.los_to_point``). The polygon joins the
    far ends of neighbouring rays, so between rays its edge is a chord. A model that
    starts in one enemy's ZoC may only Run directly away from it: a line. For the
    verdict on a point use :func:`sim.rules.movement.check_run`.

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the running model.
        resolution_deg: angle between rays, degrees (default 0.5).

    Returns:
        shapely geometry in table inches (Polygon, MultiPolygon, LineString, or the
        start Point if the model cannot Run).

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: ``resolution_deg`` not a positive number.
    """
    if not (resolution_deg > 0 and math.isfinite(resolution_deg)):
        raise ValueError(f"resolution_deg must be a positive number of degrees, not {resolution_deg!r}")
    mover = Mover(table, model_id)
    if _immobile(mover):
        return SPoint(mover.start)
    allowance = 1.5 * mover.move
    max_len = allowance + (IDEAL_BONUS if _ideal_within(mover, allowance) else 0.0)
    sx, sy = mover.start
    body = mover.body
    aware = body.aware
    fdeg = body.facing
    start_zoc = bool(mover.start_zocs) and not mover.ignores_zoc
    full_circle = aware and not start_zoc
    if aware:
        angles = np.arange(0.0, 360.0, resolution_deg)
    else:
        n = int(math.ceil(180.0 / resolution_deg))
        angles = np.linspace(fdeg - 90.0, fdeg + 90.0, n + 1)
    if start_zoc:
        fx, fy = unit_vector(fdeg)
        if len(mover.start_zocs) == 1:
            away = [u for u in _away_dirs(mover) if aware or u[0] * fx + u[1] * fy >= -1e-12]
            if not away:
                return SPoint(mover.start)
            u = away[0]
            ctx = _ray_context(mover, los=True, max_len=max_len)
            ivs = _ray_intervals(mover, u, max_len, allowance, los=True, zoc_skip=set(mover.start_zocs), ctx=ctx)
            d = ivs[-1][1] if ivs else 0.0
            return LineString([mover.start, (sx + u[0] * d, sy + u[1] * d)]) if d > 0 else SPoint(mover.start)
        centres = [mover.scene.bodies[i].center for i in mover.start_zocs]
        ok = np.array([all((sx - c[0]) * u[0] + (sy - c[1]) * u[1] >= -1e-9 for c in centres)
                       for u in map(unit_vector, angles)])
        if aware and ok.any() and not ok.all():
            # make the allowed arc one increasing run of angles
            k0 = int(np.flatnonzero(ok & ~np.roll(ok, 1))[0])
            angles = np.concatenate([angles[k0:], angles[:k0] + 360.0])
            ok = np.concatenate([ok[k0:], ok[:k0]])
        angles = angles[ok]
    if not len(angles):
        return SPoint(mover.start)
    ctx = _ray_context(mover, los=True, max_len=max_len)
    skip = set(mover.start_zocs)

    def cast(degs) -> list:
        dirs_ = [unit_vector(float(t)) for t in degs]
        sels = _select_many(ctx, np.radians(np.asarray(degs, float)))
        if len(degs) >= 64:  # vectorised footprints pay off on many rays only
            for sl, pre in zip(sels, _precompute_rays(mover, ctx, dirs_, max_len)):
                sl["pre"] = pre
        return [_ray_intervals(mover, u, max_len, allowance, los=True, zoc_skip=skip, ctx=ctx, sel=sl)
                for u, sl in zip(dirs_, sels)]

    angs = [float(t) for t in angles]
    fans = cast(angs)
    # adaptive refinement: where neighbouring rays disagree (an obstacle's edge, a shadow,
    # a narrow gap) add the ray half-way, up to 5 times (1/32 of the spacing)
    step = resolution_deg
    for _ in range(5):
        step /= 2
        n_a = len(angs)
        pairs = [(k, k + 1) for k in range(n_a - 1)]
        if full_circle and n_a > 2:
            pairs.append((n_a - 1, 0))
        mids = []
        for i, j in pairs:
            gap_deg = (angs[j] - angs[i]) % 360.0
            if gap_deg <= 2.5 * step and _rays_differ(fans[i], fans[j]):
                mids.append((angs[i] + gap_deg / 2) % 360.0 if full_circle else angs[i] + gap_deg / 2)
        if not mids or n_a > 20 * len(angles):
            break
        merged = sorted(zip(angs + mids, fans + cast(mids)), key=lambda q: q[0])
        angs = [q[0] for q in merged]
        fans = [q[1] for q in merged]
    dirs = [unit_vector(t) for t in angs]
    far = [ivs[-1][1] if ivs else 0.0 for ivs in fans]
    ring = [(sx + u[0] * d, sy + u[1] * d) for u, d in zip(dirs, far)]
    poly = Polygon(ring) if full_circle else Polygon([mover.start, *ring])
    if not poly.is_valid:
        poly = shapely.make_valid(poly)
    # gaps along rays (points hidden from the model, ends on a base or Impassable terrain
    # for Cloudwalk, the stretch before Ideal terrain pays off): joined between
    # neighbouring rays like the outline, so that their edges are chords too
    thetas = [math.radians(t) for t in angs]
    gaps = [[(a1, b0) for (_, a1), (b0, _) in zip(ivs, ivs[1:]) if b0 - a1 > 1e-6] for ivs in fans]
    pairs = [(i, i + 1) for i in range(len(dirs) - 1)]
    if full_circle and len(dirs) > 2:
        pairs.append((len(dirs) - 1, 0))
    cuts = []

    def at(th: float, d: float) -> Point:
        return (sx + math.cos(th) * d, sy + math.sin(th) * d)

    for i, j in pairs:
        ti, tj = thetas[i], thetas[j]
        tm = ti + wrap_angle(tj - ti) / 2
        for A in gaps[i]:
            matched = False
            for B in gaps[j]:
                if A[0] < B[1] and B[0] < A[1]:
                    matched = True
                    cuts.append(Polygon([at(ti, A[0]), at(ti, A[1]), at(tj, B[1]), at(tj, B[0])]))
            if not matched:
                cuts.append(Polygon([at(ti, A[0]), at(ti, A[1]), at(tm, (A[0] + A[1]) / 2)]))
        for B in gaps[j]:
            if not any(A[0] < B[1] and B[0] < A[1] for A in gaps[i]):
                cuts.append(Polygon([at(tj, B[0]), at(tj, B[1]), at(tm, (B[0] + B[1]) / 2)]))
    if cuts:
        cut = shapely.union_all([c if c.is_valid else shapely.make_valid(c) for c in cuts])
        poly = poly.difference(cut)
    # drop slivers thinner than 0.02" left between rays (only ever shrinks the area)
    opened = _polygonal(poly.buffer(-0.01, join_style="mitre").buffer(0.01, join_style="mitre").intersection(poly))
    return opened if not opened.is_empty else _polygonal(poly)


def _polygonal(geom) -> BaseGeometry:
    """The polygons of ``geom`` (drops points and lines an overlay may leave)."""
    if geom.is_empty or isinstance(geom, (Polygon, MultiPolygon)):
        return geom
    parts = [g for g in getattr(geom, "geoms", []) if isinstance(g, (Polygon, MultiPolygon)) and not g.is_empty]
    return shapely.union_all(parts) if parts else Polygon()


def charge_lanes(table, model_id: str) -> list[MoveResult]:
    """The Charge of the model at every enemy (Charge p.22-23, p.25; rulings.md 7).

    One :func:`sim.rules.movement.plan_charge` per enemy model, sorted by target id:
    each tells whether it reaches (``reached``), its path, and where and why it stops
    (``stop``). Straight at the target's centre, up to 2 x Move (+2" Ideal).

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the charging model.

    Returns:
        list of :class:`~sim.rules.movement.MoveResult` (``kind="charge"``), one per enemy.

    Raises:
        MoveError: unknown model or no Move value.
    """
    mover = Mover(table, model_id)  # MoveError: unknown model, no Move
    enemies = sorted(e.id for e in mover.enemies)
    return [plan_charge(table, model_id, eid) for eid in enemies]


@dataclass
class Reach:
    """Everything one model can do with a Walk, a Run or a Charge (Movement p.22-23).

    Attributes:
        model: the model's id.
        move: its Move, inches.
        start: its position ``(x, y)``, inches.
        walk_region: :func:`walk_region` (shapely geometry, inches).
        run_region: :func:`run_region` (shapely geometry, inches).
        charge_lanes: :func:`charge_lanes` (one MoveResult per enemy, sorted by id).
        timings_ms: process CPU milliseconds for ``walk_region``, ``run_region``,
            ``charge_lanes`` and ``total``.
    """

    model: str
    move: float
    start: Point
    walk_region: BaseGeometry
    run_region: BaseGeometry
    charge_lanes: list[MoveResult]
    timings_ms: dict[str, float] = field(default_factory=dict)


def reach(table, model_id: str, resolution: float = 0.1, resolution_deg: float = 0.5) -> Reach:
    """Walk region, Run region and charge lanes of one model (Movement p.22-23).

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the model.
        resolution: Walk grid step, inches (see :func:`walk_region`).
        resolution_deg: Run ray spacing, degrees (see :func:`run_region`).

    Returns:
        a :class:`Reach`.

    Raises:
        MoveError: unknown model or no Move value.
        ValueError: a resolution that is not a positive number.
    """
    mover = Mover(table, model_id)
    t0 = time.process_time()
    walk = walk_region(table, model_id, resolution)
    t1 = time.process_time()
    run = run_region(table, model_id, resolution_deg)
    t2 = time.process_time()
    charges = charge_lanes(table, model_id)
    t3 = time.process_time()
    ms = {"walk_region": (t1 - t0) * 1e3, "run_region": (t2 - t1) * 1e3, "charge_lanes": (t3 - t2) * 1e3,
          "total": (t3 - t0) * 1e3}
    return Reach(model_id, mover.move, mover.start, walk, run, charges, ms)
