"""Ranged attacks as pure functions: range bands, target number, interception, shooting
into contact, Ammo and Reload, and the whole sequence 1a-7a.

Rulebook (Russian translation, ``shared/seeds/000_*.txt``; page numbers are the book's):

* Ranged Attack action (p.25): the model may Walk before or after shooting; it may not
  shoot while in base contact (BtB) with, or in the ZoC of, an enemy model.
* Ranged Attacks (p.30-32): the sequence 1a-7a, the target-number table, Cover, Surprised,
  Targeting a model in BtB (p.32) and the worked example of Tamotsu.
* Profile cards (p.10-11): range bands. A band's value is *inclusive* ("up to and
  including"), so a target exactly 6" away is at Short range of a 6/12/18 weapon; a
  target beyond the Long value is missed automatically (step 1c).
* Targeting (Terms and Concepts p.4-9): a model needs LoS to a model to target it.
* Zone of Control (p.4-9): models may ignore the ZoC of models that are in BtB with
  their enemies, also for declaring ranged attacks.
* Traits (p.48-59): Ammo (X), Reload (X), Light Weight, Ranged Defence (X), Swarm, Tiny,
  Huge, Brutal (X), Pierce (X), Sharp (X), Armour (X), Tough (X), Durable, Strong, Weak,
  Insignificant, Sixth Sense. Conditions (p.43-45): Prone, Reloading, Death Sentence,
  Exhausted.

Everything here is pure: geometry comes from a :class:`sim.geometry.Scene`, dice from a
:class:`sim.rules.dice.Dice`; nothing is mutated. :func:`resolve_ranged_attack` returns a
:class:`RangedResult` that logs every step; the game applies it (wounds, markers, tokens).
Distances are in inches, edge to edge.

Readings where the rulebook is silent or unclear (the project's, documented here and
held by ``tests/test_ranged.py``):

1. *Bands.* Only the upper value of each printed band is used; a distance ``d`` is in the
   first band (Short, Medium, Long) whose upper value ``u`` satisfies ``d <= u + EPS``
   (p.10 "up to and including"; "exactly 6" is within 6"", Measuring Distances p.4-9).
2. *Size rows.* The traits Tiny and Huge only restate the table's Size rows (the Tamotsu
   example adds +1 once for a Tiny target), so the Size row is applied once, from the
   model's Size. Swarm's +1 is additional.
3. *Light Weight* cancels only the row "the attacker moved or will move this
   activation"; the separate row "the attacker Ran this turn" still applies.
4. *Ranged Defence (X)* "changes the TN by X": ``+X``. Effects that give a trait (X) do not
   stack (p.48): pass the highest.
5. *Brutal (X)* adds X to the attack's final result, not to the TN; it does not apply to
   the separate Ranged (6) test of shooting into contact, which is not the attack roll.
6. *Interception (step 1d)* is a choice of the target's controller, not a test: the
   printed conditions I-III are checked and the chosen model becomes the target. (The
   test "on failure the target becomes the nearest friendly model in contact" belongs to
   Targeting a model in BtB, p.32, step 4b; see 7.) A model "whose ZoC any sight line
   from the attacker to the original target's base crosses" is decided with the exact
   sight-line engine, see :func:`interception_line`.
7. *Shooting into contact (step 4b, p.32).* "Friendly" is read from the attacker's side
   (the risk is hitting your own model; step 4b says "in contact with an enemy model" of
   the target). The test is a Ranged challenge test with the attacker's pool, TN 6
   modified by the target's Size (Small +0; Huge passes automatically). On failure the
   new target is the friendly model in BtB with the original target that is nearest to the
   attacker (edge to edge; ties: lowest id) and that the attacker can see when every model
   in BtB with the original target (and the original target) is ignored for LoS. If there
   is none, the shot hits nothing. The new target takes the damage roll with the same
   success level; its own Armour, Tough... apply.
8. *Death Sentence* on the (post-interception) target adds +1 to the attacker's pool (also
   for the step 4b test) and +1 to the damage roll against it; the 2x cap of modified
   statistics is the caller's business (``ranged_pool`` is taken as given).
9. *Ammo and Reload.* Ammo tokens are per weapon; Reloading markers are on the model and
   stop every weapon with Reload (condition Reloading, p.44). Both are spent at step 6,
   which is reached after the roll whether it hit or missed, but not when the attack ended
   at step 1c (out of range) or 1g (no ammo / reloading). A Wait action removes one
   Reloading marker (p.25).
10. *Sides.* Without explicit id sets, models are enemies when their ``player`` numbers
    differ; a model with player 0 (unknown) is an enemy of every model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Collection, Iterable, Mapping, Sequence

import numpy as np
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon as SPolygon

from models.traits import has_trait, trait_values
from sim.geometry import EPS, ZOC_RANGE, Scene, Size, within
from sim.geometry.measure import Body, zoc_region
from sim.geometry.sight import Obstacle, SightLine, disc_region, find_sight_line
from sim.rules.dice import ChallengeResult, Dice, Rerolls, RollKind, RollOptions, RollPurpose, challenge_test
from sim.rules.wounds import DamageResult, resolve_damage

__all__ = [
    "RangeBand", "BAND_ORDER", "BASE_TARGET_NUMBER", "SIZE_MODIFIER", "BTB_TARGET_NUMBER",
    "BTB_SIZE_MODIFIER", "RangedAttackError", "Reason", "Step", "Contribution",
    "weapon_bands", "max_range", "range_band", "trait_value", "has_trait",
    "RangedModifiers", "target_number", "TargetInfo", "modifiers_from_geometry",
    "enemies_of", "friends_of", "can_shoot", "AmmoState",
    "interception_line", "InterceptorCheck", "check_interceptor", "interceptors",
    "Interception", "resolve_interception",
    "models_in_contact", "btb_redirect_target", "BtbTargeting", "resolve_btb_targeting",
    "RangedResult", "resolve_ranged_attack",
]


# --------------------------------------------------------------------------- tables


class RangeBand(str, Enum):
    """A weapon's range band (Profile cards p.10-11). Compares equal to its value."""

    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"

    def __str__(self) -> str:
        return self.value


