"""What the view shows for a special move (pure Python: no Panda3D).

The scene (``sim.view.scene3d``) and the window (``sim.view.app``) ask this module:

* :func:`special_table`: the table after a :class:`~sim.rules.special.SpecialResult`
  (moved models at their end positions, the newly Prone ones Prone).
* :class:`Timeline`: where every model is at a fraction ``t`` of the move's animation
  (a chained push starts when the model is hit), and when each collision happens.
* :func:`contact_point`: where a collision's x marker goes.
* :func:`describe_special`: the status line (the move, who moved how far, who is Prone).
* :func:`sandbox_note`: what the status line adds when the rules would refuse the move in a game.
* :func:`special_target` and :class:`SpecialState`: the window's ``s`` key (which enemy,
  which move next, commit and cancel).

Inches and degrees, table coordinates (x right, y away from player 1).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from shapely.geometry import Point as SPoint
from shapely.ops import nearest_points

from sim.rules.special import MOVES, SpecialMoveError, special_move, special_refusals

Point = tuple[float, float]

#: How close (inches) a pushed model's path must start to the contact distance from the
#: pushing model's centre for the push to be matched with that path segment.
PUSH_MATCH = 0.05


def special_table(table, result):
    """A new table with every model of ``result.moves`` at its end position and every
    model of ``result.prone`` Prone (facings kept); the table is not modified.

    Raises:
        KeyError: a model of ``result`` is not on ``table``.
    """
    ends = result.positions()
    prone = set(result.prone)
    for mid in set(ends) | prone:
        table.model(mid)
    models = []
    for m in table.models:
        changes = {}
        if m.id in ends:
            changes["position"] = (float(ends[m.id][0]), float(ends[m.id][1]))
        if m.id in prone:
            changes["prone"] = True
        models.append(dataclasses.replace(m, **changes) if changes else m)
    changes = {"models": tuple(models)}
    if any(f.name == "_scene" for f in dataclasses.fields(table)):
        changes["_scene"] = []
    return dataclasses.replace(table, **changes)


@dataclass
class Segment:
    """One straight piece of a model's path, travelled at unit speed from time ``t0``."""

    model: str
    t0: float | None
    a: Point
    b: Point

    @property
    def length(self) -> float:
        """Inches from ``a`` to ``b``."""
        return math.dist(self.a, self.b)

    @property
    def t1(self) -> float:
        """When the segment ends on the animation clock (inches travelled)."""
        return (self.t0 or 0.0) + self.length

    def at(self, tau: float) -> Point:
        """The base centre at clock ``tau`` (clamped to the segment), inches."""
        L = self.length
        f = 0.0 if L <= 1e-12 else min(1.0, max(0.0, (tau - (self.t0 or 0.0)) / L))
        return (self.a[0] + (self.b[0] - self.a[0]) * f, self.a[1] + (self.b[1] - self.a[1]) * f)


