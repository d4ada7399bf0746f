"""Walk, Run, Charge and the melee action move: legality, cost and reasons.

Rulebook: Movement and Placement p.22-23 (Move, Walk, Run, Charge), Zone of Control
(Terms and Concepts p.9), actions p.24-26 (Melee, Charge), Terrain p.60 (Difficult,
Ideal), traits (Lightfooted, Unstable, Cloudwalk, Intangible, Evasive, Agile,
Insignificant). Project rulings: ``shared/rulings.md`` section 7 and
``docs/rulings-project.md``.

A move is a path of the base centre: a list of points ``[(x, y), ...]`` in inches,
starting at the model's position. Every check answers with a :class:`MoveResult`:
legal or not, the cost in inches (difficult terrain counted), the allowance, and every
reason the move is illegal, each with the ruling and the place.

    >>> from sim.table import load_table
    >>> from sim.rules.movement import check_walk
    >>> t = load_table()
    >>> r = check_walk(t, "matsu", [(4.5, 6.0), (4.5, 8.0)])
    >>> r.legal, round(r.cost, 3)
    (True, 2.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

from sim.geometry import CONTACT, EPS, ZOC_RANGE, Body, Passage, Region, find_sight_line
from sim.geometry.motion import (
    budget_fraction,
    covered_length,
    disc_interval,
    first_contact,
    footprint_intervals,
    half_disc_dilated_interval,
    merge,
)
from sim.geometry.primitives import heading, lerp, normalize, unit_vector

Point = tuple[float, float]

#: Extra allowance for a Walk, Run or Charge that crosses Ideal terrain (Terrain p.60).
IDEAL_BONUS = 2.0
#: A move "directly away" or "directly towards" may stray this far (inches) from the
#: exact line through the two centres (docs/rulings-project.md).
DIRECT_TOLERANCE = CONTACT


@dataclass(frozen=True)
class Reason:
    """Why a move is illegal (or where it stopped).

    Attributes:
        code: short machine name (``enters-zoc``, ``passes-through-base`` ...).
        message: one sentence a player can read.
        ruling: the rule broken (rulebook page or rulings.md section).
        at: where on the table, inches, if it has a place.
        element: the model or terrain id involved, if any.
    """

    code: str
    message: str
    ruling: str
    at: Point | None = None
    element: str | None = None

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        out: dict = {"code": self.code, "message": self.message, "ruling": self.ruling}
        if self.at is not None:
            out["at"] = [round(self.at[0], 4), round(self.at[1], 4)]
        if self.element is not None:
            out["element"] = self.element
        return out


@dataclass(frozen=True)
class MoveResult:
    """The answer for one move.

    Attributes:
        kind: ``walk``, ``run``, ``charge`` or ``melee``.
        model: the moving model's id.
        path: base-centre points, inches (the first is the start).
        legal: whether the move may be made.
        cost: inches of movement used (difficult terrain counted x2, x4 or x1).
        length: geometric length of the path, inches.
        allowance: inches available (Move, x1.5 for Run, x2 for Charge, +2 if the path
            crosses Ideal terrain).
        facing: facing at the end, degrees.
        reasons: why it is illegal (empty when legal).
        contacts: enemy ids in BtB at the end.
        stop: for a Charge, why it ended where it did.
        reached: for a Charge or melee move, whether it ends in BtB with the target.
    """

    kind: str
    model: str
    path: tuple[Point, ...]
    legal: bool
    cost: float
    length: float
    allowance: float
    facing: float
    reasons: tuple[Reason, ...] = ()
    contacts: tuple[str, ...] = ()
    stop: Reason | None = None
    reached: bool | None = None
    target: str | None = None

    @property
    def end(self) -> Point:
        """Where the base centre ends, inches."""
        return self.path[-1]

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        out = {
            "kind": self.kind,
            "model": self.model,
            "legal": self.legal,
            "cost": round(self.cost, 4),
            "length": round(self.length, 4),
            "allowance": round(self.allowance, 4),
            "path": [[round(x, 4), round(y, 4)] for x, y in self.path],
            "end": [round(self.end[0], 4), round(self.end[1], 4)],
            "facing": round(self.facing, 3),
            "reasons": [r.to_json() for r in self.reasons],
            "contacts": list(self.contacts),
        }
        if self.target is not None:
            out["target"] = self.target
        if self.reached is not None:
            out["reached"] = self.reached
        if self.stop is not None:
            out["stop"] = self.stop.to_json()
        return out


class MoveError(ValueError):
    """A move cannot even be judged (unknown model, no Move value, a friend as target)."""


class Mover:
    """One model about to move on a table: its rules context, prepared once.

    Args:
        table: a loaded :class:`sim.table.Table`.
        model_id: the moving model.
        activation_contacts: enemies it already came into BtB with during this
            activation (an active model may come into BtB with only one enemy per
            activation, rulings.md 7).

    Raises:
        MoveError: unknown model, or a model without a Move value.
    """

    def __init__(self, table, model_id: str, activation_contacts: Sequence[str] = ()):
        try:
            self.model = table.model(model_id)
        except KeyError as exc:
            raise MoveError(str(exc.args[0])) from None
        if self.model.move is None:
            raise MoveError(f"model {model_id!r} has no Move value: give it a profile or a 'move' in the table file")
        self.table = table
        self.scene = table.scene()
        self.id = model_id
        self.body: Body = self.scene.bodies[model_id]
        self.r = self.model.radius
        self.start: Point = (float(self.model.position[0]), float(self.model.position[1]))
        self.move = float(self.model.move)
        has = self.model.has_trait
        self.cloudwalk = has("cloudwalk")
        self.intangible = has("intangible")
        self.ignores_terrain_and_models = self.cloudwalk or self.intangible
        self.ignores_zoc = self.ignores_terrain_and_models or has("evasive")
        self.leaves_contact_freely = self.intangible or has("agile")
        light, unstable = has("lightfooted"), has("unstable")
        if light and unstable:  # the two cancel (Traits: Lightfooted, Unstable)
            light = unstable = False
        self.difficult_factor = 1.0 if light else (4.0 if unstable else 2.0)
        self.activation_contacts = tuple(activation_contacts)
        self.enemies = [m for m in table.models if m.player != self.model.player]
        self.friends_ids = {m.id for m in table.models if m.player == self.model.player}
        self.start_contacts = tuple(e.id for e in self.enemies if self._touching(self.start, e))
        self.zoc_enemies = [e for e in self.enemies if not self._zoc_ignorable(e)]
        self.start_zocs = tuple(e.id for e in self.zoc_enemies if self.in_zoc_at(e.id, self.start))
        #: scratch cache for planners (``sim.rules.planning``): a Mover is built per
        #: question on one table, so nothing kept here goes stale.
        self.memo: dict = {}

    # ------------------------------------------------------------------ helpers
    def _touching(self, p: Point, other) -> bool:
        return math.dist(p, other.position) - self.r - other.radius <= CONTACT + EPS

    def _zoc_ignorable(self, enemy) -> bool:
        """ZoC that may be ignored (rulings.md 7): Prone, Insignificant or Disguised
        models, and models in BtB with one of their enemies (a model of the mover's
        side other than the mover)."""
        if enemy.prone or enemy.has_trait("insignificant") or enemy.has_trait("disguised"):
            return True
        for m in self.table.models:
            if m.player == self.model.player and m.id != self.id:
                if math.dist(m.position, enemy.position) - m.radius - enemy.radius <= CONTACT + EPS:
                    return True
        return False

    def body_at(self, p: Point, facing: float | None = None) -> Body:
        """The mover's base placed at ``p`` (inches)."""
        return replace(self.body, center=(float(p[0]), float(p[1])),
                       facing=self.body.facing if facing is None else facing)

    def in_zoc_at(self, enemy_id: str, p: Point) -> bool:
        """Exact: would the mover's base at ``p`` be in ``enemy_id``'s ZoC (rulings 6)?"""
        return self.scene.zoc(enemy_id, self.body_at(p)).in_zoc

    def zoc_blockers(self, E: Body) -> list:
        """Obstacles (:class:`sim.geometry.Obstacle`) that block the LoS of the enemy
        ``E`` (a :class:`Body`) and so may hide part of its ZoC from the mover: Blocking
        terrain and models of at least E's LoS size (rulings.md 4 and 6), E and the
        mover themselves excepted."""
        threshold = max(E.size, self.scene.enhancing_size(E))
        return self.scene.blockers(threshold, (E.id, self.id))

    def zoc_shadowers(self, E: Body) -> list:
        """The :meth:`zoc_blockers` near enough to ``E`` to hide part of its ZoC (their
        bounding circle within E's radius + 1" of its centre, inches); empty when E's
        ZoC is shadow-free, so that closed forms are exact."""
        reach = E.radius + ZOC_RANGE
        return [ob for ob in self.zoc_blockers(E) if math.dist(ob.center, E.center) < ob.radius + reach + EPS]

    def zoc_bound(self, enemy_id: str, a: Point, b: Point):
        """Closed form ``(t0, t1)`` where the base meets ``enemy_id``'s ZoC ignoring
        shadows (a Blind enemy: its BtB ring), or ``None``. The exact entry, if any, is
        at or after ``t0``."""
        E = self.scene.bodies[enemy_id]
        if E.blind:
            return disc_interval(a, b, E.center, E.radius + self.r + CONTACT)
        if E.aware:
            return disc_interval(a, b, E.center, E.radius + ZOC_RANGE + self.r)
        return half_disc_dilated_interval(a, b, E.center, E.radius + ZOC_RANGE, self.scene.facing_unit(E.id), self.r)

    def zoc_entry(self, enemy_id: str, a: Point, b: Point) -> float | None:
        """Smallest ``t`` in ``[0, 1]`` at which the mover, moving from ``a`` to ``b``,
        is in ``enemy_id``'s ZoC; ``None`` if never. Exact: the ZoC without shadows is
        met in closed form; when Blocking terrain or models could cast shadows inside
        it, the first point is found by bisection on an exact, monotone test (does the
        swept base meet a point of the ZoC in the enemy's LoS?)."""
        E = self.scene.bodies[enemy_id]
        iv = self.zoc_bound(enemy_id, a, b)
        if iv is None:
            return None
        t0, t1 = iv
        if E.blind:
            return t0
        near = self.zoc_shadowers(E)
        if not near:
            return t0

        def p(t: float) -> Point:
            return lerp(a, b, t)

        # Monotone search: "the base swept from p(t0) to p(t) meets E's seen ZoC".
        # Knowing it fails up to ``lo``, each step only tests the new piece [lo, mid].
        if self.swept_meets_zoc(E, p(t0), p(t0), near):
            return t0
        if not self.swept_meets_zoc(E, p(t0), p(t1), near, start=False):
            return None
        lo, hi = t0, t1
        for _ in range(60):
            if (hi - lo) * math.dist(a, b) < EPS / 4:
                break
            mid = (lo + hi) / 2
            if self.swept_meets_zoc(E, p(lo), p(mid), near, start=False):
                hi = mid
            else:
                lo = mid
        return hi

    def swept_meets_zoc(self, E: Body, p0: Point, p1: Point, blockers, start: bool = True) -> bool:
        """Exact: does the mover's base swept from ``p0`` to ``p1`` (inches) meet a
        point of the enemy ``E``'s ZoC that E sees (Zone of Control p.9; rulings.md 6)?

        Three convex pieces (two end discs, the middle slab), each cut by E's ZoC disc
        and front arc, each a sight-line search among ``blockers`` (obstacles, e.g.
        :meth:`zoc_shadowers`). ``start=False`` skips the disc at ``p0`` (already known
        not to meet)."""
        zoc_disc = (E.center[0], E.center[1], E.radius + ZOC_RANGE)
        hps = []
        if not E.aware:
            fx, fy = self.scene.facing_unit(E.id)
            hps.append((fx, fy, fx * E.center[0] + fy * E.center[1]))
        regions = [Region.make([(p0[0], p0[1], self.r), zoc_disc], hps)] if start else []
        ux, uy, L = normalize(p1[0] - p0[0], p1[1] - p0[1])
        if L > 0:
            regions.append(Region.make([(p1[0], p1[1], self.r), zoc_disc], hps))
            nx, ny = -uy, ux
            s = nx * p0[0] + ny * p0[1]
            slab = [(nx, ny, s - self.r), (-nx, -ny, -s - self.r),
                    (ux, uy, ux * p0[0] + uy * p0[1]), (-ux, -uy, -(ux * p1[0] + uy * p1[1]))]
            regions.append(Region.make([zoc_disc], hps + slab))
        for reg in regions:
            if reg.is_empty:
                continue
            if find_sight_line(E.center, E.radius, reg, blockers):
                return True
        return False

    # ------------------------------------------------------------- path pieces
    def segment_cost(self, a: Point, b: Point) -> tuple[float, bool]:
        """``(cost, crosses_ideal)`` of one straight segment, inches."""
        L = math.dist(a, b)
        if L <= 0:
            return 0.0, False
        if self.ignores_terrain_and_models:
            return L, False
        diff, ideal = [], False
        for t in self.table.terrain:
            if carried_piece(t.id, self.id):  # an Aura's terrain moves with its user (feat_areas)
                continue
            if t.passage is Passage.DIFFICULT and self.difficult_factor != 1.0:
                diff.extend(footprint_intervals(a, b, t.footprint, self.r))
            elif t.passage is Passage.IDEAL and not ideal:
                ideal = bool(footprint_intervals(a, b, t.footprint, self.r))
        return L + (self.difficult_factor - 1.0) * covered_length(diff, L), ideal

    def path_cost(self, path: Sequence[Point]) -> tuple[float, bool]:
        """``(cost, crosses_ideal)`` of a polyline path."""
        total, ideal = 0.0, False
        for a, b in zip(path, path[1:]):
            c, i = self.segment_cost(a, b)
            total += c
            ideal = ideal or i
        return total, ideal

    def collisions(self, a: Point, b: Point) -> list[tuple[float, Reason]]:
        """Where the segment passes through another base or Impassable terrain:
        ``(t of first contact, reason)`` for each (touching is allowed)."""
        out: list[tuple[float, Reason]] = []
        if self.ignores_terrain_and_models:
            return out
        for m in self.table.models:
            if m.id == self.id:
                continue
            iv = disc_interval(a, b, m.position, self.r + m.radius - EPS)
            if iv is not None and iv[1] - iv[0] > 1e-12:
                at = lerp(a, b, iv[0])
                out.append((iv[0], Reason("passes-through-base", f"the base would pass through {m.id}'s base",
                                          "Move p.22; rulings.md 7", at, m.id)))
        for t in self.table.terrain:
            if t.passage is not Passage.IMPASSABLE:
                continue
            ivs = footprint_intervals(a, b, t.footprint, self.r)
            ivs = [iv for iv in ivs if iv[1] - iv[0] > 1e-12]
            if ivs:
                at = lerp(a, b, ivs[0][0])
                out.append((ivs[0][0], Reason("passes-through-impassable",
                                              f"the base would pass through Impassable {t.id}",
                                              "Move p.22; Terrain p.60; rulings.md 7", at, t.id)))
        return out

    def edge_stop(self, a: Point, b: Point) -> float | None:
        """Largest ``t`` the base can go along ``[a, b]`` before touching the table
        edge; ``None`` if it stays on the table."""
        lo, hi = 0.0, 1.0
        for k, size in ((0, self.table.width), (1, self.table.depth)):
            d = b[k] - a[k]
            for bound, sign in ((self.r, -1), (size - self.r, 1)):
                if d * sign > 1e-15:
                    t = (bound - a[k]) / d
                    hi = min(hi, t)
        return None if hi >= 1.0 else max(hi, lo)

    def on_table(self, p: Point) -> bool:
        """Whether the base centred at ``p`` lies wholly on the table (within EPS)."""
        x, y = p
        return ((self.r - EPS <= x <= self.table.width - self.r + EPS)
                and (self.r - EPS <= y <= self.table.depth - self.r + EPS))

    def end_overlaps(self, p: Point) -> list[Reason]:
        """A base may not end overlapping a base or Impassable terrain (also for
        Cloudwalk and Intangible, which pass through them)."""
        out = []
        for m in self.table.models:
            if m.id != self.id and math.dist(p, m.position) < self.r + m.radius - EPS:
                out.append(Reason("ends-on-base", f"the base would end on {m.id}'s base",
                                  "Move p.22: no part of a base on another base", p, m.id))
        for t in self.table.terrain:
            if t.passage is Passage.IMPASSABLE and t.footprint.overlap_depth_disc(p, self.r) > EPS:
                out.append(Reason("ends-in-impassable", f"the base would end in Impassable {t.id}",
                                  "Move p.22; Terrain p.60: not in Impassable terrain", p, t.id))
        return out

    def contacts_at(self, p: Point) -> tuple[str, ...]:
        """Enemy ids in BtB (gap <= CONTACT) with the base centred at ``p``."""
        return tuple(e.id for e in self.enemies if self._touching(p, e))


