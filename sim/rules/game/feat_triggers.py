"""Ki feats used when something happens (p.46-47): the ``trigger:killed_enemy_within``
feats of the data file (Consume Soul, Soul Thirst: "when an enemy model is killed within
X"...").

When a model is killed (a ``killed`` event), every living model with such a feat (its
entry applied by the engine, :func:`sim.rules.feat_effects.entry_status`) for which the
killed model is an enemy within the feat's range (edge to edge, from where it stood) gets
the mark ``feat_trigger:<feat>`` (a condition key whose value is the killed model's id;
kept in positions and saves, never a condition of p.43-45). While a mark waits, the game
waits for its model's player (:meth:`FeatTriggers.trigger_player` is
:meth:`~sim.rules.game.Game.to_move`): :meth:`~sim.rules.game.Game.legal_actions` offers
``Action("feat", model, feat=name)`` (the Instant feat, paid and applied as any other,
``target_ki`` read from the killed model's Ki statistic) when it is legal, and
``Action("decline_feat", model, feat=name)``; any other action is refused until the
marks are answered (models in the order of the table, the active player's first).

The same wait serves the other moments of :data:`EVENT_WHEN` (round 2):
``trigger:wounded`` (the model lost wounds), ``trigger:scenario_action`` (its Scenario
action was resolved), ``trigger:exchange_resolved`` (a melee
exchange it fought was resolved), ``trigger:enemy_contact`` (an enemy's move ended in
base contact with it), ``trigger:failed_fear_test`` (it failed a Fear test) and
``start_phase`` (the Starting phase is over, before the first activation): the mark's
value then says what happened (``"on ..."``). :meth:`FeatTriggers.feat_event_triggers`
reads each event as it is applied (:meth:`~sim.rules.game.Game._emit`). Only Instant
feats (and Active feats of the active player in the Main phase) are marked: the others
are actions of the model's own activation (p.46-47).

A mixin of :class:`~sim.rules.game.Game` (through
:class:`~sim.rules.game.feat_step.FeatStep`); the ``decline_feat`` kind is registered at
the end of the module.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sim.rules import ki
from sim.rules.feat_effects import MoveOp, entry_status, feat_effect
from sim.rules.game.actions import ACTION_KINDS, Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState

#: The prefix of the mark of a trigger waiting for its feat's player.
TRIGGER_MARK = "feat_trigger:"
#: The prefix of the mark that removes a feat's markers when their duration ends (round 3).
EXPIRE_MARK = "feat_expire:"
#: The prefix of the mark of a used feat's delayed step (``move`` with ``at``, round 3).
LATER_MARK = "feat_later:"
#: The mark of an enemy action a ``trigger:targeted`` feat interrupts (round 4):
#: ``feat_interrupt:<feat>`` on the targeted model, value JSON ``{"action", "ends"}`` (the
#: declared action; whether the feat used ended it).
INTERRUPT_MARK = "feat_interrupt:"
#: The declared actions a ``trigger:targeted`` feat answers (their target is the model).
INTERRUPT_KINDS = ("charge", "melee", "shoot")
#: The mark of a feat's rider on a model (round 4, ``rider`` op): ``feat_rider:<feat>``,
#: value JSON ``{"until", "user", "op"}`` (the op as data).
RIDER_MARK = "feat_rider:"
#: Noted in a trigger mark that waits for a delayed step (no feat is paid again).
LATER = "[later step]"
#: Noted in a trigger mark of an Active feat opened during its model's own activation.
OWN_ACTIVATION = "[own activation]"
#: The ``when`` value of the kill trigger.
KILLED_WITHIN = "trigger:killed_enemy_within"
#: The other moments a feat's ``when`` may name that the engine marks (round 2).
EVENT_WHEN = ("trigger:wounded", "trigger:exchange_resolved", "trigger:enemy_contact", "trigger:failed_fear_test",
              "start_phase", "trigger:scenario_action",
              # round 3
              "trigger:dealt_wound", "trigger:attack_succeeded", "trigger:killed_enemy",
              "trigger:enemy_moved_in_pulse")
#: The moments a feat may watch another friendly model for (``watch``, round 3).
WATCHABLE = ("trigger:wounded", "trigger:enemy_contact", "trigger:failed_fear_test",
             "trigger:friend_activation_end")  # round 6 (F1, feat_order)


def damage_dealt(damage) -> dict[str, dict[str, int]]:
    """``{by: {target: wounds}}`` of an exchange's damage rolls
    (:class:`sim.rules.melee.results.DamageEvent`): who rolled damage at whom and the wounds
    it marked (0 for a roll that marked none); kept in the ``exchange`` event for the feat
    triggers ``trigger:dealt_wound`` / ``trigger:attack_succeeded``."""
    out: dict[str, dict[str, int]] = {}
    for d in damage:
        row = out.setdefault(d.by, {})
        row[d.target] = row.get(d.target, 0) + int(d.wounds)
    return out


class FeatTriggers(GamePart):
    """Triggered feats: marks on a kill, the wait, the answers."""

    def feat_kill_triggers(self, killed: str) -> None:
        """After model ``killed`` is removed (p.38): mark each living enemy of it that has
        a ``trigger:killed_enemy_within`` feat with it in range (edge to edge, from where it
        stood) and Ki to pay the feat's cost; the game then waits for those choices."""
        st = self.state
        dead = st.models.get(killed)
        if dead is None:
            return
        try:
            r_dead = self.table.model(killed).radius
        except KeyError:
            return
        for m in st.alive(3 - dead.player):
            if m.elsewhere is not None:
                continue
            for f in self.feats(m.id).values():
                entry = feat_effect(f.name)
                if entry is None or entry.when != KILLED_WITHIN or not entry_status(entry)[0]:
                    continue
                cost = f.cost if isinstance(f.cost, int) else 1
                if m.ki < cost:
                    continue
                d = math.dist(m.position, dead.position) - self.table.model(m.id).radius - r_dead
                if d > f.reach + 1e-6:
                    continue
                self._emit(Event("condition", {"model": m.id, "name": TRIGGER_MARK + f.name, "on": True,
                                               "value": killed}))

    def expire_markers_at(self, mid: str, feat: str, name: str, n: int, until: str) -> None:
        """Note that the ``n`` markers of condition ``name`` feat ``feat`` just gave ``mid``
        go when ``until`` ends (a ``condition`` op with ``until``, round 3): a mark
        ``feat_expire:<feat>:<name>`` whose value is ``"<until> <n>"`` (kept in saves)."""
        key = f"{EXPIRE_MARK}{feat}:{name}"
        old = str(self.state.models[mid].conditions.get(key, ""))
        got = re.match(r"^(\w+) (\d+)$", old)
        total = n + (int(got.group(2)) if got and got.group(1) == until else 0)
        self._emit(Event("condition", {"model": mid, "name": key, "on": True, "value": f"{until} {total}"}))

    def move_later(self, mid: str, feat: str, at: str) -> None:
        """Note that feat ``feat`` of ``mid`` has a step to make at ``at`` (``end_activation``:
        when its activation ends, Dash's 2" move): a mark ``feat_later:<feat>``."""
        self._emit(Event("condition", {"model": mid, "name": LATER_MARK + feat, "on": True, "value": at}))
        self._emit(Event("note", {"text": f"{feat}: {mid} may move when its activation ends"}))

    def feat_marks_expire(self, until: str) -> None:
        """The duration ``until`` ends: the markers noted by :meth:`expire_markers_at` for
        it are removed (as many as are still there) with their marks; at the end of an
        activation a delayed step (:meth:`move_later`) waits for its player."""
        self.roll_marks_expire(until)  # round 6 (F4): feat_rolls
        self.assist_marks_expire(until)  # round 6 (F1): feat_assists
        self.order_marks_expire(until)  # round 6 (F1): feat_order (a friend's activation ended: its triggers)
        self.card_marks_expire(until)  # round 6 (F5): feat_cards (reactions to feats used)
        if until == "activation":
            for m in list(self.state.models.values()):
                for key, v in list(m.conditions.items()):
                    if key.startswith(LATER_MARK) and v == "end_activation":
                        self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                        feat = key[len(LATER_MARK):]
                        if m.alive and m.elsewhere is None and TRIGGER_MARK + feat not in m.conditions:
                            self._emit(Event("condition", {"model": m.id, "name": TRIGGER_MARK + feat, "on": True,
                                                           "value": f"on the end of its activation {LATER}"}))
        for m in list(self.state.models.values()):
            for key, v in list(m.conditions.items()):
                if key.startswith(RIDER_MARK) and json.loads(str(v)).get("until") == until:  # round 4 riders
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                    continue
                if not key.startswith(EXPIRE_MARK):
                    continue
                got = re.match(r"^(\w+) (\d+)$", str(v))
                if got is None or got.group(1) != until:
                    continue
                self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                feat, _, name = key[len(EXPIRE_MARK):].rpartition(":")
                if m.alive:
                    self.remove_markers(m.id, name, int(got.group(2)))
                    self._emit(Event("note", {"text": f"{m.id}: the {name} marker(s) of {feat} end "
                                                      f"({until.replace('_', ' ')})"}))

    def _when_index(self) -> dict[str, list[tuple[str, str]]]:
        """``{when: [(model, feat)]}`` of the applied feats with a :data:`EVENT_WHEN` moment
        on the table (built once per game: cards do not change)."""
        got = self.__dict__.get("_feat_when_index")
        if got is None:
            got = {}
            for m in self.state.models.values():
                for f in self.feats(m.id).values():
                    entry = feat_effect(f.name)
                    if entry is not None and entry.when in EVENT_WHEN and entry_status(entry)[0]:
                        got.setdefault(entry.when, []).append((m.id, f.name))
            self.__dict__["_feat_when_index"] = got
        return got

    def feat_event_triggers(self, ev: Event) -> None:
        """Mark the models whose feats wait for the moment event ``ev`` (just applied)
        makes (:data:`EVENT_WHEN`); nothing when no such feat is on the table.

        Each moment names the WATCHED model (whose event it is) and the triggering model
        (the enemy that contacted / wounded / moved, the model the user wounded, hit or
        killed); a feat with ``watch: friends`` reacts to another friendly model within its
        range (round 3), and a Target feat is then offered at the triggering model
        (``trigger_target: enemy``) or the watched friend (``friend``)."""
        if ev.kind == "activate":
            self.order_activated(ev.data.get("model"))  # round 6 (F1): activation order marks (feat_order)
            self.card_activated(ev.data.get("model"))  # round 6 (F5): on_action reactions (feat_cards)
        if ev.kind == "allocated":
            self.card_allocated(ev.data)  # round 6 (F5): after_exchange reactions (feat_cards)
        index = self._when_index()
        dealt = self._dealt(ev) if (index or ev.kind in ("exchange", "shot", "wounds")) else []
        if dealt and any(k.startswith(RIDER_MARK) for m in self.state.models.values() for k in m.conditions):
            self.feat_riders(dealt)  # round 4: riders of the attack's models (feat_step)
        if ev.kind == "exchange":
            self.counters_instead(ev)  # round 6 (F4): Nerve Strike (feat_rolls)
        if dealt:
            self.roll_marks_used(dealt)  # round 6 (F4): damage-roll marks used (feat_rolls)
        if not index:
            return
        d, k = ev.data, ev.kind
        hits: dict[str, list[tuple[str, str]]] = {}  # when -> [(watched model, triggering model)]
        if "trigger:wounded" in index:
            wounded = [d["model"]] if k == "wounds" and d.get("n", 0) > 0 else []
            if k == "marker_damage" and d.get("wounds", 0) > 0:
                wounded = [d["model"]]
            if k in ("exchange", "shot") and isinstance(d.get("wounds"), dict):
                wounded = [mid for mid, n in d["wounds"].items() if n > 0]
            hits["trigger:wounded"] = [(w, self._wounder(ev, w, dealt)) for w in wounded]
        if k == "exchange":
            hits["trigger:exchange_resolved"] = [(x, "") for x in (d.get("attacker"), d.get("defender")) if x]
        if k == "test" and d.get("test") == "fear" and d.get("passed") is False:
            hits["trigger:failed_fear_test"] = [(d["model"], "")]
        if k == "phase" and d.get("phase") == "main":
            hits["start_phase"] = [(mid, "") for mid, _ in index.get("start_phase", [])]
        if k == "scenario" and "trigger:scenario_action" in index and self._actions:
            act = self._actions[-1]  # the action being resolved: a Scenario action of the model
            if act.kind in ("scenario", "complex_scenario") and act.model:
                hits["trigger:scenario_action"] = [(act.model, "")]
        if k == "move" and "trigger:enemy_contact" in index:
            hits["trigger:enemy_contact"] = [(x, d["model"]) for x in self._contacted_by(d["model"])]
        if k == "move" and "trigger:enemy_moved_in_pulse" in index:
            hits["trigger:enemy_moved_in_pulse"] = self._moved_from_pulse(d["model"])
        if k == "activate":
            self._note_start(d.get("model"))
        if dealt:
            if "trigger:dealt_wound" in index or "trigger:attack_succeeded" in index:
                hits["trigger:dealt_wound"] = [(by, t) for by, t, n, _ in dealt if n > 0]
                hits["trigger:attack_succeeded"] = [(by, t) for by, t, _, _ in dealt]
            if "trigger:killed_enemy" in index:
                hits["trigger:killed_enemy"] = [(by, t) for by, t, _, _ in dealt
                                                if t in self.state.models and not self.state.models[t].alive]
        why = {"trigger:wounded": "on being wounded", "trigger:exchange_resolved": "on the exchange resolved",
               "trigger:failed_fear_test": "on a failed Fear test", "start_phase": "on the start of the turn",
               "trigger:scenario_action": "on its Scenario action",
               "trigger:enemy_contact": f"on {d.get('model')}'s contact",
               "trigger:dealt_wound": "on wounding", "trigger:attack_succeeded": "on a successful attack",
               "trigger:killed_enemy": "on a kill", "trigger:enemy_moved_in_pulse": "on a move from its Pulse"}
        kinds = {by_t[:2]: by_t[3] for by_t in dealt}
        st = self.state
        for when, pairs in hits.items():
            for mid, feat in index.get(when, []):
                m = st.models[mid]
                if not (m.alive and m.elsewhere is None):
                    continue
                entry = feat_effect(feat)
                for watched, source in pairs:
                    if not self._watches(m, feat, entry, when, watched):
                        continue
                    if when in ("trigger:dealt_wound", "trigger:attack_succeeded", "trigger:killed_enemy"):
                        if entry is not None and entry.dealt_by not in ("any", kinds.get((watched, source))):
                            continue
                        if source in st.models and st.models[source].player == m.player:
                            continue  # an enemy model (the user's own friends do not count)
                    if not self._may_answer(m, feat) or not self.trigger_has_use(m, feat, source):
                        continue  # round 6 (F1): a shot near the triggering model needs a model to shoot
                    f = self.feats(mid).get(feat)
                    tid = watched if entry is not None and entry.trigger_target == "friend" else source
                    if f is not None and f.area == "target" and not (tid in st.models and st.models[tid].alive):
                        continue  # a Target feat whose target is gone (killed) cannot be used
                    text = why[when] + (f" [trigger: {source}]" if source else "") + (
                        f" [friend: {watched}]" if watched != mid else "")
                    if when == "trigger:enemy_contact" and watched == mid:
                        text = why[when]  # "on X's contact" (round 2 form)
                    if f is not None and f.timing == "active":  # opened in its own activation
                        text += " " + OWN_ACTIVATION
                    self._emit(Event("condition", {"model": mid, "name": TRIGGER_MARK + feat, "on": True,
                                                   "value": text}))
                    break

    def _watches(self, m: ModelState, feat: str, entry, when: str, watched: str) -> bool:
        """Whether ``m``'s feat ``feat`` reacts to ``watched``'s moment: its own (``watch:
        self``), or another friendly model's within the feat's range (``watch: friends``,
        :data:`WATCHABLE` moments; ``watch_keywords`` must name that friend)."""
        watch = entry.watch if entry is not None else "self"
        if watched == m.id:
            return watch in ("self", "friends_and_self")
        if watch == "self" or when not in WATCHABLE:
            return False
        st = self.state
        w = st.models.get(watched)
        if w is None or w.player != m.player or not w.alive:
            return False
        f = self.feats(m.id).get(feat)
        if f is not None and f.range is not None:
            dist = (math.dist(m.position, w.position) - self.table.model(m.id).radius
                    - self.table.model(watched).radius)
            if dist > f.reach + 1e-6:
                return False
        if entry is not None and entry.watch_keywords:
            from sim.rules.card_keywords import keyword_matches, view_of

            view = view_of(self.profile(watched), friendly=True, conditions=w.conditions)
            return bool(keyword_matches(", ".join(entry.watch_keywords), view))
        return True

    def _wounder(self, ev: Event, wounded: str, dealt: list[tuple[str, str, int, str]]) -> str:
        """The model whose attack wounded ``wounded`` in ``ev`` (the damage roll's maker,
        :meth:`_dealt`; in an exchange else its opponent), or ``""``."""
        got = next((by for by, t, n, _ in dealt if t == wounded and n > 0), "")
        if got or ev.kind != "exchange":
            return got
        att, dfn = ev.data.get("attacker"), ev.data.get("defender")
        return str(dfn if wounded == att else att) if att and dfn else ""

    def note_attacks(self, dealt: dict[str, dict[str, int]], kind: str) -> None:
        """Note, for the ``exchange`` / ``shot`` event emitted next, who reached whom with a
        damage roll and the wounds it marked (``{by: {target: wounds}}``, :func:`damage_dealt`)
        and how (``melee`` / ``ranged``): read by :meth:`feat_event_triggers` for the
        triggers ``trigger:dealt_wound`` / ``attack_succeeded`` / ``killed_enemy``. Kept
        out of the events (saves stay as they were); a re-simulation notes them again."""
        self.__dict__["_feat_dealt"] = (kind, dealt)

    def _dealt(self, ev: Event) -> list[tuple[str, str, int, str]]:
        """``(by, target, wounds, melee|ranged|feat)`` of each attack that reached its
        target in ``ev``: the exchange's damage rolls or the shot that hit
        (:meth:`note_attacks`); a feat's wounds (a ``wounds`` event in the user's feat
        action) count too."""
        d = ev.data
        if ev.kind in ("exchange", "shot"):
            got = self.__dict__.pop("_feat_dealt", None)
            if got is None or (got[0] == "melee") != (ev.kind == "exchange"):
                return []
            return [(by, t, int(n), got[0]) for by, row in got[1].items() for t, n in row.items()]
        if ev.kind == "wounds" and self._actions:
            act = self._actions[-1]
            if act.kind in ("feat", "ki_feat", "complex_ki_feat") and act.model and act.model != d.get("model"):
                return [(act.model, str(d["model"]), int(d.get("n", 0)), "feat")]
        return []

    def _note_start(self, mid: str | None) -> None:
        """Remember where the model activated now stood (``trigger:enemy_moved_in_pulse``)."""
        if mid and mid in self.state.models:
            self.__dict__["_feat_move_start"] = (mid, self.state.models[mid].position)

    def _moved_from_pulse(self, mover: str) -> list[tuple[str, str]]:
        """``(watcher, mover)`` for each model with a ``trigger:enemy_moved_in_pulse`` feat
        whose range held ``mover`` where its activation began (edge to edge)."""
        got = self.__dict__.get("_feat_move_start")
        st = self.state
        me = st.models.get(mover)
        if me is None or not got or got[0] != mover:
            return []
        start = got[1]
        out = []
        for mid, feat in self._when_index().get("trigger:enemy_moved_in_pulse", []):
            m = st.models[mid]
            f = self.feats(mid).get(feat)
            if m.player == me.player or f is None or not m.alive:
                continue
            dist = math.dist(m.position, start) - self.table.model(mid).radius - self.table.model(mover).radius
            if dist <= f.reach + 1e-6:
                out.append((mid, mover))
        return out

    def _contacted_by(self, mover: str) -> list[str]:
        """The enemies of ``mover`` it touches now (base contact, p.33)."""
        st = self.state
        me = st.models.get(mover)
        if me is None or not me.alive:
            return []
        r = self.table.model(mover).radius
        out = []
        for x in st.alive(3 - me.player):
            d = math.dist(x.position, me.position) - r - self.table.model(x.id).radius
            if d <= 0.01 + 1e-9:  # CONTACT (sim.geometry)
                out.append(x.id)
        return out

    def _may_answer(self, m: ModelState, feat: str) -> bool:
        """Whether ``m`` could use ``feat`` out of its activation now: an Instant feat (or an
        Active one of the active player in the Main phase) it has the Ki for, not yet
        waiting."""
        f = self.feats(m.id).get(feat)
        if f is None or TRIGGER_MARK + feat in m.conditions:
            return False
        st = self.state
        if f.timing not in ("instant", "active"):
            return False
        if f.timing == "active" and not (st.phase == "main" and m.player == st.active):
            return False
        cost = f.cost if isinstance(f.cost, int) else 1
        return m.ki >= cost

    def triggers_pending(self) -> list[tuple[str, str, str]]:
        """``(model, feat, killed model)`` of every waiting trigger mark, the active
        player's models first, then in table order."""
        st = self.state
        out = []
        for m in st.alive():
            for k, v in m.conditions.items():
                if k.startswith(TRIGGER_MARK):
                    out.append((m.id, k[len(TRIGGER_MARK):], str(v)))
        out.sort(key=lambda t: st.models[t[0]].player != st.active)
        return out

    def trigger_player(self) -> int | None:
        """The player whose triggered feat waits for a choice now, or None."""
        got = self.triggers_pending()
        return self.state.models[got[0][0]].player if got else None

    def trigger_actions(self) -> list[Action]:
        """The choices while a trigger waits: its feat (when legal) and declining it."""
        got = self.triggers_pending()
        if not got:
            return []
        mid, feat, why = got[0]
        if LATER in why:  # a used feat's delayed step: its move, or none
            return self.later_offers(mid, feat) + [Action("decline_feat", mid, feat=feat)]
        f = self.feats(mid).get(feat)
        target = self.trigger_target(mid, feat) if f is not None and f.area == "target" else None
        target = target or self.trigger_opponent(mid, feat)  # round 6 (F3): an opposed feat's opponent
        use = Action("feat", mid, feat=feat, target=target)
        entry = feat_effect(feat)
        pointed = [e for e in (entry.effects if entry is not None else ()) if isinstance(e, MoveOp)
                   and e.kind in ("walk", "free", "place") and e.at is None]
        if f is not None and pointed and entry is not None and entry.affects == "self":  # its Walk's point
            use = getattr(self, "_with_choices")(self.state.models[mid], f, entry, use)
            use = self.interrupt_point(mid, feat, use)  # round 6 (F3): a place clear of the enemy
        out = [a for a in (use,) if self.is_legal(a)[0]]
        if not out and f is not None and f.variable:
            out = [a for a in (Action("feat", mid, feat=feat, x=1, target=target),) if self.is_legal(a)[0]]
        return out + [Action("decline_feat", mid, feat=feat)]

    def trigger_target(self, mid: str, feat: str) -> str | None:
        """The model a waiting Target feat is offered at: the triggering model (the enemy
        whose move made the contact, that wounded, moved, or that the user wounded or hit),
        or with ``trigger_target: friend`` the watched friend; None when there is none."""
        v = str(self.state.models[mid].conditions.get(TRIGGER_MARK + feat, ""))
        entry = feat_effect(feat)
        got = re.match(r"^on (.+)'s contact$", v)
        if entry is not None and entry.trigger_target == "friend":
            got = re.search(r"\[friend: ([^\]]+)\]", v)
        elif got is None:
            got = re.search(r"\[trigger: ([^\]]+)\]", v)
        return got.group(1) if got and got.group(1) in self.state.models else None

    def trigger_source(self, mid: str, feat: str) -> str | None:
        """The id of the killed model whose death opened feat ``feat`` of ``mid``, or None."""
        v = self.state.models[mid].conditions.get(TRIGGER_MARK + feat)
        return str(v) if v is not None else None

    def own_activation_trigger(self, mid: str, feat: str) -> bool:
        """Whether ``mid``'s first waiting trigger is Active feat ``feat``'s, opened while
        its player was active: the moment is part of its activation ("once the action is
        complete", p.46), so the feat stays usable though the turn has passed on."""
        got = self.triggers_pending()
        if not got or got[0][:2] != (mid, feat):
            return False
        return OWN_ACTIVATION in str(self.state.models[mid].conditions.get(TRIGGER_MARK + feat, ""))

    def feat_trigger_allows(self, m: ModelState, f: ki.Feat, entry, action: Action) -> bool:
        """Whether a feat whose ``when`` is not the main one may be used now: a trigger feat
        while its mark waits, the first of the waiting marks; a Target feat only at the
        model the trigger names (:meth:`trigger_target`) when it names one."""
        got = self.triggers_pending()
        if not (bool(got) and got[0][:2] == (m.id, f.name)) or LATER in got[0][2]:
            return False
        if f.area == "target":
            t = self.trigger_target(m.id, f.name)
            if t is not None and action.target != t:
                return False
        opp = self.trigger_opponent(m.id, f.name)  # round 6 (F3): the opposed test is taken against it
        return opp is None or action.target == opp

    def decline_trigger(self, action: Action) -> None:
        """Resolve a legal ``Action("decline_feat", model, feat=name)``: the mark goes."""
        assert action.model is not None and action.feat is not None  # judged legal
        self._emit(Event("note", {"text": f"{action.model} does not use {action.feat}"}))
        self.trigger_done(action.model, action.feat)

    def trigger_done(self, mid: str, feat: str) -> None:
        """Remove the mark of feat ``feat`` of ``mid`` (used or declined); an enemy action
        the feat interrupted (round 4) then goes on, or ends when the feat ended it."""
        if TRIGGER_MARK + feat in self.state.models[mid].conditions:
            self._emit(Event("condition", {"model": mid, "name": TRIGGER_MARK + feat, "on": False}))
        if INTERRUPT_MARK + feat in self.state.models[mid].conditions:
            self._resume_interrupted(mid, feat)
            self.redirect_done()  # round 6 (F6): a redirected feat's range mark goes (feat_redirects)

    # ------------------------------------------------------------ round 4: trigger:targeted
    def targeted_window(self, mid: str, action: Action) -> bool:
        """When model ``mid`` declares a Charge, Melee or Shoot (:data:`INTERRUPT_KINDS`) at an
        enemy that has a ``trigger:targeted`` feat it may use now, the action waits before it
        resolves (like Bodyguard, p.49) for that player's ``feat`` or ``decline_feat`` (the
        feat offered at the declaring model): True. The first such feat of the target is
        offered. False: the action goes on."""
        moment = self.targeted_moment(action)  # round 6 (F3): charge, melee, shoot, feat (feat_interrupts)
        if moment is None or not action.target:
            return False
        st = self.state
        t = st.models.get(action.target)
        if t is None or not t.alive or t.elsewhere is not None or t.player == st.models[mid].player:
            return False
        for f in self.feats(t.id).values():
            entry = feat_effect(f.name)
            if entry is None or entry.when != "trigger:targeted" or not entry_status(entry)[0]:
                continue
            if entry.watch != "self" or not self.answers_moment(entry, moment) or not self._may_answer(t, f.name):
                continue
            self._emit(Event("condition", {"model": t.id, "name": INTERRUPT_MARK + f.name, "on": True,
                                           "value": json.dumps({"action": action.to_json(), "ends": False},
                                                               sort_keys=True)}))
            self._emit(Event("condition", {"model": t.id, "name": TRIGGER_MARK + f.name, "on": True,
                                           "value": f"on {mid}'s {action.kind} [trigger: {mid}]"}))
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s {action.kind} at {t.id} waits for player "
                                              f"{t.player} (use it or not) before it resolves"}))
            return True
        return self.friend_watch_window(mid, action, moment)  # round 6 (F6): a friend's feat (feat_redirects)

    def interrupts_pending(self) -> bool:
        """Whether a declared enemy action waits for a ``trigger:targeted`` feat's answer."""
        return any(k.startswith(INTERRUPT_MARK) for m in self.state.models.values() for k in m.conditions)

    def interrupt_ends_action(self, mid: str, feat: str) -> None:
        """Feat ``feat`` of ``mid`` was applied and its entry ends the interrupted enemy
        action (``ends_action``): note it on the waiting mark."""
        key = INTERRUPT_MARK + feat
        v = self.state.models[mid].conditions.get(key)
        if v is None:
            return
        data = json.loads(str(v))
        data["ends"] = True
        self._emit(Event("condition", {"model": mid, "name": key, "on": True, "value": json.dumps(data,
                                                                                              sort_keys=True)}))

    def _resume_interrupted(self, mid: str, feat: str) -> None:
        """The answer to an interrupt was given: the declared enemy action resolves (if it
        still may: the target may have moved away) or, when the feat ended it, it counts as
        resolved without effect; then the turn goes on as after any action."""
        st = self.state
        key = INTERRUPT_MARK + feat
        data = json.loads(str(st.models[mid].conditions[key]))
        self._emit(Event("condition", {"model": mid, "name": key, "on": False}))
        held = self.resume_interrupt(mid, feat, data)  # round 6 (F3): a held exchange / Instant feat
        if held == "feat":  # an Instant / Active feat is no action: the active player goes on
            self._after_action()
            return
        declared = None if held else Action.from_json(data["action"])
        attacker = st.models.get(str(data["exchange"]["attacker"]) if declared is None else declared.model or "")
        if attacker is None:
            return
        if declared is None:
            pass  # the exchange opened, or the feat ended the action (feat_interrupts)
        elif data.get("ends"):
            self._emit(Event("note", {"text": f"{feat}: {attacker.id}'s {declared.kind} counts as resolved "
                                              "without effect"}))
        elif attacker.alive:
            kind = ACTION_KINDS[declared.kind]
            ok, why = kind.legal(self, attacker, declared)
            if ok:
                self._declared_go(attacker, declared)
                kind.resolve(self, declared)
            else:
                self._emit(Event("note", {"text": f"{attacker.id}'s {declared.kind} can no longer be made "
                                                  f"({why}): it ends without effect"}))
        self._after_action()
        if (not self.is_over() and st.exchange is None and st.interception is None and not self.answers_pending()
                and not self.triggers_pending() and not self._group_step(attacker.player)):
            self._next_active(3 - attacker.player)

    def trigger_refusal(self, action: Action) -> str | None:
        """Why ``action`` may not be declared while a trigger waits (None when none waits,
        or ``action`` answers it)."""
        got = self.triggers_pending()
        if not got:
            return None
        mid, feat, killed = got[0]
        if action.kind in ("feat", "decline_feat", "feat_later") and action.model == mid and action.feat == feat:
            return None
        why = killed if killed.startswith("on ") else f"{killed} was killed within its range"
        return f"{mid} may first use {feat} ({why}) or decline it (p.46)"


def _legal_later(game: Any, m: ModelState | None, action: Action) -> tuple[bool, str]:
    got = game.triggers_pending()
    if m is None or not got or got[0][:2] != (m.id, action.feat) or LATER not in got[0][2]:
        return False, f"no delayed step of {action.feat!r} of {action.model!r} waits"
    why = game.later_refusal(m, action)
    return (False, why) if why else (True, "")


def _legal_decline(game: FeatTriggers, m: ModelState | None, action: Action) -> tuple[bool, str]:
    got = game.triggers_pending()
    if m is None or not got or got[0][:2] != (m.id, action.feat):
        return False, f"no triggered feat {action.feat!r} of {action.model!r} waits"
    why = game.decline_refusal(m, action)  # round 6 (F1): a declaration the opponent must make (feat_order)
    return (False, why) if why else (True, "")


register(ActionKind("decline_feat", _legal_decline, lambda game, action: game.decline_trigger(action)))
register(ActionKind("feat_later", _legal_later, lambda game, action: game.resolve_later(action)))
