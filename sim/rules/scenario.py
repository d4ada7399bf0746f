"""Scenarios: the ``bushido-scenario/1`` file, objectives, zones, VIMs and scoring.

Rulebook: Scenario rules p.63 (seed lines 1920-2075): types Objectives / VIM / Zone
Control; the interactions Influence, Prayer (X) and Worship; Decreasing (Popular) and
Decreasing (Scorer); zone control; game length; deployment; Reset Scenario Points and
Reset Alignment; victory conditions (three VP in every scenario). The Simple and Complex
Scenario actions (lines 688, 715) and End phase step 4 (line 578).

The module is pure: no Panda3D and no import of :mod:`sim.rules.game`. Everything the
game needs to store is in :class:`ScenarioState`, a frozen value with
:meth:`ScenarioState.to_json` / :meth:`ScenarioState.from_json`; every rule is a function
``(scenario, state, ...) -> (new_state, notes)``. Positions and radii are inches. How the
project reads each rule is written in ``docs/scenarios.md``.

Public API::

    load_scenario(path_or_name, width=24, depth=24) -> Scenario
    parse_scenario(text, source=None, width=24, depth=24) -> Scenario
    scenario_from_dict(doc, source=None, width=24, depth=24) -> Scenario
    list_scenarios() -> list[str]
    objective_pieces(scenario, state=None) -> tuple[TerrainPiece, ...]
    check_against_table(scenario, table, setup=False) -> list[SetupIssue]
    initial_state(scenario, vims=None) -> ScenarioState
    scenario_actions(scenario, state, player, objective_id, model_id=None, action=None)
    interaction_refusal(scenario, state, player, objective_id, kind, model_id=None, action=None)
    interact(scenario, state, player, objective_id, kind, model_id=None, action=None)
    in_contact_with_objective(model_pos, model_radius, objective, tol=CONTACT) -> bool
    facing_towards(model_pos, objective) -> float
    zone_contains_base(zone, position, radius) -> bool
    zone_controller(zone, models) -> int | None
    start_phase(scenario, state, turn) -> (state, notes)
    record_kill(state, model_id, turn) -> state
    vim_refusal(kind, types, traits=()) -> str | None
    end_phase(scenario, state, turn, last_turn, models, killed=(), choose=None)
        -> (state, notes, game_over)
    final_result(state) -> (winner | None, text)
    describe(scenario) -> list[str]

Readings and the state's JSON shape: ``docs/scenarios.md``.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from shapely.geometry import Point as _SPoint

from sim.bounds import MAX_ENTRIES, MAX_ITEMS, Coord, Id, Length, Name, NonEmptyName, Text, Vertices
from sim.files import FileProblem, key_label, load_yaml, pydantic_problem, quote, read_text
from sim.geometry import CONTACT, EPS, Footprint, FootprintError, Passage, Size, Visibility, base_radius, size_from_base
from sim.geometry.primitives import heading
from terrain.pieces import DEFAULT_HEIGHTS, TerrainPiece
from terrain.setup import IMPASSABLE_GAP, SetupIssue

FORMAT = "bushido-scenario/1"
STATE_FORMAT = "bushido-scenario-state/1"
SCENARIO_DIR = Path(__file__).resolve().parents[2] / "data" / "scenarios"
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


# --------------------------------------------------------------------------- schema
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


_Point = list[Coord]  # bounded: sim.bounds, docs/bounds.md


def _check_point(v: list[float]) -> list[float]:
    if len(v) != 2:
        raise ValueError(f"must be a point [x, y] (inches), got {len(v)} numbers")
    return v


class _Length(_Strict):
    kind: Literal["fixed", "variable"]
    turn: int = Field(ge=1, le=MAX_TURN)


class _ObjectiveItem(_Strict):
    id: Id
    position: _Point
    alignment: Literal["neutral", "player1", "player2"] = "neutral"
    name: Optional[Name] = None

    _pt = field_validator("position")(_check_point)


class _Objectives(_Strict):
    base_mm: Literal[30, 50]
    size: Optional[Literal["tiny", "small", "medium", "large", "huge"]] = None
    items: list[_ObjectiveItem] = Field(min_length=1, max_length=MAX_ENTRIES)


class _Interaction(_Strict):
    kind: Literal["influence", "prayer", "worship"]
    action: Literal["simple", "complex"]
    tokens: Optional[int] = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _tokens(self):
        if self.kind == "prayer" and self.tokens is None:
            raise ValueError("prayer needs tokens: X >= 1 (each player's starting prayer pool)")
        if self.kind != "prayer" and self.tokens is not None:
            raise ValueError(f"tokens are only for prayer, not {self.kind}")
        return self


class _Resets(_Strict):
    scenario_points: list[int] = Field(default_factory=list, max_length=MAX_ITEMS)
    alignment: list[int] = Field(default_factory=list, max_length=MAX_ITEMS)


class _Circle(_Strict):
    center: _Point
    radius: Length

    _pt = field_validator("center")(_check_point)


class _Zone(_Strict):
    id: Id
    alignment: Literal["neutral", "player1", "player2"] = "neutral"
    polygon: Optional[Vertices] = None
    circle: Optional[_Circle] = None
    name: Optional[Name] = None

    @field_validator("polygon")
    @classmethod
    def _pts(cls, v):
        if v is not None:
            for p in v:
                _check_point(p)
        return v

    @model_validator(mode="after")
    def _one_shape(self):
        if (self.polygon is None) == (self.circle is None):
            raise ValueError("give exactly one of polygon, circle")
        return self


class _Vim(_Strict):
    kind: Literal["hidden", "open", "nominated"]


class _Award(_Strict):
    kind: Literal["scenario_points", "objectives", "zones", "worship", "vim"]
    vp: int = Field(ge=1, le=TOTAL_VP)
    at: Any = None

    @model_validator(mode="after")
    def _at(self):
        if self.kind == "vim":
            if self.at is not None:
                raise ValueError("at: a vim award is scored when the VIM is killed; give no 'at'")
            return self
        if self.at is None:
            raise ValueError("at: missing field ('end' or a turn number)")
        if self.at != "end" and not (type(self.at) is int and 1 <= self.at <= MAX_TURN):
            raise ValueError(f"at: must be 'end' or a turn number 1..{MAX_TURN}, not {quote(self.at)}")
        return self


class _File(_Strict):
    format: Literal["bushido-scenario/1"]
    name: NonEmptyName
    description: Optional[Text] = None
    types: list[Literal["objectives", "vim", "zone_control"]] = Field(min_length=1, max_length=MAX_ITEMS)
    deployment: Literal["baseline", "corner_square", "corner_edge"]
    length: _Length
    objectives: Optional[_Objectives] = None
    interactions: list[_Interaction] = Field(default_factory=list, max_length=MAX_ITEMS)
    rules: list[Literal["decreasing_popular", "decreasing_scorer"]] = Field(default_factory=list, max_length=MAX_ITEMS)
    resets: _Resets = Field(default_factory=_Resets)
    zones: list[_Zone] = Field(default_factory=list, max_length=MAX_ENTRIES)
    vim: Optional[_Vim] = None
    victory: list[_Award] = Field(min_length=1, max_length=MAX_ITEMS)


# ------------------------------------------------------------------------- objects
def _alignment_owner(text: str) -> int | None:
    return {"neutral": None, "player1": 1, "player2": 2}[text]


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


# ------------------------------------------------------------------------- loading
def list_scenarios(directory: str | os.PathLike = SCENARIO_DIR) -> list[str]:
    """The names of the bundled scenarios (``["crossroads", "shrines", ...]``), sorted:
    the stems of ``data/scenarios/*.yaml``."""
    d = Path(directory)
    return sorted(p.stem for p in d.glob("*.yaml")) if d.is_dir() else []


def load_scenario(path_or_name: str | os.PathLike, width: float = 24.0, depth: float = 24.0) -> Scenario:
    """Load and validate a scenario file.

    Args:
        path_or_name: a file path, or a bare name (``shrines``) looked up as
            ``data/scenarios/NAME.yaml``.
        width, depth: the table the positions must fit on, inches.

    Raises:
        ScenarioError: unknown name, unreadable or bad file (see :func:`sim.files.read_text`,
            :func:`sim.files.load_yaml`), values out of the bounds of :mod:`sim.bounds`, or any problem
            :func:`scenario_from_dict` finds.
    """
    text_path = str(path_or_name)
    if isinstance(path_or_name, Path) or "/" in text_path or os.sep in text_path or text_path.endswith((".yaml", ".yml")):
        path = Path(path_or_name)
    else:
        path = SCENARIO_DIR / f"{text_path}.yaml"
        if not path.is_file():
            known = ", ".join(list_scenarios()) or "none"
            raise ScenarioError(f"no bundled scenario {quote(text_path)} (known: {known})", file=path)
    try:
        text = read_text(path)
    except FileProblem as exc:
        raise ScenarioError(exc.problem, file=path, entry=exc.entry) from None
    return parse_scenario(text, source=str(path), width=width, depth=depth)


def parse_scenario(text: str, source: str | None = None, width: float = 24.0, depth: float = 24.0) -> Scenario:
    """Parse a scenario from YAML text (see :func:`load_scenario`); ``source`` names it
    in errors.

    Raises:
        ScenarioError: YAML syntax errors and everything :func:`scenario_from_dict` checks.
    """
    src = source or "<scenario>"
    try:
        raw = load_yaml(text, src)
    except FileProblem as exc:
        raise ScenarioError(exc.problem, file=src, entry=exc.entry) from None
    return scenario_from_dict(raw, source=src, width=width, depth=depth)


def _loc(parts: Sequence[Any]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, str) and not p.startswith(("function-", "tagged-")) and "[" not in p:
            out += ("." if out else "") + key_label(p)
    return out


def _describe(err: dict) -> tuple[str, str]:
    entry = _loc(err.get("loc", ()))
    msg = pydantic_problem(err)
    # a model validator's message may start with the field it is about ("at: ...")
    head, sep, rest = msg.partition(": ")
    if sep and head.isidentifier() and head in ("at",):
        entry, msg = f"{entry}.{head}" if entry else head, rest
    return entry, msg


def scenario_from_dict(doc: Any, source: str | None = None, width: float = 24.0, depth: float = 24.0) -> Scenario:
    """Validate a ``bushido-scenario/1`` mapping and build the :class:`Scenario`.

    Checks, besides the schema (missing or unknown fields, wrong types, unknown values,
    NaN): table size; unique ids (objectives and zones share one namespace); every
    objective base and zone wholly on the ``width`` x ``depth`` table; objective bases
    not overlapping; valid zone polygons; each interaction kind at most once; Prayer
    with ``tokens >= 1``; ``types`` consistent with the sections (``objectives`` <->
    objectives, ``zone_control`` <-> zones, ``vim`` <-> vim); interactions, Decreasing
    rules and alignment resets need objectives; each award's source exists; award and
    reset turns within the game length; the VP sum to exactly 3 (a vim award counts
    twice: both players can score it).

    Raises:
        ScenarioError: ``FILE: ENTRY: PROBLEM`` for the first problem found.
    """
    src = source or "<scenario>"
    if not (isinstance(width, (int, float)) and isinstance(depth, (int, float)) and width > 0 and depth > 0
            and math.isfinite(width) and math.isfinite(depth)):
        raise ScenarioError(f"table size must be positive, not {width!r} x {depth!r}", file=src)
    if not isinstance(doc, dict):
        raise ScenarioError("the file must be a YAML mapping with format, name, types, deployment, length, victory",
                            file=src)
    try:
        f = _File.model_validate(doc)
    except ValidationError as exc:
        errors = exc.errors()
        entry, problem = _describe(errors[0])
        if len(errors) > 1:
            problem += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
        raise ScenarioError(problem, file=src, entry=entry or None) from None

    def fail(entry: str | None, problem: str):
        raise ScenarioError(problem, file=src, entry=entry)

    # types <-> sections
    if len(set(f.types)) != len(f.types):
        fail("types", "a type is listed twice")
    has = {"objectives": f.objectives is not None, "zone_control": bool(f.zones), "vim": f.vim is not None}
    section = {"objectives": "objectives", "zone_control": "zones", "vim": "vim"}
    for t in TYPES:
        if t in f.types and not has[t]:
            fail("types", f"type {t!r} needs a {section[t]!r} section")
        if has[t] and t not in f.types:
            fail(section[t], f"a {section[t]!r} section needs {t!r} in types")

    ids: dict[str, str] = {}

    def claim(ident: str, label: str):
        if ident in ids:
            fail(label, f"duplicate id {ident!r} (already used by {ids[ident]})")
        ids[ident] = label

    def on_table(label: str, x0: float, y0: float, x1: float, y1: float, what: str):
        if x0 < -EPS or y0 < -EPS or x1 > width + EPS or y1 > depth + EPS:
            fail(label, f"{what} is not wholly on the {width:g}\" x {depth:g}\" table")

    # objectives
    objectives: list[Objective] = []
    size = None
    if f.objectives is not None:
        r = base_radius(f.objectives.base_mm)
        size = Size.parse(f.objectives.size) if f.objectives.size else size_from_base(f.objectives.base_mm)
        for i, item in enumerate(f.objectives.items):
            label = f"objectives.items[{i}]"
            claim(item.id, label)
            if item.id.startswith(PIECE_PREFIX) or ":" in item.id:
                fail(f"{label}.id", f"an objective id may not contain ':' ({item.id!r})")
            x, y = item.position
            on_table(f"{label}.position", x - r, y - r, x + r, y + r,
                     f"the {f.objectives.base_mm} mm base at ({x:g}, {y:g})")
            for o in objectives:
                gap = math.dist(o.position, (x, y)) - 2 * r
                if gap < -EPS:
                    fail(f"{label}.position", f"base overlaps objective {o.id!r} by {-gap:.4f}\"")
            objectives.append(Objective(item.id, (float(x), float(y)), r, _alignment_owner(item.alignment), item.name))

    # interactions
    interactions: list[Interaction] = []
    for i, it in enumerate(f.interactions):
        if f.objectives is None:
            fail(f"interactions[{i}]", "interactions need an 'objectives' section")
        if any(j.kind == it.kind for j in interactions):
            fail(f"interactions[{i}].kind", f"interaction {it.kind!r} is listed twice")
        interactions.append(Interaction(it.kind, it.action, it.tokens))
    if f.objectives is not None and not interactions:
        fail("interactions", "objectives need at least one interaction (influence, prayer or worship)")

    # rules and resets
    if len(set(f.rules)) != len(f.rules):
        fail("rules", "a rule is listed twice")
    for i, rule in enumerate(f.rules):
        if f.objectives is None:
            fail(f"rules[{i}]", f"{rule} needs an 'objectives' section")
    max_turn = f.length.turn if f.length.kind == "fixed" else MAX_TURN
    for name in ("scenario_points", "alignment"):
        turns = getattr(f.resets, name)
        for i, t in enumerate(turns):
            if not 1 <= t <= max_turn:
                fail(f"resets.{name}[{i}]", f"turn {t} is outside the game (turns 1..{max_turn})")
        if len(set(turns)) != len(turns):
            fail(f"resets.{name}", "a turn is listed twice")
    if f.resets.alignment and f.objectives is None:
        fail("resets.alignment", "an alignment reset needs an 'objectives' section")

    # zones
    zones: list[Zone] = []
    for i, z in enumerate(f.zones):
        label = f"zones[{i}]"
        claim(z.id, label)
        try:
            if z.circle is not None:
                fp = Footprint.circle(z.circle.center, z.circle.radius)
            else:
                fp = Footprint.polygon(z.polygon)
        except FootprintError as exc:
            fail(f"{label}.{'circle' if z.circle is not None else 'polygon'}", str(exc))
        on_table(label, *fp.bounds, f"zone {z.id!r}")
        zones.append(Zone(z.id, _alignment_owner(z.alignment), fp, z.name))

    # victory
    awards: list[Award] = []
    total = 0
    sp_sources = any(i.kind == "prayer" for i in interactions) or bool(zones)
    first_end = f.length.turn  # fixed: the last turn; variable: the first turn that may be the last
    for i, a in enumerate(f.victory):
        label = f"victory[{i}]"
        need = {"objectives": (f.objectives is not None, "an 'objectives' section"),
                "zones": (bool(zones), "a 'zones' section"),
                "worship": (any(j.kind == "worship" for j in interactions), "a worship interaction"),
                "vim": (f.vim is not None, "a 'vim' section"),
                "scenario_points": (sp_sources, "a source of scenario points (prayer or zones)")}[a.kind]
        if not need[0]:
            fail(label, f"a {a.kind} award needs {need[1]}")
        if isinstance(a.at, int) and a.at > first_end:
            when = "the last turn" if f.length.kind == "fixed" else "the first turn the game may end"
            fail(f"{label}.at", f"turn {a.at} is after {when} (turn {first_end})")
        if a.kind == "vim" and any(b.kind == "vim" for b in awards):
            fail(label, "only one vim award")
        total += a.vp * (2 if a.kind == "vim" else 1)
        awards.append(Award(i, a.kind, a.vp, a.at))
    if f.vim is not None and not any(a.kind == "vim" for a in awards):
        fail("vim", "a 'vim' section needs a vim award in victory")
    if total != TOTAL_VP:
        fail("victory", f"the awards give {total} VP; every scenario has exactly {TOTAL_VP} "
                        "(a vim award counts twice: each player can score it)")

    key = Path(src).stem if source else re.sub(r"[^a-z0-9]+", "_", f.name.lower()).strip("_")
    return Scenario(
        name=f.name, key=key, types=tuple(f.types), deployment=f.deployment,
        length=(f.length.kind, f.length.turn), objectives=tuple(objectives),
        base_mm=f.objectives.base_mm if f.objectives else None, objective_size=size,
        interactions=tuple(interactions), rules=tuple(f.rules),
        reset_scenario_points=tuple(sorted(f.resets.scenario_points)),
        reset_alignment=tuple(sorted(f.resets.alignment)), zones=tuple(zones),
        vim=f.vim.kind if f.vim else None, victory=tuple(awards), description=f.description,
        width=float(width), depth=float(depth), source=source,
    )


# ------------------------------------------------------------------------ geometry
def objective_pieces(scenario: Scenario, state: "ScenarioState | None" = None) -> tuple[TerrainPiece, ...]:
    """The objectives as terrain pieces for the geometry and the view: id
    ``objective:<id>``, [Impassable, Blocking, Size], a circle of the objective's base.

    The Size is the scenario's ``objective_size``: from the base like a model's (30 mm
    Small, 50 mm Large) unless the file sets ``objectives.size`` (docs/scenarios.md).
    With ``state``, removed objectives (Decreasing) are left out.
    """
    removed = set(state.removed) if state is not None else set()
    out = []
    for o in scenario.objectives:
        if o.id in removed:
            continue
        out.append(TerrainPiece(
            id=o.piece_id, passage=Passage.IMPASSABLE, visibility=Visibility.BLOCKING,
            size=scenario.objective_size, footprint=Footprint.circle(o.position, o.radius),
            height=DEFAULT_HEIGHTS[scenario.objective_size], preset=None,
            name=o.name or f"Objective {o.id}",
        ))
    return tuple(out)


def check_against_table(scenario: Scenario, table: Any, setup: bool = False) -> list[SetupIssue]:
    """Problems of placing ``scenario`` on ``table`` (a :class:`sim.table.Table`, or any
    object with ``width``, ``depth``, ``terrain`` and ``models``).

    Always: an objective base off the table (``off-table``), overlapping a terrain piece
    by more than EPS (``objective-terrain``) or a model base (``objective-model``), an
    objective piece id already used on the table (``id``), a zone off the table. With
    ``setup=True`` also the set-up rules of rulings.md section 9: Impassable terrain
    within 2" of an objective (``impassable-objective``, measured from the objective's
    base) or inside a scenario zone (``impassable-zone``).

    Returns:
        :class:`terrain.setup.SetupIssue` records; empty when it fits.
    """
    issues: list[SetupIssue] = []
    ids = {t.id for t in table.terrain} | {m.id for m in table.models}
    for o in scenario.objectives:
        (x, y), r = o.position, o.radius
        if x - r < -EPS or y - r < -EPS or x + r > table.width + EPS or y + r > table.depth + EPS:
            issues.append(SetupIssue("off-table", (o.piece_id,), f"objective {o.id} is not wholly on the table"))
        if o.piece_id in ids:
            issues.append(SetupIssue("id", (o.piece_id,), f"id {o.piece_id!r} is already used on the table"))
        for t in table.terrain:
            depth = t.footprint.overlap_depth_disc(o.position, r)
            if depth > EPS:
                issues.append(SetupIssue("objective-terrain", (o.piece_id, t.id),
                                         f"objective {o.id} overlaps terrain {t.id} by {depth:.3f}\""))
            elif setup and t.passage is Passage.IMPASSABLE:
                d = t.footprint.distance_to_disc(o.position, r)
                if d < IMPASSABLE_GAP - EPS:
                    issues.append(SetupIssue("impassable-objective", (o.piece_id, t.id),
                                             f"Impassable {t.id} is {d:.2f}\" from objective {o.id}; keep 2\""))
        for m in table.models:
            gap = math.dist(m.position, o.position) - m.radius - r
            if gap < -EPS:
                issues.append(SetupIssue("objective-model", (o.piece_id, m.id),
                                         f"objective {o.id} overlaps the base of {m.id} by {-gap:.3f}\""))
    for z in scenario.zones:
        x0, y0, x1, y1 = z.footprint.bounds
        if x0 < -EPS or y0 < -EPS or x1 > table.width + EPS or y1 > table.depth + EPS:
            issues.append(SetupIssue("off-table", (z.id,), f"zone {z.id} is not wholly on the table"))
        if setup:
            for t in table.terrain:
                if t.passage is Passage.IMPASSABLE and t.footprint.shape.intersection(z.shape).area > EPS:
                    issues.append(SetupIssue("impassable-zone", (t.id, z.id),
                                             f"Impassable {t.id} stands in scenario zone {z.id}"))
    return issues


def in_contact_with_objective(model_pos: Sequence[float], model_radius: float, objective: Objective,
                              tol: float = CONTACT) -> bool:
    """True if a base (centre ``model_pos``, ``model_radius`` inches) touches the
    objective's base: edge-to-edge gap <= ``tol`` (rulings.md 1, ``CONTACT``). The
    Scenario actions need it (Simple/Complex Scenario action, lines 688 and 715)."""
    gap = math.dist((float(model_pos[0]), float(model_pos[1])), objective.position) - model_radius - objective.radius
    return gap <= tol + EPS


def facing_towards(model_pos: Sequence[float], objective: Objective) -> float:
    """The facing (degrees CCW from +x, in [0, 360)) of a model at ``model_pos`` turned
    to face the objective directly, as a Scenario action requires (lines 688, 715)."""
    dx = objective.position[0] - float(model_pos[0])
    dy = objective.position[1] - float(model_pos[1])
    return heading(dx, dy)


def zone_contains_base(zone: Zone, position: Sequence[float], radius: float) -> bool:
    """True if the whole base (centre ``position``, ``radius`` inches) lies within the
    zone, its boundary included (within EPS); exact for circles and polygons."""
    x, y = float(position[0]), float(position[1])
    fp = zone.footprint
    if fp.is_circle:
        return math.hypot(x - fp.center[0], y - fp.center[1]) + radius <= fp.radius + EPS
    shape = fp.shape
    pt = _SPoint(x, y)
    if not shape.covers(pt):
        return False
    return float(shape.exterior.distance(pt)) >= radius - EPS


def zone_controller(zone: Zone, models: Iterable[ZoneModel]) -> int | None:
    """The player who controls ``zone`` (Zone control, line 2020), or None.

    Args:
        models: ``(player, (x, y), radius, rice)`` for each model in play; rice None
            counts as 0.

    A model counts only when its base is wholly within the zone. A player controls the
    zone when both the total rice and the number of their models wholly within it are
    strictly greater than the opponent's.
    """
    rice = {1: 0, 2: 0}
    count = {1: 0, 2: 0}
    for player, pos, radius, cost in models:
        if player in (1, 2) and zone_contains_base(zone, pos, radius):
            rice[player] += int(cost or 0)
            count[player] += 1
    for p, q in ((1, 2), (2, 1)):
        if rice[p] > rice[q] and count[p] > count[q]:
            return p
    return None


def _relation(owner: int | None, player: int) -> str:
    if owner is None:
        return "neutral"
    return "friendly" if owner == player else "enemy"


# --------------------------------------------------------------------------- state
def vim_refusal(kind: str, types: Iterable[str], traits: Iterable[str] = ()) -> str | None:
    """Why a model may not be chosen as a VIM of ``kind`` (VIM, p.63, lines 1948-1968),
    or None when it may. ``types`` are its profile types (``unique``, ``animal`` ...),
    ``traits`` its trait keywords (``insignificant``, ``flank``, ``disguise``), all lower
    case.

    The model must be Unique, not an Animal, not Insignificant; a Nominated VIM also may
    not have Flank or start Disguised. (An Open or Hidden VIM that has Flank or Disguise
    simply loses them: the game's part.)

    Raises:
        ScenarioError: ``kind`` is not hidden, open or nominated.
    """
    if kind not in VIM_KINDS:
        raise ScenarioError(f"VIM kind must be one of {', '.join(VIM_KINDS)}, not {kind!r}")
    types = {t.lower() for t in types}
    traits = {t.lower() for t in traits}
    if "unique" not in types:
        return "a VIM must be Unique"
    if "animal" in types:
        return "an Animal cannot be a VIM"
    if "insignificant" in traits:
        return "an Insignificant model cannot be a VIM"
    if kind == "nominated" and traits & {"flank", "disguise"}:
        return "a Nominated VIM cannot have Flank or Disguise"
    return None


def _other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True)
class ScenarioState:
    """Everything the scenario remembers during a game. Never mutate it: the functions
    of this module return new states. ``to_json`` / ``from_json`` round-trip exactly.

    Attributes:
        turn: the current turn (0 before the first Start phase).
        alignment: ``{objective_id: None | 1 | 2}`` (None = neutral, p = friendly to p).
        removed: ids of objectives removed by a Decreasing rule, in removal order.
        prayer: ``{player: tokens left in the prayer pool}`` (empty without Prayer).
        worship: ``{objective_id: {player: markers}}`` (empty without Worship).
        sp: ``{player: scenario points}``.
        vp: ``{player: victory points}``.
        awards: the VP awards resolved, in order, each
            ``{"award": i, "kind", "player": p | None, "vp": n, "turn": t, "note"}``;
            player None = nobody scored it (a tie, or it lapsed).
        actions: this turn's Scenario actions, each ``{"turn", "player", "model",
            "objective", "kind", "action"}`` (Popular and the Prayer limit read them).
        vims: ``{owner: (model ids...)}``: the VIM that belongs to each side (empty
            tuple: no legal VIM, it counts as killed).
        vim_killed: ``{owner: turn the VIM was killed | None}`` (0 = before the game).
        last_end_phase: the last turn whose End phase was scored (0 = none yet).
        over: True once the game has ended (all 3 VP scored, or the last turn).
    """

    turn: int
    alignment: dict
    removed: tuple
    prayer: dict
    worship: dict
    sp: dict
    vp: dict
    awards: tuple
    actions: tuple
    vims: dict
    vim_killed: dict
    last_end_phase: int = 0
    over: bool = False

    def to_json(self) -> dict:
        """A JSON-ready mapping (player keys as strings ``"1"``/``"2"``); see
        ``docs/scenarios.md`` for its shape."""
        def pk(d):
            return {str(k): v for k, v in d.items()}
        return {
            "format": STATE_FORMAT,
            "turn": self.turn,
            "alignment": dict(self.alignment),
            "removed": list(self.removed),
            "prayer": pk(self.prayer),
            "worship": {o: pk(v) for o, v in self.worship.items()},
            "sp": pk(self.sp),
            "vp": pk(self.vp),
            "awards": [dict(a) for a in self.awards],
            "actions": [dict(a) for a in self.actions],
            "vims": {str(k): list(v) for k, v in self.vims.items()},
            "vim_killed": pk(self.vim_killed),
            "last_end_phase": self.last_end_phase,
            "over": self.over,
        }

    @classmethod
    def from_json(cls, doc: Mapping) -> "ScenarioState":
        """The state written by :meth:`to_json` (also after a trip through ``json``).

        Raises:
            ScenarioError: not a scenario state mapping.
        """
        try:
            if doc.get("format", STATE_FORMAT) != STATE_FORMAT:
                raise ScenarioError(f"not a {STATE_FORMAT} mapping (format {doc.get('format')!r})")

            def ik(d):
                return {int(k): v for k, v in d.items()}
            return cls(
                turn=int(doc["turn"]),
                alignment={str(k): (None if v is None else int(v)) for k, v in doc["alignment"].items()},
                removed=tuple(doc["removed"]),
                prayer={int(k): int(v) for k, v in doc["prayer"].items()},
                worship={o: {int(k): int(n) for k, n in v.items()} for o, v in doc["worship"].items()},
                sp={int(k): int(v) for k, v in doc["sp"].items()},
                vp={int(k): int(v) for k, v in doc["vp"].items()},
                awards=tuple(dict(a) for a in doc["awards"]),
                actions=tuple(dict(a) for a in doc["actions"]),
                vims={int(k): tuple(v) for k, v in doc["vims"].items()},
                vim_killed=ik(doc["vim_killed"]),
                last_end_phase=int(doc.get("last_end_phase", 0)),
                over=bool(doc.get("over", False)),
            )
        except ScenarioError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ScenarioError(f"bad scenario state: {exc!r}") from None

    @property
    def vp_scored(self) -> int:
        """VP scored by both players together (never more than 3)."""
        return sum(self.vp.values())

    def friendly_objectives(self, player: int) -> list[str]:
        """Ids of the objectives (not removed) friendly to ``player``, in file order."""
        return [o for o, a in self.alignment.items() if a == player and o not in self.removed]


def initial_state(scenario: Scenario, vims: Mapping[int, Any] | None = None) -> ScenarioState:
    """The state before turn 1: objectives at their starting alignment, full prayer
    pools, no markers, no points.

    Args:
        vims: for a VIM scenario, ``{owner: model id}`` (or a list of ids when two
            models count as one, VIM p.63), keyed by the side the VIM model belongs to,
            whichever player chose it (a Nominated VIM is chosen by the opponent). A
            missing or None entry means that side had no legal VIM: it counts as killed
            (turn 0). Ignored without a VIM.

    Raises:
        ScenarioError: a VIM scenario without ``vims``; vims names a player other than
            1 or 2.
    """
    prayer = scenario.interaction("prayer")
    worship = scenario.interaction("worship")
    vim_ids: dict[int, tuple] = {}
    killed: dict[int, int | None] = {}
    if scenario.vim:
        if vims is None:
            raise ScenarioError(f"scenario {scenario.name!r} has a VIM ({scenario.vim}): pass vims={{owner: model id}} "
                                "(None for a side with no legal VIM)")
        vims = dict(vims)
        bad = [k for k in vims if k not in (1, 2)]
        if bad:
            raise ScenarioError(f"vims: players are 1 and 2, not {bad[0]!r}")
        for p in (1, 2):
            v = vims.get(p)
            ids = () if v is None else ((v,) if isinstance(v, str) else tuple(v))
            vim_ids[p] = ids
            killed[p] = None if ids else 0
    return ScenarioState(
        turn=0,
        alignment={o.id: o.alignment for o in scenario.objectives},
        removed=(),
        prayer={1: prayer.tokens, 2: prayer.tokens} if prayer else {},
        worship={o.id: {1: 0, 2: 0} for o in scenario.objectives} if worship else {},
        sp={1: 0, 2: 0},
        vp={1: 0, 2: 0},
        awards=(),
        actions=(),
        vims=vim_ids,
        vim_killed=killed,
    )


# -------------------------------------------------------------------- interactions
def interaction_refusal(scenario: Scenario, state: ScenarioState, player: int, objective_id: str, kind: str,
                        model_id: str | None = None, action: str | None = None) -> str | None:
    """Why ``player`` may not perform the interaction ``kind`` with ``objective_id``
    now, or None when it may. Geometry (contact with the objective, no enemy in contact
    or ZoC, lines 688/715) is the game's part.

    Reasons: the game is over; the objective is removed; the scenario does not allow
    ``kind`` (line 1977); ``action`` (simple/complex) is not the one the interaction
    takes; Influence on an objective already friendly; Prayer with an empty pool, or a
    second Prayer by ``model_id`` at the same objective this turn (line 2001).

    Raises:
        ScenarioError: unknown objective or bad player.
    """
    if player not in (1, 2):
        raise ScenarioError(f"player must be 1 or 2, not {player!r}")
    obj = scenario.objective(objective_id)
    if state.over:
        return "the game is over"
    if obj.id in state.removed:
        return f"objective {obj.id!r} has been removed"
    it = scenario.interaction(kind)
    if it is None:
        allowed = ", ".join(f"{i.kind} ({i.action})" for i in scenario.interactions) or "none"
        return f"scenario {scenario.name!r} does not allow {kind!r} (allowed: {allowed})"
    if action is not None and action != it.action:
        return f"{kind} takes a {it.action} Scenario action, not a {action} one"
    owner = state.alignment.get(obj.id)
    if kind == "influence" and owner == player:
        return f"objective {obj.id!r} is already friendly to player {player}"
    if kind == "prayer":
        if state.prayer.get(player, 0) <= 0:
            return f"player {player} has no prayer tokens left"
        if model_id is not None and any(
            a["turn"] == state.turn and a["model"] == model_id and a["objective"] == obj.id and a["kind"] == "prayer"
            for a in state.actions
        ):
            return f"{model_id} has already prayed at objective {obj.id!r} this turn"
    return None


def scenario_actions(scenario: Scenario, state: ScenarioState, player: int, objective_id: str,
                     model_id: str | None = None, action: str | None = None) -> list[Interaction]:
    """The interactions ``player`` (with ``model_id``) may perform with the objective
    now, in the scenario's order; with ``action`` only those taking that Scenario action
    (simple/complex). Empty when none (see :func:`interaction_refusal`).

    Raises:
        ScenarioError: unknown objective or bad player.
    """
    return [i for i in scenario.interactions
            if interaction_refusal(scenario, state, player, objective_id, i.kind, model_id, action) is None]


def interact(scenario: Scenario, state: ScenarioState, player: int, objective_id: str, kind: str,
             model_id: str | None = None, action: str | None = None) -> tuple[ScenarioState, list[str]]:
    """Perform an interaction (Interactions with scenario objectives, p.63).

    * Influence: the objective's alignment moves one step towards ``player``: enemy ->
      neutral, neutral -> friendly (line 1979).
    * Prayer (X): one token leaves the player's pool; SP by the objective's alignment
      seen from the player: friendly 1, neutral 2, enemy 3 (line 1993).
    * Worship: one worship marker of the player beside the objective (line 2009).

    Every interaction is recorded in ``state.actions`` for this turn.

    Returns:
        ``(new_state, notes)``, notes being readable lines for the game log.

    Raises:
        ActionRefused: the rules do not allow it now (the message says why).
        ScenarioError: unknown objective or bad player.
    """
    why = interaction_refusal(scenario, state, player, objective_id, kind, model_id, action)
    if why:
        raise ActionRefused(why)
    obj = scenario.objective(objective_id)
    it = scenario.interaction(kind)
    who = f"player {player}" + (f" ({model_id})" if model_id else "")
    record = {"turn": state.turn, "player": player, "model": model_id, "objective": obj.id,
              "kind": kind, "action": it.action}
    changes: dict[str, Any] = {"actions": state.actions + (record,)}
    owner = state.alignment.get(obj.id)
    if kind == "influence":
        new_owner = None if owner == _other(player) else player
        alignment = dict(state.alignment)
        alignment[obj.id] = new_owner
        changes["alignment"] = alignment
        note = (f"{who} influences {obj.id}: {_describe_owner(owner)} -> {_describe_owner(new_owner)}")
    elif kind == "prayer":
        rel = _relation(owner, player)
        gain = SP_BY_ALIGNMENT[rel]
        prayer = dict(state.prayer)
        prayer[player] -= 1
        sp = dict(state.sp)
        sp[player] += gain
        changes.update(prayer=prayer, sp=sp)
        note = (f"{who} prays at {obj.id} ({rel}): +{gain} SP (now {sp[player]}), "
                f"{prayer[player]} prayer token{'s' if prayer[player] != 1 else ''} left")
    else:  # worship
        worship = {o: dict(v) for o, v in state.worship.items()}
        worship[obj.id][player] += 1
        changes["worship"] = worship
        note = f"{who} worships at {obj.id}: {worship[obj.id][player]} marker(s) of player {player} there"
    return replace(state, **changes), [note]


def _describe_owner(owner: int | None) -> str:
    return "neutral" if owner is None else f"friendly to player {owner}"


# ---------------------------------------------------------------------- the phases
def start_phase(scenario: Scenario, state: ScenarioState, turn: int) -> tuple[ScenarioState, list[str]]:
    """The scenario's part of the Start phase of ``turn``: forget the previous turn's
    Scenario actions; Reset Scenario Points (every player's SP to 0) and Reset Alignment
    (every objective neutral; in a scenario with Worship, the worship markers are
    removed instead, line 2011) on the turns the scenario lists (Reset Scenario, p.63).

    Raises:
        ScenarioError: ``turn`` is not after the state's turn.
    """
    if turn <= state.turn:
        raise ScenarioError(f"start_phase: turn {turn} is not after turn {state.turn}")
    notes: list[str] = []
    changes: dict[str, Any] = {"turn": turn, "actions": tuple(a for a in state.actions if a["turn"] == turn)}
    if turn in scenario.reset_scenario_points:
        changes["sp"] = {1: 0, 2: 0}
        notes.append(f"Reset Scenario Points: both players' SP return to 0 (were {state.sp[1]}-{state.sp[2]})")
    if turn in scenario.reset_alignment:
        if scenario.interaction("worship"):
            changes["worship"] = {o: {1: 0, 2: 0} for o in state.worship}
            notes.append("Reset Alignment: the worship markers are removed")
        else:
            changes["alignment"] = {o: None for o in state.alignment}
            notes.append("Reset Alignment: every objective is neutral again")
    return replace(state, **changes), notes


def record_kill(state: ScenarioState, model_id: str, turn: int) -> ScenarioState:
    """Note that ``model_id`` was killed in ``turn``. If it is a VIM not yet killed, its
    side's ``vim_killed`` becomes ``turn``; any other model leaves the state unchanged.
    The VP follow in the End phase (:func:`end_phase`)."""
    for owner, ids in state.vims.items():
        if model_id in ids and state.vim_killed.get(owner) is None:
            killed = dict(state.vim_killed)
            killed[owner] = turn
            return replace(state, vim_killed=killed)
    return state


#: ``choose(chooser, candidates, rule) -> objective id``: who removes which objective
#: when a Decreasing rule leaves a choice. ``chooser`` is None when no single player
#: chooses (both or neither scored).
Chooser = Callable[[Optional[int], list, str], str]


def _default_choice(scenario: Scenario, state: ScenarioState, chooser: int | None, scorer: int | None,
                    candidates: list[str]) -> str:
    """The engine's choice for a Decreasing tie (docs/scenarios.md): the chooser removes
    first an objective friendly to the scorer, then a neutral one, then its own; among
    those the one nearest the chooser's table edge (player 1: y = 0, player 2: y =
    depth); then file order. Without a chooser: file order."""
    order = {o.id: i for i, o in enumerate(scenario.objectives)}
    if chooser is None:
        return min(candidates, key=order.__getitem__)

    def key(oid: str):
        owner = state.alignment.get(oid)
        rank = 0 if (scorer is not None and owner == scorer) else (1 if owner is None else 2)
        y = scenario.objective(oid).position[1]
        edge = y if chooser == 1 else scenario.depth - y
        return (rank, round(edge, 9), order[oid])
    return min(candidates, key=key)


def _pick(scenario, state, chooser, scorer, candidates, rule, choose) -> str:
    if len(candidates) == 1:
        return candidates[0]
    if choose is not None:
        got = choose(chooser, list(candidates), rule)
        if got not in candidates:
            raise ScenarioError(f"{rule}: {got!r} is not one of the objectives to choose from ({', '.join(candidates)})")
        return got
    return _default_choice(scenario, state, chooser, scorer, candidates)


def _lead(values: Mapping[int, int]) -> int | None:
    a, b = values.get(1, 0), values.get(2, 0)
    return 1 if a > b else 2 if b > a else None


def end_phase(scenario: Scenario, state: ScenarioState, turn: int, last_turn: bool,
              models: Iterable[ZoneModel] = (), killed: Iterable[str] = (),
              choose: Chooser | None = None) -> tuple[ScenarioState, list[str], bool]:
    """The scenario's part of End phase step 4 (line 578) of ``turn``.

    In order: the ``killed`` model ids are recorded (:func:`record_kill`); each zone
    gives its controller SP (friendly 1, neutral 2, enemy 3); VIM awards for VIMs
    killed so far (Open, Nominated; a Hidden VIM only when ``last_turn``, when it is
    revealed); the awards due (``at == turn``, or ``at: end`` when ``last_turn``; on the
    last turn, awards for later turns lapse): the player strictly ahead scores, a tie
    scores nobody; VP are capped so that no more than 3 are ever scored; then the
    Decreasing rules, if anyone scored VP in this End phase.

    Args:
        models: ``(player, (x, y), radius, rice)`` for every model in play (zones).
        last_turn: this is the last turn (fixed or variable length, turn 7, or a side
            with no models left).
        choose: see :data:`Chooser`; default: the documented engine choice.

    Returns:
        ``(new_state, notes, game_over)``: the game is over on the last turn or once
        all 3 VP have been scored.

    Raises:
        ScenarioError: the game is already over, or this turn's End phase was scored.
    """
    if state.over:
        raise ScenarioError("end_phase: the game is already over")
    if turn <= state.last_end_phase:
        raise ScenarioError(f"end_phase: the End phase of turn {turn} was already scored")
    models = list(models)
    for mid in killed:
        state = record_kill(state, mid, turn)
    notes: list[str] = []
    sp = dict(state.sp)
    vp = dict(state.vp)
    awards = list(state.awards)

    # zone control: SP in every End phase
    control: dict[str, int | None] = {}
    for z in scenario.zones:
        p = zone_controller(z, models)
        control[z.id] = p
        if p is not None:
            rel = _relation(z.alignment, p)
            sp[p] += SP_BY_ALIGNMENT[rel]
            notes.append(f"player {p} controls zone {z.id} ({rel}): +{SP_BY_ALIGNMENT[rel]} SP (now {sp[p]})")
        else:
            notes.append(f"zone {z.id}: nobody controls it")

    scored_now = {1: 0, 2: 0}

    def give(award: Award, player: int | None, note: str):
        amount = 0
        if player is not None:
            amount = min(award.vp, TOTAL_VP - sum(vp.values()))
            vp[player] += amount
            scored_now[player] += amount
        awards.append({"award": award.index, "kind": award.kind, "player": player, "vp": amount,
                       "turn": turn, "note": note})
        if player is None:
            notes.append(f"{award.label}: {note}; nobody scores")
        else:
            capped = "" if amount == award.vp else f" (capped at {TOTAL_VP} VP in all)"
            notes.append(f"{award.label}: {note}; player {player} scores {amount} VP{capped}")

    done = {(a["award"], a["player"]) for a in awards}
    resolved = {a["award"] for a in awards}
    for award in scenario.victory:
        if award.kind == "vim":
            reveal = scenario.vim != "hidden" or last_turn
            for scorer in (1, 2):
                victim = _other(scorer)
                when = state.vim_killed.get(victim)
                if when is None or (award.index, scorer) in done or not reveal:
                    continue
                what = "had no legal VIM" if when == 0 else f"VIM {'/'.join(state.vims[victim])} was killed in turn {when}"
                give(award, scorer, f"player {victim}'s {what}")
            if scenario.vim == "hidden" and last_turn:
                notes.append("hidden VIMs revealed: " + "; ".join(
                    f"player {p}: {'/'.join(state.vims[p]) or 'none'}" for p in (1, 2)))
            continue
        if award.index in resolved:
            continue
        due = award.at == turn or (award.at == "end" and last_turn)
        if not due:
            if last_turn and isinstance(award.at, int) and award.at > turn:
                awards.append({"award": award.index, "kind": award.kind, "player": None, "vp": 0,
                               "turn": turn, "note": "lapsed: the game ended first"})
                notes.append(f"{award.label}: the game ended before turn {award.at}; nobody scores")
            continue
        if award.kind == "scenario_points":
            counts = sp
            what = "scenario points"
        elif award.kind == "objectives":
            counts = {p: len([o for o, a in state.alignment.items() if a == p and o not in state.removed])
                      for p in (1, 2)}
            what = "friendly objectives"
        elif award.kind == "zones":
            counts = {p: sum(1 for c in control.values() if c == p) for p in (1, 2)}
            what = "zones controlled"
        else:  # worship
            counts = {p: sum(v[p] for v in state.worship.values()) for p in (1, 2)}
            what = "worship markers"
        give(award, _lead(counts), f"{what} {counts.get(1, 0)}-{counts.get(2, 0)}")

    new = replace(state, sp=sp, vp=vp, awards=tuple(awards), last_end_phase=turn, turn=max(turn, state.turn))

    # Decreasing rules, after VP are scored, when someone scored in this End phase
    scorers = [p for p in (1, 2) if scored_now[p] > 0]
    for rule in scenario.rules:
        if not scorers:
            break
        if rule == "decreasing_popular":
            counts: dict[str, int] = {}
            for a in new.actions:  # start_phase keeps only this turn's actions
                if a["action"] == "simple" and a["objective"] not in new.removed:
                    counts[a["objective"]] = counts.get(a["objective"], 0) + 1
            if not counts:
                notes.append("Decreasing (Popular): no Simple Scenario action this turn; nothing is removed")
                continue
            top = max(counts.values())
            cands = [o.id for o in scenario.objectives if counts.get(o.id) == top]
            scorer = scorers[0] if len(scorers) == 1 else None
            chooser = _other(scorer) if scorer is not None else None
            oid = _pick(scenario, new, chooser, scorer, cands, rule, choose)
            new = replace(new, removed=new.removed + (oid,))
            by = f", chosen by player {chooser}" if len(cands) > 1 and chooser else ""
            notes.append(f"Decreasing (Popular): objective {oid} is removed ({top} Simple action(s){by})")
        else:  # decreasing_scorer
            for scorer in scorers:
                cands = new.friendly_objectives(scorer)
                if not cands:
                    notes.append(f"Decreasing (Scorer): no objective is friendly to player {scorer}")
                    continue
                chooser = _other(scorer)
                oid = _pick(scenario, new, chooser, scorer, cands, rule, choose)
                new = replace(new, removed=new.removed + (oid,))
                by = f", chosen by player {chooser}" if len(cands) > 1 else ""
                notes.append(f"Decreasing (Scorer): objective {oid}, friendly to player {scorer}, is removed{by}")

    over = bool(last_turn or new.vp_scored >= TOTAL_VP)
    if over:
        new = replace(new, over=True)
        why = "the last turn" if last_turn else f"all {TOTAL_VP} VP have been scored"
        notes.append(f"the game ends: {why} (VP {new.vp[1]}-{new.vp[2]})")
    return new, notes, over


def final_result(state: ScenarioState) -> tuple[int | None, str]:
    """The result (Victory conditions, line 2073): the player with more VP wins; equal
    VP is a draw. Returns ``(winner or None, text)``."""
    a, b = state.vp.get(1, 0), state.vp.get(2, 0)
    if a == b:
        return None, f"draw on victory points ({a}-{b})"
    w = 1 if a > b else 2
    return w, f"player {w} wins on victory points ({a}-{b})"


def describe(scenario: Scenario) -> list[str]:
    """Readable lines summarising a scenario (for a CLI or a log)."""
    lines = [f"{scenario.name} ({', '.join(scenario.types)}; deployment {scenario.deployment}; "
             f"{scenario.length[0]} length, turn {scenario.length[1]})"]
    if scenario.objectives:
        lines.append(f"objectives ({scenario.base_mm} mm, [Impassable, Blocking, {scenario.objective_size.label.title()}]): "
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
