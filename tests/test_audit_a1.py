"""Audit A1 of issue 13: Game Setup and Turn, Movement and Placement, Actions (p.20-26)
and the terms they use (p.4-9), checked through the public :class:`~sim.rules.game.Game`
API. Each test quotes the Russian rulebook line it holds the engine to."""

from __future__ import annotations

import dataclasses

from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def _at(g: Game | None = None, **models) -> Game:
    """A game on the default table, player 1 active in the Main phase, the given model
    entries of the position changed (``akira={"position": [x, y]}``)."""
    g = g or Game(TABLE, seed=1, length=("fixed", 3))
    pos = g.position()
    pos.update(phase="main", active=1)
    for mid, entry in models.items():
        pos["models"][mid].update(entry)
    g.set_position(pos)
    return g


def _touching() -> Game:
    """Akira (player 1) in base contact with Masunagi (player 2), facing each other."""
    r = TABLE.model("akira").radius + TABLE.model("masunagi").radius
    return _at(akira={"position": [12.0, 12.0], "facing": 90.0},
               masunagi={"position": [12.0, 12.0 + r], "facing": 270.0})


# ---------------------------------------------------------------- Actions (p.24)
def test_a_model_in_contact_may_not_charge_wait_or_focus():
    """p.24: "Модели в контакте с вражеской моделью не могут объявлять Действия или Умения
    Ки со значком"; p.48 (Agile): "Если не объявляет Выход из боя, Умение Ки, применимое в
    рукопашной, Вставание или Рукопашный бой - она должна выйти из контакта". Charge, Wait
    and Focus are refused in contact (a Charge would leave the enemy without a Disengage,
    or charge the enemy it already touches for +2 damage); Melee and Disengage stay."""
    g = _touching()
    for action in (Action("charge", "akira", target="nanako"), Action("charge", "akira", target="masunagi"),
                   Action("wait", "akira"), Action("focus", "akira")):
        ok, why = g.is_legal(action)
        assert not ok and "No BtB, p.24" in why, action
    assert g.is_legal(Action("melee", "akira", target="masunagi"))[0]
    assert g.is_legal(Action("disengage", "akira", target="masunagi"))[0]
    offered = {a.kind for a in g.legal_actions() if a.model == "akira"}
    assert not offered & {"charge", "wait", "focus"} and "melee" in offered


def test_out_of_contact_charge_wait_and_focus_stay_legal():
    g = _at()
    assert g.is_legal(Action("wait", "akira"))[0]
    assert g.is_legal(Action("focus", "akira"))[0]


def test_stand_up_may_turn_the_model():
    """p.25: "Встать (Stand Up Action): ... Модель удаляет свой маркер «Сбита с ног» и может
    изменить своё направление.\""""
    g = _at(akira={"conditions": {"prone": 1}, "facing": 90.0})
    g.push(Action("stand_up", "akira", facing=0.0))
    assert g.state.models["akira"].facing == 0.0
    assert "prone" not in g.state.models["akira"].conditions
    assert g.replay().snapshot() == g.snapshot()
    g.pop()
    assert g.state.models["akira"].facing == 90.0


def _card(mid: str, extra_traits=(), **changes):
    """The default table with model ``mid``'s card changed (traits added, fields replaced)."""
    from models.profiles import Trait, add_profile_source, get_profile
    base = get_profile(TABLE.model(mid).profile)
    traits = base.traits + tuple(Trait(k, None, None, k.title()) for k in extra_traits)
    cid = base.id + "-a1-" + "-".join(extra_traits) + "-" + "-".join(sorted(changes))
    card = dataclasses.replace(base, id=cid, bs_id=f"test-{cid}", traits=traits, **changes)
    add_profile_source({cid: card}, key=("test_audit_a1", cid))
    models = tuple(dataclasses.replace(m, profile=cid) if m.id == mid else m for m in TABLE.models)
    return dataclasses.replace(TABLE, models=models, _scene=[])


def test_a_model_that_can_declare_nothing_legal_becomes_exhausted():
    """p.24: "Если выбранная для активации модель не может легально объявить какие-либо
    действия (из-за состояний, свойств или иных игровых эффектов), тогда она немедленно
    становится Изнурённой." Akira, Held by Masunagi (only Disengage, Ki feats or Stand Up,
    p.44) and Aggressive (no Disengage, p.24), without Ki feats, can declare nothing: the
    declaration the game offers is refused and Akira loses both counters, not one."""
    table = _card("akira", ("aggressive",), feats=(), ki_feats=())
    r = TABLE.model("akira").radius + TABLE.model("masunagi").radius
    g = _at(Game(table, seed=1, length=("fixed", 3)),
            akira={"position": [12.0, 12.0], "facing": 90.0, "counters": 2, "conditions": {"held": "masunagi"}},
            masunagi={"position": [12.0, 12.0 + r], "facing": 270.0},
            **{m.id: {"counters": 0} for m in TABLE.models if m.player == 1 and m.id != "akira"})
    mine = [a for a in g.legal_actions() if a.model == "akira"]
    assert mine and not any(g.is_legal(a)[0] for a in mine)
    g.push(mine[0])
    assert g.state.models["akira"].counters == 0
    assert any("Exhausted" in line for line in g.log())


def test_an_illegal_declaration_with_other_choices_costs_one_counter():
    """p.24: "она возвращается в положение на момент заявления действия. Затем она теряет
    один счетчик активации, даже если заявленное действие было Сложным\""""
    g = _at(akira={"counters": 2})
    g.push(Action("charge", "akira", target="akira"))
    assert g.state.models["akira"].counters == 1


# ---------------------------------------------------------------- Place (p.23)
PLACE_FEATS = """
format: bushido-feat-effects/1
feats:
  A1 Blink:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: move, distance: 3, kind: place}], summary: the user is placed up to 3 inches away}
"""


