"""Melee wounds and the target's card (issue #13): a weapon's Poison, Fire and Bleed
markers are kept off a model that is Immune to them or Soulless.

Rulebook (seeds/000): Immune [X] (p.53): "эта модель не может получать маркеры
[Ключевое слово]"; Soulless (p.58): "имеет Иммунитет [Испуг, Отравление, Кровотечение]";
Poison (p.56): "Каждый раз, когда эта модель наносит не-Бездушной модели раны в
результате рукопашной или стрелковой атаки этим оружием, цель получает X маркеров Яд Y."
The exchange is the rulebook's worked example (p.35), where Chiyo's Poison (1/1) katana
wounds Aya (tests/test_melee.py::test_aya_and_chiyo_worked_example).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.profiles import Trait, get_profile
from sim.rules.dice import PhysicalDice
from sim.rules.melee import Allocation, Combatant, MeleeWeapon, combatant_from_profile, resolve_exchange

VALUES = [4, 2, 5, 5, 3, 4, 3, 4, 6, 5]  # the worked example's dice (test_melee.py)


def _exchange(aya_immune=frozenset()):
    aya = Combatant("aya", 3, active=True, armour=3, endurance=True, immune=aya_immune,
                    weapon=MeleeWeapon.of("Tetsubo", 2, (), ["Push Attack (0)", "Sweep Attack (1)",
                                                             "Powerful Attack (1)"]))
    chiyo = Combatant("chiyo", 3, wounds_left=5,
                      weapon=MeleeWeapon.of("Katana", 0, ["Poison (1/1)"], (), ["Sidestep Defence (0)"]))
    return resolve_exchange(aya, chiyo, Allocation(2, 1), Allocation(2, 1, "Sidestep Defence"),
                            PhysicalDice(list(VALUES)))


def test_a_melee_wound_places_poison_on_a_model_without_immunity():
    r = _exchange()
    assert r.wounds["aya"] == 1
    assert [(m.target, m.kind, m.count, m.value) for m in r.markers] == [("aya", "poison", 1, 1)]


@pytest.mark.parametrize("immune", [{"Poisoned"}, {"poison"}, {"poisoned", "bleed"}])
def test_a_melee_wound_places_no_poison_on_a_model_immune_to_it(immune):
    r = _exchange(frozenset(immune))
    assert r.wounds["aya"] == 1  # still wounded: only the markers are kept off
    assert r.markers == [] or all(m.kind != "poison" for m in r.markers)


def test_a_soulless_card_is_immune_to_poison_and_bleed_in_melee():
    card = get_profile("ishi")
    soulless = replace(card, traits=tuple(card.traits) + (Trait("soulless", None, None, "Soulless"),))
    c = combatant_from_profile(soulless)
    assert {"poisoned", "bleed"} <= c.immune
    plain = combatant_from_profile(card)
    assert "poisoned" not in plain.immune
