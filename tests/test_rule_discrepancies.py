"""Discrepancies between the engine and the rulebook listed in issue 13 (helper H7),
each checked through the public :class:`~sim.rules.game.Game` API with the rulebook line
it restores: Stand Up in contact, Held released when the holder fights another model,
Blind and Disguised in the geometry, contact rules of the Melee action (p.24-25, p.33-36,
p.43-45)."""

from __future__ import annotations

import dataclasses

from sim.rules.game import Action, Game
from sim.table import load_table

TABLE = load_table()


def moved(table, **where):
    """``table`` with models placed: ``kenta=((x, y), facing)``."""
    models = tuple(dataclasses.replace(m, position=where[m.id][0], facing=where[m.id][1]) if m.id in where else m
                   for m in table.models)
    return dataclasses.replace(table, models=models, _scene=[])


def game(table, active: int = 1) -> Game:
    """A game on ``table`` whose first activation is ``active``'s."""
    for seed in range(40):
        g = Game(table, seed=seed, length=("fixed", 6))
        if g.state.active == active:
            return g
    raise AssertionError("no seed gives the player the first activation")


def touching(a: str, b: str, table=TABLE, angle: str = "north"):
    """``table`` with ``b`` placed in base contact with ``a`` (north or east of it), facing it."""
    ta, tb = table.model(a), table.model(b)
    r = ta.radius + tb.radius
    x, y = ta.position
    if angle == "north":
        return moved(table, **{a: (ta.position, 90.0), b: ((x, y + r), 270.0)})
    return moved(table, **{a: (ta.position, 0.0), b: ((x + r, y), 180.0)})


def test_standing_up_in_contact_starts_an_exchange_at_minus_one():
    # p.25: "Встать (Stand Up Action): ... Модель удаляет свой маркер «Сбита с ног» и может
    # изменить своё направление. После удаления маркера, если модель в контакте с врагом,
    # выполните Обмен ударами со штрафом -1 к пулу ближнего боя."
    g = game(touching("kenta", "masunagi"))
    g.gain_condition("kenta", "prone")
    before = g.exchange_pools()
    assert before == {}
    g.push(Action("stand_up", "kenta"))
    ex = g.state.exchange
    assert ex is not None and ex["attacker"] == "kenta" and ex["defender"] == "masunagi"
    pools = g.exchange_pools()
    # Kenta's Melee 4, -1 for standing up; Masunagi's Melee 4
    assert pools["kenta"] == pools["masunagi"] - 1
    assert "prone" not in g.state.models["kenta"].conditions


def test_standing_up_out_of_contact_is_no_exchange():
    g = game(TABLE)
    g.gain_condition("kenta", "prone")
    g.push(Action("stand_up", "kenta"))
    assert g.state.exchange is None


def test_standing_up_between_two_enemies_offers_the_choice():
    t = touching("kenta", "masunagi")
    t = touching("kenta", "ishi", table=t, angle="east")
    g = game(t)
    g.gain_condition("kenta", "prone")
    offered = {a.target for a in g.legal_actions() if a.model == "kenta"}
    assert offered == {"masunagi", "ishi"}
    ok, why = g.is_legal(Action("stand_up", "kenta", target="yatsumata"))
    assert not ok and "not an enemy in base contact" in why
    g.push(Action("stand_up", "kenta", target="ishi"))
    assert g.state.exchange is not None and g.state.exchange["defender"] == "ishi"


def _holder_fights_another(seed_pick=None):
    t = touching("masunagi", "kenta")
    t = touching("masunagi", "akira", table=t, angle="east")
    g = game(t)
    g.gain_condition("kenta", "held", value="masunagi")
    assert g.state.models["kenta"].conditions.get("held") == "masunagi"
    return g


def test_held_ends_when_the_holder_fights_another_model():
    # p.44: "Удалите маркер Удержания, когда: ... Удерживающая модель участвует в Обмене
    # ударами с другой моделью."
    g = _holder_fights_another()
    g.push(Action("melee", "akira", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions()))
    assert "held" not in g.state.models["kenta"].conditions
    assert any(e.kind == "note" and "no longer Held: masunagi fights another model" in e.data["text"]
               for e in g.events)
    assert g.replay().snapshot() == g.snapshot()