def _clean_path(mover: Mover, path: Sequence[Sequence[float]]) -> list[Point]:
    pts = [(float(p[0]), float(p[1])) for p in path]
    if not pts or math.dist(pts[0], mover.start) > 1e-6:
        pts.insert(0, mover.start)
    return pts


# -------------------------------------------------------------------- checks
def _common_checks(mover: Mover, path: list[Point], kind: str, allowance_base: float,
                   zoc_free: Sequence[str] = (),
                   zoc_ignored_after: float | None = None) -> tuple[list[Reason], float, float, bool]:
    """Checks shared by every move: table edge, bases, Impassable terrain, enemy ZoC
    entry (except ``zoc_free`` enemies), BtB into/out of, cost against allowance."""
    reasons: list[Reason] = []
    for p in path:
        if not mover.on_table(p):
            reasons.append(Reason("off-table", f"the base would leave the table at ({p[0]:.3f}, {p[1]:.3f})",
                                  "Movement p.22: a model stops when its base touches the table edge", p))
            break
    for a, b in zip(path, path[1:]):
        for _, reason in sorted(mover.collisions(a, b), key=lambda c: c[0]):
            reasons.append(reason)
    reasons.extend(mover.end_overlaps(path[-1]))
    reasons.extend(ward_reasons(mover, path))  # a Ki feat's Aura (Spirit Ward, sim.rules.game.feat_areas)
    cost, ideal = mover.path_cost(path)
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
    allowance = allowance_base + (IDEAL_BONUS if ideal and kind in ("walk", "run", "charge") else 0.0)
    if cost > allowance + EPS:
        reasons.append(Reason("too-long", f"the move costs {cost:.3f}\" but only {allowance:.3f}\" are allowed",
                              "Walk/Run/Charge p.22; Difficult and Ideal terrain p.60", path[-1]))
    return reasons, cost, length, ideal