#: Bands from nearest to farthest.
BAND_ORDER: tuple[RangeBand, ...] = (RangeBand.SHORT, RangeBand.MEDIUM, RangeBand.LONG)

#: Base target number by band ("Ranged attack target numbers", p.31).
BASE_TARGET_NUMBER: Mapping[RangeBand, int] = {RangeBand.SHORT: 4, RangeBand.MEDIUM: 5, RangeBand.LONG: 6}

#: Target-number modifier by the target's Size (p.31). Size Zero is terrain only.
SIZE_MODIFIER: Mapping[Size, int] = {Size.TINY: +1, Size.SMALL: 0, Size.MEDIUM: -1, Size.LARGE: -2, Size.HUGE: -3}

#: Targeting a model in BtB (p.32): a Ranged (6) challenge test ...
BTB_TARGET_NUMBER = 6
#: ... modified by the target's Size; ``None`` = automatic success (Huge). Small is not
#: printed: +0.
BTB_SIZE_MODIFIER: Mapping[Size, int | None] = {Size.TINY: +1, Size.SMALL: 0, Size.MEDIUM: -1,
                                                 Size.LARGE: -2, Size.HUGE: None}

_PAGE_TABLE = "p.31 (Ranged attack target numbers)"


class RangedAttackError(ValueError):
    """The ranged attack cannot be declared (not a ranged weapon, no LoS, attacker in BtB
    with or in the ZoC of an enemy, target not an enemy ...) or an argument is invalid.
    ``reasons`` holds the :class:`Reason` objects when there are any."""

    def __init__(self, message: str, reasons: Sequence["Reason"] = ()):
        super().__init__(message)
        self.reasons = tuple(reasons)


@dataclass(frozen=True)
class Reason:
    """Why a model cannot shoot (or why a model cannot intercept).

    Attributes:
        code: short machine name (``no-los``, ``enemy-zoc``, ``out-of-range`` ...).
        message: one sentence a player can read.
        ruling: the rule (rulebook page).
        element: the model id involved, if any.
    """

    code: str
    message: str
    ruling: str
    element: str | None = None

    def to_json(self) -> dict:
        """The contribution as plain JSON values."""
        out = {"code": self.code, "message": self.message, "ruling": self.ruling}
        if self.element is not None:
            out["element"] = self.element
        return out


@dataclass(frozen=True)
class Step:
    """One logged step of a ranged attack: ``name`` (``"1c range"`` ...) and ``detail``."""

    name: str
    detail: str


@dataclass(frozen=True)
class Contribution:
    """One term of a target number: ``label``, signed ``value`` and the ``source`` rule."""

    label: str
    value: int
    source: str


# --------------------------------------------------------------------------- weapon traits

def trait_value(obj: Any, keyword: str, default: int | None = None) -> int | None:
    """The number of trait ``keyword`` (``Reload (2)`` -> 2), ``default`` when absent.

    ``obj``: a weapon, a profile, or an iterable of printed traits or
    :class:`models.profiles.Trait` records; names compared by
    :func:`models.traits.trait_key` (``has_trait`` is :func:`models.traits.has_trait`).
    Effects that give a trait (X) do not stack (p.48): the highest value is returned.
    A trait printed without a number counts as 0.

    Raises:
        ValueError: the value is not a number (``Pierce (X)``): the caller must supply it.
    """
    found: list[int] = []
    for raw in trait_values(obj, keyword):
        raw = None if raw is None else raw.strip()
        if raw is None or raw == "":
            found.append(0)
            continue
        num = raw.split("/")[0].strip().rstrip('"')
        try:
            found.append(int(num))
        except ValueError:
            raise ValueError(f"trait {keyword} has a variable value ({raw!r}): pass the number explicitly") from None
    return max(found) if found else default


# --------------------------------------------------------------------------- range bands


def weapon_bands(weapon: Any) -> dict[RangeBand, float]:
    """Upper value (inches) of each band the weapon has, nearest first.

    ``weapon`` is a :class:`models.profiles.Weapon` (``range``: band -> ``(from, to)``), or
    a mapping band -> ``(from, to)`` or -> ``to``.

    Raises:
        RangedAttackError: a melee weapon or one without range bands.
    """
    if getattr(weapon, "kind", "ranged") != "ranged":
        raise RangedAttackError(f"{getattr(weapon, 'name', weapon)!r} is not a ranged weapon")
    rng = getattr(weapon, "range", weapon)
    out: dict[RangeBand, float] = {}
    for band in BAND_ORDER:
        v = rng.get(band.value) if hasattr(rng, "get") else None
        if v is None:
            continue
        out[band] = float(v[1] if isinstance(v, (tuple, list)) else v)
    if not out:
        raise RangedAttackError(f"{getattr(weapon, 'name', weapon)!r} has no range bands")
    return out


def max_range(weapon: Any) -> float:
    """The weapon's farthest band value (Long, usually), inches."""
    return max(weapon_bands(weapon).values())


def range_band(weapon: Any, distance: float) -> RangeBand | None:
    """The band of a target ``distance`` inches away (edge to edge), or ``None`` beyond the
    weapon's range (automatic miss, step 1c, p.30).

    Band values are inclusive (p.10: "up to and including this distance"): with bands
    6/12/18, 6" is Short, 6.01" Medium, 18" Long and 18.01" out of range.

    Raises:
        ValueError: negative distance. RangedAttackError: not a ranged weapon.
    """
    if distance < -EPS:
        raise ValueError(f"a distance is >= 0, got {distance}")
    for band, upper in weapon_bands(weapon).items():
        if within(distance, upper):
            return band
    return None


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
        target_size=T.size,
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


