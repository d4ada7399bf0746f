"""The :class:`GameSetup`: from the players' choices to a ready
:class:`~sim.rules.game.Game` (Game Setup p.20, Terrain p.60-62, Deployment p.63).

A set-up is its choices (:class:`TableChoice`, a scenario, the two
:class:`~sim.rules.setup.warbands.WarbandChoice`) plus a list of explicit
:class:`Step` records, in the order of the rulebook:

1. ``roll_off``: the Deployment Tactical test (p.20 step 4a, p.28): one d6 each, the
   highest Tactician (X) of a warband adds X dice, the highest Scout X is added to the
   result (p.57), ties rolled again. Its winner places the first terrain piece and
   decides who deploys first.
2. ``terrain`` / ``stop_terrain`` (only on a table without terrain): the players place
   pieces alternately; once at least 6 stand, the player to place may stop, and the other
   may then place one last piece or stop too (p.20 step 4b). Every piece is judged by the
   set-up rules (p.62, rulings.md 9).
3. ``zone``: the player who stopped the terrain (the roll-off winner on a table whose
   terrain is fixed) chooses a deployment zone; the opponent takes the opposite one
   (p.20 step 4c, p.63).
4. ``first``: the roll-off winner decides who deploys first (p.20 step 7).
5. ``deploy`` / ``flank`` / ``done``: that player deploys every model, then the other;
   a Flank model may be held back instead (turn 2, 3 or 4 and a table edge, p.52: the
   built game holds it Elsewhere until it arrives, docs/rulings-project.md 50-53); a
   Scout may be kept back (``done``) and deployed after both players, within Y" of the
   zone -- if both players have Scouts, the roll-off winner deploys theirs second (p.57).

Every step is judged before it is applied (:meth:`GameSetup.refusals` lists every
reason with its page; :meth:`GameSetup.apply` raises :class:`SetupError` with them), and
the steps replay: :meth:`GameSetup.undo` takes the last one back, :meth:`to_dict` /
:meth:`from_dict` save and restore a set-up. A table that already places models (the
bundled default) has nothing to deploy: the set-up is done at once.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from sim.geometry import CONTACT, EPS
from sim.rules.dice import Dice, DiceError, PhysicalDice, RollPurpose, SeededDice, TacticalResult, tactical_test
from sim.rules.scenario import Scenario, ScenarioError, load_scenario, objective_pieces
from sim.table import Table, TableError, load_table, placement_problems
from terrain.pieces import TerrainPiece

from .reasons import (
    PAGE_DEPLOYMENT,
    PAGE_FLANK,
    PAGE_PLACEMENT,
    PAGE_SCOUT,
    PAGE_SETUP,
    PAGE_TACTICAL,
    Refusal,
    SetupError,
)
from .terrain import preset_piece, terrain_refusals
from .warbands import Recruit, WarbandChoice, choice_from_dict, game_cards, recruits
from .zones import EDGES, DeploymentZone, all_zone_shapes, edge_refusal, make_zone, zone_ids

FORMAT = "bushido-setup/1"
#: Fewest terrain pieces before a player may stop placing them (p.20 step 4b).
MIN_TERRAIN = 6
#: Turns a Flank model may arrive on (p.52).
FLANK_TURNS = (2, 3, 4)
#: Table edges a Flank model may arrive from (p.52).
FLANK_EDGES = EDGES
#: The kinds of :class:`Step`.
STEP_KINDS = ("roll_off", "terrain", "stop_terrain", "zone", "first", "deploy", "flank", "done")
#: The phases of a set-up, in order (:attr:`GameSetup.phase`).
PHASES = ("roll_off", "terrain", "zone", "first", "deploy", "scouts", "done")


# --------------------------------------------------------------------------- choices
@dataclass(frozen=True)
class TableChoice:
    """The table to play on: a table file (``path``) as it is, its terrain alone (the
    players deploy their warbands), or an empty table (the file's size, or ``width`` x
    ``depth`` without a file) whose terrain the players place.

    Attributes:
        path: a ``bushido-table/1`` file, or None.
        terrain: keep the file's terrain.
        models: keep the file's models (a table that places them skips deployment).
        width, depth: the size of a table without a file, inches.
    """

    path: str | None = None
    terrain: bool = True
    models: bool = True
    width: float = 24.0
    depth: float = 24.0

    @classmethod
    def file(cls, path: str | os.PathLike) -> "TableChoice":
        """The table of a file, terrain and models as the file has them."""
        return cls(str(path))

    @classmethod
    def terrain_of(cls, path: str | os.PathLike) -> "TableChoice":
        """The terrain of a file, without its models (the warbands are deployed)."""
        return cls(str(path), True, False)

    @classmethod
    def blank(cls, width: float = 24.0, depth: float = 24.0, like: str | os.PathLike | None = None) -> "TableChoice":
        """An empty table of ``width`` x ``depth`` inches, or of the size of the file
        ``like``."""
        return cls(str(like) if like is not None else None, False, False, float(width), float(depth))

    @property
    def label(self) -> str:
        """How a menu names the choice."""
        if self.path is None:
            return f"Empty table {self.width:g}\" x {self.depth:g}\""
        name = Path(self.path).stem
        if self.terrain and self.models:
            return f"{name}: as laid out"
        return f"{name}: its terrain" if self.terrain else f"{name}: empty table of its size"

    def load(self) -> Table:
        """The :class:`sim.table.Table` (without the terrain or models left out).

        Raises:
            SetupError: the file cannot be loaded (its one-line message), a size out of
                0-120".
        """
        if self.path is None:
            if not (0 < self.width <= 120 and 0 < self.depth <= 120):
                raise SetupError(Refusal("table", f"a table is 0 to 120 inches a side, not {self.width:g} x "
                                                  f"{self.depth:g}"))
            return Table("Empty table", float(self.width), float(self.depth))
        try:
            t = load_table(self.path)
        except TableError as exc:
            raise SetupError(Refusal("table", str(exc))) from None
        if self.terrain and self.models:
            return t
        name = t.name if self.terrain else f"{t.name} (empty)"
        return Table(name, t.width, t.depth, t.terrain if self.terrain else (), t.models if self.models else (),
                     t.source)

    def to_dict(self) -> dict:
        """JSON form (:meth:`GameSetup.from_dict` reads it back)."""
        return asdict(self)


@dataclass(frozen=True)
class Step:
    """One explicit set-up step (a record: a set-up is its choices and its steps).

    Attributes:
        kind: one of :data:`STEP_KINDS`.
        player: who takes it (1 or 2; the roll-off names nobody: 0).
        preset, point, rotation: ``terrain``: the preset, its centre (inches) and its
            rotation (degrees).
        zone: ``zone``: the zone id chosen (``south``, ``north-west`` ...).
        first: ``first``: the player who deploys first.
        model, point, facing: ``deploy``: the model id, its base centre and facing.
        model, turn, edge: ``flank``: the model held back, the turn and edge it arrives.
        dice: ``roll_off``: every d6 rolled, in order (filled when it is applied).
    """

    kind: str
    player: int = 0
    preset: str | None = None
    point: tuple[float, float] | None = None
    rotation: float = 0.0
    zone: str | None = None
    first: int | None = None
    model: str | None = None
    facing: float = 0.0
    turn: int | None = None
    edge: str | None = None
    dice: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        """JSON form: the kind, the player and the fields that are set."""
        out: dict[str, Any] = {"kind": self.kind, "player": self.player}
        for k in ("preset", "zone", "first", "model", "turn", "edge"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        if self.point is not None:
            out["point"] = [self.point[0], self.point[1]]
        if self.kind == "terrain":
            out["rotation"] = self.rotation
        if self.kind == "deploy":
            out["facing"] = self.facing
        if self.dice:
            out["dice"] = list(self.dice)
        return out

    @classmethod
    def from_dict(cls, doc: Any) -> "Step":
        """Read :meth:`to_dict`'s form.

        Raises:
            SetupError: not a mapping, an unknown kind or field, a value of the wrong type.
        """
        if not isinstance(doc, dict) or doc.get("kind") not in STEP_KINDS:
            raise SetupError(Refusal("step", f"a step is a mapping with kind one of {', '.join(STEP_KINDS)}"))
        extra = set(doc) - {"kind", "player", "preset", "point", "rotation", "zone", "first", "model", "facing",
                            "turn", "edge", "dice"}
        if extra:
            raise SetupError(Refusal("step", f"unknown field(s) {', '.join(sorted(map(str, extra)))}"))
        try:
            point = doc.get("point")
            pt = None if point is None else (_num(point[0]), _num(point[1]))
            if point is not None and len(point) != 2:
                raise ValueError("a point is [x, y]")
            return cls(kind=doc["kind"], player=_int(doc.get("player", 0)), preset=_opt_str(doc.get("preset")),
                       point=pt, rotation=_num(doc.get("rotation", 0.0)), zone=_opt_str(doc.get("zone")),
                       first=None if doc.get("first") is None else _int(doc["first"]),
                       model=_opt_str(doc.get("model")), facing=_num(doc.get("facing", 0.0)),
                       turn=None if doc.get("turn") is None else _int(doc["turn"]), edge=_opt_str(doc.get("edge")),
                       dice=tuple(_int(v) for v in doc.get("dice", ())))
        except (TypeError, ValueError, IndexError) as exc:
            raise SetupError(Refusal("step", f"{doc.get('kind')} step: {exc}")) from None


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"expected a finite number, not {v!r}")
    return float(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"expected a whole number, not {v!r}")
    return v


def _opt_str(v: Any) -> str | None:
    if v is not None and not isinstance(v, str):
        raise ValueError(f"expected text, not {v!r}")
    return v


class _Recorder:
    """The set-up's dice, each value recorded."""

    def __init__(self, dice: Dice) -> None:
        self.dice = dice
        self.values: list[int] = []

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """``n`` d6 values (1-6) from the wrapped dice, recorded in :attr:`values`.

        Raises:
            DiceError: as the wrapped dice (physical values missing or out of range).
        """
        values = list(self.dice.roll(n, purpose))
        self.values.extend(values)
        return values