def _zoc_reasons(mover: Mover, path: list[Point], allowed: set[str], rule: str) -> list[Reason]:
    """Entering the ZoC of an enemy not in ``allowed`` anywhere along the path."""
    if mover.ignores_zoc:
        return []
    out = []
    for e in mover.zoc_enemies:
        if e.id in allowed:
            continue
        # a ZoC the model starts in is left along the first leg (checked by
        # _start_zoc_reasons); entering it again on a later leg is entering it
        legs = list(zip(path, path[1:]))
        if e.id in mover.start_zocs:
            legs = legs[1:]
        for a, b in legs:
            t = mover.zoc_entry(e.id, a, b)
            if t is not None:
                out.append(Reason("enters-zoc", f"the base would enter {e.id}'s zone of control", rule,
                                  lerp(a, b, t), e.id))
                break
    return out


def _start_zoc_reasons(mover: Mover, path: list[Point], allow_towards: str | None = None) -> list[Reason]:
    """A model that starts in enemy ZoC moves directly away until out of every ZoC
    (or, with ``allow_towards``, directly towards that enemy): Zone of Control p.9."""
    if mover.ignores_zoc or not mover.start_zocs or len(path) < 2:
        return []
    a, b = path[0], path[1]
    ux, uy, L = normalize(b[0] - a[0], b[1] - a[1])
    if L == 0:
        return []
    rule = "Zone of Control p.9: starting in enemy ZoC, move directly towards or directly away"
    if allow_towards is not None and allow_towards in mover.start_zocs:
        E = mover.scene.bodies[allow_towards]
        if _off_line(a, b, E.center) <= DIRECT_TOLERANCE and (E.center[0] - a[0]) * ux + (E.center[1] - a[1]) * uy > 0:
            return []
    enemies = [mover.scene.bodies[i] for i in mover.start_zocs]
    for E in enemies:
        vx, vy = a[0] - E.center[0], a[1] - E.center[1]
        if vx * ux + vy * uy < -1e-9:
            return [Reason("zoc-start-not-away", f"starts in {E.id}'s ZoC and would move closer to it", rule, a, E.id)]
    if len(enemies) == 1 and _off_line(b, a, enemies[0].center, beyond=True) > DIRECT_TOLERANCE:
        return [Reason("zoc-start-not-away", f"starts in {enemies[0].id}'s ZoC: must move directly away from it",
                       rule, a, enemies[0].id)]
    # the straight part must carry the base out of every ZoC before any turn
    if len(path) > 2:
        for E in enemies:
            if mover.in_zoc_at(E.id, b):
                return [Reason("zoc-start-turns", f"turns while still in {E.id}'s ZoC", rule, b, E.id)]
    return []


