"""Terrain pieces (Passage, Visibility, Size, footprint, drawing height) and presets.

Rulebook: Terrain p.60-62. Presets live in ``data/terrain/presets.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

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
    """

    id: str
    passage: Passage
    visibility: Visibility
    size: Size
    footprint: Footprint
    height: float
    preset: str | None = None
    name: str | None = None

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
        ValueError: a malformed presets file, naming the file and the entry.
    """
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    out = {}
    for name, entry in (data.get("presets") or {}).items():
        try:
            out[name] = TerrainPreset(
                name=name,
                passage=Passage(entry["passage"]),
                visibility=Visibility(entry["visibility"]),
                size=Size.parse(entry["size"]),
                height=float(entry.get("height", DEFAULT_HEIGHTS[Size.parse(entry["size"])])),
                footprint=dict(entry["footprint"]),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"{path}: presets[{name}]: {exc}") from None
    return out
