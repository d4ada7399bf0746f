"""Card traits that depend on the position, applied to a melee Combatant or a shot
(Traits p.48-59): Bear Stands Alone (p.49), Co-ordinated Attack [K] (p.50), Vengeance [K]
(p.59), and the ranged halves of Brutal (X) (p.50), Prowess [Ranged] (X) (p.56) and
Assassin (p.49).

:mod:`sim.rules.melee` is pure: it reads a :class:`~sim.rules.melee.Combatant` and knows
nothing of the table. These functions read the game (its public API: ``state``,
``profile``, ``table_now``) and return the Combatant with what the position gives it, or
the extra arguments of a ranged attack. Keyword matching: :mod:`sim.rules.card_keywords`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from models.traits import trait_key
from sim.rules import conditions
from sim.rules.card_keywords import keyword_matches, needs_choice, view_of
from sim.rules.dice import Rerolls, RollOptions, reroll_below
from sim.rules.melee import Combatant, MeleeWeapon

__all__ = ["BEAR_RANGE", "adjust_combatant", "exchange_opponent", "manual_steps", "ranged_card_kwargs",
           "card_qualifiers", "edge_distance", "tactical_rerolls"]

#: Bear Stands Alone (p.49): "пока в пределах 3\" от этой модели нет дружественных моделей".
BEAR_RANGE = 3.0


def card_qualifiers(card, key: str) -> list[tuple[str, Any]]:
    """``(qualifier, value)`` of every trait ``key`` on ``card`` (none without a card)."""
    if card is None:
        return []
    return [(t.qualifier or "", t.value) for t in card.traits if trait_key(t.keyword) == key]


def edge_distance(table, a: str, b: str) -> float:
    """Inches between the bases of models ``a`` and ``b`` on ``table`` (edge to edge, p.22)."""
    ma, mb = table.model(a), table.model(b)
    return math.dist(ma.position, mb.position) - ma.radius - mb.radius


def exchange_opponent(game, mid: str) -> str | None:
    """The model ``mid`` fights in the waiting melee exchange, or None."""
    ex = game.state.exchange
    if ex is None or mid not in (ex.get("attacker"), ex.get("defender")):
        return None
    return ex["defender"] if mid == ex["attacker"] else ex["attacker"]


def _view(game, holder: str, other: str):
    s = game.state.models[other]
    return view_of(game.profile(other), friendly=s.player == game.state.models[holder].player,
                   conditions=conditions.from_model(s).keys())


def _friends(game, mid: str) -> list[str]:
    me = game.state.models[mid]
    return [x.id for x in game.state.models.values() if x.id != mid and x.alive and x.player == me.player]


def _bear_alone(game, mid: str, table) -> bool:
    """No friendly model within 3" of ``mid`` (Bear Stands Alone, p.49)."""
    return all(edge_distance(table, mid, f) > BEAR_RANGE + 1e-9 for f in _friends(game, mid))


def _coordinated(game, mid: str, opponent: str, table) -> bool:
    """Co-ordinated Attack [K] (p.50): a friendly [K] model is also in contact with the opponent."""
    from sim.rules import movement

    for q, _v in card_qualifiers(game.profile(mid), "coordinated_attack"):
        for f in _friends(game, mid):
            if edge_distance(table, f, opponent) <= movement.CONTACT + 1e-9 and keyword_matches(q, _view(game, mid, f)):
                return True
    return False


def _vengeance(game, mid: str, opponent: str) -> bool:
    """Vengeance [K] (p.59) against ``opponent``: it is a [K] model."""
    return any(keyword_matches(q, _view(game, mid, opponent)) for q, _v in
               card_qualifiers(game.profile(mid), "vengeance"))


def adjust_combatant(game, comb: Combatant, opponent: str | None = None) -> Combatant:
    """``comb`` (model ``comb.id`` in the game now) with the traits that depend on the
    position: Bear Stands Alone: Indomitable (+1) while no friendly model is within 3"
    (p.49); and, against ``opponent`` (default: its opponent in the waiting exchange; none:
    those two are not applied), Co-ordinated Attack [K]: Melee +1 while a friendly [K]
    model is also in contact with the opponent (p.50); Vengeance [K]: its melee weapon gets
    Brutal (+1) and Strength +1 against a [K] model (p.59; reading: +1 on the Brutal it
    fights with). A keyword the player chooses (``Chosen model``) is a manual step
    (:func:`manual_steps`)."""
    mid = comb.id
    card = game.profile(mid)
    if card is None or mid not in game.state.models:
        return comb
    keys = {trait_key(t.keyword) for t in card.traits}
    if not keys & {"bear_stands_alone", "coordinated_attack", "vengeance"}:
        return comb
    table = game.table_now()
    if "bear_stands_alone" in keys and _bear_alone(game, mid, table):
        comb = replace(comb, indomitable=comb.indomitable + 1)
    opponent = opponent or exchange_opponent(game, mid)
    if opponent is None or opponent not in game.state.models or not game.state.models[opponent].alive:
        return comb
    if "coordinated_attack" in keys and _coordinated(game, mid, opponent, table):
        comb = replace(comb, melee=comb.melee + 1)
    if "vengeance" in keys and _vengeance(game, mid, opponent):
        w = comb.weapon
        weapon = MeleeWeapon(w.name, w.strength + 1, w.traits, w.specials)
        comb = replace(comb, weapon=weapon, brutal=comb.brutal_value + 1)
    return comb


