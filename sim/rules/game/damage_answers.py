"""Answers before a damage roll (rulebook "Traits" p.56-57): Sacrifice [K] (X") and
Protected [K] (X").

* **Sacrifice [K] (X")** (p.57): "если эта модель не Изнурена или не в контакте с врагом, а
  дружественная модель [Ключевое слово] в пределах X" была успешно атакована, контролирующий
  игрок может выбрать удалить эту модель из игры, чтобы отменить бросок урона против
  дружественной модели."
* **Protected [K] (X")** (p.56): "прежде чем эта модель получит бросок на урон в результате
  успешной рукопашной или стрелковой атаки, вы можете удалить из игры дружественную модель
  [Ключевое слово] в пределах X" и не получить бросок на урон."

How the engine plays them: a melee exchange (:meth:`~sim.rules.game.Game._resolve_exchange`)
or a shot (``_shoot``) is resolved once with the dice marked; when a damage roll is made
against a model that a friend may save (:meth:`DamageAnswers.damage_savers`) and its player
has not answered yet, the dice are put back where they stood, nothing of the resolution is
kept, and the attacked model carries the mark ``damage_offer`` (JSON: the attack, the
candidates, the answers given so far, the expected wounds). The game waits for that
player: ``Action("sacrifice", attacked, target=saver)`` removes ``saver`` from play and
cancels the damage roll(s) of that successful attack (the attack's, Dual's and Combo's, or
a Counterstrike's), ``Action("sacrifice", attacked)`` declines. The exchange or shot is
then resolved again from the same dice (the same rolls up to the damage roll), with the
answer; a second model attacked later in the same exchange is asked in turn. The saver is
removed after the resolution (it takes no part in it: the pools and the hit were fixed
before the damage roll). With dice that cannot be put back (physical dice) the choice is a
logged ``manual_step`` instead.

A mixin of :class:`~sim.rules.game.Game`; the kind ``sacrifice`` is registered at the end.
"""

from __future__ import annotations

import json
from dataclasses import replace as dc_replace
from typing import Any

from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.rules.game.targeting import keyword_matches
from sim.rules.wounds import wounds_for

#: The mark on a model a damage roll against which waits for its player's answer (value: JSON).
DAMAGE_OFFER = "damage_offer"
#: The pages of the two traits.
PAGE_SACRIFICE = "p.57"
PAGE_PROTECTED = "p.56"
#: The average total of two dice (the bot's estimate of a damage roll).
_AVERAGE_2D6 = 7


def _reach(rule: Any) -> float:
    """The X" of a [K] (X") trait (its range, else its value), in inches."""
    x = rule.range if rule.range is not None else rule.value
    try:
        return float(x or 0)
    except (TypeError, ValueError):
        return 0.0


