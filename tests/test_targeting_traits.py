"""Targeting, protection and set-up traits through the Game (rulebook "Traits" p.48-59):
Camouflage, Bodyguard, Sacrifice, Protected, Scout, Flank, Disguise, and the catalogue
traits Kumo and In Defiance of the Gods.

Camouflage (seeds/000, p.50): "**Маскировка (Camouflage)(X"): в начале активации вражеской
модели если эта модель получает эффект от укрытия, вражеская модель не может указывать её
целью или входить в контакт, если в начале активации не находилась в пределах X".**"
Sixth Sense (p.57): "... игнорируют свойство Маскировка ...".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from tests.conftest import make_table, set_active

CAMO = Trait("camouflage", None, None, 'Camouflage (2")', 2.0)
SIXTH = Trait("sixth_sense", None, None, "Sixth Sense", None)
HEDGE = {"id": "hedge", "rect": {"center": [12, 14.0], "width": 4, "depth": 0.4},
         "passage": "normal", "visibility": "obscuring", "size": "small"}


def card(base: str, new_id: str, traits=()):
    """A copy of the bundled card ``base`` as ``new_id`` with ``traits`` added."""
    c = get_profile(base)
    return replace(c, id=new_id, name=new_id, bs_id="test-" + new_id, traits=tuple(c.traits) + tuple(traits))


def camo_game(models, cards=(), seed: int = 1) -> Game:
    """A game on a 24" table with an Obscuring hedge at y = 14 (x 10..14); player 1 active."""
    add_profile_source({c.id: c for c in cards})  # the conftest fixture removes it after the test
    g = Game(make_table(models, terrain=[HEDGE]), seed=seed, length=("fixed", 2))
    set_active(g, 1)
    return g


# ------------------------------------------------------------------ Camouflage (p.50)
def _example(shooter="kokkio"):
    """The rulebook's example: A (Camouflage 2") behind the hedge; B far, behind the hedge
    from A; C within 2" of A; D far, to A's side (no cover from D)."""
    a = card("ton", "camo-ton", [CAMO])
    models = [
        {"id": "A", "player": 2, "profile": a.id, "position": [12, 15.2], "facing": 270},
        {"id": "B", "player": 1, "profile": shooter, "position": [12, 6], "facing": 90},
        {"id": "C", "player": 1, "profile": shooter, "position": [12, 12.4], "facing": 90},
        {"id": "D", "player": 1, "profile": shooter, "position": [21, 15.2], "facing": 180},
    ]
    return camo_game(models, cards=[a])


def test_camouflage_rulebook_example():
    """p.50, Пример: "Модель В начинает более чем в 2" от модели А и поэтому не может
    указывать Целью модель А, даже если приходит в 2" к ней. Модель С находится в пределах
    2", поэтому можно указать Целью модель А. Модель D более чем на 2" удалена от модели А,
    но модель А не имеет укрытия от модели D, поэтому модель D может выбрать целью модель А."""
    g = _example()
    scene = g.table_now().scene()
    assert scene.cover("B", "A").cover and scene.cover("C", "A").cover and not scene.cover("D", "A").cover
    assert scene.distance("C", "A") <= 2.0 < scene.distance("B", "A")
    ok, why = g.is_legal(Action("shoot", "B", target="A"))
    assert not ok and "Camouflage" in why and "p.50" in why
    # B Walks first to within 2" of A: still refused, it started its activation farther away
    ok, why = g.is_legal(Action("shoot", "B", target="A", walk="before", point=(12, 10.5)))
    assert not ok and "Camouflage" in why
    # Charge and Melee (contact) refused too
    assert "Camouflage" in g.is_legal(Action("charge", "B", target="A"))[1]
    assert not g.is_legal(Action("melee", "B", target="A"))[0]
    # C starts within 2": no Camouflage reason (it may target A)
    assert "Camouflage" not in g.is_legal(Action("shoot", "C", target="A"))[1]
    assert "Camouflage" not in g.is_legal(Action("melee", "C", target="A"))[1]
    # D: A has no cover from D
    assert g.is_legal(Action("shoot", "D", target="A"))[0]


def test_camouflage_keeps_the_refused_actions_out_of_the_offers():
    """The offered actions never target a camouflaged model the rule protects (p.50)."""
    g = _example()
    offered = g.legal_actions()
    assert not [a for a in offered if a.model == "B" and a.target == "A"]
    assert [a for a in offered if a.model == "D" and a.target == "A" and a.kind == "shoot"]


