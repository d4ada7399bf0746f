"""Damage rolls and the wound table (p.38), with Armour, Tough, Durable and halved damage.

Pure functions, no I/O; rolls come from a ``dice`` object (:class:`sim.rules.dice.Dice`).

A damage roll (glossary "Damage Roll", p.38) is 2D6 plus modifiers (weapon Strength,
Charge +2, Powerful Attack +3 Strength, ... minus the target's Armour); 1s are not
failures and are not removed. A final total below 2 counts as 2, above 12 as 12. The
success level picks the column of :data:`WOUND_TABLE`, the total the row.

Traits (p.48-59): Strong -- roll 3D6, keep the two highest; Weak -- 3D6, keep the two
lowest; both together cancel. Armour (X) -- the damage roll result is reduced by X;
Pierce (X) lowers it (minimum 0). Tough (X) -- the final number of wounds is reduced by X
(negative X adds wounds); Sharp (X) lowers it (minimum 0). Durable -- more than one wound
becomes one, after Tough. Special attacks (p.39-41): some halve the wounds, rounding down.

Decisions where the rulebook is silent:

* success level above 10 uses column 10 (the printed table stops there); a negative
  success level has no damage roll and raises ``ValueError``;
* order of the wound steps: table -> halved (rounded down) -> Tough -> Durable, because
  Tough acts on the "final" number of wounds and Durable is said to act after Tough;
  wounds never go below 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType
from typing import Mapping

from sim.rules.dice import Dice, RollKind, RollPurpose

__all__ = ["WOUND_TABLE", "MIN_TOTAL", "MAX_TOTAL", "MAX_SUCCESS_LEVEL", "wounds_for",
           "DamageRoll", "damage_roll", "apply_wounds", "DamageResult", "resolve_damage",
           "DamageRules", "damage_rules"]

MIN_TOTAL, MAX_TOTAL = 2, 12
_DAMAGE = RollPurpose(RollKind.DAMAGE)
#: Highest success level printed in the wound table; higher levels use this column.
MAX_SUCCESS_LEVEL = 10

#: Wound table (p.38): ``WOUND_TABLE[total][success_level]`` for totals 2..12 and
#: success levels 0..10.
WOUND_TABLE: Mapping[int, tuple[int, ...]] = MappingProxyType({
    2: (0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7),
    3: (0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8),
    4: (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    5: (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    6: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    7: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    8: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
    9: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
    10: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
    11: (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
    12: (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
})


def _clamp_total(total: int) -> int:
    return max(MIN_TOTAL, min(MAX_TOTAL, total))


def wounds_for(success_level: int, total: int) -> int:
    """Wounds from the table (p.38) for a success level (>= 0) and a damage-roll total.

    ``total`` is clamped to 2..12; a success level above 10 uses column 10.
    Raises ``ValueError`` if ``success_level`` is negative.
    """
    if success_level < 0:
        raise ValueError(f"no damage roll at a negative success level ({success_level})")
    return WOUND_TABLE[_clamp_total(total)][min(success_level, MAX_SUCCESS_LEVEL)]


@dataclass(frozen=True)
class DamageRoll:
    """A damage roll (p.38).

    dice: every die rolled (2, or 3 with Strong/Weak); kept: the two dice used;
    modifier: Strength + other modifiers - effective Armour; raw_total: sum of kept +
    modifier; total: raw_total clamped to 2..12 (the table row).
    """

    dice: tuple[int, ...]
    kept: tuple[int, int]
    modifier: int
    raw_total: int
    total: int

    @property
    def is_double(self) -> bool:
        """Both kept dice show the same value (Critical Attack, p.39)."""
        return self.kept[0] == self.kept[1]


def damage_roll(dice: Dice, strength: int = 0, modifiers: int = 0, strong: bool = False,
                weak: bool = False, *, armour: int = 0, pierce: int = 0,
                purpose: RollPurpose | None = None) -> DamageRoll:
    """Make a damage roll: 2D6 (3D6 keeping the two highest/lowest for Strong/Weak).

    ``strength``: the weapon's Strength; ``modifiers``: any other modifier (Charge +2, ...);
    ``armour``: the target's Armour (X), lowered by ``pierce`` (X) to a minimum of 0, is
    subtracted from the result. 1s are kept. ``purpose``: who rolls against whom (default
    a bare :attr:`~sim.rules.dice.RollKind.DAMAGE`). Raises
    :class:`~sim.rules.dice.DiceError` from the dice source.
    """
    mode = None if strong == weak else ("high" if strong else "low")
    rolled = tuple(dice.roll(2 if mode is None else 3, purpose or _DAMAGE))
    if mode is None:
        kept = rolled
    else:
        ordered = sorted(rolled, reverse=(mode == "high"))
        kept = tuple(ordered[:2])
    modifier = strength + modifiers - max(0, armour - pierce)
    raw = sum(kept) + modifier
    return DamageRoll(rolled, (kept[0], kept[1]), modifier, raw, _clamp_total(raw))


def apply_wounds(wounds: int, *, tough: int = 0, sharp: int = 0, durable: bool = False,
                 halved: bool = False) -> int:
    """Wounds actually marked after halving, Tough (X) and Durable; never below 0.

    ``halved``: special attacks such as Slam, Sweep, Throw, Forceback (p.39-41) -- halve,
    rounding down. ``tough``: Tough (X), lowered by ``sharp`` (X) to a minimum of 0 when
    positive; a negative Tough adds wounds. ``durable``: more than one wound becomes one.
    Raises ``ValueError`` if ``wounds`` is negative.
    """
    if wounds < 0:
        raise ValueError(f"wounds are >= 0, got {wounds}")
    if halved:
        wounds //= 2
    effective_tough = max(0, tough - sharp) if tough > 0 else tough
    wounds = max(0, wounds - effective_tough)
    if durable and wounds > 1:
        wounds = 1
    return wounds


@dataclass(frozen=True)
class DamageResult:
    """A resolved damage roll: the roll, the wounds read from the table and those marked;
    ``note``: what a Ki feat's :class:`DamageRules` changed, for the log (``""``: nothing)."""

    roll: DamageRoll
    table_wounds: int
    wounds: int
    note: str = ""
    ignored: bool = False  # a Ki feat set the roll aside (no wounds, no Critical Attack)