def _off_line(a: Point, b: Point, c, beyond: bool = False) -> float:
    """Distance of ``b`` from the line through ``c`` and ``a`` (``beyond``: the ray from
    ``c`` through ``a``)."""
    ux, uy, L = normalize(a[0] - c[0], a[1] - c[1])
    if L == 0:
        return 0.0
    return abs((b[0] - c[0]) * uy - (b[1] - c[1]) * ux)


def _btb_reasons(mover: Mover, path: list[Point],
                 allowed_target: str | None = None) -> tuple[list[Reason], tuple[str, ...]]:
    """Into or out of BtB with enemies; returns reasons and the end contacts."""
    out = []
    end_contacts = mover.contacts_at(path[-1])
    for e in mover.enemies:
        if e.id == allowed_target:
            continue
        started = e.id in mover.start_contacts
        touched = any(disc_interval(a, b, e.position, mover.r + e.radius + CONTACT) is not None
                      for a, b in zip(path, path[1:]))
        if not started and touched:
            at = next(lerp(a, b, iv[0]) for a, b in zip(path, path[1:])
                      if (iv := disc_interval(a, b, e.position, mover.r + e.radius + CONTACT)) is not None)
            out.append(Reason("into-btb", f"the base would come into contact with enemy {e.id}", "Walk/Run p.22",
                              at, e.id))
        if started and not mover.leaves_contact_freely:
            left = any(math.dist(p, e.position) - mover.r - e.radius > CONTACT + EPS for p in path[1:])
            if left:
                out.append(Reason("out-of-btb", f"the base would leave contact with enemy {e.id} (Disengage, or Agile)",
                                  "Walk p.22; Disengage p.24; Agile", path[0], e.id))
    return out, end_contacts


