"""The melee exchange (Melee Attacks p.33-37, Special abilities p.39-42) as pure functions.

Rulebook: the Russian translation in ``shared/seeds/000_*.txt``; page numbers follow its
table of contents (Actions p.24-26, Tests p.27-29, Melee Attacks p.33-37, Wound table
p.38, Special abilities p.39-42, Conditions p.43-45, Ki feats p.46-47, Traits p.48-59).
"l.N" names a line of that file where a page would be too coarse.

Nothing here mutates state: :func:`resolve_exchange` takes the two sides
(:class:`Combatant`), both secret allocations (:class:`Allocation`) and a dice source,
and returns an :class:`ExchangeResult` (wounds, conditions gained, models removed, moves,
markers, activation counters, and a log of :class:`Step` records numbered as the
rulebook's fifteen steps). The game applies it.

Order in which the engine takes dice from ``dice`` (so :class:`~sim.rules.dice.PhysicalDice`
can replay a real exchange):

1. step 7a -- the model with Initiative: its attack dice, then its defence dice; then the
   other model: attack dice, then defence dice;
2. step 7b -- re-rolls, in the order of :func:`sim.rules.dice.reroll_order` (the model
   without Initiative on the other's dice, then on its own; then the model with
   Initiative on the other's dice, then on its own), one die per re-rolled die;
3. steps 10-12 -- damage rolls as they happen (2 dice each, 3 with Strong/Weak/Assassin):
   the first comparison's damage (or Counterstrike) first, Combo rolls in turn, then the
   second comparison's.

Decisions where the rulebook is silent or ambiguous (each also noted where it is coded):

* Step 10b (l.1031): the translation says go to step 14 if the Defender "is no longer in
  contact with the Attacker *and not* knocked down". Read the same way as step 12: go
  to step 14 when a model was removed, the two are no longer in contact, or the Defender
  (the model due to strike next) was knocked Prone by this exchange. So a Sweep
  Defence knocks the Attacker down and the Defender still strikes back.
* "Knocked down" in steps 10b/12 means made Prone *during this exchange*; a model that
  was already Prone still strikes back (with its -1 die).
* Grapple Defence: the text says "if the attack is successful, the Defender becomes
  Held" -- a copy of Grapple Attack. Read as: if the defence succeeds, the Attacker
  becomes Held.
* Charge: "+2 to its first damage roll" (Charge action, l.709) is the charging model's
  first damage roll in the exchange, whatever caused it (normal, Combo, Counterstrike).
* Critical Attack compares the two dice kept for the damage roll (Strong/Weak roll 3).
* Dice rolled as 1 still count as "allocated" (step 9): a special attack with attack
  dice that all rolled 1 still triggers if the attack wins, and no damage roll is made
  only when *no* attack dice were allocated (step 8a).
* A trait that is both on the model and on its weapon (Parry, Brutal, Unblockable...)
  is not added up: the higher value is used (Traits p.48, "effects that give Trait (X)
  do not stack").
* Without a ``table``, moves are nominal: Push, Sidestep, Slam and Throw break contact
  (unless the moved model is Immovable), Drag and Forceback keep it. With a ``table``
  the moves are played by :func:`sim.rules.special.special_move` and contact is measured
  (gap <= ``CONTACT``).
* A model reduced to 0 wounds (``wounds_left``) is removed at once (Killed, p.4-9);
  Rise, Last Stand and Kami are the game's business.
* Tireless: a model that is not the active one loses no counter. The active model's
  counter is the one its action already costs (Actions p.24, "the active model does not
  remove an extra counter"): :attr:`ExchangeResult.counters` gives 1 for it and the game
  must not charge it again.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from models.traits import has_trait, trait_key, trait_values
from sim.geometry import CONTACT, EPS
from sim.geometry.primitives import heading
from sim.rules.conditions import condition_key
from sim.rules.dice import (
    Dice,
    RollKind,
    RollOptions,
    RollPurpose,
    RollResult,
    compare_results,
    evaluate_roll,
    modified_stat,
    opposed_pools,
    reroll_order,
)
from sim.rules.special import SpecialResult, special_move
from sim.rules.wounds import DamageResult, resolve_damage

__all__ = [
    "MeleeError", "AllocationError", "Side", "MeleeChooser", "KNOWN_CONDITIONS", "SPECIAL_RULES", "SpecialRule",
    "SpecialOption", "parse_special", "MeleeWeapon", "RerollSource", "prowess", "dodge", "feint",
    "Combatant", "combatant_from_profile", "initiative", "initiative_reason",
    "pool_modifiers", "melee_pools", "Allocation", "validate_allocation",
    "Step", "Comparison", "DamageEvent", "PendingMove", "Marker", "MeleeReroll", "SideRolls",
    "ExchangeResult", "resolve_exchange",
]

Side = Literal["a", "b"]
Kind = Literal["attack", "defence"]
#: The two sides of an exchange, in order.
SIDES: tuple[Side, Side] = ("a", "b")


class MeleeError(ValueError):
    """An exchange that cannot be played as asked (bad input, contradictory state)."""


class AllocationError(MeleeError):
    """A secret allocation that breaks the rules (p.33-35, p.39)."""


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


# --------------------------------------------------------------------------- specials


@dataclass(frozen=True)
class SpecialRule:
    """What a special attack or defence does when it succeeds (p.39-42).

    ``move``: the :data:`sim.rules.special.MOVES` name; ``mover``: which model moves
    (``"attacker"``/``"defender"`` of the comparison, ``"both"``); ``breaks_contact``:
    nominal effect of the move on contact when no table is given; ``no_damage``: no
    damage roll; ``halves``: the damage roll's wounds are halved (rounded down);
    ``enemy_prone``: the other model becomes Prone; ``enemy_condition``: a condition the
    other model gains; ``removes``: ``"enemy"`` or ``"both"`` are removed from play.
    """

    key: str
    kind: Kind
    name: str
    move: str | None = None
    mover: str | None = None
    breaks_contact: bool = False
    no_damage: bool = False
    halves: bool = False
    enemy_prone: bool = False
    enemy_condition: str | None = None
    removes: str | None = None


#: Special attacks and defences of the rulebook (p.39-42), by key.
SPECIAL_RULES: Mapping[str, SpecialRule] = {r.key: r for r in (
    SpecialRule("combo-attack", "attack", "Combo Attack"),
    SpecialRule("critical-attack", "attack", "Critical Attack"),
    SpecialRule("drag-attack", "attack", "Drag Attack", move="drag-attack", mover="both", no_damage=True),
    SpecialRule("forceback-attack", "attack", "Forceback Attack", move="forceback-attack", mover="both", halves=True),
    SpecialRule("grapple-attack", "attack", "Grapple Attack", no_damage=True, enemy_condition="held"),
    SpecialRule("powerful-attack", "attack", "Powerful Attack"),
    SpecialRule("push-attack", "attack", "Push Attack", move="push-attack", mover="defender",
                breaks_contact=True, no_damage=True),
    SpecialRule("sidestep-attack", "attack", "Sidestep Attack", move="sidestep-attack", mover="attacker",
                breaks_contact=True, no_damage=True),
    SpecialRule("slam-attack", "attack", "Slam Attack", move="slam", mover="defender", breaks_contact=True,
                halves=True, enemy_prone=True),
    SpecialRule("stun-attack", "attack", "Stun Attack", enemy_condition="stunned"),
    SpecialRule("sweep-attack", "attack", "Sweep Attack", halves=True, enemy_prone=True),
    SpecialRule("throw-attack", "attack", "Throw Attack", move="throw-attack", mover="defender",
                breaks_contact=True, halves=True, enemy_prone=True),
    SpecialRule("ivory-prison-attack", "attack", "Ivory Prison Attack", no_damage=True, removes="enemy"),
    SpecialRule("gokusatsu-attack", "attack", "Gokusatsu Attack", no_damage=True, removes="both"),
    SpecialRule("counterstrike-defence", "defence", "Counterstrike Defence"),
    SpecialRule("drag-defence", "defence", "Drag Defence", move="drag-defence", mover="both"),
    SpecialRule("forceback-defence", "defence", "Forceback Defence", move="forceback-defence", mover="both"),
    SpecialRule("push-defence", "defence", "Push Defence", move="push-defence", mover="attacker",
                breaks_contact=True),
    SpecialRule("grapple-defence", "defence", "Grapple Defence", enemy_condition="held"),
    SpecialRule("sidestep-defence", "defence", "Sidestep Defence", move="sidestep-defence", mover="defender",
                breaks_contact=True),
    SpecialRule("sweep-defence", "defence", "Sweep Defence", enemy_prone=True),
    SpecialRule("throw-defence", "defence", "Throw Defence", move="throw-defence", mover="attacker",
                breaks_contact=True, enemy_prone=True),
    SpecialRule("eagles-flight-defence", "defence", "Eagle's Flight Defence"),
)}

_SPECIAL_RE = re.compile(r"^\s*(?P<name>.*?)\s*(?:\(\s*(?P<cost>[^)]*)\s*\))?\s*$")


def _special_key(name: str) -> str:
    key = name.strip().lower().replace("defense", "defence").replace("'", "").replace("\u2019", "")
    key = re.sub(r"[\s_]+", "-", key)
    if key in ("slam", "combo", "critical", "powerful", "stun", "sweep", "grapple", "push", "throw",
               "drag", "forceback", "sidestep") and f"{key}-attack" in SPECIAL_RULES:
        return f"{key}-attack"  # a bare name means the attack
    if key == "counterstrike":
        return "counterstrike-defence"
    return key


@dataclass(frozen=True)
class SpecialOption:
    """A special attack or defence printed on a weapon: ``key`` (``slam-attack``),
    ``kind``, ``cost`` in dice, ``text`` as printed. ``rule`` is ``None`` for a special
    the rulebook does not describe (its effect comes from the card, not automated)."""

    key: str
    kind: Kind
    cost: int
    text: str

    @property
    def rule(self) -> SpecialRule | None:
        return SPECIAL_RULES.get(self.key)


def parse_special(text: str, kind: Kind | None = None) -> SpecialOption:
    """Parse ``"Slam Attack (1)"`` into a :class:`SpecialOption`.

    ``kind`` defaults to what the name ends with (Attack / Defence / Defense).
    Raises :class:`MeleeError` when the cost is missing or not a number >= 0, or the
    kind cannot be told.
    """
    m = _SPECIAL_RE.match(text)
    name, cost = (m.group("name"), m.group("cost")) if m else (text, None)
    if cost is None or not re.fullmatch(r"\d+", cost.strip()):
        raise MeleeError(f"special {text!r}: the cost in brackets must be a whole number >= 0")
    key = _special_key(name)
    if kind is None:
        if key.endswith("-attack"):
            kind = "attack"
        elif key.endswith("-defence"):
            kind = "defence"
        else:
            raise MeleeError(f"special {text!r}: neither an attack nor a defence")
    return SpecialOption(key, kind, int(cost), text.strip())


# --------------------------------------------------------------------------- weapon

def _trait_numbers(value: str | None) -> tuple[int, ...]:
    if value is None:
        return ()
    return tuple(int(x) for x in re.findall(r"[+-]?\d+", value))


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
        specials = tuple(parse_special(t, "attack") for t in attacks) + \
            tuple(parse_special(t, "defence") for t in defences)
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
        key = _special_key(re.sub(r"\(.*\)", "", name))
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
    Weak, Endurance, Indomitable (X), Parry (X), Brutal (X), Adept [Melee] (X), Kata,
    Impenetrable Defence, Unblockable (X), Aggressive, Defensive, Steadfast, Tireless,
    Immovable, Assassin, Sixth Sense, ``immune`` (Immune [..] condition names),
    ``damage_modifier`` (other modifiers to its damage rolls), ``disengaging`` (the
    Disengage action: at least as many defence dice as attack dice, p.25),
    ``wounds_left`` (unmarked wound boxes; ``None``: not tracked, never Killed here),
    ``rerolls`` (:class:`RerollSource`), ``removes_counter`` (``False`` for the Split
    Attack exchanges before the last one, p.57).
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
        return self.reach or self.weapon.has_trait("reach")

    @property
    def effective_strong(self) -> bool:
        return self.strong or self.weapon.has_trait("strong")

    @property
    def effective_weak(self) -> bool:
        return self.weak or self.weapon.has_trait("weak")

    def parry_against(self, enemy: "Combatant") -> int:
        """Parry (X) (model or weapon, the higher), less the enemy weapon's Chain Weapon (X), min 0."""
        p = max(self.parry, self.weapon.trait_value("parry"))
        return max(0, p - enemy.weapon.trait_value("chain_weapon"))

    @property
    def brutal_value(self) -> int:
        return max(self.brutal, self.weapon.trait_value("brutal"))

    @property
    def unblockable_value(self) -> int:
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
        elif k == "adept" and q in ("melee", "attack", "defence", "defense"):
            kw["adept"] = v
        elif k == "immune":
            immune.update(condition_key(s) for s in q.split(",") if s.strip())
        elif k == "prowess" and q in ("melee", "attack", "defence", "defense"):
            kinds = ("attack", "defence") if q == "melee" else ("attack",) if q == "attack" else ("defence",)
            rerolls.append(RerollSource(t.text, "own", frozenset(kinds), v))
        elif k == "dodge":
            rerolls.append(dodge(v))
        elif k == "feint":
            rerolls.append(feint(v))
    if has_trait(profile, "intangible"):
        immune.update({"held", "immobilised"})
    if has_trait(profile, "agile"):
        immune.add("held")
    kw["immune"] = frozenset(immune)
    kw["rerolls"] = tuple(rerolls)
    kw.update(overrides)
    return Combatant(id=id or profile.id, melee=profile.melee, active=active, weapon=mw, **kw)


