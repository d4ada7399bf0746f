"""Interception (Ranged Attacks step 1d, p.30): a friend of the target whose Zone of
Control a sight line from the attacker to the target crosses may be assigned as the new
target. The ZoC as one area (:func:`zoc_area`), the exact sight-line test
(:func:`interception_line`), conditions I-III (:func:`check_interceptor`,
:func:`interceptors`) and the choice of the target's controller
(:func:`resolve_interception`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Collection, Mapping

import numpy as np
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon as SPolygon

from sim.geometry import EPS, ZOC_RANGE, Scene
from sim.geometry.measure import Body, zoc_region
from sim.geometry.sight import Obstacle, SightLine, disc_region, find_sight_line
from sim.rules.ranged.declaration import friends_of
from sim.rules.ranged.modifiers import TargetInfo
from sim.rules.ranged.reasons import RangedAttackError, Reason
from sim.rules.ranged.weapons import range_band

# --------------------------------------------------------------------------- interception

def _arc_of(B: Body):
    return None if B.aware else (B.center, tuple(B.facing_vector))


def _polygon_obstacles(key: Any, geom) -> list[Obstacle]:
    """Simple-polygon obstacles for the parts of a shapely area (holes filled)."""
    if geom is None or geom.is_empty:
        return []
    parts = list(geom.geoms) if hasattr(geom, "geoms") else [geom]
    out = []
    for i, part in enumerate(parts):
        if not isinstance(part, SPolygon) or part.area < 1e-9:
            continue
        v = np.asarray(part.exterior.coords, float)[:-1]
        c = v.mean(axis=0)
        r = float(np.max(np.hypot(v[:, 0] - c[0], v[:, 1] - c[1])))
        out.append(Obstacle((key, i), False, c, r, v))
    return out


def zoc_area(scene: Scene, F: Body):
    """The Zone of Control of ``F`` as one filled shapely area, in inches (p.22; rulings.md
    section 6): :func:`sim.geometry.measure.zoc_region` (the points within 1" of F's base,
    in F's front arc, that F sees) with the part of F's own base in its arc added, so that
    it is one filled shape (a sight line cannot reach the base without crossing the ring in
    the arc). The interception test (step 1d, p.30) asks whether a sight line crosses it.

    Args:
        scene: the :class:`~sim.geometry.Scene` with F in it.
        F: the friend's :class:`~sim.geometry.measure.Body` (its centre, radius in inches,
            facing; an Aware model's front arc is 360 degrees, p.22).

    Returns:
        A shapely (Multi)Polygon; empty when F sees nothing around it.
    """
    area = zoc_region(scene, F.id)
    base = SPoint(F.center).buffer(F.radius, quad_segs=32)
    if not F.aware:
        f = F.facing_vector
        side = np.array([-f[1], f[0]])
        c = np.asarray(F.center, float)
        R = F.radius + 1.0
        base = base.intersection(SPolygon([c + side * R, c + side * R + f * R, c - side * R + f * R, c - side * R]))
    return area.union(base)


def interception_line(scene: Scene, attacker_id: str, target_id: str, friend_id: str) -> SightLine | None:
    """A sight line from the attacker's base to the target's base that crosses
    ``friend_id``'s ZoC, or ``None`` (interception condition I, step 1d, p.30).

    A *sight line* is a segment from the attacker's base to a point of the target's base
    in the attacker's front arc, clear of the elements that block LoS between the two
    (rulings.md section 4). F's ZoC is the set of points within 1" of F's base, in F's
    front arc, to which F has LoS (section 6). The line may end anywhere in the target's
    base, as for Cover (docs/rulings-project.md #3).

    Method: (1) exact necessary test with the sight-line engine: some clear sight line
    crosses the disc of radius ``F.radius + 1"`` around F (``must_cross``); if none, F cannot
    intercept. (2) If F is Aware and no LoS blocker of F's Size comes within that disc,
    the ZoC is the whole disc and (1) is the answer (exact). (3) Otherwise the ZoC area is
    taken from :func:`sim.geometry.measure.zoc_region` (front arc and LoS shadows; its
    circle is a 128-gon inscribed in the true one, so a line reaching only the outermost
    ~0.0005" of the ZoC may be missed, and shadows of non-convex blockers err slightly
    towards hidden) and the exact engine looks for a clear sight line crossing it.
    A Blind F's ZoC reaches only models in BtB with it: no sight line crosses it.

    Raises:
        KeyError: unknown model id.
    """
    A, T, F = scene.bodies[attacker_id], scene.bodies[target_id], scene.bodies[friend_id]
    if F.id in (A.id, T.id) or F.blind or A.blind:
        return None
    region = disc_region(T.center, T.radius, _arc_of(A))
    if region.is_empty:
        return None
    blockers = scene.blockers(scene.los_threshold(A, T), (A.id, T.id))
    reach = F.radius + ZOC_RANGE
    disc = Obstacle.disc(("zoc-reach", F.id), F.center, reach)
    found = find_sight_line(A.center, A.radius, region, blockers, must_cross=disc)
    if not found:
        return None
    threshold = max(F.size, scene.enhancing_size(F))
    shadowing = [ob for ob in scene.blockers(threshold, (F.id,))
                 if math.dist(ob.center, F.center) < ob.radius + reach + EPS]
    if F.aware and not shadowing:
        return found.line
    for ob in _polygon_obstacles(("zoc", F.id), zoc_area(scene, F)):
        hit = find_sight_line(A.center, A.radius, region, blockers, must_cross=ob)
        if hit:
            return hit.line
    return None


@dataclass(frozen=True)
class InterceptorCheck:
    """Whether ``model`` may be assigned as the new target (step 1d, conditions I-III):
    ``ok``, the ``reasons`` it may not, and the ``line`` that crosses its ZoC."""

    model: str
    ok: bool
    reasons: tuple[Reason, ...] = ()
    line: SightLine | None = None


def check_interceptor(scene: Scene, attacker_id: str, target_id: str, friend_id: str, *,
                      weapon: Any = None, info: TargetInfo | None = None,
                      friends_of_target: Collection[str] | None = None) -> InterceptorCheck:
    """Check conditions I-III of step 1d (p.30) for ``friend_id``.

    I.  some sight line from the attacker to the original target's base crosses its ZoC
        (:func:`interception_line`); it is not Insignificant;
    II. it has LoS to the attacker and is a legal target: an enemy of the attacker (a friend
        of the target), visible to the attacker, within the weapon's range (if ``weapon``);
    III. it is not Exhausted.

    ``info``: its :class:`TargetInfo` (Insignificant, Exhausted). Conditions are checked
    cheapest first; the geometric test of I runs only if the others pass.
    """
    info = info or TargetInfo()
    reasons: list[Reason] = []
    friends = friends_of(scene, target_id) if friends_of_target is None else frozenset(friends_of_target)
    if friend_id in (attacker_id, target_id) or friend_id not in friends:
        reasons.append(Reason("not-friend", f"{friend_id} is not another friendly model of {target_id}",
                              "step 1d, p.30", friend_id))
    if info.insignificant:
        reasons.append(Reason("insignificant", "an Insignificant model cannot intercept", "step 1d I; Insignificant",
                              friend_id))
    if info.exhausted:
        reasons.append(Reason("exhausted", "an Exhausted model cannot intercept", "step 1d III", friend_id))
    if not reasons:
        if not scene.los(friend_id, attacker_id).visible:
            reasons.append(Reason("no-los-to-attacker", f"{friend_id} has no LoS to {attacker_id}", "step 1d II",
                                  friend_id))
        if not scene.los(attacker_id, friend_id).visible:
            reasons.append(Reason("not-visible", f"{attacker_id} has no LoS to {friend_id}", "step 1d II", friend_id))
        if weapon is not None and range_band(weapon, scene.distance(attacker_id, friend_id)) is None:
            reasons.append(Reason("out-of-range", f"{friend_id} is beyond the weapon's range", "step 1d II", friend_id))
    line = None
    if not reasons:
        line = interception_line(scene, attacker_id, target_id, friend_id)
        if line is None:
            reasons.append(Reason("zoc-not-crossed", f"no sight line to {target_id} crosses {friend_id}'s ZoC",
                                  "step 1d I", friend_id))
    return InterceptorCheck(friend_id, not reasons, tuple(reasons), line)


def interceptors(scene: Scene, attacker_id: str, target_id: str,
                 friends_of_target: Collection[str] | None = None, *, weapon: Any = None,
                 infos: Mapping[str, TargetInfo] | None = None) -> list[str]:
    """Ids of the models the target's controller may assign as the new target (step 1d,
    conditions I-III, :func:`check_interceptor`), nearest to the attacker first (ties by
    id). ``friends_of_target`` defaults to :func:`friends_of`; ``infos`` gives each
    model's :class:`TargetInfo` (Insignificant, Exhausted)."""
    friends = friends_of(scene, target_id) if friends_of_target is None else frozenset(friends_of_target)
    infos = infos or {}
    ok = [f for f in friends if f not in (attacker_id, target_id) and
          check_interceptor(scene, attacker_id, target_id, f, weapon=weapon, info=infos.get(f),
                            friends_of_target=friends).ok]
    return sorted(ok, key=lambda f: (scene.distance(attacker_id, f), f))


@dataclass(frozen=True)
class Interception:
    """Outcome of step 1d: ``target`` is the target from now on (the original one when
    nobody intercepts or the choice is not allowed); ``check`` holds the conditions."""

    original: str
    target: str
    intercepted: bool
    check: InterceptorCheck | None = None


def resolve_interception(scene: Scene, attacker_id: str, target_id: str, chosen: str | None, *,
                         friends_of_target: Collection[str] | None = None, weapon: Any = None,
                         infos: Mapping[str, TargetInfo] | None = None, strict: bool = True) -> Interception:
    """Step 1d (p.30): the target's controller may assign ``chosen`` as the new target.

    There is no test: if ``chosen`` meets conditions I-III it becomes the target (IV).
    ``chosen=None``: nobody intercepts.

    Raises:
        RangedAttackError: ``strict`` and ``chosen`` does not meet the conditions (with
            ``strict=False`` the original target is kept and the check is returned).
    """
    if chosen is None:
        return Interception(target_id, target_id, False)
    check = check_interceptor(scene, attacker_id, target_id, chosen, weapon=weapon,
                              info=(infos or {}).get(chosen), friends_of_target=friends_of_target)
    if not check.ok:
        if strict:
            raise RangedAttackError(f"{chosen} cannot intercept: " + "; ".join(r.message for r in check.reasons),
                                    check.reasons)
        return Interception(target_id, target_id, False, check)
    return Interception(target_id, chosen, True, check)
