"""Why a set-up step is refused: :class:`Refusal` (code, message, rulebook page) and
:class:`SetupError`, which carries every refusal of one step.

Pages refer to the Russian Risen Sun rulebook (``shared/seeds/000_*``): Game Setup p.20,
Placement p.22, Tactical tests p.28, Flank p.52, Scout p.57, Terrain set-up p.62,
Deployment (scenario rules) p.63.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Rulebook pages the set-up cites.
PAGE_SETUP = "p.20"
PAGE_PLACEMENT = "p.22"
PAGE_TACTICAL = "p.28"
PAGE_FLANK = "p.52"
PAGE_SCOUT = "p.57"
PAGE_TERRAIN = "p.62"
PAGE_DEPLOYMENT = "p.63"


@dataclass(frozen=True)
class Refusal:
    """One reason a set-up step cannot be taken.

    Attributes:
        code: a short stable key (``outside-zone``, ``overlap``, ``not-your-turn`` ...).
        message: the reason in words, with the measured numbers (inches).
        page: the rulebook page of the rule (``"p.63"``), or ``""`` for a rule of the
            program (an unknown model id).
    """

    code: str
    message: str
    page: str = ""

    def __str__(self) -> str:
        return f"{self.message} ({self.page})" if self.page else self.message


class SetupError(ValueError):
    """A set-up choice or step that cannot be used. ``reasons`` holds every
    :class:`Refusal` (at least one); the message joins them on one line."""

    def __init__(self, reasons: "list[Refusal] | Refusal | str", where: str | None = None):
        if isinstance(reasons, str):
            reasons = [Refusal("invalid", reasons)]
        elif isinstance(reasons, Refusal):
            reasons = [reasons]
        self.reasons: tuple[Refusal, ...] = tuple(reasons)
        self.where = where
        text = "; ".join(str(r) for r in self.reasons)
        super().__init__(f"{where}: {text}" if where else text)
