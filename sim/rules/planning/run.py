"""Run: where a Run can end (:func:`run_region`), as a fan of rays from the model.

Rays from the start ``resolution_deg`` apart over the front arc (all round for Aware);
along each, the legal end distances from the closed forms of :mod:`sim.geometry.motion`
(:mod:`.rays`); where neighbouring rays disagree (an edge, a shadow, a narrow gap) rays
are added half-way, up to five times. The polygon joins the far ends of neighbouring
rays; gaps along rays are cut out the same way.

Rulebook: Run p.22 (Movement p.22-23), Zone of Control p.9, Terrain p.60; rulings.md 7.
Inches and degrees.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from sim.geometry.primitives import unit_vector, wrap_angle
from sim.rules.movement import IDEAL_BONUS, Mover

from .cspace import Point, away_dirs, ideal_within, immobile
from .rays import precompute_rays, ray_context, ray_intervals, rays_differ, select_many


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
    if immobile(mover):
        return SPoint(mover.start)
    allowance = 1.5 * mover.move
    max_len = allowance + (IDEAL_BONUS if ideal_within(mover, allowance) else 0.0)
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
            away = [u for u in away_dirs(mover) if aware or u[0] * fx + u[1] * fy >= -1e-12]
            if not away:
                return SPoint(mover.start)
            u = away[0]
            ctx = ray_context(mover, los=True, max_len=max_len)
            ivs = ray_intervals(mover, u, max_len, allowance, los=True, zoc_skip=set(mover.start_zocs), ctx=ctx)
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
    ctx = ray_context(mover, los=True, max_len=max_len)
    skip = set(mover.start_zocs)

    def cast(degs) -> list:
        dirs_ = [unit_vector(float(t)) for t in degs]
        sels = select_many(ctx, np.radians(np.asarray(degs, float)))
        if len(degs) >= 64:  # vectorised footprints pay off on many rays only
            for sl, pre in zip(sels, precompute_rays(mover, ctx, dirs_, max_len)):
                sl["pre"] = pre
        return [ray_intervals(mover, u, max_len, allowance, los=True, zoc_skip=skip, ctx=ctx, sel=sl)
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
            if gap_deg <= 2.5 * step and rays_differ(fans[i], fans[j]):
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