def _check_pair(a: Combatant, b: Combatant) -> None:
    if a.id == b.id:
        raise MeleeError(f"a model cannot fight itself ({a.id})")
    if a.active == b.active:
        raise MeleeError("exactly one of the two models is the active model "
                         f"({a.id}: active={a.active}, {b.id}: active={b.active})")


def _other(side: Side) -> Side:
    return "b" if side == "a" else "a"


# --------------------------------------------------------------------------- step 3


def initiative_reason(a: Combatant, b: Combatant) -> tuple[Side, str]:
    """Who has the Initiative (step 3, p.34) and why: ``("a" | "b", explanation)``.

    In order: a Prone or Surprised model attacks second and cannot benefit from anything
    that affects Initiative (p.45, p.36); a Slow model with Lightning Reflexes and/or
    Reach ignores those and Slow (p.58); Lightning Reflexes (unless both have it) wins,
    also against Reach (p.55); Reach (weapon or terrain, and not in contact with an enemy
    at the start of the current activation; unless both have it) wins (p.57); a Slow model
    loses it even when active (p.58); otherwise the active model. Then step 3b: the
    non-active model's Ki feat (``ki_initiative``) may take it, after which the active
    model's may take it back. Raises :class:`MeleeError` if not exactly one model is
    active, or a Surprised model declares a Ki feat.
    """
    _check_pair(a, b)
    c = {"a": a, "b": b}
    active: Side = "a" if a.active else "b"
    why: list[str] = []
    second = {s: c[s].has("prone") or c[s].has("surprised") for s in c}
    lr, reach, slow = {}, {}, {}
    for s, m in c.items():
        lr[s], reach[s], slow[s] = m.lightning_reflexes, m.has_reach and not m.engaged_at_start, m.slow
        if m.has_reach and m.engaged_at_start:
            why.append(f"{m.id}'s Reach gives nothing: it was in contact with an enemy at the start of the activation")
        if m.slow and (m.lightning_reflexes or m.has_reach):
            why.append(f"{m.id} is Slow with Lightning Reflexes/Reach: it ignores all of them")
            lr[s] = reach[s] = slow[s] = False
        if second[s]:
            lr[s] = reach[s] = False
        if m.has("surprised") and m.ki_initiative:
            raise MeleeError(f"{m.id} is Surprised and cannot declare Ki feats (p.36)")
    if lr["a"] and lr["b"]:
        lr = {"a": False, "b": False}
        why.append("both have Lightning Reflexes: neither benefits")
    if reach["a"] and reach["b"]:
        reach = {"a": False, "b": False}
        why.append("both have Reach: neither benefits")

    holder: Side
    if second["a"] != second["b"]:
        holder = "b" if second["a"] else "a"
        loser = c[_other(holder)]
        state = "Prone" if loser.has("prone") else "Surprised"
        why.append(f"{loser.id} is {state}: it attacks second")
    elif lr["a"] != lr["b"]:
        holder = "a" if lr["a"] else "b"
        why.append(f"{c[holder].id} has Lightning Reflexes")
    elif reach["a"] != reach["b"]:
        holder = "a" if reach["a"] else "b"
        why.append(f"{c[holder].id} fights with Reach")
    elif slow["a"] != slow["b"]:
        holder = "b" if slow["a"] else "a"
        why.append(f"{c[_other(holder)].id} is Slow and loses the Initiative")
    else:
        holder = active
        why.append(f"{c[active].id} is the active model")

    # step 3b: Ki feats, the non-active player first
    nonactive = _other(active)
    for s in (nonactive, active):
        m = c[s]
        if m.ki_initiative and holder != s:
            if second[s]:
                why.append(f"{m.id}'s Ki feat cannot change the Initiative "
                           f"({'Prone' if m.has('prone') else 'Surprised'})")
            else:
                holder = s
                why.append(f"{m.id}'s Ki feat takes the Initiative")
    return holder, "; ".join(why)


