"""What the bots know of a melee exchange: who allocates, the legal splits, the usable
specials and their directions, the wounds of one hit (p.33-39).

Rulebook: Melee p.33-37 (pools, allocation, specials), Special attacks and defences
p.39-42 (Throw, Sidestep and the other moves), the wound table p.38. Every split these
helpers offer passes :func:`sim.rules.melee.validate_allocation`. Distances are inches,
directions degrees counter-clockwise from +x.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from sim.geometry import CONTACT, Passage
from sim.geometry.primitives import heading, unit_vector
from sim.rules.bots.estimates import SLACK
from sim.rules.game import Game
from sim.rules.melee import Allocation, Combatant, MeleeError, SpecialOption, validate_allocation
from sim.rules.special import throw_directions
from sim.rules.wounds import WOUND_TABLE

#: Special moves whose direction the allocating model chooses.
DIRECTED = ("throw-attack", "throw-defence", "sidestep-attack", "sidestep-defence")
#: Specials that may move both models and keep them in contact: an enemy weapon with one
#: can change the geometry before our own move, so our direction is left to the engine.
CONTACT_KEEPING = ("drag-attack", "drag-defence", "forceback-attack", "forceback-defence")


@dataclass(frozen=True)
class ExchangeContext:
    """The model that allocates next in the waiting exchange and what it fights.

    Attributes:
        model, enemy: ids (``model`` is the first of attacker, defender that has not
            allocated: the model :meth:`Game.to_move` decides for).
        pool: ``model``'s dice for the exchange (:meth:`Game.exchange_pools`).
        me, foe: the two :class:`~sim.rules.melee.Combatant` records.
        enemy_pool: the enemy's dice.
        charge: whether the attacker charged.
    """

    model: str
    enemy: str
    pool: int
    me: Combatant
    foe: Combatant
    enemy_pool: int
    charge: bool


def exchange_context(game: Game, player: int | None = None) -> ExchangeContext | None:
    """The :class:`ExchangeContext` of the waiting exchange, or None when none waits.

    ``player``: the context of that player's model (networked play, where both players
    allocate at once and neither sees the other's allocation, :mod:`sim.net`); None: of
    the first model that has not allocated (the attacker first, as :meth:`Game.to_move`)."""
    ex = game.state.exchange
    if ex is None:
        return None
    att, dfn = ex["attacker"], ex["defender"]
    mid = next((m for m in (att, dfn) if m not in ex["allocations"]
                and (player is None or game.state.models[m].player == player)), None)
    if mid is None:
        return None
    foe_id = dfn if mid == att else att
    pools = game.exchange_pools()
    charge = bool(ex["charge"])
    me = game.combatant(mid, mid == att, charge and mid == att)
    foe = game.combatant(foe_id, foe_id == att, charge and foe_id == att)
    return ExchangeContext(mid, foe_id, pools[mid], me, foe, pools[foe_id], charge)


def legal_splits(comb: Combatant, pool: int, special: str | None = None,
                 direction: float | None = None) -> list[tuple[int, int]]:
    """Every ``(attack, defence)`` split of ``pool`` (less the special's cost) that
    :func:`~sim.rules.melee.validate_allocation` accepts with ``special``."""
    cost = 0
    if special:
        opt = comb.weapon.special(special)
        if opt is None:
            return []
        cost = opt.cost
    n = max(pool, 0) - cost
    out = []
    for k in range(max(n, 0) + 1):
        try:
            validate_allocation(comb, pool, Allocation(k, n - k, special, direction))
        except MeleeError:
            continue
        out.append((k, n - k))
    return out


def usable_specials(comb: Combatant, pool: int) -> list[SpecialOption]:
    """The specials of the weapon in use that some legal split can pay for now (not
    Prone nor Immobilised; the cost leaves at least one die)."""
    return [opt for opt in comb.weapon.specials if legal_splits(comb, pool, opt.key)]


def _faced_table(game: Game, ctx: ExchangeContext):
    """The current table with the two models facing each other (step 1 of the exchange)."""
    table = game.table_now()
    a, b = table.model(ctx.model), table.model(ctx.enemy)
    face = {}
    for m, o, c in ((a, b, ctx.me), (b, a, ctx.foe)):
        if not c.immovable:
            face[m.id] = heading(o.position[0] - m.position[0], o.position[1] - m.position[1])
    models = tuple(replace(m, facing=face[m.id]) if m.id in face else m for m in table.models)
    return replace(table, models=models, _scene=[])


def _impassable_hit(table, centre, radius: float) -> bool:
    """Whether a base at ``centre`` touches or overlaps Impassable terrain."""
    return any(t.passage is Passage.IMPASSABLE and t.footprint.distance_to_disc(centre, radius) <= CONTACT
               for t in table.terrain)


def direction_options(game: Game, ctx: ExchangeContext, option: SpecialOption) -> list[tuple[float, float]]:
    """``(score, degrees)`` of the directions the allocating model may pick for a Throw
    or Sidestep ``option`` (best first); empty for any other special. A Throw's
    directions are those of :func:`sim.rules.special.throw_directions` (5 deg inside
    their bounds), scored by how directly they throw the enemy away, +1 when it lands
    against Impassable terrain, -2 when it lands on one of our models; a Sidestep's are
    within 60 deg of directly away, scored by the room left to the other enemies."""
    key = option.key
    if key not in DIRECTED:
        return []
    table = _faced_table(game, ctx)
    me, foe = table.model(ctx.model), table.model(ctx.enemy)
    out: list[tuple[float, float]] = []
    if key.startswith("throw"):
        away = math.atan2(foe.position[1] - me.position[1], foe.position[0] - me.position[0])
        spans = throw_directions(table, me.id, foe.id, step_deg=5.0)
        friends = [m for m in table.models if m.player == me.player and m.id != me.id]
        for lo, hi in spans:
            lo, hi = (lo + 5.0, hi - 5.0) if hi - lo < 360 else (lo, hi)
            if hi < lo:
                continue
            deg = lo
            while deg <= hi + SLACK:
                ux, uy = unit_vector(deg)
                end = (foe.position[0] + 2.0 * ux, foe.position[1] + 2.0 * uy)
                s = math.cos(math.radians(deg) - away)
                if _impassable_hit(table, end, foe.radius):
                    s += 1.0
                if any(math.dist(end, f.position) < f.radius + foe.radius for f in friends):
                    s -= 2.0
                out.append((s, deg % 360))
                deg += 10.0
    else:
        away = math.atan2(me.position[1] - foe.position[1], me.position[0] - foe.position[0])
        others = [m for m in table.models if m.player != me.player and m.id != foe.id]
        for off in (0, 30, -30, 60, -60):
            t = away + math.radians(off)
            end = (me.position[0] + 2.0 * math.cos(t), me.position[1] + 2.0 * math.sin(t))
            room = min((math.dist(end, o.position) - o.radius - me.radius for o in others), default=6.0)
            s = min(room, 6.0) - (3.0 if _impassable_hit(table, end, me.radius) else 0.0)
            out.append((s, math.degrees(t) % 360))
    out.sort(key=lambda x: -x[0])
    return out


def special_direction(game: Game, ctx: ExchangeContext, option: SpecialOption,
                      rng: random.Random | None = None) -> float | None:
    """A direction (degrees) for a Throw or Sidestep ``option``: the best of
    :func:`direction_options` (a random one with ``rng``); None for other specials, or
    when the enemy's weapon has a special that could move the two before ours does (the
    engine then picks directly away, or a direction it allows)."""
    if option.key not in DIRECTED:
        return None
    if any(s.key in CONTACT_KEEPING for s in ctx.foe.weapon.specials):
        return None
    opts = direction_options(game, ctx, option)
    if not opts:
        return None
    return (rng.choice(opts) if rng is not None else opts[0])[1]


def throw_possible(game: Game, ctx: ExchangeContext, option: SpecialOption) -> bool:
    """A Throw needs some direction in the thrower's LoS (else the move cannot be made)."""
    if not option.key.startswith("throw"):
        return True
    table = _faced_table(game, ctx)
    return bool(throw_directions(table, ctx.model, ctx.enemy, step_deg=10.0))


def hit_wounds(att: Combatant, dfn: Combatant, *, total: int, level: int) -> int:
    """Wounds one hit of ``att`` does to ``dfn`` for a damage roll of ``total`` (before
    Strength, Charge and Armour) at success level ``level`` (wound table p.38)."""
    armour = max(0, dfn.armour - att.weapon.trait_value("pierce"))
    roll = total + att.weapon.strength + (2 if att.charge else 0) + att.damage_modifier - armour
    roll = max(2, min(12, roll))
    w = WOUND_TABLE[roll][max(0, min(10, level))]
    w -= max(0, dfn.tough - att.weapon.trait_value("sharp"))
    if dfn.durable:
        w = min(w, 1)
    return max(0, w)

