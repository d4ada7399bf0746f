"""Regressions found by the warband fuzzer (benchmarks/fuzz_warbands.py, issue #13, F1):
real catalogue warbands played to the end by the bots. Each test rebuilds the smallest
position that used to fail (a card of the default table given the catalogue card's
feature), through the public :class:`~sim.rules.game.Game` API."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

from models.profiles import add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table
from tests.conftest import set_active

TABLE = load_table()
#: Two Small bases (30 mm) in contact: their centres this far apart, inches.
_TOUCH = 2 * 0.5905511811023623


def _card(base: str, new_id: str, **changes):
    """Register a copy of card ``base`` as ``new_id`` with ``changes`` (the conftest
    fixture removes it after the test); ``weapon_strength`` sets the Strength of its
    melee weapons."""
    card = get_profile(base)
    if "weapon_strength" in changes:
        s = changes.pop("weapon_strength")
        changes["weapons"] = tuple(replace(w, strength=s) if w.kind == "melee" else w for w in card.weapons)
    add_profile_source({new_id: replace(card, id=new_id, name=new_id, bs_id="test-" + new_id, **changes)})
    return new_id


def _table(profiles: dict, **where):
    models = tuple(dataclasses.replace(m, profile=profiles.get(m.id, m.profile),
                                       **({"position": where[m.id][0], "facing": where[m.id][1]}
                                          if m.id in where else {}))
                   for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def _fight(g: Game, attacker: str, defender: str) -> dict:
    """``attacker`` declares a Melee against ``defender``, all dice in attack; the
    defender all in defence. Returns the exchange event's data."""
    g.push(Action("melee", attacker, target=defender))
    pools = g.exchange_pools()
    while g.state.exchange is not None:
        who = attacker if g.to_move() == g.state.models[attacker].player else defender
        att = who == attacker
        g.push(Action("allocate", who, attack=pools[who] if att else 0, defence=0 if att else pools[who]))
    return [e for e in g.events if e.kind == "exchange"][-1].data


