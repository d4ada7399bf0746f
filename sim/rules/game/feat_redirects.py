"""Ki feats that watch a FRIEND and take an enemy's action on the user instead (round 6,
helper F6; p.46-47 Instant feats, p.24 declared actions): the ``redirect`` op of a
``trigger:targeted`` entry with ``watch: friends`` (:mod:`sim.rules.feat_effects`).

Round 4 and F3 (:mod:`sim.rules.game.feat_interrupts`) hold an enemy action declared at the
model that owns the answering feat. Here the held action was declared at ANOTHER friendly
model of the feat's user, within the feat's range (a Pulse: edge to edge, the friend's
keywords when ``watch_keywords`` names some): an enemy Charge, Melee or Shoot, or an enemy
Target Ki feat (``targeted_by``). The waiting marks go on the user (``feat_interrupt:<feat>``
with the held action, ``feat_trigger:<feat>`` naming the enemy and the friend); the user's
player uses the feat or declines it, and the held action then goes on as in round 4.

The ``redirect`` op rewrites the held action's target to the user: the enemy's Charge,
Melee, Shoot or Ki feat is then made at the user (Intercept, Illicium, Spirit Guardian).
The feat is offered only when the action so changed would be legal (Illicium: "if this
model is a valid Target"; the project's reading for the others, rulings_F6.md). With
``range_to_original`` (Spirit Guardian: "Range is measured to the original Target") the
enemy feat's range is measured to the friend it was declared at: the mark
``feat_range_to`` on the enemy names that friend until the held action is over
(:meth:`FeatRedirects.feat_range_from`, read by :mod:`sim.rules.game.ki_step`).

A ``trigger:targeted`` entry with ``watch: friends`` and ``targeted_by: [contact]`` answers an
enemy Charge / Melee whose move brought it into base contact with a friendly model of the
user (not touching it before the move), before the exchange opens (F3's ``contact`` moment,
watching a friend): a Target feat at that friend (``trigger_target: friend``). Its op
``repel`` moves the enemy directly away from the friend until its base leaves the friend's
ZoC (F3's ``out_of_zoc`` move of the enemy, at most 48"); the held exchange then opens only
if the two still touch (Madamada).

Its op ``join`` (a Pulse feat, ``affects: friends``, ``max_affected: 1``): ANOTHER friendly
model of the Pulse (not the contacted friend; the one the player names, else the nearest)
moves into base contact with the enemy by the shortest route (the ``to_target`` contact
point); the feat is refused when that model cannot reach base contact (Two-Man Rule).

The ``feat_origin`` op of an Aura (Spiritual Conduit): a friendly model inside the Aura (its
keywords: ``target_keywords``, all of them with ``target_keywords_all``) may use the Aura's
user as the point of origin of its Target Ki feats -- range is measured from whichever of the
two is nearer the target (:meth:`FeatRedirects.feat_distance`; the engine checks no LoS for a
feat, p.47) -- while the Aura's user is in base contact with no enemy and in no enemy's ZoC
(``free``). BtB Target feats keep their user as origin.

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any

from sim.rules import ki
from sim.rules.feat_effects import FeatEffect, FeatOriginOp, JoinOp, RedirectOp, entry_status, feat_effect
from sim.rules.game.actions import ACTION_KINDS, Action
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState

#: The mark prefixes shared with :mod:`sim.rules.game.feat_triggers`.
_INTERRUPT, _TRIGGER = "feat_interrupt:", "feat_trigger:"
#: On the enemy whose Ki feat was redirected with ``range_to_original``: the friend its range
#: is measured to (value ``"<feat>|<friend>"``), until the held action is over.
RANGE_MARK = "feat_range_to"


class FeatRedirects(GamePart):
    """Friend-watching ``trigger:targeted`` feats and the ``redirect`` op (module docstring)."""

    # ------------------------------------------------------------ the window
    def friend_watch_window(self, mid: str, action: Action, moment: str) -> bool:
        """When enemy ``mid``'s declared ``action`` (its ``targeted_by`` ``moment``) is aimed
        at a model with a friend whose ``watch: friends`` feat answers it now, the action
        waits in that friend's marks (True); False: it goes on. The first such feat (the
        friends in table order) is offered."""
        st = self.state
        t = st.models.get(action.target or "")
        me = st.models.get(mid)
        if t is None or me is None or not t.alive or t.player == me.player or action.models:
            return False
        for w in st.alive(t.player):
            if w.id == t.id or w.elsewhere is not None:
                continue
            for f in self.feats(w.id).values():
                entry = feat_effect(f.name)
                if entry is None or entry.when != "trigger:targeted" or entry.watch == "self":
                    continue
                if not entry_status(entry)[0] or not self.answers_moment(entry, moment):
                    continue
                if not self._may_answer(w, f.name) or not self._watches_friend(w, f.range, entry, t.id):
                    continue
                op = next((o for o in entry.effects if isinstance(o, RedirectOp)), None)
                if op is not None and not self.redirect_ok(me, action, w.id, op):
                    continue
                if action.kind == "feat" and _TRIGGER + (action.feat or "") in me.conditions:
                    self._emit(Event("condition", {"model": me.id, "name": _TRIGGER + (action.feat or ""),
                                                   "on": False}))  # it answered a trigger of its own: done
                self._emit(Event("condition", {"model": w.id, "name": _INTERRUPT + f.name, "on": True,
                                               "value": json.dumps({"action": action.to_json(), "ends": False,
                                                                    "friend": t.id}, sort_keys=True)}))
                self._emit(Event("condition", {"model": w.id, "name": _TRIGGER + f.name, "on": True,
                                               "value": f"on {mid}'s {action.kind} at {t.id} [trigger: {mid}] "
                                                        f"[friend: {t.id}]"}))
                self._emit(Event("note", {"text": f"{f.name}: {mid}'s {action.kind} at {t.id} waits for player "
                                                  f"{w.player} ({w.id} may use it or not) before it resolves"}))
                return True
        return False

    def _watches_friend(self, w: ModelState, reach: float | None, entry: FeatEffect, friend: str) -> bool:
        """Whether ``friend`` is within the feat's range of ``w`` (edge to edge; no range:
        anywhere) and has the entry's ``watch_keywords``."""
        if reach is not None:
            a, b = self.table.model(w.id), self.table.model(friend)
            if math.dist(w.position, self.state.models[friend].position) - a.radius - b.radius > reach + 1e-6:
                return False
        if entry.watch_keywords:
            from sim.rules.card_keywords import keyword_matches, view_of

            view = view_of(self.profile(friend), friendly=True, conditions=self.state.models[friend].conditions)
            return bool(keyword_matches(", ".join(entry.watch_keywords), view))
        return True

    def friend_contact_window(self, mid: str, data: dict, start: tuple[float, float]) -> bool:
        """Before the exchange ``data`` of ``mid``'s Charge / Melee opens: when a friend of
        its defender has a ``watch: friends`` feat answering ``contact`` (the defender within
        its range) and ``mid`` did not touch the defender where its move began (``start``),
        the exchange waits in that friend's marks (True); False: open it now."""
        st = self.state
        dfn = str(data.get("defender") or "")
        t, me = st.models.get(dfn), st.models.get(mid)
        if t is None or me is None or st.exchange is not None or data.get("models"):
            return False
        gap = math.dist(start, t.position) - self.table.model(mid).radius - self.table.model(dfn).radius
        if gap <= 0.01 + 1e-9:  # CONTACT: it was in base contact already, it did not enter it
            return False
        for w in st.alive(t.player):
            if w.id == dfn or w.elsewhere is not None:
                continue
            for f in self.feats(w.id).values():
                entry = feat_effect(f.name)
                if entry is None or entry.when != "trigger:targeted" or entry.watch == "self":
                    continue
                if not entry_status(entry)[0] or not self.answers_moment(entry, "contact"):
                    continue
                if not self._may_answer(w, f.name) or not self._watches_friend(w, f.range, entry, dfn):
                    continue
                self._emit(Event("condition", {"model": w.id, "name": _INTERRUPT + f.name, "on": True,
                                               "value": json.dumps({"exchange": data, "by": mid, "ends": False,
                                                                    "friend": dfn}, sort_keys=True)}))
                self._emit(Event("condition", {"model": w.id, "name": _TRIGGER + f.name, "on": True,
                                               "value": f"on {mid}'s move into base contact with {dfn} "
                                                        f"[trigger: {mid}] [friend: {dfn}]"}))
                self._emit(Event("note", {"text": f"{f.name}: {mid}'s move into base contact with {dfn} waits for "
                                                  f"player {w.player} ({w.id} may use it or not)"}))
                return True
        return False

    def apply_repel(self, m: ModelState, f: Any, mid: str) -> None:
        """The ``repel`` op of ``m``'s feat ``f`` at friend ``mid``: the enemy its trigger
        names moves directly away from ``mid`` until it leaves ``mid``'s ZoC (a ``move``
        event), or a note when it does not move."""
        v = str(self.state.models[m.id].conditions.get(_TRIGGER + f.name, ""))
        got = re.search(r"\[trigger: ([^\]]+)\]", v)
        enemy = got.group(1) if got else ""
        if enemy not in self.state.models or not self.state.models[enemy].alive:
            self._emit(Event("note", {"text": f"{f.name}: no enemy to move"}))
            return
        pt = self.out_of_zoc_point(m.id, f.name, enemy, 48.0)  # away from the trigger's friend (mid)
        if pt is None:
            self._emit(Event("note", {"text": f"{f.name}: {enemy} does not move"}))
            return
        x = self.state.models[enemy]
        self._emit(Event("move", {"model": enemy, "move": f"out of {mid}'s ZoC ({f.name}, not an action)",
                                  "to": [float(pt[0]), float(pt[1])], "cost": float(math.dist(x.position, pt)),
                                  "facing": x.facing}))

    def _trigger_names(self, mid: str, feat: str) -> tuple[str, str]:
        """``(enemy, friend)`` that the waiting trigger mark of ``mid``'s ``feat`` names
        (``""`` for one it does not name)."""
        v = str(self.state.models[mid].conditions.get(_TRIGGER + feat, ""))
        e, f = re.search(r"\[trigger: ([^\]]+)\]", v), re.search(r"\[friend: ([^\]]+)\]", v)
        return (e.group(1) if e else ""), (f.group(1) if f else "")

    def not_watched_friend(self, m: ModelState, f: Any, entry: FeatEffect, out: list[str]) -> list[str]:
        """``out`` (the models a feat reaches) without the friend a ``watch: friends`` feat's
        waiting trigger names ("another different Friendly model")."""
        if entry.watch == "self" or not any(isinstance(o, JoinOp) for o in entry.effects):
            return out
        friend = self._trigger_names(m.id, f.name)[1]
        return [x for x in out if x != friend]

    def _join_point(self, enemy: str, mid: str, op: JoinOp) -> tuple[float, float] | None:
        """Where ``mid`` ends in base contact with ``enemy`` by the shortest route within the
        op's distance, or None when it cannot reach base contact."""
        st = self.state
        pt = self._contact_point(enemy, mid, float(op.distance))
        if pt is None:
            return None
        gap = math.dist(pt, st.models[enemy].position) - self.table.model(mid).radius - self.table.model(enemy).radius
        return pt if gap <= 0.01 + 1e-9 else None

    def join_refusal(self, m: ModelState, f: Any, entry: FeatEffect, action: Action) -> str | None:
        """Why ``m``'s ``join`` feat may not be used now: no other friendly model of the
        Pulse, the watched friend named, or the model cannot reach base contact with the
        enemy ("this feat cannot be used"); None when it may."""
        op = next((o for o in entry.effects if isinstance(o, JoinOp)), None)
        if op is None:
            return None
        enemy, friend = self._trigger_names(m.id, f.name)
        if enemy not in self.state.models:
            return f"{f.name}: no enemy to move into contact with"
        if friend and friend in action.models:
            return f"{f.name}: choose another friendly model than {friend}"
        movers = self.feat_affected(m, f, entry, action)
        if not movers:
            return f"{f.name}: no other friendly model in the Pulse"
        for mid in movers:
            if self._join_point(enemy, mid, op) is None:
                return f"{f.name}: {mid} cannot reach base contact with {enemy}"
        return None

    def apply_join(self, m: ModelState, f: Any, op: JoinOp, mid: str) -> None:
        """The ``join`` op: ``mid`` moves into base contact with the enemy the trigger names
        (a ``move`` event), or a note when it no longer can."""
        enemy = self._trigger_names(m.id, f.name)[0]
        pt = self._join_point(enemy, mid, op) if enemy in self.state.models else None
        if pt is None:
            self._emit(Event("note", {"text": f"{f.name}: {mid} cannot reach {enemy or 'the enemy'}: no move"}))
            return
        x = self.state.models[mid]
        self._emit(Event("move", {"model": mid, "move": f"into contact with {enemy} ({f.name}, not an action)",
                                  "to": [float(pt[0]), float(pt[1])], "cost": float(math.dist(x.position, pt)),
                                  "facing": x.facing}))

    # ------------------------------------------------------------ the redirect op
    def redirect_ok(self, enemy: ModelState, action: Action, user: str, op: RedirectOp) -> bool:
        """Whether ``enemy``'s ``action`` would be legal with ``user`` as its target (a Melee
        that would fall back on the enemy it touches is not, p.24): a Ki
        feat's target also within its range (a feat may be declared beyond it and fail, p.47,
        but a redirect needs a valid target), unless ``range_to_original`` measures the range
        to the first target."""
        moved = replace(action, target=user)
        self.__dict__["_f6_range_to"] = (enemy.id, action.target) if op.range_to_original else None
        try:
            if action.kind in ("feat", "ki_feat", "complex_ki_feat") and not op.range_to_original:
                f = self.feats(enemy.id).get(action.feat or "")  # a valid target: within the feat's range
                d = self._table_now().scene().distance(enemy.id, user)
                if f is None or not ki.in_target_range(f, d):
                    return False
            if action.kind == "feat":
                return self._feat_legal(enemy, moved)[0]
            if action.kind == "melee" and self.melee_fallback(enemy.id, user):
                return False  # legal only as a fight with the enemy it touches (p.24): not at the user
            return bool(ACTION_KINDS[action.kind].legal(self, enemy, moved)[0])
        finally:
            self.__dict__["_f6_range_to"] = None

    def apply_redirect(self, m: ModelState, f: Any, op: RedirectOp) -> None:
        """The ``redirect`` op of ``m``'s feat ``f``: the enemy action held in its mark takes
        ``m`` as its target (a note when nothing waits)."""
        key = _INTERRUPT + f.name
        v = self.state.models[m.id].conditions.get(key)
        if v is None:
            self._emit(Event("note", {"text": f"{f.name}: no enemy action waits to be redirected"}))
            return
        data = json.loads(str(v))
        declared = Action.from_json(data["action"])
        first = declared.target
        data["action"] = replace(declared, target=m.id).to_json()
        self._emit(Event("condition", {"model": m.id, "name": key, "on": True,
                                       "value": json.dumps(data, sort_keys=True)}))
        if op.range_to_original and declared.model in self.state.models:
            self._emit(Event("condition", {"model": declared.model, "name": RANGE_MARK, "on": True,
                                           "value": f"{declared.feat}|{first}"}))
        self._emit(Event("note", {"text": f"{f.name}: {declared.model}'s {declared.kind} is made at {m.id} "
                                          f"instead of {first}"
                                          + (" (its range measured to the first target)" if op.range_to_original
                                             else "")}))

    def feat_range_from(self, mid: str, target: str) -> str:
        """The model ``mid``'s Target feat at ``target`` measures its range to: ``target``,
        or the first target of a feat redirected with ``range_to_original``."""
        probe = self.__dict__.get("_f6_range_to")
        if probe is not None and probe[0] == mid and probe[1] in self.state.models:
            return str(probe[1])
        m = self.state.models.get(mid)
        v = m.conditions.get(RANGE_MARK) if m is not None else None
        if v is not None:
            first = str(v).split("|", 1)[-1]
            if first in self.state.models:
                return first
        return target

    # ------------------------------------------------------------ feat_origin (an Aura)
    def feat_origins(self, mid: str) -> list[str]:
        """The models whose ``feat_origin`` Aura reaches friendly model ``mid`` now (not
        ``mid`` itself) and that are free of enemies (no base contact, no enemy ZoC)."""
        st = self.state
        me = st.models.get(mid)
        if me is None or not me.alive:
            return []
        out: list[str] = []
        for user, _feat, entry, _x, _opt in self._auras_now():
            op = next((o for o in entry.effects if isinstance(o, FeatOriginOp)), None)
            u = st.models.get(user)
            if op is None or u is None or user == mid or u.player != me.player or user in out:
                continue
            gap = math.dist(u.position, me.position) - self.table.model(user).radius - self.table.model(mid).radius
            if entry.range is not None and gap > entry.range + 1e-6:
                continue
            if entry.target_keywords:
                from sim.rules.card_keywords import keyword_matches, view_of

                view = view_of(self.profile(mid), friendly=True, conditions=me.conditions)
                hits = [bool(keyword_matches(k, view)) for k in entry.target_keywords]
                if not (all(hits) if entry.target_keywords_all else any(hits)):
                    continue
            if op.free and (self.enemies_in_contact(user) or self._in_enemy_zoc(user)):
                continue
            out.append(user)
        return out

    def _in_enemy_zoc(self, mid: str) -> bool:
        """Whether model ``mid`` stands in an enemy model's ZoC now (exact ZoC, p.22)."""
        scene = self._table_now().scene()
        me = self.state.models[mid]
        return any(scene.zoc(e.id, mid).in_zoc for e in self.state.alive(3 - me.player))

    def feat_distance(self, scene: Any, mid: str, target: str, btb: bool = False) -> float:
        """The range of ``mid``'s Target feat to ``target``: measured to the redirected
        feat's first target (:meth:`feat_range_from`), from ``mid`` or (not for a BtB feat)
        from a ``feat_origin`` model nearer the target."""
        to = self.feat_range_from(mid, target)
        d = float(scene.distance(mid, to))
        if not btb and self._auras_now():
            for o in self.feat_origins(mid):
                d = min(d, 0.0 if o == to else float(scene.distance(o, to)))
        return d

    def redirect_done(self) -> None:
        """A held action is over: the ``feat_range_to`` marks go."""
        for m in self.state.models.values():
            if RANGE_MARK in m.conditions:
                self._emit(Event("condition", {"model": m.id, "name": RANGE_MARK, "on": False}))
