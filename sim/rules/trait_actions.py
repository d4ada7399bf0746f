"""Traits that forbid whole kinds of actions (p.48-59): Slow, Stupid, Insignificant.

Pure data and one function: :func:`trait_refusal` says why a model with given traits may
not declare an action kind. The game calls it for every declaration
(``Activation._declaring_refusal``) and filters the actions it offers with it, so the
window, the bots and a server never see such an action offered.

* Slow (p.58): "эта модель может не объявлять действия Бег и Нападение" -- no Run, no
  Charge.
* Stupid (p.58): "не может объявлять Ожидание, Выход из боя, Сценарий или любые Сложные
  Действия" -- no Wait, Disengage, Scenario action, nor any Complex action.
* Insignificant (p.54): "Не может выполнять простые или сложные действия Сценария".
"""

from __future__ import annotations

from collections.abc import Callable

from sim.rules.action_kinds import COMPLEX_ACTIONS

__all__ = ["TRAIT_FORBIDS", "trait_refusal"]

#: ``trait key -> (name, page, forbidden action kinds)``; Stupid also forbids every
#: Complex action (:data:`sim.rules.action_kinds.COMPLEX_ACTIONS`).
TRAIT_FORBIDS: dict[str, tuple[str, int, frozenset[str]]] = {
    "slow": ("Slow", 58, frozenset({"run", "charge"})),
    "stupid": ("Stupid", 58, frozenset({"wait", "disengage", "scenario", "complex_scenario"}) | COMPLEX_ACTIONS),
    "insignificant": ("Insignificant", 54, frozenset({"scenario", "complex_scenario"})),
}


def trait_refusal(kind: str, has: Callable[[str], bool]) -> str | None:
    """Why a model may not declare an action of ``kind`` because of its traits, or None.

    Args:
        kind: an action kind (``run``, ``charge``, ``wait`` ...,
            :data:`sim.rules.action_kinds.ACTION_RULES`).
        has: ``has(trait_key) -> bool``, whether the model has the trait now.

    Returns:
        ``"Slow: it may not declare a Run (p.58)"`` and the like, or None.
    """
    for key, (name, page, kinds) in TRAIT_FORBIDS.items():
        if kind in kinds and has(key):
            return f"{name}: it may not declare {kind.replace('_', ' ')} (p.{page})"
    return None
