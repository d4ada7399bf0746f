"""Moves of special attacks and defences, with collisions (Special abilities p.39-42).

Push, Forceback, Drag, Slam, Throw and Sidestep move models in straight lines. Every
move ignores ZoC and enemy contact (p.40) and is computed in closed form (time of
impact, :func:`sim.geometry.motion.first_contact`), never by stepping. Rulings:
``shared/rulings.md`` section 8 and ``docs/rulings-project.md``.

Collisions:

* Push, Forceback, Drag and Sidestep: the mover stops where it touches another base.
* Slam and Throw: by Size. Equal: the mover stops at contact and both become Prone.
  Larger (or Immovable): the mover stops and becomes Prone. Smaller: the mover carries on
  and pushes the smaller model directly away from the point of contact as far as the
  mover still needs, possibly pushing more models in turn; all of them become Prone.
* Impassable terrain stops the mover at contact (Slam, Throw: it becomes Prone).
* The table edge stops the mover when its base touches it.
* Immovable models are never moved. A model moved off Huge Enhancing terrain becomes
  Prone and its damage is not halved.

    >>> from sim.table import load_table
    >>> from sim.rules.special import special_move
    >>> r = special_move(load_table(), "akira", "masunagi", "slam")
    >>> r.moves["masunagi"].distance > 2.9, "masunagi" in r.prone
    (True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from sim.geometry import CONTACT, ZOC_RANGE, Passage, Size, Visibility
from sim.geometry.motion import first_contact
from sim.geometry.primitives import chord, heading, normalize, unit_vector

Point = tuple[float, float]

#: The moves, as the CLI names them.
MOVES = (
    "push-attack", "push-defence", "forceback-attack", "forceback-defence", "drag-attack", "drag-defence",
    "slam", "throw-attack", "throw-defence", "sidestep-attack", "sidestep-defence",
)
ALIASES = {"slam-attack": "slam", "push": "push-attack", "forceback": "forceback-attack", "drag": "drag-attack",
           "throw": "throw-attack", "sidestep": "sidestep-attack"}

SLAM_DISTANCE = 3.0
THROW_DISTANCE = 2.0
FORCEBACK_DISTANCE = 1.0
DRAG_DISTANCE = 1.0


class SpecialMoveError(ValueError):
    """The move cannot be made as asked (unknown move, a throw direction out of LoS...)."""


@dataclass
class ModelMove:
    """How one model moved: start and end centre, the path (inches), why it stopped."""

    id: str
    start: Point
    end: Point
    path: list[Point]
    stop: str = ""

    @property
    def distance(self) -> float:
        """Distance travelled along the path, inches."""
        return sum(math.dist(a, b) for a, b in zip(self.path, self.path[1:]))

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        return {"id": self.id, "start": _r(self.start), "end": _r(self.end),
                "path": [_r(p) for p in self.path], "distance": round(self.distance, 4), "stop": self.stop}


@dataclass(frozen=True)
class Collision:
    """A moving model met another model or terrain at ``at`` (the mover's centre)."""

    mover: str
    other: str
    kind: str  # "base" | "terrain" | "edge"
    at: Point
    outcome: str

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        return {"mover": self.mover, "other": self.other, "kind": self.kind, "at": _r(self.at), "outcome": self.outcome}


@dataclass
class SpecialResult:
    """Everything a special move did.

    Attributes:
        move: the move's name.
        attacker, defender: ids.
        moves: every model that moved (or was asked to), by id, in the order they moved.
        prone: ids that are Prone after the move (newly).
        collisions: every contact, in order.
        damage_not_halved: ids moved off Huge Enhancing terrain (Terrain p.60).
        direction: the chosen direction, degrees (Throw, Sidestep), if any.
    """

    move: str
    attacker: str
    defender: str
    moves: dict[str, ModelMove] = field(default_factory=dict)
    prone: list[str] = field(default_factory=list)
    collisions: list[Collision] = field(default_factory=list)
    damage_not_halved: list[str] = field(default_factory=list)
    direction: float | None = None

    def positions(self) -> dict[str, Point]:
        """End position of every model that moved."""
        return {k: m.end for k, m in self.moves.items()}

    def to_json(self) -> dict:
        """As plain JSON values (inches, degrees)."""
        return {"move": self.move, "attacker": self.attacker, "defender": self.defender,
                "direction": None if self.direction is None else round(self.direction, 4),
                "moves": [m.to_json() for m in self.moves.values()], "prone": list(self.prone),
                "collisions": [c.to_json() for c in self.collisions], "damage_not_halved": list(self.damage_not_halved)}


def _r(p: Point) -> list[float]:
    return [round(p[0], 4), round(p[1], 4)]


def _unit(dx: float, dy: float) -> tuple[float, float]:
    ux, uy, L = normalize(dx, dy)
    if L == 0.0:
        raise SpecialMoveError("the two bases share a centre: no direction")
    return ux, uy


class _Board:
    """Positions during a special move (a scratch copy of the table's models)."""

    def __init__(self, table, result: SpecialResult):
        self.table = table
        self.models = {m.id: m for m in table.models}
        self.pos: dict[str, Point] = {m.id: (float(m.position[0]), float(m.position[1])) for m in table.models}
        self.radius = {m.id: m.radius for m in table.models}
        self.size = {m.id: m.size for m in table.models}
        self.immovable = {m.id for m in table.models if m.has_trait("immovable")}
        self.impassable = [(t.id, t.footprint) for t in table.terrain if t.passage is Passage.IMPASSABLE]
        self.huge_enhancing = [t.footprint for t in table.terrain
                               if t.visibility is Visibility.ENHANCING and t.size is Size.HUGE]
        #: What the move did, filled in as it goes.
        self.result = result

    def gap(self, a: str, b: str) -> float:
        return math.dist(self.pos[a], self.pos[b]) - self.radius[a] - self.radius[b]

    def _record(self, mid: str, start: Point, end: Point, stop: str) -> None:
        res = self.result
        if mid in res.moves:
            mv = res.moves[mid]
            if math.dist(mv.path[-1], end) > 0 or math.dist(start, end) > 0:
                mv.path.append(end)
            mv.end = end
            mv.stop = stop
        else:
            path = [start] if math.dist(start, end) == 0 else [start, end]
            res.moves[mid] = ModelMove(mid, start, end, path, stop)

    def knock_prone(self, mid: str) -> None:
        """Record ``mid`` as made Prone by this move (once; not if already Prone)."""
        if mid not in self.result.prone and not self.models[mid].prone:
            self.result.prone.append(mid)

    def slide(self, mid: str, u: tuple[float, float], dist: float, shove: bool, depth: int = 0) -> float:
        """Move ``mid`` along unit ``u`` up to ``dist`` inches; returns how far it went.

        ``shove``: Slam/Throw collision rules (by Size, cascading); otherwise the mover
        stops at the first contact.
        """
        start = self.pos[mid]
        if mid in self.immovable:
            self._record(mid, start, start, "Immovable: not moved")
            return 0.0
        r = self.radius[mid]
        done = 0.0
        stop = f"moved the full {dist:.3f}\""
        guard = 0
        while dist - done > 1e-12 and guard < 64:
            guard += 1
            here = self.pos[mid]
            others = [(k, self.pos[k], self.radius[k]) for k in self.pos if k != mid]
            step, kind, key = first_contact(here, u, dist - done, r, others, self.impassable,
                                            (self.table.width, self.table.depth))
            end = (here[0] + u[0] * step, here[1] + u[1] * step)
            self.pos[mid] = end
            done += step
            if kind is None:
                break
            if kind == "edge":
                self.result.collisions.append(Collision(mid, "table edge", "edge", end, "stops at the table edge"))
                stop = "stopped at the table edge"
                break
            if kind == "terrain":
                self.result.collisions.append(Collision(mid, key, "terrain", end, "stops against Impassable terrain"
                                                        + (", Prone" if shove else "")))
                stop = f"stopped against Impassable {key}"
                if shove:
                    self.knock_prone(mid)
                break
            # another base
            if not shove:
                self.result.collisions.append(Collision(mid, key, "base", end, "stops at contact"))
                stop = f"stopped in contact with {key}"
                break
            if key in self.immovable or self.size[key] > self.size[mid]:
                why = "Immovable" if key in self.immovable else "larger"
                self.result.collisions.append(Collision(mid, key, "base", end, f"{key} is {why}: {mid} stops, Prone"))
                self.knock_prone(mid)
                stop = f"stopped by {why} {key}"
                break
            if self.size[key] == self.size[mid]:
                self.result.collisions.append(Collision(mid, key, "base", end, "equal Size: both stop, both Prone"))
                self.knock_prone(mid)
                self.knock_prone(key)
                stop = f"stopped by {key} (equal Size)"
                break
            # smaller: push it directly away from the point of contact, as far as needed
            need = _push_needed(end, u, dist - done, r, self.pos[key], self.radius[key])
            cx, cy = self.pos[key]
            n = _unit(cx - end[0], cy - end[1])
            self.result.collisions.append(Collision(mid, key, "base", end,
                                                    f"{key} is smaller: pushed {need:.3f}\", both Prone"))
            self.knock_prone(mid)
            self.knock_prone(key)
            if depth < 16:
                self.slide(key, n, need, True, depth + 1)
            if math.dist(self.pos[key], (cx, cy)) < 1e-12 and need > 1e-12:
                # it could not move at all: the mover stops here
                stop = f"stopped by {key}, which could not be pushed"
                break
        self._record(mid, start, self.pos[mid], stop)
        self._enhancing_check(mid, start)
        return done

    def move_into_contact(self, mid: str, target: str) -> float:
        """Move ``mid`` directly towards ``target`` until BtB (stops at other contact)."""
        here, there = self.pos[mid], self.pos[target]
        u = _unit(there[0] - here[0], there[1] - here[1])
        return self.slide(mid, u, max(0.0, self.gap(mid, target)), False)

    def _enhancing_check(self, mid: str, start: Point) -> None:
        for fp in self.huge_enhancing:
            if fp.contains_point(start) and not fp.contains_point(self.pos[mid]):
                self.knock_prone(mid)
                if mid not in self.result.damage_not_halved:
                    self.result.damage_not_halved.append(mid)


def _push_needed(contact: Point, u, remaining: float, r: float, other: Point, r_o: float) -> float:
    """How far a smaller model touching the mover at ``contact`` must be pushed along
    the contact normal so the mover can travel ``remaining`` inches along ``u`` without
    overlapping it (closed form, the least such distance)."""
    R = r + r_o
    nx, ny = _unit(other[0] - contact[0], other[1] - contact[1])
    ux, uy = u
    cos = nx * ux + ny * uy
    if cos <= 1e-12:
        return 0.0  # glancing: the mover slides past
    sin = abs(nx * uy - ny * ux)
    cands = []
    if sin > 1e-12:
        cands.append(R / sin - R)  # far enough to the side of the path
    # or ahead of the mover's end point: |(R + s) n - remaining u| >= R
    # (R + s)^2 - 2 (R + s) remaining cos + remaining^2 - R^2 >= 0
    b = remaining * cos
    disc = b * b - (remaining * remaining - R * R)
    if disc >= 0:
        cands.append(max(0.0, b + math.sqrt(disc) - R))
    else:
        cands.append(0.0)
    return max(0.0, min(cands))


def _zoc_exit_distance(board: _Board, mover: str, other: str, u) -> float:
    """How far ``mover`` must go along ``u`` to get out of ``other``'s ZoC, taken as
    edge distance 1" + CONTACT from ``other`` (rulings.md 8)."""
    R = board.radius[mover] + board.radius[other] + ZOC_RANGE + CONTACT
    p, c = board.pos[mover], board.pos[other]
    ch = chord(p[0], p[1], u[0], u[1], c[0], c[1], R)
    return 0.0 if ch is None else max(0.0, ch[1])


def special_refusals(table, attacker: str, defender: str) -> list[str]:
    """Why the rules do not let ``attacker`` and ``defender`` play a special attack or
    defence now; empty when they may.

    A special is chosen in a melee exchange (Special abilities p.39; the exchange p.33),
    and an exchange is fought between enemy models in base contact: the two models must
    belong to different players, and their bases must touch (gap <= the contact
    tolerance, ``shared/rulings.md`` section 1). :func:`special_move` itself does not
    judge this (it plays the move, e.g. for teaching).

    Raises:
        KeyError: unknown model id.
    """
    a, d = table.model(attacker), table.model(defender)
    out = []
    if attacker == defender:
        return [f"{attacker} cannot fight itself: a special needs two models in a melee exchange (p.33, p.39)"]
    if a.player == d.player:
        out.append(f"{defender} is a friendly model (both are player {a.player}'s): specials are used in a melee "
                   "exchange against an enemy (p.33, p.39)")
    gap = table.scene().distance(attacker, defender)
    if gap > CONTACT + 1e-9:
        out.append(f"{attacker} and {defender} are not in base contact ({gap:.3f}\" apart): a melee exchange needs "
                   "BtB (p.33)")
    return out


def throw_directions(table, thrower: str, thrown: str, step_deg: float = 1.0,
                     distance: float = THROW_DISTANCE) -> list[tuple[float, float]]:
    """Direction intervals (degrees, CCW from +x, each ``(start, end)`` with
    ``start <= end``, possibly crossing 360) in which ``thrown`` may be thrown: the
    point ``distance`` inches along the direction from its centre is in the thrower's
    LoS (rulings.md 8; the thrown model does not block). Boundaries are found by
    bisection to 1e-6 degrees between samples ``step_deg`` apart."""
    scene = table.scene()
    c = table.model(thrown).position

    def ok(deg: float) -> bool:
        ux, uy = unit_vector(deg)
        p = (c[0] + distance * ux, c[1] + distance * uy)
        return scene.los_to_point(thrower, p, exclude=(thrown,)).visible

    n = max(8, int(round(360 / step_deg)))
    degs = [i * 360.0 / n for i in range(n)]
    vals = [ok(d) for d in degs]
    if all(vals):
        return [(0.0, 360.0)]
    if not any(vals):
        return []

    def edge(lo: float, hi: float, v_lo: bool) -> float:
        for _ in range(40):
            mid = (lo + hi) / 2
            if ok(mid % 360) == v_lo:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-6:
                break
        return (lo + hi) / 2

    out = []
    i0 = vals.index(False)
    for k in range(n):
        i = (i0 + k) % n
        j = (i + 1) % n
        if not vals[i] and vals[j]:
            start = edge(degs[i], degs[i] + 360.0 / n, False)
            # find the end
            m = 1
            while vals[(j + m) % n] and m < n:
                m += 1
            e_i = (j + m - 1) % n
            end = edge(degs[e_i], degs[e_i] + 360.0 / n, True)
            start %= 360
            if end < start:
                end += 360
            out.append((start, end))
    return sorted(out)


def _in_intervals(deg: float, intervals) -> bool:
    d = deg % 360
    return any(a - 1e-9 <= d <= b + 1e-9 or a - 1e-9 <= d + 360 <= b + 1e-9 for a, b in intervals)


def special_move(table, attacker: str, defender: str, move: str, direction: float | None = None,
                 path: Sequence[Sequence[float]] | None = None) -> SpecialResult:
    """Play the movement of a successful special attack or defence.

    Args:
        table: the table (not modified; see :meth:`SpecialResult.positions`).
        attacker, defender: the two model ids in the melee exchange.
        move: one of :data:`MOVES` (aliases: ``push``, ``forceback``, ``drag``,
            ``throw``, ``sidestep``, ``slam-attack``).
        direction: degrees CCW: the throw direction (Throw; default: directly away
            from the thrower if allowed, else the middle of the first allowed interval),
            or the sidestep direction (Sidestep; default: directly away).

    Returns:
        A :class:`SpecialResult`.

    Raises:
        SpecialMoveError: unknown move, or a throw direction outside the thrower's LoS.
        KeyError: unknown model id.
    """
    move = ALIASES.get(move, move)
    if move not in MOVES:
        raise SpecialMoveError(f"unknown special move {move!r} (one of: {', '.join(MOVES)})")
    table.model(attacker)
    table.model(defender)
    res = SpecialResult(move, attacker, defender)
    board = _Board(table, res)
    A, D = attacker, defender

    def away(m: str, frm: str):
        p, q = board.pos[m], board.pos[frm]
        return _unit(p[0] - q[0], p[1] - q[1])

    if move in ("push-attack", "push-defence"):
        mover, other = (D, A) if move == "push-attack" else (A, D)
        u = away(mover, other)
        board.slide(mover, u, _zoc_exit_distance(board, mover, other, u), False)
    elif move in ("forceback-attack", "forceback-defence"):
        first, second = (D, A) if move == "forceback-attack" else (A, D)
        board.slide(first, away(first, second), FORCEBACK_DISTANCE, False)
        u = away(first, second)  # from the second model towards the first: "directly towards it"
        board.slide(second, u, min(FORCEBACK_DISTANCE, max(0.0, board.gap(second, first))), False)
    elif move == "drag-attack":
        board.slide(A, away(A, D), DRAG_DISTANCE, False)
        u = away(A, D)
        board.slide(D, u, min(DRAG_DISTANCE, max(0.0, board.gap(D, A))), False)
    elif move == "drag-defence":
        board.slide(D, away(D, A), DRAG_DISTANCE, False)
        board.move_into_contact(A, D)
    elif move == "slam":
        board.slide(D, away(D, A), SLAM_DISTANCE, True)
        if D not in board.immovable:  # p.18 example: an Immovable model is not moved nor knocked Prone
            board.knock_prone(D)
    elif move in ("throw-attack", "throw-defence"):
        thrower, thrown = (A, D) if move == "throw-attack" else (D, A)
        allowed = throw_directions(table, thrower, thrown)
        if not allowed:
            raise SpecialMoveError(f"no direction puts {thrown} at a point in {thrower}'s LoS")
        if direction is None:
            ux, uy = away(thrown, thrower)
            direction = heading(ux, uy)
            if not _in_intervals(direction, allowed):
                a, b = allowed[0]
                direction = ((a + b) / 2) % 360
        elif not _in_intervals(direction, allowed):
            spans = ", ".join(f"{a:.2f}-{b:.2f}" for a, b in allowed)
            raise SpecialMoveError(f"a throw at {direction:g} deg does not end in {thrower}'s LoS "
                                   f"(allowed: {spans} deg)")
        res.direction = direction % 360
        board.slide(thrown, unit_vector(direction), THROW_DISTANCE, True)
        if thrown not in board.immovable:
            board.knock_prone(thrown)
    else:  # sidestep
        mover, other = (A, D) if move == "sidestep-attack" else (D, A)
        if direction is None:
            u = away(mover, other)
        else:
            u = unit_vector(direction)
            p, q = board.pos[mover], board.pos[other]
            if (p[0] - q[0]) * u[0] + (p[1] - q[1]) * u[1] < 0:
                raise SpecialMoveError("a sidestep must move away from the other model (it leaves contact)")
            res.direction = direction % 360
        went = board.slide(mover, u, _zoc_exit_distance(board, mover, other, u), False)
        if board.gap(mover, other) < ZOC_RANGE + CONTACT - 1e-9:
            res.moves[mover].stop += f"; still in {other}'s ZoC ({went:.3f}\" moved)"
    return res
