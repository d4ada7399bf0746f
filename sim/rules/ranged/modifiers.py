"""The target number of a ranged attack (step 1f, "Ranged attack target numbers" p.31):
the base by range band, the Size row, and every modifier -- Cover and Surprised from the
geometry, movement, Light Weight, Ranged Defence, Swarm, Sixth Sense, Prone ...
(:class:`RangedModifiers`, :func:`target_number`, :func:`modifiers_from_geometry`; what
the rules read about the target: :class:`TargetInfo`). Each term is explained as a
:class:`Contribution`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from models.traits import has_trait
from sim.geometry import Scene, Size
from sim.rules.ranged.weapons import RangeBand, trait_value

#: Base target number by band ("Ranged attack target numbers", p.31).
BASE_TARGET_NUMBER: Mapping[RangeBand, int] = {RangeBand.SHORT: 4, RangeBand.MEDIUM: 5, RangeBand.LONG: 6}


#: Target-number modifier by the target's Size (p.31). Size Zero is terrain only.
SIZE_MODIFIER: Mapping[Size, int] = {Size.TINY: +1, Size.SMALL: 0, Size.MEDIUM: -1, Size.LARGE: -2, Size.HUGE: -3}


_PAGE_TABLE = "p.31 (Ranged attack target numbers)"


@dataclass(frozen=True)
class Contribution:
    """One term of a target number: ``label``, signed ``value`` and the ``source`` rule."""

    label: str
    value: int
    source: str


# --------------------------------------------------------------------------- target number

@dataclass(frozen=True)
class RangedModifiers:
    """Every modifier of the ranged-attack target number (p.31 table and traits).

    Attributes:
        target_size: the target's Size (Tiny +1, Small 0, Medium -1, Large -2, Huge -3).
        target_prone: target Prone, -1.
        target_surprised: target Surprised (p.31), -1.
        target_in_cover: target has Cover from the attacker (p.31), +2.
        attacker_ran: the attacker Ran this turn, +1.
        target_ran: the target Ran this turn, +1.
        attacker_moved: the attacker moved or will move this activation, +1.
        light_weight: the weapon is Light Weight (traits): cancels ``attacker_moved``.
        shot_this_turn: the attacker already made a ranged attack this turn, +1.
        ranged_defence: the target's Ranged Defence (X), +X.
        swarm: the target has Swarm, +1.
        other: further ``(label, value)`` terms (Ki feats, unique effects).
    """

    target_size: Size = Size.SMALL
    target_prone: bool = False
    target_surprised: bool = False
    target_in_cover: bool = False
    attacker_ran: bool = False
    target_ran: bool = False
    attacker_moved: bool = False
    light_weight: bool = False
    shot_this_turn: bool = False
    ranged_defence: int = 0
    swarm: bool = False
    other: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        size = Size(self.target_size)
        if size not in SIZE_MODIFIER:
            raise ValueError("a model's Size is Tiny..Huge (Size Zero is terrain only)")
        object.__setattr__(self, "target_size", size)

    def explain(self, band: RangeBand | str | None = None) -> tuple[Contribution, ...]:
        """Every term of the TN, the base for ``band`` first (if given), then each
        modifier that applies (Small size and absent flags are left out; a Light Weight
        weapon that moved is listed with 0)."""
        out: list[Contribution] = []
        if band is not None:
            b = RangeBand(band)
            out.append(Contribution(f"{b.value} range", BASE_TARGET_NUMBER[b], _PAGE_TABLE))
        size_mod = SIZE_MODIFIER[self.target_size]
        if size_mod:
            out.append(Contribution(f"target is {self.target_size.label}", size_mod, _PAGE_TABLE))
        flags = (
            (self.target_prone, "target is Prone", -1, _PAGE_TABLE),
            (self.target_surprised, "target is Surprised", -1, _PAGE_TABLE),
            (self.target_in_cover, "target in Cover", +2, _PAGE_TABLE),
            (self.attacker_ran, "attacker Ran this turn", +1, _PAGE_TABLE),
            (self.target_ran, "target Ran this turn", +1, _PAGE_TABLE),
        )
        out.extend(Contribution(label, v, src) for on, label, v, src in flags if on)
        if self.attacker_moved:
            if self.light_weight:
                out.append(Contribution("attacker moved (Light Weight weapon: ignored)", 0, "Light Weight, p.48-59"))
            else:
                out.append(Contribution("attacker moved or will move this activation", +1, _PAGE_TABLE))
        if self.shot_this_turn:
            out.append(Contribution("attacker already shot this turn", +1, _PAGE_TABLE))
        if self.ranged_defence:
            out.append(Contribution(f"Ranged Defence ({self.ranged_defence})", self.ranged_defence,
                                    "Ranged Defence, p.48-59"))
        if self.swarm:
            out.append(Contribution("target has Swarm", +1, "Swarm, p.48-59"))
        out.extend(Contribution(label, int(v), "other effect") for label, v in self.other)
        return tuple(out)

    @property
    def total(self) -> int:
        """Sum of the modifiers (without the band's base)."""
        return sum(c.value for c in self.explain())


def target_number(band: RangeBand | str, modifiers: RangedModifiers = RangedModifiers()) -> int:
    """Target number of a ranged attack: the band's base (Short 4, Medium 5, Long 6, p.31)
    plus every modifier (:meth:`RangedModifiers.explain`). May be <= 0 (p.28).

    >>> target_number("medium", RangedModifiers(target_size=Size.TINY, attacker_moved=True))
    7

    Raises:
        ValueError: ``band`` is not a band (``None`` means out of range: no TN).
    """
    if band is None:
        raise ValueError("no target number beyond the weapon's range (automatic miss, step 1c)")
    return BASE_TARGET_NUMBER[RangeBand(band)] + modifiers.total


@dataclass(frozen=True)
class TargetInfo:
    """What the rules need to know about a model that is shot at, beyond the scene.

    Attributes:
        armour, tough, durable: Armour (X), Tough (X), Durable (damage, p.38).
        ranged_defence: Ranged Defence (X). swarm: Swarm.
        insignificant: cannot intercept. exhausted: no activation counters (cannot
            intercept). sixth_sense: never Surprised.
        ran_this_turn: the model Ran this turn (TN +1 when it is the target).
        surprised: Surprised by this attacker (p.31), decided by the caller.
        death_sentence: has a Death Sentence marker (p.43-45).
        ignores_size: shots at it take no Size modifier (the catalogue trait Kumo).
        damage_rules: Ki feat changes to damage rolls on it (``taken:<rule>``, round 6, F4:
            :func:`sim.rules.wounds.damage_rules`).
    """

    armour: int = 0
    tough: int = 0
    durable: bool = False
    ranged_defence: int = 0
    swarm: bool = False
    insignificant: bool = False
    exhausted: bool = False
    sixth_sense: bool = False
    ran_this_turn: bool = False
    surprised: bool = False
    death_sentence: bool = False
    ignores_size: bool = False
    damage_rules: tuple[str, ...] = ()

    @classmethod
    def from_traits(cls, traits: Iterable[Any], **state: Any) -> "TargetInfo":
        """Read Armour, Tough, Durable, Ranged Defence, Swarm, Insignificant and Sixth
        Sense from printed traits (strings or :class:`models.profiles.Trait`); ``state``
        sets the other fields (``exhausted=True`` ...)."""
        traits = tuple(traits)
        return cls(
            armour=trait_value(traits, "armour", 0) or 0,
            tough=trait_value(traits, "tough", 0) or 0,
            durable=has_trait(traits, "durable"),
            ranged_defence=trait_value(traits, "ranged defence", 0) or 0,
            swarm=has_trait(traits, "swarm"),
            insignificant=has_trait(traits, "insignificant"),
            sixth_sense=has_trait(traits, "sixth sense"),
            ignores_size=has_trait(traits, "kumo"),  # Kumo (catalogue): shots at it ignore Size
            **state,
        )


def modifiers_from_geometry(scene: Scene, attacker_id: str, target_id: str, *, moved: bool = False,
                            ran: bool = False, shot_this_turn: bool = False, weapon: Any = None,
                            target: TargetInfo | None = None,
                            other: Sequence[tuple[str, int]] = ()) -> RangedModifiers:
    """TN modifiers for ``attacker_id`` shooting ``target_id`` in ``scene``.

    From the scene: the target's Size, Prone, and Cover (:meth:`Scene.cover`, rulings.md
    section 5). From the arguments: ``moved`` (moved or will move this activation), ``ran``
    (the attacker Ran this turn), ``shot_this_turn``; ``weapon`` (Light Weight); ``target``
    (:class:`TargetInfo`: Ranged Defence, Swarm, Ran, Surprised unless Sixth Sense).

    Raises:
        KeyError: unknown model id.
    """
    T = scene.bodies[target_id]
    info = target or TargetInfo()
    return RangedModifiers(
        target_size=Size.SMALL if info.ignores_size else T.size,  # Small: no Size modifier
        target_prone=T.prone,
        target_surprised=info.surprised and not info.sixth_sense,
        target_in_cover=scene.cover(attacker_id, target_id).cover,
        attacker_ran=ran,
        target_ran=info.ran_this_turn,
        attacker_moved=moved,
        light_weight=weapon is not None and has_trait(weapon, "light weight"),
        shot_this_turn=shot_this_turn,
        ranged_defence=info.ranged_defence,
        swarm=info.swarm,
        other=tuple(other),
    )
