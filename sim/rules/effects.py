"""Effects with a duration on a model's card: traits gained or lost, weapon traits gained,
statistics changed (rulebook p.48 "Traits", the paragraphs on gaining traits; p.46-47 Ki
feats; p.43-45 conditions).

A Ki feat, a trait or a scenario rule may give a model a trait "until the end of the
activation", change its Melee pool "until the End phase", make its weapons Pierce (1)
"until the current action is resolved". The game keeps each such change on the model as
an **effect** (:attr:`sim.rules.game.state.ModelState.effects`, plain JSON) and reads the
model's **effective card**: the printed card with every effect applied
(:func:`effective_profile`). Every rule that reads a trait off the card (melee, ranged,
movement, tests) then sees gained traits without knowing where they came from.

An effect is a mapping (the keys of :data:`EFFECT_KEYS`):

* ``source``: what gave it (a feat's name, a trait), for the log;
* ``until``: when it ends (:data:`DURATIONS`);
* ``traits``: printed trait texts gained (``"Tough (+1)"``, ``"Camouflage (2\\")"``);
* ``lose``: trait names lost (``"Insignificant"``), by the model and by its weapons
  (``"Reach"``);
* ``weapon_traits``: weapon trait texts its weapons gain, ``weapon``: which weapons
  (``melee``, ``ranged`` or ``all``);
* ``stats``: statistic changes, ``{"melee": +1}`` (``melee``, ``ranged``, ``move``, ``ki``,
  ``strength``: the strength of the weapons named by ``weapon``).
* round 6 (F5): ``weapon_name``: only the weapon of that name gains the weapon traits, the
  strength and the special costs (Slice: the Kama Edge); ``special_cost``: the Ki cost of the
  special attacks / defences (``kinds``) of those weapons becomes ``set`` or changes by
  ``add`` (never below 0) (Chudan: all at 0); ``boosts``: Ki boost boxes gained,
  ``{"move": 2}`` (p.10: +1 Move for 2 Ki; a card's own cheaper box is kept);
  ``lose_types``: type keywords the card loses (Genki: ``["Ashigaru"]``).

**Gaining a trait the model has** (p.48, the two worked examples of Kuma and Naoko):

* an effect that gives *Trait (X)* does not add to a trait the model has: the model uses
  the highest value ("Kuma has Armour (1); given Armour (2) he has Armour (2)");
* an effect that gives *Trait (+X)* (or a negative value) modifies the value the model
  has; a model without the trait first gains it at 0 ("Naoko has no Armour; Armour (+1)
  gives her Armour (1)"); such modifiers add up;
* a trait without a value is gained once, never twice.

Project reading (docs/rulings-project.md): the same rule merges printed duplicates.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from models.bsdata.traittext import parse_trait
from models.profiles import Profile, Trait, Weapon
from models.traits import trait_key

__all__ = ["DURATIONS", "EFFECT_KEYS", "STATS", "effective_profile", "merge_traits", "merge_weapon_traits",
           "effect_problem", "describe_effect"]

#: When an effect ends: ``action`` (the current action is resolved), ``activation`` (the
#: current activation ends), ``exchange`` (the current melee exchange is resolved),
#: ``end_phase`` (the End phase starts), ``turn`` (the End phase ends), ``game`` (never).
DURATIONS = ("action", "activation", "exchange", "end_phase", "turn", "game")

#: The keys an effect may have.
EFFECT_KEYS = ("source", "until", "traits", "lose", "weapon_traits", "weapon", "stats", "range_bands",
               "weapon_name", "special_cost", "boosts", "lose_types")  # round 6 (F5)

#: Statistics an effect may change.
STATS = ("melee", "ranged", "move", "ki", "strength")

_MODIFIER = re.compile(r"\(\s*[+-]")


def _is_modifier(t: Trait) -> bool:
    """``Trait (+X)`` or a negative value: a change of the value the model has (p.48)."""
    return bool(_MODIFIER.search(t.text)) or (t.value is not None and t.value < 0)


@lru_cache(maxsize=2048)
def _parse(text: str) -> Trait:
    return parse_trait(text)


def _name(t: Trait) -> str:
    """The printed name of ``t`` (the text before its brackets)."""
    return re.split(r"[\[(]", t.text, maxsplit=1)[0].strip() or t.keyword


def _fmt(num: float) -> str:
    return f"{num:g}"


def _second_part(t: Trait) -> str | None:
    """The ``Y`` of a printed ``(X/Y)`` value that is not a distance (``Poison (1/2)``:
    ``"2"``), else None."""
    m = re.search(r"\(([^)]*)\)", t.text)
    if m is None or "/" not in m.group(1) or '"' in m.group(1):
        return None
    return m.group(1).split("/", 1)[1].strip() or None


def _merged(group: list[Trait]) -> Trait:
    """One trait from every instance of one trait (same key and qualifier), p.48."""
    if len(group) == 1 and not _is_modifier(group[0]):
        return group[0]
    base = [t for t in group if not _is_modifier(t)]
    mods = [t for t in group if _is_modifier(t)]
    values = [t.value for t in base if t.value is not None]
    ranges = [t.range for t in base if t.range is not None]
    value: int | None = max(values) if values else (0 if any(m.value is not None for m in mods) else None)
    rng: float | None = max(ranges) if ranges else (0.0 if any(m.range is not None for m in mods) else None)
    for m in mods:
        if m.value is not None and value is not None:
            value += m.value
        if m.range is not None and rng is not None:
            rng += m.range
    first = max(base, key=lambda t: t.value if t.value is not None else -999) if base else group[0]
    name = _name(first)
    q = f" [{first.qualifier.title()}]" if first.qualifier else ""
    second = _second_part(first) if rng is None else None  # Poison (X/Y): Y is the markers' value
    if value is not None and second is not None:
        text = f"{name}{q} ({value}/{second})"
    elif value is not None and rng is not None:
        text = f"{name}{q} ({value}/{_fmt(rng)}\")"
    elif value is not None:
        text = f"{name}{q} ({value})"
    elif rng is not None:
        text = f"{name}{q} ({_fmt(rng)}\")"
    else:
        text = f"{name}{q}"
    return Trait(first.keyword, value, first.qualifier, text, rng)


def merge_traits(traits: Iterable[Trait], lose: Iterable[str] = ()) -> tuple[Trait, ...]:
    """The traits a model has from ``traits`` (printed first, then gained), instances of
    one trait (same :func:`~models.traits.trait_key` and qualifier) merged by the p.48
    rule (highest *X*, plus every *+X*), and every trait named in ``lose`` removed. Order:
    first appearance.

        >>> from models.bsdata.traittext import parse_trait as p
        >>> [t.text for t in merge_traits([p("Armour (1)"), p("Armour (2)")])]   # Kuma
        ['Armour (2)']
        >>> [t.text for t in merge_traits([p("Armour (+1)")])]                   # Naoko
        ['Armour (1)']
        >>> [t.text for t in merge_traits([p("Tough (1)"), p("Tough (+1)"), p("Tough (+1)")])]
        ['Tough (3)']
        >>> [t.text for t in merge_traits([p("Aware"), p("Aware"), p("Slow")], lose=["slow"])]
        ['Aware']
    """
    gone = {trait_key(n) for n in lose}
    groups: dict[tuple[str, str | None], list[Trait]] = {}
    for t in traits:
        key = trait_key(t.keyword)
        if key in gone:
            continue
        groups.setdefault((key, (t.qualifier or "").lower() or None), []).append(t)
    return tuple(_merged(g) for g in groups.values())


def _split_specials(texts: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``(special attacks, special defences, other texts)`` of weapon texts an effect
    gives: ``"Slam Attack (0)"`` names a special attack of p.39-41
    (:data:`sim.rules.melee.specials.SPECIAL_RULES`), so the weapon gains it as a special
    the exchange offers, not as a weapon trait."""
    from sim.rules.melee.specials import SPECIAL_RULES, special_key

    att: list[str] = []
    dfn: list[str] = []
    rest: list[str] = []
    for t in texts:
        key = special_key(re.split(r"\(", t, maxsplit=1)[0])
        rule = SPECIAL_RULES.get(key)
        if rule is None:
            rest.append(t)
        elif rule.kind == "defence":
            dfn.append(t)
        else:
            att.append(t)
    return tuple(att), tuple(dfn), tuple(rest)


