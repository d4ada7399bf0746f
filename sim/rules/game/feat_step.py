"""Catalogue Ki feats in play (p.46-47): the feats that have an entry in the feat effects
data file (:mod:`sim.rules.feat_effects`) are offered with their targets and applied
operation by operation after their cost and test; a feat the engine does not apply (no
entry, ``manual``, an operation or moment it does not support) is logged as a
``manual_step`` with the card's text, never skipped silently.

A base of :class:`~sim.rules.game.ki_step.KiStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.dice import RollKind, RollPurpose, challenge_test
from sim.rules.feat_effects import AREA_AFFECTS, ChoiceOp, FeatEffect, RiderOp, attack_of, entry_status, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_areas import FeatAreas
from sim.rules.game.feat_assists import FeatAssists
from sim.rules.game.feat_cards import FeatCards
from sim.rules.game.feat_interrupts import FeatInterrupts
from sim.rules.game.feat_moves import FeatMoves
from sim.rules.game.feat_order import FeatOrder
from sim.rules.game.feat_places import FeatPlaces
from sim.rules.game.feat_redirects import FeatRedirects
from sim.rules.game.feat_rolls import FeatRolls
from sim.rules.game.feat_shots import FeatShots
from sim.rules.game.feat_triggers import RIDER_MARK, FeatTriggers
from sim.rules.game.state import ModelState
from sim.rules.ranged.weapons import trait_value
from sim.rules.wounds import apply_wounds

#: ``when`` values offered during the active player's turn, outside melee exchanges.
_MAIN_WHEN = ("action", "any")

#: Durations of an effect without ``until``: a trait gained "for the rest of the game".
_FOREVER = "game"

#: The log words of a rider (round 4 ``rider`` op) by its ``upon``.
_RIDER_TEXT = {"dealt_wound": "marks each model its attacks wound", "attack_succeeded": "marks each model its "
               "attacks reach", "wounded_by": "marks each model whose attack wounds it",
               "attacked_by": "marks each model whose attack on it succeeds"}


class FeatStep(FeatRolls, FeatCards, FeatOrder, FeatAssists, FeatShots, FeatPlaces, FeatInterrupts, FeatTriggers,
               FeatMoves, FeatAreas, FeatRedirects):  # FeatAreas (round 6, F2) derives from FeatAuras; FeatCards (F5)
    """Catalogue feats with a data entry: offers, areas and targets, operations."""

    # ------------------------------------------------------------ offers
    def card_feat_entry(self, mid: str, feat: str) -> FeatEffect | None:
        """The data entry of feat ``feat`` of model ``mid`` when the engine applies it
        (:func:`sim.rules.feat_effects.entry_status`), else None."""
        entry = feat_effect(feat)
        return entry if entry_status(entry)[0] else None

    def card_feat_offers(self, m: ModelState, f: ki.Feat) -> list[Action]:
        """The actions that use catalogue feat ``f`` of ``m`` now (not yet judged legal):
        one per target in range for a Target feat (enemies for ``target_enemy``, friends
        for ``target_friend``, any other model for ``target``), one for a Personal, Pulse
        or Aura feat; a variable cost is offered at X = 1 and at the most the model can
        pay (up to 3). Only while its ``when`` allows it: ``action``/``any`` outside an
        exchange, ``exchange`` while the model's exchange waits for its allocation."""
        entry = self.card_feat_entry(m.id, f.name)
        if entry is None:
            return []
        ex = self.state.exchange
        if entry.when == "exchange":
            if ex is None or m.id not in (ex["attacker"], ex["defender"]) or m.id in ex["allocations"]:
                return []
        elif entry.when == "shot":  # before its Shoot, in its activation (round 2 reading)
            if ex is not None or self.shot_feat_refusal(m) is not None:
                return []
        elif entry.when not in _MAIN_WHEN or ex is not None:
            return []
        kind = f.action_kind or "feat"
        if kind == "complex_ki_feat" and m.counters < 2:
            return []
        xs: list[int | None] = [None]
        if f.variable:
            top = max(1, min(m.ki - f.x_plus, entry.max_x or f.max_x or 3))
            xs = [1] if top == 1 else [1, top]
        scene = self._table_now().scene()
        out: list[Action] = []
        moves = "move" in entry.ops
        if entry.x_target_ki:  # round 6 (F5): X is each target's Ki statistic (feat_cards)
            xs = xs[:1]
        for x in xs:
            if f.area != "target":
                a = Action(kind, m.id, feat=f.name, x=x)
                op_a = attack_of(entry)
                if op_a is not None:  # round 5: one offer per model it may shoot / all of them in order
                    shots = self.feat_shot_targets(m, entry)
                    if op_a.at == "all":
                        out += [replace(a, models=tuple(shots))] if shots else []
                    else:
                        out += [replace(a, target=t) for t in shots]
                    continue
                if moves or entry.max_affected is not None:  # the models it reaches, where they move
                    a = self._with_choices(m, f, entry, a)
                if self.cleanse_op(entry) is not None:  # round 6 (F2): the markers it removes (feat_areas)
                    a = replace(a, models=self.cleanse_default(m, f, entry, x))
                if self.deploy_op(entry) is not None:  # round 6 (F2): where it deploys a base (feat_areas)
                    a = replace(a, point=self.deploy_point(m, entry))
                out.append(a)
                continue
            for t in self._feat_targets(m, f, entry):
                d = self.feat_distance(scene, m.id, t.id, not f.range)  # round 6 (F6): an Aura's origin
                if not ki.in_target_range(f, d):  # a BtB feat: base contact (0.01")
                    continue
                facing = None
                if "facing" in entry.ops:  # its back to the user (the useful choice; any is legal)
                    facing = self._facing_away(t.id, m.id)
                a = Action(kind, m.id, feat=f.name, target=t.id, x=self.target_x(entry, t.id, x), facing=facing)
                out.append(self._with_choices(m, f, entry, a) if moves else a)
        out = self.with_chosen(m, entry, out)  # round 6 (F5): the model a chosen op names (feat_cards)
        choice = entry.choice
        if choice is not None and choice.by != "opponent":  # one action per option (the action's option)
            out = [replace(a, option=i) for a in out for i in range(len(choice.options))]
        return out

    def _with_choices(self, m: ModelState, f: ki.Feat, entry: FeatEffect, a: Action) -> Action:
        """``a`` with the models it names (the nearest ``max_affected`` of the area) and,
        for a move the player points, a destination for each
        (:meth:`~sim.rules.game.feat_moves.FeatMoves.suggested_points`); ``a`` unchanged
        when none is found (nobody moves)."""
        movers = self.feat_affected(m, f, entry, a)
        op = self._move_op(entry)
        if op is None or op.kind in ("push", "away", "toward", "to_target", "out_of_zoc"):
            return replace(a, models=tuple(movers)) if f.area in ("pulse", "aura") else a
        pts = self.suggested_points(m, f, entry, movers, a)
        if not pts:
            return a
        if f.area in ("pulse", "aura"):
            return replace(a, models=tuple(movers), path=tuple(pts))
        return replace(a, point=pts[0])

    def _feat_targets(self, m: ModelState, f: ki.Feat, entry: FeatEffect) -> list[ModelState]:
        """The models a Target feat may be declared at: enemies (``target_enemy``),
        other friendly models (``target_friend``), any other model (``target``, ``self``)."""
        st = self.state
        if entry.affects == "target_enemy":
            out = st.alive(3 - m.player)
        elif entry.affects == "target_friend":
            out = [x for x in st.alive(m.player) if x.id != m.id]
        else:
            out = [x for x in st.alive() if x.id != m.id]
        mine = [m] if entry.target_self else []  # round 6 (F5): the user itself too (target_self)
        return mine + [x for x in out if self.feat_reaches(m.id, entry, x.id) is None]

    def feat_reaches(self, user: str, entry: FeatEffect, mid: str) -> str | None:
        """Why the feat of ``entry`` used by ``user`` may not reach model ``mid`` because of
        the entry's restrictions (None when it may): ``target_keywords`` -- ``mid`` must be
        one of them (:func:`sim.rules.card_keywords.keyword_matches`: type, faction, name,
        trait, condition; with ``target_keywords_all`` every one of them), none of
        ``target_not_keywords``; ``target_rice`` -- its rice cost must be lower / higher than the
        user's (a model without a rice cost on its card is refused)."""
        st = self.state
        t = st.models[mid]
        if entry.target_keywords or entry.target_not_keywords:
            view = view_of(self.profile(mid), friendly=t.player == st.models[user].player,
                           conditions=conditions.from_model(t))  # Poison, Fire, Bleed markers too (F5)
            if entry.target_keywords_all:  # round 3: every keyword
                missing = [k for k in entry.target_keywords if not keyword_matches(k, view)]
                if missing:
                    return f"{mid} is not {' and '.join(entry.target_keywords)} ({entry.name})"
            elif entry.target_keywords and not keyword_matches(", ".join(entry.target_keywords), view):
                return f"{mid} is not {' or '.join(entry.target_keywords)} ({entry.name})"
            banned = [k for k in entry.target_not_keywords if keyword_matches(k, view)]
            if banned:
                return f"{mid} is {banned[0]}: {entry.name} may not reach it"
        if entry.target_rice:
            mine = getattr(self.profile(user), "rice", None)
            theirs = getattr(self.profile(mid), "rice", None)
            if not isinstance(mine, int) or not isinstance(theirs, int):
                return f"{entry.name} compares rice costs: {user} or {mid} has none on its card"
            if entry.target_rice == "equal":  # round 6 (F5): Rivalry
                if theirs != mine:
                    return f"{entry.name} needs a model of the same rice cost as {user} ({mine})"
                return None
            ok = theirs < mine if entry.target_rice == "lower" else theirs > mine
            if not ok:
                return f"{entry.name} needs a model of {entry.target_rice} rice cost than {user} ({mine})"
        return None

    def _facing_away(self, mid: str, other: str) -> float:
        """The facing (degrees) that turns ``mid``'s back to ``other``."""
        a, b = self.state.models[mid].position, self.state.models[other].position
        return (math.degrees(math.atan2(a[1] - b[1], a[0] - b[0]))) % 360.0

    def card_feat_refusal(self, m: ModelState, f: ki.Feat, action: Action) -> str | None:
        """Why ``action`` may not use catalogue feat ``f`` now because of its data entry's
        ``when`` and ``affects`` (None when it may): an ``exchange`` feat only in the
        user's exchange before it allocates, the others outside exchanges; a
        ``target_enemy`` / ``target_friend`` feat at an enemy / a friendly model."""
        entry = feat_effect(f.name)
        if entry is None:
            return None
        short = self.feat_tokens_missing(m, entry)  # round 4: needs_tokens
        if short:
            return f"{f.name} needs {short} on {m.id}"
        ex = self.state.exchange
        if entry.when == "exchange":
            if ex is None or m.id not in (ex["attacker"], ex["defender"]):
                return f"{f.name} is used in a melee exchange {m.id} fights (before allocating its dice)"
            if m.id in ex["allocations"]:
                return f"{m.id} has allocated its dice: too late for {f.name} (p.33, step 4)"
        elif entry.when == "shot":
            why = self.shot_feat_refusal(m)
            if why:
                return f"{f.name}: {why}"
        elif entry.when not in _MAIN_WHEN:
            if not self.feat_trigger_allows(m, f, entry, action):  # sim.rules.game.feat_triggers
                return f"{f.name} is used {entry.when.replace('_', ' ')}: not now"
        if entry.max_x is not None and action.x is not None and action.x > entry.max_x:
            return f"{f.name}: X is at most {entry.max_x}"
        choice = entry.choice
        if action.option is not None and self.grant_choice_op(entry) is not None:  # round 6 (F5, feat_cards)
            choice = None  # its option indexes the op's list (grant_choice_refusal)
        elif action.option is not None and (choice is None or not 0 <= action.option < len(choice.options)):
            return (f"{f.name} has no option {action.option}" + (f" (options 0-{len(choice.options) - 1})"
                                                                 if choice is not None else " (no choice)"))
        why = self.feat_attack_refusal(m, entry, action)  # round 5: the model its attack is made at
        if why:
            return f"{f.name}: {why}"
        why = (self.assist_feat_refusal(m, f, entry, action) or self.activation_op_refusal(m, entry, action)
               or self.volley_refusal(m, entry) or self.envy_refusal(m.id, action))
        if why:  # round 6 (F1): feat_assists, feat_order
            return why
        op_a = attack_of(entry)
        if op_a is not None and op_a.at == "all" and entry_status(entry)[0]:
            return None  # its models are the order of its shots (judged above), not an area's choice
        t = self.state.models.get(action.target or "")
        if t is not None and f.area == "target":
            if entry.affects == "target_enemy" and t.player == m.player:
                return f"{f.name} targets an enemy model"
            if entry.affects == "target_friend" and t.player != m.player:
                return f"{f.name} targets a friendly model"
            why = None if t.id == m.id and entry.target_self else self.feat_reaches(m.id, entry, t.id)  # F5
            if why:
                return why
        why = (self.roll_op_refusal(m, f, entry, action)  # round 6 (F4): Look into the Void (feat_rolls)
               or self.swap_refusal(m, f, entry, action)  # round 6 (F3): both bases fit (feat_places)
               or self.join_refusal(m, f, entry, action)  # round 6 (F6): it reaches contact (feat_redirects)
               or self.cards_refusal(m, f, entry, action))  # round 6 (F5): an other-form card (feat_cards)
        if why or self.chosen_op(entry) is not None:  # round 6 (F5): its models name the chosen model
            return why
        why = (self.unseen_refusal(m, entry) or self.cleanse_refusal(m, f, entry, action)  # round 6 (F2)
               or self.deploy_refusal(m, entry, action))
        if why or self.cleanse_op(entry) is not None:
            return why
        return self.feat_choice_refusal(m, f, entry, action)  # chosen models and points (feat_moves)

    def feat_shot_targets(self, m: ModelState, entry: FeatEffect, trigger: str | None = None) -> list[str]:
        """The models ``m`` may shoot now with the ``attack`` op of ``entry`` (round 5): every
        other model :meth:`_can_shoot` accepts with its first ranged weapon (enemies in range
        and LoS, p.30), its Reloading ignored when the op says so; ``at: near`` (round 6):
        those within ``near`` of the triggering model (``trigger``, default the one its
        waiting trigger names)."""
        op = attack_of(entry)
        if op is None:
            return []
        scene = self._table_now().scene()
        pool = [t for t in self.state.alive() if t.id != m.id] if op.at == "all" else self.state.alive(3 - m.player)
        if op.at == "near":  # round 6 (F1): within op.near of the triggering model, not that model
            trig = trigger or self.trigger_target(m.id, entry.name)
            pool = [t for t in pool if self._near_trigger(trig, t.id, float(op.near or 0))]
        pool = sorted(pool, key=lambda t: (scene.distance(m.id, t.id), t.id))  # nearest first
        return [t.id for t in pool if self.feat_shot_refusal(m.id, t.id, op) is None]

    def _near_trigger(self, trig: str | None, other: str, inches: float) -> bool:
        """Whether ``other`` is another model within ``inches`` (edge to edge) of the
        triggering model ``trig`` (where it stands, or stood when it was killed by the attack
        that set the feat off)."""
        if trig is None or trig == other or trig not in self.state.models or other not in self.state.models:
            return False
        a, b = self.state.models[trig], self.state.models[other]
        gap = math.dist(a.position, b.position) - self.table.model(trig).radius - self.table.model(other).radius
        return gap <= inches + 1e-9

    def feat_shot_refusal(self, mid: str, target: str, op: Any) -> str | None:
        """Why ``mid`` may not make the ``attack`` op ``op``'s shot at ``target`` now (None
        when it may): :meth:`_can_shoot` (a ranged weapon, range and LoS, p.30; Reloading
        unless ``ignore: [reload]``), the target's Camouflage (p.50, unless ``ignore:
        [camouflage]``) and Intimidating (p.54), like a Shoot declared at it."""
        ok, why = self._can_shoot(mid, target, None, ignore_reload="reload" in op.ignore, ignore=_shot_ignore(op))
        if not ok:
            return why
        if "camouflage" not in op.ignore:
            why = self.camouflage_refusal(mid, target) or ""
            if why:
                return why
        return self.intimidate_refusal(mid, "shoot", target)

    def feat_attack_refusal(self, m: ModelState, entry: FeatEffect, action: Action) -> str | None:
        """Why ``action`` may not use the ``attack`` feat of ``entry`` at its ``target``
        (None when it may, or the entry makes no attack): the shot must be legal now
        (:meth:`_can_shoot`: a ranged weapon, the target an enemy in range and LoS, p.30)."""
        op = attack_of(entry)
        if op is None or entry_status(entry)[1]:
            return None
        if op.at == "all":  # every model it may shoot, in the order the player names (models)
            shots = self.feat_shot_targets(m, entry)
            if not shots:
                return "no model it may shoot (p.30)"
            if action.models and sorted(action.models) != sorted(shots):
                return f"name every model it may shoot, in any order: {', '.join(shots)}"
            return None
        if action.target is None:
            return "name the model it shoots (target)"
        t = self.state.models.get(action.target)
        if t is None or t.player == m.player:
            return f"{action.target!r} is not an enemy model on the table (p.30)"
        if op.at == "near" and action.target not in self.feat_shot_targets(m, entry):  # round 6 (F1)
            return (f"{action.target} is not another enemy within {op.near:g}\" of the model its trigger "
                    f"names ({self.trigger_target(m.id, entry.name)})")
        why = self.feat_shot_refusal(m.id, action.target, op)
        return None if why is None else f"no shot at {action.target}: {why}"

    def feat_entry_of(self, f: ki.Feat) -> FeatEffect:
        """The data entry of feat ``f`` (it has one: the feat is being applied)."""
        entry = feat_effect(f.name)
        assert entry is not None  # applied feats have an entry
        return entry

    def feat_attack(self, m: ModelState, f: ki.Feat, op: Any, mid: str, action: Action) -> None:
        """The ``attack`` op (round 5): ``mid`` (the user) makes one ranged attack now at the
        action's target with its first ranged weapon (p.30-32), spending no counter; an
        interceptor or a damage answer may make the shot wait like any other."""
        if op.at == "all":  # Circular Strike: one shot at each, in the order named (nearest first by default)
            order = [t for t in (action.models or self.feat_shot_targets(m, self.feat_entry_of(f)))
                     if self.state.models[t].alive]
            if not order:
                self._emit(Event("note", {"text": f"{f.name}: no model to shoot"}))
                return
            self._emit(Event("note", {"text": f"{f.name}: {mid} makes a ranged attack at each of "
                                              f"{', '.join(order)}, in that order"}))
            self._shoot(mid, order[0], None, rest=[[t, None] for t in order[1:]],
                        ignore_reload="reload" in op.ignore, ignore=_shot_ignore(op))
            return
        target = action.target
        if target is None or not self.state.models[target].alive:
            self._emit(Event("note", {"text": f"{f.name}: no model to shoot"}))
            return
        ign = "reload" in op.ignore
        why = self.feat_shot_refusal(mid, target, op)
        if why is not None:
            self._emit(Event("note", {"text": f"{f.name}: no shot at {target} ({why})"}))
            return
        self._emit(Event("note", {"text": f"{f.name}: {mid} makes a ranged attack at {target}"
                                          + (", ignoring its Reloading markers" if ign else "")}))
        self._shoot(mid, target, None, ignore_reload=ign, ignore=_shot_ignore(op))

    def feat_tokens_missing(self, m: ModelState, entry: FeatEffect) -> str:
        """The tokens ``entry.needs_tokens`` asks of ``m`` that it lacks, as ``"1 Ammo
        token(s)"`` text (``""`` when it has them all). ``Ammo`` counts the Ammo tokens left
        on its weapons (printed Ammo (X) less those spent, ModelState.ammo); any other name
        counts the named tokens a feat placed (:meth:`tokens`)."""
        for name, n in entry.needs_tokens.items():
            have = self.ammo_tokens(m.id) if name.strip().lower() == "ammo" else self.tokens(m.id, name)
            if have < n:
                return f"{n} {name} token(s) (has {have})"
        return ""

    def ammo_tokens(self, mid: str) -> int:
        """Ammo tokens model ``mid`` carries: over its weapons with Ammo (X), the tokens
        left (X until the weapon has fired, p.32)."""
        prof = self.profile(mid)
        if prof is None:
            return 0
        left = self.state.models[mid].ammo
        total = 0
        for w in prof.weapons:
            x = trait_value(w, "ammo")
            if x is not None:
                total += int(left.get(w.name, x))
        return total

    def shot_feat_refusal(self, m: ModelState) -> str | None:
        """Why a ``shot`` feat of ``m`` may not be used now (None when it may): it is used by
        the active model in its activation, before it shoots, outside exchanges, and the
        model has a ranged weapon (p.30, p.46)."""
        st = self.state
        if st.exchange is not None or m.player != st.active or st.phase != "main":
            return "used by the active model as it shoots (its activation)"
        prof = self.profile(m.id)
        if prof is None or not any(w.kind == "ranged" for w in prof.weapons):
            return f"{m.id} has no ranged weapon"
        return None

    def feat_as_tested(self, m: ModelState, f: ki.Feat, target: str | None) -> ki.Feat:
        """``f`` as its test is taken at ``target``: an entry with ``opposed: enemy`` takes
        the Opposed Ki test only at an enemy model; at a friendly one ``f`` needs no test;
        at a model matching ``unopposed_keywords`` it needs none either (round 4)."""
        entry = feat_effect(f.name)
        t = self.state.models.get(target or "")
        if entry is not None and entry.opposed == "enemy" and t is not None and t.player == m.player:
            return replace(f, opposed=False)
        if entry is not None and entry.unopposed_keywords and t is not None:  # round 4 (Dark Absolution)
            view = view_of(self.profile(t.id), friendly=t.player == m.player, conditions=t.conditions)
            if keyword_matches(", ".join(entry.unopposed_keywords), view):
                return replace(f, opposed=False)
        return f

    # ------------------------------------------------------------ effects
    def feat_affected(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> list[str]:
        """The ids the entry's effects reach (``affects``): the user, the declared target,
        or the friendly / enemy / other models in the Pulse or Aura now (p.47; the user is
        always in its own area)."""
        st = self.state
        if entry.affects == "self":
            return [m.id]
        if entry.affects == "opponent":  # round 6 (F1): the model it fights in the exchange (feat_assists)
            opp = self.exchange_opponent(m.id)
            return [opp] if opp is not None else []
        if entry.affects in ("target", "target_enemy", "target_friend", "self_and_target"):
            t = st.models.get(action.target or "")
            got = [t.id] if t is not None and t.alive else []
            if got and entry.pulse_at_target:  # round 6 (F2): a Pulse centred on the target (feat_areas)
                got = self.target_pulse(m.id, got[0])
            if got and entry.contact_all:  # round 6 (F5): every enemy in base contact with the user (feat_cards)
                got = self.enemies_in_contact(m.id)
            return ([m.id] + got) if entry.affects == "self_and_target" else got
        if f.area not in ("pulse", "aura") and not entry.table:
            return [m.id] if entry.affects in ("friends_and_self", "models_and_self", "enemies_and_self") else []
        out = self.area_models(m, self.sized_feat(f, entry, action.x, m.id), entry)  # round 6 (F2): X / turn / Ki
        out = [mid for mid in out if self.placed_ok(entry, mid)]  # round 6 (F2): Placed this activation
        out = self.not_watched_friend(m, f, entry, out)  # round 6 (F6): "another" friend (feat_redirects)
        if action.models:  # the models the user's player named (max_affected, a move's points)
            return [mid for mid in action.models if mid in out]
        cap = entry.cap(action.x)
        if cap is not None:
            return out[:cap]
        return out

    def area_models(self, m: ModelState, f: ki.Feat, entry: FeatEffect) -> list[str]:
        """The models of ``m``'s Pulse or Aura now that ``entry`` reaches (``affects``:
        friends, enemies, any other model, friends / other models / enemies and the user,
        who is inside its own area, p.46-47; the restrictions of :meth:`feat_reaches`),
        nearest first; with ``table`` every model on the table (round 3)."""
        st = self.state
        scene = self._table_now().scene()
        if entry.table:  # round 3: every model on the table (a table-wide area)
            inside = [m.id] + [x.id for x in st.alive() if x.id != m.id and x.elsewhere is None]
        else:
            inside = ki.targets_in_area(scene, m.id, f, [x.id for x in st.alive()])
        inside = sorted(inside, key=lambda i: 0.0 if i == m.id else scene.distance(m.id, i))
        out = []
        for mid in inside:
            if mid != m.id and self.feat_reaches(m.id, entry, mid) is not None:
                continue
            x = st.models[mid]
            if mid == m.id:
                if entry.affects in ("friends_and_self", "models_and_self", "enemies_and_self"):
                    out.append(mid)
                continue
            if entry.affects == "friends_and_self" and x.player == m.player:
                out.append(mid)
            elif entry.affects == "friends" and x.player == m.player:
                out.append(mid)
            elif entry.affects in ("enemies", "enemies_and_self") and x.player != m.player:
                out.append(mid)
            elif entry.affects in ("models", "models_and_self"):
                out.append(mid)
        return out

    def _killed_ki(self, mid: str, feat: str) -> int:
        """The Ki statistic of the model whose death opened triggered feat ``feat`` of
        ``mid`` (``target_ki``; 0 when no kill opened it)."""
        killed = self.trigger_source(mid, feat)
        k = self.state.models.get(killed or "")
        return int(k.ki_stat) if k is not None else 0

    def _stat_of(self, mid: str, stat: str) -> int:
        """A statistic of ``mid`` for a gate test (Ki: its Ki statistic now)."""
        if stat == "ki":
            return int(self.state.models[mid].ki_stat)
        prof = self.profile(mid)
        return int(getattr(prof, stat, 0) or 0) if prof is not None else 0

    def _gate_passes(self, m: ModelState, f: ki.Feat, entry: FeatEffect, mid: str) -> bool:
        """The entry's ``test``: with ``by: target`` model ``mid`` takes the challenge test
        and the effects apply when it FAILS; with ``by: self`` the user takes it and the
        effects apply when it passes."""
        gate = entry.test
        if gate is None:
            return True
        who = mid if gate.by == "target" else m.id
        kind = RollKind.KI_RESIST if gate.by == "target" else RollKind.KI_FEAT
        purpose = RollPurpose(kind, who, m.id if who != m.id else None, f.name)
        why = ""
        if gate.stat == "ki":  # a Ki test: Spirit, Soulless (sim.rules.game.rolls_step, p.58)
            got = self._ki_challenge(who, gate.tn, purpose, active=who == m.id and m.player == self.state.active)
            passed, why = got.passed, got.why()
        elif gate.stat == "size":  # a Size test: dice by Size, Strong, Weak, Swarm (p.28)
            size = self._size_roll(who, gate.tn, purpose)
            passed, why = size.passed, size.why()
        else:
            passed = challenge_test(self._stat_of(who, gate.stat), gate.tn, 0, self._roller, purpose=purpose).success
        self._emit(Event("test", {"model": who, "test": gate.stat, "passed": passed, "tn": gate.tn,
                                  "text": f"{f.name}: {who} {'passes' if passed else 'fails'} a "
                                          f"{gate.stat.title()} ({gate.tn}) challenge test{why}"}))
        return (not passed) if gate.by == "target" else passed

    def _apply_card_feat(self, m: ModelState, f: ki.Feat, action: Action) -> None:
        """Apply catalogue feat ``f`` used by ``m`` (cost paid, its own test passed):
        each operation of its data entry on each model it affects; what the engine does
        not apply is logged as a ``manual_step`` with the card text (p.46)."""
        entry = feat_effect(f.name)
        ok, why = entry_status(entry)
        if entry is None or not ok:
            self._emit(Event("manual_step", {"model": m.id, "source": f.name,
                                             "text": f"{why}. Card: {f.effect or 'see the card'}"}))
            return
        if f.area == "aura" and (entry.affects in AREA_AFFECTS or self.aura_keeps(entry)):
            self.start_feat_aura(m, f, entry, action)  # lasting changes read while inside (feat_auras, feat_areas)
        if self.area_rules_own(entry):  # round 6 (F2): ops for models in / coming into an Aura, or touching
            self.area_rules_start(m, f, entry, action)
        ops = self.chosen_ops(f, entry, action)
        self.note_feat_used(m, f, entry)  # round 6 (F1): once_per_exchange (feat_assists)
        for mid in ([] if self.area_rules_own(entry) else self.feat_affected(m, f, entry, action)):
            if not self.state.models[mid].alive:
                continue
            user_in_target_test = (mid == m.id and entry.affects != "self" and entry.test is not None
                                   and entry.test.by == "target")  # the user takes no test meant for the target
            if not user_in_target_test and not self._gate_passes(m, f, entry, mid):
                continue
            for op in ops:
                if self.state.models[mid].alive:
                    if f.area == "aura" and entry.affects in AREA_AFFECTS and op.op in self.AURA_OPS:
                        continue  # read while the model is inside the Aura (feat_auras)
                    self._apply_op(m, f, op, mid, action)
        for op in entry.effects_self:  # round 4: the user's own part, beside the affected models
            if self.state.models[m.id].alive:
                self._apply_op(m, f, op, m.id, action)
        if entry.ends_action:  # round 4: the interrupted enemy action counts as resolved (feat_triggers)
            self.interrupt_ends_action(m.id, f.name)

    def feat_riders(self, dealt: list[tuple[str, str, int, str]]) -> None:
        """Apply the riders (round 4 ``rider`` op) the attacks ``dealt`` (``(by, target,
        wounds, melee|ranged|feat)``, :meth:`_dealt`) set off: a rider on ``by`` with ``upon:
        dealt_wound`` (wounds > 0) / ``attack_succeeded`` hits ``target``; one on ``target``
        with ``upon: wounded_by`` (wounds > 0) / ``attacked_by`` hits ``by``. Once per attack;
        a feat's own wounds are no attack and set off none."""
        st = self.state
        for by, target, n, how in dealt:
            if how not in ("melee", "ranged") or by not in st.models or target not in st.models:
                continue
            for holder, other, ons in ((by, target, ("attack_succeeded",) + (("dealt_wound",) if n > 0 else ())),
                                       (target, by, ("attacked_by",) + (("wounded_by",) if n > 0 else ()))):
                for key, v in list(st.models[holder].conditions.items()):
                    if not key.startswith(RIDER_MARK):
                        continue
                    data = json.loads(str(v))
                    op = RiderOp.model_validate(data["op"])
                    if op.upon not in ons or op.dealt_by not in ("any", how) or not st.models[other].alive:
                        continue
                    if op.not_keywords:
                        o = st.models[other]
                        view = view_of(self.profile(other), friendly=o.player == st.models[holder].player,
                                       conditions=o.conditions)
                        if keyword_matches(", ".join(op.not_keywords), view):
                            continue
                    feat = key[len(RIDER_MARK):]
                    user = st.models.get(data["user"])
                    f = self.feats(data["user"]).get(feat) if user is not None else None
                    if user is None or f is None:
                        continue
                    self._emit(Event("note", {"text": f"{feat}: {other} ({holder}'s {how} attack)"}))
                    if op.once:  # "the next time": the rider is used up
                        self._emit(Event("condition", {"model": holder, "name": key, "on": False}))
                    act = Action("feat", user.id, feat=feat, x=int(data.get("x", 1)))
                    for sub in op.effects:
                        if st.models[other].alive:
                            self._apply_op(user, f, sub, other, act)

    def chosen_ops(self, f: ki.Feat, entry: FeatEffect, action: Action) -> list[Any]:
        """The entry's ops with its ``choice`` replaced by the option the action names
        (``option``, 0-based; the first when it names none), logged."""
        out: list[Any] = []
        for op in entry.effects:
            if isinstance(op, ChoiceOp) and op.by != "opponent":  # the opponent's: later (F5, feat_cards)
                i = action.option or 0
                label = op.labels[i] if op.labels else f"option {i + 1}"
                self._emit(Event("note", {"text": f"{f.name}: {action.model} chooses {label}"}))
                out += list(op.options[i])
            else:
                out.append(op)
        return out

    def _apply_op(self, m: ModelState, f: ki.Feat, op: Any, mid: str, action: Action) -> None:
        """One operation of a feat's entry on model ``mid`` (:data:`sim.rules.feat_effects.OPS`)."""
        x = int(action.x or 1)
        kind = op.op
        if kind in ("special_cost", "boost") or (kind == "grant_weapon" and op.name):  # round 6 (F5, feat_cards)
            self.grant_card_effect(f, op, mid, x)
        elif kind in ("grant", "lose", "grant_weapon", "stat"):
            until = op.until or _FOREVER
            texts = [_with_x(t, x) for t in op.traits] if kind != "stat" else []
            if kind == "grant":
                self.grant(mid, f.name, until, traits=texts)
            elif kind == "lose":
                self.grant(mid, f.name, until, lose=op.traits)
            elif kind == "grant_weapon":
                self.grant(mid, f.name, until, weapon_traits=texts, weapon=op.weapon)
            else:
                self.grant(mid, f.name, until, stats={k: x if v == "X" else int(v) for k, v in op.changes.items()},
                           weapon=op.weapon)
        elif kind == "condition":
            n = x if op.n == "X" else int(op.n)
            before = self.marker_count(mid, op.name)
            self._gain(mid, op.name, n, value=x if op.value == "X" else op.value)
            gained = self.marker_count(mid, op.name) - before
            if op.until is not None and gained > 0:  # round 3: the markers go when the duration ends
                self.expire_markers_at(mid, f.name, op.name, gained, op.until)
        elif kind == "remove_condition":
            self.remove_markers(mid, op.name, None if op.n == "all" else int(op.n))
        elif kind == "wound":
            self._wound(mid, self.feat_wounds(mid, x if op.n == "X" else int(op.n), ignore_tough=op.ignore_tough))
        elif kind == "heal":
            n = x if op.n == "X" else (self._killed_ki(m.id, f.name) if op.n == "target_ki" else int(op.n))
            why = self.heal_refusal(mid)  # Kami, Last Stand at 0, no wound (p.54)
            if why:
                self._emit(Event("note", {"text": f"{f.name}: no healing: {why}"}))
            elif n > 0:
                self._emit(Event("healed", {"model": mid, "n": n, "source": f.name}))
        elif kind == "ki":
            n = x if op.n == "X" else (self._killed_ki(m.id, f.name) if op.n == "target_ki" else int(op.n))
            if n:
                self._emit(Event("ki_change", {"model": mid, "delta": n}))
        elif kind == "counter" and (op.n == "all" or op.up_to is not None):  # round 6 (F5, feat_cards)
            self.apply_counter_limits(f, op, mid)
        elif kind == "counter":
            if op.n > 0:
                self._emit(Event("counters_gained", {"model": mid, "n": op.n, "source": f.name}))
            elif op.n < 0:
                self._emit(Event("counter", {"model": mid, "n": -op.n}))
        elif kind == "pass_token":
            self._emit(Event("pass_token_gained", {"player": self.state.models[mid].player, "n": op.n,
                                                   "source": f.name}))
        elif kind == "facing":
            if action.facing is None:
                self._emit(Event("note", {"text": f"{f.name}: no facing chosen, {mid} keeps its facing"}))
            else:
                t = self.state.models[mid]
                self._emit(Event("move", {"model": mid, "move": f"turned by {f.name}", "to": list(t.position),
                                          "facing": float(action.facing) % 360.0, "cost": 0.0}))
        elif kind == "move" and op.at is not None:  # later: when its activation ends (feat_triggers)
            self.move_later(m.id, f.name, op.at)
        elif kind == "move":  # sim.rules.game.feat_moves
            self.apply_move(m, f, op, mid, action)
        elif kind == "no_specials" and op.own:  # round 6 (F5): none of its own specials (feat_cards)
            self.apply_own_no_specials(mid, f.name, op.until)
        elif kind == "no_specials":
            self.apply_no_specials(mid, f.name, op.until)
        elif kind == "reroll":  # Prowess [test] (n) (p.55)
            n = x if op.n == "X" else int(op.n)
            self.grant(mid, f.name, op.until or _FOREVER, traits=[reroll_trait(op.test, n)])
        elif kind == "range_bands":
            self.apply_range_bands(mid, f.name, op)
        elif kind == "take_ki":  # Ki tokens move from the affected model to the user (p.46)
            n = min(x if op.n == "X" else int(op.n), self.state.models[mid].ki,
                    max(0, m.ki_limit - self.state.models[m.id].ki))
            if n > 0 and mid != m.id:
                self._emit(Event("ki_change", {"model": mid, "delta": -n}))
                self._emit(Event("ki_change", {"model": m.id, "delta": n}))
        elif kind == "tokens":
            self.apply_tokens(mid, f.name, op.name, x if op.n == "X" else op.n)
        elif kind == "attack":  # round 5: one ranged attack now at the target / named model (p.30-32)
            self.volley_marks(m, f, op)  # round 6 (F1): friends that may shoot too (feat_shots)
            self.feat_attack(m, f, op, mid, action)
        elif kind in ("assist", "assist_bonus", "pool_penalties", "shots", "special_damage"):  # round 6 (F1)
            self.apply_assist_op(m, f, op, mid)
        elif kind == "activation":  # round 6 (F1): the order of activations (feat_order)
            self.apply_activation_op(m, f, op, mid)
        elif kind == "mark":  # round 6 (F1): friends that target or fight the model gain traits (feat_order)
            self.apply_mark_op(m, f, op, mid)
        elif kind == "redirect":  # round 6 (F6): the held enemy action is made at the user (feat_redirects)
            self.apply_redirect(m, f, op)
        elif kind == "repel":  # round 6 (F6): the enemy moves out of the friend's ZoC (feat_redirects)
            self.apply_repel(m, f, mid)
        elif kind == "join":  # round 6 (F6): another friend moves into contact with the enemy (feat_redirects)
            self.apply_join(m, f, op, mid)
        elif kind == "swap":  # round 6 (F3): the model and the user exchange places (feat_places)
            self.apply_swap(m, f, mid)
        elif kind == "dice_curse":  # round 6 (F2): cursed dice values (feat_areas)
            self.apply_dice_curse(m, f, op, mid)
        elif kind == "cleanse":  # round 6 (F2): markers shared out among the area's models (feat_areas)
            self.apply_cleanse(m, f, action)
        elif kind == "feat_cost":  # round 6 (F2): its Ki feats cost more or less for a time (feat_areas)
            self.apply_feat_cost(f, op, mid)
        elif kind == "remove_terrain":  # round 6 (F2): Destructible pieces in the area removed (feat_areas)
            self.apply_remove_terrain(m, f, action)
        elif kind == "face":  # round 6 (F2): the model turns to face the user (feat_areas)
            self.apply_face(m, f, mid)
        elif kind == "los_limit":  # round 6 (F2): LoS up to N inches for most models (feat_areas)
            self.apply_los_limit(f, op, mid)
        elif kind == "deploy_terrain":  # round 6 (F2): a base of terrain deployed at the point (feat_areas)
            self.apply_deploy(m, f, op, action)
        elif kind == "after_exchange":  # round 6 (F5): ops on the enemy after the exchange (feat_cards)
            self.apply_after_exchange(m, f, op, mid, action)
        elif kind == "if_enemy":  # round 6 (F5): traits if the enemy's allocation is so (feat_cards)
            self.apply_if_enemy(f, op, mid)
        elif kind == "contest":  # round 6 (F5): an enemy may cancel it by paying Ki (feat_cards)
            self.apply_contest(m, f, op, mid, action)
        elif kind == "group":  # round 6 (F5): ops on a second group of the area (feat_cards)
            self.apply_group(m, f, op, action)
        elif kind == "grant_choice":  # round 6 (F5): a trait made with the player's pick (feat_cards)
            self.apply_grant_choice(f, op, mid, action)
        elif kind == "protect":  # round 6 (F5): attacks on it lose Pierce (feat_cards)
            self.apply_protect(f, op, mid)
        elif kind == "special_against":  # round 6 (F5): specials usable only against some enemies (feat_cards)
            self.apply_special_against(f, op, mid)
        elif kind == "next_shot":  # round 6 (F5): a change for its next ranged attack (feat_cards)
            self.apply_next_shot(f, op, mid)
        elif kind == "forbid":  # round 6 (F5): some action kinds forbidden for a while (feat_cards)
            self.apply_forbid(f, op, mid)
        elif kind == "lose_type":  # round 6 (F5): its card loses type keywords (feat_cards)
            self.apply_lose_type(f, op, mid)
        elif kind == "versus":  # round 6 (F5): traits while it fights enemies of some kind (feat_cards)
            self.apply_versus(m, f, op, mid)
        elif kind == "steal":  # round 6 (F5): traits taken from the enemies it fights (feat_cards)
            self.apply_steal(m, f, op, mid)
        elif kind == "chosen":  # round 6 (F5): ops on one more model the player names (feat_cards)
            self.apply_chosen(m, f, op, action)
        elif kind == "on_action":  # round 6 (F5): a reaction to the model's next actions (feat_cards)
            self.apply_on_action(m, f, op, mid, action)
        elif kind == "heal_rule":  # round 6 (F5): its Heal reaches farther or removes markers (feat_cards)
            self.apply_heal_rule(f, op, mid)
        elif kind == "on_feat":  # round 6 (F5): a reaction to the model's next Ki feats (feat_cards)
            self.apply_on_feat(m, f, op, mid, action)
        elif kind == "choice":  # round 6 (F5): a choice the affected model's player makes (feat_cards)
            self.defer_choice(m, f, op, mid, action)
        elif kind == "form":  # round 6 (F5): the model becomes its other form (feat_cards)
            self.apply_form(f, op, mid)
        elif kind == "transfer":  # round 6 (F5): markers move between models (feat_cards)
            self.apply_transfer(m, f, op, mid, action)
        elif kind in ("sl_markers", "damage_rolls", "damage", "marker_wounds", "challenge",
                      "ranged_tn", "trap_test", "tactical", "test_bonus",
                      "exchange_bonus"):  # round 6 (F4): feat_rolls
            self.apply_roll_op(m, f, op, mid, action)
        elif kind == "rider":  # round 4: a lasting reaction to the model's attacks (feat_riders)
            value = json.dumps({"until": op.until, "user": m.id, "x": x, "op": op.model_dump(mode="json")},
                               sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": RIDER_MARK + f.name, "on": True, "value": value}))
            self._emit(Event("note", {"text": f"{f.name}: {mid} {_RIDER_TEXT[op.upon]} "
                                              f"({op.dealt_by} attacks) until {op.until.replace('_', ' ')}"}))
        else:
            self._emit(Event("manual_step", {"model": mid, "source": f.name,
                                             "text": f"{kind}: apply by hand. Card: {f.effect or 'see the card'}"}))


    def feat_wounds(self, mid: str, n: int, *, ignore_tough: bool = False) -> int:
        """The wounds ``mid`` marks of ``n`` a feat deals: Tough (X) lowers them "from any
        source" and Durable then makes more than one a single wound (p.51, p.58), unless the
        card says they ignore Tough (``ignore_tough``: both skipped)."""
        if ignore_tough or n <= 0:
            return max(0, n)
        has_tough, tv = self._trait(mid, "tough")
        tough = int(tv) if has_tough and isinstance(tv, int) else 0
        return apply_wounds(n, tough=tough, durable=bool(self._trait(mid, "durable")[0]))

    def marker_count(self, mid: str, name: str) -> int:
        """How many markers of condition ``name`` model ``mid`` has (a valued marker --
        Bleed, Poison, Fire -- counts each marker)."""
        m = self.state.models[mid]
        key = conditions.canonical(name)
        if key is None:
            return 0
        if key in conditions.DAMAGING:
            return len(m.markers.get(conditions.DAMAGING[key], []))
        return conditions.count(conditions.from_model(m), key)

    def remove_markers(self, mid: str, name: str, n: int | None) -> None:
        """Remove ``n`` markers (None: all) of condition ``name`` from ``mid``."""
        if self._lose_markers(mid, name, n):
            return
        cur = conditions.from_model(self.state.models[mid])
        self._set_conditions(mid, conditions.remove_condition(cur, name, n))


def _shot_ignore(op: Any) -> list[str]:
    """The rules a feat's ``attack`` op makes its shots ignore, as the shot's ``ignore``
    (:meth:`~sim.rules.game.shooting_step.ShootingStep._shoot`): ``repeat``, ``btb`` and,
    for ``at: all``, ``friends``."""
    out = [i for i in op.ignore if i in ("repeat", "btb", "los", "range")]
    out += [f"band:{op.band}"] if getattr(op, "band", None) else []  # round 6 (F1): Raijin's Rage
    return out + (["friends"] if op.at == "all" else [])


def reroll_trait(test: str, n: int) -> str:
    """The trait text a ``reroll`` op grants: ``Prowess [Ki] (1)`` (p.55: re-roll up to n
    of its own dice in that test)."""
    return f"Prowess [{test.strip().strip('[]').title()}] ({int(n)})"


def _with_x(text: str, x: int) -> str:
    """A trait text of a feat with the X its user paid put in its brackets: ``Armour (X)``
    with X = 2 is ``Armour (2)`` (a variable feat, p.46)."""
    return re.sub(r"\(([^)]*)\)", lambda m: "(" + re.sub(r"\bX\b", str(x), m.group(1)) + ")", text)
