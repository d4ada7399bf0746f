"""Physical dice at the hot-seat (``--dice physical``): :class:`PromptDice` asks the
players for the values they rolled, :func:`parse_dice` reads a typed line of values,
and :func:`roll_purpose` names what a roll is for (the Tactical test, a model's attack
dice, a damage roll, a Fear test ...) from the engine's call stack.

The label is read from stack frames for now (function and local variable names of the
engine); dice that carry their purpose (``roll(n, purpose)``, issue #11) will replace it.
"""

from __future__ import annotations

import re
import sys
from typing import IO

from sim.rules.dice import DiceError, PhysicalDice

from .console import Console, Quit, cut_word


class PromptDice(PhysicalDice):
    """Physical dice that ask the players for the values they rolled.

    Values fed beforehand (constructor or :meth:`feed`) are used first; when too few are
    left, ``roll(n)`` writes "Roll K dice for WHAT: " on ``stdout`` and reads the values
    from ``stdin`` (separated by spaces or commas, or as one run of digits). A line with
    the wrong count or a value outside 1..6 is refused and asked again. WHAT names the
    roll as far as the engine's call stack tells it (the Tactical test, a model's attack
    dice, a damage roll, a Fear test ...).

    Raises:
        Quit: the input ended, or a player typed ``quit``, while dice were asked for.
        DiceError: ``n`` is not an int >= 0 (from :class:`PhysicalDice`).
    """

    def __init__(self, stdin: IO[str], stdout: IO[str], values=(), echo: bool | None = None):
        super().__init__(values)
        self.console = Console(stdin, stdout, echo)
        self._seq_frame = None  # the caller of the previous roll (kept alive: identity is safe)
        self._seq_n = 0

    def roll(self, n: int) -> list[int]:
        """``n`` values in 1..6: fed ones first, then the ones the players type."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DiceError(f"cannot roll {n!r} dice: the number of dice must be an int >= 0")
        caller = sys._getframe(1)
        while caller is not None and getattr(caller.f_locals.get("self"), "records_rolls", False):
            caller = caller.f_back  # the game's roll recorder: what the roll is for is further up
        if caller is self._seq_frame:
            self._seq_n += 1
        else:
            self._seq_frame, self._seq_n = caller, 0
        need = n - self.remaining
        if need > 0:
            what = roll_purpose(caller, self._seq_n)
            more = " more" if self.remaining else ""
            self.feed(self._ask(need, f"Roll {need}{more} {'die' if need == 1 else 'dice'} for {what}: "))
        return super().roll(n)

    def _ask(self, n: int, prompt: str) -> list[int]:
        while True:
            line = self.console.read(prompt)
            if line.lower() in ("quit", "exit"):
                raise Quit("quit")
            try:
                return parse_dice(line, n)
            except (DiceError, ValueError) as exc:
                example = " ".join(str(v) for v in ([3, 5, 6, 1, 4, 2] * (n // 6 + 1))[:n])
                self.console.write(f"  {exc}; type {n} value{'s' if n > 1 else ''} from 1 to 6 (e.g. {example})")


def parse_dice(text: str, n: int) -> list[int]:
    """``n`` die values from a typed line: ``"3 5 6"``, ``"3,5,6"`` or ``"356"``.

    Raises:
        DiceError: not ``n`` values, or a value that is not a whole number 1..6.
    """
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    if len(parts) == 1 and n > 1 and parts[0].isdigit() and len(parts[0]) == n:
        parts = list(parts[0])
    values = []
    for p in parts:
        if not re.fullmatch(r"[1-6]", p):  # ASCII only, so no int() of a huge or odd-digit word
            raise DiceError(f"{cut_word(p)!r} is not a die value (1 to 6)")
        values.append(int(p))
    if len(values) != n:
        raise DiceError(f"{len(values)} value{'s' if len(values) != 1 else ''} given, {n} asked for")
    return values


def roll_purpose(caller, ordinal: int = 0) -> str:
    """What a roll is for, read from the call stack of the engine (best effort).

    ``caller`` is the frame that called ``Dice.roll``; ``ordinal`` counts the earlier
    rolls made by that same frame (0 for the first). Returns e.g. ``"the Tactical test,
    player 1"``, ``"akira's attack dice"``, ``"a damage roll (akira against masunagi)"``;
    ``"a roll"`` when nothing is recognised. Never raises.
    """
    try:
        return _purpose(caller, ordinal)
    except Exception:  # noqa: BLE001 - a label must never break a game
        return "a roll"


_TESTS = {"fear_test": "a Fear test", "size_test": "a Size test", "feat_test": "a Ki feat test",
          "tactical_test": "the Tactical test", "resolve_ranged_attack": "a ranged attack",
          "resolve_btb_targeting": "a ranged attack"}


def _purpose(caller, ordinal: int) -> str:
    frames = []
    f = caller
    while f is not None and len(frames) < 30:
        frames.append(f)
        f = f.f_back
    names = [x.f_code.co_name for x in frames]
    loc = frames[0].f_locals
    if names[0] == "resolve_exchange":
        c = loc["c"]
        if "picks" in loc:
            return f"{c[loc['by']].id}'s re-roll of {c[loc['on']].id}'s dice ({loc['src'].name})"
        return f"{c[loc['s']].id}'s {'attack' if ordinal % 2 == 0 else 'defence'} dice"
    if names[0] == "_start_turn":
        return "the variable game length roll"
    kind = None
    if names[0] == "_apply_rerolls":
        kind = "a re-roll"
    elif names[0] == "damage_roll":
        kind = "a damage roll"
    elif names[0] == "_roll_both":
        if "tactical_test" in names:
            return f"the Tactical test, player {1 if ordinal % 2 == 0 else 2}"
        kind = f"an opposed test, {'first' if ordinal % 2 == 0 else 'second'} side"
    if kind is None:
        kind = next((_TESTS[n] for n in names if n in _TESTS), None)
    if kind is None and "roll_pool" in names:
        kind = "a challenge test"
    who = None
    for fr, name in zip(frames, names):
        lc = fr.f_locals
        if name == "damage_roll" and "roller" in lc:
            who = f"{lc['roller'].id} against {lc['target'].id}"
        elif name == "resolve_ranged_attack":
            who = f"{lc['attacker_id']} shooting at {lc['target_id']}"
        elif name == "resolve_exchange":
            who = f"melee: {lc['a'].id} against {lc['b'].id}"
        elif name == "_fear_on_contact" and isinstance(lc.get("who"), str):
            who = lc["who"]
        elif name in ("_end_phase", "_immobilised_test", "_disguise_test", "_use_feat") and hasattr(lc.get("m"), "id"):
            who = lc["m"].id
        if who:
            break
    kind = kind or "a roll"
    return f"{kind} ({who})" if who else kind

