"""Variable values on a card in melee. Melee weapons whose card prints a variable
Strength (``X``, ``+X``, ``X-2``, ``Sp``, ``Special``; 16 catalogue weapons): the card's
own rule gives the value or the effect, which the engine cannot read. Found by the
warband fuzzer (benchmarks/fuzz_warbands.py): such a model used to stop the game with an
error as soon as it fought.

The project's reading (as for an (Sp) ranged weapon in sim.rules.ranged.attack: no
damage roll): the model fights its exchange normally (dice, specials, conditions) with the
weapon at Strength +0, but a successful attack with that weapon makes NO damage roll;
the exchange's log names the card's weapon as a manual step, so the players apply the
card's Strength or effect by hand (``Game.adjust``).

Cards printing a variable Melee statistic (``X``, ``X+1``: the swarms, Yanki,
Shenzhiqi ...; most say X is the wound boxes left unmarked) fight with a stand-in Melee
equal to their unmarked wound boxes (at least 1), and the exchange's log names it as a
manual step (the players correct the dice by hand where the card's X is another value).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

__all__ = ["card_melee_weapon", "has_variable_strength", "manual_steps", "no_damage_reason", "stand_in_card",
           "stand_in_strength"]


def card_melee_weapon(card: Any, weapon: Any = None) -> Any:
    """The :class:`models.profiles.Weapon` of ``card`` a model fights with: ``weapon``
    None (the card's first melee weapon), an index among its melee weapons, or a name
    (case-insensitive). None when the card has no such melee weapon, or ``weapon`` is
    already a built :class:`~sim.rules.melee.MeleeWeapon`."""
    melee = [w for w in getattr(card, "weapons", ()) if w.kind == "melee"]
    if weapon is None:
        return melee[0] if melee else None
    if isinstance(weapon, int):
        return melee[weapon] if 0 <= weapon < len(melee) else None
    if isinstance(weapon, str):
        found = [w for w in melee if w.name.lower() == weapon.lower()]
        return found[0] if found else None
    return None


def has_variable_strength(card: Any, weapon: Any = None) -> bool:
    """True when the melee weapon of ``card`` named by ``weapon`` (see
    :func:`card_melee_weapon`) prints a variable Strength (``strength`` None)."""
    w = card_melee_weapon(card, weapon)
    return w is not None and w.strength is None


def stand_in_strength(card: Any, weapon: Any = None) -> int | None:
    """The ``weapon_strength`` to build the combatant with: 0 for a weapon printing a
    variable Strength (its damage is the card's rule, see :func:`no_damage_reason`),
    else None (the printed Strength)."""
    return 0 if has_variable_strength(card, weapon) else None


def no_damage_reason(game: Any, attacker: str) -> str:
    """Why no damage roll is made against the attacker's opponent in the waiting
    exchange: the attacker fights with a weapon printing a variable Strength (a manual
    step naming the weapon), or "" when it does not."""
    ex = game.state.exchange
    card = game.profile(attacker)
    if card is None:
        return ""
    choice = (ex or {}).get("weapons", {}).get(attacker)
    w = card_melee_weapon(card, choice)
    if w is None or w.strength is not None:
        return ""
    return (f"MANUAL STEP: {attacker}'s {w.name} prints a variable Strength; apply its card's rule "
            "(the damage or the effect) by hand")


def stand_in_card(game: Any, mid: str, card: Any) -> Any:
    """``card`` (``mid``'s effective card) with a stand-in Melee statistic where it prints
    a variable one (``melee`` None): the model's unmarked wound boxes, at least 1 (see
    the module docstring); the card itself otherwise."""
    if card is None or card.melee is not None:
        return card
    m = game.state.models[mid]
    return replace(card, melee=max(1, int(m.wounds) - int(m.damage)))


def manual_steps(game: Any, mid: str) -> list[str]:
    """Exchange log lines for the values of ``mid``'s card the engine stands in for: a
    variable Melee statistic (:func:`stand_in_card`)."""
    card = game.profile(mid)
    if card is None or card.melee is not None:
        return []
    melee = stand_in_card(game, mid, card).melee
    return [f"MANUAL STEP: {mid}'s card prints a variable Melee statistic; the engine rolled Melee {melee} "
            "(its unmarked wound boxes): correct it by hand where the card's X is another value"]
