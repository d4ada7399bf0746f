"""The greedy bot's melee allocation: the split of its dice, the special it declares,
a Melee Ki boost (p.33-39, p.47).

Rulebook: Melee p.33-37 (pools, secret allocation), Special attacks and defences
p.39-42, the Melee Ki boost (+1 attack die, p.47). The rules of thumb are in
:class:`~sim.rules.bots.greedy.GreedyBot`'s doc.
"""

from __future__ import annotations

import random
from dataclasses import replace

from sim.rules.bots.exchange import (
    ExchangeContext,
    exchange_context,
    hit_wounds,
    legal_splits,
    special_direction,
    throw_possible,
    usable_specials,
)
from sim.rules.game import Action, Game
from sim.rules.ki import KiError
from sim.rules.melee import Allocation, SpecialOption, melee_pools, validate_allocation


class GreedyAllocation:
    """The allocation half of :class:`~sim.rules.bots.greedy.GreedyBot` (a mixin): about
    two thirds of the dice in attack; a third when one enemy hit could kill the model;
    all when one of its hits could kill the enemy; damage specials when affordable,
    contact-breaking ones in danger, control ones now and then; a Melee Ki boost when it
    raises the pool. Needs ``self.rng`` (a seeded :class:`random.Random`)."""

    rng: random.Random

    #: Attack specials that add damage, best first.
    DAMAGE = ("critical-attack", "powerful-attack", "combo-attack", "stun-attack")
    #: Specials that knock down or move the enemy (damage halved or none).
    CONTROL = ("slam-attack", "throw-attack", "sweep-attack", "push-attack", "forceback-attack",
               "drag-attack", "grapple-attack", "sidestep-attack")
    #: Specials that end the contact (the exchange stops when they succeed).
    BREAK = ("push-attack", "sidestep-attack", "slam-attack", "throw-attack",
             "push-defence", "sidestep-defence", "throw-defence")

    def allocate(self, game: Game) -> Action:
        """The greedy allocation of the model that allocates next (see the class doc),
        with one Melee Ki boost (+1 attack die) when the model can pay it and the boost
        raises its pool."""
        a = self._allocate(game)
        return self._boosted(game, a)

    @staticmethod
    def _boosted(game: Game, a: Action) -> Action:
        if a.kind != "allocate" or a.model is None:
            return a
        ex = game.state.exchange
        try:
            if game.ki_boost(replace(a, boost=1)) is None:
                return a
        except KiError:
            return a
        assert ex is not None, "an allocation is made in an exchange"
        is_att = a.model == ex["attacker"]
        other = ex["defender"] if is_att else ex["attacker"]
        me1 = game.combatant(a.model, is_att, ex["charge"] and is_att, boost=1, weapon=a.weapon)
        foe = game.combatant(other, not is_att, ex["charge"] and not is_att)
        before = game.exchange_pools()[a.model]
        pa, pb, _ = melee_pools(me1, foe) if is_att else melee_pools(foe, me1)
        after = pa if is_att else pb
        if after <= before:
            return a
        b = replace(a, attack=(a.attack or 0) + (after - before), boost=1)
        try:
            validate_allocation(me1, after, Allocation(b.attack or 0, b.defence or 0, b.special, b.direction))
        except Exception:  # noqa: BLE001 - a split the boosted pool does not allow: no boost
            return a
        return b

    def _allocate(self, game: Game) -> Action:
        ctx = exchange_context(game, getattr(self, "player", None))
        if ctx is None:
            return self.rng.choice(game.legal_actions())
        weapon = self.choose_weapon(game, ctx)
        if weapon is not None:
            ex = game.state.exchange
            assert ex is not None  # ctx exists: an exchange waits
            is_att = ctx.model == ex["attacker"]
            ctx = replace(ctx, me=game.combatant(ctx.model, is_att, ctx.charge and is_att, weapon=weapon))
        me, foe, pool = ctx.me, ctx.foe, max(ctx.pool, 0)
        danger = me.wounds_left is not None and me.wounds_left <= hit_wounds(foe, me, total=9, level=2)
        kill = foe.wounds_left is not None and foe.wounds_left <= hit_wounds(me, foe, total=7, level=1)
        if danger and not kill:
            share = 1 / 3
        elif kill and not danger:
            share = 1.0
        else:
            share = 2 / 3
        banned = game.specials_refusal(ctx.model, ctx.enemy) is not None  # a feat's ban (no_specials)
        for opt in ([] if banned else self._rank_specials(game, ctx, danger, kill)):
            n = pool - opt.cost
            split = self._split(legal_splits(me, ctx.pool, opt.key), n, share,
                                need="attack" if opt.kind == "attack" else "defence")
            if split is not None:
                direction = special_direction(game, ctx, opt)
                if direction is not None and not legal_splits(me, ctx.pool, opt.key, direction):
                    direction = None
                return Action("allocate", ctx.model, attack=split[0], defence=split[1], special=opt.key,
                              direction=direction, weapon=weapon)
        split = self._split(legal_splits(me, ctx.pool), pool, share)
        if split is None:
            return self.rng.choice(game.legal_actions())
        return Action("allocate", ctx.model, attack=split[0], defence=split[1], weapon=weapon)

    @staticmethod
    def choose_weapon(game: Game, ctx: ExchangeContext) -> str | None:
        """The melee weapon to fight with at step 2 (p.33) when the card has two or more
        (None: one weapon, nothing to choose): the most wounds for an average hit and a
        good one (damage totals 7 and 9, success levels 1 and 2), plus half a wound per
        special attack it offers and one for a Reach that gives the Initiative now; ties:
        card order."""
        names = game.melee_weapons(ctx.model)
        if len(names) < 2:
            return None
        ex = game.state.exchange
        assert ex is not None  # ctx exists: an exchange waits
        is_att = ctx.model == ex["attacker"]

        def score(name: str) -> float:
            c = game.combatant(ctx.model, is_att, ctx.charge and is_att, weapon=name)
            s: float = hit_wounds(c, ctx.foe, total=7, level=1) + hit_wounds(c, ctx.foe, total=9, level=2)
            s += 0.5 * sum(1 for o in c.weapon.specials if o.kind == "attack")
            if c.has_reach and not c.engaged_at_start and not ctx.foe.has_reach:
                s += 1.0
            return s

        return max(names, key=lambda n: (score(n), -names.index(n)))

    @staticmethod
    def _split(splits, n: int, share: float, need: str | None = None):
        """The legal split nearest ``share`` of ``n`` dice in attack (rounded), with at
        least one die of the ``need``-ed kind; ties: more attack dice."""
        if need == "attack":
            splits = [s for s in splits if s[0] >= 1]
        elif need == "defence":
            splits = [s for s in splits if s[1] >= 1]
        if not splits:
            return None
        want = round(share * n)
        return min(splits, key=lambda s: (abs(s[0] - want), -s[0]))

    def _rank_specials(self, game: Game, ctx: ExchangeContext, danger: bool, kill: bool) -> list[SpecialOption]:
        """The specials worth declaring now, best first (see the class doc)."""
        scored = []
        for opt in usable_specials(ctx.me, ctx.pool):
            if opt.rule is None:
                continue
            key, spare = opt.key, ctx.pool - opt.cost
            if opt.cost > 0 and spare < 3:
                continue
            if key == "gokusatsu-attack":
                continue
            s = None
            if key == "ivory-prison-attack":
                s = 5.0
            elif danger and not kill:
                if key in self.BREAK:
                    s = 3.0 if opt.kind == "defence" else 2.5
                elif key == "counterstrike-defence":
                    s = 2.0
                elif opt.kind == "defence":
                    s = 1.0
            elif key in self.DAMAGE:
                s = 4.0 - self.DAMAGE.index(key) * 0.25
            elif key in self.CONTROL:
                if not kill and spare >= 3 and self.rng.random() < 0.5:
                    s = 1.5
            elif opt.kind == "defence" and opt.cost == 0 and key in ("counterstrike-defence", "sweep-defence",
                                                                      "throw-defence", "grapple-defence"):
                s = 1.0
            if s is None:
                continue
            if not throw_possible(game, ctx, opt):
                continue
            scored.append((s - 0.5 * opt.cost, opt.key, opt))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [o for *_, o in scored]

