"""The Walk planner's graph: a grid of base-centre positions and Dijkstra over it.

How it works (configuration space, see :mod:`.cspace`):

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
   leg (:mod:`.rays`) instead of from the start. After that leg the planner does not
   let the base back into any enemy ZoC, the one it started in included ("may not
   enter an enemy ZoC"); ``check_walk`` itself does not look at that ZoC again.

The Walk region and the shortest Walk are read from the solved :class:`Plan` in
:mod:`.walk`. Rulebook: Walk p.22 (Movement p.22-23), Zone of Control p.9, Terrain
p.60; rulings.md 7. Inches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import LineString

from sim.geometry import EPS, Passage
from sim.geometry.motion import footprint_intervals, merge
from sim.rules.movement import IDEAL_BONUS, Mover

from .cspace import Point, Shape, away_dirs, walk_shapes
from .rays import ray_context, ray_walk_limit

# half of the 16-neighbourhood; each edge is added in both directions
_OFFSETS = ((1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1), (1, -2))
#: all 16 neighbour offsets: entry ``k + 8`` is the opposite of entry ``k``
_OFFSETS16 = _OFFSETS + tuple((-di, -dj) for di, dj in _OFFSETS)
_LEN16 = np.array([math.hypot(di, dj) for di, dj in _OFFSETS16])


@dataclass
class Plan:
    """The solved grid for one Walk (see the module docstring).

    ``h`` is the grid step (inches); the grid spans offsets ``-K..K`` from the start in
    both axes, and only the ``N`` nodes on the table within reach are kept (``X``,
    ``Y``, ``I``, ``J``, ``passable`` ... are ``(N,)`` arrays). Graph nodes are the grid
    nodes (layer 0), the same again after crossing Ideal terrain (layer 1, when
    ``layered``), then the virtual ``source``.
    """

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
    shapes: list[Shape]
    graph: object = None  # the CSR graph (scipy.sparse)
    note: str = ""

    @property
    def N(self) -> int:
        """Number of grid nodes kept."""
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
        """Table position ``(x, y)`` (inches) of graph node ``g`` (either layer)."""
        n = g % self.N if g < (2 if self.layered else 1) * self.N else -1
        return (float(self.X[n]), float(self.Y[n]))


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


def solve(mover: Mover, resolution: float, want_pred: bool, conservative: bool = False) -> Plan:
    """Build the Walk graph of ``mover`` on a grid ``resolution`` inches apart and run
    Dijkstra from its start (module docstring, steps 1-5). ``conservative``: treat every
    ZoC as if nothing shadowed it (a fallback when a plan fails the exact check).

    Raises:
        ValueError: ``resolution`` not a positive number.
    """

    if not (resolution > 0 and math.isfinite(resolution)):
        raise ValueError(f"resolution must be a positive number of inches, not {resolution!r}")
    h = float(resolution)
    M = mover.move
    sx, sy = mover.start
    r = mover.r
    shapes = walk_shapes(mover, conservative)
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
    subsets: list[tuple[Shape, np.ndarray, np.ndarray]] = []  # (shape, nodes near it, their clearance)
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
    # edges that cross Ideal terrain (none counted when the graph is not layered)
    cross = (ideal_n[:, None] | ideal_n[nbc]) if layered else np.zeros_like(valid)
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
        ray_ctx = ray_context(mover, los=False, max_len=reach_max)
        for away_u in away_dirs(mover):
            lim = ray_walk_limit(mover, away_u, reach_max, ray_ctx)
            if lim <= 0:
                continue
            far_pts.append((sx + away_u[0] * lim, sy + away_u[1] * lim))
            t_exit = _zoc_exit(mover, away_u, lim + 1.0)
            if t_exit > lim:
                continue
            cost_at = _ray_cost(mover, away_u, lim)
            n_seed = max(1, int(math.floor((lim - t_exit) / h)) + 1)
            for k in range(n_seed + 1):
                tt = min(lim, t_exit + k * h)
                p = (sx + away_u[0] * tt, sy + away_u[1] * tt)
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
    return Plan(mover, h, K, X, Y, I, J, idx, passable, endable, clear, layered, dist, pred, S, seeds, seed_of,
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