def test_a_placed_model_ignores_what_lies_between_but_not_enemy_contact(tmp_path, monkeypatch):
    """p.23: "Размещение модели не считается движением. ... Она не имеет траектории движения
    и игнорирует ЗК, модели и местность между ней и конечным местоположением. Модель не может
    быть размещена в непроходимом элементе местности, внутри другой модели или в контакте с
    вражеской моделью. ... Игрок, размещающий модель, определяет Направление модели." A
    feat that places its user: across an enemy's ZoC is fine, in base contact with the enemy
    is refused; the player's facing is kept."""
    from models.profiles import add_profile_source, get_profile
    from sim.rules import feat_effects as fe

    path = tmp_path / "effects.yaml"
    path.write_text(PLACE_FEATS, encoding="utf-8")
    monkeypatch.setattr(fe, "DEFAULT_PATH", path)
    monkeypatch.setattr(fe, "CURATED_DIR", tmp_path / "curated")
    fe.reset_cache()
    try:
        base = get_profile(TABLE.model("akira").profile)
        card = dataclasses.replace(base, id="a1-blink", bs_id="test-a1-blink", feats=("A1 Blink",), ki_feats=())
        add_profile_source({card.id: card}, key=("test_audit_a1", card.id))
        table = dataclasses.replace(TABLE, models=tuple(dataclasses.replace(m, profile=card.id) if m.id == "akira"
                                                        else m for m in TABLE.models), _scene=[])
        r = TABLE.model("akira").radius + TABLE.model("masunagi").radius
        g = _at(Game(table, seed=1, length=("fixed", 3)), akira={"position": [12.0, 3.0], "facing": 90.0, "ki": 4},
                masunagi={"position": [12.0, 4.5], "facing": 270.0})
        touching = Action("feat", "akira", feat="A1 Blink", point=(12.0, 4.5 - r))
        ok, why = g.is_legal(touching)
        assert not ok and "contact with enemy masunagi" in why
        beyond = Action("feat", "akira", feat="A1 Blink", point=(12.0, 4.5 + r + 0.3), facing=270.0)
        assert g.is_legal(beyond) == (True, "")  # through Masunagi's base and ZoC: a place has no path
        g.push(beyond)
        st = g.state.models["akira"]
        assert st.position == (12.0, 4.5 + r + 0.3) and st.facing == 270.0
    finally:
        fe.reset_cache()


# ---------------------------------------------------------------- Wait (p.25)
def _bsdata():
    from pathlib import Path

    import pytest

    path = Path(__file__).resolve().parents[1].parent / "shared" / "bsdata"
    if not path.is_dir():
        pytest.skip("../shared/bsdata is not there")
    from sim.rules.setup import catalogues

    return catalogues(path)


def test_a_cards_wait_effect_is_offered_and_logged_as_a_manual_step():
    """p.25: Wait: "модель, выполняющая действие Ожидания, может выбрать один из следующих
    эффектов ... эффект, вызванный действием ожидания, указанный на карточке модели". Kuren's
    catalogue card has such an effect; the game offers it as a Wait option and logs its text
    for the players (the engine cannot read free text), never skips it."""
    cs = _bsdata()
    prof = next(p.profile for p in cs.profiles if p.profile.id == "kuren")
    effect = next(e for e in prof.unique_effects if "Wait Action" in e.text)
    table = dataclasses.replace(TABLE, models=tuple(dataclasses.replace(m, profile=prof.id) if m.id == "akira"
                                                    else m for m in TABLE.models), _scene=[])
    g = _at(Game(table, seed=1, length=("fixed", 3)))
    a = Action("wait", "akira", special="card:" + effect.name)
    assert a in g.legal_actions()
    assert not g.is_legal(Action("wait", "akira", special="card:No Such Effect"))[0]
    evs = g.push(a)
    step = next(e for e in evs if e.kind == "manual_step")
    assert step.data["source"] == effect.name and effect.text in step.data["text"]
    assert g.state.models["akira"].counters == 1
    assert any("MANUAL STEP" in line for line in g.log())


def test_each_own_marker_option_of_wait_is_offered_and_a_missing_one_refused():
    """p.25: "может выбрать один из следующих эффектов ... - Удалить все маркеры «Оглушен» -
    Удалить все маркеры «Обездвижен» ..." A model both Stunned and Immobilised is offered
    both options; the one chosen goes, the other stays; an option for a marker it does not
    have is refused."""
    g = _at(akira={"conditions": {"stunned": 1, "immobilised": 1}})
    offered = {a.special for a in g.legal_actions() if a.model == "akira" and a.kind == "wait"}
    assert {"stunned", "immobilised"} <= offered
    assert not g.is_legal(Action("wait", "akira", special="reloading"))[0]
    g.push(Action("wait", "akira", special="immobilised"))
    conds = g.state.models["akira"].conditions
    assert "immobilised" not in conds and "stunned" in conds


# ---------------------------------------------------------------- Run (p.22)
def test_a_run_takes_no_other_facing_than_towards_its_point():
    """p.22: "Модель может выбрать точку в пределах своей зоны видимости и повернуться лицом к
    этой точке. ... Модель не может ... изменить своё направление после бега." A Run declared
    with another facing is refused (before, the facing was silently dropped)."""
    g = _at(akira={"position": [22.5, 6.0], "facing": 270.0})
    ok, why = g.is_legal(Action("run", "akira", point=(22.5, 1.5), facing=0.0))
    assert not ok and "p.22" in why
    assert g.is_legal(Action("run", "akira", point=(22.5, 1.5), facing=270.0))[0]
    g.push(Action("run", "akira", point=(22.5, 1.5)))
    assert g.state.models["akira"].facing == 270.0
