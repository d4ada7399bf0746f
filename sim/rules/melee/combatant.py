"""A model in a melee exchange (Melee Attacks p.33-37, step 2): :class:`Combatant`.

Everything the rules of an exchange read about one model, as plain values: its Melee
pool, weapon (:class:`MeleeWeapon`: Strength, traits, the specials it allows; Profile
cards p.10-17), traits (p.48-59), the melee conditions it carries (p.43-45,
:data:`MELEE_CONDITIONS`), wounds left, Ki boosts, Auras and Melee Assist, and the re-roll
abilities it brings to step 7b (:class:`RerollSource`: Prowess, Dodge, Feint; Tests
p.28). :func:`combatant_from_profile` reads one from a profile card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from typing import Literal

from models.traits import has_trait, trait_key, trait_values
from sim.rules.conditions import condition_key
from sim.rules.melee.sides import MeleeError
from sim.rules.melee.specials import SpecialOption, parse_special, special_key

# --------------------------------------------------------------------------- conditions

#: Conditions that change a melee exchange (p.43-45, p.36 modifier table) and the others a
#: model may carry (accepted and ignored here).
MELEE_CONDITIONS = frozenset({
    "prone", "blind", "stunned", "frightened", "immobilised", "held", "exhausted",
    "surprised", "ran", "stood_up", "berserk", "death_sentence",
})


KNOWN_CONDITIONS = MELEE_CONDITIONS | frozenset({
    "bleed", "poisoned", "on_fire", "diseased", "disguised", "controlled", "spirit_block",
    "reloading", "impetuous",
})


def _norm_condition(name: str) -> str:
    """The condition key of ``name`` (spellings: :data:`sim.rules.conditions.ALIASES`)."""
    key = condition_key(name)
    if key not in KNOWN_CONDITIONS:
        raise MeleeError(f"unknown condition {name!r} (known: {', '.join(sorted(KNOWN_CONDITIONS))})")
    return key


# --------------------------------------------------------------------------- weapon

def _trait_numbers(value: str | None) -> tuple[int, ...]:
    if value is None:
        return ()
    return tuple(int(x) for x in re.findall(r"[+-]?\d+", value))


def _costed(text: str) -> str:
    """A special as printed, with ``(0)`` added where the card prints no cost in brackets
    (two catalogue weapons: ``Sidestep Defence``, ``Impenetrable Defence``; reading: no
    dice, docs of F1's rulings). Found by the warband fuzzer: the game stopped."""
    t = text.strip()
    return t if t.endswith(")") else f"{t} (0)"


@dataclass(frozen=True)
class MeleeWeapon:
    """The weapon a model fights with (Profile cards p.10-17; chosen at step 2).

    ``strength``: weapon Strength added to damage rolls. ``traits``: weapon traits as
    printed (``Reach``, ``Pierce (2)``, ``Poison (1/2)``...). ``specials``: the special
    attacks and defences it allows (:class:`SpecialOption`).
    """

    name: str = "Unarmed"
    strength: int = 0
    traits: tuple[str, ...] = ()
    specials: tuple[SpecialOption, ...] = ()

    @classmethod
    def of(cls, name: str = "Unarmed", strength: int = 0, traits: Iterable[str] = (),
           attacks: Iterable[str] = (), defences: Iterable[str] = ()) -> "MeleeWeapon":
        """Build from printed strings: ``MeleeWeapon.of("Tetsubo", 2, attacks=["Push Attack (0)"])``."""
        specials = tuple(parse_special(_costed(t), "attack") for t in attacks) + \
            tuple(parse_special(_costed(t), "defence") for t in defences)
        return cls(name, int(strength), tuple(traits), specials)

    @classmethod
    def from_profile_weapon(cls, weapon, strength: int | None = None) -> "MeleeWeapon":
        """From a :class:`models.profiles.Weapon`. A card with a variable Strength (``None``)
        needs ``strength``; raises :class:`MeleeError` otherwise, or for a ranged weapon."""
        if weapon.kind != "melee":
            raise MeleeError(f"{weapon.name} is a {weapon.kind} weapon, not a melee weapon")
        s = weapon.strength if strength is None else strength
        if s is None:
            raise MeleeError(f"{weapon.name} has a variable Strength on its card: pass strength=")
        return cls.of(weapon.name, s, weapon.traits, weapon.special_attacks, weapon.special_defences)

    def has_trait(self, keyword: str) -> bool:
        """True if a weapon trait has this keyword (``reach``, ``chain_weapon``...; names
        compared by :func:`models.traits.trait_key`)."""
        return has_trait(self.traits, keyword)

    def trait_values(self, keyword: str) -> tuple[int, ...] | None:
        """Numbers of the weapon trait ``keyword`` (``(1, 2)`` for ``Poison (1/2)``, ``(1,)``
        for a trait printed without a value, p.48), or ``None`` without the trait."""
        for v in trait_values(self.traits, keyword):  # the first one
            return _trait_numbers(v) or (1,)
        return None

    def trait_value(self, keyword: str, default: int = 0) -> int:
        """First number of the weapon trait ``keyword``, ``default`` without it."""
        v = self.trait_values(keyword)
        return v[0] if v else default

    def special(self, name: str) -> SpecialOption | None:
        """The weapon's special with this name or key, if any."""
        key = special_key(re.sub(r"\(.*\)", "", name))
        for s in self.specials:
            if s.key == key:
                return s
        return None


# --------------------------------------------------------------------------- re-rolls

#: ``choose(attack_values, defence_values)`` of the target side -> ``(kind, index)`` pairs.
MeleeChooser = Callable[[tuple[int, ...], tuple[int, ...]], Iterable[tuple[str, int]]]


def _own_default(att: tuple[int, ...], dfn: tuple[int, ...]) -> list[tuple[str, int]]:
    cands = [("attack", i, v) for i, v in enumerate(att)] + [("defence", i, v) for i, v in enumerate(dfn)]
    return [(k, i) for k, i, v in sorted(cands, key=lambda c: c[2]) if v < 4]


def _enemy_default(att: tuple[int, ...], dfn: tuple[int, ...]) -> list[tuple[str, int]]:
    cands = [("attack", i, v) for i, v in enumerate(att)] + [("defence", i, v) for i, v in enumerate(dfn)]
    return [(k, i) for k, i, v in sorted(cands, key=lambda c: -c[2]) if v > 3]


@dataclass(frozen=True)
class RerollSource:
    """One re-roll ability used in step 7b (Tests p.28 "Conducting re-rolls").

    ``on``: ``"own"`` or ``"enemy"`` dice; ``kinds``: which of them (``attack``,
    ``defence``); ``limit``: at most this many dice, each once. ``choose`` picks the dice
    (default: own dice below 4, lowest first; enemy dice above 3, highest first).
    Examples: Prowess [Melee] (X) = own attack and defence; Prowess [Attack] (X);
    Dodge (X) = enemy attack dice; Feint (X) = enemy defence dice (Traits p.48-59).
    """

    name: str
    on: Literal["own", "enemy"]
    kinds: frozenset[str]
    limit: int
    choose: MeleeChooser | None = None

    def pick(self, att: tuple[int, ...], dfn: tuple[int, ...]) -> list[tuple[str, int]]:
        """The dice this source re-rolls: allowed kinds, valid indices, each once, at most ``limit``."""
        chooser = self.choose or (_own_default if self.on == "own" else _enemy_default)
        out: list[tuple[str, int]] = []
        for kind, i in chooser(att, dfn):
            if self.choose is None and kind not in self.kinds:
                continue  # the default choosers propose every kind; keep the allowed ones
            n = len(att) if kind == "attack" else len(dfn) if kind == "defence" else -1
            if kind not in self.kinds or not isinstance(i, int) or not 0 <= i < n:
                raise MeleeError(f"{self.name}: cannot re-roll {kind} die {i!r}")
            if (kind, i) not in out:
                out.append((kind, i))
        return out[:max(0, self.limit)]


def prowess(x: int, kinds: Iterable[str] = ("attack", "defence"), choose: MeleeChooser | None = None) -> RerollSource:
    """Prowess [Melee/Attack/Defence] (X): re-roll up to X own dice of ``kinds``."""
    return RerollSource(f"Prowess ({x})", "own", frozenset(kinds), x, choose)


def dodge(x: int, choose: MeleeChooser | None = None) -> RerollSource:
    """Dodge (X): re-roll up to X of the enemy's attack dice."""
    return RerollSource(f"Dodge ({x})", "enemy", frozenset({"attack"}), x, choose)


def feint(x: int, choose: MeleeChooser | None = None) -> RerollSource:
    """Feint (X): re-roll up to X of the enemy's defence dice."""
    return RerollSource(f"Feint ({x})", "enemy", frozenset({"defence"}), x, choose)


# --------------------------------------------------------------------------- combatant

@dataclass(frozen=True)
class Combatant:
    """One side of a melee exchange: everything the rules read, as plain values.

    Identity and pool: ``id``; ``melee`` (the printed Melee pool, dice); ``active`` (the
    activating model; exactly one side is); ``weapon`` (:class:`MeleeWeapon`);
    ``conditions`` (names from :data:`KNOWN_CONDITIONS`, normalised: ``immobilized`` ->
    ``immobilised``; ``ran`` = it ran this turn; ``stood_up`` = it declared Stand Up;
    ``surprised``; ``exhausted`` = no activation counters); ``assists`` (other enemy models
    supporting, -1 die each); ``ki_boost`` (dice bought with Ki boosts, step 4);
    ``modifiers`` (other labelled pool modifiers, e.g. ``(("Split Attack", -1),)``);
    ``charge`` (it charged: +2 to its first damage roll); ``ki_initiative`` (it declares a
    Ki feat that gives it the Initiative, step 3b).

    Traits (Traits p.48-59; weapon traits are read from ``weapon`` too): Lightning
    Reflexes, Slow, ``reach`` (Reach from elsewhere, e.g. Enhancing terrain p.61, in addition
    to a weapon with Reach), ``engaged_at_start`` (in contact with an enemy at the start of
    the current activation: Reach gives nothing), Armour (X), Tough (X), Durable, Strong,
    Weak, Endurance, Indomitable (X), Parry (X), Brutal (X), Adept [Melee] (X) (``adept_on``:
    the dice it acts on, ``attack`` and/or ``defence``: [Melee], [Attack], [Defence]), Kata,
    Impenetrable Defence, Unblockable (X), Aggressive, Defensive, Steadfast, Tireless,
    Immovable, Assassin, Sixth Sense, ``immune`` (Immune [..] condition names),
    ``damage_modifier`` (other modifiers to its damage rolls), ``disengaging`` (the
    Disengage action: at least as many defence dice as attack dice, p.25),
    ``wounds_left`` (unmarked wound boxes; ``None``: not tracked, never Killed here),
    ``rerolls`` (:class:`RerollSource`), ``removes_counter`` (``False`` for the Split
    Attack exchanges before the last one, p.57), ``damage_cancelled`` (why no damage roll
    is made against it in this exchange: a friend removed by Sacrifice [K] (X") p.57 or
    Protected [K] (X") p.56; empty: rolls as usual); ``insignificant``, ``soulless``: the
    card's Insignificant and Soulless (Ivory Prison Attack does not remove it, p.41);
    ``gokusatsu``: one of the card's weapons has Gokusatsu Attack (an enemy's Gokusatsu
    Attack does nothing to either model, p.41); ``damaging_specials``: keys of special
    attacks that make no damage roll by their rule (Sidestep ...) but do for this model (a Ki
    feat: Passing Strike); ``special_wounds``: keys of special attacks / defences that, when
    this model applies them successfully, give the enemy one wound (Tough and Durable apply;
    a Ki feat: Choke Hold); ``damage_rules``: Ki feat changes to the damage rolls it makes
    (``made:<rule>[:<value>]``) and those made on it (``taken:<rule>``), the rules of
    :class:`sim.rules.wounds.DamageRules` (round 6, F4: Cold Shatter, Soothing Shōmyō);
    ``bonus_if_enemy_rerolls``: added to both its final attack and defence results when the
    enemy re-rolled any of its own dice in this exchange (a Ki feat: Self-Taught Koryu).
    """

    id: str
    melee: int
    active: bool = False
    weapon: MeleeWeapon = MeleeWeapon()
    conditions: frozenset[str] = frozenset()
    assists: int = 0
    ki_boost: int = 0
    modifiers: tuple[tuple[str, int], ...] = ()
    charge: bool = False
    ki_initiative: bool = False
    lightning_reflexes: bool = False
    slow: bool = False
    reach: bool = False
    engaged_at_start: bool = False
    armour: int = 0
    tough: int = 0
    durable: bool = False
    strong: bool = False
    weak: bool = False
    endurance: bool = False
    indomitable: int = 0
    parry: int = 0
    brutal: int = 0
    adept: int = 0
    adept_on: frozenset[str] = frozenset({"attack", "defence"})
    kata: bool = False
    impenetrable_defence: bool = False
    unblockable: int = 0
    aggressive: bool = False
    defensive: bool = False
    steadfast: bool = False
    tireless: bool = False
    immovable: bool = False
    assassin: bool = False
    sixth_sense: bool = False
    immune: frozenset[str] = frozenset()
    damage_modifier: int = 0
    disengaging: bool = False
    wounds_left: int | None = None
    rerolls: tuple[RerollSource, ...] = ()
    removes_counter: bool = True
    damage_cancelled: str = ""
    insignificant: bool = False
    soulless: bool = False
    gokusatsu: bool = False
    damaging_specials: frozenset[str] = frozenset()
    special_wounds: frozenset[str] = frozenset()
    damage_rules: tuple[str, ...] = ()
    bonus_if_enemy_rerolls: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.melee, int) or self.melee < 0:
            raise MeleeError(f"{self.id}: the Melee statistic is an int >= 0, got {self.melee!r}")
        if self.assists < 0 or self.ki_boost < 0:
            raise MeleeError(f"{self.id}: assists and ki_boost are >= 0")
        object.__setattr__(self, "conditions", frozenset(_norm_condition(c) for c in self.conditions))
        object.__setattr__(self, "immune", frozenset(
            re.sub(r"[\s\-]+", "_", str(c).strip().lower()) for c in self.immune))
        object.__setattr__(self, "modifiers", tuple((str(k), int(v)) for k, v in self.modifiers))
        object.__setattr__(self, "rerolls", tuple(self.rerolls))
        if "prone" in self.conditions and "stood_up" in self.conditions:
            raise MeleeError(f"{self.id}: a model that stood up is no longer Prone (Stand Up, p.25)")

    # -- effective values ---------------------------------------------------------------
    def has(self, condition: str) -> bool:
        """Whether the condition applies: present, not blocked by Immune [..] or Sixth Sense
        (never Surprised, Immune [Blind]) or Immovable (never Prone)."""
        c = _norm_condition(condition)
        if c not in self.conditions or c in self.immune:
            return False
        if self.sixth_sense and c in ("surprised", "blind"):
            return False
        if self.immovable and c == "prone":
            return False
        return True

    def can_gain(self, condition: str) -> bool:
        """Whether a new condition would stick (Immune [..], Immovable: never Prone, p.53)."""
        c = _norm_condition(condition)
        if c in self.immune or (c == "prone" and self.immovable):
            return False
        if c == "blind" and self.sixth_sense:
            return False
        return True

    @property
    def has_reach(self) -> bool:
        """Reach from the model or its weapon (p.57)."""
        return self.reach or self.weapon.has_trait("reach")

    @property
    def effective_strong(self) -> bool:
        """Strong from the model or its weapon (p.58; the damage roll, p.38)."""
        return self.strong or self.weapon.has_trait("strong")

    @property
    def effective_weak(self) -> bool:
        """Weak from the model or its weapon (p.59; the damage roll, p.38)."""
        return self.weak or self.weapon.has_trait("weak")

    def parry_against(self, enemy: "Combatant") -> int:
        """Parry (X) (model or weapon, the higher), less the enemy weapon's Chain Weapon (X), min 0."""
        p = max(self.parry, self.weapon.trait_value("parry"))
        return max(0, p - enemy.weapon.trait_value("chain_weapon"))

    @property
    def brutal_value(self) -> int:
        """Brutal (X), p.50: the higher of the model's and the weapon's."""
        return max(self.brutal, self.weapon.trait_value("brutal"))

    @property
    def unblockable_value(self) -> int:
        """Unblockable (X), p.58: the higher of the model's and the weapon's."""
        return max(self.unblockable, self.weapon.trait_value("unblockable"))

    def allocation_rule(self) -> str | None:
        """``"aggressive"``, ``"defensive"`` or ``None`` after Berserk (Aggressive),
        Frightened (Defensive unless Steadfast), Held (Defensive) and cancelling (p.48, p.51)."""
        aggressive = self.aggressive or self.has("berserk")
        defensive = self.defensive or self.has("held") or (self.has("frightened") and not self.steadfast)
        if aggressive and defensive:
            return None
        return "aggressive" if aggressive else "defensive" if defensive else None

    def reroll_sources(self) -> tuple[RerollSource, ...]:
        """``rerolls`` plus the weapon's Dodge (X) and Feint (X)."""
        out = list(self.rerolls)
        if self.weapon.trait_values("dodge") is not None:
            out.append(dodge(self.weapon.trait_value("dodge")))
        if self.weapon.trait_values("feint") is not None:
            out.append(feint(self.weapon.trait_value("feint")))
        return tuple(out)


