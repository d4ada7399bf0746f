"""Traits of the turn, the activation and the End phase (p.48-59): Jump Up, Kami, Rise,
Last Stand, Regenerate, Heal, Cultist, Impetuous, Banzai!.

A mixin of :class:`~sim.rules.game.Game`; the free actions ``jump_up`` and ``cultist``
and the Simple action ``heal`` are registered in
:data:`~sim.rules.game.actions.ACTION_KINDS` at the end of the module.

* **Jump Up** (p.54): "в начале активации этой модели, но до того, как объявлено ее
  действие, вы можете удалить с неё любые маркеры «Сбит с ног»" -- ``Action("jump_up",
  model)``, a free action of the active player offered while the model is Prone and may
  activate; it starts the model's activation (no other model of the player may activate
  before it has declared its action).
* **Cultist (X)** (p.50): on activation, up to X wounds in all to friendly Cultists
  (itself included), no model more than its own X a turn, Tough ignored; the model gains
  that many Ki -- ``Action("cultist", model, target=friend, x=wounds)``, free, before
  the model's action, as often as the X allows.
* **Kami** (p.54): starts with full Ki; wounds remove Ki tokens
  (:func:`~sim.rules.game.state.take_wounds`), removed with the last; Immune [Poison,
  Fire, Bleed, Disease]; cannot be healed; no feat that would spend its last Ki token.
* **Rise (X)** (p.57): at 0 wounds a challenge test with one die (p.28: no statistic
  named) at TN X: healed and Prone, or removed; not after Fire damage in the End phase.
* **Last Stand** (p.54): at 0 wounds it stays and may activate until the End phase,
  where it is removed; it cannot be healed once at 0.
* **Regenerate (X)** (p.57): heals X wounds in the End phase (step 1, after the negative
  effects).
* **Heal (X)** (p.52): ``Action("heal", model, target=other, point=...)``, Simple: a
  Walk into contact with a non-Soulless model, then X of its wounds healed; itself
  without moving.
* **Impetuous (X)** (p.54): X Impetuous markers in the Starting phase (step 5); Fearless
  while it has them (the Fear tests read it, :mod:`sim.rules.game.rolls_step`; Immune
  [Frightened] here).
* **Banzai!** (p.49): its Charge is a Simple action (:meth:`TurnTraits.action_counters`).
"""

from __future__ import annotations

import json
import math
import re

from sim.rules import conditions, movement
from sim.rules.dice import RollKind, RollPurpose, challenge_test
from sim.rules.game import melee_traits
from sim.rules.game.actions import Action, ActionKind, register, verdict, walk_points
from sim.rules.game.death_sentence import DS_OFFER
from sim.rules.game.defiance import DEFIANCE_OFFER
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState

#: The free actions taken at the start of a model's activation, before it declares its
#: action (Jump Up p.54, Cultist p.50).
START_KINDS = ("jump_up", "cultist")

#: The one-activation mark of a model whose activation has started with a free action
#: (:data:`START_KINDS`): until it declares its action no other model of its side may
#: activate. Its value is the Cultist wounds it has dealt in this activation.
ACTIVATING = "activating"
#: The per-turn mark of the Cultist wounds a model has taken (p.50), cleared in the End phase.
CULTIST_TAKEN = "cultist_wounds"
#: The Starting phase offers: Fortune's coin toss (p.52), Oni Rage's Berserk (p.55).
FORTUNE_OFFER = "fortune_offer"
ONI_OFFER = "oni_rage_offer"
#: A won or lost Fortune toss (``"won"``/``"lost"``), until the Ki generation it changes.
FORTUNE = "fortune"
#: The answer kinds of the choices the game waits for (Starting phase, a Group's exchanges).
CHOICE_KINDS = ("fortune", "oni_rage", "group_fight", "cavalry")
#: Cavalry (X") (p.50): the model moved X" before its action in this activation.
CAVALRY_DONE = "cavalry_moved"
#: Cavalry (X"): the model may move X" after the action it just performed (its player's choice).
CAVALRY_AFTER = "cavalry_after"
#: A Group model that activates in the activation under way (p.52).
GROUP_PENDING = "group_pending"
#: A Group model's exchange held back until the card's models have moved; its value is the
#: ``exchange_open`` event's data as JSON (p.52).
GROUP_FIGHT = "group_fight"


def _x(value, default: int = 0) -> int:
    """The whole number X of a trait value text (``"2"``, ``"+1"``, ``'3"'``), or ``default``."""
    if value is None:
        return default
    digits = "".join(ch for ch in str(value).split("/")[0] if ch.isdigit() or ch == "-")
    try:
        return int(digits)
    except ValueError:
        return default


def _trait_text(text: str) -> str:
    """A bonus's trait in the printed form: ``"regenerate +1"`` -> ``"Regenerate (+1)"``,
    ``'camouflage (4")'`` -> ``'Camouflage (4")'``."""
    text = text.strip()
    m = re.fullmatch(r"(.*?)\s*([+-]\d+)", text)
    if m:
        text = f"{m.group(1)} ({m.group(2)})"
    return text[:1].upper() + text[1:]