def check_walk(table, model_id: str, path: Sequence[Sequence[float]], facing: float | None = None,
               activation_contacts: Sequence[str] = ()) -> MoveResult:
    """Judge a Walk along ``path`` (base-centre points, inches; the start may be
    omitted). Walk p.22: any path up to Move; may not enter an enemy ZoC, nor move into
    or out of BtB with an enemy; the facing may change at the end (``facing`` degrees,
    default: unchanged). A model starting in enemy ZoC must first move directly away
    until out of every ZoC.

    Raises:
        MoveError: unknown model or no Move value.
    """
    mover = Mover(table, model_id, activation_contacts)
    pts = _clean_path(mover, path)
    if len(pts) == 1:
        pts.append(pts[0])
    reasons, cost, length, _ = _common_checks(mover, pts, "walk", mover.move)
    reasons += _start_zoc_reasons(mover, pts)
    reasons += _zoc_reasons(mover, pts, set(), "Walk p.22: may not enter an enemy ZoC")
    btb, contacts = _btb_reasons(mover, pts)
    reasons += btb
    end_facing = mover.body.facing if facing is None else float(facing) % 360.0
    return MoveResult("walk", model_id, tuple(pts), not reasons, cost, length,
                      mover.move + (IDEAL_BONUS if mover.path_cost(pts)[1] else 0.0), end_facing, tuple(reasons),
                      contacts)