@dataclass(frozen=True)
class DamageRules:
    """Ki feat changes to one damage roll (round 6, helper F4; ``damage_rolls`` op of
    :mod:`sim.rules.feat_effects`), in the order they act:

    * ``drop_die`` -- after the roll, one more die is rolled and the target's player removes
      one of the three: the engine keeps the two that mark the fewest wounds (then the lower
      total; with ``avoid_double`` a matching pair counts as worst: a Critical Attack);
    * ``strength_on_double`` -- when the two kept dice match, that much more Strength;
    * ``ignore_double`` -- when the two kept dice match, the roll is ignored (no wounds);
    * ``double`` -- the wounds after Tough are doubled; Durable is ignored when they reach
      ``wounds_left`` (they kill), else it applies as usual;
    * ``reroll_low`` -- the roller re-rolls one of its kept dice: the lowest, when it shows
      less than 4 (the engine's choice for the player), first of all;
    * ``coin_flip`` -- before the roll the target's player calls a coin toss (a die: 4-6, the
      call is right, even odds): right, the target takes no damage from it.

    (A ``counter_instead`` rule -- no damage roll, the enemy removes an activation counter --
    is the melee exchange's: :meth:`sim.rules.melee.exchange` reads it from the roller.)
    """

    drop_die: bool = False
    avoid_double: bool = False
    strength_on_double: int = 0
    ignore_double: bool = False
    double: bool = False
    wounds_left: int | None = None
    reroll_low: bool = False
    coin_flip: bool = False

    def __bool__(self) -> bool:
        return bool(self.drop_die or self.strength_on_double or self.ignore_double or self.double or self.reroll_low
                    or self.coin_flip)


def resolve_damage(dice: Dice, success_level: int, *, strength: int = 0, modifiers: int = 0,
                   strong: bool = False, weak: bool = False, armour: int = 0, pierce: int = 0,
                   tough: int = 0, sharp: int = 0, durable: bool = False,
                   halved: bool = False, purpose: RollPurpose | None = None,
                   rules: DamageRules | None = None) -> DamageResult:
    """Damage roll, table lookup and trait effects in one call (p.38); ``purpose`` as
    in :func:`damage_roll`; ``rules``: a Ki feat's changes (:class:`DamageRules`).

    Raises ``ValueError`` for a negative success level (before rolling).
    """
    if success_level < 0:
        raise ValueError(f"no damage roll at a negative success level ({success_level})")
    coin = 0
    if rules is not None and rules.coin_flip:  # round 6 (F4): the call comes before the roll
        coin = dice.roll(1, (purpose or _DAMAGE).rerolled())[0]
    roll = damage_roll(dice, strength, modifiers, strong, weak, armour=armour, pierce=pierce, purpose=purpose)
    if coin >= 4:
        return DamageResult(roll, 0, 0, f"the coin is called right ({coin}): no damage", ignored=True)
    if rules:  # round 6 (F4): a Ki feat changes this roll
        return _ruled_damage(dice, roll, success_level, rules, tough=tough, sharp=sharp, durable=durable,
                             halved=halved, purpose=purpose)
    table = wounds_for(success_level, roll.total)
    return DamageResult(roll, table, apply_wounds(table, tough=tough, sharp=sharp,
                                                  durable=durable, halved=halved))


