"""Terrain placed by the players during set-up (Game Setup p.20 step 4, Terrain set-up
p.62; ``shared/rulings.md`` section 9).

:func:`preset_piece` builds a piece from a preset (``data/terrain/presets.yaml``) at a
centre and rotation; :func:`terrain_refusals` gives every set-up rule the new piece
breaks with the pieces already placed, the scenario's objectives and zones and every
deployment zone the chooser may still take, reusing :func:`terrain.setup.check_setup`
and :func:`sim.rules.scenario.check_against_table`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Sequence

from shapely.geometry.base import BaseGeometry

from sim.geometry import Footprint, FootprintError
from sim.rules.scenario import Scenario, check_against_table
from terrain.pieces import TerrainPiece, load_presets
from terrain.setup import check_setup

from .reasons import PAGE_SETUP, PAGE_TERRAIN, Refusal

#: The rulebook page of each rule of :func:`terrain.setup.check_setup` and of the
#: scenario's set-up check.
RULE_PAGES = {
    "min-pieces": PAGE_SETUP, "max-size": "p.3", "edge": PAGE_TERRAIN, "off-table": PAGE_TERRAIN,
    "impassable-zone": PAGE_SETUP, "impassable-objective": PAGE_SETUP, "impassable-gap": PAGE_SETUP,
    "touching": PAGE_TERRAIN, "tournament-zone": PAGE_TERRAIN, "tournament-gap": PAGE_TERRAIN,
    "objective-terrain": "p.63", "objective-model": "p.63", "id": "",
}


def presets() -> list[str]:
    """Names of the terrain presets (Terrain p.60-62), sorted."""
    return sorted(load_presets())


def preset_piece(preset: str, piece_id: str, center: Sequence[float], rotation: float = 0.0) -> TerrainPiece:
    """A piece of ``preset`` with id ``piece_id`` centred at ``center`` (inches), turned
    ``rotation`` degrees (rectangles; a circle ignores it).

    Raises:
        ValueError: an unknown preset (the message lists them), a bad footprint.
    """
    known = load_presets()
    if preset not in known:
        raise ValueError(f"unknown terrain preset {preset!r} (known: {', '.join(sorted(known))})")
    p = known[preset]
    c = (float(center[0]), float(center[1]))
    try:
        if "circle" in p.footprint:
            fp = Footprint.circle(c, float(p.footprint["circle"]["radius"]))
        else:
            r = p.footprint["rect"]
            fp = Footprint.rect(c, float(r["width"]), float(r["depth"]), float(rotation))
    except FootprintError as exc:
        raise ValueError(str(exc)) from None
    return TerrainPiece(id=piece_id, passage=p.passage, visibility=p.visibility, size=p.size, footprint=fp,
                        height=p.height, preset=preset, name=None)


def terrain_refusals(piece: TerrainPiece, placed: Sequence[TerrainPiece], width: float, depth: float,
                     zones: Sequence[BaseGeometry] = (), scenario: Scenario | None = None,
                     tournament: bool = False) -> list[Refusal]:
    """Every set-up rule broken by placing ``piece`` among ``placed`` on a ``width`` x
    ``depth`` table (inches): larger than 9" x 9", nearer than 2" to the edge or off the
    table, touching other terrain, Impassable within 2" of other Impassable terrain or
    of an objective's base or inside a deployment or scenario zone, overlapping an
    objective; with ``tournament`` the 3" spacing of the tournament variant. Only the
    issues that involve ``piece`` are returned (the fewest-pieces rule is the stop
    condition, not a refusal). ``zones``: the deployment zones to keep Impassable pieces
    out of (all of them while none is chosen)."""
    issues = check_setup(list(placed) + [piece], width, depth, zones=list(zones), objectives=(),
                         tournament=tournament)
    out = [Refusal(i.rule, i.message, RULE_PAGES.get(i.rule, PAGE_TERRAIN)) for i in issues
           if piece.id in i.pieces and i.rule != "min-pieces"]
    if scenario is not None:
        table = SimpleNamespace(width=width, depth=depth, terrain=list(placed) + [piece], models=())
        for i in check_against_table(scenario, table, setup=True):
            if piece.id in i.pieces:
                out.append(Refusal(i.rule, i.message, RULE_PAGES.get(i.rule, "p.63")))
    return out
