"""The two sides of a melee exchange and what can go wrong in one (Melee Attacks
p.33-37).

``"a"`` and ``"b"`` name the two models of an exchange (:data:`Side`, in order
:data:`SIDES`; :func:`other_side`), ``"attack"`` and ``"defence"`` the two kinds of dice
(:data:`Kind`). :class:`MeleeError` is an exchange that cannot be played as asked,
:class:`AllocationError` a secret allocation that breaks the rules (p.33-35, p.39).
"""

from __future__ import annotations

from typing import Literal

#: The two models of an exchange: ``"a"`` and ``"b"``.
Side = Literal["a", "b"]
#: The two kinds of melee dice.
Kind = Literal["attack", "defence"]
#: The two sides of an exchange, in order.
SIDES: tuple[Side, Side] = ("a", "b")


class MeleeError(ValueError):
    """An exchange that cannot be played as asked (bad input, contradictory state)."""


class AllocationError(MeleeError):
    """A secret allocation that breaks the rules (p.33-35, p.39)."""


def other_side(side: Side) -> Side:
    """The side facing ``side``: ``"b"`` for ``"a"`` and ``"a"`` for ``"b"``."""
    return "b" if side == "a" else "a"
