"""What a melee exchange returns (Melee Attacks p.34-35): :class:`ExchangeResult` and
its records -- the log (:class:`Step`, numbered as the rulebook's fifteen steps), the
rolls (:class:`SideRolls`, :class:`MeleeReroll`), the comparisons (:class:`Comparison`),
damage rolls (:class:`DamageEvent`), moves (:class:`PendingMove`) and markers
(:class:`Marker`). Plain frozen values; the game applies them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from models.traits import trait_values
from sim.rules.conditions import condition_key
from sim.rules.dice import RollResult
from sim.rules.melee.pools import Allocation
from sim.rules.melee.specials import SpecialOption
from sim.rules.special import SpecialResult
from sim.rules.wounds import DamageResult

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
        """Wounds dealt by this damage roll (the wound table, p.38)."""
        return self.result.wounds


@dataclass(frozen=True)
class PendingMove:
    """A move made by a special ability. ``move``: a :data:`sim.rules.special.MOVES` name
    (or ``"eagles-flight"``: the model may move 3" after the exchange; ``"web-defence"``:
    ``attacker`` may not move until the activation ends, a catalogue special); ``attacker`` and
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


#: The condition each wound marker gives (for Immune [..] and Soulless, p.53, p.58).
_MARKER_CONDITION = {"poison": "poisoned", "fire": "on_fire", "bleed": "bleed", "disease": "diseased",
                     "spirit_block": "spirit_block"}


def wound_markers(weapon, target: str, *, immune: Iterable[str] = (), soulless: bool = False) -> list[Marker]:
    """The markers a weapon that wounds ``target`` places (melee and ranged alike, p.48-59):
    Poison (X/Y), Fire (X/Y), Bleed (X/Y) -> X markers of value Y; Disease (X) -> X;
    Ki Block -> one Spirit Block. ``weapon``: a :class:`MeleeWeapon` or a
    :class:`models.profiles.Weapon` (its printed ``traits``). Call it only when the hit
    did at least one wound.

    ``immune``: the target's Immune [..] condition names (no marker of those, p.53);
    ``soulless``: Soulless targets get no Poison or Bleed (Immune [Fear, Poison, Bleed], p.58).
    """
    blocked = {condition_key(str(c)) for c in immune}
    if soulless:
        blocked |= {"poisoned", "bleed"}
    traits = tuple(weapon.traits)

    def numbers(kind: str) -> tuple[int, ...] | None:
        for v in trait_values(traits, kind):  # the first one
            return tuple(int(x) for x in re.findall(r"[+-]?\d+", v or "")) or (1,)
        return None

    out: list[Marker] = []
    for kind in ("poison", "fire", "bleed"):
        v = numbers(kind)
        if v is not None and _MARKER_CONDITION[kind] not in blocked:
            out.append(Marker(target, kind, v[0], v[1] if len(v) > 1 else None))
    v = numbers("disease")
    if v is not None and "diseased" not in blocked:
        out.append(Marker(target, "disease", v[0]))
    if numbers("ki_block") is not None and "spirit_block" not in blocked:
        out.append(Marker(target, "spirit_block", 1))
    return out


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
