"""Ki feats that change tests and damage rolls (round 6, helper F4; Tests p.27-29, Damage p.38,
Ki feats p.46-47): the ops ``sl_markers``, ``damage_rolls`` and ``damage`` of
:mod:`sim.rules.feat_effects`, and the re-rolls a feat grants in Ki, Fear and challenge tests.

* ``sl_markers`` -- markers counted by the success level (SL) of the feat's Opposed Ki test:
  SL + ``add`` markers of one condition (Soul Fire: On Fire (1) markers, SL + 1), or one of
  each of the first SL names of a list in order (Stir Emotion).
* ``damage_rolls`` -- a change to the damage rolls made on (``roll: taken``) or by (``made``)
  the affected model, kept as the mark ``feat_damage:<feat>`` (JSON: the op, the user) until
  its ``until`` ends, or until it is used (``once``: the next damage roll of that kind --
  melee, ranged or any -- on / by it, whatever the dice show). The rules are
  :class:`sim.rules.wounds.DamageRules`; the melee exchange reads them from
  ``Combatant.damage_rules`` and a shot from ``TargetInfo.damage_rules``
  (:meth:`FeatRolls.damage_rule_texts`). In an Aura (Soothing Shōmyō) the op is read while a
  friend of the user (or the user) stands inside, like the other Aura ops.
* ``damage`` -- the feat makes a damage roll at a fixed success level on the affected model
  (2D6, no Strength; ``ignore_armour``; Tough and Durable apply): Look into the Void.
* Re-rolls: a ``reroll`` op of test ``Ki``, ``Fear`` or ``Challenge`` grants ``Prowess [Ki]
  (n)`` ...; :func:`test_rerolls` gives the re-roll chooser of a model's Ki challenge test
  (Ki, Challenge), opposed Ki test (Ki), Fear test (Fear, Ki -- "any effect on Ki tests also
  acts on Fear tests", p.29 -- and Challenge) or Size test (Challenge, Size): up to n of its
  own dice showing less than 4, lowest first, and in a challenge test only while it fails
  (the engine plays the choice for the player, as for Prowess [Ranged]).

A base of :class:`~sim.rules.game.feat_step.FeatStep` (a mixin of
:class:`~sim.rules.game.Game`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sim.rules import conditions, ki
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.dice import (
    Rerolls,
    RollKind,
    RollOptions,
    RollPurpose,
    TacticalResult,
    challenge_test,
    evaluate_roll,
    tactical_test,
)
from sim.rules.feat_effects import DamageOp, DamageRollsOp, FeatEffect, TrapTestOp, entry_status, feat_effect
from sim.rules.game.actions import Action
from sim.rules.game.events import Event
from sim.rules.game.feat_triggers import INTERRUPT_MARK, TRIGGER_MARK
from sim.rules.game.melee_traits import card_trait_values
from sim.rules.game.part import GamePart
from sim.rules.game.state import ModelState
from sim.rules.wounds import apply_wounds, resolve_damage

#: The mark of a ``damage_rolls`` op: ``feat_damage:<feat>`` (JSON ``{"op", "user"}``).
DAMAGE_MARK = "feat_damage:"
#: The mark of a ``ranged_tn`` op: ``feat_ranged_tn:<feat>`` (JSON ``{"user", "n", "until"}``).
RANGED_TN_MARK = "feat_ranged_tn:"
#: The mark of a model a Trap feat tested in its activation (p.7: one Trap effect per activation).
TRAPPED_MARK = "feat_trapped"
#: The mark of a ``test_bonus`` op: ``feat_test_bonus:<feat>`` (JSON ``{"test", "n", "until"}``).
BONUS_MARK = "feat_test_bonus:"
#: The mark of an ``exchange_bonus`` op: ``feat_exchange_bonus:<feat>`` (JSON ``{"n", "until"}``).
EXCHANGE_BONUS_MARK = "feat_exchange_bonus:"
#: The mark of a ``tactical`` op: ``feat_tactical:<feat>`` (JSON ``{"rule", "n"}``), until the next Tactical test.
TACTICAL_MARK = "feat_tactical:"
#: Declared actions that move the model (a Shoot or Heal only with its Walk: :func:`_moves`).
MOVE_ACTIONS = ("walk", "run", "charge", "melee")
#: Test keywords of ``Prowess [K]`` this module reads, by the test taken.
TEST_KEYWORDS = {"ki": ("ki", "challenge"), "opposed_ki": ("ki",), "fear": ("fear", "ki", "challenge"),
                 "size": ("size", "challenge"), "challenge": ("challenge",)}


def prowess_dice(game: Any, mid: str, test: str) -> int:
    """How many of its dice ``mid`` may re-roll in a ``test`` test (a key of
    :data:`TEST_KEYWORDS`): the sum of its ``Prowess [K] (X)`` whose ``[K]`` names one of
    that test's keywords (a feat's ``reroll`` op grants such a Prowess; p.56)."""
    card = game.profile(mid)
    if card is None:
        return 0
    keys = TEST_KEYWORDS[test]
    total = 0
    for q, v in card_trait_values(card, "prowess"):
        if any(w.strip() in keys for w in q.lower().split(",")):
            try:
                total += int(v or 1)
            except (TypeError, ValueError):
                total += 1
    return total


def test_rerolls(game: Any, mid: str, test: str, tn: int | None = None, modifier: int = 0,
                 options: RollOptions = RollOptions()) -> Rerolls | None:
    """The re-rolls of ``mid``'s own dice in a ``test`` test (:func:`prowess_dice`), as side
    ``a`` of :class:`~sim.rules.dice.Rerolls`; None when it has none. With ``tn`` (a
    challenge test) nothing is re-rolled while the dice already pass; else up to X dice
    showing less than 4, lowest first."""
    n = prowess_dice(game, mid, test)
    if n <= 0:
        return None

    def choose(own: tuple[int, ...], _other: tuple[int, ...]) -> list[int]:
        if tn is not None and evaluate_roll(own, modifier, options).final >= tn:
            return []
        low = sorted((i for i, v in enumerate(own) if v < 4), key=lambda i: own[i])
        return low[:n]
    return Rerolls(a_on_a=choose)


class FeatRolls(GamePart):
    """The ops ``sl_markers``, ``damage_rolls``, ``damage`` (see the module docstring)."""

    # ------------------------------------------------------------ applying the ops
    def apply_roll_op(self, m: ModelState, f: ki.Feat, op: Any, mid: str, action: Action) -> None:
        """One ``sl_markers`` / ``damage_rolls`` / ``damage`` op of feat ``f`` used by ``m``
        on model ``mid``."""
        if op.op == "sl_markers":
            self._sl_markers(f, op, mid)
        elif op.op == "damage_rolls":
            if f.area == "aura":  # read while a model is inside (damage_rule_texts)
                return
            value = json.dumps({"user": m.id, "op": op.model_dump(mode="json")}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": DAMAGE_MARK + f.name, "on": True, "value": value}))
            lasts = "its next one" if op.until is None else f"until {op.until.replace('_', ' ')}"
            whose = "on" if op.roll == "taken" else "by"
            self._emit(Event("note", {"text": f"{f.name}: {_RULE_TEXT[op.rule]} ({whose} {mid}, {op.dealt_by} "
                                              f"attacks, {lasts})"}))
        elif op.op == "damage":
            self._feat_damage_roll(m, f, op, mid)
        elif op.op == "marker_wounds":
            self._marker_wounds(f, op, mid)
        elif op.op == "challenge":
            self._feat_challenge(m, f, op, mid)
        elif op.op == "test_bonus":
            n = int(action.x or 1) if op.n == "X" else int(op.n)
            value = json.dumps({"test": op.test, "n": n, "until": op.until}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": BONUS_MARK + f.name, "on": True, "value": value}))
            self._emit(Event("note", {"text": f"{f.name}: {mid}'s next {op.test.title()} test {n:+d} to its result "
                                              f"(until {op.until.replace('_', ' ')})"}))
        elif op.op == "exchange_bonus":
            value = json.dumps({"n": op.n, "until": op.until}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": EXCHANGE_BONUS_MARK + f.name, "on": True,
                                           "value": value}))
            self._emit(Event("note", {"text": f"{f.name}: if the enemy re-rolls its own dice, {mid} adds {op.n} to "
                                              f"its attack and defence results (until {op.until.replace('_', ' ')})"}))
        elif op.op == "tactical":
            value = json.dumps({"rule": op.rule, "n": op.n}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": TACTICAL_MARK + f.name, "on": True, "value": value}))
            what = {"win": "wins it outright", "reroll": "may have the roll made again"}.get(
                op.rule, f"has Tactician (+{op.n})")
            self._emit(Event("note", {"text": f"{f.name}: in the next Tactical test {mid} {what}"}))
        elif op.op == "trap_test":
            self._trap_test(m, f, op)
        elif op.op == "ranged_tn":
            value = json.dumps({"user": m.id, "n": op.n, "until": op.until}, sort_keys=True)
            self._emit(Event("condition", {"model": mid, "name": RANGED_TN_MARK + f.name, "on": True, "value": value}))
            self._emit(Event("note", {"text": f"{f.name}: every ranged attack's target number {op.n:+d} while {mid} "
                                              f"is in play, until {op.until.replace('_', ' ')}"}))

    def _marker_wounds(self, f: ki.Feat, op: Any, mid: str) -> None:
        """Remove ``mid``'s highest-valued ``op.name`` marker; as many wounds as its value."""
        kind = conditions.DAMAGING[op.name]
        values = list(self.state.models[mid].markers.get(kind, []))
        if not values:
            self._emit(Event("note", {"text": f"{f.name}: {mid} has no {op.name.replace('_', ' ')} marker"}))
            return
        top = max(values)
        self._emit(Event("marker_damage", {"model": mid, "marker": kind, "removed": [top], "wounds": 0}))
        has_tough, tv = self._trait(mid, "tough")  # Tough and Durable, as for any feat wound (p.51, p.58)
        n = apply_wounds(int(top), tough=int(tv) if has_tough and isinstance(tv, int) else 0,
                         durable=bool(self._trait(mid, "durable")[0]))
        self._emit(Event("note", {"text": f"{f.name}: {mid}'s {op.name.replace('_', ' ')} marker of value {top} "
                                          f"is removed: {n} wound(s)"}))
        self._wound(mid, n)

    def _feat_challenge(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """``mid`` takes the ``op.stat`` (``op.tn``) challenge test; ``passed`` / ``failed``."""
        purpose = RollPurpose(RollKind.KI_RESIST if mid != m.id else RollKind.KI_FEAT, mid, None, f.name)
        if op.stat == "ki":
            got = self._ki_challenge(mid, op.tn, purpose, active=mid == m.id and m.player == self.state.active)
        else:
            got = self._size_roll(mid, op.tn, purpose)
        self._emit(Event("test", {"model": mid, "test": op.stat, "passed": got.passed, "tn": op.tn,
                                  "text": f"{f.name}: {mid} {'passes' if got.passed else 'fails'} a "
                                          f"{op.stat.title()} ({op.tn}) challenge test{got.why()}"}))
        then = op.passed if got.passed else op.failed
        t = self.state.models[mid]
        if then == "heal_all" and t.damage > 0:
            why = self.heal_refusal(mid)  # Kami, Last Stand at 0 (p.54)
            if why:
                self._emit(Event("note", {"text": f"{f.name}: no healing: {why}"}))
            else:
                self._emit(Event("healed", {"model": mid, "n": t.damage, "source": f.name}))
        elif then == "kill" and t.alive:
            self._emit(Event("note", {"text": f"{f.name}: {mid} is Killed"}))
            self._emit(Event("killed", {"model": mid}))

    def ranged_tn_bonus(self) -> int:
        """The target number change of every ranged attack now: the ``ranged_tn`` marks of the
        models in play (Mountain Gale), summed."""
        total = 0
        for m in self.state.alive():
            if m.elsewhere is not None:
                continue
            for key, v in m.conditions.items():
                if key.startswith(RANGED_TN_MARK):
                    total += int(json.loads(str(v)).get("n", 0))
        return total

    def _sl_markers(self, f: ki.Feat, op: Any, mid: str) -> None:
        sl = max(0, int(self.__dict__.get("_f4_sl", 0) or 0))  # the feat's test (ki_step)
        n = sl + op.add
        self._emit(Event("note", {"text": f"{f.name}: success level {sl}: {n} marker(s)"}))
        if n <= 0:
            return
        if len(op.names) == 1:
            self._gain(mid, op.names[0], n, value=op.value)
            return
        for name in op.names[:n]:
            if self.state.models[mid].alive:
                self._gain(mid, name, 1, value=op.value)

    def _feat_damage_roll(self, m: ModelState, f: ki.Feat, op: Any, mid: str) -> None:
        """A damage roll of the feat at success level ``op.level`` on ``mid`` (p.38): 2D6,
        Armour unless ignored, Tough and Durable."""
        card = self.profile(mid)
        armour = 0
        if card is not None and not op.ignore_armour:
            armour = max([int(v or 0) for _q, v in card_trait_values(card, "armour")] or [0])
        has_tough, tv = self._trait(mid, "tough")
        tough = int(tv) if has_tough and isinstance(tv, int) else 0
        res = resolve_damage(self._roller, op.level, armour=armour, tough=tough,
                             durable=bool(self._trait(mid, "durable")[0]),
                             purpose=RollPurpose(RollKind.DAMAGE, m.id, mid, f.name))
        r = res.roll
        self._emit(Event("note", {"text": f"{f.name}: damage roll on {mid} at success level {op.level}: "
                                          f"{list(r.dice)} {r.modifier:+d} = {r.total}"
                                          + (" (Armour ignored)" if op.ignore_armour else "")
                                          + f": {res.table_wounds} on the table, {res.wounds} marked"}))
        self._wound(mid, res.wounds)

    def roll_op_refusal(self, m: ModelState, f: ki.Feat, entry: FeatEffect, action: Action) -> str | None:
        """Why the ``damage`` op of ``entry`` may not be used at the action's target now: it
        has no LoS to the user (``target_sees_user``, p.29: from its base, its front arc), or
        it was already the target of this feat, from any model, this turn (``once_per_target``);
        why a ``trap_test`` may not answer the waiting enemy action: the enemy matches one of
        its ``exempt_keywords`` (Deference: Samurai, Ashigaru)."""
        trap = next((o for o in entry.effects if isinstance(o, TrapTestOp)), None)
        v = m.conditions.get(INTERRUPT_MARK + f.name)
        if trap is not None and v is not None:
            who = str(json.loads(str(v)).get("action", {}).get("model", ""))
            t = self.state.models.get(who)
            if t is not None and TRAPPED_MARK in t.conditions:
                return f"{f.name}: {who} already met a Trap in this activation (one Trap effect, p.7)"
            if t is not None and trap.exempt_keywords:
                view = view_of(self.profile(who), friendly=False, conditions=t.conditions)
                if keyword_matches(", ".join(trap.exempt_keywords), view):
                    return f"{f.name}: {who} is {' or '.join(trap.exempt_keywords)}: the Trap spares it"
        op = next((o for o in entry.effects if isinstance(o, DamageOp)), None)
        t = action.target
        if op is None or t is None or t not in self.state.models:
            return None
        if op.target_sees_user:
            try:
                seen = self._table_now().scene().los(t, m.id).visible
            except (KeyError, ValueError):
                seen = False
            if not seen:
                return f"{f.name}: {t} has no LoS to {m.id} (the target must see the user)"
        if op.once_per_target:
            for ev in reversed(self.events):
                if ev.kind == "turn":
                    break
                if ev.kind == "feat_used" and ev.data.get("feat") == f.name and ev.data.get("target") == t:
                    return f"{f.name}: {t} was already targeted by it this turn (once per turn, from any source)"
        return None

    # ------------------------------------------------------------ Traps (Snare)
    def trap_window(self, mid: str, action: Action) -> bool:
        """When model ``mid`` declares an action that moves it (:data:`MOVE_ACTIONS`, a Shoot
        or Heal with its Walk) within the Pulse of an enemy that has a ``trigger:enemy_move``
        feat it may use now (its ``trap_test`` op's exemptions checked, p.7: no Trap yet in
        this activation of ``mid``), the action waits before it resolves for that player's
        ``feat`` or ``decline_feat`` (True), like a ``trigger:targeted`` interrupt."""
        if not _moves(action):
            return False
        st = self.state
        me = st.models.get(mid)
        if me is None or TRAPPED_MARK in me.conditions:
            return False
        for u in st.alive(3 - me.player):
            if u.elsewhere is not None:
                continue
            for f in self.feats(u.id).values():
                entry = feat_effect(f.name)
                if entry is None or entry.when != "trigger:enemy_move" or not entry_status(entry)[0]:
                    continue
                op = next((o for o in entry.effects if isinstance(o, TrapTestOp)), None)
                if op is None or not self._may_answer(u, f.name) or not self._trap_reaches(u, entry, op, mid):
                    continue
                self._emit(Event("condition", {"model": u.id, "name": INTERRUPT_MARK + f.name, "on": True,
                                               "value": json.dumps({"action": action.to_json(), "ends": False},
                                                                   sort_keys=True)}))
                self._emit(Event("condition", {"model": u.id, "name": TRIGGER_MARK + f.name, "on": True,
                                               "value": f"on {mid}'s {action.kind} [trigger: {mid}]"}))
                self._emit(Event("note", {"text": f"{f.name}: {mid}'s {action.kind} waits for player {u.player} "
                                                  "(use it or not) before it moves"}))
                return True
        return False

    def _trap_reaches(self, u: ModelState, entry: FeatEffect, op: Any, mid: str) -> bool:
        """Whether the Trap of ``u`` reaches the declaring enemy ``mid``: within the feat's
        range (edge to edge; none: anywhere), none of the exempting traits, and (``not_engaged``)
        in base contact with no model of ``u``'s side."""
        table = self._table_now()
        if entry.range is not None:
            a, b = table.model(u.id), table.model(mid)
            if math.dist(a.position, b.position) - a.radius - b.radius > float(entry.range) + 1e-6:
                return False
        if any(self._trait(mid, t.lower().replace(" ", "_"))[0] for t in op.exempt):
            return False
        return not (op.not_engaged and self.enemies_in_contact(mid))

    def _trap_test(self, m: ModelState, f: ki.Feat, op: Any) -> None:
        """The ``trap_test`` op of feat ``f`` used by ``m``: the enemy whose declared action
        waits takes the test; a failure ends the action (it counts as resolved) and leaves it
        one activation counter lost in all."""
        v = m.conditions.get(INTERRUPT_MARK + f.name)
        if v is None:
            return
        declared = Action.from_json(json.loads(str(v))["action"])
        t = self.state.models.get(declared.model or "")
        if t is None or not t.alive:
            return
        self._emit(Event("condition", {"model": t.id, "name": TRAPPED_MARK, "on": True, "value": f.name}))
        tn = op.tn_run if op.tn_run is not None and declared.kind in ("run", "charge") else op.tn
        card = self.profile(t.id)
        if op.stat == "ki":
            passed = self._ki_challenge(t.id, tn, RollPurpose(RollKind.KI_RESIST, t.id, m.id, f.name),
                                        active=True).passed
        else:
            dice = int(getattr(card, "move", 0) or 0) if card is not None else 0
            passed = challenge_test(dice, tn, 0, self._roller, rerolls=test_rerolls(self, t.id, "challenge", tn),
                                    purpose=RollPurpose(RollKind.CHALLENGE, t.id, m.id, f.name)).success
        self._emit(Event("test", {"model": t.id, "test": op.stat, "passed": passed, "tn": tn,
                                  "text": f"{f.name}: {t.id} {'passes' if passed else 'fails'} a {op.stat.title()} "
                                          f"({tn}) challenge test"}))
        if passed:
            return
        self.interrupt_ends_action(m.id, f.name)
        if declared.kind == "feat":  # an Instant / Active feat held unpaid: no counter was spent for it
            if t.counters > 0:
                self._emit(Event("counter", {"model": t.id, "n": 1}))
            self._emit(Event("note", {"text": f"{f.name}: {t.id}'s activation ends and it loses one activation "
                                              "counter"}))
            self._next_active(3 - t.player)
            return
        spent = self.action_counters(declared)
        if spent > 1:  # its declared action's counters were spent: it loses one in all (the card's rule, p.24)
            self._emit(Event("counters_gained", {"model": t.id, "n": spent - 1, "source": f.name}))
        self._emit(Event("note", {"text": f"{f.name}: {t.id}'s {declared.kind} counts as resolved without "
                                          "moving, and it loses one activation counter"}))

    def test_bonus(self, mid: str, test: str) -> int:
        """The bonus the ``test_bonus`` marks of ``mid`` give its ``test`` test now (Prayer of
        Undeath: a Rise test), used up by it (0 when none)."""
        m = self.state.models.get(mid)
        if m is None:
            return 0
        total = 0
        for key, v in list(m.conditions.items()):
            if key.startswith(BONUS_MARK):
                data = json.loads(str(v))
                if data.get("test") == test:
                    total += int(data.get("n", 0))
                    self._emit(Event("condition", {"model": mid, "name": key, "on": False}))
                    self._emit(Event("note", {"text": f"{key[len(BONUS_MARK):]}: {int(data.get('n', 0)):+d} to "
                                                      f"{mid}'s {test.title()} test"}))
        return total

    # ------------------------------------------------------------ the Tactical test (Insight, Art of War)
    def tactical_feats(self, tact: dict[int, int]) -> tuple[dict[int, int], TacticalResult | None]:
        """The ``tactical`` marks in this Tactical test (p.28), used up by it: each player's
        Tactician dice ``tact`` (the highest X of its models) with a marked model's X raised by
        ``n`` (Insight); a player whose marked model wins outright (Art of War: the other
        fails, no roll) -- a :class:`~sim.rules.dice.TacticalResult` -- unless both would
        (then the test is rolled as usual). ``(tact, None)`` unchanged when no mark is in play."""
        st = self.state
        marks = [(m, k, json.loads(str(v))) for m in st.models.values() for k, v in m.conditions.items()
                 if k.startswith(TACTICAL_MARK) and json.loads(str(v)).get("rule") != "reroll"]
        if not marks:
            return tact, None
        out = dict(tact)
        winners: set[int] = set()
        for m, key, data in marks:
            if m.alive and m.elsewhere is None:
                if data.get("rule") == "win":
                    winners.add(m.player)
                else:
                    has, x = self._trait(m.id, "tactician")
                    own = int(x or 0) if has and isinstance(x, int) else 0
                    out[m.player] = max(out[m.player], own + int(data.get("n", 1)))
            self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
        if out != tact:
            self._emit(Event("note", {"text": f"Tactical test: Tactician dice {out[1]} / {out[2]} (Ki feats)"}))
        if len(winners) == 1:
            won = winners.pop()
            self._emit(Event("note", {"text": f"Tactical test: player {won} wins it outright, the other fails "
                                              "(a Ki feat)"}))
            return out, TacticalResult(won, ())  # type: ignore[arg-type]
        if winners:
            self._emit(Event("note", {"text": "Tactical test: both players would win outright: it is rolled"}))
        return out, None

    def tactical_counsel(self, res: TacticalResult, tact: dict[int, int]) -> TacticalResult:
        """The Tactical test's result ``res`` after the ``tactical`` ``reroll`` marks (Tactical
        Counsel, used up by this test): a player whose marked model is in play and who lost
        the roll has it made again, once (the engine plays the player's choice: it re-rolls a
        lost roll); the rolls of both are kept in order. ``res`` unchanged without a mark."""
        st = self.state
        players: set[int] = set()
        for m in st.models.values():
            for key, v in list(m.conditions.items()):
                if key.startswith(TACTICAL_MARK) and json.loads(str(v)).get("rule") == "reroll":
                    if m.alive and m.elsewhere is None:
                        players.add(m.player)
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
        loser = 3 - res.winner
        if not res.rounds or loser not in players:
            return res
        from sim.rules.game import melee_traits

        again = tactical_test(self._roller, tactician_1=tact[1], tactician_2=tact[2],
                              rerolls=melee_traits.tactical_rerolls(self))
        self._emit(Event("note", {"text": f"Tactical test: player {loser} has the roll made again (a Ki feat): "
                                          f"player {again.winner} wins"}))
        return TacticalResult(again.winner, res.rounds + again.rounds)

    # ------------------------------------------------------------ reading the rules
    def damage_rule_texts(self, mid: str, how: str) -> tuple[str, ...]:
        """The damage-roll rules (``made:<rule>[:<value>]``, ``taken:<rule>``) of ``mid`` for
        ``how`` (``melee`` / ``ranged``) attacks now: its ``feat_damage`` marks and the Auras
        with a ``damage_rolls`` op it stands in as a friend of the user (or the user)."""
        st = self.state
        me = st.models.get(mid)
        if me is None:
            return ()
        out: list[str] = []
        for key, v in me.conditions.items():
            if key.startswith(DAMAGE_MARK):
                op = DamageRollsOp.model_validate(json.loads(str(v))["op"])
                if op.dealt_by in ("any", how):
                    out.append(_rule_text(op))
        for user, _feat, entry, x, _opt in self._auras_now():
            ops = [o for o in entry.effects if isinstance(o, DamageRollsOp) and o.dealt_by in ("any", how)]
            if not ops or not self._in_friendly_aura(user, entry, x, me):
                continue
            out += [_rule_text(o) for o in ops]
        return tuple(out)

    def _in_friendly_aura(self, user: str, entry: FeatEffect, x: int, me: ModelState) -> bool:
        u = self.state.models[user]
        if me.player != u.player or not u.alive:
            return False
        if me.id == user:
            return True
        reach = float(max(1, x)) if entry.range_x else (0.0 if entry.btb else entry.range)
        if reach is None:
            return True
        d = math.dist(u.position, me.position) - self.table.model(user).radius - self.table.model(me.id).radius
        return d <= reach + 1e-6

    def feat_damage_fields(self, mid: str) -> dict[str, Any]:
        """The melee ``Combatant`` fields of ``mid``'s damage-roll rules and ``exchange_bonus``
        marks (``{}`` when none)."""
        rules = self.damage_rule_texts(mid, "melee")
        out: dict[str, Any] = {"damage_rules": rules} if rules else {}
        m = self.state.models.get(mid)
        bonus = sum(int(json.loads(str(v)).get("n", 0)) for k, v in (m.conditions.items() if m else ())
                    if k.startswith(EXCHANGE_BONUS_MARK))
        return {**out, "bonus_if_enemy_rerolls": bonus} if bonus else out

    def counters_instead(self, ev: Event) -> None:
        """After melee exchange ``ev``: each damage roll a ``counter_instead`` rule replaced
        (Nerve Strike) makes the enemy remove an activation counter (as many as it has)."""
        lost: dict[str, int] = {}
        for line in ev.data.get("summary", []):
            got = re.search(r": (\S+) removes an activation counter instead", str(line))
            if got and got.group(1) in self.state.models:
                lost[got.group(1)] = lost.get(got.group(1), 0) + 1
        for mid, n in lost.items():
            m = self.state.models[mid]
            n = min(n, m.counters)
            if n > 0 and m.alive:
                self._emit(Event("counter", {"model": mid, "n": n}))

    # ------------------------------------------------------------ durations and use
    def roll_marks_used(self, dealt: list[tuple[str, str, int, str]]) -> None:
        """The attacks ``dealt`` (``(by, target, wounds, melee|ranged|feat)``) made damage
        rolls: a ``once`` mark of the roller (``made``) or of the target (``taken``) of the
        attack's kind is used up (``double``: only by a roll that wounded)."""
        st = self.state
        for by, target, n, how in dealt:
            if how not in ("melee", "ranged"):
                continue
            for holder, side in ((by, "made"), (target, "taken")):
                h = st.models.get(holder)
                if h is None:
                    continue
                for key, v in list(h.conditions.items()):
                    if not key.startswith(DAMAGE_MARK):
                        continue
                    op = DamageRollsOp.model_validate(json.loads(str(v))["op"])
                    if not op.once or op.roll != side or op.dealt_by not in ("any", how):
                        continue
                    if op.rule == "double" and n <= 0:
                        continue
                    self._emit(Event("condition", {"model": holder, "name": key, "on": False}))
                    self._emit(Event("note", {"text": f"{key[len(DAMAGE_MARK):]}: used on {holder}'s damage roll"}))

    def roll_marks_expire(self, until: str) -> None:
        """The duration ``until`` ends: the ``damage_rolls`` and ``ranged_tn`` marks lasting that
        long go."""
        for m in list(self.state.models.values()):
            for key, v in list(m.conditions.items()):
                if key.startswith(DAMAGE_MARK) and json.loads(str(v))["op"].get("until") == until:
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                elif key.startswith(RANGED_TN_MARK) and json.loads(str(v)).get("until") == until:
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                elif key.startswith((BONUS_MARK, EXCHANGE_BONUS_MARK)) and json.loads(str(v)).get("until") == until:
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))
                elif key == TRAPPED_MARK and until == "activation":  # one Trap per activation (p.7)
                    self._emit(Event("condition", {"model": m.id, "name": key, "on": False}))


