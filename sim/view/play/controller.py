"""The play controller: every decision of the game window, pure Python (no Panda3D).

The window (:mod:`sim.view.play`, DirectGUI on Panda3D) shows what this module says and
calls its input methods; the tests call the same methods. The engine
(:class:`~sim.rules.game.Game`) stays the only judge: the controller offers what
:meth:`Game.is_legal` allows, pushes through :meth:`Game.push` and reads the events.

* What a click on a model shows: its :class:`Card` and its action menu
  (:meth:`PlayController.menu`, :class:`MenuItem`: every kind of action, illegal ones
  greyed with every reason and its page).
* Composing an action (:meth:`~PlayController.choose`, :meth:`~PlayController.point`,
  :meth:`~PlayController.boost`): a :class:`Pending` with the live verdict; a Walk or
  Run destination within :data:`SNAP` of base contact with a model or of an objective's
  contact is snapped to the exact contact point. :meth:`~PlayController.confirm` pushes.
* The secret melee allocation (p.33): with two humans at one screen a hand-over screen
  comes before each allocation; a bot allocates silently (:meth:`~PlayController.bot_step`).
* The log (:class:`LogEntry`: every event in words with its page, allocations secret
  until the exchange reveals them) and the dice (:class:`DiceView`: every test as rolled).
* Undo (the last human decision and the bot moves after it; seeded dice rewound by
  :meth:`Game.pop`), save and load, the end-of-game summary, physical dice
  (:meth:`~PlayController.enter_dice`) and manual adjustments (explicit ``adjust``
  events, refused in tournament mode).

Inches and degrees, table coordinates (x right, y away from player 1). Rule pages
("p.24") refer to the Risen Sun rulebook.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from sim.cli.hotseat.screens import describe_event, revealed_allocations
from sim.geometry.primitives import heading
from sim.rules import conditions, movement
from sim.rules.bots import exchange_context, legal_splits, usable_specials
from sim.rules.bots.exchange import DIRECTED
from sim.rules.dice import DiceError, RollPurpose
from sim.rules.game import ACTION_KINDS, EVENT_KINDS, Action, Event, Game, GameError
from sim.rules.scenario import in_contact_with_objective
from sim.table import Table
from sim.view import drag
from sim.view.play import choices

Point = tuple[float, float]

#: A Walk or Run destination this close (inches, edge gap either way) to base contact
#: with another model or to an objective's contact is snapped to the exact contact point.
SNAP = 0.25

#: The event kinds the dice panel shows (:meth:`PlayController.dice`), with the notes of
#: a test taken (a Fear test on contact).
DICE_KINDS = ("tactical", "game_length", "exchange", "shot", "test")

_PAGE = re.compile(r"\bp\.\s?\d+(?:\s?[-–]\s?\d+)?(?:,\s?p\.\s?\d+(?:\s?[-–]\s?\d+)?)*")
_BRACKETS = re.compile(r"\[(\d(?:,\s*\d)*)\]")


@dataclass(frozen=True)
class Status:
    """The status bar: turn, phase, active player (None between turns), the player to
    move (an allocation or interceptor may be due from the other player), pass tokens
    by player, activation counters by model id, VP/SP by player, the scenario's
    objective lines ("" when none), whether the game is over and its result."""

    turn: int
    phase: str
    active: int | None
    to_move: int | None
    pass_tokens: dict[int, int]
    counters: dict[str, int]
    vp: dict[int, int]
    sp: dict[int, int]
    objectives: list[str]
    over: bool
    result: str | None

    def lines(self) -> list[str]:
        """Ready-to-show text lines (the first one: turn, phase, who moves)."""
        if self.over:
            first = f"Game over after turn {self.turn}: {self.result or ''}".rstrip(": ")
        else:
            first = f"Turn {self.turn}, {self.phase} phase; active player {self.active}"
            if self.to_move is not None and self.to_move != self.active:
                first += f"; player {self.to_move} to decide"
        out = [first, f"Pass tokens: player 1 {self.pass_tokens.get(1, 0)}, player 2 {self.pass_tokens.get(2, 0)}"]
        if self.vp or self.sp:
            out.append(f"VP {self.vp.get(1, 0)}-{self.vp.get(2, 0)}, SP {self.sp.get(1, 0)}-{self.sp.get(2, 0)}")
        if self.counters:
            out.append("Counters: " + ", ".join(f"{m} {n}" for m, n in self.counters.items()))
        out += [o for o in self.objectives if o]
        return out

    def bar_lines(self) -> list[str]:
        """The status bar's compact lines (a window has room for three): turn, phase,
        who moves; pass tokens, VP/SP and each objective's alignment ("west neutral,
        east player 1"); the activation counters."""
        full = self.lines()
        first = full[0]
        parts = [f"Pass tokens: player 1 {self.pass_tokens.get(1, 0)}, player 2 {self.pass_tokens.get(2, 0)}"]
        if self.vp or self.sp:
            parts.append(f"VP {self.vp.get(1, 0)}-{self.vp.get(2, 0)}, SP {self.sp.get(1, 0)}-{self.sp.get(2, 0)}")
        objs = [re.sub(r"^objective (\S+) \([^)]*\): ", r"\1 ", o).replace("objective ", "")
                for o in self.objectives if o]
        if objs:
            parts.append("Objectives: " + ", ".join(objs))
        out = [first, "   |   ".join(parts)]
        if self.counters:
            out.append("Counters: " + ", ".join(f"{m} {n}" for m, n in self.counters.items()))
        return out


@dataclass(frozen=True)
class Card:
    """A model's card: its stats as printed (``("Melee", "4")``), traits (name, automated
    by the engine?, a short note with its page), weapons (name, range text, specials
    text), Ki feats (name, cost/kind text), Ki ``(now, max)``, wounds ``(left, max)``,
    conditions (words) and activation counters left."""

    id: str
    name: str
    player: int
    stats: list[tuple[str, str]]
    traits: list[tuple[str, bool, str]]
    weapons: list[tuple[str, str, str]]
    feats: list[tuple[str, str]]
    ki: tuple[int, int]
    wounds: tuple[int, int]
    conditions: list[str]
    counters: int

    def lines(self) -> list[str]:
        """The card as text lines."""
        out = [f"{self.name} ({self.id}), player {self.player}",
               "  ".join(f"{k} {v}" for k, v in self.stats),
               f"Wounds {self.wounds[0]}/{self.wounds[1]}  Ki {self.ki[0]}/{self.ki[1]}  Counters {self.counters}"]
        if self.conditions:
            out.append("Conditions: " + ", ".join(self.conditions))
        for name, auto, note in self.traits:
            out.append(f"Trait {name}{'' if auto else ' (manual)'}: {note}")
        for name, rng, specials in self.weapons:
            out.append(f"Weapon {name} {rng}" + (f" - {specials}" if specials else ""))
        for name, cost in self.feats:
            out.append(f"Ki feat {name} ({cost})")
        return out


@dataclass(frozen=True)
class MenuItem:
    """One entry of a model's action menu.

    Attributes:
        key: the action kind (``walk``, ``run``, ``charge``, ``melee``, ``shoot``,
            ``disengage``, ``focus``, ``wait``, ``stand_up``, ``ki_feat``,
            ``complex_ki_feat``, ``feat``, ``scenario``, ``complex_scenario``, ``pass``,
            ``intercept``) -- the argument of :meth:`PlayController.choose`.
        label: what the button says ("Walk", "Charge kenta" ...).
        enabled: whether it may be declared now.
        reasons: when disabled, every reason, each with its page ("... (p.24)").
        needs: None (confirm at once), ``"point"`` (a destination on the table: a drag),
            ``"target"`` (choose one of ``options``), ``"direction"`` (a facing).
        options: ``(label, Action)`` choices (targets with TN/cover text, Wait options,
            feats with their targets ...), the legal ones only.
        refused: ``(label, reasons)`` of the choices that are not legal now (a target out
            of reach or out of sight ...), each reason with its page.
    """

    key: str
    label: str
    enabled: bool
    reasons: list[str] = field(default_factory=list)
    needs: str | None = None
    options: list[tuple[str, object]] = field(default_factory=list)
    refused: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass(frozen=True)
class Pending:
    """An action being composed before it is confirmed.

    Attributes:
        action: the :class:`Action` :meth:`PlayController.confirm` would push (None while
            incomplete: no destination or target yet).
        legal: :meth:`Game.is_legal`'s verdict on it.
        reasons: every reason it is refused, each with its page.
        text: the live verdict line (``Walk 3.20" of 5": legal``).
        path: the route to draw (inches), may be empty.
        model: the acting model; kind: the menu key.
        snapped: what the destination was snapped to (``"contact with kenta"``,
            ``"contact with objective west"``), or None.
        template: for an action that waits for a point (a Shoot with a declared Walk):
            the action :meth:`PlayController.point` completes.
    """

    action: object | None
    legal: bool
    reasons: list[str]
    text: str
    path: list[Point]
    model: str | None
    kind: str
    snapped: str | None = None
    template: object | None = None


@dataclass(frozen=True)
class LogEntry:
    """One event of the log: its index in ``game.events``, the event in words, its rule
    page ("p.33" or ""), the model ids involved (to highlight) and its kind."""

    index: int
    text: str
    page: str
    models: list[str]
    kind: str


@dataclass(frozen=True)
class DiceView:
    """One test as rolled, for the dice panel: a title ("Melee exchange akira vs
    masunagi"), its lines (pool, 1s removed, highest die, supporting dice, modifiers,
    TN or opposing total, Success Level, wound-table row/column, wounds dealt -- from
    the events' summaries), the d6 values rolled for it (may be empty) and the index of
    its event."""

    title: str
    lines: list[str]
    dice: list[list[int]]
    event: int


@dataclass(frozen=True)
class FeatArea:
    """What a Ki feat being composed covers, to draw on the table (p.46-47).

    Attributes:
        feat: the feat's name; area: ``personal``, ``target``, ``aura`` or ``pulse``.
        model: the user; centre: its base centre (x, y inches).
        range: the feat's X (inches, edge to edge; 0 for Personal).
        reach: the radius of the circle to draw round ``centre``: the user's base
            radius + X (a base whose edge is within X of the user's edge touches it).
        target: the chosen target (a Target feat), or None.
        inside: the models the area reaches now (Aura/Pulse: every model within X,
            the user first; Target: the enemies within X; Personal: the user).
        chosen: whether this is the feat of the action composed (else one of the
            options still offered).
    """

    feat: str
    area: str
    model: str
    centre: Point
    range: float
    reach: float
    target: str | None
    inside: list[str]
    chosen: bool


class DiceNeeded(Exception):
    """Raised by :class:`TypedDice` when the players have not typed enough values yet:
    ``n`` more are needed, for ``purpose``. Not a :class:`DiceError` (a ``ValueError``),
    which a rules step may take for a refused roll: it must reach the controller, which
    takes the half-played action back and asks for the values."""

    def __init__(self, n: int, purpose: RollPurpose | None) -> None:
        self.n = n
        self.purpose = purpose
        super().__init__(f"{n} more d6 value(s) needed for {purpose.label() if purpose else 'a roll'}")


