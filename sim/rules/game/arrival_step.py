"""Models Elsewhere and their Flank arrivals (Elsewhere p.5, Flank p.52, the Starting
phase p.20 step 5, Place p.22).

A model held back by Flank starts the game Elsewhere (an ``elsewhere`` event): off the
table, so it has no LoS or ZoC, is no target and gets no activation counters, but it is
not killed; it generates Ki as usual (p.5). In the Starting phase of its turn, after the
Tactical test, the game waits for its player to place it (a ``flank_due`` event reveals
the turn and edges; :meth:`Game.to_move` is the placing player, the player who acts first
placing first, p.20 step 5): an ``arrive`` action, ``Action("arrive", model, point=(x, y),
facing=deg)``, places it along its chosen table edge -- its base touching the edge, wholly
on the table, not in the opponent's deployment zone (p.52), on no other base, Impassable
terrain or objective and in contact with no enemy (Place p.22) -- with two activation
counters (p.52). When every due model is placed the Starting phase goes on (pass tokens)
and the Main phase starts. The project's readings: docs/rulings-project.md rows 50-53.

A mixin of :class:`~sim.rules.game.Game`; the ``arrive`` kind is registered at the end of
the module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.geometry import CONTACT, EPS
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import MAX_TURNS, GameError, ModelState
from sim.table import Table, placement_problems

#: The page of the Flank trait (its arrival), of Elsewhere, and of placing a model.
PAGE_FLANK, PAGE_ELSEWHERE, PAGE_PLACE = "p.52", "p.5", "p.22"
#: Activation counters a model gets when it arrives from the Flank (p.52).
ARRIVAL_COUNTERS = 2


@dataclass(frozen=True)
class Arrival:
    """When and where a model held back by Flank arrives (p.52).

    Attributes:
        turn: the turn (the set-up allows 2, 3 or 4; the engine takes 1..7).
        edge: the table edge, ``north``, ``south``, ``east`` or ``west``
            (:data:`sim.rules.setup.zones.EDGES`).
        zone: the opponent's deployment zone id (``north``, ``south-west`` ...) of the
            game's deployment kind (the scenario's, else Baseline), which the arrival may
            not be in; None when there is none to keep out of.
    """

    turn: int
    edge: str
    zone: str | None = None

    def to_json(self) -> dict:
        """``{"turn", "edge", "zone"}``."""
        return {"turn": self.turn, "edge": self.edge, "zone": self.zone}


def arrival_of(value: Any, where: str = "elsewhere") -> Arrival:
    """An :class:`Arrival` from an Arrival, a mapping ``{"turn", "edge", "zone"?}`` or a
    tuple ``(turn, edge[, zone])``.

    Raises:
        GameError: a turn outside 1..7, an unknown edge or a zone that is not text
            (the message names ``where``).
    """
    from sim.rules.setup.zones import EDGES

    turn: Any
    edge: Any
    zone: Any
    if isinstance(value, Arrival):
        turn, edge, zone = value.turn, value.edge, value.zone
    elif isinstance(value, Mapping):
        extra = sorted(set(value) - {"turn", "edge", "zone"})
        if extra:
            raise GameError(f"{where}: unknown key {extra[0]!r} (turn, edge, zone)")
        turn, edge, zone = value.get("turn"), value.get("edge"), value.get("zone")
    elif isinstance(value, (tuple, list)) and len(value) in (2, 3):
        turn, edge, zone = value[0], value[1], (value[2] if len(value) == 3 else None)
    else:
        raise GameError(f"{where}: expected (turn, edge[, zone]) or {{'turn', 'edge', 'zone'}}, got {value!r}")
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= MAX_TURNS:
        raise GameError(f"{where}: the turn is a whole number 1..{MAX_TURNS}, got {turn!r}")
    if edge not in EDGES:
        raise GameError(f"{where}: the edge is one of {', '.join(EDGES)}, got {edge!r}")
    if zone is not None and not isinstance(zone, str):
        raise GameError(f"{where}: the zone is a zone id or None, got {zone!r}")
    return Arrival(turn, str(edge), zone)


class ArrivalStep(GamePart):
    """Models Elsewhere and their arrivals (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ set-up and the turn
    def _hold_back(self) -> None:
        """The game's creation: every model of :attr:`held_back` starts Elsewhere."""
        for mid, arr in self.held_back.items():
            self._emit(Event("elsewhere", {"model": mid, "turn": arr.turn, "edge": arr.edge, "zone": arr.zone}))

    def _arrivals_due(self) -> bool:
        """Starting phase step 5 (p.20): when Flank models arrive this turn, reveal them
        and wait for the first player's placements (True); False when none is due."""
        st = self.state
        due = st.due_arrivals()
        if not due:
            return False
        first = st.first if st.first in (1, 2) else 1
        placer = first if any(m.player == first for m in due) else 3 - first
        self._emit(Event("flank_due", {"turn": st.turn, "player": placer,
                                       "models": {m.id: (m.elsewhere or {}).get("edge") for m in due}}))
        self._emit(Event("active", {"player": placer}))
        return True

    def due_arrivals(self) -> list[str]:
        """The ids of the models waiting to be placed now (Starting phase of their turn,
        p.52), the player to move's first; empty when none."""
        st = self.state
        due = st.due_arrivals()
        p = st.active
        return [m.id for m in due if m.player == p] + [m.id for m in due if m.player != p]

    # ------------------------------------------------------------ judging
    def arrival(self, model: str) -> Arrival | None:
        """When and where ``model`` arrives while it is Elsewhere, else None (hidden
        information: a window shows it to its player only)."""
        m = self.state.models.get(model)
        if m is None or m.elsewhere is None:
            return None
        return arrival_of(m.elsewhere, f"models[{model!r}].elsewhere")

    def arrival_line(self, model: str) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two ends (inches) of the line of base centres of ``model`` touching its
        arrival edge and wholly on the table: every legal arrival point lies on it.

        Raises:
            GameError: the model is not Elsewhere.
        """
        from sim.rules.setup.zones import edge_centres

        arr = self.arrival(model)
        if arr is None:
            raise GameError(f"{model!r} is not Elsewhere")
        a, b = edge_centres(arr.edge, self.table.model(model).radius, self.table.width, self.table.depth)
        return a, b

    def arrival_point(self, model: str, xy) -> tuple[float, float]:
        """The point of :meth:`arrival_line` nearest ``xy`` (inches): where a click or a
        drag at ``xy`` places ``model`` along its edge.

        Raises:
            GameError: the model is not Elsewhere.
        """
        (ax, ay), (bx, by) = self.arrival_line(model)
        dx, dy = bx - ax, by - ay
        n = dx * dx + dy * dy
        t = 0.0 if n == 0 else max(0.0, min(1.0, ((float(xy[0]) - ax) * dx + (float(xy[1]) - ay) * dy) / n))
        return (ax + dx * t, ay + dy * t)

    def arrival_facing(self, model: str) -> float:
        """The default facing of an arriving model: square to its edge, into the table
        (the player placing a model chooses its facing, p.22).

        Raises:
            GameError: the model is not Elsewhere.
        """
        from sim.rules.setup.zones import EDGE_FACING

        arr = self.arrival(model)
        if arr is None:
            raise GameError(f"{model!r} is not Elsewhere")
        return EDGE_FACING[arr.edge]

    def arrival_refusals(self, model: str | None, point, facing: float | None = None) -> list[str]:
        """Every reason ``model`` may not arrive with its base centre at ``point`` (inches)
        now, each with its page; empty when it may: it must be Elsewhere and due (the
        Starting phase of its turn, p.52), its player's to place (the first player
        places first, p.20 step 5), along its edge and out of the opponent's zone (p.52),
        and placed legally (wholly on the table, on no base, Impassable terrain or
        objective, in contact with no enemy, p.22)."""
        from sim.rules.setup.zones import arrival_refusals, make_zone

        st = self.state
        m = st.models.get(model or "")
        if m is None:
            return [f"no model {model!r} in the game"]
        if m.elsewhere is None:
            where = "is on the table" if m.alive else "was killed"
            return [f"{m.id} is not Elsewhere: it {where} ({PAGE_ELSEWHERE})"]
        arr = arrival_of(m.elsewhere)
        if arr.turn > st.turn or st.phase != "start":
            return [f"{m.id} arrives in the Starting phase of turn {arr.turn} (noted in secret before the game), "
                    f"not in the {st.phase} phase of turn {st.turn} ({PAGE_FLANK})"]
        if m.player != st.active:
            return [f"player {st.active} places its Flank models first (the player who acts first, p.20 step 5)"]
        if point is None:
            return [f"the arrival needs a point along the {arr.edge} edge ({PAGE_FLANK})"]
        tm = self.table.model(m.id)
        x, y = float(point[0]), float(point[1])
        zone = None
        if arr.zone is not None:
            kind = self.scenario.deployment if self.scenario is not None else "baseline"
            try:
                zone = make_zone(kind, arr.zone, self.table.width, self.table.depth)
            except ValueError as exc:
                return [f"{m.id}'s arrival names an unknown zone: {exc}"]
        out = [str(r) for r in arrival_refusals(arr.edge, zone, (x, y), tm.radius, self.table.width,
                                                self.table.depth)]
        now = self._table_now()
        probe = Table("probe", now.width, now.depth, now.terrain,
                      now.models + (_placed(tm, (x, y), facing or 0.0),))
        for p in placement_problems(probe, edge_tolerance=math.inf, overlap_tolerance=EPS, impassable_tolerance=EPS):
            if m.id not in (p.model, p.other):
                continue
            if p.kind == "overlap":
                other = p.other if p.model == m.id else p.model
                out.append(f"the base overlaps the base of {other} by {p.amount:.3f}\" ({PAGE_PLACE})")
            elif p.kind == "impassable":
                what = "objective" if (p.other or "").startswith("objective:") else "Impassable terrain"
                out.append(f"the base stands {p.amount:.3f}\" inside {what} {p.other} ({PAGE_PLACE})")
        for e in now.models:
            if e.player != m.player and e.id != m.id:
                gap = math.dist(e.position, (x, y)) - e.radius - tm.radius
                if -EPS <= gap <= CONTACT:
                    out.append(f"the base touches the enemy {e.id}; a model is not placed in contact with an enemy "
                               f"({PAGE_PLACE})")
        return out

    def arrival_actions(self, samples: int = 12) -> list[Action]:
        """Legal arrivals of the player to move now: for each due model of that player,
        up to ``samples`` points evenly along its edge (facing into the table) that
        :meth:`arrival_refusals` accepts; :meth:`is_legal` judges any other point."""
        out: list[Action] = []
        st = self.state
        for m in st.due_arrivals(st.active):
            (ax, ay), (bx, by) = self.arrival_line(m.id)
            facing = self.arrival_facing(m.id)
            n = max(1, samples - 1)
            for i in range(n + 1):
                pt = (ax + (bx - ax) * i / n, ay + (by - ay) * i / n)
                if not self.arrival_refusals(m.id, pt, facing):
                    out.append(Action("arrive", m.id, point=pt, facing=facing))
        return out + self.booted_offers(out)  # Booted: a Walk at once (p.50)

    # ------------------------------------------------------------ the arrive action
    def _legal_arrive(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        why = self.arrival_refusals(action.model, action.point, action.facing)
        booted = self.booted_refusal(action)  # a Walk declared with the arrival: Booted (p.50)
        if booted:
            why.append(booted)
        return not why, "; ".join(why)

    def _resolve_arrive(self, action: Action) -> None:
        """Place the model (an ``arrive`` event); when no arrival is due any more, the
        Starting phase goes on (p.20 step 6) and the Main phase starts."""
        st = self.state
        ok, why = self.is_legal(action)
        if not ok:
            self._unmark()
            raise GameError(why)
        assert action.model is not None and action.point is not None  # judged legal
        arr = self.arrival(action.model)
        assert arr is not None
        facing = float(action.facing) % 360.0 if action.facing is not None else self.arrival_facing(action.model)
        self._emit(Event("arrive", {"model": action.model, "to": [float(action.point[0]), float(action.point[1])],
                                    "facing": facing, "edge": arr.edge, "counters": ARRIVAL_COUNTERS}))
        self._booted_walk(action)  # Booted (p.50)
        p = st.active
        if st.due_arrivals(p):
            return
        if st.due_arrivals():
            self._emit(Event("active", {"player": 3 - (p or 1)}))
            return
        self._open_main()

    # the kind of this step, registered where it is defined
    register(ActionKind("arrive", _legal_arrive, _resolve_arrive))


def _placed(model, point, facing: float):
    """``model`` (a :class:`models.model.Model`) with its base at ``point``, facing
    ``facing`` degrees."""
    from dataclasses import replace

    return replace(model, position=(float(point[0]), float(point[1])), facing=float(facing) % 360.0)

