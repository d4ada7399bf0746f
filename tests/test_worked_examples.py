"""Worked examples of the rulebook that no other test file plays (the list of every
example and its tests: :data:`sim.rules.conformance.data.EXAMPLES`, shown in
docs/conformance.md "Worked examples")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.card_keywords import keyword_matches, view_of
from sim.rules.dice import ScriptedDice
from sim.rules.game import Action, Game
from sim.rules.game.melee_traits import ranged_card_kwargs
from sim.rules.wounds import damage_roll
from sim.table import load_table

BSDATA = Path(__file__).resolve().parents[1].parent / "shared" / "bsdata"
needs_bsdata = pytest.mark.skipif(not BSDATA.is_dir(), reason="../shared/bsdata is not there")
TABLE = load_table()


@pytest.fixture(scope="module")
def cs():
    from models.bsdata import load_catalogues
    return load_catalogues(BSDATA)


@needs_bsdata
def test_aiko_has_the_types_of_her_card(cs):
    # p.11: "Пример: Айко; Unsuī, Монах, Shugenja* - это модель храма Рокана."
    aiko = cs.profile("Aiko").profile
    assert aiko.faction == "Temple of Ro-Kan"
    assert {"unsui", "monk", "shugenja"} <= set(aiko.types)
    for word in ("Monk", "Shugenja", "Unsui"):
        assert keyword_matches(word, view_of(aiko, friendly=True)) is True


@needs_bsdata
def test_kintaro_and_the_fishermen_are_both_fishermen(cs):
    # p.11: "И Кинтару, и Рыбаки Рокана являются моделями Рыбаков. Кинтару - потому что это
    # его Тип, Рыбак из Рокана - потому что это его наименование."
    kintaru = cs.profile("Kintaru").profile
    fishermen = [cp.profile for cp in cs.profiles if cp.profile.name.startswith("Fisherman")]
    assert "fisherman" in kintaru.types and fishermen
    assert all("fisherman" not in f.types for f in fishermen)  # by their name, not a type
    for card in [kintaru, *fishermen]:
        assert keyword_matches("Fisherman", view_of(card, friendly=True)) is True
    assert keyword_matches("Fisherman", view_of(cs.profile("Aiko").profile, friendly=True)) is False


def _akira_fights_masunagi(ki: int) -> Game:
    """Takashi Akira (Melee 4, Melee boost 3 Ki) in an exchange with Masunagi, ``ki`` Ki."""
    g = Game(TABLE, seed=1, length=("fixed", 3))
    pos = g.position()
    a, m = g.table_now().model("akira"), g.table_now().model("masunagi")
    pos["active"] = 1
    pos["models"]["akira"].update(position=[12.0, 12.0], facing=0.0, ki=ki, counters=2)
    pos["models"]["masunagi"].update(position=[12.0 + a.radius + m.radius, 12.0], facing=180.0, counters=2)
    pos["exchange"] = {"attacker": "akira", "defender": "masunagi", "charge": False}
    g.set_position(pos)
    return g


def test_hiro_boosts_his_melee_pool_and_may_split_five_dice_any_way():
    # p.33: "Хиро ... у него 4 куба рукопашной и он тратит 3 Ки, чтобы добавить еще один.
    # Теперь у него есть 5 кубиков ... Он может выбрать положить все 5 в атаку, 4 в атаку и 1
    # в защиту, 3 в атаку и 2 в защиту или любую другую комбинацию на общую сумму 5 кубов."
    # Akira has Hiro's numbers: Melee 4, +1 for 3 Ki.
    g = _akira_fights_masunagi(ki=3)
    assert g.profile("akira").melee == 4 and g.profile("akira").boost("melee") == 3
    pool = g.exchange_pools()["akira"]
    for k in range(pool + 2):
        ok, why = g.is_legal(Action("allocate", "akira", attack=k, defence=pool + 1 - k, boost=1))
        assert ok, why
    assert not g.is_legal(Action("allocate", "akira", attack=3, defence=3, boost=1))[0]  # 6 dice: one too many
    g.push(Action("allocate", "akira", attack=3, defence=pool + 1 - 3, boost=1))
    boost = next(e for e in g.events if e.kind == "boost")
    assert boost.data == {"model": "akira", "stat": "melee", "steps": 1, "cost": 3}
    assert g.state.models["akira"].ki == 0
    poor = _akira_fights_masunagi(ki=2)  # two Ki buy no die
    ok, why = poor.is_legal(Action("allocate", "akira", attack=3, defence=pool + 1 - 3, boost=1))
    assert not ok and "Ki" in why


def test_a_surprised_model_may_not_boost_its_ki_against_a_feat():
    # p.46: "Кенко захвачен врасплох и не может использовать свое Усиление показателя Ки,
    # чтобы защитит себя." A Surprised model buys no Ki boost (p.31, p.47).
    g = _akira_fights_masunagi(ki=3)
    pos = g.position()
    pos["models"]["akira"]["conditions"] = {"surprised": 1}
    g.set_position(pos)
    pool = g.exchange_pools()["akira"]
    ok, why = g.is_legal(Action("allocate", "akira", attack=pool + 1, defence=0, boost=1))
    assert not ok and "urprised" in why
    assert g.is_legal(Action("allocate", "akira", attack=pool, defence=0))[0]  # without the boost it may


def _kokkio_with(trait: Trait) -> Game:
    base = get_profile("kokkio") if TABLE.model("kokkio").profile == "kokkio" else get_profile(
        TABLE.model("kokkio").profile)
    cid = f"kokkio-{trait.keyword}-{trait.qualifier or 'any'}"
    card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}",
                               traits=base.traits + (trait,))
    add_profile_source({card.id: card}, key=("test_worked_examples", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == "kokkio" else m for m in TABLE.models)
    return Game(dataclasses.replace(TABLE, models=models, _scene=[]), seed=1, length=("fixed", 3))


def test_strong_melee_acts_on_melee_damage_only():
    # p.48: "Сильный [Рукопашная] применяет свойство Сильный только к броскам урона в
    # рукопашной. Любые другие броски урона делаются без изменений." Kokkio with Strong
    # [Melee] is Strong in an exchange, not when it shoots; with plain Strong it is both.
    g = _kokkio_with(Trait("strong", None, "melee", "Strong [Melee]"))
    w = g.ranged_weapon("kokkio", None)
    assert w is not None
    assert g.combatant("kokkio", True, False).effective_strong
    assert not ranged_card_kwargs(g, "kokkio", "ishi", w).get("strong")
    g2 = _kokkio_with(Trait("strong", None, None, "Strong"))
    assert g2.combatant("kokkio", True, False).effective_strong
    assert ranged_card_kwargs(g2, "kokkio", "ishi", w).get("strong") is True
    # Strong's damage roll: three dice, the two highest kept (p.58)
    roll = damage_roll(ScriptedDice([1, 5, 6]), strength=0, strong=True)
    assert sorted(roll.kept) == [5, 6] and roll.total == 11