class TypedDice:
    """Physical dice typed in the window: values are handed out in the order typed;
    when too few are left, :meth:`roll` raises :class:`DiceNeeded` (none consumed). Its
    place in the sequence can be read and set back (:meth:`state`, :meth:`restore`), so
    :meth:`Game.pop` rewinds it and a push interrupted for dice is retried with the same
    values once more are typed."""

    def __init__(self, values: list[int] | tuple[int, ...] = ()) -> None:
        self.values: list[int] = []
        self.next = 0
        self.feed(values)

    def feed(self, values) -> None:
        """Append typed values.

        Raises:
            DiceError: a value that is not a whole number 1..6 (nothing appended).
        """
        values = list(values)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
                raise DiceError(f"a d6 shows 1..6, got {v!r}")
        self.values.extend(values)

    @property
    def remaining(self) -> int:
        """Typed values not used yet."""
        return len(self.values) - self.next

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """The next ``n`` typed values.

        Raises:
            DiceNeeded: fewer than ``n`` are left.
        """
        if n > self.remaining:
            raise DiceNeeded(n - self.remaining, purpose)
        out = self.values[self.next:self.next + n]
        self.next += n
        return out

    def state(self) -> list:
        """Where the sequence stands: ``[index]``."""
        return [self.next]

    def restore(self, state) -> None:
        """Go back to ``state`` (:meth:`state`)."""
        self.next = int(state[0])

    def forget_unused(self) -> None:
        """Drop the values typed but not used (after a take-back: a new declaration asks
        for new rolls)."""
        del self.values[self.next:]


def make_bots(names: dict[int, str], seed: int = 0) -> dict[int, object]:
    """``{player: bot}`` from ``{player: name}`` (:data:`sim.rules.bots.BOTS`:
    ``greedy``, ``random``), each seeded with ``seed + player``.

    Raises:
        ValueError: an unknown bot name or a player other than 1 or 2.
    """
    from sim.rules.bots import BOTS
    out: dict[int, object] = {}
    for p, name in names.items():
        if p not in (1, 2):
            raise ValueError(f"bots are keyed by player 1 or 2, got {p!r}")
        if name not in BOTS:
            raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
        out[p] = BOTS[name](seed + p)
    return out


#: Pages of the refusals every declaration may meet, whatever its kind (p.24 Actions,
#: p.21 Main phase, p.33 the melee exchange).
DECLARING_PAGES = (("Exhausted", "p.24"), ("complex action", "p.24"), ("not the active player", "p.21"),
                   ("melee exchange is waiting", "p.33"), ("the game is over", "p.21"))


def with_pages(why: str, kind: str | None) -> list[str]:
    """Every reason of an engine verdict (``"; "``-joined) as a list, each with its
    rulebook page: kept when it names one, else the page of a refusal every declaration
    may meet (:data:`DECLARING_PAGES`), else the page of the action ``kind``
    (:data:`ACTION_KINDS`, e.g. ``(p.24)``)."""
    page = ACTION_KINDS[kind].page if kind in ACTION_KINDS else ""
    out = []
    for part in [p.strip() for p in (why or "").split("; ") if p.strip()] or ["not legal now"]:
        if _PAGE.search(part):
            out.append(part)
            continue
        own = next((pg for words, pg in DECLARING_PAGES if words in part), page)
        out.append(f"{part} ({own})" if own else part)
    return out


def move_reasons(res) -> list[str]:
    """The reasons of a :class:`~sim.rules.movement.MoveResult`, each with its ruling."""
    return [f"{r.message} ({r.ruling})" if r.ruling else r.message for r in res.reasons]


def _inches(v: float) -> str:
    return f'{v:.2f}"'


def _event_models(ev: Event) -> list[str]:
    """The model ids an event names (for highlighting)."""
    d = ev.data
    out: list[str] = []
    for key in ("model", "attacker", "defender", "target", "chosen", "source", "disengage"):
        v = d.get(key)
        if isinstance(v, str) and v not in out:
            out.append(v)
    for key in ("wounds", "positions", "facings", "gained", "counters", "markers", "gains"):
        v = d.get(key)
        if isinstance(v, dict):
            out += [k for k in v if isinstance(k, str) and k not in out]
    for v in d.get("removed", []) if isinstance(d.get("removed"), list) else []:
        if isinstance(v, str) and v not in out:
            out.append(v)
    return out


def _event_page(ev: Event) -> str:
    """The rule page of an event: its action's for an activation, else the one its
    kind's description names (:data:`EVENT_KINDS`), else one its text names."""
    if ev.kind == "activate":
        word = str(ev.data.get("action", "")).split(" ")[0]
        if word in ACTION_KINDS:
            return ACTION_KINDS[word].page
    kind = EVENT_KINDS.get(ev.kind)
    for text in ((kind.doc if kind else ""), str(ev.data.get("text", ""))):
        m = _PAGE.search(text)
        if m:
            return m.group(0)
    return ""


