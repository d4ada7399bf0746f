"""Why a ranged attack or an interceptor is refused (Ranged Attacks p.30-32):
:class:`Reason` (a code, a sentence a player can read, the rulebook step) and
:class:`RangedAttackError`, raised with the reasons when an attack cannot be declared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


class RangedAttackError(ValueError):
    """The ranged attack cannot be declared (not a ranged weapon, no LoS, attacker in BtB
    with or in the ZoC of an enemy, target not an enemy ...) or an argument is invalid.
    ``reasons`` holds the :class:`Reason` objects when there are any."""

    def __init__(self, message: str, reasons: Sequence["Reason"] = ()):
        super().__init__(message)
        self.reasons = tuple(reasons)


@dataclass(frozen=True)
class Reason:
    """Why a model cannot shoot (or why a model cannot intercept).

    Attributes:
        code: short machine name (``no-los``, ``enemy-zoc``, ``out-of-range`` ...).
        message: one sentence a player can read.
        ruling: the rule (rulebook page).
        element: the model id involved, if any.
    """

    code: str
    message: str
    ruling: str
    element: str | None = None

    def to_json(self) -> dict:
        """The contribution as plain JSON values."""
        out = {"code": self.code, "message": self.message, "ruling": self.ruling}
        if self.element is not None:
            out["element"] = self.element
        return out
