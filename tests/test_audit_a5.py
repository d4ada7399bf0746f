"""Audit A5 of issue 13: the rulebook's Ranged Attacks, Melee Attacks, Wound Table and
Special Abilities chapters (p.30-42, seeds/000 lines 811-1227) against the engine, through
the public :class:`~sim.rules.game.Game` API. Each test quotes the line it checks."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace

from models.profiles import add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table
from tests.conftest import set_active

TABLE = load_table()
#: Two Small bases (30 mm) in contact: their centres this far apart, inches.
_TOUCH = 2 * 0.5905511811023623


def _card(base: str, new_id: str, *, traits=(), attacks=None, defences=None):
    """Register a copy of card ``base`` as ``new_id`` with ``traits`` added and its melee
    weapons' specials replaced by ``attacks`` / ``defences`` when given (the conftest
    fixture removes it after the test)."""
    card = get_profile(base)
    weapons = tuple(replace(w, **({"special_attacks": tuple(attacks)} if attacks is not None else {}),
                            **({"special_defences": tuple(defences)} if defences is not None else {}))
                    if w.kind == "melee" else w for w in card.weapons)
    add_profile_source({new_id: replace(card, id=new_id, name=new_id, bs_id="test-" + new_id,
                                        traits=tuple(card.traits) + tuple(traits), weapons=weapons)})
    return new_id


def _table(profiles: dict, **where):
    """The default table with models given other cards (``{model: card id}``) and placed
    (``kenta=((x, y), facing)``)."""
    models = tuple(dataclasses.replace(m, profile=profiles.get(m.id, m.profile),
                                       **({"position": where[m.id][0], "facing": where[m.id][1]}
                                          if m.id in where else {}))
                   for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def _game(table, seed: int, active: int = 1) -> Game:
    g = Game(table, seed=seed, length=("fixed", 6))
    set_active(g, active)
    return g


def _fight(g: Game, attacker: str, defender: str, att_special=None, def_special=None):
    """``attacker`` declares a Melee against ``defender``: the attacker puts every die in
    attack, the defender every die in defence (with the specials named)."""
    g.push(Action("melee", attacker, target=defender))
    pools = g.exchange_pools()
    while g.state.exchange is not None:
        who = attacker if g.to_move() == g.state.models[attacker].player else defender
        if who == attacker:
            g.push(Action("allocate", who, attack=pools[who], defence=0, special=att_special))
        else:
            g.push(Action("allocate", who, attack=0, defence=pools[who], special=def_special))


# ------------------------------------------------------------------ Eagle's Flight (p.41)

def _eagle_games(seeds=range(12)):
    eagle = _card("ito-masunagi", "eagle-masunagi-a5", defences=("Eagle's Flight Defence (0)",))
    table = _table({"masunagi": eagle}, matsu=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
    for seed in seeds:
        g = _game(table, seed)
        _fight(g, "matsu", "masunagi", def_special="eagles-flight-defence")
        yield g


def test_eagles_flight_is_offered_to_the_defenders_player_after_the_exchange():
    """p.41: "Орлиный полёт (Eagle's Flight Defence): Если защита успешна, Защитник может
    переместиться на 3" после завершения Обмена ударами." p.39: "Все движения от Особых
    способностей игнорируют ЗК и контакт вражеской модели." After a successful Eagle's
    Flight the game waits for the defender's player: moves of up to 3" leaving the enemy's
    contact and ZoC are offered, and staying; a point beyond 3" is refused; the move is
    played and the game goes on to the next activation."""
    seen = 0
    for g in _eagle_games():
        if "eagles_flight" not in g.state.models["masunagi"].conditions:
            continue
        seen += 1
        p2 = g.state.models["masunagi"].player
        assert g.to_move() == p2
        offered = g.legal_actions()
        assert offered and all(a.kind == "eagles_flight" and a.model == "masunagi" for a in offered)
        assert Action("eagles_flight", "masunagi") in offered  # staying is offered
        moves = [a for a in offered if a.point is not None]
        assert moves and all(math.dist(a.point, g.state.models["masunagi"].position) <= 3.0 + 1e-6 for a in moves)
        far = (g.state.models["masunagi"].position[0] + 3.5, g.state.models["masunagi"].position[1])
        assert not g.is_legal(Action("eagles_flight", "masunagi", point=far))[0]
        assert not g.is_legal(Action("walk", "matsu", point=(10.0, 12.0)))[0]  # nothing else while it waits
        away = (g.state.models["masunagi"].position[0] + 3.0, g.state.models["masunagi"].position[1])
        assert g.is_legal(Action("eagles_flight", "masunagi", point=away))[0]  # out of the enemy's ZoC
        g.push(Action("eagles_flight", "masunagi", point=away))
        assert g.state.models["masunagi"].position == (away[0], away[1]) or \
            tuple(g.state.models["masunagi"].position) == away
        assert "eagles_flight" not in g.state.models["masunagi"].conditions
        assert g.to_move() == g.state.active and not [a for a in g.legal_actions() if a.kind == "eagles_flight"]
        assert g.replay().snapshot() == g.snapshot()
        g.pop()
        assert "eagles_flight" in g.state.models["masunagi"].conditions
    assert seen


def test_eagles_flight_may_be_declined_and_the_bot_takes_a_move_out_of_contact():
    """p.41: the defender "может переместиться" (may move): declining keeps it in place;
    the greedy answer moves it out of contact with every enemy."""
    seen = 0
    for g in _eagle_games():
        if "eagles_flight" not in g.state.models["masunagi"].conditions:
            continue
        seen += 1
        before = tuple(g.state.models["masunagi"].position)
        choice = g.answer_choice()
        assert choice.kind == "eagles_flight" and choice.point is not None
        g.push(Action("eagles_flight", "masunagi"))
        assert tuple(g.state.models["masunagi"].position) == before
        assert not any(e.kind == "manual_step" and "Eagle" in e.data.get("source", "") for e in g.events)
    assert seen


# ------------------------------------------------------------------ exceptional attacks (p.41)

def _ivory_runs(traits=()):
    """Games where matsu declares Ivory Prison Attack (0) against masunagi (with ``traits``
    added), and their exchange event."""
    ivory = _card("takashi-matsu", "ivory-matsu-a5", attacks=("Ivory Prison Attack (0)",))
    target = _card("ito-masunagi", "ivory-target-a5", traits=traits)
    table = _table({"matsu": ivory, "masunagi": target},
                   matsu=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
    for seed in range(16):
        g = _game(table, seed)
        _fight(g, "matsu", "masunagi", att_special="ivory-prison-attack")
        yield g, next(e for e in g.events if e.kind == "exchange")


def test_ivory_prison_removes_a_target_and_names_the_kairai_as_a_manual_step():
    """p.41: "Атака Костяной тюрьмы (Ivory Prison Attack): если атака успешна, удалите из
    игры не-Незначительную, не-Бездушную цель, и выставьте вместо неё не-уникального Сбитого
    с ног Кайрая под вашим контролем." A plain target is removed; the Kairai is a manual step."""
    seen = 0
    for g, ex in _ivory_runs():
        if "masunagi" not in ex.data["removed"]:
            continue
        seen += 1
        assert not g.state.models["masunagi"].alive
        steps = [e for e in g.events if e.kind == "manual_step" and "Ivory" in e.data["source"]]
        assert steps and "Kairai" in steps[0].data["text"]
    assert seen