def test_sixth_sense_ignores_camouflage():
    """p.57: "**Шестое чувство (Sixth Sense):** модели с этим свойством ... игнорируют
    свойство Маскировка"."""
    seer = card("kokkio", "seer-kokkio", [SIXTH])
    add_profile_source({seer.id: seer})
    g = _example(shooter=seer.id)
    assert g.is_legal(Action("shoot", "B", target="A"))[0]


def test_camouflage_is_judged_at_the_start_of_each_activation():
    """The distance is measured when the enemy declares (the start of its activation):
    a shot refused from 8" away is allowed once the shooter starts an activation within 2"."""
    g = _example()
    assert not g.is_legal(Action("shoot", "B", target="A"))[0]
    pos = g.position()
    pos["models"]["B"]["position"] = [13.5, 12.4]
    g.set_position(pos)
    assert "Camouflage" not in g.is_legal(Action("shoot", "B", target="A"))[1]


@pytest.mark.parametrize("base", ["ton"])
def test_camouflage_without_cover_does_nothing(base):
    """No hedge between: A has no cover, the rule does not act (p.50: "если эта модель
    получает эффект от укрытия")."""
    a = card(base, "camo-open", [CAMO])
    add_profile_source({a.id: a})
    g = Game(make_table([{"id": "A", "player": 2, "profile": a.id, "position": [12, 15.2], "facing": 270},
                         {"id": "B", "player": 1, "profile": "kokkio", "position": [12, 6], "facing": 90}]),
             seed=1, length=("fixed", 2))
    set_active(g, 1)
    assert g.is_legal(Action("shoot", "B", target="A"))[0]


# ------------------------------------------------------------------ the start of the game
DISGUISE_3 = Trait("disguise", 3, None, "Disguise (3)", None)
KUMO = Trait("kumo", None, None, "Kumo", None)


def _two(a_card, b_card="kokkio", a_pos=(12, 16), b_pos=(12, 6)):
    return make_table([{"id": "A", "player": 2, "profile": a_card, "position": list(a_pos), "facing": 270},
                       {"id": "B", "player": 1, "profile": b_card, "position": list(b_pos), "facing": 90}])


def test_disguise_starts_the_game_disguised():
    """p.51: "**Неузнаваемый (Disguise)(X):** эта модель начинает игру с маркером
    Неузнаваемый (X)." """
    a = card("ton", "disguised-ton", [DISGUISE_3])
    add_profile_source({a.id: a})
    g = Game(_two(a.id), seed=1, length=("fixed", 2))
    assert g.state.models["A"].conditions.get("disguised") == 3
    assert any("Disguised (3)" in line for line in g.log())
    assert g.replay().snapshot() == g.snapshot()


def test_kumo_begins_the_game_with_two_ki_tokens():
    """Catalogue trait Kumo (Library-Traits): the model begins the game with 2 Ki tokens
    (then generates Ki in the Starting phase as usual, p.20)."""
    a = card("ton", "kumo-ton", [KUMO])
    add_profile_source({a.id: a})
    plain = Game(_two("ton"), seed=1, length=("fixed", 2)).state.models["A"].ki
    g = Game(_two(a.id), seed=1, length=("fixed", 2))
    assert g.state.models["A"].ki == min(plain + 2, g.state.models["A"].ki_limit)


# ------------------------------------------------------------------ Flank in play (p.52)
def test_a_model_flanked_out_in_play_returns_on_its_noted_turn_with_two_counters():
    """p.52: "Если модель получает Фланговый обход в течение игры или удаляется и
    возвращается в игру, используя правила Флангового обхода, вы сразу же отмечаете любой
    ход (не только 2, 3 или 4) и край этой модели ... Модели генерируют два счетчика
    активации, когда они выставлены с фланга." """
    t = make_table([{"id": "A", "player": 2, "profile": "ton", "position": [12, 16], "facing": 270},
                    {"id": "A2", "player": 2, "profile": "ton", "position": [16, 16], "facing": 270},
                    {"id": "B", "player": 1, "profile": "kokkio", "position": [12, 6], "facing": 90}])
    g = Game(t, seed=1, length=("fixed", 4))
    from sim.rules.game import GameError
    with pytest.raises(GameError):
        g.flank_out("A", 1, "north")       # not a later turn
    g.flank_out("A", 2, "north")
    a = g.state.models["A"]
    assert not a.alive and a.elsewhere["turn"] == 2 and not a.killed
    while g.state.turn < 2 and not g.is_over():
        g.push(next(x for x in g.legal_actions() if x.kind in ("pass", "wait")))
    assert g.due_arrivals() == ["A"]
    arrive = next(x for x in g.legal_actions() if x.kind == "arrive")
    g.push(arrive)
    assert g.state.models["A"].alive and g.state.models["A"].counters == 2


