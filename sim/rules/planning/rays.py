"""Straight moves from the start: the distances along a ray at which a move may end.

Used by the Run region (:mod:`.run`, a fan of rays) and by the Walk planner for the
directly-away leg of a model that starts in enemy ZoC (:mod:`.grid`). Along each ray the
legal end distances come from the exact closed forms of :mod:`sim.geometry.motion`:
stops against bases and Impassable terrain (touching allowed), at the table edge,
before contact with an enemy and before entering an enemy ZoC; the cost within the
allowance (Difficult x2/x4, +2" once past Ideal terrain); for a Run, the end point in
the model's LoS. :func:`ray_context` gathers once what any ray may meet, each item
with its angular span from the start, so that a ray only looks at what it can hit.

Rulebook: Run p.22, Walk p.22 (Movement p.22-23), Zone of Control p.9, Terrain p.60;
rulings.md 7. Inches; ray directions are unit vectors, angles radians here.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet

import numpy as np
import shapely
from shapely.geometry import LineString

from sim.geometry import CONTACT, EPS, ZOC_RANGE, Passage
from sim.geometry.measure import umbra
from sim.geometry.motion import (
    budget_fraction,
    disc_interval,
    footprint_intervals,
    footprint_ray_intervals,
    merge,
    subtract,
)
from sim.geometry.primitives import lerp, wrap_angle
from sim.rules.movement import IDEAL_BONUS, Mover

from .cspace import Point, near_zoc_blockers, visible_zoc_dilated

#: A Run end is kept this far (inches) short of a closed limit (ZoC, contact with an enemy).
_RUN_BACKOFF = 1e-4


def ray_intervals(mover: Mover, u, max_len: float, allowance: float, los: bool,
                   zoc_skip: AbstractSet[str] = frozenset(), ctx: dict | None = None,
                   sel: dict | None = None) -> list[tuple[float, float]]:
    """Distances (inches, as ``[(d0, d1), ...]``) along the ray from the start in unit
    direction ``u`` at which a straight move may legally end: stops at bases and
    Impassable terrain (touching is allowed), at the table edge, before contact with an
    enemy and before entering an enemy ZoC; cost within ``allowance`` (+2 once past
    Ideal terrain); with ``los``, the end must be in the model's LoS. Exact closed forms
    (``sim.geometry.motion``) except where noted in :func:`run_region`. ``sel``: the
    items of ``ctx`` whose angular span holds the ray (computed here if None)."""
    ctx = ctx if ctx is not None else ray_context(mover, los, max_len)
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
                seg = LineString([lerp(a, b, iv[0]), lerp(a, b, t_hi)])
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


def precompute_rays(mover: Mover, ctx: dict, dirs, max_len: float) -> list[dict]:
    """Per ray, ``{piece id: [interval]}`` of every convex terrain piece in ``ctx`` (the
    vectorised form of ``footprint_intervals``)."""
    a = mover.start
    D = np.asarray(dirs, float) * max_len
    out: list[dict] = [dict() for _ in range(len(D))]
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


def select_many(ctx: dict, thetas: np.ndarray) -> list[dict]:
    """For each ray angle (radians), the items of ``ctx`` whose span holds it."""
    out: list[dict] = [{cat: [] for cat in _CATS} for _ in range(len(thetas))]
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


def rays_differ(A, B, tol: float = 0.1) -> bool:
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


def ray_context(mover: Mover, los: bool, max_len: float = math.inf) -> dict:
    """What a ray from the start may meet, each with its angular span from the start.

    Returns a dict: ``items`` (bases, contact rings of enemies, Impassable terrain,
    ZoCs: the limits of a move), ``ideal`` and ``diff`` (terrain that changes the cost),
    ``blockers`` (with ``los``: Blocking terrain and models with their umbras from the
    start), each a list of ``(kind, span, obj)`` where ``span`` is ``(direction,
    half-width)`` in radians or None (all round); and ``ghost`` (the mover passes over
    bases and terrain). Items farther than ``max_len`` inches are left out.
    """
    a = mover.start
    r = mover.r
    ghost = mover.ignores_terrain_and_models
    items: list[tuple[str, tuple[float, float] | None, tuple]] = []
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
                near = near_zoc_blockers(mover, E)
                if near:
                    area_dil = visible_zoc_dilated(mover, E, near)
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


def ray_walk_limit(mover: Mover, u, max_len: float, ctx: dict | None = None) -> float:
    """How far (inches) the base may Walk straight along ``u`` from the start (used for
    the directly-away leg): stops at bases, Impassable terrain, the table edge,
    contact with an enemy, another enemy's ZoC, and the Move allowance."""
    ivs = ray_intervals(mover, u, max_len, mover.move, los=False, zoc_skip=set(mover.start_zocs), ctx=ctx)
    return ivs[-1][1] if ivs else 0.0