def test_a_melee_weapon_with_a_variable_strength_fights_and_leaves_its_damage_to_the_players():
    """Fuzz seed 1 (Jung Pirates vs Cult of Yurei): Numachi's Claw prints Strength "X-2"
    (X: its Ki tokens, a card rule); the game stopped with MeleeError as soon as it
    fought. Now the exchange is played (dice, success level); a successful attack makes
    no damage roll and the log names the card's weapon as a manual step (the project's
    reading, as for an (Sp) ranged weapon)."""
    claw = _card("takashi-akira", "claw-x-f1", weapon_strength=None)
    table = _table({"akira": claw}, akira=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
    hits = 0
    for seed in range(8):
        g = Game(table, seed=seed, length=("fixed", 6))
        set_active(g, 1)
        data = _fight(g, "akira", "masunagi")
        assert g.state.models["masunagi"].damage == 0
        if any("akira attacks" in line and "attack hits" in line for line in data["summary"]):
            hits += 1
            assert any("MANUAL STEP" in line and "Katana" in line for line in data["summary"])
    assert hits


def test_a_defender_with_a_variable_strength_weapon_can_be_attacked():
    """Fuzz seed 8: the DEFENDER's variable-Strength weapon stopped the exchange too. Its
    attacker's damage is rolled as usual."""
    claw = _card("ito-masunagi", "claw-def-f1", weapon_strength=None)
    table = _table({"masunagi": claw}, akira=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
    wounded = 0
    for seed in range(8):
        g = Game(table, seed=seed, length=("fixed", 6))
        set_active(g, 1)
        _fight(g, "akira", "masunagi")
        wounded += g.state.models["masunagi"].damage > 0
    assert wounded


def test_a_card_with_a_variable_melee_statistic_fights_with_its_unmarked_wounds():
    """Fuzz seed 14 (The Savage Wave vs Horse Lords of Ataka): the Nightwing Swarm's Melee
    is "X" (the swarms' cards: X is the wound boxes left unmarked); the game stopped with
    "the Melee statistic is an int >= 0, got None". Now it rolls its unmarked wound boxes
    as its Melee pool and the log names the stand-in as a manual step."""
    swarm = _card("takashi-akira", "swarm-f1", melee=None)
    table = _table({"akira": swarm}, akira=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
    g = Game(table, seed=3, length=("fixed", 6))
    set_active(g, 1)
    m = g.state.models["akira"]
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.exchange_pools()["akira"] >= 1
    g.pop()
    data = _fight(g, "akira", "masunagi")
    assert any("MANUAL STEP" in line and f"Melee {m.wounds - m.damage}" in line for line in data["summary"])


# Matsu shoots at Masunagi; Ishi stands beside the line, facing it: its ZoC is crossed.
_SHOTS = """
format: bushido-table/1
name: shots
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: matsu, player: 1, profile: PROFILE, position: [4, 12], facing: 0}
  - {id: akira, player: 1, profile: takashi-akira, position: [2, 2], facing: 90}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [12, 12], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [8, 13.4], facing: 270}
"""


def test_a_cavalry_models_move_after_an_intercepted_shot_is_offered_to_its_player():
    """Fuzz seed 6 (The Awoken vs Horse Lords of Ataka): Batu (Cavalry) shot, the shot
    was intercepted, and the turn passed to the other player while the game still waited
    for Batu's Cavalry move: no legal action at all. p.50 (Кавалерия): the model may move
    after its action; the choice is its player's before the turn passes."""
    from models.profiles import Trait
    from sim.table import parse_table

    cav = _card("takashi-matsu", "cavalry-matsu-f1",
                traits=tuple(get_profile("takashi-matsu").traits) + (Trait("cavalry", 3, None, 'Cavalry (3")'),))
    g = Game(parse_table(_SHOTS.replace("PROFILE", cav), "<test>"), seed=2, length=("fixed", 2))
    set_active(g, 1)
    g.push(Action("shoot", "matsu", target="masunagi"))
    assert g.state.interception is not None
    g.push(Action("intercept", target="ishi"))
    assert g.to_move() == 1
    offered = g.legal_actions()
    assert Action("cavalry", "matsu") in offered
    g.push(Action("cavalry", "matsu"))
    assert g.to_move() == 2 and g.legal_actions()


def test_a_throw_direction_is_judged_with_the_models_facing_each_other():
    """Fuzz seed 16 (Temple of Ro-Kan vs The Descension): the greedy bot's Throw direction,
    chosen with the two models facing each other, was refused at the allocation, which
    judged the thrower's LoS with its facing before the exchange; the game stopped.
    p.33 step 1: the models of the exchange turn to face each other before anything
    else; p.41 Throw: the thrown model ends in the thrower's LoS. A defender attacked from
    behind may throw its attacker away from itself."""
    card = get_profile("ito-masunagi")
    weapons = tuple(replace(w, special_defences=("Throw Defence (0)",)) if w.kind == "melee" else w
                    for w in card.weapons)
    thrower = _card("ito-masunagi", "thrower-f1", weapons=weapons)
    # masunagi faces away (east) from akira, who attacks it from the west
    table = _table({"masunagi": thrower}, akira=((6.0, 1.5), 0.0), masunagi=((6.0 + _TOUCH, 1.5), 0.0))
    g = Game(table, seed=1, length=("fixed", 6))
    set_active(g, 1)
    g.push(Action("melee", "akira", target="masunagi"))
    pools = g.exchange_pools()
    throw = Action("allocate", "masunagi", attack=0, defence=pools["masunagi"], special="throw-defence",
                   direction=180.0)
    ok, why = g.is_legal(throw)
    assert ok, why


def test_a_special_printed_without_a_cost_costs_no_dice():
    """Fuzz seed 79 (Jung Pirates vs Horse Lords of Ataka): Fujiwaro Ran's Sai prints
    "Sidestep Defence" with no cost in brackets; the game stopped with MeleeError as soon
    as the model fought. p.39: the number in brackets is the dice the special costs; with
    none printed the engine reads (0) (F1's rulings)."""
    card = get_profile("ito-masunagi")
    weapons = tuple(replace(w, special_defences=("Sidestep Defence",)) if w.kind == "melee" else w
                    for w in card.weapons)
    dodger = _card("ito-masunagi", "sai-f1", weapons=weapons)
    table = _table({"masunagi": dodger}, akira=((6.0, 1.5), 0.0), masunagi=((6.0 + _TOUCH, 1.5), 180.0))
    g = Game(table, seed=1, length=("fixed", 6))
    set_active(g, 1)
    g.push(Action("melee", "akira", target="masunagi"))
    pools = g.exchange_pools()
    ok, why = g.is_legal(Action("allocate", "masunagi", attack=0, defence=pools["masunagi"],
                                special="sidestep-defence", direction=0.0))
    assert ok, why