def merge_weapon_traits(printed: Sequence[str], gained: Sequence[str]) -> tuple[str, ...]:
    """A weapon's trait texts with ``gained`` texts added by the p.48 rule (the printed
    texts are kept as printed when nothing is gained).

        >>> merge_weapon_traits(("Pierce (1)", "Reach"), ("Pierce (+1)",))
        ('Pierce (2)', 'Reach')
        >>> merge_weapon_traits(("Reach",), ("Fire (+1/1)",))      # gained at 0, then +1; Y kept
        ('Reach', 'Fire (1/1)')
        >>> merge_weapon_traits(("Poison (1/2)",), ("Poison (+1/2)",))
        ('Poison (2/2)',)
    """
    if not gained:
        return tuple(printed)
    parsed = []
    for text in list(printed) + list(gained):
        try:
            parsed.append(_parse(text))
        except ValueError:
            parsed.append(Trait(trait_key(text), None, None, text))
    return tuple(t.text for t in merge_traits(parsed))


def effect_problem(effect: Any) -> str | None:
    """Why ``effect`` is not a valid effect (None when it is): a mapping with the keys of
    :data:`EFFECT_KEYS`, ``until`` one of :data:`DURATIONS`, trait texts that parse, stats
    of :data:`STATS` with whole-number changes."""
    if not isinstance(effect, Mapping):
        return f"expected a mapping, got {type(effect).__name__}"
    extra = set(effect) - set(EFFECT_KEYS)
    if extra:
        return f"unknown keys {sorted(extra)} (allowed: {', '.join(EFFECT_KEYS)})"
    if effect.get("until") not in DURATIONS:
        return f"until must be one of {', '.join(DURATIONS)}, got {effect.get('until')!r}"
    for field_name in EFFECT_KEYS[2:5]:  # traits, lose, weapon_traits
        got = effect.get(field_name, [])
        if not isinstance(got, list) or not all(isinstance(x, str) and x for x in got):
            return f"{field_name} must be a list of trait texts, got {got!r}"
        if field_name != "lose":
            for text in got:
                try:
                    _parse(text)
                except ValueError:
                    return f"{field_name}: cannot read the trait {text!r}"
    if effect.get("weapon", "all") not in ("melee", "ranged", "all"):
        return f"weapon must be melee, ranged or all, got {effect.get('weapon')!r}"
    stats = effect.get("stats", {})
    if not isinstance(stats, Mapping) or not all(k in STATS and isinstance(v, int) and not isinstance(v, bool)
                                                 for k, v in stats.items()):
        return f"stats must map {', '.join(STATS)} to whole numbers, got {stats!r}"
    return _range_bands_problem(effect.get("range_bands")) or _f5_problem(effect)