@dataclass
class Timeline:
    """The animation of a special move: every model travels at the same speed along its
    own path; the models the move moves directly start at once, and a model pushed by
    another (Slam, Throw into a smaller model) starts when it is hit.

    ``t`` is the fraction of the whole animation (0: the start, 1: the end).

    Attributes:
        segments: by model id, its path pieces with their start times (inches of travel).
        total: the length of the animation, inches of travel (0 when nothing moved).
        hits: the time of each of ``result.collisions``, same order.
    """

    segments: dict[str, list[Segment]] = field(default_factory=dict)
    total: float = 0.0
    hits: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, result, table=None) -> "Timeline":
        """The timeline of ``result``; ``table`` (the table the move was played on, for
        the base radii) lets pushes be matched to the pushed model's path exactly."""
        segs: dict[str, list[Segment]] = {}
        for mid, mv in result.moves.items():
            pts = [tuple(map(float, p[:2])) for p in mv.path]
            segs[mid] = [Segment(mid, None, a, b) for a, b in zip(pts, pts[1:]) if math.dist(a, b) > 1e-9]

        def radius(mid):
            if table is None:
                return None
            try:
                return table.model(mid).radius
            except KeyError:
                return None

        def time_at(mid: str, p: Point) -> float:
            """When ``mid`` is at ``p`` (its nearest path point); fixes unknown start
            times of its segments on the way (the first starts at 0)."""
            pieces = segs.get(mid) or []
            if not pieces:
                return 0.0
            prev_end = 0.0
            best, best_d = 0.0, math.inf
            for s in pieces:
                if s.t0 is None:
                    s.t0 = prev_end
                L = s.length
                ax, ay = p[0] - s.a[0], p[1] - s.a[1]
                ux, uy = (s.b[0] - s.a[0]) / L, (s.b[1] - s.a[1]) / L
                along = min(L, max(0.0, ax * ux + ay * uy))
                d = math.dist(p, (s.a[0] + ux * along, s.a[1] + uy * along))
                if d < best_d - 1e-9:
                    best, best_d = s.t0 + along, d
                prev_end = s.t1
            return best

        hits: list[float] = []
        claimed: set[int] = set()
        for c in result.collisions:
            when = time_at(c.mover, c.at) if c.mover in segs else 0.0
            hits.append(when)
            if c.kind != "base" or c.other not in segs:
                continue
            rm, ro = radius(c.mover), radius(c.other)
            for s in segs[c.other]:
                if id(s) in claimed or s.t0 is not None:
                    continue
                if rm is not None and ro is not None and abs(math.dist(s.a, c.at) - rm - ro) > PUSH_MATCH:
                    continue
                s.t0 = when
                claimed.add(id(s))
                break
        for pieces in segs.values():
            prev_end = 0.0
            for s in pieces:
                if s.t0 is None:
                    s.t0 = prev_end
                prev_end = s.t1
        total = max((s.t1 for pieces in segs.values() for s in pieces), default=0.0)
        return cls(segs, total, hits)

    def tau(self, t: float) -> float:
        """Inches of travel at fraction ``t`` (clamped to 0..1)."""
        return min(1.0, max(0.0, float(t))) * self.total

    def position(self, result, model_id: str, t: float) -> Point:
        """Where ``model_id`` (a model of ``result.moves``) is at fraction ``t``."""
        mv = result.moves[model_id]
        pieces = self.segments.get(model_id) or []
        if not pieces:
            return tuple(map(float, mv.end[:2]))
        tau = self.tau(t)
        if t >= 1.0:
            return tuple(map(float, mv.end[:2]))
        here = pieces[0].a
        for s in pieces:
            if tau < s.t0:
                return here
            here = s.at(tau)
        return here

    def positions(self, result, t: float) -> dict[str, Point]:
        """Every moved model's position at fraction ``t``."""
        return {mid: self.position(result, mid, t) for mid in result.moves}

    def trail(self, result, model_id: str, t: float) -> list[Point]:
        """The part of ``model_id``'s path travelled by fraction ``t`` (from its start to
        where it is; one point when it has not moved yet)."""
        mv = result.moves[model_id]
        pieces = self.segments.get(model_id) or []
        start = tuple(map(float, mv.start[:2]))
        if not pieces:
            return [start]
        tau = self.tau(t) if t < 1.0 else math.inf
        out = [pieces[0].a]
        for s in pieces:
            if tau <= s.t0:
                break
            p = s.at(tau) if tau < s.t1 else s.b
            out.append(p)
            if tau < s.t1:
                break
        return out

    def happened(self, index: int, t: float) -> bool:
        """True once collision ``index`` has happened at fraction ``t``."""
        return t >= 1.0 or self.hits[index] <= self.tau(t) + 1e-9


