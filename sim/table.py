"""The ``bushido-table/1`` table file: load, validate, save, measure.

Format: ``shared/formats.md`` ("Table file"), plus the project's extensions documented
in ``docs/table-format.md``: a terrain entry may name a ``preset`` (Terrain p.60) that
fills ``passage``/``visibility``/``size``/``height`` and, with ``center`` and
``rotation``, the footprint; a model entry may name a ``profile`` that fills ``base``,
``size``, ``traits`` and ``name``.

Every bad file is rejected whole with :class:`TableError`, whose message names the file,
the entry (``terrain[2]``, ``models[id=akira]``) and the problem.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from models.model import Model
from sim.bounds import (
    MAX_ANGLE,
    MAX_COORD,
    MAX_ENTRIES,
    MAX_ITEMS,
    Angle,
    FilePath,
    Id,
    Length,
    Name,
    NonEmptyName,
    Point,
    TableSide,
    Vertices,
    is_id,
)
from sim.bounds import Distance as _Distance
from sim.files import FileProblem, key_label, load_yaml, pydantic_problem, read_text, write_text_atomic
from sim.geometry import (
    CONTACT,
    EPS,
    Footprint,
    FootprintError,
    Passage,
    Scene,
    Size,
    Visibility,
    size_from_base,
)
from terrain.pieces import DEFAULT_HEIGHTS, TerrainPiece, load_presets

FORMAT = "bushido-table/1"
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DEFAULT_TABLE = DATA_DIR / "tables" / "default.yaml"

#: Traits that set a model's Size (rulings.md section 1).
SIZE_TRAITS = {"tiny": Size.TINY, "small": Size.SMALL, "medium": Size.MEDIUM, "large": Size.LARGE, "huge": Size.HUGE}


class TableError(ValueError):
    """A table file cannot be used. The message names the file, entry and problem."""

    def __init__(self, file: str | os.PathLike | None, entry: str | None, problem: str):
        self.file = str(file) if file is not None else "<table>"
        self.entry = entry
        self.problem = problem
        where = f"{self.file}: {entry}: " if entry else f"{self.file}: "
        super().__init__(where + problem)


# ------------------------------------------------------------------------- schema
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


Num = float  # strict: ints are accepted, bools and strings are not
# Every number, id and list is bounded (sim.bounds, docs/bounds.md).


class _TableSize(_Strict):
    width: TableSide
    depth: TableSide


class _Circle(_Strict):
    center: Point
    radius: Length


class _Rect(_Strict):
    center: Point
    width: Length
    depth: Length
    rotation: Angle = 0


class _Terrain(_Strict):
    id: Id
    name: Optional[Name] = None
    preset: Optional[Name] = None
    passage: Optional[Literal["impassable", "difficult", "normal", "ideal"]] = None
    visibility: Optional[Literal["open", "blocking", "obscuring", "enhancing"]] = None
    size: Optional[Literal["zero", "tiny", "small", "medium", "large", "huge"]] = None
    height: Optional[Length] = None
    polygon: Optional[Vertices] = None
    circle: Optional[_Circle] = None
    rect: Optional[_Rect] = None
    center: Optional[Point] = None
    rotation: Optional[Angle] = None
    traits: Optional[Annotated[list[Name], Field(max_length=MAX_ITEMS)]] = None

    @model_validator(mode="after")
    def _one_shape(self):
        shapes = [k for k in ("polygon", "circle", "rect") if getattr(self, k) is not None]
        if len(shapes) > 1:
            raise ValueError(f"give exactly one of polygon, circle, rect (got {', '.join(shapes)})")
        if not shapes:
            if self.preset is None:
                raise ValueError("give exactly one of polygon, circle, rect")
            if self.center is None:
                raise ValueError("a preset without polygon, circle or rect needs a center")
        elif self.center is not None or self.rotation is not None:
            raise ValueError("center/rotation are only for presets placed without a shape")
        if self.preset is None:
            missing = [k for k in ("passage", "visibility", "size") if getattr(self, k) is None]
            if missing:
                raise ValueError(f"missing {', '.join(missing)} (or a preset)")
        return self


class _Model(_Strict):
    id: Id
    player: Literal[1, 2]
    name: Optional[Name] = None
    profile: Optional[Name] = None
    base: Optional[Literal[30, 40, 50, 60]] = None
    size: Optional[Literal["zero", "tiny", "small", "medium", "large", "huge"]] = None
    position: Point
    facing: Angle = 0
    move: Optional[_Distance] = None
    traits: Optional[Annotated[list[Name], Field(max_length=MAX_ITEMS)]] = None
    prone: bool = False
    feats: Optional[Annotated[list[NonEmptyName], Field(max_length=MAX_ITEMS)]] = None

    @model_validator(mode="after")
    def _base_known(self):
        if self.base is None and self.profile is None:
            raise ValueError("missing base (or a profile)")
        return self


class _Deploy(_Strict):
    file: FilePath
    player: Literal[1, 2]
    positions: Annotated[list[Annotated[list[Num], Field(min_length=2, max_length=3)]], Field(max_length=MAX_ENTRIES)]
    facing: Angle = 0

    @model_validator(mode="after")
    def _bounded(self):
        for i, pos in enumerate(self.positions):
            if max(abs(pos[0]), abs(pos[1])) > MAX_COORD:
                raise ValueError(f"positions[{i}]: a coordinate must be within {-MAX_COORD:g} to {MAX_COORD:g} inches, "
                                 f"not {pos[0]:.6g}, {pos[1]:.6g}; see docs/bounds.md")
            if len(pos) == 3 and abs(pos[2]) > MAX_ANGLE:
                raise ValueError(f"positions[{i}]: a facing must be within {-MAX_ANGLE:g} to {MAX_ANGLE:g} degrees, "
                                 f"not {pos[2]:.6g}; see docs/bounds.md")
        return self


class _File(_Strict):
    format: Literal["bushido-table/1"]
    name: Name
    table: _TableSize = Field(default_factory=lambda: _TableSize(width=24, depth=24))
    catalogues: Optional[FilePath] = None
    terrain: Annotated[list[_Terrain], Field(max_length=MAX_ENTRIES)] = Field(default_factory=list)
    models: Annotated[list[_Model], Field(max_length=MAX_ENTRIES)] = Field(default_factory=list)
    warbands: Annotated[list[_Deploy], Field(max_length=16)] = Field(default_factory=list)


# -------------------------------------------------------------------------- table
@dataclass(frozen=True)
class Table:
    """A loaded table: size, terrain pieces and deployed models.

    Attributes:
        name: free text.
        width, depth: inches (x and y extents).
        terrain: the pieces, in file order.
        models: the models, in file order.
        source: the file it came from, if any.
    """

    name: str
    width: float
    depth: float
    terrain: tuple[TerrainPiece, ...] = ()
    models: tuple[Model, ...] = ()
    source: str | None = None
    _scene: list = field(default_factory=list, repr=False, compare=False)

    def scene(self) -> Scene:
        """The geometry :class:`~sim.geometry.Scene` of this table (built once)."""
        if not self._scene:
            self._scene.append(Scene([m.to_body() for m in self.models], [t.to_piece() for t in self.terrain]))
        return self._scene[0]

    def model(self, model_id: str) -> Model:
        """The model with id ``model_id``.

        Raises:
            KeyError: with the known ids.
        """
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(f"no model {model_id!r} on table {self.name!r} (models: {', '.join(m.id for m in self.models)})")

    def piece(self, piece_id: str) -> TerrainPiece:
        """The terrain piece with id ``piece_id``. Raises KeyError."""
        for t in self.terrain:
            if t.id == piece_id:
                return t
        raise KeyError(f"no terrain {piece_id!r} on table {self.name!r}")

    def to_dict(self) -> dict:
        """The table as a ``bushido-table/1`` mapping (presets and profiles expanded)."""
        terrain = []
        for t in self.terrain:
            entry: dict[str, Any] = {"id": t.id}
            if t.name:
                entry["name"] = t.name
            entry.update(passage=t.passage.value, visibility=t.visibility.value, size=t.size.label, height=t.height)
            entry.update(t.footprint.to_dict())
            if t.traits:
                entry["traits"] = list(t.traits)
            terrain.append(entry)
        models = []
        for m in self.models:
            entry = {"id": m.id, "player": m.player}
            if m.profile:
                entry["profile"] = m.profile
            if m.name:
                entry["name"] = m.name
            entry.update(base=m.base, size=m.size.label, position=list(m.position), facing=m.facing)
            if m.move is not None:
                entry["move"] = m.move
            entry["traits"] = list(m.traits)
            if m.prone:
                entry["prone"] = True
            if m.feats:
                entry["feats"] = list(m.feats)
            models.append(entry)
        return {"format": FORMAT, "name": self.name, "table": {"width": self.width, "depth": self.depth},
                "terrain": terrain, "models": models}

    def save(self, path: str | os.PathLike) -> None:
        """Write the table to ``path`` atomically (a crash never leaves a half file)."""
        path = Path(path)
        text = yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None)
        write_text_atomic(path, text)


# ------------------------------------------------------------------------- loading
def _entry_label(raw: Any, section: str, index: int) -> str:
    # an id is shown only when it is a usable one (short, printable: sim.bounds.is_id)
    if isinstance(raw, dict) and is_id(raw.get("id")) and section == "models":
        return f"models[id={raw['id']}]"
    if isinstance(raw, dict) and is_id(raw.get("id")):
        return f"{section}[{index}] (id={raw['id']})"
    return f"{section}[{index}]"


def _describe(err: dict, raw: Any) -> tuple[str, str]:
    loc = list(err.get("loc", ()))
    entry = None
    rest = loc
    if len(loc) >= 2 and loc[0] in ("terrain", "models") and isinstance(loc[1], int):
        items = raw.get(loc[0]) if isinstance(raw, dict) else None
        item = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
        entry = _entry_label(item, loc[0], loc[1])
        rest = loc[2:]
    elif loc:
        entry, rest = key_label(loc[0]), loc[1:]
    field_path = ".".join(key_label(p) for p in rest if not str(p).startswith(("function-", "tagged-")))
    msg = pydantic_problem(err)
    problem = f"{field_path}: {msg}" if field_path else msg
    return entry, problem


def _footprint(t: _Terrain, preset) -> Footprint:
    if t.polygon is not None:
        return Footprint.polygon(t.polygon)
    if t.circle is not None:
        return Footprint.circle(t.circle.center, t.circle.radius)
    if t.rect is not None:
        r = t.rect
        return Footprint.rect(r.center, r.width, r.depth, r.rotation)
    fp = preset.footprint
    if "circle" in fp:
        return Footprint.circle(t.center, fp["circle"]["radius"])
    rect = fp["rect"]
    return Footprint.rect(t.center, rect["width"], rect["depth"], t.rotation or 0)


def _finite(values) -> bool:
    return all(math.isfinite(float(v)) for v in values)


def load_table(path: str | os.PathLike = DEFAULT_TABLE) -> Table:
    """Load and validate a ``bushido-table/1`` file.

    Raises:
        TableError: unreadable file (missing, not a regular file, over 1 MiB, not
            UTF-8, control characters), YAML syntax, duplicate keys, nesting or aliases
            past the bounds of :mod:`sim.files`, schema errors (missing or unknown
            field, wrong type, unknown enum value, NaN or infinite number, a number,
            id or list out of the bounds of :mod:`sim.bounds`), bad footprints
            (self-intersecting, degenerate), duplicate ids, unknown presets or
            profiles, overlapping bases, a base off the table, a model inside
            Impassable terrain. The message is one line; nothing is half-loaded.
    """
    path = Path(path)
    try:
        text = read_text(path)
    except FileProblem as exc:
        raise TableError(path, exc.entry, exc.problem) from None
    return parse_table(text, source=str(path))


def parse_table(text: str, source: str | None = None) -> Table:
    """Parse a table from YAML text; see :func:`load_table` (``source`` names it in
    errors)."""
    src = source or "<table>"
    try:
        raw = load_yaml(text, src)
    except FileProblem as exc:
        raise TableError(src, exc.entry, exc.problem) from None
    if not isinstance(raw, dict):
        raise TableError(src, None, "the file must be a YAML mapping with format, name, table, terrain, models")
    try:
        doc = _File.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        entry, problem = _describe(first, raw)
        more = len(exc.errors()) - 1
        if more:
            problem += f" (and {more} more problem{'s' if more > 1 else ''})"
        raise TableError(src, entry, problem) from None
    return _build(doc, raw, src)


def _claim_id(seen: dict[str, str], ident: str, label: str, src: str) -> str:
    """Record ``ident`` as used by the entry ``label``; raise on a duplicate."""
    if ident in seen:
        raise TableError(src, label, f"duplicate id {ident!r} (already used by {seen[ident]})")
    seen[ident] = label
    return label


def _catalogues(doc: _File, src: str):
    """The catalogue set the file names (``catalogues:``, relative to the table file)."""
    if doc.catalogues is None:
        return None
    from models.bsdata import CatalogueError, load_catalogues

    base = Path(src).parent if src and not src.startswith("<") else Path(".")
    path = (base / doc.catalogues).resolve()
    try:
        cs = load_catalogues(path)
    except (CatalogueError, OSError) as exc:
        raise TableError(src, "catalogues", str(exc)) from None
    # so that the game engine's get_profile finds them; once per catalogue set
    from models.profiles import add_profile_source

    add_profile_source({p.profile.id: p.profile for p in cs.profiles}, key=cs)
    return cs


def _deploy_warband(w: _Deploy, src: str, label: str, cs) -> list[Model]:
    """The models of a warband file, placed at ``positions`` in file order."""
    if cs is None:
        raise TableError(src, label, "a warband needs the file's 'catalogues:' directory")
    from models.warband import WarbandError, load_warband

    base = Path(src).parent if src and not src.startswith("<") else Path(".")
    try:
        wb = load_warband(base / w.file, cs)
    except WarbandError as exc:
        raise TableError(src, label, str(exc)) from None
    if len(w.positions) != len(wb.models):
        raise TableError(src, label, f"{len(wb.models)} models in {w.file} but {len(w.positions)} positions")
    out, used = [], {}
    for wm, pos in zip(wb.models, w.positions):
        prof = cs.profile(wm.profile).profile
        n = used[prof.id] = used.get(prof.id, 0) + 1
        mid = prof.id if n == 1 else f"{prof.id}-{n}"
        facing = float(pos[2]) if len(pos) > 2 else float(w.facing)
        entry = _Model(id=mid, player=w.player, profile=prof.id, position=[float(pos[0]), float(pos[1])], facing=facing)
        out.append(_model(entry, src, f"{label} (id={mid})", cs))
    return out


def _build(doc: _File, raw: dict, src: str) -> Table:
    presets = load_presets()
    cs = _catalogues(doc, src)
    seen: dict[str, str] = {}
    pieces: list[TerrainPiece] = []
    for i, t in enumerate(doc.terrain):
        label = _claim_id(seen, t.id, _entry_label(raw["terrain"][i], "terrain", i), src)
        preset = None
        if t.preset is not None:
            preset = presets.get(t.preset)
            if preset is None:
                raise TableError(src, label, f"unknown preset {t.preset!r} (known: {', '.join(sorted(presets))})")
        try:
            fp = _footprint(t, preset)
        except FootprintError as exc:
            raise TableError(src, label, str(exc)) from None
        size = Size.parse(t.size) if t.size else preset.size
        pieces.append(
            TerrainPiece(
                id=t.id,
                passage=Passage(t.passage) if t.passage else preset.passage,
                visibility=Visibility(t.visibility) if t.visibility else preset.visibility,
                size=size,
                footprint=fp,
                height=(float(t.height) if t.height is not None
                        else (preset.height if preset and not t.size else DEFAULT_HEIGHTS[size])),
                preset=t.preset,
                name=t.name,
                traits=tuple(x.strip() for x in t.traits or ()),
            )
        )
    models: list[Model] = []
    for i, m in enumerate(doc.models):
        label = _claim_id(seen, m.id, _entry_label(raw["models"][i], "models", i), src)
        models.append(_model(m, src, label, cs))
    for i, w in enumerate(doc.warbands):
        label = f"warbands[{i}]"
        for mdl in _deploy_warband(w, src, label, cs):
            _claim_id(seen, mdl.id, f"{label} (id={mdl.id})", src)
            models.append(mdl)
    table = Table(doc.name, float(doc.table.width), float(doc.table.depth), tuple(pieces), tuple(models), src)
    _check_placement(table, raw, src)
    return table


def _model(m: _Model, src: str, label: str, cs=None) -> Model:
    base, size, traits, name, move = m.base, None, list(m.traits or []), m.name, m.move
    if m.profile is not None:
        from models.profiles import get_profile

        try:
            prof = get_profile(m.profile)
        except KeyError as exc:
            prof = None
            if cs is not None:  # the catalogues the file names
                try:
                    prof = cs.profile(m.profile).profile
                except KeyError:
                    prof = None
            if prof is None:
                raise TableError(src, label,
                                 f"unknown profile {m.profile!r}: {exc.args[0] if exc.args else ''}") from None
        base = base or prof.base
        move = move if move is not None else prof.move
        size = Size.parse(prof.size)
        name = name or prof.name
        if m.traits is None:
            traits = sorted(prof.trait_keywords)
    traits = [t.strip().lower() for t in traits]
    if m.size is not None:
        size = Size.parse(m.size)
    if size is None:
        size = size_from_base(base)
        for t in traits:
            if t in SIZE_TRAITS:
                size = SIZE_TRAITS[t]
    return Model(
        id=m.id,
        player=m.player,
        base=base,
        size=size,
        position=(float(m.position[0]), float(m.position[1])),
        facing=float(m.facing) % 360.0,
        traits=tuple(traits),
        prone=m.prone,
        profile=m.profile,
        name=name,
        move=float(move) if move is not None else None,
        feats=tuple(m.feats or ()),
    )


@dataclass(frozen=True)
class PlacementProblem:
    """A base standing where no base may stand (rulings.md section 7; loader reading 6).

    Attributes:
        kind: ``"off-table"`` (part of the base beyond a table edge), ``"overlap"`` (the
            base reaches into another model's base) or ``"impassable"`` (into an
            Impassable terrain piece).
        model: the model's id.
        amount: how far, in inches: beyond the edge, into the other base, into the piece.
        other: the other model's id (``overlap``) or the piece's id (``impassable``).
    """

    kind: str
    model: str
    amount: float
    other: str | None = None


def placement_problems(table: Table, edge_tolerance: float = CONTACT, overlap_tolerance: float = CONTACT,
                       impassable_tolerance: float = CONTACT) -> list[PlacementProblem]:
    """Every base of ``table`` that reaches past a table edge, into another base or into
    Impassable terrain by more than the tolerance (inches) for that kind, in this order:
    off the table (model order), overlaps (pairs in model order, the later model named),
    Impassable (model order, then terrain order). Used by the loader (which refuses the
    first) and by :mod:`sim.rules.invariants` (which reports all)."""
    out: list[PlacementProblem] = []
    ms = table.models
    for m in ms:
        x, y = float(m.position[0]), float(m.position[1])
        r = m.radius
        beyond = max(r - x, r - y, x + r - table.width, y + r - table.depth)
        if beyond > edge_tolerance:
            out.append(PlacementProblem("off-table", m.id, beyond))
    for i in range(len(ms)):
        for j in range(i + 1, len(ms)):
            a, b = ms[i], ms[j]
            depth = a.radius + b.radius - math.dist(a.position, b.position)
            if depth > overlap_tolerance:
                out.append(PlacementProblem("overlap", b.id, depth, a.id))
    for m in ms:
        for t in table.terrain:
            if t.passage is Passage.IMPASSABLE:
                depth = t.footprint.overlap_depth_disc(m.position, m.radius)
                if depth > impassable_tolerance:
                    out.append(PlacementProblem("impassable", m.id, depth, t.id))
    return out


def _check_placement(table: Table, raw: dict, src: str) -> None:
    problems = placement_problems(table, edge_tolerance=EPS, overlap_tolerance=EPS)
    if not problems:
        return
    n_listed = len(raw.get("models") or [])
    labels = {m.id: (_entry_label(raw["models"][i], "models", i) if i < n_listed else f"warbands (id={m.id})")
              for i, m in enumerate(table.models)}
    p = problems[0]
    if p.kind == "off-table":
        m = table.model(p.model)
        x, y = m.position
        raise TableError(src, labels[m.id], f"base at ({x:g}, {y:g}) with radius {m.radius:.4f}\" is not wholly on "
                                            f"the {table.width:g}\" x {table.depth:g}\" table")
    if p.kind == "overlap":
        raise TableError(src, labels[p.model], f"base overlaps the base of {p.other!r} by {p.amount:.4f}\"")
    raise TableError(src, labels[p.model], f"base stands inside Impassable terrain {p.other!r} ({p.amount:.3f}\" deep)")
