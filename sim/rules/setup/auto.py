"""A set-up played by the engine for bot games (``main.py play TABLE --warbands A,B``):
a legal warband picked from the catalogues with a seeded random order, and every set-up
step (roll-off, zone, who deploys first, deployment) taken by a simple, deterministic
policy through the public :class:`~sim.rules.setup.GameSetup` API, so every placement is
judged by the same rules as a player's (p.19, p.20, p.63).

The policy (the project's, not the rulebook's): the chooser takes the first zone the
scenario offers and deploys first; each model goes, in the warband's order, to the
legal point of its zone nearest the table's centre on a 0.5" grid, facing the centre;
Flank models are deployed like the others (a bot does not hold models back); Scouts are
deployed in the Scout step the same way.
"""

from __future__ import annotations

import math
import os
import random

from shapely.geometry import Point

from models.warband import STANDARD_RICE_LIMITS
from sim.rules.setup.core import GameSetup, Step
from sim.rules.setup.reasons import Refusal, SetupError
from sim.rules.setup.warbands import Picker, WarbandChoice

__all__ = ["auto_setup", "auto_step", "pick_warband", "warband_game"]

#: Grid step of the deployment search, inches.
GRID = 0.5


def pick_warband(cs, faction: str, rice_limit: int = STANDARD_RICE_LIMITS[0], seed: int = 0,
                 tries: int = 20) -> WarbandChoice:
    """A legal warband of ``faction`` (a catalogue name of ``cs``) of at most ``rice_limit``
    rice: models of the faction added in a random order seeded by ``seed`` while the rice
    allows and no new rule of :func:`models.warband.check_warband` is broken (p.19).

    Raises:
        SetupError: not a faction, or no legal warband found in ``tries`` attempts.
    """
    last: list[Refusal] = []
    for attempt in range(tries):
        rng = random.Random(f"pick-{faction}-{seed}-{attempt}")
        picker = Picker(cs, faction, rice_limit, name=f"{faction} (picked, seed {seed})")
        entries = [e for e in picker.available() if e.rice and e.base]  # a model without a base cannot deploy
        rng.shuffle(entries)
        for _round in range(3):
            for e in entries:
                if picker.rice + (e.rice or 0) > rice_limit:
                    continue
                before = {(v.rule, v.message) for v in picker.problems()} if picker.picked else None
                picker.add(e.id)
                after = {(v.rule, v.message) for v in picker.problems()}
                if before is not None and not after <= before:
                    picker.remove(e.id)
        problems = picker.problems()
        if not problems:
            return picker.choice()
        last = [Refusal(v.rule, v.message, v.page) for v in problems]
    raise SetupError(last or [Refusal("warband", f"no legal {faction} warband found")], where=faction)


def _points(setup: GameSetup, player: int, radius: float, grid: float = GRID):
    """Candidate base centres in ``player``'s zone, nearest the table centre first: the
    zone's grid points, and for zones whose bases touch the table edge (Baseline, Corner
    Edge) each grid point moved to where a base of ``radius`` inches touches the zone's
    line (p.63)."""
    zone = setup.zones[player]
    cx, cy = setup.width / 2.0, setup.depth / 2.0
    minx, miny, maxx, maxy = zone.shape.bounds
    pts = []
    x = math.floor(minx / grid) * grid
    while x <= maxx + 1e-9:
        y = math.floor(miny / grid) * grid
        while y <= maxy + 1e-9:
            if zone.shape.buffer(1e-9).contains(Point(x, y)):
                pts.append((round(x, 4), round(y, 4)))
                if zone.touching:
                    c = zone.core.interpolate(zone.core.project(Point(x, y)))
                    dx, dy = x - c.x, y - c.y
                    n = math.hypot(dx, dy)
                    if n > 1e-9:
                        pts.append((c.x + dx / n * radius, c.y + dy / n * radius))
            y += grid
        x += grid
    return sorted(pts, key=lambda p: (math.dist(p, (cx, cy)), p))


