"""Ranged attacks in the Game (p.30-32): interception decided by the target's player
(step 1d), the +1 for a model that already shot this turn, Ammo tokens kept between
shots."""

from __future__ import annotations

import pytest

from sim.rules.bots import GreedyBot
from sim.rules.game import Action, Game, GameError
from sim.table import parse_table
from tests.conftest import set_active, set_model

# Matsu shoots at Masunagi; Ishi stands beside the line, facing it: its ZoC is crossed.
YAML = """
format: bushido-table/1
name: shots
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: takashi-matsu, position: [4, 12], facing: 0}
  - {id: akira, player: 1, profile: takashi-akira, position: [2, 2], facing: 90}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [12, 12], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [8, 13.4], facing: 270}
"""


def game(yaml: str = YAML) -> Game:
    g = Game(parse_table(yaml, "<test>"), seed=2, length=("fixed", 2))
    set_active(g, 1)
    return g


def test_the_targets_player_decides_on_interception():
    g = game()
    g.push(Action("shoot", "matsu", target="masunagi"))
    ic = g.state.interception
    assert ic is not None and ic["candidates"] == ["ishi"]
    assert g.to_move() == 2
    assert g.legal_actions() == [Action("intercept"), Action("intercept", target="ishi")]
    ok, why = g.is_legal(Action("walk", "ishi", point=(8, 15)))
    assert not ok and "interceptor" in why
    ok, why = g.is_legal(Action("intercept", target="masunagi"))
    assert not ok and "cannot intercept" in why
    with pytest.raises(GameError):
        g.push(Action("intercept", target="akira"))
    g.push(Action("intercept", target="ishi"))
    assert g.state.interception is None and g.state.active == 2
    assert any("ishi intercepts" in line for line in g.log())
    assert g.replay().snapshot() == g.snapshot()


def test_declining_keeps_the_original_target():
    g = game()
    g.push(Action("shoot", "matsu", target="masunagi"))
    g.push(Action("intercept"))
    assert any("nobody intercepts" in line for line in g.log())
    assert not any("1d interception: ishi intercepts" in line for line in g.log())


def test_no_decision_without_a_possible_interceptor():
    g = game(YAML.replace("[8, 13.4], facing: 270", "[8, 20], facing: 270"))
    g.push(Action("shoot", "matsu", target="masunagi"))
    assert g.state.interception is None and g.state.active == 2


def test_greedy_bot_intercepts_for_a_nearly_dead_friend():
    g = game()
    set_model(g, "masunagi", damage=4)  # 1 wound left; ishi has 5
    g.push(Action("shoot", "matsu", target="masunagi"))
    assert GreedyBot(1).choose(g) == Action("intercept", target="ishi")
    g = game()
    g.push(Action("shoot", "matsu", target="masunagi"))
    assert GreedyBot(1).choose(g) == Action("intercept")


def _decline_feats(g: Game) -> None:
    """Decline the triggered Ki feats that wait (the shooter's feat opened by its hit)."""
    while True:
        no = [a for a in g.legal_actions() if a.kind == "decline_feat"]
        if not no:
            return
        g.push(no[0])


def test_a_second_shot_in_a_turn_has_target_number_plus_one():
    g = game(YAML.replace("[8, 13.4], facing: 270", "[8, 20], facing: 270"))
    g.push(Action("shoot", "matsu", target="masunagi"))
    _decline_feats(g)  # a hit opens Matsu's Raijin's Rage (Ki feats round 6): not used here
    assert "shot" in g.state.models["matsu"].conditions
    set_active(g, 1)
    g.push(Action("shoot", "matsu", target="masunagi"))
    _decline_feats(g)
    tn_lines = [line for line in g.log() if "target number" in line]
    assert "already shot" not in tn_lines[0] and "already shot" in tn_lines[1]
    # the End phase clears it
    while g.state.turn == 1:
        p = g.state.active
        m = next(x for x in g.state.alive(p) if not x.exhausted)
        g.push(Action("wait", m.id))
    assert "shot" not in g.state.models["matsu"].conditions


def test_ammo_tokens_are_kept_between_shots():
    from dataclasses import replace

    from models.profiles import add_profile_source, get_profile, remove_profile_source

    matsu = get_profile("takashi-matsu")
    bow = replace(next(w for w in matsu.weapons if w.kind == "ranged"), traits=("Ammo (1)",))
    card = replace(matsu, id="matsu-one-arrow", name="Matsu with one arrow", bs_id="test-one-arrow",
                   weapons=tuple(bow if w.kind == "ranged" else w for w in matsu.weapons))
    source = {card.id: card}
    add_profile_source(source)
    try:
        g = game(YAML.replace("takashi-matsu", "matsu-one-arrow")
                 .replace("[8, 13.4], facing: 270", "[8, 20], facing: 270"))
        g.push(Action("shoot", "matsu", target="masunagi"))
        _decline_feats(g)  # a hit opens Matsu's Raijin's Rage (Ki feats round 6): not used here
        assert g.state.models["matsu"].ammo == {bow.name: 0}
        set_active(g, 1)
        g.push(Action("shoot", "matsu", target="masunagi"))
        assert "no Ammo" in g.log()[-3] or any("ammo" in line.lower() and "no" in line.lower() for line in g.log()[-8:])
        assert g.replay().snapshot() == g.snapshot()
    finally:
        remove_profile_source(source)  # only this test's card