# --------------------------------------------------------------------------- sides


def enemies_of(scene: Scene, model_id: str) -> frozenset[str]:
    """Ids of the models hostile to ``model_id``: a different ``player``; player 0
    (unknown) is hostile to everyone (module reading 10)."""
    me = scene.bodies[model_id]
    return frozenset(b.id for b in scene.bodies.values()
                     if b.id != model_id and (b.player != me.player or me.player == 0 or b.player == 0))


def friends_of(scene: Scene, model_id: str) -> frozenset[str]:
    """Ids of the other models of ``model_id``'s side (same non-zero ``player``)."""
    me = scene.bodies[model_id]
    return frozenset(b.id for b in scene.bodies.values()
                     if b.id != model_id and me.player != 0 and b.player == me.player)


# --------------------------------------------------------------------------- Ammo / Reload


@dataclass(frozen=True)
class AmmoState:
    """Ammo tokens and Reloading markers of one model (traits Ammo (X), Reload (X);
    condition Reloading, p.44).

    Attributes:
        tokens: ``(weapon name, tokens left)`` for the Ammo weapons fired so far; a weapon
            with Ammo (X) not listed still has its X starting tokens.
        reloading: Reloading markers on the model. While it has any, no weapon with Reload
            may shoot (step 1g).
    """

    tokens: tuple[tuple[str, int], ...] = ()
    reloading: int = 0

    def __post_init__(self) -> None:
        if self.reloading < 0 or any(n < 0 for _, n in self.tokens):
            raise ValueError("Ammo tokens and Reloading markers are >= 0")

    @classmethod
    def start(cls, weapons: Iterable[Any] = ()) -> "AmmoState":
        """The state at the start of the game: Ammo (X) tokens on each such weapon."""
        toks = []
        for w in weapons:
            x = trait_value(w, "ammo")
            if x is not None:
                toks.append((w.name, x))
        return cls(tuple(toks), 0)

    def ammo_left(self, weapon: Any) -> int | None:
        """Tokens left on ``weapon``; ``None`` if it has no Ammo trait."""
        x = trait_value(weapon, "ammo")
        if x is None:
            return None
        for name, n in self.tokens:
            if name == weapon.name:
                return n
        return x

    def why_not(self, weapon: Any) -> str | None:
        """Why ``weapon`` cannot fire now (step 1g), or ``None`` if it can."""
        left = self.ammo_left(weapon)
        if left is not None and left <= 0:
            return f"{weapon.name} has no Ammo tokens left"
        if has_trait(weapon, "reload") and self.reloading > 0:
            return f"the model has {self.reloading} Reloading marker(s) and {weapon.name} has Reload"
        return None

    def can_fire(self, weapon: Any) -> bool:
        """Whether ``weapon`` may shoot now: an Ammo token left (if Ammo) and no Reloading
        marker on the model (if Reload)."""
        return self.why_not(weapon) is None

    def after_firing(self, weapon: Any) -> "AmmoState":
        """State after step 6 of an attack with ``weapon``: one Ammo token removed (Ammo),
        X Reloading markers added (Reload (X))."""
        toks = dict(self.tokens)
        left = self.ammo_left(weapon)
        if left is not None:
            toks[weapon.name] = max(0, left - 1)
        gained = trait_value(weapon, "reload", None) or 0
        return AmmoState(tuple(toks.items()), self.reloading + gained)

    def reload(self) -> "AmmoState":
        """A Wait action that removes one Reloading marker (p.25, condition Reloading).

        Raises:
            ValueError: the model has no Reloading marker.
        """
        if self.reloading <= 0:
            raise ValueError("no Reloading marker to remove")
        return replace(self, reloading=self.reloading - 1)


# --------------------------------------------------------------------------- can shoot

#: Reasons that make the declaration illegal (not merely an automatic miss).
_ILLEGAL = frozenset({"not-ranged", "self", "no-los", "enemy-contact", "enemy-zoc", "not-enemy", "attacker-prone"})


def _zoc_ignorable(scene: Scene, enemy: str, side: Collection[str], extra: Collection[str]) -> bool:
    """An enemy's ZoC may be ignored: Prone (p.44), listed by the caller (Insignificant,
    Disguised), or the enemy is in BtB with a model hostile to it (ZoC, p.4-9)."""
    E = scene.bodies[enemy]
    if E.prone or enemy in extra:
        return True
    return any(scene.btb(enemy, f) for f in side if f != enemy)


