"""What the set-up screens do, without Panda3D: the choices, the picker and the set-up
on the table, driven by plain methods (pure Python; :mod:`sim.view.play.setup_screens`
draws it and turns clicks into these calls; tests call them directly).

A :class:`SetupFlow` moves through three screens:

* ``choose``: the table (:func:`table_options`), the scenario (:func:`scenario_options`)
  and each side's warband (bundled, a ``bushido-warband/1`` file or a roster path, or the
  picker); :meth:`SetupFlow.start` builds the :class:`~sim.rules.setup.GameSetup`;
* ``picker``: a :class:`~sim.rules.setup.Picker` for one side (faction, models with
  rice, the warband check's problems); :meth:`SetupFlow.accept_picker` takes it;
* ``table``: the set-up's phases on the table: the roll-off, terrain placement (a preset
  and a rotation, placed by clicking a point), the zone, who deploys first, then each
  model clicked into place (Flank and keeping Scouts back as buttons), undo. Every
  refusal is kept with all its reasons and pages (:attr:`SetupFlow.refusals`).

When the set-up is done, :meth:`SetupFlow.game` builds the :class:`~sim.rules.game.Game`.
Table points are inches; facings degrees.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.geometry.primitives import heading
from sim.rules.scenario import ScenarioError, list_scenarios, load_scenario
from sim.rules.setup import (
    FLANK_EDGES,
    FLANK_TURNS,
    GameSetup,
    Picker,
    Recruit,
    Refusal,
    RollOff,
    SetupError,
    Step,
    TableChoice,
    WarbandChoice,
    bundled_warband,
    bundled_warbands,
    catalogues,
    default_catalogue_dir,
    preset_piece,
    presets,
    warband_file,
)
from sim.rules.setup.zones import DeploymentZone
from sim.table import DATA_DIR, Table

#: Degrees a rotate key or button turns a terrain piece or a model.
ROTATE_STEP = 15.0
#: A base clicked this near (inches) to where its zone wants it is moved there: onto the
#: table, touching the baseline or edge, into the corner square (a click cannot hit a
#: touching position exactly).
SNAP = 1.0
#: The screens of the flow.
SCREENS = ("choose", "picker", "table", "done")
#: Who may play a side, with the words the first screen shows: a human at the screen,
#: or a bot (:data:`sim.rules.bots.BOTS`).
PLAYER_KINDS = {"human": "human", "greedy": "greedy bot", "random": "random bot"}


def table_options(directory: str | os.PathLike = DATA_DIR / "tables") -> list[TableChoice]:
    """The tables offered: an empty 24" table, then for each table file its layout as
    it is, its terrain alone (warbands deployed) and an empty table of its size."""
    out = [TableChoice.blank()]
    for f in sorted(Path(directory).glob("*.yaml")):
        out += [TableChoice.file(f), TableChoice.terrain_of(f), TableChoice.blank(like=f)]
    return out


def scenario_options() -> list[str | None]:
    """The scenarios offered: none, then the bundled ones (``data/scenarios``)."""
    return [None, *list_scenarios()]


def snap_point(zone: DeploymentZone | None, point, radius: float, width: float, depth: float,
               normal: bool = True) -> tuple[float, float]:
    """Where a base of ``radius`` inches clicked at ``point`` goes: moved onto the
    ``width`` x ``depth`` table when it reaches past an edge, and (``normal``: the normal
    deployment, not the Scouts') moved by at most :data:`~sim.view.play.setup_flow.SNAP`
    inches to touch its zone's baseline or edge (Baseline, Corner Edge) or into its corner
    square (Corner Square). Other points are kept. Used by the set-up screens at one screen
    (:meth:`SetupFlow.snap`) and by the networked set-up screen (:mod:`~sim.view.play.remote_setup`).

    >>> from sim.rules.setup import make_zone
    >>> z = make_zone("baseline", "south", 24, 24)
    >>> snap_point(z, (5.0, 1.2), 0.5, 24, 24)
    (5.0, 0.5)
    >>> snap_point(z, (-1.0, 9.0), 0.5, 24, 24)
    (0.5, 9.0)
    """
    x = min(max(float(point[0]), radius), width - radius)
    y = min(max(float(point[1]), radius), depth - radius)
    if zone is None or not normal:
        return (x, y)
    if zone.kind == "corner_square":
        x0, y0, x1, y1 = zone.core.bounds
        if x0 - SNAP < x - radius < x0:
            x = x0 + radius
        if x1 < x + radius < x1 + SNAP:
            x = x1 - radius
        if y0 - SNAP < y - radius < y0:
            y = y0 + radius
        if y1 < y + radius < y1 + SNAP:
            y = y1 - radius
        return (x, y)
    best: tuple[float, str, float] | None = None
    for line in getattr(zone.core, "geoms", [zone.core]):
        (ax, ay), (_bx, by) = line.coords[0], line.coords[-1]
        if ay == by:  # along y = ay
            gap, axis, to = abs(y - ay) - radius, "y", (ay + radius if ay == 0 else ay - radius)
        else:
            gap, axis, to = abs(x - ax) - radius, "x", (ax + radius if ax == 0 else ax - radius)
        if 0 < gap < SNAP and (best is None or gap < best[0]):
            best = (gap, axis, to)
    if best is not None:
        x, y = (best[2], y) if best[1] == "x" else (x, best[2])
    return (x, y)


@dataclass(frozen=True)
class Ghost:
    """What the pointer would place now: ``kind`` (``"terrain"`` or ``"model"``),
    ``id`` (the piece or model), ``point`` (inches), ``rotation``/``facing`` (degrees),
    ``radius`` (a model's base, inches; 0 for terrain), ``refusals`` (empty: legal)."""

    kind: str
    id: str
    point: tuple[float, float]
    rotation: float
    radius: float
    refusals: tuple[Refusal, ...]
    piece: Any = None

    @property
    def legal(self) -> bool:
        """True when nothing refuses it."""
        return not self.refusals


class SetupFlow:
    """The set-up screens' state and input (see the module docstring).

    Args:
        seed: seeds the set-up's roll-off and the game's dice.
        catalogue_dir: the BattleScribe catalogues for warband files and the picker
            (default :func:`sim.rules.setup.default_catalogue_dir`; None: not offered).
        tables: the table choices (default :func:`table_options`).
        physical: the players roll real dice: the roll-off takes the values they type
            (:meth:`roll` with ``values``, :meth:`roll_off_prompt`).
    """

    def __init__(self, seed: int = 0, catalogue_dir: str | os.PathLike | None = None,
                 tables: list[TableChoice] | None = None, physical: bool = False) -> None:
        self.seed = seed
        self.physical = bool(physical)
        #: The roll-off values typed so far (physical dice), waiting for more after a tie.
        self.typed_dice: list[int] = []
        cat = catalogue_dir if catalogue_dir is not None else default_catalogue_dir()
        self.catalogue_dir: str | None = str(cat) if cat is not None else None
        self.table_choices = tables if tables is not None else table_options()
        self.scenario_choices = scenario_options()
        self.table_index = 0
        self.scenario_index = 0
        self.warbands: dict[int, WarbandChoice | None] = {1: bundled_warband("default-1"),
                                                         2: bundled_warband("default-2")}
        self.screen = "choose"
        self.setup: GameSetup | None = None
        self.picker: Picker | None = None
        self.picker_side: int | None = None
        self.preset = presets()[0]
        self.rotation = 0.0
        self.facing_offset = 0.0
        self.selected: str | None = None
        self.message = ""
        self.refusals: tuple[Refusal, ...] = ()
        self.version = 0  # bumped on every change (the screen redraws when it moves)
        #: who plays each side: ``"human"`` or a bot of :data:`PLAYER_KINDS`
        self.players: dict[int, str] = {1: "human", 2: "human"}

    # ------------------------------------------------------------------ helpers
    def _changed(self, message: str = "", refusals=()) -> None:
        self.message = message
        self.refusals = tuple(refusals)
        self.version += 1

    def _refused(self, exc: SetupError, what: str) -> bool:
        self._changed(f"{what}: refused", exc.reasons)
        return False

    # ------------------------------------------------------------------ choose
    def table_labels(self) -> list[str]:
        """The table choices as a menu names them."""
        return [t.label for t in self.table_choices]

    def scenario_labels(self) -> list[str]:
        """The scenario choices as a menu names them."""
        return ["No scenario" if s is None else s for s in self.scenario_choices]

    def choose_table(self, index: int) -> None:
        """Choose table ``index`` of :meth:`table_labels`."""
        self.table_index = max(0, min(int(index), len(self.table_choices) - 1))
        self._changed(f"table: {self.table_choices[self.table_index].label}")

    def choose_scenario(self, index: int) -> None:
        """Choose scenario ``index`` of :meth:`scenario_labels`."""
        self.scenario_index = max(0, min(int(index), len(self.scenario_choices) - 1))
        self._changed(f"scenario: {self.scenario_labels()[self.scenario_index]}")

    def choose_player(self, side: int, kind: str) -> None:
        """Who plays ``side`` (1 or 2): ``"human"``, ``"greedy"`` or ``"random"`` (a bot
        of :mod:`sim.rules.bots`, :data:`PLAYER_KINDS`).

        Raises:
            ValueError: another side or kind.
        """
        if side not in (1, 2) or kind not in PLAYER_KINDS:
            raise ValueError(f"player {side!r} is one of {', '.join(PLAYER_KINDS)}, not {kind!r}")
        self.players[side] = kind
        self._changed(f"player {side}: {PLAYER_KINDS[kind]}")

    def bots(self) -> dict[int, str]:
        """``{side: bot name}`` of the sides a bot plays (for
        :func:`sim.view.play.controller.make_bots`)."""
        return {p: k for p, k in self.players.items() if k != "human"}

    @property
    def table_choice(self) -> TableChoice:
        """The chosen table."""
        return self.table_choices[self.table_index]

    @property
    def scenario(self) -> str | None:
        """The chosen scenario's name, or None."""
        return self.scenario_choices[self.scenario_index]

    def places_models(self) -> bool:
        """Whether the chosen table places the models itself (no warbands needed)."""
        try:
            return bool(self.table_choice.load().models)
        except SetupError:
            return False

    def bundled_labels(self) -> list[tuple[str, str]]:
        """``(name, label)`` of the bundled warbands."""
        return [(n, bundled_warband(n).label) for n in bundled_warbands()]

    def choose_bundled(self, side: int, name: str) -> bool:
        """Give ``side`` the bundled warband ``name``. Returns False (with the reasons)
        when refused."""
        try:
            self.warbands[side] = bundled_warband(name)
        except SetupError as exc:
            return self._refused(exc, f"player {side}'s warband")
        self._changed(f"player {side}: {self.warbands[side].label}")  # type: ignore[union-attr]
        return True

    def load_warband(self, side: int, path: str) -> bool:
        """Give ``side`` the warband of a ``bushido-warband/1`` file or a
        BattleScribe/NewRecruit roster at ``path`` (checked by the warband rules).
        Returns False (with every reason) when refused."""
        if self.catalogue_dir is None:
            self._changed("no catalogue directory: set BUSHIDO_BSDATA", [Refusal("catalogues", "no catalogues")])
            return False
        try:
            self.warbands[side] = warband_file(path.strip(), self.catalogue_dir)
        except SetupError as exc:
            return self._refused(exc, f"player {side}'s warband {path}")
        self._changed(f"player {side}: {self.warbands[side].label}")  # type: ignore[union-attr]
        return True

    def warband_label(self, side: int) -> str:
        """The chosen warband of ``side`` in words."""
        w = self.warbands.get(side)
        return w.label if w is not None else "(none)"

    # ------------------------------------------------------------------ picker
    def open_picker(self, side: int, faction: str | None = None, rice: int = 70) -> bool:
        """Open the picker for ``side`` (needs the catalogues)."""
        if self.catalogue_dir is None:
            self._changed("the picker needs the catalogues: set BUSHIDO_BSDATA",
                          [Refusal("catalogues", "no catalogue directory")])
            return False
        try:
            cs = catalogues(self.catalogue_dir)
            self.picker = Picker(cs, faction, rice, name=f"Player {side}'s warband", data=self.catalogue_dir)
        except SetupError as exc:
            return self._refused(exc, "picker")
        self.picker_side = side
        self.screen = "picker"
        self._changed(f"build player {side}'s warband")
        return True

    def picker_do(self, verb: str, arg: Any = None) -> bool:
        """``verb`` on the picker: ``faction`` (a name), ``add``/``remove`` (a profile
        id), ``rice`` (a limit). Returns False (with the reason) when refused."""
        p = self.picker
        if p is None:
            return False
        try:
            if verb == "faction":
                p.set_faction(str(arg))
            elif verb == "add":
                p.add(str(arg))
            elif verb == "remove":
                p.remove(str(arg))
            elif verb == "rice":
                p.rice_limit = int(arg)
            else:
                raise SetupError(Refusal("picker", f"unknown picker action {verb!r}"))
        except SetupError as exc:
            return self._refused(exc, verb)
        self._changed(f"{p.rice} of {p.rice_limit} rice")
        return True

    def accept_picker(self) -> bool:
        """Use the picked warband for its side (refused with every problem of the
        warband check) and go back to the choices."""
        p, side = self.picker, self.picker_side
        if p is None or side is None:
            return False
        try:
            self.warbands[side] = p.choice()
        except SetupError as exc:
            return self._refused(exc, "the warband")
        self.screen, self.picker, self.picker_side = "choose", None, None
        self._changed(f"player {side}: {self.warband_label(side)}")
        return True

    def cancel_picker(self) -> None:
        """Back to the choices, the side's warband unchanged."""
        self.screen, self.picker, self.picker_side = "choose", None, None
        self._changed()

    # ------------------------------------------------------------------ start
    def start(self) -> bool:
        """Build the set-up from the choices and go to the table. Returns False (with
        every reason) when the choices cannot be used."""
        wb = None if self.places_models() else {p: w for p, w in self.warbands.items() if w is not None}
        try:
            scen = None
            if self.scenario is not None:
                table = self.table_choice.load()
                scen = load_scenario(self.scenario, table.width, table.depth)
            self.setup = GameSetup(self.table_choice, scen, wb, seed=self.seed)
        except ScenarioError as exc:
            self._changed("the scenario: refused", [Refusal("scenario", str(exc))])
            return False
        except SetupError as exc:
            return self._refused(exc, "the choices")
        self.screen = "done" if self.setup.phase == "done" else "table"
        self._select_next()
        self._changed("set-up started")
        return True

    # ------------------------------------------------------------------ table
    @property
    def phase(self) -> str | None:
        """The set-up's phase (:data:`sim.rules.setup.PHASES`), or None before it starts."""
        return self.setup.phase if self.setup is not None else None

    def _apply(self, step: Step, what: str) -> bool:
        assert self.setup is not None
        try:
            self.setup.apply(step)
        except SetupError as exc:
            return self._refused(exc, what)
        self._select_next()
        if self.setup.phase == "done":
            self.screen = "done"
        self._changed(f"{what}: done")
        return True

    def roll(self, values: list[int] | tuple[int, ...] | None = None) -> RollOff | None:
        """Roll the Deployment Tactical test (p.20, p.28): with the seeded dice, or with
        physical dice the ``values`` the players rolled, in :meth:`roll_off_prompt`'s
        order; values typed before a tie are kept, so after "N more d6 needed" only the
        new values are given. Returns the roll-off, or None when it is not decided (the
        reasons -- values missing, a value outside 1..6 -- in :attr:`refusals`; a refused
        value drops the values typed)."""
        s = self.setup
        if s is None:
            return None
        if values is None and not self.physical:
            return s.roll if self._apply(Step("roll_off"), "roll-off") else None
        if values is None or not list(values):  # physical dice and nothing typed: ask (never the seeded dice)
            self._changed("roll-off: type the dice rolled", [Refusal("dice-needed", self.roll_off_prompt(), "p.28")])
            return None
        typed = self.typed_dice + list(values)
        why = s.refusals(Step("roll_off", dice=tuple(typed)))
        if why:
            self.typed_dice = typed if why[0].code == "dice-needed" else []
            self._changed("roll-off: more dice" if why[0].code == "dice-needed" else "roll-off: refused", why)
            return None
        self.typed_dice = []
        return s.roll if self._apply(Step("roll_off", dice=tuple(typed)), "roll-off") else None

    def roll_off_prompt(self) -> str:
        """What the players roll for the roll-off, in words: ``Player 1 rolls 1 d6, then
        player 2 rolls 1 d6 (ties: roll again)``, and the values typed so far."""
        if self.setup is None:
            return ""
        n1, n2 = self.setup.roll_off_dice()
        text = f"Player 1 rolls {n1} d6, then player 2 rolls {n2} d6 (a tie: both roll again)"
        return text + (f"; typed so far: {' '.join(map(str, self.typed_dice))}" if self.typed_dice else "")

    def set_preset(self, name: str) -> None:
        """The terrain preset the next click places."""
        if name in presets():
            self.preset = name
            self._changed(f"preset: {name}")

    def rotate(self, delta: float = ROTATE_STEP) -> None:
        """Turn the piece (terrain phase) or the model (deployment) by ``delta`` degrees."""
        if self.phase == "terrain":
            self.rotation = (self.rotation + delta) % 360.0
        else:
            self.facing_offset = (self.facing_offset + delta) % 360.0
        self._changed()

    def facing_at(self, point) -> float:
        """The facing a model deployed at ``point`` gets: towards the opponent (square to
        a baseline, towards the table centre from a corner), plus the turns given."""
        s = self.setup
        assert s is not None
        zone = s.zones.get(s.to_act or 1)
        if zone is not None and zone.kind == "baseline":
            base = 90.0 if zone.id == "south" else 270.0
        else:
            base = heading(s.width / 2 - float(point[0]), s.depth / 2 - float(point[1]))
        return (base + self.facing_offset) % 360.0

    def snap(self, point, radius: float) -> tuple[float, float]:
        """Where a base of ``radius`` clicked at ``point`` goes (:func:`snap_point` with
        the zone of the player to act, the normal deployment only)."""
        s = self.setup
        assert s is not None
        return snap_point(s.zones.get(s.to_act or 0), point, radius, s.width, s.depth, normal=s.phase == "deploy")

    def ghost(self, point) -> Ghost | None:
        """What a click at ``point`` (inches) would place now, judged; None when a
        click places nothing in this phase."""
        s = self.setup
        if s is None or point is None:
            return None
        pt = (float(point[0]), float(point[1]))
        if s.phase == "terrain":
            step = Step("terrain", s.to_act or 0, preset=self.preset, point=pt, rotation=self.rotation)
            try:
                piece = preset_piece(self.preset, self.preset, pt, self.rotation)
            except ValueError:
                piece = None
            return Ghost("terrain", self.preset, pt, self.rotation, 0.0, tuple(s.refusals(step)), piece)
        if s.phase in ("deploy", "scouts") and self.selected is not None:
            r = s.recruit(self.selected)
            pt = self.snap(pt, r.radius)
            step = Step("deploy", s.to_act or 0, model=r.id, point=pt, facing=self.facing_at(pt))
            return Ghost("model", r.id, pt, self.facing_at(pt), r.radius, tuple(s.refusals(step)))
        return None

    def click(self, point) -> bool:
        """A click on the table at ``point`` (inches): place the preset (terrain
        phase) or deploy the selected model there. Returns whether it was taken."""
        s = self.setup
        if s is None or point is None:
            return False
        pt = (float(point[0]), float(point[1]))
        if s.phase == "terrain":
            return self._apply(Step("terrain", s.to_act or 0, preset=self.preset, point=pt, rotation=self.rotation),
                               f"player {s.to_act} places {self.preset}")
        if s.phase in ("deploy", "scouts") and self.selected is not None:
            who = self.selected
            pt = self.snap(pt, s.recruit(who).radius)
            return self._apply(Step("deploy", s.to_act or 0, model=who, point=pt, facing=self.facing_at(pt)),
                               f"player {s.to_act} deploys {who}")
        return False

    def stop_terrain(self) -> bool:
        """The player to place stops placing terrain (or declines the last piece)."""
        s = self.setup
        return s is not None and self._apply(Step("stop_terrain", s.to_act or 0), f"player {s.to_act} stops")

    def choose_zone(self, zone: str) -> bool:
        """The chooser takes deployment zone ``zone``."""
        s = self.setup
        return s is not None and self._apply(Step("zone", s.to_act or 0, zone=zone),
                                             f"player {s.to_act} takes the {zone} zone")

    def choose_first(self, first: int) -> bool:
        """The roll-off winner lets ``first`` deploy first."""
        s = self.setup
        return s is not None and self._apply(Step("first", s.to_act or 0, first=first),
                                             f"player {first} deploys first")

    def select(self, model: str | None) -> None:
        """Choose the model the next click deploys (one of the player's waiting models)."""
        self.selected = model
        self.facing_offset = 0.0
        self._changed()

    def _select_next(self) -> None:
        s = self.setup
        if s is None or s.phase not in ("deploy", "scouts") or s.to_act is None:
            self.selected = None
            return
        left = self.waiting()
        if self.selected not in {r.id for r in left}:
            self.selected = left[0].id if left else None
            self.facing_offset = 0.0

    def waiting(self) -> list[Recruit]:
        """The models the player to act still deploys (Scouts last in the normal
        deployment)."""
        s = self.setup
        if s is None or s.to_act is None:
            return []
        left = s.waiting(s.to_act)
        return sorted(left, key=lambda r: r.scout is not None) if s.phase == "deploy" else left

    def can_flank(self) -> bool:
        """Whether the selected model has the Flank trait and may be held back now."""
        s = self.setup
        if s is None or self.selected is None or s.phase not in ("deploy", "scouts"):
            return False
        try:
            return s.recruit(self.selected).flank
        except KeyError:
            return False

    def flank_options(self) -> list[tuple[int, str, tuple[Refusal, ...]]]:
        """The Flank choices of the selected model: ``(turn, edge, refusals)`` for every
        turn (2, 3, 4) and table edge (p.52), refusals empty when allowed (an edge wholly
        in the opponent's zone is refused with the reason); [] when it cannot Flank. For
        the screen's dialog: buttons for the allowed ones, the others greyed with their
        reasons."""
        s = self.setup
        if s is None or not self.can_flank() or s.to_act is None or self.selected is None:
            return []
        return [(t, e, tuple(why)) for t, e, why in s.flank_options(s.to_act, self.selected)]

    def flank(self, turn: int = FLANK_TURNS[0], edge: str = FLANK_EDGES[0]) -> bool:
        """Hold the selected model back to Flank: it arrives on ``turn`` (2, 3 or 4) from
        the table ``edge`` (p.52; both hidden from the opponent: the message names
        neither). Returns False (with every reason) when refused."""
        s = self.setup
        if s is None or self.selected is None:
            return False
        who = self.selected
        return self._apply(Step("flank", s.to_act or 0, model=who, turn=turn, edge=edge),
                           f"{who} is held back to Flank")

    def done(self) -> bool:
        """End the normal deployment, keeping the Scouts left back."""
        s = self.setup
        return s is not None and self._apply(Step("done", s.to_act or 0), f"player {s.to_act} keeps the Scouts back")

    def undo(self) -> bool:
        """Take back the last set-up step (or, with none, go back to the choices)."""
        s = self.setup
        if s is None:
            return False
        if not s.steps:
            self.screen, self.setup = "choose", None
            self._changed("back to the choices")
            return True
        last = s.undo()
        self.screen = "table"
        self._select_next()
        self._changed(f"took back: {last.kind.replace('_', ' ')}")
        return True

    # ------------------------------------------------------------------ reading
    def draw_table(self) -> Table | None:
        """The table to draw: the terrain (placed so far), the scenario's objectives as
        terrain, the models deployed so far."""
        s = self.setup
        if s is None:
            return None
        t = s.table()
        return Table(t.name, t.width, t.depth, s.terrain_with_objectives(), t.models, t.source)

    def zones_to_draw(self) -> list[tuple[int | None, Any, str]]:
        """``(player or None, shapely geometry, label)`` of the zones to draw: every
        option while the zone is chosen (None), the two players' zones after, and the
        Scout area of a selected Scout in the Scout deployment."""
        s = self.setup
        if s is None or s.fixed_models or s.roll is None and not s.zones:
            return []
        if not s.zones:
            return [(None, z.shape, z.id) for z in s.zone_options()]
        out: list[tuple[int | None, Any, str]] = [(p, z.shape, f"player {p}") for p, z in sorted(s.zones.items())]
        if s.phase == "scouts" and self.selected is not None and s.to_act is not None:
            r = s.recruit(self.selected)
            if r.scout is not None and r.scout[1] > 0:
                out.append((s.to_act, s.zones[s.to_act].scout_shape(r.scout[1], r.radius), "scout"))
        return out

    def hints(self) -> list[str]:
        """What to do now, in words (the side panel's text)."""
        s = self.setup
        if s is None:
            return ["Choose the table, the scenario and each side's warband, then Start."]
        ph, who = s.phase, s.to_act
        if ph == "roll_off":
            return ["Roll off: the Deployment Tactical test (p.20, p.28).",
                    "Its winner places the first terrain piece and decides who deploys first."]
        roll: list[str] = []  # the screen shows the roll-off on its own
        if ph == "terrain":
            last = " (one last piece, or stop)" if s.stopped_by is not None else ""
            return [*roll, f"Player {who}: place a terrain piece{last} (p.20, p.62).",
                    f"{len(s.pieces)} placed; from 6 on a player may stop.",
                    f"Preset: {self.preset}, turned {self.rotation:g} deg. Click the table."]
        if ph == "zone":
            return [*roll, f"Player {who}: choose a deployment zone ({s.deployment.replace('_', ' ')}, p.63)."]
        if ph == "first":
            return [*roll, f"Player {who} won the roll-off: who deploys first? (p.20 step 7)"]
        if ph in ("deploy", "scouts"):
            what = "Scout" if ph == "scouts" else "model"
            sel = f"Selected: {self.selected}." if self.selected else ""
            return [f"Player {who}: click the table to deploy each {what} in the zone (p.63).", sel,
                    f"{len(self.waiting())} left to deploy. q/e turn the model."]
        return ["Set-up done: the game starts."]

    def game(self, **kwargs: Any):
        """The :class:`~sim.rules.game.Game` of the finished set-up.

        Raises:
            SetupError: the set-up is not done.
        """
        if self.setup is None:
            raise SetupError(Refusal("phase", "the set-up has not started"))
        return self.setup.game(**kwargs)

    def facing_of(self, model: str) -> float | None:
        """The facing of a deployed model, or None."""
        s = self.setup
        if s is None or model not in s.placed:
            return None
        return float(s.placed[model].facing)

