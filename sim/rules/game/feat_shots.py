"""Ki feats whose shot follows a trigger (feat vocabulary round 6, F1): the ``attack`` op
``at: near`` -- after the trigger (Raijin's Rage: "when this model makes a successful Ranged
Attack"), one ranged attack at another enemy model within ``near`` inches of the model the
trigger names, optionally ignoring range, LoS and Camouflage and made in a fixed range band
(``band``; rulebook p.30-32). The waiting trigger offers one use per model it may shoot
(``Action("feat", model, feat=..., target=...)``) and the refusal; the shot itself is the
ordinary one (:meth:`~sim.rules.game.feat_step.FeatStep.feat_attack`).

The ``attack`` op's ``volley`` (Volley Fire): when the user shoots, each friendly model of
those keywords in the feat's Pulse with a ranged weapon may also make one ranged attack: a
delayed step per model (``Action("feat_later", model, feat=..., target=...)`` or
``decline_feat``), in table order, after the user's shot. Each model is affected once per
turn (the mark ``feat_order:volley``, gone at the end of the turn).

A mixin of :class:`~sim.rules.game.Game` (through :class:`~sim.rules.game.feat_step.FeatStep`).
"""

from __future__ import annotations

import json
from typing import Any

from sim.rules import ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.feat_effects import attack_of, entry_status, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_moves import FeatMoves
from sim.rules.game.feat_order import ORDER_MARK
from sim.rules.game.feat_triggers import LATER, TRIGGER_MARK, FeatTriggers
from sim.rules.game.state import ModelState

#: The mark of a model a volley feat affected this turn.
VOLLEY_MARK = ORDER_MARK + "volley"


class FeatShots(FeatTriggers, FeatMoves):
    """The offers of a triggered feat's shot at a model its player names."""

    def trigger_has_use(self, m: ModelState, feat: str, source: str) -> bool:
        """Whether ``m``'s feat ``feat``, triggered by model ``source``, could do anything:
        a shot ``at: near`` needs a model to shoot near ``source`` (else no trigger waits)."""
        entry = feat_effect(feat)
        op = attack_of(entry)
        if entry is None or op is None or op.at != "near":
            return True
        return bool(self.feat_shot_targets(m, entry, trigger=source or None))

    def trigger_actions(self) -> list[Action]:
        """The choices while a trigger waits (:meth:`FeatTriggers.trigger_actions`); for a
        feat whose shot goes at a model near the triggering one (``at: near``): one use per
        model it may shoot, and declining it."""
        got = self.triggers_pending()
        if got:
            mid, feat, why = got[0]
            entry = feat_effect(feat)
            op = attack_of(entry)
            if entry is not None and op is not None and op.at == "near" and LATER not in why \
                    and entry_status(entry)[0]:
                m = self.state.models[mid]
                uses = [Action("feat", mid, feat=feat, target=t) for t in self.feat_shot_targets(m, entry)]
                return [a for a in uses if self.is_legal(a)[0]] + [Action("decline_feat", mid, feat=feat)]
        return super().trigger_actions()

    # ------------------------------------------------------------ volleys (Volley Fire)
    def _volley_op(self, feat: str) -> Any:
        """The ``attack`` op with a ``volley`` of feat ``feat``'s entry, or None."""
        op = attack_of(feat_effect(feat))
        return op if op is not None and op.volley else None

    def volley_refusal(self, m: ModelState, entry: Any) -> str | None:
        """Why ``m`` may not use the volley feat of ``entry`` (it was affected by it this
        turn), or None."""
        op = attack_of(entry)
        if op is None or not op.volley or VOLLEY_MARK not in m.conditions:
            return None
        return f"{m.id} has been affected by {entry.name} this turn"

    def volley_marks(self, m: ModelState, f: ki.Feat, op: Any) -> None:
        """Before the user's shot of a volley feat: the user and each friendly model of the
        volley's keywords in the Pulse with a ranged weapon, not yet affected this turn, are
        affected; each such friend gets a delayed shot (a trigger mark ``[later step]``)."""
        if not getattr(op, "volley", None):
            return
        st = self.state
        scene = self._table_now().scene()
        self._emit(Event("condition", {"model": m.id, "name": VOLLEY_MARK, "on": True,
                                       "value": json.dumps({"feat": f.name})}))
        friends = [x for x in st.alive(m.player) if x.id != m.id and x.elsewhere is None]
        inside = ki.targets_in_area(scene, m.id, f, [x.id for x in friends])
        for x in friends:
            if x.id not in inside or VOLLEY_MARK in x.conditions or self.ranged_weapon(x.id, None) is None:
                continue
            view = view_of(self.profile(x.id), friendly=True, conditions=x.conditions)
            if not keyword_matches(", ".join(op.volley), view):
                continue
            self._emit(Event("condition", {"model": x.id, "name": VOLLEY_MARK, "on": True,
                                           "value": json.dumps({"feat": f.name})}))
            self._emit(Event("condition", {"model": x.id, "name": TRIGGER_MARK + f.name, "on": True,
                                           "value": f"on {m.id}'s {f.name}: one ranged attack {LATER}"}))

    def _volley_targets(self, mid: str, op: Any) -> list[str]:
        """The enemies ``mid`` may shoot now (:meth:`feat_shot_refusal`), nearest first."""
        st = self.state
        scene = self._table_now().scene()
        plain = op.model_copy(update={"ignore": [], "volley": []})
        pool = sorted(st.alive(3 - st.models[mid].player), key=lambda t: (scene.distance(mid, t.id), t.id))
        return [t.id for t in pool if self.feat_shot_refusal(mid, t.id, plain) is None]

    def later_offers(self, mid: str, feat: str) -> list[Action]:
        """A volley's delayed shot: one offer per enemy the model may shoot; other delayed
        steps as :class:`~sim.rules.game.feat_moves.FeatMoves` says."""
        op = self._volley_op(feat)
        if op is None:
            return super().later_offers(mid, feat)
        return [Action("feat_later", mid, feat=feat, target=t) for t in self._volley_targets(mid, op)]

    def later_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why a volley's delayed shot may not be made at ``action.target`` (None when it may)."""
        op = self._volley_op(action.feat or "")
        if op is None:
            return super().later_refusal(m, action)
        if action.target is None:
            return "name the model it shoots (target), or decline the shot"
        if action.target not in self._volley_targets(m.id, op):
            return f"{m.id} may not shoot {action.target} now (p.30)"
        return None

    def resolve_later(self, action: Action) -> None:
        """A volley's delayed shot: the model's ranged attack at the named model (its first
        ranged weapon, p.30-32; no counter); the wait ends."""
        if self._volley_op(action.feat or "") is None:
            super().resolve_later(action)
            return
        assert action.model is not None and action.feat is not None and action.target is not None  # judged legal
        self._emit(Event("note", {"text": f"{action.feat}: {action.model} makes a ranged attack at {action.target}"}))
        self.trigger_done(action.model, action.feat)
        self._shoot(action.model, action.target, None)
