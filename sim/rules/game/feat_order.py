"""Ki feats that change the order of activations (rulebook p.20-21; feat vocabulary round 6,
F1).

p.20-21: the active player chooses one of its models that has activation counters as the
activating model, or spends a pass token; then the other player becomes the active player.
The ``activation`` op binds that choice:

* ``rule: next`` (Dominate): the affected model's player must choose it as its next
  activating model, ignoring Impetuous markers (p.44); with ``no_pass`` that player may not
  spend a pass token before. The mark ``feat_order:next`` on the model (JSON ``{"feat",
  "no_pass"}``); it goes when a model of that player begins an activation, and in the End
  phase. While it is there (and the model has counters), no other model of its side may
  begin an activation (:meth:`FeatOrder.order_lock`).
* ``rule: last`` (Fog of Hesitation): the mark ``feat_order:last``; the model may not begin
  an activation while another model of its warband without the mark could; gone in the End
  phase.
* ``rule: now`` (Blood Brothers, Endless Gnawing): the affected model's player becomes the
  active player again (an ``active`` event) and the model must begin the next activation
  (``feat_order:next`` with ``no_pass``).
* ``rule: no_pass`` (Provoke): the mark ``feat_order:no_pass``: its player may not spend a
  pass token before one of its models begins an activation.

The ``when`` value ``trigger:friend_activation_end`` (Blood Brothers, Endless Gnawing): the
activation of another friendly model (``watch: friends``, ``watch_keywords``, within the
feat's range) has ended -- marked for the feat's player like the other triggers
(:mod:`sim.rules.game.feat_triggers`) when the activation's effects end.

A mixin of :class:`~sim.rules.game.Game` (through :class:`~sim.rules.game.feat_step.FeatStep`).
"""

from __future__ import annotations

import json
import math
from typing import Any

from sim.rules import ki, movement
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.feat_effects import entry_status, feat_effect
from sim.rules.game.actions import ACTION_KINDS, Action
from sim.rules.game.events import Event
from sim.rules.game.feat_moves import FeatMoves
from sim.rules.game.feat_triggers import LATER, LATER_MARK, OWN_ACTIVATION, TRIGGER_MARK, FeatTriggers
from sim.rules.game.state import ModelState

#: The prefix of the activation-order marks (``feat_order:next`` / ``last`` / ``no_pass``).
ORDER_MARK = "feat_order:"
#: The moment a friend's activation ended.
FRIEND_END = "trigger:friend_activation_end"
#: Noted in the trigger mark of a declaration the opposing player must make (Prediction).
DECLARE = "[declare]"
#: The step (inches) of the search for a forced Walk's end, and how far a declared point may lie from it.
_WALK_AT_STEP = 0.1
_WALK_AT_SLACK = 0.05


