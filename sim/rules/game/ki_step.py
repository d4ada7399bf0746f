"""Ki in play (p.10, p.46-47): Ki feat actions (Simple, Complex) and Instant/Active
feats, their legality (:func:`sim.rules.ki.can_use`), cost, test and effect, Ki boosts,
and Auras in play.

The generic feats' effects are applied (:attr:`KiStep.AUTOMATED_FEATS`); a card feat is
paid, tested and logged with its text. A mixin of :class:`~sim.rules.game.Game`; the
kinds are registered at the end of the module.
"""

from __future__ import annotations

from sim.rules import conditions, ki, movement
from sim.rules.game.actions import ACTION_KINDS, NO_POINT, Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.feat_step import FeatStep
from sim.rules.game.state import GameError, ModelState


class KiStep(FeatStep):
    """Ki feats and boosts (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Ki feat actions (p.25, p.46)
    def _resolve_ki_feat(self, action: Action) -> None:
        """A Simple or Complex Ki feat action, with its declared Walk before or after."""
        m = self.state.models[action.model]
        table = self._table_now()
        point = action.point
        if action.walk == "before":
            assert point is not None  # judged legal: the declared Walk has a destination
            self._move(m.id, movement.check_walk(table, m.id, [point]))
        self._use_feat(self.state.models[m.id], action)
        if action.walk == "after" and self.state.models[m.id].alive:
            assert point is not None  # judged legal: the declared Walk has a destination
            res = movement.check_walk(self._table_now(), m.id, [point])
            if res.legal:
                self._move(m.id, res)
            else:
                self._emit(Event("note", {"text": "the declared Walk after the feat is no longer legal: no move"}))

    def _legal_instant_feat(self, m: ModelState, action: Action) -> tuple[bool, str]:
        """An Instant or Active feat: no action, no counter (p.46); its model's player must
        be the one to decide now."""
        if m.player != self.to_move():
            return False, f"{m.id}'s player is not the one to decide now"
        return self._feat_legal(m, action)

    def _use_instant_feat(self, action: Action) -> None:
        """An Instant or Active feat: no activation, no counter (p.46)."""
        st = self.state
        ok, why = self.is_legal(action)
        if not ok:
            self._unmark()
            raise GameError(f"{action.feat!r} cannot be used now: {why}")
        if self.feat_target_window(action):  # an enemy feat answers it first (feat_interrupts, round 6 F3)
            return
        self._emit(Event("note", {"text": f"player {st.models[action.model].player}: "
                                          f"{action.model} uses {action.feat}"}))
        self._use_feat(st.models[action.model], action)
        self.trigger_done(action.model or "", action.feat or "")  # a triggered feat's mark (feat_triggers)
        self._after_action()

    # ------------------------------------------------------------ feats and boosts
    def feat_actions(self, mid: str) -> list[Action]:
        """The automated Ki feats model ``mid`` may use now (p.46-47), with their targets
        in range: its catalogue feats whose data entry the engine applies
        (:meth:`~sim.rules.game.feat_step.FeatStep.card_feat_offers`; ``exchange`` feats
        only in its melee exchange before it allocates), and the generic feats
        (:data:`AUTOMATED_FEATS`, outside exchanges): Target feats at enemies (Spirit Bolt,
        Mind Clash), Inner Calm only when Stunned, Warding Presence with a friend in its
        Aura, Shockwave with X = 1 when an enemy stands in its Pulse."""
        m = self.state.models[mid]
        out: list[Action] = []
        for f in self.feats(m.id).values():  # catalogue feats with a data entry (sim.rules.game.feat_step)
            if f.name not in self.AUTOMATED_FEATS:
                out.extend(a for a in self.card_feat_offers(m, f) if self.is_legal(a)[0])
        feats = {k: f for k, f in self.feats(m.id).items() if k in self.AUTOMATED_FEATS}
        if not feats or self.state.exchange is not None:
            return out
        scene = self._table_now().scene()
        for f in feats.values():
            kind = f.action_kind or "feat"
            if kind == "complex_ki_feat" and m.counters < 2:
                continue
            if f.area == "target":
                cands = [Action(kind, m.id, feat=f.name, target=e.id) for e in self.state.alive(3 - m.player)
                         if scene.distance(m.id, e.id) <= f.reach + 1e-6]
            elif f.name == "Inner Calm":
                cands = [Action(kind, m.id, feat=f.name)] if "stunned" in m.conditions else []
            elif f.area == "aura":
                friends = [x for x in self.state.alive(m.player)
                           if x.id != m.id and scene.distance(m.id, x.id) <= f.reach]
                cands = [Action(kind, m.id, feat=f.name)] if friends else []
            elif f.area == "pulse":
                foes = [e for e in self.state.alive(3 - m.player) if scene.distance(m.id, e.id) <= f.reach + 1e-6]
                cands = [Action(kind, m.id, feat=f.name, x=1 if f.variable else None)] if foes else []
            else:
                cands = [Action(kind, m.id, feat=f.name)]
            out.extend(a for a in cands if self.is_legal(a)[0])
        return out

    def ki_boost(self, action: Action):
        """The Ki boost ``action`` buys (p.10, p.47; :func:`sim.rules.ki.boost_stat`):
        ``(stat, Boost)``, or None when it buys none.

        Raises:
            KiError: it may not (no boost value on the card, above twice the base, not
                enough Ki, Surprised or Controlled).
        """
        m = self.state.models[action.model]
        if not action.boost:
            return None
        kind = ACTION_KINDS.get(action.kind)
        stat = kind.boost if kind is not None else None
        if stat is None:
            raise ki.KiError(f"{action.kind} takes no Ki boost")
        prof = self.profile(m.id)
        base = {"move": getattr(prof, "move", None), "ranged": getattr(prof, "ranged", None),
                "melee": getattr(prof, "melee", None), "ki": m.ki_stat}[stat]
        cost = prof.boost(stat) if prof is not None else None
        b = ki.boost_stat(base, action.boost, boost=cost, ki_available=m.ki, phase=self.state.phase,
                          surprised="surprised" in m.conditions, conditions=conditions.from_model(m),
                          cost_modifier=self.feat_cost_modifier(m.id, boost=True))  # Believer, Disturb Flow
        return stat, b

    def _feat_legal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        """May ``m`` use the feat of ``action`` now (:func:`sim.rules.ki.can_use`)?"""
        f = self.feats(m.id).get(action.feat or "")
        if f is None:
            known = ", ".join(self.feats(m.id)) or "none"
            return False, f"{m.id} has no Ki feat {action.feat!r} (has: {known})"
        want = f.action_kind or "feat"
        if action.kind != want:
            return False, f"{f.name} is a {f.timing.title()} feat: declare it as {want!r}"
        why_not = (self.card_feat_refusal(m, f, action)  # the data entry's when / affects
                   or self.feat_ban_refusal(m, f))  # round 6 (F5): a feat barred for a while (feat_cards)
        if why_not:
            return False, why_not
        if action.walk is not None and action.kind == "feat":
            return False, "only Simple and Complex Ki feat actions include a walk (p.25)"
        st = self.state
        table = self._table_now()
        scene = table.scene()
        in_btb = any(scene.distance(m.id, e.id) <= movement.CONTACT + 1e-9 for e in st.alive(3 - m.player))
        dist = None
        if f.area == "target":
            t = st.models.get(action.target or "")
            if t is None or not t.alive:
                return False, f"{f.name} needs a target model on the table"
            dist = self.feat_distance(scene, m.id, t.id, not f.range) if t.id != m.id else 0.0  # F6
            req = self._disguise(m, t.id)
            if req and req[0] == "forbidden":
                return False, f"{t.id} is Disguised and {m.id}'s Ki is 1 or less (p.44)"
            why = self.target_refusal(m.id, action.kind, t.id)  # Camouflage (p.50)
            if why:
                return False, why
        usage = st.feat_usage.get(m.id, {"turn": [], "game": []})
        own = self.own_activation_trigger(m.id, f.name)  # an Active feat its own action opened (feat_triggers)
        spent = 0
        try:
            b = self.ki_boost(action)
            spent = b[1].cost if b else 0
        except ki.KiError as exc:
            return False, str(exc)
        ok, reasons = ki.can_use(f, m, in_btb=in_btb, moved_this_activation=action.walk is not None,
                                 used_this_turn=f.name in usage["turn"], used_this_game=f.name in usage["game"],
                                 used_this_activation=any(e.get("source") == f"once per activation: {f.name}"
                                                          for e in m.effects),
                                 ki_available=m.ki - spent - (1 if m.kami else 0),  # Kami: never its last Ki (p.54)
                                 phase=st.phase,
                                 is_active_model=(m.player == st.active and st.exchange is None)
                                 or own,
                                 controller_is_active=m.player == st.active or own,
                                 target_distance=dist, surprised="surprised" in m.conditions, x=action.x,
                                 strict_range=False, cost_modifier=self.feat_cost_modifier(m.id))
        if not ok:
            return False, "; ".join(reasons)
        if action.walk is not None:
            if action.walk not in ("before", "after"):
                return False, f"walk must be 'before' or 'after', not {action.walk!r}"
            if action.point is None:
                return False, "the declared Walk: " + NO_POINT
            res = movement.check_walk(table, m.id, [action.point])
            if not res.legal:
                return False, "the declared Walk: " + "; ".join(r.message for r in res.reasons)
        return True, ""

    #: Feats whose effect the engine applies (the generic feats); other feats are paid,
    #: tested and logged with their card text.
    AUTOMATED_FEATS = ("Inner Calm", "Spirit Bolt", "Mind Clash", "Warding Presence", "Shockwave", "Puppet Strings")

    def _use_feat(self, m: ModelState, action: Action) -> None:
        """Pay, test and apply a Ki feat (p.46-47)."""
        assert action.feat is not None  # judged legal: it names a feat of the model
        f = self.feats(m.id)[action.feat]
        target = action.target
        st = self.state
        b = self.ki_boost(action)
        if b:
            self._emit(Event("boost", {"model": m.id, "stat": b[0], "steps": action.boost, "cost": b[1].cost}))
        cost = ki.feat_cost(f, x=action.x, modifier=self.feat_cost_modifier(m.id))  # Believer, Disturb Flow
        self._emit(Event("feat_used", {"model": m.id, "feat": f.name, "cost": cost, "target": action.target,
                                       "once_per_turn": f.once_per_turn, "once_per_game": f.once_per_game}))
        self.feat_use_reactions(m.id, f.name)  # round 6 (F5): reactions to a feat used (feat_cards)
        if f.once_per_activation:  # OpA: marked on the model until its activation ends
            self.grant(m.id, f"once per activation: {f.name}", "activation")
        scene = self._table_now().scene()
        if f.area == "target":
            assert target is not None  # judged legal: a Target feat names a model on the table
            d = self.feat_distance(scene, m.id, target, not f.range) if target != m.id else 0.0  # F6
            if not ki.in_target_range(f, d):
                self._emit(Event("note", {"text": f"{target} is {d:.2f}\" away, beyond {f.range:g}\": "
                                                  f"{f.name} fails and its Ki is lost (p.47)"}))
                return
            req = self._disguise(m, target)
            if req and req[0] == "ki_test" and not self._disguise_test(m, target, req[1]):
                return
        if f.area == "aura":
            self._emit(Event("aura", {"feat": f.name, "source": m.id, "player": m.player}))
            if f.name in self.AUTOMATED_FEATS:
                return
        # the feat's test with the models' traits (Spirit, Willpower, Resistance, Mettle,
        # Overwhelm, Mantra, Soulless: sim.rules.game.rolls_step)
        f = self.feat_as_tested(m, f, action.target)  # opposed: enemy -- no test at a friend (feat_step)
        res = self._feat_test(m.id, f, action.target, action.boost or 0)
        self.__dict__["_f4_sl"] = getattr(res.result, "success_level", 0) if f.opposed else 0  # F4: sl_markers
        if res.result is not None or res.automatic:
            self._emit(Event("test", {"model": m.id, "test": "ki", "passed": res.passed,
                                      "text": f"{f.name}: {'opposed ' if f.opposed else ''}Ki test{res.why()} "
                                              f"{'succeeds' if res.passed else 'fails'}"}))
        if not res.passed:
            return
        if f.name in ("Spirit Bolt", "Mind Clash", "Puppet Strings"):  # Target feats
            assert target is not None  # judged legal: the target is a model on the table
            if f.name == "Spirit Bolt":
                self._wound(target, 1)
            elif f.name == "Mind Clash":
                self._gain(target, "stunned")
            else:
                self._gain(target, "controlled")
                self._emit(Event("note", {"text": f"{target} now fights for player {st.models[target].player}"}))
        elif f.name == "Inner Calm":
            self._set_conditions(m.id, conditions.remove_condition(conditions.from_model(m), "stunned", 1))
        elif f.name == "Shockwave":
            others = [x.id for x in st.alive() if x.id != m.id]
            for mid in ki.targets_in_area(scene, m.id, f, others):
                if mid != m.id:
                    self._gain(mid, "stunned", int(action.x or 1))
        else:  # a catalogue feat: its data entry's operations, or a manual step
            self._apply_card_feat(self.state.models[m.id], f, action)

    def _aura_modifiers(self, mid: str) -> tuple[tuple[str, int], ...]:
        """Melee pool modifiers from Auras in play (Warding Presence: +1 to friends inside)."""
        out = []
        st = self.state
        if not st.auras:
            return ()
        scene = self._table_now().scene()
        me = st.models[mid]
        for a in st.auras:
            src = st.models.get(a["source"])
            if a["feat"] != "Warding Presence" or src is None or not src.alive or a["player"] != me.player:
                continue
            f = self.feats(src.id).get(a["feat"])
            if f is not None and (mid == src.id or scene.distance(src.id, mid) <= f.reach + 1e-6):
                out.append((f"{a['feat']} ({src.id})", +1))
        return tuple(out)

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("ki_feat", _feat_legal, _resolve_ki_feat),
        ActionKind("complex_ki_feat", _feat_legal, _resolve_ki_feat),
        ActionKind("feat", _legal_instant_feat, _use_instant_feat),
    )
