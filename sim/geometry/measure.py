"""Distance, front arc, LoS, cover and ZoC between models on a table.

Pure geometry (numpy, shapely): the rulebook's Terms and Concepts (p.4-9) as fixed by
``shared/rulings.md`` sections 2-6. Everything is in inches and degrees.

The two inputs are plain records: :class:`Body` (a model's base as geometry sees it) and
:class:`Piece` (a terrain piece). A :class:`Scene` holds both, prepares the obstacles
once, and answers questions about pairs of models::

    >>> from sim.geometry import Body, Scene, Size
    >>> a = Body("a", (6, 12), 0.5906, Size.SMALL, facing=0)
    >>> b = Body("b", (12, 12), 0.5906, Size.SMALL, facing=180)
    >>> s = Scene([a, b], [])
    >>> round(s.distance("a", "b"), 4), s.los("a", "b").visible
    (4.8188, True)
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry import MultiPoint
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon as SPolygon

from .attributes import CONTACT, COVER_RANGE, EPS, ZOC_RANGE, Passage, Size, Visibility
from .primitives import unit_vector
from .shapes import Footprint
from .sight import Obstacle, Region, SightLine, disc_region, find_sight_line, point_region

#: The id prefix of a Shroud Aura's piece (``shroud:<user>:<feat>``, a Ki feat's area, no terrain
#: rule of its own): enemies of its user outside it do not see models completely inside it,
#: and those models do not block their LoS (sim.rules.game.feat_areas).
SHROUD = "shroud:"


@dataclass(frozen=True)
class Body:
    """A model's base as the geometry sees it.

    Attributes:
        id: unique id.
        center: base centre ``(x, y)``, inches.
        radius: base radius, inches.
        size: the model's Size.
        facing: direction of the facing line, degrees CCW from +x.
        aware: trait Aware (front arc is 360 degrees).
        prone: Prone models do not block LoS.
        elsewhere: models Elsewhere do not block LoS.
        blind: Blind models have LoS only to models in BtB.
        construct: trait Construct (counts as Blocking terrain of its size for cover).
        sight: LoS only to models within this many inches, edge to edge (base contact always
            sees); None: no limit (a Ki feat's limit: Darkness).
        covered: it has Cover from every model that sees it (a Ki feat's Aura: Dashuhua).
        player: 1 or 2 (not used by the geometry; kept for answers).
    """

    id: str
    center: tuple[float, float]
    radius: float
    size: Size
    facing: float = 0.0
    aware: bool = False
    prone: bool = False
    elsewhere: bool = False
    blind: bool = False
    construct: bool = False
    player: int = 0
    sight: float | None = None  # LoS only up to this many inches, edge to edge (a Ki feat: Darkness)
    covered: bool = False  # it has Cover against every model that sees it (a Ki feat's Aura: Dashuhua)

    @property
    def facing_vector(self) -> np.ndarray:
        """Unit facing vector ``(2,)``."""
        return np.array(unit_vector(self.facing))


@dataclass(frozen=True)
class Piece:
    """A terrain piece as the geometry sees it (Terrain p.60-62)."""

    id: str
    footprint: Footprint
    visibility: Visibility
    size: Size
    passage: Passage = Passage.NORMAL


# ------------------------------------------------------------------------- answers
@dataclass(frozen=True)
class LosResult:
    """Whether ``origin`` has LoS to ``target`` (rulings.md section 4).

    Attributes:
        visible: the verdict.
        line: a clear sight line ``(a, b)`` when visible.
        blocked_by: ids of the elements that block the critical lines when not visible.
        reason: one sentence a player can read.
    """

    visible: bool
    line: SightLine | None = None
    blocked_by: tuple[str, ...] = ()
    reason: str = ""

    def __bool__(self) -> bool:
        return self.visible


@dataclass(frozen=True)
class CoverResult:
    """Whether ``target`` has cover from ``origin`` (rulings.md section 5).

    Attributes:
        cover: the verdict (always False without LoS).
        piece: id of the terrain piece (or Construct model) that gives cover.
        line: a sight line that crosses ``piece`` and no other blocker.
    """

    cover: bool
    piece: str | None = None
    line: SightLine | None = None

    def __bool__(self) -> bool:
        return self.cover


@dataclass(frozen=True)
class ZocResult:
    """Whether ``target`` is in ``owner``'s zone of control (rulings.md section 6).

    Attributes:
        in_zoc: the verdict.
        line: a clear segment from the owner's base to a point of the target's base
            within 1" and in the owner's arc, when ``in_zoc``.
        reason: one sentence.
    """

    in_zoc: bool
    line: SightLine | None = None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.in_zoc


@dataclass(frozen=True)
class PairMeasure:
    """Every relation from one model to another: the ``measure`` JSON entry.

    ``distance`` is edge to edge in inches; the other fields follow formats.md.
    """

    origin: str
    target: str
    distance: float
    in_arc: bool
    los: LosResult
    cover: CoverResult
    zoc: ZocResult
    btb: bool

    def to_json(self, digits: int = 4) -> dict:
        """The formats.md ``measure`` entry plus explanatory keys."""
        out = {
            "from": self.origin,
            "to": self.target,
            "distance": round(self.distance, digits),
            "in_arc": self.in_arc,
            "los": self.los.visible,
            "cover": self.cover.cover,
            "in_zoc": self.zoc.in_zoc,
            "btb": self.btb,
            "blocked_by": list(self.los.blocked_by),
            "cover_from": self.cover.piece,
        }
        if self.los.line is not None:
            out["los_line"] = [[round(v, digits) for v in self.los.line.a], [round(v, digits) for v in self.los.line.b]]
        return out


# --------------------------------------------------------------------------- scene
def edge_distance(c1, r1: float, c2, r2: float) -> float:
    """Edge-to-edge distance of two bases, ``max(0, |c1 - c2| - r1 - r2)`` inches
    (Measuring Distances, p.4-9; rulings.md section 2)."""
    return max(0.0, math.hypot(c1[0] - c2[0], c1[1] - c2[1]) - (r1 + r2))


def within(distance: float, limit: float) -> bool:
    """Inclusive "within": ``distance <= limit + EPS`` (exactly 6" is within 6")."""
    return distance <= limit + EPS


#: footprint -> {piece id: Obstacle}: the obstacles of terrain pieces, kept while their
#: footprint lives, so a table rebuilt after an event (the same pieces) reuses them with
#: their prepared edges.
_TERRAIN_OBSTACLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def terrain_obstacle(piece_id: str, footprint: Footprint) -> Obstacle:
    """``Obstacle.from_footprint(piece_id, footprint)``, the same object for the same
    footprint object and id (obstacles are immutable; their prepared edges and scalar
    copies are computed once)."""
    per = _TERRAIN_OBSTACLES.get(footprint)
    if per is None:
        per = _TERRAIN_OBSTACLES[footprint] = {}
    ob = per.get(piece_id)
    if ob is None:
        ob = per[piece_id] = Obstacle.from_footprint(piece_id, footprint)
    return ob


class Scene:
    """Bodies and terrain pieces, prepared for repeated LoS, cover and ZoC queries.

    Args:
        bodies: the models' bases; ids must be unique.
        pieces: the terrain pieces; ids must be unique.

    Raises:
        ValueError: duplicate ids.
    """

    def __init__(self, bodies: Iterable[Body], pieces: Iterable[Piece] = ()):
        self.bodies: dict[str, Body] = {}
        for b in bodies:
            if b.id in self.bodies:
                raise ValueError(f"duplicate model id {b.id!r}")
            self.bodies[b.id] = b
        self.pieces: dict[str, Piece] = {}
        for p in pieces:
            if p.id in self.pieces:
                raise ValueError(f"duplicate terrain id {p.id!r}")
            self.pieces[p.id] = p
        self._piece_obstacles = {pid: terrain_obstacle(pid, p.footprint) for pid, p in self.pieces.items()}
        self._body_obstacles = {bid: Obstacle.disc(bid, b.center, b.radius) for bid, b in self.bodies.items()}
        self._enhancing_under = {bid: self._enhancing_size(b.center) for bid, b in self.bodies.items()}
        self._facing = {bid: unit_vector(b.facing) for bid, b in self.bodies.items()}
        self._blockers_by_size: dict[Size, list[Obstacle]] = {}
        self._piece_gap: dict[tuple[str, str], float] = {}
        self._cover_cands: dict[str, list] = {}
        # Shroud Auras (a Ki feat, sim.rules.game.feat_areas): pieces ``shroud:<user>:<feat>``,
        # circles with no terrain rule of their own -- (centre, radius, the user's player)
        self._shrouds = [(p.footprint.center, float(p.footprint.radius or 0.0),
                          self.bodies[pid.split(":")[1]].player if pid.split(":")[1] in self.bodies else 0)
                         for pid, p in self.pieces.items() if pid.startswith(SHROUD) and p.footprint.is_circle]

    # -------------------------------------------------------------- helpers
    def body(self, ref) -> Body:
        """The :class:`Body` for ``ref``: a model id of this scene, or a Body (returned
        as it is, so that questions may be asked about a base placed elsewhere).

        Raises:
            KeyError: an unknown id.
        """
        return ref if isinstance(ref, Body) else self.bodies[ref]

    def facing_unit(self, body_id: str) -> tuple[float, float]:
        """The unit facing vector ``(fx, fy)`` of this scene's body ``body_id`` (cached).

        Raises:
            KeyError: an unknown id.
        """
        return self._facing[body_id]

    def _enhancing_size(self, point) -> Size:
        best = Size.ZERO
        for p in self.pieces.values():
            if p.visibility is Visibility.ENHANCING and p.footprint.contains_point(point):
                best = max(best, p.size)
        return best

    def enhancing_size(self, body) -> Size:
        """Largest Enhancing piece the body stands on (centre inside), else ``ZERO``."""
        b = self.body(body)
        got = self._enhancing_under.get(b.id)
        return got if got is not None and self.bodies.get(b.id) is b else self._enhancing_size(b.center)

    def blockers(self, threshold: Size, exclude: Sequence[str] = ()) -> list[Obstacle]:
        """Obstacles that block LoS for elements of size ``>= threshold``: Blocking
        terrain, and models not Prone, not Elsewhere, not in ``exclude``."""
        base = self._blockers_by_size.get(threshold)
        if base is None:
            base = [
                self._piece_obstacles[pid]
                for pid, p in self.pieces.items()
                if p.visibility is Visibility.BLOCKING and p.size >= threshold
            ]
            for bid, b in self.bodies.items():
                if not (b.prone or b.elsewhere or b.size < threshold):
                    base.append(self._body_obstacles[bid])
            self._blockers_by_size[threshold] = base
        if not exclude:
            return list(base)
        return [ob for ob in base if ob.key not in exclude]

    def piece_gap(self, piece_id: str, body) -> float:
        """Distance in inches from a terrain piece to a model's base (0 if they overlap;
        rulings.md section 2). Cached per scene."""
        B = self.body(body)
        key = (piece_id, B.id)
        got = self._piece_gap.get(key)
        if got is None or self.bodies.get(B.id) is not B:
            got = self.pieces[piece_id].footprint.distance_to_disc(B.center, B.radius)
            if self.bodies.get(B.id) is B:
                self._piece_gap[key] = got
        return got

    def _region(self, origin: Body, target: Body, extra_discs=()) -> Region:
        f = self._facing[origin.id] if self.bodies.get(origin.id) is origin else tuple(origin.facing_vector)
        arc = None if origin.aware else (origin.center, f)
        return disc_region(target.center, target.radius, arc, extra_discs)

    # -------------------------------------------------------------- questions
    def distance(self, a, b) -> float:
        """Edge-to-edge distance between two models' bases, inches (section 2)."""
        A, B = self.body(a), self.body(b)
        return edge_distance(A.center, A.radius, B.center, B.radius)

    def btb(self, a, b) -> bool:
        """True if the two bases touch: gap ``<= CONTACT`` (section 1)."""
        return self.distance(a, b) <= CONTACT + EPS

    def in_arc(self, origin, target) -> bool:
        """Some point of ``target``'s base lies in ``origin``'s front arc (section 3)."""
        O, T = self.body(origin), self.body(target)
        if O.aware:
            return True
        fx, fy = self._facing[O.id] if self.bodies.get(O.id) is O else tuple(O.facing_vector)
        return (T.center[0] - O.center[0]) * fx + (T.center[1] - O.center[1]) * fy + T.radius >= -EPS

    def point_in_arc(self, origin, p) -> bool:
        """Point ``p`` lies in ``origin``'s front arc (section 3)."""
        O = self.body(origin)
        if O.aware:
            return True
        return float((np.asarray(p, float) - O.center) @ O.facing_vector) >= -EPS

    def los_threshold(self, origin, target) -> Size:
        """Smallest size that blocks LoS between the two: the larger of their sizes and
        of any Enhancing piece either stands on (section 4)."""
        O, T = self.body(origin), self.body(target)
        return max(O.size, T.size, self.enhancing_size(O), self.enhancing_size(T))

    def los(self, origin, target) -> LosResult:
        """Does ``origin`` have LoS to ``target``? Exact (section 4).

        Raises:
            KeyError: unknown model id.
        """
        O, T = self.body(origin), self.body(target)
        if O.id == T.id:
            return LosResult(True, SightLine(O.center, O.center), reason="a model sees itself")
        if O.blind:
            if self.btb(O, T):
                return LosResult(True, SightLine(O.center, T.center), reason="Blind: LoS only to models in BtB")
            return LosResult(False, reason="Blind: LoS only to models in BtB")
        if not self.in_arc(O, T):
            return LosResult(False, reason=f"{T.id} is outside {O.id}'s front arc")
        if O.sight is not None and not self.btb(O, T) and self.distance(O, T) > O.sight + EPS:
            return LosResult(False, reason=f"{O.id} draws LoS only up to {O.sight:g}\" (a Ki feat)")
        if self.btb(O, T):  # project ruling: bases in contact always see each other
            return LosResult(True, self._contact_line(O, T), reason="in base contact (BtB)")
        unseen: tuple[str, ...] = ()
        if self._shrouds:  # a Shroud Aura (Ki feat): hidden from enemies outside; no blocker for them
            hidden, unseen = self._shrouded(O, T)
            if hidden:
                return LosResult(False, reason=f"{T.id} is completely inside an enemy Shroud and {O.id} is outside it")
        threshold = self.los_threshold(O, T)
        found = find_sight_line(O.center, O.radius, self._region(O, T),
                                self.blockers(threshold, (O.id, T.id) + unseen))
        if found:
            return LosResult(True, found.line, reason="clear sight line")
        names = ", ".join(found.blockers) or "blocking elements"
        return LosResult(False, None, tuple(found.blockers), f"every sight line is blocked by {names}")

    def _shrouded(self, O: Body, T: Body) -> tuple[bool, tuple[str, ...]]:
        """Shroud Auras of ``O``'s enemies: ``(hidden, unseen)`` -- whether ``T`` lies completely
        inside one that ``O``'s base is not in (no LoS), and the models completely inside
        such Auras, which do not block ``O``'s LoS."""
        hidden = False
        unseen: list[str] = []
        for c, r, player in self._shrouds:
            if player == O.player:
                continue
            inside = [bid for bid, b in self.bodies.items()
                      if math.dist(b.center, c) + b.radius <= r + EPS and bid not in (O.id, T.id)]
            unseen += inside
            o_in = math.dist(O.center, c) - O.radius <= r + EPS
            if not o_in and math.dist(T.center, c) + T.radius <= r + EPS:
                hidden = True
        return hidden, tuple(unseen)

    def _contact_line(self, O: Body, T: Body) -> SightLine:
        """The witness for two bases in contact: from ``O``'s rim to the point of ``T``'s
        base in ``O``'s front arc that is nearest to ``O`` (at most ``CONTACT`` long when
        the facing rims are in the arc; a single point when they touch).

        When the nearest rim point of ``T`` lies behind ``O``'s arc (``T`` beside or
        slightly behind ``O``, some of its base still in the arc), the line ends on the
        arc's boundary instead, so the witness always lies in the front arc
        (rulings.md section 4: ``b`` in ``O``'s front arc)."""
        ox, oy = float(O.center[0]), float(O.center[1])
        tx, ty = float(T.center[0]), float(T.center[1])
        dx, dy = tx - ox, ty - oy
        L = math.hypot(dx, dy) or 1.0
        bx, by = tx - dx / L * T.radius, ty - dy / L * T.radius  # T's rim nearest O
        if not O.aware:
            f = self._facing[O.id] if self.bodies.get(O.id) is O else tuple(O.facing_vector)
            fx, fy = float(f[0]), float(f[1])
            if (bx - ox) * fx + (by - oy) * fy < 0:
                # nearest point of T's base on the arc line (through O's centre, normal f)
                s = (tx - ox) * fx + (ty - oy) * fy  # signed depth of T's centre, <= 0 here
                h = math.sqrt(max(T.radius * T.radius - s * s, 0.0))
                fx0, fy0 = tx - s * fx, ty - s * fy  # T's centre projected on the line
                ex, ey = -fy, fx
                side = 1.0 if (ox - fx0) * ex + (oy - fy0) * ey > 0 else -1.0
                bx, by = fx0 + side * h * ex, fy0 + side * h * ey
        vx, vy = bx - ox, by - oy
        n = math.hypot(vx, vy)
        if n <= O.radius or n == 0:
            return SightLine((bx, by), (bx, by))
        return SightLine((ox + vx / n * O.radius, oy + vy / n * O.radius), (bx, by))

    def los_to_point(self, origin, p, exclude: Sequence[str] = ()) -> LosResult:
        """LoS from ``origin``'s base to point ``p`` (section 4, "LoS to a point"):
        ``p`` in the arc and some segment from the base clear of Blocking terrain and
        models of size ``>= size(origin)`` (other than ``origin`` and ``exclude``)."""
        O = self.body(origin)
        if not self.point_in_arc(O, p):
            return LosResult(False, reason="point outside the front arc")
        threshold = max(O.size, self.enhancing_size(O))
        found = find_sight_line(O.center, O.radius, point_region(p), self.blockers(threshold, (O.id, *exclude)))
        if found:
            return LosResult(True, found.line, reason="clear sight line")
        return LosResult(False, None, tuple(found.blockers), "blocked by " + ", ".join(found.blockers))

    def cover(self, origin, target, los: LosResult | None = None) -> CoverResult:
        """Does ``target`` have cover from ``origin``? (section 5).

        Cover needs LoS and a sight line that crosses an Obscuring or Blocking piece
        (or a Construct model) within 1" of the target and no other blocker.
        """
        O, T = self.body(origin), self.body(target)
        los = los if los is not None else self.los(O, T)
        if not los.visible or O.blind:
            return CoverResult(False)
        if T.covered:  # a Ki feat gives it Cover (Dashuhua's Aura)
            return CoverResult(True, None, los.line)
        threshold = self.los_threshold(O, T)
        blockers = self.blockers(threshold, (O.id, T.id))
        region = self._region(O, T)
        for key, ob in self._cover_candidates(O, T):
            others = [b for b in blockers if b is not ob and b.key != key]
            found = find_sight_line(O.center, O.radius, region, others, must_cross=ob)
            if found:
                return CoverResult(True, key, found.line)
        return CoverResult(False)

    def _cover_candidates(self, O: Body, T: Body):
        if self.bodies.get(T.id) is T and self.bodies.get(O.id) is O:
            cached = self._cover_cands.get(T.id)
            if cached is None:
                cached = self._cover_cands[T.id] = self._cover_candidates_uncached(None, T)
            return [(k, ob) for k, ob in cached if k != O.id]
        return self._cover_candidates_uncached(O, T)

    def _cover_candidates_uncached(self, O: Body | None, T: Body):
        cands = []
        for pid, p in self.pieces.items():
            if p.visibility not in (Visibility.OBSCURING, Visibility.BLOCKING):
                continue
            d = self.piece_gap(pid, T)
            if within(d, COVER_RANGE):
                cands.append((d, pid, self._piece_obstacles[pid]))
        for bid, b in self.bodies.items():
            if b.construct and bid != T.id and (O is None or bid != O.id):
                d = edge_distance(b.center, b.radius, T.center, T.radius)
                if within(d, COVER_RANGE):
                    cands.append((d, bid, self._body_obstacles[bid]))
        cands.sort(key=lambda c: c[0])
        return [(pid, ob) for _, pid, ob in cands]

    def zoc(self, owner, target) -> ZocResult:
        """Is ``target`` in ``owner``'s ZoC? (section 6): some point of the target's
        base within 1" of the owner's base, in its arc, with LoS from the owner's base
        (the target's own base does not block). A Blind owner's ZoC reaches only models
        in BtB with it (project ruling, docs/rulings-project.md)."""
        A, B = self.body(owner), self.body(target)
        if A.id == B.id:
            return ZocResult(False, reason="a model is not in its own ZoC")
        d = self.distance(A, B)
        if not within(d, ZOC_RANGE):
            return ZocResult(False, reason=f"{d:.3f}\" apart, more than 1\"")
        if A.blind:
            ok = self.btb(A, B)
            return ZocResult(ok, SightLine(A.center, B.center) if ok else None, "Blind: ZoC only in BtB")
        if not self.in_arc(A, B):
            return ZocResult(False, reason=f"{B.id} is outside {A.id}'s front arc")
        if self.btb(A, B):
            return ZocResult(True, self._contact_line(A, B), "in base contact (BtB)")
        threshold = max(A.size, self.enhancing_size(A))
        region = self._region(A, B, extra_discs=[[A.center[0], A.center[1], A.radius + ZOC_RANGE]])
        if region.is_empty:
            return ZocResult(False, reason="no part within 1\" lies in the front arc")
        found = find_sight_line(A.center, A.radius, region, self.blockers(threshold, (A.id, B.id)))
        if found:
            return ZocResult(True, found.line, "within 1\", in arc and in LoS")
        return ZocResult(False, reason="blocked by " + ", ".join(found.blockers))

    def measure_pair(self, origin, target) -> PairMeasure:
        """All relations from ``origin`` to ``target`` (one formats.md entry)."""
        O, T = self.body(origin), self.body(target)
        los = self.los(O, T)
        return PairMeasure(
            origin=O.id,
            target=T.id,
            distance=self.distance(O, T),
            in_arc=self.in_arc(O, T),
            los=los,
            cover=self.cover(O, T, los),
            zoc=self.zoc(O, T),
            btb=self.btb(O, T),
        )

    def measure_all(self, origins: Sequence[str] | None = None) -> list[PairMeasure]:
        """Every ordered pair of distinct models (``n * (n - 1)`` entries), or only
        those from ``origins``, in table order."""
        ids = list(self.bodies)
        froms = ids if origins is None else list(origins)
        return [self.measure_pair(o, t) for o in froms for t in ids if t != o]


# ------------------------------------------------------------------ drawable regions
#: How many umbras and ZoC areas the value-keyed caches keep (least recently used out).
GEOMETRY_CACHE_SIZE = 2048


class _LRU:
    """A small least-recently-used dict (values are immutable shapely geometries)."""

    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        got = self.data.get(key)
        if got is None:
            self.misses += 1
            return None
        self.hits += 1
        self.data.move_to_end(key)
        return got

    def put(self, key, value) -> None:
        self.data[key] = value
        if len(self.data) > self.size:
            self.data.popitem(last=False)


_UMBRAS = _LRU(GEOMETRY_CACHE_SIZE)
_ZOC_AREAS = _LRU(GEOMETRY_CACHE_SIZE)


def clear_geometry_caches() -> None:
    """Empty the caches of :func:`umbra` and :func:`zoc_region` (for benchmarks and
    tests: the answers never depend on them)."""
    for c in (_UMBRAS, _ZOC_AREAS):
        c.data.clear()
        c.hits = c.misses = 0


def geometry_cache_info() -> dict[str, tuple[int, int, int]]:
    """``{"umbra": (hits, misses, size), "zoc_region": (...)}`` of the value-keyed caches."""
    return {name: (c.hits, c.misses, len(c.data)) for name, c in (("umbra", _UMBRAS), ("zoc_region", _ZOC_AREAS))}


def umbra_tangents(cx: float, cy: float, r: float, ob: Obstacle) -> list:
    """The two outer common tangents of the source disc ``((cx, cy), r)`` and convex
    ``ob`` (both on the same side), which bound the umbra behind ``ob``, as a list of
    ``(n, d, touch)``: unit normal ``n`` with both on the ``n . x >= d`` side, offset
    ``d`` and the point where the line touches ``ob`` (inches). Empty when the disc
    meets ``ob`` shrunk by ``EPS`` (what blocks a sight line, rulings.md section 4): a
    base exactly touching ``ob`` still has its two tangents."""
    out = []
    if ob.disc_gap(cx, cy, r) <= 0:
        return []
    if ob.is_disc:
        ox, oy, orad = float(ob.center[0]), float(ob.center[1]), float(ob.radius)
        vx, vy = cx - ox, cy - oy
        L2 = vx * vx + vy * vy
        k = r - orad
        if L2 <= k * k:  # one disc inside the other
            return []
        h = math.sqrt(L2 - k * k)
        for sig in (1.0, -1.0):
            nx, ny = (k * vx - sig * h * vy) / L2, (k * vy + sig * h * vx) / L2
            d = nx * cx + ny * cy - r
            out.append(((nx, ny), d, (ox - orad * nx, oy - orad * ny)))
        return out
    verts = ob.vertices
    for vx0, vy0 in verts.tolist():
        dx, dy = cx - vx0, cy - vy0
        L2 = dx * dx + dy * dy
        h = math.sqrt(max(L2 - r * r, 0.0))
        for sig in (1.0, -1.0):
            # unit normal n with n . (c - v) = r: the line through v touches the disc
            nx, ny = (r * dx - sig * h * dy) / L2, (r * dy + sig * h * dx) / L2
            d = nx * vx0 + ny * vy0
            if np.all(verts @ np.array([nx, ny]) - d >= -1e-9):
                out.append(((nx, ny), d, (vx0, vy0)))
    # keep two distinct lines (a line along an edge is found at both of its vertices)
    uniq: list = []
    for n, d, t in out:
        if all(abs(n[0] - m[0]) + abs(n[1] - m[1]) > 1e-9 for m, _, _ in uniq):
            uniq.append((n, d, t))
    return uniq if len(uniq) == 2 else []


def umbra_body(ob: Obstacle):
    """The shapely polygon :func:`umbra` draws for ``ob``: its polygon, or its circle
    as 64 points (inches)."""
    return SPoint(ob.center).buffer(ob.radius, quad_segs=16) if ob.is_disc else SPolygon(ob.vertices)


def umbra_between_tangents(cx: float, cy: float, body, tangents, far: float):
    """The umbra of a convex obstacle (drawn as ``body``) bounded by its two outer
    common tangents with the source disc (:func:`umbra_tangents`): ``body`` plus the
    region behind it between the tangents, ``far`` inches past the tangent points. The
    tangent points themselves are corners of the hull, so its sides run along the
    tangents (a circle's polygon, inscribed, would cut them short by its sagitta)."""
    pts = list(np.asarray(body.exterior.coords)[:-1])
    halves = []
    for (nx, ny), _d, (tx, ty) in tangents:
        ux, uy = -ny, nx
        if (tx - cx) * ux + (ty - cy) * uy < 0:
            ux, uy = -ux, -uy
        pts.append((tx, ty))
        pts.append((tx + ux * far, ty + uy * far))
        # the closed half-plane n . x >= d (the side of the source and obstacle)
        big = 1000.0
        ox, oy = tx, ty  # a point on the line, near the region of interest
        halves.append(SPolygon([(ox - ux * big, oy - uy * big), (ox + ux * big, oy + uy * big),
                                (ox + ux * big + nx * big, oy + uy * big + ny * big),
                                (ox - ux * big + nx * big, oy - uy * big + ny * big)]))
    hull = MultiPoint(pts).convex_hull
    return hull.intersection(halves[0]).intersection(halves[1]).union(body)


#: Points on the source's rim from which :func:`umbra` casts the shadows it intersects
#: for an obstacle without outer common tangents (not convex, or meeting the source).
UMBRA_RIM_POINTS = 48


def umbra_rim_sources(cx: float, cy: float, radius: float) -> np.ndarray:
    """The ``(UMBRA_RIM_POINTS, 2)`` points on the rim of the source disc (inches)."""
    angles = np.linspace(0, 2 * math.pi, UMBRA_RIM_POINTS, endpoint=False)
    return np.column_stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)])


