"""Interactions with scenario objectives: Influence, Prayer (X) and Worship (p.63).

Rulebook: Scenario rules p.63, Interactions with scenario objectives (lines 1975-2011),
performed by a Simple or Complex Scenario action (lines 688, 715). Geometry (contact
with the objective, no enemy in contact or ZoC) is the game's part
(:mod:`sim.rules.game.scenario_step`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sim.rules.scenario.model import (
    SP_BY_ALIGNMENT,
    ActionRefused,
    Interaction,
    Scenario,
    ScenarioError,
    opponent,
    relation,
)
from sim.rules.scenario.state import ScenarioState


def interaction_refusal(scenario: Scenario, state: ScenarioState, player: int, objective_id: str, kind: str,
                        model_id: str | None = None, action: str | None = None) -> str | None:
    """Why ``player`` may not perform the interaction ``kind`` with ``objective_id``
    now, or None when it may. Geometry (contact with the objective, no enemy in contact
    or ZoC, lines 688/715) is the game's part.

    Reasons: the game is over; the objective is removed; the scenario does not allow
    ``kind`` (line 1977); ``action`` (simple/complex) is not the one the interaction
    takes; Influence on an objective already friendly; Prayer with an empty pool, or a
    second Prayer by ``model_id`` at the same objective this turn (line 2001).

    Raises:
        ScenarioError: unknown objective or bad player.
    """
    if player not in (1, 2):
        raise ScenarioError(f"player must be 1 or 2, not {player!r}")
    obj = scenario.objective(objective_id)
    if state.over:
        return "the game is over"
    if obj.id in state.removed:
        return f"objective {obj.id!r} has been removed"
    it = scenario.interaction(kind)
    if it is None:
        allowed = ", ".join(f"{i.kind} ({i.action})" for i in scenario.interactions) or "none"
        return f"scenario {scenario.name!r} does not allow {kind!r} (allowed: {allowed})"
    if action is not None and action != it.action:
        return f"{kind} takes a {it.action} Scenario action, not a {action} one"
    owner = state.alignment.get(obj.id)
    if kind == "influence" and owner == player:
        return f"objective {obj.id!r} is already friendly to player {player}"
    if kind == "prayer":
        if state.prayer.get(player, 0) <= 0:
            return f"player {player} has no prayer tokens left"
        if model_id is not None and any(
            a["turn"] == state.turn and a["model"] == model_id and a["objective"] == obj.id and a["kind"] == "prayer"
            for a in state.actions
        ):
            return f"{model_id} has already prayed at objective {obj.id!r} this turn"
    return None


def scenario_actions(scenario: Scenario, state: ScenarioState, player: int, objective_id: str,
                     model_id: str | None = None, action: str | None = None) -> list[Interaction]:
    """The interactions ``player`` (with ``model_id``) may perform with the objective
    now, in the scenario's order; with ``action`` only those taking that Scenario action
    (simple/complex). Empty when none (see :func:`interaction_refusal`).

    Raises:
        ScenarioError: unknown objective or bad player.
    """
    return [i for i in scenario.interactions
            if interaction_refusal(scenario, state, player, objective_id, i.kind, model_id, action) is None]


def interact(scenario: Scenario, state: ScenarioState, player: int, objective_id: str, kind: str,
             model_id: str | None = None, action: str | None = None) -> tuple[ScenarioState, list[str]]:
    """Perform an interaction (Interactions with scenario objectives, p.63).

    * Influence: the objective's alignment moves one step towards ``player``: enemy ->
      neutral, neutral -> friendly (line 1979).
    * Prayer (X): one token leaves the player's pool; SP by the objective's alignment
      seen from the player: friendly 1, neutral 2, enemy 3 (line 1993).
    * Worship: one worship marker of the player beside the objective (line 2009).

    Every interaction is recorded in ``state.actions`` for this turn.

    Returns:
        ``(new_state, notes)``, notes being readable lines for the game log.

    Raises:
        ActionRefused: the rules do not allow it now (the message says why).
        ScenarioError: unknown objective or bad player.
    """
    why = interaction_refusal(scenario, state, player, objective_id, kind, model_id, action)
    if why:
        raise ActionRefused(why)
    obj = scenario.objective(objective_id)
    it = scenario.interaction(kind)
    assert it is not None, "an interaction the scenario allows (checked by interaction_refusal)"
    who = f"player {player}" + (f" ({model_id})" if model_id else "")
    record = {"turn": state.turn, "player": player, "model": model_id, "objective": obj.id,
              "kind": kind, "action": it.action}
    changes: dict[str, Any] = {"actions": state.actions + (record,)}
    owner = state.alignment.get(obj.id)
    if kind == "influence":
        new_owner = None if owner == opponent(player) else player
        alignment = dict(state.alignment)
        alignment[obj.id] = new_owner
        changes["alignment"] = alignment
        note = (f"{who} influences {obj.id}: {_describe_owner(owner)} -> {_describe_owner(new_owner)}")
    elif kind == "prayer":
        rel = relation(owner, player)
        gain = SP_BY_ALIGNMENT[rel]
        prayer = dict(state.prayer)
        prayer[player] -= 1
        sp = dict(state.sp)
        sp[player] += gain
        changes.update(prayer=prayer, sp=sp)
        note = (f"{who} prays at {obj.id} ({rel}): +{gain} SP (now {sp[player]}), "
                f"{prayer[player]} prayer token{'s' if prayer[player] != 1 else ''} left")
    else:  # worship
        worship = {o: dict(v) for o, v in state.worship.items()}
        worship[obj.id][player] += 1
        changes["worship"] = worship
        note = f"{who} worships at {obj.id}: {worship[obj.id][player]} marker(s) of player {player} there"
    return replace(state, **changes), [note]


def _describe_owner(owner: int | None) -> str:
    return "neutral" if owner is None else f"friendly to player {owner}"