def _f5_problem(effect: Mapping[str, Any]) -> str | None:
    """Why the round 6 (F5) keys of ``effect`` are wrong, or None: ``weapon_name`` a name,
    ``special_cost`` ``{"set": n}`` or ``{"add": n}`` (whole numbers) with optional ``kinds``
    (``attack``, ``defence``), ``boosts`` statistic -> a Ki cost of 1 or more."""
    name = effect.get("weapon_name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return f"weapon_name must be a weapon's name, got {name!r}"
    sc = effect.get("special_cost")
    if sc is not None:
        if (not isinstance(sc, Mapping) or len(set(sc) & {"set", "add"}) != 1 or not set(sc) <= {"set", "add", "kinds"}
                or not all(isinstance(sc[k], int) and not isinstance(sc[k], bool) for k in ("set", "add") if k in sc)
                or not set(sc.get("kinds", ["attack"])) <= {"attack", "defence"}):
            return f"special_cost is {{'set' or 'add': n, 'kinds': [attack, defence]}}, got {sc!r}"
    lt = effect.get("lose_types")
    if lt is not None and (not isinstance(lt, list) or not all(isinstance(x, str) and x for x in lt)):
        return f"lose_types must be a list of type names, got {lt!r}"
    bo = effect.get("boosts")
    if bo is not None and (not isinstance(bo, Mapping) or not all(
            k in ("melee", "ranged", "move", "ki") and isinstance(v, int) and not isinstance(v, bool) and v >= 1
            for k, v in bo.items())):
        return f"boosts map melee / ranged / move / ki to a Ki cost of 1 or more, got {bo!r}"
    return None


def _with_special_costs(w: Weapon, changes: Sequence[Mapping[str, Any]]) -> Weapon:
    """Weapon ``w`` with the Ki costs of its special attacks / defences changed (p.39)."""
    def one(text: str, kind: str) -> str:
        m = re.match(r"^(.*?)\(\s*(\d+)\s*\)\s*$", text)
        if m is None:
            return text
        cost = int(m.group(2))
        for sc in changes:
            if kind in sc.get("kinds", ["attack", "defence"]):
                cost = int(sc["set"]) if "set" in sc else max(0, cost + int(sc["add"]))
        return f"{m.group(1).rstrip()} ({cost})"
    return replace(w, special_attacks=tuple(one(t, "attack") for t in w.special_attacks),
                   special_defences=tuple(one(t, "defence") for t in w.special_defences))


def _range_bands_problem(rb: Any) -> str | None:
    """Why ``range_bands`` (``{"bands": [6, 12, 18]}`` or ``{"add": 2}``) is wrong, or None."""
    if rb is None:
        return None
    if not isinstance(rb, Mapping) or len(rb) != 1 or not set(rb) <= {"bands", "add"}:
        return f"range_bands is {{'bands': [inches]}} or {{'add': inches}}, got {rb!r}"
    v = rb.get("bands", rb.get("add"))
    nums = v if isinstance(v, list) else [v]
    if not nums or len(nums) > 3 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in nums):
        return f"range_bands: numbers of inches, got {v!r}"
    return None