def initiative(a: Combatant, b: Combatant) -> Side:
    """The side with the Initiative, ``"a"`` or ``"b"`` (see :func:`initiative_reason`)."""
    return initiative_reason(a, b)[0]


# --------------------------------------------------------------------------- step 4


def pool_modifiers(c: Combatant, enemy: Combatant | None = None) -> list[tuple[str, int]]:
    """Labelled Melee pool modifiers of ``c`` (p.36 table, conditions p.43-45).

    Exhausted -1 (not with Endurance); -1 per supporting enemy beyond Indomitable (X);
    Prone, Blind, Stunned, Frightened, Immobilised -1 each; Held -1; Ran -1; Surprised -1;
    Stand Up -1; the enemy's Death Sentence +1; ``modifiers``; Ki boost +N. Raises
    :class:`MeleeError` for a Ki boost by a Surprised model.
    """
    mods: list[tuple[str, int]] = []
    if c.has("exhausted") and not c.endurance:
        mods.append(("Exhausted", -1))
    supporting = max(0, c.assists - max(0, c.indomitable))
    if supporting:
        mods.append((f"Assist x{supporting}", -supporting))
    for cond in ("prone", "blind", "stunned", "frightened", "immobilised", "held"):
        if c.has(cond):
            mods.append((cond.capitalize(), -1))
    if c.has("ran"):
        mods.append(("Ran this turn", -1))
    if c.has("surprised"):
        mods.append(("Surprised", -1))
    if c.has("stood_up"):
        mods.append(("Stand Up", -1))
    if enemy is not None and enemy.has("death_sentence"):
        mods.append((f"{enemy.id} has Death Sentence", +1))
    mods.extend(c.modifiers)
    if c.ki_boost:
        if c.has("surprised"):
            raise MeleeError(f"{c.id} is Surprised and cannot use Ki boosts (p.36)")
        mods.append(("Ki boost", c.ki_boost))
    return mods