def test_ivory_prison_does_not_remove_a_soulless_or_insignificant_target():
    """p.41: Ivory Prison removes "не-Незначительную, не-Бездушную цель": a Soulless or an
    Insignificant model stays on the table (and takes no damage roll: the attack makes none)."""
    from models.profiles import Trait

    for trait in (Trait("soulless", None, None, "Soulless"), Trait("insignificant", None, None, "Insignificant")):
        hits = 0
        for g, ex in _ivory_runs(traits=(trait,)):
            if not any("Ivory Prison" in line and "does not remove" in line for line in ex.data["summary"]):
                continue
            hits += 1
            assert g.state.models["masunagi"].alive and "masunagi" not in ex.data["removed"]
            assert not [e for e in g.events if e.kind == "manual_step" and "Ivory" in e.data.get("source", "")]
        assert hits, trait.text


# ------------------------------------------------------------------ ranged target numbers (p.31)

def _tn_line(events) -> str:
    shot = next(e for e in events if e.kind == "shot")
    return next(s for s in shot.data["summary"] if s.startswith("1f"))


def test_a_run_in_an_earlier_activation_is_not_a_move_in_this_one():
    """p.31, the table of ranged modifiers: "Атакующая модель Бежала в этот ход +1" and
    "Атакующая модель двигалась или будет двигаться в эту активацию +1" are two rows. A
    model that Ran in an earlier activation of the turn and shoots without moving takes the
    first (+1), not the second too (it took +2)."""
    from tests.conftest import set_model

    g = _game(TABLE, 3)
    set_model(g, "kokkio", conditions={"ran": True}, counters=1)
    line = _tn_line(g.push(Action("shoot", "kokkio", target="masunagi")))
    assert "attacker Ran this turn" in line
    assert "moved or will move" not in line
    g = _game(TABLE, 3)
    line = _tn_line(g.push(Action("shoot", "kokkio", target="masunagi", walk="after", point=(6.5, 9.5))))
    assert "moved or will move this activation" in line and "Ran" not in line


