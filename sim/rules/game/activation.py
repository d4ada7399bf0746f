"""Declaring and resolving an activation (p.24) and the conditions that act on it
(p.29, p.31, p.43-45).

Every declared action passes the same checks (:meth:`Activation._declaring_refusal`:
counters, Impetuous, the conditions that forbid actions, Berserk's forced target,
Disguised targets, Ki boosts); between declaring and resolving come the Disguised marker
and test, the Immobilised Size test, Surprised and the boost's Ki
(:meth:`Activation._before_resolve`); after every action Surprised ends and Held is
checked (:meth:`Activation._after_action`). A mixin of :class:`~sim.rules.game.Game`.
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace

from sim.rules import conditions, movement, trait_actions
from sim.rules.dice import RollKind, RollPurpose
from sim.rules.game import weapon_specials
from sim.rules.game.actions import ACTION_KINDS, Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState
from sim.rules.ki import KiError
from sim.rules.test_traits import trait_number
from sim.table import Table


class Activation(GamePart):
    """Declaring and resolving an activation (a mixin of :class:`~sim.rules.game.Game`)."""

    def _declaring_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why ``m`` may not declare ``action`` now, whatever its kind (p.24, p.43-45), or
        None: no exchange waits, ``m`` is the active player's and has the counters, no
        Impetuous model stops it, its conditions allow the action (Berserk: at the closest
        enemy), a Disguised target can be attacked, and its Ki boost is allowed."""
        st = self.state
        if st.exchange is not None:
            return "a melee exchange is waiting for allocations"
        if m.player != st.active:
            return f"{m.id} is not the active player's model"
        if m.exhausted:
            return f"{m.id} is Exhausted (no activation counters)"
        if self.action_counters(action) > m.counters:  # Banzai!: a Simple Charge (p.49)
            return f"{action.kind} is a complex action and {m.id} has only one counter"
        if st.impetuous_blocks(m):
            return "Impetuous: a model of the warband has an Impetuous marker, so only such models activate (p.44)"
        why = self._start_lock(m)  # another model's activation started with Jump Up / Cultist (p.50, p.54)
        if why:
            return why
        forced = self.berserk_forced(m.id) if "berserk" in m.conditions else (None, None, None)
        why = conditions.forbidden_reason(action.kind, conditions.from_model(m),
                                          counters=m.counters + action.counters - self.action_counters(action),
                                          weapon_has_reload=self._reload_weapon(m.id, action),
                                          contacts_fear_enemy=(action.kind in ("melee", "charge")
                                                               and self._fear_enemy(action.target)),
                                          berserk_forced=forced[0])
        if why:
            return why
        why = (self.trait_refusal(m.id, action.kind) or self.agile_refusal(m.id, action)  # p.48, p.54, p.58
               or self.contact_refusal(m.id, action)  # No BtB actions in contact (p.24)
               or weapon_specials.web_refusal(self, m.id, action)  # Web Defence (catalogue special)
               or self.order_action_refusal(m.id, action))  # a Ki feat limits or forces its action (feat_order)
        why = why or self.pack_refusal(m.id, action)  # Pack: one target for the pack (p.55, answer_traits)
        why = why or self.forbid_refusal(m.id, action)  # round 6 (F5): a Ki feat forbids the action (feat_cards)
        if why:
            return why
        if forced[0] in ("melee", "charge") and action.target != forced[1]:
            return f"Berserk: it must attack the closest enemy, {forced[1]} (p.43)"
        if action.kind in ("melee", "charge", "shoot"):
            req = self._disguise(m, action.target)
            if req and req[0] == "forbidden":
                return f"{action.target} is Disguised and {m.id}'s Ki is 1 or less (p.44)"
            why = self.target_refusal(m.id, action.kind, action.target)  # Camouflage (p.50)
            if why:
                return why
        if action.boost:
            try:
                self.ki_boost(action)
            except KiError as exc:
                return str(exc)
        return None

    def trait_refusal(self, mid: str, kind: str) -> str | None:
        """Why model ``mid``'s traits forbid declaring an action of ``kind`` (Slow: no
        Run or Charge; Stupid: no Wait, Disengage, Scenario or Complex action;
        Insignificant: no Scenario action; :func:`sim.rules.trait_actions.trait_refusal`),
        or None."""
        return trait_actions.trait_refusal(kind, lambda key: bool(self._trait(mid, key)[0]))

    #: What an Agile model in contact may declare and stay in contact (p.48).
    AGILE_IN_CONTACT = frozenset({"disengage", "melee", "stand_up", "ki_feat", "complex_ki_feat"})

    def agile_refusal(self, mid: str, action: Action) -> str | None:
        """Agile (p.48): "Если не объявляет Выход из боя, Умение Ки, применимое в рукопашной,
        Вставание или Рукопашный бой - она должна выйти из контакта со всеми вражескими
        моделями, с которыми находится в контакте." Why an Agile model in contact with
        enemies may not declare ``action``: a Walk, Run or Charge that ends in contact
        with one of them, a Shoot without a Walk before it out of contact, or an action
        without a move (Wait, Focus, Scenario); None otherwise (or not Agile, or in contact
        with no enemy). (Ki feats that may not be used in contact are refused by their No
        BtB icon, p.46.)"""
        if action.kind in self.AGILE_IN_CONTACT or not self._trait(mid, "agile")[0]:
            return None
        foes = self.enemies_in_contact(mid)
        if not foes:
            return None
        why = f"Agile: in contact with {', '.join(foes)}, it must leave contact with every enemy (p.48)"
        end = None
        if action.kind in ("walk", "run") or (action.kind == "shoot" and action.walk == "before"):
            end = action.path[-1] if action.path else action.point
        elif action.kind == "charge" and action.target is not None:
            try:
                res = self.charge(mid, action.target, boost=action.boost or 0)
            except movement.MoveError:
                return None  # the Charge's own check says why
            return why if res.legal and set(res.contacts) & set(foes) else None  # (else its own check says why)
        if end is None:
            return why
        table = self._table_now()
        me = table.model(mid)
        for e in foes:
            te = table.model(e)
            if math.dist(end, te.position) - me.radius - te.radius <= movement.CONTACT + 1e-9:
                return why
        return None

    #: Standard actions a model in base contact with an enemy may not declare (the No BtB
    #: icon, p.24: "Модели в контакте с вражеской моделью не могут объявлять Действия или
    #: Умения Ки со значком"); Walk and Run are judged by their moves (no leaving contact),
    #: Shoot and the Scenario actions by their own rules (p.25).
    NO_BTB_ACTIONS = frozenset({"charge", "wait", "focus"})

    def contact_refusal(self, mid: str, action: Action) -> str | None:
        """Why model ``mid`` may not declare ``action`` because it is in base contact with an
        enemy (p.24), or None. In contact a model declares Melee, Disengage, Stand Up or a
        Ki feat usable in contact (the list Agile names, p.48: "Если не объявляет Выход из
        боя, Умение Ки, применимое в рукопашной, Вставание или Рукопашный бой"); Charge,
        Wait and Focus carry the No BtB icon (a reading of the audit A1: catalogue
        cards grant "may declare a Charge Action while in BtB" and "may declare Wait Actions
        while in BtB" as exceptions). An Agile model ignores enemies in contact when it
        declares (p.48, :meth:`agile_refusal`)."""
        if action.kind not in self.NO_BTB_ACTIONS or self._trait(mid, "agile")[0]:
            return None
        foes = self.enemies_in_contact(mid)
        if not foes:
            return None
        return (f"{mid} is in base contact with enemy {', '.join(foes)}: {action.kind.replace('_', ' ').title()} "
                "may not be declared in contact (No BtB, p.24); Melee, Disengage, Stand Up or a Ki feat may")

    def illegal_declaration_cost(self, mid: str) -> int:
        """The activation counters model ``mid`` loses for a declared action that is
        illegal (p.24): one ("Затем она теряет один счетчик активации, даже если заявленное
        действие было Сложным"), or all of them when it can declare no legal action at
        all ("Если выбранная для активации модель не может легально объявить какие-либо
        действия ..., тогда она немедленно становится Изнурённой"). "Any action" is judged
        on the actions :meth:`legal_actions` offers this model (a finite sample)."""
        m = self.state.models[mid]
        if any(a.model == mid and self.is_legal(a)[0] for a in self.legal_actions()):
            return 1
        return max(1, m.counters)

    def _before_resolve(self, m: ModelState, action: Action) -> bool:
        """What happens between declaring and resolving an action: Disguised markers lost
        or seen through, the Immobilised Size test, Ki boosts paid. False: the action ends
        as completed without effect (a failed test, p.44)."""
        if "disguised" in m.conditions and conditions.disguise_lost_by(action.kind):
            self._emit(Event("condition", {"model": m.id, "name": "disguised", "on": False}))
        if action.kind in ("melee", "charge", "shoot") and action.target is not None:
            req = self._disguise(m, action.target)
            if req and req[0] == "ki_test" and not self._disguise_test(m, action.target, req[1]):
                return False
        if not self._immobilised_test(m, action):
            return False
        if self.bodyguard_window(m.id, action):  # Bodyguard [K] (p.49): the target's player answers first
            return False
        if self.targeted_window(m.id, action):  # a trigger:targeted Ki feat answers first (feat_triggers)
            return False
        if self.trap_window(m.id, action):  # round 6 (F4): a Trap feat answers a declared move (feat_rolls)
            return False
        self._declared_go(m, action)
        return True

    def _declared_go(self, m: ModelState, action: Action) -> None:
        """The last steps before a declared action resolves: the target it Surprises (p.31)
        and the Ki of its boost (p.10)."""
        surprised = self.surprised_target(action)
        if surprised:
            self._emit(Event("condition", {"model": surprised, "name": "surprised", "on": True}))
            self._emit(Event("note", {"text": f"{surprised} is Surprised: it never saw {m.id} coming (p.31)"}))
        if action.boost and action.kind not in ("ki_feat", "complex_ki_feat"):  # a feat pays its own
            bought = self.ki_boost(action)
            assert bought is not None  # a boost was declared and judged legal
            stat, b = bought
            self._emit(Event("boost", {"model": m.id, "stat": stat, "steps": action.boost, "cost": b.cost}))

    def _after_action(self) -> None:
        """Checks after every action: Surprised ends with the action (an exchange ends it
        when it resolves); Held ends out of BtB with the holder (p.44)."""
        if self.state.exchange is None and self.state.interception is None:
            if self.group_fights():  # a Group's held-back exchanges keep it on their targets (p.52)
                self._end_group_surprise()
            else:
                self._end_surprise()
        if any("held" in x.conditions for x in self.state.alive()):
            self._release_held()
        self._zero_wound_checks()  # Rise, Last Stand (p.54, p.57)
        self._end_activation_marks()  # Jump Up / Cultist started the activation (p.50, p.54)

    def _resolve(self, action: Action) -> None:
        """Resolve a declared, legal action by its kind (:data:`ACTION_KINDS`)."""
        ACTION_KINDS[action.kind].resolve(self, action)

    def berserk_forced(self, mid: str) -> tuple[str | None, str | None, tuple | None]:
        """The action a Berserk model must declare (p.43, :func:`~sim.rules.conditions.berserk_action`):
        ``(kind, closest enemy, run point)``; ``(None, None, None)`` when any action will do."""
        m = self.state.models[mid]
        e = self._closest_enemy(m)
        if e is None:
            return None, None, None
        key = (len(self.events), "berserk", mid)
        if key in self._memo:
            return self._memo[key]
        try:
            melee_ok = self._melee_move(mid, e.id).legal
        except movement.MoveError:
            melee_ok = False
        charge_ok = False
        charge_counters = m.counters + 2 - self.action_counters(Action("charge", mid))  # Banzai! (p.49)
        if charge_counters >= 2 and not melee_ok:
            try:
                res = self.charge(mid, e.id)
                charge_ok = bool(res.legal and res.reached)
            except movement.MoveError:
                pass
        run_pt = None
        if not melee_ok and not charge_ok:
            table = self._table_now()
            tm, te = table.model(mid), table.model(e.id)
            dx, dy = te.position[0] - tm.position[0], te.position[1] - tm.position[1]
            d = math.hypot(dx, dy) or 1.0
            full = 1.5 * (tm.move or 0)
            for frac in (1.0, 0.8, 0.6, 0.4, 0.2):
                step = min(full * frac, max(0.0, d - tm.radius - te.radius - 1.05))
                if step <= 0.05:
                    break
                pt = (tm.position[0] + dx / d * step, tm.position[1] + dy / d * step)
                if movement.check_run(table, mid, pt).legal:
                    run_pt = pt
                    break
        kind = conditions.berserk_action(melee_reachable=melee_ok, counters=charge_counters, charge_reachable=charge_ok,
                                         can_run=run_pt is not None)
        out = (kind, e.id if kind else None, run_pt if kind == "run" else None)
        self._memo[key] = out
        return out

    def _closest_enemy(self, m: ModelState):
        table = self._table_now()
        tm = table.model(m.id)
        foes = self.state.alive(3 - m.player)
        if not foes:
            return None
        return min(foes, key=lambda e: (math.dist(tm.position, table.model(e.id).position) - tm.radius
                                        - table.model(e.id).radius, e.id))

    def _fear_enemy(self, target: str | None) -> bool:
        if not target:
            return False
        return self._trait(target, "fear")[0]

    def _disguise(self, m: ModelState, target: str | None):
        """Disguised (p.44): ``("forbidden", X)``, ``("ki_test", X)`` or None for ``m``
        targeting ``target``."""
        if not target or target not in self.state.models:
            return None
        t = self.state.models[target]
        if t.player == m.player:
            return None
        # Spirit (X) changes the Ki of a model targeting or contacting a Disguised one (p.58)
        spirit = self._trait(m.id, "spirit")
        ki_now = m.ki_stat + (trait_number(spirit[1]) if spirit[0] else 0)
        return conditions.disguise_requirement(conditions.from_model(t), ki_now)

    def _disguise_test(self, m: ModelState, target: str, x: int) -> bool:
        """The Ki (X) challenge test to act against a Disguised model (p.44). A pass removes
        the target's Disguised marker; a failure ends the activation (counters spent)."""
        # a Ki test: Spirit and Soulless act (p.58, sim.rules.game.rolls_step)
        res = self._ki_challenge(m.id, x, RollPurpose(RollKind.DISGUISED, m.id, target, f"Ki ({x})"))
        self._emit(Event("test", {"model": m.id, "test": "disguise", "tn": x, "passed": res.passed,
                                  "text": f"{m.id} takes a Ki ({x}) test{res.why()} to see through {target}'s "
                                          f"disguise and {'passes' if res.passed else 'fails: its activation ends'}"}))
        if res.passed:
            self._emit(Event("condition", {"model": target, "name": "disguised", "on": False}))
        return res.passed

    def _immobilised_test(self, m: ModelState, action: Action) -> bool:
        """An Immobilised model's Size (6) test before a moving action (p.44). True: go on
        (all Immobilised markers removed); False: the action ends as completed."""
        moves = action.walk is not None or action.kind in ("walk", "disengage") or action.facing is not None
        if not conditions.immobilised_test_needed(conditions.from_model(m), action.kind, moves=moves):
            return True
        # Strong +1 die, Weak and Swarm -1 die (p.28, sim.rules.game.rolls_step)
        res = self._size_roll(m.id, conditions.IMMOBILISED_SIZE_TN, RollPurpose(RollKind.IMMOBILISED, m.id))
        self._emit(Event("test", {"model": m.id, "test": "size", "tn": conditions.IMMOBILISED_SIZE_TN,
                                  "passed": res.passed,
                                  "text": f"{m.id} is Immobilised: Size (6) test{res.why()} "
                                          + ("passed, the markers are removed" if res.passed
                                             else "failed: the action ends")}))
        if res.passed:
            self._emit(Event("condition", {"model": m.id, "name": "immobilised", "on": False}))
        return res.passed

    #: Step along a move at which the target's LoS to the moving model is checked
    #: (Surprised, p.31): every check is exact; the sampling is along the path only.
    SURPRISE_STEP = 0.1

    def surprised_target(self, action: Action) -> str | None:
        """The enemy ``action`` Surprises (p.31, p.36, p.47), or None: the active model
        started the activation out of contact with it and out of its LoS, stayed out of its
        LoS while it moved, and now comes into contact with it or targets it. Sixth Sense
        models are never Surprised. Along the move the target's LoS is checked exactly at
        the start, at every vertex and every :attr:`SURPRISE_STEP` inches, and at the end."""
        if action.kind not in ("charge", "melee", "shoot", "ki_feat", "complex_ki_feat"):
            return None
        m = self.state.models[action.model]
        t = self.state.models.get(action.target or "")
        if t is None or not t.alive or t.player == m.player or self._trait(t.id, "sixth_sense")[0]:
            return None
        table = self._table_now()
        scene = table.scene()
        if scene.distance(m.id, t.id) <= movement.CONTACT + 1e-9 or scene.los(t.id, m.id).visible:
            return None
        path: list = []
        try:
            if action.kind == "charge":
                path = list(self.charge(m.id, t.id, boost=action.boost or 0).path)
            elif action.kind == "melee":
                res = self._melee_move(m.id, t.id)
                if not res.legal:  # it fights the enemy it touches instead (p.24): no surprise
                    return None
                path = list(res.path)
            elif action.walk == "before" and action.point is not None:
                path = list(movement.check_walk(table, m.id, [action.point]).path)
        except movement.MoveError:
            return None
        points = []
        for a, b in zip(path, path[1:]):
            n = max(1, math.ceil(math.dist(a, b) / self.SURPRISE_STEP))
            points += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(1, n + 1)]
        if points:
            for pt in points:
                moved = tuple(dc_replace(x, position=pt) if x.id == m.id else x for x in table.models)
                moved_table = Table(table.name, table.width, table.depth, table.terrain, moved, table.source)
                if moved_table.scene().los(t.id, m.id).visible:
                    return None
        return t.id

    def _end_surprise(self) -> None:
        """Surprised lasts only until the end of the current action (p.31)."""
        for x in self.state.alive():
            if "surprised" in x.conditions:
                self._emit(Event("condition", {"model": x.id, "name": "surprised", "on": False}))

    def _release_held(self) -> None:
        """Held ends when the model is no longer in BtB with its holder, or the holder is
        gone (p.44)."""
        table = self._table_now()
        for m in self.state.alive():
            holder = m.conditions.get("held")
            if holder is None:
                continue
            h = self.state.models.get(holder) if isinstance(holder, str) else None
            free = h is None or not h.alive
            if h is not None and not free:
                a, b = table.model(m.id), table.model(h.id)
                free = math.dist(a.position, b.position) - a.radius - b.radius > movement.CONTACT + 1e-9
            if free:
                self._emit(Event("condition", {"model": m.id, "name": "held", "on": False}))
                self._emit(Event("note", {"text": f"{m.id} is no longer Held"}))
