"""Terrain pieces (Passage, Visibility, Size, footprint, drawing height) and presets.

Rulebook: Terrain p.60-62. Presets live in ``data/terrain/presets.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sim.bounds import MAX_LENGTH, MIN_LENGTH, is_id
from sim.files import FileProblem, one_line, quote, read_yaml
from sim.geometry import Footprint, Passage, Piece, Size, Visibility

PRESETS_FILE = Path(__file__).resolve().parents[1] / "data" / "terrain" / "presets.yaml"

#: Drawing height in inches by Size when a piece gives none. Sizes compare with model
#: heights drawn by the view (a Small 30 mm model is drawn about 1.2" tall).
DEFAULT_HEIGHTS: dict[Size, float] = {
    Size.ZERO: 0.05,
    Size.TINY: 0.5,
    Size.SMALL: 1.0,
    Size.MEDIUM: 1.6,
    Size.LARGE: 2.6,
    Size.HUGE: 4.0,
}


@dataclass(frozen=True)
class TerrainPreset:
    """A named kind of terrain piece (e.g. ``house``) with its attributes.

    ``footprint`` is a mapping ``{"circle": {"radius": r}}`` or
    ``{"rect": {"width": w, "depth": d}}`` (inches) placed at a centre by the table.
    """

    name: str
    passage: Passage
    visibility: Visibility
    size: Size
    height: float
    footprint: dict


@dataclass(frozen=True)
class TerrainPiece:
    """A terrain piece on the table.

    Attributes:
        id: unique among terrain and models.
        passage, visibility, size: the three rulebook attributes.
        footprint: where it stands, inches.
        height: drawing height, inches.
        preset: the preset it came from, if any.
        name: free text for labels.
        traits: the piece's traits as printed on a terrain card (``Destructible``,
            ``Fear (5)``; p.16), in the table file's spelling.
    """

    id: str
    passage: Passage
    visibility: Visibility
    size: Size
    footprint: Footprint
    height: float
    preset: str | None = None
    name: str | None = None
    traits: tuple[str, ...] = ()

    @property
    def destructible(self) -> bool:
        """True when the piece has the trait Destructible (p.16): a model in contact with
        it and out of enemy ZoC may Wait and pay 2 Ki to remove it from the table."""
        return any(t.strip().lower() == "destructible" for t in self.traits)

    def to_piece(self) -> Piece:
        """The geometry record for :class:`sim.geometry.Scene`."""
        return Piece(self.id, self.footprint, self.visibility, self.size, self.passage)

    @property
    def attributes(self) -> str:
        """``[Impassable, Blocking, Huge]`` as the rulebook prints it."""
        return f"[{self.passage.value.title()}, {self.visibility.value.title()}, {self.size.label.title()}]"


@lru_cache(maxsize=4)
def load_presets(path: str | Path = PRESETS_FILE) -> dict[str, TerrainPreset]:
    """Read the presets file; returns ``{name: TerrainPreset}``.

    Raises:
        ValueError: a malformed presets file (one line naming the file, the entry and the
            problem): unreadable (see :func:`sim.files.read_yaml`), a missing or unknown
            attribute, a name that is not an id, a footprint other than ``circle``
            ``{radius}`` or ``rect`` ``{width, depth}``, a size or height out of
            0.01-120" (docs/bounds.md).
    """
    path = Path(path)
    try:
        data = read_yaml(path)
    except FileProblem as exc:
        raise ValueError(str(exc)) from None
    presets = data.get("presets") if isinstance(data, dict) else None
    if not isinstance(presets, dict):
        raise ValueError(f"{path}: expected a mapping with "
                         "'presets: {name: {passage, visibility, size, footprint}}'")
    out = {}
    for name, entry in presets.items():
        label = f"presets[{name}]" if is_id(name) else f"presets[{quote(name)}]"
        try:
            if not is_id(name):
                raise ValueError("a preset name is 1 to 64 printable characters with no spaces")
            size = Size.parse(entry["size"])
            height = float(entry.get("height", DEFAULT_HEIGHTS[size]))
            footprint = dict(entry["footprint"])
            sizes = list(footprint.get("circle", {}).values()) + list(footprint.get("rect", {}).values())
            shape_ok = (footprint.keys() == {"circle"} and footprint["circle"].keys() == {"radius"}) or (
                footprint.keys() == {"rect"} and footprint["rect"].keys() == {"width", "depth"})
            if not shape_ok:
                raise ValueError("footprint: expected circle {radius} or rect {width, depth}, "
                                 f"not {quote(footprint)}")
            for v in sizes + [height]:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not MIN_LENGTH <= v <= MAX_LENGTH:
                    raise ValueError(f"a size or height must be a number from {MIN_LENGTH:g} to {MAX_LENGTH:g} "
                                     f"inches, not {quote(v)}")
            out[name] = TerrainPreset(
                name=name,
                passage=Passage(entry["passage"]),
                visibility=Visibility(entry["visibility"]),
                size=size,
                height=height,
                footprint=footprint,
            )
        except KeyError as exc:
            raise ValueError(f"{path}: {label}: missing field {quote(exc.args[0])}") from None
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: {label}: {one_line(str(exc), 160)}") from None
    return out
