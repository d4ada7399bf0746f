"""The scenario step (p.21, p.25, p.63): the set-up (objectives placed as terrain, VIMs
chosen), Scenario actions at the objectives, the Starting phase resets and the End
phase scoring.

The scenario rules are :mod:`sim.rules.scenario` (pure); this module keeps its state in
the game state (a ``scenario`` event for every change). A mixin of
:class:`~sim.rules.game.Game`; the kinds are registered at the end of the module.
"""

from __future__ import annotations

from sim.rules import movement
from sim.rules import scenario as scen
from sim.rules.game.actions import Action, ActionKind, register
from sim.rules.game.events import Event
from sim.rules.game.part import GamePart
from sim.rules.game.state import GameError, ModelState
from sim.rules.scenario import (
    ScenarioState,
    end_phase,
    objective_pieces,
    start_phase,
    vim_refusal,
)
from sim.table import Table


class ScenarioStep(GamePart):
    """Scenario set-up, actions and scoring (a mixin of :class:`~sim.rules.game.Game`)."""

    # ------------------------------------------------------------ Scenario actions (p.25, p.63)
    def _legal_scenario(self, m: ModelState, action: Action) -> tuple[bool, str]:
        why = self.scenario_refusal(m, action)
        return why is None, why or ""

    def _resolve_scenario(self, action: Action) -> None:
        self._scenario_action(self.state.models[action.model], action)

    # ------------------------------------------------------------ the scenario
    def scenario_state(self):
        """The scenario's :class:`~sim.rules.scenario.ScenarioState` now, or None."""
        if self.scenario is None or self.state.scenario is None:
            return None
        key = (len(self.events), "scenario_state")
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = ScenarioState.from_json(self.state.scenario)
        return got

    def _objective_pieces(self) -> tuple:
        """The objectives still on the table as Impassable, Blocking terrain pieces."""
        if self.scenario is None:
            return ()
        return tuple(objective_pieces(self.scenario, self.scenario_state()))

    def _default_vims(self) -> dict:
        """Each side's VIM: the legal model (``vim_refusal``) with the highest rice."""
        out = {}
        scenario = self.scenario
        assert scenario is not None and scenario.vim is not None  # called for a VIM scenario
        kind = scenario.vim
        for side in (1, 2):
            best = None
            for tm in self.table.models:
                if tm.player != side or tm.id in self.held_back:  # a VIM cannot Flank (p.63)
                    continue
                prof = self.profile(tm.id)
                types = prof.types if prof else ()
                traits = [t.keyword for t in prof.traits] if prof else tm.traits
                if vim_refusal(kind, types, traits) is None:
                    rice = (prof.rice or 0) if prof else 0
                    if best is None or rice > best[0]:
                        best = (rice, tm.id)
            out[side] = best[1] if best else None
        return out

    def _setup_scenario(self) -> None:
        """Set-up (p.21 steps 2-3): the objectives are placed, VIMs chosen, the scenario
        state starts. Objectives overlapping terrain or a model are refused."""
        st, notes = self._scenario_initial()
        self._emit(Event("scenario", {"state": st.to_json(), "notes": notes}))
        for mid in sorted(self.vim_ids()):  # a VIM loses Disguised and cannot gain it (p.63)
            if "disguised" in self.state.models[mid].conditions:
                self._emit(Event("condition", {"model": mid, "name": "disguised", "on": False}))
                self._emit(Event("note", {"text": f"{mid} is a VIM: it loses its Disguised marker (p.63)"}))

    def vim_ids(self) -> frozenset[str]:
        """The ids of the scenario's VIMs (p.63), of both sides; empty without a VIM
        scenario. A VIM loses the Disguised condition and cannot gain it (lines 1962-1966:
        "теряет свойство Фланговый обход и состояние Неузнаваемый и не может их получить")."""
        st = self.scenario_state()
        if st is None:
            return frozenset()
        return frozenset(m for ids in st.vims.values() for m in (ids or ()) if m)

    def _scenario_initial(self):
        """The scenario's initial state and the set-up notes (``(ScenarioState, [str])``),
        after checking that it fits the table and that the VIMs belong to their sides.

        Raises:
            GameError: objectives overlapping terrain or a model, a VIM of the wrong side.
        """
        deployed = self.table
        if self.held_back:  # the models held back by Flank are not on the table
            deployed = Table(self.table.name, self.table.width, self.table.depth, self.table.terrain,
                             tuple(m for m in self.table.models if m.id not in self.held_back), self.table.source)
        problems = scen.check_against_table(self.scenario, deployed)
        if problems:
            raise GameError(f"scenario {self.scenario.name!r} does not fit the table {self.table.name!r}: "
                            + "; ".join(i.message for i in problems))
        vims = None
        if self.scenario.vim:
            vims = self._vims or self._default_vims()
            for side, mid in vims.items():
                if mid is not None and (mid not in self.state.models or self.state.models[mid].player != int(side)):
                    raise GameError(f"VIM of player {side}: {mid!r} is not a model of that player")
                if mid is not None and mid in self.held_back:
                    raise GameError(f"VIM of player {side}: {mid!r} is held back by Flank; a VIM loses Flank (p.63)")
        try:
            st = scen.initial_state(self.scenario, vims)
        except scen.ScenarioError as exc:
            raise GameError(str(exc)) from None
        notes = [f"Scenario: {self.scenario.name}"] + scen.describe(self.scenario)
        if vims and self.scenario.vim == "hidden":
            notes.append("VIMs: chosen in secret (revealed in the End phase of the last turn)")
        elif vims:
            notes.append("VIMs: " + ", ".join(f"player {k}: {v or 'none (counts as killed)'}"
                                              for k, v in sorted(vims.items())))
        return st, notes

    def _scenario_update(self, new, notes) -> None:
        self._emit(Event("scenario", {"state": new.to_json(), "notes": list(notes)}))

    def _scenario_start(self) -> None:
        st, scenario = self.scenario_state(), self.scenario
        if st is None or scenario is None:  # (the state is None without a scenario)
            return
        new, notes = start_phase(scenario, st, self.state.turn)
        if new != st:
            self._scenario_update(new, notes)

    def _scenario_end(self, last_turn: bool) -> bool:
        """End phase step 4 (p.21): score the scenario. True: the game is over."""
        st, scenario = self.scenario_state(), self.scenario
        if st is None or scenario is None:  # (the state is None without a scenario)
            return False
        table = self._table_now()
        models = []
        for m in self.state.alive():
            tm = table.model(m.id)
            prof = self.profile(m.id)
            models.append((m.player, tm.position, tm.radius, (prof.rice or 0) if prof else 0))
        killed = [m.id for m in self.state.models.values() if m.killed]  # not those Elsewhere
        new, notes, over = end_phase(scenario, st, self.state.turn, last_turn, models, killed)
        self._scenario_update(new, notes)
        return over

    def scenario_refusal(self, m: ModelState, action: Action) -> str | None:
        """Why ``m`` may not take the Scenario ``action`` now (lines 688, 715), or None:
        the model must be in contact with the objective and neither in contact with nor
        in the ZoC of an enemy; Aloof and Stupid models take no Scenario actions; then
        :func:`~sim.rules.scenario.interaction_refusal`."""
        st, scenario = self.scenario_state(), self.scenario
        if st is None or scenario is None:  # (the state is None without a scenario)
            return "no scenario is being played"
        if self._trait(m.id, "aloof")[0] or self._trait(m.id, "stupid")[0]:
            return f"{m.id} is {'Aloof' if self._trait(m.id, 'aloof')[0] else 'Stupid'}: no Scenario actions (p.48-59)"
        try:
            obj = scenario.objective(action.objective or "")
        except (KeyError, scen.ScenarioError):
            return f"no objective {action.objective!r} (has: {', '.join(o.id for o in scenario.objectives)})"
        table = self._table_now()
        tm = table.model(m.id)
        if not scen.in_contact_with_objective(tm.position, tm.radius, obj):
            return f"{m.id} is not in contact with the objective {obj.id} (p.25)"
        scene = table.scene()
        for e in self.state.alive(3 - m.player):
            if scene.distance(m.id, e.id) <= movement.CONTACT + 1e-9:
                return f"{m.id} is in contact with the enemy {e.id} (p.25)"
            if scene.distance(e.id, m.id) <= 1.0 + 1e-9 and scene.zoc(e.id, m.id).in_zoc:
                return f"{m.id} is in the ZoC of the enemy {e.id} (p.25)"
        kind = action.special or (scenario.interactions[0].kind if scenario.interactions else "")
        return scen.interaction_refusal(scenario, st, m.player, obj.id, kind, model_id=m.id,
                                        action="complex" if action.kind == "complex_scenario" else "simple")

    def _scenario_action(self, m: ModelState, action: Action) -> None:
        """Turn to face the objective, then the interaction (p.25, p.63)."""
        scenario, st = self.scenario, self.scenario_state()
        assert scenario is not None and st is not None and action.objective is not None  # judged legal
        obj = scenario.objective(action.objective)
        kind = action.special or scenario.interactions[0].kind
        if not self._trait(m.id, "immovable")[0]:
            f = scen.facing_towards(m.position, obj)
            if abs((f - m.facing + 180) % 360 - 180) > 1e-9:
                self._emit(Event("move", {"model": m.id, "move": "turn", "to": list(m.position), "facing": f,
                                          "cost": 0.0}))
        new, notes = scen.interact(scenario, st, m.player, obj.id, kind, model_id=m.id,
                                   action="complex" if action.kind == "complex_scenario" else "simple")
        self._scenario_update(new, notes)

    def scenario_actions(self, mid: str) -> list[Action]:
        """The Scenario actions (p.25, p.63) model ``mid`` may take now, one per objective
        it touches and interaction of the scenario."""
        m = self.state.models[mid]
        st, scenario = self.scenario_state(), self.scenario
        if st is None or scenario is None:  # (the state is None without a scenario)
            return []
        out = []
        table = self._table_now()
        tm = table.model(m.id)
        for obj in scenario.objectives:
            if obj.id in st.removed or not scen.in_contact_with_objective(tm.position, tm.radius, obj):
                continue
            for inter in scenario.interactions:
                kind = "complex_scenario" if inter.action == "complex" else "scenario"
                a = Action(kind, m.id, objective=obj.id, special=inter.kind)
                if self.is_legal(a)[0]:
                    out.append(a)
        return out

    # the kinds of this step, registered where they are defined
    register(
        ActionKind("scenario", _legal_scenario, _resolve_scenario),
        ActionKind("complex_scenario", _legal_scenario, _resolve_scenario),
    )
