"""Traits that move Ki and give other models actions (issue 13): Leech, Channel, Virtue,
Order, Command, Believer and Disturb Flow, through the public :class:`~sim.rules.game.Game`
API (legal_actions, is_legal, push, events). Each test quotes the rulebook line it checks
(the Russian rulebook, seed 000)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from models.bsdata.traittext import parse_trait
from models.profiles import add_profile_source, get_profile
from sim.rules.game import Action, Game, GameError
from sim.table import load_table

TABLE = load_table()
_ids = itertools.count()


def _table(traits: dict[str, list[str]] | None = None, types: dict[str, tuple[str, ...]] | None = None):
    """The default table with cards changed: ``traits`` added, ``types`` replaced."""
    traits, types = traits or {}, types or {}
    models = []
    for m in TABLE.models:
        if m.id in traits or m.id in types:
            base = get_profile(m.profile)
            n = next(_ids)
            card = dataclasses.replace(base, id=f"{base.id}-h4-{n}", bs_id=f"test-h4-{n}",
                                       traits=base.traits + tuple(parse_trait(t) for t in traits.get(m.id, ())),
                                       types=types.get(m.id, base.types))
            add_profile_source({card.id: card}, key=("test_support_traits", card.id))
            m = dataclasses.replace(m, profile=card.id)
        models.append(m)
    return dataclasses.replace(TABLE, models=tuple(models), _scene=[])


def _game(table, active: int = 1, at: dict | None = None, **model_fields) -> Game:
    """A game on ``table`` in turn 1's Main phase, ``active`` to act, every model with two
    counters; ``at`` moves models (``{id: (x, y)}``); ``model_fields`` update entries
    (``akira={"ki": 3}``)."""
    g = Game(table, seed=3, length=("fixed", 3))
    pos = g.position()
    pos["active"] = active
    for mid, e in pos["models"].items():
        e["counters"] = 2
    for mid, xy in (at or {}).items():
        pos["models"][mid]["position"] = list(xy)
    for mid, fields in model_fields.items():
        pos["models"][mid].update(fields)
    g.set_position(pos)
    return g


# ---------------------------------------------------------------- Leech, Channel
def test_leech_takes_ki_from_friends_in_range_once_a_turn_without_a_counter():
    # p.54: "Пивак (Leech)(X/Y): один раз за ход во время активации этой модели она может
    # удалить до X жетонов Ки с любой дружественной модели (моделей) в пределах Y" и
    # добавить их себе. Это не может привести к превышению максимального значения Ки."
    g = _game(_table({"akira": ['Leech (2/4")']}), akira={"ki": 1}, ton={"ki": 3}, kokkio={"ki": 2},
              at={"ton": (14.0, 12.0), "kokkio": (12.0, 14.5), "kenta": (21.5, 10.0)})
    offered = [a for a in g.legal_actions() if a.kind == "leech"]
    assert offered and all(len(a.models) <= 2 for a in offered)
    assert not g.is_legal(Action("leech", "akira", models=("kenta",)))[0]  # beyond 4"
    assert "at most 2" in g.is_legal(Action("leech", "akira", models=("ton", "ton", "kokkio")))[1]
    g.push(Action("leech", "akira", models=("ton", "kokkio")))
    st = g.state
    assert (st.models["akira"].ki, st.models["ton"].ki, st.models["kokkio"].ki) == (3, 2, 1)
    assert st.models["akira"].counters == 2 and st.active == 1  # a free step of its activation
    assert "akira uses Leech: takes 2 Ki" in "\n".join(g.log())
    ok, why = g.is_legal(Action("leech", "akira", models=("ton",)))
    assert not ok and "once a turn" in why
    g.pop()
    assert g.state.models["akira"].ki == 1


def test_after_a_leech_step_that_model_declares_its_action_before_any_other():
    # p.54: Leech acts "во время активации этой модели": the step belongs to its
    # activation, so the next action of its player is that model's.
    g = _game(_table({"akira": ['Leech (2/4")']}), akira={"ki": 1}, ton={"ki": 3}, at={"ton": (14.0, 12.0)})
    g.push(Action("leech", "akira", models=("ton",)))
    assert "has begun its activation" in g.is_legal(Action("wait", "kenta"))[1]
    assert not g.is_legal(Action("pass"))[0]
    assert {a.model for a in g.legal_actions()} == {"akira"}
    g.push(Action("wait", "akira"))
    assert "activating" not in g.state.models["akira"].conditions and g.state.active == 2


def test_leech_never_goes_above_the_ki_limit():
    g = _game(_table({"akira": ['Leech (2/4")']}), akira={"ki": 7}, ton={"ki": 3}, at={"ton": (14.0, 12.0)})
    ok, why = g.is_legal(Action("leech", "akira", models=("ton", "ton")))
    assert not ok and "Ki limit" in why
    assert g.is_legal(Action("leech", "akira", models=("ton",)))[0]


def test_channel_gives_its_own_ki_to_friends_in_range():
    # p.50: "Канал (Channel)(X/Y"): один раз за ход во время активации этой модели она может
    # удалить до X своих жетонов Ки. Затем контролирующий игрок выбирает любую дружественную
    # модель (модели) в пределах Y", чтобы распределить эти жетоны Ки."
    g = _game(_table({"ton": ['Channel (4/4")']}), ton={"ki": 4}, akira={"ki": 0}, kenta={"ki": 0},
              at={"ton": (14.0, 12.0), "kenta": (17.0, 12.0)})
    g.push(Action("channel", "ton", models=("akira", "akira", "kenta")))
    st = g.state
    assert (st.models["ton"].ki, st.models["akira"].ki, st.models["kenta"].ki) == (1, 2, 1)
    assert st.models["ton"].counters == 2 and st.active == 1
    assert not g.is_legal(Action("channel", "ton", models=("akira",)))[0]  # once a turn
    with pytest.raises(GameError):
        g.push(Action("channel", "ton", models=("akira",)))


def test_channel_and_leech_only_by_the_active_players_model_that_may_activate():
    g = _game(_table({"ton": ['Channel (4/4")']}), active=2, ton={"ki": 4}, at={"ton": (14.0, 12.0)})
    assert not g.is_legal(Action("channel", "ton", models=("akira",)))[0]
    g = _game(_table({"ton": ['Channel (4/4")']}), ton={"ki": 4, "counters": 0}, at={"ton": (14.0, 12.0)})
    ok, why = g.is_legal(Action("channel", "ton", models=("akira",)))
    assert not ok and "Exhausted" in why


# ---------------------------------------------------------------- Virtue (p.59, p.5)
def test_virtue_gives_one_token_to_a_faction_model_and_spending_it_is_a_manual_step():
    # p.59: "один раз за ход во время активации этой модели она может дать указанной
    # дружественной не-Бездушной, не-Незначительной модели фракции в X" жетон Доблести.
    # Модель может иметь только один жетон Доблести в любой момент. Модель может потратить
    # жетон Доблести в любое время, когда она может использовать мгновенные Умения Ки."
    # p.5 (the worked example): Kenzo Ito holds a Virtue token and spends it whenever he
    # could use an Instant Ki feat, choosing an ability on a card of his warband.
    g = _game(_table({"kaihime": ['Virtue (6")']}), active=2,
              at={"kaihime": (15.5, 20.5), "nanako": (17.0, 18.0), "asp": (13.0, 20.5), "yatsumata": (18.0, 21.5)})
    assert "Insignificant" in g.is_legal(Action("virtue", "kaihime", target="asp"))[1]
    assert "Soulless" in g.is_legal(Action("virtue", "kaihime", target="yatsumata"))[1]
    assert Action("virtue", "kaihime", target="nanako") in g.legal_actions()
    g.push(Action("virtue", "kaihime", target="nanako"))
    assert "virtue_token" in g.state.models["nanako"].conditions
    assert g.state.models["kaihime"].counters == 2 and g.state.active == 2
    assert "once a turn" in g.is_legal(Action("virtue", "kaihime", target="ishi"))[1]
    assert Action("spend_virtue", "nanako") in g.legal_actions()
    g.push(Action("spend_virtue", "nanako"))
    assert "virtue_token" not in g.state.models["nanako"].conditions
    assert "manual step" in g.log()[-1] and "(p.5)" in g.log()[-1]


def test_a_model_holds_one_virtue_token_at_a_time():
    g = _game(_table({"kaihime": ['Virtue (6")']}), active=2, at={"nanako": (17.0, 18.0)},
              nanako={"conditions": {"virtue_token": 1}})
    ok, why = g.is_legal(Action("virtue", "kaihime", target="nanako"))
    assert not ok and "already holds" in why


# ---------------------------------------------------------------- Order (p.55)
def test_order_gives_nominated_friends_an_activation_counter_each():
    # p.55: "Приказ (Order) [Ключевое слово] (X/Y): эта модель может объявить сложное
    # действие «Приказ»: эта модель немедленно назначает X других дружественных [Ключевое
    # слово] моделей в пределах Y". Эти модели получают по одному счетчику активации."
    g = _game(_table({"kenta": ['Order [Samurai] (2/8")']}), kenta={"counters": 2}, akira={"counters": 0},
              at={"kenta": (16.0, 12.0), "matsu": (10.0, 12.0)})
    assert "not a samurai" in g.is_legal(Action("order", "kenta", models=("ton",)))[1]
    assert "at most 2" in g.is_legal(Action("order", "kenta", models=("akira", "matsu", "kokkio")))[1]
    g.push(Action("order", "kenta", models=("akira", "matsu")))
    st = g.state
    assert st.models["kenta"].counters == 0  # a Complex action
    assert st.models["akira"].counters == 1 and st.models["matsu"].counters == 3  # Exhausted akira too
    assert "akira gains 1 activation counter(s) (kenta's Order, p.55)" in "\n".join(g.log())


# ---------------------------------------------------------------- Command (p.50, p.24)
def _finish_exchange(g: Game) -> None:
    while g.state.exchange is not None:
        g.push(g.legal_actions()[0])


def test_command_worked_example_two_spearmen_declare_melee_and_each_loses_a_counter():
    # p.24: "Пример: Кацумото использует свое свойство Команда на двух Копейщиков. Оба
    # Копейщика объявляют действие Рукопашный бой. Поскольку Команда оговаривает Простое
    # действие, Копейщик теряет счетчик активации."
    # p.50: "Модель назначает и активирует до X других не Изнуренных дружественных
    # [Ключевое слово] моделей в пределах Y дюймов. Каждая из этих моделей выполняет простое
    # базовое действие. Порядок, в котором активируются модели, выбирается контролирующим
    # эту модель, после того как каждое действие отыграно, удалите счетчик активации с
    # активной модели."
    table = _table({"akira": ['Command [Ashigaru] (2/8")']}, types={"ton": ("ashigaru", "unique")})
    g = _game(table, at={"akira": (12.0, 10.0), "kokkio": (10.0, 12.0), "ton": (14.0, 12.0),
                         "ishi": (10.0, 14.0), "masunagi": (14.0, 14.5)})
    assert Action("command", "akira", models=("kokkio", "ton")) in g.legal_actions()
    g.push(Action("command", "akira", models=("kokkio", "ton")))
    st = g.state
    assert st.models["akira"].counters == 1 and st.active == 1  # Simple; its player goes on
    assert set(g.commanded()) == {"kokkio", "ton"}
    assert {a.model for a in g.legal_actions()} == {"kokkio", "ton"}
    assert "Command is being carried out" in g.is_legal(Action("walk", "kenta", point=(21.5, 11.0)))[1]
    assert not g.is_legal(Action("pass"))[0]
    assert not g.is_legal(Action("focus", "kokkio"))[0]  # Focus is Complex
    g.push(Action("melee", "ton", target="masunagi"))  # the order is the player's
    _finish_exchange(g)
    assert st.models["ton"].counters == 1 and g.commanded() == ["kokkio"] and g.state.active == 1
    g.push(Action("melee", "kokkio", target="ishi"))
    _finish_exchange(g)
    st = g.state
    assert st.models["kokkio"].counters == 1 and g.commanded() == []
    assert st.active == 2  # the Command is over: the other player is active
    assert "akira commands kokkio, ton" in "\n".join(g.log())


def test_command_nominates_only_non_exhausted_keyword_models_in_range_and_a_group_whole():
    # p.50: "Если выбрана модель со свойством Группа, вы должны выбрать все модели на этой
    # карточке профиля; в противном случае, вы не можете отдавать Команду ни одной из этих
    # моделей."
    table = _table({"kaihime": ['Command [Animal] (2/8")']})
    asps = [m.id for m in table.models if m.profile == "asp"]
    g = _game(table, active=2, at={"kaihime": (10.0, 19.0)}, ishi={"counters": 0})
    if len(asps) == 1:
        assert g.is_legal(Action("command", "kaihime", models=(asps[0],)))[0]
    assert "not a animal" in g.is_legal(Action("command", "kaihime", models=("nanako",)))[1]
    table = _table({"kaihime": ['Command [Ashigaru] (2/8")']})
    g = _game(table, active=2, at={"kaihime": (8.0, 18.5)}, ishi={"counters": 0})
    assert "Exhausted" in g.is_legal(Action("command", "kaihime", models=("ishi",)))[1]


def test_command_group_must_take_the_whole_card():
    table = _table({"kaihime": ['Command [Animal] (3/8")']})
    asp = next(m for m in table.models if m.profile == "asp")
    twin = dataclasses.replace(asp, id="asp2", position=(11.0, 21.0))
    table = dataclasses.replace(table, models=table.models + (twin,), _scene=[])
    g = _game(table, active=2, at={"kaihime": (10.0, 19.0)})
    ok, why = g.is_legal(Action("command", "kaihime", models=("asp",)))
    assert not ok and "Group" in why and "asp2" in why
    assert g.is_legal(Action("command", "kaihime", models=("asp", "asp2")))[0]


# ---------------------------------------------------------------- Believer, Disturb Flow
def _feat_cost(g: Game, mid: str, feat: str) -> int:
    g.push(Action("feat", mid, feat=feat))
    ev = next(e for e in reversed(g.events) if e.kind == "feat_used")
    return ev.data["cost"]


def test_believer_worked_example_villagers_within_4_inches_pay_one_ki_less():
    # p.47: "На карте Ашинага Тенага свойство это Сторонник [Селянин] (1/4"), поэтому это
    # свойство делает на 1 Ки дешевле стоимость для моделей Селян в 4"."
    # p.49: "Дружественные модели [Ключевое слово] в пределах Y" от этой модели снижают
    # стоимость своих умений Ки на X."
    table = _table({"ton": ['Believer [Villager] (1/4")']}, types={"akira": ("unique", "villager")})
    near = _game(table, at={"ton": (12.0, 15.0)}, akira={"ki": 4}, kenta={"ki": 4, "position": [15.0, 12.0]})
    assert near.feat_cost_modifier("akira") == -1
    assert _feat_cost(near, "akira", "Do-Kote") == 1  # printed 2
    assert near.feat_cost_modifier("kenta") == 0  # no Villager
    far = _game(table, at={"ton": (12.0, 18.0)}, akira={"ki": 4})
    assert _feat_cost(far, "akira", "Do-Kote") == 2


def test_disturb_flow_makes_enemies_in_range_pay_more_highest_only():
    # p.51: "Нарушение потока (Disturb Flow)(X/Y"): вражеские модели в пределах Y" от этой
    # модели должны тратить X дополнительных жетонов Ki, чтобы выполнить Умения Ки. В
    # области действия нескольких вражеских моделей с этим свойством используется только
    # самое высокое значение X."
    table = _table({"masunagi": ['Disturb Flow (1/4")'], "ishi": ['Disturb Flow (2/6")']})
    g = _game(table, at={"masunagi": (12.0, 14.5), "ishi": (12.0, 16.0)}, akira={"ki": 6})
    assert g.feat_cost_modifier("akira") == 2
    assert _feat_cost(g, "akira", "Do-Kote") == 4
    g2 = _game(table, at={"masunagi": (12.0, 14.5), "ishi": (2.0, 22.0)}, akira={"ki": 1})
    ok, why = g2.is_legal(Action("feat", "akira", feat="Do-Kote"))
    assert not ok  # 2 + 1 Ki, it has 1


def test_a_saved_game_with_support_actions_loads_verified(tmp_path):
    table = _table({"akira": ['Leech (2/4")', 'Command [Ashigaru] (2/8")']}, types={"ton": ("ashigaru",)})
    g = _game(table, akira={"ki": 1}, ton={"ki": 3}, at={"ton": (14.0, 12.0), "kokkio": (10.0, 12.0)})
    g.push(Action("leech", "akira", models=("ton", "ton")))
    g.push(Action("command", "akira", models=("ton", "kokkio")))
    g.push(Action("wait", "ton"))
    g.push(Action("wait", "kokkio"))
    path = tmp_path / "g.json"
    g.save(path)
    back = Game.load(path)
    assert back.snapshot() == g.snapshot()
    assert back.replay().snapshot() == g.snapshot()


def test_the_notation_reads_back_the_nominated_models():
    from sim.rules.notation import action_text, parse_action

    g = _game(_table({"akira": ['Leech (2/4")']}))
    for a in (Action("leech", "akira", models=("ton", "ton")), Action("order", "kenta", models=("akira", "matsu"))):
        assert parse_action(g, action_text(a)) == a
    assert action_text(Action("leech", "akira", models=("ton", "ton"))) == "leech akira models=ton,ton"
