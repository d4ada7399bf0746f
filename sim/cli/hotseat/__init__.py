"""``python main.py hotseat``: two players (or a player and a bot) share one terminal.

The loop runs on any pair of text streams, so tests can script it::

    from sim.cli.hotseat import run_hotseat
    run_hotseat(game, stdin, stdout, bots={2: GreedyBot(1)}, clear="<<CLEAR>>")

At each decision the screen names the player to move (:meth:`Game.to_move`), shows the
state briefly (turn, phase, the player's models with position, counters, wounds left,
Ki and conditions; the enemy models with their positions and which of the player's
models see them) and the numbered legal actions (:meth:`Game.legal_actions`). The
player types a number, an action (``walk matsu 4.5 9``, ``charge kazuha asp``,
``shoot kenta asp``, ``allocate akira 2 1``, ``pass`` ...) or a command (``help``,
``state``, ``actions``, ``log [N]``, ``undo``, ``save FILE``, ``quit``).

* A typed action is judged with :meth:`Game.is_legal` first; a refusal prints the
  reason and asks again, and nothing is pushed. The engine makes a declared illegal
  action cost a counter (p.24), so such an action is only declared when the player
  answers ``yes`` right after the refusal.
* Melee allocations are secret (p.33): before each allocation prompt the screen is
  cleared (``clear``) and the device is passed ("Pass the device to player N, press
  Enter"); the allocation is read without echo, nothing printed after it names its
  numbers, and the log shows "allocates its dice in secret" until the exchange reveals
  both allocations.
* :class:`PromptDice` asks the players for the values they rolled (``--dice physical``).
* Built on the public :class:`~sim.rules.game.Game` API only (``legal_actions``,
  ``is_legal``, ``push``, ``pop``, ``to_move``, ``state``, ``exchange_pools``, ``save``,
  ``events``); :func:`table_now` rebuilds the table where the state has the models.

The package, by concept: :mod:`.console` (the two streams, end of input),
:mod:`.dice` (physical dice that prompt with what each roll is for), :mod:`.screens`
(the text shown: views, menu, log, hand-over), :mod:`.session` (the loop, undo, save)
and :mod:`.command` (``main.py hotseat``). The action notation (actions as typed text,
both ways) is :mod:`sim.rules.notation`, re-exported here. Every name listed in
``__all__`` is importable from ``sim.cli.hotseat``.
"""

from __future__ import annotations

from sim.rules.notation import KNOWN_KINDS, InputError, action_text, parse_action

from .command import add_parser, run_cli
from .console import MAX_DIGITS, Console, Quit, cut_word
from .dice import PromptDice, parse_dice, prompt_label
from .screens import (
    ANSI_CLEAR,
    DEFAULT_CLEAR,
    HELP,
    LINES_CLEAR,
    brief_view,
    describe_event,
    full_state,
    menu_text,
    table_now,
)
from .session import Hotseat, check_save_path, run_hotseat

__all__ = [
    "Quit", "InputError", "PromptDice", "run_hotseat", "Hotseat", "parse_action", "action_text",
    "describe_event", "table_now", "add_parser", "run_cli", "ANSI_CLEAR", "LINES_CLEAR", "DEFAULT_CLEAR",
    "parse_dice", "prompt_label", "brief_view", "full_state", "menu_text", "HELP", "KNOWN_KINDS", "MAX_DIGITS",
    "Console", "cut_word", "check_save_path",
]
