"""The greedy bot: its choice of action in an activation (p.20-25, p.30, p.46, p.63).

Rulebook: the actions it chooses among are Charge and Melee (p.24, p.33), Shoot with a
declared Walk before or after (p.25, p.30-32), Walk (p.22), Stand Up, Focus and Wait
(p.25), Ki feats (p.46-47), Scenario actions (p.25, p.63), and it answers an
interception (step 1d, p.30). Its melee allocation is
:class:`~sim.rules.bots.greedy_melee.GreedyAllocation`.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import replace

from sim.geometry import CONTACT, ZOC_RANGE, Passage
from sim.geometry.primitives import heading, point_segment_distance
from sim.rules import movement
from sim.rules.bots.base import fallback_action
from sim.rules.bots.estimates import (
    SLACK,
    Cards,
    Verdicts,
    active_player,
    clear_line,
    enemy_shooters,
    gap,
    ray_limit,
    shot_target_number,
)
from sim.rules.bots.exchange import exchange_context
from sim.rules.bots.feat_value import best_feat
from sim.rules.bots.greedy_cards import GreedyCards
from sim.rules.bots.greedy_melee import GreedyAllocation
from sim.rules.game import Action, Game, ModelState, melee_traits
from sim.rules.ranged import has_trait
from sim.rules.scenario import interaction_refusal, zone_contains_base, zone_controller

#: Conditions a Wait removes (p.25): a model that has one Waits rather than Focuses.
WAIT_CLEARS = ("stunned", "immobilised", "reloading", "on_fire", "fire")


class GreedyBot(GreedyAllocation, GreedyCards):
    """A simple greedy player (legal moves only). Per activation, the first of:

    a. **Charge** (2 counters, not in contact with an enemy) an enemy the Charge
       reaches (:meth:`Game.charge`), the one with the fewest wounds left, then the
       nearest; charges along a clear line (no other enemy ZoC, no Impassable terrain)
       first, four tried at most, two of them not clear;
    b. **Melee** an enemy in base contact (first) or within Move (a clear line first,
       one that is not at most), fewest wounds first;
    c. **Shoot** the enemy with the lowest target number
       (:func:`shot_target_number`: range band, Size, Cover...), then the fewest wounds
       left; with no such target, a Shoot with a declared Walk *before* it to a point
       in range and LoS; with a target, a Walk *after* it into cover when the shooter is
       exposed to enemy shooters and the shot stays possible (TN <= 6);
    d. **Walk** (a model not Reloading nor Stunned, out of every enemy ZoC) towards the
       nearest enemy, stopping 0.25" short of every enemy ZoC (a Walk leaves at most
       one counter, so no Charge can follow it this turn), turned to face that enemy;
       among five headings it takes the most progress less 1.5" per enemy shooter that
       would see the end point without cover (:func:`exposure`; 0.375" in cover, 0 out
       of sight);
    e. **Stand Up** when Prone;
    f. **Wait** when a Wait removes a condition, else **Focus** when Ki is not full and
       the model has 2 counters, else **Wait**.

    Card choices (:class:`~sim.rules.bots.greedy_cards.GreedyCards`): a Pack model's
    pack attacks its enemy first; Command before (a) when friends could attack; a Cavalry
    move and Order after (c); before the chosen action its model's free steps (Leech,
    Channel, Virtue) and, before an attack, a Pack call; a shot gets Rapid Fire's further
    shots and a ranged special attack.

    In an exchange (:meth:`allocate`): about two thirds of the dice in attack; a third
    when one enemy hit could kill it ("danger"); all when one of its hits could kill the
    enemy. Specials: one that adds damage (Critical, Powerful, Combo, Stun) whenever it
    is affordable (a cost of 1+ only with 3 dice left); in danger one that breaks
    contact (Push, Sidestep, Throw, Slam); with spare dice (3+ after the cost) a
    Push/Slam/Throw/Sweep one time in two; the direction of a Throw or Sidestep from
    :func:`special_direction`.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        #: The player whose model this bot allocates for when both allocate at once
        #: (networked play, :mod:`sim.net`); None: the model the engine asks first.
        self.player: int | None = None
        self.cards: Cards | None = None
        self.verdicts = Verdicts()
        self._sight_memo: dict = {}  # LoS and Cover under the local geometry (see _sight)
        self._no_walk_before: set = set()  # (shooter, its position, target, its position)

    # -------------------------------------------------------------- activation
    def choose(self, game: Game) -> Action:
        """The action this bot plays now (an allocation while an exchange waits)."""
        st = game.state
        if game.damage_offers_pending():  # Sacrifice / Protected (p.56-57): save the more valuable model
            return game.answer_choice()
        if st.exchange is not None:  # a Ki feat worth its cost before allocating (p.33 step 4)
            ctx = exchange_context(game, self.player)
            feat = best_feat(game, game.feat_actions(ctx.model), fighting=True) if ctx is not None else None
            return feat or self.allocate(game)
        if st.interception is not None:
            return self.intercept(game)
        if game.triggers_pending():  # a triggered Ki feat (p.46): use it when worth its Ki, else decline
            offered = game.legal_actions()
            return best_feat(game, offered) or next(a for a in offered if a.kind == "decline_feat")
        if game.answers_pending():  # Bodyguard (p.49): protect the more valuable model
            return game.answer_choice()
        if game.due_arrivals():  # Flank models arrive first (p.52): one of the offered places
            return fallback_action(game, self.rng)
        if game.intimidate_pending():  # Intimidate (p.54): the enemy with the lowest Ki, never a Soulless one
            return self._intimidate(game)
        if game.starting_choices_pending():  # Fortune, Oni Rage (p.52, p.55), a Cavalry move after the action (p.50)
            offered = game.legal_actions()
            if not offered:
                return fallback_action(game, self.rng)
            return self.cavalry_after(game, offered) or self._starting_choice(game)
        if self.cards is None or self.cards.table is not game.table:  # a new table: forget
            self._sight_memo, self._no_walk_before = {}, set()
        self.cards = Cards.of(game, self.cards)
        p = st.active
        ready = [m for m in st.alive(p) if not m.exhausted and not game.activation_lock(m.id)]  # Group, Jump Up
        if not ready:
            return fallback_action(game, self.rng)
        ready = self.commanded_ready(game, ready)  # a Command being carried out (p.50)
        table = game.table_now()
        for step in (self.pack_step, self._scenario, self.command_step, self._charge, self._melee, self._feat,
                     self._shoot, self.cavalry_step, self.order_step, self._objective, self._care, self._advance,
                     self._stand_up, self._rest):
            a = step(game, table, ready)
            if a is not None:
                free = self.free_step(game, table, a)  # Leech, Channel, Virtue (p.50-59): free, before it acts
                if free is not None:
                    return free
                if a.kind in ("charge", "melee", "shoot") and a.model is not None:  # a buff before it fights
                    feats = [f for f in game.feat_actions(a.model) if f.kind == "feat"]
                    return best_feat(game, feats, fighting=True) or self.with_pack(game, table, a) or a
                return a
        return fallback_action(game, self.rng)

    @staticmethod
    def _intimidate(game: Game) -> Action:
        """The Starting phase choice of Intimidate (p.54): the first waiting model targets the
        enemy in range with the lowest Ki statistic that is not Soulless (a Soulless model
        passes the test, p.58); none: it declines."""
        offered = game.legal_actions()
        best: tuple[int, str] | None = None
        chosen = next((a for a in offered if a.target is None), offered[0])
        for a in offered:
            if a.target is None or a.model != chosen.model:
                continue
            card = game.profile(a.target)
            if card is not None and card.has_trait("soulless"):
                continue
            key = (game.state.models[a.target].ki_stat, a.target)
            if best is None or key < best:
                best, chosen = key, a
        return chosen

    @staticmethod
    def _left(m) -> int:
        return m.wounds - m.damage

    def _charge(self, game: Game, table, ready) -> Action | None:
        pairs: list[tuple[tuple, ModelState, ModelState]] = []
        ideal = any(t.passage is Passage.IDEAL for t in table.terrain)  # +2" to a Charge over it
        for m in ready:
            if m.counters < 2 or "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            reach = 2 * (tm.move or 0) + (movement.IDEAL_BONUS if ideal else 0.0)
            cands = [(e, gap(tm, table.model(e.id))) for e in game.charge_candidates(m.id)]
            if any(g <= CONTACT + SLACK for _, g in cands):
                continue  # in contact already: a Melee action (b) instead
            pairs.extend(((self._left(e), g, m.id, e.id), m, e) for e, g in cands if g <= reach + SLACK)
        # a charge whose straight line meets another enemy's ZoC or Impassable terrain
        # is likely to stop short, and costly to plan: try the clear ones first
        foes = [table.model(e.id) for e in game.state.alive(3 - active_player(game))]
        keyed = [((not clear_line(table, table.model(m.id), table.model(e.id), foes),) + k, m, e)
                 for k, m, e in pairs]
        return self._first_legal(game, table, keyed, "charge", max_blocked=2)

    def _first_legal(self, game: Game, table, keyed, kind: str, max_blocked: int) -> Action | None:
        """The first ``kind`` action at ``(key, model, enemy)`` (best key first, four at
        most) that the game allows; at most ``max_blocked`` of them with a line that is not
        clear (``key[0]`` True: costly to plan, likely to stop short)."""
        keyed = sorted(keyed, key=lambda x: x[0])
        blocked = 0
        for k, m, e in keyed[:4]:
            if k[0]:
                blocked += 1
                if blocked > max_blocked:
                    break
            a = Action(kind, m.id, target=e.id)
            if self.verdicts.legal(game, table, a, m.position, e.position):
                return a
        return None

    def _melee(self, game: Game, table, ready) -> Action | None:
        opts = []
        foes = game.state.alive(3 - active_player(game))
        for m in ready:
            if "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            for e in foes:
                g = gap(tm, table.model(e.id))
                if g <= CONTACT + SLACK:
                    opts.append(((0, self._left(e), g, m.id, e.id), m, e))
                elif g <= (tm.move or 0) + SLACK:
                    opts.append(((1, self._left(e), g, m.id, e.id), m, e))
        fts = [table.model(e.id) for e in foes]
        keyed = [((k[0] > 0 and not clear_line(table, table.model(m.id), table.model(e.id), fts),) + k, m, e)
                 for k, m, e in opts]
        return self._split_attack(game, table, self._first_legal(game, table, keyed, "melee", max_blocked=1))

    @staticmethod
    def _split_attack(game: Game, table, a: Action | None) -> Action | None:
        """A Melee by a Split Attack model (p.58) that already touches other enemies fights
        them too when its pool keeps three dice or more after -1 per extra exchange."""
        if a is None or a.target is None or a.model is None:
            return a
        card = game.profile(a.model)
        if card is None or not melee_traits.trait_entries(card, "split_attack"):
            return a
        me = table.model(a.model)
        others = tuple(e.id for e in game.state.alive(3 - game.state.models[a.model].player)
                       if e.id != a.target and gap(me, table.model(e.id)) <= CONTACT + SLACK)
        if not others or card.melee - len(others) < 3:
            return a
        split = Action("melee", a.model, target=a.target, models=others)
        return split if game.is_legal(split)[0] else a

    def _sight(self, table, scene, a_id: str, b_id: str, at_a=None, at_b=None, cover: bool = False):
        """:meth:`Scene.los` (``cover``: ``(los, Scene.cover)``) from ``a_id`` to ``b_id``,
        either moved to ``at_a``/``at_b``, remembered under the positions, facings and
        Prone states of the two and of every model that could stand between them (what
        LoS and Cover depend on besides the terrain)."""
        A, B = table.model(a_id), table.model(b_id)
        pa = A.position if at_a is None else (float(at_a[0]), float(at_a[1]))
        pb = B.position if at_b is None else (float(at_b[0]), float(at_b[1]))
        w = max(A.radius, B.radius) + 0.05 + (1.0 if cover else 0.0)  # Cover: a Construct within 1"
        (ax, ay), (bx, by) = pa, pb
        near = tuple((x.id, x.position, x.facing, x.prone) for x in table.models
                     if x.id not in (a_id, b_id)
                     and point_segment_distance(x.position[0], x.position[1], ax, ay, bx, by) <= w + x.radius)
        key = (a_id, pa, A.facing, A.prone, b_id, pb, B.prone, near, cover)
        got = self._sight_memo.get(key)
        if got is None:
            if len(self._sight_memo) > 20_000:
                self._sight_memo.clear()
            bodies = scene.bodies
            oa = bodies[a_id] if at_a is None else replace(bodies[a_id], center=pa)
            ob = bodies[b_id] if at_b is None else replace(bodies[b_id], center=pb)
            los = scene.los(oa, ob)
            got = (los.visible, scene.cover(oa, ob, los).cover) if cover else los.visible
            self._sight_memo[key] = got
        return got

    def _exposure(self, table, scene, mid: str, pt, shooters, limit: float = math.inf) -> float:
        """:func:`exposure` of ``mid`` moved to ``pt``, with :meth:`_sight`'s memory."""
        me = table.model(mid)
        total = 0.0
        for sid, reach in shooters:
            S = table.model(sid)
            if math.dist(S.position, pt) - S.radius - me.radius > reach:
                continue
            los, cov = self._sight(table, scene, sid, mid, at_b=pt, cover=True)
            if los:
                total += 0.25 if cov else 1.0
                if total >= limit:
                    break
        return total

    def _shoot(self, game: Game, table, ready) -> Action | None:
        st = game.state
        foes = st.alive(3 - active_player(game))
        scene = table.scene()
        cards = self.cards
        assert cards is not None, "read in choose()"
        direct, later = [], []
        for m in ready:
            if "prone" in m.conditions:
                continue
            w, reach = cards.weapon(m.id), cards.reach(m.id)
            if w is None or reach is None:
                continue
            if "reloading" in m.conditions and any(t.lower().startswith("reload") for t in w.traits):
                continue
            move = table.model(m.id).move or 0
            if any(scene.btb(m.id, e.id) and not scene.bodies[e.id].prone for e in foes):
                continue  # no shooting in base contact with an enemy (p.25)
            for e in foes:
                d = scene.distance(m.id, e.id)
                if d > reach + move + SLACK:
                    continue
                if d > reach + SLACK or not self._sight(table, scene, m.id, e.id):
                    later.append(((d - reach, self._left(e), m.id, e.id), m, e, reach))
                    continue
                tn = shot_target_number(game, scene, m.id, e.id, w, cards=cards, cover=False)
                if tn is not None:
                    direct.append([tn, self._left(e), d, m.id, e.id, m, e, w])
        # best first; Cover (+2) is looked up only for a candidate that comes out on top
        heap = [(tn, left, d, mid, eid, False, m, e, w) for tn, left, d, mid, eid, m, e, w in direct]
        heapq.heapify(heap)
        tries, failed = 0, set()
        while heap and tries < 4:
            tn, left, d, mid, eid, known, m, e, w = heapq.heappop(heap)
            if mid in failed:
                continue
            if not known:
                if scene.cover(mid, eid).cover:
                    tn += 2
                heapq.heappush(heap, (tn, left, d, mid, eid, True, m, e, w))
                continue
            tries += 1
            a = Action("shoot", mid, target=eid)
            if game.is_legal(a)[0]:
                targets = [x[4] for x in sorted(direct, key=lambda x: x[:3]) if x[3] == mid]
                return self.better_shot(game, self._walk_after(game, table, m, e, w, tn) or a, targets)  # p.56, p.39
            failed.add(mid)  # in range and LoS: what stops it is the shooter's (ZoC, a condition)
        later.sort(key=lambda x: x[0])
        seen: set[str] = set()
        for _, m, e, reach in later:
            if m.id in seen or m.id in failed or len(seen) >= 2:
                continue
            tm = table.model(m.id)
            if any(gap(tm, table.model(x.id)) <= ZOC_RANGE + CONTACT for x in foes):
                continue  # in (or at) an enemy ZoC: a Walk must first go directly away
            seen.add(m.id)
            walk = self._walk_before(game, table, m, e, reach)
            if walk is not None:
                return walk
        return None

    def _walk_before(self, game: Game, table, m, e, reach: float) -> Action | None:
        """A Shoot at ``e`` with a declared Walk before it: the shortest of a few points
        (towards ``e``, half or full Move, straight or 40/80 deg off) from which ``e`` is
        in range and in LoS, checked by :meth:`Game.is_legal`."""
        tm, te = table.model(m.id), table.model(e.id)
        move = tm.move or 0
        memo = (m.id, tm.position, e.id, te.position)
        if move <= 0 or memo in self._no_walk_before:
            return None
        scene = table.scene()
        base = math.atan2(te.position[1] - tm.position[1], te.position[0] - tm.position[0])
        tries = 0
        for frac in (0.5, 1.0):
            for off in (0, 40, -40, 80, -80):
                t = base + math.radians(off)
                pt = (tm.position[0] + move * frac * math.cos(t), tm.position[1] + move * frac * math.sin(t))
                if math.dist(pt, te.position) - tm.radius - te.radius > reach:
                    continue
                if not self._sight(table, scene, m.id, e.id, at_a=pt):
                    continue
                a = Action("shoot", m.id, target=e.id, walk="before", point=pt)
                if game.is_legal(a)[0]:
                    return a
                tries += 1
                if tries >= 3:
                    break
            if tries >= 3:
                break
        if len(self._no_walk_before) > 20_000:
            self._no_walk_before.clear()
        self._no_walk_before.add(memo)  # nothing found from here: not again while both stand still
        return None

    def _walk_after(self, game: Game, table, m, e, w, tn: int) -> Action | None:
        """The shot with a declared Walk after it into cover, when the shooter now
        stands exposed to enemy shooters and the shot (TN +1 for moving, unless the
        weapon is Light Weight) stays possible."""
        light = has_trait(w, "light weight")
        if not light and tn + 1 > 6:
            return None
        shooters = enemy_shooters(game, 3 - m.player, self.cards)
        if not shooters:
            return None
        scene = table.scene()
        tm = table.model(m.id)
        if self._exposure(table, scene, m.id, tm.position, shooters, limit=1.0) < 1.0:
            return None
        move = tm.move or 0
        tries = 0
        for i in range(8):
            t = 2 * math.pi * i / 8
            pt = (tm.position[0] + move * math.cos(t), tm.position[1] + move * math.sin(t))
            if self._exposure(table, scene, m.id, pt, shooters, limit=1.0) >= 1.0:
                continue
            a = Action("shoot", m.id, target=e.id, walk="after", point=pt)
            if game.is_legal(a)[0]:
                return a
            tries += 1
            if tries >= 2:
                break
        return None

    def _advance(self, game: Game, table, ready) -> Action | None:
        st = game.state
        foes = st.alive(3 - active_player(game))
        if not foes:
            return None
        fts = [table.model(e.id) for e in foes]
        movers = []
        for m in ready:
            if "prone" in m.conditions or any(c in m.conditions for c in ("reloading", "stunned")):
                continue
            tm = table.model(m.id)
            near = min(gap(tm, te) for te in fts)
            if near <= ZOC_RANGE + CONTACT:
                continue
            movers.append((m.counters, near, m.id, m))
        movers.sort(key=lambda x: x[:3])
        shooters = enemy_shooters(game, 3 - active_player(game), self.cards)
        for *_, m in movers[:3]:
            a = self._walk_towards(game, table, m, fts, shooters)
            if a is not None:
                return a
        return None

    #: Inches of progress a Walk gives up to end out of an enemy shooter's sight or in cover.
    COVER_WEIGHT = 1.5

    def _walk_towards(self, game: Game, table, m, fts, shooters) -> Action | None:
        """A Walk towards the nearest enemy (headings 0, +-30, +-60 deg), ending ZOC +
        0.25" from every enemy and facing the nearest: the three best full-Move end
        points by progress less :attr:`COVER_WEIGHT` x :func:`exposure` to the enemy
        shooters are checked with :meth:`Game.is_legal`, then the straight half Move."""
        tm = table.model(m.id)
        move = tm.move or 0
        if move <= 0:
            return None
        scene = table.scene()
        e = min(fts, key=lambda te: (gap(tm, te), te.id))
        keep = ZOC_RANGE + 0.25
        gap0 = gap(tm, e)
        if gap0 - keep < 0.3:
            return None
        base = math.atan2(e.position[1] - tm.position[1], e.position[0] - tm.position[0])
        first: list[list] = []  # [progress, point], best first
        second: list[list] = []
        for off in (0, 30, -30, 60, -60):
            t = base + math.radians(off)
            u = (math.cos(t), math.sin(t))
            step = move
            for o in fts:
                step = ray_limit(tm.position, u, step, o.position, tm.radius + o.radius + keep)
            for frac, bucket in ((1.0, first), (0.5, second)):
                s = step * frac
                pt = (tm.position[0] + u[0] * s, tm.position[1] + u[1] * s)
                progress = gap0 - (math.dist(pt, e.position) - tm.radius - e.radius)
                if progress < 0.3:
                    continue
                bucket.append([progress, pt])
        for bucket, scored in ((first, True), (second, False)):
            bucket.sort(key=lambda c: -c[0])
            if scored and shooters:  # branch and bound: exposure only lowers a score
                best = -math.inf
                for c in bucket:
                    if c[0] <= best:
                        c[0] = -math.inf
                        continue
                    c[0] -= self.COVER_WEIGHT * self._exposure(table, scene, m.id, c[1], shooters)
                    best = max(best, c[0])
                bucket.sort(key=lambda c: -c[0])
            for _, pt in bucket[:3 if scored else 1]:
                face = heading(e.position[0] - pt[0], e.position[1] - pt[1])
                a = Action("walk", m.id, point=pt, facing=face)
                if self.verdicts.legal(game, table, a, tm.position, pt):
                    return a
        return None

    @staticmethod
    def intercept(game: Game) -> Action:
        """Step 1d (p.30): a friend takes the shot when the target is nearly dead (2 wounds
        or fewer left) and the friend has at least two more wounds left; else nobody."""
        st = game.state
        ic = st.interception
        assert ic is not None, "called while an interception waits"
        t = st.models[ic["target"]]
        left = t.wounds - t.damage
        best = None
        for c in ic["candidates"]:
            f = st.models[c]
            fl = f.wounds - f.damage
            if left <= 2 and fl >= left + 2 and (best is None or fl > best[0]):
                best = (fl, c)
        return Action("intercept", target=best[1] if best else None)

    # ------------------------------------------------------------ scenario and Ki
    #: Preference among interactions: a Prayer scores at once, Influence turns objectives.
    INTERACTIONS = ("prayer", "influence", "worship")

    def _scenario(self, game: Game, table, ready) -> Action | None:
        """A Scenario action by a model touching an objective: Prayer first (at the
        objective worth most: enemy 3, neutral 2, friendly 1), then Influence, Worship."""
        if game.scenario is None:
            return None
        sc = game.scenario_state()
        p = game.state.active
        best = None
        for m in ready:
            for a in game.scenario_actions(m.id):
                owner = sc.alignment.get(a.objective)
                worth = 2 if owner is None else (1 if owner == p else 3)
                rank = (self.INTERACTIONS.index(a.special) if a.special in self.INTERACTIONS else 9, -worth, m.id)
                if best is None or rank < best[0]:
                    best = (rank, a)
        return best[1] if best else None

    def _objective(self, game: Game, table, ready) -> Action | None:
        """Send the nearest model to an objective where an interaction still
        pays (not removed; Influence on a not-yet-friendly objective, or Prayer tokens
        left): a Walk into contact when it reaches, else a full Walk towards it."""
        if game.scenario is None:
            return None
        if not game.scenario.objectives:
            return self._zone(game, table, ready)
        sc = game.scenario_state()
        p = active_player(game)
        r_obj = game.scenario.objective_radius
        useful = []
        for obj in game.scenario.objectives:
            if obj.id in sc.removed:
                continue
            if any(interaction_refusal(game.scenario, sc, p, obj.id, i.kind, action=i.action) is None
                   for i in game.scenario.interactions):
                useful.append(obj)
        if not useful:
            return None
        pairs = []
        for m in ready:
            if "prone" in m.conditions:
                continue
            tm = table.model(m.id)
            for obj in useful:
                d = math.dist(tm.position, obj.position) - tm.radius - r_obj
                pairs.append((d, m.id, m, obj))
        pairs.sort(key=lambda x: x[:2])
        for d, _, m, obj in pairs[:1]:
            tm = table.model(m.id)
            dx, dy = tm.position[0] - obj.position[0], tm.position[1] - obj.position[1]
            n = math.hypot(dx, dy) or 1.0
            ring = r_obj + tm.radius + 0.005
            move = tm.move or 0
            for t in (0, 35, -35):  # around the objective, nearest side first
                a0 = math.atan2(dy, dx) + math.radians(t)
                pt = (obj.position[0] + ring * math.cos(a0), obj.position[1] + ring * math.sin(a0))
                if math.dist(tm.position, pt) > move + movement.IDEAL_BONUS + SLACK:
                    continue  # out of reach of one Walk: no need to ask
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
            step = min(move, max(0.0, n - ring))
            if step > 0.3:
                pt = (tm.position[0] - dx / n * step, tm.position[1] - dy / n * step)
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _zone(self, game: Game, table, ready) -> Action | None:
        """Zone control (p.63): the nearest ready model outside every zone walks into the
        nearest zone the player does not control (a point deep inside it, within one
        Walk), or a full Walk towards it."""
        assert game.scenario is not None  # called for a scenario game (_objective)
        zones = game.scenario.zones
        if not zones:
            return None
        p = game.state.active
        models = [(x.player, table.model(x.id).position, table.model(x.id).radius,
                   (game.profile(x.id).rice or 0) if game.profile(x.id) else 0) for x in game.state.alive()]
        wanted = [z for z in zones if zone_controller(z, models) != p]
        if not wanted:
            return None
        pairs = []
        for m in ready:
            tm = table.model(m.id)
            if "prone" in m.conditions or any(zone_contains_base(z, tm.position, tm.radius) for z in zones):
                continue
            for z in wanted:
                c = z.shape.centroid
                pairs.append((math.dist(tm.position, (c.x, c.y)), m.id, m, (c.x, c.y), z))
        pairs.sort(key=lambda x: x[:2])
        for d, _, m, c, z in pairs[:1]:
            tm = table.model(m.id)
            move = tm.move or 0
            ux, uy = (c[0] - tm.position[0]) / (d or 1.0), (c[1] - tm.position[1]) / (d or 1.0)
            for step in (min(move, d), min(move, d) * 0.75, min(move, d) * 0.5):
                if step <= 0.3:
                    break
                pt = (tm.position[0] + ux * step, tm.position[1] + uy * step)
                a = Action("walk", m.id, point=pt)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _feat(self, game: Game, table, ready) -> Action | None:
        """A Ki feat the engine applies, when the model has Ki to spare: Spirit Bolt at the
        most wounded enemy in range, Puppet Strings, Shockwave with enemies in its Pulse, Mind Clash,
        Warding Presence with friends about, Inner Calm when Stunned."""
        order = ("Spirit Bolt", "Puppet Strings", "Shockwave", "Mind Clash", "Warding Presence", "Inner Calm")
        best = None
        card = best_feat(game, [a for m in ready for a in game.feat_actions(m.id)])  # catalogue feats (data)
        if card is not None:
            return card
        for m in ready:
            for a in game.feat_actions(m.id):
                if a.feat not in order:
                    continue
                t = game.state.models.get(a.target or "")
                left = (t.wounds - t.damage) if t is not None else 99
                rank = (order.index(a.feat), left, m.id, a.target or "")
                if best is None or rank < best[0]:
                    best = (rank, a)
        return best[1] if best else None

    @staticmethod
    def _starting_choice(game: Game) -> Action:
        """Fortune (p.52): toss when the doubled Ki would not overflow the Ki limit; Oni Rage
        (p.55): become Berserk when the closest enemy is within a Charge (2 x Move)."""
        offered = game.legal_actions()
        first = offered[0]
        if first.kind == "group_fight":  # a Group's exchanges (p.52): in the order offered
            return first
        m = game.state.models[first.model or ""]
        take = False
        if first.kind == "fortune":
            take = m.ki + 2 * m.ki_stat <= m.ki_limit
        elif first.kind == "death_sentence":  # p.43: pay -- the marker gives every enemy +1 Melee, Ranged, damage
            take = True
        elif first.kind in ("oni_rage", "defiance"):  # In Defiance of the Gods: when a fight is near
            table = game.table_now()
            me = table.model(m.id)
            gaps = [math.dist(me.position, table.model(e.id).position) - me.radius - table.model(e.id).radius
                    for e in game.state.alive(3 - m.player)]
            take = bool(gaps) and min(gaps) <= 2 * (me.move or 0)
        want = next((a for a in offered if a.model == m.id and a.kind == first.kind
                     and (a.special is not None) == take), first)
        return want

    def _care(self, game: Game, table, ready) -> Action | None:
        """Jump Up a Prone model that may (p.54); Heal a wounded friend or itself (p.52)."""
        for m in ready:
            for a in game.activation_start_offers(m):
                if a.kind == "jump_up":
                    return a
            heals = [a for a in game.heal_offers(m) if a.target is not None]
            if heals:
                return max(heals, key=lambda a: (game.state.models[a.target or ""].damage, a.target == m.id))
        return None

    def _stand_up(self, game: Game, table, ready) -> Action | None:
        for m in ready:
            if "prone" in m.conditions:
                a = Action("stand_up", m.id)
                if game.is_legal(a)[0]:
                    return a
        return None

    def _rest(self, game: Game, table, ready) -> Action | None:
        order = sorted(ready, key=lambda m: (not any(c in m.conditions for c in WAIT_CLEARS),
                                             not (m.counters >= 2 and m.ki < m.ki_limit), m.id))
        for m in order:
            if any(c in m.conditions for c in WAIT_CLEARS) or m.counters < 2 or m.ki >= m.ki_limit:
                cands = [Action("wait", m.id), Action("focus", m.id)]
            else:
                cands = [Action("focus", m.id), Action("wait", m.id)]
            for a in cands:
                if game.is_legal(a)[0]:
                    return a
        return None