def _melee_kinds(qualifier: str) -> frozenset[str]:
    """The exchange dice a ``[..]`` test qualifier names (Prowess p.56, Adept p.48):
    ``Melee``: attack and defence; ``Attack``; ``Defence``; several keywords separated by
    commas add up (``Attack, Size`` -> attack); others (``Ranged``, ``Tactical``) none."""
    out: set[str] = set()
    for w in (x.strip().lower() for x in (qualifier or "").split(",")):
        if w == "melee":
            out |= {"attack", "defence"}
        elif w == "attack":
            out.add("attack")
        elif w in ("defence", "defense"):
            out.add("defence")
    return frozenset(out)


#: Traits that place markers on the model a weapon wounds (p.48-59); printed on the card
#: rather than on a weapon, they act with every weapon of the model.
MARKER_TRAITS = ("poison", "fire", "bleed", "disease", "ki_block")
#: Markers of those traits that are conditions (p.43-45), not wounding markers: the
#: marker kind of :func:`~sim.rules.melee.wound_markers` -> the condition gained.
CONDITION_MARKERS = {"disease": "diseased", "spirit_block": "spirit_block"}


def card_marker_traits(weapon_traits: Iterable[str], card_traits: Iterable) -> tuple[str, ...]:
    """The printed Poison, Fire, Bleed, Disease and Ki Block traits of a model's card
    (:class:`models.profiles.Trait` records, their ``text``) that its weapon with the
    printed ``weapon_traits`` does not have itself: they act with that weapon too. A
    model uses one source of each at a time (p.49, p.52, p.56): the weapon's own wins."""
    out = []
    for t in card_traits:
        key = trait_key(t.keyword)
        if key in MARKER_TRAITS and not has_trait(tuple(weapon_traits), key):
            out.append(t.text)
    return tuple(out)


