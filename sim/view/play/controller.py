"""The play controller: every decision of the game window, pure Python (no Panda3D).

The window (:mod:`sim.view.play`, DirectGUI on Panda3D) shows what this module says and
calls its input methods; the tests call the same methods. The engine
(:class:`~sim.rules.game.Game`) stays the only judge: the controller offers what
:meth:`Game.is_legal` allows, pushes through :meth:`Game.push` and reads the events.

Inches and degrees, table coordinates (x right, y away from player 1). Rule pages
("p.24") refer to the Risen Sun rulebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.rules.game import Action, Event, Game

Point = tuple[float, float]


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
        raise NotImplementedError


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
        raise NotImplementedError


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
            feats with their targets ...).
    """

    key: str
    label: str
    enabled: bool
    reasons: list[str] = field(default_factory=list)
    needs: str | None = None
    options: list[tuple[str, object]] = field(default_factory=list)


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
    """

    action: object | None
    legal: bool
    reasons: list[str]
    text: str
    path: list[Point]
    model: str | None
    kind: str


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


class PlayController:
    """Every decision of the game window over one :class:`Game`.

    Args:
        game: the game played.
        bots: ``{player: bot}`` for the players the bot plays (a ``sim.rules.bots`` bot:
            ``choose(game) -> Action``); the others are humans.
        tournament: refuse manual adjustments (:class:`GameError`).
        humans_share_screen: two humans at one screen: a hand-over screen before each
            secret allocation and whenever the human to move changes.
        dice: ``"seeded"`` (the game's dice) or ``"physical"`` (the players type the
            values: :attr:`screen` ``"dice"``, :attr:`dice_request`, :meth:`enter_dice`).

    Attributes:
        selected: the selected model id, or None.
        pending: the action being composed, or None.
        screen: ``"play"``, ``"handover"`` (the screen is hidden until
            :meth:`take_screen`), ``"allocate"`` (a secret allocation is due from
            :attr:`viewer`), ``"dice"`` (physical dice are asked for), ``"over"``.
        viewer: the player now at the screen; None while the hand-over is shown.
        version: bumps on every change of state (the window redraws when it changes).
    """

    def __init__(self, game: Game, *, bots: dict[int, object] | None = None, tournament: bool = False,
                 humans_share_screen: bool = True, dice: str = "seeded") -> None:
        self.game = game
        self.bots = dict(bots or {})
        self.tournament = tournament
        self.humans_share_screen = humans_share_screen
        self.dice_mode = dice
        self.selected: str | None = None
        self.pending: Pending | None = None
        self.screen = "play"
        self.viewer: int | None = game.to_move()
        self.version = 0
        self.dice_request: tuple[int, str] | None = None

    # ------------------------------------------------------------ queries
    def status(self) -> Status:
        """The status bar now."""
        raise NotImplementedError

    def card(self, model: str) -> Card:
        """The card of ``model`` (any side).

        Raises:
            GameError: no such model.
        """
        raise NotImplementedError

    def menu(self, model: str | None = None) -> list[MenuItem]:
        """The action menu of ``model`` (default: the selected one): every kind of action
        it could declare, illegal ones disabled with every reason and page; [] for an
        enemy model, a dead one, or while it is not its player's decision."""
        raise NotImplementedError

    def log(self) -> list[LogEntry]:
        """Every event in words with its page and the models involved; a secret
        allocation never shows its dice before the exchange reveals them (p.33)."""
        raise NotImplementedError

    def dice(self, since: int = 0) -> list[DiceView]:
        """The tests rolled from event index ``since`` on, as :class:`DiceView`."""
        raise NotImplementedError

    def last_events(self) -> list[Event]:
        """The events of the last push (for animation)."""
        raise NotImplementedError

    def allocation_choices(self) -> list[object]:
        """The legal ``allocate`` Actions of the model whose allocation is due now."""
        raise NotImplementedError

    def summary(self) -> list[str]:
        """The end-of-game summary lines (result, VP/SP, models left by side)."""
        raise NotImplementedError

    def model_at_active(self) -> list[str]:
        """The models of the player to move that may still act now."""
        raise NotImplementedError

    # ------------------------------------------------------------ input
    def select(self, model: str | None) -> None:
        """Select ``model`` (None: clear); drops any pending action."""
        raise NotImplementedError

    def choose(self, key: str, option: int | None = None) -> Pending | None:
        """Start composing the menu item ``key`` of the selected model (``option``: the
        index in its options). Returns the pending action (None: nothing to compose)."""
        raise NotImplementedError

    def point(self, xy: Point, facing: float | None = None) -> Pending | None:
        """The live verdict of a drag to ``xy`` (and a Walk's end ``facing``): snapped to
        base contact or objective contact when within :data:`SNAP` of it."""
        raise NotImplementedError

    def confirm(self) -> list[Event]:
        """Push the pending action; its events (empty, with the reasons on
        :attr:`pending`, when the engine refuses it)."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Drop the pending action."""
        raise NotImplementedError

    def allocate(self, attack: int, defence: int, special: str | None = None, direction: float | None = None,
                 boost: int = 0) -> list[Event]:
        """The secret melee allocation (p.33) of the model whose allocation is due."""
        raise NotImplementedError

    def pass_turn(self) -> list[Event]:
        """Spend a pass token (p.21)."""
        raise NotImplementedError

    def take_screen(self) -> None:
        """The hand-over is acknowledged: the player to move now sees the screen."""
        raise NotImplementedError

    def bot_step(self) -> tuple[int, object, list[Event]] | None:
        """One bot decision pushed ``(player, action, events)``, or None when a human is
        to move (or the game is over)."""
        raise NotImplementedError

    def undo(self) -> list[object]:
        """Take back the last human decision and the bot moves after it; returns the
        actions taken back (last first). Seeded dice are rewound."""
        raise NotImplementedError

    def save(self, path) -> None:
        """Save the game (``bushido-game/1``, atomically) with the controller's settings."""
        raise NotImplementedError

    @classmethod
    def load(cls, path, **kw) -> "PlayController":
        """A controller over the game saved at ``path`` (verified by re-simulation)."""
        raise NotImplementedError

    # ------------------------------------------------------------ manual adjustment
    def adjust_move(self, model: str, xy: Point, facing: float | None = None) -> None:
        """Move ``model`` freely to ``xy`` (and ``facing``), logged as an explicit event.

        Raises:
            GameError: in tournament mode, or no such model.
        """
        raise NotImplementedError

    def adjust_marker(self, model: str, condition: str, delta: int) -> None:
        """Add (``delta`` > 0) or remove markers of ``condition`` on ``model``, logged."""
        raise NotImplementedError

    def adjust_wounds(self, model: str, delta: int) -> None:
        """Deal (``delta`` > 0) or heal wounds of ``model``, logged."""
        raise NotImplementedError

    def adjust_ki(self, model: str, delta: int) -> None:
        """Add or remove Ki tokens of ``model`` (within 0..its Ki limit), logged."""
        raise NotImplementedError

    # ------------------------------------------------------------ physical dice
    def enter_dice(self, values: list[int]) -> list[Event]:
        """The values typed for :attr:`dice_request`; completes the waiting push.

        Raises:
            DiceError: not the number of values asked for, or a value outside 1..6.
        """
        raise NotImplementedError


__all__ = ["Card", "DiceView", "LogEntry", "MenuItem", "Pending", "PlayController", "Status"]