def check_run(table, model_id: str, point: Sequence[float], activation_contacts: Sequence[str] = ()) -> MoveResult:
    """Judge a Run to ``point`` (inches). Run p.22: pick a point in LoS, turn to face
    it, move straight towards it up to 1.5 x Move; no enemy ZoC, no contact with an
    enemy; no facing change after.

    Raises:
        MoveError: unknown model or no Move value.
    """
    mover = Mover(table, model_id, activation_contacts)
    p = (float(point[0]), float(point[1]))
    pts = [mover.start, p]
    allowance = 1.5 * mover.move
    reasons, cost, length, ideal = _common_checks(mover, pts, "run", allowance)
    los = mover.scene.los_to_point(model_id, p)
    if not los.visible:
        reasons.insert(0, Reason("run-not-in-los",
                                 f"the point ({p[0]:.3f}, {p[1]:.3f}) is not in {model_id}'s LoS ({los.reason})",
                                 "Run p.22: pick a point in LoS", p))
    reasons += _start_zoc_reasons(mover, pts)
    reasons += _zoc_reasons(mover, pts, set(), "Run p.22: may not run through enemy ZoC")
    btb, contacts = _btb_reasons(mover, pts)
    reasons += btb
    ux, uy, L = normalize(p[0] - mover.start[0], p[1] - mover.start[1])
    end_facing = heading(ux, uy) if L > 0 else mover.body.facing
    return MoveResult("run", model_id, tuple(pts), not reasons, cost, length,
                      allowance + (IDEAL_BONUS if ideal else 0.0), end_facing, tuple(reasons), contacts)


def check_melee_move(table, model_id: str, target_id: str, path: Sequence[Sequence[float]],
                     activation_contacts: Sequence[str] = (), also: Sequence[str] = ()) -> MoveResult:
    """Judge the move of a Melee action (p.24): up to Move into BtB with the chosen
    enemy, entering only that enemy's ZoC; inside its ZoC (or with the target in the
    mover's ZoC) other ZoCs are ignored; a model that starts in BtB with one enemy may
    move around its base ignoring other ZoCs. ``also``: the other enemies of a Split
    Attack (p.58): their ZoC is ignored too and the move must end in BtB with each.

    Raises:
        MoveError: unknown model, no Move value, or a target that is not an enemy.
    """
    mover = Mover(table, model_id, activation_contacts)
    if target_id not in {e.id for e in mover.enemies}:
        raise MoveError(f"{target_id!r} is not an enemy of {model_id!r}")
    pts = _clean_path(mover, path)
    if len(pts) == 1:
        pts.append(pts[0])
    reasons, cost, length, _ = _common_checks(mover, pts, "melee", mover.move)
    target_sees = mover.in_zoc_at(target_id, mover.start) or mover.scene.zoc(model_id, target_id).in_zoc
    around = len(mover.start_contacts) == 1
    if not (target_sees or around):
        reasons += _start_zoc_reasons(mover, pts, allow_towards=target_id)
        reasons += _zoc_reasons(mover, pts, {target_id, *also}, "Melee p.24: only the target's ZoC may be entered")
    end_contacts = mover.contacts_at(pts[-1])
    reached = target_id in end_contacts
    if not reached:
        reasons.append(Reason("melee-not-in-btb", f"the move does not end in BtB with {target_id}", "Melee p.24",
                              pts[-1], target_id))
    for other in also:  # Split Attack (p.58): in contact with every enemy it fights
        if other not in end_contacts:
            reasons.append(Reason("melee-not-in-btb", f"the move does not end in BtB with {other} (Split Attack)",
                                  "Split Attack p.58", pts[-1], other))
    if mover.start_contacts and target_id not in mover.start_contacts and not mover.leaves_contact_freely:
        # in BtB with an enemy at the start: only around that enemy's base, never leaving it (p.24)
        for e in mover.enemies:
            if e.id in mover.start_contacts and any(math.dist(p, e.position) - mover.r - e.radius > CONTACT + EPS
                                                    for p in pts[1:]):
                reasons.append(Reason("out-of-btb", f"the base would leave contact with enemy {e.id}: a model in "
                                      "contact moves only around that enemy's base (Disengage to leave it)",
                                      "Melee p.24", pts[0], e.id))
                break
    others = [c for c in end_contacts if c != target_id and c not in mover.start_contacts and c not in also]
    if others or (reached and any(c != target_id and c not in also for c in mover.activation_contacts)):
        who = others[0] if others else mover.activation_contacts[0]
        reasons.append(Reason("second-enemy", f"would come into BtB with a second enemy ({who}) this activation",
                              "rulings.md 7: one enemy per activation", pts[-1], who))
    T = mover.scene.bodies[target_id]
    fx, fy, fl = normalize(T.center[0] - pts[-1][0], T.center[1] - pts[-1][1])
    return MoveResult("melee", model_id, tuple(pts), not reasons, cost, length, mover.move,
                      heading(fx, fy) if fl else mover.body.facing, tuple(reasons), end_contacts,
                      reached=reached, target=target_id)