def combatant_from_profile(profile, *, id: str | None = None, active: bool = False,
                           weapon: str | int | MeleeWeapon | None = None,
                           weapon_strength: int | None = None, **overrides) -> Combatant:
    """A :class:`Combatant` from a :class:`models.profiles.Profile` card.

    ``weapon``: a weapon name, an index among the melee weapons, or a
    :class:`MeleeWeapon` (default: the first melee weapon; Unarmed (0) if it has none).
    Traits read from the card: Armour, Tough, Durable, Strong/Weak (no qualifier or
    [Melee]), Lightning Reflexes, Slow, Endurance, Indomitable, Parry, Brutal,
    Adept [Melee], Kata, Impenetrable Defence, Unblockable, Aggressive, Defensive,
    Steadfast, Tireless, Immovable, Assassin, Sixth Sense, Immune [..], Prowess
    [Melee/Attack/Defence], Dodge, Feint. ``overrides`` set any other field (conditions,
    charge, wounds_left...). Raises :class:`MeleeError` for an unknown weapon.
    """
    melee_weapons = [w for w in profile.weapons if w.kind == "melee"]
    if isinstance(weapon, MeleeWeapon):
        mw = weapon
    elif weapon is None:
        mw = MeleeWeapon.from_profile_weapon(melee_weapons[0], weapon_strength) if melee_weapons else MeleeWeapon()
    elif isinstance(weapon, int):
        if not 0 <= weapon < len(melee_weapons):
            raise MeleeError(f"{profile.name} has {len(melee_weapons)} melee weapon(s), no index {weapon}")
        mw = MeleeWeapon.from_profile_weapon(melee_weapons[weapon], weapon_strength)
    else:
        found = [w for w in melee_weapons if w.name.lower() == str(weapon).lower()]
        if not found:
            raise MeleeError(f"{profile.name} has no melee weapon {weapon!r} "
                             f"(has: {', '.join(w.name for w in melee_weapons) or 'none'})")
        mw = MeleeWeapon.from_profile_weapon(found[0], weapon_strength)

    marks = card_marker_traits(mw.traits, profile.traits)  # Poison (1/1) on the card: every weapon
    if marks:
        mw = dc_replace(mw, traits=mw.traits + marks)
    kw: dict = {}
    rerolls: list[RerollSource] = []
    immune: set[str] = set()
    for t in profile.traits:
        k, q, v = trait_key(t.keyword), (t.qualifier or "").lower(), (t.value if t.value is not None else 1)
        melee_q = q in ("", "melee")
        if k == "armour":
            kw["armour"] = v
        elif k == "tough":
            kw["tough"] = v
        elif k in ("durable", "endurance", "kata", "impenetrable_defence", "aggressive", "defensive",
                   "steadfast", "tireless", "immovable", "assassin", "sixth_sense", "lightning_reflexes", "slow"):
            kw[k] = True
        elif k in ("strong", "weak") and melee_q:
            kw[k] = True
        elif k in ("indomitable", "parry", "brutal", "unblockable"):
            kw[k] = v
        elif k == "adept" and _melee_kinds(q):  # [Melee], [Attack], [Defence], [Attack, Size] (p.48)
            kw["adept"] = v
            kw["adept_on"] = _melee_kinds(q)
        elif k == "immune":
            immune.update(condition_key(s) for s in q.split(",") if s.strip())
        elif k == "prowess" and _melee_kinds(q):  # [Melee], [Attack], [Melee, Ranged] ... (p.56)
            rerolls.append(RerollSource(t.text, "own", _melee_kinds(q), v))
        elif k == "dodge":
            rerolls.append(dodge(v))
        elif k == "feint":
            rerolls.append(feint(v))
    if has_trait(profile, "intangible"):
        immune.update({"held", "immobilised"})
    if has_trait(profile, "agile"):
        immune.add("held")
    if has_trait(profile, "soulless"):  # Immune [Fear, Poison, Bleed] (p.58); Fear: its tests pass
        immune.update({"poisoned", "bleed"})
        kw["soulless"] = True
    if has_trait(profile, "insignificant"):
        kw["insignificant"] = True
    if any("gokusatsu" in str(sp).lower() for w in profile.weapons for sp in getattr(w, "special_attacks", ())):
        kw["gokusatsu"] = True  # "Если у вражеской модели также есть эта Исключительная Атака" (p.41)
    kw["immune"] = frozenset(immune)
    kw["rerolls"] = tuple(rerolls)
    kw.update(overrides)
    return Combatant(id=id or profile.id, melee=profile.melee, active=active, weapon=mw, **kw)


def check_pair(a: Combatant, b: Combatant) -> None:
    """Check that ``a`` and ``b`` can fight one exchange: two different models, exactly
    one of them the active model.

    Raises:
        MeleeError: a model against itself, or not exactly one active model.
    """
    if a.id == b.id:
        raise MeleeError(f"a model cannot fight itself ({a.id})")
    if a.active == b.active:
        raise MeleeError("exactly one of the two models is the active model "
                         f"({a.id}: active={a.active}, {b.id}: active={b.active})")
