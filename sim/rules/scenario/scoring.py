"""Scoring: the scenario's part of the Start and End phases and the result (p.63).

Rulebook: Scenario rules p.63: Reset Scenario Points and Reset Alignment (Start phase),
zone control SP (line 2020), VIM awards, the victory conditions and their VP (lines
2071-2075), Decreasing (Popular) and Decreasing (Scorer); End phase step 4 (line 578).
The engine's choices where the rules leave one are in ``docs/scenarios.md``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Optional

from sim.rules.scenario.model import (
    SP_BY_ALIGNMENT,
    TOTAL_VP,
    Award,
    Scenario,
    ScenarioError,
    ZoneModel,
    opponent,
    relation,
)
from sim.rules.scenario.placement import zone_controller
from sim.rules.scenario.state import ScenarioState, record_kill


def start_phase(scenario: Scenario, state: ScenarioState, turn: int) -> tuple[ScenarioState, list[str]]:
    """The scenario's part of the Start phase of ``turn``: forget the previous turn's
    Scenario actions; Reset Scenario Points (every player's SP to 0) and Reset Alignment
    (every objective neutral; in a scenario with Worship, the worship markers are
    removed instead, line 2011) on the turns the scenario lists (Reset Scenario, p.63).

    Raises:
        ScenarioError: ``turn`` is not after the state's turn.
    """
    if turn <= state.turn:
        raise ScenarioError(f"start_phase: turn {turn} is not after turn {state.turn}")
    notes: list[str] = []
    changes: dict[str, Any] = {"turn": turn, "actions": tuple(a for a in state.actions if a["turn"] == turn)}
    if turn in scenario.reset_scenario_points:
        changes["sp"] = {1: 0, 2: 0}
        notes.append(f"Reset Scenario Points: both players' SP return to 0 (were {state.sp[1]}-{state.sp[2]})")
    if turn in scenario.reset_alignment:
        if scenario.interaction("worship"):
            changes["worship"] = {o: {1: 0, 2: 0} for o in state.worship}
            notes.append("Reset Alignment: the worship markers are removed")
        else:
            changes["alignment"] = {o: None for o in state.alignment}
            notes.append("Reset Alignment: every objective is neutral again")
    return replace(state, **changes), notes


#: ``choose(chooser, candidates, rule) -> objective id``: who removes which objective
#: when a Decreasing rule leaves a choice. ``chooser`` is None when no single player
#: chooses (both or neither scored).
Chooser = Callable[[Optional[int], list, str], str]


def _default_choice(scenario: Scenario, state: ScenarioState, chooser: int | None, scorer: int | None,
                    candidates: list[str]) -> str:
    """The engine's choice for a Decreasing tie (docs/scenarios.md): the chooser removes
    first an objective friendly to the scorer, then a neutral one, then its own; among
    those the one nearest the chooser's table edge (player 1: y = 0, player 2: y =
    depth); then file order. Without a chooser: file order."""
    order = {o.id: i for i, o in enumerate(scenario.objectives)}
    if chooser is None:
        return min(candidates, key=order.__getitem__)

    def key(oid: str):
        owner = state.alignment.get(oid)
        rank = 0 if (scorer is not None and owner == scorer) else (1 if owner is None else 2)
        y = scenario.objective(oid).position[1]
        edge = y if chooser == 1 else scenario.depth - y
        return (rank, round(edge, 9), order[oid])
    return min(candidates, key=key)


def _pick(scenario, state, chooser, scorer, candidates, rule, choose) -> str:
    if len(candidates) == 1:
        return candidates[0]
    if choose is not None:
        got = choose(chooser, list(candidates), rule)
        if got not in candidates:
            raise ScenarioError(f"{rule}: {got!r} is not one of the objectives to choose from "
                                f"({', '.join(candidates)})")
        return got
    return _default_choice(scenario, state, chooser, scorer, candidates)


def _lead(values: Mapping[int, int]) -> int | None:
    a, b = values.get(1, 0), values.get(2, 0)
    return 1 if a > b else 2 if b > a else None


def end_phase(scenario: Scenario, state: ScenarioState, turn: int, last_turn: bool,
              models: Iterable[ZoneModel] = (), killed: Iterable[str] = (),
              choose: Chooser | None = None) -> tuple[ScenarioState, list[str], bool]:
    """The scenario's part of End phase step 4 (line 578) of ``turn``.

    In order: the ``killed`` model ids are recorded (:func:`record_kill`); each zone
    gives its controller SP (friendly 1, neutral 2, enemy 3); VIM awards for VIMs
    killed so far (Open, Nominated; a Hidden VIM only when ``last_turn``, when it is
    revealed); the awards due (``at == turn``, or ``at: end`` when ``last_turn``; on the
    last turn, awards for later turns lapse): the player strictly ahead scores, a tie
    scores nobody; VP are capped so that no more than 3 are ever scored; then the
    Decreasing rules, if anyone scored VP in this End phase.

    Args:
        models: ``(player, (x, y), radius, rice)`` for every model in play (zones).
        last_turn: this is the last turn (fixed or variable length, turn 7, or a side
            with no models left).
        choose: see :data:`Chooser`; default: the documented engine choice.

    Returns:
        ``(new_state, notes, game_over)``: the game is over on the last turn or once
        all 3 VP have been scored.

    Raises:
        ScenarioError: the game is already over, or this turn's End phase was scored.
    """
    if state.over:
        raise ScenarioError("end_phase: the game is already over")
    if turn <= state.last_end_phase:
        raise ScenarioError(f"end_phase: the End phase of turn {turn} was already scored")
    models = list(models)
    for mid in killed:
        state = record_kill(state, mid, turn)
    notes: list[str] = []
    sp = dict(state.sp)
    vp = dict(state.vp)
    awards = list(state.awards)

    # zone control: SP in every End phase
    control: dict[str, int | None] = {}
    for z in scenario.zones:
        p = zone_controller(z, models)
        control[z.id] = p
        if p is not None:
            rel = relation(z.alignment, p)
            sp[p] += SP_BY_ALIGNMENT[rel]
            notes.append(f"player {p} controls zone {z.id} ({rel}): +{SP_BY_ALIGNMENT[rel]} SP (now {sp[p]})")
        else:
            notes.append(f"zone {z.id}: nobody controls it")

    scored_now = {1: 0, 2: 0}

    def give(award: Award, player: int | None, note: str):
        amount = 0
        if player is not None:
            amount = min(award.vp, TOTAL_VP - sum(vp.values()))
            vp[player] += amount
            scored_now[player] += amount
        awards.append({"award": award.index, "kind": award.kind, "player": player, "vp": amount,
                       "turn": turn, "note": note})
        if player is None:
            notes.append(f"{award.label}: {note}; nobody scores")
        else:
            capped = "" if amount == award.vp else f" (capped at {TOTAL_VP} VP in all)"
            notes.append(f"{award.label}: {note}; player {player} scores {amount} VP{capped}")

    done = {(a["award"], a["player"]) for a in awards}
    resolved = {a["award"] for a in awards}
    for award in scenario.victory:
        if award.kind == "vim":
            reveal = scenario.vim != "hidden" or last_turn
            for scorer in (1, 2):
                victim = opponent(scorer)
                when = state.vim_killed.get(victim)
                if when is None or (award.index, scorer) in done or not reveal:
                    continue
                what = ("had no legal VIM" if when == 0
                        else f"VIM {'/'.join(state.vims[victim])} was killed in turn {when}")
                give(award, scorer, f"player {victim}'s {what}")
            if scenario.vim == "hidden" and last_turn:
                notes.append("hidden VIMs revealed: " + "; ".join(
                    f"player {p}: {'/'.join(state.vims[p]) or 'none'}" for p in (1, 2)))
            continue
        if award.index in resolved:
            continue
        due = award.at == turn or (award.at == "end" and last_turn)
        if not due:
            if last_turn and isinstance(award.at, int) and award.at > turn:
                awards.append({"award": award.index, "kind": award.kind, "player": None, "vp": 0,
                               "turn": turn, "note": "lapsed: the game ended first"})
                notes.append(f"{award.label}: the game ended before turn {award.at}; nobody scores")
            continue
        if award.kind == "scenario_points":
            counts = sp
            what = "scenario points"
        elif award.kind == "objectives":
            counts = {p: len([o for o, a in state.alignment.items() if a == p and o not in state.removed])
                      for p in (1, 2)}
            what = "friendly objectives"
        elif award.kind == "zones":
            counts = {p: sum(1 for c in control.values() if c == p) for p in (1, 2)}
            what = "zones controlled"
        else:  # worship
            counts = {p: sum(v[p] for v in state.worship.values()) for p in (1, 2)}
            what = "worship markers"
        give(award, _lead(counts), f"{what} {counts.get(1, 0)}-{counts.get(2, 0)}")

    new = replace(state, sp=sp, vp=vp, awards=tuple(awards), last_end_phase=turn, turn=max(turn, state.turn))

    # Decreasing rules, after VP are scored, when someone scored in this End phase
    scorers = [p for p in (1, 2) if scored_now[p] > 0]
    for rule in scenario.rules:
        if not scorers:
            break
        if rule == "decreasing_popular":
            popular: dict[str, int] = {}  # Simple Scenario actions by objective
            for a in new.actions:  # start_phase keeps only this turn's actions
                if a["action"] == "simple" and a["objective"] not in new.removed:
                    popular[a["objective"]] = popular.get(a["objective"], 0) + 1
            if not popular:
                notes.append("Decreasing (Popular): no Simple Scenario action this turn; nothing is removed")
                continue
            top = max(popular.values())
            cands = [o.id for o in scenario.objectives if popular.get(o.id) == top]
            sole = scorers[0] if len(scorers) == 1 else None  # the only player who scored, if one
            chooser = opponent(sole) if sole is not None else None
            oid = _pick(scenario, new, chooser, sole, cands, rule, choose)
            new = replace(new, removed=new.removed + (oid,))
            by = f", chosen by player {chooser}" if len(cands) > 1 and chooser else ""
            notes.append(f"Decreasing (Popular): objective {oid} is removed ({top} Simple action(s){by})")
        else:  # decreasing_scorer
            for scorer in scorers:
                cands = new.friendly_objectives(scorer)
                if not cands:
                    notes.append(f"Decreasing (Scorer): no objective is friendly to player {scorer}")
                    continue
                chooser = opponent(scorer)
                oid = _pick(scenario, new, chooser, scorer, cands, rule, choose)
                new = replace(new, removed=new.removed + (oid,))
                by = f", chosen by player {chooser}" if len(cands) > 1 else ""
                notes.append(f"Decreasing (Scorer): objective {oid}, friendly to player {scorer}, is removed{by}")

    over = bool(last_turn or new.vp_scored >= TOTAL_VP)
    if over:
        new = replace(new, over=True)
        why = "the last turn" if last_turn else f"all {TOTAL_VP} VP have been scored"
        notes.append(f"the game ends: {why} (VP {new.vp[1]}-{new.vp[2]})")
    return new, notes, over


def final_result(state: ScenarioState) -> tuple[int | None, str]:
    """The result (Victory conditions, line 2073): the player with more VP wins; equal
    VP is a draw. Returns ``(winner or None, text)``."""
    a, b = state.vp.get(1, 0), state.vp.get(2, 0)
    if a == b:
        return None, f"draw on victory points ({a}-{b})"
    w = 1 if a > b else 2
    return w, f"player {w} wins on victory points ({a}-{b})"

