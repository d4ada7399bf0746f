"""Eagle's Flight Defence (Special abilities p.41) played as its player's choice.

p.41: "Орлиный полёт (Eagle's Flight Defence): Если защита успешна, Защитник может
переместиться на 3" после завершения Обмена ударами." p.39: "Все движения от Особых
способностей игнорируют ЗК и контакт вражеской модели."

When an exchange ends with a successful Eagle's Flight Defence and no further exchange
opens at once, the defending model carries the mark :data:`EAGLE` (JSON: the exchange's
attacker and the player whose activation it was) and the game waits for the defender's
player (an answer window, like Bodyguard's, :mod:`sim.rules.game.answer_traits`):

* ``Action("eagles_flight", model, point=(x, y))`` moves it up to 3" to ``point`` by the
  movement rules (terrain, friendly bases, the table edge), ignoring every enemy's ZoC
  and base contact while it moves (p.39); it may not end on an enemy's base;
* ``Action("eagles_flight", model)`` (no point) declines: it stays where it is.

Then the game goes on as after the exchange (the next player's activation). When the
exchange is followed at once by another (Split Attack, a Group's next exchange), the move
is a logged ``manual_step`` instead (:func:`sim.rules.game.special_steps.exchange_manual_steps`).

A mixin of :class:`~sim.rules.game.Game`; the kind ``eagles_flight`` is registered at the end.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace as dc_replace

from sim.rules import movement
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.table import Table

#: The mark on a model whose Eagle's Flight move waits for its player (value: JSON).
EAGLE = "eagles_flight"
#: How far the move goes, inches (p.41).
EAGLE_DISTANCE = 3.0
#: The page of Eagle's Flight Defence.
PAGE_EAGLE = "p.41"


class EaglesFlight(GamePart):
    """The Eagle's Flight move after an exchange (a mixin of :class:`~sim.rules.game.Game`)."""

    def eagle_pending(self) -> list[str]:
        """The models whose Eagle's Flight move waits for their player's choice, by id."""
        return sorted(m.id for m in self.state.alive() if EAGLE in m.conditions)

    def eagle_open(self, res) -> bool:
        """After the resolved exchange ``res`` (an
        :class:`~sim.rules.melee.results.ExchangeResult`): mark each defender whose Eagle's
        Flight Defence succeeded and who is still on the table (a ``condition`` event and a
        note); True when the game now waits for a choice."""
        opened = False
        attacker = next(iter(res.comparisons)).attacker if res.comparisons else None
        for pm in res.moves:
            if pm.move != "eagles-flight" or pm.defender in res.removed:
                continue
            m = self.state.models.get(pm.defender)
            if m is None or not m.alive:
                continue
            act = self.state.models.get(attacker or "")
            value = json.dumps({"attacker": pm.attacker, "player": act.player if act is not None else 3 - m.player},
                               sort_keys=True)
            self._emit(Event("condition", {"model": m.id, "name": EAGLE, "on": True, "value": value}))
            self._emit(Event("note", {"text": f"Eagle's Flight Defence ({PAGE_EAGLE}): {m.id} may move up to "
                                              f"{EAGLE_DISTANCE:g}\" now that the exchange is over, ignoring ZoC "
                                              f"and enemy contact (p.39); player {m.player} chooses"}))
            opened = True
        return opened

    def _eagle_table(self, mid: str, enemies: bool) -> Table:
        """The table now with ``mid``'s Move set to 3"; without the enemies of ``mid``
        when ``enemies`` is False (the move ignores their ZoC and contact, p.39)."""
        t = self._table_now()
        me = t.model(mid)
        models = tuple(dc_replace(x, move=EAGLE_DISTANCE) if x.id == mid else x for x in t.models
                       if enemies or x.id == mid or x.player == me.player)
        return Table(t.name, t.width, t.depth, t.terrain, models, t.source)

    def eagle_move_problem(self, mid: str, point) -> str | None:
        """Why ``mid`` cannot make its Eagle's Flight move to ``point`` (inches) now, or
        None: a Walk of at most 3" by the movement rules with the enemies ignored, not
        ending on an enemy's base."""
        try:
            p = (float(point[0]), float(point[1]))
        except (TypeError, ValueError, IndexError):
            return f"the point {point!r} is not (x, y)"
        res = movement.check_walk(self._eagle_table(mid, False), mid, [p])
        if not res.legal:
            return "; ".join(r.message for r in res.reasons)
        over = movement.Mover(self._eagle_table(mid, True), mid).end_overlaps(p)
        return over[0].message if over else None

    def eagle_actions(self) -> list[Action]:
        """The choices offered for the first waiting model: a move of 3" and of 1.5" in
        eight directions where legal, and staying (no point)."""
        waiting = self.eagle_pending()
        if not waiting:
            return []
        mid = waiting[0]
        x, y = self.state.models[mid].position
        out = []
        for d in (EAGLE_DISTANCE, EAGLE_DISTANCE / 2):
            for k in range(8):
                a = math.radians(45 * k)
                p = (round(x + d * math.cos(a), 4), round(y + d * math.sin(a), 4))
                if self.eagle_move_problem(mid, p) is None:
                    out.append(Action(EAGLE, mid, point=p))
        out.append(Action(EAGLE, mid))
        return out

    def eagle_choice(self) -> Action:
        """The bots' choice: the offered move that ends farthest from the nearest enemy
        when it ends out of contact with every enemy, else staying."""
        offered = self.eagle_actions()
        stay = offered[-1]
        mid = stay.model or ""
        me = self.table.model(mid)
        foes = [e for e in self.state.alive(3 - self.state.models[mid].player) if e.elsewhere is None]

        def gap(p) -> float:
            return min((math.dist(p, e.position) - me.radius - self.table.model(e.id).radius for e in foes),
                       default=math.inf)

        moves = [a for a in offered if a.point is not None and gap(a.point) > movement.CONTACT + 1e-6]
        if not moves:
            return stay
        return max(moves, key=lambda a: (gap(a.point), a.point))

    def _legal_eagle(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        if m is None or EAGLE not in m.conditions:
            return False, f"no Eagle's Flight move waits for {action.model!r} ({PAGE_EAGLE})"
        if action.point is not None:
            why = self.eagle_move_problem(m.id, action.point)
            if why:
                return False, f"Eagle's Flight ({PAGE_EAGLE}): {why}"
        return True, ""

    def _resolve_eagle(self, action: Action) -> None:
        """The defender's player moves it up to 3" (or not); then the game goes on as after
        the exchange."""
        st = self.state
        m = st.models.get(action.model or "")
        ok, why = self._legal_eagle(m, action)
        if not ok or m is None:
            self._unmark()
            raise GameError(why)
        data = json.loads(str(m.conditions[EAGLE]))
        self._emit(Event("condition", {"model": m.id, "name": EAGLE, "on": False}))
        if action.point is None:
            self._emit(Event("note", {"text": f"Eagle's Flight ({PAGE_EAGLE}): {m.id} does not move"}))
        else:
            res = movement.check_walk(self._eagle_table(m.id, False), m.id, [tuple(action.point)])
            end = res.path[-1]
            self._emit(Event("move", {"model": m.id, "move": "Eagle's Flight Defence (p.41, not an action)",
                                      "to": [end[0], end[1]], "facing": res.facing, "cost": res.cost}))
        self._after_action()  # Held ends out of contact with the holder (p.44)
        player = int(data.get("player") or 0) or None
        if (player is not None and not self.is_over() and st.exchange is None and st.interception is None
                and not self.answers_pending() and not self._group_step(player)):
            self._next_active(3 - player)

    # the kind of this module, registered where it is defined
    register(ActionKind(EAGLE, _legal_eagle, _resolve_eagle))
