"""Terrain set-up checks (Game Setup p.20-21, Terrain set-up p.62; rulings.md section 9).

:func:`check_setup` lists every rule a terrain layout breaks. It is a report, not a
loader error: a table in play may break set-up rules (a scenario, a house rule), but an
organiser testing a layout wants to see them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from shapely.geometry import box

from sim.geometry import EPS, Passage

from .pieces import TerrainPiece

#: Largest footprint side, inches (p.3: pieces no larger than 9" x 9").
MAX_PIECE = 9.0
#: Fewest pieces placed in set-up (Game Setup).
MIN_PIECES = 6
#: Terrain stands at least this far from the table edge, inches.
EDGE_GAP = 2.0
#: Impassable terrain stays this far from objectives and other Impassable terrain.
IMPASSABLE_GAP = 2.0
#: Tournament variant: pool terrain apart from pool terrain and deployment zones.
TOURNAMENT_GAP = 3.0


@dataclass(frozen=True)
class SetupIssue:
    """One broken set-up rule: ``rule`` (short name), the pieces involved, a message."""

    rule: str
    pieces: tuple[str, ...]
    message: str


def baseline_zones(width: float, depth: float, depth_in: float = 2.0) -> list:
    """Baseline deployment zones (Scenario rules, "Baseline Deployment": bases touch the
    table edge) as shapely boxes: the strips ``depth_in`` inches deep along y = 0 and
    y = depth."""
    return [box(0, 0, width, depth_in), box(0, depth - depth_in, width, depth)]


def _gap(a: TerrainPiece, b: TerrainPiece) -> float:
    fa, fb = a.footprint, b.footprint
    if fa.is_circle and fb.is_circle:
        return max(0.0, math.dist(fa.center, fb.center) - fa.radius - fb.radius)
    if fa.is_circle:
        return fb.distance_to_disc(fa.center, fa.radius)
    if fb.is_circle:
        return fa.distance_to_disc(fb.center, fb.radius)
    return float(fa.shape.distance(fb.shape))


def check_setup(
    terrain: Sequence[TerrainPiece],
    width: float = 24.0,
    depth: float = 24.0,
    zones: Iterable | None = None,
    objectives: Sequence[tuple[float, float]] = (),
    tournament: bool = False,
) -> list[SetupIssue]:
    """Every set-up rule of rulings.md section 9 that ``terrain`` breaks.

    Args:
        terrain: the pieces.
        width, depth: table size, inches.
        zones: deployment and scenario zones (shapely geometries); default
            :func:`baseline_zones`.
        objectives: scenario objective points, inches.
        tournament: also apply the tournament variant (3" spacing).

    Returns:
        The issues found, empty when the layout is legal.
    """
    zones = list(zones) if zones is not None else baseline_zones(width, depth)
    issues: list[SetupIssue] = []
    if len(terrain) < MIN_PIECES:
        issues.append(SetupIssue("min-pieces", (),
                                 f"{len(terrain)} pieces placed; set-up places at least {MIN_PIECES}"))
    table = box(0, 0, width, depth)
    for t in terrain:
        x0, y0, x1, y1 = t.footprint.bounds
        rot = t.footprint.shape.minimum_rotated_rectangle
        coords = list(rot.exterior.coords)
        sides = sorted(math.dist(coords[i], coords[i + 1]) for i in range(2)) if len(coords) >= 3 else [0, 0]
        if sides[-1] > MAX_PIECE + EPS:
            issues.append(SetupIssue("max-size", (t.id,),
                                     f"{t.id} is {sides[-1]:.2f}\" long; pieces are at most 9\" x 9\""))
        edge = min(x0, y0, width - x1, depth - y1)
        if edge < EDGE_GAP - EPS:
            issues.append(SetupIssue("edge", (t.id,), f"{t.id} is {max(edge, 0):.2f}\" from the table edge; keep 2\""))
        if not table.contains(t.footprint.shape):
            issues.append(SetupIssue("off-table", (t.id,), f"{t.id} is partly off the table"))
        if t.passage is Passage.IMPASSABLE:
            for z in zones:
                if t.footprint.shape.intersects(z):
                    issues.append(SetupIssue("impassable-zone", (t.id,),
                                             f"Impassable {t.id} stands in a deployment or scenario zone"))
                    break
            for o in objectives:
                d = t.footprint.distance_to_point(o)
                gap = TOURNAMENT_GAP if tournament else IMPASSABLE_GAP
                if d < gap - EPS:
                    issues.append(SetupIssue("impassable-objective", (t.id,),
                                             f"Impassable {t.id} is {d:.2f}\" from an objective; keep {gap:g}\""))
        if tournament:
            for z in zones:
                d = t.footprint.shape.distance(z)
                if d < TOURNAMENT_GAP - EPS:
                    issues.append(SetupIssue("tournament-zone", (t.id,),
                                             f"{t.id} is {d:.2f}\" from a deployment zone; tournaments keep 3\""))
                    break
    for i, a in enumerate(terrain):
        for b in terrain[i + 1:]:
            g = _gap(a, b)
            if g <= EPS:
                issues.append(SetupIssue("touching", (a.id, b.id), f"{a.id} and {b.id} touch or overlap"))
            elif a.passage is Passage.IMPASSABLE and b.passage is Passage.IMPASSABLE and g < IMPASSABLE_GAP - EPS:
                issues.append(SetupIssue("impassable-gap", (a.id, b.id),
                                         f"Impassable {a.id} and {b.id} are {g:.2f}\" apart; keep 2\""))
            elif tournament and g < TOURNAMENT_GAP - EPS:
                issues.append(SetupIssue("tournament-gap", (a.id, b.id),
                                         f"{a.id} and {b.id} are {g:.2f}\" apart; tournaments keep 3\""))
    return issues
