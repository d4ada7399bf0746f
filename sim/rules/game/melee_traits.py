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
import re
from dataclasses import dataclass, replace
from typing import Any

from models.traits import trait_key
from sim.rules import conditions
from sim.rules.card_keywords import keyword_matches, needs_choice, view_of
from sim.rules.dice import Rerolls, RollOptions, reroll_below
from sim.rules.melee import Combatant, MeleeWeapon

__all__ = ["BEAR_RANGE", "adjust_combatant", "exchange_opponent", "manual_steps", "ranged_card_kwargs",
           "card_trait_values", "trait_entries", "edge_distance", "tactical_rerolls", "ChargingBonus",
           "parse_charging_bonus", "card_charging_bonus", "grant_charging_bonus", "charging_table",
           "charging_banzai", "split_problem", "split_data", "split_paths", "next_split_events", "split_offers",
           "size_adept"]

#: Bear Stands Alone (p.49): "пока в пределах 3\" от этой модели нет дружественных моделей".
BEAR_RANGE = 3.0


def trait_entries(card, key: str) -> list:
    """Every trait ``key`` (:func:`models.traits.trait_key`) printed on ``card``, as
    :class:`models.profiles.Trait` records (none without a card)."""
    if card is None:
        return []
    return [t for t in card.traits if trait_key(t.keyword) == key]


def card_trait_values(card, key: str) -> list[tuple[str, Any]]:
    """``(qualifier, value)`` of every trait ``key`` on ``card`` (none without a card)."""
    return [(t.qualifier or "", t.value) for t in trait_entries(card, key)]


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

    for q, _v in card_trait_values(game.profile(mid), "coordinated_attack"):
        for f in _friends(game, mid):
            if edge_distance(table, f, opponent) <= movement.CONTACT + 1e-9 and keyword_matches(q, _view(game, mid, f)):
                return True
    return False


def _vengeance(game, mid: str, opponent: str) -> bool:
    """Vengeance [K] (p.59) against ``opponent``: it is a [K] model."""
    return any(keyword_matches(q, _view(game, mid, opponent)) for q, _v in
               card_trait_values(game.profile(mid), "vengeance"))


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
    if comb.charge:  # Charging Bonus [B] specials and weapon bonuses (p.50)
        comb = _charge_weapon(comb, game.profile(mid))  # a Charging Bonus gained counts too (F5: Genki)
    keys = {trait_key(t.keyword) for t in card.traits}
    if not keys & {"bear_stands_alone", "coordinated_attack", "vengeance", "split_attack"}:
        return comb
    ex = game.state.exchange
    if ex is not None and ex.get("attacker") == mid and int(ex.get("split_n", 1)) > 1:
        # Split Attack (p.58): "-1 кубик за каждый дополнительный Обмен ударами", in every exchange
        comb = replace(comb, modifiers=comb.modifiers + (("Split Attack", 1 - int(ex["split_n"])),))
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
        for t in trait_entries(game.profile(mid), key):
            if needs_choice(t.qualifier):
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
    brutal = max([int(v or 0) for _q, v in card_trait_values(card, "brutal")] + [w_brutal])
    if brutal:
        out["brutal"] = brutal
    prowess = _prowess_for(card, "ranged")
    if prowess:
        out["rerolls"] = Rerolls(a_on_a=reroll_below(4, prowess))
    adept = sum(int(v or 1) for q, v in card_trait_values(card, "adept")
                if "ranged" in [w.strip() for w in q.lower().split(",")])
    if adept:
        out["options"] = RollOptions(adept=adept)
    # Strong / Weak (p.58): every damage roll of the model, a ranged one too, unless the trait
    # names other weapons (Strong [Melee] acts in melee only, p.48's example); both cancel
    def _for_this_weapon(key: str) -> bool:
        names = {"", "ranged", str(getattr(weapon, "name", "")).lower()}
        return any((q or "").strip().lower() in names for q, _v in card_trait_values(card, key))
    strong, weak = _for_this_weapon("strong"), _for_this_weapon("weak")
    if strong != weak:
        out["strong"], out["weak"] = strong, weak
    t = game.state.models.get(target)
    if card_trait_values(card, "assassin") and t is not None and "surprised" in t.conditions:
        out["strong"], out["weak"] = True, False
    return out


