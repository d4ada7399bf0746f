"""Audit A2 of issue 13: the rulebook's Tests, Ranged Attacks, Melee Attacks, Wound Table
and Special Abilities chapters (p.27-42) against the engine, through the public
:class:`~sim.rules.game.Game` API. Each test quotes the line it checks (seeds/000)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table
from tests.conftest import set_active

TABLE = load_table()


def _moved(table, **where):
    """``table`` with models placed: ``kenta=((x, y), facing)``."""
    models = tuple(dataclasses.replace(m, position=where[m.id][0], facing=where[m.id][1]) if m.id in where else m
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _with_card(table, mid: str, base: str, new_id: str, traits=()):
    """``table`` with model ``mid`` given a copy of card ``base`` (as ``new_id``) plus
    ``traits``; the conftest fixture removes the added card after the test."""
    card = get_profile(base)
    add_profile_source({new_id: replace(card, id=new_id, name=new_id, bs_id="test-" + new_id,
                                        traits=tuple(card.traits) + tuple(traits))})
    models = tuple(dataclasses.replace(m, profile=new_id) if m.id == mid else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _game(table, seed: int, active: int = 1) -> Game:
    g = Game(table, seed=seed, length=("fixed", 6))
    set_active(g, active)
    return g


# ------------------------------------------------------------------ Fear tests (p.29)

def test_a_charge_that_fails_its_fear_test_costs_one_counter():
    """p.29: "Активная модель объявляет действие или эффект, который приводит её в контакт
    со Страшной вражеской моделью. Если активная модель не прошла проверку Страха, удалите
    один счетчик активации, независимо от объявленного действия ..., и её активация
    завершается. Она не получает состояние «Испугана»." A Charge is Complex (two counters)
    but a failed Fear test removes one; a passed one pays the Charge's two."""
    table = _with_card(TABLE, "masunagi", "ito-masunagi", "fearsome-masunagi",
                       traits=(Trait("fear", 6, None, "Fear (6)"),))
    table = _moved(table, matsu=((2.0, 1.5), 0.0), masunagi=((5.5, 1.5), 180.0))
    failed = passed = 0
    for seed in range(12):
        g = _game(table, seed)
        assert g.state.models["matsu"].counters == 2
        events = g.push(Action("charge", "matsu", target="masunagi"))
        texts = [e.data.get("text", "") for e in events if e.kind == "note"]
        if any("matsu takes a Fear test" in t and t.endswith("fails") for t in texts):
            failed += 1
            assert g.state.models["matsu"].counters == 1
            assert g.state.exchange is None
            assert "frightened" not in g.state.models["matsu"].conditions
            assert g.state.active == 2  # the activation ended
        else:
            passed += 1
            assert g.state.models["matsu"].counters == 0
        assert "fear_failed" not in g.state.models["matsu"].conditions
        assert g.replay().snapshot() == g.snapshot()
    assert failed and passed


# ------------------------------------------------------------------ Tactical tests (p.29)

def test_the_tactical_tests_winner_may_let_the_other_player_act_first():
    """p.29: "Выигравший игрок решает, какой игрок будет первым активным игроком в ходу."
    The winner acts first by default; before the turn's first activation it may hand the
    first activation to the other player (a free step offered by legal_actions)."""
    g = Game(TABLE, seed=3, length=("fixed", 6))
    winner = g.state.active
    assert g.state.first == winner
    offered = [a for a in g.legal_actions() if a.kind == "tactical_choice"]
    assert len(offered) == 1 and g.state.models[offered[0].model].player == winner
    loser_model = next(m.id for m in g.state.alive(3 - winner))
    assert not g.is_legal(Action("tactical_choice", loser_model))[0]
    g.push(offered[0])
    assert g.state.active == 3 - winner and g.state.first == 3 - winner
    assert not [a for a in g.legal_actions() if a.kind == "tactical_choice"]  # the choice is made
    assert g.replay().snapshot() == g.snapshot()
    g.pop()
    assert g.state.active == winner and g.state.first == winner


def test_the_tactical_choice_closes_with_the_first_activation():
    """p.21: the Main phase "Начинается с игрока, при проверке Тактики выбравшего ходить
    первым": once a model has activated, the first player is no longer chosen."""
    g = Game(TABLE, seed=3, length=("fixed", 6))
    winner = g.state.active
    act = next(a for a in g.legal_actions() if a.kind == "walk")
    g.push(act)
    mine = next(m.id for m in g.state.alive(winner))
    assert not g.is_legal(Action("tactical_choice", mine))[0]


# ------------------------------------------------------------------ exceptional specials (p.41)

def test_eagles_flight_defence_is_offered_after_the_exchange():
    """p.41: "Орлиный полёт (Eagle's Flight Defence): Если защита успешна, Защитник может
    переместиться на 3" после завершения Обмена ударами." The engine cannot choose the
    move: a successful Eagle's Flight is logged as a manual step naming the model, never
    skipped silently (A5: it is offered to the defender's player as a choice)."""
    card = get_profile("ito-masunagi")
    weapons = tuple(replace(w, special_defences=("Eagle's Flight Defence (0)",)) if w.kind == "melee" else w
                    for w in card.weapons)
    add_profile_source({"eagle-masunagi": replace(card, id="eagle-masunagi", name="eagle-masunagi",
                                                  bs_id="test-eagle-masunagi", weapons=weapons)})
    models = tuple(dataclasses.replace(m, profile="eagle-masunagi") if m.id == "masunagi" else m
                   for m in TABLE.models)
    table = _moved(dataclasses.replace(TABLE, models=models, _scene=[]),
                   matsu=((2.0, 1.5), 0.0), masunagi=((2.0 + 2 * 0.5905511811023623, 1.5), 180.0))
    seen = 0
    for seed in range(10):
        g = _game(table, seed)
        g.push(Action("melee", "matsu", target="masunagi"))
        pools = g.exchange_pools()
        while g.state.exchange is not None:
            who = "matsu" if g.to_move() == 1 else "masunagi"
            if who == "matsu":
                g.push(Action("allocate", who, attack=pools[who], defence=0))
            else:
                g.push(Action("allocate", who, attack=0, defence=pools[who], special="eagles-flight-defence"))
        # since A5 the move is offered to the defender's player (tests/test_audit_a5.py)
        if "eagles_flight" in g.state.models["masunagi"].conditions:
            seen += 1
            assert g.to_move() == g.state.models["masunagi"].player
            assert {a.kind for a in g.legal_actions()} == {"eagles_flight"}
    assert seen
