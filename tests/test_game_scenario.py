"""Scenarios in the Game (p.21, p.25, p.63): objectives on the table, Simple and Complex
Scenario actions, Starting-phase resets, End-phase scoring, VIMs, the end of the game on
three VP, save/load/replay."""

from __future__ import annotations

import pytest

from sim.geometry.attributes import base_radius
from sim.rules.bots import GreedyBot, RandomBot, play
from sim.rules.game import Action, Game, GameError
from sim.rules.scenario import list_scenarios, load_scenario
from sim.table import load_table, parse_table
from tests.conftest import set_active

R30 = base_radius(30)
SHRINES = load_scenario("shrines")
CENTRE = SHRINES.objective("centre").position  # (10.5, 12.0)

# Akira touches the centre shrine from below; Kenta stands clear; two enemies far away.
YAML = f"""
format: bushido-table/1
name: shrine duel
table: {{width: 24, depth: 24}}
terrain: []
models:
  - {{id: akira, player: 1, profile: takashi-akira, position: [{CENTRE[0]}, {CENTRE[1] - 2 * R30}], facing: 0}}
  - {{id: kenta, player: 1, profile: takashi-kenta, position: [2, 2], facing: 90}}
  - {{id: masunagi, player: 2, profile: ito-masunagi, position: [20, 21], facing: 270}}
  - {{id: ishi, player: 2, profile: ishi, position: [22, 21], facing: 270}}
"""


def game(yaml: str = YAML, seed: int = 1, **kw) -> Game:
    return Game(parse_table(yaml, "<test>"), seed=seed, scenario=kw.pop("scenario", "shrines"), **kw)


def make_active(g: Game, player: int) -> None:
    set_active(g, player)


def test_scenario_sets_the_length_and_places_the_objectives_as_impassable_terrain():
    g = game()
    assert g.length == SHRINES.length
    ids = {t.id for t in g.table_now().terrain}
    assert {"objective:west", "objective:centre", "objective:east"} <= ids
    make_active(g, 1)
    # walking straight through the centre shrine is refused (Impassable)
    ok, why = g.is_legal(Action("walk", "akira", point=(CENTRE[0], CENTRE[1] + 2 * R30), path=()))
    assert not ok


def test_prayer_turns_to_the_objective_and_scores_by_alignment():
    g = game()
    make_active(g, 1)
    a = Action("scenario", "akira", objective="centre", special="prayer")
    assert a in g.legal_actions()
    g.push(a)
    sc = g.scenario_state()
    assert sc.sp[1] == 2 and sc.prayer[1] == 2  # neutral shrine: 2 SP, one token spent
    assert g.state.models["akira"].facing == pytest.approx(90.0)
    assert g.state.models["akira"].counters == 1
    # the same model may not pray at the same shrine again this turn (p.63)
    make_active(g, 1)
    ok, why = g.is_legal(a)
    assert not ok and "pray" in why.lower()


def test_influence_makes_the_objective_friendly():
    g = game()
    make_active(g, 1)
    g.push(Action("scenario", "akira", objective="centre", special="influence"))
    assert g.scenario_state().alignment["centre"] == 1


def test_scenario_action_refused_out_of_contact_or_in_enemy_zoc():
    g = game()
    make_active(g, 1)
    ok, why = g.is_legal(Action("scenario", "kenta", objective="centre", special="prayer"))
    assert not ok and "not in contact with the objective" in why
    # an enemy 0.5" away, facing akira: akira is in its ZoC
    y = CENTRE[1] - 2 * R30
    near = YAML.replace("position: [20, 21], facing: 270", f"position: [{CENTRE[0] - 2 * R30 - 0.5}, {y}], facing: 0")
    g = game(near)
    make_active(g, 1)
    ok, why = g.is_legal(Action("scenario", "akira", objective="centre", special="prayer"))
    assert not ok and "ZoC of the enemy masunagi" in why


def test_aloof_models_take_no_scenario_actions():
    monk = YAML.replace("profile: takashi-akira,", "base: 30, move: 4, traits: [aloof],")
    g = game(monk)
    make_active(g, 1)
    ok, why = g.is_legal(Action("scenario", "akira", objective="centre", special="prayer"))
    assert not ok and "Aloof" in why


def test_shrines_game_scores_victory_points_at_the_end():
    g = game(length=("fixed", 1))
    make_active(g, 1)
    g.push(Action("scenario", "akira", objective="centre", special="prayer"))
    play(g, (RandomBot(1), RandomBot(2)))
    sc = g.scenario_state()
    assert g.is_over() and sc.over
    assert sc.vp[1] >= 2  # most SP at the end: 2 VP (player 2 cannot reach a shrine)
    assert "victory points" in g.state.result