def _prowess_for(card, test: str) -> int:
    """Prowess [..] (X) of ``card`` for a ``test`` keyword (``ranged``, ``tactical``; p.56)."""
    return sum(int(v or 1) for q, v in card_trait_values(card, "prowess")
               if test in [w.strip() for w in q.lower().split(",")])


def size_adept(game, mid: str) -> int:
    """Adept [Size] (X) of ``mid`` (p.48): X more supporting dice in its Size tests (the
    catalogues print ``Adept [Attack, Size] (1)``); 0 without it."""
    return sum(int(v or 1) for q, v in card_trait_values(game.profile(mid), "adept")
               if "size" in [w.strip() for w in q.lower().split(",")])


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
            tact = max([int(v or 0) for _q, v in card_trait_values(card, "tactician")] or [0])
            best = max(best, (tact, _prowess_for(card, "tactical")))
        by[p] = best[1]
    if not by[1] and not by[2]:
        return None
    return Rerolls(a_on_a=reroll_below(4, by[1]) if by[1] else None,
                   b_on_b=reroll_below(4, by[2]) if by[2] else None)


# ----------------------------------------------------------------- Charging Bonus (p.50)

_STAT_BONUS = re.compile(r"^([+-]\d+)\s+(move|melee(?: pool)?|ranged(?: pool)?|ki)$", re.IGNORECASE)
_SPECIAL = re.compile(r"\b(attack|defence|defense)\s*\(\s*\d+\s*\)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ChargingBonus:
    """The bonus in the brackets of Charging Bonus [B] (p.50), sorted by what it changes:
    ``traits`` (model traits: ``Fear (6)``, ``Fearless``, ``Lightfooted``, ``Banzai!``),
    ``weapon_traits`` (``Pierce (1)``, ``Sharp (2)``: every weapon in use), ``stats``
    (``+1 Move``, ``+1 Melee Pool``) and ``specials`` (``Slam Attack (0)``)."""

    traits: tuple[str, ...] = ()
    weapon_traits: tuple[str, ...] = ()
    stats: tuple[tuple[str, int], ...] = ()
    specials: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.traits or self.weapon_traits or self.stats or self.specials)


