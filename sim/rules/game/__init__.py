"""A game of Bushido: Risen Sun, headless, seeded and replayable (General rules p.18-47).

In the spirit of python-chess: a :class:`Game` knows its state, lists the legal actions
of the active player (:meth:`Game.legal_actions`), applies one (:meth:`Game.push`), can
take it back (:meth:`Game.pop`), reads and sets positions (:meth:`Game.position`,
``Game(table, position=...)``, :meth:`Game.set_position`) and reports what happened as
:class:`Event` records.

* **Turn** (p.20-21): Starting phase (variable game length roll, Ki generation, two
  activation counters each, Tactical test, pass tokens for the side with fewer models),
  Main phase (alternating activations; a player with no model to activate is skipped;
  pass tokens), End phase (damaging conditions, expiry, scenario scoring, end of game).
* **State changes are events.** The state is a pure function of the table and the
  event list: :meth:`Game.replay` rebuilds it, and saving writes the table, the seed and
  the events (atomically).
* **Dice** come from a seeded source (one seed, one game) or from the players
  (:class:`~sim.rules.dice.PhysicalDice`).

    >>> from sim.table import load_table
    >>> g = Game(load_table(), seed=7, length=("fixed", 2))
    >>> g.state.turn, g.state.phase
    (1, 'main')
    >>> a = g.legal_actions()[0]
    >>> _ = g.push(a)

The package, one module per concept:

==========================  ==============================================================
``core``                    :class:`Game`, the facade: set-up, push/pop, is_legal, positions
``state``                   :class:`GameState`, :class:`ModelState`, :class:`GameError`
``part``                    ``GamePart``, the steps' base: what they share, typed for mypy
``events``                  :class:`Event` and the registry of event kinds (apply, describe)
``position``                the position format: read, check, write out, apply
``actions``                 :class:`Action` and the registry of action kinds
``turn``                    Starting, Main and End phases (p.20-21)
``activation``              declaring and resolving an action; conditions at declaration
``basic_actions``           Walk, Run, Focus, Wait, Stand Up, Pass (p.21, p.24-25)
``melee_step``              Charge, Melee, Disengage, allocations, exchanges (p.24, p.33-39)
``shooting_step``           Shoot, interception, Ammo (p.25, p.30-32)
``ki_step``                 Ki feats and boosts, Auras (p.46-47)
``scenario_step``           scenario set-up, Scenario actions, scoring (p.25, p.63)
``cards``                   profile cards, traits, conditions and wounds on a model
``offers``                  the legal actions offered, a random legal action
``saves``                   save, verified load, replay
``values``                  finite numbers and one-line message pieces
==========================  ==============================================================
"""

from __future__ import annotations

from sim.rules.game.actions import ACTION_KINDS, Action, ActionKind
from sim.rules.game.core import Game
from sim.rules.game.events import EVENT_KINDS, Event, EventKind, apply_event
from sim.rules.game.position import (
    MODEL_KEYS,
    PHASES,
    POSITION_DEFAULTS,
    POSITION_KEYS,
    apply_position,
    compact_position,
    expand_position,
    full_position,
)
from sim.rules.game.saves import GAME_FORMAT, is_save_head
from sim.rules.game.state import MAX_TURNS, GameError, GameState, ModelState
from sim.rules.game.values import MESSAGE_CHARS

__all__ = [
    "ACTION_KINDS", "Action", "ActionKind", "EVENT_KINDS", "Event", "EventKind", "GAME_FORMAT", "Game", "GameError",
    "GameState", "MAX_TURNS", "MESSAGE_CHARS", "MODEL_KEYS", "ModelState", "PHASES", "POSITION_DEFAULTS",
    "POSITION_KEYS", "apply_event", "apply_position", "compact_position", "expand_position", "full_position",
    "is_save_head",
]
