"""The actions offered to the player to move (p.24-26): a finite sample of the legal
actions (:meth:`Offers.legal_actions`; Walk and Run points in 8 directions at full and
half Move) and a random legal action for the random bot.

A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

import math

from sim.rules import movement
from sim.rules.game import card_wait, melee_traits, wait_options, weapon_specials
from sim.rules.game.actions import Action
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState


class Offers(GamePart):
    """The legal actions offered now (a mixin of :class:`~sim.rules.game.Game`)."""

    def legal_actions(self, samples: int = 8) -> list[Action]:
        """The legal actions of the active player now.

        Continuous choices (where to Walk or Run) are offered as a finite sample: up to
        ``samples`` directions at full and half Move, each checked by the movement
        service; :meth:`is_legal` judges any other action. Pass is offered while the
        player has pass tokens. While Flank models wait to arrive (the Starting phase of
        their turn, p.52), only their arrivals (:meth:`arrival_actions`).
        """
        st = self.state
        if self.is_over() or st.active is None:
            return []
        if self.damage_offers_pending():  # Sacrifice / Protected: before a damage roll (p.56-57)
            return self.answer_actions()
        if st.exchange is not None:  # the next model's allocations, and its exchange Ki feats (p.33 step 4)
            alloc = self._allocation_actions()
            return alloc + (self.feat_actions(alloc[0].model) if alloc and alloc[0].model else [])
        if st.interception is not None:
            return [Action("intercept")] + [Action("intercept", target=c) for c in st.interception["candidates"]]
        if self.answers_pending():  # Bodyguard: the target's player answers (p.49)
            return self.answer_actions()
        if self.triggers_pending():  # a triggered Ki feat waits for its player (p.46)
            return self.trigger_actions()
        if self.starting_choices_pending():  # the Starting phase waits for Fortune / Oni Rage (p.52, p.55)
            return self.starting_choice_actions()
        if self.intimidate_pending():  # the Starting phase waits for Intimidate choices (p.54)
            return self.intimidate_actions()
        if st.due_arrivals():  # the Starting phase waits for the Flank arrivals (p.52)
            return self.arrival_actions()
        p = st.active
        out: list[Action] = []
        table = self._table_now()
        for m in st.alive(p):
            if m.exhausted or st.impetuous_blocks(m) or self._start_lock(m):
                continue
            out.extend(self.activation_start_offers(m))  # Jump Up, Cultist (p.50, p.54)
            if "prone" in m.conditions:  # Prone: Stand Up is its only action (p.44), then an
                foes = self.enemies_in_contact(m.id)  # exchange with an enemy in contact (p.25)
                out.extend([Action("stand_up", m.id, target=e) for e in foes] if len(foes) > 1
                           else [Action("stand_up", m.id)])
                continue
            if "berserk" in m.conditions:
                kind, target, pt = self.berserk_forced(m.id)
                if kind is not None:
                    a = Action(kind, m.id, target=target if kind != "run" else None, point=pt)
                    if self.is_legal(a)[0]:
                        out.append(a)
                        continue
            if "held" in m.conditions:
                for e in st.alive(3 - p):
                    a = Action("disengage", m.id, target=e.id)
                    if self.is_legal(a)[0]:
                        out.append(a)
                out.extend(self.feat_actions(m.id))
                continue
            out.extend(self.feat_actions(m.id))
            out.extend(self.scenario_actions(m.id))
            out.extend(self.heal_offers(m))  # Heal (X) (p.52)
            out.append(Action("wait", m.id))
            out += wait_options.wait_offers(self, m)  # Destructible terrain (p.16), a friend's Fire (p.44)
            out += card_wait.wait_choice_offers(self, m)  # the card's Wait effects, each own-marker option (p.25)
            if m.counters >= 2:
                out.append(Action("focus", m.id))
            try:
                mover = movement.Mover(table, m.id)
            except movement.MoveError:
                continue
            for i in range(samples):
                ang = 2 * math.pi * i / samples
                for frac in (1.0, 0.5):
                    d = mover.move * frac
                    pt = (m.position[0] + d * math.cos(ang), m.position[1] + d * math.sin(ang))
                    if movement.check_walk(table, m.id, [pt]).legal:
                        out.append(Action("walk", m.id, point=pt))
                    rp = (m.position[0] + 1.5 * d * math.cos(ang), m.position[1] + 1.5 * d * math.sin(ang))
                    if frac == 1.0 and movement.check_run(table, m.id, rp).legal:
                        out.append(Action("run", m.id, point=rp))
            if m.counters >= self.action_counters(Action("charge", m.id)):  # Banzai! (p.49)
                for e in self.charge_candidates(m.id):
                    res = self.charge(m.id, e.id)
                    if res.legal and res.reached:
                        out.append(Action("charge", m.id, target=e.id))
            out += melee_traits.split_offers(self, m.id)  # Split Attack (p.58)
            for e in st.alive(3 - p):
                tm, te = table.model(m.id), table.model(e.id)
                if math.dist(tm.position, te.position) - tm.radius - te.radius <= (tm.move or 0) + 1e-9:
                    if self.is_legal(Action("melee", m.id, target=e.id))[0] and self.melee_fallback(m.id, e.id) is None:
                        out.append(Action("melee", m.id, target=e.id))  # (a fallback is the Melee at the first, p.24)
                if self.ranged_weapon(m.id, None) is not None and self._can_shoot(m.id, e.id, None)[0]:
                    out.append(Action("shoot", m.id, target=e.id))
                    out += weapon_specials.shoot_special_offers(self, m.id, e.id, self._can_shoot)  # p.39
                if math.dist(tm.position, te.position) - tm.radius - te.radius <= movement.CONTACT + 1e-9:
                    if self.is_legal(Action("disengage", m.id, target=e.id))[0]:
                        out.append(Action("disengage", m.id, target=e.id))
        out = [a for a in out if a.model is None  # Slow, Stupid, Insignificant, Agile in contact (p.48-58)
               or not (self.trait_refusal(a.model, a.kind) or self.agile_refusal(a.model, a)
                       or self.contact_refusal(a.model, a)  # No BtB in contact (p.24)
                       or self.order_action_refusal(a.model, a)  # a Ki feat limits its action (feat_order)
                       or self.forbid_refusal(a.model, a))]  # round 6 (F5): a Ki feat forbids it (feat_cards)
        out += self.order_offers(p)  # a Ki feat forces a Walk (feat_order)
        out = self._support_offers(out)  # Leech, Channel, Virtue, Order, Command (p.50-59)
        out += self.orochi_offers(p)  # Blood of Orochi: tokens given again before the first activation (p.49)
        out += self.tactical_offers(p)  # the Tactical test's winner may let the other player act first (p.29)
        out = [a for a in out if a.model is None or not self.target_refusal(a.model, a.kind, a.target)]  # Camouflage
        out = [a for a in out if a.model is None or not self.pack_refusal(a.model, a)]  # Pack: one target (p.55)
        out += self.pack_offers(out)  # Pack (X/Y): friends activate with it (p.55)
        if st.pass_tokens.get(p, 0) > 0 and not self.player_lock(p):  # a feat may forbid it (feat_order)
            out.append(Action("pass"))
        if not out:  # a model must activate but can declare nothing legal (e.g. Held and
            # Aggressive): its declared Wait is refused and costs one counter (p.24)
            ready = [m for m in st.alive(p) if not m.exhausted and not st.impetuous_blocks(m)]
            if ready:
                out.append(Action("wait", ready[0].id))
        return out

    def charge_candidates(self, mid: str) -> list[ModelState]:
        """The enemies a Charge of model ``mid`` could reach at all (p.24): base edges
        within 2 x Move + 2" (the bonus of Ideal terrain) now."""
        m = self.state.models[mid]
        table = self._table_now()
        tm = table.model(m.id)
        reach = 2 * (tm.move or 0) + movement.IDEAL_BONUS
        out = []
        for e in self.state.alive(3 - m.player):
            te = table.model(e.id)
            if math.dist(tm.position, te.position) - tm.radius - te.radius <= reach + 1e-9:
                out.append(e)
        return out

    def random_action(self, rng, tries: int = 12) -> Action:
        """A random legal action of the active player (for the random bot): a random
        model that can act, a random kind, random geometry, checked by :meth:`is_legal`;
        Wait when nothing else is found."""
        st = self.state
        if (st.exchange is not None or st.interception is not None or st.due_arrivals() or self.commanded()
                or self.triggers_pending() or self.answers_pending()
                or self.intimidate_pending() or self.starting_choices_pending()):
            return rng.choice(self.legal_actions())
        p = st.active
        ready = [m for m in st.alive(p) if not m.exhausted and not self.activation_lock(m.id)]  # Group, Jump Up
        if st.pass_tokens.get(p, 0) > 0 and rng.random() < 0.1 and self.is_legal(Action("pass"))[0]:
            return Action("pass")
        m = rng.choice(ready)
        if "prone" in m.conditions:
            return Action("stand_up", m.id)
        table = self._table_now()
        move = table.model(m.id).move or 0
        if "berserk" in m.conditions or "held" in m.conditions or st.impetuous_blocks(m):
            forced = [a for a in self.legal_actions() if a.model == m.id] or self.legal_actions()
            return rng.choice(forced) if forced else Action("pass")
        if rng.random() < 0.15:
            feats = self.feat_actions(m.id)
            if feats:
                return rng.choice(feats)
        if self.scenario is not None and rng.random() < 0.6:
            acts = self.scenario_actions(m.id)
            if acts:
                return rng.choice(acts)
        for _ in range(tries):
            kind = rng.choice(["walk", "walk", "run", "charge", "melee", "shoot", "focus", "wait"])
            if kind in ("melee", "shoot"):
                assert p is not None  # a player is active
                foes = st.alive(3 - p)
                if not foes:
                    continue
                a = Action(kind, m.id, target=min(foes, key=lambda e: math.dist(e.position, m.position)).id)
            elif kind == "charge":
                cands = self.charge_candidates(m.id)
                if not cands or m.counters < 2:
                    continue
                a = Action("charge", m.id, target=rng.choice(cands).id)
            elif kind in ("walk", "run"):
                ang = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.3, 1.0) * move * (1.5 if kind == "run" else 1.0)
                a = Action(kind, m.id, point=(m.position[0] + d * math.cos(ang), m.position[1] + d * math.sin(ang)))
            else:
                a = Action(kind, m.id)
            ok, _ = self.is_legal(a)
            if ok and (kind != "charge" or a.target is not None and self.charge(m.id, a.target).reached):
                return a
        return Action("wait", m.id)
