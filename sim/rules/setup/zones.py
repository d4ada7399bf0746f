"""Deployment zones (scenario rules "Deployment", p.63): Baseline, Corner Square and
Corner Edge, as shapely geometry in table inches, and the judgement of a base placed in
one.

The project's readings (docs/setup.md, docs/rulings-project.md rows 37-38):

* **Baseline**: "models are placed with their bases touching the table edge". The two
  baselines are the south edge (y = 0) and the north edge (y = depth); west and east are
  the neutral edges (as :func:`terrain.setup.baseline_zones`). A base is deployed when
  its edge is within ``CONTACT`` (0.01") of its baseline and it is wholly on the table.
* **Corner Square**: "wholly within a 6-inch square" in a corner; the opponent takes the
  opposite corner. The whole base must lie in the square (boundary included, ``EPS``).
* **Corner Edge**: "touching the table edge within 8 inches of the chosen corner": the
  base touches (``CONTACT``) one of the two 8" edge segments that start at the corner
  and is wholly on the table.

Each zone has a ``core`` (what is measured from: the baseline or the two 8" segments, or
the square) and a drawn ``shape``: the square, or every point a 60 mm base touching the
core can cover (the core grown by a 60 mm diameter plus ``CONTACT``, cut to the table).
Every accepted base lies in its zone's ``shape``.

A Scout (X/Y") "may be placed anywhere within Y inches of the normal deployment zone"
(p.57): a base counts when any part of it is within Y" of the core (distances are
measured from the nearest edge of the base, p.4) -- or where a normal deployment would be
legal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from shapely.geometry import LineString, MultiLineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from sim.geometry import CONTACT, EPS, base_radius
from sim.rules.scenario.model import DEPLOYMENTS

from .reasons import PAGE_DEPLOYMENT, PAGE_FLANK, PAGE_PLACEMENT, PAGE_SCOUT, Refusal

#: Side of the Corner Square zone, inches (p.63).
CORNER_SQUARE = 6.0
#: Length along each edge of the Corner Edge zone, inches (p.63).
CORNER_EDGE = 8.0
#: How deep an edge zone is drawn: a 60 mm base touching the edge, plus ``CONTACT``.
EDGE_ZONE_DEPTH = 2 * base_radius(60) + CONTACT

#: Display names of the deployment kinds.
DEPLOYMENT_NAMES = {"baseline": "Baseline", "corner_square": "Corner Square", "corner_edge": "Corner Edge"}

#: The table edges (a Flank model arrives along one, p.52): south is y = 0, north y =
#: depth, west x = 0, east x = width.
EDGES = ("north", "south", "east", "west")
#: The facing of a model placed along each edge, square to it, into the table (degrees).
EDGE_FACING = {"south": 90.0, "north": 270.0, "west": 0.0, "east": 180.0}

_CORNERS = ("south-west", "south-east", "north-east", "north-west")
_OPPOSITE = {"south": "north", "north": "south", "south-west": "north-east", "north-east": "south-west",
             "south-east": "north-west", "north-west": "south-east"}


@dataclass(frozen=True)
class DeploymentZone:
    """One side's deployment zone.

    Attributes:
        id: ``south``/``north`` (Baseline) or a corner ``south-west`` ... (the corner kinds).
        kind: ``baseline``, ``corner_square`` or ``corner_edge``.
        core: what placements are measured from: the baseline or the two 8" segments
            (a (Multi)LineString), or the square (a Polygon); table inches.
        shape: the area drawn on the table (a Polygon, table inches); every base the
            zone accepts lies in it.
        width, depth: the table, inches.
    """

    id: str
    kind: str
    core: BaseGeometry
    shape: BaseGeometry
    width: float
    depth: float

    @property
    def name(self) -> str:
        """``"south baseline"``, ``"south-west Corner Square"`` ..."""
        return f"{self.id} baseline" if self.kind == "baseline" else f"{self.id} {DEPLOYMENT_NAMES[self.kind]}"

    @property
    def touching(self) -> bool:
        """True for the kinds whose bases touch the table edge (Baseline, Corner Edge)."""
        return self.kind != "corner_square"

    @property
    def southern(self) -> bool:
        """True for the zones on the y = 0 side (``south``, ``south-west``,
        ``south-east``): the colour the scenario's ``player1`` alignment names
        (docs/setup.md)."""
        return self.id.startswith("south")

    @property
    def opposite(self) -> str:
        """The id of the opponent's zone (the other baseline, the opposite corner)."""
        return _OPPOSITE[self.id]

    def gap(self, position: Sequence[float], radius: float) -> float:
        """Distance in inches from the nearest edge of a base (centre ``position``,
        ``radius``) to the core; 0 when the base reaches into a square."""
        x, y = float(position[0]), float(position[1])
        return max(0.0, float(self.core.distance(Point(x, y))) - radius)

    def refusals(self, position: Sequence[float], radius: float) -> list[Refusal]:
        """Why a base (centre ``position``, ``radius`` inches) is not deployed in this
        zone (p.63); empty when it is. Being on the table, clear of other bases and of
        Impassable terrain is judged elsewhere (:func:`sim.table.placement_problems`)."""
        x, y = float(position[0]), float(position[1])
        if not self.touching:
            disc = Point(x, y).buffer(radius, 64)
            if self.core.buffer(EPS).contains(disc) or _disc_in_box(x, y, radius, self.core.bounds):
                return []
            return [Refusal("outside-zone", f"the base is not wholly within the {self.name} "
                                            f"({CORNER_SQUARE:g}\" square in the corner)", PAGE_DEPLOYMENT)]
        gap = float(self.core.distance(Point(x, y))) - radius
        if gap <= CONTACT + EPS:
            return []
        what = (f"the {self.name}" if self.kind == "baseline"
                else f"the table edge within {CORNER_EDGE:g}\" of the {self.id} corner")
        return [Refusal("outside-zone", f"the base does not touch {what} ({gap:.2f}\" away); "
                                        f"{DEPLOYMENT_NAMES[self.kind]} deployment places bases touching it",
                        PAGE_DEPLOYMENT)]

    def holds(self, position: Sequence[float], radius: float) -> bool:
        """Whether a base (centre ``position``, ``radius`` inches) is in this zone, for the
        rules that keep a model out of the opponent's zone (Flank, p.52;
        docs/rulings-project.md 51): Baseline and Corner Edge, the base touches the core
        (``CONTACT``), as a deployed base does; Corner Square, any part of the base is
        inside the square (touching its side is not)."""
        x, y = float(position[0]), float(position[1])
        d = float(self.core.distance(Point(x, y)))
        if self.touching:
            return d - radius <= CONTACT + EPS
        if self.core.contains(Point(x, y)):
            return True
        return d < radius - EPS

    def scout_refusals(self, position: Sequence[float], radius: float, reach: float) -> list[Refusal]:
        """Why a Scout (X/``reach``") base is not within ``reach`` inches of this zone
        (p.57); a normal deployment (:meth:`refusals`) is always allowed too."""
        if not self.refusals(position, radius):
            return []
        gap = self.gap(position, radius)
        if gap <= reach + EPS:
            return []
        return [Refusal("outside-scout-zone", f"the base is {gap:.2f}\" from the {self.name}; a Scout "
                                              f"({reach:g}\") deploys within {reach:g}\" of it", PAGE_SCOUT)]

    def scout_shape(self, reach: float, radius: float) -> BaseGeometry:
        """The area (table inches) a base of ``radius`` deployed by a Scout with reach
        ``reach`` inches can cover: the core grown by ``reach`` plus the base diameter,
        cut to the table (or the zone when ``reach`` is 0)."""
        if reach <= 0:
            return self.shape
        grown = self.core.buffer(reach + 2 * radius + CONTACT, 64)
        return grown.intersection(box(0, 0, self.width, self.depth)).union(self.shape)