@dataclass(frozen=True)
class RollOff:
    """The Deployment Tactical test: ``winner`` (1 or 2), every round as
    ``((dice of 1, final of 1), (dice of 2, final of 2))`` (ties first), and the
    modifiers: ``scout`` ``{player: X}`` and ``tactician`` ``{player: extra dice}``."""

    winner: int
    rounds: tuple[tuple[tuple[tuple[int, ...], int], tuple[tuple[int, ...], int]], ...]
    scout: dict
    tactician: dict

    def lines(self) -> list[str]:
        """The roll-off in words, one line a round."""
        out = []
        for i, ((d1, f1), (d2, f2)) in enumerate(self.rounds):
            tie = " (tie: rolled again)" if i < len(self.rounds) - 1 else f": player {self.winner} wins"
            out.append(f"player 1 rolls {list(d1)} -> {f1}, player 2 rolls {list(d2)} -> {f2}{tie}")
        return out


# --------------------------------------------------------------------------- the set-up
class GameSetup:
    """A set-up in progress, from the choices to a ready :class:`~sim.rules.game.Game`.

    Args:
        table: a :class:`TableChoice` (or a table file path: that table as it is).
        scenario: a :class:`~sim.rules.scenario.Scenario`, the name or path of a scenario
            file (``data/scenarios``), or None.
        warbands: ``{1: WarbandChoice, 2: WarbandChoice}``; required unless the table
            already places models (then it must be None).
        seed: seeds the roll-off's dice (a stream of its own) and the game's dice.
        dice: a dice source for the roll-off instead (e.g. physical dice).
        tournament: also apply the tournament terrain variant (3" spacing, p.62).

    Raises:
        SetupError: a table or scenario that cannot be loaded, a scenario that does not
            fit the table, missing or superfluous warbands.
    """

    def __init__(self, table: "TableChoice | str | os.PathLike", scenario: "Scenario | str | None" = None,
                 warbands: dict[int, WarbandChoice] | None = None, seed: int = 0, dice: Dice | None = None,
                 tournament: bool = False) -> None:
        self.choice = table if isinstance(table, TableChoice) else TableChoice.file(table)
        self.base_table = self.choice.load()
        w, d = self.base_table.width, self.base_table.depth
        if isinstance(scenario, (str, os.PathLike)):
            try:
                scenario = load_scenario(scenario, w, d)
            except ScenarioError as exc:
                raise SetupError(Refusal("scenario", str(exc))) from None
        self.scenario: Scenario | None = scenario
        self.seed = seed
        self.tournament = bool(tournament)
        self._dice_given = dice
        self.fixed_models = bool(self.base_table.models)
        self.fixed_terrain = bool(self.base_table.terrain)
        if self.fixed_models and warbands:
            raise SetupError(Refusal("warbands", f"table {self.base_table.name!r} already places the models; "
                                                 "choose an empty table to deploy warbands"))
        if not self.fixed_models and (not warbands or set(warbands) != {1, 2}):
            raise SetupError(Refusal("warbands", "choose a warband for each player (1 and 2)"))
        self.warbands: dict[int, WarbandChoice] = dict(warbands or {})
        self.recruits: list[Recruit] = recruits(self.warbands) if warbands else []
        if self.scenario is not None:
            from sim.rules.scenario import check_against_table

            issues = [i for i in check_against_table(self.scenario, self.base_table) if i.rule != "objective-model"]
            if self.fixed_models:
                issues = check_against_table(self.scenario, self.base_table)
            if issues:
                raise SetupError([Refusal(i.rule, i.message, "p.63") for i in issues], where="scenario")
        self._steps: list[Step] = []
        self._reset()

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        self._dice: Dice = self._dice_given if self._dice_given is not None else SeededDice(f"setup-{self.seed}")
        self.roll: RollOff | None = None
        self.pieces: list[TerrainPiece] = []
        self.stopped_by: int | None = None  # the player who stopped placing terrain
        self.terrain_over = self.fixed_terrain or self.fixed_models
        self.zones: dict[int, DeploymentZone] = {}
        self.first: int | None = None
        self.placed: dict[str, Any] = {}  # model id -> Model
        self.flanking: dict[str, tuple[int, str]] = {}
        self.finished: set[int] = set()  # players who ended their normal deployment

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps taken, in order."""
        return tuple(self._steps)

    @property
    def deployment(self) -> str:
        """The deployment kind: the scenario's, else ``baseline``."""
        return self.scenario.deployment if self.scenario is not None else "baseline"

    @property
    def width(self) -> float:
        """Table width, inches."""
        return self.base_table.width

    @property
    def depth(self) -> float:
        """Table depth, inches."""
        return self.base_table.depth

    def recruit(self, model_id: str) -> Recruit:
        """The recruit ``model_id``. Raises KeyError with the known ids."""
        for r in self.recruits:
            if r.id == model_id:
                return r
        raise KeyError(f"no model {model_id!r} to deploy (models: {', '.join(r.id for r in self.recruits)})")

    def _handled(self, r: Recruit) -> bool:
        return r.id in self.placed or r.id in self.flanking

    def waiting(self, player: int) -> list[Recruit]:
        """``player``'s models not yet deployed nor held back to Flank."""
        return [r for r in self.recruits if r.player == player and not self._handled(r)]

    def _scout_order(self) -> list[int]:
        """Players with Scouts left after the normal deployment, in the order they deploy
        them (p.57: with Scouts on both sides, the roll-off winner deploys theirs second)."""
        have = [p for p in (1, 2) if self.waiting(p)]
        if len(have) == 2 and self.roll is not None:
            return [3 - self.roll.winner, self.roll.winner]
        return have

    @property
    def phase(self) -> str:
        """Where the set-up stands: one of :data:`PHASES`."""
        if self.fixed_models:
            return "done"
        if self.roll is None:
            return "roll_off"
        if not self.terrain_over:
            return "terrain"
        if not self.zones:
            return "zone"
        if self.first is None:
            return "first"
        for p in (self.first, 3 - self.first):
            if p not in self.finished:
                return "deploy"
        return "scouts" if self._scout_order() else "done"

    @property
    def to_act(self) -> int | None:
        """The player whose step it is (None for the roll-off and when done)."""
        ph = self.phase
        if ph in ("roll_off", "done"):
            return None
        assert self.roll is not None
        if ph == "terrain":
            if self.stopped_by is not None:
                return 3 - self.stopped_by
            return self.roll.winner if len(self.pieces) % 2 == 0 else 3 - self.roll.winner
        if ph == "zone":
            return self.stopped_by if self.stopped_by is not None else self.roll.winner
        if ph == "first":
            return self.roll.winner
        if ph == "deploy":
            assert self.first is not None
            return self.first if self.first not in self.finished else 3 - self.first
        return self._scout_order()[0]

    @property
    def chooser(self) -> int | None:
        """The player who chooses the deployment zone, once known."""
        if self.roll is None or not self.terrain_over:
            return None
        return self.stopped_by if self.stopped_by is not None else self.roll.winner

    def zone_options(self) -> list[DeploymentZone]:
        """The zones the chooser may take (p.63)."""
        return [make_zone(self.deployment, z, self.width, self.depth) for z in zone_ids(self.deployment)]

    # ------------------------------------------------------------------ judging
    def refusals(self, step: Step) -> list[Refusal]:
        """Every reason ``step`` cannot be taken now, each with its page; empty when it
        can."""
        ph = self.phase
        if step.kind not in STEP_KINDS:
            return [Refusal("step", f"unknown step {step.kind!r} (steps: {', '.join(STEP_KINDS)})")]
        want = {"roll_off": ("roll_off",), "terrain": ("terrain",), "stop_terrain": ("terrain",), "zone": ("zone",),
                "first": ("first",), "deploy": ("deploy", "scouts"), "flank": ("deploy", "scouts"),
                "done": ("deploy",)}[step.kind]
        if ph not in want:
            return [Refusal("phase", f"the set-up is at its {ph.replace('_', '-')} step, not "
                                     f"{step.kind.replace('_', ' ')}", PAGE_SETUP)]
        if step.kind != "roll_off" and step.player != self.to_act:
            return [Refusal("not-your-turn", f"it is player {self.to_act}'s turn, not player {step.player}'s",
                            PAGE_SETUP)]
        return getattr(self, f"_judge_{step.kind}")(step)

    def _judge_roll_off(self, step: Step) -> list[Refusal]:
        """Typed values (physical dice) must decide the roll-off exactly: every value is a
        d6 face, and none is missing or left over (p.28)."""
        if not step.dice:
            return []
        if any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in step.dice):
            return [Refusal("dice", f"a d6 shows 1 to 6: {list(step.dice)}", PAGE_TACTICAL)]
        n1, n2 = self.roll_off_dice()
        scout = {p: max((r.scout[0] for r in self.recruits if r.player == p and r.scout), default=0) for p in (1, 2)}
        dice = PhysicalDice(step.dice)
        try:
            tactical_test(dice, scout[1], scout[2], tactician_1=n1 - 1, tactician_2=n2 - 1)
        except DiceError:
            more = (n1 + n2) - len(step.dice) % (n1 + n2)  # every round takes n1 + n2 values
            tie = " (the roll-off is tied: roll again)" if len(step.dice) >= n1 + n2 else ""
            return [Refusal("dice-needed", f"{more} more d6 needed{tie}: each round player 1 rolls {n1}, then player 2 "
                                           f"rolls {n2}", PAGE_TACTICAL)]
        if dice.remaining:
            return [Refusal("dice-left", f"the roll-off was decided with {len(step.dice) - dice.remaining} of the "
                                         f"{len(step.dice)} values typed", PAGE_TACTICAL)]
        return []

    def _terrain_piece(self, step: Step) -> TerrainPiece:
        n = sum(1 for p in self.pieces if p.preset == step.preset) + 1
        assert step.preset is not None and step.point is not None
        return preset_piece(step.preset, f"{step.preset}-{n}", step.point, step.rotation)

    def _judge_terrain(self, step: Step) -> list[Refusal]:
        if step.preset is None or step.point is None:
            return [Refusal("invalid", "a terrain step names a preset and a centre")]
        try:
            piece = self._terrain_piece(step)
        except ValueError as exc:
            return [Refusal("preset", str(exc), "p.60")]
        return terrain_refusals(piece, self.pieces, self.width, self.depth,
                                all_zone_shapes(self.deployment, self.width, self.depth), self.scenario,
                                self.tournament)

    def _judge_stop_terrain(self, step: Step) -> list[Refusal]:
        if len(self.pieces) < MIN_TERRAIN:
            return [Refusal("min-pieces", f"{len(self.pieces)} pieces placed; place at least {MIN_TERRAIN} before "
                                          "stopping", PAGE_SETUP)]
        return []

    def _judge_zone(self, step: Step) -> list[Refusal]:
        ids = zone_ids(self.deployment)
        if step.zone not in ids:
            return [Refusal("zone", f"{self.deployment.replace('_', ' ')} deployment has no zone {step.zone!r} "
                                    f"(zones: {', '.join(ids)})", PAGE_DEPLOYMENT)]
        return []

    def _judge_first(self, step: Step) -> list[Refusal]:
        if step.first not in (1, 2):
            return [Refusal("first", f"the player who deploys first is 1 or 2, not {step.first!r}", PAGE_SETUP)]
        return []

    def _own_waiting(self, step: Step) -> tuple[Recruit | None, list[Refusal]]:
        if step.model is None:
            return None, [Refusal("invalid", "name the model")]
        try:
            r = self.recruit(step.model)
        except KeyError as exc:
            return None, [Refusal("model", str(exc.args[0]))]
        if r.player != step.player:
            return r, [Refusal("not-yours", f"{r.id} belongs to player {r.player}", PAGE_SETUP)]
        if r.id in self.placed:
            return r, [Refusal("deployed", f"{r.id} is already deployed", PAGE_SETUP)]
        if r.id in self.flanking:
            return r, [Refusal("deployed", f"{r.id} is held back to Flank", PAGE_FLANK)]
        return r, []

    def _judge_deploy(self, step: Step) -> list[Refusal]:
        r, why = self._own_waiting(step)
        if why or r is None:
            return why
        if step.point is None or not all(math.isfinite(v) for v in (*step.point, step.facing)):
            return [Refusal("invalid", "a deployment needs a finite centre and facing")]
        return self.placement_refusals(r, step.point, step.facing)

    def placement_refusals(self, r: Recruit, point: tuple[float, float], facing: float = 0.0) -> list[Refusal]:
        """Every reason ``r`` may not be deployed with its base centre at ``point``
        (inches) now: outside its zone (p.63; a Scout in the Scout phase: beyond Y", p.57),
        off the table, overlapping another base, in Impassable terrain or an objective, in
        contact with an enemy model (Placement p.22)."""
        zone = self.zones.get(r.player)
        out: list[Refusal] = []
        if zone is None:
            return [Refusal("phase", "the deployment zones are not chosen yet", PAGE_SETUP)]
        if self.phase == "scouts":
            sc = r.scout
            out += zone.scout_refusals(point, r.radius, sc[1] if sc else 0.0)
        else:
            out += zone.refusals(point, r.radius)
        model = r.model(point, facing)
        probe = Table("probe", self.width, self.depth, tuple(self.terrain_with_objectives()),
                      tuple(self.placed.values()) + (model,))
        for p in placement_problems(probe, edge_tolerance=EPS, overlap_tolerance=EPS, impassable_tolerance=EPS):
            if p.model != r.id and p.other != r.id:
                continue
            if p.kind == "off-table":
                out.append(Refusal("off-table", f"the base reaches {p.amount:.3f}\" past the table edge",
                                   PAGE_PLACEMENT))
            elif p.kind == "overlap":
                other = p.other if p.model == r.id else p.model
                out.append(Refusal("overlap", f"the base overlaps the base of {other} by {p.amount:.3f}\"",
                                   PAGE_PLACEMENT))
            else:
                what = "objective" if (p.other or "").startswith("objective:") else "Impassable terrain"
                out.append(Refusal("impassable", f"the base stands {p.amount:.3f}\" inside {what} {p.other}",
                                   PAGE_PLACEMENT))
        for m in self.placed.values():
            if m.player != r.player:
                gap = math.dist(m.position, point) - m.radius - r.radius
                if -EPS <= gap <= CONTACT:
                    out.append(Refusal("enemy-contact", f"the base touches the enemy {m.id}; a model is not placed "
                                                        "in contact with an enemy", PAGE_PLACEMENT))
        return out

    def _judge_flank(self, step: Step) -> list[Refusal]:
        r, why = self._own_waiting(step)
        if why or r is None:
            return why
        out = []
        if not r.flank:
            out.append(Refusal("no-flank", f"{r.id} has no Flank trait", PAGE_FLANK))
        if step.turn not in FLANK_TURNS:
            out.append(Refusal("flank-turn", f"a Flank model arrives on turn 2, 3 or 4, not {step.turn!r}",
                               PAGE_FLANK))
        if step.edge not in FLANK_EDGES:
            out.append(Refusal("flank-edge", f"a Flank model arrives from a table edge ({', '.join(FLANK_EDGES)}), "
                                             f"not {step.edge!r}", PAGE_FLANK))
        else:
            edge_why = edge_refusal(step.edge, self.zones.get(3 - step.player), r.radius, self.width, self.depth)
            if edge_why is not None:
                out.append(edge_why)
        return out

    def flank_options(self, player: int, model: str) -> list[tuple[int, str, list[Refusal]]]:
        """Every ``(turn, edge, refusals)`` a Flank choice of ``model`` by ``player`` may
        name now (:data:`FLANK_TURNS` x :data:`FLANK_EDGES`), each with every reason it
        is refused (empty: allowed) -- for a dialog that offers the legal ones and greys
        the others (p.52)."""
        return [(t, e, self.refusals(Step("flank", player, model=model, turn=t, edge=e)))
                for t in FLANK_TURNS for e in FLANK_EDGES]

    def _judge_done(self, step: Step) -> list[Refusal]:
        left = self.waiting(step.player)
        not_scouts = [r.id for r in left if r.scout is None]
        if not_scouts:
            return [Refusal("models-left", f"deploy (or hold back to Flank) {', '.join(not_scouts)} first; only "
                                           "Scouts wait for the Scout deployment", PAGE_SCOUT)]
        return []

    # ------------------------------------------------------------------ applying
    def apply(self, step: Step) -> Step:
        """Take ``step`` (judged first). Returns the step as recorded (a roll-off with its
        dice).

        Raises:
            SetupError: every reason it cannot be taken (:meth:`refusals`).
        """
        why = self.refusals(step)
        if why:
            raise SetupError(why)
        step = getattr(self, f"_apply_{step.kind}")(step)
        self._steps.append(step)
        return step

    def _apply_roll_off(self, step: Step) -> Step:
        scout = {p: max((r.scout[0] for r in self.recruits if r.player == p and r.scout), default=0) for p in (1, 2)}
        tact = {p: max((r.tactician for r in self.recruits if r.player == p), default=0) for p in (1, 2)}
        rec = _Recorder(PhysicalDice(step.dice) if step.dice else self._dice)
        res: TacticalResult = tactical_test(rec, scout[1], scout[2], tactician_1=tact[1], tactician_2=tact[2])
        if step.dice and isinstance(self._dice, SeededDice):
            self._dice.roll(len(step.dice))  # keep the seeded stream where a fresh roll leaves it
        rounds = tuple(((tuple(a.rolled), a.final), (tuple(b.rolled), b.final)) for a, b in res.rounds)
        self.roll = RollOff(res.winner, rounds, scout, tact)
        return replace(step, player=0, dice=tuple(rec.values))

    def _apply_terrain(self, step: Step) -> Step:
        self.pieces.append(self._terrain_piece(step))
        if self.stopped_by is not None:
            self.terrain_over = True  # the other player's one last piece
        return step

    def _apply_stop_terrain(self, step: Step) -> Step:
        if self.stopped_by is None:
            self.stopped_by = step.player
        else:
            self.terrain_over = True  # the other player declines the last piece
        return step

    def _apply_zone(self, step: Step) -> Step:
        assert step.zone is not None
        mine = make_zone(self.deployment, step.zone, self.width, self.depth)
        self.zones = {step.player: mine,
                      3 - step.player: make_zone(self.deployment, mine.opposite, self.width, self.depth)}
        return step

    def _apply_first(self, step: Step) -> Step:
        self.first = step.first
        self._auto_finish()
        return step

    def _apply_deploy(self, step: Step) -> Step:
        assert step.model is not None and step.point is not None
        self.placed[step.model] = self.recruit(step.model).model(step.point, step.facing)
        self._auto_finish()
        return step

    def _apply_flank(self, step: Step) -> Step:
        assert step.model is not None and step.turn is not None and step.edge is not None
        self.flanking[step.model] = (step.turn, step.edge)
        self._auto_finish()
        return step

    def _apply_done(self, step: Step) -> Step:
        self.finished.add(step.player)
        self._auto_finish()
        return step

    def _auto_finish(self) -> None:
        """A player with nothing left to deploy has finished the normal deployment."""
        if self.first is None:
            return
        for p in (self.first, 3 - self.first):
            if p not in self.finished:
                if not self.waiting(p):
                    self.finished.add(p)
                else:
                    return

    # ------------------------------------------------------------------ verbs
    def roll_off(self, values: "list[int] | tuple[int, ...] | None" = None) -> RollOff:
        """Roll the Deployment Tactical test (ties rolled again): with the set-up's dice
        (seeded), or with ``values``, the d6 the players rolled on the table, in the order
        :meth:`roll_off_dice` gives (player 1's dice, then player 2's, round after round).

        Raises:
            SetupError: refused (``dice-needed``: the values end before the roll-off is
                decided, naming how many more; ``dice-left``: values left after it is;
                ``dice``: a value outside 1..6).
        """
        self.apply(Step("roll_off", dice=tuple(values) if values is not None else ()))
        assert self.roll is not None
        return self.roll

    def roll_off_dice(self) -> tuple[int, int]:
        """How many d6 player 1 and player 2 roll in each round of the roll-off: one,
        plus X for the highest Tactician (X) of the warband (p.28, p.58)."""
        tact = {p: max((r.tactician for r in self.recruits if r.player == p), default=0) for p in (1, 2)}
        return 1 + tact[1], 1 + tact[2]

    def place_terrain(self, player: int, preset: str, center: tuple[float, float], rotation: float = 0.0) -> Step:
        """Place a piece of ``preset`` centred at ``center``. Raises :class:`SetupError`."""
        return self.apply(Step("terrain", player, preset=preset, point=(float(center[0]), float(center[1])),
                               rotation=float(rotation)))

    def stop_terrain(self, player: int) -> Step:
        """Stop placing terrain (the other player may place one last piece, p.20 4b)."""
        return self.apply(Step("stop_terrain", player))

    def choose_zone(self, player: int, zone: str) -> Step:
        """Take deployment zone ``zone``; the opponent gets the opposite one."""
        return self.apply(Step("zone", player, zone=zone))

    def choose_first(self, player: int, first: int) -> Step:
        """The roll-off winner decides that ``first`` deploys first."""
        return self.apply(Step("first", player, first=first))

    def deploy(self, player: int, model: str, point: tuple[float, float], facing: float = 0.0) -> Step:
        """Deploy ``model`` with its base centre at ``point``, facing ``facing`` degrees."""
        return self.apply(Step("deploy", player, model=model, point=(float(point[0]), float(point[1])),
                               facing=float(facing)))

    def flank(self, player: int, model: str, turn: int, edge: str) -> Step:
        """Hold ``model`` back to Flank: it arrives on ``turn`` from ``edge`` (p.52)."""
        return self.apply(Step("flank", player, model=model, turn=turn, edge=edge))

    def done(self, player: int) -> Step:
        """End the normal deployment, keeping the Scouts left for the Scout deployment."""
        return self.apply(Step("done", player))

    def undo(self) -> Step:
        """Take back the last step (the set-up is replayed without it; seeded dice are
        rewound). Raises :class:`SetupError` when there is none."""
        if not self._steps:
            raise SetupError(Refusal("undo", "nothing to take back"))
        last = self._steps[-1]
        self._replay(self._steps[:-1])
        return last

    def _replay(self, steps: list[Step] | tuple[Step, ...]) -> None:
        self._steps = []
        self._reset()
        for i, s in enumerate(steps):
            try:
                self.apply(s)
            except SetupError as exc:
                raise SetupError(list(exc.reasons), where=f"steps[{i}] ({s.kind})") from None

    # ------------------------------------------------------------------ results
    def objectives(self) -> tuple[TerrainPiece, ...]:
        """The scenario's objectives as terrain pieces (empty without a scenario)."""
        return objective_pieces(self.scenario) if self.scenario is not None else ()

    def terrain(self) -> tuple[TerrainPiece, ...]:
        """The table's terrain: fixed by the file, or placed so far."""
        return tuple(self.base_table.terrain) + tuple(self.pieces)

    def terrain_with_objectives(self) -> tuple[TerrainPiece, ...]:
        """The terrain plus the objectives (where no base may stand)."""
        return self.terrain() + self.objectives()

    def table(self) -> Table:
        """The table as it stands: the terrain and the models deployed so far."""
        if self.fixed_models:
            return self.base_table
        models = tuple(self.placed[r.id] for r in self.recruits if r.id in self.placed)
        return Table(self.base_table.name, self.width, self.depth, self.terrain(), models, self.base_table.source)

    def game_scenario(self) -> Scenario | None:
        """The scenario as the game plays it: objectives and zones aligned ``player1``
        belong to the player of the southern zone (docs/setup.md), so when player 1
        deploys in the north the alignments are swapped."""
        s = self.scenario
        if s is None or not self.zones or self.zones[1].southern:
            return s
        swap = {None: None, 1: 2, 2: 1}
        return replace(s, objectives=tuple(replace(o, alignment=swap[o.alignment]) for o in s.objectives),
                       zones=tuple(replace(z, alignment=swap[z.alignment]) for z in s.zones))

    def game(self, **kwargs: Any):
        """The :class:`~sim.rules.game.Game` on the deployed table (``seed``, the
        scenario; ``kwargs`` go to ``Game``). The models held back to Flank
        (:attr:`flanking`) start Elsewhere (``Game(elsewhere=...)``: their turn, edge and
        the opponent's zone, which they may not arrive in) and arrive in the Starting phase
        of their turn (p.52); in the game's table they come after the deployed models, at
        the table's centre (a placeholder: a model Elsewhere is on no point of the table).
        The warbands' special cards go to the game as facts (``Game(cards=...)``,
        :func:`~sim.rules.setup.warbands.game_cards`).

        Raises:
            SetupError: the set-up is not done.
        """
        if self.phase != "done":
            raise SetupError(Refusal("phase", f"the set-up is at its {self.phase.replace('_', '-')} step",
                                     PAGE_SETUP))
        from sim.rules.game import Game

        kwargs.setdefault("seed", self.seed)
        table = self.table()
        elsewhere: dict[str, dict] = {}
        held = []
        for r in self.recruits:
            if r.id in self.flanking:
                turn, edge = self.flanking[r.id]
                opp = self.zones.get(3 - r.player)
                elsewhere[r.id] = {"turn": turn, "edge": edge, "zone": opp.id if opp is not None else None}
                held.append(r.model((self.width / 2, self.depth / 2), 0.0))
        if held:
            table = Table(table.name, table.width, table.depth, table.terrain, table.models + tuple(held),
                          table.source)
            kwargs["elsewhere"] = elsewhere
        cards = game_cards(self.warbands, self.recruits) if self.warbands else []
        if cards:  # enhancement, event, theme and terrain cards (p.14-18, special_cards)
            kwargs.setdefault("cards", cards)
        return Game(table, scenario=self.game_scenario(), **kwargs)

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict:
        """The set-up as a JSON mapping (``bushido-setup/1``): the choices and every step."""
        scen: Any = None
        if self.scenario is not None:
            scen = self.scenario.to_dict()
        return {"format": FORMAT, "table": self.choice.to_dict(), "scenario": scen,
                "warbands": {str(p): w.source for p, w in self.warbands.items()}, "seed": self.seed,
                "tournament": self.tournament, "steps": [s.to_dict() for s in self._steps]}

    @classmethod
    def from_dict(cls, doc: Any, dice: Dice | None = None) -> "GameSetup":
        """Restore a set-up saved by :meth:`to_dict`: the choices are rebuilt and every
        step replayed and judged again.

        Raises:
            SetupError: a wrong format, a choice that cannot be rebuilt, a step the rules
                refuse (the message names ``steps[i]``).
        """
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise SetupError(Refusal("format", f"a set-up is a mapping with format {FORMAT}"))
        try:
            t = doc["table"]
            choice = TableChoice(t.get("path"), bool(t.get("terrain", True)), bool(t.get("models", True)),
                                 float(t.get("width", 24.0)), float(t.get("depth", 24.0)))
            scenario = None
            if doc.get("scenario") is not None:
                from sim.rules.scenario import scenario_from_dict

                table = choice.load()
                scenario = scenario_from_dict(doc["scenario"], None, table.width, table.depth)
            wbs = {int(k): choice_from_dict(v) for k, v in (doc.get("warbands") or {}).items()}
            steps = [Step.from_dict(s) for s in doc.get("steps") or []]
            seed = doc.get("seed", 0)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, SetupError):
                raise
            raise SetupError(Refusal("format", f"bad set-up: {exc}")) from None
        setup = cls(choice, scenario, wbs or None, seed=seed, dice=dice, tournament=bool(doc.get("tournament")))
        setup._replay(steps)
        return setup

    def save(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_dict` as JSON to ``path`` atomically."""
        import json

        from sim.files import write_text_atomic

        write_text_atomic(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike, dice: Dice | None = None) -> "GameSetup":
        """Read a set-up written by :meth:`save`.

        Raises:
            SetupError: an unreadable file (one line naming it) or what :meth:`from_dict`
                raises.
        """
        import json

        from sim.files import FileProblem, read_text

        try:
            doc = json.loads(read_text(Path(path)))
        except FileProblem as exc:
            raise SetupError(Refusal("file", str(exc))) from None
        except ValueError as exc:
            raise SetupError(Refusal("file", f"{path}: not JSON ({exc})")) from None
        try:
            return cls.from_dict(doc, dice)
        except SetupError as exc:
            raise SetupError(list(exc.reasons), where=f"{path}: {exc.where}" if exc.where else str(path)) from None
