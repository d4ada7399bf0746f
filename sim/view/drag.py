"""What the view shows for movement (pure Python: no Panda3D).

The window (``sim.view.app``) and the scene (``sim.view.scene3d``) ask this module:

* :func:`walk_region`, :func:`run_region`, :func:`charge_lanes`: the movement overlays
  of a model (where its base centre can end a Walk or a Run; its Charges). They come
  from ``sim.rules.planning`` when that module exists; until then a straight-line
  approximation stands in (see :func:`straight_region`).
  The planner's answers are cached per table state (``sim.rules.planning.cache``).
* :func:`plan_walk`, :func:`plan_move` and :func:`readout`: the Walk, Run or Charge to
  a dragged destination and the line of text a player reads (``Walk 3.42" of 4" —
  legal``; :func:`explain`: every reason with its rule and page, as the CLI prints them).
* :class:`DragState`: a drag (or a "move mode" click) in progress -- a Walk, a Run or a
  Charge, a Walk's end facing -- and committing it with :func:`move_model` (a new
  :class:`~sim.table.Table`; tables are immutable).

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
        return getattr(pl, "cached_walk_region", pl.walk_region)(table, model_id)
    return straight_region(table, model_id, "walk")


def run_region(table, model_id: str):
    """Where ``model_id``'s base centre can end a Run (shapely geometry, inches):
    ``sim.rules.planning.run_region`` when available, else :func:`straight_region`."""
    pl = _planning()
    if pl is not None and hasattr(pl, "run_region"):
        return getattr(pl, "cached_run_region", pl.run_region)(table, model_id)
    return straight_region(table, model_id, "run")


def charge_lanes(table, model_id: str) -> list:
    """The Charges ``model_id`` could declare, as :class:`~sim.rules.movement.MoveResult`
    (``reached`` tells whether the lane ends in base contact with its ``target``):
    ``sim.rules.planning.charge_lanes`` when available, else
    :func:`~sim.rules.movement.plan_charge` at every enemy in LoS within 2 x Move (+2"
    of Ideal terrain) of the base."""
    pl = _planning()
    if pl is not None and hasattr(pl, "charge_lanes"):
        return list(getattr(pl, "cached_charge_lanes", pl.charge_lanes)(table, model_id))

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


# ------------------------------------------------------------------- moves
#: The moves a drag can set up, in the order of the window's keys ``1``, ``2``, ``3``.
KINDS = ("walk", "run", "charge")
#: Degrees one press of ``q`` / ``e`` turns the model (shift: :data:`FINE_TURN`).
TURN_STEP = 15.0
FINE_TURN = 1.0
#: Why only a Walk may end with a new facing (Movement p.22; docs/rulings-project.md 43).
NO_TURN = {
    "run": "a Run faces the point it runs to and may not change facing after (Run p.22)",
    "charge": "a Charge faces its target along the charge line; no other facing (Charge p.22)",
}


def plan_walk(table, model_id: str, dest: Sequence[float], facing: float | None = None):
    """The Walk of ``model_id`` to ``dest`` (a :class:`~sim.rules.movement.MoveResult`),
    ending with ``facing`` degrees (None: unchanged): ``sim.rules.planning.shortest_walk``
    when available (a path round obstacles and zones of control), else the straight line
    judged by :func:`~sim.rules.movement.check_walk`. If the planner finds no path the
    straight line is judged instead, so the reasons say what is in the way.

    Raises:
        sim.rules.movement.MoveError: unknown model or no Move value.
    """

    p = (float(dest[0]), float(dest[1]))
    pl = _planning()
    if pl is not None and hasattr(pl, "shortest_walk"):
        try:
            res = pl.shortest_walk(table, model_id, p, facing=facing)
        except Exception:  # noqa: BLE001 - a planner failure must not break the drag
            res = None
        if res is not None and len(res.path) >= 2 and (res.legal or math.dist(res.path[-1], p) < 1e-6):
            return res
    return check_walk(table, model_id, [p], facing)


def charge_target(table, model_id: str, point: Sequence[float]) -> str | None:
    """The enemy a Charge dragged to ``point`` is made at: the enemy whose base is under
    the point, else the enemy whose base edge is nearest to it; None without enemies.

    Raises:
        KeyError: unknown model.
    """
    me = table.model(model_id)
    p = (float(point[0]), float(point[1]))
    enemies = [m for m in table.models if m.player != me.player]
    if not enemies:
        return None
    return min(enemies, key=lambda e: (max(0.0, math.dist(p, e.position) - e.radius), e.id)).id


def plan_move(table, model_id: str, kind: str, dest: Sequence[float], facing: float | None = None):
    """The ``kind`` move (``"walk"``, ``"run"`` or ``"charge"``) of ``model_id`` dragged
    to ``dest``, judged by the rules (a :class:`~sim.rules.movement.MoveResult`):

    * ``walk``: :func:`plan_walk` (ending with ``facing`` degrees, None: unchanged);
    * ``run``: :func:`~sim.rules.movement.check_run` straight to ``dest`` (Run p.22);
    * ``charge``: :func:`~sim.rules.movement.plan_charge` at :func:`charge_target`
      (the enemy under the cursor, else the nearest; Charge p.22).

    Raises:
        sim.rules.movement.MoveError: unknown model, no Move value, no enemy to charge.
        ValueError: unknown kind.
    """
    if kind == "walk":
        return plan_walk(table, model_id, dest, facing)
    if kind == "run":
        return check_run(table, model_id, (float(dest[0]), float(dest[1])))
    if kind == "charge":
        target = charge_target(table, model_id, dest)
        if target is None:
            raise MoveError(f"{model_id} has no enemy to charge")
        return plan_charge(table, model_id, target)
    raise ValueError(f"unknown move kind {kind!r} (expected one of {', '.join(KINDS)})")


def _inches(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return s or "0"


def reason_line(reason) -> str:
    """One reason of a :class:`~sim.rules.movement.MoveResult` as a player reads it, with
    the rule and its page as the CLI (``main.py move``) prints them: ``the base would
    enter masunagi's zone of control [Walk p.22: may not enter enemy ZoC]``."""
    return f"{reason.message} [{reason.ruling}]"


