"""The base of the steps of a game (General rules p.18-47): :class:`GamePart`, and what the
steps share, typed.

:class:`~sim.rules.game.Game` is composed of one mixin per step of the rules (the turn,
activation, basic actions, melee, shooting, Ki, scenario, cards, offers, saves); each
derives from :class:`GamePart`. The steps call one another through ``self`` and share the
game's state, event log, table and dice. At run time :class:`GamePart` adds nothing; for a
type checker it declares those shared attributes and the methods one step calls on
another, with their types, so that mypy checks every call between steps (and that each
step's definition matches its declaration here). A method a step calls on another is
declared here; a name used by one step only is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable

    from models.profiles import Profile, Weapon
    from sim.rules import movement
    from sim.rules.dice import Dice
    from sim.rules.game.actions import Action
    from sim.rules.game.events import Event
    from sim.rules.game.state import GameState, ModelState
    from sim.rules.ki import Boost, Feat
    from sim.rules.scenario import Scenario, ScenarioState
    from sim.table import Table


class ResumableDice(Protocol):
    """Dice whose place in their sequence can be read and set back
    (:class:`~sim.rules.dice.SeededDice`): a save records it so that a loaded game rolls on
    (``dice_state``), and a take-back (:meth:`Game.pop <sim.rules.game.Game.pop>`)
    restores it so that the same rolls come again."""

    def state(self) -> list:
        """Where the dice stand in their sequence (plain JSON values)."""
        ...

    def restore(self, state: list) -> None:
        """Put the dice back where :meth:`state` read them."""
        ...


class GamePart:
    """The base of each step of the rules (a mixin of :class:`~sim.rules.game.Game`): the
    steps share the game's state, event log and one another's methods (declared here for
    the type checker only; :class:`~sim.rules.game.Game` and the steps define them)."""

    if TYPE_CHECKING:
        # -- the game's inputs and state (Game.__init__)
        table: Table
        seed: int | None
        length: tuple[str, int]
        scenario: Scenario | None
        state: GameState
        events: list[Event]
        verified: bool
        _dice: Dice
        _roller: Dice  # the game's dice, each value recorded
        _rolls: list[list[int]]
        _marks: list[int]
        _actions: list[Action]
        _memo: dict
        _cards: dict
        _feats: dict
        _vims: dict | None
        _legacy: bool

        def __init__(self, table: Table, seed: int | None = 0, dice: Dice | None = None,
                     length: tuple[str, int] | None = None, events: Iterable[Event] | None = None,
                     scenario: Any = None, vims: dict | None = None, position: dict | None = None) -> None: ...

        # -- the facade (core)
        @property
        def seeded(self) -> bool: ...
        def _emit(self, ev: Event) -> Event: ...
        def _unmark(self) -> None: ...
        def _table_now(self) -> Table: ...
        def is_over(self) -> bool: ...
        def to_move(self) -> int | None: ...
        def is_legal(self, action: Action) -> tuple[bool, str]: ...
        def set_position(self, position: dict) -> None: ...
        def push(self, action: Action) -> list[Event]: ...

        # -- turn
        def _next_active(self, preferred: int, first: bool = False) -> None: ...
        def _end_phase(self) -> None: ...

        # -- activation
        def _after_action(self) -> None: ...
        def _disguise(self, m: ModelState, target: str | None) -> tuple[str, int] | None: ...
        def _disguise_test(self, m: ModelState, target: str, x: int) -> bool: ...
        def berserk_forced(self, mid: str) -> tuple[str | None, str | None, tuple | None]: ...

        # -- basic actions
        def _move(self, mid: str, res: movement.MoveResult) -> None: ...
        def _boosted_table(self, mid: str, steps: int) -> Table: ...

        # -- melee step
        def charge(self, model_id: str, target_id: str, boost: int = 0) -> movement.MoveResult: ...
        def _melee_move(self, mid: str, target: str) -> movement.MoveResult: ...
        def _allocation_actions(self) -> list[Action]: ...

        # -- shooting step
        def ranged_weapon(self, mid: str, name: str | None = None) -> Weapon | None: ...
        def _can_shoot(self, mid: str, target: str | None, weapon: str | None,
                       at: Any = None) -> tuple[bool, str]: ...
        def _reload_weapon(self, mid: str, action: Action) -> bool: ...

        # -- Ki
        def ki_boost(self, action: Action) -> tuple[str, Boost] | None: ...
        def feat_actions(self, mid: str) -> list[Action]: ...
        def _aura_modifiers(self, mid: str) -> tuple[tuple[str, int], ...]: ...

        # -- scenario step
        def scenario_state(self) -> ScenarioState | None: ...
        def scenario_actions(self, mid: str) -> list[Action]: ...
        def _scenario_start(self) -> None: ...
        def _scenario_end(self, last_turn: bool) -> bool: ...

        # -- cards, conditions, wounds
        def profile(self, mid: str) -> Profile | None: ...
        def feats(self, mid: str) -> dict[str, Feat]: ...
        def _trait(self, mid: str, keyword: str) -> tuple[bool, Any]: ...
        def _gain(self, mid: str, name: str, n: int = 1, value: Any = None) -> None: ...
        def _set_conditions(self, mid: str, new: dict) -> None: ...
        def _wound(self, mid: str, n: int) -> None: ...
