"""The hot-seat session: the loop that asks the player to move (or lets a bot move),
reads a number, an action or a command, judges a typed action before declaring it
(p.24: a declared illegal action costs a counter, so it is declared only on ``yes``),
hands the device over before a secret melee allocation (p.33), undoes a player's last
decision, and saves the game (after every action with ``save=``, or on ``save FILE``).
"""

from __future__ import annotations

import re
import shlex
from typing import IO

from sim.files import check_output_path
from sim.rules.game import Action, Game, GameError, is_save_head
from sim.rules.notation import action_text, parse_action

from .console import MAX_DIGITS, Console, Quit, cut_word
from .screens import (
    DEFAULT_CLEAR,
    HELP,
    brief_view,
    describe_event,
    full_state,
    handoff_text,
    log_text,
    menu_text,
    revealed_allocations,
)


class Hotseat:
    """One hot-seat session on a game (see :func:`run_hotseat` for the arguments)."""

    def __init__(self, game: Game, stdin: IO[str], stdout: IO[str], bots: dict | None = None,
                 clear: str = DEFAULT_CLEAR, save: str | None = None, echo: bool | None = None,
                 max_actions: int = 10_000):
        self.game = game
        self.io = Console(stdin, stdout, echo)
        self.bots = dict(bots or {})
        for p in self.bots:
            if p not in (1, 2):
                raise ValueError(f"bots are keyed by player 1 or 2, got {p!r}")
        self.clear = clear
        self.save_path = save
        self.max_actions = max_actions
        self.history: list[int] = []  # who decided each action pushed in this session
        self.pushed = 0
        self.humans = [p for p in (1, 2) if p not in self.bots]

    # -- driving
    def run(self) -> str:
        """Play until the game ends (``"over"``) or the players stop (``"quit"``)."""
        g = self.game
        try:
            while not g.is_over():
                p = g.to_move()
                if p is None:
                    break
                if p in self.bots:
                    self._bot_turn(p)
                else:
                    self._human_turn(p)
        except Quit as q:
            self.io.write(f"{'Quit' if str(q) == 'quit' else 'End of input'}: the game stops here "
                          f"(turn {g.state.turn}, {g.state.phase} phase).")
            self._autosave(final=True)
            return "quit"
        self.io.write("")
        self.io.write(f"=== Game over: {g.state.result} ===")
        self.io.write(full_state(g))
        self._autosave(final=True)
        return "over"

    def _who(self, p: int) -> str:
        bot = self.bots.get(p)
        return f"Player {p} ({getattr(bot, 'name', type(bot).__name__)} bot)" if bot is not None else f"Player {p}"

    def _bot_turn(self, p: int) -> None:
        g = self.game
        action = self.bots[p].choose(g)
        if action.kind == "allocate":
            self.io.write(f"{self._who(p)} allocates {action.model}'s dice in secret.")
        else:
            self.io.write(f"{self._who(p)}: {action_text(action)}")
        if not self._push(action, p):
            raise RuntimeError(f"the bot of player {p} chose an action the engine refused: {action_text(action)}")

    def _handoff(self, p: int) -> None:
        """Clear the screen and wait until player ``p`` has the device."""
        self.io.stdout.write(self.clear)
        self.io.write("")
        self.io.write(handoff_text(p))
        line = self.io.read(f"Player {p}, press Enter: ", secret=True)
        if line.lower() in ("quit", "exit"):
            raise Quit("quit")

    def _human_turn(self, p: int) -> None:
        g = self.game
        secret = g.state.exchange is not None
        if secret and len(self.humans) == 2:
            self._handoff(p)
        self.io.write("")
        self.io.write(f"=== Player {p} to move ===")
        self.io.write(brief_view(g, p))
        actions = g.legal_actions()
        self.io.write("Your melee allocation (secret):" if secret else "Legal actions:")
        self.io.write(menu_text(actions))
        self.io.write("Type a number, an action, or help.")
        prompt = f"Player {p}, allocate in secret > " if secret else f"Player {p} > "
        pending: Action | None = None
        while True:
            line = self.io.read(prompt, secret=secret)
            if not line:
                continue
            if pending is not None and line.lower() in ("yes", "y"):
                if self._push(pending, p):
                    return
                pending = None
                continue
            pending = None
            cmd, _, rest = line.partition(" ")
            cmd = cmd.lower()
            rest = rest.strip()
            if cmd in ("help", "?", "h"):
                self.io.write(HELP)
            elif cmd == "state":
                self.io.write(full_state(g, g.to_move()))
            elif cmd in ("actions", "menu", "list"):
                self.io.write(menu_text(actions))
            elif cmd == "log":
                self._log(rest)
            elif cmd == "undo":
                if self._undo(p):
                    return
            elif cmd == "save":
                self._save(rest)
            elif cmd in ("quit", "exit"):
                raise Quit("quit")
            elif re.fullmatch(r"[0-9]+", line):
                i = int(line) if len(line) <= MAX_DIGITS else 0
                if not 1 <= i <= len(actions):
                    self.io.write(f"No action number {cut_word(line)}: the numbers go from 1 to {len(actions)}.")
                    continue
                if self._push(actions[i - 1], p):
                    return
            else:
                try:
                    action = parse_action(g, line)
                    ok, why = g.is_legal(action)
                except (ValueError, ArithmeticError) as exc:  # InputError, GameError (e.g. a NaN), overflow
                    self.io.write(f"Not understood: {exc}")
                    continue
                if ok:
                    if self._push(action, p):
                        return
                    continue
                self.io.write(f"Refused: {why or 'not legal now'}.")
                if self._forceable(action):
                    self.io.write("Nothing was declared. Type yes to declare it anyway (the engine reverts it and "
                                  "the model loses one activation counter, p.24), or choose again.")
                    pending = action

    def _forceable(self, action: Action) -> bool:
        """Whether the engine would take ``action`` as a declared illegal action (revert
        and one counter lost) rather than refuse it with a :class:`GameError`."""
        st = self.game.state
        if action.kind in Action.FREE or st.exchange is not None:
            return False
        m = st.models.get(action.model or "")
        return m is not None and m.alive and m.player == st.active and not m.exhausted

    def _push(self, action: Action, p: int) -> bool:
        """Push ``action`` for player ``p``; print what happened. False when the engine
        refused it (nothing changed)."""
        g = self.game
        if self.pushed >= self.max_actions:
            raise RuntimeError(f"the game did not end within {self.max_actions} actions")
        try:
            events = g.push(action)
        except GameError as exc:
            self.io.write(f"Refused: {exc}.")
            return False
        self.pushed += 1
        self.history.append(p)
        for k, ev in enumerate(events):
            if ev.kind == "exchange":
                self._reveal(len(g.events) - len(events) + k)
            self.io.write(describe_event(ev))
        if action.kind == "allocate" and g.state.exchange is not None:
            self.io.write(f"{action.model}'s allocation is recorded; it stays secret until both have allocated.")
        self._autosave()
        return True

    def _reveal(self, i: int) -> None:
        """Before the ``exchange`` event ``game.events[i]``: both allocations, from the
        last two ``allocated`` events before it."""
        text = revealed_allocations(self.game.events, i)
        if text is not None:
            self.io.write(text)

    def _undo(self, p: int) -> bool:
        g = self.game
        if p not in self.history:
            self.io.write("Nothing of yours to take back in this session"
                          + (" (a loaded game is not taken back past the load)."
                             if g.events and not self.history else "."))
            return False
        taken = []
        while self.history:
            who = self.history.pop()
            try:
                a = g.pop()
            except GameError as exc:
                self.io.write(f"Cannot take back more: {exc}")
                break
            taken.append((who, a))
            if who == p:
                break
        for who, a in taken:
            text = action_text(a) if (who == p or a.kind != "allocate") else f"{a.model}'s allocation (secret)"
            self.io.write(f"Took back: player {who}: {text}")
        if hasattr(self.game.dice, "state"):
            self.io.write("(The dice are rolled back too: the same declaration rolls the same dice.)")
        else:
            self.io.write("(Physical dice: a new declaration asks for new rolls.)")
        self._autosave()
        return True

    def _log(self, rest: str) -> None:
        n = 30
        if rest:
            if not re.fullmatch(r"[0-9]{1,%d}" % MAX_DIGITS, rest):
                self.io.write(f"log N: N is a number of lines (at most {MAX_DIGITS} digits)")
                return
            n = int(rest)
        self.io.write(log_text(self.game.events, n))

    def _save(self, rest: str) -> None:
        if not rest:
            self.io.write("save FILE: name the file")
            return
        try:
            path = shlex.split(rest)[0]
            check_save_path(path)
            self.game.save(path)
        except (OSError, ValueError) as exc:
            self.io.write(f"Cannot save: {exc}")
            return
        self.io.write(f"Saved {path} (continue with: python main.py hotseat --load {path})")

    def _autosave(self, final: bool = False) -> None:
        if not self.save_path:
            return
        try:
            self.game.save(self.save_path)
        except (OSError, ValueError) as exc:
            self.io.write(f"Cannot save {self.save_path}: {exc}")
            return
        if final:
            self.io.write(f"Saved {self.save_path}")