def melee_pools(a: Combatant, b: Combatant) -> tuple[int, int, tuple[str, ...]]:
    """Dice pools of both models for the exchange (step 4, p.34-36, Tests p.27).

    Each pool is the Melee statistic plus :func:`pool_modifiers`, capped at twice the
    base (:func:`~sim.rules.dice.modified_stat`; a base of 0 reaches 1 at most); then,
    if either is below one die, both add dice until both have one
    (:func:`~sim.rules.dice.opposed_pools`). Returns ``(pool_a, pool_b, explanation)``.
    """
    _check_pair(a, b)
    lines = []
    raw = {}
    for key, m, e in (("a", a, b), ("b", b, a)):
        mods = pool_modifiers(m, e)
        total = sum(v for _, v in mods)
        pool = modified_stat(m.melee, total)
        raw[key] = pool
        parts = ", ".join(f"{k} {v:+d}" for k, v in mods) or "no modifiers"
        cap = 2 * m.melee if m.melee > 0 else 1
        capped = " (capped at twice the base)" if m.melee + total > cap else ""
        lines.append(f"{m.id}: Melee {m.melee}; {parts} -> {pool}{capped}")
    pa, pb = opposed_pools(raw["a"], raw["b"])
    if (pa, pb) != (raw["a"], raw["b"]):
        lines.append(f"both add {pa - raw['a']} dice so that both roll at least one: "
                     f"{a.id} {pa}, {b.id} {pb}")
    return pa, pb, tuple(lines)


# --------------------------------------------------------------------------- step 5


@dataclass(frozen=True)
class Allocation:
    """A secret allocation (step 5): dice to ``attack`` and ``defence`` and at most one
    ``special`` (name or key, e.g. ``"Slam Attack"``/``"slam-attack"``). ``direction``
    (degrees) is the Throw or Sidestep direction chosen, if any."""

    attack: int
    defence: int
    special: str | None = None
    direction: float | None = None


def validate_allocation(combatant: Combatant, pool: int, allocation: Allocation) -> SpecialOption | None:
    """Check an allocation against the rules and return the special chosen (or ``None``).

    ``pool``: the model's dice for this exchange (from :func:`melee_pools`). Rules:
    attack and defence dice are >= 0 and add up to ``pool`` minus the special's cost
    (p.34, p.39); the cost may not bring the pool to 0 (p.39); the special must be on
    the weapon in use (p.39); one special per exchange (one field); Prone models cannot
    use special abilities (p.45), nor Immobilised ones (p.44); Aggressive: attack >=
    defence, Defensive (also Frightened without Steadfast, Held): defence >= attack; both
    cancel (p.48, p.51); Disengage: defence >= attack, not possible for an Aggressive
    model (p.25). Raises :class:`AllocationError` with the reason.
    """
    who = combatant.id
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (allocation.attack, allocation.defence)):
        raise AllocationError(f"{who}: attack and defence dice are whole numbers")
    if allocation.attack < 0 or allocation.defence < 0:
        raise AllocationError(f"{who}: dice counts cannot be negative ({allocation.attack}/{allocation.defence})")
    option = None
    cost = 0
    if allocation.special:
        option = combatant.weapon.special(allocation.special)
        if option is None:
            have = ", ".join(s.text for s in combatant.weapon.specials) or "none"
            raise AllocationError(f"{who}: {allocation.special!r} is not on {combatant.weapon.name} (has: {have})")
        if combatant.has("prone"):
            raise AllocationError(f"{who} is Prone and cannot use special attacks or defences (p.45)")
        if combatant.has("immobilised"):
            raise AllocationError(f"{who} is Immobilised and cannot declare special attacks or defences (p.44)")
        cost = option.cost
        if pool - cost < 1:
            raise AllocationError(f"{who}: {option.text} would reduce the pool of {pool} to {pool - cost} (p.39)")
    if allocation.attack + allocation.defence != pool - cost:
        paid = f" after paying {cost} for {option.text}" if option and cost else ""
        raise AllocationError(f"{who}: {allocation.attack} attack + {allocation.defence} defence dice "
                              f"must equal the pool of {pool}{paid} ({pool - cost})")
    rule = combatant.allocation_rule()
    if combatant.disengaging:
        if rule == "aggressive":
            raise AllocationError(f"{who} is Aggressive and cannot Disengage (p.25)")
        if allocation.defence < allocation.attack:
            raise AllocationError(f"{who} disengages: at least as many defence dice as attack dice (p.25)")
    if rule == "aggressive" and allocation.attack < allocation.defence:
        raise AllocationError(f"{who} is Aggressive: at least as many attack dice as defence dice (p.48)")
    if rule == "defensive" and allocation.defence < allocation.attack:
        raise AllocationError(f"{who} is Defensive: at least as many defence dice as attack dice (p.51)")
    return option


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Step:
    """One logged step: ``number`` 1..15 as in the rulebook's list (p.34-35), its
    ``name`` and what happened (``detail``)."""

    number: int
    name: str
    detail: str


@dataclass(frozen=True)
class MeleeReroll:
    """A re-rolled die: which ``source`` (by model ``by``), whose die (``on``), kind, index, old and new value."""

    by: str
    source: str
    on: str
    kind: str
    index: int
    old: int
    new: int


@dataclass(frozen=True)
class SideRolls:
    """One model's dice: attack and defence :class:`~sim.rules.dice.RollResult`."""

    attack: RollResult
    defence: RollResult

    @property
    def counted(self) -> int:
        """Dice counted for ties at step 10: attack and defence dice together, 1s excluded."""
        return self.attack.dice_counted + self.defence.dice_counted


@dataclass(frozen=True)
class Comparison:
    """Step 10: ``attacker``'s final attack against ``defender``'s final defence.
    ``winner``: model id; ``success_level`` >= 0; ``tie_break``: ``None``, ``"dice"``, ``"active"``."""

    attacker: str
    defender: str
    attack: int
    defence: int
    winner: str
    success_level: int
    tie_break: str | None


@dataclass(frozen=True)
class DamageEvent:
    """A damage roll (p.38) made by ``by`` against ``target``.

    ``source``: ``"attack"``, ``"combo"`` or ``"counterstrike"``; ``success_level``: the
    column used; ``charge_bonus``: +2 if it was the charger's first damage roll;
    ``halved``; ``result``: :class:`~sim.rules.wounds.DamageResult` (``.wounds`` are
    the wounds marked); ``critical``: a Critical Attack doubled (target removed).
    """

    by: str
    target: str
    source: str
    success_level: int
    charge_bonus: int
    halved: bool
    result: DamageResult
    critical: bool = False

    @property
    def wounds(self) -> int:
        return self.result.wounds


@dataclass(frozen=True)
class PendingMove:
    """A move made by a special ability. ``move``: a :data:`sim.rules.special.MOVES` name
    (or ``"eagles-flight"``: the model may move 3" after the exchange); ``attacker`` and
    ``defender``: the roles of :func:`sim.rules.special.special_move`; ``direction``: the
    chosen direction, degrees; ``result``: the :class:`~sim.rules.special.SpecialResult`
    when a table was given, else ``None`` (the game plays the move)."""

    move: str
    attacker: str
    defender: str
    direction: float | None = None
    result: SpecialResult | None = None