def _deploy_one(setup: GameSetup, player: int) -> bool:
    """Deploy ``player``'s next waiting model at its best legal point; False when it has
    none waiting."""
    waiting = setup.waiting(player)
    if not waiting:
        return False
    r = waiting[0]
    cx, cy = setup.width / 2.0, setup.depth / 2.0
    for grid in (GRID, GRID / 2, GRID / 4):  # a crowded zone: a finer search
        for pt in _points(setup, player, r.radius, grid):
            facing = math.degrees(math.atan2(cy - pt[1], cx - pt[0])) % 360.0
            if not setup.placement_refusals(r, pt, facing):
                setup.deploy(player, r.id, pt, facing)
                return True
    raise SetupError(Refusal("deploy", f"no legal point left in the zone for {r.id}", "p.63"))


def auto_setup(setup: GameSetup, max_steps: int = 500) -> GameSetup:
    """Take every remaining set-up step of ``setup`` by the module's policy; returns
    ``setup`` once its phase is ``done``.

    Raises:
        SetupError: a model that fits nowhere in its zone, or a set-up that does not end.
    """
    for _ in range(max_steps):
        if setup.phase == "done":
            return setup
        if auto_step(setup, setup.to_act) is None:
            break
    raise SetupError(Refusal("setup", f"the automatic set-up did not finish (phase {setup.phase})"))


def warband_game(table: "str | os.PathLike", warbands: "list[str] | tuple[str, ...]", *, seed: int = 0,
                 rice: int = 70, scenario=None, length: "tuple[str, int] | None" = None, data=None):
    """``(game, setup)``: two warbands set up on the terrain of the table file ``table``
    by this module's policy, then the :class:`~sim.rules.game.Game` (``main.py play
    --warbands``, and the network server's ``create`` with warbands). Each entry of
    ``warbands`` is a catalogue faction name (a legal warband of ``rice`` picked with
    ``seed + side``) or a warband file (``.yaml``, ``.ros`` ...).

    Raises:
        SetupError: no catalogues, an unknown faction, a warband file that cannot be
            read, a set-up that fails (the one-line reason).
    """
    from pathlib import Path

    from sim.rules.setup.core import TableChoice
    from sim.rules.setup.warbands import catalogues, default_catalogue_dir, warband_file

    names = [str(w).strip() for w in warbands]
    if len(names) != 2 or not all(names):
        raise SetupError(Refusal("warbands", f"expected two warbands A,B, got {','.join(names)!r}"))
    data = data or default_catalogue_dir()
    if data is None:
        raise SetupError(Refusal("warbands", "no catalogues found (give --data DIR)"))
    cs = catalogues(data)
    chosen = {}
    for side, name in enumerate(names, 1):
        if Path(name).suffix.lower() in (".yaml", ".yml", ".ros", ".rosz", ".json"):
            chosen[side] = warband_file(name, data)
        else:
            chosen[side] = pick_warband(cs, name, rice, seed=seed + side)
    setup = GameSetup(TableChoice.terrain_of(table), scenario=scenario, warbands=chosen, seed=seed)
    auto_setup(setup)
    return setup.game(length=length), setup


def auto_step(setup: GameSetup, player: int | None) -> "Step | None":
    """Take ``player``'s next set-up step by this module's policy (the roll-off for
    anybody in its phase); returns the step as recorded, or None when it is not
    ``player``'s step (or the set-up is done). A network seat played by a bot asks the
    server for this (``main.py join --bot`` during a networked set-up).

    Raises:
        SetupError: a model that fits nowhere in its zone.
    """
    ph, p = setup.phase, setup.to_act
    if ph == "done":
        return None
    if ph == "roll_off":
        setup.roll_off()
        return setup.steps[-1]
    if p is None or p != player:
        return None
    if ph == "terrain":
        setup.stop_terrain(p)
    elif ph == "zone":
        setup.choose_zone(p, setup.zone_options()[0].id)
    elif ph == "first":
        setup.choose_first(p, p)
    elif ph in ("deploy", "scouts"):
        if not _deploy_one(setup, p):
            setup.done(p)
    else:
        return None
    return setup.steps[-1]