def _with_bands(w: Weapon, rb: Mapping[str, Any]) -> Weapon:
    """Ranged weapon ``w`` with its bands replaced (``bands``: upper values nearest first,
    a band starting where the one before ends) or each band grown (``add``); p.10."""
    names: list[str] = [b for b in ("short", "medium", "long") if b in w.range]
    new: dict[str, tuple[float, float]]
    if "bands" in rb:
        ups = list(rb["bands"])
        names = ["short", "medium", "long"][:len(ups)] if len(ups) >= len(names) else names[:len(ups)]
        new, low = {}, 0.0
        for name, up in zip(names, ups):
            new[name] = (low, float(up))
            low = float(up)
    else:
        new = {n: (w.range[n][0] + (float(rb["add"]) if i else 0.0), w.range[n][1] + float(rb["add"]))
               for i, n in enumerate(names)}
    return replace(w, range=new)


def describe_effect(effect: Mapping[str, Any]) -> str:
    """One log line: ``"Tough (+1), Melee +1 until the End phase (Tenacious)"``."""
    parts = list(effect.get("traits", []))
    parts += [f"loses {n}" for n in effect.get("lose", [])]
    if effect.get("weapon_traits"):
        which = effect.get("weapon", "all")
        parts.append(f"{'its' if which == 'all' else 'its ' + which} weapons gain {', '.join(effect['weapon_traits'])}")
    parts += [f"{k.title()} {v:+d}" for k, v in effect.get("stats", {}).items()]
    if effect.get("weapon_name"):
        parts.append(f"(the {effect['weapon_name']} only)")
    sc = effect.get("special_cost") or {}
    if sc:
        parts.append("special costs " + (f"{sc['set']}" if "set" in sc else f"{sc['add']:+d}"))
    parts += [f"{k.title()} Boost ({v})" for k, v in (effect.get("boosts") or {}).items()]
    parts += [f"is no {t.title()}" for t in effect.get("lose_types", [])]
    rb = effect.get("range_bands") or {}
    if rb:
        parts.append("range bands " + ("/".join(f"{b:g}" for b in rb["bands"]) if "bands" in rb
                                       else f"{rb['add']:+g}\""))
    until = {"action": "until the action is resolved", "activation": "until the end of the activation",
             "exchange": "until the end of the melee exchange", "end_phase": "until the End phase",
             "turn": "until the end of the turn", "game": "for the rest of the game"}[effect["until"]]
    src = f" ({effect['source']})" if effect.get("source") else ""
    if not parts and effect.get("source"):
        return f"{effect['source']} {until}"
    return f"{', '.join(parts) or 'no change'} {until}{src}"