@dataclass(frozen=True)
class Marker:
    """Markers placed by weapon traits on wounding (Poison, Fire, Bleed (X/Y), Disease (X),
    Ki Block): ``count`` markers of ``value`` (``None`` when the marker has no value)."""

    target: str
    kind: str
    count: int
    value: int | None = None


@dataclass(frozen=True)
class ExchangeResult:
    """Everything a melee exchange did; nothing is applied.

    ``initiative``: id of the model with Initiative; ``pools``, ``allocations``,
    ``specials`` (declared :class:`SpecialOption` or ``None``), ``rolls``
    (:class:`SideRolls`), ``rerolls``; ``comparisons``: one or two step-10 comparisons;
    ``damage``: every damage roll in order; ``wounds``: wounds marked on each model;
    ``conditions``: conditions gained (``prone``, ``stunned``, ``held``, ``immobilised``)
    by id (a Slam or Throw may knock down a third model); ``removed``: id -> reason
    (``killed``, ``critical``, ``ivory-prison``, ``gokusatsu``); ``moves``
    (:class:`PendingMove`); ``positions`` and ``facings``: end positions and facings when
    a table was given; ``in_contact``: whether the two end in base contact; ``markers``;
    ``counters``: activation counters each model removes (step 14); ``log``.
    """

    initiative: str
    pools: dict[str, int]
    allocations: dict[str, Allocation]
    specials: dict[str, SpecialOption | None]
    rolls: dict[str, SideRolls]
    rerolls: tuple[MeleeReroll, ...]
    comparisons: tuple[Comparison, ...]
    damage: tuple[DamageEvent, ...]
    wounds: dict[str, int]
    conditions: dict[str, frozenset[str]]
    removed: dict[str, str]
    moves: tuple[PendingMove, ...]
    markers: tuple[Marker, ...]
    counters: dict[str, int]
    in_contact: bool
    positions: dict[str, tuple[float, float]]
    facings: dict[str, float]
    log: tuple[Step, ...]

    def steps(self, number: int) -> list[Step]:
        """The logged steps with this number."""
        return [s for s in self.log if s.number == number]


# --------------------------------------------------------------------------- resolution

_STEP_NAMES = {
    1: "Face", 2: "Weapons", 3: "Initiative", 4: "Pools", 5: "Allocation", 6: "Reveal",
    7: "Roll", 8: "Final results", 9: "Void specials", 10: "Compare", 11: "Ki feats",
    12: "Damage", 13: "Swap", 14: "Activation counters", 15: "Boosts expire",
}