def _with_kept(roll: DamageRoll, dice: tuple[int, ...], kept: tuple[int, int], modifier: int) -> DamageRoll:
    raw = sum(kept) + modifier
    return DamageRoll(dice, kept, modifier, raw, _clamp_total(raw))


def _ruled_damage(dice: Dice, roll: DamageRoll, level: int, rules: DamageRules, *, tough: int, sharp: int,
                  durable: bool, halved: bool, purpose: RollPurpose | None) -> DamageResult:
    """:func:`resolve_damage` of ``roll`` with a Ki feat's :class:`DamageRules`."""
    notes: list[str] = ["the coin is called wrong"] if rules.coin_flip else []
    if rules.reroll_low and min(roll.kept) < 4:
        low = min(roll.kept)
        again = dice.roll(1, (purpose or _DAMAGE).rerolled())[0]
        kept = (again, roll.kept[1]) if roll.kept[0] == low else (roll.kept[0], again)
        roll = _with_kept(roll, roll.dice + (again,), kept, roll.modifier)
        notes.append(f"the {low} re-rolled: {again}")
    if rules.drop_die:
        extra = dice.roll(1, (purpose or _DAMAGE).rerolled())[0]
        three = roll.kept + (extra,)

        def cost(pair: tuple[int, int]) -> tuple[int, int, int]:
            r = _with_kept(roll, roll.dice + (extra,), pair, roll.modifier)
            crit = int(rules.avoid_double and r.is_double)
            return crit, apply_wounds(wounds_for(level, r.total), tough=tough, sharp=sharp, durable=durable,
                                      halved=halved), r.total
        pairs = [(three[i], three[j]) for i, j in combinations(range(3), 2)]
        best = min(pairs, key=cost)
        roll = _with_kept(roll, roll.dice + (extra,), best, roll.modifier)
        notes.append(f"one more die ({extra}), {list(best)} kept")
    if rules.strength_on_double and roll.is_double:
        roll = _with_kept(roll, roll.dice, roll.kept, roll.modifier + rules.strength_on_double)
        notes.append(f"the dice match: +{rules.strength_on_double} Strength")
    if rules.ignore_double and roll.is_double:
        return DamageResult(roll, 0, 0, "the dice match: the roll is ignored", ignored=True)
    table = wounds_for(level, roll.total)
    wounds = apply_wounds(table, tough=tough, sharp=sharp, durable=durable and not rules.double, halved=halved)
    if rules.double:
        wounds *= 2
        kills = rules.wounds_left is not None and wounds >= rules.wounds_left
        if durable and wounds > 1 and not kills:
            wounds = 1
        notes.append("double damage" + (" (Durable ignored: it kills)" if durable and kills else ""))
    return DamageResult(roll, table, wounds, "; ".join(notes))


def damage_rules(made: Iterable[str], taken: Iterable[str], *, critical: bool = False,
                 wounds_left: int | None = None) -> DamageRules | None:
    """The :class:`DamageRules` of one damage roll from the roller's ``made:<rule>[:<value>]``
    and the target's ``taken:<rule>`` Ki feat rules (round 6, F4; the ``damage_rules`` of a
    melee ``Combatant`` and of a ranged ``TargetInfo``); None when neither has one.
    ``critical``: a Critical Attack (a kept matching pair removes the target: ``drop_die``
    avoids one)."""
    got: dict[str, int] = {}
    for side, texts in (("made", made), ("taken", taken)):
        for t in texts:
            parts = str(t).split(":")
            if parts[0] == side and len(parts) >= 2:
                got[parts[1]] = max(got.get(parts[1], 0), int(parts[2]) if len(parts) > 2 else 1)
    if not got:
        return None
    return DamageRules(drop_die="drop_die" in got, avoid_double=critical and "drop_die" in got,
                       strength_on_double=got.get("strength_on_double", 0), ignore_double="ignore_double" in got,
                       double="double" in got, wounds_left=wounds_left, reroll_low="reroll_low" in got,
                       coin_flip="coin_flip" in got)