class TurnTraits(GamePart):
    """Jump Up, Cultist, Kami, Rise, Last Stand, Regenerate, Heal, Impetuous, Banzai! (a
    mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ counters (Banzai!, p.49)
    def action_counters(self, action: Action) -> int:
        """Activation counters ``action`` removes (p.24): its kind's, except a Charge by a
        Banzai! model, a Simple action (p.49: "может выполнять Действие Нападение как
        базовое простое действие, а не сложное")."""
        if action.kind == "charge" and action.model and (self._trait(action.model, "banzai")[0]
                                                         or melee_traits.charging_banzai(self, action.model)):
            return 1  # Banzai!, also from a Charging Bonus [.., Banzai!] (p.50, rulings H2)
        return action.counters

    # ------------------------------------------------------------ wounds (Kami, Last Stand, Rise)
    def wounds_left(self, mid: str) -> int | None:
        """The wounds ``mid`` can take before it is removed (p.38), for the melee exchange:
        a Kami's Ki tokens (p.54); None for a Last Stand or Rise model, which wounds do not
        remove at once (the game applies its trait after the exchange)."""
        m = self.state.models[mid]
        if m.kami:
            return m.ki
        if m.holds_at_zero:
            return None
        return m.wounds - m.damage

    def heal_refusal(self, mid: str) -> str | None:
        """Why ``mid`` cannot be healed now, or None: a Kami never (p.54), a Last Stand model
        once at 0 wounds (p.54), a model with no marked wound."""
        m = self.state.models[mid]
        if m.kami:
            return f"{mid} is a Kami: it cannot be healed (p.54)"
        if self._trait(mid, "last_stand")[0] and m.damage >= m.wounds:
            return f"{mid} was reduced to 0 wounds: Last Stand, it cannot recover wounds (p.54)"
        if m.damage <= 0:
            return f"{mid} has no marked wound"
        return None

    def _heal(self, mid: str, n: int, source: str) -> None:
        """Heal ``n`` of ``mid``'s marked wounds (a ``healed`` event) unless it cannot be healed."""
        m = self.state.models[mid]
        n = min(n, m.damage)
        if n > 0 and self.heal_refusal(mid) is None:
            self._emit(Event("healed", {"model": mid, "n": n, "source": source}))

    def _zero_wound_checks(self, fire: frozenset[str] = frozenset()) -> None:
        """Models at 0 wounds still on the table (:attr:`ModelState.holds_at_zero`): Rise
        (X) takes its test at once (p.57: a one-die challenge test at TN X, p.28; success:
        all wounds healed and Prone; failure: removed), unless ``fire`` names it (its last
        wound came from Fire in the End phase); a Last Stand model stays until the End phase
        (p.54); anything else is removed."""
        for m in list(self.state.alive()):
            if not m.holds_at_zero or m.damage < m.wounds:
                continue
            has_rise, rise_x = self._trait(m.id, "rise")
            if has_rise and m.id not in fire:
                x = _x(rise_x, 0)
                bonus = self.test_bonus(m.id, "rise")  # round 6 (F4): a Ki feat's bonus (feat_rolls)
                res = challenge_test(1, x, bonus, self._roller, purpose=RollPurpose(RollKind.CHALLENGE, m.id,
                                                                                  detail=f"Rise ({x})"))
                self._emit(Event("test", {"model": m.id, "test": "rise", "tn": x, "passed": res.success,
                                          "text": f"{m.id} is reduced to 0 wounds: Rise ({x}) test "
                                                  + ("passed: all its wounds healed, it is Prone (p.57)" if res.success
                                                     else "failed (p.57)")}))
                if res.success:
                    self._emit(Event("healed", {"model": m.id, "n": m.damage, "source": f"Rise ({x})"}))
                    self._gain(m.id, "prone")
                    continue
            if self._trait(m.id, "last_stand")[0]:
                continue  # it stays until the End phase (p.54)
            self._emit(Event("killed", {"model": m.id}))

    # ------------------------------------------------------------ the activation's start (Jump Up, Cultist)
    def _start_lock(self, m: ModelState) -> str | None:
        """Why ``m`` may not start an activation now: another model of its side started
        its activation with a free action (Jump Up, Cultist) and has not yet declared its
        action (p.24: one model activates at a time)."""
        for x in self.state.alive(m.player):
            if x.id != m.id and ACTIVATING in x.conditions:
                return f"{x.id}'s activation has started (Jump Up / Cultist): it declares its action first"
        pending = self.group_pending(m.player)
        if pending and m.id not in pending:
            return f"Group: {', '.join(pending)} activate in this activation first (p.52)"
        if not pending and self.group_fights(m.player):
            return "Group: the group's melee exchanges are fought first, in the order its player chooses (p.52)"
        return self.order_lock(m)  # a Ki feat binds the order of activations (feat_order, round 6)

    def activation_lock(self, mid: str) -> str | None:
        """Why model ``mid`` may not start an activation now because another activation is
        under way (Jump Up, Cultist, a Group's activation and its exchanges), or None."""
        return self._start_lock(self.state.models[mid])

    def player_lock(self, player: int) -> str | None:
        """Why ``player`` may not spend a pass token now: an activation is under way (Jump
        Up, Cultist, a Group's activation and its exchanges, p.21, p.52), or None."""
        for x in self.state.alive(player):
            if ACTIVATING in x.conditions:
                return f"{x.id}'s activation has started: it declares its action first"
        if self.group_pending(player) or self.group_fights(player):
            return "a Group's activation is under way (p.52)"
        return self.order_pass_lock(player)  # a Ki feat forbids the pass token (feat_order, round 6)

    # ------------------------------------------------------------ Cavalry (X") (p.50)
    def _cavalry_x(self, mid: str) -> float:
        has, xv = self._trait(mid, "cavalry")
        if not has:
            return 0.0
        prof = self.profile(mid)
        t = prof.trait("cavalry") if prof is not None else None
        for v in (getattr(t, "range", None), xv, getattr(t, "text", None)):
            got = re.search(r"(\d+(?:\.\d+)?)", str(v)) if v is not None else None
            if got:
                return float(got.group(1))
        return 0.0

    def _cavalry_table(self, mid: str):
        """The table now with ``mid``'s Move set to its Cavalry X (the move's length)."""
        from dataclasses import replace as dc_replace

        from sim.table import Table

        now = self._table_now()
        x = self._cavalry_x(mid)
        models = tuple(dc_replace(t, move=x) if t.id == mid else t for t in now.models)
        return Table(now.name, now.width, now.depth, now.terrain, models, now.source)

    def _cavalry_points(self, m: ModelState, samples: int = 8) -> list[Action]:
        """Cavalry moves offered to ``m``: ``samples`` directions at its full X (legal ones)."""
        x = self._cavalry_x(m.id)
        table = self._cavalry_table(m.id)
        out = []
        for i in range(samples):
            ang = 2 * math.pi * i / samples
            pt = (m.position[0] + x * math.cos(ang), m.position[1] + x * math.sin(ang))
            if movement.check_walk(table, m.id, [pt]).legal:
                out.append(Action("cavalry", m.id, point=pt))
        return out

    def _legal_cavalry(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        if m is None or not m.alive:
            return False, f"no model {action.model!r} on the table"
        if not self._trait(m.id, "cavalry")[0]:
            return False, f"{m.id} does not have Cavalry (p.50)"
        if CAVALRY_AFTER not in m.conditions:
            why = self._start_kind_refusal(m, action)
            if why:
                return False, why
            if CAVALRY_DONE in m.conditions:
                return False, f"{m.id} has made its Cavalry move before this action (p.50)"
            if action.point is None and not action.path:
                return False, "Cavalry: the move before the action needs a point"
        elif m.player != st.active or st.exchange is not None:
            return False, "Cavalry: its player chooses the move after the action first"
        if action.point is None and not action.path:
            return True, ""  # no move after the action
        pts = walk_points(action)
        assert pts is not None
        return verdict(movement.check_walk(self._cavalry_table(m.id), m.id, pts, facing=action.facing))

    def _resolve_cavalry(self, action: Action) -> None:
        """A Cavalry move (p.50): before the model's action (it starts the activation) or
        after it (the choice the game waited for; none without a point)."""
        m = self.state.models.get(action.model or "")
        ok, why = self._legal_cavalry(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        after = CAVALRY_AFTER in m.conditions
        pts = walk_points(action)
        if pts is not None:
            self._emit(Event("note", {"text": f"{m.id} makes its Cavalry move of up to {self._cavalry_x(m.id):g}\" "
                                              f"{'after' if after else 'before'} its action (p.50)"}))
            self._move(m.id, movement.check_walk(self._cavalry_table(m.id), m.id, pts, facing=action.facing))
        if after:
            self._emit(Event("condition", {"model": m.id, "name": CAVALRY_AFTER, "on": False}))
            p = m.player
            if not self.is_over() and self.state.exchange is None and not self._group_step(p):
                self._next_active(3 - p)
            return
        self._emit(Event("condition", {"model": m.id, "name": CAVALRY_DONE, "on": True}))
        if ACTIVATING not in m.conditions:
            self._emit(Event("condition", {"model": m.id, "name": ACTIVATING, "on": True, "value": 0}))

    def _cavalry_done(self, mid: str, legal: bool) -> None:
        """After a Cavalry model's (legal) action: its player may move it X" (p.50); the
        game waits for that choice."""
        m = self.state.models.get(mid)
        if m is None or not m.alive or not legal or not self._trait(mid, "cavalry")[0]:
            return
        if CAVALRY_AFTER not in m.conditions:
            self._emit(Event("condition", {"model": mid, "name": CAVALRY_AFTER, "on": True}))

    # ------------------------------------------------------------ Group (p.52)
    def group_mates(self, mid: str) -> list[str]:
        """The other models of ``mid``'s profile card when it has Group (p.52): the models
        of its warband with the same printed card, on the table."""
        if not self._trait(mid, "group")[0]:
            return []
        card = self.table.model(mid).profile
        m = self.state.models[mid]
        return [x.id for x in self.state.alive() if x.id != mid and x.owner == m.owner
                and self.table.model(x.id).profile == card and card is not None]

    def group_pending(self, player: int | None = None) -> list[str]:
        """The Group models that must still activate in the activation under way (p.52)."""
        return [x.id for x in self.state.alive(player) if GROUP_PENDING in x.conditions]

    def group_fights(self, player: int | None = None) -> list[str]:
        """The Group models whose melee exchange waits until every model of the card has
        moved (p.52), by attacker."""
        return [x.id for x in self.state.alive(player) if GROUP_FIGHT in x.conditions]

    def _group_start(self, mid: str) -> None:
        """A model activates (its ``activate`` event): a Group model that starts its card's
        activation marks the card's other models with counters, which activate next (p.52:
        "Все модели, представленные этой карточкой профиля, активируются в одной
        активации"); one of them activating loses its mark."""
        m = self.state.models[mid]
        if GROUP_PENDING in m.conditions:
            self._emit(Event("condition", {"model": mid, "name": GROUP_PENDING, "on": False}))
            return
        if self.group_pending(m.player) or self.group_fights(m.player):
            return
        mates = [x for x in self.group_mates(mid) if self.state.models[x].counters > 0]
        if not mates:
            return
        self._emit(Event("note", {"text": f"Group: {mid} activates with {', '.join(mates)}; every model moves before "
                                          "any exchange (p.52)"}))
        for x in mates:
            self._emit(Event("condition", {"model": x, "name": GROUP_PENDING, "on": True}))

    def open_exchange(self, data: dict) -> None:
        """Open a melee exchange (an ``exchange_open`` event with ``data``), or, during a
        Group's activation, hold it back until every model of the card has moved (p.52:
        "Каждая модель на этой карточке профиля выполняет любое движение до выполнения
        любых Обменов ударами"): a mark on the attacker keeps the event's data."""
        att = data["attacker"]
        player = self.state.models[att].player
        if self.group_pending(player) or self.group_fights(player):
            self._emit(Event("note", {"text": f"Group: {att}'s exchange with {data['defender']} waits until every "
                                              "model of the card has moved (p.52)"}))
            self._emit(Event("condition", {"model": att, "name": GROUP_FIGHT, "on": True,
                                           "value": json.dumps(data, sort_keys=True)}))
            return
        self._emit(Event("exchange_open", data))

    def _group_step(self, player: int | None) -> bool:
        """After an action or an exchange of ``player``: True when the Group's activation
        goes on (models of the card still to activate, or its exchanges: the only one left
        is opened, several wait for their player's choice of order, p.52); False when
        the turn passes as usual."""
        if player not in (1, 2):
            return False
        if any(CAVALRY_AFTER in m.conditions for m in self.state.alive(player)):
            if self.state.active != player:  # Cavalry: its player chooses the move after the action (p.50)
                self._emit(Event("active", {"player": player}))
            return True
        if self.group_pending(player):
            if self.state.active != player:
                self._emit(Event("active", {"player": player}))
            return True
        fights = self.group_fights(player)
        if not fights:
            return False
        if self.state.active != player:
            self._emit(Event("active", {"player": player}))
        if len(fights) == 1:
            self._group_fight(fights[0])
        return True

    def _group_fight(self, mid: str) -> None:
        """Open the held-back exchange of ``mid`` (p.52)."""
        m = self.state.models[mid]
        data = json.loads(str(m.conditions[GROUP_FIGHT]))
        self._emit(Event("condition", {"model": mid, "name": GROUP_FIGHT, "on": False}))
        d = self.state.models.get(data.get("defender", ""))
        if d is None or not d.alive:
            self._emit(Event("note", {"text": f"Group: {mid}'s opponent is gone: no exchange"}))
            if not self._group_step(m.player):
                self._next_active(3 - m.player)
            return
        self._emit(Event("exchange_open", data))

    def _end_group_surprise(self) -> None:
        """Surprised ends with the action, except on the targets of a Group's held-back
        exchanges (p.52, "Уточнение: если цель Рукопашной атаки моделей, активировавшихся
        группой, Захвачена врасплох, это состояние завершается после завершения Обмена
        ударами с моделью, вызвавшей это состояние")."""
        waiting = {json.loads(str(self.state.models[a].conditions[GROUP_FIGHT])).get("defender")
                   for a in self.group_fights()}
        for x in self.state.alive():
            if "surprised" in x.conditions and x.id not in waiting:
                self._emit(Event("condition", {"model": x.id, "name": "surprised", "on": False}))

    def _legal_group_fight(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        if m is None or GROUP_FIGHT not in m.conditions:
            return False, f"{action.model} has no Group exchange waiting (p.52)"
        if self.group_pending(m.player):
            return False, "Group: every model of the card moves before any exchange (p.52)"
        if st.exchange is not None or m.player != st.active:
            return False, "another exchange is being fought"
        return True, ""

    def _resolve_group_fight(self, action: Action) -> None:
        m = self.state.models.get(action.model or "")
        ok, why = self._legal_group_fight(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        self._group_fight(m.id)

    def _end_activation_marks(self) -> None:
        """After a declared action: the activation that a free action started is over."""
        for x in self.state.alive():
            for mark in (ACTIVATING, CAVALRY_DONE):
                if mark in x.conditions:
                    self._emit(Event("condition", {"model": x.id, "name": mark, "on": False}))

    def _start_kind_refusal(self, m: ModelState, action: Action) -> str | None:
        """The checks of a free action at the start of an activation: the active player's
        model, with counters, not stopped by Impetuous or by another model's activation, no
        exchange or shot waiting."""
        st = self.state
        if st.phase != "main":
            return "only in the Main phase, at the start of the model's activation"
        if st.exchange is not None or st.interception is not None:
            return "a melee exchange or a shot is waiting"
        if m.player != st.active:
            return f"{m.id} is not the active player's model"
        if m.exhausted:
            return f"{m.id} is Exhausted (no activation counters): it does not activate"
        if st.impetuous_blocks(m):
            return "Impetuous: a model of the warband has an Impetuous marker, so only such models activate (p.44)"
        return self._start_lock(m)

    def _legal_jump_up(self, m: ModelState, action: Action) -> tuple[bool, str]:
        why = self._start_kind_refusal(m, action)
        if why:
            return False, why
        if not self._trait(m.id, "jump_up")[0]:
            return False, f"{m.id} does not have Jump Up (p.54)"
        if "prone" not in m.conditions:
            return False, f"{m.id} is not Prone"
        return True, ""

    def _resolve_jump_up(self, action: Action) -> None:
        m = self.state.models.get(action.model or "")
        ok, why = self._legal_jump_up(m, action) if m is not None and m.alive else (False, "no such model")
        if not ok:  # a free action is not declared: refused, nothing spent
            self._unmark()
            raise GameError(why)
        mid = action.model
        assert mid is not None  # judged legal
        self._emit(Event("note", {"text": f"{mid} Jumps Up: its Prone markers are removed before it declares its "
                                          "action (p.54)"}))
        self._emit(Event("condition", {"model": mid, "name": "prone", "on": False}))
        if ACTIVATING not in self.state.models[mid].conditions:
            self._emit(Event("condition", {"model": mid, "name": ACTIVATING, "on": True, "value": 0}))

    def cultist_room(self, mid: str, target: str) -> int:
        """How many Cultist wounds ``mid`` may still deal to ``target`` now (p.50): its X
        less those dealt in this activation, the target's X less those it took this turn,
        and the target's wounds left."""
        has, xv = self._trait(mid, "cultist")
        t = self.state.models.get(target)
        if not has or t is None or not t.alive:
            return 0
        has_t, xt = self._trait(target, "cultist")
        if not has_t or t.player != self.state.models[mid].player:
            return 0
        dealt = int(self.state.models[mid].conditions.get(ACTIVATING, 0) or 0)
        taken = int(t.conditions.get(CULTIST_TAKEN, 0) or 0)
        left = t.ki if t.kami else t.wounds - t.damage
        return max(0, min(_x(xv) - dealt, _x(xt) - taken, left))

    def _legal_cultist(self, m: ModelState, action: Action) -> tuple[bool, str]:
        why = self._start_kind_refusal(m, action)
        if why:
            return False, why
        if not self._trait(m.id, "cultist")[0]:
            return False, f"{m.id} does not have Cultist (p.50)"
        if not action.target or action.target not in self.state.models:
            return False, "Cultist: name the friendly Cultist model to wound (target)"
        n = action.x if action.x is not None else 1
        if n < 1:
            return False, "Cultist: at least one wound"
        room = self.cultist_room(m.id, action.target)
        if n > room:
            return False, (f"Cultist: {action.target} may take at most {room} more wound(s) from {m.id} now (a "
                           "friendly Cultist; X in all per activation, the target's X per turn; p.50)")
        return True, ""

    def _resolve_cultist(self, action: Action) -> None:
        m = self.state.models.get(action.model or "")
        ok, why = self._legal_cultist(m, action) if m is not None and m.alive else (False, "no such model")
        if not ok:  # a free action is not declared: refused, nothing spent
            self._unmark()
            raise GameError(why)
        mid, target = action.model, action.target
        assert mid is not None and target is not None  # judged legal
        n = action.x if action.x is not None else 1
        m, t = self.state.models[mid], self.state.models[target]
        dealt = int(m.conditions.get(ACTIVATING, 0) or 0) + n
        self._emit(Event("condition", {"model": mid, "name": ACTIVATING, "on": True, "value": dealt}))
        self._emit(Event("condition", {"model": target, "name": CULTIST_TAKEN, "on": True,
                                       "value": int(t.conditions.get(CULTIST_TAKEN, 0) or 0) + n}))
        self._emit(Event("note", {"text": f"{mid} (Cultist) deals {n} wound(s) to {target}, ignoring Tough, and "
                                          f"gains {n} Ki (p.50)"}))
        self._emit(Event("ki_change", {"model": mid, "delta": n}))
        self._wound(target, n)
        self._zero_wound_checks()
        if not self.state.models[mid].alive:  # a Cultist that wounded itself to death: its activation is over
            self._emit(Event("note", {"text": f"{mid} is killed before declaring its action: its activation ends"}))
            self._next_active(3 - self.state.models[mid].player)

    def activation_start_offers(self, m: ModelState) -> list[Action]:
        """The free actions ``m`` may take now before declaring its action (offered by
        ``legal_actions``): Jump Up while Prone, one Cultist wound to each friendly Cultist
        that may take one."""
        out: list[Action] = []
        if "prone" in m.conditions and self._trait(m.id, "jump_up")[0]:
            a = Action("jump_up", m.id)
            if self.is_legal(a)[0]:
                out.append(a)
        if self._trait(m.id, "cavalry")[0] and CAVALRY_DONE not in m.conditions and not self._start_kind_refusal(
                m, Action("cavalry", m.id)):
            out += self._cavalry_points(m)
        if self._trait(m.id, "cultist")[0]:
            for t in self.state.alive(m.player):
                if self.cultist_room(m.id, t.id) > 0:
                    a = Action("cultist", m.id, target=t.id, x=1)
                    if self.is_legal(a)[0]:
                        out.append(a)
        return out

    # ------------------------------------------------------------ Heal (X) (p.52)
    def _heal_point(self, mid: str, target: str) -> tuple[float, float] | None:
        """A point where ``mid``'s base touches ``target``'s, on the line between them."""
        table = self._table_now()
        a, b = table.model(mid), table.model(target)
        dx, dy = a.position[0] - b.position[0], a.position[1] - b.position[1]
        d = math.hypot(dx, dy) or 1.0
        r = a.radius + b.radius + movement.CONTACT / 2
        return (b.position[0] + dx / d * r, b.position[1] + dy / d * r)

    def _in_contact(self, a: str, b: str) -> bool:
        table = self._table_now()
        ta, tb = table.model(a), table.model(b)
        return math.dist(ta.position, tb.position) - ta.radius - tb.radius <= movement.CONTACT + 1e-9

    def _legal_heal(self, m: ModelState, action: Action) -> tuple[bool, str]:
        has, _ = self._trait(m.id, "heal")
        if not has:
            return False, f"{m.id} does not have Heal (p.52)"
        target = action.target or m.id
        t = self.state.models.get(target)
        if t is None or not t.alive:
            return False, f"no model {target!r} on the table"
        if target != m.id and self._trait(target, "soulless")[0]:  # "другой не-Бездушной модели"
            return False, f"{target} is Soulless: it cannot be healed by Heal (p.52)"
        why = (self.heal_markers_refusal(m.id, target, action) if action.models  # round 6 (F5): markers instead
               else self.heal_refusal(target))
        if why:
            return False, why
        if target == m.id:
            if action.point is not None or action.path:
                return False, "Heal: a model that heals itself cannot move (p.52)"
            return True, ""
        if action.point is None and not action.path:
            return ((True, "") if self._in_contact(m.id, target) or self.heal_reaches(m.id, target)  # F5 (Prayer)
                    else (False, "Heal: a point to move into contact"))
        pts = walk_points(action)
        assert pts is not None  # a point or a path: checked above
        return verdict(movement.check_walk(self._table_now(), m.id, pts, facing=action.facing))

    def _resolve_heal(self, action: Action) -> None:
        mid = action.model
        assert mid is not None  # judged legal
        target = action.target or mid
        x = max(0, _x(self._trait(mid, "heal")[1]))  # "X не может быть меньше 0"
        if target != mid and (action.point is not None or action.path):
            pts = walk_points(action)
            assert pts is not None  # a point or a path
            self._move(mid, movement.check_walk(self._table_now(), mid, pts, facing=action.facing))
        if target == mid or self._in_contact(mid, target) or self.heal_reaches(mid, target):  # F5: Prayer of Healing
            if action.models:  # round 6 (F5): markers removed instead of wounds (feat_cards)
                self.heal_markers(mid, target, action.models)
            else:
                self._heal(target, x, f"Heal ({x})")
        else:
            self._emit(Event("note", {"text": f"{mid} does not end its move in contact with {target}: no wound "
                                              "healed (p.52)"}))

    def heal_offers(self, m: ModelState) -> list[Action]:
        """The Heal actions offered to ``m`` (p.52): itself, and each wounded friend it can
        reach with a Walk into contact (or already touches)."""
        if not self._trait(m.id, "heal")[0]:
            return []
        out: list[Action] = []
        for t in self.state.alive(m.player):
            if t.damage <= 0:
                continue
            if t.id == m.id:
                a = Action("heal", m.id, target=m.id)
            elif self._in_contact(m.id, t.id):
                a = Action("heal", m.id, target=t.id)
            else:
                pt = self._heal_point(m.id, t.id)
                if pt is None:
                    continue
                a = Action("heal", m.id, target=t.id, point=pt)
            if self.is_legal(a)[0]:
                out.append(a)
        return out + self.heal_feat_offers(m, out)  # round 6 (F5): Prayer of Healing / Purification (feat_cards)

    # ------------------------------------------------------------ Booted (p.50)
    def booted_refusal(self, action: Action) -> str | None:
        """Why the Walk ``action.path`` declared with an ``arrive`` may not be made, or None
        (no Walk declared, or a legal one): Booted (p.50) "когда эта модель выставляется из
        флангового обхода, она может немедленно совершить Ходьбу" -- the model must have
        Booted, and the Walk is judged from the arrival point (p.24)."""
        if not action.path:
            return None
        mid = action.model or ""
        if not self._trait(mid, "booted")[0]:
            return f"{mid} does not have Booted: it may not Walk when it arrives (p.50)"
        if action.point is None:
            return None  # the arrival itself is refused
        res = movement.check_walk(self._arrived_table(mid, action), mid, list(action.path))
        if not res.legal:
            return "the Booted Walk: " + "; ".join(r.message for r in res.reasons)
        return None

    def _arrived_table(self, mid: str, action: Action):
        """The table now with ``mid`` placed where ``action`` (an ``arrive``) puts it."""
        from dataclasses import replace as dc_replace

        from sim.table import Table

        now = self._table_now()
        assert action.point is not None
        tm = dc_replace(self.table.model(mid), position=(float(action.point[0]), float(action.point[1])),
                        facing=float(action.facing or 0.0) % 360.0, player=self.state.models[mid].player)
        return Table(now.name, now.width, now.depth, now.terrain, now.models + (tm,), now.source)

    def _booted_walk(self, action: Action) -> None:
        """After the ``arrive`` event: the Booted model's Walk, if one was declared (p.50)."""
        if action.path and action.model:
            self._emit(Event("note", {"text": f"{action.model} is Booted: it Walks at once on arrival (p.50)"}))
            self._move(action.model, movement.check_walk(self._table_now(), action.model, list(action.path)))

    def booted_offers(self, arrivals: list[Action]) -> list[Action]:
        """For each offered arrival of a Booted model, the same arrival with a Walk of its
        full Move straight into the table (``path``), when legal."""
        out: list[Action] = []
        for a in arrivals:
            if not a.model or a.point is None or not self._trait(a.model, "booted")[0]:
                continue
            move = float(self.table.model(a.model).move or 0)
            ang = math.radians(a.facing or 0.0)
            for frac in (1.0, 0.5):
                pt = (a.point[0] + move * frac * math.cos(ang), a.point[1] + move * frac * math.sin(ang))
                b = Action("arrive", a.model, point=a.point, facing=a.facing, path=(pt,))
                if self.booted_refusal(b) is None:
                    out.append(b)
                    break
        return out

    # ------------------------------------------------------------ Starting phase choices (Fortune, Oni Rage)
    def starting_choices_pending(self, player: int | None = None) -> list[str]:
        """The models of ``player`` (default: any) whose Starting phase choice the game
        waits for: Fortune's coin toss (p.52) or Oni Rage's Berserk (p.55)."""
        st = self.state
        if st.phase == "main" and st.exchange is None and st.interception is None:
            after = [m.id for m in st.alive(player) if CAVALRY_AFTER in m.conditions]
            if after:  # Cavalry: a move after the action, or none (p.50)
                return after
        if st.phase == "main" and st.exchange is None and not self.group_pending(player):
            fights = self.group_fights(player)  # a Group's exchanges: their order is its player's choice (p.52)
            return fights if len(fights) > 1 else []
        if st.phase != "start":
            return []
        return [m.id for m in st.in_game(player) if FORTUNE_OFFER in m.conditions or ONI_OFFER in m.conditions
                or DEFIANCE_OFFER in m.conditions  # In Defiance of the Gods (sim.rules.game.defiance)
                or DS_OFFER in m.conditions]  # Death Sentence: pay 3 Ki or keep it (sim.rules.game.death_sentence)

    def starting_choice_actions(self) -> list[Action]:
        """The choices offered while the Starting phase waits: for each model of the player
        to move with an offer, taking it (``special``) or declining (no ``special``)."""
        out: list[Action] = []
        for mid in self.starting_choices_pending(self.state.active):
            m = self.state.models[mid]
            if FORTUNE_OFFER in m.conditions:
                out += [Action("fortune", mid, special="toss"), Action("fortune", mid)]
            if ONI_OFFER in m.conditions:
                out += [Action("oni_rage", mid, special="berserk"), Action("oni_rage", mid)]
            out += self.defiance_offers(mid)  # In Defiance of the Gods (catalogue)
            out += self.death_sentence_offers(mid)  # Death Sentence (p.43)
            if CAVALRY_AFTER in m.conditions:
                out += [Action("cavalry", mid)] + self._cavalry_points(m)
            elif GROUP_FIGHT in m.conditions and self.state.phase == "main":
                out.append(Action("group_fight", mid))
        return out

    def _offer(self, models: list[ModelState], mark: str, what: str, first: int) -> None:
        """Mark ``models`` with the offer ``mark`` and make the player who answers first
        active (``first`` if it has an offer, else the other)."""
        for m in models:
            self._emit(Event("condition", {"model": m.id, "name": mark, "on": True}))
        player = first if any(m.player == first for m in models) else 3 - first
        self._emit(Event("note", {"text": f"Starting phase: {what} -- player {player} chooses first"}))
        if self.state.active != player:
            self._emit(Event("active", {"player": player}))

    def _fortune_due(self) -> bool:
        """Starting phase step 2 (p.20): the Fortune models that generate Ki (p.52) get an
        offer and the game waits (True); False when there is none."""
        st = self.state
        ready = [m for m in st.in_game() if m.ki_stat > 0 and self._trait(m.id, "fortune")[0]
                 and conditions.generates_ki(conditions.from_model(m))]
        if not ready:
            return False
        self._offer(ready, FORTUNE_OFFER, "Fortune (p.52): toss a coin to double the Ki generated, or lose it",
                    st.first if st.first in (1, 2) else 1)
        return True

    def _fortune_gains(self, gains: dict[str, int]) -> dict[str, int]:
        """Ki generation with Fortune's tosses (p.52): doubled for a won toss, none for a
        lost one; the tosses' marks are removed."""
        out = dict(gains)
        for m in self.state.in_game():
            won = m.conditions.get(FORTUNE)
            if won is None:
                continue
            out[m.id] = out.get(m.id, 0) * 2 if won == "won" else 0
            self._emit(Event("condition", {"model": m.id, "name": FORTUNE, "on": False}))
        return out

    def _oni_rage_due(self) -> bool:
        """Starting phase step 5 (p.20): the Oni Rage models on the table not yet Berserk
        get an offer and the game waits (True); False when there is none."""
        st = self.state
        ready = [m for m in st.alive() if "berserk" not in m.conditions and self._trait(m.id, "oni_rage")[0]]
        if not ready:
            return False
        self._offer(ready, ONI_OFFER, "Oni Rage (p.55): become Berserk and gain 2 Ki",
                    st.first if st.first in (1, 2) else 1)
        return True

    def _legal_choice(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        mark = FORTUNE_OFFER if action.kind == "fortune" else ONI_OFFER
        if m is None or st.phase != "start" or mark not in m.conditions:
            return False, (f"{action.model} may choose {action.kind.replace('_', ' ').title()} only when the "
                           "Starting phase offers it (p.52, p.55)")
        if m.player != st.active:
            return False, f"player {st.active} chooses first"
        want = "toss" if action.kind == "fortune" else "berserk"
        if action.special not in (None, want):
            return False, f"{action.kind}: special is {want!r} (take it) or nothing (decline)"
        return True, ""

    def _resolve_choice(self, action: Action) -> None:
        """A Fortune or Oni Rage choice (p.52, p.55); when none is left, the Starting phase
        goes on (after Fortune: Ki generation; after Oni Rage: Intimidate, arrivals, pass
        tokens)."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_choice(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        mid = m.id
        if action.kind == "fortune":
            self._emit(Event("condition", {"model": mid, "name": FORTUNE_OFFER, "on": False}))
            if action.special == "toss":
                roll = self._roller.roll(1, RollPurpose(RollKind.CHALLENGE, mid, detail="Fortune: a coin toss"))[0]
                won = roll >= 4
                self._emit(Event("test", {"model": mid, "test": "fortune", "passed": won,
                                          "text": f"{mid} tosses a coin for Fortune (a die: {roll}, 4+ wins): "
                                                  + ("won, its Ki generation is doubled" if won
                                                     else "lost, it generates no Ki") + " (p.52)"}))
                self._emit(Event("condition", {"model": mid, "name": FORTUNE, "on": True,
                                               "value": "won" if won else "lost"}))
            else:
                self._emit(Event("note", {"text": f"{mid} does not toss for Fortune"}))
        else:
            self._emit(Event("condition", {"model": mid, "name": ONI_OFFER, "on": False}))
            if action.special == "berserk":
                self._emit(Event("note", {"text": f"{mid} flies into an Oni Rage: Berserk, +2 Ki (p.55)"}))
                self._gain(mid, "berserk")
                self._emit(Event("ki_change", {"model": mid, "delta": 2}))
            else:
                self._emit(Event("note", {"text": f"{mid} keeps its Oni Rage in check"}))
        if self.starting_choices_pending(st.active):
            return
        other = 3 - (st.active or 1)
        if self.starting_choices_pending(other):
            self._emit(Event("active", {"player": other}))
            return
        if action.kind == "fortune":
            self._starting_from_ki()
            return
        self._continue_starting_phase("oni_rage")  # step 5 goes on: Intimidate (p.54), Flank arrivals (p.52)

    def oni_rage_effects(self, mid: str) -> list[dict]:
        """Oni Rage (p.55): "когда эта модель имеет состояние Берсерк, она получает
        Живучесть (+1)" -- the effect its card has while it is Berserk (none otherwise)."""
        m = self.state.models.get(mid)
        if m is None or "berserk" not in m.conditions:
            return []
        prof = self.printed_profile(mid)
        if prof is None or prof.trait("oni_rage") is None:
            return []
        return [{"source": "Oni Rage", "until": "game", "traits": ["Tough (+1)"]}]

    # ------------------------------------------------------------ Strategy [B] (p.58)
    def _strategy(self, winner: int | None) -> None:
        """Strategy [B] (p.58): "всякий раз, когда вы выигрываете Tактический бросок, эта
        модель получает бонус в скобках" -- the winner's Strategy models on the table gain
        B: Ki tokens, or traits until the end of the turn; a pass token comes with the pass
        tokens (step 6); any other bonus is a logged manual step."""
        if winner not in (1, 2):
            return
        for m in self.state.alive(winner):
            prof = self.profile(m.id)
            for t in (prof.traits if prof is not None else ()):
                if t.keyword != "strategy" or not t.qualifier:
                    continue
                bonus = t.qualifier.strip().rstrip(".")
                ki_m = re.fullmatch(r"\+?(\d+) ki tokens?", bonus)
                if ki_m:
                    self._emit(Event("note", {"text": f"{m.id} (Strategy) gains {ki_m.group(1)} Ki (p.58)"}))
                    self._emit(Event("ki_change", {"model": m.id, "delta": int(ki_m.group(1))}))
                elif re.fullmatch(r"\+?\d+ pass tokens?", bonus):
                    continue  # with the pass tokens, step 6
                else:
                    traits = [_trait_text(x) for x in bonus.split(",") if x.strip()]
                    try:
                        self.grant(m.id, "Strategy", "turn", traits=traits)
                    except ValueError:
                        self._emit(Event("note", {"text": f"manual step: {m.id}'s Strategy [{t.qualifier}] -- its "
                                                          "player applies the bonus (p.58)"}))

    def _strategy_pass_tokens(self) -> None:
        """Strategy [+N Pass Token] (p.58): the Tactical roll's winner gains N pass tokens,
        after step 6 has counted them."""
        tact = next((e for e in reversed(self.events) if e.kind == "tactical"), None)
        winner = tact.data.get("winner") if tact is not None else None
        if winner not in (1, 2):
            return
        for m in self.state.alive(winner):
            prof = self.profile(m.id)
            for t in (prof.traits if prof is not None else ()):
                got = re.fullmatch(r"\+?(\d+) pass tokens?", (t.qualifier or "").strip().rstrip("."))
                if t.keyword == "strategy" and got:
                    self._emit(Event("pass_token_gained", {"player": winner, "n": int(got.group(1)),
                                                           "source": f"Strategy ({m.id})"}))

    # ------------------------------------------------------------ the Starting and End phases
    def _starting_traits(self) -> None:
        """Step 5 of the Starting phase (p.20): Impetuous (X) models on the table gain X
        Impetuous markers (p.54)."""
        for m in self.state.alive():
            has, xv = self._trait(m.id, "impetuous")
            if has and _x(xv, 1) > 0:
                self._emit(Event("note", {"text": f"{m.id} (Impetuous ({_x(xv, 1)})) gains Impetuous markers (p.54)"}))
                self._gain(m.id, "impetuous", _x(xv, 1))

    def _end_phase_heals(self) -> dict[str, int]:
        """End phase step 1, after the negative effects: Regenerate (X) heals X wounds
        (p.57). Returns every model's marked wounds before step 2 (for Rise's Fire rule)."""
        for m in self.state.alive():
            has, xv = self._trait(m.id, "regenerate")
            if has and _x(xv) > 0 and m.damage > 0:
                self._heal(m.id, _x(xv), f"Regenerate ({_x(xv)})")
        return {m.id: m.damage for m in self.state.alive()}

    def _end_phase_removals(self, before: dict[str, int]) -> None:
        """End phase, after the damaging markers (step 2): Rise for the models they reduced
        to 0 wounds, unless Fire did it (p.57); Last Stand models at 0 wounds are removed
        (p.54); the turn's Cultist marks go."""
        fire: set[str] = set()
        start = max((i for i, e in enumerate(self.events) if e.kind == "phase" and e.data.get("phase") == "end"),
                    default=0)
        for mid, d0 in before.items():
            m = self.state.models[mid]
            fire_wounds = sum(e.data["wounds"] for e in self.events[start:]
                              if e.kind == "marker_damage" and e.data["model"] == mid and e.data["marker"] == "fire")
            if fire_wounds and d0 + fire_wounds >= m.wounds:  # Fire is played first: it took the last box
                fire.add(mid)
        self._zero_wound_checks(frozenset(fire))
        for m in list(self.state.alive()):
            if m.holds_at_zero and m.damage >= m.wounds and self._trait(m.id, "last_stand")[0]:
                self._emit(Event("note", {"text": f"{m.id} (Last Stand) is removed in the End phase (p.54)"}))
                self._emit(Event("killed", {"model": m.id}))
        for m in self.state.models.values():
            if CULTIST_TAKEN in m.conditions:
                self._emit(Event("condition", {"model": m.id, "name": CULTIST_TAKEN, "on": False}))

    def impetuous_fearless(self, mid: str) -> bool:
        """Impetuous (X) (p.54): the model has Fearless (so Immune [Frightened]) while it
        has Impetuous markers."""
        m = self.state.models.get(mid)
        return bool(m is not None and "impetuous" in m.conditions and self._trait(mid, "impetuous")[0])

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("jump_up", _legal_jump_up, _resolve_jump_up),
        ActionKind("cultist", _legal_cultist, _resolve_cultist),
        ActionKind("heal", _legal_heal, _resolve_heal),
        ActionKind("fortune", _legal_choice, _resolve_choice),
        ActionKind("oni_rage", _legal_choice, _resolve_choice),
        ActionKind("group_fight", _legal_group_fight, _resolve_group_fight),
        ActionKind("cavalry", _legal_cavalry, _resolve_cavalry),
    )

