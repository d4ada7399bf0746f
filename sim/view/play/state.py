"""What the table shows of a game's public state, as plain data (no Panda3D).

:func:`model_markers` reads a :class:`~sim.rules.game.Game`'s state (``game.state``:
each model's wounds, Ki, activation counters, conditions and the markers that wound)
into one small frozen :class:`ModelMarkers` per model, which the markers layer
(:mod:`sim.view.layers.markers`, ``TableScene.set_markers``) draws on the table:
conditions as tokens beside the base (Conditions p.43-45), wounds as a bar (p.38), Ki
as pips (p.46) and activation counters as discs (p.24).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sim.rules import conditions as cond

__all__ = ["CONDITION_ORDER", "ModelMarkers", "conditions_text", "markers_of_state", "model_markers"]

#: The order condition tokens are listed in (the most telling first): the p.43-45
#: conditions, then ``exhausted`` (no activation counters left, p.24).
CONDITION_ORDER: tuple[str, ...] = (
    "prone", "stunned", "held", "bleed", "poisoned", "on_fire", "frightened", "blind", "immobilised", "berserk",
    "impetuous", "controlled", "death_sentence", "diseased", "disguised", "spirit_block", "reloading", "exhausted",
)


@dataclass(frozen=True)
class ModelMarkers:
    """The markers one model shows on the table.

    Attributes:
        model: the model's id.
        player: the side it fights for now (1 or 2; a Controlled model fights for the
            other side, p.43).
        alive: False once killed, and while Elsewhere (off the table: a model held
            back by Flank, p.5, p.52); a model not on the table shows nothing.
        wounds_left: wound boxes left (its card's Wounds minus the damage taken, p.38).
        wounds_max: its card's Wounds (5 for a model without a card).
        ki: Ki tokens now.
        ki_max: its Ki limit (the card's, p.46).
        counters: activation counters left this turn (p.24).
        conditions: ``(name, value)`` per condition it has, in :data:`CONDITION_ORDER`:
            the :data:`sim.rules.conditions.CONDITIONS` key (or ``exhausted``) and the
            number of markers (Bleed, Poisoned, On Fire: how many markers; Held: 1),
            or the X of Disguised (X) and the Fear TN of Frightened.
        held_by: the id of the model holding it (Held, p.44), or None.
        elsewhere: True while the model is Elsewhere (held back by Flank, not yet
            arrived, p.52): not on the table but not killed.
    """

    model: str
    player: int
    alive: bool
    wounds_left: int
    wounds_max: int
    ki: int
    ki_max: int
    counters: int
    conditions: tuple[tuple[str, int], ...] = ()
    held_by: str | None = None
    elsewhere: bool = False

    @property
    def killed(self) -> bool:
        """Removed from the game: not on the table and not Elsewhere."""
        return not self.alive and not self.elsewhere

    def has(self, name: str) -> bool:
        """Whether it carries the condition ``name`` (a key of :attr:`conditions`)."""
        return any(n == name for n, _ in self.conditions)

    def value(self, name: str) -> int | None:
        """The count or value of condition ``name``, or None when it has none."""
        return next((v for n, v in self.conditions if n == name), None)


def _condition_entries(model_state, exhausted: bool) -> tuple[tuple[tuple[str, int], ...], str | None]:
    """The ``(name, value)`` pairs of one :class:`~sim.rules.game.ModelState` and its holder."""
    found = cond.from_model(model_state)  # canonical names only; the one-turn marks (ran, shot ...) left out
    held_by = None
    out: list[tuple[str, int]] = []
    for name, raw in found.items():
        if name in ("disguised", "frightened"):
            try:
                n = int(raw)
            except (TypeError, ValueError):
                n = 1
        elif name == "held":
            held_by = raw if isinstance(raw, str) else None
            n = 1
        else:
            n = cond.count(found, name)
        if n > 0 or name in ("disguised", "frightened"):
            out.append((name, n))
    if exhausted:
        out.append(("exhausted", 1))
    rank = {n: i for i, n in enumerate(CONDITION_ORDER)}
    out.sort(key=lambda e: (rank.get(e[0], len(rank)), e[0]))
    return tuple(out), held_by


def markers_of_state(state) -> dict[str, ModelMarkers]:
    """:func:`model_markers` of a :class:`~sim.rules.game.GameState` (the models in its
    ``models`` order). A model shows ``exhausted`` when it has no activation counter
    left during the Main phase (p.24); before the first turn, in the Starting and End
    phases and once the game is over nobody does."""
    out: dict[str, ModelMarkers] = {}
    main = getattr(state, "phase", None) == "main"
    for mid, m in state.models.items():
        alive = bool(m.alive)
        conds, held_by = _condition_entries(m, exhausted=main and alive and m.counters <= 0)
        out[mid] = ModelMarkers(
            model=mid, player=int(m.player), alive=alive,
            wounds_left=max(0, int(m.wounds) - int(m.damage)), wounds_max=int(m.wounds),
            ki=int(m.ki), ki_max=int(m.ki_limit), counters=max(0, int(m.counters)) if alive else 0,
            conditions=conds if alive else (), held_by=held_by if alive else None,
            elsewhere=getattr(m, "elsewhere", None) is not None)
    return out


def model_markers(game) -> dict[str, ModelMarkers]:
    """The markers of every model of ``game`` (a :class:`~sim.rules.game.Game`), by
    model id, read from its public state (``game.state``): wounds left of the card's
    Wounds (p.38), Ki of the Ki limit (p.46), activation counters (p.24) and the
    conditions with their marker counts (p.43-45), ``exhausted`` in the Main phase when
    no counter is left. Killed models are included with ``alive`` False, models
    Elsewhere (Flank, p.52) with ``alive`` False and ``elsewhere`` True."""
    return markers_of_state(game.state)


def conditions_text(markers: Mapping[str, ModelMarkers], model: str) -> str:
    """One line for a model's markers (``wounds 3/6, Ki 2/8, counters 1; prone, bleed 2``),
    for logs and tests. Raises KeyError for an unknown model."""
    mk = markers[model]
    if mk.elsewhere:
        return f"{model}: Elsewhere (held back by Flank, p.52)"
    if not mk.alive:
        return f"{model}: killed"
    conds = ", ".join(n if v == 1 else f"{n} {v}" for n, v in mk.conditions)
    return (f"{model}: wounds {mk.wounds_left}/{mk.wounds_max}, Ki {mk.ki}/{mk.ki_max}, counters {mk.counters}"
            + (f"; {conds}" if conds else ""))
