"""Terrain rules that act in a melee exchange (Terrain p.60-61): Enhancing terrain gives
Reach.

"Возвышенная (Enhancing): модели, находящиеся на холмах или иных возвышенностях, получают
свойство Длинное (Reach) на своё рукопашное оружие для Обменов ударами, если только
не-Летающий (Cloudwalk) противник не начал активацию на той же возвышенной местности"
(p.60, line 1852).

Reading (rulings_A3): a model is "on" an Enhancing piece when its base centre lies inside
the piece's footprint. The opponent in the exchange "started the activation" where it
stood when the action that led to the exchange was resolved (its place before the move):
the active model's piece is recorded then as the mark :data:`ENHANCING_START` (a piece id,
cleared at the end of the turn with the other one-turn marks, and re-set by each such
action); the other model does not move in the activation, so where it is now is where it
started. The Reach gained acts as a weapon's Reach does (p.57): no Initiative for a model
in contact with an enemy at the start of the activation, none when both have Reach.

Functions take the :class:`~sim.rules.game.Game` (``game``).
"""

from __future__ import annotations

from typing import Any

from sim.geometry import Visibility
from sim.rules.game.events import Event

#: The one-turn mark: the Enhancing piece the active model stood on when its Charge or
#: Melee action began (a piece id).
ENHANCING_START = "enhancing_start"


def enhancing_piece(game: Any, mid: str) -> str | None:
    """The id of the Enhancing terrain piece model ``mid``'s base centre stands on now,
    or None (p.60)."""
    table = game.table_now()
    pos = table.model(mid).position
    for t in table.terrain:
        if t.visibility is Visibility.ENHANCING and t.footprint.contains_point(pos):
            return str(t.id)
    return None


def start_mark_events(game: Any, mid: str) -> list[Event]:
    """The events that record where the active model ``mid`` starts the action that may
    lead to an exchange (before its move): the :data:`ENHANCING_START` mark set to the
    Enhancing piece it stands on, or removed when it stands on none."""
    piece = enhancing_piece(game, mid)
    had = game.state.models[mid].conditions.get(ENHANCING_START)
    if piece is not None and piece != had:
        return [Event("condition", {"model": mid, "name": ENHANCING_START, "on": True, "value": piece})]
    if piece is None and had is not None:
        return [Event("condition", {"model": mid, "name": ENHANCING_START, "on": False})]
    return []


def enhancing_reach(game: Any, mid: str, opponent: str | None, active_id: str | None) -> bool:
    """Whether model ``mid`` fights with Reach from Enhancing terrain against
    ``opponent`` (p.60): it stands on an Enhancing piece, and ``opponent`` did not start
    the activation on that piece unless it has Cloudwalk. ``active_id``: the active
    model of the exchange (its start is its :data:`ENHANCING_START` mark)."""
    piece = enhancing_piece(game, mid)
    if piece is None:
        return False
    if opponent is None or opponent not in game.state.models:
        return True
    card = game.profile(opponent)
    if (card.trait("cloudwalk") is not None if card is not None
            else game.table_now().model(opponent).has_trait("cloudwalk")):
        return True
    if opponent == active_id:
        start = game.state.models[opponent].conditions.get(ENHANCING_START)
    else:
        start = enhancing_piece(game, opponent)
    return start != piece