class DamageAnswers(GamePart):
    """Sacrifice and Protected (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ who may save whom
    def damage_savers(self, target: str, used: tuple[str, ...] = ()) -> dict[str, str]:
        """The friends of ``target`` its player may remove from play now to cancel a damage
        roll against it: ``{model id: "Sacrifice" | "Protected"}``, nearest first.

        Sacrifice [K] (X") (p.57): a friend with the trait, not Exhausted, in contact with no
        enemy, within X" (edge to edge) of ``target``, whose card has the keyword K.
        Protected [K] (X") (p.56): ``target`` has the trait; a friend within X" whose card
        has K. ``used``: savers already chosen in this resolution (removed once only)."""
        st = self.state
        t = st.models.get(target)
        if t is None or not t.alive or t.elsewhere is not None:
            return {}
        scene = self._table_now().scene()
        card = self.profile(target)
        protected = [r for r in (card.traits if card is not None else ()) if r.keyword == "protected"]
        out: list[tuple[float, str, str]] = []
        for f in st.alive(t.player):
            if f.id == target or f.id in used or f.elsewhere is not None:
                continue
            try:
                d = scene.distance(f.id, target)
            except (KeyError, ValueError):
                continue
            prof = self.profile(f.id)
            if prof is None:
                continue
            for r in prof.traits:
                if (r.keyword == "sacrifice" and not f.exhausted and not self.enemies_in_contact(f.id)
                        and keyword_matches(card, r.qualifier, name=target) and d <= _reach(r) + 1e-9):
                    out.append((d, f.id, "Sacrifice"))
                    break
            else:
                for r in protected:
                    if keyword_matches(prof, r.qualifier, name=f.id) and d <= _reach(r) + 1e-9:
                        out.append((d, f.id, "Protected"))
                        break
        return {mid: why for _, mid, why in sorted(out)}

    @staticmethod
    def damage_cancel_text(target: str, saver: str, trait: str) -> str:
        """The log text of a damage roll against ``target`` cancelled by removing ``saver``."""
        page = PAGE_SACRIFICE if trait == "Sacrifice" else PAGE_PROTECTED
        return f"{saver} is removed from play instead ({trait}, {page})"

    # ------------------------------------------------------------ the dice
    def dice_mark(self) -> tuple[Any, int]:
        """Where the dice stand now (their state, or None for dice that cannot be put back)
        and how many values the action under way has rolled: :meth:`dice_rewind` puts them
        back there."""
        dice: Any = self._dice
        state = dice.state() if hasattr(dice, "state") and hasattr(dice, "restore") else None
        return state, len(self._rolls[-1]) if self._rolls else 0

    def dice_rewind(self, mark: tuple[Any, int]) -> None:
        """Put the dice back at ``mark`` (:meth:`dice_mark`) and forget the values rolled since."""
        state, used = mark
        dice: Any = self._dice
        dice.restore(state)
        if self._rolls:
            del self._rolls[-1][used:]

    # ------------------------------------------------------------ the window
    def damage_cancels(self, combatant: Any, answers: dict | None) -> Any:
        """``combatant`` (a melee :class:`~sim.rules.melee.Combatant`) with its damage rolls
        cancelled when its player removed a saver for it (``answers``: attacked model ->
        ``[saver, trait]`` or ``["", ""]`` declined)."""
        got = (answers or {}).get(combatant.id)
        if not got or not got[0]:
            return combatant
        return dc_replace(combatant, damage_cancelled=self.damage_cancel_text(combatant.id, got[0], got[1]))

    def shot_cancel(self, answers: dict | None) -> str:
        """The ``damage_cancelled`` text of a shot resolved again after an answer (one model
        is hit by a shot), or ""."""
        for target, (saver, trait) in sorted((answers or {}).items()):
            if saver:
                return self.damage_cancel_text(target, saver, trait)
        return ""

    def _damage_wait(self, target: str, by: str, mark: tuple[Any, int], answers: dict | None, data: dict,
                     expect: int) -> bool:
        """Open the answer window for a damage roll against ``target`` (True: the game waits,
        the dice rewound) when a friend may save it and it was not answered yet."""
        answers = dict(answers or {})
        if target in answers:
            return False
        used = tuple(s for s, _ in answers.values() if s)
        savers = self.damage_savers(target, used)
        if not savers:
            return False
        st = self.state
        names = ", ".join(f"{s} ({why})" for s, why in savers.items())
        if mark[0] is None:  # physical dice: the resolution cannot be played again
            self._emit(Event("manual_step", {"model": target, "source": "Sacrifice / Protected",
                                             "text": f"before the damage roll against {target}, player "
                                                     f"{st.models[target].player} may remove {names} from play to "
                                                     f"cancel it ({PAGE_SACRIFICE}, {PAGE_PROTECTED}): apply it by "
                                                     "hand"}))
            return False
        self.dice_rewind(mark)
        value = json.dumps({**data, "target": target, "by": by, "candidates": savers, "answers": answers,
                            "expect": expect}, sort_keys=True)
        self._emit(Event("condition", {"model": target, "name": DAMAGE_OFFER, "on": True, "value": value}))
        self._emit(Event("note", {"text": f"{by}'s attack on {target} succeeds: before the damage roll, player "
                                          f"{st.models[target].player} may remove {names} from play to cancel it "
                                          f"(Sacrifice {PAGE_SACRIFICE}, Protected {PAGE_PROTECTED})"}))
        return True

    def exchange_damage_wait(self, res: Any, mark: tuple[Any, int], answers: dict | None) -> bool:
        """After a melee exchange was resolved into ``res`` (not yet applied): True when a
        damage roll in it waits for a Sacrifice / Protected answer (the dice rewound)."""
        for ev in res.damage:
            if ev.target in (answers or {}):
                continue
            try:
                expect = wounds_for(max(0, ev.success_level), _AVERAGE_2D6 + ev.result.roll.modifier)
            except (ValueError, AttributeError):
                expect = 0
            return self._damage_wait(ev.target, ev.by, mark, answers, {"via": "exchange"}, expect)
        return False

    def shot_damage_wait(self, mid: str, res: Any, mark: tuple[Any, int], answers: dict | None,
                         shot: dict) -> bool:
        """After a shot by ``mid`` was resolved into ``res`` (not yet applied): True when its
        damage roll waits for a Sacrifice / Protected answer (the dice rewound); ``shot``:
        the arguments that resolve it again."""
        if res.outcome != "hit" or not res.target or res.damage is None:
            return False
        try:
            expect = wounds_for(max(0, res.success_level), _AVERAGE_2D6 + res.damage.roll.modifier)
        except (ValueError, AttributeError):
            expect = 0
        return self._damage_wait(res.target, mid, mark, answers, {"via": "shot", "shot": shot}, expect)

    def remove_savers(self, answers: dict | None) -> None:
        """Remove from play the savers chosen in ``answers`` (after the resolution they
        cancelled a damage roll in)."""
        for target, (saver, trait) in sorted((answers or {}).items()):
            m = self.state.models.get(saver) if saver else None
            if m is None or not m.alive:
                continue
            page = PAGE_SACRIFICE if trait == "Sacrifice" else PAGE_PROTECTED
            self._emit(Event("note", {"text": f"{trait} ({page}): {saver} is removed from play; the damage roll "
                                              f"against {target} is cancelled"}))
            self._emit(Event("killed", {"model": saver}))

    # ------------------------------------------------------------ the answer
    def damage_offers_pending(self) -> list[str]:
        """The models a damage roll against which waits for their player's answer."""
        return [m.id for m in self.state.alive() if DAMAGE_OFFER in m.conditions]

    def damage_offer(self, mid: str) -> dict:
        """The waiting offer on model ``mid`` (its ``damage_offer`` mark, decoded)."""
        return json.loads(str(self.state.models[mid].conditions[DAMAGE_OFFER]))

    def damage_answer_actions(self) -> list[Action]:
        """The answers offered: remove each candidate, or decline (no target)."""
        for mid in self.damage_offers_pending():
            data = self.damage_offer(mid)
            return [Action("sacrifice", mid, target=s) for s in data["candidates"]] + [Action("sacrifice", mid)]
        return []

    def damage_answer_choice(self) -> Action:
        """The greedy answer: when the expected damage (an average roll at the success
        level) would kill the attacked model and the cheapest candidate is worth less
        (rice, then wounds left) than the attacked model, remove it; else decline."""
        offered = self.damage_answer_actions()
        decline = next(a for a in offered if a.target is None)
        mid = decline.model or ""
        data = self.damage_offer(mid)

        def worth(x: str) -> tuple[int, int]:
            card = self.printed_profile(x)
            m = self.state.models[x]
            return ((card.rice or 0) if card is not None else 0, m.wounds - m.damage)

        m = self.state.models[mid]
        swaps = [a for a in offered if a.target is not None]
        if not swaps or int(data.get("expect", 0)) < m.wounds - m.damage:
            return decline
        best = min(swaps, key=lambda a: (worth(a.target or ""), a.target))
        return best if worth(best.target or "") < worth(mid) else decline

    def _legal_sacrifice(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        if m is None or DAMAGE_OFFER not in m.conditions:
            return False, f"no damage roll waits at {action.model!r} for a Sacrifice / Protected answer"
        data = self.damage_offer(m.id)
        if action.target is not None and action.target not in data["candidates"]:
            return False, (f"{action.target!r} may not be removed to save {m.id} ({PAGE_SACRIFICE}, "
                           f"{PAGE_PROTECTED}); may: " + ", ".join(data["candidates"]))
        return True, ""

    def _resolve_sacrifice(self, action: Action) -> None:
        """The attacked model's player removes ``action.target`` (or declines); the exchange
        or shot is resolved again from the same dice with the answer."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_sacrifice(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        data = self.damage_offer(m.id)
        self._emit(Event("condition", {"model": m.id, "name": DAMAGE_OFFER, "on": False}))
        answers = {k: list(v) for k, v in data["answers"].items()}
        s = action.target or ""
        answers[m.id] = [s, data["candidates"][s] if s else ""]
        if not s:
            self._emit(Event("note", {"text": f"player {m.player} removes no model: the damage roll against "
                                              f"{m.id} is made"}))
        if data["via"] == "exchange":
            self._resolve_exchange(answers=answers)
            return
        shot = dict(data["shot"])
        shooter = st.models[shot["mid"]]
        if not self._shoot(**shot, answers=answers):
            return  # Rapid Fire: a further shot waits (p.56)
        self._walk_after_shot(shooter.id, shot.get("walk_after"))
        self._after_action()
        if (not self.is_over() and st.exchange is None and st.interception is None and not self.answers_pending()
                and not self._group_step(shooter.player)):
            self._next_active(3 - shooter.player)

    # the kinds of this module, registered where they are defined
    register(ActionKind("sacrifice", _legal_sacrifice, _resolve_sacrifice))
