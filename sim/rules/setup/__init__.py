"""Game set-up and deployment (rulebook "Game Setup" p.20, "Terrain" p.60-62,
"Deployment" in the scenario rules p.63): pure, seeded, replayable; no Panda3D.

:class:`GameSetup` goes from the players' choices -- the table (:class:`TableChoice`: a
file, or an empty table whose terrain the players place), the scenario, each side's
warband (:mod:`~sim.rules.setup.warbands`: bundled, a ``bushido-warband/1`` file, a
BattleScribe/NewRecruit roster, or the :class:`Picker`) -- through explicit
:class:`Step` records (roll-off, terrain, zone, who deploys first, deployment, Flank,
Scouts) to a ready :class:`~sim.rules.game.Game`. Every step is judged with every reason
and its page (:class:`Refusal`); a set-up saves, restores and undoes one step back.

Public API::

    GameSetup(table, scenario=None, warbands={1: ..., 2: ...}, seed=0)
        .phase, .to_act, .roll_off(values=None), .roll_off_dice(), .place_terrain(p, preset, (x, y), rot),
        .stop_terrain(p), .zone_options(), .choose_zone(p, zone), .choose_first(p, first),
        .waiting(p), .placement_refusals(recruit, (x, y)), .deploy(p, model, (x, y), facing),
        .flank(p, model, turn, edge), .flank_options(p, model), .done(p), .refusals(step), .apply(step), .undo(),
        .table(), .game(), .to_dict(), GameSetup.from_dict(doc), .save(path), GameSetup.load(path)
    TableChoice.file(path), TableChoice.blank(width, depth, like=None)
    bundled_warbands(), bundled_warband(name), warband_file(path, data), Picker(cs, faction, rice)
    DeploymentZone, make_zone(kind, id, w, d), zone_options(kind, w, d)
    preset_piece(preset, id, center, rotation), terrain_refusals(...), presets()

How the project reads the rules: ``docs/setup.md``.
"""

from __future__ import annotations

from .core import (
    FLANK_EDGES,
    FLANK_TURNS,
    FORMAT,
    MIN_TERRAIN,
    PHASES,
    STEP_KINDS,
    GameSetup,
    RollOff,
    Step,
    TableChoice,
)
from .reasons import Refusal, SetupError
from .terrain import preset_piece, presets, terrain_refusals
from .warbands import (
    Picker,
    PickerEntry,
    Recruit,
    WarbandChoice,
    bundled_warband,
    bundled_warbands,
    catalogues,
    choice_from_dict,
    default_catalogue_dir,
    recruits,
    warband_file,
)
from .zones import (
    CORNER_EDGE,
    CORNER_SQUARE,
    EDGE_ZONE_DEPTH,
    EDGES,
    DeploymentZone,
    arrival_refusals,
    make_zone,
    zone_ids,
    zone_options,
)

__all__ = [
    "CORNER_EDGE", "CORNER_SQUARE", "EDGE_ZONE_DEPTH", "EDGES", "FLANK_EDGES", "FLANK_TURNS", "FORMAT", "MIN_TERRAIN",
    "PHASES", "STEP_KINDS", "DeploymentZone", "GameSetup", "Picker", "PickerEntry", "Recruit", "Refusal",
    "RollOff", "SetupError", "Step", "TableChoice", "WarbandChoice", "bundled_warband", "bundled_warbands",
    "arrival_refusals", "catalogues", "choice_from_dict", "default_catalogue_dir", "make_zone", "preset_piece",
    "presets", "recruits", "terrain_refusals", "warband_file", "zone_ids", "zone_options",
]
