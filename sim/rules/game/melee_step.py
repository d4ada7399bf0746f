"""The melee step (p.24, p.33-39): the Charge, Melee and Disengage actions, the secret
allocations of an exchange and its resolution, Fear tests on contact (p.29), Melee
Assist (p.36), and the Walk after a Disengage.

The fifteen steps of an exchange are :func:`sim.rules.melee.resolve_exchange`; this
module builds its :class:`~sim.rules.melee.Combatant` from the game state and records
the outcome as events. A mixin of :class:`~sim.rules.game.Game`; the kinds are
registered at the end of the module.
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from typing import Any

from models.traits import has_trait
from sim.rules import conditions, movement
from sim.rules.dice import FearOutcome, fear_test_needed
from sim.rules.game import melee_traits, special_steps, terrain_rules, variable_weapons, weapon_specials
from sim.rules.game.actions import Action, ActionKind, register, verdict
from sim.rules.game.events import Event, markers_json
from sim.rules.game.feat_triggers import damage_dealt
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.rules.ki import KiError
from sim.rules.melee import (
    MELEE_CONDITIONS,
    Allocation,
    Combatant,
    MeleeError,
    MeleeWeapon,
    combatant_from_profile,
    melee_pools,
    resolve_exchange,
    validate_allocation,
)
from sim.rules.melee.combatant import CONDITION_MARKERS
from sim.rules.melee.exchange import face_each_other
from sim.rules.special import SpecialMoveError, throw_directions
from sim.table import Table


def around_paths(start, r: float, pivot, target, step_deg: float = 5.0) -> list[list[tuple[float, float]]]:
    """The paths (base-centre points, inches) that take a base of radius ``r`` at
    ``start``, in contact with the model ``pivot``, around ``pivot``'s base into contact
    with ``target`` (both table models with ``position`` and ``radius``): the two
    points in contact with both, each reached either way round, shortest first; points
    every ``step_deg`` degrees on the arc. Empty when no point touches both (p.24: a
    model in contact with one enemy may move around its base to reach another)."""
    cx, cy = pivot.position
    R = pivot.radius + r + 0.6 * movement.CONTACT  # (the chords between points stay off the base)
    tx, ty = target.position
    R2 = target.radius + r + 0.6 * movement.CONTACT
    d = math.dist((cx, cy), (tx, ty))
    if d < 1e-9 or d > R + R2 or d < abs(R - R2):
        return []
    along = (R * R - R2 * R2 + d * d) / (2 * d)
    h = math.sqrt(max(0.0, R * R - along * along))
    ux, uy = (tx - cx) / d, (ty - cy) / d
    mx, my = cx + ux * along, cy + uy * along
    ends = [(mx - uy * h, my + ux * h), (mx + uy * h, my - ux * h)]
    a0 = math.atan2(start[1] - cy, start[0] - cx)
    out = []
    for ex, ey in ends:
        a1 = math.atan2(ey - cy, ex - cx)
        ccw = (a1 - a0) % (2 * math.pi)
        for sweep in (ccw, ccw - 2 * math.pi):
            n = max(1, math.ceil(abs(math.degrees(sweep)) / step_deg))
            out.append([(cx + R * math.cos(a0 + sweep * i / n), cy + R * math.sin(a0 + sweep * i / n))
                        for i in range(1, n + 1)])
    return sorted(out, key=len)


#: The mark of a model whose Fear test on contact failed in the action under way (p.29):
#: that action removes one activation counter, whatever it is (cleared as it is paid).
FEAR_FAILED = "fear_failed"

#: The specials whose direction the allocating model may choose (p.41).
DIRECTED_SPECIALS = ("throw-attack", "throw-defence", "sidestep-attack", "sidestep-defence")


class MeleeStep(GamePart):
    """Charge, Melee, Disengage and melee exchanges (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Charge, Melee, Disengage (p.24)
    def _legal_charge(self, m: ModelState, action: Action) -> tuple[bool, str]:
        if action.target is None:
            return False, "no target: a Charge names the enemy it charges"
        split = melee_traits.split_problem(self, m.id, action.target, action.models)  # Split Attack (p.58)
        if split:
            return False, split
        try:
            res = self.charge(m.id, action.target, boost=action.boost or 0, also=tuple(action.models))
        except movement.MoveError as exc:
            return False, str(exc)
        return verdict(res)

    def _resolve_charge(self, action: Action) -> None:
        m = self.state.models[action.model]
        target = action.target
        assert target is not None  # judged legal: it names its target
        res = self.charge(m.id, target, boost=action.boost or 0, also=tuple(action.models))
        engaged = self.engaged_now(m.id, target)  # before the move: the start of the activation (Reach, p.57)
        for ev in terrain_rules.start_mark_events(self, m.id):  # Enhancing terrain (p.60)
            self._emit(ev)
        melee_traits.grant_charging_bonus(self, m.id)  # Charging Bonus [B] until the end of the activation (p.50)
        start = self.state.models[m.id].position
        self._move(m.id, res)
        if res.reached and all(self._fear_on_contact(m.id, e) for e in (target, *action.models)):
            data = {"attacker": m.id, "defender": target, "charge": True,  # Group: held back (p.52)
                    **({"engaged": engaged} if engaged else {}), **melee_traits.split_data(action.models)}
            if not self.contact_window(m.id, data, start):  # a feat answering the contact first (feat_interrupts)
                self.open_exchange(data)

    def _legal_melee(self, m: ModelState, action: Action) -> tuple[bool, str]:
        st = self.state
        target = action.target
        if (target is None or target not in st.models or not st.models[target].alive
                or st.models[target].player == m.player):
            return False, f"{target!r} is not an enemy on the table"
        split = melee_traits.split_problem(self, m.id, target, action.models)  # Split Attack (p.58)
        if split:
            return False, split
        try:
            res = self._melee_move(m.id, target, also=tuple(action.models))
        except movement.MoveError as exc:
            return False, str(exc)
        if not res.legal and not action.models and self.melee_fallback(m.id, target):
            return True, ""  # it fights the enemy it touches instead (p.24)
        return verdict(res)

    def melee_fallback(self, mid: str, target: str) -> str | None:
        """p.24: "Если модель, начинающая активацию в контакте с одной вражеской моделью,
        пытается войти в контакт с другой вражеской моделью и не может этого сделать, она
        обязана выполнить Обмен ударами с моделью, в контакте с которой она начинала." The
        one enemy model ``mid`` is in base contact with, when a Melee at another enemy
        ``target`` cannot bring it into contact with ``target`` (around that enemy's base);
        None otherwise (no such enemy, several, or the move is legal)."""
        foes = self.enemies_in_contact(mid)
        if len(foes) != 1 or foes[0] == target:
            return None
        try:
            if self._melee_move(mid, target).legal:
                return None
        except movement.MoveError:
            pass
        return foes[0]

    def _resolve_melee(self, action: Action) -> None:
        m = self.state.models[action.model]
        target = action.target
        assert target is not None  # judged legal: it names its target
        res = self._melee_move(m.id, target, also=tuple(action.models))
        first = None if res.legal else self.melee_fallback(m.id, target)
        if first is not None:  # it cannot reach the other enemy: it fights the one it touches (p.24)
            self._emit(Event("note", {"text": f"{m.id} cannot come into contact with {target}: it fights {first}, "
                                              "the enemy it started in contact with (p.24)"}))
            engaged = self.engaged_now(m.id, first)
            self.open_exchange({"attacker": m.id, "defender": first, "charge": False,
                                **({"engaged": engaged} if engaged else {})})
            return
        engaged = self.engaged_now(m.id, target)  # before the move: the start of the activation (Reach, p.57)
        for ev in terrain_rules.start_mark_events(self, m.id):  # Enhancing terrain (p.60)
            self._emit(ev)
        start = self.state.models[m.id].position
        self._move(m.id, res)
        if all(self._fear_on_contact(m.id, e) for e in (target, *action.models)):
            data = {"attacker": m.id, "defender": target, "charge": False,  # Group: held back (p.52)
                    **({"engaged": engaged} if engaged else {}), **melee_traits.split_data(action.models)}
            if not self.contact_window(m.id, data, start):  # a feat answering the contact first (feat_interrupts)
                self.open_exchange(data)

    def _legal_disengage(self, m: ModelState, action: Action) -> tuple[bool, str]:
        st = self.state
        table = self._table_now()
        e = st.models.get(action.target or "")
        if e is None or not e.alive or e.player == m.player:
            return False, f"{action.target!r} is not an enemy on the table"
        tm, te = table.model(m.id), table.model(e.id)
        if math.dist(tm.position, te.position) - tm.radius - te.radius > movement.CONTACT + 1e-9:
            return False, f"{m.id} is not in base contact with {e.id}"
        if self._trait(m.id, "aggressive")[0]:
            return False, f"{m.id} is Aggressive: it cannot put as many dice in defence as in attack (p.24)"
        if action.point is not None:
            res = self._disengage_walk_check(m.id, table, action.point)
            if not res.legal:
                return False, "the Walk after disengaging: " + "; ".join(r.message for r in res.reasons)
        return True, ""

    def _resolve_disengage(self, action: Action) -> None:
        m = self.state.models[action.model]
        engaged = self.engaged_now(m.id, action.target or "")
        for ev in terrain_rules.start_mark_events(self, m.id):  # Enhancing terrain (p.60)
            self._emit(ev)
        self._emit(Event("exchange_open", {"attacker": m.id, "defender": action.target, "charge": False,
                                           "disengage": m.id,
                                           "point": list(action.point) if action.point is not None else None,
                                           **({"engaged": engaged} if engaged else {})}))

    def engaged_now(self, *mids: str) -> list[str]:
        """Which of ``mids`` have a melee weapon with Reach and are in base contact with
        an enemy model now (sorted ids). Taken when an action that leads to an exchange
        is resolved, before its move: the models "in contact with an enemy at the start
        of the current activation", whose Reach gives no Initiative (p.57). (Models
        without Reach are left out: for them it changes nothing.)"""
        table = self._table_now()
        out = []
        for mid in mids:
            if mid not in self.state.models or not self.state.models[mid].alive:
                continue
            card = self.profile(mid)
            if (card is None or not any(w.kind == "melee" and has_trait(w, "reach") for w in card.weapons)) \
                    and terrain_rules.enhancing_piece(self, mid) is None:  # Reach from Enhancing terrain (p.60)
                continue
            me = table.model(mid)
            if any(x.player != me.player and math.dist(x.position, me.position) - x.radius - me.radius
                   <= movement.CONTACT + 1e-9 for x in table.models if x.id != mid):
                out.append(mid)
        return sorted(out)

    # ------------------------------------------------------------ allocations (p.33)
    def _legal_allocate(self, m: ModelState, action: Action) -> tuple[bool, str]:
        problem, _ = self._allocation_check(action)
        return problem is None, problem or ""

    # ------------------------------------------------------------ the exchange
    def charge(self, model_id: str, target_id: str, boost: int = 0, also: tuple = ()) -> movement.MoveResult:
        """The Charge of ``model_id`` at ``target_id`` in the current state (memoised
        until the state changes); ``boost``: Move boosts bought for it; ``also``: the other
        enemies of a Split Attack (p.58)."""
        key = (len(self.events), "charge", model_id, target_id, boost, tuple(also))
        got = self._memo.get(key)
        if got is None:
            table = melee_traits.charging_table(self, model_id, self._boosted_table(model_id, boost))  # p.50
            got = self._memo[key] = movement.plan_charge(table, model_id, target_id, also=tuple(also))
        return got

    def _melee_move(self, mid: str, target: str, also: tuple = ()) -> movement.MoveResult:
        """The Melee action's move (p.24): straight into BtB with ``target`` (no move if
        already in contact). ``also``: the other enemies of a Split Attack (p.58): the move
        ends in contact with each (straight to a point touching the target and the first
        of them, or around the base of the one enemy it touches)."""
        table = self._table_now()
        a, t = table.model(mid), table.model(target)
        dx, dy = t.position[0] - a.position[0], t.position[1] - a.position[1]
        d = math.hypot(dx, dy) or 1.0
        gap = d - a.radius - t.radius
        if gap <= movement.CONTACT:
            here = movement.check_melee_move(table, mid, target, [a.position], also=also)
            if here.legal or not also:
                return here
            straight = here
        else:
            end = (a.position[0] + dx / d * gap, a.position[1] + dy / d * gap)
            straight = movement.check_melee_move(table, mid, target, [end], also=also)
        held_by = [e for e in self.enemies_in_contact(mid) if not table.model(e).prone]
        if len(held_by) == 1 and not straight.legal:  # around the one enemy's base (p.24)
            for path in around_paths(a.position, a.radius, table.model(held_by[0]), t):
                res = movement.check_melee_move(table, mid, target, path, also=also)
                if res.legal:
                    return res
        if also and not straight.legal:  # Split Attack: to a point touching two enemies (p.58)
            paths = melee_traits.split_paths(table, mid, target, also)
            if gap <= movement.CONTACT:  # around the target's base to the next enemy
                paths = around_paths(a.position, a.radius, t, table.model(also[0])) + paths
            for path in paths:
                res = movement.check_melee_move(table, mid, target, path, also=also)
                if res.legal:
                    return res
        return straight

    def _fear_on_contact(self, active: str, enemy: str) -> bool:
        """Fear tests when the active model's action brings it into contact (p.29).
        Returns False when the active model fails and its activation ends (no exchange);
        a failing enemy becomes Frightened."""
        has_a, fear_a = self._trait(active, "fear")
        has_e, fear_e = self._trait(enemy, "fear")
        checks = fear_test_needed(active_fear=fear_a if has_a else None, enemy_fear=fear_e if has_e else None,
                                  cause="action", active_steadfast=self._trait(active, "steadfast")[0])
        go_on = True
        for chk in checks:
            who = active if chk.tester == "active" else enemy
            # every trait of the tester and of the Fear model acts (p.29, sim.rules.test_traits)
            res, why = self._fear_roll(who, chk.target_number, enemy if who == active else active)
            verdict = "passes" if res.passed else "fails"
            why_s = f" ({', '.join(why)})" if why else ""
            self._emit(Event("note", {"text": f"{who} takes a Fear test (TN {chk.target_number}) "
                                              f"and {verdict}{why_s}"}))
            if res.passed:
                continue
            if chk.on_fail is FearOutcome.LOSE_ACTIVATION:
                self._emit(Event("note", {"text": f"{who} is too afraid: its activation ends"}))
                self._emit(Event("condition", {"model": who, "name": FEAR_FAILED, "on": True}))
                go_on = False
            else:
                self._gain(who, "frightened", value=chk.target_number)
        return go_on

    def fear_counter_cost(self, mid: str, spent: int) -> int:
        """The activation counters ``mid``'s declared action removes: ``spent``, or one when
        a Fear test on contact failed during it (p.29: "удалите один счетчик активации,
        независимо от объявленного действия"), e.g. a Charge (Complex) that fails costs one.
        Clears the mark the failed test left."""
        m = self.state.models.get(mid)
        if m is None or FEAR_FAILED not in m.conditions:
            return spent
        self._emit(Event("condition", {"model": mid, "name": FEAR_FAILED, "on": False}))
        return 1

    def combatant(self, mid: str, active: bool, charge: bool = False, boost: int | None = None,
                  weapon: str | None = None):
        """Model ``mid`` as a melee :class:`~sim.rules.melee.Combatant` now (p.33-37): its
        card (Melee, weapon, traits), the melee conditions it has (and Exhausted when it
        defends without counters), wounds left, the Auras that help it and, in the waiting
        exchange, its Melee Assist. ``active``: the attacking (active) model; ``charge``:
        it charged (+2 to its first damage roll); ``boost``: Melee Ki boosts bought
        (default: those allocated in the waiting exchange); ``weapon``: the melee weapon
        it fights with (default: the one chosen in the waiting exchange, else the card's
        first, p.33 step 2). In the waiting exchange a model in contact with an enemy at
        the start of the activation has ``engaged_at_start`` (its Reach gives nothing,
        p.57).

        Raises:
            MeleeError: ``weapon`` is not a melee weapon of the card."""
        s = self.state.models[mid]
        conds = frozenset(n for n in conditions.from_model(s) if n in MELEE_CONDITIONS)
        conds |= frozenset(c for c in ("ran", "surprised", "stood_up") if c in s.conditions)
        if "prone" in s.conditions:  # knocked Prone again after it stood up: Prone's rules, not Stand Up's -1
            conds -= {"stood_up"}
        if s.exhausted and not active:
            conds |= {"exhausted"}
        left = self.wounds_left(mid)  # a Kami's Ki; None for Last Stand and Rise (p.54, p.57)
        ex = self.state.exchange
        disengaging = bool(ex and ex.get("disengage") == mid)
        boost = int((ex or {}).get("boosts", {}).get(mid, 0)) if boost is None else boost
        extra: dict[str, Any] = (dict(ki_boost=boost, modifiers=self._aura_modifiers(mid))
                                 if (boost or self.state.auras) else {})
        if ex is not None and mid in (ex["attacker"], ex["defender"]):
            extra["assists"] = self.melee_assists(mid, ex["defender"] if mid == ex["attacker"] else ex["attacker"])
            more = self.assist_feat_modifiers(mid, ex["defender"] if mid == ex["attacker"] else ex["attacker"])
            if more:  # round 6 (F1): feats that change Melee Assist penalties (feat_assists)
                extra["modifiers"] = tuple(extra.get("modifiers", ())) + more
            extra.update(self.feat_damage_fields(mid))  # round 6 (F4): damage-roll feats (feat_rolls)
            extra.update(self.feat_combatant_fields(mid))  # round 6 (F1): Passing Strike (feat_assists)
            if mid in ex.get("engaged", ()):
                extra["engaged_at_start"] = True
            if terrain_rules.enhancing_reach(self, mid, ex["defender"] if mid == ex["attacker"] else ex["attacker"],
                                             ex["attacker"]):
                extra["reach"] = True  # Enhancing terrain gives Reach for exchanges (p.60)
            weapon = weapon or ex.get("weapons", {}).get(mid)
            if mid == ex["defender"] and variable_weapons.no_damage_reason(self, ex["attacker"]):
                extra["damage_cancelled"] = variable_weapons.no_damage_reason(self, ex["attacker"])
        card = variable_weapons.stand_in_card(self, mid, self.profile(mid))  # Melee X (swarms)
        if card is not None:
            comb = combatant_from_profile(card, id=mid, active=active, charge=charge, weapon=weapon,
                                          weapon_strength=variable_weapons.stand_in_strength(card, weapon),
                                          conditions=conds, wounds_left=left, disengaging=disengaging, **extra)
            return melee_traits.adjust_combatant(self, comb)  # Bear Stands Alone, Co-ordinated, Vengeance
        return Combatant(id=mid, melee=2, active=active, weapon=MeleeWeapon.of("Unarmed", 0), conditions=conds,
                         charge=charge, wounds_left=left, **extra)

    def melee_assists(self, mid: str, opponent: str) -> int:
        """Melee Assist (p.36): the other enemy models in contact with ``mid`` (not
        ``opponent``), each -1 die to ``mid``'s pool, unless that enemy is itself in contact
        with another model of ``mid``'s side. A Prone enemy does not count (its contact may
        be ignored, p.45), nor an Insignificant one (no melee support, p.54)."""
        return len(self.melee_assisters(mid, opponent))

    def melee_assisters(self, mid: str, opponent: str) -> list[str]:
        """The ids of the enemy models that give ``mid`` a Melee Assist penalty in its
        exchange with ``opponent`` (:meth:`melee_assists`), in table order."""
        table = self._table_now()
        me = table.model(mid)

        def touching(a, b) -> bool:
            return math.dist(a.position, b.position) - a.radius - b.radius <= movement.CONTACT + 1e-9

        mine = [x for x in table.models if x.player == me.player and x.id != mid]
        out = []
        for e in table.models:
            if e.player == me.player or e.id == opponent or e.prone or not touching(me, e):
                continue
            if self._trait(e.id, "insignificant")[0]:  # gives no melee support (p.54)
                continue
            if any(touching(e, f) for f in mine):
                continue
            out.append(e.id)
        return out

    def exchange_pools(self) -> dict[str, int]:
        """The melee pools of the two models of the waiting exchange (step 4)."""
        ex = self.state.exchange
        if ex is None:
            return {}
        a = self.combatant(ex["attacker"], True, ex["charge"])
        b = self.combatant(ex["defender"], False, False)
        pa, pb, _ = melee_pools(a, b)
        return {a.id: pa, b.id: pb}

    def _allocation_actions(self) -> list[Action]:
        """Every split of the pool of the next model to allocate (:meth:`to_move`) into
        attack and defence dice (no special); a model that already allocated is not
        offered again."""
        ex = self.state.exchange
        assert ex is not None  # offered while an exchange waits for allocations
        out: list[Action] = []
        for mid, pool in self.exchange_pools().items():
            if mid in ex["allocations"]:
                continue
            if out:  # one model at a time: the one whose player is to move
                break
            weapons = self.melee_weapons(mid)
            for w in (weapons if len(weapons) > 1 else [None]):
                comb = self.combatant(mid, mid == ex["attacker"], ex["charge"] and mid == ex["attacker"], weapon=w)
                n = max(pool, 0)
                for k in range(n + 1):
                    try:
                        validate_allocation(comb, pool, Allocation(k, n - k))
                    except MeleeError:
                        continue
                    out.append(Action("allocate", mid, attack=k, defence=n - k, weapon=w))
        return out

    def melee_weapons(self, mid: str) -> list[str]:
        """The names of the melee weapons on ``mid``'s card, in card order (empty without a
        card). With two or more the model chooses one at step 2 of every exchange
        (p.33): ``Action("allocate", ..., weapon=name)``; without a choice it fights with
        the first."""
        card = self.profile(mid)
        return [w.name for w in card.weapons if w.kind == "melee"] if card is not None else []

    def _allocation_check(self, action: Action):
        """``(problem, boost)``: why the allocation ``action`` cannot be made now (None when
        it can: the exchange waits for this model, the Ki boost is allowed, the split and
        special are valid for the pool with the boost, p.33-39), and its Ki boost."""
        ex = self.state.exchange
        if ex is None or action.model is None or action.model not in (ex["attacker"], ex["defender"]):
            return f"no melee exchange is waiting for {action.model!r}", None
        if action.model in ex["allocations"]:
            return f"{action.model} has already allocated its dice", None
        try:
            b = self.ki_boost(action)
        except KiError as exc:
            return str(exc), None
        is_att = action.model == ex["attacker"]
        if action.weapon is not None and action.weapon not in self.melee_weapons(action.model):
            return (f"{action.model} has no melee weapon {action.weapon!r} (has: "
                    f"{', '.join(self.melee_weapons(action.model)) or 'none'}) (p.33 step 2)"), None
        comb = self.combatant(action.model, is_att, ex["charge"] and is_att, boost=action.boost or 0,
                              weapon=action.weapon)
        other_id = ex["defender"] if is_att else ex["attacker"]
        other = self.combatant(other_id, not is_att, ex["charge"] and not is_att)
        pa, pb, _ = melee_pools(comb, other) if is_att else melee_pools(other, comb)
        pool = pa if is_att else pb
        try:
            validate_allocation(comb, pool, Allocation(action.attack or 0, action.defence or 0, action.special,
                                                       action.direction))
        except MeleeError as exc:
            return str(exc), None
        opt = comb.weapon.special(action.special) if action.special else None
        why = self.specials_refusal(action.model, other_id) if action.special else None  # a feat's no_specials
        if why:
            return why, None
        if action.direction is not None and opt is not None and opt.key in DIRECTED_SPECIALS:
            problem = self.direction_problem(action.model, other_id, opt.key, action.direction)
            if problem:
                return problem, None
        return None, b

    def throw_spans(self, thrower: str, thrown: str) -> list[tuple[float, float]]:
        """The directions (degrees CCW from +x, ``(start, end)`` intervals, ``end`` may
        pass 360) in which ``thrower`` may throw ``thrown`` now: the point 2" along them
        from ``thrown``'s centre is in ``thrower``'s LoS
        (:func:`sim.rules.special.throw_directions`, rulings.md 8; p.41), the two of the
        waiting exchange turned to face each other as its step 1 does (p.33; before, a
        direction the exchange would allow could be refused); memoised until the state
        changes."""
        key = (len(self.events), "throw-spans", thrower, thrown)
        got = self._memo.get(key)
        if got is None:
            table, ex = self._table_now(), self.state.exchange
            if ex is not None and {thrower, thrown} == {ex["attacker"], ex["defender"]}:  # step 1 faces them (p.33)
                table = face_each_other(table, thrower, thrown, {k: self.combatant(k, k == ex["attacker"]).immovable
                                                                 for k in (thrower, thrown)})
            got = self._memo[key] = throw_directions(table, thrower, thrown)
        return list(got)

    def direction_problem(self, model: str, enemy: str, special: str, direction: float) -> str | None:
        """Why ``model`` cannot use ``direction`` (degrees) for its Throw or Sidestep
        ``special`` (``throw-attack`` ...) against ``enemy`` in the waiting exchange, as
        the models stand now; None when it can (or for another special). A Throw must end
        2" away in the thrower's LoS (p.41, rulings.md 8); a Sidestep must move the model
        away from the enemy, leaving contact (p.41)."""
        if special not in DIRECTED_SPECIALS:
            return None
        table = self._table_now()
        d = float(direction) % 360
        if special.startswith("throw"):
            spans = self.throw_spans(model, enemy)
            if not spans:
                return f"{model} cannot throw {enemy} in any direction: no point 2\" away is in its LoS (p.41)"
            if not any(a - 1e-9 <= d <= b + 1e-9 or a - 1e-9 <= d + 360 <= b + 1e-9 for a, b in spans):
                allowed = ", ".join(f"{a % 360:.0f}-{b % 360:.0f}" for a, b in spans)
                return (f"a Throw of {enemy} at {d:.0f} deg does not end in {model}'s LoS (allowed: {allowed} deg) "
                        f"(p.41, rulings.md 8)")
            return None
        p, q = table.model(model).position, table.model(enemy).position
        ux, uy = math.cos(math.radians(d)), math.sin(math.radians(d))
        if (p[0] - q[0]) * ux + (p[1] - q[1]) * uy < 0:
            return f"a Sidestep at {d:.0f} deg moves {model} towards {enemy}: it must move away, leaving contact (p.41)"
        return None

    def _allocate(self, action: Action) -> None:
        problem, b = self._allocation_check(action)
        if problem:
            self._unmark()
            raise GameError(problem)
        if b:
            self._emit(Event("boost", {"model": action.model, "stat": "melee", "steps": action.boost,
                                       "cost": b[1].cost}))
        self._emit(Event("allocated", {"model": action.model, "attack": action.attack or 0,
                                       "defence": action.defence or 0, "special": action.special,
                                       "direction": action.direction, "boost": action.boost or 0,
                                       **({"weapon": action.weapon} if action.weapon else {})}))
        ex = self.state.exchange
        assert ex is not None  # the allocation was judged legal: an exchange waits
        if len(ex["allocations"]) == 2:
            self._resolve_exchange()

    def _resolve_exchange(self, answers: dict | None = None) -> None:
        """Resolve the open exchange (both allocations made) and apply it. ``answers``:
        the Sacrifice / Protected answers given (:mod:`sim.rules.game.damage_answers`);
        before one is given the exchange may stop at its damage roll and wait (p.56-57)."""
        ex = self.state.exchange
        assert ex is not None  # both allocations made: the exchange is open
        att, dfn = ex["attacker"], ex["defender"]
        for mid, w in sorted(ex.get("weapons", {}).items()) if answers is None else ():  # step 2 (p.33)
            self._emit(Event("note", {"text": f"{mid} fights with its {w}"}))
        a = self.damage_cancels(self.combatant(att, True, ex["charge"]), answers)  # Sacrifice, Protected
        b = self.damage_cancels(self.combatant(dfn, False, False), answers)
        al = {k: Allocation(*v) for k, v in ex["allocations"].items()}
        mark = self.dice_mark()
        try:
            res = self._resolve_with_directions(a, b, al, att, dfn)
        except MeleeError as exc:
            self._emit(Event("exchange", {"summary": [f"no exchange: {exc}"]}))
        else:
            if self.exchange_damage_wait(res, mark, answers):  # a friend may be removed first (p.56-57)
                return
            counters = {k: n for k, n in res.counters.items() if k != att}  # the action already paid
            # a Controlled model that fights without losing a counter loses a marker (p.43)
            unpaid = [k for k in (dfn,) if "controlled" in self.state.models[k].conditions
                      and min(counters.get(k, 0), self.state.models[k].counters) == 0]
            summary = [f"step {st.number} {st.name}: {st.detail}" for st in res.log if st.number in (3, 4, 10, 12, 13)]
            summary += [f"{k} takes {n} wound(s)" for k, n in res.wounds.items() if n]
            summary += [f"{k} is removed ({why})" for k, why in res.removed.items()]
            summary += melee_traits.manual_steps(self, att, dfn) + melee_traits.manual_steps(self, dfn, att)
            summary += variable_weapons.manual_steps(self, att) + variable_weapons.manual_steps(self, dfn)
            self.note_attacks(damage_dealt(res.damage), "melee")  # feat triggers (round 3)
            self._emit(Event("exchange", {
                "attacker": att, "defender": dfn, "summary": summary,
                "wounds": {k: n for k, n in res.wounds.items() if n}, "removed": sorted(res.removed),
                "gained": {k: sorted(v) for k, v in res.conditions.items() if v},
                "positions": {k: [p[0], p[1]] for k, p in res.positions.items()},
                "facings": dict(res.facings), "counters": counters,
                "markers": markers_json([mk for mk in res.markers if mk.kind not in CONDITION_MARKERS])}))
            self.remove_savers(answers)  # Sacrifice / Protected: the friend removed instead (p.56-57)
            for mk in res.markers:  # Disease, Ki Block: condition markers (Diseased, Spirit Block, p.43-45)
                if mk.kind in CONDITION_MARKERS and self.state.models[mk.target].alive:
                    self._gain(mk.target, CONDITION_MARKERS[mk.kind], mk.count)
            self._release_held_by_fighters(att, dfn)
            for mid in unpaid:
                if self.state.models[mid].alive and "controlled" in self.state.models[mid].conditions:
                    self._set_conditions(mid, conditions.controlled_after(conditions.from_model(self.state.models[mid]),
                                                                          exchange_without_counter=True))
            for mid, names in sorted(res.conditions.items()):
                if not self.state.models[mid].alive:
                    continue
                for name in sorted(names):
                    self._gain(mid, name, value=(dfn if mid == att else att) if name == "held" else None)
            self.melee_damage_traits(att, dfn, {k: n for k, n in res.wounds.items() if n})  # Kumo (catalogue)
            for e in special_steps.exchange_manual_steps(res, eagle=False):  # Ivory Prison (p.41)
                self._emit(e)
            self.defiance_melee_ki(att, dfn, {k: n for k, n in res.wounds.items() if n})  # In Defiance (catalogue)
            weapon_specials.web_defence_after_exchange(self, res)  # Web Defence (catalogue): no move this activation
            if ex.get("disengage") and self.state.models[att].alive:
                self._disengage_walk(att, dfn, res, ex.get("point"))
            nxt = melee_traits.next_split_events(self, ex)  # Split Attack: the next exchange (p.58)
            for e in nxt:
                self._emit(e)
            if any(e.kind == "exchange_open" for e in nxt):
                for e in special_steps.eagle_manual_steps(res):  # Eagle's Flight, another exchange at once (p.41)
                    self._emit(e)
                self._end_effects("exchange")
                return
            if self.state.alive(1) and self.state.alive(2):
                self.eagle_open(res)  # Eagle's Flight: its player's move after the exchange (p.41)
            self._after_action()
        self._end_effects("exchange")  # "until the end of the current melee exchange"
        if not self.is_over():
            if not self.state.alive(1) or not self.state.alive(2):
                self._end_phase()
            elif not self.answers_pending() and not self._group_step(self.state.models[att].player):  # Group (p.52)
                self._next_active(3 - self.state.models[att].player)

    def _release_held_by_fighters(self, att: str, dfn: str) -> None:
        """Held ends when its holder fights an exchange with another model (p.44: "Удалите
        маркер Удержания, когда: ... Удерживающая модель участвует в Обмене ударами с другой
        моделью")."""
        for m in self.state.alive():
            holder = m.conditions.get("held")
            if holder in (att, dfn) and m.id not in (att, dfn):
                self._emit(Event("condition", {"model": m.id, "name": "held", "on": False}))
                self._emit(Event("note", {"text": f"{m.id} is no longer Held: {holder} fights another model"}))

    def _resolve_with_directions(self, a, b, al: dict[str, Allocation], att: str, dfn: str):
        """:func:`resolve_exchange` of the allocations ``al``. A Throw or Sidestep
        direction judged legal at the allocation may become impossible when the other
        model's special moved the two first: the dice are then rewound and the exchange
        resolved again with the engine's own direction for it (directly away, or one the
        thrower's LoS allows), said in a note."""
        dice: Any = self._dice
        mark = dice.state() if hasattr(dice, "state") and hasattr(dice, "restore") else None
        used = len(self._rolls[-1]) if self._rolls else 0
        try:
            return resolve_exchange(a, b, al[att], al[dfn], self._roller, table=self._table_now())
        except SpecialMoveError as exc:
            directed = [k for k in (att, dfn) if al[k].direction is not None]
            if mark is None or not directed:
                raise GameError(f"the exchange's special move cannot be played: {exc}") from None
            dice.restore(mark)
            del self._rolls[-1][used:]
            for k in directed:
                self._emit(Event("note", {"text": f"{k}'s direction cannot be used after the first move ({exc}): "
                                                  "the engine picks it (p.41)"}))
            al = {k: dc_replace(v, direction=None) for k, v in al.items()}
            return resolve_exchange(a, b, al[att], al[dfn], self._roller, table=self._table_now())

    def _walk_table(self, mid: str, table):
        """``table`` with the enemies in contact with ``mid`` gone (a Walk after a
        Disengage ignores every model in contact, p.24)."""
        me = table.model(mid)
        keep = tuple(x for x in table.models if x.id == mid or x.player == me.player
                     or math.dist(x.position, me.position) - x.radius - me.radius > movement.CONTACT + 1e-9)
        return Table(table.name, table.width, table.depth, table.terrain, keep, table.source)

    def _disengage_walk_check(self, mid: str, table, point) -> movement.MoveResult:
        """The Walk after a Disengage (p.24) to ``point`` on ``table``: it ignores the
        enemies in contact while it moves, but may not end on their bases
        (docs/rulings-project.md 32)."""
        walk_table = self._walk_table(mid, table)
        res = movement.check_walk(walk_table, mid, [tuple(point)])
        ignored = {x.id for x in table.models} - {x.id for x in walk_table.models}
        ends_on = tuple(r for r in movement.Mover(table, mid).end_overlaps(res.end) if r.element in ignored)
        if ends_on:
            res = dc_replace(res, legal=False, reasons=res.reasons + ends_on)
        return res

    def _disengage_walk(self, mid: str, enemy: str, res, point) -> None:
        """After a Disengage exchange: if the model defended successfully (no attack of
        the enemy hit) or is no longer in contact, it may Walk, ignoring models in contact."""
        hit = any(c.attacker == enemy and c.winner == enemy for c in res.comparisons)
        if hit and res.in_contact:
            self._emit(Event("note", {"text": f"{mid} fails to disengage from {enemy}"}))
            return
        me = self.state.models[mid]
        if me.conditions.get("held") == enemy:  # a successful Disengage from the holder ends Held (p.44)
            self._emit(Event("condition", {"model": mid, "name": "held", "on": False}))
            self._emit(Event("note", {"text": f"{mid} is no longer Held: it disengaged from {enemy}"}))
        if point is None:
            self._emit(Event("note", {"text": f"{mid} disengages from {enemy} and stays"}))
            return
        if weapon_specials.webbed(self, mid):  # Web Defence (catalogue special): it may not move
            self._emit(Event("note", {"text": f"{mid} disengages from {enemy} but may not move (Web Defence)"}))
            return
        walk = self._disengage_walk_check(mid, self._table_now(), point)
        if not walk.legal:
            self._emit(Event("note", {"text": f"{mid} disengages but cannot Walk there: {walk.reasons[0].message}"}))
            return
        self._emit(Event("note", {"text": f"{mid} disengages from {enemy}"}))
        self._move(mid, walk)

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("charge", _legal_charge, _resolve_charge),
        ActionKind("melee", _legal_melee, _resolve_melee),
        ActionKind("disengage", _legal_disengage, _resolve_disengage),
        ActionKind("allocate", _legal_allocate, _allocate),
    )
