"""Scenarios: the ``bushido-scenario/1`` file, objectives, zones, VIMs and scoring.

Rulebook: Scenario rules p.63 (seed lines 1920-2075): types Objectives / VIM / Zone
Control; the interactions Influence, Prayer (X) and Worship; Decreasing (Popular) and
Decreasing (Scorer); zone control; game length; deployment; Reset Scenario Points and
Reset Alignment; victory conditions (three VP in every scenario). The Simple and Complex
Scenario actions (lines 688, 715) and End phase step 4 (line 578).

The package is pure: no Panda3D and no import of :mod:`sim.rules.game`. Everything the
game needs to store is in :class:`ScenarioState`, a frozen value with
:meth:`ScenarioState.to_json` / :meth:`ScenarioState.from_json`; every rule is a function
``(scenario, state, ...) -> (new_state, notes)``. Positions and radii are inches. How the
project reads each rule is written in ``docs/scenarios.md``.

Public API (all importable from ``sim.rules.scenario``)::

    load_scenario(path_or_name, width=24, depth=24) -> Scenario
    parse_scenario(text, source=None, width=24, depth=24) -> Scenario
    scenario_from_dict(doc, source=None, width=24, depth=24) -> Scenario
    list_scenarios() -> list[str]
    objective_pieces(scenario, state=None) -> tuple[TerrainPiece, ...]
    check_against_table(scenario, table, setup=False) -> list[SetupIssue]
    initial_state(scenario, vims=None) -> ScenarioState
    scenario_actions(scenario, state, player, objective_id, model_id=None, action=None)
    interaction_refusal(scenario, state, player, objective_id, kind, model_id=None, action=None)
    interact(scenario, state, player, objective_id, kind, model_id=None, action=None)
    in_contact_with_objective(model_pos, model_radius, objective, tol=CONTACT) -> bool
    facing_towards(model_pos, objective) -> float
    zone_contains_base(zone, position, radius) -> bool
    zone_controller(zone, models) -> int | None
    start_phase(scenario, state, turn) -> (state, notes)
    record_kill(state, model_id, turn) -> state
    vim_refusal(kind, types, traits=()) -> str | None
    end_phase(scenario, state, turn, last_turn, models, killed=(), choose=None)
        -> (state, notes, game_over)
    final_result(state) -> (winner | None, text)
    describe(scenario) -> list[str]

The package, one module per concept:

================  ==================================================================
``model``         constants, :class:`ScenarioError`, :class:`Scenario` and its objects
                  (:class:`Objective`, :class:`Zone`, :class:`Interaction`,
                  :class:`Award`), :func:`describe`
``loader``        the ``bushido-scenario/1`` file: schema, loading, validation
``placement``     objectives as terrain, the set-up check, contact, facing, zone control
``state``         :class:`ScenarioState`, the state before turn 1, VIM choice and kills
``interactions``  Influence, Prayer and Worship (Scenario actions)
``scoring``       Start phase resets, End phase scoring (zones, VIMs, awards,
                  Decreasing), the result
================  ==================================================================

Readings and the state's JSON shape: ``docs/scenarios.md``.
"""

from __future__ import annotations

from sim.rules.scenario.interactions import interact, interaction_refusal, scenario_actions
from sim.rules.scenario.loader import SCENARIO_DIR, list_scenarios, load_scenario, parse_scenario, scenario_from_dict
from sim.rules.scenario.model import (
    ACTIONS,
    AWARD_KINDS,
    DEPLOYMENTS,
    FORMAT,
    INTERACTIONS,
    MAX_TURN,
    PIECE_PREFIX,
    RULES,
    SP_BY_ALIGNMENT,
    TOTAL_VP,
    TYPES,
    VIM_KINDS,
    ActionRefused,
    Award,
    Interaction,
    Objective,
    Scenario,
    ScenarioError,
    Zone,
    ZoneModel,
    describe,
    opponent,
    relation,
)
from sim.rules.scenario.placement import (
    check_against_table,
    facing_towards,
    in_contact_with_objective,
    objective_pieces,
    zone_contains_base,
    zone_controller,
)
from sim.rules.scenario.scoring import Chooser, end_phase, final_result, start_phase
from sim.rules.scenario.state import STATE_FORMAT, ScenarioState, initial_state, record_kill, vim_refusal

__all__ = [
    "ACTIONS", "AWARD_KINDS", "ActionRefused", "Award", "Chooser", "DEPLOYMENTS", "FORMAT", "INTERACTIONS",
    "Interaction", "MAX_TURN", "Objective", "PIECE_PREFIX", "RULES", "SCENARIO_DIR", "SP_BY_ALIGNMENT",
    "STATE_FORMAT", "Scenario", "ScenarioError", "ScenarioState", "TOTAL_VP", "TYPES", "VIM_KINDS", "Zone",
    "ZoneModel", "check_against_table", "describe", "end_phase", "facing_towards", "final_result",
    "in_contact_with_objective", "initial_state", "interact", "interaction_refusal", "list_scenarios",
    "load_scenario", "objective_pieces", "opponent", "parse_scenario", "record_kill", "relation",
    "scenario_actions", "scenario_from_dict", "start_phase", "vim_refusal", "zone_contains_base",
    "zone_controller",
]
