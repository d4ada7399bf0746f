"""The Wait options a model's own card gives (p.25) and the choice among the Wait options
of the model's own markers.

p.25, Wait: "модель, выполняющая действие Ожидания, может выбрать один из следующих
эффектов, вызванных действием ожидания. - Удалить все маркеры «Оглушен» - Удалить все
маркеры «Обездвижен» - Удалить до 2 маркеров «Огонь» - Удалить маркер «Перезарядка» -
эффект, вызванный действием Ожидания, указанный на карточке модели или специальной
карточке ..."

* **A card's Wait effect.** A unique effect of the model's catalogue card (p.12, item 11)
  whose text names the Wait action is a Wait option the engine cannot apply (free text):
  ``Action("wait", model, special="card:<effect name>")`` is offered by
  ``legal_actions()`` and logs a ``manual_step`` event with the card's text (read from the
  catalogue at run time), so the players apply it by hand; it is never skipped silently.
  A special card's Wait effect (an enhancement, an event) is not on the profile: the
  players declare a plain Wait and apply it (the card chapter, p.14-15).
* **Own markers.** When a model has more than one of the p.25 options (Stunned,
  Immobilised, On Fire, Reloading), each is offered as ``Action("wait", model,
  special=<key>)`` (the keys of :func:`sim.rules.conditions.removed_by_wait`).

Functions take the :class:`~sim.rules.game.Game` (``game``) and are called from the Wait
action's legality and resolution (:mod:`sim.rules.game.basic_actions`) and from the offers.
"""

from __future__ import annotations

import re
from typing import Any

from sim.rules import conditions
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.state import ModelState

__all__ = ["CARD_PREFIX", "card_wait_effects", "card_wait_refusal", "card_wait_events", "wait_choice_offers"]

#: ``Action.special`` of a card's Wait effect: ``"card:" + the effect's name``.
CARD_PREFIX = "card:"

#: The keys of the Wait options on the model's own markers (p.25).
_OWN_KEYS = ("stunned", "immobilised", "on_fire", "reloading")

_WAIT = re.compile(r"\bwait\s+action", re.IGNORECASE)


def card_wait_effects(game: Any, mid: str) -> list[Any]:
    """The unique effects of model ``mid``'s card (``name``, ``text``) that a Wait action
    triggers: their text names the Wait action ("... may perform a Wait action to ...",
    "When this model performs a Wait Action ..."). Empty for a card without catalogue
    text (a hand-written profile file)."""
    prof = game.profile(mid)
    effects = getattr(prof, "unique_effects", ()) if prof is not None else ()
    return [e for e in effects if _WAIT.search(getattr(e, "text", "") or "")]


def _named(game: Any, mid: str, special: str) -> Any | None:
    name = special[len(CARD_PREFIX):].strip().lower()
    return next((e for e in card_wait_effects(game, mid) if e.name.strip().lower() == name), None)


def card_wait_refusal(game: Any, m: ModelState, action: Action) -> str | None:
    """Why ``m`` may not declare the Wait ``action``: it names a card effect
    (``special="card:<name>"``) the card does not have, or an option on its own markers
    (``"stunned"``, ``"immobilised"``, ``"on_fire"``, ``"reloading"``) it has no marker
    for; None otherwise (other Waits are judged by :mod:`sim.rules.game.wait_options`)."""
    special = action.special or ""
    if special in _OWN_KEYS and action.target in (None, m.id):  # an option on its own markers (p.25)
        keys = [o.key for o in conditions.removed_by_wait(conditions.from_model(m))]
        if special not in keys:
            return f"{m.id} has no {special.replace('_', ' ')} marker for its Wait to remove (p.25; may: " \
                   f"{', '.join(keys) or 'none'})"
        return None
    if not special.startswith(CARD_PREFIX):
        return None
    if _named(game, m.id, special) is None:
        have = ", ".join(e.name for e in card_wait_effects(game, m.id)) or "none"
        return f"{m.id}'s card has no Wait effect {special[len(CARD_PREFIX):]!r} (p.25; its Wait effects: {have})"
    return None


def card_wait_events(game: Any, action: Action) -> list[Event] | None:
    """The events of a Wait that names a card effect: a ``manual_step`` with the card's
    text (the players apply it, p.25); None for any other Wait."""
    special = action.special or ""
    if not special.startswith(CARD_PREFIX) or action.model is None:
        return None
    eff = _named(game, action.model, special)
    assert eff is not None  # judged legal
    return [Event("manual_step", {"model": action.model, "source": eff.name,
                                  "text": f"the Wait action's effect printed on the card (p.25): {eff.text}"})]


def wait_choice_offers(game: Any, m: ModelState) -> list[Action]:
    """The Wait options of ``m`` besides the plain Wait: each card Wait effect, and each of
    its own markers' options when it has more than one (p.25)."""
    out = [Action("wait", m.id, special=CARD_PREFIX + e.name) for e in card_wait_effects(game, m.id)]
    opts = conditions.removed_by_wait(conditions.from_model(m))
    if len(opts) > 1:
        out += [Action("wait", m.id, special=o.key) for o in opts]
    return [a for a in out if game.is_legal(a)[0]]
