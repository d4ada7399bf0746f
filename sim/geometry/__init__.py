"""Pure table geometry: no Panda3D (shapely and numpy only).

Public names:

* :mod:`.attributes` -- ``EPS``, ``CONTACT``, :class:`Size`, :class:`Passage`,
  :class:`Visibility`, base radii.
* :mod:`.primitives` -- plane primitives shared by everything below and by the rules:
  point-segment and polygon distances, chords, directions and angles (scalar and numpy).
* :mod:`.shapes` -- :class:`Footprint` (polygon, circle, rect).
* :mod:`.sight` -- the exact sight-line search (critical lines).
* :mod:`.measure` -- :class:`Scene`: distance, front arc, LoS, cover, ZoC; umbras and
  ZoC areas for drawing (cached by value: ``clear_geometry_caches``).
* :mod:`.reference` -- slow references kept beside the fast code for the tests and
  benchmarks: sampled LoS, umbras and ZoC areas built one polygon at a time.
* :mod:`.motion` -- a base moving along a segment: exact contact intervals, time of impact.
"""

from .attributes import (
    BASE_SIZES_MM,
    CONTACT,
    COVER_RANGE,
    EPS,
    MM_PER_INCH,
    ZOC_RANGE,
    Passage,
    Size,
    Visibility,
    base_radius,
    size_from_base,
)
from .measure import Body, CoverResult, LosResult, PairMeasure, Piece, Scene, ZocResult, edge_distance, within
from .shapes import Footprint, FootprintError
from .sight import Obstacle, Region, SightLine, SightSearch, find_sight_line

__all__ = [
    "BASE_SIZES_MM", "CONTACT", "COVER_RANGE", "EPS", "MM_PER_INCH", "ZOC_RANGE",
    "Passage", "Size", "Visibility", "base_radius", "size_from_base",
    "Body", "CoverResult", "LosResult", "PairMeasure", "Piece", "Scene", "ZocResult",
    "edge_distance", "within", "Footprint", "FootprintError",
    "Obstacle", "Region", "SightLine", "SightSearch", "find_sight_line",
]