class PlayController:
    """Every decision of the game window over one :class:`Game`.

    Args:
        game: the game played.
        bots: ``{player: bot}`` for the players the bot plays (a ``sim.rules.bots`` bot:
            ``choose(game) -> Action``, see :func:`make_bots`); the others are humans.
        tournament: refuse manual adjustments (:class:`GameError`); sets
            ``game.tournament`` (a save carries it).
        humans_share_screen: two humans at one screen: a hand-over screen before each
            secret allocation.
        dice: ``"seeded"`` (the game's dice) or ``"physical"`` (the players type the
            values: :attr:`screen` ``"dice"``, :attr:`dice_request`, :meth:`enter_dice`;
            the game's rolls from now on are typed).
        remote: networked play (issue 14): the client of one seat, or of a spectator --
            an object with ``mirror`` (a :class:`sim.net.client.Mirror`: ``game``,
            ``seat``, ``status``, ``held``, ``undo_asked``, ``revealed``,
            ``my_decision()``), ``act(action, declare)``, ``send(message)`` and
            ``poll() -> list[dict]`` (the server's messages since the last call, applied
            to the mirror), as :class:`sim.net.client.ThreadedClient`. ``game`` is then
            the mirror's game and is never pushed into: a decision is sent to the server
            (:attr:`sent` until its verdict comes), :meth:`sync` takes in what the server
            sent; the only human is the client's seat (none for a spectator), no bots,
            no hand-over (each player at their own screen), the allocation screen when
            the seat may allocate (both players at once, p.33 step 5), undo asks the
            opponent (:meth:`undo`, :meth:`answer_undo`), no manual adjustments.

    Attributes:
        selected: the selected model id, or None.
        pending: the action being composed, or None.
        screen: ``"play"``, ``"handover"`` (the screen is hidden until
            :meth:`take_screen`), ``"allocate"`` (a secret allocation is due from
            :attr:`viewer`), ``"dice"`` (physical dice are asked for), ``"over"``.
        viewer: the player now at the screen; None while the hand-over is shown.
        version: bumps on every change of state (the window redraws when it changes).
        dice_request: ``(n, what for)`` while physical dice are asked for, else None.
        history: who decided each action of ``game.actions``: ``(player, by a bot)``
            (``(None, False)`` for actions loaded from a save).
        sent: with ``remote``: the action sent to the server whose verdict has not come
            yet (nothing else is offered meanwhile), else None.
        refusal: with ``remote``: the server's last refusal or notice (one line: an
            illegal action, a declined take-back, a lost connection), "" once read by
            :meth:`take_refusal`.

    Raises:
        ValueError: ``bots`` keyed by other than 1 or 2, or an unknown ``dice``; bots or
            physical dice with ``remote``, or a ``remote`` whose mirror has no game yet.
    """

    def __init__(self, game: Game, *, bots: dict[int, object] | None = None, tournament: bool = False,
                 humans_share_screen: bool = True, dice: str = "seeded", remote: object | None = None) -> None:
        if dice not in ("seeded", "physical"):
            raise ValueError(f"dice is 'seeded' or 'physical', got {dice!r}")
        self.remote = remote
        self.sent: Action | None = None
        self.refusal = ""
        if remote is not None:
            if bots or dice != "seeded":
                raise ValueError("a networked game has no bots in the window and the server's dice")
            if remote.mirror.game is not game:  # type: ignore[attr-defined]
                raise ValueError("a networked game's controller plays its mirror's game")
            humans_share_screen = False
        self.game = game
        self.bots = dict(bots or {})
        for p in self.bots:
            if p not in (1, 2):
                raise ValueError(f"bots are keyed by player 1 or 2, got {p!r}")
        self.tournament = bool(tournament or game.tournament)
        game.tournament = self.tournament
        self.humans_share_screen = humans_share_screen
        self.dice_mode = dice
        if dice == "physical" and not isinstance(game.dice, TypedDice):
            game.dice = TypedDice()
        self.selected: str | None = None
        self.pending: Pending | None = None
        self.screen = "play"
        self.viewer: int | None = None
        self.version = 0
        self.dice_request: tuple[int, str] | None = None
        self.history: list[tuple[int | None, bool]] = [(None, False)] * len(game.actions)
        self._waiting: tuple[Action, int | None, bool] | None = None  # a push interrupted for dice
        self._last: list[Event] = []
        self._boost = 0
        self._option: tuple[str, int | None] | None = None
        self._drag_cache: dict = {}
        self._epoch = 0  # bumps on every change of the game's state (the offers' cache key)
        self._offers: tuple[tuple, list[Action]] | None = None
        humans = self.humans()
        self.viewer = humans[0] if len(humans) == 1 else game.to_move() if game.to_move() in humans else None
        if game.state.exchange is not None and self._secret_handover():
            self.viewer = None
        self._update_screen()

    @classmethod
    def new_game(cls, table, *, seed: int | None = 0, length: tuple[str, int] | None = None, scenario=None,
                 vims: dict | None = None, dice: str = "seeded", setup_dice=(), **kw) -> "PlayController":
        """A new :class:`Game` on ``table`` (``seed``, ``length``, ``scenario``, ``vims``
        as :class:`Game`) and its controller (``kw`` as the constructor). With
        ``dice="physical"`` the rolls of the set-up (the Tactical test of turn 1 ...) are
        ``setup_dice``, the values the players typed.

        Raises:
            DiceNeeded: physical dice and too few ``setup_dice``: ``n`` more are needed
                (the set-up screen asks for them and calls again with all the values).
            GameError: as :class:`Game` (a scenario that cannot be read ...).
            DiceError: a set-up value outside 1..6.
        """
        if dice == "physical":
            typed = TypedDice(list(setup_dice))
            game = Game(table, seed=seed, dice=typed, length=length, scenario=scenario, vims=vims)
            typed.forget_unused()
        else:
            game = Game(table, seed=seed, length=length, scenario=scenario, vims=vims)
        return cls(game, dice=dice, **kw)

    # ------------------------------------------------------------ helpers
    def humans(self) -> list[int]:
        """The players the bots do not play (networked: the client's seat; none for a
        spectator)."""
        if self.remote is not None:
            seat = self.seat
            return [seat] if seat in (1, 2) else []
        return [p for p in (1, 2) if p not in self.bots]

    @property
    def seat(self) -> int | None:
        """Networked play: the client's seat (1, 2; None: a spectator). None otherwise."""
        return getattr(getattr(self.remote, "mirror", None), "seat", None)

    def _ctx(self):
        """The exchange context of the allocation due at this screen (networked: of the
        seat's own model, which may allocate while the other player does, p.33 step 5)."""
        return exchange_context(self.game, self.seat if self.remote is not None else None)

    def _changed(self, decided: bool = False) -> None:
        """The state changed (``decided``: a decision was pushed or taken back, so a
        secret allocation now due starts with the hand-over)."""
        self.version += 1
        self._epoch += 1
        self._drag_cache.clear()
        g = self.game
        if decided and self._secret_handover() and (g.state.exchange is not None or (
                g.state.interception is not None and g.to_move() != self.viewer)):
            self.viewer = None
        self._update_screen()

    def _secret_handover(self) -> bool:
        """Whether a secret allocation is handed over: two humans at one screen."""
        return self.humans_share_screen and len(self.humans()) == 2

    def _update_screen(self) -> None:
        g = self.game
        if self.remote is not None:
            self._remote_screen()
            return
        if self._waiting is not None:
            self.screen = "dice"
            return
        if g.is_over():
            self.screen = "over"
            return
        p = g.to_move()
        humans = self.humans()
        if p in humans and self.answer_window():  # an answer out of turn (Bodyguard, Sacrifice ...)
            self.screen, self.viewer = "play", p
            return
        if g.state.exchange is not None and p in humans:
            if self._secret_handover() and self.viewer != p:
                self.screen, self.viewer = "handover", None
            else:
                self.screen, self.viewer = "allocate", p
            return
        if g.state.interception is not None and p in humans and self._secret_handover() and self.viewer != p:
            # the target's player answers the shot (p.30 step 1d): the screen goes to them
            self.screen, self.viewer = "handover", None
            return
        self.screen = "play"
        if p in humans:
            self.viewer = p

    def _model(self, mid: str):
        m = self.game.state.models.get(mid)
        if m is None:
            raise GameError(f"no model {mid!r} on the table")
        return m

    # ------------------------------------------------------------ queries
    def status(self) -> Status:
        """The status bar now."""
        g = self.game
        st = g.state
        sc = g.scenario_state()
        vp = {p: sc.vp.get(p, 0) for p in (1, 2)} if sc is not None else {}
        sp = {p: sc.sp.get(p, 0) for p in (1, 2)} if sc is not None else {}
        objectives: list[str] = []
        if sc is not None and g.scenario is not None:
            for o in g.scenario.objectives:
                if o.id in sc.removed:
                    objectives.append(f"objective {o.id}: removed")
                    continue
                owner = sc.alignment.get(o.id)
                objectives.append(f"objective {o.id} ({o.position[0]:g}, {o.position[1]:g}): "
                                  + ("neutral" if owner is None else f"player {owner}"))
        return Status(st.turn, st.phase, st.active, g.to_move(), {p: st.pass_tokens.get(p, 0) for p in (1, 2)},
                      {m.id: m.counters for m in st.models.values() if m.alive}, vp, sp, objectives, g.is_over(),
                      st.result)

    def card(self, model: str) -> Card:
        """The card of ``model`` (any side).

        Raises:
            GameError: no such model.
        """
        from models.traits import trait_rule
        g = self.game
        m = self._model(model)
        prof = g.profile(model)
        tm = g.table.model(model)
        stats: list[tuple[str, str]] = []
        traits: list[tuple[str, bool, str]] = []
        weapons: list[tuple[str, str, str]] = []
        name = model
        if prof is not None:
            name = prof.name
            stats = [("Melee", str(prof.melee)), ("Ranged", "-" if prof.ranged is None else str(prof.ranged)),
                     ("Move", str(prof.move)), ("Ki", f"{prof.ki}/{prof.ki_limit}"), ("Wounds", str(prof.wounds)),
                     ("Size", prof.size), ("Base", f"{prof.base}mm")]
            for stat, cost in prof.boosts:
                stats.append((f"{stat.title()} boost", f"{cost} Ki"))
            for t in prof.traits:
                rule = trait_rule(t.keyword)
                if rule is None:
                    traits.append((t.text, False, "not a rulebook trait: apply by hand"))
                else:
                    traits.append((t.text, rule.status != "manual", f"{rule.summary} ({rule.status}, p.{rule.page})"))
            for w in prof.weapons:
                rng = ", ".join(f"{band} {a:g}-{b:g}\"" for band, (a, b) in w.range.items()) if w.range else "melee"
                strength = "" if w.strength is None else f"Strength {w.strength:+d}"
                specials = ", ".join([x for x in (strength, *w.traits, *w.special_attacks, *w.special_defences) if x])
                weapons.append((w.name, rng, specials))
        else:
            stats = [("Move", str(tm.move) if tm.move is not None else "-")]
        feats = []
        for fname, f in g.feats(model).items():
            timing = {"instant": "Instant", "active": "Active", "simple": "Simple", "complex": "Complex"}.get(
                f.timing, f.timing)
            rng = f", {f.range:g}\"" if f.range else ""
            feats.append((fname, f"{f.cost} Ki, {timing}, {f.area}{rng}"))
        conds = []
        for cname, v in sorted(m.conditions.items()):
            title = conditions.CONDITIONS[cname].title if cname in conditions.CONDITIONS else cname.replace("_", " ")
            conds.append(title if v in (1, True) else f"{title} {v}")
        for kind, values in sorted(m.markers.items()):
            if values:
                conds.append(f"{kind} {list(values)}")
        return Card(model, name, m.player, stats, traits, weapons, feats, (m.ki, m.ki_limit),
                    (m.wounds - m.damage, m.wounds), conds, m.counters)

    def model_at_active(self) -> list[str]:
        """The models of the player to move that may still act now (for an allocation:
        the model that allocates)."""
        g = self.game
        st = g.state
        p = g.to_move()
        if p is None:
            return []
        if st.exchange is not None:
            ctx = self._ctx()
            return [ctx.model] if ctx is not None else []
        if st.interception is not None:
            return list(st.interception["candidates"])
        if g.due_arrivals():  # Flank models waiting to be placed (off the table, p.52)
            return [mid for mid in g.due_arrivals() if st.models[mid].player == p]
        return [m.id for m in st.alive(p) if not m.exhausted and not st.impetuous_blocks(m)]

    def offers(self) -> list[Action]:
        """The engine's legal actions now (:meth:`Game.legal_actions`), kept until the
        game's state changes (a push, an undo, an adjustment, a load)."""
        g = self.game
        key = (self._epoch, len(g.events), len(g.actions))
        if self._offers is None or self._offers[0] != key:
            self._offers = (key, list(g.legal_actions()))
        return list(self._offers[1])

    def answer_window(self) -> bool:
        """Whether the engine waits for an answer out of turn that has no screen of its
        own (:func:`sim.view.play.choices.is_answer_window`): a Bodyguard swap (p.49), a
        Sacrifice (p.57), Eagle's Flight (p.41), a triggered Ki feat (p.46), a Starting
        phase choice (Fortune, Oni Rage, Intimidate, In Defiance of the Gods, Death
        Sentence ...). Its choices are :meth:`answer_items`, shown whatever is selected."""
        g = self.game
        if g.is_over() or g.state.interception is not None or g.due_arrivals():
            return False
        return choices.is_answer_window(self.offers())

    def _choice_item(self, kind: str, acts: list[Action], *, with_model: bool = True) -> MenuItem:
        """A menu item of the engine's choices ``acts`` of one ``kind`` (each option
        labelled with its card, feat or trait and page, :func:`choices.offer_label`); a kind
        whose point is a free destination (:data:`choices.POINT_KINDS`) waits for a drag
        when chosen without an option."""
        opts: list[tuple[str, object]] = [(choices.offer_label(a, with_model=with_model), a) for a in acts]
        label = choices.kind_name(kind)
        needs = "point" if kind in choices.POINT_KINDS and any(a.point is not None for a in acts) else "target"
        return MenuItem(kind, label, bool(opts), [], needs, opts)

    def answer_items(self) -> list[MenuItem]:
        """The choices of an answer window (:meth:`answer_window`), one item per kind; []
        when none waits or it is not a human's decision."""
        g = self.game
        if g.to_move() not in self.humans() or not self.answer_window():
            return []
        return [self._choice_item(k, acts) for k, acts in choices.group_offers(self.offers()).items()]

    def exchange_items(self) -> list[MenuItem]:
        """The choices besides the allocation of the model whose allocation is due (its
        Instant Ki feats during the exchange, p.33 step 4, p.46), for the allocating
        player at the screen; [] otherwise."""
        g = self.game
        if g.state.exchange is None or self.screen != "allocate" or g.to_move() not in self.humans():
            return []
        extra = [a for a in self.offers() if a.kind != "allocate"]
        return [self._choice_item(k, acts) for k, acts in choices.group_offers(extra).items()]

    def _extra_items(self, m, items: list[MenuItem]) -> list[MenuItem]:
        """The engine's offers for ``m`` (and the player's own choices) that the classic
        items do not show: their variants added to those items as options (a shot's
        special, a card's Wait option ...), every other kind as an item of its own (Jump
        Up, Cultist, Heal, Command, Order, Leech, Channel, Virtue, Pack, Cavalry, Group,
        the Tactical choice, Blood of Orochi ...)."""
        offers = [a for a in self.offers()
                  if a.model == m.id or a.kind in choices.PLAYER_KINDS or (a.model is None and a.kind != "pass")]
        by_key = {i.key: k for k, i in enumerate(items)}
        out = list(items)
        new: dict[str, list[Action]] = {}
        for a in offers:
            if a.kind in by_key:
                k = by_key[a.kind]
                item = out[k]
                if a.kind in ("walk", "run"):
                    continue
                shown = [x for _l, x in item.options if isinstance(x, Action)]
                if any(x == a or (x.kind == a.kind and replace(x, boost=None) == replace(a, boost=None))
                       for x in shown):
                    continue
                if item.enabled and a.kind in ("wait", "pass", "focus") and a == Action(a.kind, a.model):
                    continue
                # the engine offers it: the item offers it too (a friendly target of a feat, a
                # special of a shot, the Wait of a model that can declare nothing else, p.24)
                opt = (choices.offer_label(a, with_model=False), a)
                out[k] = replace(item, enabled=True, options=item.options + [opt], needs=item.needs or "target")
            elif a.kind not in choices.CLASSIC_KINDS:
                new.setdefault(a.kind, []).append(a)
        extra = [self._choice_item(k, acts, with_model=k in choices.PLAYER_KINDS) for k, acts in new.items()]
        return out[:-1] + extra + out[-1:] if out and out[-1].key == "pass" else out + extra

    def _acting(self, mid: str) -> bool:
        g = self.game
        m = g.state.models.get(mid)
        return (m is not None and m.alive and not g.is_over() and g.state.exchange is None
                and g.state.interception is None and m.player == g.state.active and g.to_move() in self.humans())

    def menu(self, model: str | None = None) -> list[MenuItem]:
        """The action menu of ``model`` (default: the selected one): every kind of action
        it could declare, illegal ones disabled with every reason and page; [] for an
        enemy model, a dead one, or while it is not its player's decision. While a shot
        waits for an interceptor, the interception choices (any model); [] while an action
        sent to the server (networked play) awaits its verdict."""
        g = self.game
        st = g.state
        if self.sent is not None:  # networked: nothing more until the server judged what was sent
            return []
        if st.interception is not None and g.to_move() in self.humans() and self.screen == "play":
            return [self._intercept_item()]
        answers = self.answer_items()
        if answers:  # an answer out of turn: its choices whatever is selected
            return answers
        if st.exchange is not None:
            return self.exchange_items()
        if g.due_arrivals():  # the Starting phase waits for the Flank arrivals (p.52)
            mid = model or self.selected
            if mid is None or mid not in g.due_arrivals() or g.to_move() not in self.humans():
                return []
            return [self._arrive_item(st.models[mid])]
        mid = model or self.selected
        if mid is None or not self._acting(mid):
            return []
        m = st.models[mid]
        items = [self._move_item(m, "walk"), self._move_item(m, "run"), self._charge_item(m),
                 self._target_item(m, "melee"), self._shoot_item(m), self._target_item(m, "disengage"),
                 self._simple_item(m, "focus", "Focus"), self._wait_item(m),
                 self._simple_item(m, "stand_up", "Stand Up")]
        items += self._feat_items(m)
        items += self._scenario_items(m)
        items.append(self._pass_item())
        return self._extra_items(m, items)

    def _verdict(self, a: Action) -> tuple[bool, list[str]]:
        ok, why = self.game.is_legal(a)
        return ok, ([] if ok else with_pages(why, a.kind))

    def _declaring(self, m, kind: str) -> list[str]:
        """Reasons every action of ``kind`` is refused for ``m`` whatever its target or
        point (counters, conditions ...), judged on a representative action."""
        probe = Action(kind, m.id, point=m.position if kind in ("walk", "run") else None)
        ok, why = self.game.is_legal(probe)
        if ok:
            return []
        if kind in ("walk", "run"):
            res = self._move_check(m.id, kind, m.position, None, 0)
            if res is not None and not res.legal:
                return []  # a reason of the place, not of the model
        generic = ("Exhausted", "complex action", "Impetuous", "Berserk", "exchange", "active player", "Prone",
                   "Held", "Stunned", "may not", "cannot declare", "forbid", "only")
        return with_pages(why, kind) if any(w in why for w in generic) or kind in ("walk", "run") else []

    def _move_item(self, m, kind: str) -> MenuItem:
        reasons = self._declaring(m, kind)
        return MenuItem(kind, kind.title(), not reasons, reasons, "point")

    def _simple_item(self, m, kind: str, label: str) -> MenuItem:
        ok, reasons = self._verdict(Action(kind, m.id))
        opt = Action(kind, m.id)
        return MenuItem(kind, label, ok, reasons, None, [(label, opt)] if ok else [])

    def _wait_item(self, m) -> MenuItem:
        opts = conditions.removed_by_wait(conditions.from_model(m))
        ok, reasons = self._verdict(Action("wait", m.id))
        if not ok:
            return MenuItem("wait", "Wait", False, reasons)
        if len(opts) <= 1:
            a = Action("wait", m.id)  # the one option, which the engine takes by default
            label = f"Wait ({opts[0].label})" if opts else "Wait"
            return MenuItem("wait", label, True, [], None, [(label, a)])
        options: list[tuple[str, object]] = [(f"Wait: {o.label}", Action("wait", m.id, special=o.key)) for o in opts]
        return MenuItem("wait", "Wait", True, [], "target", options)

    def _enemies(self, m) -> list:
        return [e for e in self.game.state.alive(3 - m.player)]

    def _edge(self, a: str, b: str) -> float:
        t = self.game.table_now()
        ma, mb = t.model(a), t.model(b)
        return math.dist(ma.position, mb.position) - ma.radius - mb.radius

    def _target_item(self, m, kind: str) -> MenuItem:
        """Melee or Disengage: one option per enemy that may be targeted; the others
        refused with the reason (out of Move, not in base contact ...)."""
        label = {"melee": "Melee", "disengage": "Disengage"}[kind]
        gen = self._declaring(m, kind)
        if gen:
            return MenuItem(kind, label, False, gen, "target")
        move = self.game.table_now().model(m.id).move or 0
        options: list[tuple[str, object]] = []
        refused: list[tuple[str, list[str]]] = []
        for e in self._enemies(m):
            gap = self._edge(m.id, e.id)
            if kind == "melee" and gap > move + 1e-9:
                refused.append((e.id, [f"{e.id} is {_inches(gap)} away, beyond Move {move:g}\" (p.24)"]))
                continue
            if kind == "disengage" and gap > movement.CONTACT + 1e-9:
                refused.append((e.id, [f"{m.id} is not in base contact with {e.id} (p.24)"]))
                continue
            a = Action(kind, m.id, target=e.id)
            ok, reasons = self._verdict(a)
            if ok:
                options.append((f"{label} {e.id}", a))
            else:
                refused.append((e.id, reasons))
        reasons = [] if options else [f"{lbl}: {r}" for lbl, rs in refused for r in rs] or \
            [f"no enemy on the table ({ACTION_KINDS[kind].page})"]
        return MenuItem(kind, label, bool(options), reasons, "target", options, refused)

    def _charge_item(self, m) -> MenuItem:
        """Charge: an option per enemy the Charge reaches (base contact); the others
        refused: beyond 2 x Move + 2", or the charge stops short (docs/rulings-project.md)."""
        g = self.game
        gen = self._declaring(m, "charge")
        if gen:
            return MenuItem("charge", "Charge", False, gen, "target")
        close = {e.id for e in g.charge_candidates(m.id)}
        move = g.table_now().model(m.id).move or 0
        options: list[tuple[str, object]] = []
        refused: list[tuple[str, list[str]]] = []
        for e in self._enemies(m):
            if e.id not in close:
                refused.append((e.id, [f"{e.id} is {_inches(self._edge(m.id, e.id))} away, beyond a Charge of "
                                       f"2 x Move {move:g}\" (+2\" Ideal terrain) (p.24)"]))
                continue
            a = Action("charge", m.id, target=e.id, boost=self._boost or None)
            ok, reasons = self._verdict(a)
            if not ok:
                try:  # the movement's own reasons carry their rulings
                    res = g.charge(m.id, e.id, boost=self._boost)
                    reasons = move_reasons(res) if not res.legal and res.reasons else reasons
                except (movement.MoveError, ValueError):
                    pass
                refused.append((e.id, reasons))
                continue
            res = g.charge(m.id, e.id, boost=self._boost)
            if not res.reached:
                why = move_reasons(res) or []
                refused.append((e.id, [f"the Charge does not reach {e.id}: it stops after {_inches(res.cost)} "
                                       f"(p.24)"] + why))
                continue
            options.append((f"Charge {e.id} ({_inches(res.cost)})", a))
        reasons = [] if options else [f"{lbl}: {r}" for lbl, rs in refused for r in rs] or \
            ["no enemy on the table (p.24)"]
        return MenuItem("charge", "Charge", bool(options), reasons, "target", options, refused)

    def _shoot_item(self, m) -> MenuItem:
        """Shoot: an option per enemy in range and sight, labelled with the weapon, the
        target number and cover; the others refused with the reason (no LoS ...)."""
        g = self.game
        weapon = g.ranged_weapon(m.id, None)
        if weapon is None:
            return MenuItem("shoot", "Shoot", False, [f"{m.id} has no ranged weapon (p.25, p.30)"], "target")
        gen = self._declaring(m, "shoot")
        if gen:
            return MenuItem("shoot", "Shoot", False, gen, "target")
        from sim.rules.bots import shot_target_number
        scene = g.table_now().scene()
        options: list[tuple[str, object]] = []
        refused: list[tuple[str, list[str]]] = []
        for e in self._enemies(m):
            a = Action("shoot", m.id, target=e.id, boost=self._boost or None)
            ok, reasons = self._verdict(a)
            if not ok:
                refused.append((e.id, reasons))
                continue
            try:
                cover = scene.cover(m.id, e.id).cover
                tn = shot_target_number(g, scene, m.id, e.id, weapon, cover=cover)
            except Exception:  # noqa: BLE001 - the label is a help; the engine judges the shot
                cover, tn = False, None
            extra = ", ".join(x for x in (weapon.name, f"TN {tn}" if tn is not None else "",
                                          "cover" if cover else "") if x)
            options.append((f"Shoot {e.id} ({extra})", a))
        # the Ranged Attack action may declare a Walk before or after the shot (p.25):
        # offered as options that wait for the Walk's destination (:meth:`point`)
        reach = (g.table_now().model(m.id).move or 0) + max((b for _, b in weapon.range.values()), default=0)
        walks: list[tuple[str, object]] = []
        for lbl, now in list(options):
            assert isinstance(now, Action)
            walks.append((f"{lbl}, then Walk", replace(now, walk="after")))
        for e in self._enemies(m):
            if any(isinstance(x, Action) and x.target == e.id for _, x in options):
                continue
            if self._edge(m.id, e.id) <= reach + 1e-9:
                walks.append((f"Walk, then shoot {e.id}", Action("shoot", m.id, target=e.id, walk="before",
                                                                 boost=self._boost or None)))
        options += walks
        reasons = [] if options else [f"{lbl}: {r}" for lbl, rs in refused for r in rs] or \
            ["no enemy on the table (p.25)"]
        return MenuItem("shoot", "Shoot", bool(options), reasons, "target", options, refused)

    def _feat_items(self, m) -> list[MenuItem]:
        """One item per kind of Ki feat action the card has (Simple ``ki_feat``, Complex
        ``complex_ki_feat``, Instant/Active ``feat``), its options the feats (with their
        targets) that are legal now."""
        g = self.game
        feats = g.feats(m.id)
        if not feats:
            return []
        by_kind: dict[str, tuple[list, list]] = {}
        offered = {(a.feat, a.target): a for a in g.feat_actions(m.id)}
        for fname, f in feats.items():
            kind = f.action_kind or "feat"
            opts, refused = by_kind.setdefault(kind, ([], []))
            targets: list[str | None] = [None]
            if f.area == "target":
                targets = [e.id for e in self._enemies(m)]
                targets += [t for (n, t) in offered if n == fname and t is not None and t not in targets]
            for t in targets:
                a = offered.get((fname, t)) or Action(kind, m.id, feat=fname, target=t,
                                                      x=1 if f.cost == "X" else None)
                ok, reasons = self._verdict(a)
                label = f"{fname}" + (f" on {t}" if t else "")
                if t and f.range is not None:
                    label += f" ({self._edge(m.id, t):.1f}\" of {f.range:g}\")"
                (opts.append((label, a)) if ok else refused.append((label, reasons)))
        names = {"ki_feat": "Ki feat", "complex_ki_feat": "Ki feat (Complex)", "feat": "Ki feat (Instant/Active)"}
        out = []
        for kind, (opts, refused) in by_kind.items():
            reasons = [] if opts else [f"{lbl}: {r}" for lbl, rs in refused for r in rs]
            out.append(MenuItem(kind, names.get(kind, kind), bool(opts), reasons, "target", opts, refused))
        return out

    def feat_areas(self) -> list[FeatArea]:
        """The areas of the Ki feat being composed (:class:`FeatArea`): the chosen feat's
        (with its target) once an option is picked, else one per feat its options offer
        (the largest first). [] when no Ki feat is being composed."""
        from sim.rules.ki import targets_in_area
        p = self.pending
        if p is None or p.kind not in ("ki_feat", "complex_ki_feat", "feat") or p.model is None:
            return []
        g = self.game
        mid = p.model
        feats = g.feats(mid)
        chosen = p.action if isinstance(p.action, Action) else None
        if chosen is not None:
            picks: list[tuple[str, str | None, bool]] = [(str(chosen.feat), chosen.target, True)]
        else:
            item = next((i for i in self.menu(mid) if i.key == p.kind), None)
            names: list[str] = []
            for _label, a in (item.options if item is not None else []):
                name = getattr(a, "feat", None)
                if name and name not in names:
                    names.append(name)
            picks = [(n, None, False) for n in names]
        table = g.table_now()
        me = table.model(mid)
        scene = table.scene()
        out = []
        for name, target, is_chosen in picks:
            f = feats.get(name)
            if f is None:
                continue
            x = float(f.range or 0.0) if f.area != "personal" else 0.0
            if f.area == "target":
                cands = [e.id for e in self._enemies(g.state.models[mid])]
            else:
                cands = [o.id for o in g.state.models.values() if o.alive]
            try:
                inside = targets_in_area(scene, mid, f, cands, require_los=False)
            except (KeyError, ValueError):
                inside = []
            centre = (float(me.position[0]), float(me.position[1]))
            out.append(FeatArea(name, f.area, mid, centre, x, me.radius + x, target, inside, is_chosen))
        out.sort(key=lambda a: -a.reach)
        return out

    def objective_marks(self) -> list[tuple[str, Point, float, str]]:
        """The scenario objectives to highlight for the selected model:
        ``(objective id, centre, radius, state)`` with state ``"chosen"`` (the objective
        of the Scenario action composed), ``"action"`` (a Scenario action may be declared
        at it now, p.25, p.63) or ``"contact"`` (the model is in base contact with it, no
        action possible now). [] with no scenario or no model selected."""
        g = self.game
        mid = self.selected
        if g.scenario is None or mid is None or mid not in g.state.models or not g.state.models[mid].alive:
            return []
        p = self.pending
        chosen = getattr(p.action, "objective", None) if p is not None and isinstance(p.action, Action) else None
        acts = {a.objective for a in g.scenario_actions(mid)} if self._acting(mid) else set()
        sc = g.scenario_state()
        tm = g.table_now().model(mid)
        out: list[tuple[str, Point, float, str]] = []
        for o in g.scenario.objectives:
            if sc is not None and o.id in sc.removed:
                continue
            if o.id == chosen:
                state = "chosen"
            elif o.id in acts:
                state = "action"
            elif in_contact_with_objective(tm.position, tm.radius, o):
                state = "contact"
            else:
                continue
            out.append((o.id, (float(o.position[0]), float(o.position[1])), float(o.radius), state))
        return out

    def _scenario_items(self, m) -> list[MenuItem]:
        """Scenario actions at an objective in base contact (p.25, p.63)."""
        g = self.game
        if g.scenario is None:
            return []
        acts = g.scenario_actions(m.id)
        out = []
        for kind, label in (("scenario", "Scenario action"), ("complex_scenario", "Scenario action (Complex)")):
            inters = [i for i in g.scenario.interactions if ("complex_scenario" if i.action == "complex"
                                                              else "scenario") == kind]
            if not inters:
                continue
            opts: list[tuple[str, object]] = [(f"{a.special} at {a.objective}", a) for a in acts if a.kind == kind]
            reasons: list[str] = []
            if not opts:
                gen = self._declaring(m, kind)
                if gen:
                    reasons = gen
                else:
                    tm = g.table_now().model(m.id)
                    touching = [o for o in g.scenario.objectives
                                if in_contact_with_objective(tm.position, tm.radius, o)]
                    if not touching:
                        reasons = [f"{m.id} is not in base contact with an objective (p.25, p.63)"]
                    else:
                        for o in touching:
                            for i in inters:
                                ok, why = self._verdict(Action(kind, m.id, objective=o.id, special=i.kind))
                                reasons += [f"{i.kind} at {o.id}: {r}" for r in why]
            out.append(MenuItem(kind, label, bool(opts), reasons, "target", opts))
        return out

    def _arrive_item(self, m) -> MenuItem:
        """A Flank model's arrival (p.52): a point along its edge (a drag or a click,
        :meth:`point` puts the base against the edge); the offered places as options."""
        g = self.game
        arr = g.arrival(m.id)
        edge = arr.edge if arr is not None else "?"
        if m.player != g.to_move():
            why = with_pages(g.arrival_refusals(m.id, None)[0], "arrive")
            return MenuItem("arrive", f"Arrive along the {edge} edge", False, why)
        opts: list[tuple[str, object]] = [(f"Arrive at ({a.point[0]:.2f}, {a.point[1]:.2f})", a)
                                          for a in g.arrival_actions() if a.model == m.id and a.point is not None]
        return MenuItem("arrive", f"Arrive along the {edge} edge", True, [], "point", opts)

    def _pass_item(self) -> MenuItem:
        ok, reasons = self._verdict(Action("pass"))
        return MenuItem("pass", "Pass", ok, reasons, None, [("Pass", Action("pass"))] if ok else [])

    def _intercept_item(self) -> MenuItem:
        st = self.game.state
        inter = st.interception
        assert inter is not None
        options: list[tuple[str, object]] = [("Nobody intercepts", Action("intercept"))]
        options += [(f"{c} intercepts", Action("intercept", target=c)) for c in inter["candidates"]]
        return MenuItem("intercept", f"Intercept the shot of {inter['attacker']} at {inter['target']}", True, [],
                        "target", options)

    # ------------------------------------------------------------ the log and the dice
    def log(self) -> list[LogEntry]:
        """Every event in words with its page and the models involved; a secret
        allocation never shows its dice before the exchange reveals them (p.33): the
        ``exchange`` entry begins with both allocations."""
        events = self.game.events
        revealed = getattr(getattr(self.remote, "mirror", None), "revealed", None)
        if revealed:  # networked: the other seat's allocation, secret when it came, now revealed
            events = [Event.from_json(revealed[i]) if i in revealed else ev for i, ev in enumerate(events)]
        ids = set(self.game.state.models)
        out = []
        for i, ev in enumerate(events):
            text = describe_event(ev)
            if ev.kind == "exchange":
                rev = revealed_allocations(events, i)
                if rev is not None:
                    text = rev + "\n" + text
            models = _event_models(ev)
            if ev.kind in ("activate", "note", "test", "feat_used") or not models:
                words = re.findall(r"[\w-]+", str(ev.data.get("action", "")) + " " + str(ev.data.get("text", "")))
                models += [w for w in words if w in ids and w not in models]
            out.append(LogEntry(i, text, _event_page(ev), models, ev.kind))
        return out

    def _action_of_event(self, i: int) -> int:
        """The index in ``game.rolls`` of the roll list holding event ``i``'s dice (0: the
        set-up, k + 1: action k)."""
        marks = self.game.action_marks
        k = 0
        for j, mk in enumerate(marks):
            if mk <= i:
                k = j + 1
            else:
                break
        return k

    @staticmethod
    def _is_dice_event(ev: Event) -> bool:
        """Whether ``ev`` reports a roll: :data:`DICE_KINDS`, or a note of a test taken
        (a Fear test on contact, p.29)."""
        if ev.kind in DICE_KINDS:
            return ev.kind != "game_length" or isinstance(ev.data.get("roll"), int)
        return ev.kind == "note" and " test" in str(ev.data.get("text", ""))

    @staticmethod
    def _tactical_lines(finals: list, faces: list[int] | None) -> list[str]:
        """The Tactical test round by round (p.28): each player's die, a natural 1
        removed (0), the tie rolled again, the winner."""
        out = []
        for r, pair in enumerate(finals):
            words = []
            for j, final in enumerate(pair):
                face = faces[2 * r + j] if faces else None
                if face == 1:
                    words.append(f"player {j + 1} rolled 1 (a natural 1 is removed) -> 0")
                elif face is not None:
                    words.append(f"player {j + 1} rolled {face}")
                else:
                    words.append(f"player {j + 1} {final}")
            a, b = pair[0], pair[1]
            end = "tie, rolled again" if a == b else f"player {1 if a > b else 2} wins"
            out.append(f"round {r + 1}: " + ", ".join(words) + f" -> {end}")
        return out

    def dice(self, since: int = 0) -> list[DiceView]:
        """The tests rolled from event index ``since`` on, as :class:`DiceView`: the
        Tactical test (round by round), the game length roll, every melee exchange, shot
        and test (Fear, Size, Ki ...), with the die faces (1-6) the game recorded
        (:attr:`Game.rolls`): all the faces of the action when it holds one test, else
        those its summary names (a damage roll, a shot's dice); never a final result."""
        g = self.game
        events = g.events
        rolls = g.rolls
        dice_events: dict[int, list[int]] = {}
        for i, ev in enumerate(events):
            if self._is_dice_event(ev):
                dice_events.setdefault(self._action_of_event(i), []).append(i)
        out = []
        for i in range(max(0, since), len(events)):
            ev = events[i]
            if not self._is_dice_event(ev):
                continue
            d = ev.data
            lines = [str(x) for x in d.get("summary", [])] or [describe_event(ev).strip()]
            values: list[list[int]] = []
            k = self._action_of_event(i)
            own = list(rolls[k]) if k < len(rolls) else []
            if ev.kind == "tactical":
                title = "Tactical test"
                finals = [list(r) for r in d.get("rolls", [])]
                n = 2 * len(finals)
                # nothing is rolled after the Tactical test in the same push: its faces
                # are the last ones recorded, one d6 each per round (p.28)
                faces = own[-n:] if n and len(own) >= n else None
                if faces is not None and any((0 if f == 1 else f) != finals[r // 2][r % 2]
                                             for r, f in enumerate(faces)):
                    faces = None
                values = [faces[2 * r:2 * r + 2] for r in range(len(finals))] if faces else []
                lines = self._tactical_lines(finals, faces)
            elif ev.kind == "game_length":
                title = "Game length roll"
                values = [[d["roll"]]]
                lines = [f"rolled {d['roll']}: " + ("the last turn" if d.get("last") else "the game goes on")
                         + " (p.63)"]
            else:
                if ev.kind == "exchange":
                    title = f"Melee exchange {d.get('attacker') or '?'} vs {d.get('defender') or '?'}"
                    if not d.get("attacker"):
                        m = re.search(r"step 3 Initiative: (\S+) has", " ".join(lines))
                        title = "Melee exchange" + (f" ({m.group(1)} has the Initiative)" if m else "")
                elif ev.kind == "shot":
                    shooter = next((ln.split(": ", 1)[1].split(" shoots")[0] for ln in lines
                                    if ln.startswith("1a")), "?")
                    target = next((ln.split("target ", 2)[-1] for ln in lines if ln.startswith("1b")), "?")
                    title = f"Ranged attack {shooter} -> {target}"
                elif ev.kind == "test":
                    title = f"{str(d.get('test', 'test')).replace('_', ' ').title()} test {d.get('model', '')}".strip()
                else:
                    title = str(d.get("text", "test")).strip()
                if len(dice_events.get(k, [])) == 1:
                    values = [own] if own else []
                elif "summary" in d:
                    values = [[int(v) for v in grp.split(",")] for ln in lines for grp in _BRACKETS.findall(ln)]
            values = [grp for grp in values if grp and all(isinstance(v, int) and 1 <= v <= 6 for v in grp)]
            out.append(DiceView(title, lines, values, i))
        return out

    def last_events(self) -> list[Event]:
        """The events of the last push (for animation)."""
        return list(self._last)

    def allocation_weapons(self) -> list[str]:
        """The melee weapons the model whose allocation is due chooses from at step 2 of
        the exchange (p.33): its card's melee weapons when it has two or more, else []
        (it fights with its one weapon). [] when no allocation is due."""
        g = self.game
        ctx = self._ctx()
        if ctx is None:
            return []
        weapons = g.melee_weapons(ctx.model)
        return list(weapons) if len(weapons) > 1 else []

    def allocation_choices(self, boost: int = 0, weapon: str | None = None) -> list[object]:
        """The legal ``allocate`` Actions of the model whose allocation is due now: for
        each melee weapon it may choose (:meth:`allocation_weapons`; only ``weapon`` when
        given), every split of its pool, then every split with each special of that
        weapon it can pay for (a Throw or Sidestep without a direction -- the engine picks
        it -- and with each direction of :meth:`allocation_directions`); with ``boost``
        Melee boost steps bought (p.47: one more die each), the splits of the larger
        pool. [] when no allocation is due."""
        g = self.game
        ctx = self._ctx()
        if ctx is None:
            return []
        pool = ctx.pool + max(0, boost)
        weapons: list[str | None] = [weapon] if weapon is not None else list(self.allocation_weapons())
        weapons = weapons or [None]
        ex = g.state.exchange
        assert ex is not None
        is_att = ctx.model == ex["attacker"]
        out: list[object] = []
        for w in weapons:
            me = ctx.me if w is None else g.combatant(ctx.model, is_att, bool(ex["charge"]) and is_att, weapon=w)
            for special in [None] + [opt.key for opt in usable_specials(me, pool)]:
                directions: list[float | None] = [None]
                if special in DIRECTED:
                    directions += [d for d, _label in self.allocation_directions(special)]
                for att, dfn in legal_splits(me, pool, special):
                    for direction in directions:
                        a = Action("allocate", ctx.model, attack=att, defence=dfn, special=special,
                                   direction=direction, boost=boost or None, weapon=w)
                        if g.is_legal(a)[0]:
                            out.append(a)
        return out

    def allocation_directions(self, special: str) -> list[tuple[float, str]]:
        """The directions (degrees CCW from +x, with a label) the model whose allocation
        is due may give its Throw or Sidestep ``special`` (``throw-attack``,
        ``sidestep-defence`` ...), those the engine accepts now
        (:meth:`Game.direction_problem`): a Throw every 45 degrees round directly away
        from the thrower whose end is in the thrower's LoS (p.41, rulings.md 8), a
        Sidestep directly away from the enemy and 30 or 60 degrees either side (it must
        leave contact, p.41). Labels: ``"away (90 deg)"``, ``"away+45 (135 deg)"``
        (degrees counter-clockwise from directly away, then the table direction). []
        for another special or when no allocation is due."""
        g = self.game
        ctx = self._ctx()
        if ctx is None or special not in DIRECTED:
            return []
        t = g.table_now()
        me, foe = t.model(ctx.model).position, t.model(ctx.enemy).position
        offsets: tuple[int, ...]
        if special.startswith("throw"):
            away, offsets = heading(foe[0] - me[0], foe[1] - me[1]), (0, 45, -45, 90, -90, 135, -135, 180)
        else:
            away, offsets = heading(me[0] - foe[0], me[1] - foe[1]), (0, 30, -30, 60, -60)
        out: list[tuple[float, str]] = []
        for off in offsets:
            d = round((away + off) % 360, 6)
            if g.direction_problem(ctx.model, ctx.enemy, special, d) is not None:
                continue
            out.append((d, ("away" if off == 0 else f"away{off:+d}") + f" ({d:.0f} deg)"))
        return out

    def direction_refusal(self, special: str, direction: float) -> list[str]:
        """Why the model whose allocation is due cannot give ``direction`` (degrees) to
        its Throw or Sidestep ``special`` (every reason with its page), [] when it can."""
        g = self.game
        ctx = self._ctx()
        if ctx is None:
            return ["no melee allocation is due now (p.33)"]
        why = g.direction_problem(ctx.model, ctx.enemy, special, direction)
        return [why] if why else []

    def special_preview(self, special: str | None, direction: float | None = None):
        """The move a Throw or Sidestep ``special`` of the model whose allocation is due
        would make at ``direction`` (None: the engine's default) if it succeeds, played
        on the table as it stands (:func:`sim.rules.special.special_move`; a
        :class:`~sim.rules.special.SpecialResult` for the window to draw); None for any
        other special, no allocation due, or a direction the move refuses."""
        from sim.rules.special import SpecialMoveError, special_move
        g = self.game
        ctx = self._ctx()
        if ctx is None or special not in DIRECTED:
            return None
        a, d = (ctx.model, ctx.enemy) if special.endswith("-attack") else (ctx.enemy, ctx.model)
        try:
            return special_move(g.table_now(), a, d, special, direction)
        except (SpecialMoveError, KeyError, ValueError):
            return None

    def summary(self) -> list[str]:
        """The end-of-game summary lines: result, turns played, VP/SP, and each side's
        models (wounds left, or killed)."""
        g = self.game
        st = g.state
        result = st.result
        ended = (getattr(getattr(self.remote, "mirror", None), "status", None) or {}).get("result")
        if not result and isinstance(ended, dict) and ended.get("result"):
            result = str(ended["result"])  # ended on the server: claimed, or a flag fell
        out = [f"Result: {result}" if result else f"Game in progress: turn {st.turn}, {st.phase} phase",
               f"Turns played: {st.turn}; actions: {len(g.actions)}; events: {len(g.events)}"]
        sc = g.scenario_state()
        if sc is not None:
            out.append(f"VP {sc.vp.get(1, 0)}-{sc.vp.get(2, 0)}, SP {sc.sp.get(1, 0)}-{sc.sp.get(2, 0)}")
        for p in (1, 2):
            models = [m for m in st.models.values() if m.owner == p]
            left = [m for m in models if not m.killed]  # an Elsewhere model is not lost (reading 50)
            out.append(f"Player {p}: {len(left)} of {len(models)} models left")
            for m in models:
                out.append(f"  {m.id}: " + (f"{m.wounds - m.damage}/{m.wounds} wounds left" if m.alive
                                          else "Elsewhere (never arrived)" if m.elsewhere is not None else "killed"))
        return out

    # ------------------------------------------------------------ input
    def select(self, model: str | None) -> None:
        """Select ``model`` (None: clear); drops any pending action.

        Raises:
            GameError: no such model.
        """
        if model is not None:
            self._model(model)
        self.selected = model
        self.pending = None
        self._option = None
        self._boost = 0
        self.version += 1

    def choose(self, key: str, option: int | None = None) -> Pending | None:
        """Start composing the menu item ``key`` of the selected model (``option``: the
        index in its options; a target, a Wait option, a feat). Returns the pending
        action: complete for an item that needs nothing more (Focus, Wait, a chosen
        target), waiting for :meth:`point` for a Walk or Run. None when the item is not
        in the menu or is disabled (the reasons are on the item).

        Raises:
            IndexError: ``option`` is not an index of the item's options.
        """
        item = next((i for i in self.menu() if i.key == key), None)
        if item is None or not item.enabled:
            return None
        mid = self.selected
        self._option = (key, option)
        if key in choices.POINT_KINDS and option is None and item.needs == "point":
            # a free destination (a Cavalry move, Eagle's Flight, a feat's delayed move): a drag
            template = next(x for _l, x in item.options if isinstance(x, Action) and x.point is not None)
            self.pending = Pending(None, False, [], f"{item.label}: drag the model or click a destination", [],
                                   template.model or mid, key, template=template)
        elif (item.needs == "point" and (option is None or key not in choices.POINT_KINDS)) or (
                key in ("charge", "melee") and option is None and len(item.options) != 1):
            what = "drag onto an enemy" if key in ("charge", "melee") else "drag the model or click a destination"
            self.pending = Pending(None, False, [], f"{item.label}: {what}", [], mid, key)
        else:
            if option is None and len(item.options) == 1:
                option = 0
            if option is None:
                self.pending = Pending(None, False, [], f"{item.label}: choose a target", [], mid, key)
            else:
                label, action = item.options[option]
                assert isinstance(action, Action)
                if action.walk is not None and action.point is None:  # a declared Walk: wait for its point
                    self.pending = Pending(None, False, [], f"{label}: drag the Walk's destination", [], mid, key,
                                           template=self._boosted(action))
                else:
                    self.pending = self._judge(self._boosted(action), key, text=label)
        self.version += 1
        return self.pending

    def _boosted(self, a: Action) -> Action:
        kind = ACTION_KINDS.get(a.kind)
        if self._boost and kind is not None and kind.boost is not None:
            return replace(a, boost=self._boost)
        return replace(a, boost=None) if a.boost else a

    def _judge(self, a: Action, key: str, path: list[Point] | None = None, text: str | None = None,
               reasons: list[str] | None = None, snapped: str | None = None) -> Pending:
        """The verdict on a complete action: :meth:`Game.is_legal` decides; ``reasons``
        (from a movement check, with their rulings) replace the engine's words."""
        g = self.game
        ok, why = g.is_legal(a)
        rs = [] if ok else (reasons if reasons else with_pages(why, a.kind))
        forced = not ok and a.kind == "wait" and a in self.offers()  # nothing else can be declared (p.24)
        if path is None:
            path = []
            if a.kind == "charge" and a.target is not None:
                try:
                    path = [tuple(p) for p in g.charge(a.model, a.target, boost=a.boost or 0).path]  # type: ignore
                except (movement.MoveError, ValueError):
                    path = []
            elif a.point is not None and a.model in g.state.models:
                path = [g.state.models[a.model].position, a.point]
        if text is None:
            text = f"{key.replace('_', ' ').title()}: {a}"
        if forced:
            text += (": it can declare nothing legal: the Wait is declared, refused and costs one counter (p.24): "
                     + "; ".join(rs))
        else:
            text += ": legal" if ok else ": illegal: " + "; ".join(rs)
        return Pending(a, ok or forced, rs, text, list(path), a.model, key, snapped)

    def boost(self, steps: int) -> Pending | None:
        """Ki boost steps bought for the action being composed (p.10, p.47: +1 Move for a
        Walk/Run/Charge, +1 Ranged for a shot, +1 Ki for a feat's test); the pending
        action is judged again. 0 removes the boost.

        Raises:
            ValueError: ``steps`` < 0.
        """
        if steps < 0:
            raise ValueError(f"boost steps are >= 0, got {steps}")
        self._boost = int(steps)
        p = self.pending
        if p is not None and isinstance(p.action, Action):
            a = self._boosted(p.action)
            if a.kind in ("walk", "run") and a.point is not None:
                self.pending = self.point(a.point if not a.path else a.path[-1], a.facing)
            else:
                self.pending = self._judge(a, p.kind)
        self.version += 1
        return self.pending

    def _table_for(self, mid: str, boost: int) -> Table:
        t = self.game.table_now()
        if not boost:
            return t
        models = tuple(replace(x, move=(x.move or 0) + boost) if x.id == mid else x for x in t.models)
        return Table(t.name, t.width, t.depth, t.terrain, models, t.source)

    def _move_check(self, mid: str, kind: str, xy, facing: float | None, boost: int):
        try:
            table = self._table_for(mid, boost)
            if kind == "walk":
                return movement.check_walk(table, mid, [xy], facing=facing)
            return movement.check_run(table, mid, xy)
        except (movement.MoveError, ValueError):
            return None

    def snap(self, mid: str, xy: Point, kind: str = "walk") -> tuple[Point, str | None]:
        """``xy`` snapped to the exact contact point when a base of ``mid`` centred there
        would be within :data:`SNAP` of base contact with another model (a friend for a
        Walk or Run, which may not end in contact with an enemy, p.24; any model for
        other kinds) or of an objective's base: the centre moved along the line through
        the other base's centre, to an edge gap of 0. Returns ``(point, what)`` with
        ``what`` None when nothing is that close."""
        g = self.game
        table = g.table_now()
        me = table.model(mid)
        best: tuple[float, Point, str] | None = None
        bases: list[tuple[Point, float, str]] = []
        for o in table.models:
            if o.id == mid or (kind in ("walk", "run") and o.player != me.player):
                continue
            bases.append((tuple(o.position), o.radius, f"contact with {o.id}"))  # type: ignore[arg-type]
        sc = g.scenario_state()
        if g.scenario is not None:
            for obj in g.scenario.objectives:
                if sc is not None and obj.id in sc.removed:
                    continue
                bases.append((obj.position, obj.radius, f"contact with objective {obj.id}"))
        for centre, radius, what in bases:
            d = math.dist(xy, centre)
            gap = d - me.radius - radius
            if abs(gap) <= SNAP and d > 1e-9 and (best is None or abs(gap) < best[0]):
                r = me.radius + radius
                pt = (centre[0] + (xy[0] - centre[0]) * r / d, centre[1] + (xy[1] - centre[1]) * r / d)
                best = (abs(gap), pt, what)
        if best is None:
            return (float(xy[0]), float(xy[1])), None
        return best[1], best[2]

    def point(self, xy: Point, facing: float | None = None) -> Pending | None:
        """The live verdict of a drag to ``xy`` (and a Walk's end ``facing``, degrees):
        for a Walk, the planned route (:func:`sim.view.drag.plan_walk`, round obstacles)
        or the straight line; for a Run the straight line; snapped to base contact or
        objective contact when within :data:`SNAP` of it (:meth:`snap`). A Walk to the
        model's own position with a ``facing`` turns it. For a Disengage, the Walk after
        it; for a Shoot or a Ki feat, its declared Walk (before the action). For a Charge or
        Melee chosen without a target, the enemy dragged onto (:meth:`target_at`) is the
        target: that target's charge lane and verdict (a refused one with every reason).
        None when nothing is being composed."""
        p = self.pending
        if p is None or p.model is None:
            return None
        mid = p.model
        kind = p.kind
        xy = (float(xy[0]), float(xy[1]))
        if kind in ("walk", "run"):
            key = (kind, round(xy[0], 3), round(xy[1], 3), facing, self._boost)
            got = self._drag_cache.get(key)
            if got is None:
                got = self._drag_cache[key] = self._judge_move(mid, kind, xy, facing)
            self.pending = got
        elif kind in ("charge", "melee"):
            target = self.target_at(mid, xy)
            if target is None:
                self.pending = Pending(None, False, [], f"{kind.title()}: drag onto an enemy", [], mid, kind)
            else:
                item = next((i for i in self.menu(mid) if i.key == kind), None)
                refused = dict(item.refused) if item is not None else {}
                a = self._boosted(Action(kind, mid, target=target))
                if target in refused:
                    self.pending = Pending(a, False, refused[target],
                                           f"{kind.title()} {target}: illegal: " + "; ".join(refused[target]),
                                           self._judge(a, kind).path, mid, kind)
                else:
                    self.pending = self._judge(a, kind, text=f"{kind.title()} {target}")
        elif kind == "arrive":  # along the model's edge (p.52): the base put against it
            g = self.game
            pt = g.arrival_point(mid, xy)
            a = Action("arrive", mid, point=pt, facing=facing if facing is not None else g.arrival_facing(mid))
            self.pending = self._judge(a, kind, [pt], f"Arrive at ({pt[0]:.2f}, {pt[1]:.2f})")
        elif kind in choices.POINT_KINDS and isinstance(p.action or p.template, Action):
            base = p.action if isinstance(p.action, Action) else p.template
            assert isinstance(base, Action)
            a = replace(base, point=xy)
            here = self.game.state.models[a.model].position if a.model in self.game.state.models else xy
            self.pending = replace(self._judge(a, kind, [here, xy], choices.offer_label(a)), template=p.template)
        elif isinstance(p.action or p.template, Action) and kind in ("disengage", "shoot", "ki_feat",
                                                                    "complex_ki_feat"):
            base = p.action if isinstance(p.action, Action) else p.template
            assert isinstance(base, Action)
            walked = replace(base, point=xy, walk=base.walk or ("before" if kind != "disengage" else None))
            self.pending = replace(self._judge(walked, kind), template=p.template)
            self.version += 1
            return self.pending
        else:
            return p
        self.version += 1
        return self.pending

    def target_at(self, mid: str, xy: Point) -> str | None:
        """The enemy of ``mid`` a drag to ``xy`` points at: the one whose base holds
        ``xy`` or lies within 1" of it (the nearest), or None."""
        table = self.game.table_now()
        me = self.game.state.models[mid]
        best: tuple[float, str] | None = None
        for e in self.game.state.alive(3 - me.player):
            te = table.model(e.id)
            gap = math.dist(xy, te.position) - te.radius
            if gap <= 1.0 and (best is None or gap < best[0]):
                best = (gap, e.id)
        return best[1] if best is not None else None

    def _judge_move(self, mid: str, kind: str, xy: Point, facing: float | None, snap: bool = True) -> Pending:
        """The verdict of a Walk or Run to ``xy``, snapped to contact (:meth:`snap`) unless
        the snapped point is refused where ``xy`` itself is legal (the contact point a
        hair beyond the Move, say): then ``xy`` as dragged."""
        g = self.game
        here = g.state.models[mid].position
        if kind == "walk" and math.dist(xy, here) < 1e-9:
            turning = self._boosted(Action("walk", mid, point=here, facing=facing))
            return self._judge(turning, kind, [here], "Turn" + (f" to {facing:.0f}°" if facing is not None else ""))
        pt, snapped = self.snap(mid, xy, kind) if snap else (xy, None)
        if snapped:
            got = self._judge_move(mid, kind, pt, facing, snap=False)
            if not got.legal:
                raw = self._judge_move(mid, kind, xy, facing, snap=False)
                if raw.legal:
                    return raw
            return replace(got, snapped=snapped, text=got.text.replace(":", f" ({snapped}):", 1))
        boost = self._boost
        res = None
        if kind == "walk":
            try:
                res = drag.plan_walk(self._table_for(mid, boost), mid, pt)
            except (movement.MoveError, ValueError):
                res = None
            a: Action | None = None
            if res is not None and res.legal and len(res.path) > 2:
                a = self._boosted(Action("walk", mid, path=tuple(tuple(q) for q in res.path[1:]), facing=facing))
                if not g.is_legal(a)[0]:
                    a = None
            if a is None:
                a = self._boosted(Action("walk", mid, point=pt, facing=facing))
                res = self._move_check(mid, "walk", pt, facing, boost)
        else:
            a = self._boosted(Action("run", mid, point=pt))
            res = self._move_check(mid, "run", pt, None, boost)
        path = [tuple(q) for q in res.path] if res is not None else [here, pt]
        reasons = move_reasons(res) if res is not None and not res.legal else None
        head = kind.title()
        if res is not None:
            head += f" {_inches(res.cost)} of {_inches(res.allowance)}"
        if snapped:
            head += f" ({snapped})"
        return self._judge(a, kind, path, head, reasons, snapped)  # type: ignore[arg-type]

    def turn(self, facing: float) -> Pending | None:
        """Turn the selected model to ``facing`` (degrees): a Walk that does not move
        (p.22: the facing may change at the end of a Walk). Returns the pending Walk."""
        mid = self.selected
        if mid is None:
            return None
        p = self.pending
        if p is not None and p.kind == "arrive" and isinstance(p.action, Action) and p.action.point is not None:
            return self.point(p.action.point, facing)  # the player placing a model chooses its facing (p.22)
        if self.pending is None or self.pending.kind != "walk":
            if self.choose("walk") is None:
                return None
        return self.point(self.game.state.models[mid].position, facing)

    def confirm(self) -> list[Event]:
        """Push the pending action; its events (empty, with the reasons on
        :attr:`pending`, when the engine refuses it: an illegal action is never declared
        from the window, p.24)."""
        p = self.pending
        if p is None or not isinstance(p.action, Action):
            return []
        if not p.legal:
            return []
        return self._push(p.action)

    def set_models(self, models) -> Pending | None:
        """The other models the action being composed names, in order (model ids): those a
        Command or an Order nominates, one id per Ki token a Leech takes or a Channel gives
        (p.50-55), Blood of Orochi's tokens (p.49), a Pack's friends (p.55); the window
        adds one with each click on a model (:meth:`add_model`). The action is judged
        again. None when nothing complete is being composed.

        Raises:
            GameError: an id of no model on the table.
        """
        p = self.pending
        if p is None or not isinstance(p.action, Action):
            return None
        ids = tuple(str(x) for x in models)
        for mid in ids:
            self._model(mid)
        a = replace(p.action, models=ids)
        self.pending = self._judge(a, p.kind, text=choices.offer_label(a))
        self.version += 1
        return self.pending

    def add_model(self, model: str) -> Pending | None:
        """One more nomination or Ki token for ``model`` on the action being composed
        (:meth:`set_models`)."""
        p = self.pending
        if p is None or not isinstance(p.action, Action):
            return None
        return self.set_models(tuple(p.action.models) + (model,))

    def set_x(self, x: int | None) -> Pending | None:
        """The number the action being composed chooses (a feat's X cost, the wounds a
        Cultist takes, p.46, p.50); judged again. None when nothing complete is being
        composed.

        Raises:
            ValueError: ``x`` < 0.
        """
        p = self.pending
        if p is None or not isinstance(p.action, Action):
            return None
        if x is not None and x < 0:
            raise ValueError(f"x is >= 0, got {x}")
        a = replace(p.action, x=x)
        self.pending = self._judge(a, p.kind, text=choices.offer_label(a))
        self.version += 1
        return self.pending

    def cancel(self) -> None:
        """Drop the pending action."""
        self.pending = None
        self._option = None
        self._boost = 0
        self.version += 1

    def allocate(self, attack: int, defence: int, special: str | None = None, direction: float | None = None,
                 boost: int = 0, weapon: str | None = None) -> list[Event]:
        """The secret melee allocation (p.33) of the model whose allocation is due (the
        screen must be the allocating player's: not during the hand-over); ``weapon``: the
        melee weapon chosen at step 2 (:meth:`allocation_weapons`; None: the first).

        Raises:
            GameError: no allocation is due from a human at the screen, or the engine
                refuses the allocation (the message gives every reason and page).
        """
        g = self.game
        ctx = self._ctx()
        if ctx is None or self.screen != "allocate":
            raise GameError("no melee allocation is due at this screen now")
        a = Action("allocate", ctx.model, attack=attack, defence=defence, special=special, direction=direction,
                   boost=boost or None, weapon=weapon)
        ok, why = g.is_legal(a)
        if not ok:
            raise GameError("; ".join(with_pages(why, "allocate")))
        return self._push(a)

    def pass_turn(self) -> list[Event]:
        """Spend a pass token (p.21).

        Raises:
            GameError: no pass token, or it is not a human's decision now.
        """
        g = self.game
        if g.to_move() not in self.humans() or g.state.exchange is not None:
            raise GameError("it is not a human player's turn to pass now")
        ok, why = g.is_legal(Action("pass"))
        if not ok:
            raise GameError("; ".join(with_pages(why, "pass")))
        return self._push(Action("pass"))

    def intercept(self, model: str | None) -> list[Event]:
        """The target's player answers a waiting shot: ``model`` intercepts, or None for
        nobody (p.30).

        Raises:
            GameError: no shot waits, or the engine refuses the interceptor.
        """
        a = Action("intercept", target=model)
        ok, why = self.game.is_legal(a)
        if not ok:
            raise GameError("; ".join(with_pages(why, "intercept")))
        return self._push(a)

    def take_screen(self) -> None:
        """The hand-over is acknowledged: the player to move now sees the screen."""
        p = self.game.to_move()
        if p in self.humans():
            self.viewer = p
        self._update_screen()
        self.version += 1

    def _push(self, action: Action, bot: bool = False) -> list[Event]:
        """Push ``action`` for the player to move; physical dice that are not typed yet
        take the action back and ask for them (:attr:`dice_request`)."""
        g = self.game
        if self.remote is not None:
            return self._send(action)
        who = g.to_move()
        try:
            events = g.push(action)
        except DiceNeeded as need:
            # Game.push took the half-played action back (a push is all or nothing) and
            # rewound the typed dice
            self._waiting = (action, who, bot)
            self.dice_request = (need.n, need.purpose.label() if need.purpose is not None else "a roll")
            self.pending = None
            self._changed()
            return []
        self.history.append((who, bot))
        self._last = list(events)
        self._waiting = None
        self.dice_request = None
        self.pending = None
        self._option = None
        self._boost = 0
        sel = g.state.models.get(self.selected or "")
        if sel is None or not sel.alive:
            self.selected = None
        self._changed(decided=True)
        return list(events)

    def bot_step(self) -> tuple[int, object, list[Event]] | None:
        """One bot decision pushed ``(player, action, events)``, or None when a human is
        to move, the game is over, or physical dice are awaited."""
        g = self.game
        if g.is_over() or self._waiting is not None:
            return None
        p = g.to_move()
        bot = self.bots.get(p) if p is not None else None
        if bot is None:
            return None
        assert p is not None
        action = bot.choose(g)  # type: ignore[attr-defined]
        events = self._push(action, bot=True)
        return p, action, events

    def run_bots(self, limit: int = 10_000) -> int:
        """Let the bots decide until a human is to move (or the game ends); returns the
        number of bot decisions pushed."""
        n = 0
        while n < limit and self.bot_step() is not None:
            n += 1
        return n

    def undo(self) -> list[object]:
        """Take back the last human decision and the bot moves after it; returns what
        was taken back (actions, or a manual adjustment's event), last first. Seeded
        dice are rewound (:meth:`Game.pop`: the same declaration rolls the same dice);
        physical dice typed for the taken-back actions are forgotten. A push waiting for
        physical dice is dropped first."""
        g = self.game
        taken: list[object] = []
        if self.remote is not None:
            self.ask_undo()
            return taken
        if self._waiting is not None:
            self._waiting = None
            self.dice_request = None
            self._changed()
            return taken
        if g.events and g.events[-1].kind == "adjust":
            taken.append(g.take_back_edit())
            self._changed()
            return taken
        while g.actions:
            _who, by_bot = self.history[-1] if self.history else (None, False)
            try:
                taken.append(g.pop())
            except GameError:
                break
            if self.history:
                self.history.pop()
            if not by_bot or all(b for _, b in self.history):
                break  # the human decision taken back (or, with bots only, one bot move)
        if isinstance(g.dice, TypedDice):
            g.dice.forget_unused()
        self.pending = None
        self.selected = None
        self._last = []
        p = g.to_move()
        if p in self.humans():
            self.viewer = p
        self._changed(decided=True)
        return taken

    def save(self, path) -> None:
        """Save the game (``bushido-game/1``, atomically; :meth:`Game.save`). A push
        waiting for physical dice is not in it.

        Raises:
            OSError, ValueError: as :meth:`Game.save`.
        """
        self.game.save(Path(path))

    @classmethod
    def load(cls, path, verify: bool = True, **kw) -> "PlayController":
        """A controller over the game saved at ``path`` (verified by re-simulation,
        :meth:`Game.load`; ``verify=False`` applies an old save's events unchecked);
        ``kw`` as the constructor (bots, humans_share_screen, dice; tournament mode also
        comes from the save). A physical-dice game goes on with typed dice.

        Raises:
            GameError: the file cannot be read or verified (one line naming the file).
        """
        game = Game.load(path, verify=verify)
        if not game.seeded and kw.get("dice", "seeded") == "seeded":
            kw["dice"] = "physical"
        return cls(game, **kw)

    # ------------------------------------------------------------ networked play
    def _remote_screen(self) -> None:
        """The screen of a networked game's seat: ``over`` (in the engine or on the
        server), ``allocate`` when the seat's model allocates now (the mirror says the
        seat may, nothing sent yet), else ``play`` (answers out of turn are menus)."""
        g = self.game
        mirror = self.remote.mirror  # type: ignore[union-attr]
        self.viewer = self.seat
        if g.is_over() or (mirror.status or {}).get("over"):
            self.screen = "over"
            return
        self.screen = "play"
        if self.seat is None or self.sent is not None:
            return
        if g.to_move() == self.seat and self.answer_window():
            return
        if g.state.exchange is not None and self._ctx() is not None and mirror.my_decision():
            self.screen = "allocate"

    def _send(self, action: Action) -> list[Event]:
        """Networked: send ``action`` to the server (declared when the mirror's engine
        refuses it: a Wait forced by p.24); nothing is pushed here, the update comes
        through :meth:`sync`. Returns []."""
        ok, _why = self.game.is_legal(action)
        self.remote.act(action, declare=not ok)  # type: ignore[union-attr]
        self.sent = action
        self.pending = None
        self._option = None
        self._boost = 0
        self.version += 1
        self._update_screen()
        return []

    def ask_undo(self) -> None:
        """Networked: ask the opponent to accept taking back this seat's last decision
        (the server answers with a full state when they accept, a refusal otherwise).

        Raises:
            GameError: not a networked seat.
        """
        if self.remote is None or self.seat is None:
            raise GameError("only a seat of a networked game asks for a take-back")
        self.remote.send({"type": "undo", "seen": len(self.game.actions)})  # type: ignore[attr-defined]
        self.version += 1

    def answer_undo(self, accept: bool) -> None:
        """Networked: answer the opponent's take-back request (``accept`` or decline).

        Raises:
            GameError: no take-back was asked of this seat.
        """
        mirror = getattr(self.remote, "mirror", None)
        if mirror is None or mirror.undo_asked is None:
            raise GameError("no take-back was asked of you")
        mirror.undo_asked = None
        self.remote.send({"type": "undo_answer", "accept": bool(accept)})  # type: ignore[union-attr]
        self.version += 1

    def claim(self) -> None:
        """Networked: claim the game (the opponent away longer than the host allows;
        the server judges).

        Raises:
            GameError: not a networked seat.
        """
        if self.remote is None or self.seat is None:
            raise GameError("only a seat of a networked game claims it")
        self.remote.send({"type": "claim"})  # type: ignore[attr-defined]
        self.version += 1

    def take_refusal(self) -> str:
        """The server's last refusal or notice (:attr:`refusal`), then "" until the next."""
        out, self.refusal = self.refusal, ""
        return out

    def sync(self) -> list[dict]:
        """Networked: take in what the server sent since the last call
        (``remote.poll()``); called every frame by the window. A full state
        (``welcome``/``state``: after joining, a reconnection, an undo) swaps
        :attr:`game` for the mirror's new game; updates extend it (their events are
        :meth:`last_events`, for the window to animate); the verdict on :attr:`sent`
        clears it; a refusal sets :attr:`refusal`. Returns the messages ([] without
        ``remote`` or when nothing came)."""
        if self.remote is None:
            return []
        g0, n0 = self.game, len(self.game.events)
        msgs = list(self.remote.poll())  # type: ignore[attr-defined]
        if not msgs:
            return msgs
        mirror = self.remote.mirror  # type: ignore[attr-defined]
        for msg in msgs:
            kind = msg.get("type")
            if kind in ("welcome", "state", "held", "disconnected") or (
                    kind == "update" and msg.get("by") == self.seat):
                self.sent = None
            if kind == "error":
                self.sent = None
                self.refusal = str(msg.get("message") or msg.get("code") or "refused")
            elif kind == "disconnected":
                self.refusal = f"connection lost ({msg.get('message', '')}): reconnecting"
        if mirror.game is not None and mirror.game is not g0:
            self.game = mirror.game
            self._last = []
        else:
            self._last = list(self.game.events[n0:])
        self.history = [(int(b), False) for b in mirror.by][-len(self.game.actions):] if self.game.actions else []
        self.history = [(None, False)] * (len(self.game.actions) - len(self.history)) + self.history
        if self.game is not g0 or self._last:
            self.pending = None
            self._option = None
            self._boost = 0
            self._offers = None
            if self.selected is not None and self.selected not in self.game.state.models:
                self.selected = None
        self._changed()
        return msgs

    # ------------------------------------------------------------ manual adjustment
    def _adjusted(self, fn: Callable[[], Event]) -> None:
        if self.remote is not None:
            raise GameError("no manual adjustments in a networked game: the server is the only judge")
        if self.tournament or self.game.tournament:
            raise GameError("manual adjustments are off in tournament mode")
        ev = fn()
        self._last = [ev]
        self._changed()

    def adjust_move(self, model: str, xy: Point, facing: float | None = None) -> None:
        """Move ``model`` freely to ``xy`` (and ``facing``), logged as an explicit
        ``adjust`` event (:meth:`Game.adjust`).

        Raises:
            GameError: in tournament mode, no such model, a point off the table.
        """
        self._adjusted(lambda: self.game.adjust("move", model, to=xy, facing=facing))

    def adjust_marker(self, model: str, condition: str, delta: int, value: int | None = None) -> None:
        """Add (``delta`` > 0) or remove markers of ``condition`` on ``model`` (``value``:
        the X of Disguised/Frightened, a Bleed/Poison/Fire marker's value), logged.

        Raises:
            GameError: in tournament mode, no such model, an unknown condition.
        """
        self._adjusted(lambda: self.game.adjust("marker", model, condition=condition, delta=delta, value=value))

    def adjust_wounds(self, model: str, delta: int) -> None:
        """Deal (``delta`` > 0) or heal wounds of ``model``, logged.

        Raises:
            GameError: in tournament mode, no such model, ``delta`` 0.
        """
        self._adjusted(lambda: self.game.adjust("wounds", model, delta=delta))

    def adjust_ki(self, model: str, delta: int) -> None:
        """Add or remove Ki tokens of ``model`` (within 0..its Ki limit), logged.

        Raises:
            GameError: in tournament mode, no such model, ``delta`` 0.
        """
        self._adjusted(lambda: self.game.adjust("ki", model, delta=delta))

    # ------------------------------------------------------------ physical dice
    def enter_dice(self, values: list[int]) -> list[Event]:
        """The values typed for :attr:`dice_request`; the waiting push is tried again
        with them. Returns its events (empty when more dice are asked for: a new
        :attr:`dice_request`).

        Raises:
            DiceError: no dice are asked for, not the number of values asked for, or a
                value outside 1..6 (nothing is used).
        """
        if self._waiting is None or self.dice_request is None:
            raise DiceError("no dice are asked for now")
        n = self.dice_request[0]
        values = list(values)
        if len(values) != n:
            raise DiceError(f"{len(values)} value{'s' if len(values) != 1 else ''} given, {n} asked for "
                            f"({self.dice_request[1]})")
        dice = self.game.dice
        assert isinstance(dice, TypedDice)
        dice.feed(values)
        action, _who, bot = self._waiting
        return self._push(action, bot=bot)


__all__ = ["Card", "DICE_KINDS", "DiceNeeded", "DiceView", "FeatArea", "LogEntry", "MenuItem", "Pending",
           "PlayController", "SNAP", "Status", "TypedDice", "describe_event", "make_bots", "move_reasons",
           "revealed_allocations", "with_pages"]
