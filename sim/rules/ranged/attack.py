"""The whole ranged attack, steps 1a-7a (Ranged Attacks p.30-32):
:func:`resolve_ranged_attack` chains the declaration, range, interception, target number,
Ammo/Reload, the roll, shooting into contact and the damage roll (wound table p.38), and
returns a :class:`RangedResult` that logs every step (:class:`Step`). Nothing is mutated:
the game applies it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Collection, Mapping

from models.traits import has_trait
from sim.geometry import Scene, Size
from sim.rules.dice import ChallengeResult, Dice, Rerolls, RollKind, RollOptions, RollPurpose, challenge_test
from sim.rules.ranged.contact import BtbTargeting, resolve_btb_targeting
from sim.rules.ranged.declaration import ILLEGAL_CODES, can_shoot
from sim.rules.ranged.interception import Interception, resolve_interception
from sim.rules.ranged.modifiers import Contribution, RangedModifiers, TargetInfo, modifiers_from_geometry, target_number
from sim.rules.ranged.reasons import RangedAttackError
from sim.rules.ranged.weapons import AmmoState, RangeBand, max_range, range_band, trait_value
from sim.rules.wounds import DamageResult, resolve_damage
from sim.rules.wounds import damage_rules as _damage_rules


@dataclass(frozen=True)
class Step:
    """One logged step of a ranged attack: ``name`` (``"1c range"`` ...) and ``detail``."""

    name: str
    detail: str


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
        extra_damage: further damage rolls of a special attack (Combo, Dual), in order;
            ``wounds`` counts them too. critical: a Critical Attack's damage roll was a
            double: the game removes ``target`` from play (p.39-40).
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
    extra_damage: tuple[DamageResult, ...] = ()
    critical: bool = False

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
                          options: RollOptions = RollOptions(), rerolls: Rerolls | None = None,
                          special: str | None = None, damage_cancelled: str = "",
                          ignore_los: bool = False, band_override: RangeBand | None = None,
                          ignore_cover: bool = False, ignore_tiny: bool = False) -> RangedResult:
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

    ``ignore_los``: no LoS is needed to the target (a Ki feat's shot); ``band_override``:
    the shot is made in that range band whatever the distance, also when intercepted (a Ki
    feat's shot "considered to be in the Medium Range Band": Raijin's Rage).

    ``ignore_cover`` / ``ignore_tiny``: the target number takes no Cover modifier / no Tiny
    size modifier (a Ki feat: Dead Eye).

    ``damage_cancelled``: why the hit model takes no damage roll (a friend removed by
    Sacrifice [K] (X") p.57 or Protected [K] (X") p.56); step 5 is then logged, not rolled.

    ``special``: the special attack declared with the shot (a
    :data:`sim.rules.melee.SPECIAL_RULES` key; its cost already taken off
    ``ranged_pool``, p.39: "Для Стрелковых атак вы можете выбрать только доступные
    специальные атаки ... Просто удалите необходимое количество кубиков из пула атаки").
    Its damage part is played here on a hit: Powerful +3 Strength; Sweep, Slam, Throw,
    Forceback halve the wounds; Drag, Push, Sidestep, Grapple make no damage roll; Combo
    rolls again at success level - 2 while >= 0 (once at level 0 after level 0 or 1);
    Dual rolls once more at the same level; Critical: a double removes the target
    (``critical``). Moves and conditions are the game's (:mod:`sim.rules.game.weapon_specials`).

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
    illegal = [r for r in reasons if r.code in ILLEGAL_CODES and not (ignore_los and r.code == "no-los")]
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
    band = band_override or range_band(weapon, distance)
    if band is None:
        steps.append(Step("1c range", f"{distance:.3f}\" is beyond {name}'s Long range ({max_range(weapon):g}\"): "
                                      "the attack fails"))
        return finish("out-of-range", None)
    steps.append(Step("1c range", f"{distance:.3f}\" to {target_id}: {band.value} range"
                                  + (" (as the Ki feat says)" if band_override else "")))

    # 1d interception
    interception = resolve_interception(scene, attacker_id, target_id, interceptor, weapon=weapon,
                                        friends_of_target=friends_of_target, infos=infos)
    target = interception.target
    if interception.intercepted:
        distance = scene.distance(attacker_id, target)
        band = band_override or range_band(weapon, distance)
        assert band is not None  # an interceptor is within the weapon's range (condition II)
        steps.append(Step("1d interception", f"{target} intercepts (its ZoC is crossed by a sight line to "
                                             f"{target_id}); {distance:.3f}\": {band.value} range"))
    else:
        steps.append(Step("1d interception", "no model intercepts"))
    info = infos.get(target, TargetInfo())

    # 1f target number
    mods = modifiers if modifiers is not None else modifiers_from_geometry(
        scene, attacker_id, target, moved=moved, ran=ran, shot_this_turn=shot_this_turn, weapon=weapon, target=info)
    if ignore_cover and mods.target_in_cover:
        mods = replace(mods, target_in_cover=False)
    if ignore_tiny and mods.target_size == Size.TINY:
        mods = replace(mods, target_size=Size.SMALL)
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
    if damage_cancelled:  # Sacrifice (p.57) / Protected (p.56): a friend removed instead
        steps.append(Step("5 damage", f"no damage roll against {hit}: {damage_cancelled}"))
        steps.append(step6)
        return finish("no-damage", hit, **common, **after)
    if special in _NO_DAMAGE_SPECIALS:
        steps.append(Step("5 damage", f"{special}: no damage roll"))
        steps.append(step6)
        return finish("no-damage", hit, **common, **after)
    if special == "powerful-attack":
        w_strength += 3
    w_pierce = pierce if pierce is not None else (trait_value(weapon, "pierce", 0) or 0)
    w_sharp = sharp if sharp is not None else (trait_value(weapon, "sharp", 0) or 0)
    dmg_mod = damage_modifier + (1 if hit_info.death_sentence else 0)
    halved = special in _HALVING_SPECIALS

    rules = _damage_rules((), hit_info.damage_rules, critical=special == "critical-attack")  # round 6 (F4)

    def roll(level: int, source: str) -> DamageResult:
        dmg = resolve_damage(dice, level, strength=w_strength, modifiers=dmg_mod,
                             strong=strong or has_trait(weapon, "strong"), weak=weak or has_trait(weapon, "weak"),
                             armour=hit_info.armour, pierce=w_pierce, tough=hit_info.tough, sharp=w_sharp,
                             durable=hit_info.durable, halved=halved,
                             purpose=RollPurpose(RollKind.DAMAGE, attacker_id, hit, name if source == "5 damage"
                                                 else f"{name}, {source}"), rules=rules)
        dr = dmg.roll
        steps.append(Step(source, f"damage roll {list(dr.dice)} keep {list(dr.kept)} {dr.modifier:+d} = {dr.total} "
                                  f"(Strength {w_strength}, Armour {hit_info.armour} - Pierce {w_pierce}"
                                  f"{f', {dmg_mod:+d}' if dmg_mod else ''}); column {level}: {dmg.table_wounds} "
                                  f"-> {dmg.wounds} wound(s) to {hit}" + (" (halved)" if halved else "")
                                  + (f" ({dmg.note})" if dmg.note else "")))
        return dmg

    dmg = roll(sl, "5 damage")
    critical = special == "critical-attack" and dmg.roll.is_double and not dmg.ignored  # round 6 (F4)
    if critical:
        steps.append(Step("5 damage", f"Critical Attack: the dice match, {hit} is removed from play"))
    extra: list[DamageResult] = []
    if not critical and special == "dual-attack":
        extra.append(roll(sl, "5 damage (Dual Attack)"))
    elif not critical and special == "combo-attack":
        level = sl - 2
        while level >= 0:
            extra.append(roll(level, "5 damage (Combo Attack)"))
            level -= 2
        if sl in (0, 1):
            extra.append(roll(0, "5 damage (Combo Attack)"))
    steps.append(step6)
    return finish("hit", hit, **common, **after, damage=dmg, wounds=dmg.wounds + sum(d.wounds for d in extra),
                  extra_damage=tuple(extra), critical=critical)


#: Special attacks with no damage roll, and those whose wounds are halved (p.39-40).
_NO_DAMAGE_SPECIALS = frozenset({"drag-attack", "push-attack", "sidestep-attack", "grapple-attack",
                                 "ivory-prison-attack", "gokusatsu-attack"})
_HALVING_SPECIALS = frozenset({"forceback-attack", "slam-attack", "sweep-attack", "throw-attack"})
