"""Ki feats that interrupt an enemy at more moments (round 6, helper F3; p.46-47, p.24, Place
p.23): the ``targeted_by`` field of a ``trigger:targeted`` entry (:mod:`sim.rules.feat_effects`).

Round 4 opened one window: an enemy Charge, Melee or Shoot DECLARED at the model waits for
its player's answer (:meth:`~sim.rules.game.feat_triggers.FeatTriggers.targeted_window`).
An entry's ``targeted_by`` names the enemy moments it answers instead:

* ``charge``, ``melee``, ``shoot`` -- that action declared at the model (round 4; the
  default when ``targeted_by`` is empty);
* ``contact`` -- an enemy Charge or Melee whose move brought it into base contact with the
  model (it was not touching it before the move), after the Fear tests of the contact and
  before the melee exchange opens (Mirage: "entered into BtB ... but before any Melee
  Exchange begins"). The exchange's data wait in the mark ``feat_interrupt:<feat>``
  (``{"exchange": data, "ends": false}``); when the answer is given the exchange opens,
  unless the feat ended the action (``ends_action``): then it "counts as resolved" with no
  exchange;
* ``feat`` -- an enemy Target Ki feat declared at the model during the enemy's activation
  (a Simple or Complex feat action, or an Instant / Active feat of the active player, not
  inside a melee exchange). The enemy feat waits unpaid; after the answer it is used as
  declared, or, when the answering feat ended it, it is not used at all (no Ki paid).

An ``opposed`` feat of a trigger that is not a Target feat (Mirage, area Special) takes its
Opposed Ki test against the triggering enemy: the offer names that enemy as the action's
``target`` (:meth:`FeatInterrupts.trigger_opponent`).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

from sim.rules.feat_effects import FeatEffect, MoveOp, entry_status, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart

#: The mark prefixes shared with :mod:`sim.rules.game.feat_triggers`.
_INTERRUPT, _TRIGGER = "feat_interrupt:", "feat_trigger:"
#: The round 4 moments of a ``trigger:targeted`` feat with no ``targeted_by``.
DEFAULT_TARGETED_BY = ("charge", "melee", "shoot")
#: The feat action kinds (Simple, Complex, Instant / Active).
FEAT_KINDS = ("ki_feat", "complex_ki_feat", "feat")


class FeatInterrupts(GamePart):
    """More interrupt moments for ``trigger:targeted`` feats (see the module docstring)."""

    # ------------------------------------------------------------ which moments
    def targeted_moment(self, action: Action) -> str | None:
        """The ``targeted_by`` moment an enemy's declared ``action`` is: ``charge``,
        ``melee``, ``shoot``, or ``feat`` for a Ki feat whose card is a Target feat (its
        ``target`` the model), else None."""
        if action.kind in DEFAULT_TARGETED_BY:
            return action.kind
        if action.kind in FEAT_KINDS and action.model and action.target:
            f = self.feats(action.model).get(action.feat or "")
            if f is not None and f.area == "target":
                return "feat"
        return None

    def answers_moment(self, entry: FeatEffect, moment: str) -> bool:
        """Whether a ``trigger:targeted`` entry answers ``moment`` (its ``targeted_by``,
        default :data:`DEFAULT_TARGETED_BY`)."""
        return moment in (tuple(entry.targeted_by) or DEFAULT_TARGETED_BY)

    def _interrupting_feat(self, target: str, moment: str) -> str | None:
        """The first feat of ``target`` that answers ``moment`` now (its entry applied, its
        model on the table and able to pay), or None."""
        st = self.state
        t = st.models.get(target)
        if t is None or not t.alive or t.elsewhere is not None:
            return None
        for f in self.feats(t.id).values():
            entry = feat_effect(f.name)
            if entry is None or entry.when != "trigger:targeted" or not entry_status(entry)[0]:
                continue
            if entry.watch != "self" or not self.answers_moment(entry, moment):
                continue
            if self._may_answer(t, f.name):
                return f.name
        return None

    def _open(self, target: str, feat: str, mid: str, what: str, data: dict) -> None:
        """Mark the wait: the interrupt's data, the trigger naming the enemy ``mid``."""
        t = self.state.models[target]
        self._emit(Event("condition", {"model": target, "name": _INTERRUPT + feat, "on": True,
                                       "value": json.dumps({**data, "ends": False}, sort_keys=True)}))
        self._emit(Event("condition", {"model": target, "name": _TRIGGER + feat, "on": True,
                                       "value": f"on {mid}'s {what} [trigger: {mid}]"}))
        self._emit(Event("note", {"text": f"{feat}: {mid}'s {what} waits for player {t.player} (use it or not)"}))

    # ------------------------------------------------------------ contact, before the exchange
    def contact_window(self, mid: str, data: dict, start: tuple[float, float]) -> bool:
        """Before the exchange ``data`` of ``mid``'s Charge / Melee opens: when its defender
        has a feat that answers ``contact`` and ``mid`` was not touching it where its move
        began (``start``), the exchange waits in that feat's mark for the defender's
        player (True); False: open it now."""
        st = self.state
        dfn = str(data.get("defender") or "")
        if dfn not in st.models or st.exchange is not None:
            return False
        feat = self._interrupting_feat(dfn, "contact")
        if feat is None:  # round 6 (F6): a friend's feat may answer it (feat_redirects)
            return self.friend_contact_window(mid, data, start)
        gap = math.dist(start, st.models[dfn].position) - self.table.model(mid).radius - self.table.model(dfn).radius
        if gap <= 0.01 + 1e-9:  # CONTACT: it was in base contact already, it did not enter it
            return False
        self._open(dfn, feat, mid, "move into base contact", {"exchange": data, "by": mid})
        return True

    # ------------------------------------------------------------ an enemy Instant / Active feat
    def feat_target_window(self, action: Action) -> bool:
        """When an Instant / Active feat ``action`` of the active player's model (in its
        Main phase, outside an exchange) is a Target feat at an enemy with a feat that
        answers ``feat``, the feat waits unpaid for that player (True)."""
        st = self.state
        m = st.models.get(action.model or "")
        if (m is None or action.kind != "feat" or st.exchange is not None or st.phase != "main"
                or m.player != st.active or self.targeted_moment(action) != "feat"):
            return False
        t = st.models.get(action.target or "")
        if t is None or t.player == m.player:
            return False
        feat = self._interrupting_feat(t.id, "feat")
        if feat is None:  # round 6 (F6): a friend's feat may answer it (feat_redirects)
            return self.friend_watch_window(m.id, action, "feat")
        if _TRIGGER + (action.feat or "") in m.conditions:  # it answered a trigger of its own: that is done
            self._emit(Event("condition", {"model": m.id, "name": _TRIGGER + (action.feat or ""), "on": False}))
        self._open(t.id, feat, m.id, f"Ki feat {action.feat}", {"action": action.to_json()})
        return True

    def resume_interrupt(self, mid: str, feat: str, data: dict) -> str:
        """The answer to an interrupt of this module was given (``data``: the mark's, already
        removed): the held exchange opens or the held Instant / Active feat is used, unless
        the answer ended it. Returns ``"exchange"`` (the enemy action then ends as usual),
        ``"feat"`` (an Instant / Active feat is no action: the active player goes on) or
        ``""`` for a round 4 declared action (the caller resolves it)."""
        st = self.state
        if "exchange" in data:
            ex = data["exchange"]
            att, dfn = str(ex.get("attacker")), str(ex.get("defender"))
            if data.get("ends"):
                self._emit(Event("note", {"text": f"{feat}: {att}'s action counts as resolved: no melee exchange"}))
            elif att in st.models and st.models[att].alive and dfn in st.models and st.models[dfn].alive \
                    and dfn in self.enemies_in_contact(att):
                self.open_exchange(ex)
            else:
                self._emit(Event("note", {"text": f"{att} is no longer in contact with {dfn}: no melee exchange"}))
            return "exchange"
        declared = Action.from_json(data["action"])
        if declared.kind != "feat":
            return ""
        user = st.models.get(declared.model or "")
        if data.get("ends"):
            self._emit(Event("note", {"text": f"{feat}: {declared.model}'s {declared.feat} counts as resolved "
                                              "without effect (its Ki is not spent)"}))
        elif user is not None and user.alive:
            self._use_feat(user, declared)
        return "feat"

    # ------------------------------------------------------------ the answer's offer
    def trigger_opponent(self, mid: str, feat: str) -> str | None:
        """The enemy an ``opposed`` trigger feat that is not a Target feat (Mirage) tests
        against: the model its waiting trigger names; None for other feats."""
        f = self.feats(mid).get(feat)
        if f is None or f.area == "target" or not f.opposed:
            return None
        return self.trigger_target(mid, feat)

    def interrupt_point(self, mid: str, feat: str, use: Action) -> Action:
        """``use`` (the answer to ``mid``'s waiting feat) with a destination for its ``place``
        move away from the enemy its trigger names: the first legal point at the move's full
        distance (then 3/4, 1/2, 1/4 of it) round the model, farthest from that enemy first
        (any other legal point may be named instead); ``use`` unchanged when none is found or
        the trigger names no enemy."""
        entry = feat_effect(feat)
        if entry is None or entry.affects != "self" or self.trigger_target(mid, feat) is None:
            return use
        op = next((e for e in entry.effects if isinstance(e, MoveOp) and e.kind == "place" and e.at is None), None)
        if op is None or not isinstance(op.distance, (int, float)):
            return use
        st = self.state
        me = st.models[mid].position
        foe = st.models.get(self.trigger_target(mid, feat) or "")
        away = math.atan2(me[1] - foe.position[1], me[0] - foe.position[0]) if foe is not None else 0.0
        for frac in (1.0, 0.75, 0.5, 0.25):
            r = float(op.distance) * frac - 1e-3
            for k in range(24):  # 0, +15, -15, +30 ... degrees off "away"
                a = away + math.radians(15.0 * ((k + 1) // 2) * (1 if k % 2 else -1))
                p = (me[0] + r * math.cos(a), me[1] + r * math.sin(a))
                if self._move_problem(mid, mid, op, p, use) is None:
                    return replace(use, point=p)
        return use