def manual_steps(game, mid: str, opponent: str) -> list[str]:
    """Log lines naming the card rules of ``mid`` the players apply by hand in its exchange
    with ``opponent``: Vengeance [K] and Co-ordinated Attack [K] whose keyword is the
    player's choice (``Vengeance [Chosen model]``, p.59, p.50)."""
    out = []
    for key, effect in (("vengeance", "Brutal (+1) and Strength +1 against that model"),
                        ("coordinated_attack", "Melee +1")):
        card = game.profile(mid)
        for t in (card.traits if card is not None else ()):
            if trait_key(t.keyword) == key and needs_choice(t.qualifier):
                out.append(f"manual step: {mid}'s {t.text}: if {opponent} is the chosen model, {effect} "
                           "(the engine does not know the choice)")
    return out


def ranged_card_kwargs(game, mid: str, target: str, weapon=None) -> dict[str, Any]:
    """Extra arguments of :func:`sim.rules.ranged.resolve_ranged_attack` from the shooter's
    card and its ranged ``weapon``: Brutal (X) adds X to the ranged attack result (p.50; the
    model's or the weapon's, the higher); Prowess [Ranged] (X): up to X of its own dice re-rolled in the
    Ranged test (p.56; the engine re-rolls its dice below 4, lowest first), also in the
    test for shooting into contact; Adept [Ranged] (X): X more supporting dice (p.48);
    Assassin: a damage roll against a target it Surprised rolls three dice and keeps two,
    Strong and Weak ignored (p.49)."""
    card = game.profile(mid)
    if card is None:
        return {}
    out: dict[str, Any] = {}
    from sim.rules.ranged.weapons import trait_value

    try:
        w_brutal = int(trait_value(weapon, "brutal", 0) or 0) if weapon is not None else 0
    except ValueError:  # Brutal (X) printed with a variable value: nothing the engine can add
        w_brutal = 0
    brutal = max([int(v or 0) for _q, v in card_qualifiers(card, "brutal")] + [w_brutal])
    if brutal:
        out["brutal"] = brutal
    prowess = _prowess_for(card, "ranged")
    if prowess:
        out["rerolls"] = Rerolls(a_on_a=reroll_below(4, prowess))
    adept = sum(int(v or 1) for q, v in card_qualifiers(card, "adept")
                if "ranged" in [w.strip() for w in q.lower().split(",")])
    if adept:
        out["options"] = RollOptions(adept=adept)
    t = game.state.models.get(target)
    if card_qualifiers(card, "assassin") and t is not None and "surprised" in t.conditions:
        out["strong"], out["weak"] = True, False
    return out


def _prowess_for(card, test: str) -> int:
    """Prowess [..] (X) of ``card`` for a ``test`` keyword (``ranged``, ``tactical``; p.56)."""
    return sum(int(v or 1) for q, v in card_qualifiers(card, "prowess")
               if test in [w.strip() for w in q.lower().split(",")])


def tactical_rerolls(game) -> Rerolls | None:
    """Prowess [Tactical] (X) in the turn's Tactical test (p.56, p.28): each player's
    nominated model re-rolls up to X of its dice (below 4, lowest first). Reading: the
    engine nominates the model with the most Tactician dice, then the most Prowess
    [Tactical] (rulings H2). None when neither side has one."""
    by: dict[int, int] = {}
    for p in (1, 2):
        best = (0, 0)
        for m in game.state.alive(p):
            card = game.profile(m.id)
            tact = max([int(v or 0) for _q, v in card_qualifiers(card, "tactician")] or [0])
            best = max(best, (tact, _prowess_for(card, "tactical")))
        by[p] = best[1]
    if not by[1] and not by[2]:
        return None
    return Rerolls(a_on_a=reroll_below(4, by[1]) if by[1] else None,
                   b_on_b=reroll_below(4, by[2]) if by[2] else None)
