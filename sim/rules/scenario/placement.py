"""Objectives and zones on the table: objectives as terrain, the set-up check, contact,
facing and zone control (p.63).

Rulebook: Scenario rules p.63: objectives are Impassable, Blocking terrain sized by their
base (line 1965), a Scenario action needs base contact and facing the objective (Simple
and Complex Scenario actions, lines 688 and 715), a zone is controlled by more rice and
more models wholly within it (line 2020). Set-up rules: ``shared/rulings.md`` section 9.
Positions and radii are inches, facings degrees.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

from shapely.geometry import Point as _SPoint

from sim.geometry import CONTACT, EPS, Footprint, Passage, Visibility
from sim.geometry.primitives import heading
from sim.rules.scenario.model import Objective, Scenario, Zone, ZoneModel
from sim.rules.scenario.state import ScenarioState
from terrain.pieces import DEFAULT_HEIGHTS, TerrainPiece
from terrain.setup import IMPASSABLE_GAP, SetupIssue


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
        size = scenario.objective_size
        assert size is not None, "a scenario with objectives has their Size"
        out.append(TerrainPiece(
            id=o.piece_id, passage=Passage.IMPASSABLE, visibility=Visibility.BLOCKING,
            size=size, footprint=Footprint.circle(o.position, o.radius),
            height=DEFAULT_HEIGHTS[size], preset=None,
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
