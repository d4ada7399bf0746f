"""Ranged attacks and the weapon's card (p.30-32, p.45, p.48-59), through the Game:

* Reloading stops only weapons with Reload. Rulebook (seeds/000, p.45): "**Перезарядка
  (Reloading):** когда у модели есть маркеры Перезарядки, она не может использовать для
  стрельбы оружие со свойством Перезарядки." and step 1g (p.30): "Если у оружия есть
  свойство Перезарядка, проверьте, есть ли у него маркеры Перезарядки."
* Poison, Fire and Bleed on a ranged weapon place their markers when the shot wounds:
  "**Яд (Poison)(X/Y):** Каждый раз, когда эта модель наносит не-Бездушной модели раны в
  результате рукопашной или стрелковой атаки этим оружием, цель получает X маркеров Яд Y."
  "**Огонь (Fire)(X/Y):** Каждый раз, когда эта модель наносит раны с помощью этого
  оружия, цель получает X маркеров Огня Y." "**Кровотечение (Bleed)(X/Y):** Каждый раз,
  когда эта модель рукопашной или стрелковой атакой наносит урон Небездушной вражеской
  модели, цель получает X маркеров кровотечения Y." Immune [X] (p.53): "эта модель не
  может получать маркеры [Ключевое слово]"; Soulless (p.58): "имеет Иммунитет [Испуг,
  Отравление, Кровотечение]".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import set_active, set_model

YAML = """
format: bushido-table/1
name: card shots
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: archer, player: 1, profile: SHOOTER, position: [6, 12], facing: 0}
  - {id: ishi, player: 1, profile: ishi, position: [6, 4], facing: 0}
  - {id: foe, player: 2, profile: TARGET, position: [11, 12], facing: 180}
"""


def _card(base: str, new_id: str, bow_traits=None, traits=()):
    """A copy of the bundled card ``base`` as ``new_id``: its ranged weapon with
    ``bow_traits``, and ``traits`` added to the card."""
    card = get_profile(base)
    weapons = card.weapons
    if bow_traits is not None:
        weapons = tuple(replace(w, traits=tuple(bow_traits)) if w.kind == "ranged" else w for w in weapons)
    return replace(card, id=new_id, name=new_id, bs_id="test-" + new_id, weapons=weapons,
                   traits=tuple(card.traits) + tuple(traits))


def game(shooter: str = "ishi", target: str = "ito-masunagi", seed: int = 1, cards=()) -> Game:
    add_profile_source({c.id: c for c in cards})  # the conftest fixture removes it after the test
    g = Game(parse_table(YAML.replace("SHOOTER", shooter).replace("TARGET", target), "<test>"),
             seed=seed, length=("fixed", 2))
    set_active(g, 1)
    return g


# ------------------------------------------------------------------ Reloading (p.45)
def test_reloading_blocks_a_weapon_with_reload():
    g = game()
    set_model(g, "ishi", conditions={"reloading": 1})
    ok, why = g.is_legal(Action("shoot", "ishi", target="foe"))  # Bow: Lightweight, Reload (1)
    assert not ok and "Reload" in why


def test_reloading_does_not_block_a_weapon_without_reload():
    plain = _card("ishi", "ishi-plain-bow", bow_traits=("Lightweight",))
    g = game(shooter=plain.id, cards=[plain])
    set_model(g, "archer", conditions={"reloading": 1})
    ok, why = g.is_legal(Action("shoot", "archer", target="foe"))
    assert ok, why
    g.push(Action("shoot", "archer", target="foe"))
    shot = [ev for ev in g.events if ev.kind == "shot"][-1]
    assert "1g ammo/reload: the weapon may fire" in shot.data["summary"]
    assert g.state.models["archer"].conditions.get("reloading") == 1  # still there: no new marker
    assert g.replay().snapshot() == g.snapshot()


# ------------------------------------------------------------------ Poison, Fire, Bleed (p.48-59)
def _wounding_shot(shooter, target, cards) -> Game:
    """The first seed whose shot wounds the target (the dice are the game's own)."""
    for seed in range(200):
        g = game(shooter=shooter, target=target, seed=seed, cards=cards)
        g.push(Action("shoot", "archer", target="foe"))
        shot = [ev for ev in g.events if ev.kind == "shot"][-1]
        if shot.data.get("wounds", {}).get("foe", 0) > 0 and g.state.models["foe"].alive:
            return g
    raise AssertionError("no seed in 0..199 wounds the target")


@pytest.mark.parametrize("printed, kind, values", [
    ("Poison (2/1)", "poison", [1, 1]),
    ("Fire (1/2)", "fire", [2]),
    ("Bleed (1/3)", "bleed", [3]),
])
def test_a_wounding_shot_places_the_weapons_markers(printed, kind, values):
    bow = _card("ishi", "ishi-" + kind, bow_traits=(printed,))
    g = _wounding_shot(bow.id, "ito-masunagi", [bow])
    assert g.state.models["foe"].markers.get(kind) == values
    assert any(f"foe gains {len(values)} {kind} marker(s)" in line for line in g.log())
    assert g.replay().snapshot() == g.snapshot()


def test_a_missed_or_harmless_shot_places_no_marker():
    bow = _card("ishi", "ishi-poison", bow_traits=("Poison (2/1)",))
    for seed in range(40):
        g = game(shooter=bow.id, seed=seed, cards=[bow])
        g.push(Action("shoot", "archer", target="foe"))
        shot = [ev for ev in g.events if ev.kind == "shot"][-1]
        if not shot.data.get("wounds"):
            assert not g.state.models["foe"].markers.get("poison")
            return
    pytest.skip("every seed wounded")


def test_immune_keeps_the_markers_off():
    bow = _card("ishi", "ishi-poison", bow_traits=("Poison (2/1)",))
    immune = _card("ito-masunagi", "masunagi-immune", traits=(
        Trait(keyword="immune", value=None, qualifier="poison", text="Immune [Poison]"),))
    g = _wounding_shot(bow.id, immune.id, [bow, immune])
    assert not g.state.models["foe"].markers.get("poison")


def test_soulless_gets_no_poison_or_bleed_but_fire():
    bow = _card("ishi", "ishi-all", bow_traits=("Poison (1/1)", "Bleed (1/2)", "Fire (1/1)"))
    husk = _card("ito-masunagi", "masunagi-soulless",
                 traits=(Trait(keyword="soulless", value=None, qualifier=None, text="Soulless"),))
    g = _wounding_shot(bow.id, husk.id, [bow, husk])
    markers = g.state.models["foe"].markers
    assert not markers.get("poison") and not markers.get("bleed")
    assert markers.get("fire") == [1]