class _Exchange:
    """Mutable scratch state of one :func:`resolve_exchange` call (never escapes)."""

    def __init__(self, a: Combatant, b: Combatant, dice: Dice, table) -> None:
        self.c: dict[Side, Combatant] = {"a": a, "b": b}
        self.dice = dice
        self.table = table
        self.log: list[Step] = []
        self.damage: list[DamageEvent] = []
        self.wounds = {a.id: 0, b.id: 0}
        self.gained: dict[str, set[str]] = {a.id: set(), b.id: set()}
        self.removed: dict[str, str] = {}
        self.moves: list[PendingMove] = []
        self.markers: list[Marker] = []
        self.in_contact = True
        self.charge_used = {"a": False, "b": False}
        self.wounds_left = {"a": a.wounds_left, "b": b.wounds_left}
        self.no_attack: set[Side] = set()
        self.halving_blocked: set[str] = set()

    def add(self, number: int, detail: str) -> None:
        self.log.append(Step(number, _STEP_NAMES[number], detail))

    def side_of(self, model_id: str) -> Side | None:
        for s, m in self.c.items():
            if m.id == model_id:
                return s
        return None

    def gain(self, model_id: str, condition: str) -> bool:
        s = self.side_of(model_id)
        if s is not None and not self.c[s].can_gain(condition):
            return False
        if model_id not in self.gained:
            self.gained[model_id] = set()
        self.gained[model_id].add(condition)
        return True

    def newly_prone(self, side: Side) -> bool:
        return "prone" in self.gained[self.c[side].id]

    # -- damage ------------------------------------------------------------------------
    def damage_roll(self, by: Side, sl: int, source: str, *, powerful: bool = False,
                    halved: bool = False, critical: bool = False) -> DamageEvent:
        roller, target = self.c[by], self.c[_other(by)]
        w = roller.weapon
        bonus = 0
        if roller.charge and not self.charge_used[by]:
            bonus = 2
            self.charge_used[by] = True
        strength = w.strength + (3 if powerful else 0)
        mods = bonus + roller.damage_modifier + (1 if target.has("death_sentence") else 0)
        strong, weak = roller.effective_strong, roller.effective_weak
        if roller.assassin and target.has("surprised"):
            strong, weak = True, False  # Assassin: 3 dice, keep two, ignoring Strong/Weak (p.49)
        purpose = RollPurpose(RollKind.DAMAGE, roller.id, target.id, None if source == "attack" else source)
        res = resolve_damage(self.dice, sl, strength=strength, modifiers=mods, strong=strong, weak=weak,
                             armour=target.armour, pierce=w.trait_value("pierce"), tough=target.tough,
                             sharp=w.trait_value("sharp"), durable=target.durable, halved=halved,
                             purpose=purpose)
        is_crit = critical and res.roll.is_double
        ev = DamageEvent(roller.id, target.id, source, sl, bonus, halved, res, is_crit)
        self.damage.append(ev)
        self.wounds[target.id] += res.wounds
        parts = [f"{roller.id} rolls {list(res.roll.dice)}"]
        if len(res.roll.dice) > 2:
            parts.append(f"keeps {list(res.roll.kept)}")
        detail = (f"{source}: " + " ".join(parts) + f" {res.roll.modifier:+d}"
                  f" (Strength {strength:+d}" + (", Charge +2" if bonus else "") +
                  (f", Armour -{max(0, target.armour - w.trait_value('pierce'))}" if target.armour else "") +
                  f") = {res.roll.total} at success level {sl}: {res.table_wounds} on the table")
        if res.wounds != res.table_wounds:
            detail += f", {res.wounds} marked" + (" (halved)" if halved else "") + \
                (f" (Tough {target.tough})" if target.tough else "") + (" (Durable)" if target.durable else "")
        detail += f" -> {target.id} takes {res.wounds} wound(s)"
        if res.wounds > 0:
            for kind in ("poison", "fire", "bleed"):
                v = w.trait_values(kind)
                if v is not None:
                    count, value = v[0], (v[1] if len(v) > 1 else None)
                    self.markers.append(Marker(target.id, kind, count, value))
                    detail += f"; {target.id} gains {count} {kind} marker(s)" + (f" ({value})" if value else "")
            if w.trait_values("disease") is not None:
                self.markers.append(Marker(target.id, "disease", w.trait_value("disease")))
            if w.trait_values("ki_block") is not None:
                self.markers.append(Marker(target.id, "spirit_block", 1))
        left = self.wounds_left[_other(by)]
        if left is not None:
            left -= res.wounds
            self.wounds_left[_other(by)] = left
            if left <= 0 and target.id not in self.removed:
                self.removed[target.id] = "killed"
                detail += f"; {target.id} is Killed"
        if is_crit and target.id not in self.removed:
            self.removed[target.id] = "critical"
            detail += f"; Critical Attack: the dice match, {target.id} is removed from play"
        self.add(12, detail)
        return ev

    # -- moves ---------------------------------------------------------------------------
    def play_move(self, rule: SpecialRule, att: Side, dfn: Side, direction: float | None) -> None:
        A, D = self.c[att], self.c[dfn]
        move, mover_role = rule.move, rule.mover
        assert move is not None and mover_role is not None  # called for a special with a move
        if self.table is None:
            pm = PendingMove(move, A.id, D.id, direction)
            self.moves.append(pm)
            mover = {"attacker": A, "defender": D, "both": None}[mover_role]
            if rule.breaks_contact and mover is not None and not mover.immovable:
                self.in_contact = False
            self.add(10, f"{rule.move}: {A.id} (attacker), {D.id} (defender) -- to be played by the game"
                         + ("" if self.in_contact else "; they leave contact"))
            return
        res = special_move(self.table, A.id, D.id, move, direction)
        self.moves.append(PendingMove(move, A.id, D.id,
                                      res.direction if res.direction is not None else direction, res))
        for mid in res.prone:
            self.gain(mid, "prone")
        self.halving_blocked |= set(res.damage_not_halved)
        self.table = _table_after(self.table, res)
        self.in_contact = _in_contact(self.table, A.id, D.id)
        moved = ", ".join(f"{k} {m.distance:.2f}\"" for k, m in res.moves.items())
        self.add(10, f"{rule.move}: moved {moved or 'nothing'}"
                     + (f"; Prone: {', '.join(res.prone)}" if res.prone else "")
                     + ("" if self.in_contact else f"; {A.id} and {D.id} are no longer in contact"))

    # -- one comparison (steps 10-12) ------------------------------------------------------
    def compare(self, att: Side, dfn: Side, rolls: dict[Side, SideRolls], specials, allocs,
                active: Side) -> tuple[Comparison, bool]:
        """Steps 10-12 for ``att`` striking ``dfn``. Returns the comparison and whether to go
        on to step 13 (``True``) or straight to step 14."""
        A, D = self.c[att], self.c[dfn]
        fa, fd = rolls[att].attack.final, rolls[dfn].defence.final
        ca, cd = rolls[att].counted, rolls[dfn].counted
        w, tie = compare_results(fa, ca, fd, cd, "a" if active == att else "b")
        winner = att if w == "a" else dfn
        sl = abs(fa - fd)
        comp = Comparison(A.id, D.id, fa, fd, self.c[winner].id, sl, tie)
        tie_txt = {None: "", "dice": " (tie: more dice, attack and defence counted together)",
                   "active": " (tie: the active model wins)"}[tie]
        who = "attack hits" if winner == att else "defence holds"
        self.add(10, f"{A.id} attacks {fa} against {D.id}'s defence {fd}: the {who}{tie_txt}, "
                     f"success level {sl}")
        if winner == att:
            return comp, self._attack_wins(att, dfn, sl, specials[att], allocs[att])
        return comp, self._defence_wins(att, dfn, sl, specials[dfn], allocs)

    def _attack_wins(self, att: Side, dfn: Side, sl: int, option: SpecialOption | None,
                     alloc: Allocation) -> bool:
        A, D = self.c[att], self.c[dfn]
        rule = None
        if option is not None and option.kind == "attack" and alloc.attack > 0:
            rule = option.rule
            if rule is None:
                self.add(10, f"{option.text} succeeds: its effect is on {A.id}'s card (not automated)")
        no_damage = alloc.attack == 0
        powerful = halved = critical = combo = False
        if rule is not None:
            self.add(10, f"{rule.name} succeeds")
            if rule.removes == "enemy":
                self.removed.setdefault(D.id, "ivory-prison")
                self.add(10, f"{D.id} is removed from play and replaced by a Prone Kairai under "
                             f"{A.id}'s controller (Ivory Prison)")
            elif rule.removes == "both":
                if D.weapon.special("gokusatsu-attack") is not None:
                    self.add(10, f"{D.id} also has Gokusatsu Attack: no effect on either model")
                else:
                    self.removed.setdefault(A.id, "gokusatsu")
                    self.removed.setdefault(D.id, "gokusatsu")
                    self.add(10, f"both {A.id} and {D.id} are removed from play (Gokusatsu)")
            self.enemy_effects(rule, att, dfn, D.id, alloc.direction)
            if rule.enemy_condition and rule.key == "grapple-attack":
                self.no_attack.add(dfn)
            no_damage = no_damage or rule.no_damage
            powerful = rule.key == "powerful-attack"
            halved = rule.halves and D.id not in self.halving_blocked
            critical = rule.key == "critical-attack"
            combo = rule.key == "combo-attack"
        if A.weapon.has_trait("entangling") and not no_damage:
            no_damage = True
            if self.gain(D.id, "immobilised"):
                self.add(10, f"Entangling: {D.id} is Immobilised instead of taking damage")
        self.add(11, "Ki feats of the two models may be declared here (not modelled)")
        if alloc.attack == 0:
            self.add(12, f"{A.id} allocated no attack dice: no damage roll (step 8a)")
        elif no_damage:
            self.add(12, f"{rule.name if rule else 'the attack'}: no damage roll")
        elif D.id in self.removed:
            self.add(12, f"{D.id} is no longer on the table: no damage roll")
        else:
            self.damage_roll(att, sl, "attack", powerful=powerful, halved=halved, critical=critical)
            if combo:
                level = sl - 2
                while level >= 0 and D.id not in self.removed:
                    self.damage_roll(att, level, "combo")
                    level -= 2
                if sl in (0, 1) and D.id not in self.removed:
                    self.damage_roll(att, 0, "combo")
        return self._goes_on(dfn)

    def _defence_wins(self, att: Side, dfn: Side, sl: int, option: SpecialOption | None,
                      allocs: dict[Side, Allocation]) -> bool:
        A, D = self.c[att], self.c[dfn]
        if option is not None and option.kind == "defence" and allocs[dfn].defence > 0:
            rule = option.rule
            if rule is None:
                self.add(10, f"{option.text} succeeds: its effect is on {D.id}'s card (not automated)")
            else:
                self.add(10, f"{rule.name} succeeds")
                if rule.key == "counterstrike-defence":
                    if allocs[att].attack == 0:
                        self.add(10, f"{A.id} allocated no attack dice: Counterstrike does nothing")
                    elif sl - 2 < 0:
                        self.add(10, f"success level {sl} - 2 < 0: no Counterstrike damage")
                    else:
                        self.damage_roll(dfn, sl - 2, "counterstrike")
                elif rule.key == "eagles-flight-defence":
                    self.moves.append(PendingMove("eagles-flight", A.id, D.id))
                    self.add(10, f"{D.id} may move 3\" after the exchange")
                self.enemy_effects(rule, att, dfn, A.id, allocs[dfn].direction)
        return self._goes_on(dfn)

    def enemy_effects(self, rule, att: Side, dfn: Side, victim: str, direction: float | None) -> None:
        """Step 10a/10b: what a successful special does to the other model -- its move,
        knocking it Prone (unless a move on the table already did), its condition."""
        if rule.move:
            self.play_move(rule, att, dfn, direction)
        if rule.enemy_prone and not (self.table is not None and rule.move):
            if self.gain(victim, "prone"):
                self.add(10, f"{victim} is knocked Prone")
            else:
                self.add(10, f"{victim} cannot be knocked Prone (Immune/Immovable)")
        if rule.enemy_condition and self.gain(victim, rule.enemy_condition):
            self.add(10, f"{victim} becomes {rule.enemy_condition.capitalize()}")

    def _goes_on(self, dfn: Side) -> bool:
        """Steps 10b/12: carry on to step 13 unless a model was removed, the two left
        contact, or the Defender was knocked down in this exchange."""
        if self.removed:
            return False
        if not self.in_contact:
            return False
        if self.newly_prone(dfn):
            return False
        return True