def test_gokusatsu_does_nothing_when_the_enemy_has_it_on_another_weapon():
    """p.41: "Атака Гokusatsu (Gokusatsu Attack): Если эта атака успешна, удалите Защитника
    и Атакующего из игры. Если у вражеской модели также есть эта Исключительная Атака, то
    эта атака не влияет ни на одного из бойцов." The enemy model has it on a second melee
    weapon it does not fight with: still no effect on either model."""
    gok = _card("takashi-matsu", "gokusatsu-matsu-a5", attacks=("Gokusatsu Attack (0)",))
    card = get_profile("ito-masunagi")
    spare = replace(card.weapons[0], name="Tanto", special_attacks=("Gokusatsu Attack (1)",), special_defences=())
    add_profile_source({"gokusatsu-masunagi-a5": replace(card, id="gokusatsu-masunagi-a5",
                                                         name="gokusatsu-masunagi-a5", bs_id="test-goku-a5",
                                                         weapons=tuple(card.weapons) + (spare,))})
    for other, expect_removed in (("ito-masunagi", True), ("gokusatsu-masunagi-a5", False)):
        table = _table({"matsu": gok, "masunagi": other},
                       matsu=((2.0, 1.5), 0.0), masunagi=((2.0 + _TOUCH, 1.5), 180.0))
        hits = 0
        for seed in range(16):
            g = _game(table, seed)
            g.push(Action("melee", "matsu", target="masunagi"))
            pools = g.exchange_pools()
            g.push(Action("allocate", "matsu", attack=pools["matsu"], defence=0, special="gokusatsu-attack"))
            g.push(Action("allocate", "masunagi", attack=0, defence=pools["masunagi"], weapon="Nodachi")
                   if other != "ito-masunagi" else Action("allocate", "masunagi", attack=0, defence=pools["masunagi"]))
            ex = next(e for e in g.events if e.kind == "exchange")
            if not any("matsu attacks" in s and "attack hits" in s for s in ex.data["summary"]):
                continue
            hits += 1
            assert (sorted(ex.data["removed"]) == ["masunagi", "matsu"]) is expect_removed
            if not expect_removed:
                assert g.state.models["matsu"].alive and g.state.models["masunagi"].alive
        assert hits, other


def test_a_cavalry_move_before_the_shot_is_a_move_in_this_activation():
    """p.31: "Атакующая модель двигалась или будет двигаться в эту активацию +1"; p.50:
    "Кавалерия (Cavalry)(X"): до или после того, как эта модель выполнит какое-либо
    действие, она может пройти X"." A Cavalry move made before the Ranged Attack is a move
    in this activation: the shot takes the +1 (it took none)."""
    from models.profiles import Trait

    rider = _card("kokkio", "cavalry-kokkio-a5", traits=(Trait("cavalry", 2, None, 'Cavalry (2")'),))
    table = _table({"kokkio": rider})
    g = _game(table, 3)
    start = tuple(g.state.models["kokkio"].position)
    g.push(Action("cavalry", "kokkio", point=(start[0], start[1] - 1.0)))
    line = _tn_line(g.push(Action("shoot", "kokkio", target="masunagi")))
    assert "moved or will move this activation" in line
    h = _game(table, 3)
    assert "moved or will move" not in _tn_line(h.push(Action("shoot", "kokkio", target="masunagi")))