def can_shoot(scene: Scene, attacker_id: str, target_id: str, weapon: Any, *,
              enemies: Collection[str] | None = None, ammo: AmmoState | None = None,
              ignore_zoc_of: Collection[str] = (), ignore_contact_with: Collection[str] = (),
              ) -> tuple[bool, tuple[Reason, ...]]:
    """May ``attacker_id`` make a ranged attack with ``weapon`` at ``target_id`` now?

    Checks (every failing one is reported):

    * the weapon is a ranged weapon (p.30);
    * the attacker is not Prone (its only action is Stand Up, p.44);
    * the target is an enemy (step 1b) -- ``enemies``: the attacker's enemies, default
      :func:`enemies_of`;
    * the attacker is not in BtB with an enemy nor in an enemy's ZoC (Ranged Attack action,
      p.25). Ignored: Prone enemies (contact and ZoC), enemies in BtB with a model hostile
      to them (ZoC, p.4-9), ``ignore_zoc_of`` (Insignificant, Disguised) and
      ``ignore_contact_with`` (Immobilized, Agile);
    * the attacker has LoS to the target (Targeting, p.4-9);
    * the target is within the weapon's Long range (step 1c; beyond it the attack is an
      automatic miss -- code ``out-of-range``);
    * Ammo tokens / Reloading markers (step 1g; codes ``no-ammo``, ``reloading``) from
      ``ammo`` (default: the start-of-game state).

    Returns ``(ok, reasons)``. Raises ``KeyError`` for an unknown model id.
    """
    A = scene.bodies[attacker_id]
    scene.bodies[target_id]
    reasons: list[Reason] = []
    if getattr(weapon, "kind", "ranged") != "ranged":
        return False, (Reason("not-ranged", f"{getattr(weapon, 'name', weapon)} is not a ranged weapon", "p.30"),)
    if attacker_id == target_id:
        reasons.append(Reason("self", "a model does not shoot itself", "step 1b, p.30", target_id))
    if A.prone:
        reasons.append(Reason("attacker-prone", "a Prone model may only declare Stand Up", "Prone, p.44"))
    enemy_ids = frozenset(enemies_of(scene, attacker_id) if enemies is None else enemies) - {attacker_id}
    if target_id != attacker_id and target_id not in enemy_ids:
        reasons.append(Reason("not-enemy", f"{target_id} is not an enemy model", "step 1b, p.30", target_id))
    side = (set(scene.bodies) - enemy_ids)  # the attacker's side (and neutral), hostile to its enemies
    for e in sorted(enemy_ids):
        if e not in scene.bodies:
            continue
        E = scene.bodies[e]
        if scene.btb(attacker_id, e):
            if not (E.prone or e in ignore_contact_with):
                reasons.append(Reason("enemy-contact", f"in base contact with enemy {e}",
                                      "Ranged Attack action, p.25", e))
            continue
        if scene.zoc(e, attacker_id).in_zoc and not _zoc_ignorable(scene, e, side, ignore_zoc_of):
            reasons.append(Reason("enemy-zoc", f"in the zone of control of enemy {e}", "Ranged Attack action, p.25", e))
    if attacker_id != target_id:
        los = scene.los(attacker_id, target_id)
        if not los.visible:
            reasons.append(Reason("no-los", f"no LoS to {target_id}: {los.reason}", "Targeting, p.4-9", target_id))
        d = scene.distance(attacker_id, target_id)
        if range_band(weapon, d) is None:
            reasons.append(Reason("out-of-range",
                                  f"{d:.2f}\" is beyond {weapon.name}'s range of {max_range(weapon):g}\"",
                                  "step 1c, p.30", target_id))
    why = (ammo if ammo is not None else AmmoState()).why_not(weapon)
    if why is not None:
        code = "no-ammo" if "Ammo" in why else "reloading"
        reasons.append(Reason(code, why, "step 1g, p.30; Ammo, Reload, p.48-59"))
    return not reasons, tuple(reasons)


# --------------------------------------------------------------------------- interception


def _arc_of(B: Body):
    return None if B.aware else (B.center, tuple(B.facing_vector))


def _polygon_obstacles(key: Any, geom) -> list[Obstacle]:
    """Simple-polygon obstacles for the parts of a shapely area (holes filled)."""
    if geom is None or geom.is_empty:
        return []
    parts = list(geom.geoms) if hasattr(geom, "geoms") else [geom]
    out = []
    for i, part in enumerate(parts):
        if not isinstance(part, SPolygon) or part.area < 1e-9:
            continue
        v = np.asarray(part.exterior.coords, float)[:-1]
        c = v.mean(axis=0)
        r = float(np.max(np.hypot(v[:, 0] - c[0], v[:, 1] - c[1])))
        out.append(Obstacle((key, i), False, c, r, v))
    return out


def zoc_area(scene: Scene, F: Body):
    """The Zone of Control of ``F`` as one filled shapely area, in inches (p.22; rulings.md
    section 6): :func:`sim.geometry.measure.zoc_region` (the points within 1" of F's base,
    in F's front arc, that F sees) with the part of F's own base in its arc added, so that
    it is one filled shape (a sight line cannot reach the base without crossing the ring in
    the arc). The interception test (step 1d, p.30) asks whether a sight line crosses it.

    Args:
        scene: the :class:`~sim.geometry.Scene` with F in it.
        F: the friend's :class:`~sim.geometry.measure.Body` (its centre, radius in inches,
            facing; an Aware model's front arc is 360 degrees, p.22).

    Returns:
        A shapely (Multi)Polygon; empty when F sees nothing around it.
    """
    area = zoc_region(scene, F.id)
    base = SPoint(F.center).buffer(F.radius, quad_segs=32)
    if not F.aware:
        f = F.facing_vector
        side = np.array([-f[1], f[0]])
        c = np.asarray(F.center, float)
        R = F.radius + 1.0
        base = base.intersection(SPolygon([c + side * R, c + side * R + f * R, c - side * R + f * R, c - side * R]))
    return area.union(base)