# --------------------------------------------------------------------- charge
def _advance(mover: Mover, a: Point, u: tuple[float, float], max_len: float, budget: float,
             stop_before_zocs: Sequence[str], target_zoc: str | None) -> tuple[Point, float, Reason | None, bool]:
    """Move from ``a`` along unit ``u`` at most ``max_len`` inches and ``budget`` inches
    of cost. Stops at first contact with a base or Impassable terrain, at the table
    edge, immediately before the ZoC of any enemy in ``stop_before_zocs``, or on
    touching ``target_zoc``'s ZoC. Returns ``(end, cost, stop reason, touched target ZoC)``."""
    if max_len <= 0:
        return a, 0.0, None, False
    b = (a[0] + u[0] * max_len, a[1] + u[1] * max_len)
    stops: list[tuple[float, Reason | None, bool]] = []
    discs, feet = [], []
    if not mover.ignores_terrain_and_models:
        discs = [(m.id, m.position, m.radius) for m in mover.table.models if m.id != mover.id]
        feet = [(t.id, t.footprint) for t in mover.table.terrain if t.passage is Passage.IMPASSABLE]
    dist, kind, key = first_contact(a, u, max_len, mover.r, discs, feet, (mover.table.width, mover.table.depth))
    if kind is not None:
        t = dist / max_len
        at = lerp(a, b, t)
        why: Reason | None
        if kind == "base":
            why = Reason("stopped-by-base", f"stops against {key}'s base", "Move p.22; rulings.md 7", at, key)
        elif kind == "terrain":
            why = Reason("stopped-by-impassable", f"stops against Impassable {key}", "Move p.22; Terrain p.60", at, key)
        else:
            why = Reason("table-edge", "the base touches the table edge", "Movement p.22", at)
        stops.append((t, why, False))
    # movement budget along the line (difficult terrain)
    t_budget = _budget_t(mover, a, b, budget)
    if t_budget < 1.0:
        stops.append((t_budget, Reason("out-of-movement", "the move runs out of inches", "Charge p.22",
                                       lerp(a, b, t_budget)), False))
    # ZoC stops, lazily: the closed-form entry ignoring shadows is a lower bound of the
    # exact one, so enemies are taken in that order until none can come first.
    zocs = [(eid, False) for eid in (stop_before_zocs if not mover.ignores_zoc else ())]
    if target_zoc is not None:
        zocs.append((target_zoc, True))
    bounds = []
    for eid, is_target in zocs:
        iv = mover.zoc_bound(eid, a, b)
        if iv is not None:
            bounds.append((iv[0], eid, is_target))
    for lower, eid, is_target in sorted(bounds):
        best = min((st[0] for st in stops), default=1.0)
        if lower > best:
            break
        t = mover.zoc_entry(eid, a, b)
        if t is None:
            continue
        if is_target:
            stops.append((t, None, True))
        else:
            t = max(0.0, t - EPS / max_len)
            stops.append((t, Reason("stops-before-zoc", f"stops immediately before {eid}'s ZoC",
                                    "Charge p.22: stops before another enemy's ZoC", lerp(a, b, t), eid), False))
    if not stops:
        t, why, touched = 1.0, None, False
    else:
        t, why, touched = min(stops, key=lambda s: (s[0], s[2] is False))
    end = lerp(a, b, t)
    cost, _ = mover.segment_cost(a, end)
    return end, cost, why, touched


#: A mark among a table model's traits: ``ward:x,y,R`` -- while its base is within R" of the point
#: (x, y) (an Aura's area around its user), it may not move closer to that point (Spirit Ward).
WARD_MARK = "ward:"


def ward_reasons(mover: Mover, path: list[Point]) -> list[Reason]:
    """Legs of ``path`` that bring the mover closer to the user of a warding Aura while its
    base is within the Aura (:data:`WARD_MARK`). Along a straight leg the distance to the
    point falls until the leg's nearest point and rises after: the leg moves closer within
    the Aura when it starts by moving closer and that nearest point lies inside the Aura."""
    out: list[Reason] = []
    for t in mover.model.traits:
        if not t.startswith(WARD_MARK):
            continue
        try:
            x, y, big_r = (float(v) for v in t[len(WARD_MARK):].split(","))
        except ValueError:
            continue
        for a, b in zip(path, path[1:]):
            dx, dy = b[0] - a[0], b[1] - a[1]
            L2 = dx * dx + dy * dy
            if L2 <= EPS * EPS:
                continue
            s = ((x - a[0]) * dx + (y - a[1]) * dy) / L2  # where the leg is nearest the point
            if s <= EPS:
                continue  # it moves away (or sideways) from the start
            s = min(1.0, s)
            near = math.dist((a[0] + s * dx, a[1] + s * dy), (x, y))
            if near < big_r + mover.r - EPS:
                out.append(Reason("ward", "the base would move closer to the user of a warding Aura while within "
                                  "it", "Ki feat (Spirit Ward): within the Aura it may not move closer to its user",
                                  (a[0] + s * dx, a[1] + s * dy)))
                break
    return out


def carried_piece(piece_id: str, model_id: str) -> bool:
    """Whether terrain piece ``piece_id`` is the area of an Aura feat of ``model_id``
    (``aura:<model>:<feat>``, :mod:`sim.rules.game.feat_areas`): the area moves with its
    user, so the user's own moves never cross it (docs/rulings-project.md, round 6 F2)."""
    return piece_id.startswith(f"aura:{model_id}:")


def _budget_t(mover: Mover, a: Point, b: Point, budget: float) -> float:
    """Largest ``t`` with cost(a -> p(t)) <= budget (costs grow piecewise linearly)."""
    L = math.dist(a, b)
    if L <= 0:
        return 1.0
    if mover.ignores_terrain_and_models or mover.difficult_factor == 1.0:
        return min(1.0, budget / L)
    diff = []
    for t in mover.table.terrain:
        if t.passage is Passage.DIFFICULT and not carried_piece(t.id, mover.id):
            diff.extend(footprint_intervals(a, b, t.footprint, mover.r))
    return budget_fraction(merge(diff), L, mover.difficult_factor, budget)