def contact_point(table, collision, positions: dict | None = None) -> Point:
    """Where a collision's marker goes: the point where the two bases touch (``base``),
    the mover's base's nearest point of the terrain piece (``terrain``) or of the table
    edge (``edge``). ``positions``: where models stood when it happened (default: their
    table positions). Falls back to the mover's centre ``collision.at``."""
    at = (float(collision.at[0]), float(collision.at[1]))
    positions = positions or {}
    try:
        r = table.model(collision.mover).radius
    except KeyError:
        return at
    if collision.kind == "base":
        try:
            other = positions.get(collision.other) or table.model(collision.other).position
        except KeyError:
            return at
        d = math.dist(at, other)
        if d < 1e-9:
            return at
        return (at[0] + (other[0] - at[0]) * r / d, at[1] + (other[1] - at[1]) * r / d)
    if collision.kind == "edge":
        gaps = [(at[0], (0.0, at[1])), (table.width - at[0], (table.width, at[1])),
                (at[1], (at[0], 0.0)), (table.depth - at[1], (at[0], table.depth))]
        return min(gaps)[1]
    if collision.kind == "terrain":
        piece = next((t for t in table.terrain if t.id == collision.other), None)
        if piece is None:
            return at

        q = nearest_points(piece.footprint.shape.boundary, SPoint(at))[0]
        return (float(q.x), float(q.y))
    return at


TITLES = {
    "push-attack": "Push (attack)", "push-defence": "Push (defence)",
    "forceback-attack": "Forceback (attack)", "forceback-defence": "Forceback (defence)",
    "drag-attack": "Drag (attack)", "drag-defence": "Drag (defence)", "slam": "Slam",
    "throw-attack": "Throw (attack)", "throw-defence": "Throw (defence)",
    "sidestep-attack": "Sidestep (attack)", "sidestep-defence": "Sidestep (defence)",
}


def sandbox_note(table, result) -> str:
    """What the status line adds when the rules would not let these two models play
    ``result``'s special now (:func:`sim.rules.special.special_refusals`: enemies in
    base contact, p.33, p.39): every reason with its page, ``'   [sandbox; in a game:
    akira and masunagi are not in base contact (0.208" apart): a melee exchange needs
    BtB (p.33)]'``. The window plays such a move only in its sandbox (key ``b``), as
    ``main.py special --sandbox`` does; an allowed special adds nothing (``""``)."""
    why = special_refusals(table, result.attacker, result.defender)
    return f"   [sandbox; in a game: {'; '.join(why)}]" if why else ""


def describe_special(result) -> str:
    """The status line of a special move, e.g. ``Slam: akira vs masunagi — masunagi
    3.00"; Prone: masunagi``: the models in the order they start moving, each with
    the distance it moved (and why it stopped, when it stopped short)."""
    head = f"{TITLES.get(result.move, result.move)}: {result.attacker} vs {result.defender}"
    if result.direction is not None:
        head += f" (direction {result.direction:.0f}°)"
    parts = []
    tl = Timeline.of(result)
    order = sorted(result.moves, key=lambda k: min((s.t0 for s in tl.segments.get(k) or []), default=math.inf))
    for mid in order:
        mv = result.moves[mid]
        d = mv.distance
        if d <= 1e-6:
            why = mv.stop.split(";")[0] if mv.stop else ""
            parts.append(f"{mid} not moved" + (f" ({why})" if why else ""))
            continue
        s = f'{mid} {d:.2f}"'
        if mv.stop and not mv.stop.startswith("moved the full"):
            s += f" ({mv.stop})"
        parts.append(s)
    text = head + " — " + (", ".join(parts) if parts else "nobody moved")
    if result.prone:
        text += "; Prone: " + ", ".join(result.prone)
    return text


def special_target(table, model_id: str) -> str | None:
    """The enemy a special move of ``model_id`` is made against: the nearest enemy in
    base contact, else the nearest enemy (edge to edge); None without enemies.

    Raises:
        KeyError: unknown model.
    """
    me = table.model(model_id)
    enemies = [m for m in table.models if m.player != me.player]
    if not enemies:
        return None
    scene = table.scene()
    return min(enemies, key=lambda e: (round(scene.distance(model_id, e.id), 6), math.dist(me.position, e.position),
                                       e.id)).id


