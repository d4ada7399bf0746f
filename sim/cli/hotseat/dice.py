"""Physical dice at the hot-seat (``--dice physical``): :class:`PromptDice` asks the
players for the values they rolled, :func:`parse_dice` reads a typed line of values,
and :func:`prompt_label` names what a roll is for (the Tactical test, a model's attack
dice, a damage roll, a Fear test ...) from the :class:`~sim.rules.dice.RollPurpose` the
engine hands to every roll (``roll(n, purpose)``, rulebook pages in
:class:`~sim.rules.dice.RollKind`).
"""

from __future__ import annotations

import re
from typing import IO

from sim.rules.dice import DiceError, PhysicalDice, RollPurpose

from .console import Console, Quit, cut_word


class PromptDice(PhysicalDice):
    """Physical dice that ask the players for the values they rolled.

    Values fed beforehand (constructor or :meth:`feed`) are used first; when too few are
    left, ``roll(n, purpose)`` writes "Roll K dice for WHAT: " on ``stdout`` and reads the
    values from ``stdin`` (separated by spaces or commas, or as one run of digits). A line
    with the wrong count or a value outside 1..6 is refused and asked again. WHAT is
    :func:`prompt_label` of the roll's purpose (the Tactical test, a model's attack dice, a
    damage roll, a Fear test ...).

    Raises:
        Quit: the input ended, or a player typed ``quit``, while dice were asked for.
        DiceError: ``n`` is not an int >= 0 (from :class:`PhysicalDice`).
    """

    def __init__(self, stdin: IO[str], stdout: IO[str], values=(), echo: bool | None = None):
        super().__init__(values)
        self.console = Console(stdin, stdout, echo)

    def roll(self, n: int, purpose: RollPurpose | None = None) -> list[int]:
        """``n`` values in 1..6 for ``purpose``: fed ones first, then the ones the players type."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DiceError(f"cannot roll {n!r} dice: the number of dice must be an int >= 0")
        need = n - self.remaining
        if need > 0:
            what = prompt_label(purpose)
            more = " more" if self.remaining else ""
            self.feed(self._ask(need, f"Roll {need}{more} {'die' if need == 1 else 'dice'} for {what}: "))
        return super().roll(n, purpose)

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


def prompt_label(purpose: RollPurpose | None) -> str:
    """What a roll is for, in a prompt: :meth:`RollPurpose.label
    <sim.rules.dice.RollPurpose.label>` (e.g. ``"the Tactical test, player 1"``,
    ``"akira's attack dice"``, ``"a damage roll (akira against masunagi)"``), or
    ``"a roll"`` when no purpose was given."""
    return purpose.label() if purpose is not None else "a roll"