def edge_gap(edge: str, position: Sequence[float], radius: float, width: float, depth: float) -> float:
    """Distance in inches from the nearest point of a base (centre ``position``,
    ``radius``) to the table edge ``edge`` (:data:`EDGES`); negative when the base
    reaches past it.

    Raises:
        KeyError: an unknown edge.
    """
    x, y = float(position[0]), float(position[1])
    return {"south": y, "north": depth - y, "west": x, "east": width - x}[edge] - radius


def edge_centres(edge: str, radius: float, width: float,
                 depth: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends of the line of base centres (``radius`` inches) touching the table
    edge ``edge`` and wholly on the table: every centre a Flank arrival may take lies on
    it (p.52).

    Raises:
        KeyError: an unknown edge.
    """
    r = float(radius)
    return {"south": ((r, r), (width - r, r)), "north": ((r, depth - r), (width - r, depth - r)),
            "west": ((r, r), (r, depth - r)), "east": ((width - r, r), (width - r, depth - r))}[edge]


def arrival_refusals(edge: str, opponent: "DeploymentZone | None", position: Sequence[float], radius: float,
                     width: float, depth: float) -> list[Refusal]:
    """Why a Flank model's base (centre ``position``, ``radius`` inches) may not arrive
    there along the table edge ``edge`` (p.52: "anywhere along the chosen edge, but not in
    the opponent's deployment zone"): it must touch the edge (gap at most ``CONTACT``),
    be wholly on the table, and not be in ``opponent``'s zone (:meth:`DeploymentZone.holds`).
    Other bases, terrain and enemy contact are the placement rules (p.22), judged by the
    caller. Empty when nothing refuses it.

    Raises:
        KeyError: an unknown edge.
    """
    out: list[Refusal] = []
    gap = edge_gap(edge, position, radius, width, depth)
    if gap > CONTACT + EPS:
        out.append(Refusal("off-edge", f"the base does not touch the {edge} table edge ({gap:.2f}\" away); a Flank "
                                       "model is placed along its chosen edge", PAGE_FLANK))
    x, y = float(position[0]), float(position[1])
    beyond = max(radius - x, radius - y, x + radius - width, y + radius - depth)
    if beyond > EPS:
        out.append(Refusal("off-table", f"the base reaches {beyond:.3f}\" past the table edge", PAGE_PLACEMENT))
    if opponent is not None and opponent.holds(position, radius):
        out.append(Refusal("opponent-zone", f"the base is in the opponent's deployment zone ({opponent.name}); a "
                                            "Flank model arrives along its edge but not there", PAGE_FLANK))
    return out


def edge_refusal(edge: str, opponent: "DeploymentZone | None", radius: float, width: float,
                 depth: float) -> Refusal | None:
    """Why no base of ``radius`` inches could ever arrive along ``edge`` (every point
    where it touches the edge is in the opponent's zone, as the opponent's own Baseline
    edge), or None (p.52)."""
    if opponent is None:
        return None
    (ax, ay), (bx, by) = edge_centres(edge, radius, width, depth)
    n = max(2, int(math.hypot(bx - ax, by - ay) / (radius / 2)) + 1)
    for i in range(n + 1):
        t = i / n
        if not opponent.holds((ax + (bx - ax) * t, ay + (by - ay) * t), radius):
            return None
    return Refusal("flank-edge-zone", f"every place along the {edge} edge is in the opponent's deployment zone "
                                      f"({opponent.name}); a Flank model may not arrive there", PAGE_FLANK)


def _disc_in_box(x: float, y: float, r: float, bounds: tuple) -> bool:
    x0, y0, x1, y1 = bounds
    return x - r >= x0 - EPS and y - r >= y0 - EPS and x + r <= x1 + EPS and y + r <= y1 + EPS


def _corner_point(corner: str, width: float, depth: float) -> tuple[float, float]:
    return (0.0 if corner.endswith("west") else width, 0.0 if corner.startswith("south") else depth)


def make_zone(kind: str, zone_id: str, width: float = 24.0, depth: float = 24.0) -> DeploymentZone:
    """The zone ``zone_id`` of deployment ``kind`` on a ``width`` x ``depth`` table.

    Raises:
        ValueError: an unknown kind, or an id that kind does not have (the message lists
            the known ones).
    """
    if kind not in DEPLOYMENTS:
        raise ValueError(f"unknown deployment {kind!r} (known: {', '.join(DEPLOYMENTS)})")
    ids = zone_ids(kind)
    if zone_id not in ids:
        raise ValueError(f"{DEPLOYMENT_NAMES[kind]} deployment has no zone {zone_id!r} (zones: {', '.join(ids)})")
    table = box(0, 0, width, depth)
    core: BaseGeometry
    if kind == "baseline":
        y = 0.0 if zone_id == "south" else depth
        core = LineString([(0, y), (width, y)])
    else:
        cx, cy = _corner_point(zone_id, width, depth)
        sx = 1.0 if cx == 0 else -1.0
        sy = 1.0 if cy == 0 else -1.0
        if kind == "corner_square":
            s = CORNER_SQUARE
            core = Polygon([(cx, cy), (cx + sx * s, cy), (cx + sx * s, cy + sy * s), (cx, cy + sy * s)])
            return DeploymentZone(zone_id, kind, core, core, float(width), float(depth))
        e = CORNER_EDGE
        core = MultiLineString([[(cx, cy), (cx + sx * e, cy)], [(cx, cy), (cx, cy + sy * e)]])
    shape = core.buffer(EDGE_ZONE_DEPTH, 64).intersection(table)
    return DeploymentZone(zone_id, kind, core, shape, float(width), float(depth))


def zone_ids(kind: str) -> tuple[str, ...]:
    """The zones a deployment kind offers: ``("south", "north")`` for Baseline, the four
    corners for the corner kinds."""
    return ("south", "north") if kind == "baseline" else _CORNERS


def zone_options(kind: str, width: float = 24.0, depth: float = 24.0) -> list[DeploymentZone]:
    """Every zone the chooser may take (p.20 step 4c, p.63: "choose any corner, the
    opponent takes the opposite one")."""
    return [make_zone(kind, z, width, depth) for z in zone_ids(kind)]


def all_zone_shapes(kind: str, width: float = 24.0, depth: float = 24.0) -> list[BaseGeometry]:
    """The drawn shapes of every zone of ``kind``: what terrain placed before the zones
    are chosen must keep Impassable pieces out of (p.20 step 4)."""
    return [z.shape for z in zone_options(kind, width, depth)]