def _split_items(text: str) -> list[str]:
    """Comma-separated items, commas inside brackets kept."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [x for x in out + [cur.strip()] if x]


def parse_charging_bonus(text: str) -> ChargingBonus:
    """The :class:`ChargingBonus` of a printed ``Charging Bonus [B]`` trait text (p.50):
    ``"Charging Bonus [+1 Move, Banzai!]"`` -> stats Move +1, trait Banzai!. A trait whose
    registry entry is a weapon trait (Pierce, Sharp) goes to ``weapon_traits`` ("Если бонус
    является свойством оружия, то он распространяется на все действующее оружие")."""
    from models.bsdata.traittext import parse_trait
    from models.traits import TRAITS

    m = re.search(r"\[(.*)\]", text.replace("&amp;", "&"))
    traits: list[str] = []
    weapon_traits: list[str] = []
    stats: list[tuple[str, int]] = []
    specials: list[str] = []
    for item in _split_items(m.group(1) if m else ""):
        st = _STAT_BONUS.match(item)
        if st:
            stats.append((st.group(2).split()[0].lower(), int(st.group(1))))
        elif _SPECIAL.search(item):
            specials.append(parse_trait(item).text)
        else:
            t = parse_trait(item)
            rule = TRAITS.get(trait_key(t.keyword))
            (weapon_traits if rule is not None and rule.weapon else traits).append(t.text)
    return ChargingBonus(tuple(traits), tuple(weapon_traits), tuple(stats), tuple(specials))


def card_charging_bonus(card) -> ChargingBonus:
    """The model's own Charging Bonus [B] (p.50), all of its printed ones together."""
    parts = [parse_charging_bonus(t.text) for t in trait_entries(card, "charging_bonus")]
    return ChargingBonus(*(tuple(x for p in parts for x in getattr(p, f)) for f in
                           ("traits", "weapon_traits", "stats", "specials")))


def grant_charging_bonus(game, mid: str) -> None:
    """Charging Bonus [B] (p.50): "когда эта модель выполняет действие Нападение, она
    получает бонус в скобках до конца своей текущей активации". Called when the Charge
    is resolved, before the move: the model's bonus becomes an effect until the end of the
    activation (Fear on contact and the exchange read it; the charge move itself was
    planned with it, :func:`charging_table`). Special attacks in the bonus are added to
    the weapon in the charge's exchange (:func:`adjust_combatant`)."""
    bonus = card_charging_bonus(game.profile(mid))  # a Charging Bonus gained counts too (F5: Genki)
    if not (bonus.traits or bonus.weapon_traits or bonus.stats):
        return
    stats = dict(bonus.stats)
    game.grant(mid, "Charging Bonus", "activation", traits=bonus.traits, weapon_traits=bonus.weapon_traits,
               weapon="all", stats=stats or None)


def charging_table(game, mid: str, table):
    """``table`` with model ``mid`` as its Charging Bonus makes it for the Charge move
    (p.50): Move raised by a ``+N Move`` bonus, movement traits (Lightfooted, Cloudwalk,
    Evasive, Agile ...) added to the model."""
    from models.traits import keyword_of
    from sim.table import Table

    bonus = card_charging_bonus(game.profile(mid))  # a Charging Bonus gained counts too (F5: Genki)
    move = sum(v for k, v in bonus.stats if k == "move")
    keys = tuple(keyword_of(re.split(r"[\[(]", t, maxsplit=1)[0].strip()) for t in bonus.traits)
    if not move and not keys:
        return table
    models = tuple(replace(x, move=(x.move or 0) + move, traits=tuple(x.traits) + keys) if x.id == mid else x
                   for x in table.models)
    return Table(table.name, table.width, table.depth, table.terrain, models, table.source)


def charging_banzai(game, mid: str) -> bool:
    """Whether ``mid``'s Charging Bonus gives it Banzai! (p.49-50): reading, the bonus
    acts on the Charge that gives it, so that Charge is a Simple action (rulings H2)."""
    return any(trait_key(re.split(r"[\[(]", t, maxsplit=1)[0]) == "banzai"
               for t in card_charging_bonus(game.profile(mid)).traits)  # gained ones too (F5)


def _charge_weapon(comb: Combatant, card) -> Combatant:
    """The charging attacker's weapon with its Charging Bonus specials (model's, p.50) and
    the bonus of a weapon with Charging Bonus [B] ("бонус применяется только при выборе
    этого оружия")."""
    from sim.rules.effects import merge_weapon_traits
    from sim.rules.melee.specials import parse_special

    w = comb.weapon
    specials = list(card_charging_bonus(card).specials)
    gained: list[str] = []
    for text in w.traits:
        if trait_key(re.split(r"[\[(]", text, maxsplit=1)[0]) == "charging_bonus":
            b = parse_charging_bonus(text)
            gained += list(b.weapon_traits) + list(b.traits)
            specials += list(b.specials)
    if not specials and not gained:
        return comb
    have = {s.key for s in w.specials}
    new_specials = list(w.specials)
    for text in specials:
        opt = parse_special(text, "defence" if re.search(r"defen[cs]e", text, re.IGNORECASE) else "attack")
        if opt.key not in have:
            new_specials.append(opt)
            have.add(opt.key)
    traits = merge_weapon_traits(w.traits, tuple(gained)) if gained else w.traits
    return replace(comb, weapon=MeleeWeapon(w.name, w.strength, tuple(traits), tuple(new_specials)))


# ----------------------------------------------------------------- Split Attack (p.58)

def split_problem(game, mid: str, target: str | None, others) -> str | None:
    """Why ``mid`` cannot fight ``target`` and then ``others`` (a Melee or Charge with
    ``Action.models``) as a Split Attack (p.58), or None: it needs the trait, and each of
    the others is a different enemy model on the table."""
    others = tuple(others or ())
    if not others:
        return None
    if not trait_entries(game.profile(mid), "split_attack"):
        return f"{mid} has no Split Attack: it fights one enemy (p.58)"
    st = game.state
    seen = {target}
    for o in others:
        e = st.models.get(o)
        if e is None or not e.alive or e.player == st.models[mid].player:
            return f"{o!r} is not an enemy on the table"
        if o in seen:
            return f"{o} is named twice: a Split Attack fights each enemy once (p.58)"
        seen.add(o)
    return None


def split_data(others) -> dict[str, Any]:
    """The ``exchange_open`` data of a Split Attack's first exchange (p.58): the enemies
    still to fight and the number of exchanges ({} for one exchange)."""
    others = list(others or ())
    return {"split": others, "split_n": 1 + len(others)} if others else {}


def split_paths(table, mid: str, target: str, others) -> list[list[tuple[float, float]]]:
    """Straight moves of ``mid`` to the points where its base touches both ``target`` and
    the first of ``others`` (two circle intersections, p.58: "к точке, где она находится
    в контакте с обоими"), nearest first; none when no such point exists."""
    from sim.rules import movement

    if not others:
        return []
    me, a, b = table.model(mid), table.model(target), table.model(others[0])
    ra, rb = me.radius + a.radius + movement.CONTACT / 2, me.radius + b.radius + movement.CONTACT / 2
    (ax, ay), (bx, by) = a.position, b.position
    d = math.dist(a.position, b.position)
    if d == 0 or d > ra + rb or d < abs(ra - rb):
        return []
    along = (ra * ra - rb * rb + d * d) / (2 * d)
    h = math.sqrt(max(0.0, ra * ra - along * along))
    ux, uy = (bx - ax) / d, (by - ay) / d
    mx, my = ax + ux * along, ay + uy * along
    ends = [(mx - uy * h, my + ux * h), (mx + uy * h, my - ux * h)]
    return [[p] for p in sorted(ends, key=lambda p: math.dist(p, me.position))]


def next_split_events(game, ex: dict) -> list:
    """After an exchange of a Split Attack (p.58): the events that open the exchange with
    the next enemy still alive and in contact (the attacker stays the active model;
    "Удалите только один счетчик активации с этой модели после последнего Обмена ударами":
    the action paid its counter once), after a note for each enemy no longer in contact.
    No ``exchange_open`` among them when the Split Attack is over."""
    from sim.rules import movement
    from sim.rules.game.events import Event

    att = ex["attacker"]
    rest = list(ex.get("split") or [])
    if not rest or not game.state.models[att].alive:
        return []
    table = game.table_now()
    out = []
    while rest:
        nxt = rest.pop(0)
        e = game.state.models.get(nxt)
        if e is not None and e.alive and edge_distance(table, att, nxt) <= movement.CONTACT + 1e-9:
            out.append(Event("exchange_open", {"attacker": att, "defender": nxt, "charge": bool(ex.get("charge")),
                                               "split": rest, "split_n": int(ex.get("split_n", 1)),
                                               **({"engaged": ex["engaged"]} if ex.get("engaged") else {})}))
            return out
        out.append(Event("note", {"text": f"{nxt} is no longer in contact with {att}: no Split Attack exchange"}))
    return out


def split_offers(game, mid: str) -> list:
    """Split Attack Melee actions offered to ``mid`` (p.58): against every pair of enemy
    models it can reach a point touching both of, and against all the enemies it touches
    when it touches three or more (each legal by :meth:`Game.is_legal`)."""
    from itertools import combinations

    from sim.rules import movement
    from sim.rules.game.actions import Action

    if not trait_entries(game.profile(mid), "split_attack"):
        return []
    st = game.state
    me = st.models[mid]
    table = game.table_now()
    move = table.model(mid).move or 0
    near = [e.id for e in st.alive(3 - me.player) if edge_distance(table, mid, e.id) <= move + 1e-9]
    touching = [e for e in near if edge_distance(table, mid, e) <= movement.CONTACT + 1e-9]
    cands = [(a, (b,)) for a, b in combinations(near, 2)]
    if len(touching) >= 3:
        cands.append((touching[0], tuple(touching[1:])))
    out = []
    for target, others in cands:
        act = Action("melee", mid, target=target, models=others)
        if game.is_legal(act)[0]:
            out.append(act)
    return out