_RULE_TEXT = {"double": "the next damage it suffers is doubled", "ignore_double": "a damage roll whose dice "
              "match is ignored", "drop_die": "damage rolls roll one more die and drop one",
              "strength_on_double": "matching damage dice gain Strength",
              "reroll_low": "one damage die may be re-rolled",
              "counter_instead": "melee damage rolls become an activation counter the enemy removes",
              "coin_flip": "a coin is called before the next damage roll on it"}


def _rule_text(op: DamageRollsOp) -> str:
    return f"{op.roll}:{op.rule}" + (f":{op.value}" if op.value else "")


def opposed_rerolls(game: Any, a: str, b: str) -> Rerolls | None:
    """The re-rolls of both sides' own dice in an opposed Ki test of ``a`` against ``b``
    (:func:`prowess_dice` of ``opposed_ki``; up to X dice below 4, lowest first); None when
    neither has any."""
    na, nb = prowess_dice(game, a, "opposed_ki"), prowess_dice(game, b, "opposed_ki")
    if na <= 0 and nb <= 0:
        return None

    def below4(n: int) -> Any:
        def choose(own: tuple[int, ...], _other: tuple[int, ...]) -> list[int]:
            return sorted((i for i, v in enumerate(own) if v < 4), key=lambda i: own[i])[:n]
        return choose
    return Rerolls(a_on_a=below4(na) if na > 0 else None, b_on_b=below4(nb) if nb > 0 else None)


def _moves(action: Action) -> bool:
    """Whether the declared ``action`` moves its model (:data:`MOVE_ACTIONS`; a Shoot with a
    declared Walk; a Heal that walks to a point)."""
    if action.kind in MOVE_ACTIONS:
        return True
    if action.kind == "shoot":
        return action.walk is not None
    return action.kind == "heal" and action.point is not None


def resist_ignored(game: Any, feat: str, target: str | None) -> tuple[str, ...]:
    """The trait keys ``target`` may not use in the Opposed Ki test of ``feat`` (its entry's
    ``resist_ignores``, when the target has a marker of ``resist_ignores_if``): Serpentine
    Sway -- a Poisoned target tests without Spirit and Resistance; ``()`` otherwise."""
    entry = feat_effect(feat)
    if entry is None or not entry.resist_ignores or target is None or target not in game.state.models:
        return ()
    if entry.resist_ignores_if is not None:
        key = conditions.canonical(entry.resist_ignores_if)
        t = game.state.models[target]
        kind = conditions.DAMAGING.get(key or "")
        has = bool(t.markers.get(kind)) if kind else (key is not None and key in t.conditions)
        if not has:
            return ()
    return tuple(r.strip().lower().replace(" ", "_") for r in entry.resist_ignores)