@dataclass
class SpecialState:
    """The window's special move (key ``s``): the selected model against
    :func:`special_target`, one move of :data:`sim.rules.special.MOVES` after another.

    ``cycle`` plays the next (or previous) move on ``table`` (the committed table),
    ``commit`` returns the table after it, ``cancel`` forgets it. Outside the
    ``sandbox`` only a move the rules allow is played: the two models must be enemies
    in base contact (:func:`sim.rules.special.special_refusals`, p.33, p.39;
    docs/rulings-project.md 31); otherwise ``error`` gives every reason with its page.
    In the sandbox any pair plays (for teaching) and ``refusals`` keeps the reasons the
    status line shows. The window starts outside it (key ``b`` toggles); the class's
    default is the sandbox, as scripts and the special-move pictures play any pair.

    Attributes:
        table: the table the moves are played on.
        model_id, target: the attacker (the selected model) and the defender.
        index: position in ``MOVES`` of the last move tried (-1: none yet).
        result: the :class:`~sim.rules.special.SpecialResult` shown, or None.
        committed: ``result`` has been applied to the table (``commit``).
        error: why the last move tried could not be made ("" when it could).
        sandbox: play pairs the rules would refuse (True), or refuse them (False).
        refusals: why a game would refuse the last pair tried (empty when it would not).
    """

    table: object
    model_id: str | None = None
    target: str | None = None
    index: int = -1
    result: object = None
    committed: bool = False
    error: str = ""
    sandbox: bool = True
    refusals: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        """A move is shown (committed or not)."""
        return self.result is not None

    @property
    def pending(self) -> bool:
        """A move is shown and not committed yet."""
        return self.result is not None and not self.committed

    def cycle(self, model_id: str, step: int = 1):
        """Play the next move (``step`` 1; -1: the previous one) of ``model_id``
        against its target on ``table``; returns the result, or None (``error`` says
        why: no enemy, the rules refuse the pair outside the sandbox, or the move cannot
        be made, e.g. a Throw with no direction in LoS).

        Raises:
            KeyError: unknown model.
        """

        self.table.model(model_id)
        if model_id != self.model_id:
            self.index = -1 if step > 0 else 0
        self.model_id = model_id
        self.result = None
        self.committed = False
        self.error = ""
        self.refusals = ()
        self.target = special_target(self.table, model_id)
        tried_from = self.index
        self.index = (self.index + step) % len(MOVES)
        if self.target is None:
            self.error = f"{model_id} has no enemy to make a special move against"
            return None
        move = MOVES[self.index]
        self.refusals = tuple(special_refusals(self.table, model_id, self.target))
        if self.refusals and not self.sandbox:
            self.error = (f"{TITLES.get(move, move)}: {model_id} vs {self.target} — not allowed in a game: "
                          + "; ".join(self.refusals) + "   (b: sandbox, plays it anyway)")
            self.index = tried_from  # not played: the next ``s`` offers this move again
            return None
        try:
            self.result = special_move(self.table, model_id, self.target, move)
        except (SpecialMoveError, ValueError) as exc:
            self.error = f"{TITLES.get(move, move)}: {model_id} vs {self.target} — not possible: {exc}"
            return None
        return self.result

    @property
    def move(self) -> str | None:
        """The name of the move last tried."""

        return MOVES[self.index] if self.index >= 0 else None

    def commit(self):
        """The table after the shown move (and ``table`` becomes it); None when no move
        is pending. The result stays shown (``committed`` True) until ``cancel``."""
        if not self.pending:
            return None
        self.table = special_table(self.table, self.result)
        self.committed = True
        return self.table

    def cancel(self) -> None:
        """Forget the shown move (a committed one stays on the table)."""
        self.result = None
        self.committed = False
        self.error = ""
