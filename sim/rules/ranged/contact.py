"""Shooting at a model in base contact (Targeting a model in BtB, step 4b, p.32): a
Ranged (6) test modified by the target's Size (:data:`BTB_TARGET_NUMBER`,
:data:`BTB_SIZE_MODIFIER`; Huge: automatic); on a failure the friendly model in contact
nearest to the attacker is hit instead (:func:`btb_redirect_target`,
:func:`resolve_btb_targeting`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Mapping

from sim.geometry import Scene, Size
from sim.rules.dice import ChallengeResult, Dice, Rerolls, RollKind, RollOptions, RollPurpose, challenge_test
from sim.rules.ranged.declaration import friends_of

#: Targeting a model in BtB (p.32): a Ranged (6) challenge test ...
BTB_TARGET_NUMBER = 6


#: ... modified by the target's Size; ``None`` = automatic success (Huge). Small is not
#: printed: +0.
BTB_SIZE_MODIFIER: Mapping[Size, int | None] = {Size.TINY: +1, Size.SMALL: 0, Size.MEDIUM: -1,
                                                 Size.LARGE: -2, Size.HUGE: None}


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
