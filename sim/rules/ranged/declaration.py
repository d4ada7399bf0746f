"""Who may shoot whom (Ranged Attack action p.25; Ranged Attacks step 1a-1c, p.30):
the sides (:func:`enemies_of`, :func:`friends_of`) and :func:`can_shoot` -- a ranged
weapon, an enemy target in LoS, the attacker neither Prone nor in BtB with or in the ZoC
of an enemy (ZoC p.4-9: the ZoC of an enemy in BtB with its own enemies may be ignored),
Ammo left, in range.
"""

from __future__ import annotations

from typing import Any, Collection

from sim.geometry import Scene
from sim.rules.ranged.reasons import Reason
from sim.rules.ranged.weapons import AmmoState, max_range, range_band

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


# --------------------------------------------------------------------------- can shoot

#: Reasons that make the declaration illegal (not merely an automatic miss).
ILLEGAL_CODES = frozenset({"not-ranged", "self", "no-los", "enemy-contact", "enemy-zoc", "not-enemy",
                           "attacker-prone"})


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
