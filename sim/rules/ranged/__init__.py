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

The package, one module per concept (every name is re-exported here, so
``from sim.rules.ranged import resolve_ranged_attack`` works):

================  =====================================================================
``reasons``       why an attack or an interceptor is refused; the error
``weapons``       range bands (step 1c), trait values, Ammo and Reload (1g, 6; p.10-11)
``modifiers``     the target number and its modifiers, from the geometry (1f, p.31)
``declaration``   the sides; who may shoot whom (p.25, steps 1a-1c)
``interception``  the ZoC crossed by a sight line, conditions I-III (1d, p.30)
``contact``       shooting at a model in BtB (4b, p.32)
``attack``        :func:`resolve_ranged_attack`: the whole sequence 1a-7a
================  =====================================================================

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

from models.traits import has_trait
from sim.rules.ranged.attack import RangedResult, Step, resolve_ranged_attack
from sim.rules.ranged.contact import (
    BTB_SIZE_MODIFIER,
    BTB_TARGET_NUMBER,
    BtbTargeting,
    btb_redirect_target,
    models_in_contact,
    resolve_btb_targeting,
)
from sim.rules.ranged.declaration import ILLEGAL_CODES, can_shoot, enemies_of, friends_of
from sim.rules.ranged.interception import (
    Interception,
    InterceptorCheck,
    check_interceptor,
    interception_line,
    interceptors,
    resolve_interception,
    zoc_area,
)
from sim.rules.ranged.modifiers import (
    BASE_TARGET_NUMBER,
    SIZE_MODIFIER,
    Contribution,
    RangedModifiers,
    TargetInfo,
    modifiers_from_geometry,
    target_number,
)
from sim.rules.ranged.reasons import RangedAttackError, Reason
from sim.rules.ranged.weapons import BAND_ORDER, AmmoState, RangeBand, max_range, range_band, trait_value, weapon_bands

__all__ = [
    "RangeBand", "BAND_ORDER", "BASE_TARGET_NUMBER", "SIZE_MODIFIER", "BTB_TARGET_NUMBER",
    "BTB_SIZE_MODIFIER", "RangedAttackError", "Reason", "Step", "Contribution",
    "weapon_bands", "max_range", "range_band", "trait_value", "has_trait",
    "RangedModifiers", "target_number", "TargetInfo", "modifiers_from_geometry",
    "enemies_of", "friends_of", "can_shoot", "ILLEGAL_CODES", "AmmoState",
    "zoc_area", "interception_line", "InterceptorCheck", "check_interceptor", "interceptors",
    "Interception", "resolve_interception",
    "models_in_contact", "btb_redirect_target", "BtbTargeting", "resolve_btb_targeting",
    "RangedResult", "resolve_ranged_attack",
]
