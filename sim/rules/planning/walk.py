"""Walk: where a Walk can end (:func:`walk_region`) and the cheapest legal Walk to a point
(:func:`shortest_walk`).

Both read the solved grid of :mod:`.grid`. The region is the contour, at zero, of
``min(spare movement, clearance from the nearest forbidden area)`` over the grid
(``contourpy``, which comes with matplotlib; without it, grid cells), so its edges fall
between nodes. The shortest Walk takes the cheapest grid path, straightens it (replaces
runs of points by straight segments while each stays exactly legal and no dearer, see
:func:`.cspace.segment_ok`), ends it exactly at the destination and hands it to the
exact checker :func:`sim.rules.movement.check_walk`: it only says ``legal=True`` when
the checker does.

Rulebook: Walk p.22 (Movement p.22-23), Zone of Control p.9, Terrain p.60; rulings.md 7.
Inches.
"""

from __future__ import annotations

import math
from typing import Sequence, cast

import numpy as np
import shapely
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from sim.geometry import CONTACT, EPS
from sim.rules.movement import IDEAL_BONUS, Mover, MoveResult, Reason, check_walk

from .cspace import RULING, Point, ideal_within, immobile, segment_ok
from .grid import Plan, solve

try:
    import contourpy
except ImportError:  # pragma: no cover - contourpy comes with matplotlib
    contourpy = None  # type: ignore[assignment]  # the optional module's stand-in


# ------------------------------------------------------------------ Walk region
def _region_from_plan(plan: Plan) -> BaseGeometry:
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
    if contourpy is not None and Z.max() > 0:
        XX, YY = np.meshgrid(xs, ys, indexing="ij")
        cg = contourpy.contour_generator(XX, YY, Z, fill_type="OuterOffset")
        # fill type OuterOffset: a list of point arrays and a list of ring offsets
        pts_list, offs_list = cast("tuple[list[np.ndarray], list[np.ndarray]]",
                                   cg.filled(0.0, float(Z.max()) + 1.0))
        polys = []
        for pts, offs in zip(pts_list, offs_list):
            rings = [pts[offs[k]: offs[k + 1]] for k in range(len(offs) - 1)]
            rings = [rg for rg in rings if len(rg) >= 4]
            if rings:
                polys.append(Polygon(rings[0], rings[1:]))
        parts: list[Polygon] = []
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
    if immobile(mover):
        return SPoint(mover.start)
    plan = solve(mover, resolution, want_pred=False)
    geom = _region_from_plan(plan)
    return geom if not geom.is_empty else SPoint(mover.start)  # staying put is always a legal Walk


# ---------------------------------------------------------------- shortest Walk
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

    Plans on a grid (see :mod:`sim.rules.planning.grid`), then straightens the path (replaces runs
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
    stuck = immobile(mover)
    if stuck:
        return _unreachable(table, model_id, mover, dest, stuck, mover.start_contacts[0], facing)
    # the straight line is the answer when it is legal and crosses no Difficult terrain
    straight = check_walk(table, model_id, [start, dest], facing)
    if straight.legal and abs(straight.cost - straight.length) <= 1e-9:
        return straight
    problem = _dest_problem(mover, dest)
    if problem is not None and not straight.legal:
        return _unreachable(table, model_id, mover, dest, problem[0], problem[1], facing)
    ideal_possible = ideal_within(mover, mover.move)
    top = mover.move + (IDEAL_BONUS if ideal_possible else 0.0)
    if math.dist(start, dest) > top + EPS and not straight.legal:
        return _unreachable(table, model_id, mover, dest,
                            f"the destination is {math.dist(start, dest):.2f}\" away, beyond Move {mover.move:g}\""
                            + (" (+2\" Ideal)" if ideal_possible else ""), None, facing)
    best: MoveResult | None = straight if straight.legal else None
    last_fail: MoveResult | None = None
    plan: Plan  # set by the first pass of the loop
    for conservative in (False, True):
        plan = solve(mover, resolution, want_pred=True, conservative=conservative)
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


def _cheapest_beyond(plan: Plan, dest: Point) -> float | None:
    """Cost (inches, about) of the cheapest legal route to ``dest`` on the grid, ignoring
    the Move limit; None if the grid holds none."""

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


def _plan_path(plan: Plan, dest: Point) -> list[Point] | None:
    """Grid path from the start to ``dest`` (exact last segment), or None. ``plan``
    comes from ``solve(..., want_pred=True)``."""
    assert plan.pred is not None, "a plan solved with want_pred=True"
    pred = plan.pred
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
        if not segment_ok(mover, p, dest, zoc_ids):
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
        prev = int(pred[g])
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


def _string_pull(mover: Mover, path: list[Point], plan: Plan) -> list[Point]:
    """Replace runs of points by straight segments while each stays exactly legal and
    the movement cost does not grow (Ideal crossings kept when the path needs them)."""
    zoc_ids = [] if mover.ignores_zoc else [e.id for e in mover.zoc_enemies]
    fixed = 2 if plan.seeds else 1  # keep the directly-away leg as it is
    pts = list(path)
    for _ in range(2):
        segs = [mover.segment_cost(a, b) for a, b in zip(pts, pts[1:])]
        cum = np.concatenate([[0.0], np.cumsum([c for c, _ in segs])])
        ideal_before = (np.concatenate([[False], np.logical_or.accumulate([i for _, i in segs])]) if segs
                        else np.array([False]))
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
                if not segment_ok(mover, pts[i], pts[j], zoc_ids):
                    break
                j_best = j
                j += 1
            out.append(pts[j_best])
            i = j_best
        if len(out) == len(pts):
            break
        pts = out
    return pts