def _text_key(text: str) -> str:
    """The trait key of a printed weapon trait (``"Pierce (2)"`` -> ``pierce``)."""
    return trait_key(re.split(r"[\[(]", text, maxsplit=1)[0])


def _weapon_applies(w: Weapon, which: str) -> bool:
    if which.startswith("name:"):  # round 6 (F5): one weapon, by its printed name
        return w.name.strip().lower() == which[5:].strip().lower()
    return which == "all" or w.kind == which


def effective_profile(profile: Profile, effects: Sequence[Mapping[str, Any]]) -> Profile:
    """The card ``profile`` with ``effects`` applied (see the module docstring): traits
    gained and lost (merged by the p.48 rule), weapon traits gained, statistics changed
    (never below 0). ``profile`` itself when there is no effect.

    Raises:
        ValueError: an effect's trait text cannot be read (:func:`effect_problem` first).
    """
    if not effects:
        return profile
    gained: list[Trait] = []
    lose: list[str] = []
    stats: dict[str, int] = {}
    weapon_gain: list[tuple[str, str]] = []
    strength: list[tuple[str, int]] = []
    bands: list[Mapping[str, Any]] = []
    costs: list[tuple[str, Mapping[str, Any]]] = []  # round 6 (F5): special costs, boost boxes
    boosts: dict[str, int] = {}
    lost_types: set[str] = set()  # round 6 (F5): types the card loses (Genki: Ashigaru)
    for e in effects:
        lost_types |= {str(t).strip().lower() for t in e.get("lose_types", [])}
        if e.get("range_bands"):  # a Ki feat's new range bands for its ranged weapons (p.10)
            bands.append(e["range_bands"])
        gained += [_parse(t) for t in e.get("traits", [])]
        lose += list(e.get("lose", []))
        which = e.get("weapon", "all")
        if e.get("weapon_name"):
            which = f"name:{e['weapon_name']}"
        if e.get("special_cost"):
            costs.append((which, e["special_cost"]))
        for k, v in (e.get("boosts") or {}).items():
            boosts[k] = min(int(v), boosts.get(k, int(v)))
        weapon_gain += [(which, t) for t in e.get("weapon_traits", [])]
        for k, v in e.get("stats", {}).items():
            if k == "strength":
                strength.append((which, int(v)))
            else:
                stats[k] = stats.get(k, 0) + int(v)
    traits = merge_traits(list(profile.traits) + gained, lose)
    weapons = []
    gone = {trait_key(n) for n in lose}
    for w in profile.weapons:
        extra = tuple(t for which, t in weapon_gain if _weapon_applies(w, which))
        dstr = sum(v for which, v in strength if _weapon_applies(w, which))
        kept = tuple(t for t in w.traits if _text_key(t) not in gone) if gone else w.traits
        attacks, defences, extra = _split_specials(extra)  # a granted special attack/defence (Ki feats)
        if attacks or defences:
            w = replace(w, special_attacks=w.special_attacks + attacks, special_defences=w.special_defences + defences)
        if extra or dstr or kept != w.traits:
            w = replace(w, traits=merge_weapon_traits(kept, extra),
                        strength=None if w.strength is None else w.strength + dstr)
        if w.kind == "ranged" and w.range:
            for rb in bands:
                w = _with_bands(w, rb)
        mine = [sc for which, sc in costs if _weapon_applies(w, which)]
        if mine:
            w = _with_special_costs(w, mine)
        weapons.append(w)
    changes: dict[str, Any] = {"traits": traits, "weapons": tuple(weapons)}
    if lost_types:
        changes["types"] = tuple(t for t in profile.types if t.lower() not in lost_types)
    if boosts:  # a box the card prints already keeps its cost when it is cheaper
        have = dict(profile.boosts)
        for k, v in boosts.items():
            have[k] = min(v, have.get(k, v))
        changes["boosts"] = tuple(have.items())
    for k, v in stats.items():
        cur = getattr(profile, k, None)
        if cur is not None:
            changes[k] = max(0, cur + v)
    return replace(profile, **changes)