def test_held_stays_while_the_holder_fights_the_held_model():
    g = _holder_fights_another()
    g.push(Action("disengage", "kenta", target="masunagi"))
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions()))
    fought = [e for e in g.events if e.kind == "note" and "fights another model" in e.data["text"]]
    assert not fought


def _engaged_kenta(ishi_gap: float, side: str = "east"):
    """Kenta in contact with Masunagi (north of it); Ishi ``ishi_gap`` inches from
    Masunagi's base, east of it (or far north of Kenta)."""
    t = touching("masunagi", "kenta")
    m, i = t.model("masunagi"), t.model("ishi")
    x, y = m.position
    if side == "east":
        return moved(t, ishi=((x + m.radius + i.radius + ishi_gap, y), 180.0))
    k = t.model("kenta")
    return moved(t, ishi=((k.position[0], k.position[1] + k.radius + i.radius + ishi_gap), 270.0))


def test_a_model_in_contact_may_melee_another_enemy_only_around_the_first_ones_base():
    # p.24: "Модели, начинающие активацию в контакте с одной вражеской моделью, могут перед
    # Обменом ударами двигаться вокруг её базы, игнорируя ЗК других вражеских моделей. Они
    # могут входить в контакт с другой выбранной вражеской моделью как часть такого движения."
    g = game(_engaged_kenta(0.6))
    g.push(Action("melee", "kenta", target="ishi"))
    table = g.table_now()
    k = table.model("kenta")
    for other in ("masunagi", "ishi"):
        o = table.model(other)
        assert ((k.position[0] - o.position[0]) ** 2 + (k.position[1] - o.position[1]) ** 2) ** 0.5 \
            - k.radius - o.radius <= 0.05
    assert g.state.exchange is not None and g.state.exchange["defender"] == "ishi"


def test_a_model_in_contact_does_not_walk_away_from_its_enemy_to_melee_another():
    # p.24 (above) and Disengage: leaving contact takes a Disengage. Ishi 2" north of Kenta:
    # reachable in a straight line, but only by leaving Masunagi.
    g = game(_engaged_kenta(2.0, side="north"))
    assert not any(a.kind == "melee" and a.target == "ishi" for a in g.legal_actions())
    assert g.is_legal(Action("melee", "kenta", target="masunagi"))[0]
    # p.24 (audit A1): "Если модель, начинающая активацию в контакте с одной вражеской моделью,
    # пытается войти в контакт с другой вражеской моделью и не может этого сделать, она обязана
    # выполнить Обмен ударами с моделью, в контакте с которой она начинала."
    before = g.state.models["kenta"].position
    g.push(Action("melee", "kenta", target="ishi"))
    assert g.state.models["kenta"].position == before
    assert g.state.exchange is not None and g.state.exchange["defender"] == "masunagi"


def test_a_blind_model_sees_and_shoots_nothing_out_of_contact():
    # p.43: "Ослепление (Blind): если у модели есть маркер Ослепления, она не может проводить
    # линию видимости вне контакта ..."
    g = game(TABLE)
    assert g.table_now().scene().los("kokkio", "masunagi").visible
    g.gain_condition("kokkio", "blind")
    assert not g.table_now().scene().los("kokkio", "masunagi").visible
    ok, why = g.is_legal(Action("shoot", "kokkio", target="masunagi"))
    assert not ok


def test_a_disguised_models_zoc_may_be_ignored():
    # p.44 (Неузнаваемый, Disguised): enemies may ignore its ZoC
    # (docs/conditions-and-ki.md). Kenta walks past Masunagi's front, 0.5" from its base.
    m, k = TABLE.model("masunagi"), TABLE.model("kenta")
    x, y = 18.0, 4.0
    t = moved(TABLE, kenta=((x - 1.8, y + m.radius + k.radius + 0.5), 0.0), masunagi=((x, y), 90.0),
              akira=((2.0, 2.0), 0.0))
    walk = Action("walk", "kenta", point=(x + 1.8, y + m.radius + k.radius + 0.5))
    g = game(t)
    assert not g.is_legal(walk)[0]
    g.gain_condition("masunagi", "disguised", value=2)
    ok, why = g.is_legal(walk)
    assert ok, why