def run_hotseat(game: Game, stdin: IO[str], stdout: IO[str], bots: dict | None = None,
                clear: str = DEFAULT_CLEAR, save: str | None = None, echo: bool | None = None,
                max_actions: int = 10_000) -> str:
    """Play ``game`` at one terminal until it ends or the players stop.

    Args:
        game: a :class:`~sim.rules.game.Game` (new, or from :meth:`Game.load`).
        stdin, stdout: text streams; every line the players type is read from ``stdin``
            (including the Enter of a hand-over and, with :class:`PromptDice` on the same
            stream, the dice).
        bots: ``{player: bot}`` (a bot has ``choose(game) -> Action``, e.g.
            :class:`~sim.rules.bots.GreedyBot`); the other players are human.
        clear: written before each secret allocation prompt when both players are human
            (:data:`LINES_CLEAR` by default, :data:`ANSI_CLEAR` for a terminal).
        save: a path the game is saved to after every action and at the end.
        echo: write each typed line after its prompt (secret input as ``(hidden)``);
            default: when ``stdin`` is not a terminal.
        max_actions: a guard against a game that never ends.

    Returns:
        ``"over"`` when the game ended, ``"quit"`` after ``quit`` or the end of the input.

    Raises:
        ValueError: ``bots`` names a player other than 1 or 2.
        RuntimeError: a bot's action is refused by the engine, or more than
            ``max_actions`` actions were played.
    """
    return Hotseat(game, stdin, stdout, bots=bots, clear=clear, save=save, echo=echo, max_actions=max_actions).run()



def check_save_path(path: str) -> None:
    """Refuse, before anything is played or written, a save path whose folder is missing
    or not writable, or an existing file that is not a save (it would be destroyed).

    Raises:
        sim.files.OutputPathError: a ``ValueError`` naming the file and the problem.
    """
    check_output_path(path, overwrite=is_save_head, kind="bushido-game/1 save")