def _rim_shadows(cx: float, cy: float, radius: float, body, far: float):
    """The intersection of the shadows of ``body`` cast from the rim points, all the
    quadrilaterals built and each shadow's union taken in one vectorised shapely call
    (the same polygons as :func:`sim.geometry.reference.umbra_reference` builds one by one)."""
    S = umbra_rim_sources(cx, cy, radius)
    ring = np.asarray(body.exterior.coords)[:-1]
    nxt = np.roll(ring, -1, axis=0)
    dp = ring[None, :, :] - S[:, None, :]  # (k, m, 2): from each source to each vertex
    dq = nxt[None, :, :] - S[:, None, :]
    lp = np.linalg.norm(dp, axis=2)
    lq = np.linalg.norm(dq, axis=2)
    ok = (lp >= EPS) & (lq >= EPS)
    P = np.broadcast_to(ring, dp.shape)
    Q = np.broadcast_to(nxt, dq.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        Pf = P + dp / lp[..., None] * far
        Qf = Q + dq / lq[..., None] * far
    coords = np.stack([P, Q, Qf, Pf, P], axis=2)  # (k, m, 5, 2) closed quadrilaterals
    quads = np.full(ok.shape, None, dtype=object)
    if ok.any():
        quads[ok] = shapely.buffer(shapely.polygons(coords[ok]), 0)
    grid = np.concatenate([np.full((len(S), 1), body, dtype=object), quads], axis=1)
    shadow = None
    for sh in shapely.union_all(grid, axis=1):
        shadow = sh if shadow is None else shadow.intersection(sh)
        if shadow.is_empty:
            break
    return polygonal(shadow)


def polygonal(geom):
    """The polygons of a shapely geometry (a MultiPolygon, or a Polygon when there is
    one): the lines and points an intersection of shadows may leave behind have no
    area and would only trouble later set operations (GEOS fails on some of them)."""
    if geom is None or geom.geom_type in ("Polygon", "MultiPolygon"):
        return geom
    polys = [g for g in shapely.get_parts(geom) if g.geom_type == "Polygon" and not g.is_empty]
    polys += [q for g in shapely.get_parts(geom) if g.geom_type == "MultiPolygon" for q in g.geoms]
    if not polys:
        return SPolygon()
    return polys[0] if len(polys) == 1 else shapely.MultiPolygon(polys)


def umbra(source, radius: float, ob: Obstacle, far: float):
    """The umbra of ``ob``: the points hidden behind it from every point of the source
    disc (centre ``source`` ``(x, y)``, ``radius``; inches), as shapely geometry.

    For a convex obstacle apart from the disc (or exactly touching it: ``ob`` shrunk by
    ``EPS`` blocks, rulings.md section 4): the obstacle plus the region behind it
    between the two outer common tangents, drawn out to ``far`` inches past the
    tangent points (exact up to the drawing of circles). Other obstacles (not convex,
    or overlapping the disc): the intersection of the shadows cast from 48 points on
    the rim, ``far`` inches long (it may err slightly towards "hidden" there; only its
    polygons are kept, :func:`polygonal`). Empty when nothing is hidden. Used for
    drawing ZoC (:func:`zoc_region`) and by the movement planner for shadowed ZoC and
    for Run ends out of LoS (Terms and Concepts p.6-9; rulings.md 4 and 6).

    Answers are cached by value (source, radius, ``far`` and the obstacle's shape,
    :attr:`Obstacle.signature`), so a position asked again after other models moved
    costs a dictionary look-up; :func:`sim.geometry.reference.umbra_reference` is the
    uncached, one-polygon-at-a-time construction it must equal.
    """
    cx, cy = float(source[0]), float(source[1])
    key = (cx, cy, float(radius), float(far), ob.signature)
    got = _UMBRAS.get(key)
    if got is not None:
        return got
    body = umbra_body(ob)
    tangents = umbra_tangents(cx, cy, radius, ob) if ob.convex else []
    if len(tangents) == 2:
        out = umbra_between_tangents(cx, cy, body, tangents, far)
    else:
        out = _rim_shadows(cx, cy, radius, body, far)
    _UMBRAS.put(key, out)
    return out


def zoc_blockers(scene: Scene, owner) -> list[Obstacle]:
    """The obstacles that may hide part of ``owner``'s ZoC: Blocking terrain and models
    of size ``>= size(owner)`` (or of the Enhancing piece it stands on) whose bounding
    circle comes within 1" of its base (rulings.md section 6)."""
    A = scene.body(owner)
    cx, cy = float(A.center[0]), float(A.center[1])
    threshold = max(A.size, scene.enhancing_size(A))
    reach = A.radius + ZOC_RANGE + EPS
    return [ob for ob in scene.blockers(threshold, (A.id,))
            if math.hypot(float(ob.center[0]) - cx, float(ob.center[1]) - cy) <= ob.radius + reach]


def zoc_area_unshadowed(A: Body):
    """The points within 1" of ``A``'s base and in its front arc (the whole ring for an
    Aware model), before any shadow: shapely geometry, inches."""
    c = np.asarray(A.center, float)
    outer = SPoint(c).buffer(A.radius + ZOC_RANGE, quad_segs=32)
    area = outer.difference(SPoint(c).buffer(A.radius, quad_segs=32))
    if not A.aware:
        f = A.facing_vector
        side = np.array([-f[1], f[0]])
        R = A.radius + ZOC_RANGE + 1
        pts = [c + side * R, c + side * R + f * R, c - side * R + f * R, c - side * R]
        area = area.intersection(SPolygon(pts))
    return area


def zoc_region(scene: Scene, owner):
    """The area of ``owner``'s ZoC, for drawing (shapely geometry, inches).

    Points within 1" of the base, in the front arc, minus what Blocking terrain and
    models of size ``>= size(owner)`` hide from every point of the base. Behind a convex
    blocker the hidden part is bounded by the outer common tangents (exact but for the
    polygons that draw circles); behind a non-convex one it is computed from 48 points on
    the rim, so its drawn edge may err slightly towards "hidden". The in/out verdict of
    :meth:`Scene.zoc` is always exact.

    Cached by value: the owner's base, facing and awareness and the shapes of the
    blockers within reach (:func:`zoc_blockers`), so a table rebuilt after an event in
    which neither the owner nor anything near it moved answers at once.
    :func:`sim.geometry.reference.zoc_region_reference` is the uncached computation it
    must equal.
    """
    A = scene.body(owner)
    near = zoc_blockers(scene, A)
    c = np.asarray(A.center, float)
    key = (float(c[0]), float(c[1]), float(A.radius), A.aware, None if A.aware else float(A.facing),
           tuple(ob.signature for ob in near))
    got = _ZOC_AREAS.get(key)
    if got is not None:
        return got
    area = zoc_area_unshadowed(A)
    for ob in near:
        if area.is_empty:
            break
        hidden = umbra(c, A.radius, ob, far=A.radius + ZOC_RANGE + 2)
        if hidden is not None and not hidden.is_empty:
            area = area.difference(hidden)
    _ZOC_AREAS.put(key, area)
    return area
