"""The greedy bot's card choices (issue 13): the trait steps and actions that
:meth:`Game.legal_actions` offers and a sensible player takes when they are worth it.

Rulebook: Leech (p.54), Channel (p.50), Virtue (p.59, tokens p.5), Command (p.50, worked
example p.24), Order (p.55), Pack (p.55), Rapid Fire (p.56), special attacks on ranged
weapons (p.39). Every action returned here is checked with :meth:`Game.is_legal`; the
estimates only order and filter the candidates (readings: ``/work/notes/rulings_B1.md``).

* **free steps before the model's own action** (:meth:`GreedyCards.free_step`): Leech
  takes Ki from friends that cannot use it this turn (Exhausted, or without Ki feats)
  and are not fighting; Channel gives away the Ki its model keeps beyond its dearest
  feat to friends with feats or in a fight; Virtue gives its token (free) to the friend
  in a fight, else the one with the most wounds left. A Virtue token is not spent: its
  benefit is a card ability the engine cannot read (a manual step), so the bot keeps it.
* **Command** (:meth:`GreedyCards.command_step`): when two or more friends in range could
  attack now (a Melee in base contact, a shot), or one could and the commander itself
  could not -- several attacks in one activation for one counter.
* **Order** (:meth:`GreedyCards.order_step`): when two or more friends in range would gain
  a counter and at least one of them is Exhausted or near an enemy (within a Charge).
* **Pack** (:meth:`GreedyCards.with_pack`): a Pack model's Charge, Melee or Shoot at an
  enemy takes along the mates that can attack the same enemy now; the pack then attacks
  that enemy (:meth:`GreedyCards.pack_step`).
* **Rapid Fire (X)** and **ranged specials** (:meth:`GreedyCards.better_shot`): a legal
  shot gets X - 1 further shots (the best targets of the same weapon, the same target
  again when there is no other) and the weapon's best special attack when it is free, or
  its cost leaves two dice or more: damage ones (Critical, Powerful, Combo, Stun) first,
  then the knock-down ones (Sweep, Slam).
"""

from __future__ import annotations

import math
from typing import Any

from sim.geometry import CONTACT, ZOC_RANGE
from sim.rules.bots.estimates import SLACK, charge_reaches, gap
from sim.rules.game import Action, Game, weapon_specials
from sim.rules.game.support_step import has_keyword, trait_xy

__all__ = ["GreedyCards", "PACK_TARGET_MARK"]

#: The condition mark of a model activated with its pack (its value: the pack's target).
PACK_TARGET_MARK = "pack_target"

#: Ranged special attacks the bot declares, best first (damage, then knock-down).
RANGED_SPECIALS = ("critical-attack", "powerful-attack", "combo-attack", "stun-attack", "sweep-attack",
                   "slam-attack")

_ATTACKS = ("charge", "melee", "shoot")