def _table_after(table, res):
    """A copy of ``table`` with the moved models' positions and Prone states updated."""
    pos = res.positions()
    prone = set(res.prone)
    models = tuple(dataclasses.replace(m, position=pos.get(m.id, m.position), prone=m.prone or m.id in prone)
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _in_contact(table, x: str, y: str) -> bool:
    mx, my = table.model(x), table.model(y)
    gap = math.dist(mx.position, my.position) - mx.radius - my.radius
    return gap <= CONTACT + EPS


def _face(table, a: str, b: str, immovable: dict[str, bool]) -> tuple[object, dict[str, float]]:
    facings: dict[str, float] = {}
    ma, mb = table.model(a), table.model(b)
    for m, o in ((ma, mb), (mb, ma)):
        if immovable.get(m.id):
            facings[m.id] = float(m.facing)
        else:
            facings[m.id] = heading(o.position[0] - m.position[0], o.position[1] - m.position[1])
    models = tuple(dataclasses.replace(m, facing=facings[m.id]) if m.id in facings else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[]), facings


def _roll_side(values: list[int], modifier: int, options: RollOptions, initial, rerolls) -> RollResult:
    return evaluate_roll(values, modifier, options, initial=initial, rerolls=rerolls)


def resolve_exchange(a: Combatant, b: Combatant, alloc_a: Allocation, alloc_b: Allocation, dice: Dice,
                     *, table=None) -> ExchangeResult:
    """Play one melee exchange, steps 1-15 (p.34-35), and return what happened.

    ``a``, ``b``: the two models (exactly one active); ``alloc_a``, ``alloc_b``: their
    secret allocations, checked with :func:`validate_allocation` against the pools of
    :func:`melee_pools`; ``dice``: where every die comes from (order in the module
    docstring); ``table``: a :class:`sim.table.Table` holding both ids -- then the models
    turn to face each other, special moves are played with
    :func:`sim.rules.special.special_move` and contact is measured; without it the moves
    are returned for the game to play.

    Per step: 1 face; 2 weapons (non-active first); 3 Initiative (:func:`initiative_reason`);
    4 pools; 5 allocations (costs paid); 6 specials revealed; 7 roll, re-roll, remove dice
    (Impenetrable Defence, Unblockable); 8 final results (highest + up to two supporting dice
    + Brutal on attack if attack dice were allocated, Parry on defence; 0 with no dice left);
    9 specials without dice of their kind are void; 10 the Attacker's attack against the
    Defender's defence (ties: more dice counting attack and defence together, then the
    active model); 10a/10b the winner's special; 11 Ki feats (not modelled); 12 damage roll;
    13 the Defender strikes back unless a model was removed, contact was lost, the Defender
    was knocked down or Grappled; 14 each model removes one activation counter (not a
    Tireless non-active model); 15 boosts expire.

    Raises :class:`MeleeError` / :class:`AllocationError` for bad input,
    :class:`~sim.rules.dice.DiceError` when the dice source runs out,
    :class:`~sim.rules.special.SpecialMoveError` for an impossible move direction, and
    ``KeyError`` when a ``table`` lacks one of the models.
    """
    _check_pair(a, b)
    ex = _Exchange(a, b, dice, table)
    c = ex.c
    active: Side = "a" if a.active else "b"
    nonactive = _other(active)
    allocs: dict[Side, Allocation] = {"a": alloc_a, "b": alloc_b}

    # step 1
    facings: dict[str, float] = {}
    if table is not None:
        if not _in_contact(table, a.id, b.id):
            raise MeleeError(f"{a.id} and {b.id} are not in base contact: no melee exchange (step 7a)")
        ex.table, facings = _face(table, a.id, b.id, {a.id: a.immovable, b.id: b.immovable})
        ex.add(1, "; ".join(f"{k} faces {v:.1f} deg" for k, v in facings.items()))
    else:
        turning = [m.id for m in (a, b) if not m.immovable]
        ex.add(1, (" and ".join(turning) + " turn to face each other") if turning else "both are Immovable: no turning")
    for m in (a, b):
        if m.immovable:
            ex.add(1, f"{m.id} is Immovable and does not turn (p.53)")
    # step 2
    ex.add(2, f"{c[nonactive].id} (not active) fights with {c[nonactive].weapon.name}, "
              f"then {c[active].id} with {c[active].weapon.name}")
    # step 3
    leader, why = initiative_reason(a, b)
    other = _other(leader)
    ex.add(3, f"{c[leader].id} has the Initiative ({why}); {c[other].id} declares effects first")
    # step 4
    pa, pb, expl = melee_pools(a, b)
    pools: dict[Side, int] = {"a": pa, "b": pb}
    ex.add(4, "; ".join(expl))
    # step 5
    specials: dict[Side, SpecialOption | None] = {}
    for s in SIDES:
        specials[s] = validate_allocation(c[s], pools[s], allocs[s])
        sp = specials[s]
        cost = (f", pays {sp.cost} dice for {sp.text}" if sp.cost else f", uses {sp.text} (no dice)") if sp else ""
        ex.add(5, f"{c[s].id} secretly allocates {allocs[s].attack} attack and {allocs[s].defence} defence{cost}")
    # step 6
    declared = [(c[s].id, specials[s]) for s in (other, leader)]
    ex.add(6, "; ".join(f"{mid}: {sp.text if sp else 'no special'}" for mid, sp in declared))

    # step 7a: roll, the Initiative model first
    values: dict[Side, dict[str, list[int]]] = {}
    for s in (leader, other):
        me, them = c[s].id, c[_other(s)].id
        values[s] = {"attack": dice.roll(allocs[s].attack, RollPurpose(RollKind.MELEE_ATTACK, me, them)),
                     "defence": dice.roll(allocs[s].defence, RollPurpose(RollKind.MELEE_DEFENCE, me, them))}
    initial = {s: {k: tuple(v) for k, v in values[s].items()} for s in values}
    ex.add(7, "; ".join(f"{c[s].id} rolls attack {list(initial[s]['attack'])}, defence "
                        f"{list(initial[s]['defence'])}" for s in (leader, other)))
    # step 7b: re-rolls in the order of Tests p.28
    rerolls: list[MeleeReroll] = []
    for by, on in reroll_order(leader):
        rel = "own" if by == on else "enemy"
        for src in c[by].reroll_sources():
            if src.on != rel:
                continue
            picks = src.pick(tuple(values[on]["attack"]), tuple(values[on]["defence"]))
            if not picks:
                continue
            new = dice.roll(len(picks), RollPurpose(RollKind.MELEE_REROLL, c[by].id, c[on].id, src.name))
            for (kind, i), v in zip(picks, new):
                r = MeleeReroll(c[by].id, src.name, c[on].id, kind, i, values[on][kind][i], v)
                rerolls.append(r)
                values[on][kind][i] = v
                ex.add(7, f"{c[by].id} re-rolls {c[on].id}'s {kind} die {r.old} -> {v} ({src.name})")
    # dice removed (Impenetrable Defence p.54, Unblockable p.58); Kata, Adept (p.48, p.54)
    rolls: dict[Side, SideRolls] = {}
    for s in SIDES:
        m, e = c[s], c[_other(s)]
        drop_att = 1 if e.impenetrable_defence else 0
        drop_def = e.unblockable_value
        if drop_att and values[s]["attack"]:
            ex.add(7, f"{m.id} removes its highest attack die ({e.id}'s Impenetrable Defence)")
        if drop_def and values[s]["defence"]:
            ex.add(7, f"{m.id} removes its {drop_def} highest defence dice ({e.id}'s Unblockable ({drop_def}))")
        brutal = m.brutal_value if allocs[s].attack > 0 else 0
        parry = m.parry_against(e)
        opts_att = RollOptions(adept=m.adept, keep_ones=m.kata, drop_highest=drop_att)
        opts_def = RollOptions(adept=m.adept, keep_ones=m.kata, drop_highest=drop_def)
        att_r = tuple(rr for rr in rerolls if rr.on == m.id and rr.kind == "attack")
        def_r = tuple(rr for rr in rerolls if rr.on == m.id and rr.kind == "defence")
        rolls[s] = SideRolls(
            _roll_side(values[s]["attack"], brutal, opts_att, initial[s]["attack"], att_r),
            _roll_side(values[s]["defence"], parry, opts_def, initial[s]["defence"], def_r))
    # step 8
    for s in (leader, other):
        sr = rolls[s]
        extra = []
        if sr.attack.modifier:
            extra.append(f"Brutal {sr.attack.modifier:+d}")
        if sr.defence.modifier:
            extra.append(f"Parry {sr.defence.modifier:+d}")
        ones = len(sr.attack.removed_ones) + len(sr.defence.removed_ones)
        ex.add(8, f"{c[s].id}: attack {sr.attack.final}, defence {sr.defence.final}"
                  + (f" ({', '.join(extra)})" if extra else "") + (f"; {ones} one(s) removed" if ones else ""))
    # step 9
    void = 0
    for s in (leader, other):
        sp = specials[s]
        if sp and sp.kind == "attack" and allocs[s].attack == 0:
            ex.add(9, f"{c[s].id} allocated no attack dice: {sp.text} cannot trigger")
            void += 1
        if sp and sp.kind == "defence" and allocs[s].defence == 0:
            ex.add(9, f"{c[s].id} allocated no defence dice: {sp.text} cannot trigger")
            void += 1
    if not void:
        ex.add(9, "no declared special lacks dice of its kind")

    # steps 10-13
    comparisons: list[Comparison] = []
    att, dfn = leader, other
    for pass_no in (1, 2):
        comp, goes_on = ex.compare(att, dfn, rolls, specials, allocs, active)
        comparisons.append(comp)
        if pass_no == 2:
            break
        if not goes_on:
            reason = ("a model was removed" if ex.removed else "they are no longer in contact" if not ex.in_contact
                      else f"{c[dfn].id} was knocked down")
            ex.add(13, f"{c[dfn].id} does not strike back: {reason}")
            break
        if dfn in ex.no_attack:
            ex.add(13, f"{c[dfn].id} is Held by a Grapple Attack and may not attack in this exchange")
            break
        ex.add(13, f"{c[dfn].id} becomes the Attacker")
        att, dfn = dfn, att

    # step 14
    counters: dict[str, int] = {}
    for s in SIDES:
        m = c[s]
        n = 1
        if m.tireless and not m.active:
            n = 0
        if not m.removes_counter:
            n = 0
        counters[m.id] = n
    ex.add(14, "; ".join(f"{k} removes {v} activation counter(s)" for k, v in counters.items()))
    ex.add(15, "Ki boosts used for the exchange expire")

    positions: dict[str, tuple[float, float]] = {}
    if ex.table is not None:
        moved = {a.id, b.id}
        for pm in ex.moves:
            if pm.result is not None:
                moved.update(pm.result.moves)
        for mid in sorted(moved):
            positions[mid] = tuple(ex.table.model(mid).position)
    return ExchangeResult(
        initiative=c[leader].id,
        pools={c[s].id: pools[s] for s in SIDES},
        allocations={c[s].id: allocs[s] for s in SIDES},
        specials={c[s].id: specials[s] for s in SIDES},
        rolls={c[s].id: rolls[s] for s in SIDES},
        rerolls=tuple(rerolls),
        comparisons=tuple(comparisons),
        damage=tuple(ex.damage),
        wounds=dict(ex.wounds),
        conditions={k: frozenset(v) for k, v in ex.gained.items() if v},
        removed=dict(ex.removed),
        moves=tuple(ex.moves),
        markers=tuple(ex.markers),
        counters=counters,
        in_contact=ex.in_contact and not ex.removed,
        positions=positions,
        facings=facings,
        log=tuple(ex.log),
    )
