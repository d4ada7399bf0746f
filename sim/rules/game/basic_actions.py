"""The basic actions (p.21, p.24-25): Walk, Run, Focus, Wait, Stand Up and Pass, and
moving a model on the table (a move event, the table with a Move boost).

A mixin of :class:`~sim.rules.game.Game`; the kinds are registered in
:data:`~sim.rules.game.actions.ACTION_KINDS` at the end of the module.
"""

from __future__ import annotations

import math
from dataclasses import replace

from sim.rules import conditions, movement
from sim.rules.game import card_wait, wait_options
from sim.rules.game.actions import NO_POINT, Action, ActionKind, register, verdict, walk_points
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.table import Table


class BasicActions(GamePart):
    """Walk, Run, Focus, Wait, Stand Up, Pass (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Walk, Run (p.24)
    def _legal_walk(self, m: ModelState, action: Action) -> tuple[bool, str]:
        points = walk_points(action)
        if points is None:
            return False, NO_POINT
        table = self._boosted_table(m.id, action.boost) if action.boost else self._table_now()
        res = movement.check_walk(table, m.id, points, facing=action.facing)
        return verdict(res)

    def _resolve_walk(self, action: Action) -> None:
        m = self.state.models[action.model]
        points = walk_points(action)
        assert points is not None  # judged legal: it has a destination
        table = self._boosted_table(m.id, action.boost) if action.boost else self._table_now()
        res = movement.check_walk(table, m.id, points, facing=action.facing)
        self._move(m.id, res)

    def _legal_run(self, m: ModelState, action: Action) -> tuple[bool, str]:
        if action.point is None:
            return False, NO_POINT
        table = self._boosted_table(m.id, action.boost) if action.boost else self._table_now()
        res = movement.check_run(table, m.id, action.point)
        if res.legal and action.facing is not None and abs((action.facing - res.facing + 180) % 360 - 180) > 1e-6:
            # p.22: "повернуться лицом к этой точке ... Модель не может ... изменить своё направление после бега"
            return False, (f"a Run faces the point it runs to ({res.facing:.1f} degrees) and may not turn after "
                           f"it (p.22), not {action.facing:.1f}")
        return verdict(res)

    def _resolve_run(self, action: Action) -> None:
        m = self.state.models[action.model]
        assert action.point is not None  # judged legal: it has a destination
        table = self._boosted_table(m.id, action.boost) if action.boost else self._table_now()
        res = movement.check_run(table, m.id, action.point)
        self._move(m.id, res)
        self._emit(Event("condition", {"model": m.id, "name": "ran", "on": True}))

    # ------------------------------------------------------------ Focus, Wait, Stand Up (p.25)
    def _legal_always(self, m: ModelState, action: Action) -> tuple[bool, str]:
        return True, ""

    def _resolve_focus(self, action: Action) -> None:
        m = self.state.models[action.model]
        self._emit(Event("ki_change", {"model": m.id, "delta": min(m.ki_stat, m.ki_limit - m.ki)}))

    def _legal_stand_up(self, m: ModelState, action: Action) -> tuple[bool, str]:
        if "prone" not in m.conditions:
            return False, f"{m.id} is not Prone"
        if action.target is not None and action.target not in self.enemies_in_contact(m.id):
            return False, f"{action.target!r} is not an enemy in base contact with {m.id} (p.25)"
        return True, ""

    def _resolve_stand_up(self, action: Action) -> None:
        """Stand Up (p.25): the Prone marker goes; in contact with an enemy the model then
        fights a Melee Exchange at -1 (p.25: "если модель в контакте с врагом, выполните
        Обмен ударами со штрафом -1 к пулу ближнего боя") against ``action.target`` (the
        player's choice among the enemies in contact; the first by id when none is named)."""
        m = self.state.models[action.model]
        self._emit(Event("condition", {"model": m.id, "name": "prone", "on": False}))
        if action.facing is not None and abs((action.facing - m.facing + 180) % 360 - 180) > 1e-9:
            # "и может изменить своё направление" (p.25): a turn on the spot
            self._emit(Event("move", {"model": m.id, "move": "turn", "to": list(m.position),
                                      "facing": action.facing % 360, "cost": 0.0}))
        # this exchange, and any later this turn: -1 Melee, normal Initiative (p.36, p.45)
        self._emit(Event("condition", {"model": m.id, "name": "stood_up", "on": True}))
        foes = self.enemies_in_contact(m.id)
        if foes:
            foe = action.target if action.target in foes else foes[0]
            self._emit(Event("exchange_open", {"attacker": m.id, "defender": foe, "charge": False}))

    def enemies_in_contact(self, mid: str) -> list[str]:
        """The ids of the enemy models in base contact with ``mid`` now, sorted."""
        table = self._table_now()
        me = table.model(mid)
        return sorted(x.id for x in table.models if x.player != me.player and x.id != mid
                      and math.dist(x.position, me.position) - x.radius - me.radius <= movement.CONTACT + 1e-9)

    def _legal_wait(self, m: ModelState, action: Action) -> tuple[bool, str]:
        why = wait_options.wait_refusal(self, m, action)  # Destructible terrain (p.16), a friend's Fire (p.44)
        why = why or card_wait.card_wait_refusal(self, m, action)  # the card's own Wait effect (p.25)
        return why is None, why or ""

    def _resolve_wait(self, action: Action) -> None:
        extra = card_wait.card_wait_events(self, action)  # the card's own Wait effect: a manual step (p.25)
        extra = extra if extra is not None else wait_options.wait_option_events(self, action)  # p.16, p.44
        if extra is not None:
            for ev in extra:
                self._emit(ev)
            return
        m = self.state.models[action.model]
        opts = conditions.removed_by_wait(conditions.from_model(m))
        if opts:
            chosen = next((o for o in opts if o.key == action.special), opts[0])
            before = conditions.from_model(m)
            after = conditions.apply_wait(before, chosen)
            for name in before:
                if name in ("fire", "on_fire", "bleed", "poison"):
                    continue
                if name not in after:
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": False}))
                elif after[name] != before[name] and isinstance(after[name], int):
                    self._emit(Event("condition", {"model": m.id, "name": name, "on": True, "value": after[name]}))
            fire_before = sorted(m.markers.get("fire", []), reverse=True)
            fire_after = after.get("on_fire", after.get("fire", fire_before))
            if isinstance(fire_after, list) and len(fire_after) < len(fire_before):
                removed = list(fire_before)
                for v in fire_after:
                    removed.remove(v)
                self._emit(Event("marker_damage", {"model": m.id, "marker": "fire", "removed": removed, "wounds": 0}))

    # ------------------------------------------------------------ Pass (p.21)
    def _legal_pass(self, m: ModelState | None, action: Action) -> tuple[bool, str]:
        st = self.state
        why = self.player_lock(st.active) if st.active in (1, 2) else None  # an activation under way
        if why:
            return False, why
        return (st.pass_tokens.get(st.active, 0) > 0, "no pass tokens left")

    def _spend_pass_token(self, action: Action) -> None:
        p = self.state.active
        if self.state.pass_tokens.get(p, 0) <= 0:
            self._unmark()
            raise GameError(f"player {p} has no pass tokens")
        self._emit(Event("pass", {"player": p}))

    # ------------------------------------------------------------ moving
    def _move(self, mid: str, res: movement.MoveResult) -> None:
        if len(res.path) > 1 or res.facing != self.state.models[mid].facing:
            end = res.path[-1]
            self._emit(Event("move", {"model": mid, "move": res.kind, "to": [end[0], end[1]],
                                      "facing": res.facing, "cost": res.cost}))

    def _boosted_table(self, mid: str, steps: int):
        """The current table with ``mid``'s Move raised by ``steps`` (a Move boost)."""
        table = self._table_now()
        if not steps:
            return table
        models = tuple(replace(x, move=(x.move or 0) + steps) if x.id == mid else x for x in table.models)
        return Table(table.name, table.width, table.depth, table.terrain, models, table.source)

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("walk", _legal_walk, _resolve_walk),
        ActionKind("run", _legal_run, _resolve_run),
        ActionKind("focus", _legal_always, _resolve_focus),
        ActionKind("wait", _legal_wait, _resolve_wait),
        ActionKind("stand_up", _legal_stand_up, _resolve_stand_up),
        ActionKind("pass", _legal_pass, _spend_pass_token),
    )