def plan_charge(table, model_id: str, target_id: str, direction: float | None = None,
                activation_contacts: Sequence[str] = (), also: Sequence[str] = ()) -> MoveResult:
    """The Charge of ``model_id`` at ``target_id`` (p.22, rulings.md 7).

    A straight line towards the target (``direction`` degrees; default: at the target's
    centre; it must not take the base farther from the target), up to 2 x Move. It stops
    immediately before any other enemy's ZoC unless the charger is already in the
    target's ZoC or the target in the charger's. From the moment the base touches the
    target's ZoC it moves directly towards the target until BtB, within the same
    allowance. A charge that falls short ends where it stops (``reached`` False; still a
    legal move). A Cloudwalk or Intangible charger passes over bases and Impassable
    terrain; a Charge whose end would overlap a base or Impassable terrain is illegal
    (``ends-on-base``, ``ends-in-impassable``; docs/rulings-project.md 28). ``also``: the
    other enemies of a Split Attack (p.58): their ZoC does not stop the charge, and it must
    end in BtB with each of them too.

    Raises:
        MoveError: unknown model, no Move value, or a target that is not an enemy.
    """
    mover = Mover(table, model_id, activation_contacts)
    if target_id not in {e.id for e in mover.enemies}:
        raise MoveError(f"{target_id!r} is not an enemy of {model_id!r}")
    T = mover.scene.bodies[target_id]
    start = mover.start
    gap0 = math.dist(start, T.center) - mover.r - T.radius
    reasons: list[Reason] = []
    stop: Reason | None = None
    engaged = mover.in_zoc_at(target_id, start) or mover.scene.zoc(model_id, target_id).in_zoc
    others = [] if engaged else [e.id for e in mover.zoc_enemies if e.id != target_id and e.id not in mover.start_zocs
                                 and e.id not in also]
    bonus = 0.0
    for _ in range(2):  # a second pass if the path crosses Ideal terrain (+2")
        budget = 2 * mover.move + bonus
        path = [start]
        spent = 0.0
        touched = engaged or gap0 <= CONTACT + EPS
        if not touched:
            if direction is None:
                ux, uy, _ = normalize(T.center[0] - start[0], T.center[1] - start[1])
            else:
                ux, uy = unit_vector(direction)
            end, c, stop, touched = _advance(mover, start, (ux, uy), budget, budget, others, target_id)
            spent += c
            if math.dist(end, start) > 0:
                path.append(end)
            if (T.center[0] - end[0]) * ux + (T.center[1] - end[1]) * uy < -EPS:
                reasons.append(Reason("not-towards", "the straight line would take the base away from the target",
                                      "Charge p.22; rulings.md 7 (towards)", end, target_id))
        if touched and stop is None:
            p = path[-1]
            dx, dy, dist = normalize(T.center[0] - p[0], T.center[1] - p[1])
            to_btb = max(0.0, dist - mover.r - T.radius)
            if to_btb > 0:
                end, c, stop2, _ = _advance(mover, p, (dx, dy), to_btb, budget - spent, (), None)
                spent += c
                if math.dist(end, p) > 0:
                    path.append(end)
                stop = stop2
        cost, ideal = mover.path_cost(path)
        if ideal and bonus == 0.0:
            bonus = IDEAL_BONUS
            continue
        break
    end = path[-1]
    contacts = mover.contacts_at(end)
    reached = target_id in contacts
    if reached:
        stop = Reason("contact", f"in base contact with {target_id}", "Charge p.22", end, target_id)
    elif stop is None:
        stop = Reason("out-of-movement", "the charge falls short",
                      "Charge p.25: a charge that falls short ends where it stops", end)
    extra = [c for c in contacts if c != target_id and c not in mover.start_contacts and c not in also]
    for other in also:  # Split Attack (p.58)
        if reached and other not in contacts:
            reasons.append(Reason("charge-not-in-btb", f"the charge does not end in BtB with {other} (Split Attack)",
                                  "Split Attack p.58", end, other))
    if extra:
        reasons.append(Reason("second-enemy", f"would come into BtB with another enemy ({extra[0]})",
                              "rulings.md 7: one enemy per activation", end, extra[0]))
    if not mover.on_table(end):
        reasons.append(Reason("off-table", "the base would end off the table", "Movement p.22", end))
    # A Cloudwalk or Intangible charger passes over bases and Impassable terrain but may
    # not end on them: the Charge is then illegal (docs/rulings-project.md 28).
    reasons.extend(mover.end_overlaps(end))
    fx, fy, fl = normalize(T.center[0] - end[0], T.center[1] - end[1])
    cost, _ = mover.path_cost(path)
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
    return MoveResult("charge", model_id, tuple(path), not reasons, cost, length, 2 * mover.move + bonus,
                      heading(fx, fy) if fl else mover.body.facing, tuple(reasons), contacts, stop, reached, target_id)