def interception_line(scene: Scene, attacker_id: str, target_id: str, friend_id: str) -> SightLine | None:
    """A sight line from the attacker's base to the target's base that crosses
    ``friend_id``'s ZoC, or ``None`` (interception condition I, step 1d, p.30).

    A *sight line* is a segment from the attacker's base to a point of the target's base
    in the attacker's front arc, clear of the elements that block LoS between the two
    (rulings.md section 4). F's ZoC is the set of points within 1" of F's base, in F's
    front arc, to which F has LoS (section 6). The line may end anywhere in the target's
    base, as for Cover (docs/rulings-project.md #3).

    Method: (1) exact necessary test with the sight-line engine: some clear sight line
    crosses the disc of radius ``F.radius + 1"`` around F (``must_cross``); if none, F cannot
    intercept. (2) If F is Aware and no LoS blocker of F's Size comes within that disc,
    the ZoC is the whole disc and (1) is the answer (exact). (3) Otherwise the ZoC area is
    taken from :func:`sim.geometry.measure.zoc_region` (front arc and LoS shadows; its
    circle is a 128-gon inscribed in the true one, so a line reaching only the outermost
    ~0.0005" of the ZoC may be missed, and shadows of non-convex blockers err slightly
    towards hidden) and the exact engine looks for a clear sight line crossing it.
    A Blind F's ZoC reaches only models in BtB with it: no sight line crosses it.

    Raises:
        KeyError: unknown model id.
    """
    A, T, F = scene.bodies[attacker_id], scene.bodies[target_id], scene.bodies[friend_id]
    if F.id in (A.id, T.id) or F.blind or A.blind:
        return None
    region = disc_region(T.center, T.radius, _arc_of(A))
    if region.is_empty:
        return None
    blockers = scene.blockers(scene.los_threshold(A, T), (A.id, T.id))
    reach = F.radius + ZOC_RANGE
    disc = Obstacle.disc(("zoc-reach", F.id), F.center, reach)
    found = find_sight_line(A.center, A.radius, region, blockers, must_cross=disc)
    if not found:
        return None
    threshold = max(F.size, scene.enhancing_size(F))
    shadowing = [ob for ob in scene.blockers(threshold, (F.id,))
                 if math.dist(ob.center, F.center) < ob.radius + reach + EPS]
    if F.aware and not shadowing:
        return found.line
    for ob in _polygon_obstacles(("zoc", F.id), zoc_area(scene, F)):
        hit = find_sight_line(A.center, A.radius, region, blockers, must_cross=ob)
        if hit:
            return hit.line
    return None


@dataclass(frozen=True)
class InterceptorCheck:
    """Whether ``model`` may be assigned as the new target (step 1d, conditions I-III):
    ``ok``, the ``reasons`` it may not, and the ``line`` that crosses its ZoC."""

    model: str
    ok: bool
    reasons: tuple[Reason, ...] = ()
    line: SightLine | None = None


def check_interceptor(scene: Scene, attacker_id: str, target_id: str, friend_id: str, *,
                      weapon: Any = None, info: TargetInfo | None = None,
                      friends_of_target: Collection[str] | None = None) -> InterceptorCheck:
    """Check conditions I-III of step 1d (p.30) for ``friend_id``.

    I.  some sight line from the attacker to the original target's base crosses its ZoC
        (:func:`interception_line`); it is not Insignificant;
    II. it has LoS to the attacker and is a legal target: an enemy of the attacker (a friend
        of the target), visible to the attacker, within the weapon's range (if ``weapon``);
    III. it is not Exhausted.

    ``info``: its :class:`TargetInfo` (Insignificant, Exhausted). Conditions are checked
    cheapest first; the geometric test of I runs only if the others pass.
    """
    info = info or TargetInfo()
    reasons: list[Reason] = []
    friends = friends_of(scene, target_id) if friends_of_target is None else frozenset(friends_of_target)
    if friend_id in (attacker_id, target_id) or friend_id not in friends:
        reasons.append(Reason("not-friend", f"{friend_id} is not another friendly model of {target_id}",
                              "step 1d, p.30", friend_id))
    if info.insignificant:
        reasons.append(Reason("insignificant", "an Insignificant model cannot intercept", "step 1d I; Insignificant",
                              friend_id))
    if info.exhausted:
        reasons.append(Reason("exhausted", "an Exhausted model cannot intercept", "step 1d III", friend_id))
    if not reasons:
        if not scene.los(friend_id, attacker_id).visible:
            reasons.append(Reason("no-los-to-attacker", f"{friend_id} has no LoS to {attacker_id}", "step 1d II",
                                  friend_id))
        if not scene.los(attacker_id, friend_id).visible:
            reasons.append(Reason("not-visible", f"{attacker_id} has no LoS to {friend_id}", "step 1d II", friend_id))
        if weapon is not None and range_band(weapon, scene.distance(attacker_id, friend_id)) is None:
            reasons.append(Reason("out-of-range", f"{friend_id} is beyond the weapon's range", "step 1d II", friend_id))
    line = None
    if not reasons:
        line = interception_line(scene, attacker_id, target_id, friend_id)
        if line is None:
            reasons.append(Reason("zoc-not-crossed", f"no sight line to {target_id} crosses {friend_id}'s ZoC",
                                  "step 1d I", friend_id))
    return InterceptorCheck(friend_id, not reasons, tuple(reasons), line)


def interceptors(scene: Scene, attacker_id: str, target_id: str,
                 friends_of_target: Collection[str] | None = None, *, weapon: Any = None,
                 infos: Mapping[str, TargetInfo] | None = None) -> list[str]:
    """Ids of the models the target's controller may assign as the new target (step 1d,
    conditions I-III, :func:`check_interceptor`), nearest to the attacker first (ties by
    id). ``friends_of_target`` defaults to :func:`friends_of`; ``infos`` gives each
    model's :class:`TargetInfo` (Insignificant, Exhausted)."""
    friends = friends_of(scene, target_id) if friends_of_target is None else frozenset(friends_of_target)
    infos = infos or {}
    ok = [f for f in friends if f not in (attacker_id, target_id) and
          check_interceptor(scene, attacker_id, target_id, f, weapon=weapon, info=infos.get(f),
                            friends_of_target=friends).ok]
    return sorted(ok, key=lambda f: (scene.distance(attacker_id, f), f))


@dataclass(frozen=True)
class Interception:
    """Outcome of step 1d: ``target`` is the target from now on (the original one when
    nobody intercepts or the choice is not allowed); ``check`` holds the conditions."""

    original: str
    target: str
    intercepted: bool
    check: InterceptorCheck | None = None