def test_marked_for_death_scores_the_vim_kill():
    g = Game(load_table(), seed=3, scenario="marked_for_death")
    sc = g.scenario_state()
    vim2 = sc.vims[2][0]
    assert g.state.models[vim2].player == 2
    # kill player 2's VIM and end the turn
    g.wound(vim2, g.state.models[vim2].wounds)
    turn = g.state.turn
    while g.state.turn == turn and not g.is_over():
        p = g.state.active
        m = next(x for x in g.state.alive(p) if not x.exhausted)
        g.push(Action("wait", m.id))
    assert g.scenario_state().vp[1] == 1


def test_vims_must_belong_to_their_side():
    with pytest.raises(GameError, match="VIM of player 1"):
        Game(load_table(), seed=3, scenario="marked_for_death", vims={1: "ishi", 2: "nanako"})


def test_unknown_scenario_is_a_clear_error():
    with pytest.raises(GameError, match="nowhere"):
        Game(load_table(), seed=1, scenario="nowhere")


def test_scenario_that_does_not_fit_the_table_is_refused():
    # a model standing on the centre shrine
    bad = YAML.replace("position: [2, 2], facing: 90", f"position: [{CENTRE[0]}, {CENTRE[1]}], facing: 90")
    with pytest.raises(GameError, match="does not fit the table"):
        game(bad)


@pytest.mark.parametrize("name", list_scenarios())
def test_every_bundled_scenario_plays_to_the_end_and_replays(name, tmp_path):
    g = Game(load_table(), seed=5, scenario=name)
    play(g, (GreedyBot(5), RandomBot(6)))
    sc = g.scenario_state()
    assert g.is_over() and sum(sc.vp.values()) <= 3
    assert g.replay().snapshot() == g.snapshot()
    g.save(tmp_path / "g.json")
    h = Game.load(tmp_path / "g.json")
    assert h.snapshot() == g.snapshot() and h.scenario == g.scenario


def test_greedy_bot_prays_at_the_objective_it_touches():
    g = game()
    make_active(g, 1)
    a = GreedyBot(1).choose(g)
    assert a.kind == "scenario" and a.model == "akira" and a.objective == "centre" and a.special == "prayer"


def test_greedy_bot_walks_to_an_objective_in_reach():
    away = YAML.replace(f"position: [{CENTRE[0]}, {CENTRE[1] - 2 * R30}]", f"position: [{CENTRE[0]}, {CENTRE[1] - 4}]")
    g = game(away)
    make_active(g, 1)
    bot = GreedyBot(1)
    a = bot.choose(g)
    while a.kind == "feat":  # an Instant/Active Ki feat first (no counter, p.46): the bot may buff itself
        g.push(a)
        a = bot.choose(g)
    assert a.kind == "walk" and a.model == "akira"
    g.push(a)
    make_active(g, 1)
    assert Action("scenario", "akira", objective="centre", special="prayer") in g.legal_actions()


def test_greedy_bot_walks_into_a_zone_it_does_not_control():
    from sim.rules.scenario import zone_contains_base

    yaml = """
format: bushido-table/1
name: zones
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: akira, player: 1, profile: takashi-akira, position: [12.5, 5.5], facing: 90}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [22, 22], facing: 270}
"""
    g = Game(parse_table(yaml, "<zones>"), seed=1, scenario="crossroads")
    make_active(g, 1)
    a = GreedyBot(1).choose(g)
    assert a.kind == "walk" and a.model == "akira"
    g.push(a)
    crossing = next(z for z in g.scenario.zones if z.id == "crossing")
    tm = g.table_now().model("akira")
    assert zone_contains_base(crossing, tm.position, tm.radius)


def test_complex_scenario_action_influences_the_relic_for_two_counters():
    """Marked for Death's relic is swayed by a Complex Scenario action (p.25, p.63): it is
    offered, costs both activation counters, and a Simple one is refused."""
    relic = load_scenario("marked_for_death").objective("relic").position
    at_relic = YAML.replace(f"position: [{CENTRE[0]}, {CENTRE[1] - 2 * R30}]",
                            f"position: [{relic[0]}, {relic[1] - 2 * R30}]")
    g = game(at_relic, scenario="marked_for_death")
    make_active(g, 1)
    complex_action = Action("complex_scenario", "akira", objective="relic", special="influence")
    assert complex_action in g.legal_actions()
    ok, why = g.is_legal(Action("scenario", "akira", objective="relic", special="influence"))
    assert not ok and "complex Scenario action" in why
    assert g.state.models["akira"].counters == 2
    g.push(complex_action)
    assert g.state.models["akira"].counters == 0
    assert g.scenario_state().alignment["relic"] == 1
