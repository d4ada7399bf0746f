"""Before the dice of a melee exchange (Melee Attacks p.34-36, steps 3-5): who has the
Initiative (:func:`initiative_reason`, step 3), the dice pools with the melee modifiers
(:func:`pool_modifiers`, :func:`melee_pools`, step 4, p.36) and the secret allocations
(:class:`Allocation`, checked by :func:`validate_allocation`, step 5, p.33-35, p.39).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.rules.dice import modified_stat, opposed_pools
from sim.rules.melee.combatant import Combatant, check_pair
from sim.rules.melee.sides import AllocationError, MeleeError, Side, other_side
from sim.rules.melee.specials import SpecialOption

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
    check_pair(a, b)
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
        loser = c[other_side(holder)]
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
        why.append(f"{c[other_side(holder)].id} is Slow and loses the Initiative")
    else:
        holder = active
        why.append(f"{c[active].id} is the active model")

    # step 3b: Ki feats, the non-active player first
    nonactive = other_side(active)
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
    check_pair(a, b)
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