def reason_lines(result) -> tuple[str, ...]:
    """Every reason of ``result`` (:func:`reason_line`), in the checker's order."""
    return tuple(reason_line(r) for r in result.reasons)


def _head(result) -> str:
    what = {"walk": "Walk", "run": "Run", "charge": "Charge"}.get(result.kind, result.kind.title())
    if result.kind == "charge" and result.target:
        what += f" {result.target}"
    return f'{what} {result.cost:.2f}" of {_inches(result.allowance)}"'


def describe(result) -> str:
    """The short readout of a move result (the label by the ghost, the first line of the
    status): ``Walk 3.42" of 4" — legal`` or ``Walk 3.42" of 4" — illegal: <the first
    reason>``; a Charge says whether it reaches (``Charge masunagi 2.10" of 8" — legal,
    reaches masunagi``). :func:`explain` gives every reason with its page."""
    head = _head(result)
    if result.legal:
        if result.kind == "charge":
            return f"{head} — legal, " + (f"reaches {result.target}" if result.reached else "falls short")
        return f"{head} — legal"
    why = result.reasons[0].message if result.reasons else "not allowed"
    return f"{head} — illegal: {why}"


def explain(result) -> str:
    """The whole verdict of a move result, as the window's status line shows it: the
    head (:func:`describe` without the reason), then every reason with its rule and
    page (:func:`reason_line`, ``; ``-separated), then where a Charge stopped and why."""
    head = _head(result)
    if result.legal:
        text = f"{head} — legal"
    else:
        text = f"{head} — illegal: " + ("; ".join(reason_lines(result)) or "not allowed")
    if result.kind == "charge":
        stop = getattr(result, "stop", None)
        reach_text = f"reaches {result.target}" if result.reached else "falls short"
        text += f" ({reach_text}" + (f": {reason_line(stop)}" if stop is not None and not result.reached else "") + ")"
    return text


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
    """A move being set up in the window: the model, the kind of move (Walk, Run or
    Charge), where the cursor puts it, the facing it ends with, and what the rules say.

    ``begin`` starts it, ``set_kind`` picks Walk, Run or Charge (the window's keys 1, 2,
    3), ``hover`` follows the cursor (ignored once the destination is ``pinned``), ``pin``
    fixes a destination (a drag's release, a click in move mode), ``turn`` changes the
    facing a Walk ends with (``q`` / ``e``; refused for a Run or a Charge, which face
    the way they go), ``commit`` returns the table with the model moved, ``cancel``
    forgets it.

    Attributes:
        table: the table the move is judged on.
        model_id: the moving model, or None when no move is set up.
        kind: ``"walk"``, ``"run"`` or ``"charge"`` (kept from one move to the next).
        dest: the destination ``(x, y)`` of the base centre (the cursor), or None.
        facing: the facing (degrees) a Walk ends with; None: unchanged.
        pinned: the destination was fixed and no longer follows the cursor.
        text: the short readout (:func:`describe`); ``legal``, ``path``: the verdict
            and the base-centre path from the start.
        reasons: every reason with its rule and page (:func:`reason_lines`); a Charge
            that falls short is marked not legal here (it is not committed: a Charge
            moves into contact, p.24, docs/rulings-project.md 45).
        detail: the whole verdict line (:func:`explain`).
        note: why the last ``turn`` was refused ("" when it was not).
        result: the last :class:`~sim.rules.movement.MoveResult`.
    """

    table: object
    model_id: str | None = None
    kind: str = "walk"
    dest: Point | None = None
    facing: float | None = None
    pinned: bool = False
    text: str = ""
    legal: bool = False
    path: tuple[Point, ...] = ()
    reasons: tuple[str, ...] = ()
    detail: str = ""
    note: str = ""
    result: object = None

    @property
    def active(self) -> bool:
        """True while a model is being moved."""
        return self.model_id is not None

    @property
    def start(self) -> Point | None:
        """The moving model's position, or None."""
        return None if self.model_id is None else tuple(self.table.model(self.model_id).position)

    @property
    def end(self) -> Point | None:
        """Where the ghost base goes: the end of the judged path of a legal move or of a
        Charge (where it stops), else the cursor; None before any destination."""
        if self.dest is None:
            return None
        if self.path and (self.legal or self.kind == "charge"):
            return self.path[-1]
        return self.dest

    @property
    def end_facing(self) -> float | None:
        """The facing the model would end with (degrees), or None before any verdict."""
        if self.result is not None:
            return float(self.result.facing)
        if self.model_id is None:
            return None
        return float(self.table.model(self.model_id).facing if self.facing is None else self.facing)

    def _clear(self) -> None:
        self.dest = None
        self.pinned = False
        self.facing = None
        self.text, self.legal, self.path, self.result = "", False, (), None
        self.reasons, self.detail, self.note = (), "", ""

    def begin(self, model_id: str) -> None:
        """Start moving ``model_id`` (KeyError if unknown); nothing is judged yet."""
        self.table.model(model_id)
        self.model_id = model_id
        self._clear()

    def set_kind(self, kind: str) -> bool:
        """Make the move a ``kind`` (``walk``, ``run``, ``charge``) and judge the
        destination again; a Run or Charge drops a turn set up for a Walk. Returns True
        when the kind changed.

        Raises:
            ValueError: unknown kind.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown move kind {kind!r} (expected one of {', '.join(KINDS)})")
        if kind == self.kind:
            return False
        self.kind = kind
        if kind != "walk":
            self.facing = None
        self.note = ""
        if self.active and self.dest is not None:
            self._judge(self.dest, force=True)
        return True

    def turn(self, degrees: float) -> bool:
        """Turn the facing the Walk ends with by ``degrees`` (counter-clockwise); with no
        destination yet the model turns where it stands (a Walk of 0": changing facing is
        movement, Move p.22). A Run or a Charge cannot be turned (``note`` says why, see
        :data:`NO_TURN`). Returns True when the verdict changed."""
        if not self.active:
            return False
        if self.kind != "walk":
            self.note = NO_TURN[self.kind]
            return False
        self.note = ""
        base = self.table.model(self.model_id).facing if self.facing is None else self.facing
        self.facing = (float(base) + float(degrees)) % 360.0
        return self._judge(self.dest if self.dest is not None else self.start, force=True)

    def _judge(self, dest: Sequence[float], force: bool = False) -> bool:
        p = (float(dest[0]), float(dest[1]))
        if not force and self.dest is not None and math.dist(p, self.dest) < MIN_STEP:
            return False
        self.dest = p
        what = {"walk": "Walk", "run": "Run", "charge": "Charge"}[self.kind]
        try:
            self.result = plan_move(self.table, self.model_id, self.kind, p,
                                    self.facing if self.kind == "walk" else None)
        except ValueError as exc:  # MoveError: no Move value, no enemy; a bad destination
            self.result = None
            self.text = self.detail = f"cannot {what}: {exc}"
            self.legal, self.path, self.reasons = False, (self.start, p), (str(exc),)
            return True
        self.text = describe(self.result)
        self.detail = explain(self.result)
        if self.kind == "walk" and self.facing is not None:  # say the turn: 'Walk 0.00" of 4", facing 105°'
            turn = f", facing {self.facing:.0f}°"
            self.text = self.text.replace(" — ", turn + " — ", 1)
            self.detail = self.detail.replace(" — ", turn + " — ", 1)
        self.reasons = reason_lines(self.result)
        self.legal = bool(self.result.legal)
        if self.kind == "charge" and self.legal and not self.result.reached:
            # a Charge moves to come into contact (p.24): one that falls short is not
            # committed, as the game window does not offer it (docs/rulings-project.md 45)
            why = (f'the Charge does not reach {self.result.target}: it stops after {self.result.length:.2f}" '
                   "[Charge p.24: a Charge moves into contact; docs/rulings-project.md 45]")
            self.legal = False
            self.reasons += (why,)
            self.text = describe(self.result).replace("— legal, falls short", "— illegal: falls short")
            self.detail = f"{_head(self.result)} — illegal: {why}"
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
        """The table with the model at the end of the judged path and with the facing the
        move ends with (a Walk: the one set by :meth:`turn`, else unchanged; a Run: the
        way it ran; a Charge: along its last leg), and the drag ended; None (and the drag
        kept) when there is no destination yet or the move is illegal and not
        ``force``."""
        if not self.active or self.dest is None or not (self.legal or force):
            return None
        end = self.path[-1] if self.legal and self.path else self.dest
        facing = self.result.facing if self.legal and self.result is not None else self.facing
        table = move_model(self.table, self.model_id, end, facing)
        self.table = table
        self.cancel()
        return table

    def cancel(self) -> None:
        """Forget the move (the kind is kept)."""
        self.model_id = None
        self._clear()
