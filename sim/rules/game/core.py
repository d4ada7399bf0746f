"""The :class:`Game`: a thin facade over the steps of a game of Bushido: Risen Sun
(General rules p.18-47), headless, seeded and replayable.

In the spirit of python-chess: a :class:`Game` knows its state (:attr:`Game.state`),
lists the legal actions of the player to move (:meth:`Game.legal_actions`), judges one
(:meth:`Game.is_legal`), applies one (:meth:`Game.push`), takes it back
(:meth:`Game.pop`), reads and sets a position (:meth:`Game.position`,
:meth:`Game.set_position`) and reports what happened as events (:meth:`Game.log`); it
saves and loads itself (:mod:`sim.rules.game.saves`).

The rules themselves live in one module per step, each a mixin of :class:`Game` that
works on the shared state and event log: the turn (:mod:`~sim.rules.game.turn`),
declaring and resolving an activation (:mod:`~sim.rules.game.activation`), the basic
actions, the melee step, the shooting step, Ki, the scenario step, the cards and
conditions, the offered actions and save/load. The action kinds are registered in
:data:`~sim.rules.game.actions.ACTION_KINDS`; the events in
:data:`~sim.rules.game.events.EVENT_KINDS`. Every roll names what it is for
(:class:`~sim.rules.dice.RollPurpose`), which the dice source receives.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import cast

from sim.rules import conditions
from sim.rules import scenario as scen
from sim.rules.dice import Dice, RollPurpose, SeededDice
from sim.rules.effects import effective_profile
from sim.rules.game.actions import ACTION_KINDS, Action
from sim.rules.game.activation import Activation
from sim.rules.game.answer_traits import AnswerTraits
from sim.rules.game.arrival_step import Arrival, ArrivalStep, arrival_of
from sim.rules.game.basic_actions import BasicActions
from sim.rules.game.cards import Cards
from sim.rules.game.damage_answers import DamageAnswers
from sim.rules.game.death_sentence import DeathSentenceChoice
from sim.rules.game.defiance import Defiance
from sim.rules.game.eagles_flight import EaglesFlight
from sim.rules.game.events import Event, apply_event
from sim.rules.game.intimidate_step import IntimidateStep
from sim.rules.game.ki_step import KiStep
from sim.rules.game.melee_step import MeleeStep
from sim.rules.game.offers import Offers
from sim.rules.game.part import ResumableDice
from sim.rules.game.position import compact_position, expand_position
from sim.rules.game.rolls_step import RollsStep
from sim.rules.game.saves import SaveLoad
from sim.rules.game.scenario_step import ScenarioStep
from sim.rules.game.shooting_step import ShootingStep
from sim.rules.game.special_cards import cards_at_start, checked_cards
from sim.rules.game.state import GameError, initial_state
from sim.rules.game.support_step import SupportStep
from sim.rules.game.tactical_step import TacticalChoice
from sim.rules.game.targeting import Targeting
from sim.rules.game.turn import TurnPhases
from sim.rules.game.turn_traits import TurnTraits
from sim.rules.game.values import finite, finite_point
from sim.rules.ki import KiError
from sim.table import Table


class _RollRecorder:
    """What the engine rolls with: the game's dice source (``dice()``, it may be replaced
    during a game), each value recorded in the roll list of the current action (the last
    list of ``rolls``). The purpose of each roll is handed on to the source, not recorded."""

    def __init__(self, dice: Callable[[], Dice], rolls: list[list[int]],
                 change: Callable[[list[int], RollPurpose | None], list[int]] | None = None) -> None:
        self.dice = dice
        self.rolls = rolls
        self.change = change

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """``n`` values from the game's dice for ``purpose``, recorded; then as the game
        counts them (``change``: cursed dice, sim.rules.game.feat_areas)."""
        values = list(self.dice().roll(n, purpose))
        self.rolls[-1].extend(values)
        return self.change(values, purpose) if self.change is not None else values


class Game(TurnPhases, Activation, BasicActions, MeleeStep, ShootingStep, KiStep, ScenarioStep, ArrivalStep, Cards,
           Offers, SaveLoad, Targeting, RollsStep, IntimidateStep, SupportStep, TurnTraits, AnswerTraits,
           TacticalChoice, DamageAnswers, Defiance, DeathSentenceChoice, EaglesFlight):
    """A game on a table with deployed warbands.

    Args:
        table: a loaded :class:`sim.table.Table` (player 1 and player 2 models).
        seed: seeds the dice (``SeededDice``); ignored when ``dice`` is given.
        dice: a dice source (e.g. :class:`~sim.rules.dice.PhysicalDice`).
        length: ``("fixed", N)`` or ``("variable", X)`` (Game length, p.63); default: the
            scenario's, else ``("variable", 5)``.
        scenario: a :class:`~sim.rules.scenario.Scenario`, or the name or path of a
            scenario file (``data/scenarios``); None plays without objectives (the game
            ends on turns or annihilation, the side with more models left wins).
        vims: for a VIM scenario, ``{side: model id}`` (the VIM of each side); default:
            each side's legal model with the highest rice (Nominated: the same model,
            as if the opponent chose the most valuable one).
        position: a position (:meth:`position`) to start from, in the spirit of
            python-chess's ``Board(fen)``: the game starts there (one ``position`` event)
            and no phase is played; without it the first turn's Starting phase is played
            on creation. A scenario game whose position has no ``scenario`` state gets the
            scenario's initial state (its VIMs from ``vims`` or the default choice).
        tournament: refuse manual adjustments (:meth:`adjust`) with a :class:`GameError`
            (the attribute :attr:`tournament` may be set later; a save carries it).
        elsewhere: the models of ``table`` held back by Flank (p.52), ``{model id:
            Arrival | (turn, edge[, zone]) | {"turn", "edge", "zone"}}``
            (:class:`~sim.rules.game.arrival_step.Arrival`): they start Elsewhere (p.5),
            off the table, and arrive along their edge in the Starting phase of their turn
            (``Action("arrive", ...)``). Their positions in ``table`` mean nothing; they
            are moved to the end of :attr:`table`'s models (:attr:`held_back`).
        cards: the warbands' special cards as facts (:mod:`sim.rules.game.special_cards`):
            enhancement grants become whole-game effects, the rest manual steps, when
            the game starts (p.14-18); kept as :attr:`card_facts` and by saves.

    Example, a position set up by hand, played on and read back:

        >>> from sim.table import load_table
        >>> table = load_table()
        >>> pos = Game(table, seed=7, length=("fixed", 2)).position()
        >>> pos["turn"], pos["phase"], pos["active"], pos["models"]["akira"]
        (1, 'main', 1, {'position': [12.0, 12.0], 'facing': 90.0, 'counters': 2, 'ki': 2})
        >>> pos["models"]["akira"].update(damage=4, conditions={"stunned": 1})
        >>> g = Game(table, seed=7, length=("fixed", 2), position=pos)
        >>> g.position() == pos
        True
        >>> g.log()
        ['Position set: turn 1, main phase, player 1 active']
        >>> _ = g.push(Action("wait", "akira"))    # Wait: the Stunned marker goes (p.25)
        >>> g.position()["models"]["akira"]
        {'position': [12.0, 12.0], 'facing': 90.0, 'damage': 4, 'counters': 1, 'ki': 2}

    Raises:
        GameError: a scenario that cannot be read or does not fit the table, a table
            feat the engine does not know, an ``elsewhere`` entry that names no model of
            the table or has a turn outside 1..7 or an unknown edge.
    """

    def __init__(self, table, seed: int | None = 0, dice: Dice | None = None,
                 length: tuple[str, int] | None = None, events: Iterable[Event] | None = None,
                 scenario=None, vims: dict | None = None, position: dict | None = None, tournament: bool = False,
                 elsewhere: dict | None = None, cards: list | None = None):
        #: The warbands' special cards as facts (:mod:`sim.rules.game.special_cards`, p.14-18).
        self.card_facts: list[dict] = checked_cards(cards, [m.id for m in table.models])
        #: The models held back by Flank when the game starts: ``{model id: Arrival}``.
        self.held_back: dict[str, Arrival] = {}
        for mid, value in (elsewhere or {}).items():
            if not any(m.id == mid for m in table.models):
                raise GameError(f"elsewhere: no model {mid!r} on the table "
                                f"(models: {', '.join(m.id for m in table.models)})")
            self.held_back[mid] = arrival_of(value, f"elsewhere[{mid!r}]")
        if self.held_back:  # the held-back models last: a save lists them apart and puts them back there
            models = tuple(m for m in table.models if m.id not in self.held_back) + \
                tuple(m for m in table.models if m.id in self.held_back)
            table = Table(table.name, table.width, table.depth, table.terrain, models, table.source)
        self.table = table
        #: Tournament mode: manual adjustments (:meth:`adjust`) are refused.
        self.tournament = bool(tournament)
        self.seed = seed
        self._dice = dice if dice is not None else SeededDice(seed)
        self._dice_replaced = False  # True once ``dice`` is set: the seed no longer tells the rolls
        #: The d6 values rolled: [0] on creation (set-up, Starting phase of turn 1), then one
        #: list per pushed action (a save carries them; :meth:`load` checks them).
        self._rolls: list[list[int]] = [[]]
        self._roller = _RollRecorder(lambda: self._dice, self._rolls, self.dice_changed)
        #: Whether this game was rebuilt by re-simulating a save (:meth:`load`).
        self.verified = False
        if isinstance(scenario, (str, os.PathLike)):
            try:
                scenario = scen.load_scenario(scenario, table.width, table.depth)
            except scen.ScenarioError as exc:
                raise GameError(str(exc)) from None
        self.scenario = scenario
        if length is None:
            length = scenario.length if scenario is not None else ("variable", 5)
        self.length = (str(length[0]), int(length[1]))
        self.state = initial_state(table)
        self._base = initial_state(table)  # the models as deployed: what a position leaves out
        for mid, arr in self.held_back.items():  # ... held back: Elsewhere (p.5)
            apply_event(self._base, Event("elsewhere", {"model": mid, **arr.to_json()}))
        self._vims = dict(vims) if vims else None
        self._cards: dict = {}  # model id -> profile card (or None)
        self._effective_cards: dict = {}  # (model id, its effects as JSON) -> effective card
        self._feats: dict = {}  # model id -> {name: Feat}
        self.events: list[Event] = []
        self._marks: list[int] = []  # event index before each pushed action
        self._dice_marks: list = []  # the dice state before each pushed action (seeded dice)
        self._memo: dict = {}  # (event count, what, args) -> result, for the current state
        self._actions: list[Action] = []
        self._legacy = False  # loaded unverified (Game.load(verify=False)): saved as it was
        for tm in table.models:
            try:
                self.feats(tm.id)
            except KiError as exc:
                raise GameError(f"{table.source or table.name}: models[id={tm.id}].feats: {exc}") from None
        if events is not None and position is not None:
            raise GameError("a game starts from its events or from a position, not both")
        if events is not None:
            for ev in events:
                self._emit(ev)
        elif position is not None:
            self.set_position(position)
        else:
            self._hold_back()
            for ev in cards_at_start(self):  # enhancement, event, theme, terrain cards (p.14-18; special_cards)
                self._emit(ev)
            self._traits_at_start()  # Disguise, Kumo (p.51; catalogue)
            if scenario is not None:
                self._setup_scenario()
            self._start_turn()

    @property
    def dice(self) -> Dice:
        """The dice source the engine rolls with. It may be replaced (e.g. by physical dice
        for a loaded game); every value rolled is recorded either way (:meth:`to_json`)."""
        return self._dice

    @dice.setter
    def dice(self, value: Dice) -> None:
        self._dice = value
        self._dice_replaced = True

    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions pushed so far (taken-back ones excluded), in order."""
        return tuple(self._actions)

    @property
    def rolls(self) -> tuple[tuple[int, ...], ...]:
        """The d6 values rolled, as recorded: ``rolls[0]`` on creation (set-up, the
        Starting phase of turn 1), then one tuple per pushed action (``rolls[k + 1]`` for
        ``actions[k]``, its events starting at ``action_marks[k]``), in the order rolled."""
        return tuple(tuple(r) for r in self._rolls)

    @property
    def action_marks(self) -> tuple[int, ...]:
        """For each pushed action (:attr:`actions`), the index in :attr:`events` where its
        events begin (manual edits between two actions belong to the earlier one)."""
        return tuple(self._marks)

    @property
    def seeded(self) -> bool:
        """True when every roll came from ``SeededDice(seed)`` created with the game (the
        seed alone then reproduces the game); False for physical or replaced dice."""
        return (not self._dice_replaced and type(self._dice) is SeededDice and self.seed is not None
                and self._dice.seed == self.seed)

    def _unmark(self) -> None:
        """Forget the mark of an action that was refused before it changed anything."""
        self._marks.pop()
        self._actions.pop()
        self._dice_marks.pop()
        self._rolls.pop()

    def _emit(self, ev: Event) -> Event:
        """Apply ``ev`` to the state and append it to the events: every change of the game
        passes here."""
        if self._memo:
            self._memo = {}  # every memoised answer is about the state before this event
        alive = [m for m in self.state.models.values() if m.alive] if ev.kind != "position" else []
        before = self.area_watch(ev)  # round 6 (F2): models coming into an Aura (feat_areas)
        apply_event(self.state, ev)
        self.events.append(ev)
        self.area_entered(ev, before)
        for m in alive:  # a model killed: triggered Ki feats (sim.rules.game.feat_triggers, p.46)
            if not m.alive:
                self.feat_kill_triggers(m.id)
        if ev.kind in ("wounds", "marker_damage", "exchange", "shot", "test", "phase", "move", "scenario", "activate",
                       "allocated"):  # allocated: round 6 (F5, after_exchange)
            self.feat_event_triggers(ev)  # wounded, exchange resolved, contact, Fear, start (feat_triggers)
        return ev

    def table_now(self):
        """The table as the game has it now: models where the state has them (the dead
        removed, Prone flagged) and the scenario's objectives that are still in play."""
        return self._table_now()

    def _table_now(self):
        """The table with the models where the game state has them (dead removed);
        built once per state."""
        key = (len(self.events), "table")
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._build_table_now()
        return got

    def _card_on_the_table(self, m, s, card, marks: tuple) -> dict:
        """What a model's effects change of its table model (its Move and the trait keywords
        the geometry and the movement read: Evasive, Lightfooted, Cloudwalk, Aware ...,
        sim.rules.effects), and the Move of a card that prints a variable Move: the catalogues'
        two such cards make X the current turn number, read as the rule of every ``Move X``
        (docs/rulings-project.md)."""
        eff = effective_profile(card, s.effects) if s.effects else card
        move = eff.move if eff.move is not None else float(max(1, self.state.turn))
        printed = {t.keyword for t in card.traits}
        kept = tuple(t for t in m.traits if t not in printed)  # the table's own marks (blind, Size words)
        traits = tuple(dict.fromkeys(tuple(t.keyword for t in eff.traits) + kept + marks))
        return {"move": float(move), "traits": traits}

    def _build_table_now(self):
        models = []
        for m in self.table.models:
            s = self.state.models[m.id]
            if not s.alive:
                continue
            m = self.form_table_model(m) if s.conditions else m  # round 6 (F5): Shapeshift's card (feat_cards)
            # Blind (LoS and ZoC only in BtB, p.43) and Disguised (its ZoC may be ignored, p.44) act
            # in the geometry and movement through the model's traits
            marks = tuple(c for c in ("blind", "disguised") if c in s.conditions and c not in m.traits)
            marks += self.feat_sight_marks(m.id)  # round 6 (F2): a LoS limit (Darkness, feat_areas)
            extra: dict = {"traits": m.traits + marks} if marks else {}
            card = self.printed_profile(m.id) if m.profile else None
            if card is not None and (s.effects or card.move is None):
                extra.update(self._card_on_the_table(m, s, card, marks))
            models.append(replace(m, position=s.position, facing=s.facing, prone="prone" in s.conditions,
                                  player=s.player, **extra))
        terrain = self.table.terrain + self._objective_pieces() + self.feat_terrain_pieces()  # Auras (feat_areas)
        if self.state.removed_terrain:  # Destructible pieces removed by a Wait (p.16)
            terrain = tuple(t for t in terrain if t.id not in self.state.removed_terrain)
        return Table(self.table.name, self.table.width, self.table.depth, terrain, tuple(models), self.table.source)

    # ------------------------------------------------------------ positions
    def position(self) -> dict:
        """The position now: a compact, serialisable description of the game state (plain
        JSON values; inches, degrees), in the spirit of python-chess's ``Board.fen()``.

        Keys: ``turn``, ``phase`` (``start``, ``main``, ``end``, ``over``), ``active`` (the
        player who activates, 1 or 2) and ``models`` are always written; ``first`` (the
        Tactical test's choice), ``last_turn``, ``pass_tokens`` and ``scores`` (``{"1": n,
        "2": n}``), ``result``, ``exchange`` (a melee exchange waiting for allocations),
        ``interception`` (a shot waiting for an interceptor), ``feat_usage``, ``auras``
        and ``scenario`` (the scenario state) only when they differ from
        :data:`POSITION_DEFAULTS`. ``models`` maps every model id to its entry:
        ``position`` ``[x, y]`` and ``facing`` always; ``damage``, ``counters``, ``ki``,
        ``conditions`` (name -> markers, a TN or a holder's id), ``markers`` (``bleed``,
        ``poison``, ``fire`` -> values), ``ammo`` (weapon -> tokens left), ``alive``, and
        the card's ``wounds``, ``ki_stat``, ``ki_limit`` only when they differ from the
        model as the table deploys it. The side a model fights for follows from its
        ``controlled`` condition (p.43).

        ``Game(table, position=p)`` and :meth:`set_position` set a position up;
        ``Game(table, position=g.position()).position() == g.position()`` (and the states
        are equal). The table, scenario, game length and dice are the game's inputs, not
        part of the position.
        """
        return compact_position(self.state, self._base)

    def set_position(self, position: dict) -> None:
        """Set the game to ``position`` (:meth:`position`; a key or model left out takes
        its default, a model as deployed), like python-chess's ``Board.set_fen``. No phase
        is played and the rules do not judge the position (``sim.rules.invariants`` does).

        The change is one ``position`` event: a take-back (:meth:`pop`) of an earlier
        action removes it, a replay applies it, and a save carries it as an input (a
        position set by hand), applied again when the save is loaded and verified. The
        actions pushed before stay in the history and the dice roll on from where they
        stand.

        Raises:
            GameError: ``position: ENTRY: PROBLEM`` for an unknown key or model, or a
                value of the wrong type or out of range; the game is unchanged.
        """
        default = None
        if self.scenario is not None and isinstance(position, dict) and "scenario" not in position:
            default = self._scenario_initial()[0].to_json()  # the scenario as it starts
        full = expand_position(position, self._base, default, has_scenario=self.scenario is not None)
        self._emit(Event("position", full))

    def gain_condition(self, model: str, name: str, n: int = 1, value=None) -> None:
        """An effect outside the engine's actions (a card effect the players apply, a
        lesson's set-up) gives ``model`` ``n`` markers of the condition ``name`` (p.43-45),
        as the engine's own effects do (:func:`sim.rules.conditions.gain_condition`):
        immunities respected, Berserk brings an Impetuous marker, Frightened keeps the
        highest TN (``value``), Controlled turns the model to the other side. Recorded as
        one ``position`` event (:meth:`set_position`).

        Raises:
            GameError: no such model; :class:`~sim.rules.conditions.ConditionError` for
                an unknown condition.
        """
        m = self.state.models.get(model)
        if m is None:
            raise GameError(f"no model {model!r} on the table")
        marks = self._marker_gain_events(model, name, n, value)
        if marks is not None:  # Bleed, Poisoned, On Fire: markers with a value (p.43-45)
            self._edit(marks)
            return
        new = conditions.gain_condition(conditions.from_model(m), name, n, value=value, immune=self._immunities(model))
        self._edit(self._condition_events(model, new))

    def wound(self, model: str, n: int) -> None:
        """An effect outside the engine's actions deals ``n`` wounds to ``model`` (p.38):
        it is killed when no box is left. Recorded as one ``position`` event
        (:meth:`set_position`).

        Raises:
            GameError: no such model.
        """
        if model not in self.state.models:
            raise GameError(f"no model {model!r} on the table")
        events = [Event("wounds", {"model": model, "n": n})] if n > 0 else []
        m = self.state.models[model]
        if n > 0 and not (m.kami or m.holds_at_zero) and min(m.wounds, m.damage + n) >= m.wounds:
            events.append(Event("killed", {"model": model}))
        self._edit(events)

    # ------------------------------------------------------------ manual adjustments
    def adjust(self, what: str, model: str, *, to=None, facing: float | None = None, condition: str | None = None,
               delta: int | None = None, value: int | None = None) -> Event:
        """A manual adjustment, as players make on a real table for a card effect the
        engine does not automate: one explicit ``adjust`` event (in the log, taken back
        with the action before it by :meth:`pop` or alone by :meth:`take_back_edit`,
        carried by a save and applied again when the save is loaded and verified).

        Args:
            what: ``"move"`` (``to`` = ``(x, y)`` inches inside the table, ``facing``
                degrees or None to keep it), ``"marker"`` (``condition``: a p.43-45
                condition name; ``delta`` markers added (> 0) or removed (< 0); ``value``:
                the X of Disguised/Frightened or a Bleed/Poison/Fire marker's value),
                ``"wounds"`` (``delta`` wounds dealt (> 0) or healed (< 0); a model with
                no box left is killed) or ``"ki"`` (``delta`` Ki tokens, kept within 0..Ki
                limit).
            model: the model's id (a living model).

        Returns:
            the ``adjust`` event.

        Raises:
            GameError: tournament mode (:attr:`tournament`), the game is over, no such
                living model, an unknown ``what`` or condition, a point outside the
                table or not finite, a ``delta`` that is not a non-zero whole number;
                the game is unchanged.
        """
        if self.tournament:
            raise GameError("manual adjustments are off in tournament mode")
        if self.is_over():
            raise GameError("the game is over")
        m = self.state.models.get(model) if isinstance(model, str) else None
        if m is None or not m.alive:
            raise GameError(f"no living model {model!r} on the table")
        data: dict = {"model": model, "what": what}
        if what == "move":
            if to is None or not finite_point(to):
                raise GameError(f"adjust move: the point must be (x, y), finite inches, got {to!r}")
            x, y = float(to[0]), float(to[1])
            if not (0 <= x <= self.table.width and 0 <= y <= self.table.depth):
                raise GameError(f"adjust move: ({x:g}, {y:g}) is off the table "
                                f"({self.table.width:g} x {self.table.depth:g} inches)")
            data["to"] = [x, y]
            if facing is not None:
                if not finite(facing):
                    raise GameError(f"adjust move: facing must be a finite number of degrees, got {facing!r}")
                data["facing"] = float(facing) % 360.0
        elif what in ("marker", "wounds", "ki"):
            if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
                raise GameError(f"adjust {what}: delta must be a whole number other than 0, got {delta!r}")
            data["delta"] = delta
            if what == "marker":
                name = conditions.canonical(str(condition)) if condition is not None else None
                if name is None:
                    raise GameError(f"adjust marker: unknown condition {condition!r} "
                                    f"(known: {', '.join(sorted(conditions.CONDITIONS))})")
                data["condition"] = name
                if value is not None:
                    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 99:
                        raise GameError(f"adjust marker: value must be a whole number 1..99, got {value!r}")
                    data["value"] = value
        else:
            raise GameError(f"adjust: unknown kind {what!r} (move, marker, wounds, ki)")
        return self._emit(Event("adjust", data))

    def adjust_event(self, data: dict) -> Event:
        """Apply a saved ``adjust`` event's data again (a verified load), through
        :meth:`adjust` and its checks.

        Raises:
            GameError: as :meth:`adjust`, or data that is not an adjustment.
        """
        if not isinstance(data, dict) or not isinstance(data.get("what"), str):
            raise GameError(f"an adjustment is an object with a string 'what', got {data!r}")
        keys = {"model", "what", "to", "facing", "condition", "delta", "value"}
        extra = sorted(set(data) - keys)
        if extra:
            raise GameError(f"adjust: unknown key {extra[0]!r}")
        model = data.get("model")
        if not isinstance(model, str):
            raise GameError(f"adjust: 'model' must be a model id, got {model!r}")
        return self.adjust(data["what"], model, to=data.get("to"), facing=data.get("facing"),
                           condition=data.get("condition"), delta=data.get("delta"), value=data.get("value"))

    def take_back_edit(self) -> Event:
        """Take back the last event when it is a manual adjustment (:meth:`adjust`) made
        after the last pushed action: the state is rebuilt without it.

        Raises:
            GameError: the last event is not such an adjustment.
        """
        if not self.events or self.events[-1].kind != "adjust":
            raise GameError("no manual adjustment to take back")
        ev = self.events[-1]
        keep = self.events[:-1]
        self._memo.clear()
        self.state = initial_state(self.table)
        self.events = []
        for e in keep:
            self._emit(e)
        return ev

    def _edit(self, events: list[Event]) -> None:
        """The state after ``events``, set as one ``position`` event."""
        st = copy.deepcopy(self.state)
        for ev in events:
            apply_event(st, ev)
        self.set_position(compact_position(st, self._base))

    def follow(self, events: Iterable[Event], action: Action | None = None, rolls: Iterable[int] = ()) -> None:
        """Apply ``events`` that another :class:`Game` emitted: this game is a *mirror*
        of a game played elsewhere (the network server's, :mod:`sim.net`), kept level
        with it from the events it sends. Nothing is judged and no die is rolled: the
        state moves on exactly as the events say (:func:`apply_event`). ``action`` (the
        action that caused them, when they come from one) and its ``rolls`` (the d6
        values, shown to both players) are recorded, so :attr:`actions` and
        :attr:`rolls` read as on the original; the mirror cannot :meth:`pop` them (the
        server owns the take-backs and sends a fresh state after one).

        Raises:
            GameError: an event that cannot be applied (an unknown model ...); the events
                before it stay applied, so a client rebuilds its mirror from a full state.
        """
        try:
            for ev in events:
                self._emit(ev)
        except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise GameError(f"an event cannot be applied to this mirror ({exc})") from None
        if action is not None:
            self._actions.append(action)
            self._rolls.append([int(v) for v in rolls])
            self._legacy = True  # saved as it was: the mirror's events are not re-simulated

    # ------------------------------------------------------------ queries
    def is_over(self) -> bool:
        """True once the End phase of the last turn has been played."""
        return self.state.phase == "over"

    def to_move(self) -> int | None:
        """The player who must decide now: while a melee exchange waits for allocations,
        the owner of the first model of the exchange that has not allocated (attacker
        first); otherwise the active player. None once the game is over."""
        st = self.state
        if self.is_over():
            return None
        ex = st.exchange
        if ex is not None:
            for mid in (ex["attacker"], ex["defender"]):
                if mid not in ex["allocations"]:
                    return st.models[mid].player
        if st.interception is not None:
            return st.models[st.interception["target"]].player
        answer = self.answer_player()  # Bodyguard: the target's player answers (answer_traits, p.49)
        if answer is not None:
            return answer
        trig = self.trigger_player()  # a triggered Ki feat waits (sim.rules.game.feat_triggers)
        return trig if trig is not None else st.active

    def is_legal(self, action: Action) -> tuple[bool, str]:
        """Whether ``action`` may be declared now, and why not (memoised until the state
        changes: a bot's check and the declaration share one verdict)."""
        key = (len(self.events), "legal", action)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._is_legal(action)
        return got

    def _is_legal(self, action: Action) -> tuple[bool, str]:
        """:meth:`is_legal` uncached: the answers out of turn (an interceptor, an allocation,
        an Instant/Active feat) and a pass judged by their kind; any other action must pass
        the checks of every declaration (:meth:`_declaring_refusal`) and then those of its
        kind (:data:`~sim.rules.game.actions.ACTION_KINDS`)."""
        st = self.state
        if self.is_over():
            return False, "the game is over"
        if action.kind == "intercept":  # the answer to a waiting shot (p.30)
            return ACTION_KINDS["intercept"].legal(self, None, action)
        if st.interception is not None:
            return False, "a shot waits for the target's player to assign an interceptor (or none)"
        if self.answers_pending():  # Bodyguard: the target's player answers first (answer_traits, p.49)
            return self.answer_legal(action)
        why = self.trigger_refusal(action) if st.exchange is None else None  # a triggered Ki feat waits
        if why:
            return False, why
        if st.exchange is None and action.kind in ("feat", "decline_feat", "feat_later") and self.triggers_pending():
            # the answer to the waiting trigger comes before any Starting phase choice, as offered
            trig = st.models.get(action.model or "")
            if trig is None or not trig.alive:
                return False, f"no model {action.model!r} on the table"
            return ACTION_KINDS[action.kind].legal(self, trig, action)
        if action.kind == "arrive":  # a Flank model placed in the Starting phase (p.52)
            return ACTION_KINDS["arrive"].legal(self, st.models.get(action.model or ""), action)
        if action.kind in ("fortune", "oni_rage", "group_fight", "cavalry", "defiance",
                           "death_sentence"):  # choices (p.43, p.50-55)
            return ACTION_KINDS[action.kind].legal(self, st.models.get(action.model or ""), action)
        if self.starting_choices_pending():
            return False, (f"player {st.active} first chooses for Fortune / Oni Rage, or the order of a Group's "
                           "exchanges (p.52, p.55)")
        if action.kind == "intimidate":  # a Starting phase choice (p.54)
            return ACTION_KINDS["intimidate"].legal(self, st.models.get(action.model or ""), action)
        if self.intimidate_pending():
            return False, f"the Starting phase: player {st.active} first chooses whom to Intimidate (p.54)"
        due = self.due_arrivals()
        if due:
            return False, (f"the Starting phase: player {st.active} first places {', '.join(due)} arriving from the "
                           "Flank (p.52)")
        why = self.command_refusal(action)  # a Command being carried out (p.50)
        if why:
            return False, why
        if action.kind == "pass":
            return ACTION_KINDS["pass"].legal(self, None, action)
        m = st.models.get(action.model or "")
        if m is None or not m.alive:
            return False, f"no model {action.model!r} on the table"
        answer = ACTION_KINDS.get(action.kind)
        if answer is not None and answer.timing == "answer":  # no activation: an allocation (p.33), an
            return answer.legal(self, m, action)  # Instant/Active feat (p.46), a trait's free step (p.50-59)
        why = self._declaring_refusal(m, action)
        if why:
            return False, why
        kind = ACTION_KINDS.get(action.kind)
        if kind is None:
            return False, f"unknown action {action.kind!r}"
        return kind.legal(self, m, action)

    # ------------------------------------------------------------ push/pop
    def push(self, action: Action) -> list[Event]:
        """Declare and resolve ``action`` for the active player; returns its events.

        A declared action that proves illegal reverts the model and costs one counter
        (p.24).

        A push is all or nothing: when the dice source fails part way (physical dice not
        given, :class:`~sim.rules.dice.DiceError`) or anything else raises, the action is
        taken back (:meth:`pop`) before the exception propagates, so the game is as it was.

        Raises:
            GameError: the game is over, or the action names no model of the active player.
            DiceError: the dice source failed; the game is unchanged.
        """
        if self.is_over():
            raise GameError("the game is over")
        n = len(self._marks)
        try:
            return self._push(action)
        except BaseException:
            if len(self._marks) > n:
                self.pop()
            raise

    def _push(self, action: Action) -> list[Event]:
        st = self.state
        start = len(self.events)
        self._marks.append(start)
        self._dice_marks.append(self._dice.snapshot() if hasattr(self._dice, "snapshot")  # compact (SeededDice)
                                else self._dice.state() if hasattr(self._dice, "state") else None)
        self._actions.append(action)
        self._rolls.append([])
        p = st.active
        kind = ACTION_KINDS.get(action.kind)
        if self.answers_pending() and not self.answer_legal(action)[0]:  # Bodyguard (answer_traits, p.49)
            self._unmark()
            raise GameError(self.answer_legal(action)[1])
        if kind is not None and kind.timing == "answer":  # an allocation, an interceptor, an Instant/Active feat
            kind.resolve(self, action)
            return self.events[start:]
        if st.exchange is not None or st.interception is not None:
            self._unmark()
            raise GameError("a melee exchange is waiting for allocations" if st.exchange is not None
                            else "a shot waits for the target's player to assign an interceptor (or none)")
        why = self.trigger_refusal(action)  # a triggered Ki feat waits (sim.rules.game.feat_triggers)
        if why:
            self._unmark()
            raise GameError(why)
        if st.due_arrivals():
            self._unmark()
            raise GameError(f"the Starting phase: {', '.join(self.due_arrivals())} must first arrive from the "
                            "Flank (p.52)")
        if self.intimidate_pending():
            self._unmark()
            raise GameError(f"the Starting phase: player {st.active} first chooses whom to Intimidate (p.54)")
        if self.starting_choices_pending():
            self._unmark()
            raise GameError(f"player {st.active} first chooses for Fortune / Oni Rage, or the order of a "
                            "Group's exchanges (p.52, p.55)")
        if kind is not None and kind.timing == "pass":
            kind.resolve(self, action)
        else:
            m = st.models.get(action.model or "")
            if m is None or m.player != p or not m.alive or m.exhausted:
                self._unmark()
                raise GameError(f"{action.model!r} cannot be activated by player {p} now")
            self._emit(Event("activate", {"player": p, "model": m.id, "action": str(action)}))
            ok, why = self.is_legal(action)
            self._group_start(m.id)  # Group: the card's models activate together (p.52)
            spent = 1
            if not ok:
                lost = self.illegal_declaration_cost(m.id)  # Exhausted when it could declare nothing (p.24)
                self._emit(Event("note", {"text": f"illegal action ({why}): reverted, "
                                                  + ("one counter lost" if lost == 1 else
                                                     f"it can declare no legal action: Exhausted ({lost} counters)")}))
                self._emit(Event("counter", {"model": m.id, "n": lost}))
            else:
                spent = self.action_counters(action)  # Banzai!: a Simple Charge (p.49)
                if self._before_resolve(m, action):
                    self._resolve(action)
                spent = self.fear_counter_cost(m.id, spent)  # a failed Fear test on contact: one (p.29)
                if st.models[m.id].alive:
                    self._emit(Event("counter", {"model": m.id, "n": spent}))
            if st.models[m.id].alive and "impetuous" in st.models[m.id].conditions:
                self._set_conditions(m.id, conditions.impetuous_after_action(conditions.from_model(st.models[m.id]),
                                                                              spent))
            self._after_action()
            self._command_done(m.id)  # a commanded model has acted (Command, p.50)
            self._cavalry_done(m.id, ok)  # Cavalry: a move after the action, its player's choice (p.50)
        if (not self.is_over() and st.exchange is None and st.interception is None and not self.interrupts_pending()
                and not self.answers_pending() and not self._group_step(p)):  # a Group's activation goes on (p.52)
            assert p is not None  # a player is active from the first Starting phase on
            self._next_active(3 - p)
        return self.events[start:]

    def pop(self) -> Action:
        """Take back the last pushed action (and everything it caused).

        Raises:
            GameError: nothing to take back.
        """
        if not self._marks:
            raise GameError("no action to take back")
        mark = self._marks.pop()
        action = self._actions.pop()
        dice = self._dice_marks.pop()
        self._rolls.pop()
        if dice is not None:  # recorded from dice with a state (SeededDice), which restore it
            cast(ResumableDice, self._dice).restore(dice)  # the same rolls come again: a take-back is no re-roll
        keep = self.events[:mark]
        self._memo.clear()
        self.state = initial_state(self.table)
        self.events = []
        for ev in keep:
            self._emit(ev)
        return action

    def log(self) -> list[str]:
        """The readable log: one line per event."""
        return [e.describe() for e in self.events]