def resolve_interception(scene: Scene, attacker_id: str, target_id: str, chosen: str | None, *,
                         friends_of_target: Collection[str] | None = None, weapon: Any = None,
                         infos: Mapping[str, TargetInfo] | None = None, strict: bool = True) -> Interception:
    """Step 1d (p.30): the target's controller may assign ``chosen`` as the new target.

    There is no test: if ``chosen`` meets conditions I-III it becomes the target (IV).
    ``chosen=None``: nobody intercepts.

    Raises:
        RangedAttackError: ``strict`` and ``chosen`` does not meet the conditions (with
            ``strict=False`` the original target is kept and the check is returned).
    """
    if chosen is None:
        return Interception(target_id, target_id, False)
    check = check_interceptor(scene, attacker_id, target_id, chosen, weapon=weapon,
                              info=(infos or {}).get(chosen), friends_of_target=friends_of_target)
    if not check.ok:
        if strict:
            raise RangedAttackError(f"{chosen} cannot intercept: " + "; ".join(r.message for r in check.reasons),
                                    check.reasons)
        return Interception(target_id, target_id, False, check)
    return Interception(target_id, chosen, True, check)


# --------------------------------------------------------------------------- shooting into contact


def models_in_contact(scene: Scene, model_id: str, among: Collection[str] | None = None) -> tuple[str, ...]:
    """Ids of the models in BtB with ``model_id`` (optionally only those in ``among``), by id."""
    pool = scene.bodies if among is None else among
    return tuple(sorted(m for m in pool if m != model_id and m in scene.bodies and scene.btb(model_id, m)))


def btb_redirect_target(scene: Scene, attacker_id: str, target_id: str,
                        friends_of_attacker: Collection[str] | None = None) -> str | None:
    """The new target when the step 4b test fails (p.32): the attacker's friendly model in
    BtB with ``target_id`` that is nearest to the attacker (edge to edge; ties: lowest id)
    and visible to it, ignoring every model in BtB with the original target (and the
    original target) for LoS. ``None`` if there is none (the shot hits nothing)."""
    friends = friends_of(scene, attacker_id) if friends_of_attacker is None else frozenset(friends_of_attacker)
    in_contact = set(models_in_contact(scene, target_id))
    candidates = sorted((c for c in in_contact if c in friends and c != attacker_id),
                        key=lambda c: (scene.distance(attacker_id, c), c))
    for c in candidates:
        ignored = (in_contact | {target_id}) - {c}
        sub = Scene([b for b in scene.bodies.values() if b.id not in ignored], scene.pieces.values())
        if sub.los(attacker_id, c).visible:
            return c
    return None


@dataclass(frozen=True)
class BtbTargeting:
    """Step 4b (p.32) for a target in BtB with a model friendly to the attacker.

    Attributes:
        required: the target is in BtB with such a model (else nothing else is set).
        in_contact: those friendly models.
        automatic: Huge target: automatic success, no dice.
        target_number: TN of the Ranged (6) test with the Size modifier.
        test: the challenge test (``None`` when not required or automatic).
        hit_intended: the shot hits the original target.
        new_target: when the test failed, the model hit instead (``None``: nothing).
    """

    required: bool
    in_contact: tuple[str, ...] = ()
    automatic: bool = False
    target_number: int | None = None
    test: ChallengeResult | None = None
    hit_intended: bool = True
    new_target: str | None = None


def resolve_btb_targeting(scene: Scene, attacker_id: str, target_id: str, ranged_pool: int, dice: Dice, *,
                          friends_of_attacker: Collection[str] | None = None, modifier: int = 0,
                          options: RollOptions = RollOptions(), rerolls: Rerolls | None = None) -> BtbTargeting:
    """Targeting a model in BtB (p.32), made at step 4b of a successful attack.

    If ``target_id`` is in BtB with a model friendly to the attacker, make a Ranged
    challenge test (``ranged_pool`` dice, TN 6; Tiny +1, Medium -1, Large -2, Huge
    automatic success). Passed: the shot hits the target. Failed: it hits
    :func:`btb_redirect_target` (or nothing). ``modifier`` is added to the test's result.
    Raises :class:`~sim.rules.dice.DiceError` from the dice source.
    """
    friends = friends_of(scene, attacker_id) if friends_of_attacker is None else frozenset(friends_of_attacker)
    in_contact = tuple(m for m in models_in_contact(scene, target_id, friends) if m != attacker_id)
    if not in_contact:
        return BtbTargeting(False)
    size_mod = BTB_SIZE_MODIFIER[Size(scene.bodies[target_id].size)]
    if size_mod is None:
        return BtbTargeting(True, in_contact, automatic=True)
    tn = BTB_TARGET_NUMBER + size_mod
    test = challenge_test(ranged_pool, tn, modifier, dice, options=options, rerolls=rerolls,
                          purpose=RollPurpose(RollKind.BTB_TARGETING, attacker_id, target_id, f"TN {tn}"))
    if test.success:
        return BtbTargeting(True, in_contact, False, tn, test, True, None)
    return BtbTargeting(True, in_contact, False, tn, test, False,
                        btb_redirect_target(scene, attacker_id, target_id, friends))


# --------------------------------------------------------------------------- the whole attack


@dataclass(frozen=True)
class RangedResult:
    """A resolved ranged attack (p.30-32). Nothing on the table has changed: the game
    applies ``wounds`` to ``target``, and ``ammo`` (the state after step 6) to the attacker.

    Attributes:
        outcome: ``out-of-range`` (step 1c), ``no-ammo`` / ``reloading`` (step 1g),
            ``miss`` (step 3), ``hit`` (damage roll made), ``hit-nothing`` (step 4b failed
            and no model to hit), ``no-damage`` (an (Sp) weapon: no damage roll).
        attacker, declared_target: as declared. target: the model hit (after interception
            and step 4b), ``None`` when nothing is hit.
        distance, band: to the target after step 1d. weapon: its name.
        interception, modifiers, target_number, contributions: steps 1d and 1f.
        pool: dice rolled for the attack. test: the attack roll (step 2-3).
        success, success_level: step 3 (level 0 on a failure, never negative).
        btb: step 4b. damage: step 5 (:class:`DamageResult`). wounds: wounds to mark.
        ammo: the attacker's :class:`AmmoState` after the attack (unchanged when the
            attack ended at 1c or 1g). reloading_gained, ammo_spent: step 6.
        steps: the log, one :class:`Step` per rulebook step reached.
    """

    outcome: str
    attacker: str
    declared_target: str
    target: str | None
    weapon: str
    distance: float
    band: RangeBand | None
    interception: Interception | None
    modifiers: RangedModifiers | None
    target_number: int | None
    contributions: tuple[Contribution, ...]
    pool: int
    test: ChallengeResult | None
    success: bool
    success_level: int
    btb: BtbTargeting | None
    damage: DamageResult | None
    wounds: int
    ammo: AmmoState
    reloading_gained: int
    ammo_spent: bool
    steps: tuple[Step, ...]

    @property
    def hit(self) -> bool:
        """The attack roll succeeded and a model was hit."""
        return self.success and self.target is not None