class FeatOrder(FeatTriggers, FeatMoves):
    """Activation order feats: the ``activation`` op, its locks and the friend's-activation
    trigger."""

    # ------------------------------------------------------------ the op
    def activation_op_refusal(self, m: ModelState, entry: Any, action: Action) -> str | None:
        """Why ``action`` may not use the feat of ``entry`` now because of its ``activation``
        ops (None when it may): ``next`` reaches a non-Exhausted model only (Dominate's
        "non-Exhausted"); ``now`` needs an affected model (the user) with counters."""
        for op in entry.effects:
            if getattr(op, "op", "") != "activation":
                continue
            if op.rule == "next" and action.target:
                t = self.state.models.get(action.target)
                if t is not None and t.exhausted:
                    return f"{t.id} is Exhausted: it cannot be made to activate next"
            if op.rule == "now" and entry.affects == "self" and m.exhausted:
                return f"{m.id} is Exhausted: it cannot begin an activation"
            if op.rule == "walk_at_user" and action.target and action.target in self.state.models:
                t = self.state.models[action.target]
                friends = [x.id for x in self.state.alive(m.player) if x.id != t.id]
                touching = [x for x in friends if self._touching(t.id, x)]
                if touching:
                    return f"{t.id} is in base contact with {touching[0]}, a model of {m.id}'s side"
        return None

    def _touching(self, a: str, b: str) -> bool:
        """Whether models ``a`` and ``b`` are in base contact (p.4)."""
        st = self.state
        gap = (math.dist(st.models[a].position, st.models[b].position) - self.table.model(a).radius
               - self.table.model(b).radius)
        return gap <= movement.CONTACT + 1e-9

    def apply_activation_op(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """The ``activation`` op on model ``mid`` (see the module docstring)."""
        st = self.state
        t = st.models[mid]
        if op.rule in ("next", "now") and t.exhausted:
            self._emit(Event("note", {"text": f"{f.name}: {mid} is Exhausted: no activation to bind"}))
            return
        if op.rule == "declare":  # Prediction: the opposing player names its next activating model now
            names = self._declarable(3 - t.player)
            if not names:
                self._emit(Event("note", {"text": f"{f.name}: player {3 - t.player} has no model to activate"}))
                return
            self._emit(Event("condition", {"model": names[0], "name": TRIGGER_MARK + f.name, "on": True,
                                           "value": f"on {m.id}'s {f.name}: it names its next activating model "
                                                    f"{DECLARE} {LATER}"}))
            return
        if op.rule == "walk_at_user":
            self._emit(Event("condition", {"model": mid, "name": ORDER_MARK + "walk_at", "on": True,
                                           "value": json.dumps({"feat": f.name, "user": m.id}, sort_keys=True)}))
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s next activation is a Walk straight at {m.id} "
                                              "with its full Move (any action if it cannot Walk)"}))
            return
        if op.rule in ("no_action_walk", "envy"):
            until = op.until or "end_phase"
            if op.rule == "envy":
                self._emit(Event("condition", {"model": mid, "name": ORDER_MARK + "envy", "on": True,
                                               "value": json.dumps({"feat": f.name, "until": until}, sort_keys=True)}))
                self._emit(Event("note", {"text": f"{f.name}: {mid} may target no friend but itself with Ki feats, "
                                                  "and only enemies of a higher rice cost, until "
                                                  f"{until.replace('_', ' ')}"}))
                return
            self._emit(Event("condition", {"model": mid, "name": ORDER_MARK + "no_action_walk", "on": True,
                                           "value": json.dumps({"feat": f.name, "until": until}, sort_keys=True)}))
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s Ranged Attack and Melee actions come without their "
                                              f"Walk until {until.replace('_', ' ')}"}))
            return
        if op.rule == "only":
            until = op.until or "end_phase"
            self._emit(Event("condition", {"model": mid, "name": ORDER_MARK + "only", "on": True,
                                           "value": json.dumps({"feat": f.name, "actions": list(op.actions),
                                                                "until": until}, sort_keys=True)}))
            self._emit(Event("note", {"text": f"{f.name}: {mid} may declare only {', '.join(op.actions)} "
                                              f"until {until.replace('_', ' ')}"}))
            return
        if op.rule == "now" and op.at is not None:  # later: a free choice when the activation ends
            self._emit(Event("condition", {"model": mid, "name": LATER_MARK + f.name, "on": True, "value": op.at}))
            self._emit(Event("note", {"text": f"{f.name}: {mid} may activate again when its activation ends"}))
            return
        if op.rule == "now":
            if st.active != t.player:
                self._emit(Event("active", {"player": t.player}))
            self._mark(mid, "next", f.name, True, impetuous=bool(op.ignore_impetuous))
            self._emit(Event("note", {"text": f"{f.name}: player {t.player} is the active player again; {mid} "
                                              "begins an activation"}))
            return
        ignore = op.rule == "next" and op.ignore_impetuous is not False
        self._mark(mid, op.rule, f.name, bool(op.no_pass), impetuous=ignore, traits=list(op.traits))
        if op.traits:  # until the end of its next activation: now, and again when that one begins
            self.grant(mid, f.name, "activation", traits=list(op.traits))
        text = {"next": f"player {t.player} must choose {mid} as its next activating model (Impetuous markers "
                        "ignored)",
                "last": f"{mid} may not be chosen to activate while another model of its warband can",
                "no_pass": f"player {t.player} may not spend a pass token before its next activation"}[op.rule]
        if op.no_pass and op.rule != "no_pass":
            text += "; no pass token before it"
        self._emit(Event("note", {"text": f"{f.name}: {text}"}))

    def _mark(self, mid: str, rule: str, feat: str, no_pass: bool, impetuous: bool = False,
              traits: list[str] | None = None) -> None:
        """The mark ``feat_order:<rule>`` on ``mid``; ``impetuous``: its activation ignores
        Impetuous markers
        (:func:`sim.rules.game.state.order_ignores_impetuous`); ``traits``: gained for its
        next activation."""
        data: dict[str, Any] = {"feat": feat, "no_pass": no_pass, "ignore_impetuous": impetuous}
        if traits:
            data["traits"] = traits
        if rule == "next":  # one binding per side: the latest replaces an earlier one (reading)
            side = self.state.models[mid].player
            for x in self.state.alive(side):
                if x.id != mid and ORDER_MARK + "next" in x.conditions:
                    self._emit(Event("condition", {"model": x.id, "name": ORDER_MARK + "next", "on": False}))
        self._emit(Event("condition", {"model": mid, "name": ORDER_MARK + rule, "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))

    # ------------------------------------------------------------ marked enemies (Sick Em!)
    def apply_mark_op(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """The ``mark`` op on ``mid``: the mark ``feat_order:mark:<feat>`` (JSON ``{"player",
        "keywords", "traits", "until"}``), read when an action is declared."""
        data = {"player": m.player, "keywords": list(op.keywords), "traits": list(op.traits), "until": op.until}
        self._emit(Event("condition", {"model": mid, "name": f"{ORDER_MARK}mark:{f.name}", "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))
        self._emit(Event("note", {"text": f"{f.name}: friendly {' or '.join(op.keywords)} models that target or fight "
                                          f"{mid} gain {', '.join(op.traits)} until {op.until.replace('_', ' ')}"}))

    def _marked_action(self, action: Action) -> None:
        """``action`` was declared: a friendly model of a ``mark``'s keywords that targets the
        marked model, or that the marked model declares a Melee or Charge at, gains the
        mark's traits (once per feat and duration)."""
        st = self.state
        for x in list(st.models.values()):
            for key, v in list(x.conditions.items()):
                if not key.startswith(ORDER_MARK + "mark:"):
                    continue
                data = json.loads(str(v))
                feat = key[len(ORDER_MARK + "mark:"):]
                gainer = None
                if action.target == x.id and action.model:
                    gainer = action.model
                elif action.model == x.id and action.kind in ("melee", "charge") and action.target:
                    gainer = action.target
                g = st.models.get(gainer or "")
                if g is None or g.player != data["player"] or not g.alive:
                    continue
                if any(e.get("source") == feat for e in g.effects):
                    continue  # it has them already
                view = view_of(self.profile(g.id), friendly=True, conditions=g.conditions)
                if not keyword_matches(", ".join(data["keywords"]), view):
                    continue
                granted = list(data["traits"])
                self.grant(g.id, feat, data["until"], traits=granted)

    # ------------------------------------------------------------ locks
    def order_lock(self, m: ModelState) -> str | None:
        """Why ``m`` may not begin an activation now because of an activation-order mark
        (None when it may): another model of its side must activate next, or ``m``
        activates last while another model of its warband could activate."""
        st = self.state
        mine = [x for x in st.alive(m.player) if x.id != m.id and not x.exhausted]
        for x in mine:
            if ORDER_MARK + "next" in x.conditions and not st.impetuous_blocks(x):  # an ineligible one binds no more
                feat = json.loads(str(x.conditions[ORDER_MARK + "next"])).get("feat", "a Ki feat")
                return f"{feat}: {x.id} must be the next activating model"
        if ORDER_MARK + "last" in m.conditions and ORDER_MARK + "next" not in m.conditions:
            others = [x for x in mine if ORDER_MARK + "last" not in x.conditions and not st.impetuous_blocks(x)]
            if others:
                feat = json.loads(str(m.conditions[ORDER_MARK + "last"])).get("feat", "a Ki feat")
                return f"{feat}: {m.id} activates only once {', '.join(x.id for x in others)} are Exhausted"
        return None

    def order_pass_lock(self, player: int) -> str | None:
        """Why ``player`` may not spend a pass token now because of an activation-order
        mark (None when it may)."""
        for x in self.state.alive(player):
            for rule in ("next", "no_pass"):
                v = x.conditions.get(ORDER_MARK + rule)
                if v is None or (rule == "next" and x.exhausted):
                    continue
                data = json.loads(str(v))
                if rule == "no_pass" or data.get("no_pass"):
                    return f"{data.get('feat', 'a Ki feat')}: no pass token in this activation"
        return None

    def order_activated(self, mid: str | None) -> None:
        """A model began an activation: the ``no_pass`` marks of its side go (the ``next``
        mark stays until that activation ends: its declaration is judged with it,
        :meth:`order_marks_expire`); a ``mark`` op's traits reach the models its action
        brings against a marked model (:meth:`_marked_action`)."""
        st = self.state
        m = st.models.get(mid or "")
        if m is None:
            return
        if self._actions and self._actions[-1].model == m.id:
            self._marked_action(self._actions[-1])
        for x in list(st.models.values()):
            if x.player == m.player and ORDER_MARK + "no_pass" in x.conditions:
                self._emit(Event("condition", {"model": x.id, "name": ORDER_MARK + "no_pass", "on": False}))
        v = m.conditions.get(ORDER_MARK + "next")
        traits = json.loads(str(v)).get("traits") if v is not None else None
        if traits:  # The Oppressed: for the whole of its next activation
            self.grant(m.id, json.loads(str(v)).get("feat", "a Ki feat"), "activation", traits=list(traits))

    def _next_marks_done(self) -> None:
        """An activation ended: the ``next`` mark of the model that activated goes, and those
        of its friends that can no longer activate (killed, Exhausted: the binding lapses)."""
        st = self.state
        ended = st.models.get(self._last_activated() or "")
        if ended is None:
            return
        for x in list(st.models.values()):
            if x.id == ended.id and ORDER_MARK + "walk_at" in x.conditions:  # its next activation came
                self._emit(Event("condition", {"model": x.id, "name": ORDER_MARK + "walk_at", "on": False}))
            if x.player != ended.player or ORDER_MARK + "next" not in x.conditions:
                continue
            if x.id == ended.id or not x.alive or x.exhausted:
                self._emit(Event("condition", {"model": x.id, "name": ORDER_MARK + "next", "on": False}))

    def order_marks_expire(self, until: str) -> None:
        """The duration ``until`` ends: at the end of the turn every activation-order mark
        goes; at the end of an activation the ``trigger:friend_activation_end`` feats of
        the activated model's friends are marked (:meth:`friend_end_triggers`)."""
        if until == "activation":
            self._next_marks_done()
            self.friend_end_triggers()
        for x in list(self.state.models.values()):
            for key, v in list(x.conditions.items()):
                if not key.startswith(ORDER_MARK) or key == ORDER_MARK + "walk_at":  # walk_at: its next activation
                    continue
                timed = key[len(ORDER_MARK):].split(":")[0] in ("only", "no_action_walk", "mark", "envy")
                lasts = json.loads(str(v)).get("until") if timed else "turn"
                if lasts == until:
                    self._emit(Event("condition", {"model": x.id, "name": key, "on": False}))

    # ------------------------------------------------------------ a declaration by the opponent (Prediction)
    def _declarable(self, player: int) -> list[str]:
        """The models ``player`` could choose as its activating model now (counters, not
        stopped by Impetuous, p.20-21, p.44), in table order."""
        st = self.state
        return [x.id for x in st.alive(player) if not x.exhausted and not st.impetuous_blocks(x)]

    def _declaring(self, mid: str, feat: str) -> bool:
        """Whether ``mid``'s waiting trigger mark of ``feat`` is a declaration (``declare``)."""
        return DECLARE in str(self.state.models[mid].conditions.get(TRIGGER_MARK + feat, ""))

    def decline_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why ``decline_feat`` may not answer ``m``'s waiting mark: a declaration the
        opponent must make (Prediction) cannot be declined."""
        if action.feat and self._declaring(m.id, action.feat):
            return f"{action.feat}: player {m.player} must name its next activating model"
        return None

    def trigger_actions(self) -> list[Action]:
        """The choices while a trigger waits; a declaration (Prediction): one per model its
        player may name, and no refusal."""
        got = self.triggers_pending()
        if got and self._declaring(got[0][0], got[0][1]):
            return self.later_offers(got[0][0], got[0][1])
        return super().trigger_actions()

    # ------------------------------------------------------------ a re-activation when the activation ends
    def _later_activation(self, feat: str) -> Any:
        """The ``activation`` op with ``at`` of feat ``feat``'s entry (Focus Frenzy), or None."""
        entry = feat_effect(feat)
        if entry is None:
            return None
        return next((o for o in list(entry.effects) + list(entry.effects_self)
                     if getattr(o, "op", "") == "activation" and getattr(o, "at", None)), None)

    def later_offers(self, mid: str, feat: str) -> list[Action]:
        """A waiting re-activation (``activation`` ``now`` with ``at``): offered while the
        model has a counter; a declaration: one per model its player may name; other
        delayed steps as :class:`~sim.rules.game.feat_moves.FeatMoves` says."""
        if self._declaring(mid, feat):
            player = self.state.models[mid].player
            return [Action("feat_later", mid, feat=feat, target=x) for x in self._declarable(player)]
        if self._later_activation(feat) is None:
            return super().later_offers(mid, feat)
        return [] if self.state.models[mid].exhausted else [Action("feat_later", mid, feat=feat)]

    def later_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why a waiting re-activation may not be taken (the model has no counter left), or
        a declaration names no model its player may activate."""
        if self._declaring(m.id, action.feat or ""):
            if action.target not in self._declarable(m.player):
                return f"name a model of player {m.player} that may activate now (target)"
            return None
        if self._later_activation(action.feat or "") is None:
            return super().later_refusal(m, action)
        return f"{m.id} has no activation counter left" if m.exhausted else None

    def resolve_later(self, action: Action) -> None:
        """Take a waiting re-activation: its player becomes the active player again and the
        model begins the next activation (no Ki is paid again); a declaration: the named model
        must be its player's next activating model."""
        if action.model and action.feat and self._declaring(action.model, action.feat):
            assert action.target is not None  # judged legal
            self._mark(action.target, "next", action.feat, False, impetuous=False)
            self._emit(Event("note", {"text": f"{action.feat}: player {self.state.models[action.model].player} "
                                              f"names {action.target} as its next activating model"}))
            self.trigger_done(action.model, action.feat)
            return
        op = self._later_activation(action.feat or "")
        if op is None:
            super().resolve_later(action)
            return
        assert action.model is not None and action.feat is not None  # judged legal
        m = self.state.models[action.model]
        f = self.feats(m.id)[action.feat]
        self.apply_activation_op(m, f, op.model_copy(update={"at": None}), m.id)
        self.trigger_done(m.id, action.feat)

    # ------------------------------------------------------------ forced and limited actions
    def order_action_refusal(self, mid: str, action: Action) -> str | None:
        """Why model ``mid`` may not declare ``action`` because of an ``only`` or
        ``walk_at_user`` mark (None when it may; answers and Instant/Active feats are no
        actions and always may)."""
        m = self.state.models.get(mid)
        kind = ACTION_KINDS.get(action.kind)
        if m is None or kind is None or kind.timing != "activation":
            return None
        why = self.envy_refusal(mid, action)
        if why:
            return why
        v = m.conditions.get(ORDER_MARK + "only")
        if v is not None:
            data = json.loads(str(v))
            base = {"complex_ki_feat": "ki_feat", "complex_scenario": "scenario"}.get(action.kind, action.kind)
            if base not in data["actions"]:
                return f"{data['feat']}: {mid} may declare only {', '.join(data['actions'])}"
        v = m.conditions.get(ORDER_MARK + "no_action_walk")
        if v is not None:  # Instil Sloth: no Walk with a Shoot, a Melee only from base contact
            feat = json.loads(str(v))["feat"]
            if action.kind == "shoot" and action.walk is not None:
                return f"{feat}: {mid}'s Ranged Attack may not make its Walk"
            if action.kind == "melee" and action.target not in self.enemies_in_contact(mid):
                return f"{feat}: {mid}'s Melee may not make its move (only at an enemy in base contact)"
        v = m.conditions.get(ORDER_MARK + "walk_at")
        if v is not None:
            data = json.loads(str(v))
            pt = self.walk_at_point(mid)
            if pt is not None and (action.kind != "walk" or action.point is None
                                   or math.dist(tuple(action.point), pt) > _WALK_AT_SLACK):
                return (f"{data['feat']}: {mid} must Walk straight at {data['user']} with its full Move, to "
                        f"({pt[0]:.2f}, {pt[1]:.2f})")
        return None

    def envy_refusal(self, mid: str, action: Action) -> str | None:
        """Why ``mid`` under an ``envy`` mark may not declare ``action`` (an action or a Ki
        feat): a Ki feat at a friendly model other than itself; an action or feat at an enemy
        model whose rice cost is not higher than its own (no rice cost counts as 0). None
        when it may."""
        st = self.state
        m = st.models.get(mid)
        v = m.conditions.get(ORDER_MARK + "envy") if m is not None else None
        t = st.models.get(action.target or "")
        if v is None or m is None or t is None or t.id == mid:
            return None
        feat = json.loads(str(v))["feat"]
        if t.player == m.player:
            if action.feat:
                return f"{feat}: {mid} may use no Ki feat at a friendly model other than itself"
            return None
        mine = getattr(self.profile(mid), "rice", None) or 0
        theirs = getattr(self.profile(t.id), "rice", None) or 0
        if theirs <= mine:
            return f"{feat}: {mid} targets only enemies of a higher rice cost than its own ({mine})"
        return None

    def walk_at_point(self, mid: str) -> tuple[float, float] | None:
        """Where the Walk a ``walk_at_user`` mark forces on ``mid`` ends: the farthest point
        straight toward the feat's user, up to its Move, that a Walk may reach (p.22-23;
        it stops in base contact with the user); None when it cannot Walk that way (then it
        activates without restriction)."""
        key = (len(self.events), mid)
        cache = self.__dict__.setdefault("_feat_walk_at", {})
        if key in cache:
            return cache[key]
        cache.clear()
        st = self.state
        m = st.models[mid]
        v = m.conditions.get(ORDER_MARK + "walk_at")
        user = st.models.get(json.loads(str(v)).get("user", "")) if v is not None else None
        got: tuple[float, float] | None = None
        if user is not None and user.alive and user.elsewhere is None:
            table = self._table_now()
            a, b = m.position, user.position
            n = math.dist(a, b)
            gap = n - table.model(mid).radius - table.model(user.id).radius
            reach = min(float(table.model(mid).move or 0), max(0.0, gap))
            if n > 1e-9 and reach > 1e-6:
                ux, uy = (b[0] - a[0]) / n, (b[1] - a[1]) / n
                k = int(reach / _WALK_AT_STEP + 1e-9)
                for d in [reach] + [i * _WALK_AT_STEP for i in range(k, 0, -1)]:
                    p = (a[0] + ux * d, a[1] + uy * d)
                    if movement.check_walk(table, mid, [p]).legal:
                        got = p
                        break
        cache[key] = got
        return got

    def order_offers(self, player: int) -> list[Action]:
        """The forced Walk of each model of ``player`` under a ``walk_at_user`` mark that may
        begin an activation now (:meth:`walk_at_point`)."""
        out = []
        for m in self.state.alive(player):
            if ORDER_MARK + "walk_at" not in m.conditions or m.exhausted or self.order_lock(m):
                continue
            pt = self.walk_at_point(m.id)
            if pt is not None:
                out.append(Action("walk", m.id, point=pt))
        return out

    # ------------------------------------------------------------ the trigger
    def _last_activated(self) -> str | None:
        """The model of the last ``activate`` event this turn (None: none yet)."""
        for ev in reversed(self.events):
            if ev.kind == "activate":
                return str(ev.data.get("model") or "") or None
            if ev.kind in ("turn", "phase"):
                return None
        return None

    def friend_end_triggers(self) -> None:
        """The activation of the last activated model has ended: each other friendly model
        with a :data:`FRIEND_END` feat watching it (``watch: friends``, its keywords and
        range), not Exhausted, with the Ki, gets the trigger mark; the game then waits for
        its player (:mod:`sim.rules.game.feat_triggers`)."""
        st = self.state
        if st.phase != "main":
            return
        index = self.__dict__.get("_feat_friend_end")
        if index is None:
            index = self.__dict__["_feat_friend_end"] = [
                (m.id, f.name) for m in st.models.values() for f in self.feats(m.id).values()
                if (e := feat_effect(f.name)) is not None and e.when == FRIEND_END and entry_status(e)[0]]
        if not index:
            return
        ended = self._last_activated()
        if ended is None or ended not in st.models:
            return
        for mid, feat in index:
            m = st.models[mid]
            if mid == ended or not m.alive or m.elsewhere is not None or m.exhausted:
                continue
            entry = feat_effect(feat)
            if entry is None or not self._watches(m, feat, entry, FRIEND_END, ended):
                continue
            if not self._may_answer(m, feat) or st.impetuous_blocks(m):  # it begins an activation (p.44)
                continue
            f = self.feats(mid).get(feat)
            text = f"on the end of {ended}'s activation [friend: {ended}]"
            if f is not None and f.timing == "active":
                text += " " + OWN_ACTIVATION
            self._emit(Event("condition", {"model": mid, "name": TRIGGER_MARK + feat, "on": True, "value": text}))