def _kumo_exchange(seed: int):
    """Kumo model K (player 1, 1 damage, 0 Ki) attacks E in contact; the exchange is played
    with each side's first offered allocation. Returns the game."""
    k = card("kazuha", "kumo-kazuha", [KUMO])
    add_profile_source({k.id: k})
    t = make_table([{"id": "K", "player": 1, "profile": k.id, "position": [12, 10], "facing": 90},
                    {"id": "E", "player": 2, "profile": "ton", "position": [12, 11.19], "facing": 270}])
    g = Game(t, seed=seed, length=("fixed", 2))
    set_active(g, 1)
    pos = g.position()
    pos["models"]["K"].update(damage=1, ki=0)
    g.set_position(pos)
    g.push(Action("melee", "K", target="E"))
    while g.state.exchange is not None:
        g.push(max(g.legal_actions(), key=lambda a: (a.attack or 0)))
    return g


def test_kumo_gains_the_enemys_ki_and_heals_when_it_deals_melee_damage():
    """Catalogue trait Kumo (Library-Traits; in our words): melee damage it deals gains
    it Ki equal to the enemy's Ki statistic and heals one of its wounds."""
    for seed in range(1, 40):
        g = _kumo_exchange(seed)
        e, k = g.state.models["E"], g.state.models["K"]
        if e.damage > 0 and k.alive:
            assert k.ki == min(e.ki_stat, k.ki_limit)
            assert k.damage == 0
            assert any("Kumo" in line for line in g.log())
            assert g.replay().snapshot() == g.snapshot()
            return
    pytest.fail("no seed made the Kumo model deal damage")


def test_shots_at_a_kumo_model_ignore_its_size():
    """Kumo (in our words): shots at it take no Size modifier (a Medium model is shot at
    without its -1)."""
    from sim.rules.ranged import TargetInfo
    from sim.rules.ranged.modifiers import modifiers_from_geometry
    t = make_table([{"id": "A", "player": 2, "base": 50, "size": "medium", "position": [12, 16], "facing": 270},
                    {"id": "B", "player": 1, "position": [12, 6], "facing": 90}])
    scene = t.scene()
    plain = modifiers_from_geometry(scene, "B", "A", target=TargetInfo.from_traits([]))
    kumo = modifiers_from_geometry(scene, "B", "A", target=TargetInfo.from_traits(["Kumo"]))
    assert plain.target_size.label.lower() == "medium" and kumo.target_size.label.lower() == "small"


# ------------------------------------------------------------------ Bodyguard [K] (X") (p.49)
BODYGUARD = Trait("bodyguard", None, "samurai", 'Bodyguard [Samurai] (3")', 3.0)


def test_bodyguard_rulebook_example_offers_the_swap():
    """p.49, Пример: "Модель A имеет свойство Телохранитель. Модель B объявляет действие
    дальней атаки. Если целью является модель C, то модель A может использовать
    «Телохранитель»." The conditions: "дружественная модель находится в пределах X" и в
    зоне видимости ... эта модель не в контакте с вражеской моделью - эта модель не
    изнурена и не сбита с ног". The swap is the target's player's choice, offered as an
    answer (``Action("bodyguard", ...)``)."""
    a = card("ton", "guard-ton", [BODYGUARD])
    assert "samurai" in get_profile("takashi-kenta").types
    add_profile_source({a.id: a})
    t = make_table([{"id": "A", "player": 2, "profile": a.id, "position": [14, 16], "facing": 180},
                    {"id": "C", "player": 2, "profile": "takashi-kenta", "position": [12, 16], "facing": 270},
                    {"id": "far", "player": 2, "profile": "takashi-akira", "position": [22, 22], "facing": 270},
                    {"id": "B", "player": 1, "profile": "kokkio", "position": [12, 6], "facing": 90}])
    g = Game(t, seed=1, length=("fixed", 2))
    set_active(g, 1)
    assert g.bodyguards("C") == ["A"] and g.bodyguards("far") == []
    g.push(Action("shoot", "B", target="C"))  # the swap is offered to the target's player (H13)
    assert g.to_move() == 2 and Action("bodyguard", "C", target="A") in g.legal_actions()
    assert any("Bodyguard (p.49): A may swap places with C" in line for line in g.log())
    pos = g.position()
    pos["models"]["A"]["conditions"] = {"prone": 1}
    g.set_position(pos)
    assert g.bodyguards("C") == []          # "не сбита с ног"
