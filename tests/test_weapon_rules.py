"""Weapons and the traits that act on a model's actions (issue 13, helper H7), through the
public :class:`~sim.rules.game.Game` API: Slow, Stupid, Insignificant (p.54, p.58)."""

from __future__ import annotations

import dataclasses

from models.profiles import Trait, add_profile_source, get_profile
from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def with_traits(mid: str, *traits: str, table=TABLE):
    """``table`` with model ``mid``'s card given the printed ``traits`` (``"Slow"``)."""
    tm = table.model(mid)
    base = get_profile(tm.profile)
    extra = tuple(Trait(t.lower().replace(" ", "_"), None, None, t) for t in traits)
    card = dataclasses.replace(base, id=f"{base.id}-h7-{'-'.join(traits).lower()}", bs_id=None,
                               traits=base.traits + extra)
    add_profile_source({card.id: card}, key=("test_weapon_rules", card.id))
    models = tuple(dataclasses.replace(m, profile=card.id) if m.id == mid else m for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def _game(table, active: int = 1) -> Game:
    """A game on ``table`` whose first activation is ``active``'s (a seed where that
    player wins the Tactical test)."""
    for seed in range(40):
        g = Game(table, seed=seed, length=("fixed", 6))
        if g.state.active == active:
            return g
    raise AssertionError("no seed gives the player the first activation")


def test_slow_may_not_run_or_charge():
    # p.58: "Медленный (Slow): эта модель может не объявлять действия Бег и Нападение."
    g = _game(with_traits("kenta", "Slow"))
    offered = {a.kind for a in g.legal_actions() if a.model == "kenta"}
    assert "walk" in offered and not offered & {"run", "charge"}
    ok, why = g.is_legal(Action("run", "kenta", point=(21.5, 6.0)))
    assert not ok and "Slow" in why
    ok, why = g.is_legal(Action("charge", "kenta", target="yatsumata"))
    assert not ok and "Slow" in why
    assert g.is_legal(Action("walk", "kenta", point=(21.5, 8.0)))[0]
    plain = _game(TABLE)
    assert plain.is_legal(Action("run", "kenta", point=(21.5, 6.0)))[0]


def test_stupid_may_not_wait_disengage_scenario_or_complex():
    # p.58: "Тупой (Stupid): Эта модель не может объявлять Ожидание, Выход из боя, Сценарий
    # или любые Сложные Действия."
    g = _game(with_traits("kenta", "Stupid"))
    offered = {a.kind for a in g.legal_actions() if a.model == "kenta"}
    assert not offered & {"wait", "focus", "charge", "disengage", "complex_ki_feat", "complex_scenario"}
    for a in (Action("wait", "kenta"), Action("focus", "kenta"), Action("charge", "kenta", target="yatsumata")):
        ok, why = g.is_legal(a)
        assert not ok and "Stupid" in why
    assert g.is_legal(Action("run", "kenta", point=(21.5, 6.0)))[0]


def test_insignificant_takes_no_scenario_action():
    # p.54: "Незначительный (Insignificant): эта модель: ... Не может выполнять простые или
    # сложные действия Сценария."
    g = _game(with_traits("kenta", "Insignificant"))
    ok, why = g.is_legal(Action("scenario", "kenta", objective="centre"))
    assert not ok and "Insignificant" in why


def moved(table, **where):
    """``table`` with models placed: ``akira=((x, y), facing)``."""
    models = tuple(dataclasses.replace(m, position=where[m.id][0], facing=where[m.id][1]) if m.id in where else m
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def test_insignificant_gives_no_melee_support():
    # p.54: "Незначительный (Insignificant): эта модель: - Не может оказывать Поддержку в
    # рукопашной." Akira fights Masunagi with the Asp (Insignificant) also in contact: no -1.
    r = TABLE.model("akira").radius + TABLE.model("masunagi").radius
    table = moved(TABLE, akira=((12.0, 12.0), 90.0), masunagi=((12.0, 12.0 + r), 270.0),
                  asp=((12.0 + TABLE.model("akira").radius + TABLE.model("asp").radius, 12.0), 180.0))
    g = _game(table)
    assert g.melee_assists("akira", "masunagi") == 0
    plain = _game(moved(table, asp=((2.0, 22.0), 0.0), ishi=((12.0 + 2 * TABLE.model("akira").radius, 12.0), 180.0)))
    assert plain.melee_assists("akira", "masunagi") == 1
