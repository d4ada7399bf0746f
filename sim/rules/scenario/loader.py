"""The ``bushido-scenario/1`` file: its schema, loading and validation (p.63).

Rulebook: Scenario rules p.63 (seed lines 1920-2075). The file format and the project's
readings are in ``docs/scenarios.md``; bounds on numbers and sizes in ``docs/bounds.md``.
:func:`scenario_from_dict` checks the schema (pydantic) and everything a schema cannot
say (ids, positions on the table, the types and their sections, the three VP) and builds
the :class:`~sim.rules.scenario.model.Scenario`; every problem is one
``FILE: ENTRY: PROBLEM`` :class:`~sim.rules.scenario.model.ScenarioError`.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any, Literal, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sim.bounds import MAX_ENTRIES, MAX_ITEMS, Coord, Id, Length, Name, NonEmptyName, Text, Vertices
from sim.files import FileProblem, key_label, load_yaml, pydantic_problem, quote, read_text
from sim.geometry import EPS, Footprint, FootprintError, Size, base_radius, size_from_base
from sim.rules.scenario.model import (
    MAX_TURN,
    PIECE_PREFIX,
    TOTAL_VP,
    TYPES,
    Award,
    Interaction,
    Objective,
    Scenario,
    ScenarioError,
    Zone,
)

SCENARIO_DIR = Path(__file__).resolve().parents[3] / "data" / "scenarios"


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


def _alignment_owner(text: str) -> int | None:
    return {"neutral": None, "player1": 1, "player2": 2}[text]


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
    if (isinstance(path_or_name, Path) or "/" in text_path or os.sep in text_path
            or text_path.endswith((".yaml", ".yml"))):
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
        entry, problem = _describe(dict(errors[0]))
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

