"""What the view shows for movement (pure Python: no Panda3D).

The window (``sim.view.app``) and the scene (``sim.view.scene3d``) ask this module:

* :func:`walk_region`, :func:`run_region`, :func:`charge_lanes`: the movement overlays
  of a model (where its base centre can end a Walk or a Run; its Charges). They come
  from ``sim.rules.planning`` when that module exists; until then a straight-line
  approximation stands in (see :func:`straight_region`).
* :func:`plan_walk` and :func:`readout`: the Walk to a dragged destination and the
  line of text a player reads (``Walk 3.42" of 4" — legal``).
* :class:`DragState`: a drag (or a "move mode" click) in progress, and committing it
  with :func:`move_model` (a new :class:`~sim.table.Table`; tables are immutable).

Inches and degrees, table coordinates (x right, y away from player 1).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Sequence

from shapely.geometry import GeometryCollection, LineString, Polygon
from shapely.ops import unary_union

from sim.geometry import Passage
from sim.rules import planning
from sim.rules.movement import IDEAL_BONUS, MoveError, Mover, check_run, check_walk, plan_charge

Point = tuple[float, float]

#: Overlay names accepted by ``render_png(..., overlays=...)`` and the scene.
OVERLAYS = ("walk", "run", "charges")
#: A drag recomputes the move only when the cursor moved at least this far (inches).
MIN_STEP = 0.02
#: Directions sampled by the straight-line stand-in for the planned regions.
DIRECTIONS = 144


def _planning():
    """``sim.rules.planning`` if it exists, else None (it is written separately)."""
    return planning


def has_planning() -> bool:
    """True when ``sim.rules.planning`` (exact regions, shortest walks) is available."""
    return _planning() is not None


# ---------------------------------------------------------------- regions
def _ideal_bonus(table) -> float:
    return IDEAL_BONUS if any(t.passage is Passage.IDEAL for t in table.terrain) else 0.0


def straight_region(table, model_id: str, kind: str = "walk", directions: int = DIRECTIONS,
                    step: float = 0.75, tolerance: float = 0.01):
    """The stand-in for the planned regions: the end points of legal *straight* Walks
    (``kind="walk"``, :func:`~sim.rules.movement.check_walk`) or Runs (``"run"``,
    :func:`~sim.rules.movement.check_run`) from the model's position, as a shapely
    geometry (possibly empty).

    Along each of ``directions`` rays (plus the rays directly away from enemies whose
    ZoC the model starts in) it steps ``step`` inches until a move is illegal, then
    bisects to ``tolerance``. Paths that bend round obstacles are not found, so the
    region is a subset of the true one.
    """

    try:
        mover = Mover(table, model_id)
    except MoveError:
        return GeometryCollection()
    start = mover.start
    if kind == "walk":
        reach = mover.move + _ideal_bonus(table)

        def legal(p):
            return check_walk(table, model_id, [p]).legal
    elif kind == "run":
        reach = 1.5 * mover.move + _ideal_bonus(table)

        def legal(p):
            return check_run(table, model_id, p).legal
    else:
        raise ValueError(f"unknown region kind {kind!r} (expected 'walk' or 'run')")
    angles = [2 * math.pi * k / directions for k in range(directions)]
    away = []
    for eid in mover.start_zocs:
        e = table.model(eid).position
        away.append(math.atan2(start[1] - e[1], start[0] - e[0]))
    angles = sorted(set(angles) | set(a % (2 * math.pi) for a in away))

    def at(a, d):
        return (start[0] + d * math.cos(a), start[1] + d * math.sin(a))

    ring, spikes = [], []
    for a in angles:
        lo, hi, d = 0.0, None, min(step, reach)
        while True:
            if legal(at(a, d)):
                lo = d
                if d >= reach:
                    break
                d = min(d + step, reach)
            else:
                hi = d
                break
        if hi is not None:
            while hi - lo > tolerance:
                mid = (lo + hi) / 2
                if legal(at(a, mid)):
                    lo = mid
                else:
                    hi = mid
        ring.append(at(a, lo))
        if lo > 0 and any(abs((a - b + math.pi) % (2 * math.pi) - math.pi) < 1e-9 for b in away):
            spikes.append(LineString([start, at(a, lo)]).buffer(0.05))
    poly = Polygon(ring).buffer(0) if len(ring) >= 3 else Polygon()
    return unary_union([poly, *spikes])


def walk_region(table, model_id: str):
    """Where ``model_id``'s base centre can end a Walk (shapely geometry, inches):
    ``sim.rules.planning.walk_region`` when available, else :func:`straight_region`."""
    pl = _planning()
    if pl is not None and hasattr(pl, "walk_region"):
        return pl.walk_region(table, model_id)
    return straight_region(table, model_id, "walk")


def run_region(table, model_id: str):
    """Where ``model_id``'s base centre can end a Run (shapely geometry, inches):
    ``sim.rules.planning.run_region`` when available, else :func:`straight_region`."""
    pl = _planning()
    if pl is not None and hasattr(pl, "run_region"):
        return pl.run_region(table, model_id)
    return straight_region(table, model_id, "run")


def charge_lanes(table, model_id: str) -> list:
    """The Charges ``model_id`` could declare, as :class:`~sim.rules.movement.MoveResult`
    (``reached`` tells whether the lane ends in base contact with its ``target``):
    ``sim.rules.planning.charge_lanes`` when available, else
    :func:`~sim.rules.movement.plan_charge` at every enemy in LoS within 2 x Move (+2"
    of Ideal terrain) of the base."""
    pl = _planning()
    if pl is not None and hasattr(pl, "charge_lanes"):
        return list(pl.charge_lanes(table, model_id))

    m = table.model(model_id)
    if m.move is None:
        return []
    reach = 2 * float(m.move) + _ideal_bonus(table)
    scene = table.scene()
    out = []
    for e in table.models:
        if e.player == m.player or scene.distance(model_id, e.id) > reach:
            continue
        if not scene.los(model_id, e.id).visible:
            continue
        try:
            out.append(plan_charge(table, model_id, e.id))
        except MoveError:
            continue
    return out


# ------------------------------------------------------------------- walks
def plan_walk(table, model_id: str, dest: Sequence[float]):
    """The Walk of ``model_id`` to ``dest`` (a :class:`~sim.rules.movement.MoveResult`):
    ``sim.rules.planning.shortest_walk`` when available (a path round obstacles and
    zones of control), else the straight line judged by
    :func:`~sim.rules.movement.check_walk`. If the planner finds no path the straight
    line is judged instead, so the reasons say what is in the way.

    Raises:
        sim.rules.movement.MoveError: unknown model or no Move value.
    """

    p = (float(dest[0]), float(dest[1]))
    pl = _planning()
    if pl is not None and hasattr(pl, "shortest_walk"):
        try:
            res = pl.shortest_walk(table, model_id, p)
        except Exception:  # noqa: BLE001 - a planner failure must not break the drag
            res = None
        if res is not None and len(res.path) >= 2 and (res.legal or math.dist(res.path[-1], p) < 1e-6):
            return res
    return check_walk(table, model_id, [p])


def _inches(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return s or "0"


def describe(result) -> str:
    """The readout of a Walk result: ``Walk 3.42" of 4" — legal`` or
    ``Walk 3.42" of 4" — illegal: <the first reason>``."""
    head = f'Walk {result.cost:.2f}" of {_inches(result.allowance)}"'
    if result.legal:
        return f"{head} — legal"
    why = result.reasons[0].message if result.reasons else "not allowed"
    return f"{head} — illegal: {why}"


def readout(table, model_id: str, dest: Sequence[float]) -> tuple[str, bool, tuple[Point, ...]]:
    """What a drag of ``model_id`` to ``dest`` shows: ``(text, legal, path)`` with
    ``text`` from :func:`describe` and ``path`` the base-centre points (inches) from the
    start, as :func:`plan_walk` finds them."""
    res = plan_walk(table, model_id, dest)
    return describe(res), bool(res.legal), tuple((float(x), float(y)) for x, y in res.path)


def move_model(table, model_id: str, position: Sequence[float], facing: float | None = None):
    """A new table with ``model_id`` at ``position`` (and ``facing`` degrees if given);
    everything else, the cached geometry scene excepted, is shared.

    Raises:
        KeyError: unknown model.
    """
    table.model(model_id)
    pos = (float(position[0]), float(position[1]))
    models = tuple(
        dataclasses.replace(m, position=pos, facing=m.facing if facing is None else float(facing) % 360.0)
        if m.id == model_id else m
        for m in table.models
    )
    changes = {"models": models}
    if any(f.name == "_scene" for f in dataclasses.fields(table)):
        changes["_scene"] = []  # the geometry scene of the old positions must not carry over
    return dataclasses.replace(table, **changes)


@dataclass
class DragState:
    """A move being set up in the window: the model, where the cursor puts it, and what
    the rules say about it.

    ``begin`` starts it, ``hover`` follows the cursor (ignored once the destination is
    ``pinned``), ``pin`` fixes a destination (a drag's release, a click in move mode),
    ``commit`` returns the table with the model moved, ``cancel`` forgets it.

    Attributes:
        table: the table the move is judged on.
        model_id: the moving model, or None when no move is set up.
        dest: the destination ``(x, y)`` of the base centre, or None.
        pinned: the destination was fixed and no longer follows the cursor.
        text, legal, path: the last :func:`readout` (empty/False/() before any).
        result: the last :class:`~sim.rules.movement.MoveResult`.
    """

    table: object
    model_id: str | None = None
    dest: Point | None = None
    pinned: bool = False
    text: str = ""
    legal: bool = False
    path: tuple[Point, ...] = ()
    result: object = None

    @property
    def active(self) -> bool:
        """True while a model is being moved."""
        return self.model_id is not None

    @property
    def start(self) -> Point | None:
        """The moving model's position, or None."""
        return None if self.model_id is None else tuple(self.table.model(self.model_id).position)

    def begin(self, model_id: str) -> None:
        """Start moving ``model_id`` (KeyError if unknown); nothing is judged yet."""
        self.table.model(model_id)
        self.model_id = model_id
        self.dest = None
        self.pinned = False
        self.text, self.legal, self.path, self.result = "", False, (), None

    def _judge(self, dest: Sequence[float]) -> bool:
        p = (float(dest[0]), float(dest[1]))
        if self.dest is not None and math.dist(p, self.dest) < MIN_STEP:
            return False
        self.dest = p
        try:
            self.result = plan_walk(self.table, self.model_id, p)
        except ValueError as exc:  # MoveError: no Move value; a bad destination
            self.result = None
            self.text, self.legal, self.path = f"cannot Walk: {exc}", False, (self.start, p)
            return True
        self.text = describe(self.result)
        self.legal = bool(self.result.legal)
        self.path = tuple((float(x), float(y)) for x, y in self.result.path)
        return True

    def hover(self, dest: Sequence[float]) -> bool:
        """The cursor is at ``dest``: judge the move there unless the destination is
        pinned or barely moved. Returns True when the readout changed."""
        if not self.active or self.pinned:
            return False
        return self._judge(dest)

    def pin(self, dest: Sequence[float]) -> bool:
        """Fix the destination at ``dest`` (judged there). Returns True if it changed."""
        if not self.active:
            return False
        changed = self._judge(dest)
        self.pinned = True
        return changed

    def unpin(self) -> None:
        """Let the destination follow the cursor again."""
        self.pinned = False

    def commit(self, force: bool = False):
        """The table with the model at the end of the judged path (its facing kept),
        and the drag ended; None (and the drag kept) when there is no destination yet
        or the move is illegal and not ``force``."""
        if not self.active or self.dest is None or not (self.legal or force):
            return None
        end = self.path[-1] if self.legal and self.path else self.dest
        table = move_model(self.table, self.model_id, end)
        self.table = table
        self.cancel()
        return table

    def cancel(self) -> None:
        """Forget the move."""
        self.model_id = None
        self.dest = None
        self.pinned = False
        self.text, self.legal, self.path, self.result = "", False, (), None