def resolve_ranged_attack(scene: Scene, attacker_id: str, target_id: str, weapon: Any, dice: Dice, *,
                          ranged_pool: int, modifiers: RangedModifiers | None = None,
                          moved: bool = False, ran: bool = False, shot_this_turn: bool = False,
                          interceptor: str | None = None,
                          infos: Mapping[str, TargetInfo] | None = None,
                          ammo: AmmoState | None = None,
                          enemies: Collection[str] | None = None,
                          friends_of_target: Collection[str] | None = None,
                          friends_of_attacker: Collection[str] | None = None,
                          ignore_zoc_of: Collection[str] = (), ignore_contact_with: Collection[str] = (),
                          brutal: int = 0, result_modifier: int = 0,
                          strong: bool = False, weak: bool = False,
                          strength: int | None = None, pierce: int | None = None, sharp: int | None = None,
                          damage_modifier: int = 0,
                          options: RollOptions = RollOptions(), rerolls: Rerolls | None = None) -> RangedResult:
    """Resolve one ranged attack, steps 1a-7a (p.30-32), as far as geometry and dice go.

    1a ``weapon`` is the chosen ranged weapon. 1b ``target_id`` (an enemy in LoS; the
    declaration is checked with :func:`can_shoot`). 1c distance and band; beyond Long: the
    attack ends (step 7). 1d ``interceptor``: the model the target's controller assigns, if
    any (:func:`resolve_interception`, must be allowed). 1e Ki and effects: not modelled --
    fold them into the arguments. 1f TN: ``modifiers`` for the (post-1d) target if given,
    else :func:`modifiers_from_geometry` with ``moved``/``ran``/``shot_this_turn``, the
    weapon (Light Weight) and ``infos[target]``. 1g Ammo / Reloading (``ammo``, default
    :meth:`AmmoState.start`): none left -> step 7. 2 roll ``ranged_pool`` dice (+1 against a
    Death Sentence target) with ``options``/``rerolls``; result modifier = ``brutal`` +
    ``result_modifier``. 3 compare with the TN. 4b shooting into contact
    (:func:`resolve_btb_targeting`). 5 damage roll (:func:`sim.rules.wounds.resolve_damage`)
    with the weapon's Strength (``strength`` overrides; an (Sp) weapon with no Strength
    makes no damage roll), Pierce/Sharp of the weapon (``pierce``/``sharp`` override
    variable values), Strong/Weak (argument or weapon trait), the hit model's Armour, Tough,
    Durable from ``infos``, ``damage_modifier`` (+1 against Death Sentence). 6 Ammo token
    spent, Reload (X) markers gained. 7 done.

    ``infos``: :class:`TargetInfo` by model id (missing: all defaults).

    Raises:
        RangedAttackError: the attack cannot be declared (:func:`can_shoot` codes
            ``not-ranged``, ``self``, ``attacker-prone``, ``not-enemy``, ``enemy-contact``,
            ``enemy-zoc``, ``no-los``) or the interceptor is not allowed.
        ValueError: a variable trait value (``Pierce (X)``) not supplied.
        DiceError: from the dice source.
    """
    infos = dict(infos or {})
    steps: list[Step] = []
    ammo_state = ammo if ammo is not None else AmmoState.start([weapon])
    _, reasons = can_shoot(scene, attacker_id, target_id, weapon, enemies=enemies, ammo=ammo_state,
                           ignore_zoc_of=ignore_zoc_of, ignore_contact_with=ignore_contact_with)
    illegal = [r for r in reasons if r.code in _ILLEGAL]
    if illegal:
        raise RangedAttackError("ranged attack not allowed: " + "; ".join(r.message for r in illegal), illegal)
    name = getattr(weapon, "name", str(weapon))
    steps.append(Step("1a weapon", f"{attacker_id} shoots with {name}"))
    steps.append(Step("1b target", f"target {target_id}"))

    def finish(outcome: str, target: str | None, **kw: Any) -> RangedResult:
        base: dict[str, Any] = dict(outcome=outcome, attacker=attacker_id, declared_target=target_id, target=target,
                                    weapon=name, distance=distance, band=band, interception=None, modifiers=None,
                                    target_number=None, contributions=(), pool=0, test=None, success=False,
                                    success_level=0, btb=None, damage=None, wounds=0, ammo=ammo_state,
                                    reloading_gained=0, ammo_spent=False)
        base.update(kw)
        steps.append(Step("7 done", f"ranged attack resolved: {outcome}"))
        return RangedResult(**base, steps=tuple(steps))

    # 1c range
    distance = scene.distance(attacker_id, target_id)
    band = range_band(weapon, distance)
    if band is None:
        steps.append(Step("1c range", f"{distance:.3f}\" is beyond {name}'s Long range ({max_range(weapon):g}\"): "
                                      "the attack fails"))
        return finish("out-of-range", None)
    steps.append(Step("1c range", f"{distance:.3f}\" to {target_id}: {band.value} range"))

    # 1d interception
    interception = resolve_interception(scene, attacker_id, target_id, interceptor, weapon=weapon,
                                        friends_of_target=friends_of_target, infos=infos)
    target = interception.target
    if interception.intercepted:
        distance = scene.distance(attacker_id, target)
        band = range_band(weapon, distance)
        assert band is not None  # an interceptor is within the weapon's range (condition II)
        steps.append(Step("1d interception", f"{target} intercepts (its ZoC is crossed by a sight line to "
                                             f"{target_id}); {distance:.3f}\": {band.value} range"))
    else:
        steps.append(Step("1d interception", "no model intercepts"))
    info = infos.get(target, TargetInfo())

    # 1f target number
    mods = modifiers if modifiers is not None else modifiers_from_geometry(
        scene, attacker_id, target, moved=moved, ran=ran, shot_this_turn=shot_this_turn, weapon=weapon, target=info)
    tn = target_number(band, mods)
    contributions = mods.explain(band)
    steps.append(Step("1f target number", " ".join(f"{c.value:+d} ({c.label})" for c in contributions) + f" = {tn}"))
    common = dict(interception=interception, modifiers=mods, target_number=tn, contributions=contributions)

    # 1g ammo / reload
    why = ammo_state.why_not(weapon)
    if why is not None:
        steps.append(Step("1g ammo/reload", why + ": the attack ends"))
        return finish("no-ammo" if "Ammo" in why else "reloading", None, **common)
    steps.append(Step("1g ammo/reload", "the weapon may fire"))

    # 2-3 roll and compare
    pool = ranged_pool + (1 if info.death_sentence else 0)
    mod = brutal + result_modifier
    test = challenge_test(pool, tn, mod, dice, options=options, rerolls=rerolls,
                          purpose=RollPurpose(RollKind.RANGED_ATTACK, attacker_id, target, name))
    r = test.roll
    steps.append(Step("2 roll", f"{pool} dice{' (+1 Death Sentence)' if info.death_sentence else ''}: "
                                f"{list(r.rolled)}; highest {r.highest} + {r.supports} support"
                                f"{'' if not mod else f' {mod:+d}'} = {r.final}"))
    ammo_after = ammo_state.after_firing(weapon)
    gained = ammo_after.reloading - ammo_state.reloading
    spent = ammo_state.ammo_left(weapon) is not None
    step6 = Step("6 markers", (f"{gained} Reloading marker(s)" if gained else "no Reloading marker")
                 + ("; one Ammo token removed" if spent else ""))
    after = dict(ammo=ammo_after, reloading_gained=gained, ammo_spent=spent, pool=pool, test=test)
    if not test.success:
        steps.append(Step("3 compare", f"{r.final} < TN {tn}: miss"))
        steps.append(step6)
        return finish("miss", None, **common, **after)
    sl = test.success_level
    steps.append(Step("3 compare", f"{r.final} >= TN {tn}: success level {sl}"))

    # 4b shooting into contact
    btb = resolve_btb_targeting(scene, attacker_id, target, pool, dice, friends_of_attacker=friends_of_attacker,
                                options=options, rerolls=rerolls)
    hit: str | None = target
    if btb.required:
        if btb.automatic:
            steps.append(Step("4b contact test", f"{target} is in BtB with {', '.join(btb.in_contact)}; "
                                                 "Huge target: automatic success"))
        else:
            assert btb.test is not None  # the contact test is rolled unless it is automatic
            final = btb.test.roll.final
            if btb.hit_intended:
                steps.append(Step("4b contact test", f"{target} is in BtB with {', '.join(btb.in_contact)}; "
                                                     f"Ranged ({btb.target_number}) test {final}: passed"))
            else:
                hit = btb.new_target
                steps.append(Step("4b contact test", f"{target} is in BtB with {', '.join(btb.in_contact)}; "
                                                     f"Ranged ({btb.target_number}) test {final}: failed, "
                                                     + (f"the shot hits {hit}" if hit else "no model can be hit")))
    common.update(success=True, success_level=sl, btb=btb)
    if hit is None:
        steps.append(step6)
        return finish("hit-nothing", None, **common, **after)

    # 5 damage
    hit_info = infos.get(hit, TargetInfo())
    w_strength = strength if strength is not None else getattr(weapon, "strength", None)
    if w_strength is None:
        steps.append(Step("5 damage", f"{name} has a special effect (Sp): no damage roll"))
        steps.append(step6)
        return finish("no-damage", hit, **common, **after)
    w_pierce = pierce if pierce is not None else (trait_value(weapon, "pierce", 0) or 0)
    w_sharp = sharp if sharp is not None else (trait_value(weapon, "sharp", 0) or 0)
    dmg_mod = damage_modifier + (1 if hit_info.death_sentence else 0)
    dmg = resolve_damage(dice, sl, strength=w_strength, modifiers=dmg_mod,
                         strong=strong or has_trait(weapon, "strong"), weak=weak or has_trait(weapon, "weak"),
                         armour=hit_info.armour, pierce=w_pierce, tough=hit_info.tough, sharp=w_sharp,
                         durable=hit_info.durable, purpose=RollPurpose(RollKind.DAMAGE, attacker_id, hit, name))
    dr = dmg.roll
    steps.append(Step("5 damage", f"damage roll {list(dr.dice)} keep {list(dr.kept)} {dr.modifier:+d} = {dr.total} "
                                  f"(Strength {w_strength}, Armour {hit_info.armour} - Pierce {w_pierce}"
                                  f"{f', {dmg_mod:+d}' if dmg_mod else ''}); column {sl}: {dmg.table_wounds} "
                                  f"-> {dmg.wounds} wound(s) to {hit}"))
    steps.append(step6)
    return finish("hit", hit, **common, **after, damage=dmg, wounds=dmg.wounds)