class GreedyCards:
    """Card choices of :class:`~sim.rules.bots.greedy.GreedyBot` (a mixin; see the
    module doc)."""

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _trait(game: Game, mid: str, keyword: str):
        card = game.profile(mid)
        return card.trait(keyword) if card is not None else None

    @staticmethod
    def _near(table, a: str, b: str, y: float) -> bool:
        return gap(table.model(a), table.model(b)) <= y + 1e-6

    @staticmethod
    def _fighting(game: Game, mid: str) -> bool:
        return bool(game.enemies_in_contact(mid))

    @staticmethod
    def _dearest_feat(game: Game, mid: str) -> int:
        costs = [f.cost for f in game.feats(mid).values() if isinstance(getattr(f, "cost", None), int)]
        return max(costs, default=0)

    @staticmethod
    def _can_attack(game: Game, table, mid: str, *, simple: bool = False, target: str | None = None) -> Action | None:
        """A legal Melee (base contact first), Shoot or (unless ``simple``) Charge of
        ``mid`` now, at ``target`` or at any enemy; None when it has none."""
        st = game.state
        m = st.models[mid]
        if "prone" in m.conditions:
            return None
        foes = [e for e in st.alive(3 - m.player) if target is None or e.id == target]
        tm = table.model(mid)
        for e in sorted(foes, key=lambda e: gap(tm, table.model(e.id))):
            g = gap(tm, table.model(e.id))
            kinds = ["melee"] if g <= CONTACT + SLACK else ["shoot"] if simple else ["charge", "shoot", "melee"]
            if g > CONTACT + SLACK and game.ranged_weapon(mid) is None:
                kinds = [k for k in kinds if k != "shoot"]
            for kind in kinds:
                if kind == "charge" and (m.counters < 2 or g > 2 * (tm.move or 0) + 2 + SLACK):
                    continue
                if kind == "melee" and g > (tm.move or 0) + SLACK:
                    continue
                a = Action(kind, mid, target=e.id)
                if game.is_legal(a)[0] and (kind != "charge" or charge_reaches(game, a)):
                    return a
        return None

    # ------------------------------------------------------------ Leech, Channel, Virtue
    def free_step(self, game: Game, table, action: Action) -> Action | None:
        """A free step (Leech, Channel, Virtue) worth taking by ``action``'s model right
        before ``action`` (it begins that model's activation, p.24), or None."""
        mid = action.model
        if mid is None or action.kind in ("leech", "channel", "virtue", "spend_virtue", "pack", "feat"):
            return None
        st = game.state
        m = st.models.get(mid)
        if m is None or m.player != st.active:
            return None
        for step in (self._leech, self._channel, self._virtue):
            a = step(game, table, m, action)
            if a is not None and game.is_legal(a)[0]:
                return a
        return None

    def _leech(self, game: Game, table, m, action: Action) -> Action | None:
        t = self._trait(game, m.id, "leech")
        if t is None:
            return None
        x, y = trait_xy(t)
        room = min(x, m.ki_limit - m.ki)
        if room <= 0 or not (action.kind in _ATTACKS or game.feats(m.id)):
            return None  # no use for more Ki now
        donors = []
        for f in game.state.alive(m.player):
            if f.id == m.id or f.ki <= 0 or "controlled" in f.conditions or not self._near(table, m.id, f.id, y):
                continue
            if self._fighting(game, f.id) or not (f.exhausted or not game.feats(f.id)):
                continue  # it may still use its Ki this turn: a feat, a boost in its fight
            donors.append((not f.exhausted, -f.ki, f.id, f))
        ids: list[str] = []
        for *_, f in sorted(donors):
            ids += [f.id] * min(f.ki, room - len(ids))
        return Action("leech", m.id, models=tuple(ids)) if ids else None

    def _channel(self, game: Game, table, m, action: Action) -> Action | None:
        t = self._trait(game, m.id, "channel")
        if t is None or "controlled" in m.conditions:
            return None
        x, y = trait_xy(t)
        keep = self._dearest_feat(game, m.id)
        give = min(x, m.ki - keep)
        if give <= 0:
            return None
        takers = []
        for f in game.state.alive(m.player):
            if f.id == m.id or f.exhausted or f.ki >= f.ki_limit or not self._near(table, m.id, f.id, y):
                continue
            if not (game.feats(f.id) or self._fighting(game, f.id)):
                continue
            takers.append((not self._fighting(game, f.id), f.ki, f.id, f))
        ids: list[str] = []
        for *_, f in sorted(takers):
            ids += [f.id] * min(f.ki_limit - f.ki, give - len(ids))
        return Action("channel", m.id, models=tuple(ids)) if ids else None

    def _virtue(self, game: Game, table, m, action: Action) -> Action | None:
        if self._trait(game, m.id, "virtue") is None:
            return None
        cands = [a for a in game.support_actions(m.id) if a.kind == "virtue" and a.target]
        if not cands:
            return None
        st = game.state.models

        def rank(a: Action) -> tuple:
            f = st[a.target or ""]
            return (not self._fighting(game, f.id), -(f.wounds - f.damage), f.id)

        return min(cands, key=rank)

    # ------------------------------------------------------------ Command, Order
    def command_step(self, game: Game, table, ready) -> Action | None:
        """A Command (p.50) nominating the friends in range that could attack now (see the
        module doc), or None."""
        st = game.state
        for c in ready:
            t = self._trait(game, c.id, "command")
            if t is None or c.counters < 1 or "prone" in c.conditions:
                continue
            x, y = trait_xy(t)
            attackers = []
            for f in st.alive(c.player):
                if (f.id == c.id or f.exhausted or not self._near(table, c.id, f.id, y)
                        or not has_keyword(game.profile(f.id), t.qualifier)):
                    continue
                if self._can_attack(game, table, f.id, simple=True) is not None:
                    attackers.append(f.id)
            if not attackers:
                continue
            if len(attackers) < 2 and self._can_attack(game, table, c.id) is not None:
                continue
            a = Action("command", c.id, models=tuple(attackers[:x]))
            if game.is_legal(a)[0]:
                return a
        return None

    def commanded_ready(self, game: Game, ready):
        """The ready models that may act now: those of a Command being carried out (p.50)
        when there is one, else ``ready``."""
        pending = set(game.commanded())
        return [m for m in ready if m.id in pending] if pending else ready

    def order_step(self, game: Game, table, ready) -> Action | None:
        """An Order (p.55) giving a counter to two or more friends in range, one of them
        Exhausted or within a Charge of an enemy (see the module doc), or None."""
        st = game.state
        for o in ready:
            t = self._trait(game, o.id, "order")
            if t is None or o.counters < 2 or "prone" in o.conditions:
                continue
            x, y = trait_xy(t)
            cands = []
            for f in st.alive(o.player):
                if (f.id == o.id or not self._near(table, o.id, f.id, y)
                        or not has_keyword(game.profile(f.id), t.qualifier)):
                    continue
                tf = table.model(f.id)
                near = any(gap(tf, table.model(e.id)) <= 2 * (tf.move or 0) + SLACK for e in st.alive(3 - o.player))
                cands.append((not f.exhausted, not near, f.counters, f.id, f.exhausted or near))
            cands.sort()
            chosen = cands[:x]
            if len(chosen) < 2 or not any(c[-1] for c in chosen):
                continue
            a = Action("order", o.id, models=tuple(c[3] for c in chosen))
            if game.is_legal(a)[0]:
                return a
        return None

    # ------------------------------------------------------------ Pack
    def with_pack(self, game: Game, table, action: Action) -> Action | None:
        """``Action("pack", ...)`` before a Pack model's Charge, Melee or Shoot at an enemy
        (p.55), with the mates (up to X) that can attack that enemy now; None when none can."""
        if action.kind not in _ATTACKS or action.model is None or action.target is None or action.models:
            return None
        t = self._trait(game, action.model, "pack")
        if t is None or PACK_TARGET_MARK in game.state.models[action.model].conditions:
            return None
        x = t.value if isinstance(t.value, int) else 1
        mates = [f for f in game.pack_mates(action.model)
                 if self._can_attack(game, table, f, target=action.target) is not None][:x]
        if not mates:
            return None
        a = Action("pack", action.model, target=action.target, models=tuple(mates))
        return a if game.is_legal(a)[0] else None

    def pack_step(self, game: Game, table, ready) -> Action | None:
        """The attack of a model activated with its pack at the pack's enemy (p.55: Melee,
        Charge or Shoot at the same target), or None."""
        for m in ready:
            target = m.conditions.get(PACK_TARGET_MARK)
            if target is None:
                continue
            a = self._can_attack(game, table, m.id, target=str(target))
            if a is not None:
                return a
        return None

    # ------------------------------------------------------------ Rapid Fire, ranged specials
    def better_shot(self, game: Game, shot: Action, targets: list[str]) -> Action:
        """``shot`` (a legal Shoot) with Rapid Fire's further shots at ``targets`` (best
        first; the shot's target again when no other) and the weapon's best special attack
        (see the module doc); ``shot`` itself when neither is legal."""
        mid = shot.model
        assert mid is not None
        w = game.ranged_weapon(mid, shot.weapon)
        best = shot
        x = weapon_specials.rapid_fire_x(w)
        if isinstance(x, int) and x >= 2:
            others = [t for t in targets if t != shot.target] or [shot.target or ""]
            extra = [others[i % len(others)] for i in range(x - 1)]
            while extra:
                a = Action("shoot", mid, target=shot.target, weapon=shot.weapon, walk=shot.walk, point=shot.point,
                           models=tuple(extra))
                if game.is_legal(a)[0]:
                    best = a
                    break
                extra = extra[:-1]
        special = self._ranged_special(game, mid, w)
        if special is not None:
            for base in (best, shot):
                a = Action(base.kind, mid, target=base.target, weapon=base.weapon, walk=base.walk, point=base.point,
                           models=base.models, special=special)
                if game.is_legal(a)[0]:
                    return a
        return best

    @staticmethod
    def _ranged_special(game: Game, mid: str, w) -> str | None:
        texts = getattr(w, "special_attacks", ()) or ()
        if not texts:
            return None
        pool = weapon_specials.shot_pool(game, mid)
        scored: list[tuple[Any, ...]] = []
        for text in texts:
            opt = weapon_specials.ranged_special(w, text)
            if opt is None or opt.rule is None or opt.key not in RANGED_SPECIALS:
                continue
            if opt.cost > 0 and pool - opt.cost < 2:
                continue
            scored.append((RANGED_SPECIALS.index(opt.key) + opt.cost, text))
        return min(scored)[1] if scored else None

    # ------------------------------------------------------------ Cavalry (X")
    def cavalry_step(self, game: Game, table, ready) -> Action | None:
        """A Cavalry move before the action (p.50) that brings an enemy now beyond a Charge
        (2 x Move) within one, by 0.25" at least: the offered end point nearest that enemy;
        the Charge itself is judged at the next decision. None when no such move."""
        st = game.state
        for m in ready:
            if m.counters < 2 or "prone" in m.conditions or self._trait(game, m.id, "cavalry") is None:
                continue
            moves = [a for a in game.activation_start_offers(m) if a.kind == "cavalry" and a.point is not None]
            if not moves or game.enemies_in_contact(m.id):
                continue
            tm = table.model(m.id)
            reach = 2 * (tm.move or 0)
            best: tuple[float, Action] | None = None
            for e in st.alive(3 - m.player):
                te = table.model(e.id)
                if gap(tm, te) <= reach + SLACK:
                    continue  # a Charge reaches it already
                for a in moves:
                    assert a.point is not None
                    g = math.dist(a.point, te.position) - tm.radius - te.radius
                    if g <= reach - 0.25 and (best is None or g < best[0]):
                        best = (g, a)
            if best is not None:
                return best[1]
        return None

    def cavalry_after(self, game: Game, offered: list[Action]) -> Action | None:
        """The Cavalry move after the action (p.50), when the game waits for it (``offered``
        its choices): towards the nearest enemy, ending out of every enemy's ZoC (0.25" of
        slack), when that gains 0.3" or more; else no move. None when the choice waiting
        is not a Cavalry one."""
        first = offered[0] if offered else None
        if first is None or first.kind != "cavalry" or first.model is None:
            return None
        mid = first.model
        table = game.table_now()
        tm = table.model(mid)
        foes = [table.model(e.id) for e in game.state.alive(3 - game.state.models[mid].player)]
        decline = next((a for a in offered if a.model == mid and a.kind == "cavalry" and a.point is None), first)
        if not foes:
            return decline
        near = min(foes, key=lambda te: gap(tm, te))
        now = gap(tm, near)
        best: tuple[float, Action] | None = None
        for a in offered:
            if a.model != mid or a.kind != "cavalry" or a.point is None:
                continue
            gaps = [math.dist(a.point, te.position) - tm.radius - te.radius for te in foes]
            if min(gaps) <= ZOC_RANGE + CONTACT + 0.25:
                continue
            g = math.dist(a.point, near.position) - tm.radius - near.radius
            if g <= now - 0.3 and (best is None or g < best[0]):
                best = (g, a)
        return best[1] if best else decline
