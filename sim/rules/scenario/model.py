"""The scenario as the rules see it: its constants, errors and objects (p.63).

Rulebook: Scenario rules p.63 (seed lines 1920-2075): the scenario types, objectives
(line 1965), interactions (line 1975), zones (line 2018), VIMs and victory conditions
(line 2071). :class:`Scenario` is the validated, frozen form of a ``bushido-scenario/1``
file (built by :mod:`sim.rules.scenario.loader`); :meth:`Scenario.to_dict` writes it
back and :func:`describe` summarises it. Positions and radii are inches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from sim.geometry import Footprint, Size, base_radius, size_from_base

FORMAT = "bushido-scenario/1"
#: Id prefix of objective terrain pieces (``objective:west``); table ids never use it.
PIECE_PREFIX = "objective:"
#: VP available in every scenario (Victory conditions, line 2075).
TOTAL_VP = 3
#: The last turn a game can have (Game length, "Variable": always ends after turn 7).
MAX_TURN = 7
#: SP by the alignment of an objective or zone, seen from the scoring player
#: (Prayer, line 2003; Zone control, line 2024).
SP_BY_ALIGNMENT = {"friendly": 1, "neutral": 2, "enemy": 3}

TYPES = ("objectives", "vim", "zone_control")
DEPLOYMENTS = ("baseline", "corner_square", "corner_edge")
INTERACTIONS = ("influence", "prayer", "worship")
ACTIONS = ("simple", "complex")
RULES = ("decreasing_popular", "decreasing_scorer")
VIM_KINDS = ("hidden", "open", "nominated")
AWARD_KINDS = ("scenario_points", "objectives", "zones", "worship", "vim")

#: A model as zone control sees it: ``(player, (x, y), radius, rice)``; rice None = 0.
ZoneModel = tuple  # (int, tuple[float, float], float, int | None)


def relation(owner: int | None, player: int) -> str:
    """How an objective or zone of alignment ``owner`` (None = neutral, 1 or 2) looks to
    ``player``: ``"friendly"``, ``"neutral"`` or ``"enemy"`` (the keys of
    :data:`SP_BY_ALIGNMENT`)."""
    if owner is None:
        return "neutral"
    return "friendly" if owner == player else "enemy"


def opponent(player: int) -> int:
    """The other player: 2 for 1, 1 for 2."""
    return 3 - player


# --------------------------------------------------------------------------- errors
class ScenarioError(ValueError):
    """A scenario file or a scenario rule cannot be used.

    For a file, the message names the file, the entry (``objectives.items[2].position``)
    and the problem: ``data/scenarios/x.yaml: objectives.items[2].position: ...``.
    For a rule, it gives the reason (e.g. a refused interaction).

    Attributes:
        file, entry, problem: the parts of the message (file and entry may be None).
    """

    def __init__(self, problem: str, *, file: str | os.PathLike | None = None, entry: str | None = None):
        self.file = str(file) if file is not None else None
        self.entry = entry
        self.problem = problem
        parts = [p for p in (self.file, entry) if p]
        super().__init__(": ".join(parts + [problem]))


class ActionRefused(ScenarioError):
    """A Scenario action (an interaction) that the rules do not allow now; the message
    says why (e.g. ``objective 'west' is already friendly to player 1``)."""


# ------------------------------------------------------------------------- objects
def _alignment_text(owner: int | None) -> str:
    return "neutral" if owner is None else f"player{owner}"


@dataclass(frozen=True)
class Objective:
    """A scenario objective: a round base on the table (Objectives, line 1965).

    Attributes:
        id: unique within the scenario (``west``).
        position: base centre ``(x, y)``, inches.
        radius: base radius, inches (from the scenario's ``base_mm``).
        alignment: starting alignment: None = neutral, 1 or 2 = friendly to that player
            (and so enemy to the other).
        name: display name, if given.
    """

    id: str
    position: tuple[float, float]
    radius: float
    alignment: int | None = None
    name: str | None = None

    @property
    def piece_id(self) -> str:
        """The id of its terrain piece: ``objective:<id>``."""
        return PIECE_PREFIX + self.id


@dataclass(frozen=True)
class Zone:
    """A zone of a Zone Control scenario (line 2018). Its alignment is fixed.

    Attributes:
        id: unique within the scenario.
        alignment: None = neutral, 1 or 2 = friendly to that player.
        footprint: the area (:class:`sim.geometry.Footprint`, polygon or circle), inches.
        name: display name, if given.
    """

    id: str
    alignment: int | None
    footprint: Footprint = field(compare=False)
    name: str | None = None

    @property
    def _key(self) -> tuple:
        fp = self.footprint
        if fp.is_circle:
            return ("circle", fp.center, fp.radius)
        return ("polygon", tuple(map(tuple, fp.vertices.tolist())))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Zone):
            return NotImplemented
        return (self.id, self.alignment, self.name, self._key) == (other.id, other.alignment, other.name, other._key)

    def __hash__(self) -> int:
        return hash((self.id, self.alignment, self.name, self._key))

    @property
    def shape(self):
        """The shapely geometry of the zone."""
        return self.footprint.shape


@dataclass(frozen=True)
class Interaction:
    """An interaction a scenario allows (line 1975): ``kind`` (influence | prayer |
    worship), ``action`` (simple | complex: which Scenario action performs it) and
    ``tokens`` (the X of Prayer (X), else None)."""

    kind: str
    action: str
    tokens: int | None = None


@dataclass(frozen=True)
class Award:
    """One victory condition worth ``vp`` VP (Victory conditions, line 2071).

    Attributes:
        index: its place in the file's ``victory`` list (names it in the state).
        kind: scenario_points | objectives | zones | worship | vim.
        vp: VP it gives. A ``vim`` award gives ``vp`` to each player who kills the
            enemy VIM, so it counts twice towards the three VP of the scenario.
        at: ``"end"`` (the End phase of the last turn) or a turn number; None for vim.
    """

    index: int
    kind: str
    vp: int
    at: str | int | None

    @property
    def label(self) -> str:
        """``victory[1] (objectives, 1 VP, end)``."""
        when = "" if self.at is None else f", {'end' if self.at == 'end' else 'turn ' + str(self.at)}"
        return f"victory[{self.index}] ({self.kind}, {self.vp} VP{when})"


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario. Build it with :func:`load_scenario`.

    Attributes:
        name: display name. key: the file's stem (``shrines``), or the name in
            snake case (not compared).
        description: free text. types: ``("objectives", ...)``.
        deployment: baseline | corner_square | corner_edge (informational).
        length: ``("fixed" | "variable", turn)`` as :class:`sim.rules.game.Game` takes it.
        base_mm: objective base diameter (30 or 50), None without objectives.
        objective_size: the Size of the objective terrain pieces.
        objectives, interactions, zones, victory: tuples of the objects above.
        rules: ``("decreasing_scorer", ...)``.
        reset_scenario_points, reset_alignment: turns whose Start phase resets.
        vim: hidden | open | nominated, or None.
        width, depth: the table it was validated for, inches.
        source: the file it came from (not compared).
    """

    name: str
    key: str = field(compare=False)
    types: tuple[str, ...] = ()
    deployment: str = "baseline"
    length: tuple[str, int] = ("fixed", 6)
    objectives: tuple[Objective, ...] = ()
    base_mm: int | None = None
    objective_size: Size | None = None
    interactions: tuple[Interaction, ...] = ()
    rules: tuple[str, ...] = ()
    reset_scenario_points: tuple[int, ...] = ()
    reset_alignment: tuple[int, ...] = ()
    zones: tuple[Zone, ...] = ()
    vim: str | None = None
    victory: tuple[Award, ...] = ()
    description: str | None = None
    width: float = 24.0
    depth: float = 24.0
    source: str | None = field(default=None, compare=False)

    def objective(self, objective_id: str) -> Objective:
        """The objective ``objective_id`` (a bare id or ``objective:<id>``).

        Raises:
            ScenarioError: no such objective (the message lists the known ids).
        """
        oid = objective_id.removeprefix(PIECE_PREFIX)
        for o in self.objectives:
            if o.id == oid:
                return o
        known = ", ".join(o.id for o in self.objectives) or "none"
        raise ScenarioError(f"no objective {objective_id!r} in scenario {self.name!r} (objectives: {known})")

    def interaction(self, kind: str) -> Interaction | None:
        """The interaction of ``kind`` the scenario allows, or None."""
        for i in self.interactions:
            if i.kind == kind:
                return i
        return None

    @property
    def objective_radius(self) -> float | None:
        """Radius of every objective base, inches (None without objectives)."""
        return base_radius(self.base_mm) if self.base_mm else None

    def to_dict(self) -> dict:
        """The scenario as a ``bushido-scenario/1`` mapping (round-trips through
        :func:`scenario_from_dict`); the game can store it in a save."""
        doc: dict[str, Any] = {"format": FORMAT, "name": self.name}
        if self.description:
            doc["description"] = self.description
        doc.update(types=list(self.types), deployment=self.deployment,
                   length={"kind": self.length[0], "turn": self.length[1]})
        if self.objectives:
            assert self.base_mm is not None, "a scenario with objectives has their base size"
            obj: dict[str, Any] = {"base_mm": self.base_mm}
            if self.objective_size is not None and self.objective_size != size_from_base(self.base_mm):
                obj["size"] = self.objective_size.label
            obj["items"] = [
                {"id": o.id, "position": list(o.position), "alignment": _alignment_text(o.alignment),
                 **({"name": o.name} if o.name else {})}
                for o in self.objectives
            ]
            doc["objectives"] = obj
        if self.interactions:
            doc["interactions"] = [
                {"kind": i.kind, "action": i.action, **({"tokens": i.tokens} if i.tokens is not None else {})}
                for i in self.interactions
            ]
        if self.rules:
            doc["rules"] = list(self.rules)
        if self.reset_scenario_points or self.reset_alignment:
            doc["resets"] = {"scenario_points": list(self.reset_scenario_points),
                             "alignment": list(self.reset_alignment)}
        if self.zones:
            zs = []
            for z in self.zones:
                entry: dict[str, Any] = {"id": z.id, "alignment": _alignment_text(z.alignment)}
                if z.name:
                    entry["name"] = z.name
                if z.footprint.is_circle:
                    entry["circle"] = {"center": list(z.footprint.center), "radius": z.footprint.radius}
                else:
                    entry["polygon"] = [[float(x), float(y)] for x, y in z.footprint.vertices]
                zs.append(entry)
            doc["zones"] = zs
        if self.vim:
            doc["vim"] = {"kind": self.vim}
        doc["victory"] = [{"kind": a.kind, "vp": a.vp, **({"at": a.at} if a.at is not None else {})}
                          for a in self.victory]
        return doc


def describe(scenario: Scenario) -> list[str]:
    """Readable lines summarising a scenario (for a CLI or a log)."""
    lines = [f"{scenario.name} ({', '.join(scenario.types)}; deployment {scenario.deployment}; "
             f"{scenario.length[0]} length, turn {scenario.length[1]})"]
    if scenario.objectives:
        size = scenario.objective_size
        assert size is not None, "a scenario with objectives has their Size"
        lines.append(f"objectives ({scenario.base_mm} mm, [Impassable, Blocking, {size.label.title()}]): "
                     + ", ".join(f"{o.id} at ({o.position[0]:g}, {o.position[1]:g}) {_alignment_text(o.alignment)}"
                                 for o in scenario.objectives))
    for i in scenario.interactions:
        lines.append(f"interaction: {i.kind}{f' ({i.tokens})' if i.tokens else ''} ({i.action})")
    for r in scenario.rules:
        lines.append(f"rule: {r}")
    if scenario.reset_scenario_points:
        lines.append(f"reset scenario points: turns {', '.join(map(str, scenario.reset_scenario_points))}")
    if scenario.reset_alignment:
        lines.append(f"reset alignment: turns {', '.join(map(str, scenario.reset_alignment))}")
    for z in scenario.zones:
        lines.append(f"zone {z.id} ({_alignment_text(z.alignment)})")
    if scenario.vim:
        lines.append(f"VIM ({scenario.vim})")
    for a in scenario.victory:
        lines.append(a.label)
    return lines
